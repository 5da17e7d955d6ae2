//! The import runner: one thread that runs every tenant's import jobs, a chunk of one
//! job at a time in turn, so two jobs share the machine and neither waits for the other
//! to end. A job is woken when it is started or sent a chunk; at start-up the runner
//! takes back the jobs that were running, which go on from their last committed chunk.
//!
//! Before a job reports `COMMITTED` the runner brings the instance search index up to
//! date, so every record the job made is searchable when it says it is done.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use uuid::Uuid;

use crate::candidates::IndexCandidates;
use crate::indexes::Indexes;
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
    loop {
        // Wait for work when there is none; take what has come otherwise.
        let mut woken = Vec::new();
        if active.is_empty() {
            match rx.recv() {
                Ok(key) => woken.push(key),
                Err(_) => return,
            }
        }
        loop {
            match rx.recv_timeout(Duration::ZERO) {
                Ok(key) => woken.push(key),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        for key in woken {
            if active.iter().any(|(k, _)| *k == key) {
                continue;
            }
            match open(store, indexes, marc, &key) {
                Ok(Some(setup)) => active.push_back((key, setup)),
                Ok(None) => {}
                Err(e) => {
                    tracing::error!(tenant = %key.0, job = %key.1, error = %e, "import job cannot start")
                }
            }
        }
        let Some((key, setup)) = active.pop_front() else { continue };
        match step(store, indexes, &key, &setup) {
            Ok(true) => active.push_back((key, setup)),
            Ok(false) => {}
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

fn open(
    store: &store::Store,
    indexes: &Indexes,
    marc: &MarcIndexes,
    (tenant, id): &JobKey,
) -> Result<Option<import::Setup>, crate::Error> {
    let tenant = store.tenant(tenant)?;
    let Ok(setup) = import::open(&tenant, *id, &import_dir(&tenant))? else { return Ok(None) };
    // Only profiles that match on indexed values need the indexes (the MARC index is
    // built in memory on first use).
    if !setup.uses_candidates() {
        return Ok(Some(setup));
    }
    let candidates = IndexCandidates::open(&tenant, indexes, marc)?;
    Ok(Some(setup.with_candidates(Arc::new(candidates))))
}

/// One chunk of a job; `true` while the job has more to do now.
fn step(
    store: &store::Store,
    indexes: &Indexes,
    (tenant, id): &JobKey,
    setup: &import::Setup,
) -> Result<bool, crate::Error> {
    let tenant = store.tenant(tenant)?;
    match import::step(&tenant, setup, &import_dir(&tenant))? {
        import::Step::More => Ok(true),
        import::Step::Waiting | import::Step::Done(_) => Ok(false),
        import::Step::Ended(status) => {
            indexes.instances(&tenant)?.catch_up(&tenant)?;
            let status = import::finish(&tenant, *id, status)?;
            tracing::info!(tenant = tenant.name(), job = %id, status = status.as_str(), "import job ended");
            Ok(false)
        }
    }
}

/// The jobs of every tenant that were running when the process stopped.
pub(crate) fn unfinished(store: &store::Store) -> Vec<JobKey> {
    let mut keys = Vec::new();
    for name in store.tenant_names() {
        let Ok(tenant) = store.tenant(&name) else { continue };
        match tenant.read(import::unfinished_jobs) {
            Ok(ids) => keys.extend(ids.into_iter().map(|id| (name.clone(), id))),
            Err(e) => tracing::error!(tenant = %name, error = %e, "cannot list import jobs"),
        }
    }
    keys
}
