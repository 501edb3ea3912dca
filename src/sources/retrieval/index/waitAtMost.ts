// The index builds (chunks, history) are waited for by requests, each for at most its own allowance.

/**
 * Resolves when `promise` settles or after `ms`, whichever comes first, and never rejects. The timer keeps the
 * process alive: a one-shot `preview` waiting for an index must not exit because the build's own pauses do not
 * hold the process.
 */
export function waitAtMost(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, ms));
    void promise.then(resolve, resolve);
  }).finally(() => clearTimeout(timer));
}
