// One way for tests to wait for something the code under test does on its own
// timers (a write queue, a file watcher, a child process): check often, fail
// with a message after a bound. Never a fixed sleep, which is either too short
// on a loaded machine or needlessly long on a quiet one.

import assert from 'node:assert/strict';

export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  { timeoutMs = 10_000, everyMs = 20 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
