-- Two more kinds of reference record, in the shape of the others.
CREATE TABLE ref_instance_status (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_mode_of_issuance (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
