//! Users, in mod-users' shape and with its rules (see `auth::create_user`).
//!
//! - `GET|POST /users`, `GET|PUT|DELETE /users/{id}`

use axum::{
    Router,
    extract::{Path, State},
    http::StatusCode,
    response::Response,
    routing::get,
};

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/users", get(list).post(create))
        .route("/users/{id}", get(get_one).put(update).delete(remove))
        .route("/user-import", axum::routing::post(user_import))
}

async fn list(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("users.collection.get")?;
    let tenant = caller.tenant.clone();
    let (bodies, total) = blocking(move || {
        Ok(tenant.read(|r| auth::list_users(r, params.query.as_deref(), params.page))?)
    })
    .await?;
    Ok(super::json::collection("users", &bodies, total))
}

async fn get_one(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("users.item.get")?;
    let user_id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let user = blocking(move || Ok(tenant.read(|r| auth::get_user(r, user_id))?)).await?;
    match user {
        Some(user) => Ok(super::json::value(StatusCode::OK, &user)),
        None => Err(ApiError::not_found(format!("User not found: {id}"))),
    }
}

async fn create(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("users.item.post")?;
    let user = auth::decode_user(&body)?;
    let tenant = caller.tenant.clone();
    let actor = caller.user_id;
    let user =
        blocking(move || Ok(tenant.write(|w| auth::create_user(w, user, Some(actor)))?)).await?;
    let id = user.id.map(|i| i.to_string()).unwrap_or_default();
    let body = serde_json::to_string(&user).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("/users/{id}"), body))
}

async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("users.item.put")?;
    let user_id = super::authn::parse_uuid(&id)?;
    let user = auth::decode_user(&body)?;
    let tenant = caller.tenant.clone();
    let actor = caller.user_id;
    blocking(move || Ok(tenant.write(|w| auth::update_user(w, user_id, user, Some(actor)))?))
        .await?;
    // A deactivated user's tokens stop working with this request, not a minute later.
    state.runtime.standings().invalidate(caller.tenant.name(), user_id);
    Ok(super::no_content())
}

async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    caller.require("users.item.delete")?;
    let user_id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| auth::delete_user(w, user_id))?)).await?;
    state.runtime.standings().invalidate(caller.tenant.name(), user_id);
    Ok(super::no_content())
}

/// `POST /user-import` (mod-user-import): a directory's users in one request; the answer
/// counts what was created, updated and failed, and why.
async fn user_import(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("user-import.add")?;
    let request: auth::ImportRequest = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    let service_point =
        |reader: &store::Writer<'_>, name: &str| -> auth::Result<Option<uuid::Uuid>> {
            inventory::reference_id_by_name(reader, inventory::RefKind::ServicePoint, name)
                .map_err(|e| auth::Error::Corrupt(e.to_string()))
        };
    let response = blocking(move || {
        Ok(tenant.write(|w| auth::import_users(w, request, &service_point, actor))?)
    })
    .await?;
    // A batch that could not start is FOLIO's 500, in the same shape.
    let status =
        if response.error.is_some() { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::OK };
    Ok(super::json::value(status, &response))
}
