// The symbol index's tables in the workspace's persistent index (store.ts
// makes them with its own, and drops them with its own when the layout
// changes). Per file: its stamp, why it was not parsed, and the repository
// map's numbers; per definition: the keys of its bare and qualified names, its
// kind, lines and where its name and signature are in the text; per use of a
// name: the name's key, the line and what the use is. Numbers only, no text
// (symbols/symbolTables.ts says why and how it is read back).
//
// Both lookups are on an index of the name's key: "where is X defined" and
// "who calls, imports or uses X" read a range of one b-tree. Uses are kept
// clustered by file (WITHOUT ROWID), so a file re-indexed deletes one range.

import type { Definition, Reference, ReferenceKind } from '../../symbols/extract.ts';
import { DEF_KINDS } from '../../symbols/languages.ts';
import {
  lookupKeys,
  nameKey,
  REFERENCE_KINDS,
  type StoredDefinition,
  type StoredUse,
  type SymbolFileState,
  type SymbolTables,
} from '../../symbols/symbolTables.ts';
import type { IndexSql } from './indexSql.ts';

export const SYMBOL_SCHEMA = `
CREATE TABLE IF NOT EXISTS sym_files (
  id INTEGER PRIMARY KEY,
  rel TEXT NOT NULL UNIQUE,
  stamp TEXT NOT NULL,
  skip TEXT,
  names BLOB
);
CREATE TABLE IF NOT EXISTS sym_defs (
  file INTEGER NOT NULL,
  ord INTEGER NOT NULL,
  name INTEGER NOT NULL,
  qualified INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  depth INTEGER NOT NULL,
  spans TEXT NOT NULL,
  sig TEXT NOT NULL,
  PRIMARY KEY (file, ord)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sym_defs_by_name ON sym_defs (name);
CREATE TABLE IF NOT EXISTS sym_uses (
  file INTEGER NOT NULL,
  name INTEGER NOT NULL,
  line INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  PRIMARY KEY (file, name, line, kind)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sym_uses_by_name ON sym_uses (name);
`;

/** Dropped with the rest of the index when its layout changes. */
export const SYMBOL_TABLES = ['sym_files', 'sym_defs', 'sym_uses'];

/** Numbers written as text (`1,2,3`): a short list per row, no text of the file. */
const numbers = (list: readonly number[]) => list.join(',');
const parseNumbers = (text: unknown) => String(text).split(',').map(Number);

export class SqlSymbolTables implements SymbolTables {
  constructor(
    private readonly db: IndexSql,
    private readonly seed: number,
  ) {}

  state(rel: string): SymbolFileState | undefined {
    const row = this.db.prepare('SELECT stamp, skip FROM sym_files WHERE rel = ?').get(rel);
    return row ? { stamp: String(row.stamp), skip: row.skip === null ? undefined : String(row.skip) } : undefined;
  }

  put(rel: string, stamp: string, defs: readonly Definition[], uses: readonly Reference[], names: Int32Array): void {
    const id = this.#file(rel, stamp, null, new Uint8Array(names.buffer, names.byteOffset, names.byteLength));
    const def = this.db.prepare(
      'INSERT INTO sym_defs (file, ord, name, qualified, kind, line, end_line, depth, spans, sig) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    defs.forEach((d, ord) => {
      def.run(
        id,
        ord,
        nameKey(d.name, this.seed),
        nameKey(d.qualified, this.seed),
        DEF_KINDS.indexOf(d.kind),
        d.line,
        d.endLine,
        d.depth,
        numbers(d.spans),
        numbers(d.sig),
      );
    });
    const use = this.db.prepare('INSERT OR IGNORE INTO sym_uses (file, name, line, kind) VALUES (?, ?, ?, ?)');
    for (const u of uses) use.run(id, nameKey(u.name, this.seed), u.line, REFERENCE_KINDS.indexOf(u.kind));
  }

  skip(rel: string, stamp: string, reason: string): void {
    this.#file(rel, stamp, reason, null);
  }

  remove(rel: string): boolean {
    const known = this.db.prepare('SELECT id FROM sym_files WHERE rel = ?').get(rel);
    if (!known) return false;
    this.#clear(Number(known.id));
    this.db.prepare('DELETE FROM sym_files WHERE id = ?').run(Number(known.id));
    return true;
  }

  relsAfter(after: string, limit: number): string[] {
    return this.db
      .prepare('SELECT rel FROM sym_files WHERE rel > ? ORDER BY rel LIMIT ?')
      .all(after, limit)
      .map((row) => String(row.rel));
  }

  counts(): { indexed: number; skipped: number } {
    const row = this.db.prepare('SELECT count(*) AS n, count(skip) AS s FROM sym_files').get();
    const n = Number(row?.n ?? 0);
    const s = Number(row?.s ?? 0);
    return { indexed: n - s, skipped: s };
  }

  definitions(name: string): { rel: string; def: StoredDefinition }[] {
    const { bare, qualified } = lookupKeys(name, this.seed);
    const rows =
      qualified === undefined
        ? this.db
            .prepare(
              `SELECT f.rel AS rel, ${DEF_COLUMNS} FROM sym_defs d JOIN sym_files f ON f.id = d.file WHERE d.name = ?`,
            )
            .all(bare)
        : this.db
            .prepare(
              `SELECT f.rel AS rel, ${DEF_COLUMNS} FROM sym_defs d JOIN sym_files f ON f.id = d.file WHERE d.name = ? AND d.qualified = ?`,
            )
            .all(bare, qualified);
    return rows.map((row) => ({ rel: String(row.rel), def: storedDefinition(row) }));
  }

  /** The files that define `name`, `limit` at most (a search reads them first: workspaceIndex.ts). */
  definingFiles(name: string, limit: number): string[] {
    const { bare, qualified } = lookupKeys(name, this.seed);
    const sql = `SELECT DISTINCT f.rel AS rel FROM sym_defs d JOIN sym_files f ON f.id = d.file WHERE d.name = ?${
      qualified === undefined ? '' : ' AND d.qualified = ?'
    } LIMIT ?`;
    const rows =
      qualified === undefined
        ? this.db.prepare(sql).all(bare, limit)
        : this.db.prepare(sql).all(bare, qualified, limit);
    return rows.map((row) => String(row.rel));
  }

  definitionsOf(rel: string): StoredDefinition[] {
    return this.db
      .prepare(`SELECT ${DEF_COLUMNS} FROM sym_defs d JOIN sym_files f ON f.id = d.file WHERE f.rel = ? ORDER BY d.ord`)
      .all(rel)
      .map(storedDefinition);
  }

  uses(name: string, kinds: readonly ReferenceKind[] | undefined, limit: number): StoredUse[] {
    const wanted = new Set((kinds ?? REFERENCE_KINDS).map((kind) => REFERENCE_KINDS.indexOf(kind)));
    const out: StoredUse[] = [];
    const rows = this.db
      .prepare(
        'SELECT f.rel AS rel, u.line AS line, u.kind AS kind FROM sym_uses u JOIN sym_files f ON f.id = u.file WHERE u.name = ? ORDER BY f.rel, u.line LIMIT ?',
      )
      // Read past the limit by the kinds left out, bounded: a name used everywhere is cut, and says so by its count.
      .all(nameKey(name, this.seed), kinds ? limit * 4 : limit);
    for (const row of rows) {
      const kind = Number(row.kind);
      if (!wanted.has(kind)) continue;
      out.push({ rel: String(row.rel), line: Number(row.line), kind: REFERENCE_KINDS[kind] ?? 'use' });
      if (out.length >= limit) break;
    }
    return out;
  }

  rankPage(after: string, limit: number): [string, Int32Array][] {
    return this.db
      .prepare('SELECT rel, names FROM sym_files WHERE rel > ? AND names IS NOT NULL ORDER BY rel LIMIT ?')
      .all(after, limit)
      .map((row) => {
        const bytes = row.names as Uint8Array;
        // A copy: the driver's buffer may not be aligned for 32-bit numbers.
        return [String(row.rel), new Int32Array(new Uint8Array(bytes).buffer)];
      });
  }

  write(fn: () => void): void {
    this.db.transaction(fn);
  }

  /** The file's row, made or replaced with no definitions or uses; its id. */
  #file(rel: string, stamp: string, skip: string | null, names: Uint8Array | null): number {
    const known = this.db.prepare('SELECT id FROM sym_files WHERE rel = ?').get(rel);
    if (known) {
      const id = Number(known.id);
      this.#clear(id);
      this.db.prepare('UPDATE sym_files SET stamp = ?, skip = ?, names = ? WHERE id = ?').run(stamp, skip, names, id);
      return id;
    }
    this.db.prepare('INSERT INTO sym_files (rel, stamp, skip, names) VALUES (?, ?, ?, ?)').run(rel, stamp, skip, names);
    return Number(this.db.prepare('SELECT id FROM sym_files WHERE rel = ?').get(rel)?.id);
  }

  #clear(id: number): void {
    this.db.prepare('DELETE FROM sym_defs WHERE file = ?').run(id);
    this.db.prepare('DELETE FROM sym_uses WHERE file = ?').run(id);
  }
}

const DEF_COLUMNS =
  'd.kind AS kind, d.line AS line, d.end_line AS end_line, d.depth AS depth, d.spans AS spans, d.sig AS sig';

function storedDefinition(row: Record<string, unknown>): StoredDefinition {
  const sig = parseNumbers(row.sig);
  return {
    kind: DEF_KINDS[Number(row.kind)] ?? 'function',
    line: Number(row.line),
    endLine: Number(row.end_line),
    depth: Number(row.depth),
    spans: parseNumbers(row.spans),
    sig: [sig[0] ?? 0, sig[1] ?? 0, sig[2] ?? 0],
  };
}
