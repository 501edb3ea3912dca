-- A request's in-flight record is committed before its prompt goes upstream,
-- on every request's way to the model. As a row of `snapshots` that commit
-- touched the table and its five indexes (id, created, model, conversation,
-- in flight), the conversation trigger and, when the row was replaced, the
-- search index: a page of the write-ahead log each. Records in flight now go
-- to this table of their own, with no index and no trigger (one B-tree, one
-- page per commit); the final version goes to `snapshots` and deletes this row
-- in the same transaction. A row left here by a writer that is gone (SIGKILL,
-- a crash, power loss) is moved to `snapshots` as `interrupted` at the next
-- open (audit/inFlight.ts).
--
-- The columns are the snapshot row's, so a row moves with INSERT … SELECT:
-- the messages stay on the row (forwarded_json, as written for the model), and
-- so does the context block (context_block) unless `blobs` holds it already
-- (NULL then): `blobs` is not written before the prompt leaves.

CREATE TABLE in_flight (
  id TEXT NOT NULL,
  request_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  model TEXT NOT NULL,
  mode_asked TEXT NOT NULL,
  mode_used TEXT NOT NULL,
  downgrade_reason TEXT,
  workspace TEXT NOT NULL,
  user_agent TEXT,
  stream INTEGER NOT NULL,
  conversation_id TEXT,
  outcome TEXT NOT NULL,
  error_status INTEGER,
  error_type TEXT,
  error_code TEXT,
  error_message TEXT,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  total_ms REAL NOT NULL,
  first_token_ms REAL,
  upstream_ms REAL,
  collect_ms REAL,
  question TEXT NOT NULL,
  warnings_json TEXT NOT NULL,
  sources_json TEXT NOT NULL,
  redactions_json TEXT NOT NULL,
  budget_json TEXT,
  reply_json TEXT NOT NULL,
  forwarded_json TEXT NOT NULL,
  context_sha256 TEXT,
  messages_head TEXT,
  message_count INTEGER,
  writer_pid INTEGER,
  context_block TEXT
);
