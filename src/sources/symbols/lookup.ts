// From the terms of a question to context items: each identifier's
// definitions (the code from its signature down, bounded) and the outline of
// each file in play (named, or holding a definition found). The file text is
// read again through the guard when rendering: the index keeps line ranges and
// offsets, not code, and a definition whose text moved since (the file changed)
// is left out until the file is parsed again.

import type { QuestionIdentifier } from '../../shared/question.ts';
import type { ContextItem } from '../../shared/types.ts';
import type { FileGuard, Zone } from '../workspace/guard.ts';
import { admit } from './admit.ts';
import { type Definition, definitionAt } from './extract.ts';
import type { SymbolIndex } from './symbolIndex.ts';
import type { StoredDefinition } from './symbolTables.ts';

/** A definition found, read back from its file. */
export interface DefinitionHit {
  rel: string;
  def: Definition;
}

/** What a lookup searches for: the question's identifiers and path tokens. */
export interface Terms {
  identifiers: readonly QuestionIdentifier[];
  paths: readonly string[];
}

export interface LookupLimits {
  /** Definitions shown per identifier (a bare `create` may match many). */
  perTerm: number;
  definitions: number;
  outlines: number;
  bodyLines: number;
  bodyChars: number;
  outlineEntries: number;
}

export const defaultLookupLimits: LookupLimits = {
  perTerm: 3,
  definitions: 8,
  outlines: 4,
  bodyLines: 60,
  bodyChars: 4_000,
  outlineEntries: 60,
};

const TEST_PATH = /(^|\/)(tests?|__tests__|spec|testdata|fixtures?)\/|[._-](test|spec)\.\w+$|(^|\/)test_[^/]+\.py$/i;

/** Files the path tokens name: an exact listing entry, else entries ending in `/token` (at most 3 each). */
export function resolvePaths(tokens: readonly string[], listing: readonly string[]): string[] {
  const out: string[] = [];
  const all = new Set(listing);
  for (const raw of tokens) {
    const token = raw.replace(/^\.\//, '');
    if (all.has(token)) {
      if (!out.includes(token)) out.push(token);
      continue;
    }
    if (token.includes('..')) continue;
    let n = 0;
    for (const rel of listing) {
      if (rel.endsWith(`/${token}`) && !out.includes(rel)) {
        out.push(rel);
        if (++n >= 3) break;
      }
    }
  }
  return out;
}

/** Definitions for each identifier: the first name that matches wins (qualified before bare). */
export function findDefinitions(
  index: SymbolIndex,
  terms: Terms,
  inPlay: ReadonlySet<string>,
  reader: LineReader,
  limits: LookupLimits = defaultLookupLimits,
): { hits: DefinitionHit[]; missed: string[] } {
  const hits: DefinitionHit[] = [];
  const missed: string[] = [];
  const seen = new Set<string>();
  type Stored = { rel: string; def: StoredDefinition };
  const rank = (hit: Stored) => (inPlay.has(hit.rel) ? 0 : 4) + (TEST_PATH.test(hit.rel) ? 2 : 0);
  for (const { term, tries } of terms.identifiers) {
    let found: DefinitionHit[] = [];
    for (const name of tries) {
      const sorted = index
        .lookup(name)
        .sort(
          (a, b) =>
            rank(a) - rank(b) || a.rel.length - b.rel.length || a.rel.localeCompare(b.rel) || a.def.line - b.def.line,
        );
      // Read back from the files, best first, until the term has its share: the key matched, the text says.
      found = [];
      for (const stored of sorted) {
        const def = reader.definition(stored.rel, stored.def);
        if (def && (def.name === name || def.qualified === name)) found.push({ rel: stored.rel, def });
        if (found.length >= limits.perTerm) break;
      }
      if (found.length > 0) break;
    }
    if (found.length === 0) {
      missed.push(term);
      continue;
    }
    for (const hit of found) {
      const id = `${hit.rel}#${hit.def.qualified}#${hit.def.line}`;
      if (seen.has(id) || hits.length >= limits.definitions) continue;
      seen.add(id);
      hits.push(hit);
    }
  }
  return { hits, missed };
}

/** Reads files for rendering, once per file per collection. */
export class LineReader {
  readonly #cache = new Map<string, string[] | undefined>();
  readonly #texts = new Map<string, string | undefined>();

  constructor(
    private readonly guard: FileGuard,
    private readonly zone: Zone,
    private readonly root: string,
  ) {}

  lines(rel: string): string[] | undefined {
    if (this.#cache.has(rel)) return this.#cache.get(rel);
    const lines = this.text(rel)?.split('\n');
    this.#cache.set(rel, lines);
    return lines;
  }

  text(rel: string): string | undefined {
    if (this.#texts.has(rel)) return this.#texts.get(rel);
    const read = admit(this.guard, this.zone, this.root, rel);
    const text = 'text' in read ? read.text : undefined;
    this.#texts.set(rel, text);
    return text;
  }

  /** A stored definition read back from its file; undefined when the file no longer holds it there. */
  definition(rel: string, stored: StoredDefinition): Definition | undefined {
    const text = this.text(rel);
    return text === undefined ? undefined : definitionAt(text, stored);
  }

  /** A file's stored definitions read back (those its text still holds). */
  definitions(rel: string, stored: readonly StoredDefinition[]): Definition[] {
    const out: Definition[] = [];
    for (const def of stored) {
      const read = this.definition(rel, def);
      if (read) out.push(read);
    }
    return out;
  }
}

export function definitionItem(
  hit: DefinitionHit,
  reader: LineReader,
  limits = defaultLookupLimits,
): ContextItem | undefined {
  const lines = reader.lines(hit.rel);
  if (!lines) return undefined;
  const { def, rel } = hit;
  const last = Math.min(def.endLine, lines.length, def.line + limits.bodyLines - 1);
  let body = lines.slice(def.line - 1, last).join('\n');
  let truncated = last < def.endLine;
  if (body.length > limits.bodyChars) {
    body = body.slice(
      0,
      body.lastIndexOf('\n', limits.bodyChars) > 0 ? body.lastIndexOf('\n', limits.bodyChars) : limits.bodyChars,
    );
    truncated = true;
  }
  if (truncated) body += `\n… definition continues to line ${def.endLine} (${rel}:${def.line}-${def.endLine})`;
  return {
    key: `symbols.def.${rel}#${def.qualified}@${def.line}`,
    source: 'symbols',
    title: `${def.kind} ${def.qualified} — ${rel}:${def.line}-${def.endLine}`,
    text: body,
    priority: 88,
    kind: 'code',
    path: rel,
    why: `defines ${def.qualified}, named in the question`,
    ...(truncated ? { truncated: true } : {}),
  };
}

/** One line per definition, indented by nesting: `L12-30 def parse(text: str) -> dict`. */
export function outlineText(defs: readonly Definition[], max: number): { text: string; truncated: boolean } {
  const lines = defs
    .slice(0, max)
    .map(
      (def) =>
        `${'  '.repeat(def.depth)}L${def.line}${def.endLine > def.line ? `-${def.endLine}` : ''} ${def.signature}`,
    );
  const truncated = defs.length > max;
  if (truncated) lines.push(`… ${defs.length - max} more definitions`);
  return { text: lines.join('\n'), truncated };
}

/** Outline entries kept on each side of a definition the question asked about, in its file's outline. */
export const OUTLINE_RADIUS = 6;

/**
 * The outline entries near the definitions at `lines` (the ones a question named, and their containers): what
 * surrounds the answer, not the map of the whole file (a 60-entry outline is ~800 tokens beside a definition of
 * ten lines). The entries left out are counted where they were.
 */
export function outlineNear(
  defs: readonly Definition[],
  lines: readonly number[],
  radius = OUTLINE_RADIUS,
): { text: string; truncated: boolean } {
  const keep = new Set<number>();
  defs.forEach((def, i) => {
    // The asked definition, its containers (a class around a method), and its neighbours.
    if (lines.includes(def.line)) for (let j = Math.max(0, i - radius); j <= i + radius; j++) keep.add(j);
    if (lines.some((line) => def.line < line && line <= def.endLine)) keep.add(i);
  });
  const out: string[] = [];
  let skipped = 0;
  defs.forEach((def, i) => {
    if (!keep.has(i)) {
      skipped++;
      return;
    }
    if (skipped > 0) out.push(`… ${skipped} more definitions`);
    skipped = 0;
    out.push(
      `${'  '.repeat(def.depth)}L${def.line}${def.endLine > def.line ? `-${def.endLine}` : ''} ${def.signature}`,
    );
  });
  if (skipped > 0) out.push(`… ${skipped} more definitions`);
  return { text: out.join('\n'), truncated: keep.size < defs.length };
}

export function outlineItem(
  rel: string,
  defs: readonly Definition[],
  limits = defaultLookupLimits,
  why = 'the definitions of a file in play',
  /** Lines of the definitions asked about: only the outline around them (a file that defines a name asked). */
  near?: readonly number[],
): ContextItem | undefined {
  if (defs.length === 0) return undefined;
  const { text, truncated } =
    near && near.length > 0 ? outlineNear(defs, near) : outlineText(defs, limits.outlineEntries);
  return {
    key: `symbols.outline.${rel}`,
    source: 'symbols',
    title: `outline of ${rel}`,
    text,
    priority: 62,
    kind: 'text',
    path: rel,
    why,
    ...(truncated ? { truncated: true } : {}),
  };
}
