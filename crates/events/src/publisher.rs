//! The publisher: one task per tenant follows the change log and produces each change's
//! event, after its commit, at least once and in commit order per record.
//!
//! A tenant's loop: read up to a batch of changes after the cursor (with their kept
//! bodies), build their events, produce them and wait for every acknowledgement, and
//! only then move past them. When the batch was full the next one is read meanwhile;
//! otherwise the next is read a linger after this one went, so that a busy desk makes
//! a few large produce requests a second rather than many small ones; a full batch, of a
//! replay or a backlog, is made and produced on every core. The cursor is written to
//! the tenant's own database at most every 250 ms and whenever the log is caught up. A
//! crash or an outage sends again what came after the written cursor; nothing before it
//! is ever skipped.
//! Requests never wait on any of this: the write path only keeps the bodies.
//!
//! The bodies of published changes are dropped once older than the retention time, so
//! the log keeps what a replay may need and no more.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use store::{Store, Tenant};

use crate::envelope::{self, Event, ItemInstances};
use crate::kafka::{KafkaOptions, Producer};

/// The publisher's name in each tenant's store: its cursor and kept bodies are filed
/// under it.
pub const PUBLISHER: &str = "kafka";

/// How the publisher runs.
#[derive(Debug, Clone)]
pub struct Options {
    pub kafka: KafkaOptions,
    /// Most changes read, and events produced, at a time.
    pub batch: usize,
    /// How long to wait after a change for more to send with it, and the least time
    /// between two batches that are not full: while the desk is busy, fewer and larger
    /// produce requests. Each batch is a request per partition it touches, and the
    /// brokers' work grows with requests more than with events.
    pub linger: Duration,
    /// How long the bodies of published changes are kept for replays.
    pub retain: Duration,
}

impl Options {
    pub fn new(kafka: KafkaOptions) -> Options {
        Options {
            kafka,
            batch: 5_000,
            linger: Duration::from_millis(100),
            retain: Duration::from_secs(24 * 3600),
        }
    }
}

/// What `/admin/health` and the metrics show of one tenant's publishing.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TenantStatus {
    /// The cursor as written: every change up to it is published (acknowledged by the
    /// brokers). Written at most every 250 ms while events flow.
    pub published: i64,
    /// The last change in the log when last looked.
    pub head: i64,
    /// Changes committed but not yet published.
    pub lag_changes: i64,
    /// How long the oldest unpublished change has waited, in milliseconds.
    pub oldest_unpublished_ms: u64,
    /// Events published since the process started.
    pub events: u64,
    /// Changes of published types that had no bodies to publish (written before the
    /// publisher started, or unreadable), since the process started.
    pub skipped: u64,
    /// Commit-to-acknowledgement time of the events published since the process
    /// started, in milliseconds: upper bounds of the median, 95th percentile and worst.
    pub lag_ms: LagSummary,
    /// The last failure, cleared by the next success.
    pub last_error: Option<String>,
    /// Whether this node publishes the tenant's events now: it holds the publisher's
    /// lease. Other nodes on the store stand by, and take over if it dies.
    pub publishing: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct LagSummary {
    pub p50: u64,
    pub p95: u64,
    pub max: u64,
}

/// Publishes every tenant's changes until dropped.
pub struct Publisher {
    // Its own runtime: the publisher runs the same under `quire serve` and a command
    // that has none. Shut down in the background on drop, which an async context allows.
    runtime: Option<tokio::runtime::Runtime>,
    shared: Arc<Shared>,
}

struct Shared {
    store: Arc<Store>,
    options: Options,
    status: Mutex<BTreeMap<String, Tracked>>,
    stopping: AtomicBool,
    writes: Writes,
}

/// The publisher's writes (registrations, cursors, dropped bodies), run one at a time on
/// a thread at ordinary priority. The publisher's own threads are lowered, so that the
/// desk takes the CPU first; a lowered thread holding a tenant's writer would keep the
/// desk waiting instead (`store::group`).
struct Writes(std::sync::mpsc::Sender<Box<dyn FnOnce() + Send>>);

impl Writes {
    /// Starts the thread; call it from a thread at ordinary priority, which it inherits.
    fn start() -> std::io::Result<Writes> {
        let (sender, jobs) = std::sync::mpsc::channel::<Box<dyn FnOnce() + Send>>();
        std::thread::Builder::new().name("quire-events-writes".into()).spawn(move || {
            for job in jobs {
                job();
            }
        })?;
        Ok(Writes(sender))
    }

    /// Runs `f` on the thread; `None` if it is gone.
    async fn run<T: Send + 'static>(&self, f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (done, result) = tokio::sync::oneshot::channel();
        let job = Box::new(move || {
            let _ = done.send(f());
        });
        self.0.send(job).ok()?;
        result.await.ok()
    }
}

#[derive(Default)]
struct Tracked {
    status: TenantStatus,
    lag: Histogram,
}

/// Why a publisher could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error("cannot start the event publisher's runtime: {0}")]
    Runtime(#[from] std::io::Error),
}

impl Publisher {
    /// Registers the publisher with every tenant (their writes keep bodies from now on,
    /// even while Kafka is unreachable) and starts following them; tenants created later
    /// are picked up within seconds.
    pub fn start(store: Arc<Store>, options: Options) -> Result<Publisher, StartError> {
        for name in store.tenant_names() {
            register(&*store.tenant(&name)?)?;
        }
        // Two threads, for a backlog's batches (`Producer::produce`'s `spread`).
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("quire-events")
            // Reading the log and making events is background work: the desk first.
            .on_thread_start(|| store::nice_current_thread_to(NICENESS))
            .enable_all()
            .build()?;
        let shared = Arc::new(Shared {
            store,
            options,
            status: Mutex::new(BTreeMap::new()),
            stopping: AtomicBool::new(false),
            writes: Writes::start()?,
        });
        runtime.spawn(supervise(shared.clone()));
        Ok(Publisher { runtime: Some(runtime), shared })
    }

    /// Each followed tenant's publishing, by tenant name. Where the publisher stands is
    /// read from the tenant's store, not remembered: a publisher stuck on a broker that
    /// is away shows its lag growing.
    pub fn status(&self) -> BTreeMap<String, TenantStatus> {
        let tracked: Vec<(String, TenantStatus)> = {
            let status = self.shared.status.lock().unwrap();
            status
                .iter()
                .map(|(name, tracked)| {
                    let mut status = tracked.status.clone();
                    status.lag_ms = tracked.lag.summary();
                    (name.clone(), status)
                })
                .collect()
        };
        tracked
            .into_iter()
            .map(|(name, mut status)| {
                let position = self.shared.store.tenant(&name).and_then(|tenant| position(&tenant));
                match position {
                    Ok((published, head, oldest)) => {
                        status.published = published;
                        status.head = head;
                        status.lag_changes = (head - published).max(0);
                        status.oldest_unpublished_ms = oldest;
                    }
                    Err(e) => status.last_error = Some(e.to_string()),
                }
                (name, status)
            })
            .collect()
    }

    /// Blocks until every tenant has published up to the head of its log as it is now,
    /// or `timeout` passes; says whether they did. For commands that publish and exit.
    pub fn wait_until_published(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let heads: Vec<(String, i64)> = self
            .shared
            .store
            .tenant_names()
            .into_iter()
            .filter_map(|name| {
                Some((name.clone(), self.shared.store.tenant(&name).ok()?.last_seq().ok()?))
            })
            .collect();
        loop {
            let status = self.status();
            let done = heads
                .iter()
                .all(|(name, head)| status.get(name).is_some_and(|s| s.published >= *head));
            if done {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
        // Another node takes over at once rather than when the leases run out.
        let store = &self.shared.store;
        for tenant in store.tenant_names().iter().filter_map(|name| store.tenant(name).ok()) {
            if let Err(e) = tenant.release_lease(PUBLISHER_LEASE) {
                tracing::warn!(tenant = tenant.name(), error = %e, "cannot hand on publishing");
            }
        }
    }
}

/// A tenant's cursor, the head of its log, and how long the first change after the
/// cursor has waited (ms; 0 when there is none).
fn position(tenant: &Tenant) -> Result<(i64, i64, u64), store::Error> {
    tenant.read(|r| {
        let head = r.last_seq()?;
        let published = r.published(PUBLISHER)?.unwrap_or(head);
        let oldest = match r.changes_since(published, 1)?.first() {
            Some(change) => waited_ms(&change.at),
            None => 0,
        };
        Ok((published, head, oldest))
    })
}

/// Milliseconds since an RFC 3339 commit time.
fn waited_ms(at: &str) -> u64 {
    chrono::DateTime::parse_from_rfc3339(at)
        .map(|at| (chrono::Utc::now().timestamp_millis() - at.timestamp_millis()).max(0) as u64)
        .unwrap_or(0)
}

/// Records the publisher in a tenant's store, with the record types it publishes.
fn register(tenant: &Tenant) -> Result<store::Publisher, store::Error> {
    tenant.start_publisher(PUBLISHER, &envelope::record_types())
}

/// Starts a follower for each tenant, and for each tenant created later.
async fn supervise(shared: Arc<Shared>) {
    let mut followed = std::collections::HashSet::new();
    while !shared.stopping.load(Ordering::SeqCst) {
        for name in shared.store.tenant_names() {
            if followed.contains(&name) {
                continue;
            }
            let Ok(tenant) = shared.store.tenant(&name) else { continue };
            let registered = {
                let tenant = tenant.clone();
                shared.writes.run(move || register(&tenant)).await
            };
            match registered {
                Some(Ok(_)) => {
                    followed.insert(name.clone());
                    shared.status.lock().unwrap().entry(name).or_default();
                    tokio::spawn(follow(shared.clone(), tenant));
                }
                Some(Err(e)) => {
                    tracing::warn!(tenant = %name, error = %e, "cannot register the event publisher")
                }
                None => {
                    tracing::warn!(tenant = %name, "cannot register the event publisher")
                }
            }
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
}

/// Changes read from the log and the events made of them.
struct Batch {
    /// The last change read: published once the batch is.
    through: i64,
    events: Vec<Event>,
    skipped: u64,
    /// Whether the read stopped at the batch limit: more is waiting.
    full: bool,
}

/// Where a follower stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Position {
    /// The last change whose event the brokers acknowledged.
    published: i64,
    /// The cursor as last read or written in the store; behind `published` until the
    /// next cursor write.
    stored: i64,
}

/// The publisher threads' niceness: below the desk, so that
/// publishing adds little to a check-out's time, and above the index builds and the
/// import's parsing (at 19 or idle), so that during an import it keeps pace with the
/// writes. At 19 its lag during a 100,000-record import reached 1.8 s at p95
/// (docs/benchmarks.md, row AC).
const NICENESS: u8 = 10;

/// The lease a tenant's publishing node holds (`store::Tenant::hold_lease`).
const PUBLISHER_LEASE: &str = "publisher:events";

/// How often a standing-by node asks for the lease.
const STANDBY_LOOK: Duration = Duration::from_secs(1);

/// How often the cursor is written while events flow. Writing it after every batch
/// would put a write on the desk's writer many times a second and the write's wait in
/// every batch's lag; a crash sends at most this much again (at least once).
const CURSOR_EVERY: Duration = Duration::from_millis(250);

/// Follows one tenant's log until the publisher stops.
async fn follow(shared: Arc<Shared>, tenant: Arc<Tenant>) {
    let name = tenant.name().to_string();
    let options = &shared.options;
    let mut producer: Option<Producer> = None;
    let mut position: Option<Position> = None;
    // What was read while the batch before it was produced (`None` inside: nothing).
    let mut ready: Option<Option<Batch>> = None;
    let mut backoff = Duration::from_millis(100);
    let mut cursor_written = Instant::now();
    let mut last_compaction = Instant::now();
    let mut leased: Option<Instant> = None;
    while !shared.stopping.load(Ordering::SeqCst) {
        // One node at a time publishes a tenant's events: the one holding the lease.
        if leased.is_none_or(|at| at.elapsed() >= store::LEASE_TTL / 3) {
            let held = {
                let tenant = tenant.clone();
                shared
                    .writes
                    .run(move || tenant.hold_lease(PUBLISHER_LEASE, store::LEASE_TTL))
                    .await
            };
            let holds = matches!(held, Some(Ok(true)));
            shared.status.lock().unwrap().entry(name.clone()).or_default().status.publishing =
                holds;
            if holds {
                leased = Some(Instant::now());
            } else {
                if leased.take().is_some() {
                    tracing::warn!(tenant = %name, "another node publishes this tenant's events now");
                }
                if let Some(Err(e)) = held {
                    shared.failed(&name, &e.to_string());
                }
                // Standing by: whoever publishes reads from the stored cursor.
                (position, ready) = (None, None);
                tokio::time::sleep(STANDBY_LOOK).await;
                continue;
            }
        }
        // Connected, with the tenant's topics made, before the first change is read: a
        // desk's first events do not wait for the topics (seconds on a fresh cluster).
        if producer.is_none() {
            match Producer::connect(options.kafka.clone(), &name).await {
                Ok(connected) => {
                    producer = Some(connected);
                    shared.recovered(&name);
                }
                Err(e) => {
                    shared.failed(&name, &e.to_string());
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                    continue;
                }
            }
        }
        let next = match ready.take() {
            Some(next) => next,
            None => match read_now(&tenant, position, options.batch).await {
                Ok(Ok((now, next))) => {
                    position = Some(now);
                    next
                }
                Ok(Err(e)) => {
                    shared.failed(&name, &e.to_string());
                    tokio::time::sleep(backoff).await;
                    continue;
                }
                Err(e) => {
                    shared.failed(&name, &e.to_string());
                    tokio::time::sleep(backoff).await;
                    continue;
                }
            },
        };
        let Some(batch) = next else {
            // Idle: the cursor catches up, then wait for a change.
            let Some(now) = position else { continue };
            if now.published > now.stored {
                position = store_cursor(&shared, &tenant, now).await;
                cursor_written = Instant::now();
            }
            let tenant = tenant.clone();
            let _ = tokio::task::spawn_blocking(move || {
                tenant.wait_for_change(now.published, Duration::from_secs(1))
            })
            .await;
            tokio::time::sleep(options.linger).await;
            continue;
        };
        let Some(at) = position else { continue };
        // A full batch leaves more waiting: the next one is read while this one is
        // produced. After one that was not, the next is read a linger later.
        let after = Position { published: batch.through, stored: at.stored };
        let produced = Instant::now();
        let ahead = batch.full.then(|| {
            let (tenant, limit) = (tenant.clone(), options.batch);
            tokio::task::spawn_blocking(move || read_batch(&tenant, Some(after), limit))
        });
        let connected = producer.as_mut().expect("connected above");
        let stamps: Vec<i64> = batch.events.iter().map(|event| event.timestamp).collect();
        // A full batch, of a replay or a backlog, is spread over the cores, as its events
        // were made (`make_events`).
        if let Err(e) = connected.produce(&name, batch.events, batch.full).await {
            tracing::warn!(tenant = %name, error = %e, "publishing events failed; sending again");
            shared.failed(&name, &e.to_string());
            // A fresh connection next time: the old one may point at a broker now gone.
            // The position stays where it was, so the batch is read again from the log.
            producer = None;
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(5));
            continue;
        }
        backoff = Duration::from_millis(100);
        let acked_ms = chrono::Utc::now().timestamp_millis();
        tracing::debug!(tenant = %name, through = batch.through, events = stamps.len(), "published");
        {
            let mut status = shared.status.lock().unwrap();
            let tracked = status.entry(name.clone()).or_default();
            for stamp in &stamps {
                tracked.lag.record((acked_ms - stamp).max(0) as u64);
            }
            tracked.status.events += stamps.len() as u64;
            tracked.status.skipped += batch.skipped;
            tracked.status.last_error = None;
        }
        let read = match ahead {
            Some(ahead) => Some(ahead.await),
            None => None,
        };
        position = Some(after);
        if cursor_written.elapsed() >= CURSOR_EVERY {
            position = store_cursor(&shared, &tenant, after).await;
            cursor_written = Instant::now();
        }
        // The batch read ahead follows on only if it was read from where this one ended:
        // a replay that moved the cursor meanwhile makes the next round read again.
        if let (Some(now), Some(Ok(Ok((read_at, next))))) = (position, read)
            && read_at == after
        {
            position = Some(Position { published: after.published, stored: now.stored });
            ready = Some(next);
        }
        if ready.is_none() {
            tokio::time::sleep(options.linger.saturating_sub(produced.elapsed())).await;
        }
        if last_compaction.elapsed() >= COMPACTION_EVERY {
            last_compaction = Instant::now();
            let retain =
                chrono::Duration::from_std(options.retain).unwrap_or(chrono::Duration::MAX);
            let (tenant, cutoff) = (tenant.clone(), chrono::Utc::now() - retain);
            match shared.writes.run(move || drop_old_bodies(&tenant, cutoff)).await {
                Some(Ok(n)) if n > 0 => {
                    tracing::debug!(tenant = %name, dropped = n, "dropped published bodies")
                }
                Some(Err(e)) => {
                    tracing::warn!(tenant = %name, error = %e, "cannot drop published bodies")
                }
                _ => {}
            }
        }
    }
}

/// A batch as read, with the position it was read from.
type Read = (Position, Option<Batch>);

/// Reads the next batch on a blocking thread and waits for it.
async fn read_now(
    tenant: &Arc<Tenant>,
    position: Option<Position>,
    limit: usize,
) -> Result<Result<Read, store::Error>, tokio::task::JoinError> {
    let tenant = tenant.clone();
    tokio::task::spawn_blocking(move || read_batch(&tenant, position, limit)).await
}

/// Writes the cursor; the position to go on from, `None` (read it again) when a replay
/// moved the cursor meanwhile or the write failed.
async fn store_cursor(shared: &Shared, tenant: &Arc<Tenant>, at: Position) -> Option<Position> {
    let moved = {
        let tenant = tenant.clone();
        shared.writes.run(move || move_cursor(&tenant, at.stored, at.published)).await
    };
    match moved {
        Some(Ok(true)) => Some(Position { published: at.published, stored: at.published }),
        Some(Ok(false)) => None,
        // The events are out; the next round sends them again (at least once).
        Some(Err(e)) => {
            shared.failed(tenant.name(), &e.to_string());
            None
        }
        None => {
            shared.failed(tenant.name(), "the publisher's write thread is gone");
            None
        }
    }
}

/// How often published bodies past the retention time are dropped.
const COMPACTION_EVERY: Duration = Duration::from_secs(60);

impl Shared {
    fn failed(&self, tenant: &str, error: &str) {
        let mut status = self.status.lock().unwrap();
        status.entry(tenant.to_string()).or_default().status.last_error = Some(error.to_string());
    }

    fn recovered(&self, tenant: &str) {
        let mut status = self.status.lock().unwrap();
        status.entry(tenant.to_string()).or_default().status.last_error = None;
    }
}

/// The next batch after `position` (or after the stored cursor, when there is no position
/// or a replay moved the cursor since), with the position it was read from.
fn read_batch(
    tenant: &Tenant,
    position: Option<Position>,
    limit: usize,
) -> Result<Read, store::Error> {
    let (at, read) = tenant.read(|r| {
        let Some(stored) = r.published(PUBLISHER)? else {
            return Err(store::Error::Corrupt(format!(
                "tenant {} has no publisher",
                tenant.name()
            )));
        };
        let at = match position {
            Some(at) if at.stored == stored => at,
            _ => Position { published: stored, stored },
        };
        let after = at.published;
        let changes = r.changes_with_bodies(after, limit)?;
        let Some(through) = changes.last().map(|(c, _)| c.seq) else {
            return Ok((at, None));
        };
        let full = changes.len() >= limit;
        let mut skipped = 0;
        let mut publishable = Vec::with_capacity(changes.len());
        let mut instance_of: HashMap<String, Option<String>> = HashMap::new();
        for (change, bodies) in changes {
            if !envelope::TOPICS.iter().any(|(t, _, _)| *t == change.record_type) {
                continue;
            }
            let Some(bodies) = bodies else {
                skipped += 1;
                continue;
            };
            let instances = if change.record_type == inventory::ITEMS.record_type {
                let mut lookup = |body: &Option<String>| -> Result<Option<String>, store::Error> {
                    let Some(holdings) = body.as_deref().and_then(holdings_record_id) else {
                        return Ok(None);
                    };
                    if let Some(instance) = instance_of.get(&holdings) {
                        return Ok(instance.clone());
                    }
                    let instance =
                        r.get_column(&inventory::HOLDINGS, &holdings, "instance_id")?.flatten();
                    instance_of.insert(holdings, instance.clone());
                    Ok(instance)
                };
                ItemInstances { old: lookup(&bodies.old)?, new: lookup(&bodies.new)? }
            } else {
                ItemInstances::default()
            };
            publishable.push((change, bodies, instances));
        }
        Ok((at, Some((through, full, skipped, publishable))))
    })?;
    let Some((through, full, skipped, publishable)) = read else { return Ok((at, None)) };
    // Made after the read, which holds one of the tenant's readers no longer than it must.
    let (events, unpublishable) = make_events(tenant.name(), &publishable, full);
    Ok((at, Some(Batch { through, events, skipped: skipped + unpublishable, full })))
}

/// A change the publisher has read, with what its event needs.
type Publishable = (store::Change, store::Bodies, ItemInstances);

/// The events of `changes`, in their order, and how many could not be made. A full
/// batch, of a replay or a backlog, is split across the machine's cores (the threads
/// inherit the publisher's niceness). Any other batch, a busy desk's or an import's, is
/// made on this thread alone: on every core, the publisher took the processor from
/// them (docs/benchmarks.md, row AC).
fn make_events(tenant: &str, changes: &[Publishable], full: bool) -> (Vec<Event>, u64) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4);
    if !full || threads < 2 {
        return make_events_here(tenant, changes);
    }
    let parts = changes.chunks(changes.len().div_ceil(threads));
    std::thread::scope(|scope| {
        let made: Vec<_> =
            parts.map(|part| scope.spawn(move || make_events_here(tenant, part))).collect();
        let mut events = Vec::with_capacity(changes.len());
        let mut unpublishable = 0;
        for part in made {
            let (part, failed) =
                part.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            events.extend(part);
            unpublishable += failed;
        }
        (events, unpublishable)
    })
}

fn make_events_here(tenant: &str, changes: &[Publishable]) -> (Vec<Event>, u64) {
    let mut events = Vec::with_capacity(changes.len());
    let mut unpublishable = 0;
    for (change, bodies, instances) in changes {
        match envelope::event(tenant, change, bodies, instances) {
            Ok(Some(event)) => events.push(event),
            Ok(None) => {}
            Err(e) => {
                tracing::error!(tenant, error = %e, "a change cannot be published");
                unpublishable += 1;
            }
        }
    }
    (events, unpublishable)
}

/// An item body's `holdingsRecordId`, read without building the item.
fn holdings_record_id(body: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Probe<'a> {
        #[serde(rename = "holdingsRecordId", borrow)]
        holdings: Option<std::borrow::Cow<'a, str>>,
    }
    serde_json::from_str::<Probe<'_>>(body).ok()?.holdings.map(|h| h.into_owned())
}

/// Moves the cursor from `after` to `through`, unless it was moved meanwhile (a
/// replay rewound it): then the next round starts from where it is now.
fn move_cursor(tenant: &Tenant, after: i64, through: i64) -> Result<bool, store::Error> {
    // A background write: many a second while the desk is busy, it must not count as the
    // desk's, or an import would yield the writer to it as to a check-out.
    tenant.write_background(|w| {
        if w.published(PUBLISHER)? != Some(after) {
            return Ok(false);
        }
        w.set_published(PUBLISHER, through)?;
        Ok(true)
    })
}

/// Drops the bodies of changes published and committed before `cutoff`, a slice at a
/// time in background writes; returns how many.
fn drop_old_bodies(
    tenant: &Tenant,
    cutoff: chrono::DateTime<chrono::Utc>,
) -> Result<usize, store::Error> {
    const SLICE: i64 = 20_000;
    let cutoff = cutoff.to_rfc3339_opts(chrono::SecondsFormat::Millis, false);
    let bounds = tenant.read(|r| {
        let Some(first) = r.first_kept_body()? else { return Ok(None) };
        // Behind the slowest publisher.
        let Some(published) = r.publishers()?.iter().map(|p| p.published).min() else {
            return Ok(None);
        };
        Ok::<_, store::Error>(
            r.last_change_before(&cutoff, first - 1, published)?.map(|last| (first - 1, last)),
        )
    })?;
    let Some((mut after, last)) = bounds else { return Ok(0) };
    let mut dropped = 0;
    while after < last {
        let through = (after + SLICE).min(last);
        dropped += tenant.write_background(|w| w.drop_bodies(after, through))?;
        after = through;
    }
    Ok(dropped)
}

/// Why a replay was refused.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("tenant {0} has never published events: start the server with --kafka first")]
    NotPublishing(String),
    #[error("sequence number {from} is outside the change log (1 to {head})")]
    OutOfRange { from: i64, head: i64 },
    #[error(
        "the changes from {from} are no longer all kept: bodies are kept from sequence number {first} on"
    )]
    NotRetained { from: i64, first: i64 },
    #[error(transparent)]
    Store(#[from] store::Error),
}

/// What a replay will send again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Replay {
    pub from: i64,
    /// The last change published before the replay: the publisher sends `from..=through`
    /// again, then goes on.
    pub through: i64,
}

/// Rewinds a tenant's publisher to send every change from `from` again, for a consumer
/// that lost its state. The running publisher (this process's or another's on the same
/// data directory) picks it up at its next batch. Refused when a change of a published
/// type from `from` on has lost its bodies to retention.
pub fn replay(tenant: &Tenant, from: i64) -> Result<Replay, ReplayError> {
    tenant.write(|w| {
        let through = w
            .published(PUBLISHER)?
            .ok_or_else(|| ReplayError::NotPublishing(tenant.name().to_string()))?;
        let head = w.last_seq()?;
        if from < 1 || from > head + 1 {
            return Err(ReplayError::OutOfRange { from, head });
        }
        if from > through {
            return Ok(Replay { from, through });
        }
        let types = envelope::record_types();
        let first = w.first_kept_body()?.unwrap_or(through + 1);
        if first > from && w.count_changes(from - 1, first - 1, &types)? > 0 {
            return Err(ReplayError::NotRetained { from, first });
        }
        w.set_published(PUBLISHER, from - 1)?;
        Ok(Replay { from, through })
    })
}

/// Counts of lags in buckets of a 1-2-5 series, in milliseconds.
#[derive(Default)]
struct Histogram {
    counts: [u64; BOUNDS.len() + 1],
    max: u64,
}

const BOUNDS: [u64; 16] =
    [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 60_000, 300_000];

impl Histogram {
    fn record(&mut self, ms: u64) {
        let bucket = BOUNDS.iter().position(|b| ms <= *b).unwrap_or(BOUNDS.len());
        self.counts[bucket] += 1;
        self.max = self.max.max(ms);
    }

    /// The upper bound of the bucket holding the `q` quantile (the maximum for the last).
    fn quantile(&self, q: f64) -> u64 {
        let total: u64 = self.counts.iter().sum();
        if total == 0 {
            return 0;
        }
        let rank = ((total as f64) * q).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                return BOUNDS.get(i).copied().unwrap_or(self.max).min(self.max);
            }
        }
        self.max
    }

    fn summary(&self) -> LagSummary {
        LagSummary { p50: self.quantile(0.5), p95: self.quantile(0.95), max: self.max }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lag_quantiles_are_bucket_bounds_capped_by_the_worst() {
        let mut h = Histogram::default();
        assert_eq!(h.summary(), LagSummary::default());
        for ms in [3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 700] {
            h.record(ms);
        }
        assert_eq!(h.summary(), LagSummary { p50: 5, p95: 5, max: 700 });
        h.record(700);
        assert_eq!(h.quantile(0.95), 700, "the 1,000 ms bucket's bound is capped by the worst");
    }

    /// A tenant whose publisher has published `n` instance changes.
    fn published(n: usize) -> (tempfile::TempDir, Arc<Tenant>) {
        let dir = tempfile::tempdir().unwrap();
        let store =
            Store::open(dir.path(), store::testing::options(), &[inventory::MIGRATIONS]).unwrap();
        let (tenant, _) = store.create_tenant("t").unwrap();
        register(&tenant).unwrap();
        let columns =
            [store::ColumnValue::Null, store::ColumnValue::Null, store::ColumnValue::Null];
        for i in 0..n {
            let id = format!("i{i}");
            tenant.write(|w| w.insert(&inventory::INSTANCES, &id, 1, "{}", &columns)).unwrap();
        }
        let head = tenant.last_seq().unwrap();
        tenant.write(|w| w.set_published(PUBLISHER, head)).unwrap();
        (dir, tenant)
    }

    #[test]
    fn a_replay_rewinds_the_cursor_within_the_kept_changes_only() {
        let (_dir, tenant) = published(5);
        let head = tenant.last_seq().unwrap();
        let replay = replay(&tenant, head - 2).unwrap();
        assert_eq!(replay, Replay { from: head - 2, through: head });
        let cursor = tenant.read(|r| r.publishers()).unwrap()[0].published;
        assert_eq!(cursor, head - 3);
        assert!(matches!(super::replay(&tenant, head + 2), Err(ReplayError::OutOfRange { .. })));
        assert!(matches!(super::replay(&tenant, 0), Err(ReplayError::OutOfRange { .. })));

        // Published bodies past retention are dropped; a replay into them is refused,
        // one from the first change still kept is not.
        tenant.write(|w| w.set_published(PUBLISHER, head - 1)).unwrap();
        let later = chrono::Utc::now() + chrono::Duration::seconds(1);
        assert_eq!(drop_old_bodies(&tenant, later).unwrap(), 4, "all but the unpublished");
        match super::replay(&tenant, head - 3) {
            Err(ReplayError::NotRetained { first, .. }) => assert_eq!(first, head),
            other => panic!("{other:?}"),
        }
        assert_eq!(super::replay(&tenant, head).unwrap().through, head - 1);
    }

    #[test]
    fn a_tenant_that_never_published_cannot_replay() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), store::testing::options(), &[]).unwrap();
        let (tenant, _) = store.create_tenant("t").unwrap();
        assert!(matches!(replay(&tenant, 1), Err(ReplayError::NotPublishing(_))));
    }

    #[test]
    fn an_items_holdings_id_is_read_from_its_body() {
        assert_eq!(
            holdings_record_id(r#"{"id":"a","holdingsRecordId":"h"}"#).as_deref(),
            Some("h")
        );
        assert_eq!(holdings_record_id(r#"{"id":"a"}"#), None);
    }
}
