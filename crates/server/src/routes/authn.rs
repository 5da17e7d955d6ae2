//! Login and permissions, in mod-login's and mod-permissions' shapes.
//!
//! - `POST /authn/login` (legacy token in `x-okapi-token` and `{"okapiToken"}`)
//! - `POST /authn/login-with-expiry` (cookies `folioAccessToken`, `folioRefreshToken`)
//! - `POST /authn/refresh` (new cookies for a refresh-token cookie)
//! - `POST|DELETE /authn/credentials`, `GET /authn/credentials-existence`
//! - `POST /authn/update` (a password change, authorised by the current password)
//! - `POST /perms/users`, `GET|POST /perms/users/{id}/permissions`
//!
//! No permission short of `*` lets a caller gain rights through another user: a grant
//! hands out only permissions the caller holds, and credentials are made or deleted
//! only for users whose permissions the caller holds all of.

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
    extract::{Body, Caller, ListParams, TenantCtx, blocking, cookie},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/authn/login", post(login))
        .route("/authn/login-with-expiry", post(login_with_expiry))
        .route("/authn/refresh", post(refresh))
        .route("/authn/logout", post(logout))
        .route("/authn/logout-all", post(logout_all))
        .route("/authn/credentials", post(create_credentials).delete(delete_credentials))
        .route("/authn/credentials-existence", get(credentials_existence))
        .route("/authn/update", post(update_credentials))
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
    Ok(folio::decode(body)?)
}

pub(super) async fn check_login(
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
    legacy_login(&state, tenant.name(), &who, |token| serde_json::json!({ "okapiToken": token }))
}

async fn login_with_expiry(
    State(state): State<AppState>,
    tenant: TenantCtx,
    Body(body): Body,
) -> Result<Response, ApiError> {
    let (tenant, who) = check_login(tenant, &body).await?;
    token_pair(&state, tenant.name(), &who.username, who.user_id, who.token_epoch)
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
    // A refresh token outlives no more than an access token does: the user must still
    // be active, with the credentials it was issued for.
    let t = tenant.0.clone();
    let user_id = claims.user_id;
    let presented = token.clone();
    let (standing, revoked) = blocking(move || {
        Ok(t.read(|r| {
            Ok::<_, auth::Error>((auth::standing(r, user_id)?, auth::is_revoked(r, &presented)?))
        })?)
    })
    .await?;
    if revoked {
        return Err(ApiError::unauthorized("Invalid token: it was ended by a logout"));
    }
    if !standing.admits(&claims) {
        return Err(ApiError::unauthorized(
            "Invalid token: its user is inactive or deleted, or it was revoked",
        ));
    }
    token_pair(&state, tenant.0.name(), &claims.sub, claims.user_id, claims.epoch)
}

/// `POST /authn/logout`: ends the session of the refresh token in the request's cookie
/// (it is refused from now on) and clears both cookies. A session already over (an
/// expired refresh token) ends without complaint.
async fn logout(
    State(state): State<AppState>,
    tenant: TenantCtx,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let token = cookie(&headers, "folioRefreshToken").ok_or_else(|| {
        ApiError::bad_request(
            "No refresh token in the request: the folioRefreshToken cookie is missing",
        )
    })?;
    let claims = match state.key.verify(&token) {
        Ok(claims) => claims,
        Err(auth::Error::ExpiredToken) => return Ok(cleared_cookies()),
        Err(e) => return Err(e.into()),
    };
    if claims.token_type != auth::TokenType::Refresh {
        return Err(ApiError::unauthorized("Invalid token: not a refresh token"));
    }
    if claims.tenant != tenant.0.name() {
        return Err(ApiError::forbidden("Refresh token is for another tenant"));
    }
    let t = tenant.0.clone();
    blocking(move || Ok(t.write(|w| auth::revoke_refresh_token(w, &token, claims.exp))?)).await?;
    Ok(cleared_cookies())
}

/// `POST /authn/logout-all`: ends every session of the caller, on every device.
async fn logout_all(State(state): State<AppState>, caller: Caller) -> Result<Response, ApiError> {
    let tenant = caller.tenant.clone();
    let user_id = caller.user_id;
    blocking(move || Ok(tenant.write(|w| auth::end_all_sessions(w, user_id))?)).await?;
    state.runtime.standings().invalidate(caller.tenant.name(), user_id);
    Ok(cleared_cookies())
}

/// A 204 that tells the browser to drop both token cookies.
fn cleared_cookies() -> Response {
    let mut response = super::no_content();
    for (name, path) in [("folioAccessToken", "/"), ("folioRefreshToken", "/authn")] {
        let cookie = format!("{name}=; Max-Age=0; Path={path}; HttpOnly; Secure; SameSite=Lax");
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    response
}

/// A 201 with the token pair's cookies and its expirations as the body.
fn token_pair(
    state: &AppState,
    tenant: &str,
    username: &str,
    user_id: Uuid,
    epoch: u64,
) -> Result<Response, ApiError> {
    let pair = TokenPair::issue(state, tenant, username, user_id, epoch);
    pair.with_cookies(super::json::value(StatusCode::CREATED, &pair.expiration))
}

/// An access and a refresh token, in FOLIO's cookie shape: the access token for every
/// path, the refresh token for `/authn` only.
pub(super) struct TokenPair {
    /// `{"accessTokenExpiration", "refreshTokenExpiration"}`, ISO 8601.
    pub(super) expiration: serde_json::Value,
    cookies: [String; 2],
}

impl TokenPair {
    pub(super) fn issue(
        state: &AppState,
        tenant: &str,
        username: &str,
        user_id: Uuid,
        epoch: u64,
    ) -> TokenPair {
        let access_ttl = state.config.access_token_ttl.as_secs() as i64;
        let refresh_ttl = state.config.refresh_token_ttl.as_secs() as i64;
        let claims =
            |kind, ttl| auth::Claims::new(username, user_id, tenant, kind, ttl).in_epoch(epoch);
        let access = claims(auth::TokenType::Access, access_ttl);
        let refresh = claims(auth::TokenType::Refresh, refresh_ttl);
        let iso = |secs: i64| {
            chrono::DateTime::from_timestamp(secs, 0)
                .unwrap_or_default()
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        };
        let cookie = |name: &str, token: String, ttl: i64, path: &str| {
            format!("{name}={token}; Max-Age={ttl}; Path={path}; HttpOnly; Secure; SameSite=Lax")
        };
        TokenPair {
            expiration: serde_json::json!({
                "accessTokenExpiration": iso(access.exp),
                "refreshTokenExpiration": iso(refresh.exp),
            }),
            cookies: [
                cookie("folioAccessToken", state.key.sign(&access), access_ttl, "/"),
                cookie("folioRefreshToken", state.key.sign(&refresh), refresh_ttl, "/authn"),
            ],
        }
    }

    /// `response` with the two `Set-Cookie` headers.
    pub(super) fn with_cookies(&self, mut response: Response) -> Result<Response, ApiError> {
        for cookie in &self.cookies {
            response.headers_mut().append(
                header::SET_COOKIE,
                HeaderValue::from_str(cookie).map_err(ApiError::internal)?,
            );
        }
        Ok(response)
    }
}

/// FOLIO's legacy login answer: a 201 with `body` (given the token) and the token, which
/// does not expire by time, in `x-okapi-token`.
pub(super) fn legacy_login(
    state: &AppState,
    tenant: &str,
    who: &auth::LoginOutcome,
    body: impl FnOnce(&str) -> serde_json::Value,
) -> Result<Response, ApiError> {
    let ttl = state.config.legacy_token_ttl.as_secs() as i64;
    let claims =
        auth::Claims::new(&who.username, who.user_id, tenant, auth::TokenType::Legacy, ttl)
            .in_epoch(who.token_epoch);
    let token = state.key.sign(&claims);
    let mut response = super::json::value(StatusCode::CREATED, &body(&token));
    response
        .headers_mut()
        .insert("x-okapi-token", HeaderValue::from_str(&token).map_err(ApiError::internal)?);
    Ok(response)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CredentialsRequest {
    #[serde(default)]
    user_id: Option<Uuid>,
    /// Finds the user when `userId` is absent, as in mod-login; the credentials always
    /// take the user record's username, so no one logs in under another's name.
    #[serde(default)]
    username: Option<String>,
    password: String,
    #[serde(default, rename = "id")]
    _id: Option<String>,
}

async fn create_credentials(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("login.item.post")?;
    let request: CredentialsRequest = parse_json(&body)?;
    let tenant = caller.tenant.clone();
    let standing = caller.standing.clone();
    let user_id = blocking(move || {
        tenant.write(|w| {
            let user = match (request.user_id, &request.username) {
                (Some(id), _) => auth::get_user(w, id)?.ok_or_else(|| no_such_user(id))?,
                (None, Some(username)) => {
                    auth::user_by_username(w, username)?.ok_or_else(|| {
                        ApiError::validation("username", Some(username), "No such user")
                    })?
                }
                (None, None) => {
                    return Err(ApiError::validation(
                        "userId",
                        None,
                        "You must provide a username or userId",
                    ));
                }
            };
            let user_id = user.id;
            // mod-login's answer comes first: credentials are never replaced here.
            if auth::has_credentials(w, user_id)? {
                return Err(auth::Error::CredentialsExist(user_id).into());
            }
            may_act_on(w, &standing.permissions, user_id)?;
            let username = user.record.username.ok_or_else(|| {
                ApiError::validation("username", None, "The user has no username to log in with")
            })?;
            auth::create_credentials(w, user_id, &username, &request.password)?;
            Ok(user_id)
        })
    })
    .await?;
    state.runtime.standings().invalidate(caller.tenant.name(), user_id);
    Ok(super::json::value(StatusCode::CREATED, &serde_json::json!({ "userId": user_id })))
}

fn no_such_user(user_id: Uuid) -> ApiError {
    ApiError::validation("userId", Some(&user_id.to_string()), "No such user")
}

/// Whether a caller may make or delete a user's credentials: unless the caller holds
/// `*`, the user may hold no permission the caller does not, else a caller could set
/// the password of a more powerful user, or lock them out.
fn may_act_on(
    reader: &store::Reader<'_>,
    caller: &auth::PermissionSet,
    user_id: Uuid,
) -> Result<(), ApiError> {
    let theirs = auth::permissions_of(reader, user_id)?;
    match theirs.names().find(|name| !caller.contains(name)) {
        None => Ok(()),
        Some(missing) => Err(ApiError::forbidden(format!(
            "The user holds permission {missing}, which the caller does not: only a holder of all of a user's permissions may change their credentials"
        ))),
    }
}

/// `DELETE /authn/credentials?userId=`.
async fn delete_credentials(
    State(state): State<AppState>,
    caller: Caller,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("login.item.delete")?;
    let user_id = params.require("userId")?;
    let tenant = caller.tenant.clone();
    let standing = caller.standing.clone();
    blocking(move || {
        tenant.write(|w| {
            if auth::get_user(w, user_id)?.is_none() {
                return Err(no_such_user(user_id));
            }
            may_act_on(w, &standing.permissions, user_id)?;
            auth::delete_credentials(w, user_id)?;
            Ok(())
        })
    })
    .await?;
    state.runtime.standings().invalidate(caller.tenant.name(), user_id);
    Ok(super::no_content())
}

/// `GET /authn/credentials-existence?userId=`: `{"credentialsExist": bool}`.
async fn credentials_existence(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("login.credentials-existence.get")?;
    let user_id = params.require("userId")?;
    let tenant = caller.tenant.clone();
    let exist = blocking(move || Ok(tenant.read(|r| auth::has_credentials(r, user_id))?)).await?;
    Ok(super::json::value(StatusCode::OK, &serde_json::json!({ "credentialsExist": exist })))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct UpdateCredentialsRequest {
    #[serde(default)]
    username: Option<String>,
    #[serde(default)]
    user_id: Option<Uuid>,
    password: String,
    #[serde(default)]
    new_password: Option<String>,
}

/// mod-login's password change: the current password authorises it, so any caller of
/// the tenant may send it (FOLIO requires no permission either), for any user whose
/// password they know.
async fn update_credentials(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    let request: UpdateCredentialsRequest = parse_json(&body)?;
    let new_password = request
        .new_password
        .filter(|p| !p.is_empty())
        .ok_or_else(|| ApiError::bad_request("You must provide a new password that isn't empty"))?;
    if request.user_id.is_none() && request.username.is_none() {
        return Err(ApiError::bad_request("You must provide a username or userId"));
    }
    let tenant = caller.tenant.clone();
    blocking(move || {
        tenant.write(|w| {
            let user_id = match (request.user_id, &request.username) {
                (Some(id), _) => id,
                (None, Some(username)) => {
                    auth::user_by_username(w, username)?.map(|user| user.id).ok_or_else(|| {
                        ApiError::bad_request(format!(
                            "Error verifying user existence: No user found by username {username}"
                        ))
                    })?
                }
                (None, None) => unreachable!("checked above"),
            };
            auth::update_password(w, user_id, &request.password, &new_password)?;
            Ok(())
        })
    })
    .await?;
    Ok(super::no_content())
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
    // A caller hands out only what it holds, so no grant raises anyone, the caller
    // included, above the caller (only a holder of `*` may grant `*`).
    if let Some(missing) = permissions.iter().find(|p| !caller.permissions().contains(p)) {
        return Err(ApiError::forbidden(format!(
            "Cannot grant permission {missing}: the caller does not hold it"
        )));
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
    state.runtime.standings().invalidate(caller.tenant.name(), user_id);
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
