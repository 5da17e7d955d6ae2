//! The rules of a content update (FOLIO's `bulkOperationRuleCollection`): which option
//! of a record each changes and how, checked before they are kept, and applied to a
//! record's JSON as stored. A rule that cannot apply to one record (a status change
//! FOLIO does not allow from that record's status) is that record's error.

use inventory::RefKind;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use store::Reader;
use uuid::Uuid;

use crate::operation::EntityType;
use crate::{Result, invalid};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleCollection {
    pub bulk_operation_rules: Vec<Rule>,
    #[serde(default)]
    pub total_records: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bulk_operation_id: Option<Uuid>,
    #[serde(rename = "rule_details")]
    pub rule_details: RuleDetails,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleDetails {
    pub option: String,
    pub actions: Vec<Action>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tenants: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Action {
    #[serde(rename = "type")]
    pub action_type: ActionType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<Parameter>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tenants: Vec<String>,
    #[serde(default, rename = "updated_tenants", skip_serializing_if = "Vec::is_empty")]
    pub updated_tenants: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parameter {
    pub key: String,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default, rename = "onlyForActions", skip_serializing_if = "Option::is_none")]
    pub only_for_actions: Option<Vec<String>>,
}

/// FOLIO's `UpdateActionType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ActionType {
    AddToExisting,
    ClearField,
    ReplaceWith,
    FindAndReplace,
    FindAndRemoveThese,
    RemoveAll,
    RemoveSome,
    SetToTrue,
    SetToFalse,
    SetToTrueIncludingItems,
    SetToFalseIncludingItems,
    MarkAsStaffOnly,
    RemoveMarkAsStaffOnly,
    ChangeType,
    Duplicate,
}

impl Action {
    fn parameter(&self, key: &str) -> Option<&str> {
        self.parameters.iter().find(|p| p.key == key).and_then(|p| p.value.as_deref())
    }

    fn updated(&self, option: &str) -> Result<&str> {
        match self.updated.as_deref() {
            Some(value) if !value.trim().is_empty() => Ok(value),
            _ => Err(invalid(format!("{option}: {:?} needs a value (updated)", self.action_type))),
        }
    }

    fn initial(&self, option: &str) -> Result<&str> {
        match self.initial.as_deref() {
            Some(value) if !value.is_empty() => Ok(value),
            _ => Err(invalid(format!(
                "{option}: {:?} needs a value to find (initial)",
                self.action_type
            ))),
        }
    }
}

/// The item statuses a bulk edit may set, and from which statuses (FOLIO's default
/// `allowed_item_statuses`): an item checked out, in transit, paged or lost keeps its
/// status until circulation changes it.
const ITEM_STATUS_TARGETS: &[(&str, &[&str])] = &[
    (
        "Available",
        &[
            "Missing",
            "Withdrawn",
            "In process",
            "In process (non-requestable)",
            "Intellectual item",
            "Long missing",
            "Restricted",
            "Unavailable",
            "Unknown",
        ],
    ),
    (
        "Missing",
        &[
            "Available",
            "Withdrawn",
            "In process (non-requestable)",
            "Intellectual item",
            "Long missing",
            "Restricted",
            "Unavailable",
            "Unknown",
        ],
    ),
    (
        "Withdrawn",
        &[
            "Available",
            "Missing",
            "In process (non-requestable)",
            "Intellectual item",
            "Long missing",
            "Restricted",
            "Unavailable",
            "Unknown",
        ],
    ),
    (
        "In process (non-requestable)",
        &[
            "Available",
            "Missing",
            "Withdrawn",
            "Intellectual item",
            "Long missing",
            "Restricted",
            "Unavailable",
            "Unknown",
        ],
    ),
    (
        "Intellectual item",
        &[
            "Available",
            "Missing",
            "Withdrawn",
            "In process (non-requestable)",
            "Long missing",
            "Restricted",
            "Unavailable",
            "Unknown",
        ],
    ),
    (
        "Long missing",
        &[
            "Available",
            "Missing",
            "Withdrawn",
            "In process (non-requestable)",
            "Intellectual item",
            "Restricted",
            "Unavailable",
            "Unknown",
        ],
    ),
    (
        "Restricted",
        &[
            "Available",
            "Missing",
            "Withdrawn",
            "In process (non-requestable)",
            "Intellectual item",
            "Long missing",
            "Unavailable",
            "Unknown",
        ],
    ),
    (
        "Unavailable",
        &[
            "Available",
            "Missing",
            "Withdrawn",
            "In process (non-requestable)",
            "Intellectual item",
            "Long missing",
            "Restricted",
            "Unknown",
        ],
    ),
    (
        "Unknown",
        &[
            "Available",
            "Missing",
            "Withdrawn",
            "In process (non-requestable)",
            "Intellectual item",
            "Long missing",
            "Restricted",
            "Unavailable",
        ],
    ),
    ("In process", &["Missing", "Withdrawn"]),
];

const SETTABLE_STATUSES: &[&str] = &[
    "Available",
    "Missing",
    "Withdrawn",
    "In process",
    "In process (non-requestable)",
    "Intellectual item",
    "Long missing",
    "Restricted",
    "Unavailable",
    "Unknown",
];

fn status_allowed(from: &str, to: &str) -> bool {
    from == to
        || ITEM_STATUS_TARGETS
            .iter()
            .any(|(status, targets)| *status == from && targets.contains(&to))
}

/// The options each record type offers, with the actions each takes.
fn actions_of(entity: EntityType, option: &str) -> Option<&'static [ActionType]> {
    use ActionType::*;
    const NOTE: &[ActionType] = &[
        AddToExisting,
        RemoveAll,
        FindAndRemoveThese,
        FindAndReplace,
        MarkAsStaffOnly,
        RemoveMarkAsStaffOnly,
        ChangeType,
        Duplicate,
    ];
    const ADMIN_NOTE: &[ActionType] =
        &[AddToExisting, RemoveAll, FindAndRemoveThese, FindAndReplace, ChangeType];
    const ACCESS: &[ActionType] = &[ClearField, FindAndReplace, FindAndRemoveThese, ReplaceWith];
    const CODES: &[ActionType] = &[AddToExisting, RemoveSome, RemoveAll];
    const FLAG: &[ActionType] = &[SetToTrue, SetToFalse];
    let electronic = option.starts_with("ELECTRONIC_ACCESS_")
        && ELECTRONIC_ACCESS_FIELDS.iter().any(|(o, _)| *o == option);
    Some(match (entity, option) {
        (EntityType::User, "EMAIL_ADDRESS") => &[FindAndReplace],
        (EntityType::User, "EXPIRATION_DATE" | "PATRON_GROUP") => &[ReplaceWith],
        (EntityType::Item, "STATUS" | "MATERIAL_TYPE" | "PERMANENT_LOAN_TYPE") => &[ReplaceWith],
        (EntityType::Item, "TEMPORARY_LOAN_TYPE" | "PERMANENT_LOCATION" | "TEMPORARY_LOCATION") => {
            &[ReplaceWith, ClearField]
        }
        (EntityType::Holdings, "PERMANENT_LOCATION") => &[ReplaceWith],
        (EntityType::Holdings, "TEMPORARY_LOCATION") => &[ReplaceWith, ClearField],
        (EntityType::Item | EntityType::Instance, "SUPPRESS_FROM_DISCOVERY") => FLAG,
        (EntityType::Holdings, "SUPPRESS_FROM_DISCOVERY") => {
            &[SetToTrue, SetToFalse, SetToTrueIncludingItems, SetToFalseIncludingItems]
        }
        (EntityType::Instance, "STAFF_SUPPRESS" | "SET_RECORDS_FOR_DELETE") => FLAG,
        (EntityType::Item, "ITEM_NOTE" | "CHECK_IN_NOTE" | "CHECK_OUT_NOTE") => NOTE,
        (EntityType::Holdings, "HOLDINGS_NOTE") => NOTE,
        (EntityType::Instance, "INSTANCE_NOTE") => NOTE,
        (EntityType::Item | EntityType::Holdings | EntityType::Instance, "ADMINISTRATIVE_NOTE") => {
            ADMIN_NOTE
        }
        (EntityType::Item | EntityType::Holdings | EntityType::Instance, "STATISTICAL_CODE") => {
            CODES
        }
        (EntityType::Item | EntityType::Holdings | EntityType::Instance, _) if electronic => ACCESS,
        _ => return None,
    })
}

/// Each electronic access option and the field of an `electronicAccess` entry it edits.
const ELECTRONIC_ACCESS_FIELDS: &[(&str, &str)] = &[
    ("ELECTRONIC_ACCESS_URI", "uri"),
    ("ELECTRONIC_ACCESS_URL_RELATIONSHIP", "relationshipId"),
    ("ELECTRONIC_ACCESS_LINK_TEXT", "linkText"),
    ("ELECTRONIC_ACCESS_MATERIALS_SPECIFIED", "materialsSpecification"),
    ("ELECTRONIC_ACCESS_URL_PUBLIC_NOTE", "publicNote"),
];

/// Checks a content update before it is kept: every option is one the record type
/// offers, every action one the option takes with what it needs, and every record it
/// names (a location, a loan type, a patron group, a note type) exists.
pub(crate) fn check(r: &Reader<'_>, entity: EntityType, rules: &RuleCollection) -> Result<()> {
    if rules.bulk_operation_rules.is_empty() {
        return Err(invalid("Bulk operation rules are empty"));
    }
    for rule in &rules.bulk_operation_rules {
        let option = rule.rule_details.option.as_str();
        let Some(allowed) = actions_of(entity, option) else {
            return Err(invalid(format!(
                "Option {option} is not supported for entity type {}",
                entity.as_str()
            )));
        };
        if rule.rule_details.actions.is_empty() {
            return Err(invalid(format!("Option {option} has no action")));
        }
        for action in &rule.rule_details.actions {
            if !allowed.contains(&action.action_type) {
                return Err(invalid(format!(
                    "Combination {option} and {:?} isn't supported",
                    action.action_type
                )));
            }
            check_action(r, entity, option, action)?;
        }
    }
    Ok(())
}

fn check_action(r: &Reader<'_>, entity: EntityType, option: &str, action: &Action) -> Result<()> {
    use ActionType::*;
    let reference = |kind: RefKind, what: &str, value: &str| -> Result<()> {
        let exists = Uuid::parse_str(value.trim())
            .ok()
            .map(|id| inventory::reference_name(r, kind, id))
            .transpose()?
            .flatten()
            .is_some();
        if exists { Ok(()) } else { Err(invalid(format!("{what} was not found by id={value}"))) }
    };
    match (option, action.action_type) {
        ("STATUS", ReplaceWith) => {
            let status = action.updated(option)?;
            if !SETTABLE_STATUSES.contains(&status) {
                return Err(invalid(format!("New status value \"{status}\" is not allowed")));
            }
        }
        ("MATERIAL_TYPE", _) => {
            reference(RefKind::MaterialType, "Material type", action.updated(option)?)?
        }
        ("PERMANENT_LOAN_TYPE" | "TEMPORARY_LOAN_TYPE", ReplaceWith) => {
            reference(RefKind::LoanType, "Loan type", action.updated(option)?)?
        }
        ("PERMANENT_LOCATION" | "TEMPORARY_LOCATION", ReplaceWith) => {
            reference(RefKind::Location, "Location", action.updated(option)?)?
        }
        ("PATRON_GROUP", _) => {
            let value = action.updated(option)?;
            let found = match Uuid::parse_str(value.trim()) {
                Ok(id) => auth::get_group(r, id)?.is_some(),
                Err(_) => false,
            };
            if !found {
                return Err(invalid(format!("Patron group was not found by id={value}")));
            }
        }
        ("EXPIRATION_DATE", _) => {
            let value = action.updated(option)?;
            if parse_date(value).is_none() {
                return Err(invalid(format!("Invalid expiration date: {value}")));
            }
        }
        ("EMAIL_ADDRESS", _) => {
            action.initial(option)?;
            action.updated(option)?;
        }
        (_, AddToExisting) if option == "STATISTICAL_CODE" => {
            for id in split_ids(action.updated(option)?) {
                reference(RefKind::StatisticalCode, "Statistical code", id)?;
            }
        }
        (_, RemoveSome) => {
            action.updated(option)?;
        }
        (_, AddToExisting) => {
            action.updated(option)?;
            if let Some((kind, key)) = note_type_key(entity, option) {
                let id = action.parameter(key).ok_or_else(|| {
                    invalid(format!("{option}: ADD_TO_EXISTING needs the parameter {key}"))
                })?;
                reference(kind, "Note type", id)?;
            }
        }
        (_, FindAndReplace) => {
            action.initial(option)?;
        }
        (_, FindAndRemoveThese) => {
            action.initial(option)?;
        }
        (_, ChangeType) => {
            let target = action.updated(option)?;
            let named =
                ["ADMINISTRATIVE_NOTE", "CHECK_IN_NOTE", "CHECK_OUT_NOTE"].contains(&target);
            if !named {
                match note_type_key(entity, option)
                    .or_else(|| note_type_key(entity, note_option(entity)))
                {
                    Some((kind, _)) => reference(kind, "Note type", target)?,
                    None => return Err(invalid(format!("{option}: unknown note type {target}"))),
                }
            }
        }
        (_, ReplaceWith) if option == "ELECTRONIC_ACCESS_URL_RELATIONSHIP" => reference(
            RefKind::ElectronicAccessRelationship,
            "URL relationship",
            action.updated(option)?,
        )?,
        (_, ReplaceWith) => {
            action.updated(option)?;
        }
        _ => {}
    }
    Ok(())
}

/// The note option of a record type (the one whose notes carry a type id).
fn note_option(entity: EntityType) -> &'static str {
    match entity {
        EntityType::Item => "ITEM_NOTE",
        EntityType::Holdings => "HOLDINGS_NOTE",
        _ => "INSTANCE_NOTE",
    }
}

/// The kind of note type and the parameter naming it, for typed note options.
fn note_type_key(entity: EntityType, option: &str) -> Option<(RefKind, &'static str)> {
    match (entity, option) {
        (EntityType::Item, "ITEM_NOTE") => Some((RefKind::ItemNoteType, "ITEM_NOTE_TYPE_ID_KEY")),
        (EntityType::Holdings, "HOLDINGS_NOTE") => {
            Some((RefKind::HoldingsNoteType, "HOLDINGS_NOTE_TYPE_ID_KEY"))
        }
        (EntityType::Instance, "INSTANCE_NOTE") => {
            Some((RefKind::InstanceNoteType, "INSTANCE_NOTE_TYPE_ID_KEY"))
        }
        _ => None,
    }
}

fn split_ids(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty())
}

fn parse_date(value: &str) -> Option<String> {
    let value = value.trim();
    if let Ok(at) = chrono::DateTime::parse_from_rfc3339(value) {
        return Some(
            at.with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%M:%S%.3f+00:00").to_string(),
        );
    }
    let date = chrono::NaiveDate::parse_from_str(value.get(..10)?, "%Y-%m-%d").ok()?;
    Some(format!("{}T23:59:59.000+00:00", date.format("%Y-%m-%d")))
}

/// Whether a holdings operation's rules suppress (or unsuppress) the holdings' items as
/// well (`SET_TO_TRUE_INCLUDING_ITEMS`, `SET_TO_FALSE_INCLUDING_ITEMS`), and to what.
pub(crate) fn items_suppression(rules: &RuleCollection) -> Option<bool> {
    rules
        .bulk_operation_rules
        .iter()
        .filter(|rule| rule.rule_details.option == "SUPPRESS_FROM_DISCOVERY")
        .flat_map(|rule| &rule.rule_details.actions)
        .filter_map(|action| match action.action_type {
            ActionType::SetToTrueIncludingItems => Some(true),
            ActionType::SetToFalseIncludingItems => Some(false),
            _ => None,
        })
        .next_back()
}

/// What applying the rules to a record gave.
pub(crate) enum Applied {
    /// The record as the rules leave it (possibly unchanged).
    Changed(Value),
    /// A rule cannot apply to this record: the message.
    Refused(String),
}

/// Applies every rule, in order, to a record's JSON (as stored).
pub(crate) fn apply(
    entity: EntityType,
    rules: &RuleCollection,
    record: &Value,
    now: &str,
) -> Applied {
    let mut out = record.clone();
    for rule in &rules.bulk_operation_rules {
        let option = rule.rule_details.option.as_str();
        for action in &rule.rule_details.actions {
            if let Err(message) = apply_action(entity, option, action, &mut out, now) {
                return Applied::Refused(message);
            }
        }
    }
    Applied::Changed(out)
}

fn apply_action(
    entity: EntityType,
    option: &str,
    action: &Action,
    record: &mut Value,
    now: &str,
) -> std::result::Result<(), String> {
    use ActionType::*;
    let Some(obj) = record.as_object_mut() else { return Err("record is not an object".into()) };
    let updated = action.updated.clone().unwrap_or_default();
    let initial = action.initial.clone().unwrap_or_default();
    let field = |name: &str| -> Option<&'static str> {
        Some(match name {
            "MATERIAL_TYPE" => "materialTypeId",
            "PERMANENT_LOAN_TYPE" => "permanentLoanTypeId",
            "TEMPORARY_LOAN_TYPE" => "temporaryLoanTypeId",
            "PERMANENT_LOCATION" => "permanentLocationId",
            "TEMPORARY_LOCATION" => "temporaryLocationId",
            "SUPPRESS_FROM_DISCOVERY" => "discoverySuppress",
            "STAFF_SUPPRESS" => "staffSuppress",
            "SET_RECORDS_FOR_DELETE" => "deleted",
            _ => return None,
        })
    };
    match (option, action.action_type) {
        ("STATUS", ReplaceWith) => {
            let current = obj.get("status").and_then(|s| s.get("name")).and_then(Value::as_str);
            let current = current.unwrap_or_default().to_string();
            if current != updated {
                if !status_allowed(&current, &updated) {
                    return Err(format!("New status value \"{updated}\" is not allowed"));
                }
                obj.insert("status".into(), json!({ "name": updated, "date": now }));
            }
        }
        ("EMAIL_ADDRESS", FindAndReplace) => {
            let personal = obj.entry("personal").or_insert_with(|| json!({}));
            if let Some(email) = personal.get("email").and_then(Value::as_str) {
                let replaced = email.replace(&initial, &updated);
                personal["email"] = Value::String(replaced);
            }
        }
        ("EXPIRATION_DATE", ReplaceWith) => {
            let date = parse_date(&updated)
                .ok_or_else(|| format!("Invalid expiration date: {updated}"))?;
            obj.insert("expirationDate".into(), Value::String(date));
        }
        ("PATRON_GROUP", ReplaceWith) => {
            obj.insert("patronGroup".into(), Value::String(updated));
        }
        ("SET_RECORDS_FOR_DELETE", SetToTrue) => {
            // FOLIO suppresses an instance set for deletion everywhere.
            obj.insert("deleted".into(), Value::Bool(true));
            obj.insert("discoverySuppress".into(), Value::Bool(true));
            obj.insert("staffSuppress".into(), Value::Bool(true));
        }
        (_, ReplaceWith) if field(option).is_some() => {
            obj.insert(field(option).unwrap().into(), Value::String(updated));
        }
        (_, ClearField) if field(option).is_some() => {
            obj.remove(field(option).unwrap());
        }
        (_, SetToTrue | SetToTrueIncludingItems) if field(option).is_some() => {
            obj.insert(field(option).unwrap().into(), Value::Bool(true));
        }
        (_, SetToFalse | SetToFalseIncludingItems) if field(option).is_some() => {
            obj.insert(field(option).unwrap().into(), Value::Bool(false));
        }
        ("STATISTICAL_CODE", _) => {
            let codes = strings_mut(obj, "statisticalCodeIds");
            match action.action_type {
                AddToExisting => {
                    for id in split_ids(&updated) {
                        if !codes.iter().any(|c| c.as_str() == Some(id)) {
                            codes.push(Value::String(id.to_string()));
                        }
                    }
                }
                RemoveSome => {
                    let remove: Vec<&str> = split_ids(&updated).collect();
                    codes.retain(|c| !c.as_str().is_some_and(|s| remove.contains(&s)));
                }
                _ => codes.clear(),
            }
            store_strings(obj, "statisticalCodeIds");
        }
        ("ADMINISTRATIVE_NOTE", _) => admin_notes(entity, obj, action, &initial, &updated)?,
        (_, _) if option.starts_with("ELECTRONIC_ACCESS_") => {
            let key = ELECTRONIC_ACCESS_FIELDS.iter().find(|(o, _)| *o == option).map(|(_, k)| *k);
            let key = key.ok_or_else(|| format!("unknown option {option}"))?;
            if let Some(Value::Array(entries)) = obj.get_mut("electronicAccess") {
                for entry in entries.iter_mut().filter_map(Value::as_object_mut) {
                    edit_text(
                        entry,
                        key,
                        action.action_type,
                        &initial,
                        &updated,
                        key == "relationshipId",
                    );
                }
            }
        }
        _ => typed_notes(entity, option, obj, action, &initial, &updated)?,
    }
    Ok(())
}

/// A text field changed by an action: exact values (ids) are found whole, text by part.
fn edit_text(
    obj: &mut Map<String, Value>,
    key: &str,
    action: ActionType,
    initial: &str,
    updated: &str,
    exact: bool,
) {
    let current = obj.get(key).and_then(Value::as_str).map(str::to_string);
    let next = match (action, current) {
        (ActionType::ClearField, _) => None,
        (ActionType::ReplaceWith, _) => Some(updated.to_string()),
        (ActionType::FindAndReplace, Some(text)) if exact => {
            Some(if text == initial { updated.to_string() } else { text })
        }
        (ActionType::FindAndReplace, Some(text)) => Some(text.replace(initial, updated)),
        (ActionType::FindAndRemoveThese, Some(text)) if exact => (text != initial).then_some(text),
        (ActionType::FindAndRemoveThese, Some(text)) => Some(text.replace(initial, "")),
        (_, current) => current,
    };
    match next {
        Some(text) if !text.is_empty() => obj.insert(key.into(), Value::String(text)),
        _ => obj.remove(key),
    };
}

fn strings_mut<'a>(obj: &'a mut Map<String, Value>, key: &str) -> &'a mut Vec<Value> {
    let entry = obj.entry(key).or_insert_with(|| Value::Array(Vec::new()));
    if !entry.is_array() {
        *entry = Value::Array(Vec::new());
    }
    entry.as_array_mut().unwrap()
}

/// Drops an emptied list, as FOLIO's clients send none.
fn store_strings(obj: &mut Map<String, Value>, key: &str) {
    if obj.get(key).and_then(Value::as_array).is_some_and(Vec::is_empty) {
        obj.remove(key);
    }
}

fn admin_notes(
    entity: EntityType,
    obj: &mut Map<String, Value>,
    action: &Action,
    initial: &str,
    updated: &str,
) -> std::result::Result<(), String> {
    use ActionType::*;
    match action.action_type {
        AddToExisting => {
            strings_mut(obj, "administrativeNotes").push(Value::String(updated.into()))
        }
        RemoveAll => {
            obj.remove("administrativeNotes");
        }
        FindAndRemoveThese | FindAndReplace => {
            let with = if action.action_type == FindAndReplace { updated } else { "" };
            let notes = strings_mut(obj, "administrativeNotes");
            for note in notes.iter_mut() {
                if let Some(text) = note.as_str() {
                    *note = Value::String(text.replace(initial, with));
                }
            }
            notes.retain(|n| n.as_str().is_some_and(|s| !s.trim().is_empty()));
        }
        ChangeType => {
            // Administrative notes become notes of another kind.
            let notes: Vec<String> = match obj.remove("administrativeNotes") {
                Some(Value::Array(list)) => {
                    list.into_iter().filter_map(|v| v.as_str().map(str::to_string)).collect()
                }
                _ => Vec::new(),
            };
            for text in notes {
                add_note(entity, obj, updated, &text, false)?;
            }
        }
        other => {
            return Err(format!("Combination ADMINISTRATIVE_NOTE and {other:?} isn't supported"));
        }
    }
    store_strings(obj, "administrativeNotes");
    Ok(())
}

/// Where notes of `option` live in a record, and how one is recognised.
enum NoteKind {
    /// `notes` entries whose `{key}` is the type id.
    Typed { key: &'static str, type_id: Option<String> },
    /// An item's `circulationNotes` of a `noteType`.
    Circulation(&'static str),
}

fn note_kind(entity: EntityType, option: &str, action: &Action) -> Option<NoteKind> {
    let typed = |key: &'static str, param: &str| NoteKind::Typed {
        key,
        type_id: action.parameter(param).map(str::to_string),
    };
    Some(match (entity, option) {
        (EntityType::Item, "ITEM_NOTE") => typed("itemNoteTypeId", "ITEM_NOTE_TYPE_ID_KEY"),
        (EntityType::Holdings, "HOLDINGS_NOTE") => {
            typed("holdingsNoteTypeId", "HOLDINGS_NOTE_TYPE_ID_KEY")
        }
        (EntityType::Instance, "INSTANCE_NOTE") => {
            typed("instanceNoteTypeId", "INSTANCE_NOTE_TYPE_ID_KEY")
        }
        (EntityType::Item, "CHECK_IN_NOTE") => NoteKind::Circulation("Check in"),
        (EntityType::Item, "CHECK_OUT_NOTE") => NoteKind::Circulation("Check out"),
        _ => return None,
    })
}

impl NoteKind {
    fn list_key(&self) -> &'static str {
        match self {
            NoteKind::Typed { .. } => "notes",
            NoteKind::Circulation(_) => "circulationNotes",
        }
    }

    /// Whether a note is one of this kind (of the named type, when one is named).
    fn holds(&self, note: &Value) -> bool {
        match self {
            NoteKind::Typed { key, type_id: Some(id) } => {
                note.get(*key).and_then(Value::as_str) == Some(id)
            }
            NoteKind::Typed { .. } => true,
            NoteKind::Circulation(kind) => {
                note.get("noteType").and_then(Value::as_str) == Some(kind)
            }
        }
    }
}

/// Adds a note of the kind `target` names: a note type id, or ADMINISTRATIVE_NOTE,
/// CHECK_IN_NOTE, CHECK_OUT_NOTE.
fn add_note(
    entity: EntityType,
    obj: &mut Map<String, Value>,
    target: &str,
    text: &str,
    staff_only: bool,
) -> std::result::Result<(), String> {
    match target {
        "ADMINISTRATIVE_NOTE" => {
            strings_mut(obj, "administrativeNotes").push(Value::String(text.into()))
        }
        "CHECK_IN_NOTE" | "CHECK_OUT_NOTE" if entity == EntityType::Item => {
            let kind = if target == "CHECK_IN_NOTE" { "Check in" } else { "Check out" };
            strings_mut(obj, "circulationNotes").push(json!({
                "id": Uuid::new_v4().to_string(), "noteType": kind, "note": text, "staffOnly": staff_only,
            }));
        }
        type_id => {
            let key = match entity {
                EntityType::Item => "itemNoteTypeId",
                EntityType::Holdings => "holdingsNoteTypeId",
                EntityType::Instance => "instanceNoteTypeId",
                EntityType::User => return Err("users have no notes here".into()),
            };
            strings_mut(obj, "notes")
                .push(json!({ key: type_id, "note": text, "staffOnly": staff_only }));
        }
    }
    Ok(())
}

fn typed_notes(
    entity: EntityType,
    option: &str,
    obj: &mut Map<String, Value>,
    action: &Action,
    initial: &str,
    updated: &str,
) -> std::result::Result<(), String> {
    use ActionType::*;
    let unsupported =
        || format!("Combination {option} and {:?} isn't supported", action.action_type);
    let kind = note_kind(entity, option, action).ok_or_else(unsupported)?;
    let key = kind.list_key();
    let staff_only = action.parameter("STAFF_ONLY").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    match action.action_type {
        AddToExisting => match &kind {
            NoteKind::Typed { type_id: Some(id), .. } => {
                add_note(entity, obj, id, updated, staff_only)?
            }
            NoteKind::Circulation(_) => add_note(entity, obj, option, updated, staff_only)?,
            NoteKind::Typed { type_id: None, .. } => return Err(unsupported()),
        },
        RemoveAll => strings_mut(obj, key).retain(|n| !kind.holds(n)),
        FindAndRemoveThese | FindAndReplace => {
            let with = if action.action_type == FindAndReplace { updated } else { "" };
            let notes = strings_mut(obj, key);
            for note in notes.iter_mut().filter(|n| kind.holds(n)) {
                if let Some(text) = note.get("note").and_then(Value::as_str) {
                    note["note"] = Value::String(text.replace(initial, with));
                }
            }
            notes.retain(|n| {
                !kind.holds(n)
                    || n.get("note").and_then(Value::as_str).is_some_and(|s| !s.trim().is_empty())
            });
        }
        MarkAsStaffOnly | RemoveMarkAsStaffOnly => {
            let flag = action.action_type == MarkAsStaffOnly;
            for note in strings_mut(obj, key).iter_mut().filter(|n| kind.holds(n)) {
                note["staffOnly"] = Value::Bool(flag);
            }
        }
        ChangeType | Duplicate => {
            let notes = strings_mut(obj, key);
            let moved: Vec<(String, bool)> = notes
                .iter()
                .filter(|n| kind.holds(n))
                .map(|n| {
                    let text =
                        n.get("note").and_then(Value::as_str).unwrap_or_default().to_string();
                    (text, n.get("staffOnly").and_then(Value::as_bool).unwrap_or(false))
                })
                .collect();
            if action.action_type == ChangeType {
                notes.retain(|n| !kind.holds(n));
            }
            for (text, staff) in moved {
                add_note(entity, obj, updated, &text, staff)?;
            }
        }
        _ => return Err(unsupported()),
    }
    store_strings(obj, key);
    store_strings(obj, "administrativeNotes");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-11-28T12:00:00.000+00:00";
    const NOTE_TYPE: &str = "8d0a5eca-25de-4391-81a9-236eeefdd20b";
    const OTHER_TYPE: &str = "0e40884c-3523-4c6d-8187-d578e3d2794e";

    fn action(
        kind: &str,
        initial: Option<&str>,
        updated: Option<&str>,
        parameters: &[(&str, &str)],
    ) -> Value {
        json!({
            "type": kind, "initial": initial, "updated": updated,
            "parameters": parameters.iter().map(|(k, v)| json!({"key": k, "value": v})).collect::<Vec<_>>(),
        })
    }

    /// Applies one option's action to `record`.
    fn apply_one(
        entity: EntityType,
        record: Value,
        option: &str,
        action: Value,
    ) -> Result<Value, String> {
        let rules: RuleCollection = serde_json::from_value(json!({
            "bulkOperationRules": [{"rule_details": {"option": option, "actions": [action]}}],
        }))
        .unwrap();
        match apply(entity, &rules, &record, NOW) {
            Applied::Changed(record) => Ok(record),
            Applied::Refused(message) => Err(message),
        }
    }

    fn item() -> Value {
        json!({
            "id": "1", "status": {"name": "Available", "date": "2020-01-01T00:00:00.000+00:00"},
            "permanentLocationId": "loc-a", "temporaryLocationId": "loc-b", "materialTypeId": "mt-a",
            "permanentLoanTypeId": "lt-a", "temporaryLoanTypeId": "lt-b",
            "administrativeNotes": ["Gift of the class of 1990", "Check binding"],
            "notes": [
                {"itemNoteTypeId": NOTE_TYPE, "note": "Torn page 12", "staffOnly": false},
                {"itemNoteTypeId": OTHER_TYPE, "note": "Signed copy", "staffOnly": true},
            ],
            "circulationNotes": [{"id": "c1", "noteType": "Check in", "note": "Count the CDs", "staffOnly": false}],
            "statisticalCodeIds": ["sc-1", "sc-2"],
            "electronicAccess": [{"uri": "http://old.example.org/a", "relationshipId": "rel-1", "linkText": "Full text"}],
        })
    }

    #[test]
    fn an_item_status_changes_only_where_folio_allows_it() {
        let changed = apply_one(
            EntityType::Item,
            item(),
            "STATUS",
            action("REPLACE_WITH", None, Some("Missing"), &[]),
        )
        .unwrap();
        assert_eq!(changed["status"], json!({"name": "Missing", "date": NOW}));
        let mut loaned = item();
        loaned["status"]["name"] = json!("Checked out");
        let refused = apply_one(
            EntityType::Item,
            loaned,
            "STATUS",
            action("REPLACE_WITH", None, Some("Missing"), &[]),
        );
        assert_eq!(refused, Err("New status value \"Missing\" is not allowed".into()));
        // In process goes only to Missing or Withdrawn.
        let mut in_process = item();
        in_process["status"]["name"] = json!("In process");
        assert!(
            apply_one(
                EntityType::Item,
                in_process.clone(),
                "STATUS",
                action("REPLACE_WITH", None, Some("Available"), &[])
            )
            .is_err()
        );
        assert!(
            apply_one(
                EntityType::Item,
                in_process,
                "STATUS",
                action("REPLACE_WITH", None, Some("Withdrawn"), &[])
            )
            .is_ok()
        );
        // The same status is no change, whatever the status: the date stays.
        let same = apply_one(
            EntityType::Item,
            item(),
            "STATUS",
            action("REPLACE_WITH", None, Some("Available"), &[]),
        )
        .unwrap();
        assert_eq!(same, item());
    }

    #[test]
    fn reference_fields_are_replaced_or_cleared() {
        for (option, field) in [
            ("MATERIAL_TYPE", "materialTypeId"),
            ("PERMANENT_LOAN_TYPE", "permanentLoanTypeId"),
            ("TEMPORARY_LOAN_TYPE", "temporaryLoanTypeId"),
            ("PERMANENT_LOCATION", "permanentLocationId"),
            ("TEMPORARY_LOCATION", "temporaryLocationId"),
        ] {
            let changed = apply_one(
                EntityType::Item,
                item(),
                option,
                action("REPLACE_WITH", None, Some("new"), &[]),
            )
            .unwrap();
            assert_eq!(changed[field], "new", "{option}");
        }
        for (option, field) in [
            ("TEMPORARY_LOAN_TYPE", "temporaryLoanTypeId"),
            ("PERMANENT_LOCATION", "permanentLocationId"),
            ("TEMPORARY_LOCATION", "temporaryLocationId"),
        ] {
            let cleared =
                apply_one(EntityType::Item, item(), option, action("CLEAR_FIELD", None, None, &[]))
                    .unwrap();
            assert!(cleared.get(field).is_none(), "{option}");
        }
    }

    #[test]
    fn flags_are_set_and_an_instance_set_for_deletion_is_suppressed() {
        let on = apply_one(
            EntityType::Item,
            item(),
            "SUPPRESS_FROM_DISCOVERY",
            action("SET_TO_TRUE", None, None, &[]),
        )
        .unwrap();
        assert_eq!(on["discoverySuppress"], true);
        let off = apply_one(
            EntityType::Item,
            on,
            "SUPPRESS_FROM_DISCOVERY",
            action("SET_TO_FALSE", None, None, &[]),
        )
        .unwrap();
        assert_eq!(off["discoverySuppress"], false);
        let instance = json!({"id": "i", "title": "T"});
        let staff = apply_one(
            EntityType::Instance,
            instance.clone(),
            "STAFF_SUPPRESS",
            action("SET_TO_TRUE", None, None, &[]),
        )
        .unwrap();
        assert_eq!(staff["staffSuppress"], true);
        let deleted = apply_one(
            EntityType::Instance,
            instance,
            "SET_RECORDS_FOR_DELETE",
            action("SET_TO_TRUE", None, None, &[]),
        )
        .unwrap();
        assert_eq!(
            (&deleted["deleted"], &deleted["discoverySuppress"], &deleted["staffSuppress"]),
            (&json!(true), &json!(true), &json!(true))
        );
    }

    #[test]
    fn administrative_notes_are_added_found_replaced_removed_and_retyped() {
        let notes = |record: &Value| record["administrativeNotes"].clone();
        let added = apply_one(
            EntityType::Item,
            item(),
            "ADMINISTRATIVE_NOTE",
            action("ADD_TO_EXISTING", None, Some("Moved"), &[]),
        )
        .unwrap();
        assert_eq!(notes(&added), json!(["Gift of the class of 1990", "Check binding", "Moved"]));
        let replaced = apply_one(
            EntityType::Item,
            item(),
            "ADMINISTRATIVE_NOTE",
            action("FIND_AND_REPLACE", Some("binding"), Some("spine"), &[]),
        )
        .unwrap();
        assert_eq!(notes(&replaced), json!(["Gift of the class of 1990", "Check spine"]));
        let removed = apply_one(
            EntityType::Item,
            item(),
            "ADMINISTRATIVE_NOTE",
            action("FIND_AND_REMOVE_THESE", Some("Check binding"), None, &[]),
        )
        .unwrap();
        assert_eq!(notes(&removed), json!(["Gift of the class of 1990"]));
        let none = apply_one(
            EntityType::Item,
            item(),
            "ADMINISTRATIVE_NOTE",
            action("REMOVE_ALL", None, None, &[]),
        )
        .unwrap();
        assert!(none.get("administrativeNotes").is_none());
        let retyped = apply_one(
            EntityType::Item,
            item(),
            "ADMINISTRATIVE_NOTE",
            action("CHANGE_TYPE", None, Some(OTHER_TYPE), &[]),
        )
        .unwrap();
        assert!(retyped.get("administrativeNotes").is_none());
        assert_eq!(
            retyped["notes"][2],
            json!({"itemNoteTypeId": OTHER_TYPE, "note": "Gift of the class of 1990", "staffOnly": false})
        );
    }

    #[test]
    fn typed_notes_touch_only_their_type() {
        let typed = [("ITEM_NOTE_TYPE_ID_KEY", NOTE_TYPE)];
        let added = apply_one(
            EntityType::Item,
            item(),
            "ITEM_NOTE",
            action(
                "ADD_TO_EXISTING",
                None,
                Some("Water damage"),
                &[typed[0], ("STAFF_ONLY", "true")],
            ),
        )
        .unwrap();
        assert_eq!(
            added["notes"][2],
            json!({"itemNoteTypeId": NOTE_TYPE, "note": "Water damage", "staffOnly": true})
        );
        let removed = apply_one(
            EntityType::Item,
            item(),
            "ITEM_NOTE",
            action("REMOVE_ALL", None, None, &typed),
        )
        .unwrap();
        assert_eq!(
            removed["notes"],
            json!([{"itemNoteTypeId": OTHER_TYPE, "note": "Signed copy", "staffOnly": true}])
        );
        let replaced = apply_one(
            EntityType::Item,
            item(),
            "ITEM_NOTE",
            action("FIND_AND_REPLACE", Some("12"), Some("14"), &typed),
        )
        .unwrap();
        assert_eq!(replaced["notes"][0]["note"], "Torn page 14");
        let staff = apply_one(
            EntityType::Item,
            item(),
            "ITEM_NOTE",
            action("MARK_AS_STAFF_ONLY", None, None, &typed),
        )
        .unwrap();
        assert_eq!(
            (&staff["notes"][0]["staffOnly"], &staff["notes"][1]["staffOnly"]),
            (&json!(true), &json!(true))
        );
        let public = apply_one(
            EntityType::Item,
            item(),
            "ITEM_NOTE",
            action(
                "REMOVE_MARK_AS_STAFF_ONLY",
                None,
                None,
                &[("ITEM_NOTE_TYPE_ID_KEY", OTHER_TYPE)],
            ),
        )
        .unwrap();
        assert_eq!(public["notes"][1]["staffOnly"], false);
        let moved = apply_one(
            EntityType::Item,
            item(),
            "ITEM_NOTE",
            action("CHANGE_TYPE", None, Some(OTHER_TYPE), &typed),
        )
        .unwrap();
        assert_eq!(
            moved["notes"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|n| n["itemNoteTypeId"] == OTHER_TYPE)
                .count(),
            2
        );
        // Circulation notes: a check-in note duplicated as a check-out note.
        let both = apply_one(
            EntityType::Item,
            item(),
            "CHECK_IN_NOTE",
            action("DUPLICATE", None, Some("CHECK_OUT_NOTE"), &[]),
        )
        .unwrap();
        let kinds: Vec<&str> = both["circulationNotes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["noteType"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["Check in", "Check out"]);
        let out = apply_one(
            EntityType::Item,
            item(),
            "CHECK_OUT_NOTE",
            action("ADD_TO_EXISTING", None, Some("Ask for ID"), &[]),
        )
        .unwrap();
        assert_eq!(out["circulationNotes"][1]["note"], "Ask for ID");
        let no_in = apply_one(
            EntityType::Item,
            item(),
            "CHECK_IN_NOTE",
            action("REMOVE_ALL", None, None, &[]),
        )
        .unwrap();
        assert!(no_in.get("circulationNotes").is_none());
        // Holdings and instance notes carry their own type keys.
        let holdings = apply_one(
            EntityType::Holdings,
            json!({"id": "h"}),
            "HOLDINGS_NOTE",
            action(
                "ADD_TO_EXISTING",
                None,
                Some("Bound with"),
                &[("HOLDINGS_NOTE_TYPE_ID_KEY", NOTE_TYPE)],
            ),
        )
        .unwrap();
        assert_eq!(
            holdings["notes"],
            json!([{"holdingsNoteTypeId": NOTE_TYPE, "note": "Bound with", "staffOnly": false}])
        );
        let instance = apply_one(
            EntityType::Instance,
            json!({"id": "i"}),
            "INSTANCE_NOTE",
            action(
                "ADD_TO_EXISTING",
                None,
                Some("Includes index"),
                &[("INSTANCE_NOTE_TYPE_ID_KEY", NOTE_TYPE)],
            ),
        )
        .unwrap();
        assert_eq!(instance["notes"][0]["instanceNoteTypeId"], NOTE_TYPE);
    }

    #[test]
    fn statistical_codes_and_electronic_access() {
        let codes = |record: Value| record["statisticalCodeIds"].clone();
        let added = apply_one(
            EntityType::Item,
            item(),
            "STATISTICAL_CODE",
            action("ADD_TO_EXISTING", None, Some("sc-2, sc-3"), &[]),
        )
        .unwrap();
        assert_eq!(codes(added), json!(["sc-1", "sc-2", "sc-3"]));
        let some = apply_one(
            EntityType::Item,
            item(),
            "STATISTICAL_CODE",
            action("REMOVE_SOME", None, Some("sc-1"), &[]),
        )
        .unwrap();
        assert_eq!(codes(some), json!(["sc-2"]));
        let none = apply_one(
            EntityType::Item,
            item(),
            "STATISTICAL_CODE",
            action("REMOVE_ALL", None, None, &[]),
        )
        .unwrap();
        assert_eq!(codes(none), Value::Null);
        let access = |record: Value| record["electronicAccess"][0].clone();
        let uri = apply_one(
            EntityType::Item,
            item(),
            "ELECTRONIC_ACCESS_URI",
            action("FIND_AND_REPLACE", Some("old.example"), Some("new.example"), &[]),
        )
        .unwrap();
        assert_eq!(access(uri)["uri"], "http://new.example.org/a");
        let relation = apply_one(
            EntityType::Item,
            item(),
            "ELECTRONIC_ACCESS_URL_RELATIONSHIP",
            action("FIND_AND_REPLACE", Some("rel-1"), Some("rel-2"), &[]),
        )
        .unwrap();
        assert_eq!(access(relation)["relationshipId"], "rel-2");
        // Ids are found whole: a part of one is not a match.
        let partial = apply_one(
            EntityType::Item,
            item(),
            "ELECTRONIC_ACCESS_URL_RELATIONSHIP",
            action("FIND_AND_REPLACE", Some("rel"), Some("x"), &[]),
        )
        .unwrap();
        assert_eq!(access(partial)["relationshipId"], "rel-1");
        let cleared = apply_one(
            EntityType::Item,
            item(),
            "ELECTRONIC_ACCESS_LINK_TEXT",
            action("CLEAR_FIELD", None, None, &[]),
        )
        .unwrap();
        assert!(access(cleared).get("linkText").is_none());
        let note = apply_one(
            EntityType::Item,
            item(),
            "ELECTRONIC_ACCESS_URL_PUBLIC_NOTE",
            action("REPLACE_WITH", None, Some("Campus only"), &[]),
        )
        .unwrap();
        assert_eq!(access(note)["publicNote"], "Campus only");
    }

    #[test]
    fn users_take_email_group_and_expiration_rules() {
        let user = json!({"id": "u", "patronGroup": "g-1", "personal": {"lastName": "Doe", "email": "doe@old.example.org"}});
        let email = apply_one(
            EntityType::User,
            user.clone(),
            "EMAIL_ADDRESS",
            action("FIND_AND_REPLACE", Some("@old."), Some("@new."), &[]),
        )
        .unwrap();
        assert_eq!(email["personal"]["email"], "doe@new.example.org");
        let group = apply_one(
            EntityType::User,
            user.clone(),
            "PATRON_GROUP",
            action("REPLACE_WITH", None, Some("g-2"), &[]),
        )
        .unwrap();
        assert_eq!(group["patronGroup"], "g-2");
        let expires = apply_one(
            EntityType::User,
            user,
            "EXPIRATION_DATE",
            action("REPLACE_WITH", None, Some("2031-06-30"), &[]),
        )
        .unwrap();
        assert_eq!(expires["expirationDate"], "2031-06-30T23:59:59.000+00:00");
    }

    #[test]
    fn each_record_type_offers_folio_s_options_only() {
        assert!(actions_of(EntityType::User, "STATUS").is_none());
        assert!(actions_of(EntityType::Item, "PATRON_GROUP").is_none());
        assert!(actions_of(EntityType::Holdings, "STATUS").is_none());
        assert!(actions_of(EntityType::Instance, "PERMANENT_LOCATION").is_none());
        assert!(
            !actions_of(EntityType::Item, "PERMANENT_LOAN_TYPE")
                .unwrap()
                .contains(&ActionType::ClearField)
        );
        assert!(
            !actions_of(EntityType::Holdings, "PERMANENT_LOCATION")
                .unwrap()
                .contains(&ActionType::ClearField)
        );
        assert!(
            actions_of(EntityType::Holdings, "SUPPRESS_FROM_DISCOVERY")
                .unwrap()
                .contains(&ActionType::SetToTrueIncludingItems)
        );
    }
}
