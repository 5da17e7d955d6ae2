//! User records, FOLIO's `/users` (mod-users): the fields circulation reads are typed,
//! every other field is kept as it came, so nothing a client stores is lost.
//!
//! What it owns: the rules of a user write (a known patron group, unique id, username and
//! barcode, the required last name, expiry). What it does not own: credentials
//! (`login.rs`) and permission assignments (`permissions.rs`), which only follow a
//! user's rename or deletion.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use store::{ColumnValue, Page, QueryField, Read, Reader, RecordTable, StoredRecord, Writer};
use uuid::Uuid;

use folio::{Actor, Metadata, Record, Timestamp};

use crate::{Error, Result, UniqueUserField, Write};

// Invariant: the column order is the order of `User::columns`.
pub(crate) const USERS: RecordTable = RecordTable {
    table: "users",
    record_type: "user",
    cached: false,
    columns: &[
        "username",
        "barcode",
        "external_system_id",
        "active",
        "patron_group",
        "user_type",
        "last_name",
        "first_name",
        "expiration_date",
    ],
};

/// A user, FOLIO's `userdata.json`.
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
    pub departments: Option<Vec<Uuid>>,
    /// Deprecated by FOLIO in favour of `/proxiesfor`; kept as sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy_for: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub personal: Option<Personal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enrollment_date: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_date: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// Fields kept as sent (`customFields`, `tags`, `preferredEmailCommunication`, ...).
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// A user's `personal` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Personal {
    /// Required by FOLIO whenever `personal` is present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub middle_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preferred_first_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mobile_phone: Option<String>,
    /// Fields kept as sent (`addresses`, `dateOfBirth`, `pronouns`, ...).
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

impl User {
    /// Whether the user may borrow and log in at `now`, as mod-circulation decides: the
    /// record says `active: true` and its expiration date, if any, is still ahead.
    pub fn is_active_at(&self, now: DateTime<Utc>) -> bool {
        self.active == Some(true)
            && self.expiration_date.is_none_or(|expires| expires.as_datetime() > now)
    }

    /// The user's name as circulation shows it: "Last, First", else the username.
    pub fn display_name(&self) -> Option<String> {
        let personal = self.personal.as_ref();
        let last = personal.and_then(|p| p.last_name.as_deref()).filter(|s| !s.trim().is_empty());
        let first = personal.and_then(|p| p.first_name.as_deref()).filter(|s| !s.trim().is_empty());
        match (last, first) {
            (Some(last), Some(first)) => Some(format!("{last}, {first}")),
            _ => self.username.clone(),
        }
    }
}

impl Record for User {
    const TABLE: RecordTable = USERS;
    const NAME: &'static str = "User";
    const QUERY: &'static [QueryField] = USER_FIELDS;

    folio::id_and_metadata!();
    fn columns(&self) -> Vec<ColumnValue> {
        let personal = self.personal.as_ref();
        vec![
            self.username.as_deref().into(),
            self.barcode.as_deref().into(),
            self.external_system_id.as_deref().into(),
            self.active.map(|a| a.to_string()).into(),
            self.patron_group.map(|g| g.to_string()).into(),
            self.user_type.as_deref().into(),
            personal.and_then(|p| p.last_name.as_deref()).into(),
            personal.and_then(|p| p.first_name.as_deref()).into(),
            self.expiration_date.map(Timestamp::column).into(),
        ]
    }
}

/// Reads a request body into a user: 400 for text that is not JSON, 422 for a user that
/// breaks FOLIO's schema.
pub fn decode_user(bytes: &[u8]) -> Result<User> {
    crate::json::decode(bytes)
}

/// Stores a new user; assigns an id when it has none. `actor` is who is creating it.
pub fn create_user(writer: &mut Writer<'_>, mut user: User, actor: Option<Uuid>) -> Result<User> {
    prepare(writer, &mut user, Utc::now())?;
    let sent = user.clone();
    folio::record::create(writer, user, Actor { user_id: actor })
        .map_err(|e| Error::from_record(e, |e| unique_error(e, &sent, Write::Create)))
}

/// Replaces the user with this id (FOLIO's PUT); the body's id, if any, must be `id`.
/// Creation metadata stays as stored. Credentials follow a new username; an inactive or
/// expired user's tokens are revoked.
pub fn update_user(
    writer: &mut Writer<'_>,
    id: Uuid,
    mut user: User,
    actor: Option<Uuid>,
) -> Result<User> {
    let record_error = |e| Error::from_record(e, Error::from);
    folio::record::claim_id(&mut user, id).map_err(record_error)?;
    if !writer.exists(&USERS, &id.to_string())? {
        return Err(Error::NotFound { record: User::NAME, id: id.to_string() });
    }
    prepare(writer, &mut user, Utc::now())?;
    let sent = user.clone();
    let user = folio::record::replace(writer, id, user, Actor { user_id: actor })
        .map_err(|e| Error::from_record(e, |e| unique_error(e, &sent, Write::Update)))?;
    if let Some(username) = &user.username {
        crate::login::rename(writer, id, username)?;
    }
    if !crate::login::may_act(&user) {
        crate::login::revoke_tokens(writer, id)?;
    }
    Ok(user)
}

/// Deletes a user, with their credentials and permission assignment.
pub fn delete_user(writer: &mut Writer<'_>, id: Uuid) -> Result<()> {
    if !writer.delete(&USERS, &id.to_string())? {
        return Err(Error::NotFound { record: "User", id: id.to_string() });
    }
    writer.delete(&crate::login::CREDENTIALS, &id.to_string())?;
    crate::permissions::forget(writer, id)?;
    Ok(())
}

/// Checks and completes a user about to be written, in mod-users' order: the schema
/// (`personal.lastName`), then the patron group. Unique fields are left to the table.
fn prepare(reader: &Reader<'_>, user: &mut User, now: DateTime<Utc>) -> Result<()> {
    if user.personal.as_ref().is_some_and(|p| p.last_name.is_none()) {
        return Err(crate::json::required("personal.lastName"));
    }
    // mod-users trims usernames before saving.
    if let Some(username) = &mut user.username {
        *username = username.trim().to_string();
    }
    if let Some(group) = user.patron_group
        && crate::get_group(reader, group)?.is_none()
    {
        return Err(Error::UnknownPatronGroup(group));
    }
    crate::custom_fields::check_values(reader, user)?;
    // mod-users deactivates expired users by a timer a minute later; a save gives the
    // same record at once (circulation checks the date itself: `is_active_at`).
    if user.active == Some(true)
        && user.expiration_date.is_some_and(|expires| expires.as_datetime() <= now)
    {
        user.active = Some(false);
    }
    Ok(())
}

fn unique_error(e: store::Error, user: &User, write: Write) -> Error {
    let taken = |field: UniqueUserField, value: Option<String>| Error::UserTaken {
        field,
        value: value.unwrap_or_default(),
        write,
    };
    match e {
        store::Error::DuplicateId { .. } => {
            taken(UniqueUserField::Id, user.id.map(|i| i.to_string()))
        }
        store::Error::Unique { column, .. } if column == "username" => {
            taken(UniqueUserField::Username, user.username.clone())
        }
        store::Error::Unique { column, .. } if column == "barcode" => {
            taken(UniqueUserField::Barcode, user.barcode.clone())
        }
        e => e.into(),
    }
}

/// The user with this id.
pub fn get_user(reader: &Reader<'_>, id: Uuid) -> Result<Option<folio::Stored<User>>> {
    folio::record::get(reader, id).map_err(|e| Error::from_record(e, Error::from))
}

/// What [`get_user`] reads, to read it ahead ([`Reader::prefetch`]): `id` is the user's.
pub fn user_read(id: &str) -> Read<'_> {
    Read::Get(&USERS, id)
}

/// The user with this barcode (barcodes compare case-insensitively, as in FOLIO).
pub fn user_by_barcode(reader: &Reader<'_>, barcode: &str) -> Result<Option<folio::Stored<User>>> {
    reader.records(&user_by_barcode_read(barcode))?.first().map(parse_user).transpose()
}

/// What [`user_by_barcode`] reads, to read it ahead ([`Reader::prefetch`]).
pub fn user_by_barcode_read(barcode: &str) -> Read<'_> {
    Read::Where(&USERS, vec![("barcode", barcode)], &[])
}

/// The id of the user with this barcode, as the key of reads that follow from it
/// ([`Read::Via`]).
pub fn user_by_barcode_key(barcode: &str) -> store::Key<'_> {
    store::Key { table: &USERS, by: "barcode", value: barcode, column: "id" }
}

/// Whether a user with this username exists (usernames compare case-insensitively).
pub fn username_taken(reader: &Reader<'_>, username: &str) -> Result<bool> {
    Ok(!reader.find_by(&USERS, "username", username)?.is_empty())
}

/// The user with this username (compared without case, as the column is).
pub fn user_by_username(
    reader: &Reader<'_>,
    username: &str,
) -> Result<Option<folio::Stored<User>>> {
    reader.find_by(&USERS, "username", username)?.first().map(parse_user).transpose()
}

const USER_FIELDS: &[QueryField] = {
    use store::FieldKind::Text;
    &[
        QueryField { index: "id", column: "id", kind: Text },
        QueryField { index: "username", column: "username", kind: Text },
        QueryField { index: "barcode", column: "barcode", kind: Text },
        QueryField { index: "externalSystemId", column: "external_system_id", kind: Text },
        QueryField { index: "patronGroup", column: "patron_group", kind: Text },
        // `true` / `false`, the text FOLIO's CQL compares.
        QueryField { index: "active", column: "active", kind: Text },
        QueryField { index: "type", column: "user_type", kind: Text },
        QueryField { index: "personal.lastName", column: "last_name", kind: Text },
        QueryField { index: "personal.firstName", column: "first_name", kind: Text },
        QueryField { index: "expirationDate", column: "expiration_date", kind: Text },
    ]
};

/// Users matching a CQL query, one page of their JSON bodies, and the total.
pub fn list_users(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    folio::record::list_json::<User>(reader, cql, page)
        .map_err(|e| Error::from_record(e, Error::from))
}

/// How many users belong to a patron group.
pub(crate) fn n_group_members(reader: &Reader<'_>, group: Uuid) -> Result<u64> {
    let cql = format!("patronGroup==\"{group}\"");
    Ok(reader.list(&USERS, USER_FIELDS, Some(&cql), Page { offset: 0, limit: 0 })?.1)
}

fn parse_user(record: &StoredRecord) -> Result<folio::Stored<User>> {
    folio::Stored::from_row(record).map_err(|e| Error::from_record(e, Error::from))
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use expect_test::expect;

    use super::*;

    fn check(json: &str, expect: expect_test::Expect) {
        let now = Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap();
        let actual = match decode_user(json.as_bytes()) {
            Ok(user) => format!("active at 2025-06-01T12:00Z: {}", user.is_active_at(now)),
            Err(e) => format!("error: {e}"),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn active_means_flagged_active_and_not_expired() {
        check(r#"{"active":true}"#, expect!["active at 2025-06-01T12:00Z: true"]);
        check(r#"{"active":false}"#, expect!["active at 2025-06-01T12:00Z: false"]);
        check(r#"{}"#, expect!["active at 2025-06-01T12:00Z: false"]);
        check(
            r#"{"active":true,"expirationDate":"2025-06-02"}"#,
            expect!["active at 2025-06-01T12:00Z: true"],
        );
        check(
            r#"{"active":true,"expirationDate":"2025-06-01T11:59:59.000+00:00"}"#,
            expect!["active at 2025-06-01T12:00Z: false"],
        );
        check(
            r#"{"active":true,"expirationDate":"2025-06-01T12:00:00Z"}"#,
            expect!["active at 2025-06-01T12:00Z: false"],
        );
        check(
            r#"{"active":false,"expirationDate":"2030-01-01"}"#,
            expect!["active at 2025-06-01T12:00Z: false"],
        );
        check(
            r#"{"active":true,"expirationDate":"soon"}"#,
            expect![[r#"error: expirationDate: invalid date-time "soon""#]],
        );
        check(
            r#"{"active":"#,
            expect!["error: malformed JSON at line 1 column 10: EOF while parsing a value"],
        );
    }

    #[test]
    fn unknown_fields_survive_a_round_trip() {
        let json = r#"{"username":"u","personal":{"lastName":"L","addresses":[{"city":"X"}]},"customFields":{"a":1},"enrollmentDate":"2020-01-02"}"#;
        let user = decode_user(json.as_bytes()).unwrap();
        expect![[r#"{"username":"u","personal":{"lastName":"L","addresses":[{"city":"X"}]},"enrollmentDate":"2020-01-02T00:00:00.000+00:00","customFields":{"a":1}}"#]]
            .assert_eq(&serde_json::to_string(&user).unwrap());
        assert_eq!(user.display_name().as_deref(), Some("u"));
    }
}
