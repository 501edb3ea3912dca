// Whether a database is ctxproxy's own audit log before anything is written to
// it. The header's application id says who made the file; an older ctxproxy's
// file (made before the id existed) is known by its schema_migrations table. A
// database of another program is never written; one the user named with --db is
// adopted with a warning. Whoever made it, its triggers and views must be
// exactly those ctxproxy's migrations create: a trigger can delete or rewrite
// every new row, so the log would be empty while the store says it was written.

import type { Logger } from '../shared/ports.ts';
import type { SqlDriver, SqlDriverFactory } from './driver.ts';
import type { Migration } from './migrate.ts';

/** 'CTXP' as a big-endian 32-bit integer; set by migrations/0007_application_id.sql. */
export const APPLICATION_ID = 0x43545850;

/** A database ctxproxy will not use; `message` says why and what to do. */
export class ForeignDatabaseError extends Error {
  override readonly name = 'ForeignDatabaseError';
}

interface SchemaObject {
  type: string;
  name: string;
  sql: string;
}

const SCHEMA_OBJECTS =
  "SELECT type, name, coalesce(sql, '') AS sql FROM sqlite_master WHERE type IN ('trigger', 'view') ORDER BY type, name";

function schemaObjects(db: SqlDriver): SchemaObject[] {
  return db.prepare(SCHEMA_OBJECTS).all() as unknown as SchemaObject[];
}

function hasTable(db: SqlDriver, name: string): boolean {
  return db.prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

function recordedVersion(db: SqlDriver): number {
  if (!hasTable(db, 'schema_migrations')) return 0;
  const row = db.prepare('SELECT max(version) AS version FROM schema_migrations').get();
  return typeof row?.version === 'number' ? row.version : 0;
}

/** The triggers and views the migrations up to `version` leave, replayed on a database in memory. */
function expectedObjects(driver: SqlDriverFactory, migrations: Migration[], version: number): Map<string, string> {
  const memory = driver.open(':memory:', { busyTimeoutMs: 0 });
  try {
    for (const migration of migrations) if (migration.version <= version) memory.exec(migration.sql);
    return new Map(schemaObjects(memory).map((object) => [`${object.type} ${object.name}`, object.sql]));
  } finally {
    memory.close();
  }
}

export interface OwnershipInput {
  db: SqlDriver;
  driver: SqlDriverFactory;
  migrations: Migration[];
  /** The file was created empty by this open: nothing in it to check. */
  created: boolean;
  /** The user named this file (--db, CTXPROXY_DB): a database without ctxproxy's mark is adopted, with a warning. */
  userChosen: boolean;
  logger: Logger;
}

/** Throws ForeignDatabaseError unless the database is ctxproxy's (or adoptable) and its schema holds nothing foreign. */
export function checkOwnership(input: OwnershipInput): void {
  if (input.created) return;
  const { db, logger } = input;
  const id = Number(db.pragma('application_id') ?? 0);
  const empty = Number(db.pragma('page_count') ?? 0) === 0;
  if (id !== APPLICATION_ID && id !== 0) {
    throw new ForeignDatabaseError(
      `it belongs to another program (application id 0x${id.toString(16)}); ctxproxy does not write into it`,
    );
  }
  if (id === 0 && !empty && !hasTable(db, 'schema_migrations')) {
    if (!input.userChosen) {
      throw new ForeignDatabaseError(
        'it was not made by ctxproxy (no application id, no schema_migrations table), and it is on the default path, where a repository can plant a file',
      );
    }
    logger.warn('audit.db_adopted', { reason: 'no ctxproxy mark; named by the user' });
  }
  const version = recordedVersion(db);
  const known = input.migrations.at(-1)?.version ?? 0;
  // A newer schema is refused by the migrations runner, with its own message.
  if (version > known) return;
  const expected = expectedObjects(input.driver, input.migrations, version);
  for (const object of schemaObjects(db)) {
    if (expected.get(`${object.type} ${object.name}`) === object.sql) continue;
    throw new ForeignDatabaseError(
      `it holds a ${object.type} ctxproxy's migrations did not make (${JSON.stringify(object.name)}); a ${object.type} can change or remove what ctxproxy writes`,
    );
  }
}
