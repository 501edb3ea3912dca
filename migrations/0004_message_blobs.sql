-- Long message texts are content-addressed too, not only the context block:
-- each turn of a conversation forwards the whole history again, and storing it
-- again per snapshot made the log grow with the square of the turns. A
-- snapshot now lists every blob it refers to, so prune can tell which blobs
-- are still in use.

CREATE TABLE snapshot_blobs (
  seq INTEGER NOT NULL,             -- snapshots.seq
  sha256 TEXT NOT NULL,             -- blobs.sha256
  PRIMARY KEY (seq, sha256)
) WITHOUT ROWID;

CREATE INDEX snapshot_blobs_sha256 ON snapshot_blobs (sha256);

CREATE TRIGGER snapshots_blobs_delete AFTER DELETE ON snapshots
BEGIN
  DELETE FROM snapshot_blobs WHERE seq = old.seq;
END;

-- Snapshots written before this migration refer to their context block only.
INSERT INTO snapshot_blobs (seq, sha256)
SELECT seq, context_sha256 FROM snapshots WHERE context_sha256 IS NOT NULL;
