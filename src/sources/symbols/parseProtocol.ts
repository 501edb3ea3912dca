// What the main thread and the parse worker (parseWorker.ts) say to each
// other: plain data, copied by structured clone. The main thread reads every
// file through the guard and sends its text; the worker reads nothing.

import type { Definition, Reference } from './extract.ts';
import type { Grammar } from './languages.ts';

export interface ParseJob {
  rel: string;
  grammar: Grammar;
  /** The grammar's wasm file (the main thread resolves it: tests point one at a broken file). */
  wasm: string;
  text: string;
}

export interface ParseRequest {
  id: number;
  jobs: ParseJob[];
  /** A parse taking longer is given up (tree-sitter checks as it goes). */
  timeoutMs: number;
}

/**
 * One job's result: the file's definitions, its uses of names, and the hashes the repository map ranks by
 * (those of its definitions' and referenced names), why its language goes off (its grammar did not load, a
 * parse timed out), or why this file alone was not indexed (extraction threw on it).
 */
export type ParseOutcome =
  | { rel: string; defs: Definition[]; uses: Reference[]; names: Int32Array }
  | { rel: string; off: string }
  | { rel: string; skip: string };

export interface ParseReply {
  id: number;
  outcomes: ParseOutcome[];
}
