//! Snapshots: the import jobs record generations come from (`jobExecutionId`).

use store::{ColumnValue, Page, Reader, Writer};
use uuid::Uuid;

use crate::model::{Snapshot, SnapshotStatus};
use crate::records::now;
use crate::storage::{Error, RECORDS, Result, SNAPSHOTS};

/// The snapshot that generated data (`quire generate`) belongs to.
pub const GENERATED_SNAPSHOT: Uuid = Uuid::from_u128(0x00000000_0000_4000_8000_00000000c0de);

/// Parses a snapshot body (400 for malformed JSON, 422 otherwise).
pub fn decode_snapshot(body: &[u8]) -> Result<Snapshot> {
    crate::records::decode_json(body)
}

/// `POST /source-storage/snapshots`.
pub fn create_snapshot(w: &mut Writer<'_>, mut snapshot: Snapshot) -> Result<Snapshot> {
    let id = snapshot.job_execution_id.to_string();
    stamp(&mut snapshot, None);
    let body = serde_json::to_string(&snapshot).map_err(|e| Error::Corrupt(e.to_string()))?;
    w.insert(&SNAPSHOTS, &id, 1, &body, &[status(&snapshot)]).map_err(|e| match e {
        store::Error::DuplicateId { id, .. } => {
            Error::invalid("jobExecutionId", &id, format!("Snapshot with id '{id}' already exists"))
        }
        other => other.into(),
    })?;
    Ok(snapshot)
}

/// `PUT /source-storage/snapshots/{jobExecutionId}`.
pub fn replace_snapshot(w: &mut Writer<'_>, id: Uuid, mut snapshot: Snapshot) -> Result<Snapshot> {
    let previous = get_snapshot(w, id)?;
    snapshot.job_execution_id = id;
    stamp(&mut snapshot, Some(&previous));
    let body = serde_json::to_string(&snapshot).map_err(|e| Error::Corrupt(e.to_string()))?;
    let version = w.get(&SNAPSHOTS, &id.to_string())?.map_or(1, |r| r.version + 1);
    w.update(&SNAPSHOTS, &id.to_string(), version, &body, &[status(&snapshot)])?;
    Ok(snapshot)
}

/// `DELETE /source-storage/snapshots/{jobExecutionId}`: the snapshot and, as in FOLIO,
/// every record of it.
pub fn delete_snapshot(w: &mut Writer<'_>, id: Uuid) -> Result<()> {
    let key = id.to_string();
    if !w.delete(&SNAPSHOTS, &key)? {
        return Err(not_found(id));
    }
    for row in w.find_by(&RECORDS, "snapshot_id", &key)? {
        w.delete(&RECORDS, &row.id)?;
    }
    Ok(())
}

/// `GET /source-storage/snapshots/{jobExecutionId}`.
pub fn get_snapshot(r: &Reader<'_>, id: Uuid) -> Result<Snapshot> {
    let row = r.get(&SNAPSHOTS, &id.to_string())?.ok_or_else(|| not_found(id))?;
    serde_json::from_str(&row.body).map_err(|e| Error::Corrupt(e.to_string()))
}

/// `GET /source-storage/snapshots`: one page, stored JSON, and the total.
pub fn list_snapshots(
    r: &Reader<'_>,
    status: Option<SnapshotStatus>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    const FIELDS: &[store::QueryField] =
        &[store::QueryField { index: "status", column: "status", kind: store::FieldKind::Exact }];
    let cql = status.map(|s| format!("status==\"{}\"", status_name(s)));
    let (rows, total) = r.list(&SNAPSHOTS, FIELDS, cql.as_deref(), page)?;
    Ok((rows.into_iter().map(|r| r.body).collect(), total))
}

/// Creates the snapshot of generated data if it is missing.
pub fn ensure_generated_snapshot(w: &mut Writer<'_>) -> Result<Uuid> {
    if !w.exists(&SNAPSHOTS, &GENERATED_SNAPSHOT.to_string())? {
        create_snapshot(
            w,
            Snapshot {
                job_execution_id: GENERATED_SNAPSHOT,
                status: SnapshotStatus::Committed,
                processing_started_date: Some(now()),
                metadata: None,
            },
        )?;
    }
    Ok(GENERATED_SNAPSHOT)
}

fn stamp(snapshot: &mut Snapshot, previous: Option<&Snapshot>) {
    let previous = previous.and_then(|p| p.metadata.as_ref());
    snapshot.metadata = Some(folio::stamp(previous, folio::Actor::default()));
    // FOLIO sets the start of processing when parsing starts.
    if snapshot.status == SnapshotStatus::ParsingInProgress
        && snapshot.processing_started_date.is_none()
    {
        snapshot.processing_started_date = Some(now());
    }
}

fn status(snapshot: &Snapshot) -> ColumnValue {
    ColumnValue::Text(status_name(snapshot.status).to_string())
}

/// The wire name of a status.
pub fn status_name(status: SnapshotStatus) -> &'static str {
    match status {
        SnapshotStatus::New => "NEW",
        SnapshotStatus::Draft => "DRAFT",
        SnapshotStatus::ImportInProgress => "IMPORT_IN_PROGRESS",
        SnapshotStatus::ImportFinished => "IMPORT_FINISHED",
        SnapshotStatus::ParsingInProgress => "PARSING_IN_PROGRESS",
        SnapshotStatus::ParsingFinished => "PARSING_FINISHED",
        SnapshotStatus::ProcessingInProgress => "PROCESSING_IN_PROGRESS",
        SnapshotStatus::ProcessingFinished => "PROCESSING_FINISHED",
        SnapshotStatus::CommitInProgress => "COMMIT_IN_PROGRESS",
        SnapshotStatus::Committed => "COMMITTED",
        SnapshotStatus::Error => "ERROR",
    }
}

fn not_found(id: Uuid) -> Error {
    Error::NotFound { what: "Snapshot", id: id.to_string() }
}
