//! Building the search documents of an authority: one per heading and per tracing, as
//! mod-search's authority pre-processor splits a record.
//!
//! Owns the split (each authorised heading, each `sft*` value and each `saft*` value
//! becomes a document with its `headingType`, `authRefType` and `headingRef`, plus the
//! record's common fields), the computed fields, and the two stored renderings. Does
//! not own analysis (`text`) or the schema (`fields`).

use std::collections::HashSet;

use inventory::Authority;
use inventory::model::HeadingKind;
use serde::Serialize;
use serde_json::{Map, Value};
use tantivy::TantivyDocument;
use uuid::Uuid;

use crate::authority::fields::Fields;
use crate::instance::identifiers;
use crate::registry::{Kind, Presence, normalize};
use crate::text;

/// Identifier types the computed `lccn` and `canceledLccn` fields take values from,
/// resolved by name from the tenant's reference data.
#[derive(Debug, Clone, Default)]
pub(crate) struct LccnTypes {
    pub(crate) lccn: HashSet<Uuid>,
    pub(crate) canceled: HashSet<Uuid>,
}

/// FOLIO's `authRefType` of a heading document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AuthRefType {
    /// The authorised heading (MARC 1XX).
    Authorized,
    /// A see-from tracing (`sft*`, MARC 4XX).
    Reference,
    /// A see-also-from tracing (`saft*`, MARC 5XX).
    AuthRef,
}

impl AuthRefType {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            AuthRefType::Authorized => "Authorized",
            AuthRefType::Reference => "Reference",
            AuthRefType::AuthRef => "Auth/Ref",
        }
    }
}

/// One heading document's own part: which field, which value.
struct Heading<'a> {
    kind: HeadingKind,
    field: &'static str,
    auth_ref: AuthRefType,
    value: &'a str,
}

/// The headings of an authority in FOLIO's document order: for each kind, the
/// authorised heading, then its see-from, then its see-also-from tracings.
fn headings(authority: &Authority) -> Vec<Heading<'_>> {
    let mut out = Vec::new();
    for kind in HeadingKind::ALL {
        let (authorized, sft, saft) = authority.headings(kind);
        let (field, sft_field, saft_field) = kind.fields();
        if let Some(value) = authorized {
            out.push(Heading { kind, field, auth_ref: AuthRefType::Authorized, value });
        }
        for value in sft {
            out.push(Heading { kind, field: sft_field, auth_ref: AuthRefType::Reference, value });
        }
        for value in saft {
            out.push(Heading { kind, field: saft_field, auth_ref: AuthRefType::AuthRef, value });
        }
    }
    out
}

/// The number of search documents an authority becomes: one per heading and tracing,
/// or one when it has none.
#[cfg(test)]
pub(crate) fn count(authority: &Authority) -> usize {
    headings(authority).len().max(1)
}

/// The search documents of an authority. A record without any heading still gets one
/// document (FOLIO's `other` document), of heading type "Other".
pub(crate) fn build(authority: &Authority, lccn: &LccnTypes, tenant: &str) -> Vec<TantivyDocument> {
    let list = headings(authority);
    if list.is_empty() {
        return vec![document(authority, None, lccn, tenant)];
    }
    list.iter().map(|h| document(authority, Some(h), lccn, tenant)).collect()
}

fn document(
    a: &Authority,
    heading: Option<&Heading<'_>>,
    lccn: &LccnTypes,
    tenant: &str,
) -> TantivyDocument {
    let fields = Fields::get();
    let mut doc = TantivyDocument::default();
    let id = a.id.expect("stored authorities have ids").to_string();
    let mut presence = Presence::default();
    let mut add = |name: &str, value: &str| add_value(&mut doc, &mut presence, fields, name, value);
    add("id", &id);
    add("tenantId", tenant);
    add("shared", "false");
    let heading_type = heading.map_or("Other", |h| h.kind.heading_type());
    let auth_ref = heading.map_or(AuthRefType::Authorized, |h| h.auth_ref);
    add("headingType", heading_type);
    add("authRefType", auth_ref.as_str());
    if let Some(h) = heading {
        add(h.field, h.value);
        add("headingRef", h.value);
        add("headingTermRef", h.value);
        add("isTitleHeadingRef", if h.kind.is_title() { "true" } else { "false" });
    }
    add("naturalId", &a.natural_id);
    add("sourceFileId", &a.source_file_id.map_or_else(|| "NULL".to_string(), |s| s.to_string()));
    if let Some(code) = &a.subject_headings {
        add("subjectHeadings", code);
    }
    for identifier in &a.identifiers {
        add("identifiers.value", &identifier.value);
        add("identifiers.identifierTypeId", &identifier.identifier_type_id.to_string());
        let target = if lccn.lccn.contains(&identifier.identifier_type_id) {
            Some("lccn")
        } else if lccn.canceled.contains(&identifier.identifier_type_id) {
            Some("canceledLccn")
        } else {
            None
        };
        if let (Some(name), Some(value)) =
            (target, identifiers::normalize_no_space(&identifier.value))
        {
            add(name, &value);
        }
    }
    for note in &a.notes {
        add("notes.noteTypeId", &note.note_type_id.to_string());
    }
    if let Some(m) = &a.metadata {
        if let Some(user) = m.created_by_user_id {
            add("metadata.createdByUserId", &user.to_string());
        }
        if let Some(user) = m.updated_by_user_id {
            add("metadata.updatedByUserId", &user.to_string());
        }
        if let Some(created) = m.created_date {
            let created = created.as_datetime().timestamp_millis();
            add_date(&mut doc, &mut presence, fields, "metadata.createdDate", created);
        }
        if let Some(updated) = m.updated_date {
            let updated = updated.as_datetime().timestamp_millis();
            add_date(&mut doc, &mut presence, fields, "metadata.updatedDate", updated);
        }
    }
    if let Some(h) = heading {
        doc.add_text(fields.sort_heading_ref, text::lowercase(h.value));
    }
    if auth_ref == AuthRefType::Authorized {
        doc.add_text(fields.authorized_id, &id);
    }
    fields.add_presence(&mut doc, &presence);
    doc.add_text(fields.basic, basic_json(a, heading_type, auth_ref, heading, tenant));
    doc.add_text(fields.full, full_json(a, heading_type, auth_ref, heading, tenant));
    doc
}

/// Adds one value to a registry field and its copies, and marks the field present.
fn add_value(
    doc: &mut TantivyDocument,
    presence: &mut Presence,
    fields: &Fields,
    name: &str,
    value: &str,
) {
    if value.is_empty() {
        return;
    }
    let idx = fields.index_of(name).unwrap_or_else(|| panic!("unknown authority field {name}"));
    let (def, handles) = (fields.def(idx), fields.handles[idx]);
    presence.mark(idx);
    let whole = match def.kind {
        Kind::Text { .. } | Kind::Whitespace => {
            doc.add_text(handles.main, value);
            let plain = text::plain(value);
            if let Some(field) = handles.plain {
                doc.add_text(field, &plain);
            }
            plain
        }
        Kind::Keyword(norm) => {
            let normalized = normalize(norm, value);
            doc.add_text(handles.main, &normalized);
            normalized
        }
        Kind::Bool => {
            doc.add_text(handles.main, value);
            return;
        }
        Kind::Date | Kind::Number => unreachable!("dates are added with add_date"),
    };
    if let Some(field) = handles.reversed {
        doc.add_text(field, text::reversed(&whole));
    }
}

fn add_date(
    doc: &mut TantivyDocument,
    presence: &mut Presence,
    fields: &Fields,
    name: &str,
    millis: i64,
) {
    let idx = fields.index_of(name).expect("date fields are registered");
    presence.mark(idx);
    doc.add_i64(fields.handles[idx].main, millis);
}

/// The fields FOLIO returns without `expandAll` (`numberOfTitles` is added when the
/// page is answered).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Basic<'a> {
    id: Option<Uuid>,
    tenant_id: &'a str,
    shared: bool,
    heading_type: &'a str,
    auth_ref_type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    heading_ref: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source_file_id: Option<Uuid>,
    natural_id: &'a str,
}

fn basic_json(
    a: &Authority,
    heading_type: &str,
    auth_ref: AuthRefType,
    heading: Option<&Heading<'_>>,
    tenant: &str,
) -> String {
    let basic = Basic {
        id: a.id,
        tenant_id: tenant,
        shared: false,
        heading_type,
        auth_ref_type: auth_ref.as_str(),
        heading_ref: heading.map(|h| h.value),
        source_file_id: a.source_file_id,
        natural_id: &a.natural_id,
    };
    serde_json::to_string(&basic).expect("serialising plain data cannot fail")
}

/// The heading document as FOLIO stores it: the record's common fields, the one
/// heading field of this document (a string for the authorised heading, a one-value
/// array for a tracing), and the computed fields.
fn full_json(
    a: &Authority,
    heading_type: &str,
    auth_ref: AuthRefType,
    heading: Option<&Heading<'_>>,
    tenant: &str,
) -> String {
    let mut record = match serde_json::to_value(a) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    // Every heading field goes; this document's own comes back below.
    for kind in HeadingKind::ALL {
        let (authorized, sft, saft) = kind.fields();
        for name in [authorized, sft, saft] {
            record.remove(name);
        }
    }
    record.insert("tenantId".into(), Value::from(tenant));
    record.insert("shared".into(), Value::Bool(false));
    if let Some(h) = heading {
        let value = match h.auth_ref {
            AuthRefType::Authorized => Value::from(h.value),
            AuthRefType::Reference | AuthRefType::AuthRef => Value::from(vec![h.value]),
        };
        record.insert(h.field.into(), value);
        record.insert("headingRef".into(), Value::from(h.value));
    }
    record.insert("headingType".into(), Value::from(heading_type));
    record.insert("authRefType".into(), Value::from(auth_ref.as_str()));
    Value::Object(record).to_string()
}

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use tantivy::schema::Value as _;

    use super::{LccnTypes, build, count};
    use crate::authority::fields::Fields;

    #[test]
    fn one_document_per_heading_and_tracing() {
        let authority: inventory::Authority = serde_json::from_str(
            r#"{"id": "55294032-fcf6-45cc-b6da-4420a61ef72c", "source": "MARC",
                "naturalId": "n80036674", "personalName": "Twain, Mark, 1835-1910",
                "sftPersonalName": ["Clemens, Samuel Langhorne, 1835-1910", "Conrad, Quintus Curtius"],
                "saftPersonalName": ["Snodgrass, Quintus Curtius, 1835-1910"]}"#,
        )
        .unwrap();
        let docs = build(&authority, &LccnTypes::default(), "diku");
        assert_eq!(docs.len(), count(&authority));
        let fields = Fields::get();
        let basics: Vec<String> = docs
            .iter()
            .map(|d| d.get_first(fields.basic).and_then(|v| v.as_str()).unwrap().to_string())
            .collect();
        expect![[r#"
            {"id":"55294032-fcf6-45cc-b6da-4420a61ef72c","tenantId":"diku","shared":false,"headingType":"Personal Name","authRefType":"Authorized","headingRef":"Twain, Mark, 1835-1910","naturalId":"n80036674"}
            {"id":"55294032-fcf6-45cc-b6da-4420a61ef72c","tenantId":"diku","shared":false,"headingType":"Personal Name","authRefType":"Reference","headingRef":"Clemens, Samuel Langhorne, 1835-1910","naturalId":"n80036674"}
            {"id":"55294032-fcf6-45cc-b6da-4420a61ef72c","tenantId":"diku","shared":false,"headingType":"Personal Name","authRefType":"Reference","headingRef":"Conrad, Quintus Curtius","naturalId":"n80036674"}
            {"id":"55294032-fcf6-45cc-b6da-4420a61ef72c","tenantId":"diku","shared":false,"headingType":"Personal Name","authRefType":"Auth/Ref","headingRef":"Snodgrass, Quintus Curtius, 1835-1910","naturalId":"n80036674"}"#]]
        .assert_eq(&basics.join("\n"));
        let full = docs[1].get_first(fields.full).and_then(|v| v.as_str()).unwrap();
        let full: serde_json::Value = serde_json::from_str(full).unwrap();
        assert_eq!(
            full["sftPersonalName"],
            serde_json::json!(["Clemens, Samuel Langhorne, 1835-1910"])
        );
        assert!(full.get("personalName").is_none());

        let bare: inventory::Authority = serde_json::from_str(
            r#"{"id": "55294032-fcf6-45cc-b6da-4420a61ef72d", "source": "MARC", "naturalId": "x"}"#,
        )
        .unwrap();
        assert_eq!(build(&bare, &LccnTypes::default(), "diku").len(), 1);
    }
}
