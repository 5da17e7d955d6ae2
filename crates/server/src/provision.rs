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
    provision(store, name, admin, ExistingUsers::MayAdd)
}

/// Whether provisioning may add an administrator to a tenant that already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExistingUsers {
    MayAdd,
    /// For a tenant API called without the admin key: anyone on the listener could
    /// otherwise make themselves an administrator of any tenant. Enabling the tenant
    /// again with the administrator it has stays allowed, and changes nothing.
    Untouched,
}

pub(crate) fn provision(
    store: &store::Store,
    name: &str,
    admin: Option<&AdminUser>,
    existing: ExistingUsers,
) -> Result<Provisioned, ApiError> {
    let (tenant, created_tenant) = store.create_tenant(name)?;
    if let Some(admin) = admin
        && !created_tenant
        && existing == ExistingUsers::Untouched
        && !tenant.read(|r| auth::username_taken(r, &admin.username))?
    {
        return Err(ApiError::forbidden(format!(
            "Tenant {name} exists: adding an administrator to it requires X-Quire-Admin-Key"
        )));
    }
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
            auth::create_credentials(w, id, &admin.username, &admin.password)?;
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
