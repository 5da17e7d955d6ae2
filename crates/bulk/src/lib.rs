//! Bulk edit: FOLIO's bulk operations (mod-bulk-operations) on users, items, holdings
//! and instances, and an undo of a committed operation.
//!
//! What it owns: operations (FOLIO's `bulkOperation`, its status machine and counts),
//! the records an operation matched with the version it matched them at, the changes
//! its rules propose, what its commit wrote and the errors of each step, and the CSV
//! files FOLIO offers for download. What it does not own: HTTP, the thread that runs
//! operations (the runtime's), and the rules of each record type (inventory's and
//! auth's saves, which a commit goes through as any single edit does).
//!
//! Invariants:
//! - A step's chunk of records, their outcomes and the operation's cursor and counts
//!   commit together: an operation that stops, however it stops, goes on from a chunk
//!   boundary with nothing applied twice.
//! - A commit writes a record only at the version it was matched at; a record changed
//!   since is an error of that record ("not the most recent version"), never overwritten.
//! - A rollback is an operation of its own, whose records are the committed ones and
//!   whose changes put back what each record was before the commit.

mod columns;
mod identifiers;
mod operation;
mod rules;
mod run;
mod storage;
mod table;

pub use crate::identifiers::parse_identifiers;
pub use crate::operation::{
    Approach, EntityType, ErrorType, IdentifierType, Operation, OperationError, Status, Step,
    errors, get_operation, list_operations, unfinished_operations,
};
pub use crate::rules::{Action, ActionType, Parameter, Rule, RuleCollection, RuleDetails};
pub use crate::run::{
    CHUNK, Progress, cancel, content_update, create_query, create_upload, finish, rollback, start,
    step,
};
pub use crate::storage::MIGRATIONS;
pub use crate::table::{FileContentType, Preview, download, preview};

use uuid::Uuid;

/// What went wrong. `NotFound` and `Invalid` are the caller's (404 and 400, in FOLIO's
/// plain text); the rest are the store's or a bug's.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Bulk operation was not found by id={0}")]
    NotFound(Uuid),
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error(transparent)]
    Inventory(#[from] inventory::Error),
    #[error(transparent)]
    Auth(#[from] auth::Error),
    #[error("stored bulk operation data is corrupt: {0}")]
    Corrupt(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

fn invalid(message: impl Into<String>) -> Error {
    Error::Invalid(message.into())
}
