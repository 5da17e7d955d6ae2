//! When a service point is open, in the library's time zone: the hours its calendars give
//! (crate `calendar`), or around the clock when none is assigned to it.
//!
//! FOLIO refuses a due date that needs opening hours a service point does not have
//! ("Calendar timetable is absent for requested date"), so a FOLIO tenant cannot lend
//! under most closed-library strategies until someone enters calendars. Quire treats a
//! service point without calendars as always open instead; once it has one, FOLIO's
//! refusal applies to dates its calendars leave without an open day.

use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use store::Reader;
use uuid::Uuid;

use crate::model::LoanPolicy;
use crate::{Result, due_date};

/// A service point's hours and the tenant's time zone.
pub(crate) struct Desk {
    zone: Tz,
    /// `None`: no calendar, open around the clock.
    hours: Option<calendar::Timetable>,
}

/// A stretch of opening, first and last instant included.
pub(crate) type Opening = (DateTime<Utc>, DateTime<Utc>);

impl Desk {
    pub(crate) fn always_open(zone: Tz) -> Desk {
        Desk { zone, hours: None }
    }

    pub(crate) fn with_hours(zone: Tz, hours: calendar::Timetable) -> Desk {
        Desk { zone, hours: (!hours.is_empty()).then_some(hours) }
    }

    /// What a due date under `policy` at `service_point` needs, read as stored now:
    /// nothing when its due time stands as computed, the tenant's zone for the end of
    /// the due day, and the desk's calendars as well for the rules that look at open
    /// days and hours. A check-out under the default policy so reads one configuration
    /// entry and no calendars.
    pub(crate) fn for_policy(
        reader: &Reader<'_>,
        policy: &LoanPolicy,
        service_point: Option<Uuid>,
    ) -> Result<Desk> {
        match due_date::Needs::of(policy) {
            due_date::Needs::Nothing => Ok(Desk::always_open(Tz::UTC)),
            due_date::Needs::Zone => Ok(Desk::always_open(tenant_zone(reader)?)),
            due_date::Needs::Hours => {
                let zone = tenant_zone(reader)?;
                let Some(service_point) = service_point else {
                    return Ok(Desk::always_open(zone));
                };
                let hours = calendar::timetable(reader, service_point)
                    .map_err(|e| crate::Error::Corrupt(format!("calendars: {e}")))?;
                Ok(Desk::with_hours(zone, hours))
            }
        }
    }

    pub(crate) fn date_of(&self, at: DateTime<Utc>) -> NaiveDate {
        at.with_timezone(&self.zone).date_naive()
    }

    /// A local time as an instant; in a daylight-saving gap, the first instant after it.
    fn instant(&self, local: NaiveDateTime) -> DateTime<Utc> {
        let mut probe = local;
        for _ in 0..4 {
            if let Some(at) = self.zone.from_local_datetime(&probe).earliest() {
                return at.with_timezone(&Utc);
            }
            probe += Duration::minutes(30);
        }
        local.and_utc()
    }

    /// 23:59:59 on `date`, local time.
    pub(crate) fn end_of_day(&self, date: NaiveDate) -> DateTime<Utc> {
        self.instant(date.and_hms_opt(23, 59, 59).expect("a valid time"))
    }

    pub(crate) fn is_open_on(&self, date: NaiveDate) -> bool {
        self.hours.as_ref().is_none_or(|h| h.day(date).open)
    }

    /// `date` if the desk is open that day, else the nearest open day in that direction.
    pub(crate) fn open_day(&self, date: NaiveDate, forward: bool) -> Option<NaiveDate> {
        match &self.hours {
            None => Some(date),
            Some(_) if self.is_open_on(date) => Some(date),
            Some(hours) => hours.nearest_open(date, forward).map(|d| d.date),
        }
    }

    /// The openings of a local date, as instants.
    fn openings_on(&self, date: NaiveDate) -> Vec<Opening> {
        let Some(hours) = &self.hours else {
            return vec![(self.instant(date.and_time(NaiveTime::MIN)), self.end_of_day(date))];
        };
        hours
            .day(date)
            .openings
            .iter()
            .map(|o| {
                // The end minute is open through its last second.
                let end = date.and_time(o.end_time) + Duration::seconds(59);
                (self.instant(date.and_time(o.start_time)), self.instant(end))
            })
            .collect()
    }

    /// The opening holding `at`, if the desk is open then.
    pub(crate) fn opening_at(&self, at: DateTime<Utc>) -> Option<Opening> {
        let date = self.date_of(at);
        self.openings_on(date).into_iter().find(|(start, end)| *start <= at && at <= *end)
    }

    /// The first opening that starts after `at`.
    pub(crate) fn next_opening(&self, at: DateTime<Utc>) -> Option<Opening> {
        let date = self.date_of(at);
        if let Some(found) = self.openings_on(date).into_iter().find(|(start, _)| *start > at) {
            return Some(found);
        }
        let next = match &self.hours {
            None => date.succ_opt()?,
            Some(hours) => hours.nearest_open(date, true)?.date,
        };
        self.openings_on(next).into_iter().next()
    }
}

/// The tenant's time zone: FOLIO keeps it in the `ORG` / `localeSettings` configuration
/// entry (`{"locale": "en-US", "timezone": "America/New_York", ...}`). UTC when the entry
/// is absent or names no zone chrono-tz knows.
pub(crate) fn tenant_zone(reader: &Reader<'_>) -> Result<Tz> {
    let zone = settings::time_zone(reader)
        .map_err(|e| crate::Error::Corrupt(format!("locale settings: {e}")))?;
    Ok(zone.and_then(|z| z.parse::<Tz>().ok()).unwrap_or(Tz::UTC))
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, NaiveDate, Utc};
    use chrono_tz::Tz;
    use expect_test::{Expect, expect};
    use serde_json::json;

    use super::{Desk, Opening};
    use crate::fixtures::{self, DESK_1, Library};
    use crate::model::LoanPolicy;

    fn at(text: &str) -> DateTime<Utc> {
        fixtures::at(text)
    }

    fn date(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    /// Desk 1 in New York, open 09:00-12:59 and 14:00-17:59 on Monday to Friday, and
    /// 02:30-03:59 on Sundays, in March 2026; closed on Wednesday 4 March.
    fn split_hours() -> Desk {
        let mut hours: Vec<serde_json::Value> = Vec::new();
        for day in ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"] {
            hours.push(
                json!({"startDay": day, "startTime": "09:00", "endDay": day, "endTime": "12:59"}),
            );
            hours.push(
                json!({"startDay": day, "startTime": "14:00", "endDay": day, "endTime": "17:59"}),
            );
        }
        hours.push(json!({"startDay": "SUNDAY", "startTime": "02:30", "endDay": "SUNDAY", "endTime": "03:59"}));
        let calendar: calendar::Calendar = serde_json::from_value(json!({
            "name": "March", "startDate": "2026-03-01", "endDate": "2026-03-31",
            "assignments": [DESK_1], "normalHours": hours,
            "exceptions": [{"name": "Closed", "startDate": "2026-03-04", "endDate": "2026-03-04",
                "openings": []}]
        }))
        .unwrap();
        let sp = fixtures::uuid(DESK_1);
        Desk::with_hours(chrono_tz::America::New_York, calendar::Timetable::new(vec![calendar], sp))
    }

    fn show(opening: Option<Opening>) -> String {
        opening.map_or("none".to_string(), |(start, end)| {
            format!("{} .. {}", start.to_rfc3339(), end.to_rfc3339())
        })
    }

    /// The opening the desk is in at `instant`, and the next one to start after it.
    fn check(desk: &Desk, instant: &str, expect: Expect) {
        let instant = at(instant);
        let got = format!(
            "local date {}\nin {}\nnext {}\n",
            desk.date_of(instant),
            show(desk.opening_at(instant)),
            show(desk.next_opening(instant))
        );
        expect.assert_eq(&got);
    }

    #[test]
    fn openings_and_the_next_one() {
        let desk = split_hours();
        // Monday 2 March, 10:00 EST: in the morning opening; the afternoon one is next.
        check(
            &desk,
            "2026-03-02T15:00:00Z",
            expect![[r#"
                local date 2026-03-02
                in 2026-03-02T14:00:00+00:00 .. 2026-03-02T17:59:59+00:00
                next 2026-03-02T19:00:00+00:00 .. 2026-03-02T22:59:59+00:00
            "#]],
        );
        // 13:30 EST, the lunch break: closed; the afternoon is next.
        check(
            &desk,
            "2026-03-02T18:30:00Z",
            expect![[r#"
                local date 2026-03-02
                in none
                next 2026-03-02T19:00:00+00:00 .. 2026-03-02T22:59:59+00:00
            "#]],
        );
        // The last second of an opening is in it (17:59:59 EST).
        check(
            &desk,
            "2026-03-02T22:59:59Z",
            expect![[r#"
                local date 2026-03-02
                in 2026-03-02T19:00:00+00:00 .. 2026-03-02T22:59:59+00:00
                next 2026-03-03T14:00:00+00:00 .. 2026-03-03T17:59:59+00:00
            "#]],
        );
        // Tuesday evening: Wednesday 4 March is closed, so Thursday's morning is next.
        // 02:00Z on 4 March is still Tuesday in New York.
        check(
            &desk,
            "2026-03-04T02:00:00Z",
            expect![[r#"
                local date 2026-03-03
                in none
                next 2026-03-05T14:00:00+00:00 .. 2026-03-05T17:59:59+00:00
            "#]],
        );
        // Saturday 7 March: Sunday 8 opens at 02:30 local, an hour that does not exist
        // that night (EST jumps from 02:00 to 03:00 EDT), so the opening starts at 03:00
        // EDT, 07:00Z, and ends at 03:59:59 EDT.
        check(
            &desk,
            "2026-03-07T17:00:00Z",
            expect![[r#"
                local date 2026-03-07
                in none
                next 2026-03-08T07:00:00+00:00 .. 2026-03-08T07:59:59+00:00
            "#]],
        );
        // After the calendar's last opening (Tuesday 31 March) there is none.
        check(
            &desk,
            "2026-03-31T23:00:00Z",
            expect![[r#"
                local date 2026-03-31
                in none
                next none
            "#]],
        );
    }

    #[test]
    fn open_days_and_the_end_of_a_day() {
        let desk = split_hours();
        let open_day = |d: &str, forward| desk.open_day(date(d), forward).map(|d| d.to_string());
        // An open day is its own; a closed one looks back or on.
        assert_eq!(open_day("2026-03-03", true).as_deref(), Some("2026-03-03"));
        assert_eq!(open_day("2026-03-04", false).as_deref(), Some("2026-03-03"));
        assert_eq!(open_day("2026-03-04", true).as_deref(), Some("2026-03-05"));
        // Saturday 7 March: Friday 6 before, Sunday 8 (open at night) after.
        assert_eq!(open_day("2026-03-07", false).as_deref(), Some("2026-03-06"));
        assert_eq!(open_day("2026-03-07", true).as_deref(), Some("2026-03-08"));
        // Nothing before the calendar's first day, Sunday 1 March (open at night).
        assert_eq!(open_day("2026-02-28", false), None);
        assert_eq!(open_day("2026-02-28", true).as_deref(), Some("2026-03-01"));
        // 23:59:59 local: EST on 7 March, EDT on 8 March.
        assert_eq!(desk.end_of_day(date("2026-03-07")).to_rfc3339(), "2026-03-08T04:59:59+00:00");
        assert_eq!(desk.end_of_day(date("2026-03-08")).to_rfc3339(), "2026-03-09T03:59:59+00:00");
    }

    #[test]
    fn a_desk_without_calendars_is_always_open() {
        let berlin = Desk::always_open(chrono_tz::Europe::Berlin);
        let empty = Desk::with_hours(chrono_tz::Europe::Berlin, calendar::Timetable::default());
        for desk in [&berlin, &empty] {
            assert!(desk.is_open_on(date("2026-12-25")));
            assert_eq!(desk.open_day(date("2026-12-25"), false), Some(date("2026-12-25")));
            // Midnight to 23:59:59 in Berlin (CET, UTC+1) on 25 December; the next
            // opening is the next day's.
            check(
                desk,
                "2026-12-25T12:00:00Z",
                expect![[r#"
                    local date 2026-12-25
                    in 2026-12-24T23:00:00+00:00 .. 2026-12-25T22:59:59+00:00
                    next 2026-12-25T23:00:00+00:00 .. 2026-12-26T22:59:59+00:00
                "#]],
            );
        }
    }

    #[test]
    fn what_a_policy_reads_of_the_desk() {
        let lib = Library::new();
        let policy = |strategy: &str| -> LoanPolicy {
            serde_json::from_value(json!({"name": "p", "loanable": true, "renewable": true,
                "loansPolicy": {"profileId": "Rolling", "closedLibraryDueDateManagementId": strategy}}))
            .unwrap()
        };
        // A zone chrono-tz does not know is UTC.
        lib.time_zone("Mars/Olympus_Mons");
        assert_eq!(lib.tenant.read(super::tenant_zone).unwrap(), Tz::UTC);

        let lib = Library::new();
        assert_eq!(lib.tenant.read(super::tenant_zone).unwrap(), Tz::UTC);
        lib.time_zone("Europe/Berlin");
        assert_eq!(lib.tenant.read(super::tenant_zone).unwrap(), Tz::Europe__Berlin);
        let desk = |strategy: &str, sp: Option<&str>| {
            let policy = policy(strategy);
            let sp = sp.map(fixtures::uuid);
            lib.tenant.read(|r| Desk::for_policy(r, &policy, sp)).unwrap()
        };
        lib.calendar(json!({"name": "Closed weekends", "startDate": "2026-01-01",
            "endDate": "2026-12-31", "assignments": [DESK_1],
            "normalHours": [{"startDay": "MONDAY", "startTime": "08:00", "endDay": "FRIDAY",
                "endTime": "20:00"}],
            "exceptions": []}));
        let saturday = date("2026-03-07");
        // Keeping the due time needs nothing: UTC, always open.
        let keep_time = desk("CURRENT_DUE_DATE_TIME", Some(DESK_1));
        assert_eq!(keep_time.zone, Tz::UTC);
        assert!(keep_time.is_open_on(saturday));
        // Keeping the due date needs the zone only.
        let keep_date = desk("CURRENT_DUE_DATE", Some(DESK_1));
        assert_eq!(keep_date.zone, Tz::Europe__Berlin);
        assert!(keep_date.is_open_on(saturday));
        // Moving to an open day reads the desk's calendar ...
        let next_day = desk("END_OF_THE_NEXT_OPEN_DAY", Some(DESK_1));
        assert_eq!(next_day.zone, Tz::Europe__Berlin);
        assert!(!next_day.is_open_on(saturday));
        assert!(next_day.is_open_on(date("2026-03-06")));
        // ... which another desk does not share, and no desk has none.
        assert!(desk("END_OF_THE_PREVIOUS_OPEN_DAY", Some(fixtures::DESK_2)).is_open_on(saturday));
        assert!(desk("BEGINNING_OF_THE_NEXT_OPEN_SERVICE_POINT_HOURS", None).is_open_on(saturday));
        assert!(!desk("END_OF_THE_CURRENT_SERVICE_POINT_HOURS", Some(DESK_1)).is_open_on(saturday));
    }
}
