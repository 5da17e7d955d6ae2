//! Proxy relationships, in mod-users' shape (`proxiesFor` collections).
//!
//! - `GET|POST /proxiesfor`, `GET|PUT|DELETE /proxiesfor/{id}`

use axum::{Router, extract::Path, http::StatusCode, response::Response, routing::get};

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/proxiesfor", get(list).post(create))
        .route("/proxiesfor/{id}", get(get_one).put(update).delete(remove))
}

async fn list(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("proxiesfor.collection.get")?;
    let tenant = caller.tenant.clone();
    let (bodies, total) = blocking(move || {
        Ok(tenant.read(|r| auth::list_proxies(r, params.query.as_deref(), params.page))?)
    })
    .await?;
    Ok(super::json::collection("proxiesFor", &bodies, total))
}

async fn get_one(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("proxiesfor.item.get")?;
    let proxy_id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let proxy = blocking(move || Ok(tenant.read(|r| auth::get_proxy(r, proxy_id))?)).await?;
    match proxy {
        Some(proxy) => Ok(super::json::value(StatusCode::OK, &proxy)),
        None => Err(ApiError::not_found(format!("Proxy relationship not found: {id}"))),
    }
}

async fn create(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("proxiesfor.item.post")?;
    let proxy = auth::decode_proxy(&body)?;
    let tenant = caller.tenant.clone();
    let actor = caller.user_id;
    let proxy =
        blocking(move || Ok(tenant.write(|w| auth::create_proxy(w, proxy, Some(actor)))?)).await?;
    let id = proxy.id.map(|i| i.to_string()).unwrap_or_default();
    let body = serde_json::to_string(&proxy).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("/proxiesfor/{id}"), body))
}

async fn update(
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("proxiesfor.item.put")?;
    let proxy_id = super::authn::parse_uuid(&id)?;
    let proxy = auth::decode_proxy(&body)?;
    let tenant = caller.tenant.clone();
    let actor = caller.user_id;
    blocking(move || Ok(tenant.write(|w| auth::update_proxy(w, proxy_id, proxy, Some(actor)))?))
        .await?;
    Ok(super::no_content())
}

async fn remove(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("proxiesfor.item.delete")?;
    let proxy_id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| auth::delete_proxy(w, proxy_id))?)).await?;
    Ok(super::no_content())
}
