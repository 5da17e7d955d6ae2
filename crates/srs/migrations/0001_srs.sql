-- Source Record Storage. The body of a record row is Quire's stored form (see
-- crates/srs/src/stored.rs): a small JSON envelope, a newline, then the MARC record in
-- ISO 2709, so the MARC is stored once and parsedRecord JSON is rendered on read.
CREATE TABLE srs_records (
    id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    body TEXT NOT NULL,
    ord INTEGER NOT NULL UNIQUE,
    snapshot_id TEXT NOT NULL,
    matched_id TEXT NOT NULL,
    record_type TEXT NOT NULL,
    state TEXT NOT NULL,
    external_id TEXT,
    external_hrid TEXT,
    leader_record_status TEXT,
    suppress INTEGER NOT NULL,
    deleted INTEGER NOT NULL,
    updated_date TEXT
);
CREATE INDEX srs_records_snapshot ON srs_records (snapshot_id);
CREATE INDEX srs_records_matched ON srs_records (matched_id);
CREATE INDEX srs_records_external ON srs_records (external_id);
CREATE INDEX srs_records_external_hrid ON srs_records (external_hrid);
CREATE INDEX srs_records_updated ON srs_records (updated_date);

CREATE TABLE srs_snapshots (
    id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL
);
