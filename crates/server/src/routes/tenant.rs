//! FOLIO's tenant interface.
//!
//! - `POST /_/tenant` (enable a tenant; idempotent)

use axum::{Router, extract::State, http::HeaderMap, response::Response, routing::post};
use serde::Deserialize;

use runtime::{AdminUser, ExistingUsers};

use crate::{
    ApiError, AppState,
    extract::{Body, blocking},
};

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/_/tenant", post(enable_tenant))
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TenantAttributes {
    #[serde(default, rename = "module_to")]
    _module_to: Option<String>,
    #[serde(default, rename = "module_from")]
    _module_from: Option<String>,
    #[serde(default)]
    parameters: Vec<Parameter>,
}

#[derive(Debug, Deserialize)]
struct Parameter {
    key: String,
    value: String,
}

async fn enable_tenant(
    State(state): State<AppState>,
    headers: HeaderMap,
    Body(body): Body,
) -> Result<Response, ApiError> {
    let existing = authorize_tenant_api(&state, &headers)?;
    let name = crate::extract::tenant_header(&headers)?.ok_or_else(|| {
        ApiError::bad_request("Missing X-Okapi-Tenant header: it names the tenant to enable")
    })?;
    store::validate_tenant_name(&name)?;
    let attributes: TenantAttributes = if body.iter().all(u8::is_ascii_whitespace) {
        TenantAttributes::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::bad_request(format!("Invalid tenant attributes: {e}")))?
    };
    let parameter =
        |key: &str| attributes.parameters.iter().find(|p| p.key == key).map(|p| p.value.clone());
    let admin = match (parameter("adminUsername"), parameter("adminPassword")) {
        (Some(username), Some(password)) => Some(AdminUser { username, password }),
        (None, None) => None,
        _ => return Err(ApiError::bad_request("adminUsername and adminPassword go together")),
    };
    let store = state.store().clone();
    let outcome =
        blocking(move || Ok(runtime::provision_tenant(&store, &name, admin.as_ref(), existing)?))
            .await?;
    tracing::info!(?outcome, "tenant enabled");
    Ok(super::no_content())
}

/// The tenant API creates tenants, so it is guarded by the server's admin key when one is
/// configured, and closed altogether when the server is told so. Open without a key (on
/// a loopback listener), it creates tenants but leaves existing tenants' users alone.
pub(super) fn authorize_tenant_api(
    state: &AppState,
    headers: &HeaderMap,
) -> Result<ExistingUsers, ApiError> {
    match &state.config.admin_key {
        Some(key) => {
            let given = headers.get("x-quire-admin-key").and_then(|v| v.to_str().ok());
            if given == Some(key.as_str()) {
                Ok(ExistingUsers::MayAdd)
            } else {
                Err(ApiError::forbidden("The tenant API requires a valid X-Quire-Admin-Key header"))
            }
        }
        None if state.config.open_tenant_api => Ok(ExistingUsers::Untouched),
        None => Err(ApiError::forbidden(
            "The tenant API is disabled: start the server with --admin-key to enable it",
        )),
    }
}
