// Markers code carries (deprecated, TODO, skipped tests, unsafe, …) and how
// each language spells them: data (rules/markers.json), so that a question
// about marked code is answered by one mechanism, a listing of every marked
// line, and a new marker or spelling is a line in the table, not code.
// Read once at start-up and checked with zod; a bad table fails the boot.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const DEFAULT_MARKERS_FILE = fileURLToPath(new URL('../../../rules/markers.json', import.meta.url));

const markersFileSchema = z
  .object({
    description: z.string().min(1),
    markers: z
      .array(
        z
          .object({
            id: z.string().regex(/^[a-z][a-z-]*$/),
            // An unbounded gap (`[^.]*`, `.+`) between two words rescans the rest of the question from every
            // first word: quadratic on a long one. A bounded gap (`{0,80}`) keeps the test linear.
            asked: z
              .string()
              .min(1)
              .refine((pattern) => !/(?:\[\^[^\]]*\]|(?<!\\)\.)[*+]/.test(pattern), {
                message: 'an unbounded gap ([^…]* or .*) is quadratic on a long question: bound it, e.g. {0,80}',
              }),
            spellings: z.array(z.string().min(2).max(60)).min(1),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();

export interface Marker {
  id: string;
  /** Says the question is about this marker (case-insensitive, over the question's text). */
  asked: RegExp;
  /** The marker as code writes it, fixed strings matched case-sensitively. */
  spellings: readonly string[];
}

/** The table of `file`; throws with the file's name and the first problem when it is malformed. */
export function loadMarkers(file: string = DEFAULT_MARKERS_FILE): readonly Marker[] {
  const parsed = markersFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${file}: [${issue?.path.join('.')}] ${issue?.message}`);
  }
  return parsed.data.markers.map((marker) => ({
    id: marker.id,
    asked: new RegExp(marker.asked, 'i'),
    spellings: marker.spellings,
  }));
}

const MARKERS = loadMarkers();

/** The markers a question is about ("what is deprecated", "which TODOs are left"). */
export function markersAsked(text: string, markers: readonly Marker[] = MARKERS): Marker[] {
  return markers.filter((marker) => marker.asked.test(text));
}

const WORD_CHAR = /\w/;

/**
 * Whether `line` carries one of the spellings as a marker: an end of the spelling that is a word character must
 * meet a non-word one (or the line's end), so `TODO` is found in `// TODO: x` and not in `TODOS` or `addTODO`.
 */
export function marks(line: string, spellings: readonly string[]): boolean {
  for (const spelling of spellings) {
    const wordStart = WORD_CHAR.test(spelling[0] ?? '');
    const wordEnd = WORD_CHAR.test(spelling[spelling.length - 1] ?? '');
    for (let at = line.indexOf(spelling); at >= 0; at = line.indexOf(spelling, at + 1)) {
      const before = line[at - 1];
      const after = line[at + spelling.length];
      if (wordStart && before !== undefined && WORD_CHAR.test(before)) continue;
      if (wordEnd && after !== undefined && WORD_CHAR.test(after)) continue;
      return true;
    }
  }
  return false;
}

/**
 * The spellings a question writes itself ("TODOs or FIXMEs" → `TODO`, `FIXME`), as words, in any case, plural or
 * not: among a marker's spellings (`XXX`, `HACK` beside them) these are what the question lists first.
 */
export function spellingsSaid(text: string, spellings: readonly string[]): string[] {
  const words = new Set((text.slice(0, 4_000).match(/[A-Za-z][\w-]*/g) ?? []).map((word) => word.toLowerCase()));
  return spellings.filter((spelling) => {
    const word = spelling.replace(/^\W+|\W+$/g, '').toLowerCase();
    return word.length >= 2 && (words.has(word) || words.has(`${word}s`) || words.has(`${word}es`));
  });
}
