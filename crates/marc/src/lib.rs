//! MARC 21 records: the model, and the three serialisations Quire reads and
//! writes.
//!
//! This crate owns the MARC record model ([`Record`], [`Leader`], [`Field`],
//! [`Subfield`], [`Tag`]) and its codecs: ISO 2709 in UTF-8 and MARC-8
//! ([`decode`], [`decode_lenient`], [`encode`], [`Reader`], [`Writer`]),
//! MARCXML ([`marcxml`]) and FOLIO's MARC-in-JSON ([`json`], the shape of SRS
//! `parsedRecord.content`). It does not know what the fields mean (mapping
//! MARC to Inventory instances, indexing for the MARC search API) and does no
//! I/O beyond the readers and writers it is handed.
//!
//! ```
//! let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/marc/100.mrc"))
//! #   .unwrap_or_default();
//! # if bytes.is_empty() { return Ok(()); }
//! for record in marc::Reader::new(bytes.as_slice()) {
//!     let record = record?;
//!     let title = record.field("245").and_then(|f| f.subfield('a')).unwrap_or_default();
//!     let json = marc::json::to_string(&record);
//!     assert_eq!(marc::json::from_str(&json)?, record);
//!     assert_eq!(marc::marcxml::from_str(&marc::marcxml::to_string(&record))?, record);
//!     assert_eq!(marc::encode(&record)?, marc::encode(&marc::decode(&marc::encode(&record)?)?)?);
//!     assert!(!title.is_empty());
//! }
//! # Ok::<(), marc::Error>(())
//! ```
//!
//! Strict decoders ([`decode`], [`Reader`], [`marcxml::Reader`], [`json`])
//! reject anything malformed with an [`Error::Malformed`] naming the record
//! number, byte offset and [`Problem`]; lenient ones ([`decode_lenient`],
//! [`LenientReader`], [`marcxml::LenientReader`]) repair what they can and
//! return a [`Warning`] per repair. Stream readers yield one `Result` per
//! record and go on after a broken one.
//!
//! MARC-8 records (ISO 2709 leader/09 blank) are converted to Unicode on
//! read; the writer writes UTF-8 only, with leader/09 `a`, so a MARC-8 record
//! read and written comes back in UTF-8 (the crate's `README.md` states the
//! exact rule and the differences from YAZ).
//!
//! # Invariants
//!
//! - A [`Record`] always has a 24-character printable-ASCII leader, fields in
//!   the order given, and only valid fields: tags are three ASCII letters or
//!   digits; a field is a control field exactly when its tag starts `00`;
//!   indicators are printable ASCII or space; subfield codes printable ASCII
//!   other than space; values hold no C0 control character (so no ISO 2709
//!   delimiter) and neither U+FFFE nor U+FFFF (so every record can be written
//!   as XML 1.0). Constructors and setters check this; decoders either fail
//!   or (lenient) repair.
//! - Decoding never panics and has no unsafe code, whatever the input (fuzz
//!   targets `marc_iso2709` and `marcxml` check this).
//! - Round trips: a UTF-8 record [`decode`] accepts, with fields stored in
//!   directory order, encodes to the same bytes; every record survives MARCXML
//!   and MARC-in-JSON unchanged (`from(to(r)) == r`).
//! - Decoded records hold Unicode; a record decoded from ISO 2709 has
//!   leader/09 `a`. No Unicode normalisation is applied anywhere.

mod error;
mod field;
mod iso2709;
pub mod json;
mod leader;
mod marc8;
pub mod marcxml;
mod record;

pub use crate::error::{Error, Format, Problem, Result, Warning};
pub use crate::field::{Field, Subfield, Subfields, Tag};
pub use crate::iso2709::{
    LenientReader, Reader, Writer, decode, decode_lenient, encode, encode_into,
};
pub use crate::leader::Leader;
pub use crate::record::Record;
