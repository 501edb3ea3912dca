// The index's tables in SQLite (`.ctxproxy/index.db`, its own file beside the
// audit log): per file its path, size, mtime and why it was skipped; per chunk
// its line range; an FTS5 table of the chunks' hashed words (words.ts); and the
// symbol index's definitions and uses of names (symbolTables.ts).
//
// It stores no text. At use, the files of the matching chunks are read again
// through the guard and what retrieval sends goes through the one redaction
// path every item takes: a second copy of the repository (and of any secret a
// tracked file holds) on disk would need its own redaction, and would still
// hold what a later edit removed. Hashed words are enough to find candidates.

import type { IndexSql } from './indexSql.ts';
import { SqlSymbolTables, SYMBOL_SCHEMA, SYMBOL_TABLES } from './symbolTables.ts';

/** 'CTXI': the header says the file is ctxproxy's index (the audit log is 'CTXP'). */
export const INDEX_APPLICATION_ID = 0x43545849;
/**
 * Bumped when the layout or the chunking changes: an older index is dropped and rebuilt (2: symbols, history;
 * 3: module paths in imports stored as uses of their stem; 4: C, C++, C#, Ruby, PHP and shell parsed, a name at
 * the end of a C declarator no use of itself).
 */
export const INDEX_SCHEMA_VERSION = 4;

/** A file that is not an index of ours: it is left alone and retrieval searches with git grep. */
export class ForeignIndexError extends Error {
  override readonly name = 'ForeignIndexError';
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  id INTEGER PRIMARY KEY,
  rel TEXT NOT NULL UNIQUE,
  size INTEGER NOT NULL,
  mtime REAL NOT NULL,
  skip TEXT
);
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY,
  file INTEGER NOT NULL,
  start INTEGER NOT NULL,
  end INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_file ON chunks (file);
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_words USING fts5 (words, content = '', contentless_delete = 1);
CREATE TABLE IF NOT EXISTS unsure (rel TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS vectors (chunk INTEGER PRIMARY KEY, vec BLOB NOT NULL);
`;

export interface StoredFile {
  id: number;
  size: number;
  mtime: number;
  skip: string | null;
}

export interface ChunkHit {
  rel: string;
  size: number;
  mtime: number;
  start: number;
  end: number;
}

export class IndexStore {
  readonly seed: number;
  /** The symbol index's tables (symbolTables.ts), in the same file. */
  readonly symbols: SqlSymbolTables;

  constructor(readonly db: IndexSql) {
    const appId = Number(db.pragma('application_id') ?? 0);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    if (appId !== INDEX_APPLICATION_ID && (appId !== 0 || tables.length > 0)) {
      throw new ForeignIndexError('the file is not a ctxproxy index (another program, or the audit log, made it)');
    }
    db.pragma('journal_mode', 'WAL');
    db.pragma('synchronous', 'NORMAL');
    const version = Number(db.pragma('user_version') ?? 0);
    if (appId === INDEX_APPLICATION_ID && version !== INDEX_SCHEMA_VERSION) {
      // Ours, another layout: the index is a cache, rebuilt from the work tree.
      db.exec(
        'DROP TABLE IF EXISTS chunk_words; DROP TABLE IF EXISTS chunks; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS unsure; DROP TABLE IF EXISTS vectors;',
      );
      db.exec(SYMBOL_TABLES.map((table) => `DROP TABLE IF EXISTS ${table};`).join(' '));
    }
    db.exec(SCHEMA);
    db.exec(SYMBOL_SCHEMA);
    db.pragma('application_id', INDEX_APPLICATION_ID);
    db.pragma('user_version', INDEX_SCHEMA_VERSION);
    const stored = db.prepare("SELECT value FROM meta WHERE key = 'seed'").get()?.value;
    if (typeof stored === 'string') this.seed = Number(stored);
    else {
      this.seed = Math.floor(Math.random() * 0x7fffffff);
      db.prepare("INSERT INTO meta (key, value) VALUES ('seed', ?)").run(String(this.seed));
    }
    this.symbols = new SqlSymbolTables(db, this.seed);
  }

  /** Whether a whole pass over the work tree finished once (in this or an earlier process). */
  complete(): boolean {
    return this.db.prepare("SELECT value FROM meta WHERE key = 'complete'").get()?.value === '1';
  }

  markComplete(): void {
    this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('complete', '1')").run();
  }

  /**
   * What a restart needs to catch up through git (workspaceIndex.ts): the commit the index was last
   * brought up to date against. Every stored file not in the `unsure` table holds that commit's content.
   */
  baseline(): { head: string } | undefined {
    const head = this.db.prepare("SELECT value FROM meta WHERE key = 'head'").get()?.value;
    return typeof head === 'string' && /^[0-9a-f]{40,64}$/.test(head) ? { head } : undefined;
  }

  /** Forgets the baseline (a full pass rewrites rows the unsure table does not list). */
  dropBaseline(): void {
    this.db.prepare("DELETE FROM meta WHERE key = 'head'").run();
  }

  /**
   * Sets the baseline: `head`, and the files that may differ from it (`dirty`, plus the unsure rows added
   * after `mark`, by writes the watcher asked for meanwhile). One transaction.
   */
  setBaseline(head: string, dirty: Iterable<string>, mark: number): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM unsure WHERE rowid <= ?').run(mark);
      const add = this.db.prepare('INSERT OR IGNORE INTO unsure (rel) VALUES (?)');
      for (const rel of dirty) add.run(rel);
      this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('head', ?)").run(head);
    });
  }

  /** Records files whose stored content may differ from the baseline's commit (call inside a transaction). */
  markUnsure(rels: Iterable<string>): void {
    const add = this.db.prepare('INSERT OR REPLACE INTO unsure (rel) VALUES (?)');
    for (const rel of rels) add.run(rel);
  }

  /** The newest unsure row: rows after it were added later. */
  unsureMark(): number {
    return Number(this.db.prepare('SELECT coalesce(max(rowid), 0) AS m FROM unsure').get()?.m ?? 0);
  }

  /** The unsure files, `limit` at most (more, and the caller compares every file instead). */
  unsure(limit: number): string[] {
    return this.db
      .prepare('SELECT rel FROM unsure LIMIT ?')
      .all(limit)
      .map((row) => String(row.rel));
  }

  files(): Map<string, StoredFile> {
    const out = new Map<string, StoredFile>();
    for (const row of this.db.prepare('SELECT id, rel, size, mtime, skip FROM files').all()) {
      out.set(String(row.rel), {
        id: Number(row.id),
        size: Number(row.size),
        mtime: Number(row.mtime),
        skip: row.skip === null ? null : String(row.skip),
      });
    }
    return out;
  }

  file(rel: string): StoredFile | undefined {
    const row = this.db.prepare('SELECT id, size, mtime, skip FROM files WHERE rel = ?').get(rel);
    if (!row) return undefined;
    return {
      id: Number(row.id),
      size: Number(row.size),
      mtime: Number(row.mtime),
      skip: row.skip === null ? null : String(row.skip),
    };
  }

  /** Stored files after `after`, in SQLite's order, `limit` at most (a pass reads them in pages). */
  filesAfter(after: string, limit: number): [string, StoredFile][] {
    return this.db
      .prepare('SELECT id, rel, size, mtime, skip FROM files WHERE rel > ? ORDER BY rel LIMIT ?')
      .all(after, limit)
      .map((row) => [
        String(row.rel),
        {
          id: Number(row.id),
          size: Number(row.size),
          mtime: Number(row.mtime),
          skip: row.skip === null ? null : String(row.skip),
        },
      ]);
  }

  /** Stored paths after `after`, in SQLite's order, `limit` at most (a sweep in pages). */
  relsAfter(after: string, limit: number): string[] {
    return this.db
      .prepare('SELECT rel FROM files WHERE rel > ? ORDER BY rel LIMIT ?')
      .all(after, limit)
      .map((row) => String(row.rel));
  }

  counts(): { indexed: number; skipped: number } {
    const row = this.db.prepare('SELECT count(*) AS n, count(skip) AS s FROM files').get();
    const n = Number(row?.n ?? 0);
    const s = Number(row?.s ?? 0);
    return { indexed: n - s, skipped: s };
  }

  /** Replaces what the index holds for `rel` (call inside a transaction). */
  put(
    rel: string,
    size: number,
    mtime: number,
    chunks: readonly { start: number; end: number; words: string }[],
    skip?: string,
  ): void {
    this.remove(rel);
    this.db
      .prepare('INSERT INTO files (rel, size, mtime, skip) VALUES (?, ?, ?, ?)')
      .run(rel, size, mtime, skip ?? null);
    const id = Number(this.db.prepare('SELECT id FROM files WHERE rel = ?').get(rel)?.id);
    const chunk = this.db.prepare('INSERT INTO chunks (file, start, end) VALUES (?, ?, ?)');
    const words = this.db.prepare('INSERT INTO chunk_words (rowid, words) VALUES (last_insert_rowid(), ?)');
    for (const part of chunks) {
      chunk.run(id, part.start, part.end);
      words.run(part.words);
    }
  }

  remove(rel: string): void {
    const known = this.db.prepare('SELECT id FROM files WHERE rel = ?').get(rel);
    if (!known) return;
    const id = Number(known.id);
    this.db.prepare('DELETE FROM chunk_words WHERE rowid IN (SELECT id FROM chunks WHERE file = ?)').run(id);
    this.db.prepare('DELETE FROM vectors WHERE chunk IN (SELECT id FROM chunks WHERE file = ?)').run(id);
    this.db.prepare('DELETE FROM chunks WHERE file = ?').run(id);
    this.db.prepare('DELETE FROM files WHERE id = ?').run(id);
  }

  /**
   * Chunks matching an FTS5 expression, `limit` at most, in the order a search reads their files
   * (workspaceIndex.ts): first those of the files in `rels` or named by one of `stems` (the file's name, or a
   * folder's, before its extension, any case: `LICENSE.md` for `license`), then those of the files changed in
   * the work tree since the baseline (the unsure rows), then the rest; each group best (BM25) first. SQLite
   * ranks every match either way; the limit saves making an object of each row (a common name has
   * thousands).
   */
  search(expression: string, rels: readonly string[], stems: readonly string[], limit: number): ChunkHit[] {
    const like = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
    const named = stems.flatMap((stem) => [like(stem), `${like(stem)}.%`, `%/${like(stem)}`, `%/${like(stem)}.%`]);
    const byName = named.map(() => " OR f.rel LIKE ? ESCAPE '\\'").join('');
    return this.db
      .prepare(
        `SELECT f.rel AS rel, f.size AS size, f.mtime AS mtime, c.start AS start, c.end AS end
         FROM chunk_words JOIN chunks c ON c.id = chunk_words.rowid JOIN files f ON f.id = c.file
         WHERE chunk_words MATCH ?
         ORDER BY CASE WHEN f.rel IN (SELECT value FROM json_each(?))${byName} THEN 0
           WHEN EXISTS (SELECT 1 FROM unsure u WHERE u.rel = f.rel) THEN 1 ELSE 2 END, rank
         LIMIT ?`,
      )
      .all(expression, JSON.stringify(rels), ...named, limit)
      .map((row) => ({
        rel: String(row.rel),
        size: Number(row.size),
        mtime: Number(row.mtime),
        start: Number(row.start),
        end: Number(row.end),
      }));
  }

  /**
   * The embedding model the stored vectors are of; a different one drops them all (vectors of two models
   * do not compare).
   */
  useEmbedModel(model: string): void {
    const stored = this.db.prepare("SELECT value FROM meta WHERE key = 'embed_model'").get()?.value;
    if (stored === model) return;
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM vectors').run();
      this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('embed_model', ?)").run(model);
    });
  }

  /** Chunks of indexed files without a vector yet, after chunk `after`, in id order. */
  chunksWithoutVector(after: number, limit: number): (ChunkHit & { id: number })[] {
    return this.db
      .prepare(
        `SELECT c.id AS id, f.rel AS rel, f.size AS size, f.mtime AS mtime, c.start AS start, c.end AS end
         FROM chunks c JOIN files f ON f.id = c.file LEFT JOIN vectors v ON v.chunk = c.id
         WHERE v.chunk IS NULL AND c.id > ? ORDER BY c.id LIMIT ?`,
      )
      .all(after, limit)
      .map((row) => ({
        id: Number(row.id),
        rel: String(row.rel),
        size: Number(row.size),
        mtime: Number(row.mtime),
        start: Number(row.start),
        end: Number(row.end),
      }));
  }

  /** Stores unit-length vectors (one transaction); a chunk gone meanwhile is skipped. */
  putVectors(vectors: readonly { id: number; vec: Float32Array }[]): void {
    this.db.transaction(() => {
      const put = this.db.prepare('INSERT OR REPLACE INTO vectors (chunk, vec) SELECT id, ? FROM chunks WHERE id = ?');
      for (const { id, vec } of vectors) put.run(new Uint8Array(vec.buffer, vec.byteOffset, vec.byteLength), id);
    });
  }

  /** Stored vectors after chunk `after`, with their chunk's place, in id order (a scan in pages). */
  vectorsAfter(after: number, limit: number): (ChunkHit & { id: number; vec: Float32Array })[] {
    return this.db
      .prepare(
        `SELECT v.chunk AS id, v.vec AS vec, f.rel AS rel, f.size AS size, f.mtime AS mtime, c.start AS start, c.end AS end
         FROM vectors v JOIN chunks c ON c.id = v.chunk JOIN files f ON f.id = c.file
         WHERE v.chunk > ? ORDER BY v.chunk LIMIT ?`,
      )
      .all(after, limit)
      .map((row) => {
        const bytes = row.vec as Uint8Array;
        // A copy: the driver's buffer may not be aligned for floats.
        const vec = new Float32Array(new Uint8Array(bytes).buffer);
        return {
          id: Number(row.id),
          vec,
          rel: String(row.rel),
          size: Number(row.size),
          mtime: Number(row.mtime),
          start: Number(row.start),
          end: Number(row.end),
        };
      });
  }

  vectorCounts(): { vectors: number; chunks: number } {
    const row = this.db.prepare('SELECT (SELECT count(*) FROM vectors) AS v, (SELECT count(*) FROM chunks) AS c').get();
    return { vectors: Number(row?.v ?? 0), chunks: Number(row?.c ?? 0) };
  }

  close(): void {
    this.db.close();
  }
}
