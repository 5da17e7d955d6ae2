//! Tenant settings: FOLIO mod-configuration's `/configurations/entries` (GET list with
//! CQL, POST, GET/PUT/DELETE by id).

use axum::{Router, extract::Path, http::StatusCode, response::Response, routing::get};

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

const PATH: &str = "/configurations/entries";

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route(PATH, get(list).post(create))
        .route("/configurations/entries/{id}", get(get_one).put(replace).delete(delete))
}

async fn list(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("configuration.entries.collection.get")?;
    let tenant = caller.tenant.clone();
    let (bodies, total) = blocking(move || {
        Ok(tenant.read(|r| settings::list_json(r, params.query.as_deref(), params.page))?)
    })
    .await?;
    Ok(super::json::collection("configs", &bodies, total))
}

async fn get_one(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("configuration.entries.item.get")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let body = blocking(move || Ok(tenant.read(|r| settings::get_json(r, id))?)).await?;
    Ok(super::json::raw(StatusCode::OK, body))
}

async fn create(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("configuration.entries.item.post")?;
    let entry = settings::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    let entry = blocking(move || Ok(tenant.write(|w| settings::create(w, entry, actor))?)).await?;
    let id = entry.id.map(|id| id.to_string()).unwrap_or_default();
    let json = serde_json::to_string(&entry).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("{PATH}/{id}"), json))
}

async fn replace(
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("configuration.entries.item.put")?;
    let id = super::authn::parse_uuid(&id)?;
    let entry = settings::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    blocking(move || Ok(tenant.write(|w| settings::replace(w, id, entry, actor))?)).await?;
    Ok(super::no_content())
}

async fn delete(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("configuration.entries.item.delete")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| settings::delete(w, id))?)).await?;
    Ok(super::no_content())
}
