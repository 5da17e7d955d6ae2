//! Credentials (argon2id hashes, keyed by user id), login, and which of a user's tokens
//! still hold.

use serde::{Deserialize, Serialize};
use store::{ColumnValue, Reader, RecordTable, Writer};
use uuid::Uuid;

use crate::{Error, PermissionSet, Result, password};

pub(crate) const CREDENTIALS: RecordTable = RecordTable {
    table: "auth_credentials",
    record_type: "credentials",
    cached: false,
    columns: &["username"],
};

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Credentials {
    id: Uuid,
    username: String,
    hash: String,
    /// The epoch of the tokens that hold (`Claims::epoch`): drawn at random when the
    /// credentials are made and again when the user is deactivated, so a token outlives
    /// neither a deactivation, nor a deletion, nor a re-creation under the same id.
    /// Credentials stored before it existed read 0, as do tokens without the claim.
    #[serde(default)]
    token_epoch: u64,
}

/// Who logged in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginOutcome {
    pub user_id: Uuid,
    pub username: String,
    /// The epoch the user's tokens are to carry.
    pub token_epoch: u64,
}

/// Makes a user's credentials, as mod-login's `POST /authn/credentials` and tenant
/// provisioning do: refused when the user has some already (changing a password needs
/// the current one, [`update_password`]).
pub fn create_credentials(
    writer: &mut Writer<'_>,
    user_id: Uuid,
    username: &str,
    password: &str,
) -> Result<()> {
    if writer.get(&CREDENTIALS, &user_id.to_string())?.is_some() {
        return Err(Error::CredentialsExist(user_id));
    }
    store_credentials(writer, user_id, username, password, new_epoch())
}

/// Changes a password given the current one, as mod-login's `POST /authn/update`.
/// Tokens already issued stay valid: the user is still who they were.
pub fn update_password(
    writer: &mut Writer<'_>,
    user_id: Uuid,
    password: &str,
    new_password: &str,
) -> Result<()> {
    let stored =
        writer.get(&CREDENTIALS, &user_id.to_string())?.ok_or(Error::NoCredentials(user_id))?;
    let credentials = parse(&stored.body)?;
    if !password::verify_password(&credentials.hash, password)? {
        return Err(Error::WrongPassword);
    }
    store_credentials(writer, user_id, &credentials.username, new_password, credentials.token_epoch)
}

/// Deletes a user's credentials (mod-login's `DELETE /authn/credentials`); their tokens
/// are refused from then on.
pub fn delete_credentials(writer: &mut Writer<'_>, user_id: Uuid) -> Result<()> {
    if !writer.delete(&CREDENTIALS, &user_id.to_string())? {
        return Err(Error::NoCredentials(user_id));
    }
    Ok(())
}

/// Whether the user has credentials.
pub fn has_credentials(reader: &Reader<'_>, user_id: Uuid) -> Result<bool> {
    Ok(reader.get(&CREDENTIALS, &user_id.to_string())?.is_some())
}

/// Refuses the user's tokens issued so far.
pub(crate) fn revoke_tokens(writer: &mut Writer<'_>, user_id: Uuid) -> Result<()> {
    let Some(stored) = writer.get(&CREDENTIALS, &user_id.to_string())? else {
        return Ok(());
    };
    let mut credentials = parse(&stored.body)?;
    credentials.token_epoch = new_epoch();
    let body = crate::json::encode(&credentials)?;
    writer.update(
        &CREDENTIALS,
        &stored.id,
        stored.version + 1,
        &body,
        &[ColumnValue::Text(credentials.username.clone())],
    )?;
    Ok(())
}

fn store_credentials(
    writer: &mut Writer<'_>,
    user_id: Uuid,
    username: &str,
    password: &str,
    token_epoch: u64,
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
        token_epoch,
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

/// A fresh token epoch: random, so no earlier epoch of the same user id comes back.
fn new_epoch() -> u64 {
    Uuid::new_v4().as_u64_pair().0
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

/// Checks a username and password. A user flagged inactive, or whose expiration date
/// has passed, cannot log in.
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
        && !may_act(&user)
    {
        return Err(Error::InactiveUser);
    }
    Ok(LoginOutcome {
        user_id: credentials.id,
        username: credentials.username,
        token_epoch: credentials.token_epoch,
    })
}

/// Whether a user may log in and use their tokens: not flagged inactive and not expired.
pub(crate) fn may_act(user: &crate::User) -> bool {
    user.active != Some(false)
        && user.expiration_date.is_none_or(|expires| expires > folio::Timestamp::now())
}

/// What a user's tokens may do, read in one go for the server's cache: the user's
/// permissions, for tokens of their credentials' current epoch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Standing {
    pub permissions: PermissionSet,
    /// `None` when no token of the user holds: the user is gone, inactive or expired,
    /// or has no credentials.
    token_epoch: Option<u64>,
}

impl Standing {
    /// Whether a token with these claims holds.
    pub fn admits(&self, claims: &crate::Claims) -> bool {
        self.token_epoch == Some(claims.epoch)
    }
}

/// The standing of a user's tokens.
pub fn standing(reader: &Reader<'_>, user_id: Uuid) -> Result<Standing> {
    let active = crate::get_user(reader, user_id)?.is_some_and(|user| may_act(&user));
    let credentials = match reader.get(&CREDENTIALS, &user_id.to_string())? {
        Some(stored) if active => Some(parse(&stored.body)?),
        _ => None,
    };
    Ok(Standing {
        permissions: crate::permissions_of(reader, user_id)?,
        token_epoch: credentials.map(|c| c.token_epoch),
    })
}

fn parse(body: &str) -> Result<Credentials> {
    serde_json::from_str(body).map_err(|e| Error::Corrupt(format!("credentials: {e}")))
}
