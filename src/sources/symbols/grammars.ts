// Loads the tree-sitter runtime and its grammars once per thread, on first
// use: only the parse worker (parseWorker.ts) does. A grammar that fails to
// load is remembered as failed with its reason, so the symbol source turns
// that language off (and says so) instead of failing requests or retrying the
// load for every file.

import { createRequire } from 'node:module';
import type * as TreeSitter from '@vscode/tree-sitter-wasm';
import type { Grammar } from './languages.ts';

const require = createRequire(import.meta.url);

type Runtime = typeof TreeSitter;

export type Loaded = { ok: true; parser: TreeSitter.Parser } | { ok: false; reason: string };

let runtime: Promise<Runtime> | undefined;
/** By wasm file. */
const grammars = new Map<string, Promise<Loaded>>();

function loadRuntime(): Promise<Runtime> {
  runtime ??= (async () => {
    const mod = require('@vscode/tree-sitter-wasm') as Runtime;
    await mod.Parser.init();
    return mod;
  })();
  return runtime;
}

/** Where a grammar's wasm file lives (tests point one at a broken file). */
export type GrammarLocator = (grammar: Grammar) => string;

export const defaultLocator: GrammarLocator = (grammar) =>
  require.resolve(`@vscode/tree-sitter-wasm/wasm/tree-sitter-${grammar}.wasm`);

/** A parser for `grammar` (from the file `locate` names), or why there is none. Never rejects. */
export function loadGrammar(grammar: Grammar, locate: GrammarLocator = defaultLocator): Promise<Loaded> {
  const wasm = locate(grammar);
  const known = grammars.get(wasm);
  if (known) return known;
  const loading = (async (): Promise<Loaded> => {
    try {
      const mod = await loadRuntime();
      const language = await mod.Language.load(wasm);
      const parser = new mod.Parser();
      parser.setLanguage(language);
      return { ok: true, parser };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, reason: `grammar failed to load (${message.slice(0, 120)})` };
    }
  })();
  grammars.set(wasm, loading);
  return loading;
}

/**
 * Parses `text`, giving up after `timeoutMs` (tree-sitter checks the callback
 * as it goes). Undefined on timeout; the caller turns the language off.
 */
export function parseWithin(parser: TreeSitter.Parser, text: string, timeoutMs: number): TreeSitter.Tree | undefined {
  const deadline = performance.now() + timeoutMs;
  // The callback's declared type says void, but returning true cancels the parse (documented above it).
  const progressCallback = (() => performance.now() > deadline) as unknown as (state: TreeSitter.ParseState) => void;
  try {
    return parser.parse(text, null, { progressCallback }) ?? undefined;
  } catch {
    return undefined;
  }
}
