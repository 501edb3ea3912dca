-- Full-text search over the question and the reply. Contentless (the text
-- stays in `snapshots` only); contentless_delete lets triggers remove rows.

CREATE VIRTUAL TABLE snapshots_fts USING fts5 (
  question,
  reply,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER snapshots_fts_insert AFTER INSERT ON snapshots
BEGIN
  INSERT INTO snapshots_fts (rowid, question, reply)
  VALUES (new.seq, new.question, coalesce(json_extract(new.reply_json, '$.content'), ''));
END;

CREATE TRIGGER snapshots_fts_delete AFTER DELETE ON snapshots
BEGIN
  DELETE FROM snapshots_fts WHERE rowid = old.seq;
END;

-- A database written before this migration gets its existing rows indexed.
INSERT INTO snapshots_fts (rowid, question, reply)
SELECT seq, question, coalesce(json_extract(reply_json, '$.content'), '') FROM snapshots;
