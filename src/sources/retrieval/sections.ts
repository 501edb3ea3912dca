// A document's sections. A hit on a heading ("## Version 8.1.0", "Installation"
// underlined) is where the document starts to say what the question asks: the
// answer is the entries under it, not the heading line with one line either
// side. Markdown (`#` and underlined), reStructuredText (any underline
// character) and AsciiDoc (`=`) headings; a section ends at the next heading
// of its level or above, or at `maxLines`. (Org's `*` headings are left out:
// in Markdown the same mark opens a list item.)

/** A Markdown or AsciiDoc heading: its marks give the level. */
const MARKED = /^(#{1,6}|={1,6})\s+\S/;
/** Characters an underline (setext or reStructuredText) is made of: one of them, three times or more. */
const UNDERLINE_MARKS = '=-~^"\'`#*+:.';

/**
 * The character a line underlines with, if it is an underline. A loop, not `^(.)\1{2,}\s*$`: a back-reference
 * repeated over a line of millions of one mark overflows the regular expression engine's backtracking stack.
 */
function underlineOf(line: string): string | undefined {
  const mark = line.charAt(0);
  if (mark === '' || !UNDERLINE_MARKS.includes(mark)) return undefined;
  let i = 1;
  while (i < line.length && line[i] === mark) i++;
  if (i < 3) return undefined;
  return line.slice(i).trim() === '' ? mark : undefined;
}
const FENCE = /^\s*(?:```|~~~)/;

type Heading = { marks: string; level: number } | { underline: string };

function headingAt(lines: readonly string[], at: number): Heading | undefined {
  const line = lines[at] ?? '';
  const marked = MARKED.exec(line)?.[1];
  if (marked) return { marks: marked.charAt(0), level: marked.length };
  // A title line (not blank, not itself an underline) over an underline at least about as long.
  const under = underlineOf(lines[at + 1] ?? '');
  if (under && line.trim() !== '' && underlineOf(line) === undefined && (lines[at + 1] ?? '').trim().length >= 3)
    return { underline: under };
  return undefined;
}

/** Whether `next` closes a section opened by `open`: a heading of the same kind at its level or above. */
function closes(open: Heading, next: Heading): boolean {
  if ('marks' in open) return 'marks' in next && next.marks === open.marks && next.level <= open.level;
  // Underline styles carry no level of their own: the same character is the same level; a marked heading of a
  // Markdown file mixing both styles closes it too.
  return 'underline' in next ? next.underline === open.underline : next.level <= 2;
}

/**
 * The section a heading at `at` opens (the heading's line to the line before the next heading of its level),
 * at most `maxLines` long; undefined when the line is no heading.
 */
export function sectionBlock(
  lines: readonly string[],
  at: number,
  maxLines: number,
): { start: number; end: number } | undefined {
  const open = headingAt(lines, at);
  if (!open) return undefined;
  const last = Math.min(lines.length - 1, at + maxLines - 1);
  let fenced = false;
  // The underline belongs to the heading.
  for (let i = at + (('underline' in open) ? 2 : 1); i <= last; i++) {
    if (FENCE.test(lines[i] ?? '')) fenced = !fenced;
    if (fenced) continue;
    const next = headingAt(lines, i);
    if (next && closes(open, next)) {
      let end = i - 1;
      while (end > at && (lines[end] ?? '').trim() === '') end--;
      return { start: at, end };
    }
  }
  return { start: at, end: last };
}
