//! ISO 2709 decoding of one record, strict or lenient. It owns the checks of
//! leader, directory and field structure and the repairs lenient decoding
//! applies; splitting a stream into records is `reader.rs`'s job.

use crate::error::{Format, Problem, Report, Result, Warning};
use crate::field::{DELIMITER, Field, Tag, allowed_char, check_value, is_code};
use crate::leader::{Leader, digits, is_printable};
use crate::marc8;
use crate::record::Record;

pub(crate) const FIELD_TERMINATOR: u8 = 0x1E;
pub(crate) const RECORD_TERMINATOR: u8 = 0x1D;

/// Decodes one ISO 2709 record, strictly: `bytes` must be exactly one record
/// (leader/00-04 long, ending in the record terminator 0x1D) whose leader,
/// directory and fields are all well formed.
///
/// Leader/09 selects the character set: `'a'` UTF-8, `' '` MARC-8, which is
/// converted to Unicode; the decoded record holds Unicode either way, so its
/// leader/09 is `'a'`.
///
/// ```
/// let bytes = b"00048nam a2200037   4500245001000000\x1e10\x1faTitle\x1e\x1d";
/// let record = marc::decode(bytes)?;
/// assert_eq!(record.field("245").and_then(|f| f.subfield('a')), Some("Title"));
/// assert_eq!(marc::encode(&record)?, bytes);
///
/// let error = marc::decode(&bytes[..40]).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "ISO 2709 record 1, byte 0: input ends inside the record (48 bytes needed, 40 available)"
/// );
/// # Ok::<(), marc::Error>(())
/// ```
pub fn decode(bytes: &[u8]) -> Result<Record> {
    decode_with(bytes, &mut Report::new(Format::Iso2709, 1, 0, None))
}

/// Decodes one ISO 2709 record, repairing what can be repaired and saying
/// how in the returned warnings: wrong record length, base address or
/// directory lengths (fields are then found by their terminators), bad
/// leader bytes, missing or bad indicators (blank), bad subfield codes (`?`),
/// data before the first subfield (dropped), bad tags (field dropped),
/// invalid UTF-8 (U+FFFD), unconvertible MARC-8 (skipped), disallowed control
/// characters (removed). It fails only when no record can be made out (too
/// short for a leader, no directory terminator).
pub fn decode_lenient(bytes: &[u8]) -> Result<(Record, Vec<Warning>)> {
    let mut warnings = Vec::new();
    let record = decode_with(bytes, &mut Report::new(Format::Iso2709, 1, 0, Some(&mut warnings)))?;
    Ok((record, warnings))
}

pub(crate) fn decode_with(bytes: &[u8], report: &mut Report<'_>) -> Result<Record> {
    let len = bytes.len();
    if len < Leader::LEN {
        return Err(report.fatal(0, Problem::Truncated { needed: Leader::LEN, available: len }));
    }
    let mut leader_bytes: [u8; 24] = bytes[..24].try_into().unwrap_or([b' '; 24]);
    for (position, b) in leader_bytes.iter_mut().enumerate() {
        if !is_printable(*b) {
            let found = lossy(&[*b]);
            report.problem(
                position,
                Problem::LeaderByte { position, found },
                "replaced with a space",
            )?;
            *b = b' ';
        }
    }
    check_length(bytes, report)?;

    let mut marc8 = match leader_bytes[9] {
        b' ' => true,
        b'a' => false,
        other => {
            report.problem(9, Problem::CodingScheme(char::from(other)), "read as UTF-8")?;
            false
        }
    };
    leader_bytes[9] = b'a';
    for (position, what, expected) in [
        (10, "indicator count", b'2'),
        (11, "subfield code length", b'2'),
        (20, "length of the field length", b'4'),
        (21, "length of the starting character position", b'5'),
    ] {
        let found = leader_bytes[position];
        if found != expected {
            let problem = Problem::LeaderValue {
                position,
                what,
                expected: char::from(expected),
                found: char::from(found),
            };
            report.problem(position, problem, "read as if it were the standard value")?;
        }
    }

    // The leader is never data, even when a short record ends inside it.
    let data_end = if len > 24 && bytes[len - 1] == RECORD_TERMINATOR { len - 1 } else { len };
    let base = base_address(bytes, data_end, report)?;
    // Records labelled MARC-8 but holding UTF-8 are common in the wild; MARC-8
    // text with high bytes is practically never valid UTF-8 (an ANSEL
    // combining mark is followed by an ASCII letter), so the test is safe.
    // Only when the record does not decode as MARC-8 (UNIMARC records with
    // C1 controls can be both), so lenient decoding of a record strict
    // decoding accepts gives the same result.
    if marc8 && report.is_lenient() {
        let data = &bytes[base..data_end];
        if !data.is_ascii()
            && !data.contains(&0x1B)
            && std::str::from_utf8(data).is_ok()
            && decode_with(bytes, &mut Report::new(report.format, report.record, report.base, None))
                .is_err()
        {
            report.problem(9, Problem::Utf8LabelledMarc8, "read as UTF-8")?;
            marc8 = false;
        }
    }
    let directory = &bytes[24..base - 1];
    if !directory.len().is_multiple_of(12) {
        report.problem(
            24,
            Problem::DirectoryLength(directory.len()),
            "incomplete last entry ignored",
        )?;
    }

    let mut fields = Vec::with_capacity(directory.len() / 12);
    // Where the previous field ended: lenient decoding looks for a field whose
    // directory entry is wrong from here to the next field terminator.
    let mut cursor = base;
    for (entry_idx, entry) in directory.chunks_exact(12).enumerate() {
        let entry_no = entry_idx + 1;
        let entry_offset = 24 + entry_idx * 12;
        let Some((start, end)) =
            locate(bytes, base, data_end, cursor, entry, entry_no, entry_offset, report)?
        else {
            continue;
        };
        cursor = end + 1;
        let Some(tag) = Tag::from_bytes(&entry[..3]) else {
            report.problem(entry_offset, Problem::BadTag(lossy(&entry[..3])), "field dropped")?;
            continue;
        };
        let field = if tag.is_control() {
            let value = text(&bytes[start..end], start, tag, marc8, report)?;
            Field::control_unchecked(tag, value)
        } else {
            data_field(&bytes[start..end], start, tag, marc8, report)?
        };
        fields.push(field);
    }
    let leader = Leader::from_bytes(&leader_bytes).unwrap_or_default();
    Ok(Record::with_fields(leader, fields))
}

/// Checks leader/00-04 and the record terminator against the slice.
fn check_length(bytes: &[u8], report: &mut Report<'_>) -> Result<()> {
    let len = bytes.len();
    match digits(&bytes[..5]) {
        None => {
            let problem = Problem::RecordLengthNotNumber(lossy(&bytes[..5]));
            report.problem(0, problem, "record taken to end at the record terminator")?;
        }
        Some(stated) if stated > len => {
            let problem = Problem::Truncated { needed: stated, available: len };
            report.problem(0, problem, "record taken to end at the record terminator")?;
        }
        Some(stated) if stated < len => {
            let problem = Problem::RecordLengthMismatch { stated, found: len };
            report.problem(0, problem, "record taken to end at the record terminator")?;
        }
        Some(_) => {}
    }
    if bytes[len - 1] != RECORD_TERMINATOR {
        report.problem(len - 1, Problem::MissingRecordTerminator, "read as if it were there")?;
    }
    Ok(())
}

/// The base address of data, checked: just past the directory's terminator.
/// Lenient decoding falls back on the first field terminator after the leader.
fn base_address(bytes: &[u8], data_end: usize, report: &mut Report<'_>) -> Result<usize> {
    let problem = match digits(&bytes[12..17]) {
        Some(base) if base > 24 && base <= data_end && bytes[base - 1] == FIELD_TERMINATOR => {
            return Ok(base);
        }
        Some(base) => Problem::BadBaseAddress(base),
        None => Problem::BaseAddressNotNumber(lossy(&bytes[12..17])),
    };
    if !report.is_lenient() {
        return Err(report.fatal(12, problem));
    }
    let Some(idx) = memchr::memchr(FIELD_TERMINATOR, &bytes[24..data_end]) else {
        return Err(report.fatal(24, problem));
    };
    report.problem(12, problem, "directory taken to end at the first field terminator")?;
    Ok(24 + idx + 1)
}

/// The field an entry describes, as `(start, end)` with `end` the index of
/// its field terminator; `None` when lenient decoding drops it.
#[allow(clippy::too_many_arguments)]
fn locate(
    bytes: &[u8],
    base: usize,
    data_end: usize,
    cursor: usize,
    entry: &[u8],
    entry_no: usize,
    entry_offset: usize,
    report: &mut Report<'_>,
) -> Result<Option<(usize, usize)>> {
    let tag = || lossy(&entry[..3]);
    let problem = match (digits(&entry[3..7]), digits(&entry[7..12])) {
        (Some(length), Some(start)) => {
            let (first, end) = (base + start, (base + start + length).wrapping_sub(1));
            if length == 0 || end >= data_end {
                Problem::FieldOutOfBounds { tag: tag(), entry: entry_no, start, length }
            } else if bytes[end] != FIELD_TERMINATOR
                || memchr::memchr(FIELD_TERMINATOR, &bytes[first..end]).is_some()
            {
                Problem::FieldTerminator { tag: tag(), entry: entry_no, start, length }
            } else {
                return Ok(Some((first, end)));
            }
        }
        _ => Problem::BadDirectoryEntry { entry: entry_no, text: lossy(entry) },
    };
    if !report.is_lenient() {
        return Err(report.fatal(entry_offset, problem));
    }
    match memchr::memchr(FIELD_TERMINATOR, &bytes[cursor.min(data_end)..data_end]) {
        Some(idx) => {
            report.problem(
                entry_offset,
                problem,
                "field taken from the end of the previous field to the next field terminator",
            )?;
            Ok(Some((cursor, cursor + idx)))
        }
        None => {
            report.problem(entry_offset, problem, "field dropped: no field terminator left")?;
            Ok(None)
        }
    }
}

/// Decodes a data field's indicators and subfields (`body` without its terminator).
fn data_field(
    body: &[u8],
    offset: usize,
    tag: Tag,
    marc8: bool,
    report: &mut Report<'_>,
) -> Result<Field> {
    let (indicators, rest, rest_offset) = indicators(body, offset, tag, report)?;
    if !marc8 && let Some(subfields) = fast_subfields(rest) {
        return Ok(Field::data_unchecked(tag, indicators, subfields.to_owned()));
    }
    let mut buf = String::with_capacity(rest.len() + rest.len() / 4);
    let mut pieces = rest.split(|&b| b == DELIMITER);
    let first = pieces.next().unwrap_or_default();
    if !first.is_empty() {
        let problem = Problem::DataBeforeSubfield { tag: tag.to_string(), found: lossy(first) };
        report.problem(rest_offset, problem, "data dropped")?;
    }
    let mut piece_offset = rest_offset + first.len() + 1;
    for piece in pieces {
        let width = code_width(piece, marc8);
        let code = match piece.first() {
            Some(&b) if is_code(b) => char::from(b),
            _ => {
                let problem = Problem::BadSubfieldCode {
                    tag: tag.to_string(),
                    found: lossy(&piece[..width]),
                };
                if piece.is_empty() {
                    report.problem(piece_offset, problem, "empty subfield dropped")?;
                    piece_offset += 1;
                    continue;
                }
                report.problem(piece_offset, problem, "code replaced with '?'")?;
                '?'
            }
        };
        let value = text(&piece[width..], piece_offset + width, tag, marc8, report)?;
        buf.push(char::from(DELIMITER));
        buf.push(code);
        buf.push_str(&value);
        piece_offset += piece.len() + 1;
    }
    Ok(Field::data_unchecked(tag, indicators, buf))
}

/// The indicators, the rest of the field and its offset.
fn indicators<'b>(
    body: &'b [u8],
    offset: usize,
    tag: Tag,
    report: &mut Report<'_>,
) -> Result<([u8; 2], &'b [u8], usize)> {
    // Indicators are two bytes before the first delimiter; fewer means missing.
    let n_present = body.iter().take(2).take_while(|&&b| b != DELIMITER).count();
    let mut indicators = *b"  ";
    if n_present < 2 {
        report.problem(
            offset,
            Problem::MissingIndicators { tag: tag.to_string() },
            "missing indicators set to blank",
        )?;
    }
    for (idx, &b) in body[..n_present].iter().enumerate() {
        if is_printable(b) {
            indicators[idx] = b;
        } else {
            let problem = Problem::BadIndicator { tag: tag.to_string(), found: lossy(&[b]) };
            report.problem(offset + idx, problem, "indicator set to blank")?;
        }
    }
    Ok((indicators, &body[n_present..], offset + n_present))
}

/// `rest` as the model's subfield buffer, if it already is one: UTF-8,
/// starting with a delimiter, a printable code after each delimiter, no other
/// control characters, no U+FFFE/U+FFFF. The common case, checked in one pass.
fn fast_subfields(rest: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(rest).ok()?;
    if rest.first().is_some_and(|&b| b != DELIMITER) {
        return None;
    }
    let mut after_delimiter = false;
    for &b in rest {
        if after_delimiter {
            if !is_code(b) {
                return None;
            }
            after_delimiter = false;
        } else if b < 0x20 {
            match b {
                DELIMITER => after_delimiter = true,
                b'\t' | b'\n' | b'\r' => {}
                _ => return None,
            }
        } else if b == 0xEF {
            return slow_ok(text);
        }
    }
    (!after_delimiter).then_some(text)
}

/// The careful version of the fast check, for buffers holding U+FFFx-like bytes.
fn slow_ok(text: &str) -> Option<&str> {
    let mut pieces = text.split(char::from(DELIMITER));
    if !pieces.next().unwrap_or_default().is_empty() {
        return None;
    }
    pieces
        .all(|p| {
            p.as_bytes().first().is_some_and(|&c| is_code(c)) && check_value(&p[1..]).is_none()
        })
        .then_some(text)
}

/// Bytes a (possibly bad) subfield code takes: one, or in a UTF-8 record the
/// whole character a non-ASCII lead byte starts.
fn code_width(piece: &[u8], marc8: bool) -> usize {
    let Some(&first) = piece.first() else { return 0 };
    if marc8 || first < 0x80 {
        return 1;
    }
    let width = match first {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    };
    if piece.len() >= width && std::str::from_utf8(&piece[..width]).is_ok() { width } else { 1 }
}

/// Converts one value to the model's text: MARC-8 or UTF-8, then the
/// characters the model excludes.
fn text(
    raw: &[u8],
    offset: usize,
    tag: Tag,
    marc8: bool,
    report: &mut Report<'_>,
) -> Result<String> {
    let mut value = if marc8 {
        let mut out = String::with_capacity(raw.len() + raw.len() / 4);
        let mut issues = Vec::new();
        marc8::decode(raw, &mut out, &mut issues);
        for issue in issues {
            let problem = Problem::Marc8 { tag: tag.to_string(), detail: issue.detail };
            report.problem(offset + issue.offset, problem, "skipped")?;
        }
        out
    } else {
        match std::str::from_utf8(raw) {
            Ok(text) => text.to_owned(),
            Err(e) => {
                let problem = Problem::InvalidUtf8 { tag: tag.to_string() };
                report.problem(
                    offset + e.valid_up_to(),
                    problem,
                    "invalid bytes replaced with U+FFFD",
                )?;
                String::from_utf8_lossy(raw).into_owned()
            }
        }
    };
    if let Some(found) = check_value(&value) {
        // An index into the converted text, which may be longer than the raw bytes.
        let at = value.find(found).unwrap_or(0).min(raw.len());
        let problem = Problem::BadCharacter { tag: tag.to_string(), found };
        report.problem(offset + at, problem, "character removed")?;
        value.retain(allowed_char);
    }
    Ok(value)
}

/// Bytes for a message: text where they are UTF-8, escapes elsewhere.
pub(crate) fn lossy(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => bytes.escape_ascii().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    /// Decodes `bytes` strictly and leniently and shows both outcomes.
    fn check(bytes: &[u8], expect: Expect) {
        let strict = match decode(bytes) {
            Ok(record) => format!("strict: ok\n{record}"),
            Err(e) => format!("strict: {e}\n"),
        };
        let lenient = match decode_lenient(bytes) {
            Ok((record, warnings)) => {
                let warnings: String = warnings.iter().map(|w| format!("  {w}\n")).collect();
                format!("lenient:\n{warnings}{record}")
            }
            Err(e) => format!("lenient: {e}\n"),
        };
        expect.assert_eq(&format!("{strict}{lenient}"));
    }

    /// A record around these directory entries and data (lengths computed).
    fn build(fields: &[(&str, &[u8])]) -> Vec<u8> {
        let mut directory = Vec::new();
        let mut data = Vec::new();
        for (tag, body) in fields {
            directory.extend_from_slice(
                format!("{tag}{:04}{:05}", body.len() + 1, data.len()).as_bytes(),
            );
            data.extend_from_slice(body);
            data.push(FIELD_TERMINATOR);
        }
        let base = 24 + directory.len() + 1;
        let len = base + data.len() + 1;
        let mut out = format!("{len:05}nam a22{base:05} a 4500").into_bytes();
        out.extend_from_slice(&directory);
        out.push(FIELD_TERMINATOR);
        out.extend_from_slice(&data);
        out.push(RECORD_TERMINATOR);
        out
    }

    #[test]
    fn well_formed() {
        check(
            &build(&[
                ("001", b"in001"),
                ("245", b"10\x1faT\xc3\xadtulo :\x1fbsub.\x1fc"),
                ("FMT", b"  \x1faBK"),
            ]),
            expect![[r#"
                strict: ok
                00097nam a2200061 a 4500
                001 in001
                245 10 $a Título : $b sub. $c 
                FMT    $a BK

                lenient:
                00097nam a2200061 a 4500
                001 in001
                245 10 $a Título : $b sub. $c 
                FMT    $a BK

            "#]],
        );
    }

    #[test]
    fn marc8_record() {
        let mut bytes =
            build(&[("100", b"1 \x1faG\xe2ebler, Carlo"), ("245", b"00\x1fa\x1b(NAB\x1b(B")]);
        bytes[9] = b' ';
        check(
            &bytes,
            expect![[r#"
                strict: ok
                00082nam a2200049 a 4500
                100 1  $a Gébler, Carlo
                245 00 $a аб

                lenient:
                00082nam a2200049 a 4500
                100 1  $a Gébler, Carlo
                245 00 $a аб

            "#]],
        );
    }

    #[test]
    fn structural_problems() {
        let good = build(&[("245", b"10\x1faA")]);
        check(
            &good[..30],
            expect![[r#"
                strict: ISO 2709 record 1, byte 0: input ends inside the record (44 bytes needed, 30 available)
                lenient: ISO 2709 record 1, byte 24: base address of data 37 does not follow a directory ending in a field terminator (0x1E)
            "#]],
        );
        let mut bad_base = good.clone();
        bad_base[12..17].copy_from_slice(b"0003x");
        check(
            &bad_base,
            expect![[r#"
                strict: ISO 2709 record 1, byte 12: base address of data "0003x" (leader/12-16) is not a number
                lenient:
                  ISO 2709 record 1, byte 12: base address of data "0003x" (leader/12-16) is not a number; directory taken to end at the first field terminator
                00044nam a220003x a 4500
                245 10 $a A

            "#]],
        );
        let mut bad_entry = good.clone();
        bad_entry[27..31].copy_from_slice(b"0009");
        check(
            &bad_entry,
            expect![[r#"
                strict: ISO 2709 record 1, byte 24: field 245 (directory entry 1): 9 bytes at 0 lie outside the record's data
                lenient:
                  ISO 2709 record 1, byte 24: field 245 (directory entry 1): 9 bytes at 0 lie outside the record's data; field taken from the end of the previous field to the next field terminator
                00044nam a2200037 a 4500
                245 10 $a A

            "#]],
        );
        let mut bad_leader = good.clone();
        bad_leader[10] = b'3';
        bad_leader[9] = b'z';
        bad_leader[5] = 0x80;
        check(
            &bad_leader,
            expect![[r#"
                strict: ISO 2709 record 1, byte 5: leader/05 is "\\x80", not a printable ASCII character
                lenient:
                  ISO 2709 record 1, byte 5: leader/05 is "\\x80", not a printable ASCII character; replaced with a space
                  ISO 2709 record 1, byte 9: leader/09 (character coding scheme) is 'z', neither ' ' (MARC-8) nor 'a' (UCS/Unicode); read as UTF-8
                  ISO 2709 record 1, byte 10: leader/10 (indicator count) is '3', expected '2'; read as if it were the standard value
                00044 am a3200037 a 4500
                245 10 $a A

            "#]],
        );
    }

    #[test]
    fn field_problems() {
        check(
            &build(&[
                ("0 2", b"  \x1fax"),
                ("020", b"\x1fa97802"),
                ("245", b"1\x0b\x1f\xc3\xa1T\xff\x1f\x1fbB\x01"),
                ("300", b"10junk\x1fa1 v."),
            ]),
            expect![[r#"
                strict: ISO 2709 record 1, byte 24: tag "0 2" is not three ASCII letters or digits
                lenient:
                  ISO 2709 record 1, byte 24: tag "0 2" is not three ASCII letters or digits; field dropped
                  ISO 2709 record 1, byte 79: field 020: data field has no indicators; missing indicators set to blank
                  ISO 2709 record 1, byte 88: field 245: indicator "\u{b}" is not one printable ASCII character or space; indicator set to blank
                  ISO 2709 record 1, byte 90: field 245: subfield code "á" is not one printable ASCII character; code replaced with '?'
                  ISO 2709 record 1, byte 93: field 245: invalid UTF-8; invalid bytes replaced with U+FFFD
                  ISO 2709 record 1, byte 95: field 245: subfield code "" is not one printable ASCII character; empty subfield dropped
                  ISO 2709 record 1, byte 98: field 245: character '\u{1}' is not allowed in MARC data; character removed
                  ISO 2709 record 1, byte 102: field 300: data "junk" before the first subfield delimiter (0x1F); data dropped
                00114nam a2200073 a 4500
                020    $a 97802
                245 1  $? T� $b B
                300 10 $a 1 v.

            "#]],
        );
    }
}
