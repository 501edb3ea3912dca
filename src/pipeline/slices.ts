// Work over many small items (the strings of a tool schema, the messages of a
// long conversation) done one item after another, letting other requests run
// every few milliseconds. A Promise.all over all of them would start every
// item's synchronous part at once, and microtasks never let the event loop in:
// 10,000 messages or 100,000 schema strings held every other request (and
// /healthz) for seconds.

import { setImmediate } from 'node:timers/promises';

/** The longest a slice runs before other requests get a turn. */
export const SLICE_MS = 8;

/** `map` over `items` in order, one at a time, yielding to the event loop every SLICE_MS. */
export async function mapInSlices<T, R>(items: Iterable<T>, map: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  let sliceStarted = performance.now();
  for (const item of items) {
    out.push(await map(item));
    if (performance.now() - sliceStarted > SLICE_MS) {
      await setImmediate();
      sliceStarted = performance.now();
    }
  }
  return out;
}
