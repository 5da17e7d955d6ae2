//! `Timestamp`: the date-time type of FOLIO's `format: date-time` fields.
//!
//! Owns parsing the spellings FOLIO clients send and printing the one FOLIO's
//! storage modules return. Free-form "date" strings that the schemas type as plain
//! strings (`catalogedDate`, `missingPiecesDate`, ...) stay `String` and are not
//! handled here.

use std::fmt;

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A UTC instant, read from any ISO 8601 spelling FOLIO accepts and written the way
/// FOLIO's storage modules write it: `2024-01-02T03:04:05.678+00:00` (milliseconds,
/// numeric `+00:00` offset).
///
/// Accepted on input, all normalised to UTC:
/// - RFC 3339 (`2024-01-02T03:04:05Z`, `...05.678+02:00`);
/// - an offset without a colon (`2024-01-02T03:04:05.678+0000`), which older FOLIO
///   records carry;
/// - no offset at all (`2024-01-02T03:04:05`), taken as UTC as Jackson does;
/// - a bare date (`2024-01-02`), taken as midnight UTC.
///
/// Invariant: whole milliseconds, the precision of FOLIO's format, so that a
/// decode → encode → decode round trip is exact. Construct with [`Timestamp::now`],
/// [`Timestamp::parse`] or `From<DateTime<Utc>>`, which all truncate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    pub fn now() -> Timestamp {
        Timestamp::from(Utc::now())
    }

    pub fn as_datetime(self) -> DateTime<Utc> {
        self.0
    }

    /// Parses one of the accepted spellings; `None` when it is none of them.
    pub fn parse(text: &str) -> Option<Timestamp> {
        let text = text.trim();
        if let Ok(t) = DateTime::parse_from_rfc3339(text) {
            return Some(Timestamp::from(t.with_timezone(&Utc)));
        }
        // `%z` takes both `+0000` and `+00:00`.
        if let Ok(t) = DateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f%z") {
            return Some(Timestamp::from(t.with_timezone(&Utc)));
        }
        if let Ok(t) = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f") {
            return Some(Timestamp::from(t.and_utc()));
        }
        if let Ok(d) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
            return Some(Timestamp::from(d.and_hms_opt(0, 0, 0)?.and_utc()));
        }
        None
    }
}

impl Timestamp {
    /// The form kept in an extracted column, where text order is time order
    /// (`2024-01-02T03:04:05.678Z`, what SQLite's `strftime('%Y-%m-%dT%H:%M:%fZ')` gives).
    pub fn column(self) -> String {
        self.0.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
    }
}

impl From<DateTime<Utc>> for Timestamp {
    /// Drops precision below a millisecond, which FOLIO's format cannot carry.
    fn from(t: DateTime<Utc>) -> Timestamp {
        Timestamp(truncate_to_millis(t))
    }
}

fn truncate_to_millis(t: DateTime<Utc>) -> DateTime<Utc> {
    let nanos = t.timestamp_subsec_nanos();
    t - chrono::Duration::nanoseconds(i64::from(nanos % 1_000_000))
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `use_z = false` gives `+00:00`, FOLIO's spelling.
        f.write_str(&self.0.to_rfc3339_opts(SecondsFormat::Millis, false))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Timestamp, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Timestamp::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format_args!("invalid date-time \"{text}\"")))
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::Timestamp;

    fn check(input: &str, expect: Expect) {
        let actual = match Timestamp::parse(input) {
            Some(t) => t.to_string(),
            None => "rejected".to_owned(),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn spellings() {
        check("2024-01-02T03:04:05.678+00:00", expect!["2024-01-02T03:04:05.678+00:00"]);
        check("2024-01-02T03:04:05Z", expect!["2024-01-02T03:04:05.000+00:00"]);
        check("2024-01-02T03:04:05.678+0000", expect!["2024-01-02T03:04:05.678+00:00"]);
        check("2024-01-02T05:04:05.678+02:00", expect!["2024-01-02T03:04:05.678+00:00"]);
        check("2024-01-02T03:04:05.123456789Z", expect!["2024-01-02T03:04:05.123+00:00"]);
        check("2024-01-02T03:04:05", expect!["2024-01-02T03:04:05.000+00:00"]);
        check("2024-01-02", expect!["2024-01-02T00:00:00.000+00:00"]);
        check("yesterday", expect!["rejected"]);
        check("2024-13-02", expect!["rejected"]);
    }

    #[test]
    fn serde_round_trip() {
        let t: Timestamp = serde_json::from_str("\"2024-01-02T03:04:05.678+0000\"").unwrap();
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, "\"2024-01-02T03:04:05.678+00:00\"");
        assert_eq!(serde_json::from_str::<Timestamp>(&json).unwrap(), t);
        assert!(serde_json::from_str::<Timestamp>("\"soon\"").is_err());
    }
}
