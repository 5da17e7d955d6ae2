//! Quire's default rule sets, in FOLIO's rule format: what a tenant maps MARC with until
//! it PUTs its own, and what `PUT /mapping-rules/{type}/restore` brings back. They map
//! the fields FOLIO's default rules map, to the same targets, with the same reference
//! record names, so records imported into Quire match those imported into FOLIO.
//!
//! Written as code over a few builders rather than kept as a large JSON file: the
//! regular parts (the 5XX notes, the subject fields and their thesauri) are tables here.

mod authority;
mod bib;
mod holdings;

use serde_json::{Value, json};

use crate::rules::{Condition, Delimiter, EntityRule, FieldRule, Indicators, Mapping, Rule, Rules};

pub(crate) use authority::authority;
pub(crate) use bib::bib;
pub(crate) use holdings::holdings;

/// A mapping of `subfields` (codes run together: `"anpb"`) to `target`.
fn to(target: &str, subfields: &str) -> Mapping {
    Mapping {
        target: target.to_string(),
        subfield: subfields.chars().map(String::from).collect(),
        ..Mapping::default()
    }
}

impl Mapping {
    /// Rules run once over the subfields joined.
    fn joined(mut self) -> Mapping {
        self.apply_rules_on_concatenated_data = true;
        self
    }

    /// Applies `functions` (comma-separated) with no parameter.
    fn with(self, functions: &str) -> Mapping {
        self.condition(functions, None)
    }

    fn with_param(self, functions: &str, parameter: Value) -> Mapping {
        self.condition(functions, Some(parameter))
    }

    fn condition(mut self, functions: &str, parameter: Option<Value>) -> Mapping {
        let condition =
            Condition { functions: functions.to_string(), parameter, value: None, leader: false };
        self.rules = Some(vec![Rule { conditions: vec![condition], ..Rule::default() }]);
        self
    }

    /// The target takes `value` whenever the field is present.
    fn constant(mut self, value: &str) -> Mapping {
        self.rules = Some(vec![Rule { value: Some(value.to_string()), ..Rule::default() }]);
        self
    }

    /// Joins `subfields` with `value`.
    fn delimited(mut self, value: &str, subfields: &str) -> Mapping {
        self.sub_field_delimiter.push(Delimiter {
            value: value.to_string(),
            subfields: subfields.chars().map(String::from).collect(),
        });
        self
    }
}

/// One object per field, from several targets.
fn entity(mappings: Vec<Mapping>) -> EntityRule {
    EntityRule { entity: mappings, ..EntityRule::default() }
}

impl EntityRule {
    /// One object per occurrence of the mapped subfield.
    fn per_subfield(mut self) -> EntityRule {
        self.entity_per_repeated_subfield = true;
        self
    }

    /// Only for fields with these indicators (`*`: any).
    fn when(mut self, ind1: &str, ind2: &str) -> EntityRule {
        self.indicators = Some(Indicators { ind1: ind1.to_string(), ind2: ind2.to_string() });
        self
    }
}

/// Collects rules by tag, in the order added.
#[derive(Default)]
struct Builder(Rules);

impl Builder {
    fn single(&mut self, tag: &str, mapping: Mapping) -> &mut Builder {
        self.0.entry(tag.to_string()).or_default().push(FieldRule::Single(mapping));
        self
    }

    fn entity(&mut self, tag: &str, rule: EntityRule) -> &mut Builder {
        self.0.entry(tag.to_string()).or_default().push(FieldRule::Entity(rule));
        self
    }
}

/// `{"name": name}`, the parameter of the lookups by reference record name.
fn name(name: &str) -> Value {
    json!({ "name": name })
}
