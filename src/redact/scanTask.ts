// The redactor's tasks in the CPU pool (src/shared/cpuPool.ts): a long text's
// content hash (its cache key) and its scan, by the same code as inline (the results are the
// same, byte for byte). Each worker builds its redactor once per option set,
// with its regexes compiled before the first scan, so the scan's deadline
// counts scanning only.

import { contentHash } from '../shared/contentHash.ts';
import type { RedactResult } from '../shared/types.ts';
import { createRedactor, type PooledRedactorOptions, type WarmRedactor } from './createRedactor.ts';

const redactors = new Map<string, Promise<WarmRedactor>>();

function redactorFor(options: PooledRedactorOptions): Promise<WarmRedactor> {
  const key = JSON.stringify(options);
  let redactor = redactors.get(key);
  if (!redactor) {
    redactor = createRedactor({ ...options, warm: true, pool: false, cacheMaxChars: 0 }).then(async (made) => {
      await made.warmedUp;
      return made;
    });
    redactors.set(key, redactor);
  }
  return redactor;
}

export async function scanText(
  options: PooledRedactorOptions,
  text: string,
  path: string | undefined,
): Promise<RedactResult> {
  return (await redactorFor(options)).scanInline(text, path);
}

export function textHash(text: string): string {
  return contentHash(text);
}
