//! MARC field protection (mod-di-converter-storage's `/field-protection-settings/marc`):
//! the fields of an existing MARC record an overlay keeps, whatever the incoming record
//! says (a library's local notes, its own 856s). Each setting names a tag, indicators
//! and a subfield (`*` any; empty a blank indicator or none), and the data it must hold
//! (`*` any). Every tenant has FOLIO's two system settings (001 and `999 ff`), which
//! cannot be changed or removed; a mapping profile may override a setting for its own
//! overlays.

use serde::{Deserialize, Serialize};
use store::{ColumnValue, FieldKind, QueryField, RecordTable, Writer};
use uuid::Uuid;

use folio::{Actor, Metadata, Record};

use crate::MarcFieldProtectionSetting;

/// One stored setting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FieldProtection {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub field: String,
    #[serde(default)]
    pub indicator1: String,
    #[serde(default)]
    pub indicator2: String,
    #[serde(default)]
    pub subfield: String,
    #[serde(default)]
    pub data: String,
    #[serde(default = "user")]
    pub source: String,
    #[serde(default, rename = "override")]
    pub override_protection: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

fn user() -> String {
    "USER".into()
}

impl Record for FieldProtection {
    const TABLE: RecordTable = RecordTable {
        table: "marc_field_protection_settings",
        record_type: "marc_field_protection_setting",
        cached: false,
        columns: &["field", "source"],
    };
    const NAME: &'static str = "MARC field protection setting";
    const QUERY: &'static [QueryField] = &[
        QueryField { index: "id", column: "id", kind: FieldKind::Text },
        QueryField { index: "field", column: "field", kind: FieldKind::Text },
        QueryField { index: "source", column: "source", kind: FieldKind::Exact },
    ];
    folio::id_and_metadata!();
    fn columns(&self) -> Vec<ColumnValue> {
        vec![ColumnValue::Text(self.field.clone()), ColumnValue::Text(self.source.clone())]
    }
}

/// FOLIO's system settings: 001 and `999 ff`, under FOLIO's ids.
const SYSTEM: [(Uuid, &str, &str, &str, &str); 2] = [
    (Uuid::from_u128(0x2d706874_8a10_4d3e_a190_33c301d157e3), "001", "", "", ""),
    (Uuid::from_u128(0x82d0b904_f8b0_4cc2_b238_7d8cddef7b7e), "999", "f", "f", "*"),
];

/// Adds the system settings a tenant lacks; how many it added.
pub fn seed_protection(w: &mut Writer<'_>) -> crate::Result<usize> {
    let mut added = 0;
    for (id, field, indicator1, indicator2, subfield) in SYSTEM {
        if w.exists(&FieldProtection::TABLE, &id.to_string())? {
            continue;
        }
        let setting = FieldProtection {
            id: Some(id),
            field: field.into(),
            indicator1: indicator1.into(),
            indicator2: indicator2.into(),
            subfield: subfield.into(),
            data: "*".into(),
            source: "SYSTEM".into(),
            override_protection: false,
            metadata: None,
        };
        folio::record::create(w, setting, Actor::default())?;
        added += 1;
    }
    Ok(added)
}

/// Checks a setting a client sends: a three-digit tag, one-character indicators and
/// subfield (or `*`, or empty), a data pattern, and not a system setting's source.
pub fn check_protection(setting: &FieldProtection) -> Result<(), (&'static str, String)> {
    let tag = setting.field.trim();
    if tag.len() != 3 || !tag.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(("field", format!("Field '{}' is not a MARC tag", setting.field)));
    }
    for (name, value) in [
        ("indicator1", &setting.indicator1),
        ("indicator2", &setting.indicator2),
        ("subfield", &setting.subfield),
    ] {
        if value.chars().count() > 1 {
            return Err((name, format!("{name} '{value}' must be one character, * or empty")));
        }
    }
    if setting.data.is_empty() {
        return Err(("data", "data must be * (any) or the value to protect".into()));
    }
    if setting.source != "USER" {
        return Err(("source", "Only USER settings can be made or changed".into()));
    }
    Ok(())
}

/// Whether a stored setting is a system one, which no client may change or remove.
pub fn is_system(w: &store::Reader<'_>, id: Uuid) -> crate::Result<bool> {
    let stored = folio::record::get::<FieldProtection>(w, id)?;
    Ok(stored.is_some_and(|s| s.record.source == "SYSTEM"))
}

/// The settings an overlay keeps fields by: the tenant's, less those the profile's
/// mapping overrides.
pub fn protections(
    reader: &store::Reader<'_>,
    overrides: &[MarcFieldProtectionSetting],
) -> crate::Result<Vec<FieldProtection>> {
    let page = store::Page { offset: 0, limit: 10_000 };
    let (bodies, _) = folio::record::list_json::<FieldProtection>(reader, None, page)?;
    let overridden: Vec<Uuid> = overrides
        .iter()
        .filter(|o| o.override_protection == Some(true))
        .filter_map(|o| o.id)
        .collect();
    Ok(bodies
        .iter()
        .filter_map(|body| serde_json::from_str::<FieldProtection>(body).ok())
        .filter(|s| s.id.is_none_or(|id| !overridden.contains(&id)))
        .collect())
}

impl FieldProtection {
    /// Whether this setting protects a field.
    pub fn protects(&self, field: &marc::Field) -> bool {
        if self.field != "*" && field.tag().as_str() != self.field {
            return false;
        }
        let any = |pattern: &str| pattern == "*";
        if field.is_control() {
            return any(&self.data) || field.value() == Some(self.data.as_str());
        }
        let indicator = |pattern: &str, have: char| {
            any(pattern) || pattern.chars().next().unwrap_or(' ') == have
        };
        let Some([ind1, ind2]) = field.indicators() else { return false };
        if !indicator(&self.indicator1, ind1) || !indicator(&self.indicator2, ind2) {
            return false;
        }
        let values: Vec<&str> = match self.subfield.as_str() {
            "*" | "" => field.subfields().map(|s| s.value).collect(),
            code => field.subfield_values(code.chars().next().unwrap_or(' ')).collect(),
        };
        if values.is_empty() {
            return false;
        }
        any(&self.data) || values.contains(&self.data.as_str())
    }
}

/// An overlay's record: the incoming one, plus each field of the existing record that a
/// setting protects and the incoming one lacks, in tag order.
pub fn keep_protected(
    incoming: &marc::Record,
    existing: &marc::Record,
    settings: &[FieldProtection],
) -> marc::Record {
    let mut out = incoming.clone();
    for field in existing.fields() {
        if !settings.iter().any(|s| s.protects(field)) || out.fields().contains(field) {
            continue;
        }
        let fields = out.fields_mut();
        let at = fields.iter().position(|f| f.tag().as_str() > field.tag().as_str());
        fields.insert(at.unwrap_or(fields.len()), field.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(field: &str, ind1: &str, ind2: &str, subfield: &str, data: &str) -> FieldProtection {
        FieldProtection {
            id: None,
            field: field.into(),
            indicator1: ind1.into(),
            indicator2: ind2.into(),
            subfield: subfield.into(),
            data: data.into(),
            source: "USER".into(),
            override_protection: false,
            metadata: None,
        }
    }

    /// A data field as its tag, indicators and subfields.
    type Spec<'a> = (&'a str, char, char, &'a [(char, &'a str)]);

    fn record(fields: &[Spec<'_>]) -> marc::Record {
        let mut record = marc::Record::new(marc::Leader::new("00000nam a2200000 a 4500").unwrap());
        for (tag, i1, i2, subfields) in fields {
            let tag = marc::Tag::new(tag).unwrap();
            record.push(marc::Field::data(tag, *i1, *i2, subfields.iter().copied()).unwrap());
        }
        record
    }

    #[test]
    fn an_overlay_keeps_the_protected_fields_the_incoming_record_lacks() {
        let existing = record(&[
            ("245", '1', '0', &[('a', "Old title")]),
            ("500", ' ', ' ', &[('a', "Local note: signed copy")]),
            ("500", ' ', ' ', &[('a', "Vendor note")]),
            ("856", '4', '0', &[('u', "http://local.example/1"), ('z', "Campus only")]),
        ]);
        let incoming = record(&[
            ("245", '1', '0', &[('a', "New title")]),
            ("500", ' ', ' ', &[('a', "New vendor note")]),
            ("650", ' ', '0', &[('a', "Cats")]),
        ]);
        let settings = [
            setting("500", "*", "*", "a", "Local note: signed copy"),
            setting("856", "4", "*", "*", "*"),
        ];
        let out = keep_protected(&incoming, &existing, &settings);
        let text: Vec<String> = out
            .fields()
            .iter()
            .map(|f| {
                format!(
                    "{} {}",
                    f.tag().as_str(),
                    f.subfields().map(|s| s.value).collect::<Vec<_>>().join("|")
                )
            })
            .collect();
        assert_eq!(
            text,
            [
                "245 New title",
                "500 New vendor note",
                "500 Local note: signed copy",
                "650 Cats",
                "856 http://local.example/1|Campus only",
            ]
        );
        // Nothing protected: the incoming record as it is.
        assert_eq!(keep_protected(&incoming, &existing, &[]), incoming);
    }
}
