//! Custom fields on users: mod-users' `/custom-fields` (FOLIO's folio-custom-fields
//! library). A definition names a field, its type and, for the choice types, its options;
//! a user keeps its values under `customFields`, keyed by the definition's `refId`.
//!
//! What it owns: definitions and their rules (a `refId` made from the name, an `order`
//! kept dense, option ids `opt_N`, the checks of each type, with FOLIO's messages), the
//! check of a user's values against them, and forgetting values whose field or option is
//! deleted. Definitions are few (a tenant has tens), so reading them all per check is
//! cheap.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use store::{ColumnValue, FieldKind, Page, QueryField, Reader, RecordTable, Writer};
use unicode_normalization::UnicodeNormalization;
use uuid::Uuid;

use folio::{Actor, Metadata, Record};

use crate::users::USERS;
use crate::{Error, Result, User};

/// One custom field definition (`customField.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CustomField {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    /// Read-only: made from the name when the field is created, kept after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ref_id: Option<String>,
    #[serde(rename = "type")]
    pub field_type: FieldType,
    pub entity_type: String,
    #[serde(default = "yes")]
    pub visible: bool,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub is_repeatable: bool,
    /// Read-only: the field's place among the tenant's fields, from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkbox_field: Option<CheckboxField>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select_field: Option<SelectField>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_field: Option<TextField>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_in_accordion: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

fn yes() -> bool {
    true
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FieldType {
    RadioButton,
    SingleCheckbox,
    SingleSelectDropdown,
    MultiSelectDropdown,
    TextboxShort,
    TextboxLong,
    DatePicker,
}

impl FieldType {
    fn name(self) -> &'static str {
        match self {
            FieldType::RadioButton => "RADIO_BUTTON",
            FieldType::SingleCheckbox => "SINGLE_CHECKBOX",
            FieldType::SingleSelectDropdown => "SINGLE_SELECT_DROPDOWN",
            FieldType::MultiSelectDropdown => "MULTI_SELECT_DROPDOWN",
            FieldType::TextboxShort => "TEXTBOX_SHORT",
            FieldType::TextboxLong => "TEXTBOX_LONG",
            FieldType::DatePicker => "DATE_PICKER",
        }
    }

    /// The types whose values are option ids.
    fn is_choice(self) -> bool {
        matches!(
            self,
            FieldType::RadioButton
                | FieldType::SingleSelectDropdown
                | FieldType::MultiSelectDropdown
        )
    }

    fn is_text(self) -> bool {
        matches!(self, FieldType::TextboxShort | FieldType::TextboxLong)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckboxField {
    #[serde(default)]
    pub default: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelectField {
    pub multi_select: bool,
    pub options: SelectOptions,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelectOptions {
    pub values: Vec<SelectOption>,
    #[serde(default)]
    pub sorting_order: SortingOrder,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum SortingOrder {
    Asc,
    Desc,
    #[default]
    Custom,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectOption {
    /// `opt_N`; given to a new option when the field is written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub value: String,
    #[serde(default)]
    pub default: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TextField {
    pub field_format: TextFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum TextFormat {
    Text,
    Email,
    Url,
    Number,
}

/// `PUT /custom-fields`: every field of an entity type, in order; fields not named are
/// deleted.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CustomFieldSet {
    pub custom_fields: Vec<CustomField>,
    pub entity_type: String,
    #[serde(default)]
    #[allow(dead_code, reason = "read-only in FOLIO's schema: accepted and dropped")]
    metadata: Option<Value>,
}

// FOLIO's configured limits (folio-custom-fields' application properties).
const NAME_MAX: usize = 65;
const HELP_TEXT_MAX: usize = 100;
const OPTION_VALUE_MAX: usize = 100;
const RADIO_OPTIONS_MAX: usize = 5;
const DROPDOWN_OPTIONS_MAX: usize = 200;
const SHORT_TEXT_MAX: usize = 150;
const LONG_TEXT_MAX: usize = 1500;

const TABLE: RecordTable = RecordTable {
    table: "custom_fields",
    record_type: "custom_field",
    cached: false,
    columns: &["name", "ref_id", "entity_type", "field_type", "sort_order"],
};

impl Record for CustomField {
    const TABLE: RecordTable = TABLE;
    const NAME: &'static str = "CustomField";
    const QUERY: &'static [QueryField] = &[
        QueryField { index: "id", column: "id", kind: FieldKind::Text },
        QueryField { index: "name", column: "name", kind: FieldKind::Text },
        QueryField { index: "refId", column: "ref_id", kind: FieldKind::Text },
        QueryField { index: "entityType", column: "entity_type", kind: FieldKind::Text },
        QueryField { index: "type", column: "field_type", kind: FieldKind::Exact },
        QueryField { index: "order", column: "sort_order", kind: FieldKind::Int },
    ];

    folio::id_and_metadata!();
    fn columns(&self) -> Vec<ColumnValue> {
        vec![
            ColumnValue::Text(self.name.clone()),
            self.ref_id.as_deref().into(),
            ColumnValue::Text(self.entity_type.clone()),
            ColumnValue::Text(self.field_type.name().to_string()),
            self.order.map_or(ColumnValue::Null, ColumnValue::Int),
        ]
    }
}

/// Every definition, in order.
pub fn custom_fields(reader: &Reader<'_>) -> Result<Vec<folio::Stored<CustomField>>> {
    let (rows, _) = reader.list(
        &TABLE,
        CustomField::QUERY,
        Some("cql.allRecords=1 sortBy order"),
        Page { offset: 0, limit: i64::MAX as u64 },
    )?;
    rows.iter().map(|row| folio::Stored::from_row(row).map_err(record_error)).collect()
}

/// Definitions matching a CQL query, in `order` unless the query sorts: one page of
/// their JSON and the total.
pub fn list_custom_fields(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    // FOLIO adds `order` as the sort key when a query has none.
    let sorted = match cql.map(str::trim).filter(|q| !q.is_empty()) {
        Some(q) if q.to_ascii_lowercase().contains("sortby") => q.to_string(),
        Some(q) => format!("{q} sortBy order"),
        None => "cql.allRecords=1 sortBy order".to_string(),
    };
    folio::record::list_json::<CustomField>(reader, Some(&sorted), page).map_err(record_error)
}

pub fn get_custom_field(
    reader: &Reader<'_>,
    id: Uuid,
) -> Result<Option<folio::Stored<CustomField>>> {
    folio::record::get(reader, id).map_err(record_error)
}

/// Creates a definition: checked, given a `refId`, option ids and the last place.
pub fn create_custom_field(
    writer: &mut Writer<'_>,
    mut field: CustomField,
    actor: Actor,
) -> Result<CustomField> {
    let fields = custom_fields(writer)?;
    let last = fields.iter().filter_map(|f| f.order).max().unwrap_or(0);
    field.order = Some(last + 1);
    field.ref_id = Some(new_ref_id(&field.name, fields.iter().filter_map(|f| f.ref_id.as_deref())));
    complete(&mut field)?;
    folio::record::create(writer, field, actor).map_err(record_error)
}

/// Replaces a definition; its `refId` and place stay, its type and text format may not
/// change, and users' values of options it no longer has are removed.
pub fn update_custom_field(
    writer: &mut Writer<'_>,
    id: Uuid,
    mut field: CustomField,
    actor: Actor,
) -> Result<()> {
    folio::record::claim_id(&mut field, id).map_err(record_error)?;
    let stored = get_custom_field(writer, id)?
        .ok_or_else(|| Error::NotFound { record: CustomField::NAME, id: id.to_string() })?;
    replace_checked(writer, field, &stored, actor)
}

fn replace_checked(
    writer: &mut Writer<'_>,
    field: CustomField,
    stored: &CustomField,
    actor: Actor,
) -> Result<()> {
    let field = checked_replacement(field, stored)?;
    let kept: HashSet<&str> = option_ids(&field).collect();
    let dropped: Vec<String> =
        option_ids(stored).filter(|id| !kept.contains(id)).map(str::to_string).collect();
    let ref_id = field.ref_id.clone().unwrap_or_default();
    let id = field.id.unwrap_or_default();
    folio::record::replace(writer, id, field, actor).map_err(record_error)?;
    if !dropped.is_empty() {
        forget_values(writer, &ref_id, Some(&dropped), actor)?;
    }
    Ok(())
}

/// `field` made ready to replace `stored`, or why it may not: it keeps the stored
/// `refId` (and place, unless given one), type and text format.
fn checked_replacement(mut field: CustomField, stored: &CustomField) -> Result<CustomField> {
    field.id = field.id.or(stored.id);
    field.ref_id.clone_from(&stored.ref_id);
    field.order = field.order.or(stored.order);
    if field.field_type != stored.field_type {
        return Err(invalid(
            "type",
            format!(
                "The type of the custom field can not be changed: newType = {}, oldType = {}",
                field.field_type.name(),
                stored.field_type.name()
            ),
        ));
    }
    complete(&mut field)?;
    let format = |f: &CustomField| f.text_field.as_ref().map(|t| t.field_format);
    if field.field_type.is_text() && format(&field) != format(stored) {
        let name = |f: Option<TextFormat>| f.map_or("null", format_name);
        return Err(invalid(
            "fieldFormat",
            format!(
                "The format of the custom field can not be changed: newFormat = {}, oldFormat = {}",
                name(format(&field)),
                name(format(stored))
            ),
        ));
    }
    Ok(field)
}

/// Deletes a definition and every user's value of it; the fields after it move up.
pub fn delete_custom_field(writer: &mut Writer<'_>, id: Uuid, actor: Actor) -> Result<()> {
    let stored = get_custom_field(writer, id)?
        .ok_or_else(|| Error::NotFound { record: CustomField::NAME, id: id.to_string() })?;
    folio::record::delete::<CustomField>(writer, id).map_err(record_error)?;
    if let Some(ref_id) = &stored.ref_id {
        forget_values(writer, ref_id, None, actor)?;
    }
    renumber(writer, actor)
}

/// `PUT /custom-fields`: the entity type's fields become exactly `set`, in its order;
/// fields it does not name are deleted with their values.
pub fn replace_custom_fields(
    writer: &mut Writer<'_>,
    set: CustomFieldSet,
    actor: Actor,
) -> Result<()> {
    let existing: Vec<_> =
        custom_fields(writer)?.into_iter().filter(|f| f.entity_type == set.entity_type).collect();
    let named: HashSet<Uuid> = set.custom_fields.iter().filter_map(|f| f.id).collect();
    for gone in existing.iter().filter(|f| !named.contains(&f.id)) {
        folio::record::delete::<CustomField>(writer, gone.id).map_err(record_error)?;
        if let Some(ref_id) = &gone.ref_id {
            forget_values(writer, ref_id, None, actor)?;
        }
    }
    for (place, mut field) in set.custom_fields.into_iter().enumerate() {
        field.order = Some(place as i64 + 1);
        match field.id.and_then(|id| existing.iter().find(|f| f.id == id)) {
            Some(stored) => replace_checked(writer, field, stored, actor)?,
            None => {
                let taken: Vec<String> =
                    custom_fields(writer)?.into_iter().filter_map(|f| f.record.ref_id).collect();
                field.ref_id = Some(new_ref_id(&field.name, taken.iter().map(String::as_str)));
                complete(&mut field)?;
                folio::record::create(writer, field, actor).map_err(record_error)?;
            }
        }
    }
    Ok(())
}

/// How many users have a value of the field (`/custom-fields/{id}/stats`).
pub fn count_values(reader: &Reader<'_>, ref_id: &str) -> Result<u64> {
    let mut count = 0;
    each_user(reader, |user| {
        if user_values(user).is_some_and(|values| values.contains_key(ref_id)) {
            count += 1;
        }
    })?;
    Ok(count)
}

/// Checks a user's `customFields` against the definitions: each key must be a field's
/// `refId` and each value of its type (mod-users answers 422 listing every problem).
pub(crate) fn check_values(reader: &Reader<'_>, user: &User) -> Result<()> {
    let Some(values) = user_values(user) else {
        return Ok(());
    };
    if values.is_empty() {
        return Ok(());
    }
    let fields = custom_fields(reader)?;
    let mut problems = Vec::new();
    for (ref_id, value) in values {
        match fields.iter().find(|f| f.ref_id.as_deref() == Some(ref_id)) {
            None => problems.push(FieldProblem {
                key: "customFields".into(),
                value: ref_id.clone(),
                message: format!("Custom field with refId {ref_id} is not found"),
            }),
            Some(field) => {
                if let Err(message) = check_value(field, value) {
                    problems.push(FieldProblem {
                        key: ref_id.clone(),
                        value: value.to_string(),
                        message,
                    });
                }
            }
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(Error::CustomFieldValues(problems)) }
}

/// One problem with a user's custom field values: FOLIO's error `parameters[{key,value}]`
/// and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldProblem {
    pub key: String,
    pub value: String,
    pub message: String,
}

/// Maps an imported user's choice values from option labels to option ids, as
/// mod-user-import does; `Err` is its message naming unknown fields and options.
pub(crate) fn map_import_values(
    fields: &[folio::Stored<CustomField>],
    values: &mut Map<String, Value>,
) -> std::result::Result<(), String> {
    let mut missing_fields = Vec::new();
    let mut missing_options: Vec<(String, Vec<String>)> = Vec::new();
    for (ref_id, value) in values.iter_mut() {
        let Some(field) = fields.iter().find(|f| f.ref_id.as_deref() == Some(ref_id)) else {
            missing_fields.push(ref_id.clone());
            continue;
        };
        let Some(select) = field.select_field.as_ref().filter(|_| field.field_type.is_choice())
        else {
            continue;
        };
        let mut missing = Vec::new();
        let mut to_id = |label: &Value| -> Value {
            let found =
                select.options.values.iter().find(|o| Some(o.value.as_str()) == label.as_str());
            match found.and_then(|o| o.id.clone()) {
                Some(id) => Value::String(id),
                None => {
                    missing.push(label.as_str().unwrap_or_default().to_string());
                    label.clone()
                }
            }
        };
        let mapped = match &*value {
            Value::Array(labels) => Value::Array(labels.iter().map(&mut to_id).collect()),
            label => to_id(label),
        };
        *value = mapped;
        if !missing.is_empty() {
            missing.sort();
            missing_options.push((ref_id.clone(), missing));
        }
    }
    missing_fields.sort();
    missing_options.sort();
    let mut message = Vec::new();
    if !missing_fields.is_empty() {
        message.push(format!(
            "Custom fields do not exist in the system: [{}].",
            missing_fields.join(", ")
        ));
    }
    if !missing_options.is_empty() {
        let options: Vec<String> = missing_options
            .iter()
            .map(|(ref_id, options)| format!("refId = {ref_id}, options: [{}]", options.join(", ")))
            .collect();
        message.push(format!(
            "Custom field's options do not exist in the system: [{}].",
            options.join("; ")
        ));
    }
    if message.is_empty() { Ok(()) } else { Err(message.join(" ")) }
}

/// Merges an import's `included.customFields` into the stored definitions, as
/// mod-user-import does: a field is found by `refId`; its name, visibility,
/// repeatability and help text are taken when given, and options are matched by label: a
/// known label takes the sent `default`, a new one is added. Every field is checked
/// before any is written, so `Err` (the reason, in mod-user-import's words) writes
/// nothing.
pub(crate) fn merge_included(
    writer: &mut Writer<'_>,
    included: &[Value],
    actor: Actor,
) -> std::result::Result<(), String> {
    let fields = custom_fields(writer).map_err(|e| e.to_string())?;
    let mut merged = Vec::new();
    for sent in included {
        let ref_id = sent.get("refId").and_then(Value::as_str).unwrap_or_default();
        let Some(stored) = fields.iter().find(|f| f.ref_id.as_deref() == Some(ref_id)) else {
            return Err(format!("Custom fields do not exist in the system: [{ref_id}]."));
        };
        let field = merge_one(stored.record.clone(), sent);
        checked_replacement(field.clone(), stored).map_err(|e| e.to_string())?;
        merged.push((field, stored));
    }
    for (field, stored) in merged {
        replace_checked(writer, field, stored, actor).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn merge_one(mut field: CustomField, sent: &Value) -> CustomField {
    if let Some(name) = sent.get("name").and_then(Value::as_str) {
        field.name = name.to_string();
    }
    if let Some(visible) = sent.get("visible").and_then(Value::as_bool) {
        field.visible = visible;
    }
    if let Some(repeatable) = sent.get("isRepeatable").and_then(Value::as_bool) {
        field.is_repeatable = repeatable;
    }
    if let Some(help) = sent.get("helpText").and_then(Value::as_str) {
        field.help_text = Some(help.to_string());
    }
    if let (Some(checkbox), Some(default)) = (
        field.checkbox_field.as_mut(),
        sent.pointer("/checkboxField/default").and_then(Value::as_bool),
    ) {
        checkbox.default = default;
    }
    if let (Some(select), Some(options)) = (
        field.select_field.as_mut(),
        sent.pointer("/selectField/options/values").and_then(Value::as_array),
    ) {
        for option in options {
            let label = option.get("value").and_then(Value::as_str).unwrap_or_default();
            let default = option.get("default").and_then(Value::as_bool).unwrap_or(false);
            match select.options.values.iter_mut().find(|o| o.value == label) {
                Some(known) => known.default = default,
                None => select.options.values.push(SelectOption {
                    id: None,
                    value: label.to_string(),
                    default,
                }),
            }
        }
    }
    field
}

/// Checks a definition against its type's rules and fills in what FOLIO fills in: a text
/// field's format (`TEXT`), option order and option ids.
fn complete(field: &mut CustomField) -> Result<()> {
    if field.name.chars().count() > NAME_MAX {
        return Err(invalid("name", format!("The 'name' length cannot be more than {NAME_MAX}")));
    }
    if field.help_text.as_ref().is_some_and(|h| h.chars().count() > HELP_TEXT_MAX) {
        return Err(invalid(
            "helpText",
            format!("The 'helpText' length cannot be more than {HELP_TEXT_MAX}"),
        ));
    }
    let kind = field.field_type;
    // The one type-specific attribute each type may carry.
    let attribute = match kind {
        FieldType::SingleCheckbox => "checkboxField",
        _ if kind.is_choice() => "selectField",
        _ if kind.is_text() => "textField",
        _ => "",
    };
    for (present, name) in [
        (field.checkbox_field.is_some(), "checkboxField"),
        (field.select_field.is_some(), "selectField"),
        (field.text_field.is_some(), "textField"),
    ] {
        if present && name != attribute {
            let own = if attribute.is_empty() { String::new() } else { format!(", {attribute}") };
            return Err(invalid(
                name,
                format!(
                    "Attribute {name} is not allowed, following attributes are allowed for field of type {} : [id, name, refId, type, entityType, visible, required, isRepeatable, order, helpText, metadata, displayInAccordion{own}]",
                    kind.name()
                ),
            ));
        }
    }
    let repeatable_refused = matches!(
        kind,
        FieldType::SingleCheckbox | FieldType::RadioButton | FieldType::MultiSelectDropdown
    );
    if repeatable_refused && field.is_repeatable {
        return Err(invalid(
            "isRepeatable",
            format!("Repeatable is not supported by custom field of type {}", kind.name()),
        ));
    }
    match kind {
        FieldType::SingleCheckbox if field.checkbox_field.is_none() => {
            return Err(invalid(
                "checkboxField",
                format!(
                    "The 'checkBox' property should be defined for '{}' custom field type.",
                    kind.name()
                ),
            ));
        }
        FieldType::TextboxShort | FieldType::TextboxLong if field.text_field.is_none() => {
            field.text_field = Some(TextField { field_format: TextFormat::Text });
        }
        _ if kind.is_choice() => complete_options(field)?,
        _ => {}
    }
    Ok(())
}

fn complete_options(field: &mut CustomField) -> Result<()> {
    let kind = field.field_type;
    let Some(select) = field.select_field.as_mut() else {
        return Err(invalid("selectField", "The 'selectField' property should be defined"));
    };
    let max = if kind == FieldType::RadioButton { RADIO_OPTIONS_MAX } else { DROPDOWN_OPTIONS_MAX };
    let options = &mut select.options;
    if options.values.is_empty() || options.values.len() > max {
        return Err(invalid("options", format!("The options amount should be in range 1 - {max}")));
    }
    if options
        .values
        .iter()
        .any(|o| o.value.trim().is_empty() || o.value.chars().count() > OPTION_VALUE_MAX)
    {
        return Err(invalid(
            "options",
            format!("The option value cannot be blank or have more than {OPTION_VALUE_MAX} length"),
        ));
    }
    let labels: HashSet<&str> = options.values.iter().map(|o| o.value.as_str()).collect();
    if labels.len() != options.values.len() {
        return Err(invalid("options", "Option values should be unique"));
    }
    let ids: Vec<&str> = options.values.iter().filter_map(|o| o.id.as_deref()).collect();
    if ids.iter().collect::<HashSet<_>>().len() != ids.len() {
        return Err(invalid("options", "Option IDs should be unique"));
    }
    let multi = kind == FieldType::MultiSelectDropdown;
    if !multi && options.values.iter().filter(|o| o.default).count() > 1 {
        return Err(invalid("options", "The max defaults amount is 1"));
    }
    if select.multi_select != multi {
        return Err(invalid(
            "multiSelect",
            format!("The 'multiSelect' property should be '{multi}'"),
        ));
    }
    match options.sorting_order {
        SortingOrder::Asc => options.values.sort_by(|a, b| a.value.cmp(&b.value)),
        SortingOrder::Desc => options.values.sort_by(|a, b| b.value.cmp(&a.value)),
        SortingOrder::Custom => {}
    }
    let mut last = options
        .values
        .iter()
        .filter_map(|o| o.id.as_deref()?.strip_prefix("opt_")?.parse::<u32>().ok())
        .max()
        .unwrap_or(0);
    for option in options.values.iter_mut().filter(|o| o.id.is_none()) {
        last += 1;
        option.id = Some(format!("opt_{last}"));
    }
    Ok(())
}

/// Checks one value against its definition, with folio-custom-fields' messages.
fn check_value(field: &CustomField, value: &Value) -> std::result::Result<(), String> {
    let kind = field.field_type;
    let ref_id = field.ref_id.as_deref().unwrap_or_default();
    let each = |value: &Value, one: &dyn Fn(&Value) -> std::result::Result<(), String>| match value
    {
        Value::Array(values) if field.is_repeatable || kind == FieldType::MultiSelectDropdown => {
            values.iter().try_for_each(one)
        }
        _ if field.is_repeatable && kind.is_choice() => {
            Err(format!("Field with type {} must be an array", kind.name()))
        }
        value => one(value),
    };
    let string = |value: &Value| -> std::result::Result<String, String> {
        value
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("Field with type {} must be a string", kind.name()))
    };
    match kind {
        FieldType::SingleCheckbox => match value {
            Value::Bool(_) => Ok(()),
            _ => Err(format!("Field with type {} must be a boolean", kind.name())),
        },
        FieldType::DatePicker => {
            let text = string(value)?;
            chrono::NaiveDate::parse_from_str(&text, "%Y-%m-%d")
                .map(|_| ())
                .map_err(|_| format!("Invalid date format: {text}"))
        }
        FieldType::TextboxShort | FieldType::TextboxLong => each(value, &|value| {
            let text = string(value)?;
            let max = if kind == FieldType::TextboxLong { LONG_TEXT_MAX } else { SHORT_TEXT_MAX };
            check_format(field.text_field.as_ref().map(|t| t.field_format), &text)?;
            if text.chars().count() > max {
                return Err(format!("Maximum length of the value is {max}"));
            }
            Ok(())
        }),
        _ => each(value, &|value| {
            let id = string(value)?;
            if option_ids(field).any(|known| known == id) {
                Ok(())
            } else {
                let options: Vec<String> = field
                    .select_field
                    .iter()
                    .flat_map(|s| &s.options.values)
                    .map(|o| format!("{}: {}", o.id.as_deref().unwrap_or_default(), o.value))
                    .collect();
                Err(format!(
                    "Field {ref_id} can only have following values: [{}]",
                    options.join(", ")
                ))
            }
        }),
    }
}

fn check_format(format: Option<TextFormat>, text: &str) -> std::result::Result<(), String> {
    let ok = match format.unwrap_or(TextFormat::Text) {
        TextFormat::Text => true,
        TextFormat::Email => {
            let (local, domain) = text.split_once('@').unwrap_or_default();
            !local.is_empty() && domain.contains('.') && !text.contains(char::is_whitespace)
        }
        TextFormat::Number => text.trim().parse::<f64>().is_ok(),
        TextFormat::Url => {
            (text.starts_with("http://") || text.starts_with("https://"))
                && text.split_once("://").is_some_and(|(_, rest)| !rest.is_empty())
                && !text.contains(char::is_whitespace)
        }
    };
    if ok {
        return Ok(());
    }
    Err(match format.unwrap_or(TextFormat::Text) {
        TextFormat::Email => format!("Invalid Email format: {text}"),
        TextFormat::Number => format!("Invalid Number format: {text}"),
        _ => format!("Invalid URL: {text}"),
    })
}

fn format_name(format: TextFormat) -> &'static str {
    match format {
        TextFormat::Text => "TEXT",
        TextFormat::Email => "EMAIL",
        TextFormat::Url => "URL",
        TextFormat::Number => "NUMBER",
    }
}

fn option_ids(field: &CustomField) -> impl Iterator<Item = &str> {
    field.select_field.iter().flat_map(|s| &s.options.values).filter_map(|o| o.id.as_deref())
}

/// A `refId` for a new field named `name`: the name in lower camel case without accents or
/// anything but letters (`Department` → `department`, `Campus ID` → `campusId`), then
/// `_2`, `_3`, ... when taken. A name with no letters is used base64-encoded.
fn new_ref_id<'a>(name: &str, taken: impl Iterator<Item = &'a str>) -> String {
    let mut base = String::new();
    for (i, word) in name.split_whitespace().enumerate() {
        let plain: String = word.nfd().filter(char::is_ascii_alphabetic).collect();
        let mut chars = plain.chars();
        if let Some(first) = chars.next() {
            if i == 0 || base.is_empty() {
                base.push(first.to_ascii_lowercase());
            } else {
                base.push(first.to_ascii_uppercase());
            }
            base.extend(chars.map(|c| c.to_ascii_lowercase()));
        }
    }
    if base.is_empty() {
        use base64::Engine;
        base = base64::engine::general_purpose::STANDARD_NO_PAD.encode(name.as_bytes());
    }
    let last = taken
        .filter_map(|id| {
            let rest = id.strip_prefix(base.as_str())?;
            if rest.is_empty() {
                return Some(1);
            }
            rest.strip_prefix('_')?.parse::<u32>().ok().filter(|n| *n >= 2)
        })
        .max()
        .unwrap_or(0);
    if last == 0 { base } else { format!("{base}_{}", last + 1) }
}

/// Renumbers the fields 1, 2, ... in their order, after a delete.
fn renumber(writer: &mut Writer<'_>, actor: Actor) -> Result<()> {
    for (place, mut field) in custom_fields(writer)?.into_iter().enumerate() {
        let order = place as i64 + 1;
        if field.order != Some(order) {
            field.order = Some(order);
            folio::record::update(writer, &mut field.record, actor).map_err(record_error)?;
        }
    }
    Ok(())
}

/// Removes a field's values from every user: all of them, or those naming one of
/// `options`.
fn forget_values(
    writer: &mut Writer<'_>,
    ref_id: &str,
    options: Option<&[String]>,
    actor: Actor,
) -> Result<()> {
    let mut changed = Vec::new();
    each_user(writer, |user| {
        let Some(values) = user_values(user) else { return };
        let Some(value) = values.get(ref_id) else { return };
        let keep = match (options, value) {
            (None, _) => None,
            (Some(options), Value::Array(ids)) => {
                let left: Vec<Value> = ids
                    .iter()
                    .filter(|id| !options.iter().any(|o| Some(o.as_str()) == id.as_str()))
                    .cloned()
                    .collect();
                if left.len() == ids.len() {
                    return;
                }
                (!left.is_empty()).then_some(Value::Array(left))
            }
            (Some(options), Value::String(id)) if options.contains(id) => None,
            (Some(_), _) => return,
        };
        let mut user = user.clone();
        if let Some(Value::Object(values)) = user.other.get_mut("customFields") {
            match keep {
                Some(left) => values.insert(ref_id.to_string(), left),
                None => values.remove(ref_id),
            };
        }
        changed.push(user);
    })?;
    for mut user in changed {
        folio::record::update(writer, &mut user, actor).map_err(record_error)?;
    }
    Ok(())
}

fn user_values(user: &User) -> Option<&Map<String, Value>> {
    user.other.get("customFields").and_then(Value::as_object)
}

/// Calls `visit` with every user, a page at a time.
fn each_user(reader: &Reader<'_>, mut visit: impl FnMut(&User)) -> Result<()> {
    let mut after: Option<String> = None;
    loop {
        let page = reader.scan(&USERS, after.as_deref(), 1000)?;
        let Some(last) = page.last() else { return Ok(()) };
        after = Some(last.id.clone());
        for row in &page {
            let user: folio::Stored<User> = folio::Stored::from_row(row).map_err(record_error)?;
            visit(&user);
        }
    }
}

fn invalid(field: &str, message: impl Into<String>) -> Error {
    Error::Invalid { field: field.to_string(), message: message.into() }
}

fn record_error(e: folio::record::Error) -> Error {
    Error::from_record(e, Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_ids_follow_folios_rule() {
        let none: [&str; 0] = [];
        assert_eq!(new_ref_id("Department", none.into_iter()), "department");
        assert_eq!(new_ref_id("campus ID number", none.into_iter()), "campusIdNumber");
        assert_eq!(new_ref_id("Émile's Zone 3", none.into_iter()), "emilesZone");
        assert_eq!(new_ref_id("Zone", ["zone"].into_iter()), "zone_2");
        assert_eq!(new_ref_id("Zone", ["zone", "zone_2", "zoned"].into_iter()), "zone_3");
        assert_eq!(new_ref_id("123", none.into_iter()), "MTIz");
    }

    fn field(json: &str) -> Result<CustomField> {
        let mut field: CustomField = folio::decode(json.as_bytes())?;
        complete(&mut field)?;
        Ok(field)
    }

    #[test]
    fn definitions_are_checked_and_completed() {
        let text = field(r#"{"name":"Note","type":"TEXTBOX_SHORT","entityType":"user"}"#).unwrap();
        assert_eq!(text.text_field, Some(TextField { field_format: TextFormat::Text }));
        assert!(text.visible);

        let select = field(
            r#"{"name":"Campus","type":"SINGLE_SELECT_DROPDOWN","entityType":"user",
                "selectField":{"multiSelect":false,"options":{"values":[
                  {"value":"North"},{"id":"opt_4","value":"East"},{"value":"South"}],
                  "sortingOrder":"ASC"}}}"#,
        )
        .unwrap();
        let options: Vec<(String, String)> = select
            .select_field
            .unwrap()
            .options
            .values
            .into_iter()
            .map(|o| (o.id.unwrap(), o.value))
            .collect();
        assert_eq!(
            options,
            [
                ("opt_4".into(), "East".into()),
                ("opt_5".into(), "North".into()),
                ("opt_6".into(), "South".into())
            ]
        );

        let error = |json: &str| field(json).unwrap_err().to_string();
        assert_eq!(
            error(r#"{"name":"Agree","type":"SINGLE_CHECKBOX","entityType":"user"}"#),
            "The 'checkBox' property should be defined for 'SINGLE_CHECKBOX' custom field type."
        );
        assert_eq!(
            error(
                r#"{"name":"R","type":"RADIO_BUTTON","entityType":"user","selectField":{"multiSelect":true,"options":{"values":[{"value":"a"}]}}}"#
            ),
            "The 'multiSelect' property should be 'false'"
        );
        assert_eq!(
            error(
                r#"{"name":"R","type":"SINGLE_SELECT_DROPDOWN","entityType":"user","selectField":{"multiSelect":false,"options":{"values":[{"value":"a"},{"value":"a"}]}}}"#
            ),
            "Option values should be unique"
        );
        assert_eq!(
            error(
                r#"{"name":"D","type":"DATE_PICKER","entityType":"user","textField":{"fieldFormat":"TEXT"}}"#
            ),
            "Attribute textField is not allowed, following attributes are allowed for field of type DATE_PICKER : [id, name, refId, type, entityType, visible, required, isRepeatable, order, helpText, metadata, displayInAccordion]"
        );
        assert_eq!(
            error(&format!(
                r#"{{"name":"{}","type":"DATE_PICKER","entityType":"user"}}"#,
                "n".repeat(66)
            )),
            "The 'name' length cannot be more than 65"
        );
    }

    #[test]
    fn values_are_checked_against_their_type() {
        let mut select = field(
            r#"{"name":"Campus","type":"MULTI_SELECT_DROPDOWN","entityType":"user",
                "selectField":{"multiSelect":true,"options":{"values":[{"value":"North"},{"value":"South"}]}}}"#,
        )
        .unwrap();
        select.ref_id = Some("campus".into());
        assert_eq!(check_value(&select, &serde_json::json!(["opt_1", "opt_2"])), Ok(()));
        assert_eq!(
            check_value(&select, &serde_json::json!("opt_9")),
            Err("Field campus can only have following values: [opt_1: North, opt_2: South]".into())
        );
        let mut email = field(
            r#"{"name":"Alt","type":"TEXTBOX_SHORT","entityType":"user","textField":{"fieldFormat":"EMAIL"}}"#,
        )
        .unwrap();
        email.ref_id = Some("alt".into());
        assert_eq!(check_value(&email, &serde_json::json!("a@b.org")), Ok(()));
        assert_eq!(
            check_value(&email, &serde_json::json!("nope")),
            Err("Invalid Email format: nope".into())
        );
        assert_eq!(
            check_value(&email, &serde_json::json!(3)),
            Err("Field with type TEXTBOX_SHORT must be a string".into())
        );
        let date = field(r#"{"name":"Start","type":"DATE_PICKER","entityType":"user"}"#).unwrap();
        assert_eq!(
            check_value(&date, &serde_json::json!("2024-13-01")),
            Err("Invalid date format: 2024-13-01".into())
        );
    }
}
