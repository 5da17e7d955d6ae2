//! Tags, fields and subfields: the model below the record. It owns the
//! invariants every codec relies on (what a tag, an indicator, a subfield code
//! and a value may contain); it knows nothing of any serialisation.

use std::fmt;

use crate::error::{Error, Result};
use crate::leader::is_printable;

/// Subfield delimiter, also the separator in a data field's internal buffer.
pub(crate) const DELIMITER: u8 = 0x1F;

/// A field tag: three ASCII letters or digits, e.g. `245`, `001`, or a local
/// alphabetic tag such as `FMT`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tag {
    // Invariant: three ASCII alphanumeric bytes.
    bytes: [u8; 3],
}

impl Tag {
    /// Checks and wraps a tag.
    pub fn new(tag: &str) -> Result<Tag> {
        Tag::from_bytes(tag.as_bytes()).ok_or_else(|| Error::Invalid {
            what: "tag",
            value: tag.to_owned(),
            reason: "must be three ASCII letters or digits",
        })
    }

    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Tag> {
        let bytes: [u8; 3] = bytes.try_into().ok()?;
        bytes.iter().all(u8::is_ascii_alphanumeric).then_some(Tag { bytes })
    }

    /// The tag as a string.
    pub fn as_str(&self) -> &str {
        // Invariant: ASCII, so always UTF-8.
        std::str::from_utf8(&self.bytes).unwrap_or_default()
    }

    /// The tag's three bytes.
    pub fn as_bytes(&self) -> &[u8; 3] {
        &self.bytes
    }

    /// Whether fields with this tag are control fields: tags starting `00`
    /// (001-009) hold one value and have no indicators or subfields. Every
    /// other tag, alphabetic ones included, is a data field.
    pub fn is_control(&self) -> bool {
        self.bytes[0] == b'0' && self.bytes[1] == b'0'
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl std::str::FromStr for Tag {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Tag::new(s)
    }
}

impl PartialEq<str> for Tag {
    fn eq(&self, other: &str) -> bool {
        self.bytes == other.as_bytes()
    }
}

impl PartialEq<&str> for Tag {
    fn eq(&self, other: &&str) -> bool {
        self.bytes == other.as_bytes()
    }
}

/// One field of a record: a control field (tag `00X`, one value) or a data
/// field (two indicators and subfields in order).
///
/// ```
/// use marc::{Field, Tag};
///
/// let mut field = Field::data(Tag::new("245")?, '1', '0', [('a', "Title :"), ('b', "subtitle")])?;
/// field.push_subfield('c', "Author.")?;
/// assert_eq!(field.subfield('b'), Some("subtitle"));
/// let codes: String = field.subfields().map(|s| s.code).collect();
/// assert_eq!(codes, "abc");
/// assert_eq!(Field::control(Tag::new("001")?, "in00000001")?.value(), Some("in00000001"));
/// # Ok::<(), marc::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Field {
    tag: Tag,
    // Invariant: `Content::Control` exactly when `tag.is_control()`.
    content: Content,
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum Content {
    // Invariant: the value passes `check_value`.
    Control(String),
    Data {
        // Invariant: both printable ASCII or space.
        indicators: [u8; 2],
        // Invariant: empty, or repetitions of DELIMITER, one printable ASCII
        // code byte (0x21..=0x7E), and a value passing `check_value` (so the
        // value holds no DELIMITER). This is the ISO 2709 layout, so decoding
        // UTF-8 costs one copy per field and no allocation per subfield.
        subfields: String,
    },
}

/// One subfield of a data field, borrowed from it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Subfield<'a> {
    /// The subfield code, a printable ASCII character (`a`-`z`, `0`-`9` in MARC 21).
    pub code: char,
    /// The subfield's data.
    pub value: &'a str,
}

impl Field {
    /// A control field. Fails if the tag is not a control tag (`00X`) or the
    /// value holds a character the model excludes (see [`check_value`](crate#invariants)).
    pub fn control(tag: Tag, value: impl Into<String>) -> Result<Field> {
        if !tag.is_control() {
            return Err(Error::Invalid {
                what: "control field tag",
                value: tag.to_string(),
                reason: "control fields have tags 001-009 (00X)",
            });
        }
        let value = value.into();
        checked_value(&value)?;
        Ok(Field { tag, content: Content::Control(value) })
    }

    /// A data field with its indicators and subfields. Fails on a control tag,
    /// an indicator that is not printable ASCII or space, a subfield code that
    /// is not printable ASCII (space excluded), or a bad character in a value.
    pub fn data<'v>(
        tag: Tag,
        ind1: char,
        ind2: char,
        subfields: impl IntoIterator<Item = (char, &'v str)>,
    ) -> Result<Field> {
        if tag.is_control() {
            return Err(Error::Invalid {
                what: "data field tag",
                value: tag.to_string(),
                reason: "tags 00X are control fields",
            });
        }
        let indicators = [indicator(ind1)?, indicator(ind2)?];
        let mut field =
            Field { tag, content: Content::Data { indicators, subfields: String::new() } };
        for (code, value) in subfields {
            field.push_subfield(code, value)?;
        }
        Ok(field)
    }

    /// Builds a data field from parts already checked by a decoder.
    pub(crate) fn data_unchecked(tag: Tag, indicators: [u8; 2], subfields: String) -> Field {
        debug_assert!(!tag.is_control());
        debug_assert!(subfields_valid(&subfields), "{subfields:?}");
        Field { tag, content: Content::Data { indicators, subfields } }
    }

    /// Builds a control field from a value already checked by a decoder.
    pub(crate) fn control_unchecked(tag: Tag, value: String) -> Field {
        debug_assert!(tag.is_control());
        debug_assert!(check_value(&value).is_none());
        Field { tag, content: Content::Control(value) }
    }

    /// The field's tag.
    pub fn tag(&self) -> Tag {
        self.tag
    }

    /// Whether this is a control field (tag `00X`).
    pub fn is_control(&self) -> bool {
        matches!(self.content, Content::Control(_))
    }

    /// A control field's value; `None` for a data field.
    pub fn value(&self) -> Option<&str> {
        match &self.content {
            Content::Control(value) => Some(value),
            Content::Data { .. } => None,
        }
    }

    /// Replaces a control field's value. Fails on a data field or a bad character.
    pub fn set_value(&mut self, new: impl Into<String>) -> Result<()> {
        let new = new.into();
        checked_value(&new)?;
        match &mut self.content {
            Content::Control(value) => {
                *value = new;
                Ok(())
            }
            Content::Data { .. } => Err(Error::Invalid {
                what: "value for data field",
                value: self.tag.to_string(),
                reason: "only control fields have a value; data fields have subfields",
            }),
        }
    }

    /// The first indicator; `' '` for a control field.
    pub fn ind1(&self) -> char {
        self.indicators().map_or(' ', |[i, _]| i)
    }

    /// The second indicator; `' '` for a control field.
    pub fn ind2(&self) -> char {
        self.indicators().map_or(' ', |[_, i]| i)
    }

    /// Both indicators of a data field; `None` for a control field.
    pub fn indicators(&self) -> Option<[char; 2]> {
        match &self.content {
            Content::Control(_) => None,
            Content::Data { indicators: [a, b], .. } => Some([char::from(*a), char::from(*b)]),
        }
    }

    /// Sets a data field's indicators. Fails on a control field or an
    /// indicator that is not printable ASCII or space.
    pub fn set_indicators(&mut self, ind1: char, ind2: char) -> Result<()> {
        let new = [indicator(ind1)?, indicator(ind2)?];
        match &mut self.content {
            Content::Data { indicators, .. } => {
                *indicators = new;
                Ok(())
            }
            Content::Control(_) => Err(not_data(self.tag)),
        }
    }

    /// A data field's subfields in order; nothing for a control field.
    pub fn subfields(&self) -> Subfields<'_> {
        match &self.content {
            Content::Data { subfields, .. } => Subfields { rest: subfields },
            Content::Control(_) => Subfields { rest: "" },
        }
    }

    /// The value of the first subfield with this code.
    pub fn subfield(&self, code: char) -> Option<&str> {
        self.subfields().find(|s| s.code == code).map(|s| s.value)
    }

    /// The values of every subfield with this code, in order.
    pub fn subfield_values(&self, code: char) -> impl Iterator<Item = &str> + '_ {
        self.subfields().filter(move |s| s.code == code).map(|s| s.value)
    }

    /// Appends a subfield to a data field.
    pub fn push_subfield(&mut self, code: char, value: &str) -> Result<()> {
        let code = subfield_code(code)?;
        checked_value(value)?;
        match &mut self.content {
            Content::Data { subfields, .. } => {
                subfields.reserve(2 + value.len());
                subfields.push(char::from(DELIMITER));
                subfields.push(char::from(code));
                subfields.push_str(value);
                Ok(())
            }
            Content::Control(_) => Err(not_data(self.tag)),
        }
    }

    /// Removes every subfield with this code; returns how many there were.
    pub fn remove_subfields(&mut self, code: char) -> usize {
        let Content::Data { subfields, .. } = &mut self.content else { return 0 };
        let before = subfields.len();
        let mut kept = String::with_capacity(before);
        let mut removed = 0;
        for s in (Subfields { rest: subfields }) {
            if s.code == code {
                removed += 1;
            } else {
                kept.push(char::from(DELIMITER));
                kept.push(s.code);
                kept.push_str(s.value);
            }
        }
        *subfields = kept;
        removed
    }

    /// The data field's subfields in their ISO 2709 layout (delimiter, code,
    /// value, ...), for the writers.
    pub(crate) fn raw_subfields(&self) -> &str {
        match &self.content {
            Content::Data { subfields, .. } => subfields,
            Content::Control(_) => "",
        }
    }

    pub(crate) fn raw_indicators(&self) -> [u8; 2] {
        match &self.content {
            Content::Data { indicators, .. } => *indicators,
            Content::Control(_) => *b"  ",
        }
    }
}

impl fmt::Debug for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.content {
            Content::Control(value) => write!(f, "{} {value:?}", self.tag),
            Content::Data { indicators: [a, b], .. } => {
                write!(f, "{} {}{} ", self.tag, char::from(*a), char::from(*b))?;
                f.debug_list().entries(self.subfields().map(|s| (s.code, s.value))).finish()
            }
        }
    }
}

/// Iterator over a data field's subfields, in order.
#[derive(Clone, Debug)]
pub struct Subfields<'a> {
    // Invariant: a suffix of a valid subfield buffer (see `Content::Data`).
    rest: &'a str,
}

impl<'a> Iterator for Subfields<'a> {
    type Item = Subfield<'a>;

    fn next(&mut self) -> Option<Subfield<'a>> {
        // Invariant: `rest` is empty or starts with DELIMITER and a one-byte code.
        let body = self.rest.get(2..)?;
        let code = char::from(self.rest.as_bytes()[1]);
        let end = memchr::memchr(DELIMITER, body.as_bytes()).unwrap_or(body.len());
        let (value, rest) = body.split_at(end);
        self.rest = rest;
        Some(Subfield { code, value })
    }
}

/// The first character a value may not hold, if any: C0 controls other than
/// tab, line feed and carriage return (the others include the ISO 2709
/// delimiters, and XML 1.0 cannot carry them) and the noncharacters U+FFFE and
/// U+FFFF (which XML cannot carry either). Line ends are allowed because real
/// MARCXML has them inside values (pretty-printed subfields).
pub(crate) fn check_value(value: &str) -> Option<char> {
    // Fast path: no byte below 0x20 and no 0xEF (the lead byte of U+FFFx).
    if !value.bytes().any(|b| b < 0x20 || b == 0xEF) {
        return None;
    }
    value.chars().find(|&c| !allowed_char(c))
}

/// Whether the model holds `c` in a value.
pub(crate) fn allowed_char(c: char) -> bool {
    (c >= ' ' || matches!(c, '\t' | '\n' | '\r')) && c != '\u{FFFE}' && c != '\u{FFFF}'
}

fn checked_value(value: &str) -> Result<()> {
    match check_value(value) {
        None => Ok(()),
        Some(_) => Err(Error::Invalid {
            what: "value",
            value: value.to_owned(),
            reason: "C0 control characters (but tab, CR, LF), U+FFFE and U+FFFF are not allowed",
        }),
    }
}

fn indicator(c: char) -> Result<u8> {
    match u8::try_from(c) {
        Ok(b) if is_printable(b) => Ok(b),
        _ => Err(Error::Invalid {
            what: "indicator",
            value: c.to_string(),
            reason: "must be a printable ASCII character or space",
        }),
    }
}

/// Whether `b` may be a subfield code: printable ASCII, not space.
pub(crate) fn is_code(b: u8) -> bool {
    (0x21..=0x7E).contains(&b)
}

fn subfield_code(c: char) -> Result<u8> {
    match u8::try_from(c) {
        Ok(b) if is_code(b) => Ok(b),
        _ => Err(Error::Invalid {
            what: "subfield code",
            value: c.to_string(),
            reason: "must be one printable ASCII character other than space",
        }),
    }
}

fn not_data(tag: Tag) -> Error {
    Error::Invalid {
        what: "subfield or indicator for control field",
        value: tag.to_string(),
        reason: "control fields have no indicators or subfields",
    }
}

fn subfields_valid(buf: &str) -> bool {
    let b = buf.as_bytes();
    if b.is_empty() {
        return true;
    }
    b[0] == DELIMITER
        && buf.split(char::from(DELIMITER)).skip(1).all(|piece| {
            piece.as_bytes().first().is_some_and(|&c| is_code(c))
                && check_value(&piece[1..]).is_none()
        })
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;

    #[test]
    fn tags() {
        assert!(Tag::new("245").is_ok_and(|t| !t.is_control() && t == "245"));
        assert!(Tag::new("008").is_ok_and(|t| t.is_control()));
        assert!(Tag::new("FMT").is_ok_and(|t| !t.is_control()));
        let errors =
            ["42", "0 2", "2450", "24\u{e9}"].map(|t| Tag::new(t).unwrap_err().to_string());
        expect![[r#"
            [
                "invalid tag \"42\": must be three ASCII letters or digits",
                "invalid tag \"0 2\": must be three ASCII letters or digits",
                "invalid tag \"2450\": must be three ASCII letters or digits",
                "invalid tag \"24é\": must be three ASCII letters or digits",
            ]
        "#]]
        .assert_debug_eq(&errors);
    }

    #[test]
    fn building_and_editing() {
        let t245 = Tag::new("245").unwrap();
        let mut field = Field::data(t245, '1', '0', [('a', "A"), ('b', ""), ('a', "C")]).unwrap();
        assert_eq!(field.subfield_values('a').collect::<Vec<_>>(), ["A", "C"]);
        assert_eq!(field.remove_subfields('a'), 2);
        field.set_indicators(' ', '4').unwrap();
        expect![[r#"245  4 [('b', "")]"#]].assert_eq(&format!("{field:?}"));

        let errors = [
            Field::data(t245, '\u{1f}', ' ', []).unwrap_err(),
            Field::data(t245, ' ', ' ', [(' ', "x")]).unwrap_err(),
            Field::data(t245, ' ', ' ', [('a', "x\u{1f}y")]).unwrap_err(),
            Field::data(Tag::new("001").unwrap(), ' ', ' ', []).unwrap_err(),
            Field::control(t245, "x").unwrap_err(),
            Field::control(Tag::new("001").unwrap(), "x")
                .unwrap()
                .push_subfield('a', "y")
                .unwrap_err(),
        ]
        .map(|e| e.to_string());
        expect![[r#"
            [
                "invalid indicator \"\\u{1f}\": must be a printable ASCII character or space",
                "invalid subfield code \" \": must be one printable ASCII character other than space",
                "invalid value \"x\\u{1f}y\": C0 control characters (but tab, CR, LF), U+FFFE and U+FFFF are not allowed",
                "invalid data field tag \"001\": tags 00X are control fields",
                "invalid control field tag \"245\": control fields have tags 001-009 (00X)",
                "invalid subfield or indicator for control field \"001\": control fields have no indicators or subfields",
            ]
        "#]]
        .assert_debug_eq(&errors);
    }

    #[test]
    fn values() {
        assert_eq!(check_value("Gébler \u{FFFD} 中"), None);
        assert_eq!(check_value("a\u{FFFF}"), Some('\u{FFFF}'));
        assert_eq!(check_value("a\tb\r\n"), None);
        assert_eq!(check_value("a\u{1b}b"), Some('\u{1b}'));
    }
}
