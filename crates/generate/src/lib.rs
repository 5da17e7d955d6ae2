//! The data-set generator behind `quire generate` and `quire demo`: a library's worth of
//! instances, holdings, items, MARC records, authorities, patrons and loans, written
//! straight into a tenant's storage through the owning crates' verbs, deterministic for
//! a seed and in FOLIO's proportions.
//!
//! What it owns: the shapes and proportions of generated records, the LC corpus they
//! can be drawn from, and progress reporting. What it does not own: any record rule
//! (it goes through `inventory`, `srs`, `auth` and `circ` like any writer) nor anything
//! over HTTP (that is `load`, the harness).

pub mod authorities;
mod circulation;
mod dataset;
pub mod marc_bibs;
mod words;

pub use crate::{
    circulation::CirculationReport,
    dataset::{GenerateOptions, GenerateReport, Written, generate},
};
