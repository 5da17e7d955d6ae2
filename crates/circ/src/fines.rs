//! Overdue fines on late return (mod-circulation `OverdueFineService`): minutes late,
//! ignored within the loan policy's grace period, charged per started interval at the
//! overdue fine policy's rate, capped at its maximum.

use chrono::{DateTime, Utc};
use folio::{Actor, Timestamp};
use store::Writer;
use uuid::Uuid;

use crate::item_context::ItemContext;
use crate::model::{Account, AccountStatus, Loan, LoanPolicy, OverdueFinePolicy};
use crate::{Result, records};

/// FOLIO's fixed id of the automatic fee/fine type "Overdue fine" (mod-feesfines).
pub const OVERDUE_FINE_TYPE_ID: &str = "9523cb96-e752-40c2-89da-60f3961a488d";

/// The fine for returning `loan` at `returned`, in currency units; zero when none is due.
pub fn overdue_fine(
    loan: &Loan,
    loan_policy: Option<&LoanPolicy>,
    fine_policy: &OverdueFinePolicy,
    returned: DateTime<Utc>,
) -> f64 {
    let Some(due) = loan.due_date.map(|d| d.as_datetime()) else { return 0.0 };
    if returned <= due || fine_policy.count_closed.is_none() {
        return 0.0;
    }
    let minutes = (returned - due).num_minutes();
    let recalled = loan.due_date_changed_by_recall == Some(true);
    let ignore_grace = recalled && fine_policy.grace_period_recall == Some(false);
    let grace = loan_policy
        .and_then(|p| p.loans_policy.as_ref())
        .and_then(|l| l.grace_period)
        .map_or(0, |g| g.minutes());
    if !ignore_grace && minutes <= grace {
        return 0.0;
    }
    let (rate, max) = if recalled {
        (fine_policy.overdue_recall_fine, fine_policy.max_overdue_recall_fine)
    } else {
        (fine_policy.overdue_fine, fine_policy.max_overdue_fine)
    };
    let (Some(rate), Some(max)) = (rate, max) else { return 0.0 };
    let intervals = (minutes as f64 / rate.interval_id.minutes() as f64).ceil();
    let mut fine = rate.quantity * intervals;
    if max > 0.0 {
        fine = fine.min(max);
    }
    (fine * 100.0).round() / 100.0
}

/// Charges an overdue fine to the borrower as an open account.
pub(crate) fn charge(
    writer: &mut Writer<'_>,
    loan: &Loan,
    item: &ItemContext,
    amount: f64,
    returned: DateTime<Utc>,
    actor: Actor,
) -> Result<Account> {
    let account = Account {
        id: Some(Uuid::new_v4()),
        amount,
        remaining: amount,
        status: AccountStatus { name: "Open".to_string() },
        payment_status: Some(AccountStatus { name: "Outstanding".to_string() }),
        fee_fine_type: Some("Overdue fine".to_string()),
        fee_fine_id: Uuid::parse_str(OVERDUE_FINE_TYPE_ID).ok(),
        fee_fine_owner: None,
        owner_id: None,
        user_id: loan.user_id.unwrap_or_default(),
        item_id: Some(loan.item_id),
        loan_id: loan.id,
        material_type_id: Some(item.item.material_type_id),
        material_type: Some(item.material_type.clone()),
        title: Some(item.title.clone()),
        barcode: item.item.barcode.clone(),
        call_number: item.call_number(),
        location: Some(item.location_name.clone()),
        due_date: loan.due_date,
        returned_date: Some(Timestamp::from(returned)),
        metadata: None,
        other: Default::default(),
    };
    records::create(writer, account, actor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loan(due: &str) -> Loan {
        serde_json::from_value(serde_json::json!({
            "itemId": "00000000-0000-4000-8000-000000000001",
            "loanDate": "2026-01-01T10:00:00Z", "dueDate": due,
        }))
        .unwrap()
    }

    fn fine_policy(json: serde_json::Value) -> OverdueFinePolicy {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn per_started_interval_capped() {
        let policy = fine_policy(serde_json::json!({"name": "f", "countClosed": true,
            "overdueFine": {"quantity": 0.25, "intervalId": "day"}, "maxOverdueFine": 1.0}));
        let returned = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().to_utc();
        let loan = loan("2026-02-01T23:59:59Z");
        // On time, one minute late (one started day), three days late, far too late.
        assert_eq!(overdue_fine(&loan, None, &policy, returned("2026-02-01T12:00:00Z")), 0.0);
        assert_eq!(overdue_fine(&loan, None, &policy, returned("2026-02-02T00:00:59Z")), 0.25);
        assert_eq!(overdue_fine(&loan, None, &policy, returned("2026-02-04T12:00:00Z")), 0.75);
        assert_eq!(overdue_fine(&loan, None, &policy, returned("2026-03-01T12:00:00Z")), 1.0);
    }

    #[test]
    fn grace_period_and_missing_settings() {
        let policy = fine_policy(serde_json::json!({"name": "f", "countClosed": true,
            "overdueFine": {"quantity": 1.0, "intervalId": "hour"}, "maxOverdueFine": 0.0}));
        let loan_policy: LoanPolicy = serde_json::from_value(serde_json::json!({
            "name": "l", "loanable": true, "renewable": true,
            "loansPolicy": {"profileId": "Rolling", "gracePeriod": {"duration": 2, "intervalId": "Hours"}}}))
        .unwrap();
        let loan = loan("2026-02-01T10:00:00Z");
        let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().to_utc();
        // Within the grace period: nothing; beyond it: every hour counts, uncapped.
        assert_eq!(
            overdue_fine(&loan, Some(&loan_policy), &policy, at("2026-02-01T11:59:00Z")),
            0.0
        );
        assert_eq!(
            overdue_fine(&loan, Some(&loan_policy), &policy, at("2026-02-01T12:30:00Z")),
            3.0
        );
        // FOLIO charges nothing when the policy does not say how to count closed days.
        let silent = fine_policy(serde_json::json!({"name": "f",
            "overdueFine": {"quantity": 1.0, "intervalId": "hour"}, "maxOverdueFine": 0.0}));
        assert_eq!(overdue_fine(&loan, None, &silent, at("2026-02-01T12:30:00Z")), 0.0);
    }
}
