//! A service point's hours on a date, from the calendar assigned to it that covers the
//! date: an exception's openings when one covers the date, else the normal weekly hours.

use chrono::{Days, NaiveDate};
use uuid::Uuid;

use crate::model::{Calendar, DAY, DayOpening, Weekday, minute_of_day};

/// The calendars of one service point, read once and asked about many dates.
#[derive(Clone, Debug, Default)]
pub struct Timetable {
    calendars: Vec<Calendar>,
}

/// How far the surrounding-openings search looks for an open day.
const SEARCH_DAYS: u64 = 3 * 366;

impl Timetable {
    /// The calendars among `all` assigned to `service_point`.
    pub fn new(all: Vec<Calendar>, service_point: Uuid) -> Timetable {
        Timetable {
            calendars: all.into_iter().filter(|c| c.assignments.contains(&service_point)).collect(),
        }
    }

    /// No calendar is assigned to the service point.
    pub fn is_empty(&self) -> bool {
        self.calendars.is_empty()
    }

    /// The hours on `date`.
    pub fn day(&self, date: NaiveDate) -> DayOpening {
        let Some(calendar) = self.calendars.iter().find(|c| c.covers(date)) else {
            return DayOpening::closed(date);
        };
        if let Some(exception) =
            calendar.exceptions.iter().find(|e| e.start_date <= date && date <= e.end_date)
        {
            let minutes = exception
                .openings
                .iter()
                .filter(|o| o.start_date <= date && date <= o.end_date)
                .map(|o| {
                    let start = if o.start_date == date { minute_of_day(o.start_time) } else { 0 };
                    let end = if o.end_date == date { minute_of_day(o.end_time) } else { DAY - 1 };
                    (start, end)
                })
                .filter(|(s, e)| s <= e)
                .collect();
            return DayOpening::new(date, Some(&exception.name), minutes);
        }
        let day_start = Weekday::of(date).index() * DAY;
        let day_end = day_start + DAY - 1;
        let minutes = calendar
            .normal_hours
            .iter()
            .flat_map(|h| h.week_ranges())
            .filter(|(s, e)| *s <= day_end && *e >= day_start)
            .map(|(s, e)| (s.max(day_start) - day_start, e.min(day_end) - day_start))
            .collect();
        DayOpening::new(date, None, minutes)
    }

    /// The nearest open day before `date` and after it, with `date` between them
    /// (mod-calendar's surrounding openings). Where no calendar opens the service point
    /// on that side, the neighbouring date, closed.
    pub fn surrounding(&self, date: NaiveDate) -> [DayOpening; 3] {
        let before = date.checked_sub_days(Days::new(1)).unwrap_or(date);
        let after = date.checked_add_days(Days::new(1)).unwrap_or(date);
        [
            self.nearest_open(date, false).unwrap_or_else(|| DayOpening::closed(before)),
            self.day(date),
            self.nearest_open(date, true).unwrap_or_else(|| DayOpening::closed(after)),
        ]
    }

    /// The first open day strictly after (or before) `date`, within the calendars' dates.
    pub fn nearest_open(&self, date: NaiveDate, forward: bool) -> Option<DayOpening> {
        let first = self.calendars.iter().map(|c| c.start_date).min()?;
        let last = self.calendars.iter().map(|c| c.end_date).max()?;
        let mut day = date;
        for _ in 0..SEARCH_DAYS {
            day = if forward {
                day.checked_add_days(Days::new(1))?
            } else {
                day.checked_sub_days(Days::new(1))?
            };
            if day < first || day > last {
                return None;
            }
            let opening = self.day(day);
            if opening.open {
                return Some(opening);
            }
        }
        None
    }

    /// Each date from `start` to `end` (both included), open ones only unless
    /// `include_closed`.
    pub fn dates(
        &self,
        start: NaiveDate,
        end: NaiveDate,
        include_closed: bool,
    ) -> impl Iterator<Item = DayOpening> + '_ {
        start
            .iter_days()
            .take_while(move |d| *d <= end)
            .map(|d| self.day(d))
            .filter(move |d| include_closed || d.open)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calendar(json: serde_json::Value) -> Calendar {
        serde_json::from_value(json).unwrap()
    }

    const SP: &str = "c4c90014-c8c9-4ade-8f24-b5e313319f4b";

    fn spring() -> Timetable {
        let c = calendar(serde_json::json!({
            "name": "Spring", "startDate": "2026-01-05", "endDate": "2026-05-31",
            "assignments": [SP],
            "normalHours": [
                {"startDay": "MONDAY", "startTime": "08:00", "endDay": "FRIDAY", "endTime": "19:59"},
                {"startDay": "SATURDAY", "startTime": "10:00", "endDay": "SATURDAY", "endTime": "13:59"},
                {"startDay": "SATURDAY", "startTime": "15:00", "endDay": "SATURDAY", "endTime": "17:59"}
            ],
            "exceptions": [
                {"name": "Spring break", "startDate": "2026-03-09", "endDate": "2026-03-13", "openings": []},
                {"name": "Short day", "startDate": "2026-04-03", "endDate": "2026-04-03", "openings": [
                    {"startDate": "2026-04-03", "startTime": "09:00", "endDate": "2026-04-03", "endTime": "11:59"}
                ]}
            ]
        }));
        Timetable::new(vec![c], SP.parse().unwrap())
    }

    fn date(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn hours(d: &DayOpening) -> String {
        d.openings
            .iter()
            .map(|o| format!("{}-{}", o.start_time.format("%H:%M"), o.end_time.format("%H:%M")))
            .collect::<Vec<_>>()
            .join(",")
    }

    #[test]
    fn a_span_over_several_days_opens_whole_middle_days() {
        let t = spring();
        // Monday 2026-01-12 08:00 runs on to Friday 19:59.
        assert_eq!(hours(&t.day(date("2026-01-12"))), "08:00-23:59");
        let wednesday = t.day(date("2026-01-14"));
        assert_eq!(hours(&wednesday), "00:00-23:59");
        assert!(wednesday.all_day && wednesday.open && !wednesday.exceptional);
        assert_eq!(hours(&t.day(date("2026-01-16"))), "00:00-19:59");
        assert_eq!(hours(&t.day(date("2026-01-17"))), "10:00-13:59,15:00-17:59");
        let sunday = t.day(date("2026-01-18"));
        assert!(!sunday.open && sunday.all_day && sunday.openings.is_empty());
    }

    #[test]
    fn exceptions_replace_normal_hours() {
        let t = spring();
        let closed = t.day(date("2026-03-10"));
        assert!(!closed.open && closed.exceptional);
        assert_eq!(closed.exception_name.as_deref(), Some("Spring break"));
        let short = t.day(date("2026-04-03"));
        assert_eq!(hours(&short), "09:00-11:59");
        assert!(short.exceptional && short.open && !short.all_day);
    }

    #[test]
    fn surrounding_openings_skip_closures_and_stop_at_the_calendar_edges() {
        let t = spring();
        // Spring break, Monday 9 to Friday 13 March: open on the Saturdays around it.
        let [before, day, after] = t.surrounding(date("2026-03-11"));
        assert_eq!(
            (before.date, day.open, after.date),
            (date("2026-03-07"), false, date("2026-03-14"))
        );
        // Before the first calendar day there is nothing open: the day before, closed.
        let [before, _, after] = t.surrounding(date("2026-01-05"));
        assert_eq!(before.date, date("2026-01-04"));
        assert!(!before.open);
        assert_eq!(after.date, date("2026-01-06"));
        // Another service point has no hours.
        let other = Timetable::new(t.calendars.clone(), Uuid::nil());
        assert!(other.is_empty() && !other.day(date("2026-01-14")).open);
    }

    #[test]
    fn a_week_wrapping_opening_covers_sunday_night_to_monday() {
        let c = calendar(serde_json::json!({
            "name": "Nights", "startDate": "2026-01-01", "endDate": "2026-12-31",
            "assignments": [SP],
            "normalHours": [{"startDay": "SUNDAY", "startTime": "22:00", "endDay": "MONDAY", "endTime": "01:59"}],
            "exceptions": []
        }));
        let t = Timetable::new(vec![c], SP.parse().unwrap());
        assert_eq!(hours(&t.day(date("2026-01-11"))), "22:00-23:59");
        assert_eq!(hours(&t.day(date("2026-01-12"))), "00:00-01:59");
        assert_eq!(t.dates(date("2026-01-05"), date("2026-01-18"), false).count(), 4);
        assert_eq!(t.dates(date("2026-01-05"), date("2026-01-18"), true).count(), 14);
    }
}
