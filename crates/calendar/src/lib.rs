//! Service point calendars: FOLIO mod-calendar's calendars (`/calendar/calendars`) and
//! the opening hours they give each service point on each date (`/calendar/dates/...`),
//! which circulation's closed-library due-date rules read.
//!
//! What it owns: the calendars table (declared as a migration), the calendar model, its
//! checks (mod-calendar's error codes) and the opening hours a set of calendars gives a
//! service point (`Timetable`). What it does not own: HTTP (`server` maps [`Error`]),
//! time zones (dates and times here are the library's local ones; circulation places
//! them in the tenant's zone).
//!
//! ```
//! let c: calendar::Calendar = serde_json::from_str(r#"{"name": "Term",
//!     "startDate": "2026-01-05", "endDate": "2026-05-31",
//!     "assignments": ["c4c90014-c8c9-4ade-8f24-b5e313319f4b"],
//!     "normalHours": [{"startDay": "MONDAY", "startTime": "08:00",
//!                      "endDay": "MONDAY", "endTime": "17:59"}],
//!     "exceptions": []}"#).unwrap();
//! let sp = "c4c90014-c8c9-4ade-8f24-b5e313319f4b".parse().unwrap();
//! let hours = calendar::Timetable::new(vec![c], sp);
//! assert!(hours.day("2026-01-12".parse().unwrap()).open); // a Monday
//! assert!(!hours.day("2026-01-13".parse().unwrap()).open);
//! ```

mod model;
mod timetable;
mod validate;

use folio::{Actor, Record};
use store::{ColumnValue, Migration, Reader, RecordTable, Writer};
use uuid::Uuid;

pub use model::{
    Calendar, DayOpening, ExceptionRange, ExceptionalOpening, NormalHours, OpeningRange, Weekday,
};
pub use timetable::Timetable;

/// The calendar component's schema.
pub const MIGRATIONS: store::Component = store::Component {
    name: "calendar",
    migrations: &[Migration {
        version: 1,
        description: "calendars",
        sql: include_str!("../migrations/0001_calendars.sql"),
    }],
};

const CALENDARS: RecordTable = RecordTable {
    table: "calendars",
    record_type: "calendar",
    cached: true,
    columns: &["start_date", "end_date"],
};

/// A calendar error, with mod-calendar's error code where it has one.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Calendar with ID {0} was not found")]
    NotFound(Uuid),
    /// The calendar breaks one of mod-calendar's rules (`code`: `calendarNoName`, ...).
    #[error("{message}")]
    Invalid { code: &'static str, message: String },
    /// The calendar's dates overlap another calendar's on a shared service point.
    #[error("{message}")]
    Overlap { message: String, service_points: Vec<Uuid> },
    #[error(transparent)]
    Decode(#[from] folio::DecodeError),
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error("corrupt calendar {id}: {message}")]
    Corrupt { id: String, message: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Reads a request body into a calendar (400 when malformed, 422 when a required field
/// is missing).
pub fn decode(body: &[u8]) -> Result<Calendar> {
    Ok(folio::decode(body)?)
}

impl Record for Calendar {
    const TABLE: RecordTable = CALENDARS;
    const NAME: &'static str = "calendar";
    /// mod-calendar lists by ids, service points and dates, not CQL.
    const QUERY: &'static [store::QueryField] = &[];

    folio::id_and_metadata!();
    fn columns(&self) -> Vec<ColumnValue> {
        vec![
            ColumnValue::Text(self.start_date.to_string()),
            ColumnValue::Text(self.end_date.to_string()),
        ]
    }
}

fn parse(stored: &store::StoredRecord) -> Result<Calendar> {
    folio::record::parse(&stored.body, &stored.id).map_err(error)
}

/// A verb's failure in mod-calendar's words.
fn error(e: folio::record::Error) -> Error {
    match e {
        folio::record::Error::NotFound { id, .. } => Error::NotFound(id),
        folio::record::Error::IdMismatch { body, path } => Error::Invalid {
            code: "invalidRequest",
            message: format!(
                "The ID in the body ({body}) does not match the ID in the path ({path})"
            ),
        },
        folio::record::Error::Store(store::Error::DuplicateId { id, .. }) => Error::Invalid {
            code: "invalidRequest",
            message: format!("A calendar with ID {id} already exists"),
        },
        folio::record::Error::Store(e) => e.into(),
        folio::record::Error::Corrupt { id, message, .. } => Error::Corrupt { id, message },
        // Calendars carry no `_version`: a conflict means a fault.
        e @ folio::record::Error::VersionConflict { id, .. } => {
            Error::Corrupt { id: id.to_string(), message: e.to_string() }
        }
    }
}

/// Every calendar of the tenant, by start date.
pub fn all(reader: &Reader<'_>) -> Result<Vec<Calendar>> {
    let mut calendars = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let page = reader.scan(&CALENDARS, after.as_deref(), 1000)?;
        let Some(last) = page.last() else { break };
        after = Some(last.id.clone());
        for stored in &page {
            calendars.push(parse(stored)?);
        }
    }
    calendars.sort_by_key(|c| (c.start_date, c.name.clone()));
    Ok(calendars)
}

/// The opening hours of one service point.
pub fn timetable(reader: &Reader<'_>, service_point: Uuid) -> Result<Timetable> {
    Ok(Timetable::new(all(reader)?, service_point))
}

pub fn get(reader: &Reader<'_>, id: Uuid) -> Result<Calendar> {
    Ok(folio::record::get(reader, id).map_err(error)?.ok_or(Error::NotFound(id))?.record)
}

/// Stores a new calendar after mod-calendar's checks; assigns its id and the ids that
/// tie its hours and exceptions to it.
pub fn create(writer: &mut Writer<'_>, mut calendar: Calendar, actor: Actor) -> Result<Calendar> {
    let id = *calendar.id.get_or_insert_with(store::new_record_id);
    validate::check(&calendar, &all(writer)?)?;
    tie(&mut calendar, id);
    folio::record::create(writer, calendar, actor).map_err(error)
}

/// Replaces a calendar (PUT), with the same checks against the other calendars.
pub fn replace(
    writer: &mut Writer<'_>,
    id: Uuid,
    mut calendar: Calendar,
    actor: Actor,
) -> Result<Calendar> {
    folio::record::claim_id(&mut calendar, id).map_err(error)?;
    get(writer, id)?;
    let others: Vec<Calendar> = all(writer)?.into_iter().filter(|c| c.id != Some(id)).collect();
    validate::check(&calendar, &others)?;
    tie(&mut calendar, id);
    folio::record::replace(writer, id, calendar, actor).map_err(error)
}

pub fn delete(writer: &mut Writer<'_>, id: Uuid) -> Result<()> {
    folio::record::delete::<Calendar>(writer, id).map_err(error)
}

fn tie(calendar: &mut Calendar, id: Uuid) {
    for hours in &mut calendar.normal_hours {
        hours.calendar_id = Some(id);
    }
    for exception in &mut calendar.exceptions {
        exception.calendar_id = Some(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tenant() -> (tempfile::TempDir, std::sync::Arc<store::Tenant>) {
        let dir = tempfile::tempdir().unwrap();
        let store =
            store::Store::open(dir.path(), store::testing::options(), &[MIGRATIONS]).unwrap();
        let (tenant, _) = store.create_tenant("t").unwrap();
        (dir, tenant)
    }

    fn calendar(name: &str, start: &str, end: &str, sp: &str) -> Calendar {
        serde_json::from_value(serde_json::json!({
            "name": name, "startDate": start, "endDate": end, "assignments": [sp],
            "normalHours": [{"startDay": "MONDAY", "startTime": "09:00", "endDay": "MONDAY", "endTime": "16:59"}],
            "exceptions": []
        }))
        .unwrap()
    }

    const A: &str = "00000000-0000-4000-8000-00000000000a";
    const B: &str = "00000000-0000-4000-8000-00000000000b";

    #[test]
    fn overlapping_dates_on_a_shared_service_point_are_refused() {
        let (_dir, tenant) = tenant();
        let spring = tenant
            .write(|w| {
                create(w, calendar("Spring", "2026-01-05", "2026-05-31", A), Actor::default())
            })
            .unwrap();
        assert_eq!(spring.normal_hours[0].calendar_id, spring.id);
        let clash = tenant.write(|w| {
            create(w, calendar("Summer", "2026-05-31", "2026-08-31", A), Actor::default())
        });
        match clash {
            Err(Error::Overlap { message, service_points }) => {
                assert!(message.contains("Spring"), "{message}");
                assert_eq!(service_points, [A.parse::<Uuid>().unwrap()]);
            }
            other => panic!("{other:?}"),
        }
        // Another service point, or the next day, is fine.
        tenant
            .write(|w| {
                create(w, calendar("Summer B", "2026-05-31", "2026-08-31", B), Actor::default())
            })
            .unwrap();
        let summer = tenant
            .write(|w| {
                create(w, calendar("Summer", "2026-06-01", "2026-08-31", A), Actor::default())
            })
            .unwrap();
        // A calendar does not clash with its own earlier version.
        let mut longer = summer.clone();
        longer.end_date = "2026-09-30".parse().unwrap();
        let id = summer.id.unwrap();
        tenant.write(|w| replace(w, id, longer, Actor::default())).unwrap();
        assert_eq!(tenant.read(|r| get(r, id)).unwrap().end_date.to_string(), "2026-09-30");
        let hours = tenant.read(|r| timetable(r, A.parse().unwrap())).unwrap();
        assert!(hours.day("2026-09-28".parse().unwrap()).open, "a Monday of the longer summer");
        tenant.write(|w| delete(w, id)).unwrap();
        assert!(matches!(tenant.read(|r| get(r, id)), Err(Error::NotFound(_))));
        assert_eq!(tenant.read(all).unwrap().len(), 2);
    }
}
