//! `Loan`: an item lent to a patron (mod-circulation-storage `loan.json`).

use folio::{Metadata, Timestamp};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::Other;

/// `status.name` of a loan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LoanStatus {
    Open,
    Closed,
}

impl LoanStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            LoanStatus::Open => "Open",
            LoanStatus::Closed => "Closed",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoanStatusObject {
    pub name: LoanStatus,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Loan {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_user_id: Option<Uuid>,
    pub item_id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_effective_location_id_at_check_out: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<LoanStatusObject>,
    pub loan_date: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_date: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_date: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_return_date: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_comment: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renewal_count: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loan_policy_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkout_service_point_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkin_service_point_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patron_group_id_at_checkout: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_date_changed_by_recall: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overdue_fine_policy_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_item_policy_id: Option<Uuid>,
    /// When the item was declared lost (`declare-item-lost`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared_lost_date: Option<Timestamp>,
    /// When the patron says they returned the item (`claim-item-returned`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_returned_date: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: Other,
}

impl Loan {
    /// FOLIO treats a loan without a status as open.
    pub fn status(&self) -> LoanStatus {
        self.status.map_or(LoanStatus::Open, |s| s.name)
    }

    pub fn set_status(&mut self, status: LoanStatus) {
        self.status = Some(LoanStatusObject { name: status });
    }

    pub fn is_open(&self) -> bool {
        self.status() == LoanStatus::Open
    }
}
