//! The edge API's keys, as FOLIO's edge modules read them: base64url of
//! `{"s":"<salt>","t":"<tenant>","u":"<institutional user>"}`. A key is valid when its
//! salt was issued for that user by this tenant (`quire oai-key`): the salt is random,
//! so a key cannot be guessed, and a key can be withdrawn by deleting its row.

use base64::Engine;
use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
use serde::{Deserialize, Serialize};
use store::{ColumnValue, Reader, RecordTable, Writer};

use crate::Result;

pub(crate) const KEYS: RecordTable =
    RecordTable { table: "oai_api_keys", record_type: "", cached: false, columns: &["username"] };

/// What a key says: its salt, tenant and institutional user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKey {
    #[serde(rename = "s")]
    pub salt: String,
    #[serde(rename = "t")]
    pub tenant: String,
    #[serde(rename = "u")]
    pub user: String,
}

impl ApiKey {
    /// Reads a key; `None` when it is not one.
    pub fn parse(text: &str) -> Option<ApiKey> {
        let text = text.trim();
        let bytes = URL_SAFE_NO_PAD
            .decode(text.trim_end_matches('='))
            .or_else(|_| URL_SAFE.decode(text))
            .ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(self).expect("a key serialises"))
    }
}

/// Issues a key for `user` of `tenant`, recording its salt.
pub fn issue(w: &mut Writer<'_>, tenant: &str, user: &str) -> Result<ApiKey> {
    let salt = uuid::Uuid::new_v4().simple().to_string()[..10].to_string();
    w.insert(&KEYS, &salt, 1, "", &[ColumnValue::Text(user.to_string())])?;
    Ok(ApiKey { salt, tenant: tenant.to_string(), user: user.to_string() })
}

/// Whether this tenant issued `key`.
pub fn is_issued(r: &Reader<'_>, key: &ApiKey) -> Result<bool> {
    Ok(r.get_column(&KEYS, &key.salt, "username")?.flatten().as_deref() == Some(key.user.as_str()))
}
