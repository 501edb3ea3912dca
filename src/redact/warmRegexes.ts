// V8 compiles a regex on its first exec (to bytecode) and again when it tiers
// up to native code (the next exec), once for one-byte and once for two-byte
// subjects. For the larger rule patterns that is slow, and it was paid inside
// whichever request first brought a rule's keywords: a short error message
// could hold the event loop for a quarter of a second, and pieces of random
// base64 that hit rare keywords took ten times their usual time. Warming them
// after start, one regex per turn of the
// event loop, moves that cost out of the requests. Compiled code is kept (V8
// does not flush it on garbage collection).

/** Each subject twice: the first exec compiles bytecode, the second tiers up to native code. */
const SUBJECTS = ['x', 'x\u20ac'];

function warmOne(regex: RegExp): void {
  for (const subject of SUBJECTS) {
    for (let i = 0; i < 2; i++) {
      regex.lastIndex = 0;
      regex.exec(subject);
    }
  }
  regex.lastIndex = 0;
}

/**
 * Compiles `regexes` one per macrotask; resolves when all are done. Scans never interleave with a warm-up step (both are synchronous), so the
 * shared regexes' lastIndex is never disturbed mid-scan.
 */
export function warmRegexes(regexes: readonly RegExp[]): Promise<void> {
  return new Promise((resolve) => {
    let next = 0;
    const step = () => {
      if (next >= regexes.length) {
        resolve();
        return;
      }
      warmOne(regexes[next++] as RegExp);
      setTimeout(step, 0);
    };
    step();
  });
}
