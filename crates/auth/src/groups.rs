//! Patron groups, FOLIO's `/groups` (mod-users' `usergroup.json`), and the reference
//! groups every new tenant starts with.
//!
//! A group's name is unique (case-insensitively); a group users belong to cannot be
//! deleted. What it does not own: the loan rules that name groups (circulation's).

use serde::{Deserialize, Serialize};
use store::{ColumnValue, FieldKind, Page, QueryField, Reader, RecordTable, Writer};
use uuid::Uuid;

use folio::{Actor, Metadata, Record};

use crate::{Error, Result};

pub(crate) const GROUPS: RecordTable = RecordTable {
    table: "patron_groups",
    record_type: "usergroup",
    cached: true,
    columns: &["group_name"],
};

/// A patron group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PatronGroup {
    /// The group's unique name; required.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub desc: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Days after enrollment at which a new member's record expires.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expiration_offset_in_days: Option<i64>,
    /// `System` or `User`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

const FIELDS: &[QueryField] = &[
    QueryField { index: "id", column: "id", kind: FieldKind::Text },
    QueryField { index: "group", column: "group_name", kind: FieldKind::Text },
];

impl Record for PatronGroup {
    const TABLE: RecordTable = GROUPS;
    const NAME: &'static str = "Patron group";
    const QUERY: &'static [QueryField] = FIELDS;

    folio::id_and_metadata!();
    fn columns(&self) -> Vec<ColumnValue> {
        vec![self.group.as_deref().into()]
    }
}

/// mod-users' reference groups (`ref-data/groups-17.3.0`), with their fixed ids:
/// (id, name, description, expiration offset in days).
const REFERENCE_GROUPS: &[(&str, &str, &str, Option<i64>)] = &[
    ("503a81cd-6c26-400f-b620-14c08943697c", "faculty", "Faculty Member", Some(365)),
    ("ad0bc554-d5bc-463c-85d1-5562127ae91b", "graduate", "Graduate Student", None),
    ("3684a786-6671-4268-8ed0-9db82ebca60b", "staff", "Staff Member", Some(730)),
    ("bdc2b6d4-5ceb-4a12-ab46-249b9a68473e", "undergrad", "Undergraduate Student", None),
];

/// Adds FOLIO's reference patron groups a tenant lacks; returns how many it added.
/// Idempotent: a group whose id or name exists already is left alone.
pub fn seed_groups(writer: &mut Writer<'_>) -> Result<usize> {
    let mut n_added = 0;
    for &(id, name, desc, offset) in REFERENCE_GROUPS {
        if writer.exists(&GROUPS, id)? || !writer.find_by(&GROUPS, "group_name", name)?.is_empty() {
            continue;
        }
        let group = PatronGroup {
            group: Some(name.to_string()),
            desc: Some(desc.to_string()),
            id: Some(id.parse().map_err(|e| Error::Corrupt(format!("group id {id}: {e}")))?),
            expiration_offset_in_days: offset,
            source: None,
            metadata: None,
            other: serde_json::Map::new(),
        };
        create_group(writer, group, None)?;
        n_added += 1;
    }
    Ok(n_added)
}

/// Reads a request body into a patron group.
pub fn decode_group(bytes: &[u8]) -> Result<PatronGroup> {
    crate::json::decode(bytes)
}

/// Stores a new group; assigns an id when it has none.
pub fn create_group(
    writer: &mut Writer<'_>,
    group: PatronGroup,
    actor: Option<Uuid>,
) -> Result<PatronGroup> {
    check(&group)?;
    let name = group.group.clone();
    folio::record::create(writer, group, Actor { user_id: actor })
        .map_err(|e| Error::from_record(e, |e| unique_error(e, name)))
}

/// Replaces the group with this id.
pub fn update_group(
    writer: &mut Writer<'_>,
    id: Uuid,
    group: PatronGroup,
    actor: Option<Uuid>,
) -> Result<PatronGroup> {
    if group.id.is_some_and(|body_id| body_id != id) {
        return Err(Error::IdMismatch);
    }
    check(&group)?;
    let name = group.group.clone();
    folio::record::replace(writer, id, group, Actor { user_id: actor })
        .map_err(|e| Error::from_record(e, |e| unique_error(e, name)))
}

/// Deletes a group no user belongs to.
pub fn delete_group(writer: &mut Writer<'_>, id: Uuid) -> Result<()> {
    if !writer.exists(&GROUPS, &id.to_string())? {
        return Err(not_found(id));
    }
    if crate::users::n_group_members(writer, id)? > 0 {
        return Err(Error::GroupInUse(id));
    }
    writer.delete(&GROUPS, &id.to_string())?;
    Ok(())
}

/// The group with this id.
pub fn get_group(reader: &Reader<'_>, id: Uuid) -> Result<Option<folio::Stored<PatronGroup>>> {
    folio::record::get(reader, id).map_err(|e| Error::from_record(e, Error::from))
}

/// Groups matching a CQL query (`group`, `id`), one page of their JSON bodies, and the
/// total.
pub fn list_groups(
    reader: &Reader<'_>,
    cql: Option<&str>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    folio::record::list_json::<PatronGroup>(reader, cql, page)
        .map_err(|e| Error::from_record(e, Error::from))
}

fn check(group: &PatronGroup) -> Result<()> {
    match &group.group {
        Some(name) if !name.trim().is_empty() => Ok(()),
        _ => Err(crate::json::required("group")),
    }
}

fn unique_error(e: store::Error, name: Option<String>) -> Error {
    match e {
        store::Error::Unique { column, .. } if column == "group_name" => {
            Error::GroupNameTaken(name.unwrap_or_default().to_lowercase())
        }
        // FOLIO's table is `groups`; its message names it.
        store::Error::DuplicateId { id, .. } => {
            store::Error::DuplicateId { table: "groups".to_string(), id }.into()
        }
        e => e.into(),
    }
}

fn not_found(id: Uuid) -> Error {
    Error::NotFound { record: "Patron group", id: id.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_seeded_once_unique_and_kept_while_in_use() {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(dir.path(), store::testing::options(), &[crate::MIGRATIONS])
            .unwrap();
        let (tenant, _) = store.create_tenant("t").unwrap();
        assert_eq!(tenant.write(seed_groups).unwrap(), 4);
        assert_eq!(tenant.write(seed_groups).unwrap(), 0, "seeding is idempotent");
        let staff: Uuid = "3684a786-6671-4268-8ed0-9db82ebca60b".parse().unwrap();
        let group = tenant.read(|r| get_group(r, staff)).unwrap().unwrap();
        assert_eq!(group.expiration_offset_in_days, Some(730));

        let again = decode_group(br#"{"group":"STAFF"}"#).unwrap();
        let err = tenant.write(|w| create_group(w, again, None)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "lower(f_unaccent(jsonb ->> 'group'::text)) value already exists in table groups: staff"
        );

        let user = crate::decode_user(
            format!(r#"{{"username":"s","active":true,"patronGroup":"{staff}"}}"#).as_bytes(),
        )
        .unwrap();
        let user = tenant.write(|w| crate::create_user(w, user, None)).unwrap();
        let err = tenant.write(|w| delete_group(w, staff)).unwrap_err();
        assert!(matches!(err, Error::GroupInUse(id) if id == staff), "{err}");
        tenant.write(|w| crate::delete_user(w, user.id.unwrap())).unwrap();
        tenant.write(|w| delete_group(w, staff)).unwrap();
        assert!(tenant.read(|r| get_group(r, staff)).unwrap().is_none());
    }
}
