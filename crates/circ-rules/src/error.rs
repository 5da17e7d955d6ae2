//! The crate's one error type. It owns the wording and the reported position
//! of every rejection; it does not decide how a caller renders it (FOLIO's
//! `PUT /circulation/rules` answers 422 with `{"message","line","column"}`,
//! see the crate README).

/// Circulation rules that do not compile, or a policy reference the caller
/// found to be missing ([`crate::PolicyRef::not_found`]).
///
/// `message`, `line` and `column` are what mod-circulation reports for the
/// same text, quirks included: most errors give a 1-based column, but the
/// policy-list checks ("Must contain one of each policy type, ...", "Only
/// one policy of type ...", "The policy l does not exist") and the
/// fallback-policy checks give the 0-based column of the `:` or of
/// `fallback-policy`, and a tab is reported one column to its right.
/// `offset` is the honest position: the byte offset of the token the error
/// is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (line {line}, column {column})")]
pub struct Error {
    /// The 1-based line FOLIO reports.
    pub line: usize,
    /// The column FOLIO reports (see the type's doc for its base).
    pub column: usize,
    /// FOLIO's message text, without the position.
    pub message: String,
    /// Byte offset into the rules text of the offending token.
    // Invariant: `offset <= text.len()` and lies on a char boundary.
    pub offset: usize,
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn new(
        line: usize,
        column: usize,
        offset: usize,
        message: impl Into<String>,
    ) -> Self {
        Self { line, column, message: message.into(), offset }
    }
}
