//! FOLIO's mapping-rule format, typed: what `GET /mapping-rules/marc-bib` answers and a
//! PUT sends. A rule set maps each MARC tag (`"245"`, and `"LDR"` for the leader) to
//! its rules; a rule either fills one target of the record from the field, or groups
//! several targets into one object per field (`entity`: a contributor, a note, an
//! identifier).
//!
//! The model keeps every property FOLIO's rule files use, so a rule set read and
//! written again is the same JSON, and the import engine reads one typed form.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A rule set: tag → rules, in tag order.
pub type Rules = BTreeMap<String, Vec<FieldRule>>;

/// The rules of one occurrence of a tag.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant, reason = "a rule set has a few hundred rules, read once")]
pub enum FieldRule {
    /// Several targets that together make one object (`contributors`, `notes`, ...).
    Entity(EntityRule),
    /// One target.
    Single(Mapping),
}

/// Read by whether the object has `entity`, so that an error names the property at
/// fault rather than "no variant matched".
impl<'de> Deserialize<'de> for FieldRule {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = Value::deserialize(deserializer)?;
        let rule = if value.get("entity").is_some() {
            serde_path_to_error::deserialize(value).map(FieldRule::Entity)
        } else {
            serde_path_to_error::deserialize(value).map(FieldRule::Single)
        };
        rule.map_err(|e| match e.path().to_string().as_str() {
            "." => D::Error::custom(e.inner()),
            path => D::Error::custom(format!("{path}: {}", e.inner())),
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntityRule {
    /// One object per occurrence of the mapped subfield (each `020 $a` its own ISBN),
    /// rather than one per field.
    #[serde(default, skip_serializing_if = "is_false")]
    pub entity_per_repeated_subfield: bool,
    /// Applies only to fields with these indicators (`*` matches any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indicators: Option<Indicators>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub ignore_subsequent_fields: bool,
    /// Keeps a value's trailing `\\` (an LCCN's padding) rather than trimming it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub keep_trailing_backslash: bool,
    pub entity: Vec<Mapping>,
}

/// Fills one target (`title`, `identifiers.value`) from a field's subfields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Mapping {
    /// A property path of the record: `title`, `notes.note`.
    pub target: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The subfield codes read; empty for control fields and constant values.
    #[serde(default)]
    pub subfield: Vec<String>,
    /// The field is mapped only if it has one of these subfields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_subfield: Vec<String>,
    /// The field is mapped only if it has none of these subfields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclusive_subfield: Vec<String>,
    /// Rules run once over the subfields joined, rather than over each.
    #[serde(default, skip_serializing_if = "is_false")]
    pub apply_rules_on_concatenated_data: bool,
    /// How subfields are joined (a space when none is given).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sub_field_delimiter: Vec<Delimiter>,
    /// Splits a subfield's value into several (`041 $a` "engfre" → "eng", "fre").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_field_split: Option<Split>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indicators: Option<Indicators>,
    /// Only the first field with this tag is mapped.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ignore_subsequent_fields: bool,
    /// Only the first of the listed subfields present is read.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ignore_subsequent_subfields: bool,
    /// All fields of the tag fill one object (`dates`), not one each.
    #[serde(default, skip_serializing_if = "is_false")]
    pub create_single_object: bool,
    /// Where the value goes when the rules give none (a contributor type not in the
    /// tenant's list becomes free text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternative_mapping: Option<Box<Mapping>>,
    /// `880`: the field is mapped as the tag its `$6` names.
    #[serde(default, skip_serializing_if = "is_false")]
    pub field_replacement_by_3_digits: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub field_replacement_rule: Vec<Replacement>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<Rule>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Indicators {
    pub ind1: String,
    pub ind2: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Delimiter {
    pub value: String,
    pub subfields: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Split {
    /// `split_every`.
    #[serde(rename = "type")]
    pub kind: String,
    pub value: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Replacement {
    pub source_digits: String,
    pub target_field: String,
}

/// Conditions that turn the read value into the target's value, or a constant.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// A constant for the target, used when the conditions hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// Functions applied in turn (`"trim_period, trim"`), with their parameter.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// Comma-separated function names.
    #[serde(rename = "type")]
    pub functions: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameter: Option<Value>,
    /// When set, the condition holds only if the functions' result equals it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The function reads the leader rather than the field.
    #[serde(rename = "LDR", default, skip_serializing_if = "is_false")]
    pub leader: bool,
}

impl Condition {
    /// The function names, in order.
    pub fn function_names(&self) -> impl Iterator<Item = &str> {
        self.functions.split(',').map(str::trim).filter(|f| !f.is_empty())
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Reads a rule set, naming where it breaks the format: `245[1].target: missing field`.
pub fn parse(json: &[u8]) -> Result<Rules, ParseError> {
    let value: Value = serde_json::from_slice(json).map_err(|_| ParseError::NotJson)?;
    if !value.is_object() {
        return Err(ParseError::NotJson);
    }
    serde_path_to_error::deserialize(value).map_err(|e| ParseError::Invalid {
        path: e.path().to_string(),
        message: e.inner().to_string(),
    })
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// FOLIO's words for a body that is not a JSON object.
    #[error("Can not update rules in non-JSON format")]
    NotJson,
    #[error("Invalid mapping rule at {path}: {message}")]
    Invalid { path: String, message: String },
}
