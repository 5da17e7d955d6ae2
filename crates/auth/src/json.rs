//! Request bodies into this crate's models through the one decode (`folio::decode`:
//! not JSON is a 400, JSON that breaks the schema a 422 naming the field), and models
//! into stored JSON.

use serde::de::DeserializeOwned;

use crate::{Error, Result};

pub(crate) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    Ok(folio::decode(bytes)?)
}

pub(crate) fn encode<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Corrupt(e.to_string()))
}

/// FOLIO's message for a missing required property (RMB's bean validation).
pub(crate) fn required(field: &str) -> Error {
    Error::Invalid { field: field.to_string(), message: "must not be null".to_string() }
}
