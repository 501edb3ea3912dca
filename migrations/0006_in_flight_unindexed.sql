-- A request's in-flight record is written before the prompt goes upstream, on
-- the path to its first chunk, and replaced when the answer ends. Indexing its
-- question for search, only to delete the entry when the final version replaces
-- it, made that write a good deal slower (bench/overhead/README.md), so an
-- in-flight row is not in the full-text index: it enters it with its final
-- version, or when it is marked (interrupted, aborted at shutdown) by an UPDATE
-- of its outcome. `audit search` finds a request once its answer has ended.

DROP TRIGGER snapshots_fts_insert;
DROP TRIGGER snapshots_fts_delete;

CREATE TRIGGER snapshots_fts_insert AFTER INSERT ON snapshots
WHEN new.outcome <> 'in_flight'
BEGIN
  INSERT INTO snapshots_fts (rowid, question, reply)
  VALUES (new.seq, new.question, coalesce(json_extract(new.reply_json, '$.content'), ''));
END;

CREATE TRIGGER snapshots_fts_delete AFTER DELETE ON snapshots
WHEN old.outcome <> 'in_flight'
BEGIN
  DELETE FROM snapshots_fts WHERE rowid = old.seq;
END;

CREATE TRIGGER snapshots_fts_settle AFTER UPDATE OF outcome ON snapshots
WHEN old.outcome = 'in_flight' AND new.outcome <> 'in_flight'
BEGIN
  INSERT INTO snapshots_fts (rowid, question, reply)
  VALUES (new.seq, new.question, coalesce(json_extract(new.reply_json, '$.content'), ''));
END;

-- Rows in flight when this runs leave the index now, so the delete above never misses one.
DELETE FROM snapshots_fts WHERE rowid IN (SELECT seq FROM snapshots WHERE outcome = 'in_flight');
