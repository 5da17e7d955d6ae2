//! The authority record family: authority records split into one search document per
//! heading and tracing, searched with FOLIO's `/search/authorities` semantics.
//!
//! Shares the crate's registry, CQL translation, analysers, wildcard structures,
//! generations and follower with the instance family; owns its field list, documents,
//! index lifecycle, sort and `numberOfTitles`.

mod document;
mod fields;
mod index;
mod search;

pub use index::AuthorityIndex;
pub use search::{AuthoritySearchRequest, AuthoritySearchResponse};
