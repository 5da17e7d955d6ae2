//! How the models read JSON `null`, defaults and `uniqueItems` arrays the way
//! FOLIO's storage modules do.
//!
//! FOLIO binds request bodies with Jackson into generated Java classes, so:
//! - an explicit `null` on an optional field is the same as leaving it out (FOLIO's own
//!   sample records carry `"discoverySuppress": null`, `"formerIds": null`);
//! - an array declared `uniqueItems: true` becomes a `LinkedHashSet`: duplicates are
//!   dropped silently, first occurrence wins, order is kept. It is not a 422.
//!
//! A `null` on a *required* field is still an error; the derive reports it as
//! "invalid type: null" and `decode` turns that into FOLIO's "must not be null".

use serde::{Deserialize, Deserializer};

/// An array that may be absent or `null`, both read as empty.
pub(crate) fn vec<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(deserializer)?.unwrap_or_default())
}

/// A `uniqueItems` array: like [`vec`], then later duplicates are dropped.
pub(crate) fn set<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + PartialEq,
{
    let items = vec::<D, T>(deserializer)?;
    let mut unique: Vec<T> = Vec::with_capacity(items.len());
    // Quadratic, but these arrays hold a handful of entries (codes, former ids);
    // a hash set would force `Hash` onto every nested model.
    for item in items {
        if !unique.contains(&item) {
            unique.push(item);
        }
    }
    Ok(unique)
}

/// A scalar with a schema `default`: absent or `null` gives `T::default()`, which
/// every call site's type makes equal to the schema default (`false`).
pub(crate) fn or_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A string of at most four characters, FOLIO's `maxLength: 4` on instance dates.
pub(crate) fn max_len_4<'de, D>(deserializer: D) -> Result<Option<String>, D::Error>
where
    D: Deserializer<'de>,
{
    let value = Option::<String>::deserialize(deserializer)?;
    if let Some(text) = &value
        && text.chars().count() > 4
    {
        return Err(serde::de::Error::custom("size must be between 0 and 4"));
    }
    Ok(value)
}
