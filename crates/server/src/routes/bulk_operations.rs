//! Bulk edit as mod-bulk-operations serves it (see the `bulk` crate):
//! `POST /bulk-operations/upload` (a file of identifiers, multipart or raw),
//! `POST /bulk-operations/query` (Quire's addition: a storage CQL query),
//! `POST /bulk-operations/{id}/start` (UPLOAD, EDIT, COMMIT), `.../content-update`,
//! `GET /bulk-operations/{id}`, `.../preview`, `.../errors`, `.../download`,
//! `POST .../cancel`, `POST .../rollback` (Quire's undo) and `GET /bulk-operations`.
//!
//! Steps run on the runtime's bulk edit runner; these handlers record what was asked
//! and wake it. Their writes are background writes: a bulk operator's request is not
//! desk work, and an interactive write would have the desk count as busy for a second,
//! slicing the operation's own chunks. FOLIO answers a caller's mistake here in plain
//! text, not JSON.

use axum::{
    Router,
    extract::{FromRequest, Multipart, Path, Request, State},
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use serde::Deserialize;
use serde_json::json;
use uuid::Uuid;

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/bulk-operations", get(list))
        .route("/bulk-operations/upload", post(upload))
        .route("/bulk-operations/query", post(query))
        .route("/bulk-operations/{id}", get(get_one))
        .route("/bulk-operations/{id}/start", post(start))
        .route("/bulk-operations/{id}/content-update", post(content_update))
        .route("/bulk-operations/{id}/preview", get(preview))
        .route("/bulk-operations/{id}/errors", get(errors))
        .route("/bulk-operations/{id}/download", get(download))
        .route("/bulk-operations/{id}/cancel", post(cancel))
        .route("/bulk-operations/{id}/rollback", post(rollback))
}

/// A failure as mod-bulk-operations reports it: the caller's in plain text, the rest
/// through the error table.
enum Failure {
    Plain(StatusCode, String),
    Api(ApiError),
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        match self {
            Failure::Api(e) => e.into_response(),
            Failure::Plain(status, message) => {
                let mut response = (status, message).into_response();
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("text/plain; charset=utf-8"),
                );
                response
            }
        }
    }
}

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        Failure::Api(e)
    }
}

impl From<bulk::Error> for Failure {
    fn from(e: bulk::Error) -> Self {
        match e {
            bulk::Error::NotFound(_) => Failure::Plain(StatusCode::NOT_FOUND, e.to_string()),
            bulk::Error::Invalid(_) => Failure::Plain(StatusCode::BAD_REQUEST, e.to_string()),
            e => Failure::Api(e.into()),
        }
    }
}

fn bad_request(message: impl Into<String>) -> Failure {
    Failure::Plain(StatusCode::BAD_REQUEST, message.into())
}

/// A parameter that takes one of FOLIO's enumerated values.
fn wire<T>(name: &str, value: Option<&str>, parse: fn(&str) -> Option<T>) -> Result<T, Failure> {
    let value = value.unwrap_or_default();
    parse(value).ok_or_else(|| bad_request(format!("Invalid {name}: {value}")))
}

fn parse_id(id: &str) -> Result<Uuid, Failure> {
    Uuid::parse_str(id).map_err(|_| bad_request(format!("Invalid UUID string: {id}")))
}

/// Runs a bulk call on a blocking thread.
async fn run<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, bulk::Error> + Send + 'static,
) -> Result<T, Failure> {
    blocking(move || Ok(f())).await?.map_err(Failure::from)
}

fn dto(status: StatusCode, operation: &bulk::Operation) -> Response {
    super::json::value(status, operation)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UploadParams {
    entity_type: Option<String>,
    identifier_type: Option<String>,
    #[serde(default)]
    manual: Option<bool>,
}

/// The identifiers file: the multipart `file` part FOLIO's clients send, or the whole
/// body when it is not multipart.
async fn upload_file(request: Request) -> Result<(Option<String>, Vec<u8>), Failure> {
    let multipart = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    // Both ways keep to the server's body limit (413 past it).
    if !multipart {
        let bytes = axum::body::Bytes::from_request(request, &())
            .await
            .map_err(|e| Failure::Plain(e.status(), e.body_text()))?;
        return Ok((None, bytes.to_vec()));
    }
    let mut form = Multipart::from_request(request, &())
        .await
        .map_err(|e| bad_request(format!("Cannot read the multipart body: {e}")))?;
    while let Some(field) =
        form.next_field().await.map_err(|e| bad_request(format!("Cannot read the file: {e}")))?
    {
        if field.name() == Some("file") {
            let name = field.file_name().map(str::to_string);
            let bytes =
                field.bytes().await.map_err(|e| Failure::Plain(e.status(), e.body_text()))?;
            return Ok((name, bytes.to_vec()));
        }
    }
    Err(bad_request("The request has no file part"))
}

async fn upload(
    caller: Caller,
    axum::extract::Query(params): axum::extract::Query<UploadParams>,
    request: Request,
) -> Result<Response, Failure> {
    caller.require("bulk-operations.item.post")?;
    let entity = wire("entityType", params.entity_type.as_deref(), bulk::EntityType::parse)?;
    let kind =
        wire("identifierType", params.identifier_type.as_deref(), bulk::IdentifierType::parse)?;
    if params.manual == Some(true) {
        return Err(bad_request(
            "Manual uploads of edited records are not supported: use content-update",
        ));
    }
    let (file_name, bytes) = upload_file(request).await?;
    let identifiers = bulk::parse_identifiers(&bytes)?;
    let (tenant, user) = (caller.tenant.clone(), caller.user_id);
    let operation = run(move || {
        tenant.write_background(|w| {
            bulk::create_upload(w, entity, kind, &identifiers, file_name, Some(user))
        })
    })
    .await?;
    Ok(dto(StatusCode::CREATED, &operation))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct QueryRequest {
    entity_type: Option<String>,
    /// Storage CQL, as `/item-storage/items?query=` takes it.
    query: Option<String>,
}

async fn query(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body,
) -> Result<Response, Failure> {
    caller.require("bulk-operations.item.post")?;
    let request: QueryRequest = folio::decode(&body).map_err(ApiError::from)?;
    let entity = wire("entityType", request.entity_type.as_deref(), bulk::EntityType::parse)?;
    let cql = request
        .query
        .filter(|q| !q.trim().is_empty())
        .ok_or_else(|| bad_request("query is required"))?;
    let (tenant, user) = (caller.tenant.clone(), caller.user_id);
    let operation = blocking(move || {
        Ok(tenant.write_background(|w| bulk::create_query(w, entity, &cql, Some(user))))
    })
    .await?;
    let operation = match operation {
        Ok(operation) => operation,
        // A query the store cannot run is the caller's: FOLIO's 400 for bad CQL.
        Err(bulk::Error::Store(e)) => return Err(Failure::Api(e.into())),
        Err(e) => return Err(e.into()),
    };
    state.runtime.run_bulk(caller.tenant.name(), operation.id);
    Ok(dto(StatusCode::CREATED, &operation))
}

async fn get_one(caller: Caller, Path(id): Path<String>) -> Result<Response, Failure> {
    caller.require("bulk-operations.item.get")?;
    let id = parse_id(&id)?;
    let tenant = caller.tenant.clone();
    let operation = run(move || tenant.read(|r| bulk::get_operation(r, id))).await?;
    Ok(dto(StatusCode::OK, &operation))
}

#[derive(Deserialize)]
struct StartRequest {
    step: String,
    #[serde(default)]
    approach: Option<String>,
}

async fn start(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, Failure> {
    caller.require("bulk-operations.item.post")?;
    let id = parse_id(&id)?;
    let request: StartRequest = folio::decode(&body).map_err(ApiError::from)?;
    let step = wire("step", Some(&request.step), bulk::Step::parse)?;
    let approach = match request.approach.as_deref() {
        None => None,
        approach => Some(wire("approach", approach, bulk::Approach::parse)?),
    };
    let tenant = caller.tenant.clone();
    let operation =
        run(move || tenant.write_background(|w| bulk::start(w, id, step, approach))).await?;
    state.runtime.run_bulk(caller.tenant.name(), id);
    Ok(dto(StatusCode::OK, &operation))
}

async fn content_update(
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, Failure> {
    caller.require("bulk-operations.item.post")?;
    let id = parse_id(&id)?;
    let rules: bulk::RuleCollection = folio::decode(&body).map_err(ApiError::from)?;
    let tenant = caller.tenant.clone();
    let rules =
        run(move || tenant.write_background(|w| bulk::content_update(w, id, rules))).await?;
    Ok(super::json::value(StatusCode::OK, &rules))
}

async fn preview(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response, Failure> {
    caller.require("bulk-operations.item.get")?;
    let id = parse_id(&id)?;
    let step = wire("step", Some(&params.require::<String>("step")?), bulk::Step::parse)?;
    let (tenant, page) = (caller.tenant.clone(), params.page);
    let table =
        run(move || tenant.read(|r| bulk::preview(r, id, step, page.offset, page.limit))).await?;
    Ok(super::json::value(StatusCode::OK, &table))
}

async fn errors(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response, Failure> {
    caller.require("bulk-operations.item.get")?;
    let id = parse_id(&id)?;
    let error_type = match params.get::<String>("errorType")? {
        None => None,
        error_type => Some(wire("errorType", error_type.as_deref(), bulk::ErrorType::parse)?),
    };
    let (tenant, page) = (caller.tenant.clone(), params.page);
    let (errors, total) =
        run(move || tenant.read(|r| bulk::errors(r, id, error_type, page))).await?;
    let errors: Vec<_> = errors
        .iter()
        .map(|e| {
            json!({
                "message": e.message,
                "type": e.error_type.as_str(),
                "parameters": [{"key": "IDENTIFIER", "value": e.identifier}],
            })
        })
        .collect();
    Ok(super::json::value(StatusCode::OK, &json!({"errors": errors, "totalRecords": total})))
}

async fn download(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response, Failure> {
    caller.require("bulk-operations.item.get")?;
    let id = parse_id(&id)?;
    let kind: String = params.require("fileContentType")?;
    let kind = wire("fileContentType", Some(&kind), bulk::FileContentType::parse)?;
    let tenant = caller.tenant.clone();
    let (name, bytes) = run(move || tenant.read(|r| bulk::download(r, id, kind))).await?;
    let mut response = (StatusCode::OK, bytes).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/csv; charset=utf-8"));
    let disposition = format!("attachment; filename=\"{}\"", name.replace('"', ""));
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

async fn cancel(caller: Caller, Path(id): Path<String>) -> Result<Response, Failure> {
    caller.require("bulk-operations.item.post")?;
    let id = parse_id(&id)?;
    let tenant = caller.tenant.clone();
    let operation = run(move || tenant.write_background(|w| bulk::cancel(w, id))).await?;
    Ok(dto(StatusCode::OK, &operation))
}

async fn rollback(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, Failure> {
    caller.require("bulk-operations.item.post")?;
    let id = parse_id(&id)?;
    let (tenant, user) = (caller.tenant.clone(), caller.user_id);
    let operation =
        run(move || tenant.write_background(|w| bulk::rollback(w, id, Some(user)))).await?;
    state.runtime.run_bulk(caller.tenant.name(), operation.id);
    Ok(dto(StatusCode::CREATED, &operation))
}

async fn list(caller: Caller, params: ListParams) -> Result<Response, Failure> {
    caller.require("bulk-operations.item.get")?;
    let (tenant, page, query) = (caller.tenant.clone(), params.page, params.query.clone());
    let (operations, total) =
        run(move || tenant.read(|r| bulk::list_operations(r, query.as_deref(), page))).await?;
    Ok(super::json::value(
        StatusCode::OK,
        &json!({"bulkOperations": operations, "totalRecords": total}),
    ))
}
