//! A job execution, FOLIO's `jobExecution`: one import of one file or one stream of
//! posted chunks, with its status, progress and who ran it; and its cursor, what the
//! runner needs to go on after a restart (where in the source the next record is, the
//! counts so far).

use serde::{Deserialize, Serialize};
use store::{ColumnValue, Reader, Writer};
use uuid::Uuid;

use crate::storage::{CURSORS, JOBS};
use crate::{Error, Result};

/// The job's profile, as a job names it (`profileInfo`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileInfo {
    pub id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunBy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_name: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    pub job_execution_id: Uuid,
    pub current: u64,
    pub total: u64,
}

/// FOLIO's job statuses (`status.json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    Parent,
    New,
    FileUploaded,
    ParsingInProgress,
    ParsingFinished,
    ProcessingInProgress,
    ProcessingFinished,
    CommitInProgress,
    Committed,
    Error,
    Discarded,
    Cancelled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Parent => "PARENT",
            Status::New => "NEW",
            Status::FileUploaded => "FILE_UPLOADED",
            Status::ParsingInProgress => "PARSING_IN_PROGRESS",
            Status::ParsingFinished => "PARSING_FINISHED",
            Status::ProcessingInProgress => "PROCESSING_IN_PROGRESS",
            Status::ProcessingFinished => "PROCESSING_FINISHED",
            Status::CommitInProgress => "COMMIT_IN_PROGRESS",
            Status::Committed => "COMMITTED",
            Status::Error => "ERROR",
            Status::Discarded => "DISCARDED",
            Status::Cancelled => "CANCELLED",
        }
    }

    pub fn parse(text: &str) -> Option<Status> {
        serde_json::from_value(serde_json::Value::String(text.to_string())).ok()
    }

    /// The status the web client shows for this one (FOLIO's mapping).
    pub fn ui_status(self) -> &'static str {
        match self {
            Status::Parent => "PARENT",
            Status::New | Status::FileUploaded => "INITIALIZATION",
            Status::ParsingInProgress | Status::CommitInProgress => "RUNNING",
            Status::ParsingFinished | Status::Committed => "RUNNING_COMPLETE",
            Status::ProcessingInProgress => "PREPARING_FOR_PREVIEW",
            Status::ProcessingFinished => "READY_FOR_PREVIEW",
            Status::Error => "ERROR",
            Status::Discarded => "DISCARDED",
            Status::Cancelled => "CANCELLED",
        }
    }

    /// Whether the job has ended: nothing will change it again.
    pub fn is_final(self) -> bool {
        matches!(self, Status::Committed | Status::Error | Status::Cancelled | Status::Discarded)
    }
}

/// A job execution as FOLIO answers it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobExecution {
    pub id: Uuid,
    pub hr_id: i64,
    pub parent_job_id: Uuid,
    pub subordination_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_profile_info: Option<ProfileInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
    pub run_by: RunBy,
    pub progress: Progress,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_date: Option<String>,
    pub status: Status,
    pub ui_status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_status: Option<String>,
    pub user_id: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_records_in_file: Option<u64>,
}

impl JobExecution {
    /// A new job: `NEW`, progress 0 of 100 until the total is known, as FOLIO starts.
    pub fn new(
        hr_id: i64,
        user_id: Uuid,
        run_by: RunBy,
        file_name: Option<String>,
    ) -> JobExecution {
        let id = store::new_record_id();
        JobExecution {
            id,
            hr_id,
            parent_job_id: id,
            subordination_type: "PARENT_SINGLE".into(),
            job_profile_info: None,
            source_path: None,
            file_name,
            run_by,
            progress: Progress { job_execution_id: id, current: 0, total: 100 },
            started_date: None,
            completed_date: None,
            status: Status::New,
            ui_status: Status::New.ui_status().into(),
            error_status: None,
            user_id,
            total_records_in_file: None,
        }
    }

    pub fn set_status(&mut self, status: Status) {
        self.status = status;
        self.ui_status = status.ui_status().into();
    }

    fn columns(&self) -> Vec<ColumnValue> {
        let text = |s: Option<&str>| ColumnValue::from(s);
        let profile = self.job_profile_info.as_ref();
        vec![
            ColumnValue::Int(self.hr_id),
            ColumnValue::Text(self.status.as_str().into()),
            ColumnValue::Text(self.ui_status.clone()),
            // Never NULL, so that `not fileName==...` keeps jobs without one.
            ColumnValue::Text(self.file_name.clone().unwrap_or_default()),
            ColumnValue::Text(profile.map(|p| p.id.to_string()).unwrap_or_default()),
            ColumnValue::Text(profile.and_then(|p| p.name.clone()).unwrap_or_default()),
            ColumnValue::Text(self.user_id.to_string()),
            ColumnValue::Text(self.subordination_type.clone()),
            text(self.started_date.as_deref()),
            text(self.completed_date.as_deref()),
            ColumnValue::Int(self.progress.total as i64),
        ]
    }
}

/// Where a job's records come from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Source {
    /// Nothing yet: a job made before its file or first chunk.
    None,
    /// A file in the tenant's import directory.
    File { path: String },
    /// Chunks posted to `/change-manager/jobExecutions/{id}/records`, stored until
    /// processed.
    Chunks,
}

/// What the runner keeps of a job between chunks: committed with each chunk, so a
/// restart goes on from the last chunk that committed, never twice and never skipping.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cursor {
    pub source: Source,
    /// The order (0-based) of the next record to process.
    pub next_order: u64,
    /// For a binary MARC file: the byte offset of the next record.
    pub offset: u64,
    /// For posted chunks: the number of the next chunk to process, and of the next to
    /// receive; and whether the last one came.
    pub next_chunk: u64,
    pub chunks_received: u64,
    pub last_chunk_received: bool,
    /// For posted chunks: how many records of chunk `next_chunk` are done (a write
    /// ends early when a check-out waits for it), and the order of its first record.
    #[serde(default)]
    pub done_in_chunk: u64,
    #[serde(default)]
    pub chunk_first_order: u64,
    pub succeeded: u64,
    pub failed: u64,
    /// A cancel was asked for; the runner stops at the next chunk boundary.
    pub cancel_requested: bool,
    /// Why the job could not go on (the file cannot be read); the job ends in `ERROR`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// A library's own profile, frozen when the job started (FOLIO's job profile
    /// snapshot): a change to the profile while it runs, or before it resumes, does not
    /// change what it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_snapshot: Option<Uuid>,
}

impl Cursor {
    pub fn new(source: Source) -> Cursor {
        Cursor {
            source,
            next_order: 0,
            offset: 0,
            next_chunk: 0,
            chunks_received: 0,
            last_chunk_received: false,
            done_in_chunk: 0,
            chunk_first_order: 0,
            succeeded: 0,
            failed: 0,
            cancel_requested: false,
            failure: None,
            profile_snapshot: None,
        }
    }
}

/// Stores a new job and its cursor.
pub(crate) fn create_job(w: &mut Writer<'_>, job: &JobExecution, cursor: &Cursor) -> Result<()> {
    let id = job.id.to_string();
    w.insert(&JOBS, &id, 1, &encode(job)?, &job.columns())?;
    w.insert(&CURSORS, &id, 1, &encode(cursor)?, &[])?;
    Ok(())
}

/// The next job HRID (FOLIO's `hrId`, a tenant-wide sequence from 1).
pub fn next_job_hrid(w: &mut Writer<'_>) -> Result<i64> {
    Ok(w.next_sequence("import_job_hrid", 1)?)
}

pub fn get_job(r: &Reader<'_>, id: Uuid) -> Result<JobExecution> {
    let row = r.get(&JOBS, &id.to_string())?.ok_or(Error::JobNotFound(id))?;
    decode(&row.body)
}

pub fn get_cursor(r: &Reader<'_>, id: Uuid) -> Result<Cursor> {
    let row = r.get(&CURSORS, &id.to_string())?.ok_or(Error::JobNotFound(id))?;
    decode(&row.body)
}

/// The file a job imports, relative to the tenant's import directory, if it imports one.
pub fn source_file(r: &Reader<'_>, id: Uuid) -> Result<Option<String>> {
    Ok(match get_cursor(r, id)?.source {
        Source::File { path } => Some(path),
        Source::None | Source::Chunks => None,
    })
}

pub(crate) fn save_job(w: &mut Writer<'_>, job: &JobExecution) -> Result<()> {
    let id = job.id.to_string();
    let version = w.get(&JOBS, &id)?.map_or(1, |r| r.version + 1);
    if !w.update(&JOBS, &id, version, &encode(job)?, &job.columns())? {
        return Err(Error::JobNotFound(job.id));
    }
    Ok(())
}

pub(crate) fn save_cursor(w: &mut Writer<'_>, id: Uuid, cursor: &Cursor) -> Result<()> {
    let key = id.to_string();
    let version = w.get(&CURSORS, &key)?.map_or(1, |r| r.version + 1);
    w.put(&CURSORS, &key, version, &encode(cursor)?, &[])?;
    Ok(())
}

/// The jobs a runner must finish: started and not ended (after a restart, those that
/// were running).
pub fn unfinished_jobs(r: &Reader<'_>) -> Result<Vec<Uuid>> {
    let mut ids = Vec::new();
    for status in [Status::ParsingInProgress, Status::FileUploaded] {
        for row in r.find_by(&JOBS, "status", status.as_str())? {
            ids.push(Uuid::parse_str(&row.id).map_err(|e| Error::Corrupt(e.to_string()))?);
        }
    }
    Ok(ids)
}

pub(crate) fn encode<T: Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Corrupt(e.to_string()))
}

pub(crate) fn decode<T: serde::de::DeserializeOwned>(body: &str) -> Result<T> {
    serde_json::from_str(body).map_err(|e| Error::Corrupt(e.to_string()))
}

/// `GET /metadata-provider/jobExecutions`' filters; each list is any-of.
#[derive(Clone, Debug, Default)]
pub struct JobFilter {
    pub status_any: Vec<String>,
    pub status_not: Vec<String>,
    pub ui_status_any: Vec<String>,
    pub hr_id: Option<String>,
    pub file_name: Option<String>,
    pub file_name_not_any: Vec<String>,
    pub profile_id_any: Vec<String>,
    pub profile_id_not_any: Vec<String>,
    pub subordination_type_not_any: Vec<String>,
    pub user_id: Option<String>,
    /// A job profile name pattern to leave out (`*` a wildcard).
    pub exclude_job_profile_name: Vec<String>,
    pub completed_after: Option<String>,
    pub completed_before: Option<String>,
}

const JOB_QUERY: &[store::QueryField] = {
    use store::FieldKind::{Exact, Int, Text};
    &[
        store::QueryField { index: "id", column: "id", kind: Text },
        store::QueryField { index: "hrid", column: "hrid", kind: Int },
        store::QueryField { index: "status", column: "status", kind: Exact },
        store::QueryField { index: "uiStatus", column: "ui_status", kind: Exact },
        store::QueryField { index: "fileName", column: "file_name", kind: Text },
        store::QueryField { index: "profileId", column: "profile_id", kind: Text },
        store::QueryField { index: "profileName", column: "profile_name", kind: Text },
        store::QueryField { index: "userId", column: "user_id", kind: Text },
        store::QueryField { index: "subordinationType", column: "subordination_type", kind: Exact },
        store::QueryField { index: "startedDate", column: "started_date", kind: Text },
        store::QueryField { index: "completedDate", column: "completed_date", kind: Text },
        store::QueryField { index: "progressTotal", column: "progress_total", kind: Int },
    ]
};

/// FOLIO's `sortBy` fields for job lists, as CQL indexes.
pub fn sort_index(field: &str) -> Option<&'static str> {
    Some(match field {
        "completed_date" => "completedDate",
        "started_date" => "startedDate",
        "progress_total" => "progressTotal",
        "file_name" => "fileName",
        "status" => "status",
        "job_profile_name" => "profileName",
        "hrid" => "hrid",
        _ => return None,
    })
}

/// Jobs matching a filter, sorted (`index`, descending), one page and the total.
pub fn list_jobs(
    r: &Reader<'_>,
    filter: &JobFilter,
    sort: &[(&str, bool)],
    page: store::Page,
) -> Result<(Vec<JobExecution>, u64)> {
    let quote = |v: &str| format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""));
    let any = |index: &str, values: &[String]| -> Option<String> {
        (!values.is_empty()).then(|| {
            let terms: Vec<String> =
                values.iter().map(|v| format!("{index}=={}", quote(v))).collect();
            format!("({})", terms.join(" or "))
        })
    };
    let mut clauses: Vec<String> = Vec::new();
    clauses.extend(any("status", &filter.status_any));
    clauses.extend(any("uiStatus", &filter.ui_status_any));
    clauses.extend(any("profileId", &filter.profile_id_any));
    if let Some(hr_id) = &filter.hr_id {
        clauses.push(format!("hrid=={}", quote(hr_id)));
    }
    if let Some(name) = &filter.file_name {
        clauses.push(format!("fileName=={}", quote(name)));
    }
    if let Some(user) = &filter.user_id {
        clauses.push(format!("userId=={}", quote(user)));
    }
    if let Some(after) = &filter.completed_after {
        clauses.push(format!("completedDate>={}", quote(after)));
    }
    if let Some(before) = &filter.completed_before {
        clauses.push(format!("completedDate<={}", quote(before)));
    }
    let mut cql =
        if clauses.is_empty() { "cql.allRecords=1".to_string() } else { clauses.join(" and ") };
    for (index, values) in [
        ("status", &filter.status_not),
        ("fileName", &filter.file_name_not_any),
        ("profileId", &filter.profile_id_not_any),
        ("subordinationType", &filter.subordination_type_not_any),
        ("profileName", &filter.exclude_job_profile_name),
    ] {
        for value in values {
            // A job without the field is not excluded by a value it does not have.
            cql = format!("{cql} not {index}=={}", quote(value));
        }
    }
    let keys: Vec<String> =
        sort.iter()
            .map(|(index, descending)| {
                if *descending { format!("{index}/sort.descending") } else { (*index).to_string() }
            })
            .collect();
    if !keys.is_empty() {
        cql = format!("{cql} sortBy {}", keys.join(" "));
    }
    let (rows, total) = r.list(&JOBS, JOB_QUERY, Some(&cql), page)?;
    let jobs = rows.iter().map(|row| decode(&row.body)).collect::<Result<_>>()?;
    Ok((jobs, total))
}
