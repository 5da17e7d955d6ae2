//! ISO 2709 encoding. It owns the computed leader positions and the
//! directory; it writes UTF-8 only.

use std::io::Write;

use crate::error::{Error, Format, Result};
use crate::iso2709::decode::{FIELD_TERMINATOR, RECORD_TERMINATOR};
use crate::record::Record;

/// Largest field an ISO 2709 directory entry can describe (4 digits).
const MAX_FIELD_LEN: usize = 9_999;
/// Largest record leader/00-04 can describe (5 digits).
const MAX_RECORD_LEN: usize = 99_999;

/// Encodes a record as ISO 2709 in UTF-8.
///
/// The leader is the record's, except for the positions that describe the
/// encoding, which are computed: 00-04 record length, 09 `a` (UCS/Unicode),
/// 10-11 `22`, 12-16 base address of data, 20-23 `4500`. Directory entries
/// follow field order and fields are written one after the other, so a
/// UTF-8 record that [`decode`](crate::decode) accepted and whose fields lie
/// in directory order comes back byte for byte. A record decoded from MARC-8
/// is written as UTF-8 with leader/09 `a`.
///
/// Fails with [`Error::Unencodable`] if a field is longer than 9,999 bytes or
/// the record longer than 99,999.
pub fn encode(record: &Record) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode_into(record, &mut out)?;
    Ok(out)
}

/// Appends the ISO 2709 encoding of `record` to `out` (see [`encode`]); on
/// error `out` is left as it was.
pub fn encode_into(record: &Record, out: &mut Vec<u8>) -> Result<()> {
    let fields = record.fields();
    let base = 24 + 12 * fields.len() + 1;
    let mut data_len = 0;
    for field in fields {
        let len = field_len(field);
        if len > MAX_FIELD_LEN {
            return Err(Error::Unencodable {
                format: Format::Iso2709,
                reason: format!(
                    "field {} is {len} bytes long; a directory entry allows 9,999",
                    field.tag()
                ),
            });
        }
        data_len += len;
    }
    let total = base + data_len + 1;
    if total > MAX_RECORD_LEN {
        return Err(Error::Unencodable {
            format: Format::Iso2709,
            reason: format!("the record is {total} bytes long; the leader allows 99,999"),
        });
    }
    out.reserve(total);
    let mut leader = *record.leader().as_bytes();
    put_number(&mut leader[0..5], total);
    leader[9] = b'a';
    leader[10..12].copy_from_slice(b"22");
    put_number(&mut leader[12..17], base);
    leader[20..24].copy_from_slice(b"4500");
    out.extend_from_slice(&leader);
    let mut start = 0;
    for field in fields {
        let len = field_len(field);
        let mut entry = [0u8; 12];
        entry[..3].copy_from_slice(field.tag().as_bytes());
        put_number(&mut entry[3..7], len);
        put_number(&mut entry[7..12], start);
        out.extend_from_slice(&entry);
        start += len;
    }
    out.push(FIELD_TERMINATOR);
    for field in fields {
        match field.value() {
            Some(value) => out.extend_from_slice(value.as_bytes()),
            None => {
                out.extend_from_slice(&field.raw_indicators());
                out.extend_from_slice(field.raw_subfields().as_bytes());
            }
        }
        out.push(FIELD_TERMINATOR);
    }
    out.push(RECORD_TERMINATOR);
    Ok(())
}

/// Writes records as ISO 2709 to a byte stream, one after the other.
pub struct Writer<W: Write> {
    inner: W,
    buf: Vec<u8>,
}

impl<W: Write> Writer<W> {
    /// A writer over `inner` (wrap files in a `BufWriter`).
    pub fn new(inner: W) -> Self {
        Writer { inner, buf: Vec::new() }
    }

    /// Encodes and writes one record.
    pub fn write(&mut self, record: &Record) -> Result<()> {
        self.buf.clear();
        encode_into(record, &mut self.buf)?;
        self.inner.write_all(&self.buf)?;
        Ok(())
    }

    /// Flushes and returns the inner writer.
    pub fn into_inner(mut self) -> Result<W> {
        self.inner.flush()?;
        Ok(self.inner)
    }
}

fn field_len(field: &crate::field::Field) -> usize {
    match field.value() {
        Some(value) => value.len() + 1,
        None => 2 + field.raw_subfields().len() + 1,
    }
}

/// Writes `n` zero-padded into `digits` (the caller checked it fits).
fn put_number(digits: &mut [u8], mut n: usize) {
    for d in digits.iter_mut().rev() {
        *d = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::field::{Field, Tag};
    use crate::leader::Leader;

    #[test]
    fn computed_leader_and_directory() {
        let mut record = Record::new(Leader::new("99999cam  9999999 i 9999").unwrap());
        record.push(Field::control(Tag::new("001").unwrap(), "x").unwrap());
        record.push(Field::data(Tag::new("245").unwrap(), '0', '0', [('a', "Été")]).unwrap());
        let bytes = encode(&record).unwrap();
        expect![[r#"00062cam a2200049 i 4500001000200000245001000002\x1ex\x1e00\x1fa\xc3\x89t\xc3\xa9\x1e\x1d"#]]
            .assert_eq(&bytes.escape_ascii().to_string());
        assert_eq!(crate::decode(&bytes).unwrap().fields(), record.fields());
    }

    #[test]
    fn too_long() {
        let mut record = Record::new(Leader::DEFAULT);
        let long = "x".repeat(10_000);
        record
            .push(Field::data(Tag::new("500").unwrap(), ' ', ' ', [('a', long.as_str())]).unwrap());
        expect!["cannot write the record as ISO 2709: field 500 is 10005 bytes long; a directory entry allows 9,999"]
            .assert_eq(&encode(&record).unwrap_err().to_string());
        let mut record = Record::new(Leader::DEFAULT);
        for _ in 0..12 {
            record.push(
                Field::data(Tag::new("500").unwrap(), ' ', ' ', [('a', &long[..9000])]).unwrap(),
            );
        }
        let mut out = b"kept".to_vec();
        assert!(encode_into(&record, &mut out).is_err());
        assert_eq!(out, b"kept");
    }
}
