-- mod-configuration's entries. `code` and `user_id` hold '' when absent, so the unique
-- index treats two absent values as equal (SQL's NULLs never are).
CREATE TABLE config_entries (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    module TEXT NOT NULL COLLATE NOCASE,
    config_name TEXT NOT NULL COLLATE NOCASE,
    code TEXT NOT NULL COLLATE NOCASE,
    user_id TEXT NOT NULL,
    enabled TEXT
);
CREATE UNIQUE INDEX config_entries_key ON config_entries (module, config_name, code, user_id);
