//! Login and permissions, in mod-login's and mod-permissions' shapes.
//!
//! - `POST /authn/login` (legacy token in `x-okapi-token` and `{"okapiToken"}`)
//! - `POST /authn/login-with-expiry` (cookies `folioAccessToken`, `folioRefreshToken`)
//! - `POST /authn/refresh` (new cookies for a refresh-token cookie)
//! - `POST /authn/credentials`
//! - `POST /perms/users`, `GET|POST /perms/users/{id}/permissions`

use axum::{
    Router,
    extract::{Path, State},
    http::{HeaderMap, HeaderValue, StatusCode, header},
    response::Response,
    routing::{get, post},
};
use serde::Deserialize;
use uuid::Uuid;

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, TenantCtx, blocking, cookie},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/authn/login", post(login))
        .route("/authn/login-with-expiry", post(login_with_expiry))
        .route("/authn/refresh", post(refresh))
        .route("/authn/credentials", post(create_credentials))
        .route("/perms/users", post(create_permission_user))
        .route("/perms/users/{id}/permissions", get(list_permissions).post(add_permission))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoginRequest {
    username: String,
    password: String,
    #[serde(default, rename = "userId")]
    _user_id: Option<String>,
}

fn parse_json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| {
        if e.is_syntax() || e.is_eof() {
            ApiError::bad_request(format!("Malformed JSON: {e}"))
        } else {
            ApiError::validation("", None, format!("Invalid request: {e}"))
        }
    })
}

async fn check_login(
    tenant: TenantCtx,
    body: &[u8],
) -> Result<(std::sync::Arc<store::Tenant>, auth::LoginOutcome), ApiError> {
    let request: LoginRequest = parse_json(body)?;
    let tenant = tenant.0;
    let t = tenant.clone();
    let outcome =
        blocking(move || Ok(t.read(|r| auth::login(r, &request.username, &request.password))?))
            .await?;
    Ok((tenant, outcome))
}

async fn login(
    State(state): State<AppState>,
    tenant: TenantCtx,
    Body(body): Body,
) -> Result<Response, ApiError> {
    let (tenant, who) = check_login(tenant, &body).await?;
    let ttl = state.config.legacy_token_ttl.as_secs() as i64;
    let claims =
        auth::Claims::new(&who.username, who.user_id, tenant.name(), auth::TokenType::Legacy, ttl);
    let token = state.key.sign(&claims);
    let mut response =
        super::json::value(StatusCode::CREATED, &serde_json::json!({ "okapiToken": token }));
    response
        .headers_mut()
        .insert("x-okapi-token", HeaderValue::from_str(&token).map_err(ApiError::internal)?);
    Ok(response)
}

async fn login_with_expiry(
    State(state): State<AppState>,
    tenant: TenantCtx,
    Body(body): Body,
) -> Result<Response, ApiError> {
    let (tenant, who) = check_login(tenant, &body).await?;
    token_pair(&state, tenant.name(), who.user_id, &who.username)
}

async fn refresh(
    State(state): State<AppState>,
    tenant: TenantCtx,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let token = cookie(&headers, "folioRefreshToken")
        .ok_or_else(|| ApiError::unauthorized("Missing folioRefreshToken cookie"))?;
    let claims = state.key.verify(&token)?;
    if claims.token_type != auth::TokenType::Refresh {
        return Err(ApiError::unauthorized("Invalid token: not a refresh token"));
    }
    if claims.tenant != tenant.0.name() {
        return Err(ApiError::forbidden("Refresh token is for another tenant"));
    }
    token_pair(&state, tenant.0.name(), claims.user_id, &claims.sub)
}

/// FOLIO's cookie shape: an access token for every path, a refresh token for `/authn`.
fn token_pair(
    state: &AppState,
    tenant: &str,
    user_id: Uuid,
    username: &str,
) -> Result<Response, ApiError> {
    let access_ttl = state.config.access_token_ttl.as_secs() as i64;
    let refresh_ttl = state.config.refresh_token_ttl.as_secs() as i64;
    let access = auth::Claims::new(username, user_id, tenant, auth::TokenType::Access, access_ttl);
    let refresh =
        auth::Claims::new(username, user_id, tenant, auth::TokenType::Refresh, refresh_ttl);
    let iso = |secs: i64| {
        chrono::DateTime::from_timestamp(secs, 0)
            .unwrap_or_default()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    };
    let mut response = super::json::value(
        StatusCode::CREATED,
        &serde_json::json!({
            "accessTokenExpiration": iso(access.exp),
            "refreshTokenExpiration": iso(refresh.exp),
        }),
    );
    for (name, token, ttl, path) in [
        ("folioAccessToken", state.key.sign(&access), access_ttl, "/"),
        ("folioRefreshToken", state.key.sign(&refresh), refresh_ttl, "/authn"),
    ] {
        let cookie =
            format!("{name}={token}; Max-Age={ttl}; Path={path}; HttpOnly; Secure; SameSite=Lax");
        response.headers_mut().append(
            header::SET_COOKIE,
            HeaderValue::from_str(&cookie).map_err(ApiError::internal)?,
        );
    }
    Ok(response)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CredentialsRequest {
    user_id: Uuid,
    username: String,
    password: String,
}

async fn create_credentials(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("login.item.post")?;
    let request: CredentialsRequest = parse_json(&body)?;
    let user_id = request.user_id;
    let tenant = caller.tenant.clone();
    blocking(move || {
        tenant.write(|w| {
            if auth::get_user(w, request.user_id)?.is_none() {
                return Err(ApiError::validation(
                    "userId",
                    Some(&request.user_id.to_string()),
                    "No such user",
                ));
            }
            auth::set_password(w, request.user_id, &request.username, &request.password)?;
            Ok(())
        })
    })
    .await?;
    Ok(super::json::value(StatusCode::CREATED, &serde_json::json!({ "userId": user_id })))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PermissionUserRequest {
    user_id: Uuid,
    #[serde(default)]
    permissions: Vec<String>,
    #[serde(default, rename = "id")]
    _id: Option<Uuid>,
}

async fn create_permission_user(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("perms.users.item.post")?;
    let request: PermissionUserRequest = parse_json(&body)?;
    grant(&state, &caller, request.user_id, request.permissions.clone()).await?;
    Ok(super::json::value(
        StatusCode::CREATED,
        &serde_json::json!({ "userId": request.user_id, "permissions": request.permissions }),
    ))
}

async fn grant(
    state: &AppState,
    caller: &Caller,
    user_id: Uuid,
    permissions: Vec<String>,
) -> Result<(), ApiError> {
    // Only a holder of every permission may hand out the all-permissions grant.
    if permissions.iter().any(|p| p == "*") && !caller.permissions.contains("*") {
        return Err(ApiError::forbidden("Only an administrator may grant '*'"));
    }
    let tenant = caller.tenant.clone();
    blocking(move || {
        tenant.write(|w| {
            if auth::get_user(w, user_id)?.is_none() {
                return Err(ApiError::validation(
                    "userId",
                    Some(&user_id.to_string()),
                    "No such user",
                ));
            }
            auth::grant_permissions(w, user_id, &permissions)?;
            Ok(())
        })
    })
    .await?;
    state.permissions.invalidate(caller.tenant.name(), user_id);
    Ok(())
}

async fn list_permissions(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("perms.users.get")?;
    let user_id = parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let set = blocking(move || Ok(tenant.read(|r| auth::permissions_of(r, user_id))?)).await?;
    let names: Vec<&str> = set.names().collect();
    Ok(super::json::value(
        StatusCode::OK,
        &serde_json::json!({ "permissionNames": names, "totalRecords": names.len() }),
    ))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PermissionNameRequest {
    permission_name: String,
}

async fn add_permission(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("perms.users.assign.immutable")?;
    let user_id = parse_uuid(&id)?;
    let request: PermissionNameRequest = parse_json(&body)?;
    grant(&state, &caller, user_id, vec![request.permission_name.clone()]).await?;
    Ok(super::json::value(
        StatusCode::OK,
        &serde_json::json!({ "permissionName": request.permission_name }),
    ))
}

pub(super) fn parse_uuid(id: &str) -> Result<Uuid, ApiError> {
    Uuid::parse_str(id)
        .map_err(|_| ApiError::bad_parameter("id", id, format!("Invalid UUID format of id: {id}")))
}
