//! Due dates: when a loan made or renewed under a loan policy falls due.
//!
//! Follows mod-circulation's strategies: a rolling period from the loan (or renewal)
//! date, truncated by the policy's fixed due date schedule when it has one; a fixed
//! schedule's due date for the range holding the loan date; then the policy's
//! closed-library rule, applied against the service point's open days.
//!
//! Dates and days are the library's: "end of day" is 23:59:59 in the tenant's time zone,
//! and open days and hours come from the service point's calendars
//! (`opening_hours.rs`).

use chrono::{DateTime, Utc};

use crate::model::{FixedDueDateSchedule, LoanPolicy, LoanProfile, Period};
use crate::opening_hours::Desk;

/// Why a due date cannot be computed; FOLIO's message (the caller adds the policy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DueDateError(pub(crate) String);

/// The due date of a new loan. `alternate` is the holds' alternate loan period, used
/// when the item has an open hold request.
pub(crate) fn for_check_out(
    policy: &LoanPolicy,
    schedule: Option<&FixedDueDateSchedule>,
    loan_date: DateTime<Utc>,
    has_hold: bool,
    desk: &Desk,
    now: DateTime<Utc>,
) -> Result<DateTime<Utc>, DueDateError> {
    let loans = policy.loans_policy.as_ref();
    let due = match policy.profile() {
        Some(LoanProfile::Rolling) => {
            let alternate = if has_hold {
                policy.holds().and_then(|h| h.alternate_checkout_loan_period)
            } else {
                None
            };
            let period = alternate
                .or(loans.and_then(|l| l.period))
                .ok_or_else(|| DueDateError(UNRECOGNISED_PERIOD.to_string()))?;
            check_duration(period)?;
            let due = period.after(loan_date);
            match schedule {
                Some(schedule) => truncate(schedule, loan_date, due, CHECK_OUT_OUTSIDE_RANGES)?,
                None => due,
            }
        }
        Some(LoanProfile::Fixed) => {
            let schedule =
                schedule.ok_or_else(|| DueDateError(CHECK_OUT_OUTSIDE_RANGES.to_string()))?;
            schedule
                .entry_for(loan_date)
                .map(|e| e.due.as_datetime())
                .ok_or_else(|| DueDateError(CHECK_OUT_OUTSIDE_RANGES.to_string()))?
        }
        other => return Err(unrecognised_profile(other)),
    };
    closed_library(policy, due, now, desk)
}

/// The due date of a renewal made at `now` of a loan currently due at `current_due`.
pub(crate) fn for_renewal(
    policy: &LoanPolicy,
    schedule: Option<&FixedDueDateSchedule>,
    current_due: DateTime<Utc>,
    now: DateTime<Utc>,
    desk: &Desk,
) -> Result<DateTime<Utc>, DueDateError> {
    let renewals = policy.renewals_policy.as_ref();
    let due = match policy.profile() {
        Some(LoanProfile::Rolling) => {
            let from = match renewals.and_then(|r| r.renew_from_id.as_deref()) {
                None | Some("CURRENT_DUE_DATE") => current_due,
                Some("SYSTEM_DATE") => now,
                Some(_) => return Err(DueDateError("cannot determine when to renew from".into())),
            };
            let different = renewals.and_then(|r| r.different_period).unwrap_or(false);
            let period = if different { renewals.and_then(|r| r.period) } else { None }
                .or(policy.loans_policy.as_ref().and_then(|l| l.period))
                .ok_or_else(|| DueDateError(UNRECOGNISED_PERIOD.to_string()))?;
            check_duration(period)?;
            let due = period.after(from);
            match schedule {
                Some(schedule) => truncate(schedule, now, due, RENEWAL_OUTSIDE_RANGES)?,
                None => due,
            }
        }
        Some(LoanProfile::Fixed) => schedule
            .and_then(|s| s.entry_for(now))
            .map(|e| e.due.as_datetime())
            .ok_or_else(|| DueDateError(RENEWAL_OUTSIDE_FIXED_RANGES.to_string()))?,
        other => return Err(unrecognised_profile(other)),
    };
    closed_library(policy, due, now, desk)
}

const UNRECOGNISED_PERIOD: &str = "the loan period in the loan policy is not recognised";
const CHECK_OUT_OUTSIDE_RANGES: &str =
    "loan date falls outside of the date ranges in the loan policy";
const RENEWAL_OUTSIDE_RANGES: &str = "renewal date falls outside of date ranges in the loan policy";
const RENEWAL_OUTSIDE_FIXED_RANGES: &str =
    "renewal date falls outside of date ranges in fixed loan policy";

fn unrecognised_profile(profile: Option<LoanProfile>) -> DueDateError {
    let name = match profile {
        Some(LoanProfile::Indefinite) => "Indefinite",
        _ => "",
    };
    DueDateError(format!("profile \"{name}\" in the loan policy is not recognised"))
}

fn check_duration(period: Period) -> Result<(), DueDateError> {
    if period.duration == 0 {
        return Err(DueDateError(format!(
            "the duration \"{}\" in the loan policy is invalid",
            period.duration
        )));
    }
    Ok(())
}

/// A rolling due date is cut back to the schedule's due date for the range holding
/// `date`; a date in no range cannot be lent under this policy.
fn truncate(
    schedule: &FixedDueDateSchedule,
    date: DateTime<Utc>,
    due: DateTime<Utc>,
    outside: &str,
) -> Result<DateTime<Utc>, DueDateError> {
    let entry = schedule.entry_for(date).ok_or_else(|| DueDateError(outside.to_string()))?;
    Ok(due.min(entry.due.as_datetime()))
}

/// The policy's closed-library rule (`closedLibraryDueDateManagementId`).
fn strategy(policy: &LoanPolicy) -> &str {
    policy
        .loans_policy
        .as_ref()
        .and_then(|l| l.closed_library_due_date_management_id.as_deref())
        .unwrap_or("CURRENT_DUE_DATE_TIME")
}

/// What a policy's closed-library rule reads of the desk, so the caller loads no more.
pub(crate) enum Needs {
    /// The due time stands as computed.
    Nothing,
    /// The end of the due day, in the tenant's zone.
    Zone,
    /// Open days and hours, in the tenant's zone.
    Hours,
}

impl Needs {
    pub(crate) fn of(policy: &LoanPolicy) -> Needs {
        match strategy(policy) {
            "CURRENT_DUE_DATE" => Needs::Zone,
            "END_OF_THE_PREVIOUS_OPEN_DAY"
            | "END_OF_THE_NEXT_OPEN_DAY"
            | "END_OF_THE_CURRENT_SERVICE_POINT_HOURS"
            | "BEGINNING_OF_THE_NEXT_OPEN_SERVICE_POINT_HOURS" => Needs::Hours,
            _ => Needs::Nothing,
        }
    }
}

/// FOLIO's refusal when the calendars leave no open day or hours to move a due date to.
const ABSENT_TIMETABLE: &str = "Calendar timetable is absent for requested date";

/// The policy's closed-library rule (`closedLibraryDueDateManagementId`), applied to a
/// due date at the loan's service point; `now` is when the loan is made or renewed.
fn closed_library(
    policy: &LoanPolicy,
    due: DateTime<Utc>,
    now: DateTime<Utc>,
    desk: &Desk,
) -> Result<DateTime<Utc>, DueDateError> {
    let loans = policy.loans_policy.as_ref();
    let strategy = strategy(policy);
    let absent = || DueDateError(ABSENT_TIMETABLE.to_string());
    let day = desk.date_of(due);
    Ok(match strategy {
        "CURRENT_DUE_DATE" => desk.end_of_day(day),
        "END_OF_THE_PREVIOUS_OPEN_DAY" => {
            desk.end_of_day(desk.open_day(day, false).ok_or_else(absent)?)
        }
        "END_OF_THE_NEXT_OPEN_DAY" => desk.end_of_day(desk.open_day(day, true).ok_or_else(absent)?),
        // Short-term loans: a due time outside the hours moves to the end of the opening
        // the desk is in now (or its next one), ...
        "END_OF_THE_CURRENT_SERVICE_POINT_HOURS" if desk.opening_at(due).is_none() => {
            let (_, end) =
                desk.opening_at(now).or_else(|| desk.next_opening(now)).ok_or_else(absent)?;
            end
        }
        // ... or to the start of the next opening, plus the policy's offset, kept within
        // that opening.
        "BEGINNING_OF_THE_NEXT_OPEN_SERVICE_POINT_HOURS" if desk.opening_at(due).is_none() => {
            let (start, end) = desk.next_opening(due).ok_or_else(absent)?;
            let offset =
                loans.and_then(|l| l.opening_time_offset).map_or(start, |p| p.after(start));
            offset.min(end)
        }
        _ => due,
    })
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    fn policy(json: serde_json::Value) -> LoanPolicy {
        serde_json::from_value(json).unwrap()
    }

    fn schedule() -> FixedDueDateSchedule {
        serde_json::from_value(serde_json::json!({
            "name": "Semester",
            "schedules": [
                {"from": "2026-01-01T00:00:00Z", "to": "2026-05-31T23:59:59Z", "due": "2026-06-15T23:59:59Z"},
                {"from": "2026-06-01T00:00:00Z", "to": "2026-12-31T23:59:59Z", "due": "2027-01-15T23:59:59Z"}
            ]
        }))
        .unwrap()
    }

    /// A service point open 09:00-17:59 on weekdays, in New York, for 2026.
    fn weekdays() -> Desk {
        let sp = uuid::Uuid::nil();
        let weekdays: Vec<serde_json::Value> = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"]
            .iter()
            .map(|d| serde_json::json!({"startDay": d, "startTime": "09:00", "endDay": d, "endTime": "17:59"}))
            .collect();
        let calendar: calendar::Calendar = serde_json::from_value(serde_json::json!({
            "name": "2026", "startDate": "2026-01-01", "endDate": "2026-12-31",
            "assignments": [sp], "normalHours": weekdays,
            "exceptions": [{"name": "Closed", "startDate": "2026-03-16", "endDate": "2026-03-16", "openings": []}]
        }))
        .unwrap();
        Desk::with_hours(chrono_tz::America::New_York, calendar::Timetable::new(vec![calendar], sp))
    }

    fn check(policy_json: serde_json::Value, loan_date: &str, has_hold: bool, expect: Expect) {
        let policy = policy(policy_json);
        let schedule = schedule();
        let date = DateTime::parse_from_rfc3339(loan_date).unwrap().with_timezone(&Utc);
        let due = for_check_out(&policy, Some(&schedule), date, has_hold, &weekdays(), date);
        let got = match due {
            Ok(d) => d.to_rfc3339(),
            Err(e) => format!("error: {}", e.0),
        };
        expect.assert_eq(&got);
    }

    #[test]
    fn rolling_periods() {
        let rolling = |duration: u32, interval: &str, strategy: &str| {
            serde_json::json!({"name": "p", "loanable": true, "renewable": true, "loansPolicy": {
                "profileId": "Rolling", "period": {"duration": duration, "intervalId": interval},
                "closedLibraryDueDateManagementId": strategy}})
        };
        // Three weeks from a Monday is a Monday: an open day, due at its end.
        check(
            rolling(3, "Weeks", "CURRENT_DUE_DATE"),
            "2026-03-02T10:15:00Z",
            false,
            expect!["2026-03-24T03:59:59+00:00"],
        );
        // Due on a Saturday: moved to Friday's end, or (12 days) to the end of Tuesday,
        // as Monday 16 March is closed by an exception. New York is on EDT from 8 March.
        check(
            rolling(5, "Days", "END_OF_THE_PREVIOUS_OPEN_DAY"),
            "2026-03-02T10:15:00Z",
            false,
            expect!["2026-03-07T04:59:59+00:00"],
        );
        check(
            rolling(12, "Days", "END_OF_THE_NEXT_OPEN_DAY"),
            "2026-03-02T10:15:00Z",
            false,
            expect!["2026-03-18T03:59:59+00:00"],
        );
        // Short-term loans at 16:00 local (EST) for two hours: due 18:00, after closing.
        let hours = |strategy: &str| {
            serde_json::json!({"name": "p", "loanable": true, "renewable": true, "loansPolicy": {
                "profileId": "Rolling", "period": {"duration": 2, "intervalId": "Hours"},
                "closedLibraryDueDateManagementId": strategy,
                "openingTimeOffset": {"duration": 1, "intervalId": "Hours"}}})
        };
        // To the end of today's hours, 17:59:59 local ...
        check(
            hours("END_OF_THE_CURRENT_SERVICE_POINT_HOURS"),
            "2026-03-02T21:00:00Z",
            false,
            expect!["2026-03-02T22:59:59+00:00"],
        );
        // ... or an hour after tomorrow's opening, 10:00 local.
        check(
            hours("BEGINNING_OF_THE_NEXT_OPEN_SERVICE_POINT_HOURS"),
            "2026-03-02T21:00:00Z",
            false,
            expect!["2026-03-03T15:00:00+00:00"],
        );
        // Within the hours, the due time stands.
        check(
            hours("END_OF_THE_CURRENT_SERVICE_POINT_HOURS"),
            "2026-03-02T15:00:00Z",
            false,
            expect!["2026-03-02T17:00:00+00:00"],
        );
        // Past the calendar's last open day there is nowhere to move to: FOLIO's refusal.
        check(
            rolling(10, "Days", "END_OF_THE_NEXT_OPEN_DAY"),
            "2026-12-25T15:00:00Z",
            false,
            expect!["error: Calendar timetable is absent for requested date"],
        );
        // Short-term loans keep their time of day.
        check(
            rolling(2, "Hours", "CURRENT_DUE_DATE_TIME"),
            "2026-03-02T10:15:00Z",
            false,
            expect!["2026-03-02T12:15:00+00:00"],
        );
        // Months are calendar months, clamped at the month's end.
        check(
            rolling(1, "Months", "CURRENT_DUE_DATE_TIME"),
            "2026-01-31T09:00:00Z",
            false,
            expect!["2026-02-28T09:00:00+00:00"],
        );
        // The schedule truncates: a 6-month loan in May is due on 15 June.
        check(
            rolling(6, "Months", "CURRENT_DUE_DATE_TIME"),
            "2026-05-20T09:00:00Z",
            false,
            expect!["2026-06-15T23:59:59+00:00"],
        );
        check(
            rolling(6, "Months", "CURRENT_DUE_DATE_TIME"),
            "2025-12-20T09:00:00Z",
            false,
            expect!["error: loan date falls outside of the date ranges in the loan policy"],
        );
        check(
            rolling(0, "Days", "CURRENT_DUE_DATE_TIME"),
            "2026-03-02T10:15:00Z",
            false,
            expect![[r#"error: the duration "0" in the loan policy is invalid"#]],
        );
    }

    #[test]
    fn alternate_period_for_holds() {
        let json = serde_json::json!({"name": "p", "loanable": true, "renewable": true,
            "loansPolicy": {"profileId": "Rolling", "period": {"duration": 3, "intervalId": "Weeks"}},
            "requestManagement": {"holds": {"alternateCheckoutLoanPeriod": {"duration": 1, "intervalId": "Weeks"}}}});
        check(json.clone(), "2026-03-02T10:15:00Z", false, expect!["2026-03-23T10:15:00+00:00"]);
        check(json, "2026-03-02T10:15:00Z", true, expect!["2026-03-09T10:15:00+00:00"]);
    }

    #[test]
    fn fixed_schedules() {
        let json = serde_json::json!({"name": "p", "loanable": true, "renewable": true,
            "loansPolicy": {"profileId": "Fixed"}});
        check(json.clone(), "2026-02-10T08:00:00Z", false, expect!["2026-06-15T23:59:59+00:00"]);
        check(json.clone(), "2026-07-10T08:00:00Z", false, expect!["2027-01-15T23:59:59+00:00"]);
        check(
            json,
            "2027-02-10T08:00:00Z",
            false,
            expect!["error: loan date falls outside of the date ranges in the loan policy"],
        );
        let no_period = serde_json::json!({"name": "p", "loanable": true, "renewable": true,
            "loansPolicy": {"profileId": "Rolling"}});
        check(
            no_period,
            "2026-02-10T08:00:00Z",
            false,
            expect!["error: the loan period in the loan policy is not recognised"],
        );
    }

    #[test]
    fn renewals() {
        let policy = policy(serde_json::json!({"name": "p", "loanable": true, "renewable": true,
            "loansPolicy": {"profileId": "Rolling", "period": {"duration": 2, "intervalId": "Weeks"}},
            "renewalsPolicy": {"renewFromId": "SYSTEM_DATE", "differentPeriod": true,
                "period": {"duration": 1, "intervalId": "Weeks"}}}));
        let due = DateTime::parse_from_rfc3339("2026-03-16T10:00:00Z").unwrap().to_utc();
        let now = DateTime::parse_from_rfc3339("2026-03-10T10:00:00Z").unwrap().to_utc();
        let renewed =
            for_renewal(&policy, None, due, now, &Desk::always_open(chrono_tz::UTC)).unwrap();
        assert_eq!(renewed.to_rfc3339(), "2026-03-17T10:00:00+00:00");
        let mut from_due = policy.clone();
        from_due.renewals_policy.as_mut().unwrap().renew_from_id =
            Some("CURRENT_DUE_DATE".to_string());
        let renewed =
            for_renewal(&from_due, None, due, now, &Desk::always_open(chrono_tz::UTC)).unwrap();
        assert_eq!(renewed.to_rfc3339(), "2026-03-23T10:00:00+00:00");
    }
}
