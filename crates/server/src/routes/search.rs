//! Search, with mod-search's paths, parameters and shapes.
//!
//! - `GET /search/instances` (`query`, `limit`, `offset`, `expandAll`)
//! - `GET /search/instances/facets` (`query`, `facet`, repeatable or comma-separated)
//! - `GET /instance-bulk/ids`, `GET /record-bulk/ids` (every matching id, streamed)
//! - `POST /search/index/inventory/reindex` (`{"resourceName":"authority"}` for the
//!   authority index), `POST /search/index/instance-records/reindex/full`,
//!   `GET /search/index/instance-records/reindex/status`

use axum::{
    Router,
    body::{Body as ResponseBody, Bytes},
    extract::State,
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking, searching},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/search/instances", get(search_instances))
        .route("/search/instances/facets", get(instance_facets))
        .route("/instance-bulk/ids", get(instance_ids))
        .route("/record-bulk/ids", get(instance_ids))
        .route("/search/index/inventory/reindex", post(reindex_legacy))
        .route("/search/index/instance-records/reindex/full", post(reindex_full))
        .route("/search/index/instance-records/reindex/status", get(reindex_status))
}

/// The query, with FOLIO's message when it is missing.
pub(super) fn required_query(params: &ListParams) -> Result<String, ApiError> {
    params
        .query
        .clone()
        .ok_or_else(|| ApiError::bad_parameter("query", "", "Parameter 'query' is required"))
}

async fn search_instances(
    State(state): State<AppState>,
    caller: Caller,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("search.instances.collection.get")?;
    let query = required_query(&params)?;
    // mod-search's default differs from storage's: 100 records unless asked.
    let limit = raw_limit(&params).unwrap_or(100);
    let mut request = search::SearchRequest::new(query);
    request.limit = u32::try_from(limit).unwrap_or(u32::MAX);
    request.offset = u32::try_from(params.page.offset).unwrap_or(u32::MAX);
    request.expand_all = params.flag("expandAll");
    let tenant = caller.tenant.clone();
    let body = searching(move || {
        let index = state.runtime.instances(&tenant)?;
        Ok(index.search(&tenant, &request)?.to_json())
    })
    .await?;
    Ok(super::json::raw(StatusCode::OK, body))
}

/// The `limit` the client sent, if any (the list extractor fills in storage's default).
fn raw_limit(params: &ListParams) -> Option<u64> {
    if params.explicit_limit { Some(params.page.limit) } else { None }
}

async fn instance_facets(
    State(state): State<AppState>,
    caller: Caller,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("search.facets.collection.get")?;
    let query = required_query(&params)?;
    let mut facets = Vec::new();
    for value in params.all("facet") {
        for spec in value.split(',').filter(|s| !s.trim().is_empty()) {
            facets.push(search::FacetRequest::parse(spec.trim())?);
        }
    }
    if facets.is_empty() {
        return Err(ApiError::bad_parameter("facet", "", "Parameter 'facet' is required"));
    }
    let tenant = caller.tenant.clone();
    let body = searching(move || {
        let index = state.runtime.instances(&tenant)?;
        Ok(index.facets(&query, &facets)?.to_json())
    })
    .await?;
    Ok(super::json::raw(StatusCode::OK, body))
}

/// Every id matching the query as `{"ids":[{"id":"..."}],"totalRecords":N}`, written as
/// it is found: a blocking thread walks the index and hands chunks to the response
/// through a bounded channel, so memory stays flat for any number of ids.
async fn instance_ids(
    State(state): State<AppState>,
    caller: Caller,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("inventory-storage.instances.collection.get")?;
    let query = params.query.clone().unwrap_or_else(|| "cql.allRecords=1".to_string());
    let limit = raw_limit(&params).unwrap_or(u64::MAX);
    let tenant = caller.tenant.clone();
    // Open the index and check the query before the 200 is sent, so errors get their
    // status.
    let index = {
        let query = query.clone();
        searching(move || {
            let index = state.runtime.instances(&tenant)?;
            index.count(&query)?;
            Ok(index)
        })
        .await?
    };
    let (sender, receiver) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(8);
    tokio::task::spawn_blocking(move || {
        const CHUNK: usize = 64 * 1024;
        let mut buffer = String::with_capacity(CHUNK + 64);
        buffer.push_str("{\"ids\":[");
        let mut n = 0u64;
        let mut closed = false;
        let result = index.stream_ids(&query, |id| {
            if n >= limit {
                return std::ops::ControlFlow::Break(());
            }
            if n > 0 {
                buffer.push(',');
            }
            buffer.push_str("{\"id\":\"");
            buffer.push_str(&id.to_string());
            buffer.push_str("\"}");
            n += 1;
            if buffer.len() >= CHUNK {
                let chunk =
                    Bytes::from(std::mem::replace(&mut buffer, String::with_capacity(CHUNK + 64)));
                if sender.blocking_send(Ok(chunk)).is_err() {
                    closed = true;
                    return std::ops::ControlFlow::Break(());
                }
            }
            std::ops::ControlFlow::Continue(())
        });
        if closed {
            return;
        }
        match result {
            Ok(_) => {
                buffer.push_str(&format!("],\"totalRecords\":{n}}}"));
                let _ = sender.blocking_send(Ok(Bytes::from(buffer)));
            }
            Err(e) => {
                tracing::error!(error = %e, "id stream failed");
                let _ = sender.blocking_send(Err(std::io::Error::other(e.to_string())));
            }
        }
    });
    let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|item| (item, receiver))
    });
    let mut response = ResponseBody::from_stream(stream).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(response)
}

/// Starts a full reindex on a background thread; its progress is in the status.
async fn start_reindex(
    state: &AppState,
    caller: &Caller,
    resource: runtime::Resource,
) -> Result<(), ApiError> {
    let (runtime, tenant) = (state.runtime.clone(), caller.tenant.clone());
    blocking(move || Ok(runtime.start_reindex(tenant, resource)?)).await
}

/// The legacy reindex: `{"resourceName": "authority"}` rebuilds the authority index;
/// anything else (or no body) the instance index.
async fn reindex_legacy(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("search.index.inventory.reindex.post")?;
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct ReindexBody {
        resource_name: Option<String>,
    }
    let resource = match serde_json::from_slice::<ReindexBody>(&body) {
        Ok(ReindexBody { resource_name: Some(name) }) if name == "authority" => {
            runtime::Resource::Authorities
        }
        _ => runtime::Resource::Instances,
    };
    start_reindex(&state, &caller, resource).await?;
    let submitted = folio::Timestamp::now().to_string();
    Ok(super::json::value(
        StatusCode::OK,
        &serde_json::json!({ "id": store::new_record_id(), "jobStatus": "In progress", "submittedDate": submitted }),
    ))
}

async fn reindex_full(State(state): State<AppState>, caller: Caller) -> Result<Response, ApiError> {
    caller.require("search.index.instance-records.reindex.full.post")?;
    start_reindex(&state, &caller, runtime::Resource::Instances).await?;
    Ok(StatusCode::OK.into_response())
}

async fn reindex_status(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Response, ApiError> {
    caller.require("search.index.instance-records.reindex.status.get")?;
    let tenant = caller.tenant.clone();
    // The change log's last sequence number beside the index's: how far behind it is.
    let (status, change_log) = blocking(move || {
        let change_log = tenant.last_seq()?;
        Ok((state.runtime.instances(&tenant)?.status(), change_log))
    })
    .await?;
    let (phase, total, processed) = match (&status.reindex, &status.last_reindex) {
        (Some(progress), _) => ("UPLOAD_IN_PROGRESS", progress.total, progress.done),
        (None, Some(last)) => ("UPLOAD_COMPLETED", last.instances, last.instances),
        (None, None) => ("UPLOAD_COMPLETED", status.documents, status.documents),
    };
    let phase = if status.last_error.is_some() && status.reindex.is_none() {
        "UPLOAD_FAILED"
    } else {
        phase
    };
    Ok(super::json::value(
        StatusCode::OK,
        &serde_json::json!([{
            "entityType": "INSTANCE",
            "status": phase,
            "totalUploadRanges": total,
            "processedUploadRanges": processed,
            "generation": status.generation,
            "appliedSequence": status.applied_seq,
            "changeLogSequence": change_log,
            "documents": status.documents,
            "segments": status.segments,
            "deletedDocuments": status.deleted_documents,
            "lastError": status.last_error,
            "compacting": status.compacting,
            "lastReindex": status.last_reindex.as_ref().map(|last| serde_json::json!({
                "instances": last.instances,
                "replayed": last.replayed,
                "seconds": last.elapsed.as_secs_f64(),
                "compactionSeconds": last.compaction.map(|took| took.as_secs_f64()),
            })),
        }]),
    ))
}
