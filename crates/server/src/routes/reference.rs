//! Reference data, every kind through one set of handlers.
//!
//! - `GET|POST {kind path}` and `GET|PUT|DELETE {kind path}/{id}` for every kind of
//!   `inventory::RefKind` (`/instance-types`, `/locations`, `/statistical-codes`, ...; the
//!   list is in `docs/api.md`)

use axum::{Router, extract::Path, http::StatusCode, response::Response, routing::get};
use inventory::RefKind;

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

pub(super) fn router() -> Router<AppState> {
    let mut router = Router::new();
    for &kind in RefKind::all() {
        router = router
            .route(
                kind.path(),
                get(move |caller: Caller, params: ListParams| list(kind, caller, params))
                    .post(move |caller: Caller, body: Body| create(kind, caller, body)),
            )
            .route(
                &format!("{}/{{id}}", kind.path()),
                get(move |caller: Caller, Path(id): Path<String>| get_one(kind, caller, id))
                    .put(move |caller: Caller, Path(id): Path<String>, body: Body| {
                        replace(kind, caller, id, body)
                    })
                    .delete(move |caller: Caller, Path(id): Path<String>| delete(kind, caller, id)),
            );
    }
    router
}

/// FOLIO's names: `inventory-storage.material-types.collection.get` and so on.
fn perm(kind: RefKind, suffix: &str) -> String {
    format!("inventory-storage.{}.{suffix}", kind.path().trim_start_matches('/').replace('/', "."))
}

async fn list(kind: RefKind, caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require(&perm(kind, "collection.get"))?;
    let tenant = caller.tenant.clone();
    let (bodies, total) = blocking(move || {
        Ok(tenant.read(|r| {
            inventory::list_reference_json(r, kind, params.query.as_deref(), params.page)
        })?)
    })
    .await?;
    Ok(super::json::collection(kind.collection_key(), &bodies, total))
}

async fn get_one(kind: RefKind, caller: Caller, id: String) -> Result<Response, ApiError> {
    caller.require(&perm(kind, "item.get"))?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let body =
        blocking(move || Ok(tenant.read(|r| inventory::get_reference_json(r, kind, id))?)).await?;
    Ok(super::json::raw(StatusCode::OK, body))
}

async fn create(kind: RefKind, caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require(&perm(kind, "item.post"))?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    let record =
        blocking(move || Ok(tenant.write(|w| inventory::create_reference(w, kind, &body, actor))?))
            .await?;
    let id = record.id().map(|id| id.to_string()).unwrap_or_default();
    let json = serde_json::to_string(&record).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("{}/{id}", kind.path()), json))
}

async fn replace(
    kind: RefKind,
    caller: Caller,
    id: String,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require(&perm(kind, "item.put"))?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let actor = super::records::actor(&caller);
    blocking(
        move || Ok(tenant.write(|w| inventory::replace_reference(w, kind, id, &body, actor))?),
    )
    .await?;
    Ok(super::no_content())
}

async fn delete(kind: RefKind, caller: Caller, id: String) -> Result<Response, ApiError> {
    caller.require(&perm(kind, "item.delete"))?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| inventory::delete_reference(w, kind, id))?)).await?;
    Ok(super::no_content())
}
