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
