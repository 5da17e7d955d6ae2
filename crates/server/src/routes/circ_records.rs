//! The storage endpoints of circulation record types (policies, loans, requests,
//! accounts, blocks, check-ins), generic over the type: GET list and by id, POST, PUT,
//! DELETE.

use axum::{Router, extract::Path, http::StatusCode, response::Response, routing::get};

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

/// Paths, collection key and permission prefix of one record type.
pub(super) struct Spec {
    pub(super) path: &'static str,
    pub(super) item_path: &'static str,
    pub(super) collection_key: &'static str,
    pub(super) permissions: &'static str,
}

pub(super) fn router<R>(spec: &'static Spec) -> Router<AppState>
where
    R: circ::Record + Send + 'static,
{
    Router::new()
        .route(
            spec.path,
            get(move |caller: Caller, params: ListParams| list::<R>(spec, caller, params))
                .post(move |caller: Caller, body: Body| create::<R>(spec, caller, body)),
        )
        .route(
            spec.item_path,
            get(move |caller: Caller, Path(id): Path<String>| get_one::<R>(spec, caller, id))
                .put(move |caller: Caller, Path(id): Path<String>, body: Body| {
                    replace::<R>(spec, caller, id, body)
                })
                .delete(move |caller: Caller, Path(id): Path<String>| {
                    delete::<R>(spec, caller, id)
                }),
        )
}

fn perm(spec: &Spec, suffix: &str) -> String {
    format!("{}.{suffix}", spec.permissions)
}

pub(super) fn actor(caller: &Caller) -> inventory::Actor {
    inventory::Actor { user_id: Some(caller.user_id) }
}

async fn list<R: circ::Record + Send + 'static>(
    spec: &'static Spec,
    caller: Caller,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "collection.get"))?;
    let tenant = caller.tenant.clone();
    let (bodies, total) = blocking(move || {
        Ok(tenant.read(|r| circ::list_json::<R>(r, params.query.as_deref(), params.page))?)
    })
    .await?;
    Ok(super::json::collection(spec.collection_key, &bodies, total))
}

async fn get_one<R: circ::Record + Send + 'static>(
    spec: &'static Spec,
    caller: Caller,
    id: String,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "item.get"))?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let body = blocking(move || Ok(tenant.read(|r| circ::get_json::<R>(r, id))?)).await?;
    Ok(super::json::raw(StatusCode::OK, body))
}

async fn create<R: circ::Record + Send + 'static>(
    spec: &'static Spec,
    caller: Caller,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "item.post"))?;
    let record: R = circ::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    let record =
        blocking(move || Ok(tenant.write(|w| circ::create::<R>(w, record, actor))?)).await?;
    let id = record.id().map(|id| id.to_string()).unwrap_or_default();
    let json = serde_json::to_string(&record).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("{}/{id}", spec.path), json))
}

async fn replace<R: circ::Record + Send + 'static>(
    spec: &'static Spec,
    caller: Caller,
    id: String,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "item.put"))?;
    let id = super::authn::parse_uuid(&id)?;
    let record: R = circ::decode(&body)?;
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    blocking(move || Ok(tenant.write(|w| circ::replace::<R>(w, id, record, actor))?)).await?;
    Ok(super::no_content())
}

async fn delete<R: circ::Record + Send + 'static>(
    spec: &'static Spec,
    caller: Caller,
    id: String,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "item.delete"))?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| circ::delete::<R>(w, id))?)).await?;
    Ok(super::no_content())
}
