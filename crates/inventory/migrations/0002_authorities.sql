-- Authority records (FOLIO mod-entities-links `authority-storage`): the JSON document
-- in `body`, plus the columns storage queries use. `heading_type` is the type of the
-- authorised heading (`personalName`, `topicalTerm`, ...), as FOLIO's table keeps it.
CREATE TABLE authorities (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    natural_id TEXT COLLATE NOCASE,
    source TEXT COLLATE NOCASE,
    source_file_id TEXT COLLATE NOCASE,
    heading_type TEXT,
    updated_date TEXT
);
CREATE INDEX authorities_natural_id ON authorities (natural_id);
CREATE INDEX authorities_source_file_id ON authorities (source_file_id);
CREATE INDEX authorities_updated_date ON authorities (updated_date);
