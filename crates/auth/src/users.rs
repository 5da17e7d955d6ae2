//! User records (the part login needs), credentials and login.
//!
//! The user record keeps FOLIO's `/users` shape; fields this crate does not interpret are
//! kept as they came, so nothing a client stores is lost.

use serde::{Deserialize, Serialize};
use store::{ColumnValue, Migration, Page, Reader, RecordTable, StoredRecord, Writer};
use uuid::Uuid;

use crate::{Error, Result, password};

pub(crate) const USERS: RecordTable = RecordTable {
    table: "users",
    record_type: "user",
    columns: &["username", "barcode", "external_system_id", "active", "patron_group"],
};

pub(crate) const CREDENTIALS: RecordTable =
    RecordTable { table: "auth_credentials", record_type: "credentials", columns: &["username"] };

pub(crate) const PERMISSIONS_USERS: RecordTable = RecordTable {
    table: "permissions_users",
    record_type: "permissions_user",
    columns: &["user_id"],
};

/// The auth component's schema.
pub const MIGRATIONS: store::Component = store::Component {
    name: "auth",
    migrations: &[Migration {
        version: 1,
        description: "users, credentials, permission assignments",
        sql: "
            CREATE TABLE users (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                username TEXT COLLATE NOCASE UNIQUE,
                barcode TEXT COLLATE NOCASE UNIQUE,
                external_system_id TEXT COLLATE NOCASE,
                active INTEGER,
                patron_group TEXT COLLATE NOCASE
            );
            CREATE INDEX users_external_system_id ON users (external_system_id);
            CREATE INDEX users_patron_group ON users (patron_group);
            CREATE TABLE auth_credentials (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                username TEXT NOT NULL COLLATE NOCASE UNIQUE
            );
            CREATE TABLE permissions_users (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
                user_id TEXT NOT NULL UNIQUE
            );
        ",
    }],
};

/// A user, FOLIO's `/users` record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct User {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_system_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub barcode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub user_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patron_group: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub personal: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Value>,
    /// Fields kept as sent (circulation will type the rest of the record).
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

impl User {
    fn columns(&self) -> Vec<ColumnValue> {
        vec![
            self.username.as_deref().into(),
            self.barcode.as_deref().into(),
            self.external_system_id.as_deref().into(),
            self.active.map_or(ColumnValue::Null, |a| ColumnValue::Int(a as i64)),
            self.patron_group.map(|g| g.to_string()).into(),
        ]
    }
}

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

/// Stores a new user; assigns an id when it has none. `actor` is who is creating it.
pub fn create_user(writer: &mut Writer<'_>, mut user: User, actor: Option<Uuid>) -> Result<User> {
    let id = *user.id.get_or_insert_with(Uuid::new_v4);
    let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3f+00:00").to_string();
    let actor = actor.map(|a| a.to_string());
    user.metadata = Some(serde_json::json!({
        "createdDate": now, "createdByUserId": actor, "updatedDate": now, "updatedByUserId": actor,
    }));
    let body = serde_json::to_string(&user).map_err(|e| Error::Corrupt(e.to_string()))?;
    match writer.insert(&USERS, &id.to_string(), 1, &body, &user.columns()) {
        Ok(()) => Ok(user),
        Err(store::Error::DuplicateId { .. }) => Err(Error::DuplicateUserId(id.to_string())),
        Err(store::Error::Unique { column, .. }) if column == "username" => {
            Err(Error::UsernameTaken(user.username.clone().unwrap_or_default()))
        }
        Err(store::Error::Unique { column, .. }) => {
            Err(Error::InvalidUser { field: column, message: "value already exists".to_string() })
        }
        Err(e) => Err(e.into()),
    }
}

/// The user with this id.
pub fn get_user(reader: &Reader<'_>, id: Uuid) -> Result<Option<User>> {
    reader.get(&USERS, &id.to_string())?.map(|r| parse_user(&r)).transpose()
}

/// Whether a user with this username exists (usernames compare case-insensitively).
pub fn username_taken(reader: &Reader<'_>, username: &str) -> Result<bool> {
    Ok(!reader.find_by(&USERS, "username", username)?.is_empty())
}

/// Users matching a CQL query, one page of their JSON bodies, and the total.
pub fn list_users(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    use store::{FieldKind::Text, QueryField};
    const FIELDS: &[QueryField] = &[
        QueryField { index: "id", column: "id", kind: Text },
        QueryField { index: "username", column: "username", kind: Text },
        QueryField { index: "barcode", column: "barcode", kind: Text },
        QueryField { index: "externalSystemId", column: "external_system_id", kind: Text },
        QueryField { index: "patronGroup", column: "patron_group", kind: Text },
        QueryField { index: "active", column: "active", kind: store::FieldKind::Int },
    ];
    let (records, total) = reader.list(&USERS, FIELDS, cql, page)?;
    Ok((records.into_iter().map(|r| r.body).collect(), total))
}

fn parse_user(record: &StoredRecord) -> Result<User> {
    serde_json::from_str(&record.body)
        .map_err(|e| Error::Corrupt(format!("user {}: {e}", record.id)))
}

/// Sets (or replaces) the password of a user.
pub fn set_password(
    writer: &mut Writer<'_>,
    user_id: Uuid,
    username: &str,
    password: &str,
) -> Result<()> {
    if password.is_empty() {
        return Err(Error::InvalidUser {
            field: "password".to_string(),
            message: "must not be empty".to_string(),
        });
    }
    let credentials = Credentials {
        id: user_id,
        username: username.to_string(),
        hash: password::hash_password(password)?,
    };
    let body = serde_json::to_string(&credentials).map_err(|e| Error::Corrupt(e.to_string()))?;
    writer.upsert(
        &CREDENTIALS,
        &user_id.to_string(),
        1,
        &body,
        &[ColumnValue::Text(username.to_string())],
    )?;
    Ok(())
}

/// Checks a username and password. An inactive user cannot log in.
pub fn login(reader: &Reader<'_>, username: &str, password: &str) -> Result<LoginOutcome> {
    let Some(record) = reader.find_by(&CREDENTIALS, "username", username)?.into_iter().next()
    else {
        return Err(Error::UnknownUsername(username.to_string()));
    };
    let credentials: Credentials = serde_json::from_str(&record.body)
        .map_err(|e| Error::Corrupt(format!("credentials: {e}")))?;
    if !password::verify_password(&credentials.hash, password)? {
        return Err(Error::BadCredentials);
    }
    if let Some(user) = get_user(reader, credentials.id)?
        && user.active == Some(false)
    {
        return Err(Error::InactiveUser);
    }
    Ok(LoginOutcome { user_id: credentials.id, username: credentials.username })
}
