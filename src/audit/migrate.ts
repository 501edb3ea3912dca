// Applies the numbered SQL files in migrations/ in order, each in its own
// transaction, and records each in `schema_migrations`. A database written by a
// newer ctxproxy (a version this code does not know) is refused, not touched.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SqlDriver } from './driver.ts';

export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export interface MigrationResult {
  /** Versions applied by this run, in order. */
  applied: number[];
  /** The schema version the database is at now. */
  version: number;
}

/** Thrown when the database's schema is newer than this code's migrations. */
export class NewerSchemaError extends Error {
  override readonly name = 'NewerSchemaError';
  constructor(
    readonly databaseVersion: number,
    readonly knownVersion: number,
  ) {
    super(`schema ${databaseVersion}, this version knows ${knownVersion}`);
  }
}

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** Reads `NNNN_name.sql` files, sorted by number; other files are ignored, duplicate numbers refused. */
export function readMigrations(dir: string = DEFAULT_MIGRATIONS_DIR): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(dir)) {
    const match = FILE_NAME.exec(file);
    if (!match?.[1] || !match[2]) continue;
    migrations.push({ version: Number(match[1]), name: match[2], sql: readFileSync(join(dir, file), 'utf8') });
  }
  migrations.sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]?.version === migrations[i - 1]?.version) {
      throw new Error(`two migrations in ${dir} share the number ${migrations[i]?.version}`);
    }
  }
  return migrations;
}

export function schemaVersion(db: SqlDriver): number {
  const row = db.prepare('SELECT max(version) AS version FROM schema_migrations').get();
  return typeof row?.version === 'number' ? row.version : 0;
}

export function runMigrations(
  db: SqlDriver,
  options: { migrations?: Migration[] | undefined; dir?: string | undefined; now?: (() => number) | undefined } = {},
): MigrationResult {
  const migrations = options.migrations ?? readMigrations(options.dir);
  const now = options.now ?? Date.now;
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
  const known = migrations.at(-1)?.version ?? 0;
  const current = schemaVersion(db);
  if (current > known) throw new NewerSchemaError(current, known);

  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        now(),
      );
    });
    applied.push(migration.version);
  }
  return { applied, version: Math.max(current, known) };
}
