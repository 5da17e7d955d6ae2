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

/// One of mod-feesfines' automatic fee/fine types: its name and fixed id.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FeeType {
    pub(crate) name: &'static str,
    pub(crate) id: &'static str,
}

pub(crate) const OVERDUE_FINE: FeeType = FeeType { name: "Overdue fine", id: OVERDUE_FINE_TYPE_ID };
pub(crate) const LOST_ITEM_FEE: FeeType =
    FeeType { name: "Lost item fee", id: "cf238f9f-7018-47b7-b815-bb2db798e19f" };
pub(crate) const LOST_ITEM_PROCESSING_FEE: FeeType =
    FeeType { name: "Lost item processing fee", id: "c7dede15-aa48-45ed-860b-f996540180e0" };

/// Charges a fee of `fee_type` for `loan`'s item to the borrower as an open account;
/// `returned` is when the item came back, for a fine on return.
pub(crate) fn charge(
    writer: &mut Writer<'_>,
    loan: &Loan,
    item: &ItemContext,
    fee_type: FeeType,
    amount: f64,
    returned: Option<DateTime<Utc>>,
    actor: Actor,
) -> Result<Account> {
    let account = Account {
        id: Some(store::new_record_id()),
        amount,
        remaining: amount,
        status: AccountStatus { name: "Open".to_string() },
        payment_status: Some(AccountStatus { name: "Outstanding".to_string() }),
        fee_fine_type: Some(fee_type.name.to_string()),
        fee_fine_id: Uuid::parse_str(fee_type.id).ok(),
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
        returned_date: returned.map(Timestamp::from),
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

    /// The fine for a loan due at `due` returned at `returned`, under the fine policy
    /// `fine_json` and a loan policy with a grace period of `grace` (a period's JSON, or
    /// null); `recalled` says whether a recall changed the due date.
    fn check(
        fine_json: serde_json::Value,
        grace: serde_json::Value,
        (due, recalled): (&str, bool),
        returned: &str,
        expect: expect_test::Expect,
    ) {
        let mut loan = loan(due);
        loan.due_date_changed_by_recall = recalled.then_some(true);
        let loan_policy: LoanPolicy = serde_json::from_value(serde_json::json!({
            "name": "l", "loanable": true, "renewable": true,
            "loansPolicy": {"profileId": "Rolling", "gracePeriod": grace}}))
        .unwrap();
        let returned = DateTime::parse_from_rfc3339(returned).unwrap().to_utc();
        let fine = overdue_fine(&loan, Some(&loan_policy), &fine_policy(fine_json), returned);
        expect.assert_eq(&fine.to_string());
    }

    /// A policy charging `quantity` per `interval`, at most `max` (0: no maximum).
    fn rate(quantity: f64, interval: &str, max: f64) -> serde_json::Value {
        serde_json::json!({"name": "f", "countClosed": true,
            "overdueFine": {"quantity": quantity, "intervalId": interval}, "maxOverdueFine": max})
    }

    const DUE: (&str, bool) = ("2026-02-02T10:00:00Z", false);
    const NO_GRACE: serde_json::Value = serde_json::Value::Null;

    #[test]
    fn every_started_interval_counts() {
        use expect_test::expect;
        // 37 minutes at 0.10 a minute: 3.70.
        check(rate(0.1, "minute", 5.0), NO_GRACE, DUE, "2026-02-02T10:37:00Z", expect!["3.7"]);
        // 3 minutes: 0.1 × 3 is 0.30000000000000004 in binary; the fine is in cents.
        check(rate(0.1, "minute", 5.0), NO_GRACE, DUE, "2026-02-02T10:03:00Z", expect!["0.3"]);
        // 90 minutes would be 9.00, capped at 5.00.
        check(rate(0.1, "minute", 5.0), NO_GRACE, DUE, "2026-02-02T11:30:00Z", expect!["5"]);
        // Seconds are not minutes: 59 seconds late is no minute late.
        check(rate(0.1, "minute", 5.0), NO_GRACE, DUE, "2026-02-02T10:00:59Z", expect!["0"]);
        // Exactly two hours is two hours at 0.50; 121 minutes starts a third.
        check(rate(0.5, "hour", 0.0), NO_GRACE, DUE, "2026-02-02T12:00:00Z", expect!["1"]);
        check(rate(0.5, "hour", 0.0), NO_GRACE, DUE, "2026-02-02T12:01:00Z", expect!["1.5"]);
        // 3 days and a minute (4,321 minutes) starts a fourth day at 1.00 a day.
        check(rate(1.0, "day", 0.0), NO_GRACE, DUE, "2026-02-05T10:01:00Z", expect!["4"]);
        // With no maximum, 45 days are 45.00; a maximum of 0 is none.
        check(rate(1.0, "day", 0.0), NO_GRACE, DUE, "2026-03-19T10:00:00Z", expect!["45"]);
        // 8 days (11,520 minutes) is a week and a started second one: 2 × 2.00.
        check(rate(2.0, "week", 0.0), NO_GRACE, DUE, "2026-02-10T10:00:00Z", expect!["4"]);
        // A month is 31 days: 31 days late is one month, 32 days two (5.00 each).
        check(rate(5.0, "month", 0.0), NO_GRACE, DUE, "2026-03-05T10:00:00Z", expect!["5"]);
        check(rate(5.0, "month", 0.0), NO_GRACE, DUE, "2026-03-06T10:00:00Z", expect!["10"]);
        // A year is 365 days: one day late starts the first.
        check(rate(12.0, "year", 0.0), NO_GRACE, DUE, "2026-02-03T10:00:00Z", expect!["12"]);
        // Returned on time, or exactly at the due date: nothing.
        check(rate(1.0, "minute", 0.0), NO_GRACE, DUE, "2026-02-02T10:00:00Z", expect!["0"]);
        check(rate(1.0, "minute", 0.0), NO_GRACE, DUE, "2026-02-01T10:00:00Z", expect!["0"]);
    }

    #[test]
    fn a_grace_period_waives_a_fine_but_does_not_shorten_it() {
        use expect_test::expect;
        let one_day = serde_json::json!({"duration": 1, "intervalId": "Days"});
        // 23 hours 59 minutes (1,439 minutes) and exactly a day (1,440) are within a
        // day's grace.
        check(rate(1.0, "hour", 0.0), one_day.clone(), DUE, "2026-02-03T09:59:00Z", expect!["0"]);
        check(rate(1.0, "hour", 0.0), one_day.clone(), DUE, "2026-02-03T10:00:00Z", expect!["0"]);
        // A minute beyond it, every minute counts: 1,441 minutes start 25 hours.
        check(rate(1.0, "hour", 0.0), one_day, DUE, "2026-02-03T10:01:00Z", expect!["25"]);
        // A grace of 30 minutes against 45 minutes late: 45 × 0.10.
        let half_hour = serde_json::json!({"duration": 30, "intervalId": "Minutes"});
        check(rate(0.1, "minute", 0.0), half_hour, DUE, "2026-02-02T10:45:00Z", expect!["4.5"]);
    }

    #[test]
    fn recalled_loans_pay_the_recall_rate() {
        use expect_test::expect;
        let recall = serde_json::json!({"name": "f", "countClosed": true,
            "overdueFine": {"quantity": 0.25, "intervalId": "hour"}, "maxOverdueFine": 0.0,
            "overdueRecallFine": {"quantity": 2.0, "intervalId": "hour"}, "maxOverdueRecallFine": 10.0});
        let recalled = (DUE.0, true);
        // 3 hours 30 minutes start 4 hours: 4 × 2.00 recalled, 4 × 0.25 not.
        check(recall.clone(), NO_GRACE, recalled, "2026-02-02T13:30:00Z", expect!["8"]);
        check(recall.clone(), NO_GRACE, DUE, "2026-02-02T13:30:00Z", expect!["1"]);
        // 6 hours recalled would be 12.00: the recall maximum is 10.00.
        check(recall, NO_GRACE, recalled, "2026-02-02T16:00:00Z", expect!["10"]);
        // A policy without a recall rate charges a recalled loan nothing, as FOLIO does.
        check(rate(0.25, "hour", 0.0), NO_GRACE, recalled, "2026-02-02T16:00:00Z", expect!["0"]);
        // Nor one without a maximum, for either rate.
        let no_max = serde_json::json!({"name": "f", "countClosed": true,
            "overdueFine": {"quantity": 0.25, "intervalId": "hour"}});
        check(no_max, NO_GRACE, DUE, "2026-02-02T16:00:00Z", expect!["0"]);
    }
}
