// The token counter's task in the CPU pool (src/shared/cpuPool.ts): one
// request's new texts counted by the same code as inline (tokenCounter.ts's
// countOne), with this worker's own count cache, so a long history sent again
// is hashed here, not tokenized again.

import { createCountAll } from './tokenCounter.ts';

export const countTexts = createCountAll();
