// Comparing a token a client sent with the one ctxproxy was started with.

import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time equality; hashing first makes the lengths equal, so length leaks nothing either. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}
