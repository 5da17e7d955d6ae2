//! FOLIO's date-time text: read leniently, written one way.
//!
//! FOLIO's schemas declare `format: date-time`, but real clients and FOLIO's own sample
//! data send plain dates (`2019-11-27`), Java's `+0000` offsets and RFC 3339 alike. All
//! are read here into UTC, once; they are written back as mod-users writes them
//! (`2019-11-27T00:00:00.000+00:00`), so a stored record reads the same from any client.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

/// Reads a FOLIO date or date-time; `None` if it is neither.
pub(crate) fn parse(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(dt) = DateTime::parse_from_rfc3339(text) {
        return Some(dt.with_timezone(&Utc));
    }
    if let Ok(dt) = DateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f%z") {
        return Some(dt.with_timezone(&Utc));
    }
    // A date-time without an offset is UTC, as RMB reads it.
    if let Ok(naive) = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f") {
        return Some(naive.and_utc());
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .map(|d| d.and_time(Default::default()).and_utc())
}

/// The JSON form: what mod-users returns.
pub(crate) fn format(dt: &DateTime<Utc>) -> String {
    dt.format("%Y-%m-%dT%H:%M:%S%.3f+00:00").to_string()
}

/// The form kept in an extracted column, where text order is time order (the same text
/// SQLite's `strftime('%Y-%m-%dT%H:%M:%fZ', ...)` gives, which migration 2 relies on).
pub(crate) fn column(dt: &DateTime<Utc>) -> String {
    dt.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// `#[serde(with = "crate::datetime::option")]` for an optional FOLIO date-time field.
pub(crate) mod option {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(
        value: &Option<DateTime<Utc>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(dt) => serializer.serialize_str(&super::format(dt)),
            None => serializer.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<DateTime<Utc>>, D::Error> {
        match Option::<String>::deserialize(deserializer)? {
            None => Ok(None),
            Some(text) => super::parse(&text).map(Some).ok_or_else(|| {
                serde::de::Error::custom(format!("'{text}' is not a date or date-time"))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    fn check(input: &str, expect: expect_test::Expect) {
        let actual = match super::parse(input) {
            Some(dt) => format!("{} {}", super::format(&dt), super::column(&dt)),
            None => "none".to_string(),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn reads_the_forms_folio_clients_send() {
        check("2019-11-27", expect!["2019-11-27T00:00:00.000+00:00 2019-11-27T00:00:00.000Z"]);
        check(
            "2019-11-27T10:11:12.5Z",
            expect!["2019-11-27T10:11:12.500+00:00 2019-11-27T10:11:12.500Z"],
        );
        check(
            "2019-11-27T01:00:00.000+0200",
            expect!["2019-11-26T23:00:00.000+00:00 2019-11-26T23:00:00.000Z"],
        );
        check(
            "2019-11-27T01:00:00-05:00",
            expect!["2019-11-27T06:00:00.000+00:00 2019-11-27T06:00:00.000Z"],
        );
        check(
            "2019-11-27T01:02:03",
            expect!["2019-11-27T01:02:03.000+00:00 2019-11-27T01:02:03.000Z"],
        );
        check("27/11/2019", expect!["none"]);
        check("", expect!["none"]);
    }
}
