//! The stored form of an SRS record: what the `body` column of `srs_records` holds.
//!
//! `<envelope JSON>\n<MARC>`: the envelope is the record's JSON without `rawRecord.content`
//! and `parsedRecord.content`, plus the record's ordinal; the MARC after the newline is
//! the parsed record in ISO 2709 (UTF-8 text, since the codec writes UTF-8 only).
//!
//! Why: an LC bibliographic record is about 1.5 KB in ISO 2709 and three times that as
//! FOLIO's MARC-in-JSON, and FOLIO keeps both the raw and the parsed form. Storing the
//! MARC once, in its most compact form, keeps a million records near 1.6 GB instead of
//! 6 GB, and decoding ISO 2709 (8 µs a record) is cheaper than parsing the JSON
//! (23 µs). Responses stay identical because nothing is lost on the way:
//! - `rawRecord.content` is dropped only when it is exactly the ISO 2709 text of the
//!   parsed record (true of imported and generated records); otherwise it is kept in the
//!   envelope verbatim.
//! - ISO 2709 recomputes leader/00-04 and 12-16; when the parsed leader said something
//!   else, the envelope keeps the leader as sent.
//! - A record ISO 2709 cannot hold (over 99,999 bytes) keeps MARC-in-JSON instead.
//!
//! The compact JSON of the envelope never holds a raw newline, so the first newline is
//! the separator. [`FORMAT`] versions the layout.

use serde::{Deserialize, Serialize};

use crate::model::{ParsedRecord, RawRecord, Record};
use crate::storage::{Error, Result};

/// The version of the stored layout, written into every envelope.
pub(crate) const FORMAT: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Form {
    /// The tail is ISO 2709.
    Iso,
    /// The tail is MARC-in-JSON.
    Json,
    /// There is no parsed record.
    None,
}

#[derive(Serialize, Deserialize)]
struct Envelope<R> {
    v: u32,
    ord: u32,
    marc: Form,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    raw: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    leader: Option<String>,
    record: R,
}

/// Writes a record's stored form. `record` keeps its contents; they are moved out
/// of a copy of the envelope, not cloned.
pub(crate) fn encode(record: &Record, ord: u32) -> Result<String> {
    let parsed = record.parsed_record.as_ref().and_then(|p| p.content.as_ref());
    let (form, tail, leader) = match parsed {
        None => (Form::None, String::new(), None),
        Some(marc) => iso_or_json(marc),
    };
    let raw_content = record.raw_record.as_ref().and_then(|r| r.content.as_deref());
    let raw = match raw_content {
        Some(raw) if form == Form::Iso && raw == tail => None,
        other => other.map(str::to_string),
    };
    let stripped = Stripped(record);
    let envelope = Envelope { v: FORMAT, ord, marc: form, raw, leader, record: stripped };
    let mut body = serde_json::to_string(&envelope).map_err(|e| Error::Corrupt(e.to_string()))?;
    body.push('\n');
    body.push_str(&tail);
    Ok(body)
}

fn iso_or_json(marc: &marc::Record) -> (Form, String, Option<String>) {
    if let Ok(bytes) = marc::encode(marc)
        && let Ok(text) = String::from_utf8(bytes)
    {
        let leader = (text.get(..24) != Some(marc.leader().as_str()))
            .then(|| marc.leader().as_str().to_string());
        return (Form::Iso, text, leader);
    }
    (Form::Json, marc::json::to_string(marc), None)
}

/// Serialises a record without its two contents.
struct Stripped<'a>(&'a Record);

impl Serialize for Stripped<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        // Cheap: the contents are the only large parts, and they are set aside.
        let mut copy = Record {
            raw_record: self.0.raw_record.as_ref().map(|r| RawRecord { id: r.id, content: None }),
            parsed_record: None,
            ..self.0.clone_without_contents()
        };
        copy.parsed_record = self.0.parsed_record.as_ref().map(|p| ParsedRecord {
            id: p.id,
            content: None,
            formatted_content: None,
        });
        copy.serialize(s)
    }
}

impl Record {
    fn clone_without_contents(&self) -> Record {
        Record {
            id: self.id,
            snapshot_id: self.snapshot_id,
            matched_id: self.matched_id,
            matched_profile_id: self.matched_profile_id,
            generation: self.generation,
            record_type: self.record_type,
            raw_record: None,
            parsed_record: None,
            error_record: self.error_record.clone(),
            deleted: self.deleted,
            order: self.order,
            external_ids_holder: self.external_ids_holder.clone(),
            additional_info: self.additional_info.clone(),
            state: self.state,
            leader_record_status: self.leader_record_status.clone(),
            metadata: self.metadata.clone(),
        }
    }
}

/// A stored record, read back whole.
pub(crate) struct Decoded {
    pub(crate) ord: u32,
    pub(crate) record: Record,
}

/// Reads a stored record back into the model, with both contents.
pub(crate) fn decode(body: &str) -> Result<Decoded> {
    let (head, tail) = body.split_once('\n').ok_or_else(|| corrupt("no separator"))?;
    let envelope: Envelope<Record> =
        serde_json::from_str(head).map_err(|e| corrupt(&e.to_string()))?;
    if envelope.v != FORMAT {
        return Err(corrupt(&format!("stored format {} is not {FORMAT}", envelope.v)));
    }
    let mut record = envelope.record;
    let marc = marc_of(envelope.marc, tail, envelope.leader.as_deref())?;
    if let Some(raw) = record.raw_record.as_mut() {
        raw.content = Some(match envelope.raw {
            Some(raw) => raw,
            None => tail.to_string(),
        });
    }
    if let Some(parsed) = record.parsed_record.as_mut() {
        parsed.content = marc;
    }
    Ok(Decoded { ord: envelope.ord, record })
}

fn marc_of(form: Form, tail: &str, leader: Option<&str>) -> Result<Option<marc::Record>> {
    let mut marc = match form {
        Form::None => return Ok(None),
        Form::Iso => marc::decode(tail.as_bytes()).map_err(|e| corrupt(&e.to_string()))?,
        Form::Json => marc::json::from_str(tail).map_err(|e| corrupt(&e.to_string()))?,
    };
    if let Some(leader) = leader {
        *marc.leader_mut() = marc::Leader::new(leader).map_err(|e| corrupt(&e.to_string()))?;
    }
    Ok(Some(marc))
}

/// What the MARC index needs of a stored record, read without building the JSON model:
/// a few envelope fields, and the MARC as byte slices (straight from the ISO 2709 when
/// it is stored so).
pub(crate) struct IndexView<'a> {
    pub(crate) ord: u32,
    /// The instance id of a MARC bibliographic record; `None` for other types.
    pub(crate) instance: Option<uuid::Uuid>,
    pub(crate) state: crate::model::State,
    pub(crate) suppressed: bool,
    form: Form,
    leader: Option<std::borrow::Cow<'a, str>>,
    tail: &'a str,
}

#[derive(Deserialize)]
struct IndexEnvelope<'a> {
    v: u32,
    ord: u32,
    marc: Form,
    #[serde(default, borrow)]
    leader: Option<std::borrow::Cow<'a, str>>,
    record: IndexFields,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IndexFields {
    record_type: crate::model::RecordType,
    #[serde(default)]
    external_ids_holder: Option<IndexIds>,
    #[serde(default)]
    additional_info: Option<crate::model::AdditionalInfo>,
    #[serde(default)]
    state: crate::model::State,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IndexIds {
    #[serde(default)]
    instance_id: Option<uuid::Uuid>,
}

pub(crate) fn decode_for_index(body: &str) -> Result<IndexView<'_>> {
    let (head, tail) = body.split_once('\n').ok_or_else(|| corrupt("no separator"))?;
    let envelope: IndexEnvelope<'_> =
        serde_json::from_str(head).map_err(|e| corrupt(&e.to_string()))?;
    if envelope.v != FORMAT {
        return Err(corrupt(&format!("stored format {} is not {FORMAT}", envelope.v)));
    }
    let record = envelope.record;
    let instance = match record.record_type {
        crate::model::RecordType::MarcBib => record.external_ids_holder.and_then(|h| h.instance_id),
        _ => None,
    };
    Ok(IndexView {
        ord: envelope.ord,
        instance,
        state: record.state,
        suppressed: record.additional_info.is_some_and(|i| i.suppress_discovery),
        form: envelope.marc,
        leader: envelope.leader,
        tail,
    })
}

impl IndexView<'_> {
    /// Reads the MARC into `flat`; `false` when the record has none.
    pub(crate) fn read_marc(&self, flat: &mut crate::flat::FlatRecord) -> Result<bool> {
        if self.form == Form::Iso && flat.read_iso(self.tail) {
            // A leader kept as sent replaces the computed one, as in `marc_of`.
            if let Some(leader) = &self.leader {
                let leader = marc::Leader::new(leader).map_err(|e| corrupt(&e.to_string()))?;
                flat.leader = *leader.as_bytes();
            }
            return Ok(true);
        }
        match marc_of(self.form, self.tail, self.leader.as_deref())? {
            Some(marc) => {
                flat.read_record(&marc);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

fn corrupt(what: &str) -> Error {
    Error::Corrupt(format!("stored record: {what}"))
}
