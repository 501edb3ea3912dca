// The longest stretch of CPU the main thread spent between two turns of a
// 1 ms timer: the longest synchronous task on the event loop, measured in the
// thread's own CPU time (Linux: /proc/thread-self/schedstat, nanoseconds on a
// CPU) rather than wall-clock. On a loaded machine a wall-clock block also
// holds the time the scheduler gave the core to other processes (or to our
// own CPU pool's worker); this figure does not, so it moves far less between
// runs and says what the code itself holds the loop for.

import { readFileSync } from 'node:fs';

const SCHEDSTAT = '/proc/thread-self/schedstat';

/** Milliseconds the calling thread has run on a CPU (NaN where the kernel does not say). */
export function threadCpuMs(): number {
  return (threadCpuNs() ?? Number.NaN) / 1e6;
}

/** Nanoseconds the calling thread has run on a CPU; undefined where the kernel does not say. */
function threadCpuNs(): number | undefined {
  try {
    return Number(readFileSync(SCHEDSTAT, 'latin1').split(' ', 1)[0]);
  } catch {
    return undefined;
  }
}

export interface CpuGapMeter {
  /** Stops and gives the longest gap's main-thread CPU in ms (undefined off Linux). */
  stop(): number | undefined;
}

export function meterCpuGaps(): CpuGapMeter {
  if (threadCpuNs() === undefined) return { stop: () => undefined };
  let last = threadCpuNs() as number;
  let longest = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    const now = threadCpuNs() as number;
    longest = Math.max(longest, now - last);
    last = now;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  return {
    stop() {
      clearTimeout(timer);
      tick();
      clearTimeout(timer);
      return longest / 1e6;
    },
  };
}
