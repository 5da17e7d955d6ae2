//! FOLIO's SRS models: `Record`, `SourceRecord` and `Snapshot`, as
//! mod-source-record-storage's JSON schemas define them.
//!
//! Owns the wire shapes only; the rules (ids, state, `deleted`, 005 on delete) are in
//! `records.rs` and `snapshots.rs`.

use folio::Metadata;
use serde::{Deserialize, Deserializer, Serialize};
use uuid::Uuid;

/// `recordType`: the kinds of MARC record Quire's SRS stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RecordType {
    MarcBib,
    MarcAuthority,
    MarcHolding,
}

impl RecordType {
    pub fn as_str(self) -> &'static str {
        match self {
            RecordType::MarcBib => "MARC_BIB",
            RecordType::MarcAuthority => "MARC_AUTHORITY",
            RecordType::MarcHolding => "MARC_HOLDING",
        }
    }

    pub fn parse(s: &str) -> Option<RecordType> {
        [RecordType::MarcBib, RecordType::MarcAuthority, RecordType::MarcHolding]
            .into_iter()
            .find(|t| t.as_str() == s)
    }
}

/// `state` of a record generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum State {
    #[default]
    Actual,
    Old,
    Draft,
    Deleted,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Actual => "ACTUAL",
            State::Old => "OLD",
            State::Draft => "DRAFT",
            State::Deleted => "DELETED",
        }
    }

    pub fn parse(s: &str) -> Option<State> {
        [State::Actual, State::Old, State::Draft, State::Deleted]
            .into_iter()
            .find(|t| t.as_str() == s)
    }
}

/// `rawRecord`: the record as it arrived (ISO 2709 text for imported records).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RawRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Always present on a stored record; absent only while being stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// `parsedRecord`: the MARC record as MARC-in-JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ParsedRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// FOLIO clients send the content as a JSON object or as a string holding one
    /// (data import does the latter); both are read, an object is written.
    #[serde(default, deserialize_with = "marc_content", skip_serializing_if = "Option::is_none")]
    pub content: Option<marc::Record>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formatted_content: Option<String>,
}

fn marc_content<'de, D: Deserializer<'de>>(d: D) -> Result<Option<marc::Record>, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    let record = match &value {
        serde_json::Value::Null => return Ok(None),
        serde_json::Value::String(text) => marc::json::from_str(text),
        other => marc::json::from_value(other),
    };
    record.map(Some).map_err(serde::de::Error::custom)
}

/// `externalIdsHolder`: the Inventory records a source record describes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExternalIdsHolder {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_hrid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holdings_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holdings_hrid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authority_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authority_hrid: Option<String>,
}

/// `additionalInfo`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AdditionalInfo {
    #[serde(default)]
    pub suppress_discovery: bool,
}

/// An SRS record (`record.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Record {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub snapshot_id: Uuid,
    /// Stable across generations; defaults to the id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_profile_id: Option<Uuid>,
    #[serde(default)]
    pub generation: i64,
    pub record_type: RecordType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_record: Option<RawRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parsed_record: Option<ParsedRecord>,
    /// Kept as sent: Quire does not interpret error records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_record: Option<serde_json::Value>,
    /// Computed on every write: `state == DELETED` or leader/05 in `d`, `s`, `x`.
    #[serde(default)]
    pub deleted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_ids_holder: Option<ExternalIdsHolder>,
    #[serde(default)]
    pub additional_info: AdditionalInfo,
    #[serde(default)]
    pub state: State,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader_record_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl Record {
    /// The id of the Inventory record this one describes: instance, holdings or
    /// authority by record type (FOLIO's `records_lb.external_id`).
    pub fn external_id(&self) -> Option<Uuid> {
        let h = self.external_ids_holder.as_ref()?;
        match self.record_type {
            RecordType::MarcBib => h.instance_id,
            RecordType::MarcHolding => h.holdings_id,
            RecordType::MarcAuthority => h.authority_id,
        }
    }

    /// The HRID beside [`Record::external_id`].
    pub fn external_hrid(&self) -> Option<&str> {
        let h = self.external_ids_holder.as_ref()?;
        match self.record_type {
            RecordType::MarcBib => h.instance_hrid.as_deref(),
            RecordType::MarcHolding => h.holdings_hrid.as_deref(),
            RecordType::MarcAuthority => h.authority_hrid.as_deref(),
        }
    }

    /// The record as a `SourceRecord`.
    pub fn to_source_record(&self) -> SourceRecord {
        SourceRecord {
            record_id: self.id,
            snapshot_id: self.snapshot_id,
            record_type: self.record_type,
            parsed_record: self.parsed_record.clone(),
            deleted: self.deleted,
            generation: self.generation,
            order: self.order,
            external_ids_holder: self.external_ids_holder.clone(),
            additional_info: self.additional_info.clone(),
            metadata: self.metadata.clone(),
        }
    }
}

/// `sourceRecord.json`: a record without its raw form.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceRecord {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_id: Option<Uuid>,
    pub snapshot_id: Uuid,
    pub record_type: RecordType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parsed_record: Option<ParsedRecord>,
    pub deleted: bool,
    pub generation: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_ids_holder: Option<ExternalIdsHolder>,
    pub additional_info: AdditionalInfo,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The status of a snapshot (mod-source-record-manager's job execution status).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SnapshotStatus {
    New,
    Draft,
    ImportInProgress,
    ImportFinished,
    ParsingInProgress,
    ParsingFinished,
    ProcessingInProgress,
    ProcessingFinished,
    CommitInProgress,
    Committed,
    Error,
}

/// `snapshot.json`: the import job a record generation came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Snapshot {
    pub job_execution_id: Uuid,
    pub status: SnapshotStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processing_started_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}
