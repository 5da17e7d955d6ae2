//! Errors of the storage layer, kept apart by who is at fault: the caller (bad tenant,
//! bad query, a unique value taken) or the system (the database failed).

/// A storage error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("invalid tenant name {0:?}: it must match [a-z][a-z0-9_]{{0,30}}")]
    InvalidTenantName(String),
    #[error("no such tenant: {0}")]
    UnknownTenant(String),
    /// A unique column already holds this value, e.g. an item barcode or an HRID.
    #[error("{column} value already exists in table {table}")]
    Unique { table: String, column: String },
    /// A record with this id already exists where an insert was asked for.
    #[error("a record with id {id} already exists in table {table}")]
    DuplicateId { table: String, id: String },
    #[error(transparent)]
    Query(#[from] QueryError),
    /// The database said no for a reason that is not the caller's fault.
    #[error("database error: {0}")]
    Database(String),
    #[error("i/o error on {path}: {source}")]
    Io { path: String, source: std::io::Error },
    /// A stored value does not have the shape it must have.
    #[error("corrupt data: {0}")]
    Corrupt(String),
    /// A tenant could not be copied between stores, or its copy differs.
    #[error("tenant copy: {0}")]
    Copy(String),
    /// A write sent later ([`crate::Writer::defer_writes`]) failed, or changed no row;
    /// it reaches the caller from whichever statement carried it.
    #[error("{what}: {source}")]
    Deferred { what: String, source: Box<Error> },
}

/// A CQL query that the storage endpoints cannot answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("{0}")]
    Syntax(String),
    #[error("unsupported index '{0}': it is not a searchable field of this endpoint")]
    UnsupportedField(String),
    #[error("unsupported relation '{relation}' on index '{field}'")]
    UnsupportedRelation { field: String, relation: String },
    #[error("unsupported boolean operator '{0}'")]
    UnsupportedBoolean(String),
    #[error("invalid value '{value}' for index '{field}': {reason}")]
    InvalidValue { field: String, value: String, reason: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        // SQLite says "UNIQUE constraint failed: items.barcode".
        if let rusqlite::Error::SqliteFailure(code, Some(msg)) = &e
            && code.code == rusqlite::ErrorCode::ConstraintViolation
            && let Some(rest) = msg.strip_prefix("UNIQUE constraint failed: ")
        {
            let first = rest.split(',').next().unwrap_or(rest).trim();
            let (table, column) = first.split_once('.').unwrap_or(("", first));
            return Error::Unique { table: table.to_string(), column: column.to_string() };
        }
        Error::Database(e.to_string())
    }
}
