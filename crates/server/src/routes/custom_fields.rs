//! Custom fields on users, as mod-users serves them (see `auth::create_custom_field`):
//!
//! - `GET|POST|PUT /custom-fields` (the PUT replaces an entity type's whole set)
//! - `GET|PUT|DELETE /custom-fields/{id}`, `GET /custom-fields/{id}/stats`
//!
//! FOLIO routes these by the `X-Okapi-Module-Id` header, since several modules share the
//! path; Quire has one owner for them, so the header is accepted and not needed.

use axum::{Router, extract::Path, http::StatusCode, response::Response, routing::get};
use serde_json::json;

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/custom-fields", get(list).post(create).put(replace_all))
        .route("/custom-fields/{id}", get(get_one).put(update).delete(remove))
        .route("/custom-fields/{id}/stats", get(stats))
}

async fn list(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("user-settings.custom-fields.collection.get")?;
    let tenant = caller.tenant.clone();
    let (bodies, total) = blocking(move || {
        Ok(tenant.read(|r| auth::list_custom_fields(r, params.query.as_deref(), params.page))?)
    })
    .await?;
    Ok(super::json::collection("customFields", &bodies, total))
}

async fn get_one(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("user-settings.custom-fields.item.get")?;
    let field_id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let field = blocking(move || Ok(tenant.read(|r| auth::get_custom_field(r, field_id))?)).await?;
    match field {
        Some(field) => Ok(super::json::value(StatusCode::OK, &field)),
        None => Err(not_found(&id)),
    }
}

async fn create(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("user-settings.custom-fields.item.post")?;
    let field: auth::CustomField = folio::record::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    let field =
        blocking(move || Ok(tenant.write(|w| auth::create_custom_field(w, field, actor))?)).await?;
    let id = field.id.map(|i| i.to_string()).unwrap_or_default();
    let body = serde_json::to_string(&field).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("/custom-fields/{id}"), body))
}

async fn update(
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("user-settings.custom-fields.item.put")?;
    let field_id = super::authn::parse_uuid(&id)?;
    let field: auth::CustomField = folio::record::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    blocking(move || Ok(tenant.write(|w| auth::update_custom_field(w, field_id, field, actor))?))
        .await?;
    Ok(super::no_content())
}

async fn replace_all(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("user-settings.custom-fields.collection.put")?;
    let set: auth::CustomFieldSet = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    blocking(move || Ok(tenant.write(|w| auth::replace_custom_fields(w, set, actor))?)).await?;
    Ok(super::no_content())
}

async fn remove(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("user-settings.custom-fields.item.delete")?;
    let field_id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    blocking(move || Ok(tenant.write(|w| auth::delete_custom_field(w, field_id, actor))?)).await?;
    Ok(super::no_content())
}

/// How many users have a value of the field.
async fn stats(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("user-settings.custom-fields.item.stats.get")?;
    let field_id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let found = blocking(move || {
        Ok(tenant.read(|r| {
            let Some(field) = auth::get_custom_field(r, field_id)? else { return Ok(None) };
            let count = auth::count_values(r, field.ref_id.as_deref().unwrap_or_default())?;
            Ok::<_, auth::Error>(Some((field, count)))
        })?)
    })
    .await?;
    let (field, count) = found.ok_or_else(|| not_found(&id))?;
    let body = json!({"fieldId": field.id, "entityType": field.entity_type, "count": count});
    Ok(super::json::value(StatusCode::OK, &body))
}

fn not_found(id: &str) -> ApiError {
    ApiError::not_found(format!("CustomField not found by id: {id}"))
}
