//! Creating a tenant with everything a new tenant needs: its database, reference data,
//! FOLIO's default data-import profiles and an administrator. Used by `POST /_/tenant`,
//! `quire tenant create` and `quire demo`.

use crate::{Error, Result};

/// The administrator to create with a new tenant.
#[derive(Debug, Clone)]
pub struct AdminUser {
    pub username: String,
    pub password: String,
}

/// What provisioning did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provisioned {
    pub created_tenant: bool,
    pub n_reference_records: usize,
    pub created_admin: bool,
}

/// Whether provisioning may add an administrator to a tenant that already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExistingUsers {
    /// For the command line, and the tenant API called with the admin key.
    MayAdd,
    /// For a tenant API called without the admin key: anyone on the listener could
    /// otherwise make themselves an administrator of any tenant. Enabling the tenant
    /// again with the administrator it has stays allowed, and changes nothing.
    Untouched,
}

/// Creates (or completes) a tenant. Idempotent: running it again adds only what is missing
/// and never changes an existing administrator's password.
pub fn provision_tenant(
    store: &store::Store,
    name: &str,
    admin: Option<&AdminUser>,
    existing: ExistingUsers,
) -> Result<Provisioned> {
    let (tenant, created_tenant) = store.create_tenant(name)?;
    if let Some(admin) = admin
        && !created_tenant
        && existing == ExistingUsers::Untouched
        && !tenant.read(|r| auth::username_taken(r, &admin.username))?
    {
        return Err(Error::AdministratorNotAdded { tenant: name.to_string() });
    }
    let n_reference_records = tenant.write(inventory::load_reference_data)?;
    // mod-users' reference patron groups, with FOLIO's ids.
    let n_reference_records = n_reference_records + tenant.write(auth::seed_groups)?;
    // Default policies and circulation rules, so check-out works at once.
    let n_circulation_records = tenant.write(circ::seed)?;
    // FOLIO's default data-import profiles, under their fixed ids.
    let n_profile_records = tenant.write(profiles::seed)?;
    // FOLIO's default file extensions of data import.
    let n_profile_records = n_profile_records + tenant.write(import::seed)?;
    let created_admin = match admin {
        None => false,
        Some(admin) => tenant.write(|w| {
            if auth::username_taken(w, &admin.username)? {
                return Ok::<_, auth::Error>(false);
            }
            let user = auth::decode_user(
                serde_json::json!({
                    "username": admin.username,
                    "active": true,
                    "type": "staff",
                    "personal": { "lastName": "Administrator", "firstName": admin.username },
                })
                .to_string()
                .as_bytes(),
            )?;
            let user = auth::create_user(w, user, None)?;
            let id = user.id.expect("create_user assigns an id");
            auth::create_credentials(w, id, &admin.username, &admin.password)?;
            auth::grant_permissions(w, id, &["*".to_string()])?;
            Ok(true)
        })?,
    };
    Ok(Provisioned {
        created_tenant,
        n_reference_records: n_reference_records + n_circulation_records + n_profile_records,
        created_admin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provisioning_is_idempotent_and_adds_no_administrator_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(dir.path(), store::testing::options(), &crate::components())
            .unwrap();
        let admin = |name: &str| AdminUser { username: name.to_string(), password: "pw".into() };
        let first =
            provision_tenant(&store, "t", Some(&admin("boss")), ExistingUsers::Untouched).unwrap();
        assert!(first.created_tenant && first.created_admin && first.n_reference_records > 0);
        // Again with the administrator it has: nothing new.
        let again =
            provision_tenant(&store, "t", Some(&admin("boss")), ExistingUsers::Untouched).unwrap();
        assert_eq!(
            again,
            Provisioned { created_tenant: false, n_reference_records: 0, created_admin: false }
        );
        // Another administrator only with leave to add one.
        let refused = provision_tenant(&store, "t", Some(&admin("eve")), ExistingUsers::Untouched);
        assert!(matches!(refused, Err(Error::AdministratorNotAdded { .. })));
        let tenant = store.tenant("t").unwrap();
        assert!(!tenant.read(|r| auth::username_taken(r, "eve")).unwrap());
        let added =
            provision_tenant(&store, "t", Some(&admin("eve")), ExistingUsers::MayAdd).unwrap();
        assert!(added.created_admin);
        let eve = tenant.read(|r| auth::login(r, "eve", "pw")).unwrap();
        let standing = tenant.read(|r| auth::standing(r, eve.user_id)).unwrap();
        assert!(standing.permissions.contains("anything.at.all"));
    }
}
