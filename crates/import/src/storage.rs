//! The import component's tables: jobs, each job's cursor, its journal (one entry per
//! record) and the chunks a scripted client posted that are not processed yet.

use store::{Migration, RecordTable};

pub const MIGRATIONS: store::Component = store::Component {
    name: "import",
    migrations: &[
        Migration {
            version: 1,
            description: "import jobs, cursors, journal, pending chunks",
            sql: "
        CREATE TABLE import_jobs (
            id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
            hrid INTEGER NOT NULL UNIQUE,
            status TEXT NOT NULL,
            ui_status TEXT NOT NULL,
            file_name TEXT COLLATE NOCASE,
            profile_id TEXT,
            profile_name TEXT COLLATE NOCASE,
            user_id TEXT,
            subordination_type TEXT,
            started_date TEXT,
            completed_date TEXT,
            progress_total INTEGER
        );
        CREATE INDEX import_jobs_status ON import_jobs (status);
        CREATE TABLE import_cursors (
            id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL
        );
        CREATE TABLE import_journal (
            id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
            job_id TEXT NOT NULL,
            ord INTEGER NOT NULL,
            title TEXT COLLATE NOCASE,
            source_status TEXT,
            instance_status TEXT,
            holdings_status TEXT,
            item_status TEXT,
            authority_status TEXT,
            error TEXT
        );
        CREATE INDEX import_journal_job ON import_journal (job_id, ord);
        CREATE TABLE import_chunks (
            id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
            job_id TEXT NOT NULL,
            n INTEGER NOT NULL
        );
        CREATE INDEX import_chunks_job ON import_chunks (job_id, n);
        ",
        },
        Migration {
            version: 2,
            description: "upload definitions",
            sql: "
        CREATE TABLE import_uploads (
            id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
            status TEXT NOT NULL
        );
        ",
        },
        Migration {
            version: 3,
            description: "file extensions",
            sql: "
        CREATE TABLE import_file_extensions (
            id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
            extension TEXT NOT NULL COLLATE NOCASE UNIQUE,
            import_blocked INTEGER NOT NULL
        );
        ",
        },
    ],
};

pub(crate) const JOBS: RecordTable = RecordTable {
    table: "import_jobs",
    record_type: "import_job",
    cached: false,
    columns: &[
        "hrid",
        "status",
        "ui_status",
        "file_name",
        "profile_id",
        "profile_name",
        "user_id",
        "subordination_type",
        "started_date",
        "completed_date",
        "progress_total",
    ],
};

// The cursors, journal and chunks are the import's own bookkeeping: not logged.
pub(crate) const CURSORS: RecordTable =
    RecordTable { table: "import_cursors", record_type: "", cached: false, columns: &[] };

pub(crate) const JOURNAL: RecordTable = RecordTable {
    table: "import_journal",
    record_type: "",
    cached: false,
    columns: &[
        "job_id",
        "ord",
        "title",
        "source_status",
        "instance_status",
        "holdings_status",
        "item_status",
        "authority_status",
        "error",
    ],
};

pub(crate) const UPLOADS: RecordTable = RecordTable {
    table: "import_uploads",
    record_type: "import_upload",
    cached: false,
    columns: &["status"],
};

pub(crate) const CHUNKS: RecordTable = RecordTable {
    table: "import_chunks",
    record_type: "",
    cached: false,
    columns: &["job_id", "n"],
};
