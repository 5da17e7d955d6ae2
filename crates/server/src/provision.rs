//! Creating a tenant with everything a new tenant needs: its database, reference data
//! and an administrator. Used by `POST /_/tenant`, `quire tenant create` and `quire demo`.

use crate::ApiError;

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

/// Creates (or completes) a tenant. Idempotent: running it again adds only what is missing
/// and never changes an existing administrator's password.
pub fn provision_tenant(
    store: &store::Store,
    name: &str,
    admin: Option<&AdminUser>,
) -> Result<Provisioned, ApiError> {
    let (tenant, created_tenant) = store.create_tenant(name)?;
    let n_reference_records = tenant.write(inventory::load_reference_data)?;
    // mod-users' reference patron groups, with FOLIO's ids.
    let n_reference_records = n_reference_records + tenant.write(auth::seed_groups)?;
    // Default policies and circulation rules, so check-out works at once.
    let n_circulation_records = tenant.write(circ::seed)?;
    let created_admin = match admin {
        None => false,
        Some(admin) => tenant.write(|w| {
            if auth::username_taken(w, &admin.username)? {
                return Ok::<_, ApiError>(false);
            }
            let user: auth::User = serde_json::from_value(serde_json::json!({
                "username": admin.username,
                "active": true,
                "type": "staff",
                "personal": { "lastName": "Administrator", "firstName": admin.username },
            }))
            .map_err(ApiError::internal)?;
            let user = auth::create_user(w, user, None)?;
            let id = user.id.expect("create_user assigns an id");
            auth::set_password(w, id, &admin.username, &admin.password)?;
            auth::grant_permissions(w, id, &["*".to_string()])?;
            Ok(true)
        })?,
    };
    Ok(Provisioned {
        created_tenant,
        n_reference_records: n_reference_records + n_circulation_records,
        created_admin,
    })
}
