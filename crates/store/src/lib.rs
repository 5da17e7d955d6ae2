//! The system of record: one SQLite database (WAL) per tenant, with versioned migrations,
//! generic JSON record tables and a change log.
//!
//! What it owns: opening and creating tenant databases, transactions, the DDL of the
//! core tables, and translating the storage-endpoint CQL subset to SQL. What it does not
//! own: record shapes and their rules (domain crates such as `inventory`), HTTP, search.
//!
//! Invariants:
//! - Every write made through a [`Writer`] appends one change-log row per record changed,
//!   in the same transaction, so derived state (search index, OAI datestamps, events)
//!   can follow the log and never silently diverges.
//! - Domain crates name their tables with [`RecordTable`] and declare their DDL as
//!   [`Migration`]s; no domain crate sees a SQLite type, so a PostgreSQL backend can
//!   slot in behind the same API.
//!
//! ```
//! let dir = tempfile::tempdir().unwrap();
//! let store = store::Store::open(dir.path(), store::Options::default(), &[]).unwrap();
//! let (tenant, created) = store.create_tenant("diku").unwrap();
//! assert!(created);
//! assert_eq!(tenant.last_seq().unwrap(), 0);
//! ```

mod cache;
mod changes;
mod copy;
mod dialect;
mod error;
mod files;
#[cfg(test)]
mod fixtures;
#[allow(unsafe_code)]
mod group;
mod ids;
mod lease;
#[allow(unsafe_code)]
mod memory;
mod migrate;
mod postgres;
mod priority;
mod query;
#[allow(unsafe_code)]
mod random_reads;
mod record;
mod sql;
mod tenant;
pub mod testing;
#[allow(unsafe_code)]
mod warm;

pub use crate::{
    changes::{Bodies, Change, HISTORY_TYPES, Operation, Publisher, RecordHistory},
    copy::TableSum,
    error::{Error, QueryError, Result},
    ids::new_record_id,
    lease::{LEASE_TTL, Lease, now_ms},
    memory::sqlite_memory_bytes,
    migrate::{Component, Migration},
    priority::{lower_current_thread, nice_current_thread, nice_current_thread_to},
    query::{FieldKind, QueryField, SortDirection},
    record::{ColumnValue, Key, Page, Read, Reader, RecordTable, StoredRecord, Writer},
    tenant::{Backend, BulkReads, Durability, Options, Store, Tenant, validate_tenant_name},
};
