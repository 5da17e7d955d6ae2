//! FOLIO mod-audit's inventory history (`GET /audit-data/inventory/{instance,holdings}/
//! {id}`), read from the tenant's change log rather than from a store of its own.
//!
//! What the log holds, and so what a history can say:
//! - every create, update and delete of the record, with its commit time, for as long as
//!   the tenant lives (rows are never removed from the log; only kept bodies are);
//! - the record as it was before and after a write only while a publisher keeps them
//!   (`quire serve --kafka`: from its start, until published and past retention). Such a
//!   change gets FOLIO's `diff` and the user from the new body's `metadata`;
//! - otherwise the user only where the record's own `metadata` says it: who created it
//!   (for the creation) and who changed it last (for the newest change).
//!
//! A change's `eventId` is its domain event's ([`crate::event_id`]), so the history and
//! the events a consumer saw name the same change alike.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::{Map, Value};
use store::{Bodies, Change, Operation, RecordTable};

/// The record types whose history can be read: those the change log indexes by record
/// (`store::HISTORY_TYPES`). Items are not among them, because every check-out and
/// check-in writes one, and the index would cost each of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audited {
    Instance,
    Holdings,
}

impl Audited {
    fn table(self) -> &'static RecordTable {
        match self {
            Audited::Instance => &inventory::INSTANCES,
            Audited::Holdings => &inventory::HOLDINGS,
        }
    }
}

/// How many changes one page holds. mod-audit reads its page size from a tenant
/// setting; Quire's is fixed.
pub const PAGE_SIZE: usize = 10;

/// One page of a record's history, newest first, in mod-audit's shape.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct History {
    pub inventory_audit_items: Vec<AuditItem>,
    /// Every change of the record, not only this page's.
    pub total_records: u64,
}

/// One change (mod-audit's `inventoryAuditItem`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditItem {
    pub event_id: uuid::Uuid,
    /// The commit time, as the change log holds it (RFC 3339, UTC, milliseconds).
    pub event_date: String,
    /// The same in milliseconds since the epoch: the `eventTs` to ask for the page
    /// after this one.
    pub event_ts: i64,
    pub entity_id: String,
    pub action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<Diff>,
}

/// What an update changed (mod-audit's `diff`): fields, and the members of lists.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diff {
    pub field_changes: Vec<FieldChange>,
    pub collection_changes: Vec<CollectionChange>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldChange {
    pub change_type: ChangeType,
    pub field_name: String,
    pub full_path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_value: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_value: Option<Value>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CollectionChange {
    pub collection_name: String,
    pub item_changes: Vec<ItemChange>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemChange {
    pub change_type: ChangeType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_value: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_value: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ChangeType {
    Added,
    Removed,
    Modified,
}

/// A page of the history of record `id`: the changes committed before `before`
/// (milliseconds since the epoch, mod-audit's `eventTs`), newest first.
pub fn history(
    reader: &store::Reader<'_>,
    tenant: &str,
    audited: Audited,
    id: uuid::Uuid,
    before: Option<i64>,
    limit: usize,
) -> store::Result<History> {
    let table = audited.table();
    let key = id.to_string();
    let before = before.map(rfc3339_millis);
    let store::RecordHistory { changes, total } =
        reader.record_history(table, &key, before.as_deref(), limit)?;
    // The record's own metadata names its creator and last editor; read only when a
    // change on this page has no kept body to say who made it.
    let needs_metadata = changes.iter().any(|(_, bodies)| bodies.is_none());
    let (current, newest) = if needs_metadata {
        let newest = match before {
            None => changes.first().map(|(c, _)| c.seq),
            Some(_) => {
                reader.record_history(table, &key, None, 1)?.changes.first().map(|(c, _)| c.seq)
            }
        };
        (reader.get(table, &key)?.map(|record| editors(&record.body)), newest)
    } else {
        (None, None)
    };
    let items = changes
        .into_iter()
        .map(|(change, bodies)| {
            let user_id = match &bodies {
                Some(bodies) => bodies.new.as_deref().and_then(|b| editors(b).updated),
                None => current.as_ref().and_then(|editors| match change.op {
                    Operation::Create => editors.created.clone(),
                    Operation::Update if Some(change.seq) == newest => editors.updated.clone(),
                    _ => None,
                }),
            };
            let diff = bodies.as_ref().and_then(diff_bodies);
            audit_item(tenant, change, user_id, diff)
        })
        .collect();
    Ok(History { inventory_audit_items: items, total_records: total })
}

fn audit_item(
    tenant: &str,
    change: Change,
    user_id: Option<String>,
    diff: Option<Diff>,
) -> AuditItem {
    let event_ts = chrono::DateTime::parse_from_rfc3339(&change.at)
        .map(|at| at.timestamp_millis())
        .unwrap_or_default();
    AuditItem {
        event_id: crate::event_id(tenant, change.seq),
        event_ts,
        event_date: change.at,
        entity_id: change.record_id,
        action: crate::envelope::inventory_type(change.op),
        user_id,
        diff,
    }
}

/// Milliseconds since the epoch as the change log writes its times, so that text
/// order is time order.
fn rfc3339_millis(ms: i64) -> String {
    let at = chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default();
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, false)
}

/// Who created a record and who changed it last, from its `metadata`.
#[derive(Debug, Default)]
struct Editors {
    created: Option<String>,
    updated: Option<String>,
}

fn editors(body: &str) -> Editors {
    #[derive(serde::Deserialize)]
    struct Probe {
        metadata: Option<Metadata>,
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Metadata {
        created_by_user_id: Option<String>,
        updated_by_user_id: Option<String>,
    }
    let metadata = serde_json::from_str::<Probe>(body).ok().and_then(|probe| probe.metadata);
    metadata.map_or_else(Editors::default, |m| Editors {
        created: m.created_by_user_id,
        updated: m.updated_by_user_id,
    })
}

/// Properties every write changes, which say nothing about what the user did.
const UNCOMPARED: &[&str] = &["metadata", "_version"];

/// The diff of an update whose bodies were both kept; none for a create or delete.
fn diff_bodies(bodies: &Bodies) -> Option<Diff> {
    let (Some(old), Some(new)) = (bodies.old.as_deref(), bodies.new.as_deref()) else {
        return None;
    };
    let (Ok(Value::Object(old)), Ok(Value::Object(new))) =
        (serde_json::from_str::<Value>(old), serde_json::from_str::<Value>(new))
    else {
        return None;
    };
    let mut diff = Diff::default();
    compare_objects("", &old, &new, &mut diff);
    Some(diff)
}

fn compare_objects(path: &str, old: &Map<String, Value>, new: &Map<String, Value>, out: &mut Diff) {
    let names: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for name in names {
        if path.is_empty() && UNCOMPARED.contains(&name.as_str()) {
            continue;
        }
        let full_path = if path.is_empty() { name.clone() } else { format!("{path}.{name}") };
        compare(name, &full_path, old.get(name), new.get(name), out);
    }
}

fn compare(name: &str, path: &str, old: Option<&Value>, new: Option<&Value>, out: &mut Diff) {
    // A missing property, null and an empty list all mean "none".
    let present = |v: Option<&Value>| {
        v.filter(|v| !v.is_null() && v.as_array().is_none_or(|a| !a.is_empty())).cloned()
    };
    let (old, new) = (present(old), present(new));
    if old == new {
        return;
    }
    match (&old, &new) {
        (Some(Value::Object(o)), Some(Value::Object(n))) => compare_objects(path, o, n, out),
        (Some(Value::Array(_)) | None, Some(Value::Array(_)) | None)
            if old.is_some() || new.is_some() =>
        {
            let empty = Vec::new();
            let o = old.as_ref().and_then(Value::as_array).unwrap_or(&empty);
            let n = new.as_ref().and_then(Value::as_array).unwrap_or(&empty);
            let removed = o.iter().filter(|v| !n.contains(v)).map(|v| ItemChange {
                change_type: ChangeType::Removed,
                old_value: Some(v.clone()),
                new_value: None,
            });
            let added = n.iter().filter(|v| !o.contains(v)).map(|v| ItemChange {
                change_type: ChangeType::Added,
                old_value: None,
                new_value: Some(v.clone()),
            });
            let item_changes: Vec<ItemChange> = removed.chain(added).collect();
            // The same members in another order is no change a reader would see.
            if !item_changes.is_empty() {
                out.collection_changes
                    .push(CollectionChange { collection_name: path.to_string(), item_changes });
            }
        }
        _ => {
            let change_type = match (&old, &new) {
                (None, _) => ChangeType::Added,
                (_, None) => ChangeType::Removed,
                _ => ChangeType::Modified,
            };
            out.field_changes.push(FieldChange {
                change_type,
                field_name: name.to_string(),
                full_path: path.to_string(),
                old_value: old,
                new_value: new,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(old: &str, new: &str) -> Value {
        let bodies = Bodies { old: Some(old.to_string()), new: Some(new.to_string()) };
        serde_json::to_value(diff_bodies(&bodies).unwrap()).unwrap()
    }

    #[test]
    fn a_diff_names_fields_by_path_and_lists_by_member() {
        let old = r#"{"id":"i","_version":1,"title":"Old","hrid":"in1","source":"FOLIO",
            "publication":[{"publisher":"P"}],"languages":["eng"],"staffSuppress":false,
            "dates":{"date1":"1990"},"metadata":{"updatedDate":"a"}}"#;
        let new = r#"{"id":"i","_version":2,"title":"New","source":"FOLIO",
            "publication":[{"publisher":"P"}],"languages":["fre","eng"],"staffSuppress":false,
            "editions":[],"dates":{"date1":"1991"},"catalogedDate":"2024-01-01",
            "metadata":{"updatedDate":"b"}}"#;
        let expected = serde_json::json!({
            "fieldChanges": [
                {"changeType": "ADDED", "fieldName": "catalogedDate",
                 "fullPath": "catalogedDate", "newValue": "2024-01-01"},
                {"changeType": "MODIFIED", "fieldName": "date1", "fullPath": "dates.date1",
                 "oldValue": "1990", "newValue": "1991"},
                {"changeType": "REMOVED", "fieldName": "hrid", "fullPath": "hrid",
                 "oldValue": "in1"},
                {"changeType": "MODIFIED", "fieldName": "title", "fullPath": "title",
                 "oldValue": "Old", "newValue": "New"},
            ],
            "collectionChanges": [
                {"collectionName": "languages",
                 "itemChanges": [{"changeType": "ADDED", "newValue": "fre"}]},
            ],
        });
        assert_eq!(check(old, new), expected);
        let same = r#"{"languages":["a","b"],"notes":[]}"#;
        let reordered = r#"{"languages":["b","a"],"_version":3}"#;
        assert_eq!(
            check(same, reordered),
            serde_json::json!({
                "fieldChanges": [], "collectionChanges": [],
            })
        );
    }

    #[test]
    fn event_times_page_in_the_logs_own_format() {
        let at = "2026-11-30T06:28:13.435+00:00";
        let ms = chrono::DateTime::parse_from_rfc3339(at).unwrap().timestamp_millis();
        assert_eq!(rfc3339_millis(ms), at);
    }
}
