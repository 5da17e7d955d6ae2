//! Permission assignments: which FOLIO-style permission names a user holds.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use store::{ColumnValue, Reader, RecordTable, Writer};
use uuid::Uuid;

use crate::{Error, Result};

pub(crate) const PERMISSIONS_USERS: RecordTable = RecordTable {
    table: "permissions_users",
    record_type: "permissions_user",
    cached: false,
    columns: &["user_id"],
};

/// The permissions a user holds. The name `*` stands for every permission (the tenant
/// administrator holds it, so permissions added by later versions reach it too).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermissionSet {
    names: BTreeSet<String>,
}

impl PermissionSet {
    pub fn contains(&self, permission: &str) -> bool {
        self.names.contains("*") || self.names.contains(permission)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }
}

/// FOLIO's `/perms/users` record.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PermissionUser {
    id: Uuid,
    user_id: Uuid,
    permissions: Vec<String>,
}

/// Adds permissions to a user's set (creating the set on first use).
pub fn grant_permissions(
    writer: &mut Writer<'_>,
    user_id: Uuid,
    permissions: &[String],
) -> Result<()> {
    let existing =
        writer.find_by(&PERMISSIONS_USERS, "user_id", &user_id.to_string())?.into_iter().next();
    let (mut record, version) = match existing {
        Some(stored) => (parse(&stored.body)?, stored.version + 1),
        None => {
            (PermissionUser { id: store::new_record_id(), user_id, permissions: Vec::new() }, 1)
        }
    };
    for permission in permissions {
        if !record.permissions.contains(permission) {
            record.permissions.push(permission.clone());
        }
    }
    let body = serde_json::to_string(&record).map_err(|e| Error::Corrupt(e.to_string()))?;
    writer.upsert(
        &PERMISSIONS_USERS,
        &record.id.to_string(),
        version,
        &body,
        &[ColumnValue::Text(user_id.to_string())],
    )?;
    Ok(())
}

/// The permissions a user holds; empty if none were ever granted.
pub fn permissions_of(reader: &Reader<'_>, user_id: Uuid) -> Result<PermissionSet> {
    let Some(stored) =
        reader.find_by(&PERMISSIONS_USERS, "user_id", &user_id.to_string())?.into_iter().next()
    else {
        return Ok(PermissionSet::default());
    };
    Ok(PermissionSet { names: parse(&stored.body)?.permissions.into_iter().collect() })
}

/// Drops a deleted user's permission assignment.
pub(crate) fn forget(writer: &mut Writer<'_>, user_id: Uuid) -> Result<()> {
    for stored in writer.find_by(&PERMISSIONS_USERS, "user_id", &user_id.to_string())? {
        writer.delete(&PERMISSIONS_USERS, &stored.id)?;
    }
    Ok(())
}

fn parse(body: &str) -> Result<PermissionUser> {
    serde_json::from_str(body).map_err(|e| Error::Corrupt(format!("permissions: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{User, create_credentials, create_user, login};

    #[test]
    fn users_log_in_and_hold_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(dir.path(), store::testing::options(), &[crate::MIGRATIONS])
            .unwrap();
        let (tenant, _) = store.create_tenant("t1").unwrap();
        let user: User = serde_json::from_str(
            r#"{"username":"jane","active":true,"personal":{"lastName":"Doe"}}"#,
        )
        .unwrap();
        let id = tenant
            .write(|w| {
                let user = create_user(w, user, None)?;
                let id = user.id.unwrap();
                create_credentials(w, id, "jane", "pw")?;
                grant_permissions(w, id, &["a.get".to_string()])?;
                grant_permissions(w, id, &["b.post".to_string(), "a.get".to_string()])?;
                Ok::<_, Error>(id)
            })
            .unwrap();
        tenant
            .read(|r| {
                assert_eq!(login(r, "jane", "pw")?.user_id, id);
                assert_eq!(login(r, "JANE", "pw")?.user_id, id, "usernames are case-insensitive");
                assert!(matches!(login(r, "jane", "nope"), Err(Error::BadCredentials)));
                assert!(matches!(login(r, "bob", "pw"), Err(Error::UnknownUsername(_))));
                let perms = permissions_of(r, id)?;
                assert_eq!(perms.names().collect::<Vec<_>>(), ["a.get", "b.post"]);
                assert!(!perms.contains("c.delete"));
                Ok::<_, Error>(())
            })
            .unwrap();
        let again: User = serde_json::from_str(r#"{"username":"Jane"}"#).unwrap();
        assert!(matches!(
            tenant.write(|w| create_user(w, again, None)),
            Err(Error::UserTaken { field: crate::UniqueUserField::Username, .. })
        ));
    }
}
