//! The record leader: 24 positions of record-level data. This module owns
//! their names and validation; it does not compute the ISO 2709 positions
//! (record length, base address), which the ISO 2709 writer fills in.

use std::fmt;

use crate::error::{Error, Result};

/// The 24-character leader of a MARC record.
///
/// Positions are 0-based, as in MARC 21's "Leader/05". The ISO 2709 writer
/// overwrites the structural positions (00-04 record length, 09 coding scheme,
/// 10-11, 12-16 base address, 20-23); everything else is kept as given.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Leader {
    // Invariant: every byte is printable ASCII or space (0x20..=0x7E).
    bytes: [u8; 24],
}

impl Leader {
    /// Leader length in bytes.
    pub const LEN: usize = 24;

    /// The leader of a new, empty bibliographic record for a language material
    /// monograph: `00000nam a2200000 a 4500`.
    pub const DEFAULT: Leader = Leader { bytes: *b"00000nam a2200000 a 4500" };

    /// Checks and wraps a 24-character leader.
    ///
    /// ```
    /// let leader = marc::Leader::new("01165cam a2200349Ia 4500").unwrap();
    /// assert_eq!((leader.record_type(), leader.bibliographic_level()), ('a', 'm'));
    /// assert!(marc::Leader::new("short").is_err());
    /// ```
    pub fn new(leader: &str) -> Result<Leader> {
        Leader::from_bytes(leader.as_bytes()).ok_or_else(|| Error::Invalid {
            what: "leader",
            value: leader.to_owned(),
            reason: "must be 24 printable ASCII characters",
        })
    }

    /// The leader in `bytes`, if they are 24 printable ASCII characters.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Leader> {
        let bytes: [u8; 24] = bytes.try_into().ok()?;
        bytes.iter().all(|&b| is_printable(b)).then_some(Leader { bytes })
    }

    /// The leader as a string of 24 ASCII characters.
    pub fn as_str(&self) -> &str {
        // Invariant: ASCII, so always UTF-8.
        std::str::from_utf8(&self.bytes).unwrap_or_default()
    }

    /// The leader's 24 bytes.
    pub fn as_bytes(&self) -> &[u8; 24] {
        &self.bytes
    }

    /// The character at `position` (0-23).
    ///
    /// # Panics
    /// If `position` is 24 or more.
    pub fn get(&self, position: usize) -> char {
        char::from(self.bytes[position])
    }

    /// Sets the character at `position` (0-23) to a printable ASCII character.
    ///
    /// # Panics
    /// If `position` is 24 or more.
    pub fn set(&mut self, position: usize, value: char) -> Result<()> {
        match u8::try_from(value) {
            Ok(b) if is_printable(b) => {
                self.bytes[position] = b;
                Ok(())
            }
            _ => Err(Error::Invalid {
                what: "leader character",
                value: value.to_string(),
                reason: "must be printable ASCII or space",
            }),
        }
    }

    /// Leader/00-04 as a number, if it is one (not maintained by the model:
    /// the ISO 2709 writer computes it).
    pub fn record_length(&self) -> Option<usize> {
        digits(&self.bytes[0..5])
    }

    /// Leader/05, record status (`n` new, `c` corrected, `d` deleted, ...).
    pub fn record_status(&self) -> char {
        self.get(5)
    }

    /// Leader/06, type of record (`a` language material, `z` authority, ...).
    pub fn record_type(&self) -> char {
        self.get(6)
    }

    /// Leader/07, bibliographic level (`m` monograph, `s` serial, ...).
    pub fn bibliographic_level(&self) -> char {
        self.get(7)
    }

    /// Leader/08, type of control.
    pub fn type_of_control(&self) -> char {
        self.get(8)
    }

    /// Leader/09, character coding scheme: `' '` MARC-8, `'a'` UCS/Unicode.
    /// Records decoded from MARC-8 hold Unicode and say `'a'`.
    pub fn coding_scheme(&self) -> char {
        self.get(9)
    }

    /// Leader/12-16 as a number, if it is one (the ISO 2709 writer computes it).
    pub fn base_address(&self) -> Option<usize> {
        digits(&self.bytes[12..17])
    }

    /// Leader/17, encoding level.
    pub fn encoding_level(&self) -> char {
        self.get(17)
    }

    /// Leader/18, descriptive cataloging form.
    pub fn cataloging_form(&self) -> char {
        self.get(18)
    }

    /// Leader/19, multipart resource record level.
    pub fn multipart_level(&self) -> char {
        self.get(19)
    }
}

impl Default for Leader {
    fn default() -> Self {
        Leader::DEFAULT
    }
}

impl fmt::Display for Leader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Leader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Leader({:?})", self.as_str())
    }
}

impl std::str::FromStr for Leader {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Leader::new(s)
    }
}

pub(crate) fn is_printable(b: u8) -> bool {
    (0x20..=0x7E).contains(&b)
}

/// The unsigned number written in ASCII `digits`, if they all are digits.
pub(crate) fn digits(digits: &[u8]) -> Option<usize> {
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(digits.iter().fold(0, |n, &d| n * 10 + usize::from(d - b'0')))
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;

    #[test]
    fn named_positions() {
        let leader = Leader::new("02102cam  2200385 i 4500").unwrap();
        let named = format!(
            "{:?} len={:?} base={:?} status={} type={} level={} scheme={:?} enc={:?} form={}",
            leader,
            leader.record_length(),
            leader.base_address(),
            leader.record_status(),
            leader.record_type(),
            leader.bibliographic_level(),
            leader.coding_scheme(),
            leader.encoding_level(),
            leader.cataloging_form(),
        );
        expect![[r#"Leader("02102cam  2200385 i 4500") len=Some(2102) base=Some(385) status=c type=a level=m scheme=' ' enc=' ' form=i"#]]
        .assert_eq(&named);
    }

    #[test]
    fn rejects_bad_leaders() {
        let errors = ["", "0123456789012345678901234", "00000nam a2200000 a 450\u{e9}"]
            .map(|l| Leader::new(l).unwrap_err().to_string());
        expect![[r#"
            [
                "invalid leader \"\": must be 24 printable ASCII characters",
                "invalid leader \"0123456789012345678901234\": must be 24 printable ASCII characters",
                "invalid leader \"00000nam a2200000 a 450é\": must be 24 printable ASCII characters",
            ]
        "#]]
        .assert_debug_eq(&errors);
        let mut leader = Leader::DEFAULT;
        assert!(leader.set(5, 'd').is_ok());
        assert!(leader.set(5, '\u{1e}').is_err());
        assert_eq!(leader.record_status(), 'd');
    }
}
