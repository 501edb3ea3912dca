// "Who calls X", "where is X used", "which tests exercise X": the lines that
// use the name, listed like the other relations (one per file first), from
// the uses tree-sitter stored where the index has them and the name's hits
// elsewhere, ranked by one rule for every language: a call over a line that
// only names it, a definition or a comment never a use.

import { definitionTest, IMPORT_LINE, isTestPath } from './regions.ts';
import type { GrepHit } from './search.ts';

export interface AskedUses {
  /** Who calls or uses it. */
  calls: boolean;
  /** Which tests exercise it: only test files answer. */
  tests: boolean;
}

/** "which version do we use" is not about callers: a bare "use" counts after a place or a subject only. */
const ASKS_CALLERS =
  /\b(?:who|what|which|where)\b[^.?!\n]{0,60}?\b(?:calls?|called|uses|used|invok\w*|referenc\w*)\b|\b(?:which|what) (?:files?|code|functions?|methods?|modules?|classes|places?) (?:\w+ )?use\b|\bwhere (?:do|does|is|are) (?:we|i|you|it|they) use\b|\b(?:callers?|call sites?|usages?|references?) (?:of|to|for)\b|\bcallers\b/i;
const ASKS_TESTS =
  /\b(?:which|what|any)\s+(?:unit\s+|integration\s+)?tests?\b[^.?!\n]{0,40}?\b(?:exercis\w*|call\w*|cover\w*|uses?|using|hit\w*|touch\w*|check\w*|verif\w*)\b|\btests?\s+(?:for|of|that (?:call|use|exercise|cover))\b|\bwhere is (?:it|that|\S+) tested\b/i;

/** Whether the question asks who uses a name, or which tests exercise it. */
export function askedUses(text: string): AskedUses | undefined {
  const tests = ASKS_TESTS.test(text);
  const calls = !tests && ASKS_CALLERS.test(text);
  return calls || tests ? { calls, tests } : undefined;
}

/** A line that says nothing to the code: a comment in the common comment syntaxes. */
const COMMENT = /^\s*(?:\/\/|\/\*|\*(?:\s|\/|$)|#(?![a-z![])|--|;|%)/;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * How a line uses the names: 2 for a call (`name(`, `name!(`, `(name args)`, `|> name`, or a call through it,
 * `name.f(`, `name:f(`, `name::f(`, `(name/f`), 1 for another mention, 0 for a definition, a comment or none.
 */
export function useRank(names: readonly string[]): (line: string) => number {
  const simple = names.filter((name) => /^[A-Za-z_$][\w$-]*$/.test(name));
  if (simple.length === 0) return () => 0;
  const alt = simple.map(escapeRegExp).join('|');
  const token = new RegExp(`(?<![\\w$-])(?:${alt})(?![\\w$-])`);
  // A call through it (`json.parse(`, `cowboy_req:reply(`, `fmt::format(`), though `name:` also opens a key.
  const through = new RegExp(`(?<![\\w$-])(?:${alt})(?:\\.|::|:|/)[A-Za-z_]\\w*\\s*\\(`);
  const call = new RegExp(
    `(?<![\\w$-])(?:${alt})!?\\s*\\(|\\(\\s*(?:[\\w.-]+/)?(?:${alt})\\s|\\|>\\s*(?:[\\w.]+\\.)?(?:${alt})\\b`,
  );
  const defines = definitionTest(simple);
  // A function's clause at the margin (`parse(Bin) ->`, `parse_args(int argc,`), a Lisp `(defn parse`, the
  // line that names the module it begins (`-module(cowboy_req).`, `(ns app.router`, `package router`).
  const clause = new RegExp(
    `^(?:${alt})\\s*\\((?!.*[;)]\\s*$)|^\\s*\\(def[\\w-]*\\s+\\^?[\\w:]*\\s*(?:${alt})(?![\\w$-])|^\\s*[-(]?\\s*(?:module|ns|package|namespace)[\\s(]+(?:[\\w.-]+[./])?(?:${alt})(?![\\w$-])`,
  );
  // A declaration without a body (`std::string format(const char* f);`): types before the name and in its
  // parameters, ended by `;`. The head is one pattern; the parameters and the rest are checked in steps, each
  // linear in the line (one pattern for the whole, `[^()=]*\b[\w:<>]+…[^()=]*`, went quadratic).
  const prototypeHead = new RegExp(
    `^\\s*(?!(?:return|else|case|throw|await|yield|new|delete|goto|co_return|co_await)\\b)(?:[\\w:<>,]+[\\s*&]+)+(?:${alt})\\s*\\(`,
  );
  // The name inside a quoted path only (`#include "fmt/format.h"`): a use of the file, not of the symbol.
  const unquoted = (line: string) => token.test(line.replace(/"[^"]*"|'[^']*'|<[\w./-]+>/g, '""'));
  return (line) => {
    if (!token.test(line) || COMMENT.test(line) || clause.test(line) || isPrototype(line, prototypeHead)) return 0;
    if (IMPORT_LINE.test(line) && !unquoted(line)) return 0;
    const viaName = through.test(line);
    if (!viaName && defines(line) !== undefined) return 0;
    return viaName || call.test(line) ? 2 : 1;
  };
}

/**
 * Whether `line` declares the name without a body: after `head` (the types and the name up to `(`), parameters
 * that are empty, `void`, or hold a type and a name (`const char* f`), no `(` or `=` among them, then `)` and
 * anything but `=` up to a final `;`.
 */
function isPrototype(line: string, head: RegExp): boolean {
  const opened = head.exec(line);
  if (!opened) return false;
  const rest = line.slice(opened[0].length);
  const close = rest.search(/[()=]/);
  if (close === -1 || rest[close] !== ')') return false;
  const params = rest.slice(0, close);
  if (params.trim() !== '' && !/^\s*void\s*$/.test(params) && !/[\w:<>][\s*&]+\w/.test(params)) return false;
  return /^[^;=]*;\s*$/.test(rest.slice(close + 1));
}

/**
 * The hits that answer a uses question, with their rank: the stored uses first (a use tree-sitter saw as a
 * call ranks as one, whatever its line looks like), then the name's hits; only test files when tests are
 * asked about. A definition is never a use (the stored uses hold none; the rank gives its line 0).
 */
export function usesOf(
  asked: AskedUses,
  names: readonly string[],
  stored: readonly (GrepHit & { kind: string })[],
  hits: readonly GrepHit[],
): { hits: GrepHit[]; rank: (line: string) => number } {
  const inScope = (hit: GrepHit) => !asked.tests || isTestPath(hit.rel);
  const base = useRank(names);
  const calls = new Set(stored.filter((hit) => hit.kind === 'call').map((hit) => hit.text));
  return {
    hits: [...stored, ...hits].filter(inScope),
    rank: (line) => {
      const rank = base(line);
      return rank > 0 && calls.has(line) ? 2 : rank;
    },
  };
}
