//! mod-calendar's shapes (`calendar.yaml`, interface 5.0): a calendar is a date range,
//! the service points it is assigned to, its normal weekly hours and its exceptions.

use chrono::{NaiveDate, NaiveTime, Timelike};
use folio::Metadata;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A day of the week, as mod-calendar spells it (`MONDAY`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Weekday {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

impl Weekday {
    /// Monday is 0.
    pub(crate) fn index(self) -> u32 {
        self as u32
    }

    pub(crate) fn of(date: NaiveDate) -> Weekday {
        use chrono::Datelike;
        const DAYS: [Weekday; 7] = [
            Weekday::Monday,
            Weekday::Tuesday,
            Weekday::Wednesday,
            Weekday::Thursday,
            Weekday::Friday,
            Weekday::Saturday,
            Weekday::Sunday,
        ];
        DAYS[date.weekday().num_days_from_monday() as usize]
    }
}

/// A weekly opening: from a day and time to a day and time, the end minute included
/// (`23:59` for open until midnight). It may run over several days and wrap past Sunday.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NormalHours {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calendar_id: Option<Uuid>,
    pub start_day: Weekday,
    pub start_time: NaiveTime,
    pub end_day: Weekday,
    pub end_time: NaiveTime,
}

/// Minutes since Monday 00:00.
pub(crate) const WEEK: u32 = 7 * DAY;
pub(crate) const DAY: u32 = 24 * 60;

pub(crate) fn minute_of_day(time: NaiveTime) -> u32 {
    time.hour() * 60 + time.minute()
}

impl NormalHours {
    /// Its minutes of the week, as one or two inclusive ranges (two when it wraps).
    pub(crate) fn week_ranges(&self) -> Vec<(u32, u32)> {
        let start = self.start_day.index() * DAY + minute_of_day(self.start_time);
        let end = self.end_day.index() * DAY + minute_of_day(self.end_time);
        if end >= start { vec![(start, end)] } else { vec![(start, WEEK - 1), (0, end)] }
    }
}

/// An exception's opening: from a date and time to a date and time, end minute included.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionalOpening {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception_id: Option<Uuid>,
    pub start_date: NaiveDate,
    pub start_time: NaiveTime,
    pub end_date: NaiveDate,
    pub end_time: NaiveTime,
}

/// Dates whose hours differ from the normal ones: a closure (no openings) or other hours.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionRange {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calendar_id: Option<Uuid>,
    pub name: String,
    pub start_date: NaiveDate,
    pub end_date: NaiveDate,
    pub openings: Vec<ExceptionalOpening>,
}

/// One calendar.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Calendar {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub name: String,
    pub start_date: NaiveDate,
    pub end_date: NaiveDate,
    pub assignments: Vec<Uuid>,
    pub normal_hours: Vec<NormalHours>,
    pub exceptions: Vec<ExceptionRange>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl Calendar {
    pub fn covers(&self, date: NaiveDate) -> bool {
        self.start_date <= date && date <= self.end_date
    }
}

/// One opening within a day, end minute included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpeningRange {
    pub start_time: NaiveTime,
    pub end_time: NaiveTime,
}

/// A service point's hours on one date (`singleDayOpening.yaml`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DayOpening {
    pub date: NaiveDate,
    /// Open from 00:00 through 23:59.
    pub all_day: bool,
    pub open: bool,
    pub exceptional: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception_name: Option<String>,
    pub openings: Vec<OpeningRange>,
}

impl DayOpening {
    pub(crate) fn new(
        date: NaiveDate,
        exception: Option<&str>,
        mut minutes: Vec<(u32, u32)>,
    ) -> DayOpening {
        minutes.sort_unstable();
        // Touching or overlapping ranges are one opening.
        let mut merged: Vec<(u32, u32)> = Vec::new();
        for (start, end) in minutes {
            match merged.last_mut() {
                Some(last) if start <= last.1 + 1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        let time =
            |m: u32| NaiveTime::from_hms_opt(m / 60, m % 60, 0).expect("a minute of the day");
        DayOpening {
            date,
            // A closed day is closed all day, as mod-calendar reports it.
            all_day: merged == [(0, DAY - 1)] || merged.is_empty(),
            open: !merged.is_empty(),
            exceptional: exception.is_some(),
            exception_name: exception.map(str::to_string),
            openings: merged
                .into_iter()
                .map(|(s, e)| OpeningRange { start_time: time(s), end_time: time(e) })
                .collect(),
        }
    }

    pub(crate) fn closed(date: NaiveDate) -> DayOpening {
        DayOpening {
            date,
            all_day: true,
            open: false,
            exceptional: false,
            exception_name: None,
            openings: Vec::new(),
        }
    }
}
