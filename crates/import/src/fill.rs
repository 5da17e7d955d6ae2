//! A mapping profile's rules applied to a record: what FOLIO's mapper does with an action
//! profile's mapping (`holdings.permanentLocationId` from `949$l`, `item.barcode` from
//! `949$i`, `item.status.name` `"Available"`).
//!
//! A rule's expression is read from the incoming MARC record; a rule whose target is
//! reference data turns the value into an id: by the profile's accepted values (FOLIO's
//! web client lists them, `Main Library (KU/CC/DI/M)`) when it has them, else by the
//! tenant's records of the kind the target names. The value may be the whole label, the
//! code in its last brackets, or the name, in any case, as FOLIO accepts. A value that
//! names nothing fails the record with a message saying so: FOLIO would leave the field
//! empty and fail later, less clearly.
//!
//! Items are written in FOLIO's storage shape: the business paths profiles use
//! (`item.materialType.id`, `item.permanentLoanType.id`) become the storage properties
//! (`materialTypeId`, `permanentLoanTypeId`).

use std::collections::HashMap;

use serde_json::{Map, Value};
use uuid::Uuid;

use inventory::RefKind;
use profiles::{BooleanFieldAction, Expression, FieldRule, RuleValue, Term};

/// The reference records a profile's targets may name, read once per job: by kind, each
/// record's id, name and code.
#[derive(Default)]
pub(crate) struct Choices {
    by_kind: HashMap<RefKind, Vec<Choice>>,
}

#[derive(Clone, Debug)]
struct Choice {
    id: String,
    name: String,
    code: Option<String>,
}

impl Choices {
    /// The kinds the targets of `rules` name, read from the tenant.
    pub(crate) fn read(reader: &store::Reader<'_>, rules: &[&FieldRule]) -> crate::Result<Choices> {
        let mut choices = Choices::default();
        for rule in rules {
            let Some(kind) = kind_of(&rule.path) else { continue };
            if choices.by_kind.contains_key(&kind) {
                continue;
            }
            let page = store::Page { offset: 0, limit: 100_000 };
            let (bodies, _) = inventory::list_reference_json(reader, kind, None, page)?;
            let records = bodies
                .iter()
                .filter_map(|b| serde_json::from_str::<Value>(b).ok())
                .filter_map(|v| {
                    Some(Choice {
                        id: v["id"].as_str()?.to_string(),
                        name: v["name"].as_str()?.to_string(),
                        code: v["code"].as_str().map(str::to_string),
                    })
                })
                .collect();
            choices.by_kind.insert(kind, records);
        }
        Ok(choices)
    }
}

/// The reference kind a target path names, by FOLIO's property names.
fn kind_of(path: &str) -> Option<RefKind> {
    let last = path.trim_end_matches("[]").rsplit('.').find(|p| *p != "id")?;
    Some(match last {
        "permanentLocationId"
        | "temporaryLocationId"
        | "permanentLocation"
        | "temporaryLocation" => RefKind::Location,
        "materialType" | "materialTypeId" => RefKind::MaterialType,
        "permanentLoanType"
        | "temporaryLoanType"
        | "permanentLoanTypeId"
        | "temporaryLoanTypeId" => RefKind::LoanType,
        "callNumberTypeId" | "itemLevelCallNumberTypeId" => RefKind::CallNumberType,
        "holdingsTypeId" => RefKind::HoldingsType,
        "statusId" => RefKind::InstanceStatus,
        "statisticalCodeIds" | "statisticalCodeId" => RefKind::StatisticalCode,
        "illPolicyId" => RefKind::IllPolicy,
        "itemDamagedStatusId" => RefKind::ItemDamagedStatus,
        "natureOfContentTermIds" => RefKind::NatureOfContentTerm,
        _ => return None,
    })
}

/// FOLIO's business paths of an item and the storage properties Quire keeps.
const ITEM_PATHS: &[(&str, &str)] = &[
    ("materialType.id", "materialTypeId"),
    ("permanentLoanType.id", "permanentLoanTypeId"),
    ("temporaryLoanType.id", "temporaryLoanTypeId"),
    ("permanentLocation.id", "permanentLocationId"),
    ("temporaryLocation.id", "temporaryLocationId"),
];

/// Applies `rules` (paths under `prefix`: `holdings`, `item`, `instance`) to `target`,
/// reading values from `marc`. Fails with the first rule whose value names nothing, or
/// a required rule without a value.
pub(crate) fn apply(
    rules: &[FieldRule],
    prefix: &str,
    marc: &marc::Record,
    choices: &Choices,
    target: &mut Map<String, Value>,
) -> Result<(), String> {
    for rule in rules {
        let Some(path) = rule.path.strip_prefix(prefix).and_then(|p| p.strip_prefix('.')) else {
            continue;
        };
        let path = ITEM_PATHS.iter().find(|(from, _)| *from == path).map_or(path, |(_, to)| to);
        match &rule.value {
            RuleValue::Empty => {}
            RuleValue::Boolean(action) => match action {
                BooleanFieldAction::AllTrue => set(target, path, Value::Bool(true)),
                BooleanFieldAction::AllFalse => set(target, path, Value::Bool(false)),
                BooleanFieldAction::AsIs | BooleanFieldAction::Ignore => {}
            },
            RuleValue::Expression(expression) => match evaluate(expression, marc) {
                Evaluated::Remove => remove(target, path),
                Evaluated::Nothing if rule.required => {
                    return Err(format!(
                        "{} is required, but the record gives no value for it",
                        rule.name
                    ));
                }
                Evaluated::Nothing => {}
                Evaluated::Value(value) => {
                    let value = resolve(rule, choices, &value)?;
                    if path.ends_with("[]") {
                        push(target, path.trim_end_matches("[]"), value);
                    } else {
                        set(target, path, value);
                    }
                }
            },
            RuleValue::Repeatable { entries, .. } => {
                // On a new record the action comes to the same: the entries are the list.
                let array = path.trim_end_matches("[]");
                let mut values = Vec::new();
                for entry in entries {
                    let mut object = Map::new();
                    let mut scalar = None;
                    for part in &entry.rules {
                        let RuleValue::Expression(expression) = &part.value else { continue };
                        let Evaluated::Value(value) = evaluate(expression, marc) else { continue };
                        let value = resolve(part, choices, &value)?;
                        match part.path.rsplit_once("[].") {
                            Some((_, key)) => set(&mut object, key, value),
                            None => scalar = Some(value),
                        }
                    }
                    if let Some(value) = scalar {
                        values.push(value);
                    } else if !object.is_empty() {
                        values.push(Value::Object(object));
                    }
                }
                target.insert(array.to_string(), Value::Array(values));
            }
        }
    }
    Ok(())
}

enum Evaluated {
    Value(String),
    Nothing,
    Remove,
}

/// The first alternative that gives a value; its terms' values joined.
fn evaluate(expression: &Expression, marc: &marc::Record) -> Evaluated {
    for alternative in &expression.alternatives {
        let mut out = String::new();
        for term in alternative {
            match term {
                Term::Remove => return Evaluated::Remove,
                Term::Literal(text) => out.push_str(text),
                Term::Today => out.push_str(&chrono::Utc::now().format("%Y-%m-%d").to_string()),
                Term::Field { tag, subfield: None } => {
                    if let Some(value) = marc.control_value(tag) {
                        out.push_str(value);
                    } else if let Some(field) = marc.field(tag) {
                        let values: Vec<&str> = field.subfields().map(|s| s.value).collect();
                        out.push_str(&values.join(" "));
                    }
                }
                Term::Field { tag, subfield: Some(code) } => {
                    let values: Vec<&str> =
                        marc.fields_with_tag(tag).flat_map(|f| f.subfield_values(*code)).collect();
                    out.push_str(&values.join(" "));
                }
                Term::Positions { tag, start, end } => {
                    let whole = if tag == "LDR" {
                        Some(marc.leader().as_str().to_string())
                    } else {
                        marc.control_value(tag).map(str::to_string)
                    };
                    if let Some(whole) = whole {
                        let part: String = whole
                            .chars()
                            .skip(usize::from(*start))
                            .take(usize::from(end.saturating_sub(*start)) + 1)
                            .collect();
                        out.push_str(&part);
                    }
                }
                Term::Unrecognised(_) => {}
            }
        }
        let value = out.trim();
        if !value.is_empty() {
            return Evaluated::Value(value.to_string());
        }
    }
    Evaluated::Nothing
}

/// A rule's value as its target takes it: an id when the target is reference data.
fn resolve(rule: &FieldRule, choices: &Choices, value: &str) -> Result<Value, String> {
    let listed: Vec<Choice>;
    let candidates: &[Choice] = if !rule.accepted_values.is_empty() {
        listed = rule
            .accepted_values
            .iter()
            .map(|(id, label)| {
                let (name, code) = split_label(label);
                Choice { id: id.clone(), name: name.to_string(), code: code.map(str::to_string) }
            })
            .collect();
        &listed
    } else if let Some(kind) = kind_of(&rule.path) {
        choices.by_kind.get(&kind).map_or(&[], Vec::as_slice)
    } else {
        return Ok(Value::String(value.to_string()));
    };
    // A value that is an id already stands.
    if Uuid::parse_str(value).is_ok() && candidates.iter().any(|c| c.id == value) {
        return Ok(Value::String(value.to_string()));
    }
    let (name, code) = split_label(value);
    let same = |a: &str, b: &str| a.trim().eq_ignore_ascii_case(b.trim());
    candidates
        .iter()
        .find(|c| {
            same(&c.name, value)
                || c.code.as_deref().is_some_and(|k| same(k, value))
                || (code.is_some() && c.code.as_deref() == code && same(&c.name, name))
        })
        .map(|c| Value::String(c.id.clone()))
        .ok_or_else(|| format!("{}: nothing matches '{value}'", rule.name))
}

/// `Main Library (KU/CC/DI/M)` as its name and the code in its last brackets.
fn split_label(label: &str) -> (&str, Option<&str>) {
    let label = label.trim();
    match (label.rfind('('), label.ends_with(')')) {
        (Some(open), true) => (label[..open].trim_end(), Some(&label[open + 1..label.len() - 1])),
        _ => (label, None),
    }
}

/// Sets a dotted path (`status.name`), making the objects on the way.
fn set(target: &mut Map<String, Value>, path: &str, value: Value) {
    match path.split_once('.') {
        None => {
            target.insert(path.to_string(), value);
        }
        Some((head, rest)) => {
            let slot = target.entry(head.to_string()).or_insert_with(|| Value::Object(Map::new()));
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            if let Value::Object(inner) = slot {
                set(inner, rest, value);
            }
        }
    }
}

fn push(target: &mut Map<String, Value>, path: &str, value: Value) {
    let slot = target.entry(path.to_string()).or_insert_with(|| Value::Array(Vec::new()));
    match slot {
        Value::Array(items) => items.push(value),
        other => *other = Value::Array(vec![value]),
    }
}

fn remove(target: &mut Map<String, Value>, path: &str) {
    match path.split_once('.') {
        None => {
            target.remove(path.trim_end_matches("[]"));
        }
        Some((head, rest)) => {
            if let Some(Value::Object(inner)) = target.get_mut(head) {
                remove(inner, rest);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(path: &str, value: &str, accepted: &[(&str, &str)]) -> FieldRule {
        FieldRule {
            name: path.rsplit('.').next().unwrap().to_string(),
            path: path.to_string(),
            required: false,
            value: Expression::parse(value).map_or(RuleValue::Empty, RuleValue::Expression),
            accepted_values: accepted.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect(),
        }
    }

    #[test]
    fn values_become_ids_by_label_code_or_name() {
        let t = |t: &str| marc::Tag::new(t).unwrap();
        let mut record = marc::Record::new(marc::Leader::new("00000nam a2200000 a 4500").unwrap());
        record.push(
            marc::Field::data(
                t("949"),
                ' ',
                ' ',
                [('l', "kU/cc/di/m"), ('a', "QA76"), ('i', "3901")],
            )
            .unwrap(),
        );
        let accepted = [("L1", "Main Library (KU/CC/DI/M)"), ("L2", "Annex (KU/CC/DI/A)")];
        let rules = vec![
            rule("holdings.permanentLocationId", "949$l", &accepted),
            rule("holdings.callNumber", "949$a \" \" \"x\"", &[]),
            rule("item.status.name", "\"Available\"", &[]),
            rule("holdings.copyNumber", "949$z; else \"c.1\"", &[]),
        ];
        let mut holdings = Map::new();
        apply(&rules, "holdings", &record, &Choices::default(), &mut holdings).unwrap();
        assert_eq!(holdings["permanentLocationId"], "L1");
        assert_eq!(holdings["callNumber"], "QA76 x");
        assert_eq!(holdings["copyNumber"], "c.1");
        assert!(!holdings.contains_key("status"));
        let mut item = Map::new();
        apply(&rules, "item", &record, &Choices::default(), &mut item).unwrap();
        assert_eq!(item["status"]["name"], "Available");

        let by_name = vec![rule("holdings.permanentLocationId", "\"annex\"", &accepted)];
        apply(&by_name, "holdings", &record, &Choices::default(), &mut holdings).unwrap();
        assert_eq!(holdings["permanentLocationId"], "L2");
        let unknown = vec![rule("holdings.permanentLocationId", "\"Attic\"", &accepted)];
        let error = apply(&unknown, "holdings", &record, &Choices::default(), &mut holdings);
        assert_eq!(error.unwrap_err(), "permanentLocationId: nothing matches 'Attic'");
    }
}
