//! Group commit: writes that queue up behind the one writer are run by whichever thread
//! holds it, one after another in a single SQLite transaction, each after the first in a
//! savepoint of its own, and committed together.
//!
//! Why: on a busy desk every check-out and check-in waits its turn for the writer. Handing
//! the writer from thread to thread costs a wake-up each time (on two busy cores about as
//! long as the transaction itself), and every commit appends the same hot pages (the
//! change log's last page, the loans table's) to the WAL again. Run by one thread in one
//! transaction, a queue of writes costs one hand-over and one commit.
//!
//! Invariants:
//! - A write sees every write queued before it and none after, as if it ran alone.
//! - A write whose closure fails (or panics) rolls back to its savepoint and leaves the
//!   others of its group alone (the first, which has none, rolls back the transaction,
//!   and the rest run in another); a group whose commit fails fails every write in it.
//! - A write's caller returns its value only after its group has committed.
//! - No job waits in the queue with nobody to run it: whoever takes the writer runs the
//!   queue, and whoever lets it go wakes the first job still queued.
//! - A background write (an import's chunk) runs alone, after every interactive write
//!   queued before it starts, and ends early ([`Writer::should_end`]) when interactive
//!   writes queue up behind it or, while the desk is busy, after a short slice: a
//!   check-out waits for the record the import is writing and the commit of a slice's
//!   work, not for its whole chunk.
//! - While the desk is busy (an interactive write in the last [`DESK_BUSY`]), a background
//!   write's caller rests [`DESK_SHARE`] times as long as its write held the writer
//!   before it returns, so background work holds the writer a thirteenth of the time at
//!   most and leaves the cores to the desk the rest.

use std::{
    any::Any,
    collections::VecDeque,
    panic::AssertUnwindSafe,
    sync::Arc,
    sync::atomic::{AtomicU64, AtomicUsize, Ordering},
    time::{Duration, Instant},
};

use parking_lot::{Condvar, Mutex, MutexGuard};
use rusqlite::TransactionBehavior;

use crate::{
    Error,
    cache::{TableCache, TxCache},
    postgres::{CHANGES_CHANNEL, Pool},
    record::Writer,
    sql::Tx,
};

/// A write as the queue sees it: runs against the group's [`Writer`] and says whether it
/// succeeded (its value stays with its caller).
pub(crate) type WriteFn<'a> = dyn FnMut(&mut Writer<'_>) -> bool + Send + 'a;

/// The most writes one group commits together; a longer queue is left to the next group.
const MAX_GROUP: usize = 64;

/// How long after an interactive write the desk counts as busy.
pub(crate) const DESK_BUSY: Duration = Duration::from_secs(1);

/// While the desk is busy, how long a background write works before it commits and
/// lets the writer go. A write that queues behind it waits for the record being
/// written and the commit of the slice's work, so the slice bounds that wait. With the
/// desk quiet there is no slice: an import's transactions grow to its chunks (a slice
/// at all times took a 100,000-record import alone from 19.6 to 20.4 s).
pub(crate) const BACKGROUND_SLICE: Duration = Duration::from_micros(300);

/// While the desk is busy, a background write's caller rests this many times as long as
/// its write held the writer, so background work holds it a thirteenth of the time.
/// A check-out that arrives while a slice runs waits for the rest of it and its commit
/// (half a millisecond or more), so the desk's p95 follows how often that happens.
/// Measured with `quire load import` beside a 100,000-record import, 8 desk users at
/// 100 ms think time (check-out / check-in POST p95 against idle): a 2 ms slice and a
/// rest of twice the hold, 2.4-2.6x / 2.0-2.6x; a 300 µs slice with a rest of 3 times,
/// 1.8x / 1.5-2.0x; 12 times, 1.25x / 1.14x; 24 times, 1.07x / 1.03x. The cost is the
/// import's pace while the desk is busy: about 200 records/s at 12 times (it runs at
/// full pace again a second after the desk's last write).
const DESK_SHARE: u32 = 12;

/// How a queued write ended.
pub(crate) enum Outcome {
    /// It succeeded and its group committed.
    Committed,
    /// Its closure failed; its changes were rolled back.
    RolledBack,
    /// It succeeded but its changes were lost with its group (or could not be kept).
    Failed(Error),
    /// Its closure panicked; its changes were rolled back.
    Panicked(Box<dyn Any + Send>),
}

/// What a tenant's writes run on: SQLite's one writer connection, or, on PostgreSQL,
/// any connection of the store's pool, holding the tenant's write lock (`postgres`).
pub(crate) enum WriterConn {
    Sqlite(rusqlite::Connection),
    Postgres { pool: std::sync::Arc<Pool>, schema: String, lock: i64 },
}

/// The writer connection and the writes waiting for it.
pub(crate) struct WriteQueue {
    writer: Mutex<WriterConn>,
    queue: Mutex<VecDeque<Job>>,
    // Interactive (not background) jobs in the queue.
    interactive: AtomicUsize,
    // The record types whose bodies each write keeps in the change log, for publishers.
    pub(crate) kept: crate::changes::KeptTypes,
    // The cache of the tenant's cached tables, which its transactions share.
    pub(crate) cache: Arc<TableCache>,
    // When the last interactive job was queued, in nanoseconds after `opened` (at least
    // 1); 0 before the first.
    last_interactive: AtomicU64,
    opened: Instant,
    // Transactions committed, for tests to see that writes were grouped.
    #[cfg(test)]
    commits: std::sync::atomic::AtomicU64,
}

struct Job {
    // Points at the caller's closure on the caller's stack, which outlives the job: the
    // caller blocks in `submit` until `done` holds an outcome.
    run: *mut WriteFn<'static>,
    done: Arc<Completion>,
    background: bool,
}

// SAFETY: the closure behind `run` is `Send`, and one thread at a time uses it: the one
// running its group, while its caller waits in `submit`.
unsafe impl Send for Job {}

#[derive(Default)]
struct Completion {
    state: Mutex<State>,
    changed: Condvar,
    // How long the job's group held the writer, in nanoseconds; set before `finish`.
    held: AtomicU64,
}

#[derive(Default)]
enum State {
    #[default]
    Waiting,
    /// The writer was let go with this job still queued: its caller should take it.
    Nudged,
    Done(Outcome),
}

impl Completion {
    fn finish(&self, outcome: Outcome) {
        let mut state = self.state.lock();
        *state = State::Done(outcome);
        self.changed.notify_one();
    }

    fn nudge(&self) {
        let mut state = self.state.lock();
        if matches!(*state, State::Waiting) {
            *state = State::Nudged;
            self.changed.notify_one();
        }
    }

    /// Blocks until the job is done (`Some`) or its caller is asked to take the writer.
    fn wait(&self) -> Option<Outcome> {
        let mut state = self.state.lock();
        loop {
            match std::mem::take(&mut *state) {
                State::Done(outcome) => return Some(outcome),
                State::Nudged => return None,
                State::Waiting => self.changed.wait(&mut state),
            }
        }
    }
}

impl WriteQueue {
    pub(crate) fn new(writer: WriterConn) -> WriteQueue {
        WriteQueue {
            writer: Mutex::new(writer),
            queue: Mutex::new(VecDeque::new()),
            interactive: AtomicUsize::new(0),
            kept: Default::default(),
            cache: Default::default(),
            last_interactive: AtomicU64::new(0),
            opened: Instant::now(),
            #[cfg(test)]
            commits: Default::default(),
        }
    }

    /// Runs `run` in the next group (alone, when `background`) and returns how it ended.
    /// `committed` is called with the highest sequence number of each group this thread
    /// commits.
    pub(crate) fn submit(
        &self,
        run: &mut WriteFn<'_>,
        background: bool,
        committed: &dyn Fn(i64),
    ) -> Outcome {
        // SAFETY: only the lifetime is erased. This call does not return before `done`
        // holds an outcome, and whoever runs the job sets that last and never touches
        // `run` again, so the closure outlives every use of the pointer.
        let run = unsafe { std::mem::transmute::<*mut WriteFn<'_>, *mut WriteFn<'static>>(run) };
        let done = Arc::new(Completion::default());
        if !background {
            self.last_interactive.store(self.clock().max(1), Ordering::Relaxed);
        }
        let outcome = self.run_until_done(run, background, &done, committed);
        if background && self.desk_busy() {
            let held = Duration::from_nanos(done.held.load(Ordering::Relaxed));
            std::thread::sleep(held * DESK_SHARE);
        }
        outcome
    }

    /// Whether an interactive write was queued in the last [`DESK_BUSY`].
    fn desk_busy(&self) -> bool {
        let last = self.last_interactive.load(Ordering::Relaxed);
        last != 0 && self.clock().saturating_sub(last) < DESK_BUSY.as_nanos() as u64
    }

    /// Nanoseconds since the queue was made.
    fn clock(&self) -> u64 {
        self.opened.elapsed().as_nanos() as u64
    }

    /// Queues the job and runs groups until it is done.
    fn run_until_done(
        &self,
        run: *mut WriteFn<'static>,
        background: bool,
        done: &Arc<Completion>,
        committed: &dyn Fn(i64),
    ) -> Outcome {
        {
            let mut queue = self.queue.lock();
            queue.push_back(Job { run, done: done.clone(), background });
            if !background {
                self.interactive.fetch_add(1, Ordering::Relaxed);
            }
        }
        loop {
            if let Some(mut conn) = self.writer.try_lock() {
                let group = self.next_group();
                if !group.is_empty() {
                    let background = group[0].background;
                    let slice = (background && self.desk_busy()).then_some(BACKGROUND_SLICE);
                    run_group(
                        &mut conn,
                        group,
                        (&self.interactive, &self.kept, &self.cache),
                        slice,
                        committed,
                    );
                    #[cfg(test)]
                    self.commits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                self.release(conn);
            }
            if let Some(outcome) = done.wait() {
                return outcome;
            }
        }
    }

    /// Runs `f` on the writer connection outside any group (pragmas, checkpoints).
    pub(crate) fn with_connection<T>(&self, f: impl FnOnce(&WriterConn) -> T) -> T {
        let conn = self.writer.lock();
        let value = f(&conn);
        self.release(conn);
        value
    }

    /// The jobs to run next: the interactive ones queued (up to [`MAX_GROUP`]), or the
    /// first background job alone when there are none.
    fn next_group(&self) -> Vec<Job> {
        let mut queue = self.queue.lock();
        if self.interactive.load(Ordering::Relaxed) == 0 {
            return queue.pop_front().into_iter().collect();
        }
        let mut group = Vec::new();
        let mut i = 0;
        while i < queue.len() && group.len() < MAX_GROUP {
            if queue[i].background {
                i += 1;
            } else {
                group.extend(queue.remove(i));
            }
        }
        self.interactive.fetch_sub(group.len(), Ordering::Relaxed);
        group
    }

    /// Lets the writer go and wakes the caller of the job to run next to take it: a job
    /// queued while the writer was held found it taken and is waiting.
    fn release(&self, conn: MutexGuard<'_, WriterConn>) {
        drop(conn);
        let queue = self.queue.lock();
        let next = queue.iter().find(|job| !job.background).or_else(|| queue.front());
        if let Some(job) = next {
            job.done.nudge();
        }
    }
}

/// Runs a group of jobs in one transaction and commits it, finishing every job.
fn run_group(
    conn: &mut WriterConn,
    group: Vec<Job>,
    (interactive, kept, cache): (&AtomicUsize, &crate::changes::KeptTypes, &Arc<TableCache>),
    slice: Option<Duration>,
    committed: &dyn Fn(i64),
) {
    let started = Instant::now();
    let mut jobs = group.into_iter().peekable();
    while jobs.peek().is_some() {
        let (kept, ended) = match conn {
            WriterConn::Sqlite(conn) => {
                let tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
                    Ok(tx) => tx,
                    Err(e) => return fail_all(jobs, &e.into()),
                };
                let cache = TxCache::new(cache);
                let queue = (interactive, kept, &cache);
                match run_jobs(Tx::Sqlite(&tx), Savepoint::Whole, &mut jobs, queue, slice) {
                    // A savepoint left open is committed with the transaction.
                    Some((kept, _)) => (kept, tx.commit().map_err(Error::from)),
                    None => continue,
                }
            }
            WriterConn::Postgres { pool, schema, lock } => {
                // Each statement is a round trip, made while the tenant's lock is held:
                // the `BEGIN`, the lock and the cached tables' counter (`cache`), which
                // nearly every write reads, go with the first job's first statement, each
                // later job's savepoint with its own first statement, and the
                // announcement (delivered on commit, to every process on the database)
                // with the `COMMIT`. The first job runs in no savepoint (a savepoint is a
                // subtransaction, with its own bookkeeping).
                // A background job runs alone (`next_group`), planned afresh.
                let background = jobs.peek().is_some_and(|job| job.background);
                let session = match pool.get() {
                    Ok(session) => session,
                    Err(e) => return fail_all(jobs, &e),
                };
                session.begin_write(schema, *lock, Some(crate::cache::READ_GENERATION), background);
                let cache = TxCache::new(cache);
                let queue = (interactive, kept, &cache);
                let ran =
                    run_jobs(Tx::Postgres(&session), Savepoint::Whole, &mut jobs, queue, slice);
                let ended = match &ran {
                    None => session.end(false),
                    Some((kept, savepoint)) => {
                        // The release, or the announcement, fails if a statement of the
                        // last job failed and the job went on (PostgreSQL then refuses
                        // all but a rollback); a bare `COMMIT` would roll back without a
                        // word, so a group with neither checks with a `SELECT`.
                        let release = match savepoint {
                            Savepoint::Used => format!("RELEASE {SAVEPOINT}; "),
                            _ => String::new(),
                        };
                        // Schema names are `[a-z][a-z0-9_]*`: safe as a literal.
                        let notify = match kept.iter().filter_map(|(_, seq)| *seq).max() {
                            Some(seq) => {
                                format!("SELECT pg_notify('{CHANGES_CHANNEL}', '{schema} {seq}'); ")
                            }
                            None if release.is_empty() => "SELECT 1; ".to_string(),
                            None => String::new(),
                        };
                        let done = match session.forget_unsent_begin() {
                            // Its jobs asked nothing of the database.
                            true => Ok(()),
                            false => session.batch(&format!("{release}{notify}COMMIT")),
                        };
                        if done.is_err() {
                            let _ = session.end(false);
                        }
                        done
                    }
                };
                pool.put(session);
                let ran = ran.map(|(kept, _)| kept);
                match ran {
                    Some(kept) => (kept, ended),
                    None => continue,
                }
            }
        };
        match ended {
            Ok(()) => {
                if let Some(seq) = kept.iter().filter_map(|(_, seq)| *seq).max() {
                    committed(seq);
                }
                let held = started.elapsed().as_nanos() as u64;
                for (job, _) in kept {
                    job.done.held.store(held, Ordering::Relaxed);
                    job.done.finish(Outcome::Committed);
                }
            }
            Err(e) => fail_all(kept.into_iter().map(|(job, _)| job), &e),
        }
    }
}

/// Fails every job with the database's error.
fn fail_all(jobs: impl Iterator<Item = Job>, e: &Error) {
    let message = e.to_string();
    for job in jobs {
        job.done.finish(Outcome::Failed(Error::Database(message.clone())));
    }
}

/// Runs jobs one after another in `tx`, finishing those that fail: the ones to commit,
/// with their last sequence numbers, or `None` when the transaction is given up, by the
/// database or by a first job that failed without a savepoint (the jobs run so far are
/// failed; the rest are left to the next transaction).
fn run_jobs(
    tx: Tx<'_>,
    mut savepoint: Savepoint,
    jobs: &mut dyn Iterator<Item = Job>,
    queue: (&AtomicUsize, &crate::changes::KeptTypes, &TxCache),
    slice: Option<Duration>,
) -> Option<(Vec<Kept>, Savepoint)> {
    let mut kept: Vec<Kept> = Vec::new();
    for job in &mut *jobs {
        match run_job(tx, &mut savepoint, &job, queue, slice) {
            Ok(seq) => kept.push((job, seq)),
            Err(outcome) => job.done.finish(outcome),
        }
        if tx.lost() || savepoint == Savepoint::Broken {
            // The kept jobs' changes are gone with the transaction.
            let lost = Error::Database("the transaction was rolled back by the database".into());
            fail_all(kept.into_iter().map(|(job, _)| job), &lost);
            return None;
        }
    }
    Some((kept, savepoint))
}

/// A job whose changes are to be committed, with its last sequence number.
type Kept = (Job, Option<i64>);

/// The savepoint each job of a group runs in, so that one failing leaves the others'
/// changes: its name, and where the group stands with it.
const SAVEPOINT: &str = "quire_write";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Savepoint {
    /// None open, and none needed: the next job is the transaction's first, so if it
    /// fails the transaction is rolled back and the rest run in another. A savepoint is
    /// not free. On SQLite, while one is open each page the job changes is copied to the
    /// statement journal, which in memory each statement's end walks from its start: a
    /// 50,000-instance job of `quire generate` in a savepoint made a 100,000-instance
    /// run take 150 s instead of 13, and it grew with the square of the job. On
    /// PostgreSQL it is a subtransaction, with an id and a release of its own.
    Whole,
    /// None open.
    None,
    /// Open, holding a job's kept changes: released as the next one starts, or as the
    /// group commits.
    Used,
    /// The transaction cannot go on: a job's statement failed and the job went on, a
    /// rollback to the savepoint failed, or the first job failed without one. The group
    /// is rolled back.
    Broken,
}

/// Runs one job in a savepoint: `Ok` with its last sequence number when it is to be
/// committed, or the outcome it ends with now.
fn run_job(
    tx: Tx<'_>,
    savepoint: &mut Savepoint,
    job: &Job,
    (interactive, kept, cache): (&AtomicUsize, &crate::changes::KeptTypes, &TxCache),
    slice: Option<Duration>,
) -> Result<Option<i64>, Outcome> {
    let whole = *savepoint == Savepoint::Whole;
    let opened = match *savepoint {
        Savepoint::Whole => Ok(()),
        Savepoint::None | Savepoint::Broken => tx.savepoint(&format!("SAVEPOINT {SAVEPOINT}")),
        Savepoint::Used => tx.savepoint(&format!("RELEASE {SAVEPOINT}; SAVEPOINT {SAVEPOINT}")),
    };
    if let Err(e) = opened {
        *savepoint = Savepoint::Broken;
        return Err(Outcome::Failed(e));
    }
    *savepoint = Savepoint::None;
    // Read per job, not per group: a job that starts a publisher keeps the bodies of
    // every job after it, in its own group too.
    let mut writer = Writer::new(tx, interactive, slice, kept.get(), Some(cache));
    // SAFETY: the caller is blocked in `submit` until `done` is finished, which happens
    // after this borrow ends; no other thread runs this job (it left the queue once).
    let run = unsafe { &mut *job.run };
    let ran = std::panic::catch_unwind(AssertUnwindSafe(|| run(&mut writer)));
    let result = match ran {
        Ok(true) => writer.flush().map(|()| writer.last_seq()).map_err(Outcome::Failed),
        Ok(false) => Err(Outcome::RolledBack),
        Err(payload) => Err(Outcome::Panicked(payload)),
    };
    drop(writer);
    if tx.savepoint_failed() {
        // Sent with the job's first statement, which failed with it: the savepoint
        // before is still there, and a rollback to it would take the last job's changes.
        tx.discard_deferred();
        *savepoint = Savepoint::Broken;
        return match result {
            Err(outcome) => Err(outcome),
            Ok(_) => Err(Outcome::Failed(Error::Database(
                "the transaction was rolled back by the database".into(),
            ))),
        };
    }
    if result.is_ok() {
        // Released as the next job starts, or by the commit.
        *savepoint = if whole { Savepoint::None } else { Savepoint::Used };
        return result;
    }
    // Its deferred writes not yet sent go with it.
    tx.discard_deferred();
    if whole {
        // Its changes go with the transaction; the jobs after it run in another.
        *savepoint = Savepoint::Broken;
        return result;
    }
    // This job's changes go, and PostgreSQL's transaction is usable again for the rest
    // of the group.
    if tx.batch(&format!("ROLLBACK TO {SAVEPOINT}; RELEASE {SAVEPOINT}")).is_err() {
        *savepoint = Savepoint::Broken;
    }
    result
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::fixtures::{THINGS, tenant};
    use crate::{ColumnValue, Error, Tenant};

    /// The `parent` column of a thing, unused here.
    const NO_PARENT: [ColumnValue; 1] = [ColumnValue::Null];

    fn counter(tenant: &Tenant) -> i64 {
        let body = tenant.read(|r| r.get(&THINGS, "counter")).unwrap().unwrap().body;
        body.parse().unwrap()
    }

    /// A write that carries on past a failed statement: SQLite keeps its other changes,
    /// PostgreSQL gives the whole transaction up. Either way what the write reports is
    /// what the database holds, and the next write goes through.
    #[test]
    fn a_write_past_a_failed_statement_reports_what_was_kept() {
        let (_dir, tenant) = tenant();
        let written = tenant.write(|w| {
            w.insert(&THINGS, "once", 1, "{}", &NO_PARENT)?;
            let again = w.insert(&THINGS, "once", 1, "{}", &NO_PARENT);
            assert!(again.is_err(), "a second insert of one id");
            Ok::<_, Error>(())
        });
        let kept = tenant.read(|r| r.exists(&THINGS, "once")).unwrap();
        assert_eq!(written.is_ok(), kept, "{written:?}");
        tenant.write(|w| w.insert(&THINGS, "next", 1, "{}", &NO_PARENT)).unwrap();
        assert!(tenant.read(|r| r.exists(&THINGS, "next")).unwrap());
    }

    /// Eight threads write at once: each write reads a counter, bumps it and adds a
    /// record; every fifth fails after writing and one panics. Grouped or not, the
    /// outcome must be that of the writes run one at a time.
    #[test]
    fn grouped_writes_keep_each_writes_outcome() {
        let (_dir, tenant) = tenant();
        tenant.write(|w| w.insert(&THINGS, "counter", 1, "0", &NO_PARENT)).unwrap();
        const THREADS: usize = 8;
        const WRITES: usize = 40;
        let threads: Vec<_> = (0..THREADS)
            .map(|t| {
                let tenant = Arc::clone(&tenant);
                std::thread::spawn(move || {
                    let mut kept = 0;
                    for n in 0..WRITES {
                        let id = format!("t{t}-{n}");
                        let fails = n % 5 == 4;
                        let panics = t == 3 && n == 7;
                        let written =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                tenant.write(|w| {
                                    let now: i64 =
                                        w.get(&THINGS, "counter")?.unwrap().body.parse().unwrap();
                                    w.update(
                                        &THINGS,
                                        "counter",
                                        1,
                                        &(now + 1).to_string(),
                                        &NO_PARENT,
                                    )?;
                                    w.insert(&THINGS, &id, 1, "{}", &NO_PARENT)?;
                                    // Long enough for the other threads to queue up behind.
                                    std::thread::sleep(std::time::Duration::from_micros(300));
                                    assert!(!panics, "a write panics");
                                    if fails {
                                        Err(Error::Corrupt("refused".into()))
                                    } else {
                                        Ok(())
                                    }
                                })
                            }));
                        let present = tenant.read(|r| r.exists(&THINGS, &id)).unwrap();
                        match written {
                            Ok(Ok(())) => {
                                assert!(present, "{id}: a committed write is visible at once");
                                kept += 1;
                            }
                            Ok(Err(_)) => assert!(!present && fails, "{id} failed alone"),
                            Err(_) => assert!(!present && panics, "{id} panicked alone"),
                        }
                    }
                    kept
                })
            })
            .collect();
        let kept: i64 = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(kept, (THREADS * WRITES - THREADS * WRITES / 5 - 1) as i64);
        assert_eq!(counter(&tenant), kept, "no bump lost, none from a failed write");
        assert_eq!(tenant.read(|r| r.count(&THINGS)).unwrap() as i64, kept + 1);
        let commits = tenant.writer.commits.load(std::sync::atomic::Ordering::Relaxed);
        assert!(
            commits < (THREADS * WRITES) as u64 / 2,
            "{commits} commits for {} writes: they were not grouped",
            THREADS * WRITES
        );
        // The change log has one row per committed change, in commit order.
        let seqs: Vec<i64> =
            tenant.read(|r| r.changes_since(0, 10_000)).unwrap().iter().map(|c| c.seq).collect();
        assert_eq!(seqs.len() as i64, 1 + 2 * kept);
        assert!(seqs.windows(2).all(|p| p[0] < p[1]));
        assert_eq!(tenant.last_seq().unwrap(), *seqs.last().unwrap());
    }

    /// Writes grouped with one that carries on past a failed statement (PostgreSQL then
    /// refuses the rest of the transaction, the next write's savepoint included): each
    /// write's outcome is still what the database holds.
    #[test]
    fn grouped_writes_past_a_failed_statement_report_what_was_kept() {
        let (_dir, tenant) = tenant();
        tenant.write(|w| w.insert(&THINGS, "taken", 1, "{}", &NO_PARENT)).unwrap();
        const THREADS: usize = 6;
        const WRITES: usize = 30;
        let threads: Vec<_> = (0..THREADS)
            .map(|t| {
                let tenant = Arc::clone(&tenant);
                std::thread::spawn(move || {
                    let mut kept = 0;
                    for n in 0..WRITES {
                        let id = format!("t{t}-{n}");
                        let written = tenant.write(|w| {
                            w.insert(&THINGS, &id, 1, "{}", &NO_PARENT)?;
                            if (t + n) % 4 == 0 {
                                let again = w.insert(&THINGS, "taken", 1, "{}", &NO_PARENT);
                                assert!(again.is_err(), "an insert of a taken id");
                            }
                            std::thread::sleep(std::time::Duration::from_micros(300));
                            Ok::<_, Error>(())
                        });
                        let present = tenant.read(|r| r.exists(&THINGS, &id)).unwrap();
                        assert_eq!(written.is_ok(), present, "{id}: {written:?}");
                        kept += i64::from(present);
                    }
                    kept
                })
            })
            .collect();
        let kept: i64 = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert!(kept > 0, "no write was kept");
        assert_eq!(tenant.read(|r| r.count(&THINGS)).unwrap() as i64, kept + 1);
        tenant.write(|w| w.insert(&THINGS, "next", 1, "{}", &NO_PARENT)).unwrap();
        assert!(tenant.read(|r| r.exists(&THINGS, "next")).unwrap());
    }

    #[test]
    fn a_background_write_gives_way_to_an_interactive_one() {
        let (_dir, tenant) = tenant();
        let (started, wait_started) = std::sync::mpsc::channel();
        let background = {
            let tenant = tenant.clone();
            std::thread::spawn(move || {
                tenant.write_background(|w| {
                    started.send(()).unwrap();
                    for n in 0..10_000u64 {
                        w.insert(&THINGS, &format!("bulk-{n}"), 1, "{}", &NO_PARENT)?;
                        if w.should_end() {
                            return Ok::<_, Error>(n + 1);
                        }
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                    Ok(10_000)
                })
            })
        };
        wait_started.recv().unwrap();
        tenant.write(|w| w.insert(&THINGS, "desk", 1, "{}", &NO_PARENT)).unwrap();
        let written = background.join().unwrap().unwrap();
        assert!(written < 10_000, "the background write did not end early");
        // Both committed: the interactive write after the part the background one did.
        assert!(tenant.read(|r| r.exists(&THINGS, "desk")).unwrap());
        assert_eq!(tenant.read(|r| r.count(&THINGS)).unwrap(), written + 1);
    }

    /// On PostgreSQL a background write's statements are planned for the tables as they
    /// are then (`Session::begin_write`), an interactive write's keep their cached plans.
    #[test]
    fn a_background_write_on_postgresql_plans_each_statement_afresh() {
        let (_dir, tenant) = tenant();
        if !tenant.is_shared() {
            return;
        }
        let mode = |w: &mut crate::Writer<'_>| {
            w.tx().query_one("SHOW plan_cache_mode", &[], |row| row.text(0))
        };
        assert_eq!(tenant.write_background(mode).unwrap(), "force_custom_plan");
        assert_eq!(tenant.write(mode).unwrap(), "auto");
    }

    #[test]
    fn a_background_write_ends_after_its_slice_while_the_desk_is_busy() {
        let (_dir, tenant) = tenant();
        // An interactive write has no slice: it ends when its work does.
        assert!(!tenant.write(|w| Ok::<_, Error>(w.should_end())).unwrap());
        // It makes the desk busy.
        let started = std::time::Instant::now();
        let written = tenant
            .write_background(|w| {
                let mut n = 0u64;
                while !w.should_end() {
                    w.insert(&THINGS, &format!("bulk-{n}"), 1, "{}", &NO_PARENT)?;
                    n += 1;
                }
                Ok::<_, Error>(n)
            })
            .unwrap();
        assert!(started.elapsed() >= super::BACKGROUND_SLICE);
        assert_eq!(tenant.read(|r| r.count(&THINGS)).unwrap(), written);
    }

    #[test]
    fn a_lone_write_commits_and_a_failed_one_leaves_nothing() {
        let (_dir, tenant) = tenant();
        let failed: crate::Result<()> = tenant.write(|w| {
            w.insert(&THINGS, "a", 1, "{}", &NO_PARENT)?;
            w.insert(&THINGS, "a", 1, "{}", &NO_PARENT)
        });
        assert!(matches!(failed, Err(Error::DuplicateId { .. })), "{failed:?}");
        assert!(!tenant.read(|r| r.exists(&THINGS, "a")).unwrap());
        tenant.write(|w| w.insert(&THINGS, "a", 1, "{}", &NO_PARENT)).unwrap();
        assert!(tenant.read(|r| r.exists(&THINGS, "a")).unwrap());
        // The writer connection serves pragmas and checkpoints between groups.
        tenant.set_write_cache(Some(8 << 20)).unwrap();
        assert!(tenant.checkpoint().unwrap());
        tenant.write(|w| w.insert(&THINGS, "b", 1, "{}", &NO_PARENT)).unwrap();
    }
}
