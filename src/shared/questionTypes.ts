// What the question analysis (question.ts) returns: its types alone, so that
// shared/types.ts can name a Question without importing the analysis, which
// itself reads chat messages from types.ts.

/** Kinds of evidence a question asks for, by its words. */
export const INTENTS = ['uses', 'definition', 'history', 'version', 'configuration', 'tests', 'build'] as const;
export type Intent = (typeof INTENTS)[number];

export interface QuestionIdentifier {
  /** As written: `parseInvoice`, `OrderService.create`, `crate::rates::compute`. */
  term: string;
  /** Names to look up, qualified first, then its trailing parts (`a.b.c` → `a.b.c`, `b.c`, `c`). */
  tries: string[];
  /** Written in backticks or quotes: code whatever its shape. */
  quoted: boolean;
  /**
   * A plain word taken as a name only from where it stands: a kind noun beside it ("the testutil module"), or
   * a capital inside a sentence ("which classes extend Adapter").
   */
  guessed?: boolean | undefined;
  /** Guessed from its capital alone ("Python", "Adapter"): searched as a name, but not a term the budget ranks by. */
  proper?: boolean | undefined;
}

export interface QuestionPath {
  /** Without `@`, `file:`, trailing punctuation or `:line:col`. */
  token: string;
  /** Named in prose or with `@`; false when it only appeared inside a code block. */
  explicit: boolean;
}

export interface QuestionSubject {
  identifiers: QuestionIdentifier[];
  paths: QuestionPath[];
  /** How many user turns back it was named (1: the turn before the latest). */
  turnsBack: number;
}

export interface Question {
  /** The latest user message as parsed (bounded; the message itself is forwarded whole). */
  text: string;
  identifiers: QuestionIdentifier[];
  paths: QuestionPath[];
  /** Text in quotes or backticks that is not one identifier (`"connection refused"`). */
  quoted: string[];
  /** Lines that read as error output (`TypeError: …`, `error[E0382]: …`, `panic: …`). */
  errors: string[];
  /**
   * Version numbers as written (`8.1.0`, `v2.3`, `3.12`, `1.0.0-rc.1`): a release, a runtime or a dependency the
   * question is about, spelt the same in a changelog's heading, a tag, a manifest or a CI matrix.
   */
  versions: string[];
  /** Package-like names: `@scope/pkg`, and the word after "package", "crate", "module", "library", "version of". */
  packages: string[];
  /** Other words that are not stop words (lower-cased), for questions that name nothing code-shaped. */
  words: string[];
  intents: Intent[];
  /**
   * When the latest turn names no identifier and no path, what the nearest
   * earlier user turn named ("and where is it used?" is about that).
   */
  subject?: QuestionSubject | undefined;
  /** Paths named in the earlier user turns (the folders in play for instructions and manifests). */
  earlierPaths: QuestionPath[];
}
