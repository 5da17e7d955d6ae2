//! The import runner: one thread that runs every tenant's import jobs, a chunk of one
//! job at a time in turn, so two jobs share the machine and neither waits for the other
//! to end. A job is woken when it is started or sent a chunk, or found unfinished with
//! no node holding its lease (`leases.rs`): it goes on from its last committed chunk.
//!
//! Before a job reports `COMMITTED` the runner brings the instance search index up to
//! date, so every record the job made is searchable when it says it is done.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use uuid::Uuid;

use crate::candidates::IndexCandidates;
use crate::indexes::Indexes;
use crate::leases::{Held, import_lease};
use crate::marc_indexes::MarcIndexes;

/// A job to run: its tenant and id.
type JobKey = (String, Uuid);

/// Where a tenant's import files are kept.
pub fn import_dir(tenant: &store::Tenant) -> PathBuf {
    tenant.dir().join("imports")
}

/// Wakes jobs on the runner thread, starting it on first use.
#[derive(Default)]
pub(crate) struct Imports {
    sender: Mutex<Option<Sender<JobKey>>>,
}

impl Imports {
    /// Has the runner run (or go on with) a job.
    pub(crate) fn wake(
        &self,
        store: &Arc<store::Store>,
        indexes: &Arc<Indexes>,
        marc: &Arc<MarcIndexes>,
        key: JobKey,
    ) {
        let mut sender = self.sender.lock().unwrap();
        if sender.is_none() {
            let (tx, rx) = channel();
            let (store, indexes, marc) = (store.clone(), indexes.clone(), marc.clone());
            let spawned = std::thread::Builder::new()
                .name("import-runner".into())
                .spawn(move || run(&store, &indexes, &marc, rx));
            match spawned {
                Ok(_) => *sender = Some(tx),
                Err(e) => {
                    tracing::error!(error = %e, "cannot start the import runner");
                    return;
                }
            }
        }
        if let Some(tx) = sender.as_ref() {
            let _ = tx.send(key);
        }
    }
}

/// How often a job waiting for its next chunk is looked at again: the chunk may have
/// been posted to another node, which leaves the job to the node holding its lease.
const WAITING_POLL: Duration = Duration::from_secs(1);

/// The runner's loop: takes woken jobs, and does a chunk of each active job in turn.
fn run(
    store: &Arc<store::Store>,
    indexes: &Arc<Indexes>,
    marc: &Arc<MarcIndexes>,
    rx: Receiver<JobKey>,
) {
    // An import is background work: a check-out at the desk comes first. Its mapping runs
    // at the lowest niceness (`import::step`), its writes here at ordinary priority and
    // in the background: they end early when a check-out queues behind them.
    let mut active: VecDeque<(JobKey, import::Setup)> = VecDeque::new();
    // Jobs fed by posted chunks, waiting for the next; their leases are kept.
    let mut waiting: Vec<(JobKey, import::Setup)> = Vec::new();
    let mut looked_at_waiting = Instant::now();
    let mut held = Held::default();
    loop {
        // Wait for work when there is none; take what has come otherwise.
        let mut woken = Vec::new();
        if active.is_empty() {
            let next = if waiting.is_empty() {
                rx.recv().map_err(|_| RecvTimeoutError::Disconnected)
            } else {
                rx.recv_timeout(WAITING_POLL)
            };
            match next {
                Ok(key) => woken.push(key),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        loop {
            match rx.recv_timeout(Duration::ZERO) {
                Ok(key) => woken.push(key),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        if looked_at_waiting.elapsed() >= WAITING_POLL {
            active.extend(waiting.drain(..));
            looked_at_waiting = Instant::now();
        }
        for key in woken {
            if active.iter().any(|(k, _)| *k == key) {
                continue;
            }
            if let Some(at) = waiting.iter().position(|(k, _)| *k == key) {
                active.push_back(waiting.swap_remove(at));
                continue;
            }
            let Ok(tenant) = store.tenant(&key.0) else { continue };
            let lease = import_lease(key.1);
            if !held.keep(&tenant, &lease) {
                tracing::debug!(tenant = %key.0, job = %key.1, "import job held by another node");
                continue;
            }
            match open(&tenant, indexes, marc, key.1) {
                Ok(Some(setup)) => active.push_back((key, setup)),
                Ok(None) => held.release(&tenant, &lease),
                Err(e) => {
                    tracing::error!(tenant = %key.0, job = %key.1, error = %e, "import job cannot start");
                    held.release(&tenant, &lease);
                }
            }
        }
        let Some((key, setup)) = active.pop_front() else { continue };
        let Ok(tenant) = store.tenant(&key.0) else { continue };
        let lease = import_lease(key.1);
        if !held.keep(&tenant, &lease) {
            continue;
        }
        match step(&tenant, indexes, key.1, &setup) {
            Ok(Stepped::More) => active.push_back((key, setup)),
            Ok(Stepped::Waiting) => waiting.push((key, setup)),
            Ok(Stepped::Ended) => held.release(&tenant, &lease),
            Err(e) => {
                // The chunk did not commit; the job goes on from it when woken again
                // (at the latest, at the next start).
                tracing::error!(tenant = %key.0, job = %key.1, error = %e, "import chunk failed");
                std::thread::sleep(Duration::from_millis(200));
                active.push_back((key, setup));
            }
        }
    }
}

/// Opens a job to run: `None` when it has ended. A job importing a file another node
/// took in fetches it from the store first (on PostgreSQL).
fn open(
    tenant: &Arc<store::Tenant>,
    indexes: &Indexes,
    marc: &MarcIndexes,
    id: Uuid,
) -> Result<Option<import::Setup>, crate::Error> {
    let import_dir = import_dir(tenant);
    if let Some(path) = tenant.read(|r| import::source_file(r, id))?
        && !tenant.fetch_shared_file(&path, &import_dir.join(&path))?
    {
        // Not here nor in the store: the job fails as it reads it, saying so.
        tracing::warn!(tenant = tenant.name(), job = %id, path, "an import's file is missing");
    }
    let Ok(setup) = import::open(tenant, id, &import_dir)? else { return Ok(None) };
    // Only profiles that match on indexed values need the indexes (the MARC index is
    // built in memory on first use).
    if !setup.uses_candidates() {
        return Ok(Some(setup));
    }
    let candidates = IndexCandidates::open(tenant, indexes, marc)?;
    Ok(Some(setup.with_candidates(Arc::new(candidates))))
}

/// What a step left a job doing.
enum Stepped {
    /// It has more to do now.
    More,
    /// It waits for a chunk to be posted.
    Waiting,
    Ended,
}

/// One chunk of a job.
fn step(
    tenant: &Arc<store::Tenant>,
    indexes: &Indexes,
    id: Uuid,
    setup: &import::Setup,
) -> Result<Stepped, crate::Error> {
    match import::step(tenant, setup, &import_dir(tenant))? {
        import::Step::More => Ok(Stepped::More),
        import::Step::Waiting => Ok(Stepped::Waiting),
        import::Step::Done(_) => Ok(Stepped::Ended),
        import::Step::Ended(status) => {
            indexes.instances(tenant)?.catch_up(tenant)?;
            let status = import::finish(tenant, id, status)?;
            tracing::info!(tenant = tenant.name(), job = %id, status = status.as_str(), "import job ended");
            Ok(Stepped::Ended)
        }
    }
}
