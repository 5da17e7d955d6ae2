//! Source Record Storage: FOLIO's SRS records and snapshots, and the MARC leader and
//! field search over them.
//!
//! What it owns: the SRS models (`Record`, `SourceRecord`, `Snapshot`), storing them
//! with FOLIO's rules (soft delete with leader/05 `d` and a new 005, un-delete,
//! `idType` lookups, batch saves, the fast [`put_marc_bibs`] for generated data), the
//! compact stored form (MARC once, as ISO 2709), the search expression language of
//! `POST /source-storage/stream/marc-record-identifiers`, and the in-memory [`MarcIndex`]
//! behind it, which follows the store's change log. What it does not own: HTTP (the
//! `server` crate maps [`Error`] to responses), SQL (the `store` crate), MARC codecs
//! (the `marc` crate).
//!
//! ```
//! let dir = tempfile::tempdir().unwrap();
//! let store = store::Store::open(dir.path(), Default::default(), &[srs::MIGRATIONS]).unwrap();
//! let (tenant, _) = store.create_tenant("diku").unwrap();
//! let mut marc = marc::Record::new(marc::Leader::new("00000cam a2200000 a 4500").unwrap());
//! marc.push(marc::Field::control(marc::Tag::new("005").unwrap(), "20141107001016.0").unwrap());
//! let instance_id = uuid::Uuid::new_v4();
//! tenant.write(|w| {
//!     let snapshot_id = srs::ensure_generated_snapshot(w)?;
//!     let bib = srs::NewBib { id: None, marc, instance_id, instance_hrid: "in1".into(),
//!         snapshot_id, suppress_discovery: false, state: srs::State::Actual };
//!     srs::put_marc_bibs(w, std::iter::once(bib))
//! }).unwrap();
//!
//! let index = srs::MarcIndex::open(&tenant).unwrap();
//! let request = srs::SearchRequest {
//!     leader_search_expression: Some("p_05 = 'c'".into()),
//!     fields_search_expression: Some("005.date in '20141101-20141130'".into()),
//!     ..Default::default()
//! };
//! assert_eq!(index.search(&request).unwrap().ids, [instance_id]);
//! ```
//!
//! Invariants:
//! - Every write goes through a `store::Writer`, so the change log records it; the
//!   index is derived from the stored records and the log, and rebuilt on open.
//! - A record's ordinal is assigned once, stored with it, and never reused: search
//!   results come in ordinal order, stable across restarts and pages.
//! - The stored form loses nothing: a record read back is the record written.

mod build;
mod expr;
mod flat;
mod follower;
mod index;
mod keys;
mod model;
mod records;
mod snapshots;
mod storage;
mod stored;
mod terms;

pub use crate::expr::{ExpressionError, ExpressionKind};
pub use crate::follower::MarcFollower;
pub use crate::index::{INDEX_FORMAT, MarcIndex, SearchRequest, SearchResult};
pub use crate::model::{
    AdditionalInfo, ExternalIdsHolder, ParsedRecord, RawRecord, Record, RecordType, Snapshot,
    SnapshotStatus, SourceRecord, State,
};
pub use crate::records::{
    BibState, IdType, NewBib, RecordFilter, bib_state, create, decode, delete, formatted,
    from_stored, get, get_by, get_formatted, get_many_by_external, list, list_source_records,
    new_generation, put_marc_bibs, replace, save_batch, source_records_by_ids, undelete,
};
pub use crate::snapshots::{
    GENERATED_SNAPSHOT, create_snapshot, decode_snapshot, delete_snapshot,
    ensure_generated_snapshot, get_snapshot, list_snapshots, replace_snapshot, status_name,
};
pub use crate::storage::{Error, MIGRATIONS, RECORD_CHANGE_TYPE, Result};
