//! FOLIO's MARC-in-JSON, the shape of SRS `parsedRecord.content` (also
//! pymarc's JSON): `{"leader": "...", "fields": [{"001": "..."}, {"245":
//! {"ind1": "1", "ind2": "0", "subfields": [{"a": "..."}]}}]}`.
//!
//! [`Record`] implements serde's `Serialize` and `Deserialize` in this shape,
//! so FOLIO models can embed it (`content: marc::Record`); deserialisation is
//! strict and checks every model invariant. The functions here add errors
//! that name the record and byte offset.
//!
//! Useful for: SRS records, FOLIO data-import payloads. Not useful for: the
//! other MARC JSON dialect (MARC-JSON with a `"type"` field), which FOLIO does
//! not use.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Format, Problem, Result};
use crate::field::{DELIMITER, Field, Tag, check_value, is_code};
use crate::leader::{Leader, is_printable};
use crate::record::Record;

/// The record as compact MARC-in-JSON text.
///
/// ```
/// let record = marc::json::from_str(r#"{"leader":"00000nam a2200000 a 4500",
///     "fields":[{"001":"in1"},{"245":{"ind1":"1","ind2":"0","subfields":[{"a":"Title"}]}}]}"#)?;
/// assert_eq!(record.control_value("001"), Some("in1"));
/// assert_eq!(
///     marc::json::to_string(&record),
///     r#"{"leader":"00000nam a2200000 a 4500","fields":[{"001":"in1"},{"245":{"ind1":"1","ind2":"0","subfields":[{"a":"Title"}]}}]}"#
/// );
/// # Ok::<(), marc::Error>(())
/// ```
pub fn to_string(record: &Record) -> String {
    serde_json::to_string(record).unwrap_or_default()
}

/// The record as a JSON value.
pub fn to_value(record: &Record) -> serde_json::Value {
    serde_json::to_value(record).unwrap_or_default()
}

/// Reads one record from MARC-in-JSON text, strictly.
pub fn from_str(json: &str) -> Result<Record> {
    serde_json::from_str(json).map_err(|e| json_error(json, 1, &e))
}

/// Reads one record from MARC-in-JSON bytes, strictly.
pub fn from_slice(json: &[u8]) -> Result<Record> {
    serde_json::from_slice(json).map_err(|e| json_error(&String::from_utf8_lossy(json), 1, &e))
}

/// Reads one record from a JSON value (e.g. SRS `parsedRecord.content`), strictly.
pub fn from_value(json: &serde_json::Value) -> Result<Record> {
    Record::deserialize(json).map_err(|e| Error::Malformed {
        format: Format::Json,
        record: 1,
        offset: 0,
        problem: Problem::Json(e.to_string()),
    })
}

/// Reads a JSON array of records (pymarc's `batch.json`), strictly; an error
/// names the record it is in.
pub fn from_str_array(json: &str) -> Result<Vec<Record>> {
    let count = Cell::new(0);
    let mut deserializer = serde_json::Deserializer::from_str(json);
    let records = ArraySeed { count: &count }
        .deserialize(&mut deserializer)
        .and_then(|records| deserializer.end().map(|()| records));
    records.map_err(|e| json_error(json, count.get().max(1), &e))
}

fn json_error(json: &str, record: u64, e: &serde_json::Error) -> Error {
    // serde_json reports 1-based line and column (in bytes); turn them into an offset.
    let line_start: usize =
        json.split_inclusive('\n').take(e.line().saturating_sub(1)).map(str::len).sum();
    let offset = (line_start + e.column().saturating_sub(1)).min(json.len());
    Error::Malformed {
        format: Format::Json,
        record,
        offset: offset as u64,
        problem: Problem::Json(e.to_string()),
    }
}

impl Serialize for Record {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("leader", self.leader().as_str())?;
        map.serialize_entry("fields", &FieldsOut(self.fields()))?;
        map.end()
    }
}

struct FieldsOut<'a>(&'a [Field]);

impl Serialize for FieldsOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for field in self.0 {
            seq.serialize_element(&FieldOut(field))?;
        }
        seq.end()
    }
}

struct FieldOut<'a>(&'a Field);

impl Serialize for FieldOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        match self.0.value() {
            Some(value) => map.serialize_entry(self.0.tag().as_str(), value)?,
            None => map.serialize_entry(self.0.tag().as_str(), &DataOut(self.0))?,
        }
        map.end()
    }
}

struct DataOut<'a>(&'a Field);

impl Serialize for DataOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        let [ind1, ind2] = self.0.raw_indicators();
        map.serialize_entry("ind1", &char::from(ind1))?;
        map.serialize_entry("ind2", &char::from(ind2))?;
        map.serialize_entry("subfields", &SubfieldsOut(self.0))?;
        map.end()
    }
}

struct SubfieldsOut<'a>(&'a Field);

impl Serialize for SubfieldsOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for subfield in self.0.subfields() {
            seq.serialize_element(&SubfieldOut(subfield.code, subfield.value))?;
        }
        seq.end()
    }
}

struct SubfieldOut<'a>(char, &'a str);

impl Serialize for SubfieldOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(&self.0, self.1)?;
        map.end()
    }
}

/// Strict: `leader` and `fields` are required, other keys rejected, and
/// every leader, tag, indicator, code and value checked.
impl<'de> Deserialize<'de> for Record {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(RecordVisitor)
    }
}

fn invalid<E: de::Error>(problem: Problem) -> E {
    E::custom(problem)
}

struct RecordVisitor;

impl<'de> Visitor<'de> for RecordVisitor {
    type Value = Record;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a MARC-in-JSON record {\"leader\": ..., \"fields\": [...]}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Record, A::Error> {
        let mut leader = None;
        let mut fields = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "leader" if leader.is_none() => {
                    let text = map.next_value::<std::borrow::Cow<'de, str>>()?;
                    let parsed = Leader::from_bytes(text.as_bytes());
                    leader = Some(parsed.ok_or_else(|| invalid(leader_problem(&text)))?);
                }
                "fields" if fields.is_none() => fields = Some(map.next_value::<FieldsIn>()?.0),
                "leader" | "fields" => {
                    return Err(de::Error::custom(format!("duplicate key {key:?}")));
                }
                other => return Err(de::Error::unknown_field(other, &["leader", "fields"])),
            }
        }
        let leader = leader.ok_or_else(|| de::Error::missing_field("leader"))?;
        let fields = fields.ok_or_else(|| de::Error::missing_field("fields"))?;
        Ok(Record::with_fields(leader, fields))
    }
}

fn leader_problem(text: &str) -> Problem {
    match text.char_indices().find(|&(_, c)| !u8::try_from(c).is_ok_and(is_printable)) {
        Some((position, c)) if text.chars().count() == 24 => {
            Problem::LeaderByte { position: text[..position].chars().count(), found: c.to_string() }
        }
        _ => Problem::LeaderLength(text.to_owned()),
    }
}

struct FieldsIn(Vec<Field>);

impl<'de> Deserialize<'de> for FieldsIn {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FieldsIn;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of fields")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FieldsIn, A::Error> {
                let mut fields = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
                while let Some(field) = seq.next_element::<FieldIn>()? {
                    fields.push(field.0);
                }
                Ok(FieldsIn(fields))
            }
        }
        deserializer.deserialize_seq(V)
    }
}

struct FieldIn(Field);

impl<'de> Deserialize<'de> for FieldIn {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FieldIn;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field {\"tag\": value}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FieldIn, A::Error> {
                let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? else {
                    return Err(de::Error::custom("a field object has no tag"));
                };
                let tag = Tag::from_bytes(key.as_bytes())
                    .ok_or_else(|| invalid(Problem::BadTag(key.to_string())))?;
                let field = if tag.is_control() {
                    let value = map.next_value::<String>().map_err(|_| {
                        invalid(Problem::FieldKind {
                            tag: tag.to_string(),
                            expected: "control field",
                            found: "data field (not a string)",
                        })
                    })?;
                    if let Some(found) = check_value(&value) {
                        return Err(invalid(Problem::BadCharacter { tag: tag.to_string(), found }));
                    }
                    Field::control_unchecked(tag, value)
                } else {
                    let (indicators, subfields) = map.next_value_seed(DataSeed { tag })?;
                    Field::data_unchecked(tag, indicators, subfields)
                };
                if map.next_key::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::custom(format!(
                        "field {tag}: a field object has more than one tag"
                    )));
                }
                Ok(FieldIn(field))
            }
        }
        deserializer.deserialize_map(V)
    }
}

/// A data field's `{"ind1", "ind2", "subfields"}`, as indicators and the
/// model's subfield buffer.
struct DataSeed {
    tag: Tag,
}

impl<'de> DeserializeSeed<'de> for DataSeed {
    type Value = ([u8; 2], String);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for DataSeed {
    type Value = ([u8; 2], String);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "data field {} as {{\"ind1\", \"ind2\", \"subfields\"}}", self.tag)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Err(invalid(Problem::FieldKind {
            tag: self.tag.to_string(),
            expected: "data field",
            found: "control field (a string)",
        }))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let tag = self.tag.to_string();
        let (mut ind1, mut ind2, mut subfields) = (None, None, None);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let slot = match key.as_ref() {
                "ind1" => &mut ind1,
                "ind2" => &mut ind2,
                "subfields" => {
                    if subfields.is_some() {
                        return Err(de::Error::custom(format!(
                            "field {tag}: duplicate key \"subfields\""
                        )));
                    }
                    subfields = Some(map.next_value_seed(SubfieldsSeed { tag: self.tag })?);
                    continue;
                }
                other => {
                    return Err(de::Error::unknown_field(other, &["ind1", "ind2", "subfields"]));
                }
            };
            if slot.is_some() {
                return Err(de::Error::custom(format!("field {tag}: duplicate key {key:?}")));
            }
            let found = map.next_value::<std::borrow::Cow<'de, str>>()?;
            match found.as_bytes() {
                [b] if is_printable(*b) => *slot = Some(*b),
                _ => {
                    return Err(invalid(Problem::BadIndicator {
                        tag: tag.clone(),
                        found: found.into_owned(),
                    }));
                }
            }
        }
        let ind1 = ind1.ok_or_else(|| de::Error::missing_field("ind1"))?;
        let ind2 = ind2.ok_or_else(|| de::Error::missing_field("ind2"))?;
        let subfields = subfields.ok_or_else(|| de::Error::missing_field("subfields"))?;
        Ok(([ind1, ind2], subfields))
    }
}

struct SubfieldsSeed {
    tag: Tag,
}

impl<'de> DeserializeSeed<'de> for SubfieldsSeed {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for SubfieldsSeed {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an array of subfields [{{\"code\": \"value\"}}] in field {}", self.tag)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<String, A::Error> {
        let mut buf = String::new();
        while let Some(()) = seq.next_element_seed(SubfieldSeed { tag: self.tag, buf: &mut buf })? {
        }
        Ok(buf)
    }
}

/// One `{"code": "value"}`, appended to the buffer.
struct SubfieldSeed<'b> {
    tag: Tag,
    buf: &'b mut String,
}

impl<'de> DeserializeSeed<'de> for SubfieldSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for SubfieldSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a subfield {{\"code\": \"value\"}} in field {}", self.tag)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let tag = self.tag.to_string();
        let Some(code) = map.next_key::<std::borrow::Cow<'de, str>>()? else {
            return Err(invalid(Problem::BadSubfieldCode { tag, found: String::new() }));
        };
        let code = match code.as_bytes() {
            [b] if is_code(*b) => char::from(*b),
            _ => return Err(invalid(Problem::BadSubfieldCode { tag, found: code.into_owned() })),
        };
        let value = map.next_value::<std::borrow::Cow<'de, str>>()?;
        if let Some(found) = check_value(&value) {
            return Err(invalid(Problem::BadCharacter { tag, found }));
        }
        if map.next_key::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(format!(
                "field {tag}: a subfield object has more than one code"
            )));
        }
        self.buf.push(char::from(DELIMITER));
        self.buf.push(code);
        self.buf.push_str(&value);
        Ok(())
    }
}

/// A JSON array of records, counting them so an error can name its record.
struct ArraySeed<'c> {
    count: &'c Cell<u64>,
}

impl<'de> DeserializeSeed<'de> for ArraySeed<'_> {
    type Value = Vec<Record>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<Record>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ArraySeed<'_> {
    type Value = Vec<Record>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of MARC-in-JSON records")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Record>, A::Error> {
        let mut records = Vec::new();
        loop {
            self.count.set(self.count.get() + 1);
            match seq.next_element::<Record>()? {
                Some(record) => records.push(record),
                None => {
                    self.count.set(self.count.get() - 1);
                    return Ok(records);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    fn check(json: &str, expect: Expect) {
        let out = match from_str(json) {
            Ok(record) => format!("{record}{}", to_string(&record)),
            Err(e) => e.to_string(),
        };
        expect.assert_eq(&out);
    }

    #[test]
    fn round_trip() {
        check(
            r#"{"leader":"00000nam a2200000 a 4500","fields":[{"001":"x"},{"245":{"subfields":[{"a":"T\u00e9"},{"b":""}],"ind2":"0","ind1":"1"}},{"FMT":{"ind1":" ","ind2":" ","subfields":[]}}]}"#,
            expect![[r#"
                00000nam a2200000 a 4500
                001 x
                245 10 $a Té $b 
                FMT   

                {"leader":"00000nam a2200000 a 4500","fields":[{"001":"x"},{"245":{"ind1":"1","ind2":"0","subfields":[{"a":"Té"},{"b":""}]}},{"FMT":{"ind1":" ","ind2":" ","subfields":[]}}]}"#]],
        );
    }

    #[test]
    fn errors() {
        let leader = r#""leader":"00000nam a2200000 a 4500""#;
        let cases = [
            r#"{"leader":"short","fields":[]}"#.to_owned(),
            format!(r#"{{{leader},"fields":[{{"24":"x"}}]}}"#),
            format!(r#"{{{leader},"fields":[{{"245":"x"}}]}}"#),
            format!(r#"{{{leader},"fields":[{{"001":{{"ind1":" "}}}}]}}"#),
            format!(
                r#"{{{leader},"fields":[{{"245":{{"ind1":"12","ind2":" ","subfields":[]}}}}]}}"#
            ),
            format!(
                r#"{{{leader},"fields":[{{"245":{{"ind1":"1","ind2":" ","subfields":[{{"ab":"x"}}]}}}}]}}"#
            ),
            format!(
                r#"{{{leader},"fields":[{{"245":{{"ind1":"1","ind2":" ","subfields":[{{"a":"x\u001f"}}]}}}}]}}"#
            ),
            format!(r#"{{{leader},"fields":[],"extra":1}}"#),
            format!(r#"{{{leader}}}"#),
            r#"{"leader":"00000nam a2200000 a 4500","#.to_owned(),
        ];
        let errors: Vec<String> =
            cases.iter().map(|c| from_str(c).unwrap_err().to_string()).collect();
        expect![[r#"
            [
                "MARC-in-JSON record 1, byte 16: leader \"short\" is not 24 characters long at line 1 column 17",
                "MARC-in-JSON record 1, byte 51: tag \"24\" is not three ASCII letters or digits at line 1 column 52",
                "MARC-in-JSON record 1, byte 56: invalid type: string \"x\", expected data field 245 as {\"ind1\", \"ind2\", \"subfields\"} at line 1 column 57",
                "MARC-in-JSON record 1, byte 53: field 001: a data field (not a string) with a control field tag at line 1 column 54",
                "MARC-in-JSON record 1, byte 65: field 245: indicator \"12\" is not one printable ASCII character or space at line 1 column 66",
                "MARC-in-JSON record 1, byte 94: field 245: subfield code \"ab\" is not one printable ASCII character at line 1 column 95",
                "MARC-in-JSON record 1, byte 104: field 245: character '\\u{1f}' is not allowed in MARC data at line 1 column 105",
                "MARC-in-JSON record 1, byte 55: unknown field `extra`, expected `leader` or `fields` at line 1 column 56",
                "MARC-in-JSON record 1, byte 36: missing field `fields` at line 1 column 37",
                "MARC-in-JSON record 1, byte 36: EOF while parsing a value at line 1 column 37",
            ]
        "#]]
        .assert_debug_eq(&errors);
        let array = format!(r#"[{{{leader},"fields":[]}}, {{{leader},"fields":[{{"1":"x"}}]}}]"#);
        expect![[r#"MARC-in-JSON record 2, byte 102: tag "1" is not three ASCII letters or digits at line 1 column 103"#]]
            .assert_eq(&from_str_array(&array).unwrap_err().to_string());
    }
}
