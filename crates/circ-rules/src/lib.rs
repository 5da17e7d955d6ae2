//! FOLIO circulation rules: the little language that says which loan,
//! request, notice, overdue fine and lost item policy applies to a patron
//! group borrowing an item of some material type, loan type and location.
//!
//! This crate owns the language: it parses and checks a rules text the way
//! mod-circulation does (same acceptance, same messages and positions), and
//! compiles it into [`Rules`], which answers policy lookups fast enough to
//! run inside every check-out. It owns no storage and no HTTP: whether each
//! named policy exists is the caller's question
//! ([`Rules::policy_references`]), and the caller renders [`Error`] as
//! FOLIO's `422 {"message","line","column"}` (see the README).
//!
//! ```
//! use circ_rules::{Criteria, PolicyKind, Rules};
//!
//! let rules = Rules::compile(
//!     "priority: t, s, c, b, a, m, g
//! fallback-policy: l no-loan r no-hold n notice o overdue i lost
//! m book: l two-weeks r hold n notice o overdue i lost
//!     g visitor: l in-house r no-hold n notice o overdue i lost
//! ",
//! )
//! .unwrap();
//! let item = Criteria { patron_group: "visitor", material_type: "book", ..Criteria::default() };
//! let winner = rules.lookup(PolicyKind::Loan, &item);
//! assert_eq!((winner.policy_id, winner.line), ("in-house", 4));
//! let all: Vec<_> = rules.lookup_all(PolicyKind::Loan, &item).iter().map(|m| m.policy_id).collect();
//! assert_eq!(all, ["in-house", "two-weeks", "no-loan"]);
//!
//! let error = Rules::compile("priority: last-line\nm book: l x").unwrap_err();
//! assert_eq!(error.message, "extraneous input 'm' expecting {'fallback-policy', NEWLINE}");
//! assert_eq!((error.line, error.column), (2, 1));
//! ```
//!
//! # Invariants
//!
//! - Compiling never panics, whatever the text, and nothing here does I/O.
//! - A compiled [`Rules`] always has a fallback rule, so [`Rules::lookup`]
//!   always returns a policy, and [`Rules::lookup_all`] ends with it.
//! - Every rule names exactly one policy of each [`PolicyKind`].

mod error;
mod lexer;
mod parser;
mod rules;

pub use crate::error::{Error, Result};
pub use crate::rules::{AppliedConditions, Criteria, Match, PolicyKind, PolicyRef, Rules};
