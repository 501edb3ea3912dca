// Decides, from a rule's regex source, whether any match stays on one line.
// Such a rule needs to run only on the lines where its keywords occur, not on
// the lines around them too: a third of the text or less for the costly
// keyword-style rules. Conservative: whatever it cannot judge counts as
// possibly crossing a line break, and the rule keeps its wider window.

/** Escapes that can match a line feed (or that we do not judge): `\s \W \D \n \p \P \x \u \c`, any of `\0-\9` but backreferences. */
const ESCAPES_WITH_LINE_FEED = new Set(['s', 'W', 'D', 'n', 'p', 'P', 'x', 'u', 'c', '0']);

/** Reads a `[...]` class at `open`; returns where it ends and whether it can match a line feed. */
function readClass(source: string, open: number): { end: number; lineFeed: boolean } {
  let i = open + 1;
  const negated = source[i] === '^';
  if (negated) i++;
  // `[]` matches nothing, `[^]` anything.
  if (source[i] === ']') return { end: i + 1, lineFeed: negated };
  let excludesLineFeed = false;
  let mayIncludeLineFeed = false;
  for (; i < source.length && source[i] !== ']'; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      i++;
      if (next === 'n' || next === 's') excludesLineFeed = true;
      if (ESCAPES_WITH_LINE_FEED.has(next)) mayIncludeLineFeed = true;
    } else if (c.charCodeAt(0) <= 10) {
      // A literal control character, or a range that may start at one.
      mayIncludeLineFeed = true;
      excludesLineFeed = c === '\n' ? true : excludesLineFeed;
    }
  }
  return { end: i + 1, lineFeed: negated ? !excludesLineFeed : mayIncludeLineFeed };
}

/**
 * True when no match of `source` with `flags` (nor any look-around in it)
 * can contain a line feed, and it has no `^`/`$` that mean "start/end of the
 * whole text" (without the `m` flag), which a line window would change.
 */
export function staysOnOneLine(source: string, flags: string): boolean {
  const multiline = flags.includes('m');
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '(' && source.startsWith('(?:^|[', i)) {
      // `(?:^|[^A-Za-z0-9_])`: "line start or a character that may be the line feed" reads the same in a line window.
      const cls = readClass(source, i + 5);
      if (cls.lineFeed && source[cls.end] === ')') {
        i = cls.end;
        continue;
      }
    }
    if (c === '\\') {
      if (ESCAPES_WITH_LINE_FEED.has(source[i + 1] ?? '')) return false;
      i++;
    } else if (c === '[') {
      const cls = readClass(source, i);
      if (cls.lineFeed) return false;
      i = cls.end - 1;
    } else if (c === '.') {
      if (flags.includes('s')) return false;
    } else if (c === '^' || c === '$') {
      if (!multiline) return false;
    } else if (c === '\n' || c === '\r') {
      return false;
    }
  }
  return true;
}
