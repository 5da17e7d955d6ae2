//! The storage endpoints of one record type, generic over the type: GET list and by id,
//! POST, PUT, DELETE, and for inventory types the synchronous batch upsert. Inventory
//! and circulation record types come through the same handlers; [`Storage`] says which
//! crate's verbs serve them.

use std::marker::PhantomData;

use axum::{
    Router,
    extract::Path,
    http::StatusCode,
    response::Response,
    routing::{get, post},
};
use uuid::Uuid;

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

/// The actor a caller's writes are stamped with.
pub(super) fn actor(caller: &Caller) -> folio::Actor {
    folio::Actor { user_id: Some(caller.user_id) }
}

/// A record type's storage verbs, as the generic endpoints call them.
pub(super) trait Storage: Send + 'static {
    /// A request body made ready for the write transaction: decoded before the write
    /// lock is taken where the crate allows it, so a bad body never holds up writers.
    type New: Send + 'static;
    fn prepare(body: axum::body::Bytes) -> Result<Self::New, ApiError>;
    fn list(
        reader: &store::Reader<'_>,
        cql: Option<&str>,
        page: store::Page,
    ) -> Result<(Vec<String>, u64), ApiError>;
    fn get_json(reader: &store::Reader<'_>, id: Uuid) -> Result<String, ApiError>;
    /// Stores a new record: its id and its JSON.
    fn create(
        writer: &mut store::Writer<'_>,
        new: Self::New,
        actor: folio::Actor,
    ) -> Result<(String, String), ApiError>;
    fn replace(
        writer: &mut store::Writer<'_>,
        id: Uuid,
        new: Self::New,
        actor: folio::Actor,
    ) -> Result<(), ApiError>;
    fn delete(writer: &mut store::Writer<'_>, id: Uuid) -> Result<(), ApiError>;
}

/// A created record's id and JSON, as the create endpoint answers them.
fn created<R: folio::Record>(record: &R) -> Result<(String, String), ApiError> {
    let id = record.id().map(|id| id.to_string()).unwrap_or_default();
    Ok((id, serde_json::to_string(record).map_err(ApiError::internal)?))
}

/// An inventory record type (instances, holdings, items, authorities).
pub(super) struct Inventory<R>(PhantomData<fn() -> R>);

impl<R: inventory::Record + Send + 'static> Storage for Inventory<R> {
    /// Inventory decodes inside its verbs, with the stored record at hand.
    type New = axum::body::Bytes;
    fn prepare(body: axum::body::Bytes) -> Result<axum::body::Bytes, ApiError> {
        Ok(body)
    }
    fn list(
        reader: &store::Reader<'_>,
        cql: Option<&str>,
        page: store::Page,
    ) -> Result<(Vec<String>, u64), ApiError> {
        Ok(inventory::list_json::<R>(reader, cql, page)?)
    }
    fn get_json(reader: &store::Reader<'_>, id: Uuid) -> Result<String, ApiError> {
        Ok(inventory::get_json::<R>(reader, id)?)
    }
    fn create(
        writer: &mut store::Writer<'_>,
        body: axum::body::Bytes,
        actor: folio::Actor,
    ) -> Result<(String, String), ApiError> {
        let record = inventory::create::<R>(writer, &body, actor)?;
        created(&record)
    }
    fn replace(
        writer: &mut store::Writer<'_>,
        id: Uuid,
        body: axum::body::Bytes,
        actor: folio::Actor,
    ) -> Result<(), ApiError> {
        inventory::replace::<R>(writer, id, &body, actor)?;
        Ok(())
    }
    fn delete(writer: &mut store::Writer<'_>, id: Uuid) -> Result<(), ApiError> {
        Ok(inventory::delete::<R>(writer, id)?)
    }
}

/// A circulation record type (policies, loans, requests, accounts, blocks, ...).
pub(super) struct Circ<R>(PhantomData<fn() -> R>);

impl<R: circ::Record + Send + 'static> Storage for Circ<R> {
    type New = R;
    fn prepare(body: axum::body::Bytes) -> Result<R, ApiError> {
        Ok(circ::decode(&body)?)
    }
    fn list(
        reader: &store::Reader<'_>,
        cql: Option<&str>,
        page: store::Page,
    ) -> Result<(Vec<String>, u64), ApiError> {
        Ok(circ::list_json::<R>(reader, cql, page)?)
    }
    fn get_json(reader: &store::Reader<'_>, id: Uuid) -> Result<String, ApiError> {
        Ok(circ::get_json::<R>(reader, id)?)
    }
    fn create(
        writer: &mut store::Writer<'_>,
        record: R,
        actor: folio::Actor,
    ) -> Result<(String, String), ApiError> {
        let record = circ::create::<R>(writer, record, actor)?;
        created(&record)
    }
    fn replace(
        writer: &mut store::Writer<'_>,
        id: Uuid,
        record: R,
        actor: folio::Actor,
    ) -> Result<(), ApiError> {
        circ::replace::<R>(writer, id, record, actor)?;
        Ok(())
    }
    fn delete(writer: &mut store::Writer<'_>, id: Uuid) -> Result<(), ApiError> {
        Ok(circ::delete::<R>(writer, id)?)
    }
}

/// A record type that is a bare declaration over `folio`'s verbs (address types,
/// departments, ...): its storage rules are the shared ones, and a taken unique value is
/// named with the value the body gave.
pub(super) struct Plain<R>(PhantomData<fn() -> R>);

impl<R: folio::Record + Send + 'static> Storage for Plain<R> {
    type New = R;
    fn prepare(body: axum::body::Bytes) -> Result<R, ApiError> {
        Ok(folio::record::decode(&body)?)
    }
    fn list(
        reader: &store::Reader<'_>,
        cql: Option<&str>,
        page: store::Page,
    ) -> Result<(Vec<String>, u64), ApiError> {
        Ok(folio::record::list_json::<R>(reader, cql, page)?)
    }
    fn get_json(reader: &store::Reader<'_>, id: Uuid) -> Result<String, ApiError> {
        Ok(folio::record::get_json::<R>(reader, id)?)
    }
    fn create(
        writer: &mut store::Writer<'_>,
        record: R,
        actor: folio::Actor,
    ) -> Result<(String, String), ApiError> {
        let columns = record.columns();
        let record =
            folio::record::create(writer, record, actor).map_err(|e| taken::<R>(e, &columns))?;
        created(&record)
    }
    fn replace(
        writer: &mut store::Writer<'_>,
        id: Uuid,
        record: R,
        actor: folio::Actor,
    ) -> Result<(), ApiError> {
        let columns = record.columns();
        folio::record::replace(writer, id, record, actor).map_err(|e| taken::<R>(e, &columns))?;
        Ok(())
    }
    fn delete(writer: &mut store::Writer<'_>, id: Uuid) -> Result<(), ApiError> {
        Ok(folio::record::delete::<R>(writer, id)?)
    }
}

/// A bare declaration with rules of its own: each body checked before the write, and
/// some stored records locked against change (FOLIO's system settings).
pub(super) trait Ruled: folio::Record + Send + 'static {
    fn check(&self) -> Result<(), ApiError>;
    /// Why the stored record may not be changed or removed, if it may not.
    fn locked(_reader: &store::Reader<'_>, _id: Uuid) -> Result<Option<&'static str>, ApiError> {
        Ok(None)
    }
}

/// The storage verbs of a [`Ruled`] type: [`Plain`]'s, after its rules.
pub(super) struct Checked<R>(PhantomData<fn() -> R>);

impl<R: Ruled> Checked<R> {
    fn unlocked(reader: &store::Reader<'_>, id: Uuid) -> Result<(), ApiError> {
        match R::locked(reader, id)? {
            Some(why) => Err(ApiError::bad_request(why)),
            None => Ok(()),
        }
    }
}

impl<R: Ruled> Storage for Checked<R> {
    type New = R;
    fn prepare(body: axum::body::Bytes) -> Result<R, ApiError> {
        let record = Plain::<R>::prepare(body)?;
        record.check()?;
        Ok(record)
    }
    fn list(
        reader: &store::Reader<'_>,
        cql: Option<&str>,
        page: store::Page,
    ) -> Result<(Vec<String>, u64), ApiError> {
        Plain::<R>::list(reader, cql, page)
    }
    fn get_json(reader: &store::Reader<'_>, id: Uuid) -> Result<String, ApiError> {
        Plain::<R>::get_json(reader, id)
    }
    fn create(
        writer: &mut store::Writer<'_>,
        record: R,
        actor: folio::Actor,
    ) -> Result<(String, String), ApiError> {
        Plain::<R>::create(writer, record, actor)
    }
    fn replace(
        writer: &mut store::Writer<'_>,
        id: Uuid,
        record: R,
        actor: folio::Actor,
    ) -> Result<(), ApiError> {
        Self::unlocked(writer, id)?;
        Plain::<R>::replace(writer, id, record, actor)
    }
    fn delete(writer: &mut store::Writer<'_>, id: Uuid) -> Result<(), ApiError> {
        Self::unlocked(writer, id)?;
        Plain::<R>::delete(writer, id)
    }
}

/// A unique column's violation named with the value the record has there.
fn taken<R: folio::Record>(e: folio::record::Error, columns: &[store::ColumnValue]) -> ApiError {
    if let folio::record::Error::Store(store::Error::Unique { column, table }) = &e {
        let value = R::TABLE
            .columns
            .iter()
            .position(|c| c == column)
            .and_then(|idx| columns.get(idx))
            .map(|value| match value {
                store::ColumnValue::Text(text) => text.clone(),
                store::ColumnValue::Int(n) => n.to_string(),
                _ => String::new(),
            })
            .unwrap_or_default();
        let field =
            R::QUERY.iter().find(|f| f.column == column).map_or(column.as_str(), |f| f.index);
        return ApiError::duplicate(
            field,
            &value,
            format!("{field} value already exists in table {table}: {value}"),
        );
    }
    e.into()
}

/// An inventory type's endpoints with its batch upsert.
pub(super) fn router<R>(spec: &'static Spec) -> Router<AppState>
where
    R: inventory::Record + Send + 'static,
{
    single_records::<Inventory<R>>(spec)
        .route(
            spec.batch_path,
            post(move |caller: Caller, params: ListParams, body: Body| {
                batch::<R>(spec, caller, params, body, Locking::Optimistic)
            }),
        )
        // FOLIO's migration variant: `_version` ignored, no optimistic locking.
        .route(
            &format!("{}-unsafe", spec.batch_path),
            post(move |caller: Caller, params: ListParams, body: Body| {
                batch::<R>(spec, caller, params, body, Locking::Skipped)
            }),
        )
        .route(
            &format!("{}/retrieve", spec.path),
            post(move |caller: Caller, body: Body| retrieve::<Inventory<R>>(spec, caller, body)),
        )
}

/// Whether a batch write checks each record's `_version`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Locking {
    Optimistic,
    Skipped,
}

/// FOLIO's `POST .../retrieve`: a list request with its CQL in the body, for queries too
/// long for a URL.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Retrieve {
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    limit: Option<i64>,
    #[serde(default)]
    offset: Option<i64>,
}

async fn retrieve<S: Storage>(
    spec: &'static Spec,
    caller: Caller,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "collection.get"))?;
    let request: Retrieve = folio::decode(&body)?;
    let count = |name: &str, value: Option<i64>, default: u64| match value {
        Some(n) => crate::extract::parse_count(name, &n.to_string()),
        None => Ok(default),
    };
    let page = store::Page {
        offset: count("offset", request.offset, 0)?,
        limit: count("limit", request.limit, 10)?,
    };
    let query = request.query.filter(|q| !q.trim().is_empty());
    let tenant = caller.tenant.clone();
    let (bodies, total) =
        blocking(move || tenant.read(|r| S::list(r, query.as_deref(), page))).await?;
    Ok(super::json::collection(spec.collection_key, &bodies, total))
}

/// The endpoints without the batch upsert (record types FOLIO has no batch API for;
/// their `batch_path` is unused).
pub(super) fn single_records<S: Storage>(spec: &'static Spec) -> Router<AppState> {
    Router::new()
        .route(
            spec.path,
            get(move |caller: Caller, params: ListParams| list::<S>(spec, caller, params))
                .post(move |caller: Caller, body: Body| create::<S>(spec, caller, body)),
        )
        .route(
            spec.item_path,
            get(move |caller: Caller, Path(id): Path<String>| get_one::<S>(spec, caller, id))
                .put(move |caller: Caller, Path(id): Path<String>, body: Body| {
                    replace::<S>(spec, caller, id, body)
                })
                .delete(move |caller: Caller, Path(id): Path<String>| {
                    delete::<S>(spec, caller, id)
                }),
        )
}

fn perm(spec: &Spec, suffix: &str) -> String {
    format!("{}.{suffix}", spec.permissions)
}

async fn list<S: Storage>(
    spec: &'static Spec,
    caller: Caller,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "collection.get"))?;
    let tenant = caller.tenant.clone();
    let (bodies, total) =
        blocking(move || tenant.read(|r| S::list(r, params.query.as_deref(), params.page))).await?;
    Ok(super::json::collection(spec.collection_key, &bodies, total))
}

async fn get_one<S: Storage>(
    spec: &'static Spec,
    caller: Caller,
    id: String,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "item.get"))?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let body = blocking(move || tenant.read(|r| S::get_json(r, id))).await?;
    Ok(super::json::raw(StatusCode::OK, body))
}

async fn create<S: Storage>(
    spec: &'static Spec,
    caller: Caller,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "item.post"))?;
    let new = S::prepare(body)?;
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    let (id, json) = blocking(move || tenant.write(|w| S::create(w, new, actor))).await?;
    Ok(super::json::created(format!("{}/{id}", spec.path), json))
}

async fn replace<S: Storage>(
    spec: &'static Spec,
    caller: Caller,
    id: String,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "item.put"))?;
    let id = super::authn::parse_uuid(&id)?;
    let new = S::prepare(body)?;
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    blocking(move || tenant.write(|w| S::replace(w, id, new, actor))).await?;
    Ok(super::no_content())
}

async fn delete<S: Storage>(
    spec: &'static Spec,
    caller: Caller,
    id: String,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "item.delete"))?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || tenant.write(|w| S::delete(w, id))).await?;
    Ok(super::no_content())
}

async fn batch<R: inventory::Record + Send + 'static>(
    spec: &'static Spec,
    caller: Caller,
    params: ListParams,
    Body(body): Body,
    locking: Locking,
) -> Result<Response, ApiError> {
    caller.require(&perm(spec, "batch.post"))?;
    let upsert = params.flag("upsert");
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    let key = spec.collection_key;
    blocking(move || {
        // Decoded before the write lock is taken, so a bad body never holds up writers.
        let mut records = inventory::decode_batch::<R>(&body, key)?;
        if locking == Locking::Skipped {
            records.iter_mut().for_each(folio::Record::clear_version);
        }
        Ok(tenant.write(|w| inventory::save_batch::<R>(w, records, upsert, actor))?)
    })
    .await?;
    Ok(super::json::raw(StatusCode::CREATED, String::new()))
}
