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

/// Decodes `body` into `T`, a record model or any `Deserialize` type whose JSON is an
/// object.
///
/// ```
/// #[derive(Debug, serde::Deserialize)]
/// #[serde(deny_unknown_fields)]
/// struct Status { name: String }
/// #[derive(Debug, serde::Deserialize)]
/// struct Item { status: Status }
///
/// let err = folio::decode::<Item>(br#"{"status": {}}"#).unwrap_err();
/// let folio::DecodeError::Invalid { field, message, .. } = err else { panic!() };
/// assert_eq!((field.as_str(), message.as_str()), ("status.name", "must not be null"));
/// let err = folio::decode::<Item>(br#"{"status": {"name": "x", "color": 1}"#).unwrap_err();
/// assert!(matches!(err, folio::DecodeError::Malformed { .. }), "not JSON: a 400");
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

/// Decodes `body`, a JSON object, into `T` without the top-level properties `drop`: the
/// read-only ones of a view a client sends back. Errors are [`decode`]'s, located in
/// what is left.
pub fn decode_without<T: DeserializeOwned>(body: &[u8], drop: &[&str]) -> Result<T, DecodeError> {
    let mut object: serde_json::Map<String, serde_json::Value> = decode(body)?;
    for key in drop {
        object.remove(*key);
    }
    let rest = serde_json::to_vec(&object).map_err(|e| malformed(&e))?;
    decode(&rest)
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
