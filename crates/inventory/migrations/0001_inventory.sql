-- Inventory records: the FOLIO JSON document in `body`, plus the columns that storage
-- queries and joins use. Text columns compared case-insensitively are COLLATE NOCASE so
-- their indexes serve `==` lookups directly.
CREATE TABLE instances (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    hrid TEXT UNIQUE COLLATE NOCASE,
    source TEXT COLLATE NOCASE,
    updated_date TEXT
);
CREATE INDEX instances_source ON instances (source);
CREATE INDEX instances_updated_date ON instances (updated_date);

CREATE TABLE holdings (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    hrid TEXT UNIQUE COLLATE NOCASE,
    instance_id TEXT NOT NULL COLLATE NOCASE,
    permanent_location_id TEXT COLLATE NOCASE,
    effective_location_id TEXT COLLATE NOCASE,
    updated_date TEXT
);
CREATE INDEX holdings_instance_id ON holdings (instance_id);
CREATE INDEX holdings_permanent_location_id ON holdings (permanent_location_id);
CREATE INDEX holdings_effective_location_id ON holdings (effective_location_id);

CREATE TABLE items (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    hrid TEXT UNIQUE COLLATE NOCASE,
    barcode TEXT UNIQUE COLLATE NOCASE,
    holdings_record_id TEXT NOT NULL COLLATE NOCASE,
    status_name TEXT,
    effective_location_id TEXT COLLATE NOCASE,
    material_type_id TEXT COLLATE NOCASE,
    permanent_loan_type_id TEXT COLLATE NOCASE,
    updated_date TEXT
);
CREATE INDEX items_holdings_record_id ON items (holdings_record_id);
CREATE INDEX items_status_name ON items (status_name);
CREATE INDEX items_effective_location_id ON items (effective_location_id);

-- Reference data, one table per kind, all of one shape. Parent columns serve the
-- location hierarchy (campus -> institution, library -> campus, location -> all three).
CREATE TABLE ref_instance_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_contributor_name_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_identifier_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_holdings_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_call_number_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_material_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_loan_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_institution (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_campus (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_library (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_location (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_service_point (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_holdings_source (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
