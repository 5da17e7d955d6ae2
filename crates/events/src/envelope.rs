//! FOLIO's event for one change: its topic, key, headers and value, built from the
//! change-log row and the bodies kept beside it. No I/O.
//!
//! FOLIO's modules wrap their events three ways, and Quire writes each as the module
//! that owns the record does (`../shared/reference/folio-import-bulk-events.md` C):
//! - inventory (mod-inventory-storage, and mod-entities-links for authorities):
//!   `{eventId, eventTs, type CREATE|UPDATE|DELETE, tenant, old, new}`; an item's
//!   `old`/`new` carry its `instanceId`, which mod-search needs;
//! - circulation storage and users: `{id, type CREATED|UPDATED|DELETED, tenant,
//!   timestamp, data {old, new}}`;
//! - source records (SRS): the pub-sub envelope `{id, eventType, eventMetadata,
//!   eventPayload}` whose payload is the JSON text of `{old, new}`, records without
//!   their raw and error parts.
//!
//! Bodies are spliced into the value as stored, not parsed and written again: they are
//! JSON already, and a publisher that parsed every body would spend most of its time
//! there. Source records are the exception, as their stored form is not FOLIO's.

use std::fmt::Write as _;

use store::{Bodies, Change, Operation};

/// The record types published, each with its topic (after `{env}.{tenant}.`) and its
/// envelope. A record type the change log writes that is not here is not published.
pub const TOPICS: &[(&str, &str, Envelope)] = &[
    ("instance", "inventory.instance", Envelope::Inventory),
    ("holdings", "inventory.holdings-record", Envelope::Inventory),
    ("item", "inventory.item", Envelope::Inventory),
    // mod-entities-links owns authorities since FOLIO Poppy; before, mod-inventory-storage
    // published them as `inventory.authority`.
    ("authority", "authorities.authority", Envelope::Inventory),
    ("loan", "circulation.loan", Envelope::Circulation),
    ("request", "circulation.request", Envelope::Circulation),
    ("check_in", "circulation.check-in", Envelope::Circulation),
    ("user", "users.users", Envelope::Circulation),
    ("usergroup", "users.userGroup", Envelope::Circulation),
    ("srs_record", "srs.source_records", Envelope::SourceRecord),
];

/// The record types of [`TOPICS`], for the store to keep their bodies.
pub fn record_types() -> Vec<&'static str> {
    TOPICS.iter().map(|(record_type, _, _)| *record_type).collect()
}

/// How a module wraps its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Envelope {
    Inventory,
    Circulation,
    SourceRecord,
}

/// One event, ready to produce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The topic after `{env}.{tenant}.`, e.g. `inventory.item`.
    pub topic: &'static str,
    /// The record's id: a record's events share a partition, so they stay in order.
    pub key: String,
    pub headers: Vec<(&'static str, String)>,
    pub value: String,
    /// The commit time, milliseconds since the epoch.
    pub timestamp: i64,
    /// The change's sequence number in the tenant's log.
    pub seq: i64,
}

/// What an event needs besides the change: an item's instance, looked up by the caller
/// from the item's holdings record (for the body before and after).
#[derive(Debug, Default, Clone)]
pub struct ItemInstances {
    pub old: Option<String>,
    pub new: Option<String>,
}

/// Why a change could not be made into an event.
#[derive(Debug, thiserror::Error)]
pub enum EnvelopeError {
    #[error("change {seq}: the stored source record cannot be read: {message}")]
    SourceRecord { seq: i64, message: String },
    #[error("change {seq}: commit time {at:?} is not RFC 3339")]
    Time { seq: i64, at: String },
}

/// The event id of a change: the same on every publication of it, so a consumer can
/// tell a replayed or re-sent event from a new one.
pub fn event_id(tenant: &str, seq: i64) -> uuid::Uuid {
    // A fixed namespace of Quire's own, so ids differ from other systems' v5 ids.
    const NAMESPACE: uuid::Uuid = uuid::Uuid::from_u128(0x5d3f_1c52_7a0e_4b8e_9a51_0c2e_8f6a_d417);
    uuid::Uuid::new_v5(&NAMESPACE, format!("{tenant}/{seq}").as_bytes())
}

/// The event of one change, or `None` when its record type is not published.
pub fn event(
    tenant: &str,
    change: &Change,
    bodies: &Bodies,
    instances: &ItemInstances,
) -> Result<Option<Event>, EnvelopeError> {
    let Some(&(_, topic, envelope)) = TOPICS.iter().find(|(t, _, _)| *t == change.record_type)
    else {
        return Ok(None);
    };
    let timestamp = chrono::DateTime::parse_from_rfc3339(&change.at)
        .map_err(|_| EnvelopeError::Time { seq: change.seq, at: change.at.clone() })?
        .timestamp_millis();
    let id = event_id(tenant, change.seq);
    let mut headers =
        vec![("folio.tenantId", tenant.to_string()), ("x-okapi-tenant", tenant.to_string())];
    if let Some(user) = bodies.new.as_deref().and_then(updated_by) {
        headers.push(("x-okapi-user-id", user));
    }
    let value = match envelope {
        Envelope::Inventory => {
            let with_instance = |body: &Option<String>, instance: &Option<String>| {
                body.as_deref().map(|body| match instance {
                    Some(instance) if change.record_type == "item" => {
                        with_instance_id(body, instance)
                    }
                    _ => body.to_string(),
                })
            };
            let old = with_instance(&bodies.old, &instances.old);
            let new = with_instance(&bodies.new, &instances.new);
            let kind = inventory_type(change.op);
            if change.record_type == "authority" {
                headers.push(("domain-event-type", kind.to_string()));
            }
            let mut value = format!(
                r#"{{"eventId":"{id}","eventTs":{timestamp},"type":"{kind}","tenant":{}"#,
                json_string(tenant)
            );
            push_bodies(&mut value, old.as_deref(), new.as_deref());
            value.push('}');
            value
        }
        Envelope::Circulation => {
            let kind = match change.op {
                Operation::Create => "CREATED",
                Operation::Update => "UPDATED",
                Operation::Delete => "DELETED",
            };
            let mut value = format!(
                r#"{{"id":"{id}","type":"{kind}","tenant":{},"timestamp":{timestamp},"data":{{"#,
                json_string(tenant)
            );
            let mut data = String::new();
            push_bodies(&mut data, bodies.old.as_deref(), bodies.new.as_deref());
            value.push_str(data.trim_start_matches(','));
            value.push_str("}}");
            value
        }
        Envelope::SourceRecord => {
            let error = |e: &dyn std::fmt::Display| EnvelopeError::SourceRecord {
                seq: change.seq,
                message: e.to_string(),
            };
            // FOLIO's SRS events carry the parsed record, not the raw one.
            let record = |body: &Option<String>| -> Result<Option<srs::Record>, EnvelopeError> {
                let Some(body) = body else { return Ok(None) };
                let mut record = srs::from_stored(body).map_err(|e| error(&e))?;
                record.raw_record = None;
                record.error_record = None;
                Ok(Some(record))
            };
            let (old, new) = (record(&bodies.old)?, record(&bodies.new)?);
            if let Some(record) = new.as_ref().or(old.as_ref()) {
                headers.push(("folio.srs.recordType", record.record_type.as_str().to_string()));
            }
            let kind = match change.op {
                Operation::Create => "SOURCE_RECORD_CREATED",
                Operation::Update => "SOURCE_RECORD_UPDATED",
                Operation::Delete => "SOURCE_RECORD_DELETED",
            };
            // FOLIO sends the payload as a string holding JSON. The records are written
            // straight into it: through `serde_json::Value`, and escaped as a second
            // string, they took most of a replay's time.
            let mut value = format!(
                r#"{{"id":"{id}","eventType":"{kind}","eventMetadata":{{"tenantId":{},"eventTTL":1,"publishedBy":"quire"}},"eventPayload":""#,
                json_string(tenant)
            )
            .into_bytes();
            let payload = SourcePayload { old: old.as_ref(), new: new.as_ref() };
            serde_json::to_writer(InString(&mut value), &payload).map_err(|e| error(&e))?;
            value.extend_from_slice(br#""}"#);
            String::from_utf8(value).expect("JSON text with ASCII escapes is UTF-8")
        }
    };
    Ok(Some(Event {
        topic,
        key: change.record_id.clone(),
        headers,
        value,
        timestamp,
        seq: change.seq,
    }))
}

/// The `eventPayload` of an SRS event, before it is made a string.
#[derive(serde::Serialize)]
struct SourcePayload<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    old: Option<&'a srs::Record>,
    #[serde(skip_serializing_if = "Option::is_none")]
    new: Option<&'a srs::Record>,
}

/// Writes JSON text as the contents of a JSON string. JSON text from serde_json has its
/// control characters escaped already, inside strings, and none outside them: only
/// quotes and backslashes are left to escape.
struct InString<'a>(&'a mut Vec<u8>);

impl std::io::Write for InString<'_> {
    fn write(&mut self, text: &[u8]) -> std::io::Result<usize> {
        let mut rest = text;
        while let Some(at) = memchr::memchr2(b'"', b'\\', rest) {
            self.0.extend_from_slice(&rest[..at]);
            self.0.extend_from_slice(&[b'\\', rest[at]]);
            rest = &rest[at + 1..];
        }
        self.0.extend_from_slice(rest);
        Ok(text.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// FOLIO's `type` of an inventory event, and mod-audit's `action`.
pub(crate) fn inventory_type(op: Operation) -> &'static str {
    match op {
        Operation::Create => "CREATE",
        Operation::Update => "UPDATE",
        Operation::Delete => "DELETE",
    }
}

/// Appends `,"old":…` and `,"new":…` for the bodies present.
fn push_bodies(value: &mut String, old: Option<&str>, new: Option<&str>) {
    if let Some(old) = old {
        value.push_str(r#","old":"#);
        value.push_str(old);
    }
    if let Some(new) = new {
        value.push_str(r#","new":"#);
        value.push_str(new);
    }
}

/// Who made a change, as its new body's `metadata.updatedByUserId` names them: FOLIO's
/// modules send the requesting user's id as `x-okapi-user-id`, and Quire stamps that id
/// there on every write. A delete has no new body and so no header, as FOLIO's header is
/// sent "when present".
fn updated_by(body: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Probe<'a> {
        #[serde(borrow)]
        metadata: Option<Metadata<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Metadata<'a> {
        #[serde(rename = "updatedByUserId", borrow)]
        updated_by: Option<std::borrow::Cow<'a, str>>,
    }
    let probe = serde_json::from_str::<Probe<'_>>(body).ok()?;
    probe.metadata?.updated_by.map(|user| user.into_owned())
}

/// An item's body with `instanceId` first, as FOLIO's item events carry it; a body that
/// has one already is left as it is.
fn with_instance_id(body: &str, instance: &str) -> String {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(rename = "instanceId")]
        instance_id: Option<serde::de::IgnoredAny>,
    }
    let has_one = serde_json::from_str::<Probe>(body).is_ok_and(|p| p.instance_id.is_some());
    let Some(rest) = body.trim_start().strip_prefix('{') else { return body.to_string() };
    if has_one {
        return body.to_string();
    }
    let mut spliced = String::with_capacity(body.len() + 64);
    let _ = write!(spliced, r#"{{"instanceId":{}"#, json_string(instance));
    if !rest.trim_start().starts_with('}') {
        spliced.push(',');
    }
    spliced.push_str(rest);
    spliced
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(record_type: &str, op: Operation) -> Change {
        Change {
            seq: 7,
            record_type: record_type.to_string(),
            record_id: "1b2c3d4e-0000-4000-8000-000000000001".to_string(),
            op,
            at: "2026-11-29T10:11:12.123+00:00".to_string(),
        }
    }

    fn bodies(old: Option<&str>, new: Option<&str>) -> Bodies {
        Bodies { old: old.map(String::from), new: new.map(String::from) }
    }

    fn json(value: &str) -> serde_json::Value {
        serde_json::from_str(value).expect("the value is JSON")
    }

    #[test]
    fn json_written_into_a_string_reads_back_as_itself() {
        let text = serde_json::json!({"a": "say \"hi\" \\ there\n\u{1}", "b": ["\\\"", 1]});
        let mut value = b"\"".to_vec();
        serde_json::to_writer(InString(&mut value), &text).unwrap();
        value.push(b'"');
        let inner: String = serde_json::from_slice(&value).unwrap();
        assert_eq!(serde_json::from_str::<serde_json::Value>(&inner).unwrap(), text);
    }

    #[test]
    fn an_item_update_is_inventorys_envelope_with_the_instance_id() {
        let instances = ItemInstances { old: Some("i-old".into()), new: Some("i-new".into()) };
        let event = event(
            "diku",
            &change("item", Operation::Update),
            &bodies(Some(r#"{"id":"x","barcode":"1"}"#), Some(r#" {"id":"x","barcode":"2"}"#)),
            &instances,
        )
        .unwrap()
        .unwrap();
        assert_eq!(event.topic, "inventory.item");
        assert_eq!(event.key, "1b2c3d4e-0000-4000-8000-000000000001");
        assert_eq!(event.timestamp, 1_795_947_072_123);
        assert!(event.headers.contains(&("folio.tenantId", "diku".to_string())));
        let value = json(&event.value);
        assert_eq!(value["type"], "UPDATE");
        assert_eq!(value["tenant"], "diku");
        assert_eq!(value["eventTs"], 1_795_947_072_123_i64);
        assert_eq!(value["eventId"], event_id("diku", 7).to_string());
        assert_eq!(value["old"], json(r#"{"instanceId":"i-old","id":"x","barcode":"1"}"#));
        assert_eq!(value["new"], json(r#"{"instanceId":"i-new","id":"x","barcode":"2"}"#));
    }

    #[test]
    fn the_user_who_made_a_change_is_its_user_id_header() {
        let user = "0d1f4a1e-5b0c-4c1a-9d2e-000000000042";
        let new = format!(r#"{{"id":"x","metadata":{{"updatedByUserId":"{user}"}}}}"#);
        let user_of = |op, bodies: &Bodies| {
            let event = event("t", &change("instance", op), bodies, &Default::default());
            let event = event.unwrap().unwrap();
            event.headers.iter().find(|(name, _)| *name == "x-okapi-user-id").map(|h| h.1.clone())
        };
        assert_eq!(user_of(Operation::Update, &bodies(Some("{}"), Some(&new))), Some(user.into()));
        assert_eq!(user_of(Operation::Create, &bodies(None, Some(r#"{"id":"x"}"#))), None);
        assert_eq!(user_of(Operation::Delete, &bodies(Some(&new), None)), None);
    }

    #[test]
    fn creates_and_deletes_carry_one_body() {
        let created = event(
            "t",
            &change("instance", Operation::Create),
            &bodies(None, Some("{}")),
            &Default::default(),
        )
        .unwrap()
        .unwrap();
        let value = json(&created.value);
        assert_eq!(
            (value["type"].as_str(), value.get("old"), &value["new"]),
            (Some("CREATE"), None, &json("{}"))
        );
        let deleted = event(
            "t",
            &change("loan", Operation::Delete),
            &bodies(Some(r#"{"a":1}"#), None),
            &Default::default(),
        )
        .unwrap()
        .unwrap();
        let value = json(&deleted.value);
        assert_eq!(deleted.topic, "circulation.loan");
        assert_eq!(value["type"], "DELETED");
        assert_eq!(value["data"], json(r#"{"old":{"a":1}}"#));
        assert_eq!(value["timestamp"], 1_795_947_072_123_i64);
    }

    #[test]
    fn an_item_keeps_an_instance_id_it_has_and_an_empty_body_gets_one() {
        assert_eq!(with_instance_id(r#"{"instanceId":"a"}"#, "b"), r#"{"instanceId":"a"}"#);
        assert_eq!(json(&with_instance_id("{ }", "b")), json(r#"{"instanceId":"b"}"#));
    }

    #[test]
    fn record_types_not_published_make_no_event() {
        let none = event(
            "t",
            &change("loan_policy", Operation::Create),
            &bodies(None, Some("{}")),
            &Default::default(),
        );
        assert!(none.unwrap().is_none());
    }

    #[test]
    fn an_authority_event_names_its_type_in_a_header() {
        let event = event(
            "t",
            &change("authority", Operation::Delete),
            &bodies(Some("{}"), None),
            &Default::default(),
        )
        .unwrap()
        .unwrap();
        assert_eq!(event.topic, "authorities.authority");
        assert!(event.headers.contains(&("domain-event-type", "DELETE".to_string())));
    }
}
