//! Running a job: a chunk at a time, the records written and the job's cursor and
//! progress in one transaction, so a job survives a crash or a restart: it goes on after
//! the last record that committed, and no record is imported twice or lost. A write
//! gives way to the desk after any record (`Tenant::write_background`); the rest of its
//! chunk goes first in the next. A job always ends: `COMMITTED` when every record went
//! in, `ERROR` with its counts when some did not, or when its source could not be read,
//! `CANCELLED` at the next write after a cancel.

use std::path::Path;
use std::sync::Arc;

use store::{Page, Tenant};
use uuid::Uuid;

use folio::Actor;
use mapping::{Lookup, ReferenceData};

use crate::job::{self, Cursor, JobExecution, Source, Status};
use crate::process::{self, Plan, Prepared, Setup};
use crate::profile::Tree;
use crate::source::{self, FileReader, RawRecords};
use crate::storage::CHUNKS;
use crate::{Error, Result};

/// FOLIO's "Default - Create instance and SRS MARC Bib" job profile.
pub const DEFAULT_CREATE_INSTANCE: Uuid = Uuid::from_u128(0xe34d7b92_9b83_11eb_a8b3_0242ac130003);

/// FOLIO's "Default - Create Holdings and SRS MARC Holdings" job profile.
pub const DEFAULT_CREATE_HOLDINGS: Uuid = Uuid::from_u128(0x80898dee_449f_44dd_9c8e_37d5eb469b1d);

/// FOLIO's "Default - Create SRS MARC Authority" job profile.
pub const DEFAULT_CREATE_AUTHORITY: Uuid = Uuid::from_u128(0x6eefa4c6_bbf7_4845_ad82_de7fc5abd0e3);

/// quickMARC's locked twins of the holdings and authority defaults, which make the same
/// records from a MARC holdings or authority record: "quickMARC - Create Holdings and
/// SRS MARC Holdings" and "quickMARC - Default Create authority". Their trees' mapping
/// profiles read MARC holdings and authority fields, which the profile engine (made for
/// bibliographic records) does not; the default plans do exactly what they say.
const QUICKMARC_CREATE_HOLDINGS: Uuid = Uuid::from_u128(0xfa0262c7_5816_48d0_b9b3_7b7a862a5bc7);
const QUICKMARC_CREATE_AUTHORITY: Uuid = Uuid::from_u128(0x6eefa4c6_bbf7_4845_ad82_de7fc4abd0e3);

/// Records read, mapped and written together at most: large enough that a write's
/// pages are shared by many records, and a write that lets a check-out go first ends
/// early anyway.
pub const CHUNK: usize = 100;

/// What the job does, from its profile: one of FOLIO's default create profiles, or a
/// library's own profile from the snapshot frozen when the job started.
pub fn plan(
    reader: &store::Reader<'_>,
    job: &JobExecution,
    snapshot: Option<Uuid>,
) -> Result<Plan> {
    let Some(info) = &job.job_profile_info else { return Err(Error::NoProfile(job.id)) };
    let tree = || -> Result<profiles::JobTree> {
        Ok(match snapshot {
            Some(id) => profiles::JobTree::from_snapshot(&profiles::job_snapshot(reader, id)?)?,
            None => profiles::job_tree(reader, info.id)?,
        })
    };
    if info.id == DEFAULT_CREATE_INSTANCE {
        // FOLIO's default create profile is the tenant's to edit: once it does more than
        // create the instance its MARC maps to, it runs as the tree it has become. A
        // tenant without it imports as the default does. (A failed statement ends a
        // PostgreSQL transaction, so "without it" must be a missing row, never a
        // missing table: every tenant has the profiles component.)
        return Ok(match tree() {
            Ok(tree) if !creates_mapped_instance_only(&tree) => {
                Plan::Profile(Arc::new(Tree::new(reader, tree)?))
            }
            _ => Plan::CreateInstance,
        });
    }
    if let Some(plan) = default_plan(info.id) {
        return Ok(plan);
    }
    Ok(Plan::Profile(Arc::new(Tree::new(reader, tree()?)?)))
}

/// Whether a tree only creates an instance, setting nothing beyond what the MARC
/// rules map: what [`Plan::CreateInstance`] does.
fn creates_mapped_instance_only(tree: &profiles::JobTree) -> bool {
    let [profiles::Step::Action(action)] = tree.steps.as_slice() else { return false };
    action.action == profiles::Action::Create
        && action.record == profiles::FolioRecord::Instance
        && action.then.is_empty()
        && action.mapping.as_ref().is_none_or(|m| {
            m.marc_details.is_empty()
                && m.rules.iter().all(|rule| rule.value == profiles::RuleValue::Empty)
        })
}

/// The plans Quire runs without reading a tree: FOLIO's default holdings and authority
/// create profiles. (The authority default may be edited in FOLIO, but its tree could
/// only say what the profile engine, made for bibliographic records, does not read.)
fn default_plan(profile: Uuid) -> Option<Plan> {
    match profile {
        DEFAULT_CREATE_AUTHORITY | QUICKMARC_CREATE_AUTHORITY => Some(Plan::CreateAuthority),
        DEFAULT_CREATE_HOLDINGS | QUICKMARC_CREATE_HOLDINGS => Some(Plan::CreateHoldings),
        _ => None,
    }
}

/// Freezes a library's own profile for the job, once: its snapshot's id.
fn freeze_profile(tenant: &Tenant, job: &JobExecution) -> Result<Option<Uuid>> {
    let Some(info) = &job.job_profile_info else { return Err(Error::NoProfile(job.id)) };
    if default_plan(info.id).is_some() {
        return Ok(None);
    }
    let frozen = tenant.write(|w| {
        let mut cursor = job::get_cursor(w, job.id)?;
        if let Some(id) = cursor.profile_snapshot {
            return Ok(Some(id));
        }
        let snapshot = profiles::create_job_snapshot(w, info.id)?;
        cursor.profile_snapshot = Some(snapshot.id);
        job::save_cursor(w, job.id, &cursor)?;
        Ok::<_, Error>(Some(snapshot.id))
    });
    match frozen {
        // A tenant without the default create profile (deleted, or a store without
        // profiles) imports as the default does ([`plan`]).
        Err(e) if info.id == DEFAULT_CREATE_INSTANCE => {
            tracing::debug!(job = %job.id, error = %e, "no default create profile to freeze");
            Ok(None)
        }
        frozen => frozen,
    }
}

/// Reads what the job's records are mapped with: the tenant's rules and the reference
/// records the rules look up.
pub fn setup(tenant: &Tenant, job: &JobExecution) -> Result<Setup> {
    let snapshot = freeze_profile(tenant, job)?;
    tenant.read(|r| {
        let plan = plan(r, job, snapshot)?;
        let rules = mapping::rules(r, plan.rules())?;
        let mut reference = ReferenceData::default();
        // Each list the rules may look up that the tenant keeps.
        for lookup in Lookup::ALL {
            let Some(kind) = inventory::RefKind::from_path(lookup.path()) else { continue };
            let (bodies, _) =
                inventory::list_reference_json(r, kind, None, Page { offset: 0, limit: 100_000 })?;
            let records: Vec<serde_json::Value> =
                bodies.iter().filter_map(|b| serde_json::from_str(b).ok()).collect();
            reference.insert_records(lookup, &records);
        }
        let (files, _) = inventory::list_source_files(r, None, Page { offset: 0, limit: 10_000 })?;
        let mut source_files = Vec::new();
        for body in files {
            let file: inventory::SourceFile = job::decode(&body)?;
            let id = file.id.unwrap_or_default();
            source_files.extend(file.codes.into_iter().map(|code| (code, id)));
        }
        Ok::<_, Error>(Setup {
            job: job.id,
            plan,
            rules,
            reference,
            source_files,
            actor: Actor { user_id: Some(job.user_id) },
            candidates: None,
            ahead: Default::default(),
        })
    })
}

/// Where the runner stands after a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// More records wait.
    More,
    /// Nothing to do until a client posts the next chunk.
    Waiting,
    /// Every record is done; the job ends with this status once the caller has made
    /// its records searchable ([`finish`]).
    Ended(Status),
    /// The job has ended, with this status.
    Done(Status),
}

/// Does the next chunk of a job, or what of it is left. `import_dir` is where the job's
/// file is.
pub fn step(tenant: &Tenant, setup: &Setup, import_dir: &Path) -> Result<Step> {
    let id = setup.job;
    let (job, cursor) =
        tenant.read(|r| Ok::<_, Error>((job::get_job(r, id)?, job::get_cursor(r, id)?)))?;
    if job.status.is_final() {
        return Ok(Step::Done(job.status));
    }
    if cursor.cancel_requested {
        return finish(tenant, id, Status::Cancelled).map(Step::Done);
    }
    let mut guard = setup.ahead.lock().unwrap_or_else(|e| e.into_inner());
    let ahead = &mut *guard;
    if ahead.from != Some(cursor.next_order) {
        // First step, or another runner moved the cursor: read from where it stands.
        *ahead = Ahead::default();
    }
    if ahead.records.is_empty() {
        if let Some(step) = read_ahead(tenant, setup, &cursor, ahead, import_dir)? {
            return Ok(step);
        }
        ahead.from = Some(cursor.next_order);
    }
    // Matches on indexed values see every record committed before this write.
    if setup.uses_candidates()
        && let Some(candidates) = &setup.candidates
    {
        candidates.catch_up().map_err(Error::Indexes)?;
    }
    // A file's next records are read and mapped while these are written.
    let read_next = if ahead.end.is_none() && ahead.records.len() <= CHUNK {
        ahead.reader.take()
    } else {
        None
    };
    let (wrote, next) = std::thread::scope(|scope| {
        let reading = read_next.map(|reader| scope.spawn(|| read_file(setup, reader)));
        let wrote = write(tenant, setup, &cursor, &ahead.records);
        (wrote, reading.map(|reading| reading.join()))
    });
    if let Some(next) = next {
        let (reader, next) = next.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        ahead.reader = Some(reader);
        match next {
            Ok(next) if next.is_empty() => ahead.end = Some(End::Read),
            Ok(next) => ahead.records.extend(next),
            Err(message) => ahead.end = Some(End::Failed(message)),
        }
    }
    match wrote? {
        Some((done, next_order)) => {
            ahead.records.drain(..done);
            ahead.from = Some(next_order);
        }
        None => {
            tracing::debug!(job = %id, "records done by another runner");
            *ahead = Ahead::default();
        }
    }
    Ok(Step::More)
}

/// Writes up to [`CHUNK`] of `records` in the background, with the job's cursor and
/// progress: how many it wrote and the cursor's next order then, or `None` when another
/// runner had moved the cursor from `cursor`.
fn write(
    tenant: &Tenant,
    setup: &Setup,
    cursor: &Cursor,
    records: &std::collections::VecDeque<(Prepared, After)>,
) -> Result<Option<(usize, u64)>> {
    let id = setup.job;
    let read_at = (cursor.next_order, cursor.offset, cursor.next_chunk, cursor.done_in_chunk);
    let mut careful = false;
    loop {
        // In the background: a check-out queued behind it ends the write after the record
        // being written, and the rest waits for the next step.
        let outcome = tenant.write_background(|w| {
            // Another runner did these records while they were read: do nothing twice.
            let stored = job::get_cursor(w, id)?;
            if (stored.next_order, stored.offset, stored.next_chunk, stored.done_in_chunk)
                != read_at
            {
                return Ok::<_, Error>(None);
            }
            // From the stored cursor: what came meanwhile (a client's next chunk, a
            // cancel) is kept, not overwritten with the cursor as it was read.
            let mut cursor = stored;
            // On PostgreSQL the chunk's writes go in one round trip, not three a record;
            // one that fails fails the chunk, which is then done again carefully.
            if !careful {
                w.defer_writes();
            }
            let mut checked = inventory::Checked::default();
            let mut done = 0;
            for (record, after) in records.iter().take(CHUNK) {
                if done > 0 && w.should_end() {
                    break;
                }
                match process::write(w, setup, &mut checked, record.clone(), careful)? {
                    process::Written::Imported => cursor.succeeded += 1,
                    process::Written::Failed => cursor.failed += 1,
                    // Undo the write (the transaction fails) and do it again carefully.
                    process::Written::Redo => return Err(Error::Redo),
                }
                done += 1;
                cursor.next_order = cursor.next_order.max(record.order() + 1);
                after.apply(w, &mut cursor)?;
            }
            job::save_cursor(w, id, &cursor)?;
            let mut job = job::get_job(w, id)?;
            job.progress.current = cursor.succeeded + cursor.failed;
            job::save_job(w, &job)?;
            Ok::<_, Error>(Some((done, cursor.next_order)))
        });
        match outcome {
            Err(Error::Redo | Error::Store(store::Error::Deferred { .. })) if !careful => {
                careful = true
            }
            outcome => return outcome,
        }
    }
}

/// A job's records read and mapped ahead of its cursor, and the file reader that stands
/// after them. Kept between steps: a file is read once (a MARCXML reader cannot seek),
/// its next records are mapped while the last are written, and records a write left
/// undone go first in the next.
#[derive(Default)]
pub(crate) struct Ahead {
    /// The cursor's `next_order` the records follow from; for any other, they are
    /// dropped and read again.
    from: Option<u64>,
    records: std::collections::VecDeque<(Prepared, After)>,
    reader: Option<FileReader>,
    /// The reader is done: the file ended, or could not be read further.
    end: Option<End>,
}

enum End {
    Read,
    Failed(String),
}

/// Where the cursor stands once a record is done.
enum After {
    File { offset: u64 },
    Chunk { key: String, index: u64, last: bool, first_order: u64 },
}

impl After {
    fn apply(&self, w: &mut store::Writer<'_>, cursor: &mut Cursor) -> Result<()> {
        match self {
            After::File { offset } => cursor.offset = *offset,
            After::Chunk { key, last: true, .. } => {
                w.delete(&CHUNKS, key)?;
                cursor.next_chunk += 1;
                cursor.done_in_chunk = 0;
            }
            After::Chunk { index, first_order, .. } => {
                cursor.done_in_chunk = index + 1;
                cursor.chunk_first_order = *first_order;
            }
        }
        Ok(())
    }
}

/// Reads the records from the cursor on and maps them into `ahead`; or the step to
/// report when there are none to write now.
fn read_ahead(
    tenant: &Tenant,
    setup: &Setup,
    cursor: &Cursor,
    ahead: &mut Ahead,
    import_dir: &Path,
) -> Result<Option<Step>> {
    let id = setup.job;
    match &cursor.source {
        Source::None => Ok(Some(Step::Waiting)),
        Source::File { path } => {
            match ahead.end.take() {
                Some(End::Read) => return Ok(Some(Step::Ended(final_status(cursor)))),
                Some(End::Failed(message)) => return fail(tenant, id, message).map(Some),
                None => {}
            }
            let kept = ahead.reader.take().filter(|r| r.order() == cursor.next_order);
            let reader = match kept {
                Some(reader) => reader,
                None => {
                    match FileReader::open(&import_dir.join(path), cursor.next_order, cursor.offset)
                    {
                        Ok(reader) => reader,
                        Err(e) => {
                            return fail(tenant, id, format!("The file cannot be read: {e}"))
                                .map(Some);
                        }
                    }
                }
            };
            let (reader, records) = std::thread::scope(|scope| {
                let reading = scope.spawn(|| read_file(setup, reader));
                reading.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            });
            ahead.reader = Some(reader);
            match records {
                Ok(records) if records.is_empty() => Ok(Some(Step::Ended(final_status(cursor)))),
                Ok(records) => {
                    ahead.records = records.into();
                    Ok(None)
                }
                Err(message) => fail(tenant, id, message).map(Some),
            }
        }
        Source::Chunks => {
            if cursor.next_chunk >= cursor.chunks_received {
                if cursor.last_chunk_received {
                    return Ok(Some(Step::Ended(final_status(cursor))));
                }
                return Ok(Some(Step::Waiting));
            }
            let key = chunk_key(id, cursor.next_chunk);
            let row = tenant.read(|r| r.get(&CHUNKS, &key))?;
            let chunk: RawRecords = match row {
                Some(row) => job::decode(&row.body)?,
                None => return Err(Error::Corrupt(format!("chunk {key} is missing"))),
            };
            let first_order =
                if cursor.done_in_chunk > 0 { cursor.chunk_first_order } else { cursor.next_order };
            let records = source::chunk_records(&chunk, first_order);
            let n = records.len() as u64;
            let batch: Vec<_> = (0..)
                .zip(records)
                .skip(cursor.done_in_chunk as usize)
                .map(|(index, (order, read))| {
                    let after =
                        After::Chunk { key: key.clone(), index, last: index + 1 == n, first_order };
                    (order, read, after)
                })
                .collect();
            if batch.is_empty() {
                // A chunk with no records (a client's closing one): past it.
                skip_chunk(tenant, id, cursor, &key)?;
                return Ok(Some(Step::More));
            }
            ahead.records = std::thread::scope(|scope| {
                let mapping = scope.spawn(|| {
                    store::nice_current_thread();
                    prepare(setup, batch)
                });
                mapping.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .into();
            Ok(None)
        }
    }
}

/// Reads up to [`CHUNK`] records of a file and maps them, on the thread it runs on (a
/// thread of its own, lowered: see [`prepare`]). The reader comes back, standing after
/// them; the records are empty at the end of the file, and `Err` says why the file
/// cannot be read on.
fn read_file(
    setup: &Setup,
    mut reader: FileReader,
) -> (FileReader, std::result::Result<Vec<(Prepared, After)>, String>) {
    store::nice_current_thread();
    let mut batch = Vec::with_capacity(CHUNK);
    while batch.len() < CHUNK {
        match reader.next_record() {
            Ok(Some((order, read))) => {
                batch.push((order, read, After::File { offset: reader.offset() }))
            }
            Ok(None) => break,
            Err(e) => return (reader, Err(format!("The file cannot be read: {e}"))),
        }
    }
    let records = prepare(setup, batch);
    (reader, Ok(records))
}

/// Maps a batch. Called on a thread at the lowest niceness: mapping is most of an
/// import's work, and the desk's requests come first. The writes stay on the runner's
/// thread at ordinary priority: a lowered thread holding the writer would keep a
/// check-out waiting behind it for as long as other work keeps the CPU.
fn prepare(setup: &Setup, batch: Vec<(u64, source::Read1, After)>) -> Vec<(Prepared, After)> {
    batch
        .into_iter()
        .map(|(order, read, after)| (process::prepare(setup, order, read), after))
        .collect()
}

fn skip_chunk(tenant: &Tenant, id: Uuid, read: &Cursor, key: &str) -> Result<()> {
    tenant.write(|w| {
        let mut cursor = job::get_cursor(w, id)?;
        if cursor.next_chunk != read.next_chunk {
            return Ok(());
        }
        w.delete(&CHUNKS, key)?;
        cursor.next_chunk += 1;
        cursor.done_in_chunk = 0;
        job::save_cursor(w, id, &cursor)
    })
}

fn final_status(cursor: &Cursor) -> Status {
    if cursor.failed == 0 && cursor.failure.is_none() { Status::Committed } else { Status::Error }
}

/// Ends a job whose source cannot be read, or whose profile cannot run: `ERROR`,
/// FOLIO's `FILE_PROCESSING_ERROR`, and the reason in the job's log, at the record where
/// the job stopped.
fn fail(tenant: &Tenant, id: Uuid, message: String) -> Result<Step> {
    tenant.write(|w| {
        let mut cursor = job::get_cursor(w, id)?;
        let mut job = job::get_job(w, id)?;
        let record_type = job
            .job_profile_info
            .as_ref()
            .and_then(|info| default_plan(info.id))
            .map_or("MARC_BIBLIOGRAPHIC", |plan| plan.record_type());
        let entry =
            crate::journal::Entry::failed(id, cursor.next_order, record_type, message.clone());
        crate::journal::write(w, &entry)?;
        cursor.failure = Some(message);
        job::save_cursor(w, id, &cursor)?;
        job.error_status = Some("FILE_PROCESSING_ERROR".into());
        job::save_job(w, &job)?;
        Ok::<_, Error>(())
    })?;
    finish(tenant, id, Status::Error).map(Step::Done)
}

/// Ends a job: its final status, completion date and progress.
pub fn finish(tenant: &Tenant, id: Uuid, status: Status) -> Result<Status> {
    tenant.write(|w| {
        let cursor = job::get_cursor(w, id)?;
        let mut job = job::get_job(w, id)?;
        if job.status.is_final() {
            return Ok(job.status);
        }
        job.set_status(status);
        job.completed_date = Some(folio::Timestamp::now().to_string());
        job.progress.current = cursor.succeeded + cursor.failed;
        if job.total_records_in_file.is_none() || status == Status::Committed {
            job.progress.total = job.progress.current;
        }
        if let Ok(mut snapshot) = srs::get_snapshot(w, id) {
            snapshot.status = match status {
                Status::Committed => srs::SnapshotStatus::Committed,
                _ => srs::SnapshotStatus::Error,
            };
            srs::replace_snapshot(w, id, snapshot)?;
        }
        job::save_job(w, &job)?;
        Ok::<_, Error>(job.status)
    })
}

/// Marks a job started: its snapshot, start date and record total.
pub fn start(tenant: &Tenant, id: Uuid, total: Option<u64>) -> Result<()> {
    tenant.write(|w| {
        let mut job = job::get_job(w, id)?;
        if job.status != Status::ParsingInProgress && !job.status.is_final() {
            job.set_status(Status::ParsingInProgress);
            job.started_date = Some(folio::Timestamp::now().to_string());
        }
        if let Some(total) = total {
            job.total_records_in_file = Some(total);
            job.progress.total = total;
        }
        if srs::get_snapshot(w, id).is_err() {
            let snapshot = srs::Snapshot {
                job_execution_id: id,
                status: srs::SnapshotStatus::ParsingInProgress,
                processing_started_date: Some(folio::Timestamp::now().to_string()),
                metadata: None,
            };
            srs::create_snapshot(w, snapshot)?;
        }
        job::save_job(w, &job)?;
        Ok::<_, Error>(())
    })
}

pub(crate) fn chunk_key(job: Uuid, n: u64) -> String {
    format!("{job}:{n:010}")
}

/// Readies a job to run: its setup, or the status it ended with (it had ended, or its
/// profile cannot run, which ends it in `ERROR`).
/// A file job not started yet is started here: its snapshot, and its record total
/// counted from the file.
pub fn open(
    tenant: &Tenant,
    id: Uuid,
    import_dir: &Path,
) -> Result<std::result::Result<Setup, Status>> {
    let (job, cursor) =
        tenant.read(|r| Ok::<_, Error>((job::get_job(r, id)?, job::get_cursor(r, id)?)))?;
    if job.status.is_final() {
        return Ok(Err(job.status));
    }
    let total = match &cursor.source {
        Source::File { path } if job.status != Status::ParsingInProgress => {
            match source::count_records(&import_dir.join(path)) {
                Ok(total) => Some(total),
                Err(e) => {
                    fail(tenant, id, format!("The file cannot be read: {e}"))?;
                    return Ok(Err(Status::Error));
                }
            }
        }
        _ => None,
    };
    // Also for a job a client started by posting chunks: its snapshot.
    start(tenant, id, total)?;
    match setup(tenant, &job) {
        Ok(setup) => Ok(Ok(setup)),
        Err(e @ (Error::UnsupportedProfile { .. } | Error::NoProfile(_) | Error::Profiles(_))) => {
            fail(tenant, id, e.to_string())?;
            Ok(Err(Status::Error))
        }
        Err(e) => Err(e),
    }
}

/// Runs a job to its end on this thread (the command line's import, and tests).
/// `progress` is told the count done after each chunk.
pub fn run_to_end(
    tenant: &Tenant,
    id: Uuid,
    import_dir: &Path,
    mut progress: impl FnMut(u64, u64),
) -> Result<Status> {
    let setup = match open(tenant, id, import_dir)? {
        Ok(setup) => setup,
        Err(status) => return Ok(status),
    };
    loop {
        match step(tenant, &setup, import_dir)? {
            Step::More => {
                let cursor = tenant.read(|r| job::get_cursor(r, id))?;
                let total = tenant.read(|r| job::get_job(r, id))?.progress.total;
                progress(cursor.succeeded + cursor.failed, total);
            }
            Step::Waiting => return Ok(Status::ParsingInProgress),
            Step::Ended(status) => return finish(tenant, id, status),
            Step::Done(status) => return Ok(status),
        }
    }
}

#[cfg(test)]
mod tests {
    use mapping::Lookup;

    /// Every list the mapping looks up is one inventory keeps, but the authority
    /// identifier types, which Quire does not have (their lookups give FOLIO's fallback).
    #[test]
    fn each_lookup_names_a_reference_kind() {
        for lookup in Lookup::ALL {
            let kind = inventory::RefKind::from_path(lookup.path());
            assert_eq!(kind.is_some(), lookup != Lookup::AuthorityIdentifierTypes, "{lookup:?}");
        }
    }
}
