//! A thread that keeps a tenant's harvest index up with its change log, so that
//! datestamps are the seconds records changed in and a harvest's first request finds
//! little left to apply. Requests catch up themselves before answering (`respond`), so
//! the follower is about timeliness, never correctness.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A running follower; dropping it stops the thread (within about 100 ms, or the time
/// of one change and a commit when it is in the middle of a backlog) and waits.
#[derive(Debug)]
pub struct Follower {
    stop: Arc<AtomicBool>,
    // The sequence number the harvest index has applied, as the thread last saw it.
    applied: Arc<AtomicI64>,
    thread: Option<JoinHandle<()>>,
}

const WAKE: Duration = Duration::from_millis(100);
const POLL: Duration = Duration::from_secs(1);
/// Least time between two catch-ups: a busy desk's writes are applied together.
const INTERVAL: Duration = Duration::from_millis(500);

impl Follower {
    /// Follows `tenant`'s change log on a new thread.
    pub fn spawn(tenant: Arc<store::Tenant>) -> std::io::Result<Follower> {
        let stop = Arc::new(AtomicBool::new(false));
        let applied = Arc::new(AtomicI64::new(0));
        let (flag, seen) = (stop.clone(), applied.clone());
        let thread = std::thread::Builder::new()
            .name(format!("oai-follower-{}", tenant.name()))
            .spawn(move || run(&tenant, &flag, &seen))?;
        Ok(Follower { stop, applied, thread: Some(thread) })
    }

    /// The change-log sequence number the harvest index has applied, as of the
    /// follower's last catch-up (0 before its first).
    pub fn applied(&self) -> i64 {
        self.applied.load(Ordering::SeqCst)
    }
}

fn run(tenant: &store::Tenant, stop: &AtomicBool, seen: &AtomicI64) {
    let mut applied = 0;
    let mut last_poll = Instant::now() - POLL;
    let mut last_run = Instant::now() - INTERVAL;
    while !stop.load(Ordering::SeqCst) {
        let mut target = tenant.wait_for_change(applied, WAKE);
        if last_poll.elapsed() >= POLL {
            last_poll = Instant::now();
            target = target.max(tenant.last_seq().unwrap_or(applied));
        }
        if target <= applied {
            continue;
        }
        // Changes are waiting but the last catch-up was a moment ago: wait out the rest
        // of the interval (a while at a time, to see `stop`). `wait_for_change` returns
        // at once while changes wait, so looping back to it would spin.
        let since = last_run.elapsed();
        if since < INTERVAL {
            std::thread::sleep((INTERVAL - since).min(WAKE));
            continue;
        }
        last_run = Instant::now();
        match crate::index::catch_up_while(tenant, None, &|| !stop.load(Ordering::SeqCst)) {
            Ok(seq) => {
                applied = seq;
                seen.store(seq, Ordering::SeqCst);
            }
            Err(e) => {
                tracing::error!(tenant = tenant.name(), error = %e, "harvest index update failed; retrying");
                std::thread::sleep(Duration::from_secs(1));
            }
        }
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("harvest index follower panicked");
        }
    }
}
