-- mod-di-converter-storage's profiles, one table per type. `name_key` is the name
-- trimmed and lower-cased: FOLIO refuses a second profile of a type whose name equals
-- another's that way, and the unique index keeps it so under concurrent writes.
-- `hidden` is 0 or 1, for the lists' `showHidden=false`.
CREATE TABLE job_profiles (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE,
    name_key TEXT NOT NULL,
    hidden INTEGER NOT NULL
);
CREATE UNIQUE INDEX job_profiles_name_key ON job_profiles (name_key);

CREATE TABLE match_profiles (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE,
    name_key TEXT NOT NULL,
    hidden INTEGER NOT NULL
);
CREATE UNIQUE INDEX match_profiles_name_key ON match_profiles (name_key);

CREATE TABLE action_profiles (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE,
    name_key TEXT NOT NULL,
    hidden INTEGER NOT NULL
);
CREATE UNIQUE INDEX action_profiles_name_key ON action_profiles (name_key);

CREATE TABLE mapping_profiles (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE,
    name_key TEXT NOT NULL,
    hidden INTEGER NOT NULL
);
CREATE UNIQUE INDEX mapping_profiles_name_key ON mapping_profiles (name_key);

-- One link of a tree: a master profile and one of its details. The wrapper ids name
-- the two ends as nodes (a match profile used twice in a job is two nodes), as FOLIO's
-- profile wrappers do; a job's or an action's node is shared by every link to it.
CREATE TABLE profile_associations (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    master_profile_id TEXT NOT NULL,
    master_type TEXT NOT NULL,
    detail_profile_id TEXT NOT NULL,
    detail_type TEXT NOT NULL,
    master_wrapper_id TEXT NOT NULL,
    detail_wrapper_id TEXT NOT NULL,
    job_profile_id TEXT,
    detail_order INTEGER NOT NULL,
    react_to TEXT
);
CREATE INDEX profile_associations_master ON profile_associations (master_profile_id);
CREATE INDEX profile_associations_detail ON profile_associations (detail_profile_id);
CREATE INDEX profile_associations_master_wrapper ON profile_associations (master_wrapper_id);
CREATE INDEX profile_associations_detail_wrapper ON profile_associations (detail_wrapper_id);
CREATE INDEX profile_associations_job ON profile_associations (job_profile_id);
CREATE INDEX profile_associations_types ON profile_associations (master_type, detail_type);

-- A job profile's tree frozen when an import starts (`POST /jobProfileSnapshots/{id}`),
-- so a job runs the profiles as they were however they change meanwhile.
CREATE TABLE profile_snapshots (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL
);
