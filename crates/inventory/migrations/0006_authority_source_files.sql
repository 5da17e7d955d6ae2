-- Authority source files (mod-entities-links): where authority records come from.
CREATE TABLE authority_source_files (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    name TEXT NOT NULL UNIQUE,
    base_url TEXT UNIQUE,
    type TEXT COLLATE NOCASE,
    source TEXT NOT NULL
);
