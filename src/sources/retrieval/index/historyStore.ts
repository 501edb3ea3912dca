// The history part of the workspace index (`.ctxproxy/index.db`, beside the
// chunk tables of store.ts): the recent commits reachable from HEAD, each with
// the paths it changed and, per changed hunk, the hashed words of its added and
// removed lines; the subject and body as hashed words too.
//
// Like the chunks it stores no repository text: commit ids, times, paths and
// hunk positions, and words hashed with the index's seed (words.ts). At use the
// commit is read back with git (history.ts) and what is sent takes the one
// redaction path every item takes. A commit message or a removed line can hold
// a secret that the work tree no longer has; a copy on disk would keep it.
//
// Its tables carry their own layout number and the seed their words were
// hashed with: a store rebuilt with a new seed (or an older layout) drops them,
// and the history is indexed again from git.

import type { IndexSql } from './indexSql.ts';

/** Bumped when these tables change: they are dropped and indexed again. */
const HISTORY_LAYOUT = 1;

const HISTORY_TABLES = ['history_words', 'history_hunks', 'history_paths', 'history_commits'];

const SCHEMA = `
CREATE TABLE IF NOT EXISTS history_commits (
  id INTEGER PRIMARY KEY,
  sha TEXT NOT NULL UNIQUE,
  time INTEGER NOT NULL,
  pos INTEGER NOT NULL,
  cut TEXT
);
CREATE TABLE IF NOT EXISTS history_paths (commit_id INTEGER NOT NULL, rel TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS history_paths_by_rel ON history_paths (rel);
CREATE INDEX IF NOT EXISTS history_paths_by_commit ON history_paths (commit_id);
CREATE TABLE IF NOT EXISTS history_hunks (
  id INTEGER PRIMARY KEY,
  commit_id INTEGER NOT NULL,
  rel TEXT NOT NULL,
  start INTEGER NOT NULL,
  lines INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS history_hunks_by_commit ON history_hunks (commit_id);
CREATE VIRTUAL TABLE IF NOT EXISTS history_words USING fts5 (message, added, removed, content = '', contentless_delete = 1);
`;

/** One commit as indexed: its message's words, its paths and its hunks' words (hashed by the caller). */
export interface IndexedCommit {
  sha: string;
  /** Committer time, seconds since the epoch. */
  time: number;
  /** Why part of it is not indexed (over the byte limit, git timed out), or undefined. */
  cut?: string | undefined;
  messageWords: string;
  paths: readonly string[];
  hunks: readonly { rel: string; start: number; lines: number; added: string; removed: string }[];
}

/** Where a commit matched: in its changed lines (added or removed), or only in its message. */
export type HistoryMatchPlace = 'added' | 'removed' | 'message';

export interface HistoryHit {
  sha: string;
  time: number;
  /** 0 is HEAD; larger is older. */
  pos: number;
  place: HistoryMatchPlace;
  /** The hunk's path (empty for a message match) and its first line in the commit's version. */
  rel: string;
  start: number;
}

export class HistoryStore {
  constructor(
    private readonly db: IndexSql,
    seed: number,
  ) {
    const get = (key: string) => db.prepare('SELECT value FROM meta WHERE key = ?').get(key)?.value;
    if (get('history_layout') !== String(HISTORY_LAYOUT) || get('history_seed') !== String(seed)) {
      db.exec(HISTORY_TABLES.map((table) => `DROP TABLE IF EXISTS ${table};`).join(' '));
      db.prepare("DELETE FROM meta WHERE key IN ('history_head', 'history_layout', 'history_seed')").run();
    }
    db.exec(SCHEMA);
    const set = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    set.run('history_layout', String(HISTORY_LAYOUT));
    set.run('history_seed', String(seed));
  }

  /** What the stored history was last completed for (HEAD and the bound: every commit of its list indexed). */
  head(): string | undefined {
    const value = this.db.prepare("SELECT value FROM meta WHERE key = 'history_head'").get()?.value;
    return typeof value === 'string' ? value : undefined;
  }

  /** The stored commits' ids by sha (a few thousand at most: the list's bound). */
  commits(): Map<string, number> {
    const out = new Map<string, number>();
    for (const row of this.db.prepare('SELECT id, sha FROM history_commits').all())
      out.set(String(row.sha), Number(row.id));
    return out;
  }

  count(): number {
    return Number(this.db.prepare('SELECT count(*) AS n FROM history_commits').get()?.n ?? 0);
  }

  /** Stores commits in one transaction; `pos` is each one's place in the list being indexed. */
  put(commits: readonly { commit: IndexedCommit; pos: number }[]): void {
    this.db.transaction(() => {
      for (const { commit, pos } of commits) this.#put(commit, pos);
    });
  }

  /** See IndexSql.checkpointsAside: on while a long build writes. */
  checkpointsAside(on: boolean): void {
    this.db.checkpointsAside?.(on);
  }

  #put(commit: IndexedCommit, pos: number): void {
    this.#remove(this.db.prepare('SELECT id FROM history_commits WHERE sha = ?').get(commit.sha)?.id);
    this.db
      .prepare('INSERT INTO history_commits (sha, time, pos, cut) VALUES (?, ?, ?, ?)')
      .run(commit.sha, commit.time, pos, commit.cut ?? null);
    const id = Number(this.db.prepare('SELECT id FROM history_commits WHERE sha = ?').get(commit.sha)?.id);
    const words = this.db.prepare('INSERT INTO history_words (rowid, message, added, removed) VALUES (?, ?, ?, ?)');
    // The message's row is the hunk of path '' (its words, nothing added or removed).
    const hunk = this.db.prepare('INSERT INTO history_hunks (commit_id, rel, start, lines) VALUES (?, ?, ?, ?)');
    hunk.run(id, '', 0, 0);
    words.run(this.#lastId(), commit.messageWords, '', '');
    for (const part of commit.hunks) {
      hunk.run(id, part.rel, part.start, part.lines);
      words.run(this.#lastId(), '', part.added, part.removed);
    }
    const addPath = this.db.prepare('INSERT INTO history_paths (commit_id, rel) VALUES (?, ?)');
    for (const rel of new Set(commit.paths)) addPath.run(id, rel);
  }

  #lastId(): number {
    return Number(this.db.prepare('SELECT last_insert_rowid() AS id').get()?.id);
  }

  /** Drops commits no longer in the list (rewritten by a rebase or an amend, or older than the bound). */
  drop(ids: readonly number[]): void {
    this.db.transaction(() => {
      for (const id of ids) this.#remove(id);
    });
  }

  #remove(id: unknown): void {
    if (id === undefined || id === null) return;
    this.db
      .prepare('DELETE FROM history_words WHERE rowid IN (SELECT id FROM history_hunks WHERE commit_id = ?)')
      .run(Number(id));
    this.db.prepare('DELETE FROM history_hunks WHERE commit_id = ?').run(Number(id));
    this.db.prepare('DELETE FROM history_paths WHERE commit_id = ?').run(Number(id));
    this.db.prepare('DELETE FROM history_commits WHERE id = ?').run(Number(id));
  }

  /** Records the list's order (0 = HEAD) and the HEAD it was completed for, in one transaction. */
  complete(head: string, order: readonly string[]): void {
    this.db.transaction(() => {
      const set = this.db.prepare('UPDATE history_commits SET pos = ? WHERE sha = ?');
      for (const [pos, sha] of order.entries()) set.run(pos, sha);
      this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('history_head', ?)").run(head);
    });
  }

  /** Forgets the completed HEAD (a build of a new list began: until it ends the stored list is not HEAD's). */
  incomplete(): void {
    this.db.prepare("DELETE FROM meta WHERE key = 'history_head'").run();
  }

  /**
   * Hunks (and messages) whose words match an FTS5 expression, in one column, newest commits first.
   * `limit` bounds the rows read.
   */
  search(expression: string, place: HistoryMatchPlace, limit: number): HistoryHit[] {
    return this.db
      .prepare(
        `SELECT c.sha AS sha, c.time AS time, c.pos AS pos, h.rel AS rel, h.start AS start
         FROM history_words JOIN history_hunks h ON h.id = history_words.rowid JOIN history_commits c ON c.id = h.commit_id
         WHERE history_words MATCH ? ORDER BY c.pos LIMIT ?`,
      )
      .all(`{${place}} : (${expression})`, limit)
      .map((row) => ({
        sha: String(row.sha),
        time: Number(row.time),
        pos: Number(row.pos),
        place,
        rel: String(row.rel),
        start: Number(row.start),
      }));
  }

  /** The commits that changed one of `rels` (exact paths, or file names with `byName`), newest first. */
  touching(rels: readonly string[], byName: boolean, limit: number): { sha: string; rel: string; pos: number }[] {
    if (rels.length === 0) return [];
    const where = byName
      ? rels.map(() => "(p.rel = ? OR p.rel LIKE ? ESCAPE '\\')").join(' OR ')
      : `p.rel IN (${rels.map(() => '?').join(', ')})`;
    const params = byName ? rels.flatMap((rel) => [rel, `%/${rel.replace(/[\\%_]/g, (c) => `\\${c}`)}`]) : [...rels];
    return this.db
      .prepare(
        `SELECT c.sha AS sha, p.rel AS rel, c.pos AS pos FROM history_paths p JOIN history_commits c ON c.id = p.commit_id
         WHERE ${where} ORDER BY c.pos LIMIT ?`,
      )
      .all(...params, limit)
      .map((row) => ({ sha: String(row.sha), rel: String(row.rel), pos: Number(row.pos) }));
  }

  /** Why a commit was indexed in part, or null. */
  cutOf(sha: string): string | null {
    const row = this.db.prepare('SELECT cut FROM history_commits WHERE sha = ?').get(sha);
    return row?.cut === undefined || row.cut === null ? null : String(row.cut);
  }
}
