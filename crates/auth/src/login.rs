//! Credentials (argon2id hashes, keyed by user id) and login.

use serde::{Deserialize, Serialize};
use store::{ColumnValue, Reader, RecordTable, Writer};
use uuid::Uuid;

use crate::{Error, Result, password};

pub(crate) const CREDENTIALS: RecordTable =
    RecordTable { table: "auth_credentials", record_type: "credentials", columns: &["username"] };

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Credentials {
    id: Uuid,
    username: String,
    hash: String,
}

/// Who logged in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginOutcome {
    pub user_id: Uuid,
    pub username: String,
}

/// Sets (or replaces) the password of a user.
pub fn set_password(
    writer: &mut Writer<'_>,
    user_id: Uuid,
    username: &str,
    password: &str,
) -> Result<()> {
    if password.is_empty() {
        return Err(Error::Invalid {
            field: "password".to_string(),
            message: "must not be empty".to_string(),
        });
    }
    let credentials = Credentials {
        id: user_id,
        username: username.to_string(),
        hash: password::hash_password(password)?,
    };
    let body = crate::json::encode(&credentials)?;
    writer.upsert(
        &CREDENTIALS,
        &user_id.to_string(),
        1,
        &body,
        &[ColumnValue::Text(username.to_string())],
    )?;
    Ok(())
}

/// Follows a user's new username, so they log in with the name their record shows.
pub(crate) fn rename(writer: &mut Writer<'_>, user_id: Uuid, username: &str) -> Result<()> {
    let Some(stored) = writer.get(&CREDENTIALS, &user_id.to_string())? else {
        return Ok(());
    };
    let mut credentials = parse(&stored.body)?;
    if credentials.username == username {
        return Ok(());
    }
    credentials.username = username.to_string();
    let body = crate::json::encode(&credentials)?;
    writer.update(
        &CREDENTIALS,
        &stored.id,
        stored.version + 1,
        &body,
        &[ColumnValue::Text(username.to_string())],
    )?;
    Ok(())
}

/// Checks a username and password. A user flagged inactive cannot log in (saving a user
/// whose expiration date has passed flags them so).
pub fn login(reader: &Reader<'_>, username: &str, password: &str) -> Result<LoginOutcome> {
    let Some(record) = reader.find_by(&CREDENTIALS, "username", username)?.into_iter().next()
    else {
        return Err(Error::UnknownUsername(username.to_string()));
    };
    let credentials = parse(&record.body)?;
    if !password::verify_password(&credentials.hash, password)? {
        return Err(Error::BadCredentials);
    }
    if let Some(user) = crate::get_user(reader, credentials.id)?
        && user.active == Some(false)
    {
        return Err(Error::InactiveUser);
    }
    Ok(LoginOutcome { user_id: credentials.id, username: credentials.username })
}

fn parse(body: &str) -> Result<Credentials> {
    serde_json::from_str(body).map_err(|e| Error::Corrupt(format!("credentials: {e}")))
}
