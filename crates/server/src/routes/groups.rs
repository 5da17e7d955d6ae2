//! Patron groups, in mod-users' shape (`usergroups` collections).
//!
//! - `GET|POST /groups`, `GET|PUT|DELETE /groups/{id}`

use axum::{Router, extract::Path, http::StatusCode, response::Response, routing::get};

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/groups", get(list).post(create))
        .route("/groups/{id}", get(get_one).put(update).delete(remove))
}

async fn list(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("usergroups.collection.get")?;
    let tenant = caller.tenant.clone();
    let (bodies, total) = blocking(move || {
        Ok(tenant.read(|r| auth::list_groups(r, params.query.as_deref(), params.page))?)
    })
    .await?;
    Ok(super::json::collection("usergroups", &bodies, total))
}

async fn get_one(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("usergroups.item.get")?;
    let group_id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let group = blocking(move || Ok(tenant.read(|r| auth::get_group(r, group_id))?)).await?;
    match group {
        Some(group) => Ok(super::json::value(StatusCode::OK, &group)),
        None => Err(ApiError::not_found(format!("Patron group not found: {id}"))),
    }
}

async fn create(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("usergroups.item.post")?;
    let group = auth::decode_group(&body)?;
    let tenant = caller.tenant.clone();
    let actor = caller.user_id;
    let group =
        blocking(move || Ok(tenant.write(|w| auth::create_group(w, group, Some(actor)))?)).await?;
    let id = group.id.map(|i| i.to_string()).unwrap_or_default();
    let body = serde_json::to_string(&group).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("/groups/{id}"), body))
}

async fn update(
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("usergroups.item.put")?;
    let group_id = super::authn::parse_uuid(&id)?;
    let group = auth::decode_group(&body)?;
    let tenant = caller.tenant.clone();
    let actor = caller.user_id;
    blocking(move || Ok(tenant.write(|w| auth::update_group(w, group_id, group, Some(actor)))?))
        .await?;
    Ok(super::no_content())
}

async fn remove(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("usergroups.item.delete")?;
    let group_id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| auth::delete_group(w, group_id))?)).await?;
    Ok(super::no_content())
}
