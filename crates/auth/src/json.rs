//! Request bodies into this crate's models, with mod-users' split of failures: text that
//! is not JSON is malformed (400); JSON that breaks the schema is invalid (422).

use serde::de::DeserializeOwned;

use crate::{Error, Result};

/// serde stops at the first problem, which can be a field it refuses before a syntax
/// error further on, so a data error counts only once the whole body reads as JSON (within
/// serde_json's nesting limit, past which Jackson refuses a body too).
pub(crate) fn decode<T: DeserializeOwned>(record: &str, bytes: &[u8]) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| {
        if e.is_data()
            && let Err(syntax) = serde_json::from_slice::<serde_json::Value>(bytes)
        {
            return Error::Malformed(syntax.to_string());
        }
        if e.is_syntax() || e.is_eof() {
            Error::Malformed(e.to_string())
        } else {
            Error::Invalid { field: String::new(), message: format!("Invalid {record}: {e}") }
        }
    })
}

pub(crate) fn encode<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Corrupt(e.to_string()))
}

/// FOLIO's message for a missing required property (RMB's bean validation).
pub(crate) fn required(field: &str) -> Error {
    Error::Invalid { field: field.to_string(), message: "must not be null".to_string() }
}
