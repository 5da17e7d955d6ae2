//! `Account`: a fee or fine a patron owes (mod-feesfines `accountdata.json`), and the
//! check-in record circulation storage keeps (`check-in.json`).

use folio::{Metadata, Timestamp};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::Other;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountStatus {
    /// `Open` or `Closed`.
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub amount: f64,
    pub remaining: f64,
    pub status: AccountStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_status: Option<AccountStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fee_fine_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fee_fine_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fee_fine_owner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_id: Option<Uuid>,
    pub user_id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loan_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material_type_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub barcode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_date: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returned_date: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: Other,
}

impl Account {
    pub fn is_open(&self) -> bool {
        self.status.name.eq_ignore_ascii_case("Open")
    }
}

/// One check-in, as circulation storage logs it (`/check-in-storage/check-ins`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckIn {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub occurred_date_time: Timestamp,
    pub item_id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_status_prior_to_check_in: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_queue_size: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_location_id: Option<Uuid>,
    pub service_point_id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub performed_by_user_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: Other,
}
