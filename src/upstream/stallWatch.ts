// The idle timeout between chunks, once the upstream has answered. Only the time
// spent waiting on the upstream counts: while our consumer holds a chunk (a slow
// client, backpressure) the upstream is not to blame. One timer per stream,
// re-armed with refresh(), so a token costs no new timer.

import { clearTimeout, setTimeout } from 'node:timers';

export interface StallWatch {
  /** About to wait for the next chunk: the clock runs. */
  waiting(): void;
  /** A chunk arrived (or the stream ended): the clock stops. */
  received(): void;
  /** Stops the timer for good. */
  stop(): void;
  /** True once the upstream stayed silent for the limit while we waited. */
  readonly stalled: boolean;
}

export function createStallWatch(limitMs: number, onStall: () => void): StallWatch {
  let waiting = false;
  let stalled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fire = () => {
    if (!waiting || stalled) return;
    stalled = true;
    onStall();
  };
  return {
    waiting() {
      waiting = true;
      if (timer) timer.refresh();
      else {
        timer = setTimeout(fire, limitMs);
        timer.unref();
      }
    },
    received() {
      waiting = false;
    },
    stop() {
      waiting = false;
      if (timer) clearTimeout(timer);
    },
    get stalled() {
      return stalled;
    },
  };
}
