// The word lists the redactor judges values by (rules/words.json): data
// beside the rules, not code, so that a list grows without touching the
// judgements that use it. Read once at start-up and checked with zod, as the
// rule files are; a bad list fails the boot, not a request.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

export const DEFAULT_WORDS_FILE = fileURLToPath(new URL('../../rules/words.json', import.meta.url));

const list = z
  .object({
    description: z.string().min(1),
    words: z
      .array(
        z
          .string()
          .min(1)
          .refine((w) => w === w.toLowerCase(), 'words are written lower-case'),
      )
      .min(1),
  })
  .strict();

const wordsFileSchema = z
  .object({
    description: z.string().min(1),
    placeholder: list,
    defaultCredentials: list,
    compoundParts: list,
    madeUpParts: list,
    runTogether: list,
    hexWords: list,
    nameFillers: list,
    functionWords: list,
    describing: list,
    englishClusters: list,
  })
  .strict();

export type WordListName = Exclude<keyof z.infer<typeof wordsFileSchema>, 'description'>;

/** Every list of `file` as a set of lower-case words; throws with the file's name and the zod issue when it is malformed. */
export function loadWordLists(file: string = DEFAULT_WORDS_FILE): Record<WordListName, ReadonlySet<string>> {
  const parsed = wordsFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${file}: [${issue.path.join('.')}] ${issue.message}`);
  }
  const { description: _, ...lists } = parsed.data;
  const sets = {} as Record<WordListName, ReadonlySet<string>>;
  for (const name of Object.keys(lists) as WordListName[]) sets[name] = new Set(lists[name].words);
  return sets;
}

/** The shipped lists, loaded once when the redactor's modules are. */
export const WORDS = loadWordLists();
