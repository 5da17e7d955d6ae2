//! mod-inventory's business views.
//!
//! - `GET|POST /inventory/instances`, `GET|PUT|DELETE /inventory/instances/{id}`
//! - `GET|POST /inventory/items`, `GET|PUT|DELETE /inventory/items/{id}`
//!
//! Writes go to the same storage verbs as `/instance-storage` and `/item-storage`; reads
//! add the derived fields.

use axum::{Router, extract::Path, http::StatusCode, response::Response, routing::get};

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/inventory/instances", get(list_instances).post(create::<inventory::Instance>))
        .route(
            "/inventory/instances/{id}",
            get(get_instance)
                .put(replace::<inventory::Instance>)
                .delete(delete::<inventory::Instance>),
        )
        .route("/inventory/items", get(list_items).post(create::<inventory::Item>))
        .route(
            "/inventory/items/{id}",
            get(get_item).put(replace::<inventory::Item>).delete(delete::<inventory::Item>),
        )
}

fn noun<R: inventory::Record>() -> (&'static str, &'static str) {
    match R::TABLE.table {
        "instances" => ("inventory.instances", "/inventory/instances"),
        _ => ("inventory.items", "/inventory/items"),
    }
}

/// How a body in the view's shape becomes one in the storage shape.
fn view_shape<R: inventory::Record>() -> &'static inventory::ViewShape {
    match R::TABLE.table {
        "instances" => &inventory::INSTANCE_VIEW,
        _ => &inventory::ITEM_VIEW,
    }
}

async fn list_instances(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("inventory.instances.collection.get")?;
    let tenant = caller.tenant.clone();
    let (bodies, total) = blocking(move || {
        Ok(tenant.read(|r| {
            inventory::list_instance_views_json(r, params.query.as_deref(), params.page)
        })?)
    })
    .await?;
    Ok(super::json::collection("instances", &bodies, total))
}

async fn get_instance(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("inventory.instances.item.get")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let body = blocking(move || Ok(tenant.read(|r| inventory::instance_view_json(r, id))?)).await?;
    Ok(super::json::raw(StatusCode::OK, body))
}

async fn list_items(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("inventory.items.collection.get")?;
    let tenant = caller.tenant.clone();
    let (bodies, total) = blocking(move || {
        Ok(tenant
            .read(|r| inventory::list_item_views_json(r, params.query.as_deref(), params.page))?)
    })
    .await?;
    Ok(super::json::collection("items", &bodies, total))
}

async fn get_item(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("inventory.items.item.get")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let body = blocking(move || Ok(tenant.read(|r| inventory::item_view_json(r, id))?)).await?;
    Ok(super::json::raw(StatusCode::OK, body))
}

async fn create<R: inventory::Record + Send + 'static>(
    caller: Caller,
    Body(body): Body,
) -> Result<Response, ApiError> {
    let (perm, path) = noun::<R>();
    caller.require(&format!("{perm}.item.post"))?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    let body = view_shape::<R>().storage_body(&body)?;
    let record =
        blocking(move || Ok(tenant.write(|w| inventory::create::<R>(w, &body, actor))?)).await?;
    let id = record.id().map(|id| id.to_string()).unwrap_or_default();
    let json = serde_json::to_string(&record).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("{path}/{id}"), json))
}

async fn replace<R: inventory::Record + Send + 'static>(
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    let (perm, _) = noun::<R>();
    caller.require(&format!("{perm}.item.put"))?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    let body = view_shape::<R>().storage_body(&body)?;
    blocking(move || Ok(tenant.write(|w| inventory::replace::<R>(w, id, &body, actor))?)).await?;
    Ok(super::no_content())
}

async fn delete<R: inventory::Record + Send + 'static>(
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let (perm, _) = noun::<R>();
    caller.require(&format!("{perm}.item.delete"))?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| inventory::delete::<R>(w, id))?)).await?;
    Ok(super::no_content())
}
