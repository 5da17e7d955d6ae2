//! Where SRS records live: their tables, the migration, and the errors of the crate.

use store::{Migration, RecordTable};

pub(crate) const RECORDS: RecordTable = RecordTable {
    table: "srs_records",
    record_type: "srs_record",
    cached: false,
    columns: &[
        "ord",
        "snapshot_id",
        "matched_id",
        "record_type",
        "state",
        "external_id",
        "external_hrid",
        "leader_record_status",
        "suppress",
        "deleted",
        "updated_date",
    ],
};

pub(crate) const SNAPSHOTS: RecordTable = RecordTable {
    table: "srs_snapshots",
    record_type: "srs_snapshot",
    cached: false,
    columns: &["status"],
};

/// The change-log record type of SRS records, for followers.
pub const RECORD_CHANGE_TYPE: &str = RECORDS.record_type;

/// The SRS component's schema.
pub const MIGRATIONS: store::Component = store::Component {
    name: "srs",
    migrations: &[Migration {
        version: 1,
        description: "source records and snapshots",
        sql: include_str!("../migrations/0001_srs.sql"),
    }],
};

/// An SRS error, kept apart by fault: the caller's (`NotFound`, `Decode`, `Invalid`,
/// `Expression`) or the system's (`Store`, `Corrupt`).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{what} with id '{id}' was not found")]
    NotFound { what: &'static str, id: String },
    /// The body is not JSON (400), or not of the expected shape (422).
    #[error(transparent)]
    Decode(#[from] folio::DecodeError),
    /// A field has a value FOLIO's rules refuse.
    #[error("{message}")]
    Invalid { field: String, value: String, message: String },
    /// A MARC search expression FOLIO would refuse, with FOLIO's message.
    #[error(transparent)]
    Expression(#[from] crate::ExpressionError),
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error("corrupt stored SRS data: {0}")]
    Corrupt(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// FOLIO's shared verbs' errors in SRS's words.
impl From<folio::record::Error> for Error {
    fn from(e: folio::record::Error) -> Error {
        match e {
            folio::record::Error::NotFound { record, id } => {
                Error::NotFound { what: record, id: id.to_string() }
            }
            e @ folio::record::Error::IdMismatch { body, .. } => {
                Error::invalid("id", body, e.to_string())
            }
            folio::record::Error::Store(e) => Error::Store(e),
            // Snapshots carry no `_version`: a conflict means a fault.
            e @ (folio::record::Error::VersionConflict { .. }
            | folio::record::Error::Corrupt { .. }) => Error::Corrupt(e.to_string()),
        }
    }
}

impl Error {
    pub(crate) fn invalid(field: &str, value: impl ToString, message: impl Into<String>) -> Error {
        Error::Invalid {
            field: field.to_string(),
            value: value.to_string(),
            message: message.into(),
        }
    }
}
