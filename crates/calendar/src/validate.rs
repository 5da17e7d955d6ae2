//! mod-calendar's rules for a calendar, each with its error code.

use std::collections::BTreeSet;

use uuid::Uuid;

use crate::model::{Calendar, minute_of_day};
use crate::{Error, Result};

fn invalid(code: &'static str, message: impl Into<String>) -> Error {
    Error::Invalid { code, message: message.into() }
}

/// Checks `calendar` on its own and against `others` (the tenant's other calendars).
pub(crate) fn check(calendar: &Calendar, others: &[Calendar]) -> Result<()> {
    if calendar.name.trim().is_empty() {
        return Err(invalid("calendarNoName", "The calendar name must not be empty"));
    }
    if calendar.start_date > calendar.end_date {
        return Err(invalid(
            "calendarInvalidDateRange",
            format!(
                "The start date ({}) must not be after the end date ({})",
                calendar.start_date, calendar.end_date
            ),
        ));
    }
    check_normal_hours(calendar)?;
    check_exceptions(calendar)?;
    check_overlap(calendar, others)
}

/// Weekly openings must not overlap one another.
fn check_normal_hours(calendar: &Calendar) -> Result<()> {
    let mut ranges: Vec<(u32, u32)> =
        calendar.normal_hours.iter().flat_map(|h| h.week_ranges()).collect();
    ranges.sort_unstable();
    if ranges.windows(2).any(|w| w[1].0 <= w[0].1) {
        return Err(invalid(
            "calendarInvalidNormalOpenings",
            "The calendar's normal hours overlap one another",
        ));
    }
    Ok(())
}

fn check_exceptions(calendar: &Calendar) -> Result<()> {
    let mut spans = Vec::new();
    for exception in &calendar.exceptions {
        if exception.name.trim().is_empty() {
            return Err(invalid(
                "calendarInvalidExceptionName",
                "An exception's name must not be empty",
            ));
        }
        if exception.start_date > exception.end_date {
            return Err(invalid(
                "calendarInvalidExceptionDateOrder",
                format!("Exception \"{}\" starts after it ends", exception.name),
            ));
        }
        if !calendar.covers(exception.start_date) || !calendar.covers(exception.end_date) {
            return Err(invalid(
                "calendarInvalidExceptionDateBoundary",
                format!(
                    "Exception \"{}\" ({} to {}) is not within the calendar's dates ({} to {})",
                    exception.name,
                    exception.start_date,
                    exception.end_date,
                    calendar.start_date,
                    calendar.end_date
                ),
            ));
        }
        spans.push((exception.start_date, exception.end_date));
        let mut openings = Vec::new();
        for opening in &exception.openings {
            let start = (opening.start_date, minute_of_day(opening.start_time));
            let end = (opening.end_date, minute_of_day(opening.end_time));
            if start > end
                || opening.start_date < exception.start_date
                || opening.end_date > exception.end_date
            {
                return Err(invalid(
                    "calendarInvalidExceptionOpeningBoundary",
                    format!(
                        "An opening of exception \"{}\" ends before it starts or lies outside the exception's dates",
                        exception.name
                    ),
                ));
            }
            openings.push((start, end));
        }
        openings.sort_unstable();
        if openings.windows(2).any(|w| w[1].0 <= w[0].1) {
            return Err(invalid(
                "calendarInvalidExceptionOpenings",
                format!("The openings of exception \"{}\" overlap one another", exception.name),
            ));
        }
    }
    spans.sort_unstable();
    if spans.windows(2).any(|w| w[1].0 <= w[0].1) {
        return Err(invalid(
            "calendarInvalidExceptions",
            "The calendar's exceptions overlap one another",
        ));
    }
    Ok(())
}

/// A service point has at most one calendar on any date.
fn check_overlap(calendar: &Calendar, others: &[Calendar]) -> Result<()> {
    let mine: BTreeSet<Uuid> = calendar.assignments.iter().copied().collect();
    for other in others {
        let dates_overlap =
            other.start_date <= calendar.end_date && calendar.start_date <= other.end_date;
        if !dates_overlap {
            continue;
        }
        let shared: Vec<Uuid> =
            other.assignments.iter().filter(|sp| mine.contains(sp)).copied().collect();
        if !shared.is_empty() {
            return Err(Error::Overlap {
                message: format!(
                    "This calendar overlaps with \"{}\" ({} to {}) on a service point they share",
                    other.name, other.start_date, other.end_date
                ),
                service_points: shared,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calendar(extra: serde_json::Value) -> Calendar {
        let mut json = serde_json::json!({
            "name": "Term", "startDate": "2026-01-05", "endDate": "2026-05-31",
            "assignments": ["00000000-0000-4000-8000-00000000000a"],
            "normalHours": [], "exceptions": []
        });
        for (k, v) in extra.as_object().unwrap() {
            json[k] = v.clone();
        }
        serde_json::from_value(json).unwrap()
    }

    fn code(extra: serde_json::Value) -> &'static str {
        match check(&calendar(extra), &[]) {
            Err(Error::Invalid { code, .. }) => code,
            Ok(()) => "ok",
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn each_rule_has_its_code() {
        use serde_json::json;
        assert_eq!(code(json!({})), "ok");
        assert_eq!(code(json!({"name": " "})), "calendarNoName");
        assert_eq!(code(json!({"endDate": "2026-01-04"})), "calendarInvalidDateRange");
        let overlapping = json!([
            {"startDay": "MONDAY", "startTime": "08:00", "endDay": "WEDNESDAY", "endTime": "12:00"},
            {"startDay": "TUESDAY", "startTime": "08:00", "endDay": "TUESDAY", "endTime": "09:00"}
        ]);
        assert_eq!(code(json!({"normalHours": overlapping})), "calendarInvalidNormalOpenings");
        let wraps_into = json!([
            {"startDay": "SUNDAY", "startTime": "20:00", "endDay": "MONDAY", "endTime": "08:00"},
            {"startDay": "MONDAY", "startTime": "07:00", "endDay": "MONDAY", "endTime": "09:00"}
        ]);
        assert_eq!(code(json!({"normalHours": wraps_into})), "calendarInvalidNormalOpenings");
        let exception = |name: &str, start: &str, end: &str, openings: serde_json::Value| json!({"name": name, "startDate": start, "endDate": end, "openings": openings});
        assert_eq!(
            code(json!({"exceptions": [exception("", "2026-02-01", "2026-02-01", json!([]))]})),
            "calendarInvalidExceptionName"
        );
        assert_eq!(
            code(json!({"exceptions": [exception("x", "2026-02-02", "2026-02-01", json!([]))]})),
            "calendarInvalidExceptionDateOrder"
        );
        assert_eq!(
            code(json!({"exceptions": [exception("x", "2026-05-30", "2026-06-02", json!([]))]})),
            "calendarInvalidExceptionDateBoundary"
        );
        assert_eq!(
            code(json!({"exceptions": [
                exception("x", "2026-02-01", "2026-02-03", json!([])),
                exception("y", "2026-02-03", "2026-02-04", json!([]))
            ]})),
            "calendarInvalidExceptions"
        );
        let outside = json!([{"startDate": "2026-02-05", "startTime": "09:00", "endDate": "2026-02-05", "endTime": "10:00"}]);
        assert_eq!(
            code(json!({"exceptions": [exception("x", "2026-02-01", "2026-02-03", outside)]})),
            "calendarInvalidExceptionOpeningBoundary"
        );
        let clash = json!([
            {"startDate": "2026-02-01", "startTime": "09:00", "endDate": "2026-02-01", "endTime": "12:00"},
            {"startDate": "2026-02-01", "startTime": "11:00", "endDate": "2026-02-01", "endTime": "13:00"}
        ]);
        assert_eq!(
            code(json!({"exceptions": [exception("x", "2026-02-01", "2026-02-03", clash)]})),
            "calendarInvalidExceptionOpenings"
        );
    }
}
