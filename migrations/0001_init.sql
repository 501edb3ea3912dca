-- The audit log: one row per request, answered or failed. The fenced context
-- block lives in `blobs`, keyed by its sha256, so a long conversation whose
-- context does not change stores it once.

CREATE TABLE blobs (
  sha256 TEXT PRIMARY KEY,
  text TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE snapshots (
  seq INTEGER PRIMARY KEY,          -- rowid: insertion order, and the full-text index's key
  id TEXT NOT NULL UNIQUE,
  request_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,      -- ms since the epoch
  model TEXT NOT NULL,
  mode_asked TEXT NOT NULL,
  mode_used TEXT NOT NULL,
  downgrade_reason TEXT,
  workspace TEXT NOT NULL,
  user_agent TEXT,
  stream INTEGER NOT NULL,          -- 0 or 1
  conversation_id TEXT,
  outcome TEXT NOT NULL,            -- ok | error | aborted
  error_status INTEGER,             -- error_* are NULL when the request did not fail
  error_type TEXT,
  error_code TEXT,
  error_message TEXT,
  prompt_tokens INTEGER,            -- NULL when the upstream reported no usage
  completion_tokens INTEGER,
  total_ms REAL NOT NULL,
  first_token_ms REAL,
  upstream_ms REAL,
  collect_ms REAL,
  question TEXT NOT NULL,           -- text of the last user message, context fences removed
  warnings_json TEXT NOT NULL,
  sources_json TEXT NOT NULL,       -- SourceReport[]
  redactions_json TEXT NOT NULL,    -- { ruleId: count }
  budget_json TEXT,                 -- BudgetReport
  reply_json TEXT NOT NULL,         -- SnapshotReply
  forwarded_json TEXT NOT NULL,     -- ChatMessage[]; a text equal to the context block is a {"$blob": sha256} reference
  context_sha256 TEXT REFERENCES blobs(sha256)
);

CREATE INDEX snapshots_created ON snapshots (created_at, seq);
CREATE INDEX snapshots_model_created ON snapshots (model, created_at);
CREATE INDEX snapshots_conversation ON snapshots (conversation_id, created_at) WHERE conversation_id IS NOT NULL;
CREATE INDEX snapshots_context ON snapshots (context_sha256) WHERE context_sha256 IS NOT NULL;

CREATE TABLE conversations (
  id TEXT PRIMARY KEY,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  turns INTEGER NOT NULL            -- snapshots currently stored for it
);

-- Triggers keep `conversations` right whatever writes snapshots (save, prune).
CREATE TRIGGER snapshots_conversation_insert AFTER INSERT ON snapshots
WHEN new.conversation_id IS NOT NULL
BEGIN
  INSERT INTO conversations (id, first_seen, last_seen, turns)
  VALUES (new.conversation_id, new.created_at, new.created_at, 1)
  ON CONFLICT (id) DO UPDATE SET
    first_seen = min(first_seen, excluded.first_seen),
    last_seen = max(last_seen, excluded.last_seen),
    turns = turns + 1;
END;

CREATE TRIGGER snapshots_conversation_delete AFTER DELETE ON snapshots
WHEN old.conversation_id IS NOT NULL
BEGIN
  UPDATE conversations SET turns = turns - 1 WHERE id = old.conversation_id;
  DELETE FROM conversations WHERE id = old.conversation_id AND turns <= 0;
END;
