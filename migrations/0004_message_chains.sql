-- Every turn of a conversation forwards the whole history again. Stored as a
-- JSON array per snapshot, the log grew with the square of the turns. Messages
-- are now stored as a chain of content-addressed nodes (a Merkle list: a
-- node's key is sha256(parent key + its message)), so a turn adds only the
-- nodes for its new messages and shares the rest with the turn before.

CREATE TABLE message_nodes (
  sha256 TEXT PRIMARY KEY,          -- sha256(parent sha256 or '' || char(10) || message_json)
  parent TEXT,                      -- the message before this one; NULL for the first
  message_json TEXT NOT NULL        -- one ChatMessage; the context block as a {"$blob": sha256} reference
);

-- Rows written before this migration keep their messages in forwarded_json
-- (messages_head NULL); rows with a head have forwarded_json = ''.
ALTER TABLE snapshots ADD COLUMN messages_head TEXT;
ALTER TABLE snapshots ADD COLUMN message_count INTEGER;
