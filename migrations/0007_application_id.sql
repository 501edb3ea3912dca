-- Marks the file as ctxproxy's audit log (SQLite's header field for this, 'CTXP'
-- as a 32-bit integer): a database another program made, or one committed to a
-- repository under ctxproxy's name, is told apart at open (audit/ownership.ts).
-- Databases made by older versions, recognised by their schema_migrations
-- table, get the mark here.
PRAGMA application_id = 1129601104;
