//! mod-users-bl's composite user, the record FOLIO's web client and many scripts read
//! after logging in: the user with their patron group, permissions and proxy
//! relationships in one object.
//! - `POST /bl-users/login` (a legacy token in `x-okapi-token`) and
//!   `POST /bl-users/login-with-expiry` (FOLIO's two cookies, `tokenExpiration`)
//! - `GET /bl-users/_self`, `GET /bl-users/by-id/{id}`, `GET /bl-users/by-username/{u}`
//!
//! `servicePointsUser` carries the user's service points expanded, as FOLIO's web client
//! reads them to offer a desk after login.

use std::sync::Arc;

use axum::{
    Router,
    extract::{Path, State},
    http::StatusCode,
    response::Response,
    routing::{get, post},
};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, TenantCtx, blocking},
};

use super::authn::{TokenPair, check_login, legacy_login, parse_uuid};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/bl-users/login", post(login))
        .route("/bl-users/login-with-expiry", post(login_with_expiry))
        .route("/bl-users/_self", get(own))
        .route("/bl-users/by-id/{id}", get(by_id))
        .route("/bl-users/by-username/{username}", get(by_username))
}

/// Who a composite is of.
enum Whom {
    Id(Uuid),
    Username(String),
}

/// The composite user: `user`, `patronGroup`, `permissions`, `proxiesFor` and
/// `servicePointsUser`.
async fn composite(tenant: Arc<store::Tenant>, whom: Whom) -> Result<Value, ApiError> {
    blocking(move || {
        tenant.read(|r| -> Result<Value, ApiError> {
            let user = match &whom {
                Whom::Id(id) => auth::get_user(r, *id)?,
                Whom::Username(name) => auth::user_by_username(r, name)?,
            };
            let user = user.ok_or_else(|| ApiError::not_found("User not found"))?;
            let group = match user.patron_group {
                Some(group) => auth::get_group(r, group)?,
                None => None,
            };
            let permissions = auth::permissions_of(r, user.id)?;
            let names: Vec<&str> = permissions.names().collect();
            let query = format!("userId=={}", user.id);
            let page = store::Page { offset: 0, limit: 1000 };
            let (proxies, _) = auth::list_proxies(r, Some(&query), page)?;
            let proxies: Vec<Value> = proxies
                .iter()
                .map(|body| serde_json::from_str(body))
                .collect::<Result<_, _>>()
                .map_err(ApiError::internal)?;
            let mut composite = json!({
                "user": user,
                "permissions": {"userId": user.id, "permissions": names},
                "proxiesFor": proxies,
            });
            if let Some(group) = group {
                composite["patronGroup"] = json!(group);
            }
            if let Some(points) = service_points_user(r, user.id)? {
                composite["servicePointsUser"] = points;
            }
            Ok(composite)
        })
    })
    .await
}

/// The service points the user works at, expanded as FOLIO's web client reads them at
/// login (`servicePoints`, `defaultServicePoint`).
fn service_points_user(r: &store::Reader<'_>, user_id: Uuid) -> Result<Option<Value>, ApiError> {
    let query = format!("userId=={user_id}");
    let page = store::Page { offset: 0, limit: 1 };
    let (bodies, _) = folio::record::list_json::<auth::ServicePointsUser>(r, Some(&query), page)?;
    let Some(body) = bodies.first() else { return Ok(None) };
    let record: auth::ServicePointsUser = serde_json::from_str(body).map_err(ApiError::internal)?;
    let mut expanded = serde_json::to_value(&record).map_err(ApiError::internal)?;
    let mut points = Vec::new();
    for id in &record.service_points_ids {
        if let Some(point) = inventory::get_service_point(r, *id)? {
            points.push(serde_json::to_value(point).map_err(ApiError::internal)?);
        }
    }
    expanded["servicePoints"] = Value::Array(points);
    if let Some(id) = record.default_service_point_id
        && let Some(point) = inventory::get_service_point(r, id)?
    {
        expanded["defaultServicePoint"] =
            serde_json::to_value(point).map_err(ApiError::internal)?;
    }
    Ok(Some(expanded))
}

async fn login(
    State(state): State<AppState>,
    tenant: TenantCtx,
    Body(body): Body,
) -> Result<Response, ApiError> {
    let (tenant, who) = check_login(tenant, &body).await?;
    let body = composite(tenant.clone(), Whom::Id(who.user_id)).await?;
    legacy_login(&state, tenant.name(), &who, |_| body)
}

async fn login_with_expiry(
    State(state): State<AppState>,
    tenant: TenantCtx,
    Body(body): Body,
) -> Result<Response, ApiError> {
    let (tenant, who) = check_login(tenant, &body).await?;
    let pair = TokenPair::issue(&state, tenant.name(), &who.username, who.user_id, who.token_epoch);
    let mut body = composite(tenant, Whom::Id(who.user_id)).await?;
    body["tokenExpiration"] = pair.expiration.clone();
    pair.with_cookies(super::json::value(StatusCode::CREATED, &body))
}

/// The caller's own composite: any logged-in user may read it.
async fn own(caller: Caller) -> Result<Response, ApiError> {
    let body = composite(caller.tenant.clone(), Whom::Id(caller.user_id)).await?;
    Ok(super::json::value(StatusCode::OK, &body))
}

async fn by_id(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("users-bl.item.get")?;
    let id = parse_uuid(&id)?;
    let body = composite(caller.tenant.clone(), Whom::Id(id)).await?;
    Ok(super::json::value(StatusCode::OK, &body))
}

async fn by_username(caller: Caller, Path(username): Path<String>) -> Result<Response, ApiError> {
    caller.require("users-bl.item.get")?;
    let body = composite(caller.tenant.clone(), Whom::Username(username)).await?;
    Ok(super::json::value(StatusCode::OK, &body))
}
