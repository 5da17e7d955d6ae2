//! A thread that keeps a [`MarcIndex`] up with its tenant's change log.
//!
//! It wakes when this process commits a write (`Tenant::wait_for_change`) and polls
//! the database every second for other processes' writes. Searches also catch up
//! synchronously before answering, so the follower only keeps that step short.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::index::MarcIndex;

/// A running follower; dropping it stops the thread (within about 100 ms) and waits.
#[derive(Debug)]
pub struct MarcFollower {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

const WAKE: Duration = Duration::from_millis(100);
const POLL: Duration = Duration::from_secs(1);

impl MarcFollower {
    /// Follows `tenant`'s change log into `index` on a new thread.
    pub fn spawn(tenant: Arc<store::Tenant>, index: Arc<MarcIndex>) -> MarcFollower {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name(format!("marc-follower-{}", tenant.name()))
            .spawn(move || run(&tenant, &index, &flag))
            .expect("spawning a thread");
        MarcFollower { stop, thread: Some(thread) }
    }
}

fn run(tenant: &store::Tenant, index: &MarcIndex, stop: &AtomicBool) {
    // Read-only against the store, like the search follower: lowered for the same reason.
    store::nice_current_thread();
    let mut last_poll = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        let applied = index.applied_seq();
        let mut target = tenant.wait_for_change(applied, WAKE);
        if last_poll.elapsed() >= POLL {
            last_poll = Instant::now();
            target = target.max(tenant.last_seq().unwrap_or(applied));
        }
        if target <= applied {
            continue;
        }
        if let Err(e) = index.catch_up(tenant) {
            tracing::error!(tenant = tenant.name(), error = %e, "MARC index update failed; retrying");
            std::thread::sleep(Duration::from_secs(1));
        }
    }
}

impl Drop for MarcFollower {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("MARC follower thread panicked");
        }
    }
}
