//! The web client's way in (FOLIO's mod-data-import): an upload definition names the
//! files to come, each with the job that will import it; each file is uploaded (the
//! server streams it to the tenant's import directory); `processFiles` starts the jobs
//! with a profile.

use serde::{Deserialize, Serialize};
use store::{ColumnValue, Page, Reader, Writer};
use uuid::Uuid;

use crate::job::{self, Cursor, RunBy, Source, Status, decode, encode};
use crate::storage::UPLOADS;
use crate::{Error, ProfileInfo, Result};

/// `uploadDefinition`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UploadDefinition {
    pub id: Uuid,
    pub meta_job_execution_id: Uuid,
    /// `NEW`, `LOADED` when every file is uploaded, `COMPLETED` once processed.
    pub status: String,
    pub create_date: String,
    pub file_definitions: Vec<FileDefinition>,
}

/// `fileDefinition`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileDefinition {
    pub id: Uuid,
    pub name: String,
    /// Read-only: where the file is, relative to the tenant's import directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_path: Option<String>,
    /// `NEW`, `UPLOADED`.
    pub status: String,
    pub job_execution_id: Uuid,
    pub upload_definition_id: Uuid,
    pub create_date: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uploaded_date: Option<String>,
    /// Kilobytes, as FOLIO counts them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui_key: Option<String>,
}

/// The request to make one: the files' names.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewUpload {
    pub file_definitions: Vec<NewFile>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewFile {
    pub name: String,
    #[serde(default)]
    pub ui_key: Option<String>,
}

/// Makes a definition and, for each file, the job that will import it.
pub fn create_upload(
    w: &mut Writer<'_>,
    new: NewUpload,
    user_id: Uuid,
    run_by: RunBy,
) -> Result<UploadDefinition> {
    if new.file_definitions.is_empty() {
        return Err(Error::Invalid("fileDefinitions must not be empty".into()));
    }
    let id = store::new_record_id();
    let now = folio::Timestamp::now().to_string();
    let mut files = Vec::new();
    for file in new.file_definitions {
        if file.name.trim().is_empty() {
            return Err(Error::Invalid("fileDefinitions.name must not be empty".into()));
        }
        let job = crate::new_job(w, user_id, run_by.clone(), Some(file.name.clone()), None)?;
        files.push(FileDefinition {
            id: store::new_record_id(),
            name: file.name,
            source_path: None,
            status: "NEW".into(),
            job_execution_id: job.id,
            upload_definition_id: id,
            create_date: now.clone(),
            uploaded_date: None,
            size: None,
            ui_key: file.ui_key,
        });
    }
    let definition = UploadDefinition {
        id,
        meta_job_execution_id: files[0].job_execution_id,
        status: "NEW".into(),
        create_date: now,
        file_definitions: files,
    };
    save(w, &definition, true)?;
    Ok(definition)
}

pub fn get_upload(r: &Reader<'_>, id: Uuid) -> Result<UploadDefinition> {
    let row = r.get(&UPLOADS, &id.to_string())?.ok_or(Error::UploadNotFound(id))?;
    decode(&row.body)
}

pub fn list_uploads(r: &Reader<'_>, page: Page) -> Result<(Vec<UploadDefinition>, u64)> {
    let fields = &[store::QueryField { index: "id", column: "id", kind: store::FieldKind::Text }];
    let (rows, total) = r.list(&UPLOADS, fields, Some("cql.allRecords=1 sortBy id"), page)?;
    let definitions = rows.iter().map(|row| decode(&row.body)).collect::<Result<_>>()?;
    Ok((definitions, total))
}

/// Where a file of a definition goes, relative to the tenant's import directory.
pub fn file_path(definition: Uuid, file: Uuid) -> String {
    format!("{definition}/{file}")
}

/// Records that a file has been uploaded (`size` bytes at [`file_path`]).
pub fn file_uploaded(
    w: &mut Writer<'_>,
    id: Uuid,
    file_id: Uuid,
    size: u64,
) -> Result<UploadDefinition> {
    let mut definition = get_upload(w, id)?;
    let file = definition
        .file_definitions
        .iter_mut()
        .find(|f| f.id == file_id)
        .ok_or(Error::FileNotFound { definition: id, file: file_id })?;
    file.status = "UPLOADED".into();
    file.source_path = Some(file_path(id, file_id));
    file.uploaded_date = Some(folio::Timestamp::now().to_string());
    file.size = Some(size.div_ceil(1024));
    if definition.file_definitions.iter().all(|f| f.status == "UPLOADED") {
        definition.status = "LOADED".into();
    }
    save(w, &definition, false)?;
    Ok(definition)
}

/// Starts each uploaded file's job with `profile`; answers the jobs to run.
pub fn process_files(w: &mut Writer<'_>, id: Uuid, profile: ProfileInfo) -> Result<Vec<Uuid>> {
    let mut definition = get_upload(w, id)?;
    if let Some(file) = definition.file_definitions.iter().find(|f| f.status != "UPLOADED") {
        return Err(Error::Invalid(format!("File '{}' has not been uploaded", file.name)));
    }
    let mut jobs = Vec::new();
    for file in &definition.file_definitions {
        let mut job = job::get_job(w, file.job_execution_id)?;
        if job.status != Status::New {
            return Err(Error::Finished { id: job.id, status: job.status.as_str() });
        }
        let path = file.source_path.clone().unwrap_or_else(|| file_path(id, file.id));
        job.job_profile_info = Some(profile.clone());
        job.source_path = Some(path.clone());
        job.set_status(Status::FileUploaded);
        job::save_job(w, &job)?;
        job::save_cursor(w, job.id, &Cursor::new(Source::File { path }))?;
        jobs.push(job.id);
    }
    definition.status = "COMPLETED".into();
    save(w, &definition, false)?;
    Ok(jobs)
}

/// Deletes a definition; its jobs that never started are discarded. Its files are
/// the caller's to remove.
pub fn delete_upload(w: &mut Writer<'_>, id: Uuid) -> Result<UploadDefinition> {
    let definition = get_upload(w, id)?;
    for file in &definition.file_definitions {
        let mut job = job::get_job(w, file.job_execution_id)?;
        if job.status == Status::New {
            job.set_status(Status::Discarded);
            job.completed_date = Some(folio::Timestamp::now().to_string());
            job::save_job(w, &job)?;
        }
    }
    w.delete(&UPLOADS, &id.to_string())?;
    Ok(definition)
}

fn save(w: &mut Writer<'_>, definition: &UploadDefinition, new: bool) -> Result<()> {
    let id = definition.id.to_string();
    let body = encode(definition)?;
    let columns = [ColumnValue::Text(definition.status.clone())];
    if new {
        w.insert(&UPLOADS, &id, 1, &body, &columns)?;
    } else {
        let version = w.get(&UPLOADS, &id)?.map_or(1, |r| r.version + 1);
        w.update(&UPLOADS, &id, version, &body, &columns)?;
    }
    Ok(())
}
