//! The record: a leader and fields in order. It owns field order and lookup
//! by tag; the codecs live in their own modules.

use std::fmt;

use crate::field::Field;
use crate::leader::Leader;

/// A MARC record: a leader and its fields, in the order they were read or
/// pushed. Every codec keeps that order, because FOLIO's MARC-in-JSON and
/// MARC 21 itself give it meaning (e.g. 880 linkage, repeated 650s).
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Record {
    leader: Leader,
    fields: Vec<Field>,
}

impl Record {
    /// An empty record with this leader.
    pub fn new(leader: Leader) -> Record {
        Record { leader, fields: Vec::new() }
    }

    /// A record with this leader and fields.
    pub fn with_fields(leader: Leader, fields: Vec<Field>) -> Record {
        Record { leader, fields }
    }

    /// The leader.
    pub fn leader(&self) -> &Leader {
        &self.leader
    }

    /// The leader, to change positions such as 05 (record status).
    pub fn leader_mut(&mut self) -> &mut Leader {
        &mut self.leader
    }

    /// All fields in order.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// All fields, to insert, remove, reorder or edit them. Each field keeps
    /// its own invariants, so any sequence of fields is a valid record.
    pub fn fields_mut(&mut self) -> &mut Vec<Field> {
        &mut self.fields
    }

    /// Appends a field.
    pub fn push(&mut self, field: Field) {
        self.fields.push(field);
    }

    /// The first field with this tag.
    pub fn field(&self, tag: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.tag() == tag)
    }

    /// The first field with this tag, to edit it.
    pub fn field_mut(&mut self, tag: &str) -> Option<&mut Field> {
        self.fields.iter_mut().find(|f| f.tag() == tag)
    }

    /// Every field with this tag, in order.
    pub fn fields_with_tag<'r>(&'r self, tag: &'r str) -> impl Iterator<Item = &'r Field> + 'r {
        self.fields.iter().filter(move |f| f.tag() == tag)
    }

    /// The value of the first control field with this tag (e.g. `"001"`).
    pub fn control_value(&self, tag: &str) -> Option<&str> {
        self.field(tag).and_then(Field::value)
    }

    /// Iterates over the fields in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Field> {
        self.fields.iter()
    }

    /// Splits the record into its leader and fields.
    pub fn into_parts(self) -> (Leader, Vec<Field>) {
        (self.leader, self.fields)
    }
}

impl<'r> IntoIterator for &'r Record {
    type Item = &'r Field;
    type IntoIter = std::slice::Iter<'r, Field>;

    fn into_iter(self) -> Self::IntoIter {
        self.fields.iter()
    }
}

/// The line format of `yaz-marcdump -o line`: the leader, then one line per
/// field (`001 value`, `245 10 $a Title $c Author`), then an empty line.
/// Meant for people and for comparing with YAZ; it cannot be read back
/// (a `$` or trailing space in the data is ambiguous).
impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.leader)?;
        for field in &self.fields {
            match field.value() {
                Some(value) => writeln!(f, "{} {value}", field.tag())?,
                None => {
                    write!(f, "{} {}{}", field.tag(), field.ind1(), field.ind2())?;
                    for s in field.subfields() {
                        write!(f, " ${} {}", s.code, s.value)?;
                    }
                    writeln!(f)?;
                }
            }
        }
        writeln!(f)
    }
}

impl fmt::Debug for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Record")
            .field("leader", &self.leader)
            .field("fields", &self.fields)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::field::Tag;

    #[test]
    fn lookup_and_line_format() {
        let mut record = Record::new(Leader::DEFAULT);
        record.push(Field::control(Tag::new("001").unwrap(), "in001").unwrap());
        for title in ["One", "Two"] {
            record.push(Field::data(Tag::new("650").unwrap(), ' ', '0', [('a', title)]).unwrap());
        }
        assert_eq!(record.control_value("001"), Some("in001"));
        assert_eq!(record.field("650").and_then(|f| f.subfield('a')), Some("One"));
        assert_eq!(record.fields_with_tag("650").count(), 2);
        assert!(record.field("245").is_none());
        expect![[r#"
            00000nam a2200000 a 4500
            001 in001
            650  0 $a One
            650  0 $a Two

        "#]]
        .assert_eq(&record.to_string());
    }
}
