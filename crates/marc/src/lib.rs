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
//! use marc::{Field, Leader, Record, Tag};
//!
//! let mut record = Record::new(Leader::new("00000nam a2200000 a 4500")?);
//! record.push(Field::control(Tag::new("001")?, "in00000001")?);
//! record.push(Field::data(Tag::new("245")?, '1', '0', [('a', "Gébler :"), ('c', "Carlo.")])?);
//!
//! let iso = marc::encode(&record)?;
//! assert_eq!(&iso[..24], b"00083nam a2200049 a 4500"); // length and base address computed
//! assert_eq!(marc::decode(&iso)?.fields(), record.fields());
//! assert_eq!(marc::marcxml::from_str(&marc::marcxml::to_string(&record))?, record);
//! assert_eq!(marc::json::from_str(&marc::json::to_string(&record))?, record);
//!
//! for result in marc::Reader::new(iso.as_slice()) {
//!     let record = result?;
//!     assert_eq!(record.field("245").and_then(|f| f.subfield('a')), Some("Gébler :"));
//! }
//! let error = marc::decode(&iso[..50]).unwrap_err();
//! assert_eq!(error.to_string(), "ISO 2709 record 1, byte 0: input ends inside the record (83 bytes needed, 50 available)");
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
//!   other than space; values hold no C0 control character but tab, LF and
//!   CR (so no ISO 2709 delimiter) and neither U+FFFE nor U+FFFF (so every
//!   record can be written as XML 1.0). Constructors and setters check this; decoders either fail
//!   or (lenient) repair.
//! - Decoding never panics and has no unsafe code, whatever the input (fuzz
//!   targets `marc_iso2709` and `marcxml` check this).
//! - Round trips: a UTF-8 record [`decode`] accepts, with fields stored in
//!   directory order, encodes to the same bytes; every record survives MARCXML
//!   and MARC-in-JSON unchanged (`from(to(r)) == r`).
//! - Decoded records hold Unicode; a record decoded from ISO 2709 has
//!   leader/09 `a`. No Unicode normalisation is applied anywhere.

//!
//! # Dependencies
//!
//! quick-xml parses MARCXML (streaming from any `BufRead`, namespace-aware,
//! maintained); serde and serde_json carry MARC-in-JSON; memchr scans for
//! delimiters; thiserror derives the errors. The MARC crates on crates.io
//! were not used: `marc` and `marctk` convert no MARC-8 and do not read FOLIO
//! JSON, and `mrrc` is pre-1.0 and pulls rayon, crossbeam, regex and RDF
//! libraries into what must be a leaf crate; the guarantees above are this
//! crate's core (see `README.md`, "Why not an existing crate").

pub mod dc;
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
