//! MARCXML (MARC21 slim, namespace `http://www.loc.gov/MARC21/slim`):
//! reading `<collection>` documents and bare `<record>` elements, strictly or
//! leniently, and writing collections or single records.
//!
//! XML parsing is done by quick-xml, the maintained, streaming, allocation-light
//! XML parser of the Rust ecosystem: records are read one at a time from any
//! `BufRead`, so a million-record collection never sits in memory, and
//! namespace prefixes (`marc:`, `ns0:`) are resolved by its `NsReader`.
//! Writing needs no XML library: the layout is fixed and only text and
//! attribute values are escaped.
//!
//! Useful for: OAI-PMH `marc21` metadata, MARCXML imports and exports. Not
//! useful for: validating against the MARC21slim XSD (the reader checks what
//! the model needs, not the schema's patterns).

mod reader;
mod writer;

pub use self::reader::{LenientReader, Reader, from_str};
pub(crate) use self::writer::escape;
pub use self::writer::{Writer, to_string};

/// The MARC21 slim namespace.
pub const NAMESPACE: &str = "http://www.loc.gov/MARC21/slim";
