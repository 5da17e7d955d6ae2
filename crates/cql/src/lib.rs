//! CQL 1.2: the query language of FOLIO's search APIs, parsed the way FOLIO
//! parses it.
//!
//! This crate owns the syntax of CQL queries: it turns a query string into a
//! [`Query`] tree, writes that tree as XCQL, and reports malformed queries
//! with what was expected and the byte offset where it went wrong. It owns no
//! meaning: it does not know which indexes exist, what `all` does to a
//! full-text field, or how to search. The search and storage layers translate
//! the tree.
//!
//! FOLIO parses CQL with Index Data's cql-java, and FOLIO clients rely on its
//! reading of the grammar, which is looser than the spec in two ways this
//! crate keeps:
//!
//! - `field == (a or b)` applies `field ==` to each clause in the group.
//! - Consecutive words form one term: `keyword == random 2words` searches
//!   `keyword` for the term `random 2words`.
//!
//! The XCQL writer ([`Query::to_xcql`]) reproduces cql-java's output byte
//! for byte on its regression corpus; [`parse_xcql`] reads XCQL back, and
//! [`xcql_filter`] is the line filter behind `quire cql`. Where cql-java and Index Data's other parser (YAZ)
//! differ, this crate follows cql-java; the differences are listed in the
//! crate's `README.md`.
//!
//! ```
//! # use quire_cql as cql;
//! use cql::{BooleanOp, Node};
//!
//! let query = cql::parse("title all (war or peace) sortBy title/sort.descending").unwrap();
//! let Node::Boolean { op: BooleanOp::Or, left, .. } = &query.root else { unreachable!() };
//! let Node::Search(clause) = left.as_ref() else { unreachable!() };
//! assert_eq!((clause.index.as_str(), clause.relation.base.as_str()), ("title", "all"));
//! assert_eq!(clause.term, "war");
//! assert_eq!(query.sort_keys[0].modifiers[0].name, "sort.descending");
//!
//! let error = cql::parse("title all").unwrap_err();
//! assert_eq!(error.message, "expected index or term, got EOF");
//! assert_eq!(error.offset, 9);
//! ```
//!
//! # Invariants
//!
//! - Parsing never panics, whatever the input, and does no I/O. The only I/O
//!   is [`xcql_filter`], on the reader and writer it is given.
//! - A tree is at most [`MAX_DEPTH`] deep, so recursive walks of it are safe
//!   on an ordinary thread stack.
//! - Terms, indexes and values are kept as written (quotes removed, backslash
//!   escapes kept); only modifier names are lower-cased, as cql-java does.
//! - For any query `q` that parses, `q.to_xcql()` is well-formed XML and
//!   [`parse_xcql`] reads it back to an equal tree (the fuzz target checks
//!   both).

mod ast;
mod error;
mod filter;
mod lexer;
mod parser;
mod term;
mod xcql;
mod xcql_reader;

pub use crate::ast::{
    BooleanOp, Modifier, Node, Prefix, Query, Relation, RelationKind, SERVER_CHOICE, SearchClause,
    SortKey,
};
pub use crate::error::{ParseError, Result};
pub use crate::filter::xcql_filter;
pub use crate::parser::{MAX_DEPTH, parse};
pub use crate::term::TermPart;
pub use crate::xcql_reader::parse_xcql;
