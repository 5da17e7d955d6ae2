//! FOLIO's record conventions, written once for every record type Quire stores: the
//! `metadata` block and who a write is by ([`Metadata`], [`Actor`], [`stamp`]), the
//! date-time format ([`Timestamp`]), and the one decode of a request body into a model
//! with FOLIO's split of failures ([`decode`]: not JSON is a 400, JSON of another shape
//! a 422 naming the field).
//!
//! The storage verbs every record type shares sit on `store` in [`record`]: a record type
//! declares its table, name, CQL fields and columns ([`Record`]), and is created,
//! replaced, deleted, read and listed the same way as every other.
//!
//! What it does not own: SQL (`store`), any one record type's fields or rules (the
//! domain crates), or HTTP (the server maps [`DecodeError`] to FOLIO's bodies).
//!
//! ```
//! let t = folio::Timestamp::parse("2024-01-02T03:04:05.678+0000").unwrap();
//! assert_eq!(t.to_string(), "2024-01-02T03:04:05.678+00:00");
//! let created = folio::stamp(None, folio::Actor::default());
//! let updated = folio::stamp(Some(&created), folio::Actor::default());
//! assert_eq!(updated.created_date, created.created_date);
//! ```

mod decode;
mod metadata;
pub mod record;
mod timestamp;

pub use crate::{
    decode::{DecodeError, decode, decode_without},
    metadata::{Actor, Metadata, stamp},
    record::{Record, Stored},
    timestamp::Timestamp,
};
