//! Snapshots: the import jobs record generations come from (`jobExecutionId`).

use folio::Actor;
use folio::record::Mode;
use store::{ColumnValue, Page, QueryField, Reader, RecordTable, Writer};
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

/// A snapshot is a FOLIO record keyed by its `jobExecutionId`.
impl folio::Record for Snapshot {
    const TABLE: RecordTable = SNAPSHOTS;
    const NAME: &'static str = "Snapshot";
    const QUERY: &'static [QueryField] =
        &[QueryField { index: "status", column: "status", kind: store::FieldKind::Exact }];

    fn id(&self) -> Option<Uuid> {
        Some(self.job_execution_id)
    }
    fn set_id(&mut self, id: Uuid) {
        self.job_execution_id = id;
    }
    fn metadata(&self) -> Option<&folio::Metadata> {
        self.metadata.as_ref()
    }
    fn set_metadata(&mut self, metadata: folio::Metadata) {
        self.metadata = Some(metadata);
    }
    fn columns(&self) -> Vec<ColumnValue> {
        vec![ColumnValue::Text(status_name(self.status).to_string())]
    }
}

/// `POST /source-storage/snapshots`.
pub fn create_snapshot(w: &mut Writer<'_>, mut snapshot: Snapshot) -> Result<Snapshot> {
    folio::record::write(w, &mut snapshot, Mode::Create, Actor::default(), start_processing)
        .map_err(|e| match e {
            Error::Store(store::Error::DuplicateId { id, .. }) => Error::invalid(
                "jobExecutionId",
                &id,
                format!("Snapshot with id '{id}' already exists"),
            ),
            other => other,
        })?;
    Ok(snapshot)
}

/// `PUT /source-storage/snapshots/{jobExecutionId}`: the path names the snapshot.
pub fn replace_snapshot(w: &mut Writer<'_>, id: Uuid, mut snapshot: Snapshot) -> Result<Snapshot> {
    snapshot.job_execution_id = id;
    folio::record::write(w, &mut snapshot, Mode::Replace, Actor::default(), start_processing)?;
    Ok(snapshot)
}

/// FOLIO sets the start of processing when parsing starts.
fn start_processing(
    _: &mut Writer<'_>,
    snapshot: &mut Snapshot,
    _: Option<&Snapshot>,
) -> Result<()> {
    if snapshot.status == SnapshotStatus::ParsingInProgress
        && snapshot.processing_started_date.is_none()
    {
        snapshot.processing_started_date = Some(now());
    }
    Ok(())
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
    Ok(folio::record::get::<Snapshot>(r, id)?.ok_or_else(|| not_found(id))?.record)
}

/// `GET /source-storage/snapshots`: one page, stored JSON, and the total.
pub fn list_snapshots(
    r: &Reader<'_>,
    status: Option<SnapshotStatus>,
    page: Page,
) -> Result<(Vec<String>, u64)> {
    let cql = status.map(|s| format!("status==\"{}\"", status_name(s)));
    Ok(folio::record::list_json::<Snapshot>(r, cql.as_deref(), page)?)
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
