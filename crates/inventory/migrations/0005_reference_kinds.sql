-- The rest of FOLIO's kinds of reference record, in the shape of the others.
CREATE TABLE ref_alternative_title_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_classification_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_contributor_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_electronic_access_relationship (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_instance_date_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_instance_format (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_instance_note_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_instance_relationship_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_nature_of_content_term (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_subject_source (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_subject_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_holdings_note_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_ill_policy (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_item_note_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_item_damaged_status (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_statistical_code_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_statistical_code (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
CREATE TABLE ref_authority_note_type (id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, name TEXT COLLATE NOCASE, code TEXT COLLATE NOCASE, institution_id TEXT, campus_id TEXT, library_id TEXT);
-- The code column now holds every kind's code, unique or not, so that CQL `code==`
-- answers for location units too; until now it held unique codes only.
UPDATE ref_institution SET code = json_extract(body, '$.code');
UPDATE ref_campus SET code = json_extract(body, '$.code');
UPDATE ref_library SET code = json_extract(body, '$.code');
