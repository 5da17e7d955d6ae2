//! Authority source files, as mod-entities-links serves them (see
//! `inventory::create_source_file`):
//!
//! - `GET|POST /authority-source-files` (`authoritySourceFiles`; the POST takes one `code`)
//! - `GET|PATCH|DELETE /authority-source-files/{id}` (the PATCH sends `_version`)
//! - `POST /authority-source-files/{id}/hrid`: the next HRID of a local file

use axum::{
    Router,
    extract::Path,
    http::StatusCode,
    response::Response,
    routing::{get, post},
};
use serde_json::json;

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/authority-source-files", get(list).post(create))
        .route("/authority-source-files/{id}", get(get_one).patch(patch).delete(remove))
        .route("/authority-source-files/{id}/hrid", post(next_hrid))
}

async fn list(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("inventory-storage.authority-source-files.collection.get")?;
    let tenant = caller.tenant.clone();
    let (bodies, total) = blocking(move || {
        Ok(tenant
            .read(|r| inventory::list_source_files(r, params.query.as_deref(), params.page))?)
    })
    .await?;
    Ok(super::json::collection("authoritySourceFiles", &bodies, total))
}

async fn get_one(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("inventory-storage.authority-source-files.item.get")?;
    let file_id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let file =
        blocking(move || Ok(tenant.read(|r| inventory::get_source_file(r, file_id))?)).await?;
    Ok(super::json::value(StatusCode::OK, &file))
}

async fn create(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("inventory-storage.authority-source-files.item.post")?;
    let new: inventory::NewSourceFile = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    let file =
        blocking(move || Ok(tenant.write(|w| inventory::create_source_file(w, new, actor))?))
            .await?;
    let id = file.id.map(|i| i.to_string()).unwrap_or_default();
    let body = serde_json::to_string(&file).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("/authority-source-files/{id}"), body))
}

async fn patch(
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("inventory-storage.authority-source-files.item.patch")?;
    let file_id = super::authn::parse_uuid(&id)?;
    let patch: inventory::SourceFilePatch = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    blocking(move || Ok(tenant.write(|w| inventory::patch_source_file(w, file_id, patch, actor))?))
        .await?;
    Ok(super::no_content())
}

async fn remove(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("inventory-storage.authority-source-files.item.delete")?;
    let file_id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| inventory::delete_source_file(w, file_id))?)).await?;
    Ok(super::no_content())
}

async fn next_hrid(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("inventory-storage.authority-source-files.hrid.post")?;
    let file_id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let hrid =
        blocking(move || Ok(tenant.write(|w| inventory::next_source_file_hrid(w, file_id))?))
            .await?;
    Ok(super::json::value(StatusCode::CREATED, &json!({"id": file_id, "hrid": hrid})))
}
