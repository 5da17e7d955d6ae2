//! The crate's error and warning types. They own the wording of what is wrong
//! with an input; they do not decide how a caller reports it (the server maps
//! [`Error`] to a FOLIO error response, an import job logs [`Warning`]s).

use std::fmt;

/// The serialisation a problem was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// ISO 2709 ("binary MARC", `.mrc`).
    Iso2709,
    /// MARCXML (MARC21 slim).
    MarcXml,
    /// FOLIO's MARC-in-JSON (`parsedRecord.content`).
    Json,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Iso2709 => "ISO 2709",
            Format::MarcXml => "MARCXML",
            Format::Json => "MARC-in-JSON",
        })
    }
}

/// Everything that can go wrong in this crate. Three kinds are kept apart:
/// bad input ([`Error::Malformed`]), a record the chosen format cannot carry
/// ([`Error::Unencodable`]), and a caller handing the model a value that breaks
/// one of its invariants ([`Error::Invalid`]); I/O errors come from the
/// reader or writer the caller supplied.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input is not a well-formed record.
    #[error("{format} record {record}, byte {offset}: {problem}")]
    Malformed {
        /// The serialisation being read.
        format: Format,
        /// 1-based number of the record in the input (1 for a single record).
        record: u64,
        /// Byte offset into the input (for a reader, from the start of the
        /// stream) nearest to the problem.
        offset: u64,
        /// What is wrong.
        problem: Problem,
    },
    /// The record cannot be written in this format, e.g. a field longer than
    /// the 9,999 bytes an ISO 2709 directory entry can describe.
    #[error("cannot write the record as {format}: {reason}")]
    Unencodable {
        /// The serialisation being written.
        format: Format,
        /// Why not.
        reason: String,
    },
    /// A value given to the model breaks one of its invariants.
    #[error("invalid {what} {value:?}: {reason}")]
    Invalid {
        /// What was being built: "tag", "leader", "indicator", ...
        what: &'static str,
        /// The rejected value.
        value: String,
        /// The rule it breaks.
        reason: &'static str,
    },
    /// Reading from or writing to the caller's stream failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A problem the lenient decoders repaired, and how. Strict decoding turns
/// the same problem into [`Error::Malformed`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The serialisation being read.
    pub format: Format,
    /// 1-based number of the record in the input.
    pub record: u64,
    /// Byte offset into the input nearest to the problem.
    pub offset: u64,
    /// What was wrong.
    pub problem: Problem,
    /// What the decoder did about it, e.g. "indicators set to blank".
    pub repair: &'static str,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} record {}, byte {}: {}; {}",
            self.format, self.record, self.offset, self.problem, self.repair
        )
    }
}

/// What is wrong with an input, independent of where it was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Problem {
    /// The input ends inside a record.
    #[error("input ends inside the record ({needed} bytes needed, {available} available)")]
    Truncated {
        /// Bytes the record needs.
        needed: usize,
        /// Bytes there are.
        available: usize,
    },
    /// Leader/00-04 is not five digits.
    #[error("record length {0:?} (leader/00-04) is not a number")]
    RecordLengthNotNumber(String),
    /// The record length is too small for a leader, directory and terminators.
    #[error("record length {0} is too short for a record")]
    RecordLengthTooShort(usize),
    /// The record length and the record terminator disagree.
    #[error(
        "record length is {stated} but the record terminator (0x1D) ends the record after {found} bytes"
    )]
    RecordLengthMismatch {
        /// Leader/00-04.
        stated: usize,
        /// Bytes up to and including the first record terminator.
        found: usize,
    },
    /// No record terminator where the record should end, nor after it.
    #[error("no record terminator (0x1D) at the end of the record")]
    MissingRecordTerminator,
    /// Bytes that are not part of any record.
    #[error("{0} bytes before the next record are not a record")]
    Garbage(usize),
    /// A leader byte is not printable ASCII.
    #[error("leader/{position:02} is {found:?}, not a printable ASCII character")]
    LeaderByte {
        /// Position 0-23.
        position: usize,
        /// The character (or byte) found.
        found: String,
    },
    /// A MARCXML or JSON leader that is not 24 characters long.
    #[error("leader {0:?} is not 24 characters long")]
    LeaderLength(String),
    /// A structural leader position (10-11, 20-21) with an unsupported value.
    #[error("leader/{position:02} ({what}) is {found:?}, expected {expected:?}")]
    LeaderValue {
        /// Position 0-23.
        position: usize,
        /// What the position means.
        what: &'static str,
        /// The value required.
        expected: char,
        /// The value found.
        found: char,
    },
    /// Leader/09 is neither MARC-8 nor Unicode.
    #[error(
        "leader/09 (character coding scheme) is {0:?}, neither ' ' (MARC-8) nor 'a' (UCS/Unicode)"
    )]
    CodingScheme(char),
    /// Leader/09 says MARC-8 but the data is UTF-8 with non-ASCII characters.
    #[error("leader/09 says MARC-8 but the data is UTF-8")]
    Utf8LabelledMarc8,
    /// Leader/12-16 is not five digits.
    #[error("base address of data {0:?} (leader/12-16) is not a number")]
    BaseAddressNotNumber(String),
    /// The base address does not point just past the directory's terminator.
    #[error(
        "base address of data {0} does not follow a directory ending in a field terminator (0x1E)"
    )]
    BadBaseAddress(usize),
    /// The directory length is not a multiple of 12.
    #[error("directory is {0} bytes long, not a multiple of 12")]
    DirectoryLength(usize),
    /// A directory entry whose length or start is not digits.
    #[error("directory entry {entry} {text:?}: field length and start must be digits")]
    BadDirectoryEntry {
        /// 1-based entry number.
        entry: usize,
        /// The 12 bytes of the entry.
        text: String,
    },
    /// A directory entry pointing outside the data.
    #[error(
        "field {tag} (directory entry {entry}): {length} bytes at {start} lie outside the record's data"
    )]
    FieldOutOfBounds {
        /// The entry's tag.
        tag: String,
        /// 1-based entry number.
        entry: usize,
        /// Starting character position, relative to the base address.
        start: usize,
        /// Field length.
        length: usize,
    },
    /// The bytes a directory entry describes do not form one field.
    #[error(
        "field {tag} (directory entry {entry}): length {length} at {start} does not end at a field terminator (0x1E)"
    )]
    FieldTerminator {
        /// The entry's tag.
        tag: String,
        /// 1-based entry number.
        entry: usize,
        /// Starting character position, relative to the base address.
        start: usize,
        /// Field length.
        length: usize,
    },
    /// A tag that is not three ASCII letters or digits.
    #[error("tag {0:?} is not three ASCII letters or digits")]
    BadTag(String),
    /// A data field without indicators.
    #[error("field {tag}: data field has no indicators")]
    MissingIndicators {
        /// The field's tag.
        tag: String,
    },
    /// An indicator that is not a printable ASCII character or space.
    #[error("field {tag}: indicator {found:?} is not one printable ASCII character or space")]
    BadIndicator {
        /// The field's tag.
        tag: String,
        /// The indicator as found.
        found: String,
    },
    /// Field data before the first subfield delimiter.
    #[error("field {tag}: data {found:?} before the first subfield delimiter (0x1F)")]
    DataBeforeSubfield {
        /// The field's tag.
        tag: String,
        /// The stray data.
        found: String,
    },
    /// A subfield code that is not one printable ASCII character.
    #[error("field {tag}: subfield code {found:?} is not one printable ASCII character")]
    BadSubfieldCode {
        /// The field's tag.
        tag: String,
        /// The code as found.
        found: String,
    },
    /// Field data that is not UTF-8 in a record that says it is.
    #[error("field {tag}: invalid UTF-8")]
    InvalidUtf8 {
        /// The field's tag.
        tag: String,
    },
    /// A character the model does not hold (C0 controls, U+FFFE, U+FFFF).
    #[error("field {tag}: character {found:?} is not allowed in MARC data")]
    BadCharacter {
        /// The field's tag.
        tag: String,
        /// The character.
        found: char,
    },
    /// MARC-8 data that cannot be converted.
    #[error("field {tag}: MARC-8: {detail}")]
    Marc8 {
        /// The field's tag.
        tag: String,
        /// What could not be converted.
        detail: String,
    },
    /// A control field (00X) written as a data field or the other way round.
    #[error("field {tag}: a {found} with a {expected} tag")]
    FieldKind {
        /// The field's tag.
        tag: String,
        /// "control field" or "data field", what the tag requires.
        expected: &'static str,
        /// What the input has.
        found: &'static str,
    },
    /// Malformed XML, or XML that is not MARCXML.
    #[error("{0}")]
    Xml(String),
    /// Malformed JSON, or JSON that is not MARC-in-JSON.
    #[error("{0}")]
    Json(String),
}

/// Where decoders send problems: strict decoding fails on the first one,
/// lenient decoding records it as a [`Warning`] and applies the repair.
pub(crate) struct Report<'w> {
    pub(crate) format: Format,
    /// 1-based record number.
    pub(crate) record: u64,
    /// Offset of the record's first byte in the input, added to offsets
    /// relative to the record.
    pub(crate) base: u64,
    /// `None` when strict.
    pub(crate) warnings: Option<&'w mut Vec<Warning>>,
}

impl<'w> Report<'w> {
    pub(crate) fn new(
        format: Format,
        record: u64,
        base: u64,
        warnings: Option<&'w mut Vec<Warning>>,
    ) -> Self {
        Report { format, record, base, warnings }
    }

    pub(crate) fn is_lenient(&self) -> bool {
        self.warnings.is_some()
    }

    /// A repairable problem at `offset` (relative to the record): an error
    /// when strict, a warning when lenient.
    pub(crate) fn problem(
        &mut self,
        offset: usize,
        problem: Problem,
        repair: &'static str,
    ) -> Result<()> {
        let (format, record, offset) = (self.format, self.record, self.base + offset as u64);
        match &mut self.warnings {
            None => Err(Error::Malformed { format, record, offset, problem }),
            Some(warnings) => {
                warnings.push(Warning { format, record, offset, problem, repair });
                Ok(())
            }
        }
    }

    /// A problem no repair can get past.
    pub(crate) fn fatal(&self, offset: usize, problem: Problem) -> Error {
        Error::Malformed {
            format: self.format,
            record: self.record,
            offset: self.base + offset as u64,
            problem,
        }
    }
}
