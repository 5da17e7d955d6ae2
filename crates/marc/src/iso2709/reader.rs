//! Splitting a byte stream into ISO 2709 records. It owns framing (record
//! length, record terminator, what lies between records) and resynchronising
//! after a broken record; decoding one record is `decode.rs`'s job.

use std::io::{self, Read};

use crate::error::{Error, Format, Problem, Report, Result, Warning};
use crate::iso2709::decode::{RECORD_TERMINATOR, decode_with};
use crate::leader::digits;
use crate::record::Record;

/// Bytes skipped silently between records: line ends (files with one record
/// per line), spaces and NULs used as padding, and the DOS end-of-file byte.
const FILLER: &[u8] = b"\n\r\t \0\x1a";

/// How far to look for a record terminator: no record is longer.
const MAX_RECORD_LEN: usize = 99_999;

/// Reads ISO 2709 records from a byte stream, strictly, one `Result` per
/// record. A broken record yields an error naming its number, byte offset and
/// what is wrong, and reading goes on with the next record: after the
/// record's stated length if its record terminator is there, otherwise after
/// the next record terminator (0x1D).
///
/// ```
/// let mut input = Vec::new();
/// for title in ["One", "Two"] {
///     let mut record = marc::Record::new(marc::Leader::DEFAULT);
///     record.push(marc::Field::data(marc::Tag::new("245")?, '0', '0', [('a', title)])?);
///     marc::encode_into(&record, &mut input)?;
/// }
/// input.splice(0..0, b"junk\x1d".iter().copied());
/// let results: Vec<_> = marc::Reader::new(input.as_slice()).collect();
/// assert_eq!(
///     results[0].as_ref().unwrap_err().to_string(),
///     "ISO 2709 record 1, byte 0: record length \"junk\\u{1d}\" (leader/00-04) is not a number"
/// );
/// let titles: Vec<_> = results[1..].iter().map(|r| r.as_ref().unwrap().field("245").unwrap().subfield('a')).collect();
/// assert_eq!(titles, [Some("One"), Some("Two")]);
/// # Ok::<(), marc::Error>(())
/// ```
pub struct Reader<R> {
    source: Source<R>,
}

/// Reads ISO 2709 records leniently (see [`decode_lenient`](crate::decode_lenient)):
/// each item is a record with the warnings of its repairs, or an error for
/// bytes no record could be made of. A wrong record length is repaired by
/// taking the record to end at the next record terminator.
pub struct LenientReader<R> {
    source: Source<R>,
}

impl<R: Read> Reader<R> {
    /// A strict reader over `inner` (it buffers; no need for a `BufReader`).
    pub fn new(inner: R) -> Self {
        Reader { source: Source::new(inner) }
    }

    /// The same stream read leniently from here on.
    pub fn lenient(self) -> LenientReader<R> {
        LenientReader { source: self.source }
    }
}

impl<R: Read> LenientReader<R> {
    /// A lenient reader over `inner`.
    pub fn new(inner: R) -> Self {
        LenientReader { source: Source::new(inner) }
    }
}

impl<R: Read> Iterator for Reader<R> {
    type Item = Result<Record>;

    fn next(&mut self) -> Option<Result<Record>> {
        let frame = match self.source.next_frame(false)? {
            Ok(frame) => frame,
            Err(e) => return Some(Err(e)),
        };
        let bytes = &self.source.available()[..frame.len];
        let result =
            decode_with(bytes, &mut Report::new(Format::Iso2709, frame.record, frame.offset, None));
        self.source.consume(frame.len);
        Some(result)
    }
}

impl<R: Read> Iterator for LenientReader<R> {
    type Item = Result<(Record, Vec<Warning>)>;

    fn next(&mut self) -> Option<Self::Item> {
        let frame = match self.source.next_frame(true)? {
            Ok(frame) => frame,
            Err(e) => return Some(Err(e)),
        };
        let bytes = &self.source.available()[..frame.len];
        let mut warnings = Vec::new();
        let result = decode_with(
            bytes,
            &mut Report::new(Format::Iso2709, frame.record, frame.offset, Some(&mut warnings)),
        );
        self.source.consume(frame.len);
        Some(result.map(|record| (record, warnings)))
    }
}

/// One record's bytes: the first `len` bytes available.
struct Frame {
    record: u64,
    offset: u64,
    len: usize,
}

/// A buffer over the reader with the stream offset of its first byte.
struct Source<R> {
    inner: R,
    buf: Vec<u8>,
    // Invariant: `pos <= buf.len()`; `buf[pos..]` is read but not consumed.
    pos: usize,
    /// Stream offset of `buf[pos]`.
    offset: u64,
    eof: bool,
    /// Records (good or broken) framed so far.
    n_records: u64,
    /// Set after an I/O error: the stream is not read again.
    failed: bool,
}

impl<R: Read> Source<R> {
    fn new(inner: R) -> Self {
        Source {
            inner,
            buf: Vec::new(),
            pos: 0,
            offset: 0,
            eof: false,
            n_records: 0,
            failed: false,
        }
    }

    fn available(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
        self.offset += n as u64;
    }

    /// Reads until `want` bytes are available or the stream ends.
    fn fill(&mut self, want: usize) -> io::Result<()> {
        while self.buf.len() - self.pos < want && !self.eof {
            if self.pos > 0 {
                self.buf.drain(..self.pos);
                self.pos = 0;
            }
            let old_len = self.buf.len();
            let chunk = (want - (old_len - self.pos)).max(16 * 1024);
            self.buf.resize(old_len + chunk, 0);
            let n = loop {
                match self.inner.read(&mut self.buf[old_len..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        self.buf.truncate(old_len);
                        return Err(e);
                    }
                }
            };
            self.buf.truncate(old_len + n);
            self.eof = n == 0;
        }
        Ok(())
    }

    /// Index (into `available()`) of the first record terminator within
    /// `MAX_RECORD_LEN` bytes.
    fn find_terminator(&mut self) -> io::Result<Option<usize>> {
        self.fill(MAX_RECORD_LEN)?;
        let avail = self.available();
        Ok(memchr::memchr(RECORD_TERMINATOR, &avail[..avail.len().min(MAX_RECORD_LEN)]))
    }

    /// Consumes through the next record terminator, or everything.
    fn skip_through_terminator(&mut self) -> io::Result<()> {
        loop {
            self.fill(1)?;
            let avail = self.available();
            if avail.is_empty() {
                return Ok(());
            }
            match memchr::memchr(RECORD_TERMINATOR, avail) {
                Some(idx) => {
                    self.consume(idx + 1);
                    return Ok(());
                }
                None => self.consume(avail.len()),
            }
        }
    }

    fn next_frame(&mut self, lenient: bool) -> Option<Result<Frame>> {
        if self.failed {
            return None;
        }
        match self.try_next_frame(lenient) {
            Ok(frame) => frame,
            Err(e) => {
                self.failed = true;
                Some(Err(Error::Io(e)))
            }
        }
    }

    fn try_next_frame(&mut self, lenient: bool) -> io::Result<Option<Result<Frame>>> {
        loop {
            self.fill(1)?;
            match self.available().first() {
                None => return Ok(None),
                Some(b) if FILLER.contains(b) => self.consume(1),
                Some(_) => break,
            }
        }
        self.n_records += 1;
        let (record, offset) = (self.n_records, self.offset);
        let error = |problem| Error::Malformed { format: Format::Iso2709, record, offset, problem };
        let frame = |len| Ok(Some(Ok(Frame { record, offset, len })));
        self.fill(24)?;
        let avail = self.available();
        let stated = digits(&avail[..avail.len().min(5)]).filter(|_| avail.len() >= 5);
        if let Some(stated) = stated.filter(|&n| n > 24) {
            self.fill(stated)?;
            let avail = self.available();
            if avail.len() >= stated && avail[stated - 1] == RECORD_TERMINATOR {
                return frame(stated);
            }
            // The terminator is missing but the next record starts right
            // after the stated length: trust the length.
            if avail.len() > stated + 5 && avail[stated..stated + 5].iter().all(u8::is_ascii_digit)
            {
                if lenient {
                    return frame(stated);
                }
                self.consume(stated);
                return Ok(Some(Err(error(Problem::MissingRecordTerminator))));
            }
            let available = avail.len();
            return match self.find_terminator()? {
                Some(idx) if lenient => frame(idx + 1),
                Some(idx) => {
                    self.consume(idx + 1);
                    let problem = if stated > available {
                        Problem::Truncated { needed: stated, available }
                    } else {
                        Problem::RecordLengthMismatch { stated, found: idx + 1 }
                    };
                    Ok(Some(Err(error(problem))))
                }
                None => {
                    let available = self.available().len();
                    self.skip_through_terminator()?;
                    let problem = if stated > available {
                        Problem::Truncated { needed: stated, available }
                    } else {
                        Problem::MissingRecordTerminator
                    };
                    Ok(Some(Err(error(problem))))
                }
            };
        }
        let problem = match stated {
            Some(n) => Problem::RecordLengthTooShort(n),
            None => Problem::RecordLengthNotNumber(
                String::from_utf8_lossy(&avail[..avail.len().min(5)]).into_owned(),
            ),
        };
        if lenient && let Some(idx) = self.find_terminator()? {
            return frame(idx + 1);
        }
        self.skip_through_terminator()?;
        Ok(Some(Err(error(problem))))
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;
    use crate::field::{Field, Tag};
    use crate::leader::Leader;

    fn record(title: &str) -> Vec<u8> {
        let mut record = Record::new(Leader::DEFAULT);
        record.push(Field::data(Tag::new("245").unwrap(), '0', '0', [('a', title)]).unwrap());
        crate::encode(&record).unwrap()
    }

    /// Reads `input` strictly and leniently, one line per item.
    fn check(input: &[u8], expect: Expect) {
        let mut out = String::from("strict:\n");
        for item in Reader::new(input) {
            match item {
                Ok(record) => {
                    out += &format!(
                        "  ok {}\n",
                        record.field("245").and_then(|f| f.subfield('a')).unwrap_or("-")
                    )
                }
                Err(e) => out += &format!("  error {e}\n"),
            }
        }
        out += "lenient:\n";
        for item in LenientReader::new(input) {
            match item {
                Ok((record, warnings)) => {
                    out += &format!(
                        "  ok {}\n",
                        record.field("245").and_then(|f| f.subfield('a')).unwrap_or("-")
                    );
                    for w in warnings {
                        out += &format!("    {w}\n");
                    }
                }
                Err(e) => out += &format!("  error {e}\n"),
            }
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn resynchronises() {
        let (one, two, three) = (record("One"), record("Two"), record("Three"));
        let mut input = one.clone();
        input.extend_from_slice(b"\r\n");
        // A record whose length is 3 too long: the terminator decides.
        let mut long = two.clone();
        long[3..5].copy_from_slice(format!("{:02}", two.len() % 100 + 3).as_bytes());
        input.extend_from_slice(&long);
        input.extend_from_slice(b"garbage\x1d");
        input.extend_from_slice(&three);
        input.extend_from_slice(&three[..30]);
        check(
            &input,
            expect![[r#"
                strict:
                  ok One
                  error ISO 2709 record 2, byte 48: record length is 49 but the record terminator (0x1D) ends the record after 46 bytes
                  error ISO 2709 record 3, byte 94: record length "garba" (leader/00-04) is not a number
                  ok Three
                  error ISO 2709 record 5, byte 150: input ends inside the record (48 bytes needed, 30 available)
                lenient:
                  ok One
                  ok Two
                    ISO 2709 record 2, byte 48: input ends inside the record (49 bytes needed, 46 available); record taken to end at the record terminator
                  error ISO 2709 record 3, byte 94: input ends inside the record (24 bytes needed, 8 available)
                  ok Three
                  error ISO 2709 record 5, byte 150: input ends inside the record (48 bytes needed, 30 available)
            "#]],
        );
    }

    #[test]
    fn missing_terminator_with_next_record_after() {
        let mut input = record("One");
        let last = input.len() - 1;
        input[last] = b'!';
        input.extend_from_slice(&record("Two"));
        check(
            &input,
            expect![[r#"
                strict:
                  error ISO 2709 record 1, byte 0: no record terminator (0x1D) at the end of the record
                  ok Two
                lenient:
                  ok One
                    ISO 2709 record 1, byte 45: no record terminator (0x1D) at the end of the record; read as if it were there
                  ok Two
            "#]],
        );
        check(
            b"",
            expect![[r#"
            strict:
            lenient:
        "#]],
        );
    }
}
