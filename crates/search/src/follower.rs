//! The follower: a thread that keeps an index up with its tenant's change log.
//!
//! Owns the timing: it wakes when this process commits a write
//! (`Tenant::wait_for_change`), polls `Tenant::last_seq` every second for writes by
//! other processes on the same data directory, and commits at most every
//! [`FollowerOptions::commit_interval`], so a burst of writes becomes one commit. Does
//! not own what applying a change means (each index's `catch_up`, behind
//! [`FollowedIndex`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use store::Tenant;

use crate::authority::AuthorityIndex;
use crate::error::Result;
use crate::instance::InstanceIndex;

/// An index a follower keeps up with the change log: the instance index and the
/// authority index. Sealed: the set is fixed by this crate.
pub trait FollowedIndex: Send + Sync + sealed::Sealed {
    /// The change-log sequence number the index has applied.
    fn applied_seq(&self) -> i64;
    /// Applies the change-log rows committed before the call.
    fn catch_up(&self, tenant: &Tenant) -> Result<u64>;
}

impl FollowedIndex for InstanceIndex {
    fn applied_seq(&self) -> i64 {
        InstanceIndex::applied_seq(self)
    }
    fn catch_up(&self, tenant: &Tenant) -> Result<u64> {
        InstanceIndex::catch_up(self, tenant)
    }
}

impl FollowedIndex for AuthorityIndex {
    fn applied_seq(&self) -> i64 {
        AuthorityIndex::applied_seq(self)
    }
    fn catch_up(&self, tenant: &Tenant) -> Result<u64> {
        AuthorityIndex::catch_up(self, tenant)
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::InstanceIndex {}
    impl Sealed for crate::AuthorityIndex {}
}

/// Follower timing.
#[derive(Debug, Clone)]
pub struct FollowerOptions {
    /// Least time between two commits.
    pub commit_interval: Duration,
    /// How often to ask the database for other processes' writes.
    pub poll_interval: Duration,
}

impl Default for FollowerOptions {
    fn default() -> Self {
        FollowerOptions {
            commit_interval: Duration::from_millis(500),
            poll_interval: Duration::from_secs(1),
        }
    }
}

/// Starts followers.
pub struct Follower;

/// A running follower. `stop` (or dropping the handle) ends its thread within about
/// 100 ms and waits for it.
#[derive(Debug)]
pub struct FollowerHandle {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// How long one wait for a change lasts: the bound on stopping latency.
const WAKE: Duration = Duration::from_millis(100);

impl Follower {
    /// Follows `tenant`'s change log into `index` on a new thread, with default timing.
    pub fn spawn<I: FollowedIndex + 'static>(tenant: Arc<Tenant>, index: Arc<I>) -> FollowerHandle {
        Follower::spawn_with(tenant, index, FollowerOptions::default())
    }

    pub fn spawn_with<I: FollowedIndex + 'static>(
        tenant: Arc<Tenant>,
        index: Arc<I>,
        options: FollowerOptions,
    ) -> FollowerHandle {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name(format!("search-follower-{}", tenant.name()))
            .spawn(move || run(&tenant, index.as_ref(), &options, &flag))
            .expect("spawning a thread");
        FollowerHandle { stop, thread: Some(thread) }
    }
}

fn run(tenant: &Tenant, index: &dyn FollowedIndex, options: &FollowerOptions, stop: &AtomicBool) {
    // Derived state, read-only against the store: it can wait for the cores while the
    // desk works (measured beside an import with `quire load import`). A follower that
    // took the writer could not be lowered: it would keep check-outs waiting.
    store::nice_current_thread();
    let mut last_commit = Instant::now() - options.commit_interval;
    let mut last_poll = Instant::now() - options.poll_interval;
    while !stop.load(Ordering::SeqCst) {
        let applied = index.applied_seq();
        let mut target = tenant.wait_for_change(applied, WAKE);
        if last_poll.elapsed() >= options.poll_interval {
            last_poll = Instant::now();
            match tenant.last_seq() {
                Ok(seq) => target = target.max(seq),
                Err(e) => {
                    tracing::warn!(tenant = tenant.name(), error = %e, "reading the change log failed")
                }
            }
        }
        if target <= applied {
            continue;
        }
        let since = last_commit.elapsed();
        if since < options.commit_interval {
            std::thread::sleep(options.commit_interval - since);
        }
        if let Err(e) = index.catch_up(tenant) {
            tracing::error!(tenant = tenant.name(), error = %e, "search index update failed; retrying");
            std::thread::sleep(Duration::from_secs(1));
        }
        last_commit = Instant::now();
    }
}

impl FollowerHandle {
    /// Stops the follower and waits for its thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("search follower thread panicked");
        }
    }
}

impl Drop for FollowerHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}
