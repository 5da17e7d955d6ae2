//! The bulk edit runner: one thread that runs every tenant's bulk operations, a chunk
//! of one operation at a time in turn. An operation is woken when a step starts; at
//! start-up the runner takes back those that were running, which go on from their last
//! committed chunk.
//!
//! Before a commit reports COMPLETED the runner brings the instance search index up to
//! date, so every changed record is found as changed when the operation says it is done.

use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use uuid::Uuid;

use crate::indexes::Indexes;
use crate::standings::Standings;

/// An operation to run: its tenant and id.
type OperationKey = (String, Uuid);

/// Wakes operations on the runner thread, starting it on first use.
#[derive(Default)]
pub(crate) struct BulkOperations {
    sender: Mutex<Option<Sender<OperationKey>>>,
}

impl BulkOperations {
    pub(crate) fn wake(
        &self,
        store: &Arc<store::Store>,
        indexes: &Arc<Indexes>,
        standings: &Arc<Standings>,
        key: OperationKey,
    ) {
        let mut sender = self.sender.lock().unwrap();
        if sender.is_none() {
            let (tx, rx) = channel();
            let (store, indexes, standings) = (store.clone(), indexes.clone(), standings.clone());
            let spawned = std::thread::Builder::new()
                .name("bulk-runner".into())
                .spawn(move || run(&store, &indexes, &standings, rx));
            match spawned {
                Ok(_) => *sender = Some(tx),
                Err(e) => {
                    tracing::error!(error = %e, "cannot start the bulk edit runner");
                    return;
                }
            }
        }
        if let Some(tx) = sender.as_ref() {
            let _ = tx.send(key);
        }
    }
}

fn run(store: &store::Store, indexes: &Indexes, standings: &Standings, rx: Receiver<OperationKey>) {
    let mut active: VecDeque<OperationKey> = VecDeque::new();
    loop {
        if active.is_empty() {
            match rx.recv() {
                Ok(key) => active.push_back(key),
                Err(_) => return,
            }
        }
        loop {
            match rx.recv_timeout(Duration::ZERO) {
                Ok(key) if !active.contains(&key) => active.push_back(key),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
            }
        }
        let Some(key) = active.pop_front() else { continue };
        match step(store, indexes, standings, &key) {
            Ok(true) => active.push_back(key),
            Ok(false) => {}
            Err(e) => {
                // The chunk did not commit; the operation goes on from it when woken
                // again (at the latest, at the next start).
                tracing::error!(tenant = %key.0, operation = %key.1, error = %e, "bulk edit chunk failed");
                std::thread::sleep(Duration::from_millis(200));
                active.push_back(key);
            }
        }
    }
}

/// One chunk of an operation; `true` while it has more to do now.
fn step(
    store: &store::Store,
    indexes: &Indexes,
    standings: &Standings,
    (tenant, id): &OperationKey,
) -> Result<bool, crate::Error> {
    let tenant = store.tenant(tenant)?;
    let progress = bulk::step(&tenant, *id)?;
    for user in &progress.users {
        standings.invalidate(tenant.name(), *user);
    }
    if progress.written {
        indexes.instances(&tenant)?.catch_up(&tenant)?;
        let operation = tenant.write(|w| bulk::finish(w, *id))?;
        tracing::info!(tenant = tenant.name(), operation = %id, status = operation.status.as_str(), "bulk operation ended");
        return Ok(false);
    }
    Ok(progress.more)
}

/// The operations of every tenant that were running when the process stopped.
pub(crate) fn unfinished(store: &store::Store) -> Vec<OperationKey> {
    let mut keys = Vec::new();
    for name in store.tenant_names() {
        let Ok(tenant) = store.tenant(&name) else { continue };
        match tenant.read(bulk::unfinished_operations) {
            Ok(ids) => keys.extend(ids.into_iter().map(|id| (name.clone(), id))),
            Err(e) => tracing::error!(tenant = %name, error = %e, "cannot list bulk operations"),
        }
    }
    keys
}
