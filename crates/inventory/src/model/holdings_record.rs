//! `HoldingsRecord`: what a library holds of an instance at one location (FOLIO
//! `holdings-storage/holdingsRecord.json`) and the types nested in it.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use folio::Metadata;

use crate::model::nullable;
use crate::model::{CallNumberComponents, ElectronicAccess, Tags, Virtual};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HoldingsRecord {
    /// Assigned by the server when a create request has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    #[serde(default, rename = "_version", skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
    /// A `/holdings-sources` record (FOLIO, MARC).
    pub source_id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hrid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holdings_type_id: Option<Uuid>,
    #[serde(default, deserialize_with = "nullable::set")]
    pub former_ids: Vec<String>,
    pub instance_id: Uuid,
    pub permanent_location_id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temporary_location_id: Option<Uuid>,
    /// Read-only, derived by the server: temporary location, else permanent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_location_id: Option<Uuid>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub electronic_access: Vec<ElectronicAccess>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub additional_call_numbers: Vec<CallNumberComponents>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_number_type_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_number_prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_number_suffix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shelving_title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acquisition_format: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acquisition_method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt_status: Option<String>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub administrative_notes: Vec<String>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub notes: Vec<HoldingsNote>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ill_policy_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_policy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digitization_policy: Option<String>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub holdings_statements: Vec<HoldingsStatement>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub holdings_statements_for_indexes: Vec<HoldingsStatement>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub holdings_statements_for_supplements: Vec<HoldingsStatement>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_number: Option<String>,
    /// Free text in FOLIO (`"3"`, `"3 v."`), not a count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number_of_items: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiving_history: Option<ReceivingHistory>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovery_suppress: Option<bool>,
    #[serde(default, deserialize_with = "nullable::set")]
    pub statistical_code_ids: Vec<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Tags>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// Read-only in FOLIO: the items and instance a holdings record's GET may embed; a
    /// PUT drops them.
    #[serde(default, skip_serializing)]
    pub holdings_items: Virtual,
    #[serde(default, skip_serializing)]
    pub bare_holdings_items: Virtual,
    #[serde(default, skip_serializing)]
    pub holdings_instance: Virtual,
}

impl HoldingsRecord {
    /// Recomputes `effectiveLocationId` as FOLIO's holdings storage does on every
    /// create and update: the temporary location if set, else the permanent one.
    pub fn derive_effective_fields(&mut self) {
        self.effective_location_id =
            Some(self.temporary_location_id.unwrap_or(self.permanent_location_id));
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HoldingsNote {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holdings_note_type_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, deserialize_with = "nullable::or_default")]
    pub staff_only: bool,
}

/// A textual holdings statement (`v.1-10 (1990-1999)`) with its notes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HoldingsStatement {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staff_note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReceivingHistory {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_type: Option<String>,
    #[serde(default, deserialize_with = "nullable::vec")]
    pub entries: Vec<ReceivingHistoryEntry>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReceivingHistoryEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_display: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enumeration: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chronology: Option<String>,
}
