//! Patron blocks: manual blocks staff place (mod-feesfines `manualblockdata.json`), and
//! the conditions and per-group limits automated blocks are computed from
//! (mod-patron-blocks `patron-block-condition.json`, `patron-block-limit.json`).

use folio::{Metadata, Timestamp};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::Other;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManualBlock {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub user_id: Uuid,
    pub desc: String,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub block_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patron_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staff_information: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_date: Option<Timestamp>,
    #[serde(default)]
    pub borrowing: bool,
    #[serde(default)]
    pub renewals: bool,
    #[serde(default)]
    pub requests: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: Other,
}

impl ManualBlock {
    /// A block applies until its expiration date, if it has one.
    pub fn in_force_at(&self, now: chrono::DateTime<chrono::Utc>) -> bool {
        self.expiration_date.is_none_or(|e| e.as_datetime() > now)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PatronBlockCondition {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    #[serde(default)]
    pub block_borrowing: bool,
    #[serde(default)]
    pub block_renewals: bool,
    #[serde(default)]
    pub block_requests: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: Other,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PatronBlockLimit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub patron_group_id: Uuid,
    pub condition_id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: Other,
}
