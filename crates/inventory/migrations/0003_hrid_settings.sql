-- The tenant's HRID settings (FOLIO `hrid-settings-storage`): one record.
CREATE TABLE hrid_settings (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL
);
