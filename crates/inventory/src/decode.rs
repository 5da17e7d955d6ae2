//! `decode`: request body bytes to a typed model, with errors precise enough to build
//! FOLIO's 400 and 422 responses.
//!
//! Owns classifying and locating decode failures. It does not own the HTTP mapping
//! (`server/src/error.rs` turns `Malformed` into 400 and `Invalid` into 422) nor
//! checks that need the database (existing references, unique names).

use serde::de::DeserializeOwned;
use serde_path_to_error::Segment;

/// Why a body could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Not JSON at all (syntax error, truncated, trailing garbage, empty body).
    /// FOLIO answers 400. `line` and `column` are 1-based, as serde_json counts.
    #[error("malformed JSON at line {line} column {column}: {message}")]
    Malformed { message: String, line: usize, column: usize },
    /// Well-formed JSON that does not fit the model. FOLIO answers 422 with one error
    /// whose parameter is `field` = `value`.
    ///
    /// `field` is a dotted path with array indexes (`status.name`,
    /// `identifiers[0].value`). For a missing or null required field it is the path
    /// of that field and `message` is FOLIO's "must not be null". For an unknown field
    /// it is the unknown field's path. A body that is JSON but not an object (`[]`,
    /// `"x"`) is `Invalid` with `field` = `""`.
    ///
    /// `value` is the offending JSON value as text (a string without its quotes,
    /// anything else as compact JSON); `None` when the field is missing or `null`.
    #[error("{field}: {message}")]
    Invalid { field: String, message: String, value: Option<String> },
}

/// Decodes `body` into `T`, which is one of the [`crate::model`] types (or anything
/// `Deserialize`).
///
/// ```
/// use inventory::{DecodeError, Item, decode};
///
/// let err = decode::<Item>(br#"{"status": {}}"#).unwrap_err();
/// let DecodeError::Invalid { field, message, .. } = err else { panic!() };
/// assert_eq!((field.as_str(), message.as_str()), ("status.name", "must not be null"));
/// ```
pub fn decode<T: DeserializeOwned>(body: &[u8]) -> Result<T, DecodeError> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let result = serde_path_to_error::deserialize::<_, T>(&mut de);
    match result {
        // Non-whitespace after the value makes the body malformed.
        Ok(value) => match de.end() {
            Ok(()) => check_object(body).map(|()| value),
            Err(e) => Err(malformed(&e)),
        },
        Err(e) => {
            let path: Vec<Segment> = e.path().iter().cloned().collect();
            Err(classify(body, &path, e.into_inner()))
        }
    }
}

/// serde's derived structs also read JSON arrays, positionally. Every body Quire
/// decodes is an object, so anything else at the top is rejected here. (Nested
/// struct positions still take the positional form; no FOLIO client sends it.)
fn check_object(body: &[u8]) -> Result<(), DecodeError> {
    match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => Ok(()),
        _ => {
            let value = serde_json::from_slice(body).ok().and_then(|root| value_at(&root, &[]));
            Err(invalid(Vec::new(), "must be a JSON object", value))
        }
    }
}

/// Turns a serde failure at `path` into a `DecodeError`, FOLIO's messages where FOLIO
/// has one.
fn classify(body: &[u8], path: &[Segment], error: serde_json::Error) -> DecodeError {
    if !error.is_data() {
        return malformed(&error);
    }
    // serde stops at the first problem it meets, which can be a data error before a
    // syntax error further on (`{"unknown": 1, "title": ` is malformed, not 422).
    // So a data error is only reported once the whole body is known to be JSON.
    let root: serde_json::Value = match serde_json::from_slice(body) {
        Ok(root) => root,
        Err(e) => return malformed(&e),
    };
    if let Err(e) = check_object(body) {
        return e;
    }
    let message = strip_position(&error.to_string());
    // serde reports a missing or duplicate field at the path of the object holding it.
    let child = |name: &str| {
        let mut path = path.to_vec();
        path.push(Segment::Map { key: name.to_owned() });
        path
    };

    if let Some(name) = backticked(&message, "missing field `") {
        return invalid(child(name), "must not be null", None);
    }
    if let Some(name) = backticked(&message, "duplicate field `") {
        let field = child(name);
        let value = value_at(&root, &field);
        return invalid(field, &format!("Duplicate field \"{name}\""), value);
    }
    // An unknown field's path already ends with its name.
    if let Some(name) = backticked(&message, "unknown field `") {
        let message = format!("Unrecognized field \"{name}\"");
        return invalid(path.to_vec(), &message, value_at(&root, path));
    }
    if message.starts_with("invalid type: null") {
        return invalid(path.to_vec(), "must not be null", None);
    }
    invalid(path.to_vec(), &message, value_at(&root, path))
}

fn malformed(error: &serde_json::Error) -> DecodeError {
    DecodeError::Malformed {
        message: strip_position(&error.to_string()),
        line: error.line(),
        column: error.column(),
    }
}

fn invalid(path: Vec<Segment>, message: &str, value: Option<String>) -> DecodeError {
    DecodeError::Invalid { field: format_path(&path), message: message.to_owned(), value }
}

/// The text between `prefix` and the next backtick, if `message` starts with `prefix`.
fn backticked<'m>(message: &'m str, prefix: &str) -> Option<&'m str> {
    let rest = message.strip_prefix(prefix)?;
    rest.find('`').map(|end| &rest[..end])
}

/// serde_json appends " at line L column C" to its messages; the position is kept
/// in its own fields instead.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(idx) if message[idx..].contains(" column ") => message[..idx].to_owned(),
        _ => message.to_owned(),
    }
}

/// `identifiers[0].value` style, `""` for the root.
fn format_path(path: &[Segment]) -> String {
    let mut out = String::new();
    for segment in path {
        let name = match segment {
            Segment::Seq { index } => {
                out.push_str(&format!("[{index}]"));
                continue;
            }
            Segment::Map { key } | Segment::Enum { variant: key } => key.as_str(),
            Segment::Unknown => "?",
        };
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(name);
    }
    out
}

/// The JSON value at `path` in `root`, as text: a string without its quotes,
/// anything else as compact JSON, `None` for null or nothing there. Only used on the
/// error path, where the second parse of the body costs nothing that matters.
fn value_at(root: &serde_json::Value, path: &[Segment]) -> Option<String> {
    let mut current = root;
    for segment in path {
        current = match segment {
            Segment::Seq { index } => current.get(index)?,
            Segment::Map { key } | Segment::Enum { variant: key } => current.get(key)?,
            Segment::Unknown => return None,
        };
    }
    match current {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use serde::de::DeserializeOwned;

    use super::decode;
    use crate::model::{HoldingsRecord, Instance, Item};
    use crate::reference::RefKind;

    fn check<T: DeserializeOwned>(body: &str, expect: Expect) {
        let actual = match decode::<T>(body.as_bytes()) {
            Ok(_) => "ok".to_owned(),
            Err(e) => format!("{e:?}"),
        };
        expect.assert_eq(&actual);
    }

    /// A valid instance with `extra` spliced in after the required fields.
    fn instance(extra: &str) -> String {
        format!(
            r#"{{"source": "FOLIO", "title": "Linked data",
                "instanceTypeId": "6312d172-f0cf-40f6-b27d-9fa8feaf332f"{extra}}}"#
        )
    }

    #[test]
    fn instance_errors() {
        check::<Instance>(&instance(""), expect!["ok"]);
        check::<Instance>(
            r#"{"source": "FOLIO", "instanceTypeId": "6312d172-f0cf-40f6-b27d-9fa8feaf332f"}"#,
            expect![[r#"Invalid { field: "title", message: "must not be null", value: None }"#]],
        );
        check::<Instance>(
            r#"{"source": "FOLIO", "title": null,
                "instanceTypeId": "6312d172-f0cf-40f6-b27d-9fa8feaf332f"}"#,
            expect![[r#"Invalid { field: "title", message: "must not be null", value: None }"#]],
        );
        check::<Instance>(
            &instance(r#", "foo": {"bar": 1}"#),
            expect![[
                r#"Invalid { field: "foo", message: "Unrecognized field \"foo\"", value: Some("{\"bar\":1}") }"#
            ]],
        );
        check::<Instance>(
            &instance(
                r#", "identifiers": [
                    {"value": "9781617290398", "identifierTypeId": "8261054f-be78-422d-bd51-4ed9f33c3422"},
                    {"value": "(OCoLC)852161519"}]"#,
            ),
            expect![[
                r#"Invalid { field: "identifiers[1].identifierTypeId", message: "must not be null", value: None }"#
            ]],
        );
        check::<Instance>(
            &instance(
                r#", "contributors": [{"name": "Wood, David",
                    "contributorNameTypeId": "2b94c631-fca9-4892-a730-03ee529ffe2a", "role": "x"}]"#,
            ),
            expect![[
                r#"Invalid { field: "contributors[0].role", message: "Unrecognized field \"role\"", value: Some("x") }"#
            ]],
        );
        check::<Instance>(
            r#"{"source": "FOLIO", "title": "t", "instanceTypeId": "6312d172-f0cf-40f6"}"#,
            expect![[
                r#"Invalid { field: "instanceTypeId", message: "UUID parsing failed: invalid group count: expected 5, found 3", value: Some("6312d172-f0cf-40f6") }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "languages": "eng""#),
            expect![[
                r#"Invalid { field: "languages", message: "invalid type: string \"eng\", expected a sequence", value: Some("eng") }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "discoverySuppress": "yes""#),
            expect![[
                r#"Invalid { field: "discoverySuppress", message: "invalid type: string \"yes\", expected a boolean", value: Some("yes") }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "dates": {"date1": "20141""#),
            expect![[
                r#"Malformed { message: "EOF while parsing an object", line: 2, column: 101 }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "dates": {"date1": "20141"}"#),
            expect![[
                r#"Invalid { field: "dates.date1", message: "size must be between 0 and 4", value: Some("20141") }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "sourceRecordFormat": "MARC""#),
            expect![[
                r#"Invalid { field: "sourceRecordFormat", message: "unknown variant `MARC`, expected `MARC-JSON`", value: Some("MARC") }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "metadata": {"createdDate": "soon"}"#),
            expect![[
                r#"Invalid { field: "metadata.createdDate", message: "invalid date-time \"soon\"", value: Some("soon") }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "title": "again""#),
            expect![[
                r#"Invalid { field: "title", message: "Duplicate field \"title\"", value: Some("again") }"#
            ]],
        );
        check::<Instance>(
            &instance(r#", "notes": [null]"#),
            expect![[r#"Invalid { field: "notes[0]", message: "must not be null", value: None }"#]],
        );
    }

    #[test]
    fn malformed_bodies() {
        check::<Instance>(
            "",
            expect![[r#"Malformed { message: "EOF while parsing a value", line: 1, column: 0 }"#]],
        );
        check::<Instance>(
            "   \n",
            expect![[r#"Malformed { message: "EOF while parsing a value", line: 2, column: 0 }"#]],
        );
        check::<Instance>(
            "not json",
            expect![[r#"Malformed { message: "expected ident", line: 1, column: 2 }"#]],
        );
        check::<Instance>(
            r#"{"title": "Linked data""#,
            expect![[
                r#"Malformed { message: "EOF while parsing an object", line: 1, column: 23 }"#
            ]],
        );
        check::<Instance>(
            &format!("{} {{}}", instance("")),
            expect![[r#"Malformed { message: "trailing characters", line: 2, column: 75 }"#]],
        );
        // An unknown field before the syntax error: still malformed, not 422.
        check::<Instance>(
            "{\"foo\": 1,\n \"title\": }",
            expect![[r#"Malformed { message: "expected value", line: 2, column: 11 }"#]],
        );
    }

    #[test]
    fn not_an_object() {
        check::<Instance>(
            "[]",
            expect![[
                r#"Invalid { field: "", message: "must be a JSON object", value: Some("[]") }"#
            ]],
        );
        check::<Instance>(
            r#"["FOLIO", "Linked data"]"#,
            expect![[
                r#"Invalid { field: "", message: "must be a JSON object", value: Some("[\"FOLIO\",\"Linked data\"]") }"#
            ]],
        );
        check::<Instance>(
            r#""Linked data""#,
            expect![[
                r#"Invalid { field: "", message: "must be a JSON object", value: Some("Linked data") }"#
            ]],
        );
        check::<Instance>(
            "null",
            expect![[r#"Invalid { field: "", message: "must be a JSON object", value: None }"#]],
        );
    }

    const HOLDINGS: &str = r#""sourceId": "f32d531e-df79-46b3-8932-cdd35f7a2264",
        "instanceId": "b99b2c50-72e2-49b6-8fa1-0ebb97b27125""#;

    #[test]
    fn holdings_errors() {
        let holdings = |extra: &str| format!("{{{HOLDINGS}{extra}}}");
        check::<HoldingsRecord>(
            &holdings(r#", "permanentLocationId": "fcd64ce1-6995-48f0-840e-89ffa2288371""#),
            expect!["ok"],
        );
        check::<HoldingsRecord>(
            &holdings(""),
            expect![[
                r#"Invalid { field: "permanentLocationId", message: "must not be null", value: None }"#
            ]],
        );
        check::<HoldingsRecord>(
            &holdings(
                r#", "permanentLocationId": "fcd64ce1-6995-48f0-840e-89ffa2288371",
                   "statisticalCodeIds": ["b5968c9e-cddc-4576-99e3-8e60aed8b0dd", "nope"]"#,
            ),
            expect![[
                r#"Invalid { field: "statisticalCodeIds[1]", message: "UUID parsing failed: invalid character: found `n` at 0", value: Some("nope") }"#
            ]],
        );
        check::<HoldingsRecord>(
            &holdings(
                r#", "permanentLocationId": "fcd64ce1-6995-48f0-840e-89ffa2288371",
                   "holdingsStatements": [{"statement": "v.1", "public": true}]"#,
            ),
            expect![[
                r#"Invalid { field: "holdingsStatements[0].public", message: "Unrecognized field \"public\"", value: Some("true") }"#
            ]],
        );
        check::<HoldingsRecord>(
            &holdings(
                r#", "permanentLocationId": "fcd64ce1-6995-48f0-840e-89ffa2288371",
                   "receivingHistory": {"entries": [{"enumeration": 1}]}"#,
            ),
            expect![[
                r#"Invalid { field: "receivingHistory.entries[0].enumeration", message: "invalid type: integer `1`, expected a string", value: Some("1") }"#
            ]],
        );
    }

    /// A valid item body with `status` as given and `extra` spliced in.
    fn item(status: &str, extra: &str) -> String {
        format!(
            r#"{{"holdingsRecordId": "fb223b29-66ec-4127-b0db-b4e1756399d6",
                "materialTypeId": "1a54b431-2e4f-452d-9cae-9cee66c9a892",
                "permanentLoanTypeId": "2b94c631-fca9-4892-a730-03ee529ffe27"
                {status}{extra}}}"#
        )
    }

    #[test]
    fn item_errors() {
        check::<Item>(&item(r#", "status": {"name": "Available"}"#, ""), expect!["ok"]);
        check::<Item>(
            &item("", ""),
            expect![[r#"Invalid { field: "status", message: "must not be null", value: None }"#]],
        );
        check::<Item>(
            &item(r#", "status": {}"#, ""),
            expect![[
                r#"Invalid { field: "status.name", message: "must not be null", value: None }"#
            ]],
        );
        check::<Item>(
            &item(r#", "status": {"name": "Lost"}"#, ""),
            expect![[
                r#"Invalid { field: "status.name", message: "unknown variant `Lost`, expected one of `Aged to lost`, `Available`, `Awaiting pickup`, `Awaiting delivery`, `Checked out`, `Claimed returned`, `Declared lost`, `In process`, `In process (non-requestable)`, `In transit`, `Intellectual item`, `Long missing`, `Lost and paid`, `Missing`, `On order`, `Paged`, `Restricted`, `Order closed`, `Unavailable`, `Unknown`, `Withdrawn`", value: Some("Lost") }"#
            ]],
        );
        check::<Item>(
            &item(r#", "status": {"name": "Available", "date": "yesterday"}"#, ""),
            expect![[
                r#"Invalid { field: "status.date", message: "invalid date-time \"yesterday\"", value: Some("yesterday") }"#
            ]],
        );
        check::<Item>(
            &item(
                r#", "status": {"name": "Available"}"#,
                r#", "circulationNotes": [{"noteType": "Check in"}, {"noteType": "Renew"}]"#,
            ),
            expect![[
                r#"Invalid { field: "circulationNotes[1].noteType", message: "unknown variant `Renew`, expected `Check in` or `Check out`", value: Some("Renew") }"#
            ]],
        );
        check::<Item>(
            &item(r#", "status": {"name": "Available"}"#, r#", "copyNumber": 2"#),
            expect![[
                r#"Invalid { field: "copyNumber", message: "invalid type: integer `2`, expected a string", value: Some("2") }"#
            ]],
        );
    }

    #[test]
    fn reference_errors() {
        let check_ref = |kind: RefKind, body: &str, expect: Expect| {
            let actual = match kind.decode(body.as_bytes()) {
                Ok(record) => format!("ok {}", record.name()),
                Err(e) => format!("{e:?}"),
            };
            expect.assert_eq(&actual);
        };
        check_ref(RefKind::MaterialType, r#"{"name": "book"}"#, expect!["ok book"]);
        check_ref(
            RefKind::MaterialType,
            r#"{"source": "local"}"#,
            expect![[r#"Invalid { field: "name", message: "must not be null", value: None }"#]],
        );
        check_ref(
            RefKind::MaterialType,
            r#"{"name": "book", "code": "bk"}"#,
            expect![[
                r#"Invalid { field: "code", message: "Unrecognized field \"code\"", value: Some("bk") }"#
            ]],
        );
        check_ref(
            RefKind::MaterialType,
            r#"{"id": "not-a-uuid", "name": "book"}"#,
            expect![[
                r#"Invalid { field: "id", message: "UUID parsing failed: invalid character: found `n` at 0", value: Some("not-a-uuid") }"#
            ]],
        );
        check_ref(
            RefKind::InstanceType,
            r#"{"name": "text", "code": "txt"}"#,
            expect![[r#"Invalid { field: "source", message: "must not be null", value: None }"#]],
        );
        check_ref(
            RefKind::ServicePoint,
            r#"{"name": "Desk", "code": "d", "discoveryDisplayName": "Desk",
                "holdShelfExpiryPeriod": {"duration": 3, "intervalId": "Fortnights"}}"#,
            expect![[
                r#"Invalid { field: "holdShelfExpiryPeriod.intervalId", message: "unknown variant `Fortnights`, expected one of `Minutes`, `Hours`, `Days`, `Weeks`, `Months`", value: Some("Fortnights") }"#
            ]],
        );
        check_ref(
            RefKind::Location,
            r#"{"name": "Stacks", "code": "S",
                "institutionId": "40ee00ca-a518-4b49-be01-0638d0a4ac57",
                "campusId": "62cf76b7-cca5-4d33-9217-edf42ce1a848",
                "libraryId": "5d78803e-ca04-4b4a-aeae-2c63b924518b"}"#,
            expect![[
                r#"Invalid { field: "primaryServicePoint", message: "must not be null", value: None }"#
            ]],
        );
    }
}
