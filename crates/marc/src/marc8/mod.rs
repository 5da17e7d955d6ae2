//! MARC-8 to Unicode conversion, for ISO 2709 records whose leader/09 is
//! blank. It owns the escape-sequence state machine and the reordering of
//! combining marks; the code tables are generated (see `tables.rs`). There is
//! no Unicode to MARC-8 direction: Quire writes UTF-8 only.
//!
//! Rules, matching YAZ's MARC-8 decoder (`yaz-marcdump -f MARC-8 -t UTF-8`):
//! - Each subfield value (and control field value) starts with G0 = ASCII and
//!   G1 = ANSEL; escape sequences change them until the end of that value.
//! - Combining marks precede their base character in MARC-8 and follow it in
//!   Unicode, so they are held back until the next base character. No
//!   normalisation is applied (`é` stays `e` + U+0301, as in YAZ).
//! - The second halves of the double diacritics (ANSEL 0xEC ligature, 0xFB
//!   double tilde) are dropped: the first half maps to the double combining
//!   mark (U+0361, U+0360) that spans both letters.
//! - An unassigned code or an unknown escape sequence is a problem the caller
//!   reports; the output skips the code (YAZ drops it too) or the ESC byte.

// Generated and long: kept as the generator writes it.
#[rustfmt::skip]
mod tables;

use self::tables::{
    ANSEL, BASIC_ARABIC, BASIC_CYRILLIC, BASIC_GREEK, BASIC_HEBREW, BASIC_LATIN, C1, COMBINING,
    EACC, EXTENDED_ARABIC, EXTENDED_CYRILLIC, GREEK_SYMBOLS, SUBSCRIPTS, SUPERSCRIPTS,
};

const ESC: u8 = 0x1B;

/// A graphic character set designated into G0 or G1.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Set {
    Single(&'static [u32; 94]),
    Eacc,
}

/// A conversion problem: the byte offset into the converted slice and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Issue {
    pub(crate) offset: usize,
    pub(crate) detail: String,
}

/// Converts one MARC-8 value to Unicode, appending to `out`. Problems are
/// pushed to `issues`; the output is then the best effort described in the
/// module doc.
pub(crate) fn decode(bytes: &[u8], out: &mut String, issues: &mut Vec<Issue>) {
    let mut g0 = Set::Single(&BASIC_LATIN);
    let mut g1 = Set::Single(&ANSEL);
    let mut pending: Vec<char> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let (value, width) = match b {
            ESC => {
                match escape(&bytes[i + 1..]) {
                    Some((target, set, len)) => {
                        match target {
                            Target::G0 => g0 = set,
                            Target::G1 => g1 = set,
                        }
                        i += 1 + len;
                    }
                    None => {
                        let end = bytes.len().min(i + 4);
                        issues.push(Issue {
                            offset: i,
                            detail: format!("unknown escape sequence {}", hex(&bytes[i..end])),
                        });
                        i += 1;
                    }
                }
                continue;
            }
            // Space is the same in every set, single- or multi-byte.
            b' ' => (u32::from(b' '), 1),
            0x21..=0x7E => lookup(g0, &bytes[i..], 0),
            0xA1..=0xFE => lookup(g1, &bytes[i..], 0x80),
            _ => match C1.iter().find(|&&(code, _)| code == b) {
                Some(&(_, value)) => (value, 1),
                // C0 controls pass through: the caller rejects the ones the
                // model does not hold, with the field's context.
                None if b < 0x20 => (u32::from(b), 1),
                None => (0, 1),
            },
        };
        let code = &bytes[i..(i + width).min(bytes.len())];
        i += width;
        if value == 0 {
            if !is_second_half(g0, g1, code) {
                issues.push(Issue {
                    offset: i - width,
                    detail: format!("unassigned code {}", hex(code)),
                });
            }
            continue;
        }
        let Some(c) = char::from_u32(value & !COMBINING) else {
            continue;
        };
        if value & COMBINING != 0 {
            pending.push(c);
        } else {
            out.push(c);
            out.extend(pending.drain(..));
        }
    }
    // Marks with no base character after them stay at the end, as in YAZ.
    out.extend(pending.drain(..));
}

/// The table value and width of the character at the start of `bytes` in
/// `set`, with `high` (0 or 0x80) removed from each byte; value 0 if unassigned
/// or cut short.
fn lookup(set: Set, bytes: &[u8], high: u8) -> (u32, usize) {
    match set {
        Set::Single(table) => (table[usize::from(bytes[0] - high - 0x21)], 1),
        Set::Eacc => {
            // A code cut short by the end, an escape or a byte outside the
            // set's range is reported up to there, so an escape after it still
            // takes effect.
            let n_valid = bytes
                .iter()
                .take(3)
                .take_while(|&&b| b & 0x80 == high && (0x21..=0x7E).contains(&(b & 0x7F)))
                .count();
            if n_valid < 3 {
                return (0, n_valid.max(1));
            }
            let code = &bytes[..3];
            let key = code.iter().fold(0u64, |k, &b| k << 8 | u64::from(b & 0x7F));
            let value = EACC
                .binary_search_by_key(&key, |entry| entry >> 32)
                .map_or(0, |idx| (EACC[idx] & 0xFFFF_FFFF) as u32);
            (value, 3)
        }
    }
}

/// Whether an unassigned `code` is the second half of an ANSEL double
/// diacritic, which conversion drops silently.
fn is_second_half(g0: Set, g1: Set, code: &[u8]) -> bool {
    match code {
        [0xEC | 0xFB] => g1 == Set::Single(&ANSEL),
        [0x6C | 0x7B] => g0 == Set::Single(&ANSEL),
        _ => false,
    }
}

enum Target {
    G0,
    G1,
}

/// Parses the escape sequence after an ESC byte: the register, the set and
/// the number of bytes after ESC. `None` for a sequence MARC-8 does not define.
fn escape(after: &[u8]) -> Option<(Target, Set, usize)> {
    // Technique 1: Greek symbols, subscripts, superscripts into G0; ESC s back to ASCII.
    let technique1 = |set| Some((Target::G0, Set::Single(set), 1));
    match *after.first()? {
        b'g' => return technique1(&GREEK_SYMBOLS),
        b'b' => return technique1(&SUBSCRIPTS),
        b'p' => return technique1(&SUPERSCRIPTS),
        b's' => return technique1(&BASIC_LATIN),
        _ => {}
    }
    // Technique 2 (ISO 2022): intermediates, then a final character.
    let (target, multibyte, skip) = match after {
        [b'(' | b',', ..] => (Target::G0, false, 1),
        [b')' | b'-', ..] => (Target::G1, false, 1),
        [b'$', b',', ..] => (Target::G0, true, 2),
        [b'$', b')' | b'-', ..] => (Target::G1, true, 2),
        [b'$', ..] => (Target::G0, true, 1),
        _ => return None,
    };
    let finals = &after[skip..];
    let (set, len) = match (multibyte, finals) {
        (true, [b'1', ..]) => (Set::Eacc, 1),
        (false, [b'!', b'E', ..]) => (Set::Single(&ANSEL), 2),
        (false, [final_byte, ..]) => {
            let table: &'static [u32; 94] = match final_byte {
                b'B' => &BASIC_LATIN,
                b'2' => &BASIC_HEBREW,
                b'3' => &BASIC_ARABIC,
                b'4' => &EXTENDED_ARABIC,
                b'N' => &BASIC_CYRILLIC,
                b'Q' => &EXTENDED_CYRILLIC,
                b'S' => &BASIC_GREEK,
                b'g' => &GREEK_SYMBOLS,
                b'b' => &SUBSCRIPTS,
                b'p' => &SUPERSCRIPTS,
                _ => return None,
            };
            (Set::Single(table), 1)
        }
        _ => return None,
    };
    Some((target, set, skip + len))
}

fn hex(bytes: &[u8]) -> String {
    let parts: Vec<String> = bytes.iter().map(|b| format!("{b:02X}")).collect();
    format!("0x{}", parts.join(" 0x"))
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    fn check(input: &[u8], expect: Expect) {
        let mut out = String::new();
        let mut issues = Vec::new();
        decode(input, &mut out, &mut issues);
        let code_points: Vec<String> = out
            .chars()
            .filter(|c| !c.is_ascii())
            .map(|c| format!("U+{:04X}", u32::from(c)))
            .collect();
        expect.assert_eq(&format!("{out:?} {code_points:?} {issues:?}"));
    }

    #[test]
    fn latin_with_diacritics() {
        // Combining acute before its base in MARC-8, after it in Unicode.
        check(b"G\xe2ebler", expect![[r#""Ge\u{301}bler" ["U+0301"] []"#]]);
        // Two marks on one letter keep their order.
        check(b"\xe3\xf2a.", expect![[r#""a\u{302}\u{323}." ["U+0302", "U+0323"] []"#]]);
        check(b"\xc3 2015 \xa1\xb1", expect![[r#""© 2015 Łł" ["U+00A9", "U+0141", "U+0142"] []"#]]);
        // Ligature halves: the first maps to U+0361, the second is dropped.
        check(b"\xebt\xecs", expect![[r#""t\u{361}s" ["U+0361"] []"#]]);
        // A mark at the end of the value stays there.
        check(b"x\xe2", expect![[r#""x\u{301}" ["U+0301"] []"#]]);
        // Non-sort markers are C1 controls in Unicode.
        check(b"\x88The \x89end", expect![[r#""\u{98}The \u{9c}end" ["U+0098", "U+009C"] []"#]]);
    }

    #[test]
    fn escape_sequences() {
        // EACC (CJK) in G0, then back to ASCII.
        check(b"\x1b$1!0!\x1b(B ok", expect![[r#""一 ok" ["U+4E00"] []"#]]);
        // Cyrillic in G0, Greek symbols by technique 1.
        check(
            b"\x1b(NAB\x1bs \x1bga\x1bs",
            expect![[r#""аб α" ["U+0430", "U+0431", "U+03B1"] []"#]],
        );
        // Basic Hebrew in G1 via high bytes.
        check(b"\x1b)2\xe0", expect![[r#""א" ["U+05D0"] []"#]]);
        check(b"H\x1bb2\x1bsO", expect![[r#""H₂O" ["U+2082"] []"#]]);
    }

    #[test]
    fn problems() {
        check(
            b"a\x1bzb\xc9c",
            expect![[
                r#""azbc" [] [Issue { offset: 1, detail: "unknown escape sequence 0x1B 0x7A 0x62 0xC9" }, Issue { offset: 4, detail: "unassigned code 0xC9" }]"#
            ]],
        );
        check(
            b"\x1b$1{69",
            expect![[r#""" [] [Issue { offset: 3, detail: "unassigned code 0x7B 0x36 0x39" }]"#]],
        );
        check(
            b"\x1b$1!0",
            expect![[r#""" [] [Issue { offset: 3, detail: "unassigned code 0x21 0x30" }]"#]],
        );
    }
}
