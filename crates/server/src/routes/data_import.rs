//! MARC data import as FOLIO's modules serve it (see the `import` crate):
//!
//! - the scripted clients' way in, mod-source-record-manager's change manager:
//!   `POST /change-manager/jobExecutions`, `GET /change-manager/jobExecutions/{id}`,
//!   `PUT .../{id}/jobProfile`, `POST|DELETE .../{id}/records` (a chunk; cancel);
//! - the web client's, mod-data-import: `POST|GET /data-import/uploadDefinitions`,
//!   `GET|DELETE .../{id}`, `POST .../{id}/files/{fileId}` (the file, streamed to disk),
//!   `POST .../{id}/processFiles`;
//! - job reporting: `GET /metadata-provider/jobExecutions` (FOLIO's filters and sorting),
//!   `/metadata-provider/jobLogEntries/{jobId}`, `/metadata-provider/jobSummary/{jobId}`.
//!
//! Jobs run on the runtime's import runner; these handlers only record what was asked
//! and wake it.

use axum::{
    Router,
    body::Body as RawBody,
    extract::{Path, State},
    http::StatusCode,
    response::Response,
    routing::{delete, get, post, put},
};
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::json;
use uuid::Uuid;

use crate::{
    ApiError, AppState,
    extract::{Body, Caller, ListParams, blocking},
};

use super::records::{Checked, Ruled, Spec, single_records};

spec!(
    FILE_EXTENSIONS,
    "/data-import/fileExtensions",
    "fileExtensions",
    "data-import.fileExtensions"
);

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/change-manager/jobExecutions", post(init_jobs).delete(delete_jobs))
        .route("/change-manager/jobExecutions/{id}", get(get_job))
        .route("/change-manager/jobExecutions/{id}/children", get(children))
        .route("/change-manager/jobExecutions/{id}/status", put(set_status))
        .route("/data-import/jobExecutions/{id}/cancel", delete(cancel_split))
        .route("/data-import/splitStatus", get(split_status))
        .route("/data-import/dataTypes", get(data_types))
        .route("/data-import/fileExtensions/restore/default", post(restore_extensions))
        .merge(single_records::<Checked<import::FileExtension>>(&FILE_EXTENSIONS))
        .route("/change-manager/jobExecutions/{id}/jobProfile", put(set_profile))
        .route("/change-manager/jobExecutions/{id}/records", post(post_records).delete(cancel))
        .route("/metadata-provider/jobExecutions", get(list_jobs))
        .route("/metadata-provider/jobLogEntries/{id}", get(log_entries))
        .route("/metadata-provider/jobLogEntries/{id}/records/{order}", get(log_entry))
        .route("/metadata-provider/jobSummary/{id}", get(job_summary))
        .route("/data-import/uploadDefinitions", post(create_upload).get(list_uploads))
        .route("/data-import/uploadDefinitions/{id}", get(get_upload).delete(delete_upload))
        .route("/data-import/uploadDefinitions/{id}/processFiles", post(process_files))
}

/// The file upload, on a router of its own: its body is streamed to disk, so the
/// request body limit of every other route does not apply.
pub(super) fn upload_router() -> Router<AppState> {
    Router::new().route("/data-import/uploadDefinitions/{id}/files/{file_id}", post(upload_file))
}

/// Who runs a job, as the job names them.
fn run_by(caller: &Caller) -> import::RunBy {
    let user = caller.tenant.read(|r| auth::get_user(r, caller.user_id)).ok().flatten();
    let personal = user.as_ref().and_then(|u| u.personal.clone());
    import::RunBy {
        first_name: personal.as_ref().and_then(|p| p.first_name.clone()),
        last_name: personal.and_then(|p| p.last_name),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitJobs {
    #[serde(default)]
    files: Vec<FileName>,
    source_type: String,
    #[serde(default)]
    job_profile_info: Option<import::ProfileInfo>,
    #[serde(default)]
    #[allow(dead_code, reason = "FOLIO requires it; the caller's token says who runs the job")]
    user_id: Option<Uuid>,
}

#[derive(Deserialize)]
struct FileName {
    name: String,
}

/// `POST /change-manager/jobExecutions`: one job per file (`FILES`), or one for records
/// to be posted (`ONLINE`, FOLIO's "No file name").
async fn init_jobs(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("change-manager.jobexecutions.post")?;
    let request: InitJobs = folio::decode(&body)?;
    let names: Vec<Option<String>> = match request.source_type.as_str() {
        "ONLINE" => vec![Some("No file name".to_string())],
        "FILES" | "COMPOSITE" if !request.files.is_empty() => {
            request.files.into_iter().map(|f| Some(f.name)).collect()
        }
        "FILES" | "COMPOSITE" => {
            return Err(ApiError::validation("files", None, "files must not be empty for FILES"));
        }
        other => {
            return Err(ApiError::validation(
                "sourceType",
                Some(other),
                "sourceType must be one of FILES, ONLINE, COMPOSITE",
            ));
        }
    };
    let tenant = caller.tenant.clone();
    let (user, by, profile) = (caller.user_id, run_by(&caller), request.job_profile_info);
    let jobs = blocking(move || {
        Ok(tenant.write(|w| {
            names
                .into_iter()
                .map(|name| import::new_job(w, user, by.clone(), name, profile.clone()))
                .collect::<import::Result<Vec<_>>>()
        })?)
    })
    .await?;
    let body = json!({"parentJobExecutionId": jobs[0].id, "jobExecutions": jobs});
    Ok(super::json::value(StatusCode::CREATED, &body))
}

async fn get_job(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("change-manager.jobexecutions.item.get")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let job = blocking(move || Ok(tenant.read(|r| import::get_job(r, id))?)).await?;
    Ok(super::json::value(StatusCode::OK, &job))
}

async fn set_profile(
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("change-manager.jobexecutions.item.put")?;
    let id = super::authn::parse_uuid(&id)?;
    let profile: import::ProfileInfo = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    let job =
        blocking(move || Ok(tenant.write(|w| import::set_job_profile(w, id, profile))?)).await?;
    Ok(super::json::value(StatusCode::OK, &job))
}

/// A chunk of records: stored with the job (so it survives a restart), then run.
async fn post_records(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("change-manager.records.post")?;
    let id = super::authn::parse_uuid(&id)?;
    let chunk: import::RawRecords = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| import::post_chunk(w, id, &chunk))?)).await?;
    state.runtime.run_import(caller.tenant.name(), id);
    Ok(super::no_content())
}

/// Stops a job at its next chunk boundary.
async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    caller.require("change-manager.records.delete")?;
    cancel_job(&state, &caller, &id).await?;
    Ok(super::no_content())
}

async fn cancel_job(state: &AppState, caller: &Caller, id: &str) -> Result<(), ApiError> {
    let id = super::authn::parse_uuid(id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.write(|w| import::cancel(w, id))?)).await?;
    state.runtime.run_import(caller.tenant.name(), id);
    Ok(())
}

/// `GET /metadata-provider/jobExecutions` with FOLIO's filters; repeated parameters
/// are any-of.
async fn list_jobs(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("metadata-provider.jobexecutions.get")?;
    let all = |name: &str| params.get_all::<String>(name);
    let filter = import::JobFilter {
        status_any: all("statusAny")?,
        status_not: all("statusNot")?,
        ui_status_any: all("uiStatusAny")?,
        hr_id: params.get("hrId")?,
        file_name: params.get("fileName")?,
        file_name_not_any: all("fileNameNotAny")?,
        profile_id_any: all("profileIdAny")?,
        profile_id_not_any: all("profileIdNotAny")?,
        subordination_type_not_any: all("subordinationTypeNotAny")?,
        user_id: params.get("userId")?,
        exclude_job_profile_name: all("excludeJobProfileName")?,
        completed_after: params.get("completedAfter")?,
        completed_before: params.get("completedBefore")?,
    };
    let mut sort = Vec::new();
    for spec in all("sortBy")? {
        let (field, direction) = spec.split_once(',').unwrap_or((spec.as_str(), "asc"));
        let index = import::sort_index(field).ok_or_else(|| {
            ApiError::bad_parameter("sortBy", &spec, format!("Invalid sortBy field: {field}"))
        })?;
        sort.push((index, direction.eq_ignore_ascii_case("desc")));
    }
    if sort.is_empty() {
        sort.push(("completedDate", false));
    }
    let tenant = caller.tenant.clone();
    let page = params.page;
    let (jobs, total) =
        blocking(move || Ok(tenant.read(|r| import::list_jobs(r, &filter, &sort, page))?)).await?;
    Ok(super::json::value(StatusCode::OK, &json!({"jobExecutions": jobs, "totalRecords": total})))
}

/// One entry per record, `source_record_order` first unless sorted otherwise.
async fn log_entries(
    caller: Caller,
    Path(id): Path<String>,
    params: ListParams,
) -> Result<Response, ApiError> {
    caller.require("metadata-provider.jobLogEntries.collection.get")?;
    let id = super::authn::parse_uuid(&id)?;
    let sort = match params.get::<String>("sortBy")? {
        None => import::SortBy::Order,
        Some(field) => import::SortBy::parse(&field).ok_or_else(|| {
            ApiError::bad_parameter("sortBy", &field, format!("Invalid sortBy field: {field}"))
        })?,
    };
    let descending = params.get::<String>("order")?.is_some_and(|o| o.eq_ignore_ascii_case("desc"));
    let errors_only = params.get::<bool>("errorsOnly")?.unwrap_or(false);
    let (tenant, page) = (caller.tenant.clone(), params.page);
    let (entries, total) = blocking(move || {
        Ok(tenant.read(|r| {
            import::get_job(r, id)?;
            import::entries(r, id, errors_only, sort, descending, page)
        })?)
    })
    .await?;
    Ok(super::json::value(StatusCode::OK, &json!({"entries": entries, "totalRecords": total})))
}

async fn log_entry(
    caller: Caller,
    Path((id, order)): Path<(String, u64)>,
) -> Result<Response, ApiError> {
    caller.require("metadata-provider.jobLogEntries.collection.get")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let entry = blocking(move || Ok(tenant.read(|r| import::entry(r, id, order))?)).await?;
    match entry {
        Some(entry) => Ok(super::json::value(StatusCode::OK, &entry)),
        None => Err(ApiError::not_found(format!("No record {order} in job {id}"))),
    }
}

async fn job_summary(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("metadata-provider.jobSummary.item.get")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let summary = blocking(move || {
        Ok(tenant.read(|r| {
            import::get_job(r, id)?;
            import::summary(r, id)
        })?)
    })
    .await?;
    Ok(super::json::value(StatusCode::OK, &summary))
}

async fn create_upload(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("data-import.uploaddefinitions.post")?;
    let new: import::NewUpload = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    let (user, by) = (caller.user_id, run_by(&caller));
    let definition =
        blocking(move || Ok(tenant.write(|w| import::create_upload(w, new, user, by))?)).await?;
    let location = format!("/data-import/uploadDefinitions/{}", definition.id);
    let body = serde_json::to_string(&definition).map_err(ApiError::internal)?;
    Ok(super::json::created(location, body))
}

async fn list_uploads(caller: Caller, params: ListParams) -> Result<Response, ApiError> {
    caller.require("data-import.uploaddefinitions.get")?;
    let (tenant, page) = (caller.tenant.clone(), params.page);
    let (definitions, total) =
        blocking(move || Ok(tenant.read(|r| import::list_uploads(r, page))?)).await?;
    let body = json!({"uploadDefinitions": definitions, "totalRecords": total});
    Ok(super::json::value(StatusCode::OK, &body))
}

async fn get_upload(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("data-import.uploaddefinitions.item.get")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    let definition = blocking(move || Ok(tenant.read(|r| import::get_upload(r, id))?)).await?;
    Ok(super::json::value(StatusCode::OK, &definition))
}

/// Deletes a definition, its files, and its jobs that never started.
async fn delete_upload(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("data-import.uploaddefinitions.delete")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || {
        tenant.write(|w| import::delete_upload(w, id))?;
        tenant.forget_shared_files(&id.to_string())?;
        let dir = runtime::import_dir(&tenant).join(id.to_string());
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(ApiError::internal)?;
        }
        Ok(())
    })
    .await?;
    Ok(super::no_content())
}

/// The file's bytes, written to the tenant's import directory as they arrive (a file of
/// any size, never held in memory), then recorded on the definition.
async fn upload_file(
    caller: Caller,
    Path((id, file_id)): Path<(String, String)>,
    body: RawBody,
) -> Result<Response, ApiError> {
    caller.require("data-import.upload.file.post")?;
    let id = super::authn::parse_uuid(&id)?;
    let file_id = super::authn::parse_uuid(&file_id)?;
    let tenant = caller.tenant.clone();
    let definition = {
        let tenant = tenant.clone();
        blocking(move || Ok(tenant.read(|r| import::get_upload(r, id))?)).await?
    };
    if !definition.file_definitions.iter().any(|f| f.id == file_id) {
        return Err(import::Error::FileNotFound { definition: id, file: file_id }.into());
    }
    let path = runtime::import_dir(&tenant).join(import::file_path(id, file_id));
    let partial = path.with_extension("part");
    let mut file = {
        let partial = partial.clone();
        blocking(move || {
            if let Some(dir) = partial.parent() {
                std::fs::create_dir_all(dir).map_err(ApiError::internal)?;
            }
            std::fs::File::create(&partial).map_err(ApiError::internal)
        })
        .await?
    };
    let mut size = 0u64;
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk =
            chunk.map_err(|e| ApiError::bad_request(format!("Cannot read the file: {e}")))?;
        size += chunk.len() as u64;
        file = blocking(move || {
            use std::io::Write;
            file.write_all(&chunk).map_err(ApiError::internal)?;
            Ok(file)
        })
        .await?;
    }
    let definition = blocking(move || {
        file.sync_all().map_err(ApiError::internal)?;
        std::fs::rename(&partial, &path).map_err(ApiError::internal)?;
        // On PostgreSQL every node must find the file: whichever runs the job.
        tenant.share_file(&import::file_path(id, file_id), &path)?;
        Ok(tenant.write(|w| import::file_uploaded(w, id, file_id, size))?)
    })
    .await?;
    Ok(super::json::value(StatusCode::OK, &definition))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProcessFiles {
    #[allow(dead_code, reason = "FOLIO sends the definition back; the stored one is used")]
    upload_definition: serde_json::Value,
    job_profile_info: import::ProfileInfo,
}

/// Starts the definition's jobs with the profile; answers 204 at once, as FOLIO does.
async fn process_files(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("data-import.uploaddefinitions.processfiles.post")?;
    let id = super::authn::parse_uuid(&id)?;
    let request: ProcessFiles = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    let jobs = blocking(move || {
        Ok(tenant.write(|w| import::process_files(w, id, request.job_profile_info))?)
    })
    .await?;
    for job in jobs {
        state.runtime.run_import(caller.tenant.name(), job);
    }
    Ok(super::no_content())
}

/// `DELETE /change-manager/jobExecutions` `{"ids": [...]}`: the web client's "Delete
/// selected logs". Ended jobs go with their logs; a running one stays (`isDeleted` false).
async fn delete_jobs(caller: Caller, Body(body): Body) -> Result<Response, ApiError> {
    caller.require("change-manager.jobexecutions.delete")?;
    #[derive(Deserialize)]
    struct Ids {
        ids: Vec<Uuid>,
    }
    let Ids { ids } = folio::decode(&body)?;
    let tenant = caller.tenant.clone();
    let deleted = blocking(move || Ok(tenant.write(|w| import::delete_jobs(w, &ids))?)).await?;
    let details: Vec<_> = deleted
        .into_iter()
        .map(|(id, done)| json!({"jobExecutionId": id, "isDeleted": done}))
        .collect();
    Ok(super::json::value(StatusCode::OK, &json!({"jobExecutionDetails": details})))
}

/// A job's children: Quire makes one job per file, so a job has none.
async fn children(caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    caller.require("change-manager.jobexecutions.item.get")?;
    let id = super::authn::parse_uuid(&id)?;
    let tenant = caller.tenant.clone();
    blocking(move || Ok(tenant.read(|r| import::get_job(r, id))?)).await?;
    Ok(super::json::value(StatusCode::OK, &json!({"jobExecutions": [], "totalRecords": 0})))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatusDto {
    status: String,
    #[serde(default)]
    error_status: Option<String>,
}

async fn set_status(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Body(body): Body,
) -> Result<Response, ApiError> {
    caller.require("change-manager.jobexecutions.item.put")?;
    let id = super::authn::parse_uuid(&id)?;
    let dto: StatusDto = folio::decode(&body)?;
    let status = import::Status::parse(&dto.status).ok_or_else(|| {
        ApiError::validation("status", Some(&dto.status), format!("Unknown status {}", dto.status))
    })?;
    let tenant = caller.tenant.clone();
    let job =
        blocking(
            move || Ok(tenant.write(|w| import::set_status(w, id, status, dto.error_status))?),
        )
        .await?;
    state.runtime.run_import(caller.tenant.name(), id);
    Ok(super::json::value(StatusCode::OK, &job))
}

/// mod-data-import's cancel of a split job; Quire splits no file, so it cancels the job.
async fn cancel_split(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    caller.require("data-import.jobexecution.cancel")?;
    cancel_job(&state, &caller, &id).await?;
    Ok(super::json::value(StatusCode::OK, &json!({"ok": true})))
}

/// Whether big files are split into parts: Quire streams a file of any size as one job.
async fn split_status(caller: Caller) -> Result<Response, ApiError> {
    caller.require("data-import.splitconfig.get")?;
    Ok(super::json::value(StatusCode::OK, &json!({"splitStatus": false})))
}

async fn data_types(caller: Caller) -> Result<Response, ApiError> {
    caller.require("data-import.datatypes.get")?;
    let body = json!({"dataTypes": import::DATA_TYPES, "totalRecords": import::DATA_TYPES.len()});
    Ok(super::json::value(StatusCode::OK, &body))
}

async fn restore_extensions(caller: Caller) -> Result<Response, ApiError> {
    caller.require("data-import.fileExtensions.default.post")?;
    let tenant = caller.tenant.clone();
    let page = store::Page { offset: 0, limit: 1000 };
    let (bodies, total) = blocking(move || {
        Ok(tenant.write(|w| {
            import::restore_file_extensions(w)?;
            folio::record::list_json::<import::FileExtension>(w, None, page)
                .map_err(|e| import::Error::Invalid(e.to_string()))
        })?)
    })
    .await?;
    let extensions: Vec<serde_json::Value> =
        bodies.iter().filter_map(|b| serde_json::from_str(b).ok()).collect();
    let body = json!({"fileExtensions": extensions, "totalRecords": total});
    Ok(super::json::value(StatusCode::OK, &body))
}

impl Ruled for import::FileExtension {
    fn check(&self) -> Result<(), ApiError> {
        import::check_file_extension(self)
            .map_err(|(field, message)| ApiError::validation(field, None, message))
    }
}
