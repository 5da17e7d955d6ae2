//! The instance record family: instances with their holdings and items folded in,
//! searched with FOLIO's `/search/instances` semantics.
//!
//! A future record family (authorities) gets a sibling module with its own registry,
//! documents and index, sharing `text`, `pattern`, `generation` and the follower.

mod document;
mod fields;
pub(crate) mod identifiers;
pub(crate) mod index;
mod query;
mod search;
mod source;

pub use index::{BulkBuild, InstanceIndex};
pub use search::{MAX_LIMIT, MAX_WINDOW, SearchRequest, SearchResponse};
