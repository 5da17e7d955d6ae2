//! MARC data import: FOLIO's job executions, their records into SRS and inventory.
//!
//! What it owns: jobs (`jobExecution`, with FOLIO's statuses and progress) and what a
//! runner needs to go on after a restart (their cursors), the chunks a scripted client
//! posts, the job log (one entry per record), reading records from files and chunks,
//! and each record's import ([`process`]). What it does not own: HTTP, the thread that
//! runs jobs (the runtime's), profiles (the `profiles` crate: it walks their trees,
//! [`profile`]), and the mapping rules (the `mapping` crate).
//!
//! Invariants:
//! - A chunk's records, their journal entries and the job's cursor commit together: a
//!   job that stops, however it stops, goes on from a chunk boundary with no record done
//!   twice.
//! - One record's failure writes nothing but its journal entry (a savepoint per record).
//! - A job always ends (`COMMITTED`, `ERROR` or `CANCELLED`) once its source is read.

mod extensions;
mod fill;
mod job;
mod journal;
pub mod process;
mod profile;
mod run;
pub mod source;
mod storage;
mod upload;

use serde_json::Value;
use store::Writer;
use uuid::Uuid;

pub use crate::extensions::{
    DATA_TYPES, FileExtension, check as check_file_extension, restore as restore_file_extensions,
    seed,
};
pub use crate::job::{
    Cursor, JobExecution, JobFilter, ProfileInfo, Progress, RunBy, Source, Status, get_cursor,
    get_job, list_jobs, next_job_hrid, sort_index, source_file, unfinished_jobs,
};
pub use crate::journal::{
    Action, Counts, Entry, Related, RelatedRecord, SortBy, Summary, entries, entry, summary,
};
pub use crate::process::{Candidates, Setup};
pub use crate::profile::Tree;
pub use crate::run::{
    CHUNK, DEFAULT_CREATE_AUTHORITY, DEFAULT_CREATE_HOLDINGS, DEFAULT_CREATE_INSTANCE, Step,
    finish, open, plan, run_to_end, setup, start, step,
};
pub use crate::source::{Format, RawRecord, RawRecords, RecordsMetadata};
pub use crate::storage::MIGRATIONS;
pub use crate::upload::{
    FileDefinition, NewFile, NewUpload, UploadDefinition, create_upload, delete_upload, file_path,
    file_uploaded, get_upload, list_uploads, process_files,
};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("JobExecution with id '{0}' was not found")]
    JobNotFound(Uuid),
    #[error("UploadDefinition with id '{0}' was not found")]
    UploadNotFound(Uuid),
    #[error("File with id '{file}' was not found in upload definition '{definition}'")]
    FileNotFound { definition: Uuid, file: Uuid },
    /// A change to a job that has ended.
    #[error("JobExecution with id '{id}' is {status} and cannot be changed")]
    Finished { id: Uuid, status: &'static str },
    #[error("Job profile '{id}' cannot run in Quire's import: {reason}")]
    UnsupportedProfile { id: Uuid, reason: String },
    #[error("JobExecution with id '{0}' has no job profile")]
    NoProfile(Uuid),
    /// A request that breaks FOLIO's rules for it.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error(transparent)]
    Inventory(#[from] inventory::Error),
    #[error(transparent)]
    Srs(#[from] srs::Error),
    #[error(transparent)]
    Mapping(#[from] mapping::Error),
    #[error(transparent)]
    Profiles(#[from] profiles::Error),
    #[error("corrupt import data: {0}")]
    Corrupt(String),
    /// The indexes a profile's matches read could not be brought up to date.
    #[error("the indexes for matching cannot catch up: {0}")]
    Indexes(String),
    /// A chunk must be written again, each record in a savepoint (internal to `step`).
    #[error("the chunk is to be written again")]
    Redo,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Starts a job over a file already in the tenant's import directory (`path`, relative
/// to it): the web client's `processFiles` and the command line's import. The runner
/// takes it from here.
pub fn new_file_job(
    w: &mut Writer<'_>,
    user_id: Uuid,
    run_by: RunBy,
    file_name: &str,
    path: &str,
    profile: ProfileInfo,
) -> Result<JobExecution> {
    let hr_id = next_job_hrid(w)?;
    let mut job = JobExecution::new(hr_id, user_id, run_by, Some(file_name.to_string()));
    job.source_path = Some(path.to_string());
    job.job_profile_info = Some(profile);
    job.set_status(Status::FileUploaded);
    let cursor = Cursor::new(Source::File { path: path.to_string() });
    job::create_job(w, &job, &cursor)?;
    Ok(job)
}

/// A job waiting for its profile and records (`POST /change-manager/jobExecutions`).
pub fn new_job(
    w: &mut Writer<'_>,
    user_id: Uuid,
    run_by: RunBy,
    file_name: Option<String>,
    profile: Option<ProfileInfo>,
) -> Result<JobExecution> {
    let hr_id = next_job_hrid(w)?;
    let mut job = JobExecution::new(hr_id, user_id, run_by, file_name);
    job.job_profile_info = profile;
    job::create_job(w, &job, &Cursor::new(Source::None))?;
    Ok(job)
}

/// Names a job's profile (`PUT /change-manager/jobExecutions/{id}/jobProfile`).
pub fn set_job_profile(w: &mut Writer<'_>, id: Uuid, profile: ProfileInfo) -> Result<JobExecution> {
    let mut job = job::get_job(w, id)?;
    if job.status.is_final() {
        return Err(Error::Finished { id, status: job.status.as_str() });
    }
    job.job_profile_info = Some(profile);
    job::save_job(w, &job)?;
    Ok(job)
}

/// Takes a chunk of records a client posted (`POST .../records`): stored with the job,
/// processed by the runner in the order posted. The first chunk starts the job; the one
/// marked `last` ends what it will receive.
pub fn post_chunk(w: &mut Writer<'_>, id: Uuid, chunk: &RawRecords) -> Result<JobExecution> {
    let mut job = job::get_job(w, id)?;
    if job.status.is_final() {
        return Err(Error::Finished { id, status: job.status.as_str() });
    }
    if job.job_profile_info.is_none() {
        return Err(Error::NoProfile(id));
    }
    let mut cursor = job::get_cursor(w, id)?;
    if cursor.last_chunk_received {
        return Err(Error::Invalid(format!(
            "JobExecution with id '{id}' has received its last chunk already"
        )));
    }
    if matches!(cursor.source, Source::File { .. }) {
        return Err(Error::Invalid(format!("JobExecution with id '{id}' imports a file")));
    }
    cursor.source = Source::Chunks;
    let key = run::chunk_key(id, cursor.chunks_received);
    let body = job::encode(chunk)?;
    w.insert(
        &storage::CHUNKS,
        &key,
        1,
        &body,
        &[
            store::ColumnValue::Text(id.to_string()),
            store::ColumnValue::Int(cursor.chunks_received as i64),
        ],
    )?;
    cursor.chunks_received += 1;
    cursor.last_chunk_received = chunk.records_metadata.last;
    job::save_cursor(w, id, &cursor)?;
    if job.status == Status::New || job.status == Status::FileUploaded {
        job.set_status(Status::ParsingInProgress);
        job.started_date = Some(folio::Timestamp::now().to_string());
    }
    if let Some(total) = chunk.records_metadata.total {
        job.progress.total = total;
        job.total_records_in_file = Some(total);
    }
    job::save_job(w, &job)?;
    Ok(job)
}

/// Asks a job to stop (`DELETE .../records`): the runner stops it at the next chunk
/// boundary; a job that has not started stops at once. A job that has ended is refused.
pub fn cancel(w: &mut Writer<'_>, id: Uuid) -> Result<()> {
    let mut job = job::get_job(w, id)?;
    if job.status.is_final() {
        return Err(Error::Finished { id, status: job.status.as_str() });
    }
    let mut cursor = job::get_cursor(w, id)?;
    cursor.cancel_requested = true;
    job::save_cursor(w, id, &cursor)?;
    if matches!(job.status, Status::New) {
        job.set_status(Status::Cancelled);
        job.completed_date = Some(folio::Timestamp::now().to_string());
        job.progress.total = 0;
        job::save_job(w, &job)?;
    }
    Ok(())
}

/// `DELETE /change-manager/jobExecutions`: removes ended jobs and their logs (the
/// records they made stay); for each id, whether it was removed. A job still running,
/// or unknown, is not.
pub fn delete_jobs(w: &mut Writer<'_>, ids: &[Uuid]) -> Result<Vec<(Uuid, bool)>> {
    let mut out = Vec::with_capacity(ids.len());
    for &id in ids {
        let ended = match job::get_job(w, id) {
            Ok(job) => job.status.is_final(),
            Err(Error::JobNotFound(_)) => false,
            Err(e) => return Err(e),
        };
        if ended {
            let key = id.to_string();
            for table in [&storage::JOURNAL, &storage::CHUNKS] {
                for row in w.find_by(table, "job_id", &key)? {
                    w.delete(table, &row.id)?;
                }
            }
            w.delete(&storage::CURSORS, &key)?;
            w.delete(&storage::JOBS, &key)?;
        }
        out.push((id, ended));
    }
    Ok(out)
}

/// `PUT /change-manager/jobExecutions/{id}/status`: a client's word on a job. A final
/// status ends it at once (the runner stops at its next chunk), as a cancel would; any
/// other is recorded as sent.
pub fn set_status(
    w: &mut Writer<'_>,
    id: Uuid,
    status: Status,
    error_status: Option<String>,
) -> Result<JobExecution> {
    let mut job = job::get_job(w, id)?;
    if job.status.is_final() {
        return Err(Error::Finished { id, status: job.status.as_str() });
    }
    if status.is_final() {
        let mut cursor = job::get_cursor(w, id)?;
        cursor.cancel_requested = true;
        job::save_cursor(w, id, &cursor)?;
        job.completed_date = Some(folio::Timestamp::now().to_string());
    }
    job.set_status(status);
    if error_status.is_some() {
        job.error_status = error_status;
    }
    job::save_job(w, &job)?;
    Ok(job)
}

/// A job as FOLIO answers it, as JSON.
pub fn job_json(job: &JobExecution) -> Value {
    serde_json::to_value(job).unwrap_or(Value::Null)
}
