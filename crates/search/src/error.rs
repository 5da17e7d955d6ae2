//! The search crate's errors, kept apart by who is at fault: the caller (a query or
//! parameter FOLIO rejects with 400 or 422) or the system (storage, the index).
//!
//! Messages of the caller's errors are FOLIO's, so the server can send them as they
//! are; the server owns the HTTP status and error code of each variant.

/// A search error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The query is not CQL. FOLIO: 400, `SearchServiceException`, `service_error`.
    #[error("Failed to parse CQL query [cql: '{query}', resource: {resource}]")]
    InvalidQuery { query: String, resource: &'static str, detail: cql::ParseError },
    /// A query over Quire's query limits (`limits`): 400, `validation_error`.
    #[error("{exceeded}")]
    QueryTooLarge { exceeded: limits::Exceeded },
    /// An index that is neither a field nor an alias. FOLIO: 400,
    /// `RequestValidationException`, `validation_error`, parameter `field`.
    #[error("Invalid search field provided in the CQL query")]
    UnknownField { field: String },
    /// A relation FOLIO does not support (`within`, `encloses`, ...). FOLIO: 400,
    /// `UnsupportedOperationException`, `service_error`.
    #[error("Failed to parse CQL query. Comparator '{relation}' is not supported.")]
    UnsupportedRelation { relation: String },
    /// `PROX`. FOLIO: 400, `UnsupportedOperationException`, `service_error`.
    #[error("Operator '{operator}' is not supported.")]
    UnsupportedOperator { operator: String },
    /// `limit`/`offset` out of range. FOLIO: 400, `validation_error`, parameter named.
    #[error("{message}")]
    InvalidPaging { parameter: &'static str, value: String, message: String },
    /// A date (or year) that does not parse, in a range or equality on a date field.
    /// FOLIO: 422, `ValidationException`.
    #[error("Invalid date value '{value}' for field '{field}'")]
    InvalidDate { field: String, value: String },
    /// `sortBy` a field that cannot be sorted on. FOLIO: 400, `validation_error`.
    #[error("Sort field not found or cannot be used: {field}")]
    InvalidSort { field: String },
    /// A facet that is not a facet field. FOLIO: 400, `validation_error`.
    #[error("Invalid facet value: {facet}")]
    InvalidFacet { facet: String },
    /// The tenant's database failed.
    #[error(transparent)]
    Store(#[from] store::Error),
    /// A stored inventory record could not be read.
    #[error(transparent)]
    Inventory(#[from] inventory::Error),
    /// The index failed (I/O, a corrupt segment, a poisoned writer).
    #[error("search index error: {0}")]
    Index(String),
    /// Another process (a running server) holds the index's writer.
    #[error("the search index is held by another process: {0}")]
    Busy(String),
    #[error("i/o error on {path}: {source}")]
    Io { path: String, source: std::io::Error },
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether the caller is at fault (a 4xx), as opposed to the system (a 5xx).
    pub fn is_client_error(&self) -> bool {
        match self {
            Error::InvalidQuery { .. }
            | Error::QueryTooLarge { .. }
            | Error::UnknownField { .. }
            | Error::UnsupportedRelation { .. }
            | Error::UnsupportedOperator { .. }
            | Error::InvalidPaging { .. }
            | Error::InvalidDate { .. }
            | Error::InvalidSort { .. }
            | Error::InvalidFacet { .. } => true,
            Error::Store(_)
            | Error::Inventory(_)
            | Error::Index(_)
            | Error::Busy(_)
            | Error::Io { .. } => false,
        }
    }
}

impl From<tantivy::TantivyError> for Error {
    fn from(e: tantivy::TantivyError) -> Self {
        match e {
            tantivy::TantivyError::LockFailure(..) => Error::Busy(e.to_string()),
            e => Error::Index(e.to_string()),
        }
    }
}

pub(crate) fn io_error(path: &std::path::Path, source: std::io::Error) -> Error {
    Error::Io { path: path.display().to_string(), source }
}
