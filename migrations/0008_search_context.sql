-- Search covers the context a request forwarded, so "which requests sent
-- config.ts?" has an answer: the full-text index gets a third column, the
-- names of the context items sent (their keys, titles, paths) and why each was
-- chosen, read from the budget report's parts. Their text is not indexed: a
-- conversation repeats its context block every turn, and the index would hold
-- it once per turn. An FTS5 table cannot take a column, so it is made again,
-- with its triggers (the same rules as 0006: in-flight rows are not indexed),
-- and every finished row is indexed anew.

DROP TRIGGER snapshots_fts_insert;
DROP TRIGGER snapshots_fts_delete;
DROP TRIGGER snapshots_fts_settle;
DROP TABLE snapshots_fts;

CREATE VIRTUAL TABLE snapshots_fts USING fts5 (
  question,
  reply,
  context,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER snapshots_fts_insert AFTER INSERT ON snapshots
WHEN new.outcome <> 'in_flight'
BEGIN
  INSERT INTO snapshots_fts (rowid, question, reply, context)
  VALUES (
    new.seq,
    new.question,
    coalesce(json_extract(new.reply_json, '$.content'), ''),
    coalesce((
      SELECT group_concat(value, ' ') FROM json_tree(new.budget_json, '$.parts')
      WHERE type = 'text' AND (key IN ('key', 'title', 'path', 'why') OR path GLOB '*.keys')
    ), '')
  );
END;

CREATE TRIGGER snapshots_fts_delete AFTER DELETE ON snapshots
WHEN old.outcome <> 'in_flight'
BEGIN
  DELETE FROM snapshots_fts WHERE rowid = old.seq;
END;

CREATE TRIGGER snapshots_fts_settle AFTER UPDATE OF outcome ON snapshots
WHEN old.outcome = 'in_flight' AND new.outcome <> 'in_flight'
BEGIN
  INSERT INTO snapshots_fts (rowid, question, reply, context)
  VALUES (
    new.seq,
    new.question,
    coalesce(json_extract(new.reply_json, '$.content'), ''),
    coalesce((
      SELECT group_concat(value, ' ') FROM json_tree(new.budget_json, '$.parts')
      WHERE type = 'text' AND (key IN ('key', 'title', 'path', 'why') OR path GLOB '*.keys')
    ), '')
  );
END;

INSERT INTO snapshots_fts (rowid, question, reply, context)
SELECT
  s.seq,
  s.question,
  coalesce(json_extract(s.reply_json, '$.content'), ''),
  coalesce((
    SELECT group_concat(t.value, ' ') FROM json_tree(s.budget_json, '$.parts') t
    WHERE t.type = 'text' AND (t.key IN ('key', 'title', 'path', 'why') OR t.path GLOB '*.keys')
  ), '')
FROM snapshots s
WHERE s.outcome <> 'in_flight';
