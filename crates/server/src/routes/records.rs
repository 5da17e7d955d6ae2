//! The storage endpoints of one inventory record type, generic over the type: GET list
//! and by id, POST, PUT, DELETE, and the synchronous batch upsert.

use axum::{
    Router,
    extract::Path,
    http::StatusCode,
    response::Response,
    routing::{get, post},
};

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

/// Paths, collection key and permission prefix of one record type.
pub(super) struct Spec {
    pub(super) path: &'static str,
    pub(super) item_path: &'static str,
    pub(super) batch_path: &'static str,
    pub(super) collection_key: &'static str,
    /// FOLIO permission prefix, e.g. `inventory-storage.instances`.
    pub(super) permissions: &'static str,
}

pub(super) fn router<R>(spec: &'static Spec) -> Router<AppState>
where
    R: inventory::Record + Send + 'static,
{
    single_records::<R>(spec).route(
        spec.batch_path,
        post(move |caller: Caller, params: ListParams, body: Body| {
            batch::<R>(spec, caller, params, body)
        }),
    )
}

/// The endpoints without the batch upsert (record types FOLIO has no batch API for;
/// their `batch_path` is unused).
pub(super) fn single_records<R>(spec: &'static Spec) -> Router<AppState>
where
    R: inventory::Record + Send + 'static,
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

async fn list<R: inventory::Record + Send + 'static>(
    spec: &'static Spec,
    caller: Caller,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "collection.get"))?;
    let tenant = caller.tenant.clone();
    let (bodies, total) = blocking(move || {
        Ok(tenant.read(|r| inventory::list_json::<R>(r, params.query.as_deref(), params.page))?)
    })
    .await?;
    Ok(super::json::collection(spec.collection_key, &bodies, total))
}

async fn get_one<R: inventory::Record + Send + 'static>(
    spec: &'static Spec,
    caller: Caller,
    id: String,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "item.get"))?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let body = blocking(move || Ok(tenant.read(|r| inventory::get_json::<R>(r, id))?)).await?;
    Ok(super::json::raw(StatusCode::OK, body))
}

async fn create<R: inventory::Record + Send + 'static>(
    spec: &'static Spec,
    caller: Caller,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "item.post"))?;
    let tenant = caller.tenant.clone();
    let actor = inventory::Actor { user_id: Some(caller.user_id) };
    let record =
        blocking(move || Ok(tenant.write(|w| inventory::create::<R>(w, &body, actor))?)).await?;
    let id = record.id().map(|id| id.to_string()).unwrap_or_default();
    let json = serde_json::to_string(&record).map_err(ApiError::internal)?;
    Ok(super::json::created(format!("{}/{id}", spec.path), json))
}

async fn replace<R: inventory::Record + Send + 'static>(
    spec: &'static Spec,
    caller: Caller,
    id: String,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "item.put"))?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let actor = inventory::Actor { user_id: Some(caller.user_id) };
    blocking(move || Ok(tenant.write(|w| inventory::replace::<R>(w, id, &body, actor))?)).await?;
    Ok(super::no_content())
}

async fn delete<R: inventory::Record + Send + 'static>(
    spec: &'static Spec,
    caller: Caller,
    id: String,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "item.delete"))?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| inventory::delete::<R>(w, id))?)).await?;
    Ok(super::no_content())
}

async fn batch<R: inventory::Record + Send + 'static>(
    spec: &'static Spec,
    caller: Caller,
    params: ListParams,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "batch.post"))?;
    let upsert = params.flag("upsert");
    let tenant = caller.tenant.clone();
    let actor = inventory::Actor { user_id: Some(caller.user_id) };
    let key = spec.collection_key;
    blocking(move || {
        // Decoded before the write lock is taken, so a bad body never holds up writers.
        let records = inventory::decode_batch::<R>(&body, key)?;
        Ok(tenant.write(|w| inventory::save_batch::<R>(w, records, upsert, actor))?)
    })
    .await?;
    Ok(super::json::raw(StatusCode::CREATED, String::new()))
}
