//! How large a query may be, in every query language Quire reads: CQL (search and
//! storage lists), MARC search expressions and the circulation rules language.
//!
//! One set of limits, so a client meets the same bound whichever language it writes
//! and each parser does not pick its own:
//!
//! - [`MAX_BYTES`] of query text (64 KiB: a thousand `id==<uuid>` clauses fit);
//! - [`MAX_TERMS`] search terms (CQL search clauses, MARC expression terms): FOLIO's
//!   Elasticsearch refuses a query past 1,024 clauses, and its clients page through
//!   ids in batches of a few hundred at most;
//! - [`MAX_DEPTH`] levels of nesting: parenthesised groups, operator changes, prefix
//!   scopes, indented rule lines. Real queries use five or fewer.
//!
//! Why depth is what matters: the parsers keep explicit stacks, and the translators
//! and evaluators flatten chains of one operator (`a or b or ... or z` is one level,
//! however long) and recurse once per level only. Tantivy builds its weights and
//! scorers recursively too, so a level costs a few kilobytes of stack whatever we do;
//! 32 levels keep the deepest query accepted within a small fraction of the 2 MiB
//! stack of Quire's request threads (the `deepest_accepted_*` tests run them on
//! threads of [`TEST_STACK_BYTES`]).
//!
//! A query over a limit is refused before any work is done on it, with a message
//! naming the limit ([`Exceeded`]); each parser reports it with its own position.

/// The most bytes of query text accepted.
pub const MAX_BYTES: usize = 64 * 1024;

/// The most search terms in one query.
pub const MAX_TERMS: usize = 1000;

/// The most levels of nesting in one query.
pub const MAX_DEPTH: usize = 32;

/// The stack on which tests run the largest query each language accepts: an eighth
/// of a Quire request thread's 2 MiB, as a margin for debug builds and for stack
/// the callers above the query's work use.
pub const TEST_STACK_BYTES: usize = 256 * 1024;

/// Runs `work` on a thread of [`TEST_STACK_BYTES`] and returns what it returns: for the
/// tests that run each language's largest query accepted. A stack overflow aborts the
/// test process, so such a test cannot pass by accident.
pub fn on_test_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .name("small-stack".to_string())
        .stack_size(TEST_STACK_BYTES)
        .spawn(work)
        .expect("a thread for the test")
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// A query over one of the limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Exceeded {
    #[error("Query is too long: {bytes} bytes, at most {MAX_BYTES} are allowed")]
    Bytes { bytes: usize },
    #[error("Query has too many terms: at most {MAX_TERMS} are allowed")]
    Terms,
    #[error("Query is nested too deeply: at most {MAX_DEPTH} levels are allowed")]
    Depth,
}

/// Checks the length of a query's text.
pub fn check_bytes(text: &str) -> Result<(), Exceeded> {
    if text.len() > MAX_BYTES { Err(Exceeded::Bytes { bytes: text.len() }) } else { Ok(()) }
}

/// Checks a count of terms.
pub fn check_terms(n_terms: usize) -> Result<(), Exceeded> {
    if n_terms > MAX_TERMS { Err(Exceeded::Terms) } else { Ok(()) }
}

/// Checks a nesting depth (the outermost level is 1, or 0 for a single term).
pub fn check_depth(depth: usize) -> Result<(), Exceeded> {
    if depth > MAX_DEPTH { Err(Exceeded::Depth) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_inclusive_and_messages_name_them() {
        assert_eq!(check_bytes(&"a".repeat(MAX_BYTES)), Ok(()));
        let long = "a".repeat(MAX_BYTES + 1);
        assert_eq!(
            check_bytes(&long).unwrap_err().to_string(),
            "Query is too long: 65537 bytes, at most 65536 are allowed"
        );
        assert_eq!(check_terms(MAX_TERMS), Ok(()));
        assert_eq!(
            check_terms(MAX_TERMS + 1).unwrap_err().to_string(),
            "Query has too many terms: at most 1000 are allowed"
        );
        assert_eq!(check_depth(MAX_DEPTH), Ok(()));
        assert_eq!(
            check_depth(MAX_DEPTH + 1).unwrap_err().to_string(),
            "Query is nested too deeply: at most 32 levels are allowed"
        );
    }
}
