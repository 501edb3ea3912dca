// The request body's task in the CPU pool (src/shared/cpuPool.ts): decode,
// shape-check and parse a large body off the event loop, by the same code as
// inline (readJsonBody.ts); the value comes back by structured clone, which
// keeps JSON's own properties (`__proto__` included) and their order.

import { type ParsedBody, parseJsonText } from './readJsonBody.ts';

export function parseJsonBytes(bytes: Uint8Array): ParsedBody {
  return parseJsonText(new TextDecoder().decode(bytes));
}
