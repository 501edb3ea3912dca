// Opening a workspace's retrieval index, `.ctxproxy/index.db`: the same care
// as the audit log (auditFiles.ts: no folder on the way may be a link, the
// folder is private and git-ignored, the file is made 0600 without following a
// link, SQLite's side files are checked), with the runtime's SQLite driver.
// Whose file it is, is checked when the index reads its header (store.ts): a
// file another program made is left alone.

import { join } from 'node:path';
import { AUDIT_FOLDER, prepareAuditFiles } from '../audit/auditFiles.ts';
import { chooseSqlDriver } from '../audit/defaultDriver.ts';
import type { Logger } from '../shared/ports.ts';
import type { IndexSql } from '../sources/retrieval/index/store.ts';

export const INDEX_FILE = 'index.db';

/**
 * A write waits this long for another process's lock (a second server, `preview`). The wait blocks the
 * event loop, so it is short: a write that gives up leaves the index to be caught up by the next pass.
 */
const INDEX_BUSY_MS = 100;

export function openIndexDatabase(root: string, logger: Logger): IndexSql {
  const path = join(root, AUDIT_FOLDER, INDEX_FILE);
  prepareAuditFiles(path, root, logger);
  return chooseSqlDriver().open(path, { busyTimeoutMs: INDEX_BUSY_MS });
}
