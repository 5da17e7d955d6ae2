//! Search: FOLIO's `/search/instances` and `/search/authorities` on tantivy, derived
//! from the store's change log.
//!
//! This crate owns the per-tenant authority index (`tenant.dir()/search/authorities`:
//! one document per heading and tracing, see [`AuthorityIndex`]) and the per-tenant
//! instance index (`tenant.dir()/search/instances`):
//! what is indexed (instances with their holdings and items folded in, with FOLIO's
//! field names, aliases and analysers), CQL translated with mod-search's semantics,
//! results, facets and id streams in FOLIO's shapes, the follower that keeps the index
//! within a second of the store, and reindexing without downtime. It does not own HTTP
//! (the server maps [`Error`] to FOLIO's error bodies), the records (`inventory`) or
//! their storage (`store`).
//!
//! ```
//! let dir = tempfile::tempdir().unwrap();
//! let store = store::Store::open(dir.path(), Default::default(), &[inventory::MIGRATIONS]).unwrap();
//! let (tenant, _) = store.create_tenant("diku").unwrap();
//! tenant.write(inventory::load_reference_data).unwrap();
//! let body = br#"{"source": "FOLIO", "title": "A semantic web primer",
//!     "instanceTypeId": "6312d172-f0cf-40f6-b27d-9fa8feaf332f"}"#;
//! tenant.write(|w| inventory::create::<inventory::Instance>(w, body, Default::default())).unwrap();
//!
//! let index = search::InstanceIndex::open(&tenant).unwrap(); // builds from the store
//! index.catch_up(&tenant).unwrap();
//! let found = index.search(&tenant, &search::SearchRequest::new("title all primers")).unwrap();
//! assert_eq!(found.total_records, 1);
//! let error = index.count("title within x").unwrap_err();
//! assert_eq!(error.to_string(), "Failed to parse CQL query. Comparator 'within' is not supported.");
//! ```
//!
//! Invariants:
//! - SQLite is the truth: the index holds nothing that cannot be rebuilt from the store,
//!   and its last commit records the change-log sequence number it reflects.
//! - A search sees one committed view of one generation; a reindex swaps generations
//!   atomically, so no search fails or sees a half-built index.
//! - No tokio, no HTTP: the follower is a plain thread.

mod authority;
mod build_dir;
mod deletes;
mod error;
mod facet;
mod follower;
mod generation;
mod grams;
mod instance;
mod lifecycle;
mod pattern;
mod presence;
mod priority;
mod query;
mod registry;
mod text;

pub use crate::authority::{AuthorityIndex, AuthoritySearchRequest, AuthoritySearchResponse};
pub use crate::error::{Error, Result};
pub use crate::facet::{DEFAULT_FACET_SIZE, Facet, FacetRequest, FacetValue, FacetsResponse};
pub use crate::follower::{FollowedIndex, Follower, FollowerHandle, FollowerOptions};
pub use crate::instance::{
    BulkBuild, InstanceIndex, MAX_LIMIT, MAX_WINDOW, SearchRequest, SearchResponse,
};
pub use crate::lifecycle::{IndexOptions, IndexStatus, ReindexProgress, ReindexStats};
