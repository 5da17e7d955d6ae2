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
use crate::lifecycle::IndexStatus;

/// An index a follower keeps up with the change log: the instance index and the
/// authority index. Sealed: the set is fixed by this crate.
pub trait FollowedIndex: Send + Sync + sealed::Sealed {
    /// The change-log sequence number the index has applied.
    fn applied_seq(&self) -> i64;
    /// Applies the change-log rows committed before the call.
    fn catch_up(&self, tenant: &Tenant) -> Result<u64>;
    /// The index's state, for deciding whether it is worth rebuilding while quiet.
    fn status(&self) -> IndexStatus;
    /// Rebuilds the index while it keeps serving (a reindex, at background priority).
    fn rebuild(&self, tenant: &Tenant) -> Result<()>;
    /// Serves the segments background merges made since the last commit.
    fn serve_merges(&self) -> Result<bool>;
    /// Merges every segment but the largest into one, on the calling thread.
    fn fold(&self) -> Result<bool>;
    /// A follower's catch-up: small batches, handing over to `catch_up_at_once`.
    fn follow(&self, tenant: &Tenant) -> Result<u64>;
    /// Applies the change log, taking over from a follower's catch-up after its batch.
    fn catch_up_at_once(&self, tenant: &Tenant) -> Result<u64>;
}

/// Both indexes follow the log through their `Lifecycle`, the same way.
macro_rules! followed_through_lifecycle {
    ($index:ty) => {
        impl FollowedIndex for $index {
            fn applied_seq(&self) -> i64 {
                self.lifecycle.applied_seq()
            }
            fn catch_up(&self, tenant: &Tenant) -> Result<u64> {
                self.lifecycle.catch_up(tenant)
            }
            fn status(&self) -> IndexStatus {
                self.lifecycle.status()
            }
            fn rebuild(&self, tenant: &Tenant) -> Result<()> {
                <$index>::reindex(self, tenant, |_| {}).map(drop)
            }
            fn serve_merges(&self) -> Result<bool> {
                self.lifecycle.serve_merges()
            }
            fn fold(&self) -> Result<bool> {
                self.lifecycle.fold()
            }
            fn follow(&self, tenant: &Tenant) -> Result<u64> {
                self.lifecycle.follow(tenant)
            }
            fn catch_up_at_once(&self, tenant: &Tenant) -> Result<u64> {
                self.lifecycle.catch_up_at_once(tenant)
            }
        }
    };
}

followed_through_lifecycle!(InstanceIndex);
followed_through_lifecycle!(AuthorityIndex);

impl IndexStatus {
    /// Whether an index is worn enough that searches are measurably slower than on a
    /// rebuilt one: more than one segment, with the documents outside the largest (each
    /// re-indexed record adds one there) and the deleted ones they left behind together a
    /// fiftieth of the index or more. Each segment a search visits costs a lookup of each
    /// of its terms (a dictionary block decoded); after 30 s of check-outs and check-ins on
    /// 100,000 instances the merges left three segments and 4,847 deleted documents, and
    /// searches took 1.8 times as long as on one segment (`docs/benchmarks.md`, row AB).
    pub fn worn(&self) -> bool {
        let outside = self.documents.saturating_sub(self.largest_segment_documents);
        self.segments > 1
            && (outside + self.deleted_documents).saturating_mul(WORN_SHARE)
                >= self.documents.max(1)
    }
}

/// The inverse of the share of an index that re-indexed records must make up before a
/// follower rebuilds it once the writes pause: a rebuild is a full reindex at
/// background priority, not worth starting for a few changes.
const WORN_SHARE: u64 = 50;

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
    /// How long the change log must stand still before what the follower has left is
    /// applied at the priority it was started with, and the small segments are then
    /// folded into one (`Lifecycle::fold`, at most once a minute); `None`: never,
    /// everything at background priority.
    pub pause: Option<Duration>,
    /// How long the writes must pause before a worn index ([`IndexStatus::worn`]) is
    /// rebuilt in the background; `None`: never.
    pub rebuild_when_quiet: Option<Duration>,
}

impl Default for FollowerOptions {
    fn default() -> Self {
        FollowerOptions {
            commit_interval: Duration::from_millis(500),
            poll_interval: Duration::from_secs(1),
            pause: Some(Duration::from_secs(2)),
            rebuild_when_quiet: Some(Duration::from_secs(10)),
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
    threads: Vec<JoinHandle<()>>,
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
        let mut threads = Vec::new();
        // Started first, from this thread, so that it keeps this thread's priority.
        if let Some(pause) = options.pause {
            let (tenant, index, options, flag) =
                (tenant.clone(), index.clone(), options.clone(), stop.clone());
            let watcher = std::thread::Builder::new()
                .name(format!("search-pauses-{}", tenant.name()))
                .spawn(move || watch_pauses(&tenant, index.as_ref(), pause, &options, &flag))
                .expect("spawning a thread");
            threads.push(watcher);
        }
        let flag = stop.clone();
        let follower = std::thread::Builder::new()
            .name(format!("search-follower-{}", tenant.name()))
            .spawn(move || run(&tenant, &index, &options, &flag))
            .expect("spawning a thread");
        threads.push(follower);
        FollowerHandle { stop, threads }
    }
}

fn run<I: FollowedIndex + 'static>(
    tenant: &Arc<Tenant>,
    index: &Arc<I>,
    options: &FollowerOptions,
    stop: &AtomicBool,
) {
    // Derived state, read-only against the store: it can wait for the cores while the
    // desk works (measured beside an import with `quire load import`). A follower that
    // took the writer could not be lowered: it would keep check-outs waiting.
    store::nice_current_thread();
    let mut last_commit = Instant::now() - options.commit_interval;
    let mut last_poll = Instant::now() - options.poll_interval;
    // Whether anything was applied since the index was last looked at for wear (a
    // start counts: it may have been left worn).
    let mut changed = true;
    let rebuilding = Arc::new(AtomicBool::new(false));
    while !stop.load(Ordering::SeqCst) {
        let applied = index.applied_seq();
        if let Some(quiet) = options.rebuild_when_quiet
            && changed
            && last_commit.elapsed() >= quiet
            && !rebuilding.load(Ordering::SeqCst)
        {
            changed = false;
            let status = index.status();
            if status.worn() {
                rebuild_in_background(tenant, index, &status, &rebuilding);
            }
        }
        let mut target = tenant.wait_for_change(applied, WAKE);
        if last_poll.elapsed() >= options.poll_interval {
            last_poll = Instant::now();
            match tenant.last_seq() {
                Ok(seq) => target = target.max(seq),
                Err(e) => {
                    tracing::warn!(tenant = tenant.name(), error = %e, "reading the change log failed")
                }
            }
            if let Err(e) = index.serve_merges() {
                tracing::warn!(tenant = tenant.name(), error = %e, "serving merged segments failed");
            }
        }
        if target <= applied {
            continue;
        }
        let since = last_commit.elapsed();
        if since < options.commit_interval {
            std::thread::sleep(options.commit_interval - since);
        }
        if let Err(e) = index.follow(tenant) {
            tracing::error!(tenant = tenant.name(), error = %e, "search index update failed; retrying");
            std::thread::sleep(Duration::from_secs(1));
        }
        last_commit = Instant::now();
        changed = true;
    }
}

/// Watches for the writes to pause ([`FollowerOptions::pause`]), on a thread of the
/// priority the follower was started with, and then applies what the follower has left
/// and folds the small segments. The follower runs at background priority: under a
/// saturating search load it fell thousands of changes behind the desk, and it would
/// apply them, and a fold it made would run, only once the searches that want them had
/// stopped. So this thread takes the index over from it between two of its batches.
fn watch_pauses<I: FollowedIndex>(
    tenant: &Tenant,
    index: &I,
    pause: Duration,
    options: &FollowerOptions,
    stop: &AtomicBool,
) {
    let mut last_poll = Instant::now();
    // The newest change in the log, and when it last moved.
    let mut newest = i64::MIN;
    let mut moved = Instant::now();
    // The sequence number the index had when a fold was last looked at, and when the
    // last fold was made.
    let mut considered = None;
    let mut last_fold: Option<Instant> = None;
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(WAKE);
        if last_poll.elapsed() < options.poll_interval {
            continue;
        }
        last_poll = Instant::now();
        let Ok(seq) = tenant.last_seq() else { continue };
        if seq != newest {
            (newest, moved) = (seq, Instant::now());
            continue;
        }
        if moved.elapsed() < pause {
            continue;
        }
        if index.applied_seq() < newest {
            let started = Instant::now();
            match index.catch_up_at_once(tenant) {
                Ok(rows) => tracing::info!(
                    tenant = tenant.name(),
                    rows,
                    took_ms = started.elapsed().as_millis() as u64,
                    "the writes paused: the search index caught up at ordinary priority"
                ),
                Err(e) => {
                    tracing::warn!(tenant = tenant.name(), error = %e, "search index update failed; retrying")
                }
            }
            continue;
        }
        let applied = Some(index.applied_seq());
        if considered != applied && last_fold.is_none_or(|at| at.elapsed() >= FOLD_EVERY) {
            considered = applied;
            let started = Instant::now();
            match index.fold() {
                Ok(true) => {
                    last_fold = Some(Instant::now());
                    tracing::info!(
                        tenant = tenant.name(),
                        took_ms = started.elapsed().as_millis() as u64,
                        "the writes paused: the small search segments were folded into one"
                    );
                }
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(tenant = tenant.name(), error = %e, "folding the small segments failed")
                }
            }
        }
    }
}

/// The least time between two folds: each rewrites the small segments whole, and
/// a desk that pauses every few seconds would otherwise have them rewritten as often,
/// at ordinary priority.
const FOLD_EVERY: Duration = Duration::from_secs(60);

/// Rebuilds a worn index on a thread of its own, so the follower keeps applying the
/// log to the generation that serves meanwhile (the rebuild replays what it missed).
fn rebuild_in_background<I: FollowedIndex + 'static>(
    tenant: &Arc<Tenant>,
    index: &Arc<I>,
    status: &IndexStatus,
    rebuilding: &Arc<AtomicBool>,
) {
    tracing::info!(
        tenant = tenant.name(),
        segments = status.segments,
        documents = status.documents,
        deleted = status.deleted_documents,
        "the writes paused: rebuilding the worn search index in the background"
    );
    rebuilding.store(true, Ordering::SeqCst);
    let name = tenant.name().to_string();
    let (tenant, index, flag) = (tenant.clone(), index.clone(), rebuilding.clone());
    let spawned = std::thread::Builder::new()
        .name(format!("search-rebuild-{name}"))
        .spawn(move || {
            // A reindex already running (one asked for) makes this one fail: fine.
            if let Err(e) = index.rebuild(&tenant) {
                tracing::info!(tenant = tenant.name(), error = %e, "the quiet-time rebuild did not run");
            }
            flag.store(false, Ordering::SeqCst);
        });
    if let Err(e) = spawned {
        tracing::warn!(tenant = name, error = %e, "no thread for the quiet-time rebuild");
        rebuilding.store(false, Ordering::SeqCst);
    }
}

impl FollowerHandle {
    /// Stops the follower and waits for its thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for thread in self.threads.drain(..) {
            if thread.join().is_err() {
                tracing::error!("search follower thread panicked");
            }
        }
    }
}

impl Drop for FollowerHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use crate::lifecycle::IndexStatus;

    fn status(segments: usize, largest: u64, deleted: u64) -> IndexStatus {
        IndexStatus {
            generation: "g000001".into(),
            applied_seq: 0,
            documents: 100_000,
            segments,
            deleted_documents: deleted,
            largest_segment_documents: largest,
            reindex: None,
            compacting: false,
            last_reindex: None,
            last_error: None,
        }
    }

    /// A rebuild waits for a fiftieth of the index to have been re-indexed: each
    /// re-indexed record counts twice, in a small segment and deleted in the large one.
    #[test]
    fn an_index_is_worn_once_a_fiftieth_of_it_was_rewritten() {
        assert!(!status(1, 100_000, 40_000).worn(), "one segment is as merged as it gets");
        assert!(!status(3, 99_000, 999).worn(), "a thousand re-indexed records");
        assert!(status(3, 99_000, 1_000).worn());
        assert!(status(2, 50_000, 0).worn(), "two halves");
    }
}
