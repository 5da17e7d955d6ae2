//! The parser's one error type. It owns the wording of messages; it does not
//! decide how a caller reports them (the server maps it to a FOLIO 400).

/// A query the parser rejects: what was expected, what was found, and where.
///
/// Messages follow cql-java's wording (`expected index or term, got EOF`,
/// `junk after end: ')'`) so that FOLIO clients see familiar text; the
/// regression corpus compares them byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (at byte {offset})")]
pub struct ParseError {
    /// Byte offset into the query of the token that could not be accepted
    /// (the query's length when the query ended too early).
    // Invariant: `offset <= query.len()` and lies on a char boundary.
    pub offset: usize,
    /// What was expected and what was found, without the offset.
    pub message: String,
    /// Which of Quire's query limits the query is over, when that is the error.
    pub exceeded: Option<limits::Exceeded>,
}

/// The crate's result type.
pub type Result<T, E = ParseError> = std::result::Result<T, E>;

impl ParseError {
    pub(crate) fn new(offset: usize, message: impl Into<String>) -> Self {
        Self { offset, message: message.into(), exceeded: None }
    }

    /// A query over a limit, at `offset`.
    pub(crate) fn over(offset: usize, exceeded: limits::Exceeded) -> Self {
        Self { offset, message: exceeded.to_string(), exceeded: Some(exceeded) }
    }
}
