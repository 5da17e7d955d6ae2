//! Source Record Storage (mod-source-record-storage).
//!
//! - `GET|POST /source-storage/records` (`snapshotId`, `recordType`, `state`, `offset`, `limit`)
//! - `GET|PUT|DELETE /source-storage/records/{id}` (`idType` on DELETE)
//! - `POST /source-storage/records/{id}/un-delete`, `GET /source-storage/records/{id}/formatted` (`idType`)
//! - `GET|POST /source-storage/source-records`, `GET /source-storage/source-records/{id}`
//! - `POST /source-storage/batch/records`
//! - `GET|POST /source-storage/snapshots`, `GET|PUT|DELETE /source-storage/snapshots/{jobExecutionId}`
//! - `POST /source-storage/stream/marc-record-identifiers`

use axum::{
    Router,
    body::{Body as ResponseBody, Bytes},
    extract::{Path, State},
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use uuid::Uuid;

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, Param, blocking},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/source-storage/records", get(list_records).post(create_record))
        .route(
            "/source-storage/records/{id}",
            get(get_record).put(replace_record).delete(delete_record),
        )
        .route("/source-storage/records/{id}/un-delete", post(undelete_record))
        .route("/source-storage/records/{id}/formatted", get(formatted_record))
        .route(
            "/source-storage/source-records",
            get(list_source_records).post(source_records_by_ids),
        )
        .route("/source-storage/source-records/{id}", get(get_source_record))
        .route("/source-storage/batch/records", post(batch_records))
        .route("/source-storage/snapshots", get(list_snapshots).post(create_snapshot))
        .route(
            "/source-storage/snapshots/{id}",
            get(get_snapshot).put(replace_snapshot).delete(delete_snapshot),
        )
        .route("/source-storage/stream/marc-record-identifiers", post(marc_record_identifiers))
}

fn actor(caller: &Caller) -> folio::Actor {
    folio::Actor { user_id: Some(caller.user_id) }
}

/// SRS's enumerated parameters, read by their FOLIO names.
macro_rules! choice_param {
    ($($ty:ty => $expected:literal, $read:expr;)*) => {
        $(impl Param for $ty {
            const EXPECTED: &'static str = $expected;
            fn read(value: &str) -> Option<Self> {
                $read(value)
            }
        })*
    };
}

choice_param! {
    srs::RecordType => "one of MARC_BIB, MARC_AUTHORITY, MARC_HOLDING, EDIFACT", srs::RecordType::parse;
    srs::State => "one of ACTUAL, OLD, DRAFT, DELETED", srs::State::parse;
    srs::IdType => "one of RECORD, INSTANCE, HOLDINGS, AUTHORITY, EXTERNAL", srs::IdType::parse;
    srs::SnapshotStatus => "a snapshot status such as NEW or COMMITTED", |s: &str| {
        serde_json::from_value(serde_json::Value::String(s.to_string())).ok()
    };
    LeaderStatus => "one of a, c, d, n, p, o, s, x", LeaderStatus::read;
}

/// A MARC leader's record status (position 05), as a parameter.
struct LeaderStatus(char);

impl LeaderStatus {
    fn read(value: &str) -> Option<LeaderStatus> {
        let mut chars = value.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if "acdnposx".contains(c) => Some(LeaderStatus(c)),
            _ => None,
        }
    }
}

fn id_type(params: &ListParams) -> Result<srs::IdType, ApiError> {
    Ok(params.get("idType")?.unwrap_or_default())
}

/// A date-time parameter in the stored `metadata.updatedDate` format.
fn date_param(params: &ListParams, name: &str) -> Result<Option<String>, ApiError> {
    Ok(params.get::<folio::Timestamp>(name)?.map(|t| t.to_string()))
}

fn path_uuid(id: &str) -> Result<Uuid, ApiError> {
    super::authn::parse_uuid(id)
}

fn record_json(record: &srs::Record) -> Result<String, ApiError> {
    serde_json::to_string(record).map_err(ApiError::internal)
}

fn collection<T: serde::Serialize>(
    key: &str,
    items: &[T],
    total: u64,
) -> Result<Response, ApiError> {
    let bodies = items
        .iter()
        .map(|i| serde_json::to_string(i).map_err(ApiError::internal))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(super::json::collection(key, &bodies, total))
}

async fn list_records(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("source-storage.records.collection.get")?;
    let filter = srs::RecordFilter {
        snapshot_id: params.get("snapshotId")?,
        record_type: params.get("recordType")?,
        state: params.get("state")?,
        ..srs::RecordFilter::default()
    };
    let tenant = caller.tenant.clone();
    let page = params.page;
    let (records, total) =
        blocking(move || Ok(tenant.read(|r| srs::list(r, &filter, page))?)).await?;
    collection("records", &records, total)
}

async fn create_record(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("source-storage.records.post")?;
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    let record = blocking(move || {
        let record = srs::decode(&body)?;
        Ok(tenant.write(|w| srs::create(w, record, actor))?)
    })
    .await?;
    let id = record.id.map(|id| id.to_string()).unwrap_or_default();
    Ok(super::json::created(format!("/source-storage/records/{id}"), record_json(&record)?))
}

async fn get_record(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("source-storage.records.item.get")?;
    let id = path_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let record = blocking(move || Ok(tenant.read(|r| srs::get(r, id))?)).await?;
    Ok(super::json::raw(StatusCode::OK, record_json(&record)?))
}

async fn replace_record(
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("source-storage.records.put")?;
    let id = path_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    let record = blocking(move || {
        let record = srs::decode(&body)?;
        Ok(tenant.write(|w| srs::replace(w, id, record, actor))?)
    })
    .await?;
    Ok(super::json::raw(StatusCode::OK, record_json(&record)?))
}

async fn delete_record(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("source-storage.records.delete")?;
    let id = path_uuid(&id)?;
    let id_type = id_type(&params)?;
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    blocking(move || Ok(tenant.write(|w| srs::delete(w, id, id_type, actor))?)).await?;
    Ok(super::no_content())
}

async fn undelete_record(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("source-storage.records.undelete.item.post")?;
    let id = path_uuid(&id)?;
    let id_type = id_type(&params)?;
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    blocking(move || Ok(tenant.write(|w| srs::undelete(w, id, id_type, actor))?)).await?;
    Ok(super::no_content())
}

async fn formatted_record(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("source-storage.records.formatted.item.get")?;
    let id = path_uuid(&id)?;
    let id_type = id_type(&params)?;
    let tenant = caller.tenant.clone();
    let record = blocking(move || Ok(tenant.read(|r| srs::get_formatted(r, id, id_type))?)).await?;
    Ok(super::json::raw(StatusCode::OK, record_json(&record)?))
}

async fn list_source_records(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("source-storage.source-records.collection.get")?;
    let leader_record_status =
        params.get::<LeaderStatus>("leaderRecordStatus")?.map(|status| status.0);
    let filter = srs::RecordFilter {
        record_id: params.get("recordId")?,
        snapshot_id: params.get("snapshotId")?,
        external_id: params.get("externalId")?,
        external_hrid: params.get("externalHrid")?,
        instance_id: params.get("instanceId")?,
        instance_hrid: params.get("instanceHrid")?,
        record_type: params.get("recordType")?,
        state: None,
        suppress_from_discovery: params.get("suppressFromDiscovery")?,
        deleted: params.get("deleted")?,
        leader_record_status,
        updated_after: date_param(&params, "updatedAfter")?,
        updated_before: date_param(&params, "updatedBefore")?,
    };
    let tenant = caller.tenant.clone();
    let page = params.page;
    let (records, total) =
        blocking(move || Ok(tenant.read(|r| srs::list_source_records(r, &filter, page))?)).await?;
    collection("sourceRecords", &records, total)
}

async fn source_records_by_ids(
    caller: Caller,
    params: ListParams,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("source-storage.source-records.collection.get")?;
    let id_type = id_type(&params)?;
    let include_deleted = params.get("deleted")?.unwrap_or(false);
    let ids: Vec<Uuid> = serde_json::from_slice(&body).map_err(|e| {
        ApiError::bad_request(format!("The body must be a JSON array of UUIDs: {e}"))
    })?;
    let tenant = caller.tenant.clone();
    let records = blocking(move || {
        Ok(tenant.read(|r| srs::source_records_by_ids(r, &ids, id_type, include_deleted))?)
    })
    .await?;
    let total = records.len() as u64;
    collection("sourceRecords", &records, total)
}

async fn get_source_record(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("source-storage.source-records.item.get")?;
    let id = path_uuid(&id)?;
    let id_type = id_type(&params)?;
    let tenant = caller.tenant.clone();
    let record = blocking(move || Ok(tenant.read(|r| srs::get_by(r, id, id_type))?)).await?;
    Ok(super::json::value(StatusCode::OK, &record.to_source_record()))
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RecordBatch {
    records: Vec<srs::Record>,
    #[serde(default)]
    #[allow(dead_code)]
    total_records: Option<u64>,
}

async fn batch_records(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("source-storage.batch.records.collection.post")?;
    let tenant = caller.tenant.clone();
    let actor = actor(&caller);
    let (records, errors) = blocking(move || {
        let batch: RecordBatch = folio::decode(&body)?;
        Ok(tenant.write(|w| srs::save_batch(w, batch.records, actor))?)
    })
    .await?;
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Response<'a> {
        records: &'a [srs::Record],
        error_messages: &'a [String],
        total_records: usize,
    }
    let body =
        Response { records: &records, error_messages: &errors, total_records: records.len() };
    Ok(super::json::value(StatusCode::CREATED, &body))
}

async fn list_snapshots(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("source-storage.snapshots.collection.get")?;
    let status = params.get::<srs::SnapshotStatus>("status")?;
    let tenant = caller.tenant.clone();
    let page = params.page;
    let (bodies, total) =
        blocking(move || Ok(tenant.read(|r| srs::list_snapshots(r, status, page))?)).await?;
    Ok(super::json::collection("snapshots", &bodies, total))
}

async fn create_snapshot(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("source-storage.snapshots.post")?;
    let tenant = caller.tenant.clone();
    let snapshot = blocking(move || {
        let snapshot = srs::decode_snapshot(&body)?;
        Ok(tenant.write(|w| srs::create_snapshot(w, snapshot))?)
    })
    .await?;
    let json = serde_json::to_string(&snapshot).map_err(ApiError::internal)?;
    Ok(super::json::created(
        format!("/source-storage/snapshots/{}", snapshot.job_execution_id),
        json,
    ))
}

async fn get_snapshot(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("source-storage.snapshots.item.get")?;
    let id = path_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let snapshot = blocking(move || Ok(tenant.read(|r| srs::get_snapshot(r, id))?)).await?;
    Ok(super::json::value(StatusCode::OK, &snapshot))
}

async fn replace_snapshot(
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("source-storage.snapshots.put")?;
    let id = path_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let snapshot = blocking(move || {
        let snapshot = srs::decode_snapshot(&body)?;
        Ok(tenant.write(|w| srs::replace_snapshot(w, id, snapshot))?)
    })
    .await?;
    Ok(super::json::value(StatusCode::OK, &snapshot))
}

async fn delete_snapshot(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("source-storage.snapshots.delete")?;
    let id = path_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| srs::delete_snapshot(w, id))?)).await?;
    Ok(super::no_content())
}

/// The MARC search. The index catches up with every committed write first, so a
/// DELETE is visible to the next search. The body is FOLIO's stream
/// (`application/stream+json`), written in chunks of about 60 KB as the client reads
/// it: the ids are held as 16-byte values, never as one 38-bytes-an-id string.
async fn marc_record_identifiers(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("source-storage.stream.marc-record-identifiers.collection.post")?;
    let tenant = caller.tenant.clone();
    let result = blocking(move || {
        let request = srs::SearchRequest::decode(&body)?;
        let index = state.runtime.marc(&tenant)?;
        Ok(index.search(&request)?)
    })
    .await?;
    let mut response = ResponseBody::from_stream(id_stream(result)).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/stream+json"));
    Ok(response)
}

/// `{"records":["id",...],"totalCount":n}`, one chunk of ids at a time.
fn id_stream(
    result: srs::SearchResult,
) -> impl futures_util::Stream<Item = Result<Bytes, std::convert::Infallible>> + Send + 'static {
    // 38 bytes an id: about 60 KB a chunk.
    const IDS_PER_CHUNK: usize = 1_600;
    let srs::SearchResult { ids, total } = result;
    let n_chunks = ids.len().div_ceil(IDS_PER_CHUNK);
    let chunks = (0..=n_chunks).map(move |chunk_idx| {
        let from = (chunk_idx * IDS_PER_CHUNK).min(ids.len());
        let to = (from + IDS_PER_CHUNK).min(ids.len());
        let mut out = String::with_capacity((to - from) * 39 + 40);
        if chunk_idx == 0 {
            out.push_str("{\"records\":[");
        }
        let mut buf = Uuid::encode_buffer();
        for (idx, id) in ids[from..to].iter().enumerate() {
            if from + idx > 0 {
                out.push(',');
            }
            out.push('"');
            out.push_str(id.hyphenated().encode_lower(&mut buf));
            out.push('"');
        }
        if chunk_idx == n_chunks {
            out.push_str("],\"totalCount\":");
            out.push_str(&total.to_string());
            out.push('}');
        }
        Ok(Bytes::from(out))
    });
    futures_util::stream::iter(chunks)
}
