//! Policies: loan, request, notice, overdue fine and lost item fee, and the fixed due
//! date schedules loan policies point to.

use chrono::{DateTime, Duration, Months, Utc};
use folio::{Metadata, Timestamp};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::Other;

/// The unit of a loan policy period (`intervalId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Interval {
    Minutes,
    Hours,
    Days,
    Weeks,
    Months,
}

/// A duration in a loan policy (`{duration, intervalId}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Period {
    pub duration: u32,
    pub interval_id: Interval,
}

impl Period {
    /// `from` plus this period. Months are calendar months, clamped to the month's
    /// end (31 January + 1 month = 28 or 29 February), as java.time does.
    pub fn after(self, from: DateTime<Utc>) -> DateTime<Utc> {
        let n = i64::from(self.duration);
        match self.interval_id {
            Interval::Minutes => from + Duration::minutes(n),
            Interval::Hours => from + Duration::hours(n),
            Interval::Days => from + Duration::days(n),
            Interval::Weeks => from + Duration::weeks(n),
            Interval::Months => from.checked_add_months(Months::new(self.duration)).unwrap_or(from),
        }
    }

    /// `from` minus this period.
    pub fn before(self, from: DateTime<Utc>) -> DateTime<Utc> {
        let n = i64::from(self.duration);
        match self.interval_id {
            Interval::Minutes => from - Duration::minutes(n),
            Interval::Hours => from - Duration::hours(n),
            Interval::Days => from - Duration::days(n),
            Interval::Weeks => from - Duration::weeks(n),
            Interval::Months => from.checked_sub_months(Months::new(self.duration)).unwrap_or(from),
        }
    }

    /// Loans of minutes or hours are short-term: their due date keeps its time of day.
    /// Longer loans fall due at the end of a day.
    pub fn is_short_term(self) -> bool {
        matches!(self.interval_id, Interval::Minutes | Interval::Hours)
    }

    /// The period as minutes, months counted as 31 days (for grace periods only).
    pub fn minutes(self) -> i64 {
        let n = i64::from(self.duration);
        match self.interval_id {
            Interval::Minutes => n,
            Interval::Hours => n * 60,
            Interval::Days => n * 60 * 24,
            Interval::Weeks => n * 60 * 24 * 7,
            Interval::Months => n * 60 * 24 * 31,
        }
    }
}

/// How a loan policy computes due dates (`loansPolicy.profileId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LoanProfile {
    Rolling,
    Fixed,
    Indefinite,
}

/// A loan policy (mod-circulation-storage `loan-policy.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoanPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub loanable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loans_policy: Option<LoansPolicy>,
    pub renewable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renewals_policy: Option<RenewalsPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_management: Option<RequestManagement>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: Other,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoansPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_id: Option<LoanProfile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<Period>,
    /// FOLIO's closed-library strategy name (`CURRENT_DUE_DATE`, ...), applied by
    /// `due_date.rs` over the service point's calendars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_library_due_date_management_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_period: Option<Period>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed_due_date_schedule_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_limit: Option<u32>,
    /// How long after the desk opens a short-term loan falls due when it would fall due
    /// while closed (`BEGINNING_OF_THE_NEXT_OPEN_SERVICE_POINT_HOURS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_time_offset: Option<Period>,
    #[serde(flatten)]
    pub other: Other,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenewalsPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unlimited: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number_allowed: Option<u32>,
    /// `CURRENT_DUE_DATE` or `SYSTEM_DATE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renew_from_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub different_period: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<Period>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternate_fixed_due_date_schedule_id: Option<Uuid>,
    #[serde(flatten)]
    pub other: Other,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestManagement {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recalls: Option<Recalls>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holds: Option<Holds>,
    #[serde(flatten)]
    pub other: Other,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recalls {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum_guaranteed_loan_period: Option<Period>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recall_return_interval: Option<Period>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_recalls_to_extend_overdue_loans: Option<bool>,
    #[serde(flatten)]
    pub other: Other,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Holds {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternate_checkout_loan_period: Option<Period>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renew_items_with_request: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternate_renewal_loan_period: Option<Period>,
    #[serde(flatten)]
    pub other: Other,
}

impl LoanPolicy {
    pub fn profile(&self) -> Option<LoanProfile> {
        self.loans_policy.as_ref().and_then(|l| l.profile_id)
    }

    pub fn recalls(&self) -> Option<&Recalls> {
        self.request_management.as_ref().and_then(|r| r.recalls.as_ref())
    }

    pub fn holds(&self) -> Option<&Holds> {
        self.request_management.as_ref().and_then(|r| r.holds.as_ref())
    }
}

/// One range of a fixed due date schedule: loans made between `from` and `to` fall due
/// at `due`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleEntry {
    pub from: Timestamp,
    pub to: Timestamp,
    pub due: Timestamp,
}

/// A fixed due date schedule (mod-circulation-storage `fixed-due-date-schedule.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FixedDueDateSchedule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub schedules: Vec<ScheduleEntry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: Other,
}

impl FixedDueDateSchedule {
    /// The range that holds `date` (inclusive at both ends), if any.
    pub fn entry_for(&self, date: DateTime<Utc>) -> Option<&ScheduleEntry> {
        self.schedules.iter().find(|e| e.from.as_datetime() <= date && date <= e.to.as_datetime())
    }
}

/// A request policy (`request-policy.json`): which request types it allows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub request_types: Vec<super::RequestType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: Other,
}

/// A patron notice policy (`patron-notice-policy.json`). Stored, not acted on: Quire
/// sends no notices yet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NoticePolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: Other,
}

/// A slip template the desk prints (`staff-slips-storage`): FOLIO's UI reads them on
/// every check-in page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StaffSlip {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
    pub template: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: Other,
}

/// The unit of an overdue fine rate (mod-feesfines `intervalId`, lower case).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FineInterval {
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Year,
}

impl FineInterval {
    pub fn minutes(self) -> i64 {
        match self {
            FineInterval::Minute => 1,
            FineInterval::Hour => 60,
            FineInterval::Day => 60 * 24,
            FineInterval::Week => 60 * 24 * 7,
            FineInterval::Month => 60 * 24 * 31,
            FineInterval::Year => 60 * 24 * 365,
        }
    }
}

/// `{quantity, intervalId}`: so much money per interval overdue.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FineRate {
    #[serde(default)]
    pub quantity: f64,
    pub interval_id: FineInterval,
}

/// An overdue fine policy (mod-feesfines `overdue-fine-policy.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OverdueFinePolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overdue_fine: Option<FineRate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count_closed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_overdue_fine: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forgive_overdue_fine: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overdue_recall_fine: Option<FineRate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_period_recall: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_overdue_recall_fine: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: Other,
}

/// A lost item fee policy (mod-feesfines `lost-item-fee-policy.json`). Stored; aging to
/// lost and billing are not run yet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LostItemFeePolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// What a lost item costs the patron.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charge_amount_item: Option<ChargeAmount>,
    /// The processing fee charged on top, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_item_processing_fee: Option<f64>,
    /// ... when a patron's item is declared lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charge_amount_item_patron: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: Other,
}

/// A lost item's charge: a set amount (`anotherCost`), or the item's actual cost, which
/// staff work out later (`actualCost`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChargeAmount {
    pub charge_type: String,
    #[serde(default)]
    pub amount: f64,
}
