//! The life of one tenant's index, whatever its documents are: opening it (and
//! rebuilding a missing, corrupt or outdated one), applying change-log rows, committing
//! with the last applied sequence number in the commit payload, building a new
//! generation while the old one serves (a page of records per read snapshot), replaying
//! what changed since the first, and swapping. `InstanceIndex` and `AuthorityIndex` are
//! this with their own [`Kind`]: which records make which documents.
//!
//! Invariant: the payload of a generation's last commit names the change-log sequence
//! number up to which every change is in that commit. Applying a change re-indexes the
//! records it touches from the store as they are now, so replaying from there is
//! idempotent and a crash between a store commit and an index commit loses nothing.

use std::collections::HashSet;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use store::{Change, Reader, RecordTable, StoredRecord, Tenant};
use tantivy::directory::{FileSlice, MmapDirectory};
use tantivy::index::SegmentId;
use tantivy::schema::Schema;
use tantivy::{
    Index, IndexReader, IndexSettings, IndexWriter, ReloadPolicy, Searcher, SegmentReader,
};

use crate::build_dir::BuildDirectory;
use crate::error::{Error, Result, io_error};
use crate::{generation, grams, priority, text};

/// Change-log rows a follower at background priority applies between two looks at
/// whether a catch-up at ordinary priority waits ([`Lifecycle::follow`]): about 50 ms
/// of work, which under a saturating search load takes that priority a few seconds.
const FOLLOW_BATCH: usize = 250;

/// Tuning of an index. The defaults suit a 2-core machine.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Indexing memory of the writer that applies changes.
    pub writer_memory: usize,
    /// Indexing threads and memory of a full build.
    pub build_threads: usize,
    pub build_memory: usize,
    /// Change-log rows read and applied at once when catching up (their records are
    /// loaded together).
    pub batch_size: usize,
    /// Change-log rows applied between two commits when catching up: fewer commits
    /// make fewer, larger segments, and so fewer merges. Catching up with a 100,000-
    /// record import, a commit every 2,000 rows spent as much CPU merging as indexing.
    pub commit_rows: u64,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            writer_memory: 64 << 20,
            build_threads: 2,
            build_memory: 512 << 20,
            batch_size: 2_000,
            commit_rows: 20_000,
        }
    }
}

/// How far a reindex has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReindexProgress {
    /// Records (instances, authorities) indexed so far.
    pub done: u64,
    /// Records in the snapshot.
    pub total: u64,
}

/// What a finished reindex did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReindexStats {
    /// The new generation's directory name.
    pub generation: String,
    /// Records in the snapshot (named for the instance index, the first of them).
    pub instances: u64,
    /// Change-log rows made during the build and replayed before the swap.
    pub replayed: u64,
    /// From the start until the new generation served every record.
    pub elapsed: Duration,
    /// The merge of the new generation's segments into one that followed the swap
    /// ([`InstanceIndex::reindex`](crate::InstanceIndex::reindex)), or that a server
    /// resumed after a stop, once it has finished; `None` while it runs, when the build
    /// left one segment, or when it failed (the generation's segments then keep
    /// serving).
    pub compaction: Option<Duration>,
}

/// What the HTTP layer reports about an index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexStatus {
    pub generation: String,
    /// The change-log sequence number the index has applied.
    pub applied_seq: i64,
    /// Documents in the index.
    pub documents: u64,
    /// The segments a search visits, and the deleted documents they still hold (each
    /// change to an instance deletes its old document): how far the index is from one
    /// merged segment.
    pub segments: usize,
    pub deleted_documents: u64,
    /// Live documents in the largest segment: the rest came with writes since the
    /// last merge into one.
    pub largest_segment_documents: u64,
    /// Set while a reindex runs.
    pub reindex: Option<ReindexProgress>,
    /// Set while a finished reindex's generation is merged into one segment.
    pub compacting: bool,
    pub last_reindex: Option<ReindexStats>,
    /// The last reindex failure, cleared by a successful one.
    pub last_error: Option<String>,
}

/// What one kind of index puts in its documents.
pub(crate) trait Kind {
    /// The index's directory under `tenant.dir()/search`, and its name in log lines.
    const DIR: &'static str;

    fn schema() -> &'static Schema;

    /// The whole-value fields with a gram map (`grams`).
    fn gram_fields() -> Vec<tantivy::schema::Field>;

    /// The writer that applies changes to a serving generation, without its merge
    /// policy (`open_generation` sets that).
    fn follower_writer(index: &Index, options: &IndexOptions) -> Result<IndexWriter>;

    /// How that writer merges the segments its commits add.
    fn merge_policy() -> Box<dyn tantivy::indexer::MergePolicy>;

    /// The records a full build pages through, one or more documents each.
    const RECORDS: RecordTable;

    /// What every page of a build needs, read once from the snapshot (reference ids).
    type Context: Sync;

    fn context(reader: &Reader<'_>) -> Result<Self::Context>;

    /// A page of records with whatever else of the snapshot its documents need.
    type Page: Send;

    /// Reads the rest of a page from the snapshot. A build does this on its reading
    /// thread, so keep parsing for [`Kind::add_page`].
    fn read_page(reader: &Reader<'_>, page: Vec<StoredRecord>) -> Result<Self::Page>;

    /// Adds the documents of one page, on the build's document thread.
    fn add_page(
        context: &Self::Context,
        page: Self::Page,
        tenant: &str,
        writer: &IndexWriter,
    ) -> Result<()>;

    /// What a batch must know of the documents added since the last commit, which
    /// `searcher` does not see yet.
    type Unseen: Default;

    /// Re-indexes the records a batch of changes touches. Returns whether the index
    /// changed: a batch that did not is not committed.
    fn apply(
        reader: &Reader<'_>,
        searcher: &Searcher,
        unseen: &mut Self::Unseen,
        changes: &[Change],
        tenant: &str,
        writer: &mut IndexWriter,
    ) -> Result<bool>;
}

/// One generation: a tantivy index directory, its reader and its writer.
struct Generation {
    name: String,
    reader: IndexReader,
    // Invariant: `None` only after the generation was retired.
    writer: Mutex<Option<IndexWriter>>,
    // Invariant: the sequence number in the payload of the last commit, or past it
    // by rows that changed nothing in this index.
    seq: AtomicI64,
    // A reindex's segments, served before their merge into one (`Lifecycle::compact`),
    // which replaces the generation; said in every commit's payload, so that a stop
    // before the merge ends leaves it to the next start (`Lifecycle::resume_merge`).
    // Invariant: while set, the writer merges nothing; cleared when it may
    // (`Lifecycle::resume_merges`).
    unmerged: AtomicBool,
    // The gram files of the segments served now and of those served before the last
    // reload, which searches begun then may still read ([`grams::hold_files`]).
    held: Mutex<[Vec<FileSlice>; 2]>,
    // The generation's `meta.json`, which every commit and every merge rewrites, and
    // its modification time when the reader last loaded it: an unchanged file spares
    // parsing it (schema included) every second ([`Generation::merged_since_reload`]).
    meta: PathBuf,
    meta_seen: Mutex<Option<SystemTime>>,
}

impl Generation {
    /// Serves what was committed (and merged) since the last reload.
    fn reload(&self) -> Result<()> {
        // Noted before the reload: a change after it is then seen as one.
        let modified = self.meta_modified();
        self.reader.reload()?;
        self.hold_files();
        *self.meta_seen.lock().unwrap_or_else(|p| p.into_inner()) = modified;
        Ok(())
    }

    fn meta_modified(&self) -> Option<SystemTime> {
        std::fs::metadata(&self.meta).and_then(|m| m.modified()).ok()
    }

    fn hold_files(&self) {
        let files = grams::hold_files(&self.reader.searcher());
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        held.swap(0, 1);
        held[0] = files;
    }

    /// Whether the writer's merges have changed the committed segments since the
    /// reader last loaded them.
    fn merged_since_reload(&self) -> Result<bool> {
        // A retired generation's directory may be gone already.
        if self.writer.lock().unwrap_or_else(|p| p.into_inner()).is_none() {
            return Ok(false);
        }
        let modified = self.meta_modified();
        let mut seen = self.meta_seen.lock().unwrap_or_else(|p| p.into_inner());
        if modified.is_some() && modified == *seen {
            return Ok(false);
        }
        let searcher = self.reader.searcher();
        let served: HashSet<SegmentId> =
            searcher.segment_readers().iter().map(SegmentReader::segment_id).collect();
        let committed = searcher.index().searchable_segment_ids()?;
        let merged =
            committed.len() != served.len() || committed.iter().any(|id| !served.contains(id));
        if !merged {
            *seen = modified;
        }
        Ok(merged)
    }
}

#[derive(Default)]
struct StatusState {
    reindex: Option<ReindexProgress>,
    compacting: bool,
    last_reindex: Option<ReindexStats>,
    last_error: Option<String>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Payload {
    format: u32,
    seq: i64,
    #[serde(default)]
    unmerged: bool,
}

/// A tenant's index of kind `K`. Every method takes `&self`.
pub(crate) struct Lifecycle<K> {
    root: PathBuf,
    tenant_name: String,
    options: IndexOptions,
    current: RwLock<Arc<Generation>>,
    // Serialises applying changes with swapping generations.
    apply_lock: Mutex<()>,
    // How many callers of `catch_up_at_once` wait for the apply lock: a follower's
    // catch-up holding it hands over between two batches.
    wanted: AtomicU32,
    // Shared with a fed build, which clears it when it ends or is dropped.
    reindexing: Arc<AtomicBool>,
    status: Mutex<StatusState>,
    // `fn() -> K`: a kind is a type-level name, so the index is Send and Sync anyway.
    kind: PhantomData<fn() -> K>,
}

impl<K> std::fmt::Debug for Lifecycle<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lifecycle").field("root", &self.root).finish_non_exhaustive()
    }
}

impl<K: Kind> Lifecycle<K> {
    /// Opens the tenant's index, building it from the store first when it is missing,
    /// corrupt or of an older format.
    pub(crate) fn open(tenant: &Tenant, options: IndexOptions) -> Result<Lifecycle<K>> {
        let root = tenant.dir().join("search").join(K::DIR);
        std::fs::create_dir_all(&root).map_err(|e| io_error(&root, e))?;
        let existing = match generation::read_current(&root) {
            Some(name) => {
                match open_generation::<K>(&root.join(&name), &name, &options, Merges::Follow) {
                    Ok(generation) => Some(generation),
                    // Another process serves this index: rebuilding would delete its
                    // generations from under it.
                    Err(e @ Error::Busy(_)) => return Err(e),
                    Err(e) => {
                        tracing::warn!(tenant = tenant.name(), index = K::DIR, generation = %name, error = %e, "index unusable; rebuilding");
                        None
                    }
                }
            }
            None => None,
        };
        let generation = match existing {
            Some(generation) => generation,
            None => {
                let (name, dir) = generation::create_next(&root)?;
                let (writer, seq, _) =
                    build::<K>(tenant, &dir, &options, Schedule::Caller, &mut |_| {})?;
                seal(writer, seq)?;
                let generation = open_generation::<K>(&dir, &name, &options, Merges::Follow)?;
                generation::write_current(&root, &name)?;
                generation
            }
        };
        generation::remove_others(&root, &generation.name);
        Ok(Lifecycle {
            root,
            tenant_name: tenant.name().to_string(),
            options,
            current: RwLock::new(Arc::new(generation)),
            apply_lock: Mutex::new(()),
            wanted: AtomicU32::new(0),
            reindexing: Arc::new(AtomicBool::new(false)),
            status: Mutex::new(StatusState::default()),
            kind: PhantomData,
        })
    }

    fn current(&self) -> Arc<Generation> {
        self.current.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// A searcher over the serving generation as last committed.
    pub(crate) fn searcher(&self) -> Searcher {
        self.current().reader.searcher()
    }

    /// The change-log sequence number the index has applied (committed, or skipped as
    /// changing nothing in it).
    pub(crate) fn applied_seq(&self) -> i64 {
        self.current().seq.load(Ordering::SeqCst)
    }

    /// Applies the change-log rows committed before the call (and perhaps a few more),
    /// committing every [`IndexOptions::commit_rows`] rows. Returns the rows read. It
    /// does not chase a log that keeps growing: a follower calls it again.
    pub(crate) fn catch_up(&self, tenant: &Tenant) -> Result<u64> {
        let target = tenant.last_seq()?;
        let _guard = self.apply_lock.lock().unwrap_or_else(|p| p.into_inner());
        apply_until::<K>(&self.current(), tenant, &self.options, target, None)
    }

    /// [`Lifecycle::catch_up`] for a follower at background priority: it reads
    /// [`FOLLOW_BATCH`] rows at a time, and between two batches commits what it has and
    /// returns early when [`Lifecycle::catch_up_at_once`] waits for the index.
    pub(crate) fn follow(&self, tenant: &Tenant) -> Result<u64> {
        let target = tenant.last_seq()?;
        let _guard = self.apply_lock.lock().unwrap_or_else(|p| p.into_inner());
        let options = IndexOptions { batch_size: FOLLOW_BATCH, ..self.options.clone() };
        apply_until::<K>(&self.current(), tenant, &options, target, Some(&self.wanted))
    }

    /// [`Lifecycle::catch_up`] on the calling thread, taking the index over from a
    /// follower's catch-up under way once it has applied its current batch: a follower at
    /// background priority under a saturating search load would not end its catch-up
    /// until the searches did.
    ///
    /// It reads a commit's worth of rows at a time: after a busy desk the backlog
    /// names the same items over and over, and each instance is rebuilt once a batch.
    pub(crate) fn catch_up_at_once(&self, tenant: &Tenant) -> Result<u64> {
        let _guard = self.take_over();
        let target = tenant.last_seq()?;
        let batch_size = (self.options.commit_rows as usize).max(self.options.batch_size);
        let options = IndexOptions { batch_size, ..self.options.clone() };
        apply_until::<K>(&self.current(), tenant, &options, target, None)
    }

    /// The apply lock, asking a follower's catch-up that holds it to hand over.
    fn take_over(&self) -> std::sync::MutexGuard<'_, ()> {
        self.wanted.fetch_add(1, Ordering::SeqCst);
        let guard = self.apply_lock.lock().unwrap_or_else(|p| p.into_inner());
        self.wanted.fetch_sub(1, Ordering::SeqCst);
        guard
    }

    /// Serves the segments the writer's background merges made since the last
    /// commit: without it they wait for the next write, however long, and the
    /// searches meanwhile visit every segment the merges replaced. Returns whether
    /// the reader was reloaded.
    pub(crate) fn serve_merges(&self) -> Result<bool> {
        let generation = self.current();
        if !generation.merged_since_reload()? {
            return Ok(false);
        }
        generation.reload()?;
        Ok(true)
    }

    /// Merges every segment but the largest into one, on the calling thread's priority,
    /// and serves the result: for a follower to call once the writes pause. The desk's
    /// re-indexed records sit in the small segments the merge policy keeps in levels
    /// while writes go on; each costs every search a dictionary lookup per term, and
    /// folded they cost one (the deleted documents left in the largest wait for a
    /// rebuild). Returns whether it merged: not with fewer than three segments, nor
    /// while a reindex's segments wait for their own merge.
    ///
    /// Why the writer is replaced: the follower's writer was made at background
    /// priority, which its merge threads keep, and under a saturating search load such a
    /// merge waits until the searches stop: the fold would come only after the searches
    /// it is for. So the serving writer is dropped (a merge of its own it was making is
    /// abandoned; the policy asks for it again), a writer made on this thread merges,
    /// and a new background writer takes over. Changes wait meanwhile (the apply lock).
    pub(crate) fn fold(&self) -> Result<bool> {
        let _guard = self.take_over();
        let generation = self.current();
        if generation.reader.searcher().segment_readers().len() < 3
            || generation.unmerged.load(Ordering::SeqCst)
        {
            return Ok(false);
        }
        let mut slot = generation.writer.lock().unwrap_or_else(|p| p.into_inner());
        let Some(serving) = slot.take() else { return Ok(false) };
        let index = serving.index().clone();
        drop(serving);
        let folded = fold_small_segments(&index);
        let writer = priority::reading_in_background(|| K::follower_writer(&index, &self.options))?;
        writer.set_merge_policy(K::merge_policy());
        *slot = Some(writer);
        drop(slot);
        generation.reload()?;
        folded
    }

    pub(crate) fn status(&self) -> IndexStatus {
        let generation = self.current();
        let status = self.status.lock().unwrap_or_else(|p| p.into_inner());
        let searcher = generation.reader.searcher();
        let segments = searcher.segment_readers();
        IndexStatus {
            generation: generation.name.clone(),
            applied_seq: generation.seq.load(Ordering::SeqCst),
            documents: searcher.num_docs(),
            segments: segments.len(),
            deleted_documents: segments.iter().map(|s| u64::from(s.num_deleted_docs())).sum(),
            largest_segment_documents: segments
                .iter()
                .map(|s| u64::from(s.num_docs()))
                .max()
                .unwrap_or(0),
            reindex: status.reindex,
            compacting: status.compacting,
            last_reindex: status.last_reindex.clone(),
            last_error: status.last_error.clone(),
        }
    }

    /// Rebuilds the index into a new generation from the store while this one keeps
    /// serving (and following the log), replays the changes made since the build's
    /// first read, swaps atomically and deletes the old generation. Then it merges the
    /// new generation's segments into one ([`Lifecycle::compact`]) while they serve.
    /// One reindex runs at a time; a second call meanwhile waits for nothing and fails.
    ///
    /// Why the merge comes after the swap: the build's segments hold every record, so
    /// they can serve as soon as they are committed, and the merge is one thread of
    /// work that nothing else can share; before the swap it was a third of the reindex
    /// time on two cores. Searches meanwhile look their terms up in each segment, a
    /// little slower until the merged generation replaces them.
    ///
    /// The build and the merge run at the lowest CPU priority (`priority`), so
    /// searches keep their speed and the reindex takes the CPU time they leave.
    pub(crate) fn reindex(
        &self,
        tenant: &Tenant,
        progress: &mut (dyn FnMut(ReindexProgress) + Send),
    ) -> Result<ReindexStats> {
        let _running = self.claim()?;
        let result = self.reindex_inner(tenant, progress);
        {
            let mut status = self.status.lock().unwrap_or_else(|p| p.into_inner());
            status.reindex = None;
            match &result {
                Ok(stats) => {
                    status.last_reindex = Some(stats.clone());
                    status.last_error = None;
                    status.compacting = true;
                }
                Err(e) => status.last_error = Some(e.to_string()),
            }
        }
        let stats = result?;
        Ok(self.merge_reindexed(tenant, stats))
    }

    /// Merges a reindexed generation that a stop left unmerged (`Generation::unmerged`):
    /// what a reindex does after its swap, at background priority. Returns how long it
    /// took, or `None` when there was nothing to merge or a reindex is running (which
    /// merges its own).
    pub(crate) fn resume_merge(&self, tenant: &Tenant) -> Option<Duration> {
        if !self.current().unmerged.load(Ordering::SeqCst) {
            return None;
        }
        let _running = self.claim().ok()?;
        let stats = {
            let mut status = self.status.lock().unwrap_or_else(|p| p.into_inner());
            status.compacting = true;
            status.last_reindex.clone()
        };
        tracing::info!(tenant = %self.tenant_name, index = K::DIR, "merging a reindexed generation whose merge was interrupted");
        let stats = stats.unwrap_or(ReindexStats {
            generation: self.current().name.clone(),
            instances: 0,
            replayed: 0,
            elapsed: Duration::ZERO,
            compaction: None,
        });
        self.merge_reindexed(tenant, stats).compaction
    }

    /// Merges the serving generation of a reindex into one segment ([`compact`]) and
    /// reports it in the status; on failure its segments keep serving and merging.
    ///
    /// [`compact`]: Lifecycle::compact
    fn merge_reindexed(&self, tenant: &Tenant, mut stats: ReindexStats) -> ReindexStats {
        let compacted = self.compact(tenant);
        let mut status = self.status.lock().unwrap_or_else(|p| p.into_inner());
        status.compacting = false;
        match compacted {
            Ok(Some((generation, took))) => {
                stats.generation = generation;
                stats.compaction = Some(took);
                status.last_reindex = Some(stats.clone());
            }
            // One segment already: it follows the log as any generation does.
            Ok(None) => self.resume_merges(),
            Err(e) => {
                tracing::warn!(tenant = %self.tenant_name, index = K::DIR, error = %e, "merging the reindexed generation failed; its segments keep serving");
                self.resume_merges();
            }
        }
        stats
    }

    fn reindex_inner(
        &self,
        tenant: &Tenant,
        progress: &mut (dyn FnMut(ReindexProgress) + Send),
    ) -> Result<ReindexStats> {
        let started = Instant::now();
        let (name, dir) = generation::create_next(&self.root)?;
        let mut report = |p: ReindexProgress| {
            self.status.lock().unwrap_or_else(|e| e.into_inner()).reindex = Some(p);
            progress(p);
        };
        let sealed = priority::reading_in_background(|| {
            let (mut writer, seq, records) =
                build::<K>(tenant, &dir, &self.options, Schedule::Background, &mut report)?;
            commit(&mut writer, seq, true)?;
            writer.wait_merging_threads()?;
            Ok(records)
        });
        // Merges held off until `compact` replaces the generation: the follower's merge
        // policy would otherwise start merging the build's equal-sized segments at once,
        // at full priority.
        self.install(tenant, name, &dir, sealed, started, Merges::Held)
    }

    /// Lets the serving generation's writer merge again, when [`compact`] left merging
    /// held (it failed, or found one segment): otherwise the follower's small segments
    /// would pile up. Its later commits no longer ask the next start to merge it.
    ///
    /// [`compact`]: Lifecycle::compact
    fn resume_merges(&self) {
        let serving = self.current();
        let writer = serving.writer.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(writer) = writer.as_ref() {
            writer.set_merge_policy(K::merge_policy());
        }
        serving.unmerged.store(false, Ordering::SeqCst);
    }

    /// Merges the serving generation's committed segments into one, in a new
    /// generation, then replays the changes committed meanwhile and swaps it in as a
    /// reindex does. Returns the new generation and how long it took, or `None` when
    /// the serving generation has one segment already.
    ///
    /// The serving generation's files are hard-linked into the new generation's
    /// directory, under the apply lock so that no commit moves them, and merged from
    /// there at background priority: tantivy's own merge would run on the serving
    /// writer's threads, at full priority and entangled with its commits.
    ///
    /// Invariant: the serving generation was opened with [`Merges::Held`], so only a
    /// commit (under the apply lock) changes its files.
    fn compact(&self, tenant: &Tenant) -> Result<Option<(String, Duration)>> {
        let started = Instant::now();
        let (name, dir) = generation::create_next(&self.root)?;
        let snapshot = dir.join(generation::SNAPSHOT);
        let linked = {
            let _guard = self.apply_lock.lock().unwrap_or_else(|p| p.into_inner());
            let serving = self.current();
            generation::link_files(&self.root.join(&serving.name), &snapshot)
        };
        let merged =
            linked.and_then(|()| priority::in_background(|| merge_snapshot::<K>(&snapshot, &dir)));
        let _ignored = std::fs::remove_dir_all(&snapshot);
        match merged {
            Ok(Some(records)) => {
                let stats =
                    self.install(tenant, name, &dir, Ok(records), started, Merges::Follow)?;
                tracing::info!(tenant = %self.tenant_name, index = K::DIR, generation = %stats.generation, secs = stats.elapsed.as_secs_f64(), "reindexed generation merged into one segment");
                Ok(Some((stats.generation, stats.elapsed)))
            }
            Ok(None) => {
                let _ignored = std::fs::remove_dir_all(&dir);
                Ok(None)
            }
            Err(e) => {
                let _ignored = std::fs::remove_dir_all(&dir);
                Err(e)
            }
        }
    }

    /// Marks a full build as running, until the returned guard is dropped; fails if one
    /// already is.
    fn claim(&self) -> Result<Running> {
        if self.reindexing.swap(true, Ordering::SeqCst) {
            return Err(Error::Index("a reindex of this index is already running".to_string()));
        }
        Ok(Running(self.reindexing.clone()))
    }

    /// Starts a full build whose records come from the store as it is now and then from
    /// the caller ([`FedBuild::add_record`]): for a bulk load that has its records in
    /// memory as it writes them, so they are not read back. Fails while a reindex runs;
    /// no reindex starts until the build is finished or dropped.
    pub(crate) fn begin_fed(&self, tenant: &Tenant) -> Result<FedBuild> {
        let running = self.claim()?;
        let started = Instant::now();
        let (name, dir) = generation::create_next(&self.root)?;
        match build::<K>(tenant, &dir, &self.options, Schedule::Caller, &mut |_| {}) {
            Ok((writer, snapshot_seq, records)) => Ok(FedBuild {
                name,
                dir,
                writer,
                snapshot_seq,
                records,
                started,
                _running: running,
            }),
            Err(e) => {
                let _ignored = std::fs::remove_dir_all(&dir);
                Err(e)
            }
        }
    }

    /// Ends a fed build: commits it as reflecting the store up to change `seq` (the
    /// caller vouches that every change up to it is in the documents), replays the
    /// changes after it and swaps it in.
    pub(crate) fn finish_fed(
        &self,
        tenant: &Tenant,
        build: FedBuild,
        seq: i64,
    ) -> Result<ReindexStats> {
        let FedBuild { name, dir, writer, records, started, .. } = build;
        let sealed = seal(writer, seq).map(|()| records);
        self.install(tenant, name, &dir, sealed, started, Merges::Follow)
    }

    /// Opens a sealed new generation of `records` records, replays the changes after
    /// its commit and swaps it in; or, if sealing it failed or any of that fails,
    /// removes it.
    fn install(
        &self,
        tenant: &Tenant,
        name: String,
        dir: &Path,
        sealed: Result<u64>,
        started: Instant,
        merges: Merges,
    ) -> Result<ReindexStats> {
        let outcome = sealed.and_then(|records| {
            let fresh = open_generation::<K>(dir, &name, &self.options, merges)?;
            // Most of the changes made during the build are replayed while the old
            // generation still serves; the rest with appliers held off, then the swap.
            let options = &self.options;
            let mut replayed = apply_until::<K>(&fresh, tenant, options, tenant.last_seq()?, None)?;
            let old = {
                let _guard = self.apply_lock.lock().unwrap_or_else(|p| p.into_inner());
                replayed += apply_until::<K>(&fresh, tenant, options, tenant.last_seq()?, None)?;
                generation::write_current(&self.root, &name)?;
                let mut current = self.current.write().unwrap_or_else(|p| p.into_inner());
                std::mem::replace(&mut *current, Arc::new(fresh))
            };
            Ok((records, replayed, old))
        });
        match outcome {
            Ok((records, replayed, old)) => {
                retire(&old);
                drop(old);
                generation::remove_others(&self.root, &name);
                tracing::info!(tenant = %self.tenant_name, index = K::DIR, generation = %name, records, replayed, "reindex done");
                Ok(ReindexStats {
                    generation: name,
                    instances: records,
                    replayed,
                    elapsed: started.elapsed(),
                    compaction: None,
                })
            }
            Err(e) => {
                let _ignored = std::fs::remove_dir_all(dir);
                Err(e)
            }
        }
    }
}

/// A full build under way whose documents the caller adds ([`Lifecycle::begin_fed`]).
pub(crate) struct FedBuild {
    name: String,
    dir: PathBuf,
    writer: IndexWriter,
    // The change-log sequence number of the store snapshot the build began from.
    snapshot_seq: i64,
    records: u64,
    started: Instant,
    _running: Running,
}

/// Holds an index's "a full build is running" flag; clears it when dropped. A fed
/// build abandoned unfinished leaves its directory behind, removed at the next open.
struct Running(Arc<AtomicBool>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

impl FedBuild {
    /// Adds the documents of one record.
    pub(crate) fn add_record(
        &mut self,
        docs: impl IntoIterator<Item = tantivy::TantivyDocument>,
    ) -> Result<()> {
        for doc in docs {
            self.writer.add_document(doc)?;
        }
        self.records += 1;
        Ok(())
    }

    pub(crate) fn snapshot_seq(&self) -> i64 {
        self.snapshot_seq
    }
}

/// Stops a generation's writer so its directory can be deleted. Searches still
/// holding its reader keep working: their files stay open.
fn retire(generation: &Generation) {
    let writer = generation.writer.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some(writer) = writer
        && let Err(e) = writer.wait_merging_threads()
    {
        tracing::warn!(generation = %generation.name, error = %e, "stopping an old index writer failed");
    }
}

/// Whether a generation's writer merges segments as its merge policy says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Merges {
    Follow,
    /// No merges until the generation is replaced ([`Lifecycle::compact`]).
    Held,
}

fn open_generation<K: Kind>(
    dir: &Path,
    name: &str,
    options: &IndexOptions,
    merges: Merges,
) -> Result<Generation> {
    let mut index = generation::open_for_serving(dir)?;
    index.register_plugin(grams::plugin(K::gram_fields()));
    if index.schema() != *K::schema() {
        return Err(Error::Index("the index schema differs from this version's".to_string()));
    }
    text::register(&index);
    let payload = index
        .load_metas()?
        .payload
        .and_then(|p| serde_json::from_str::<Payload>(&p).ok())
        .filter(|p| p.format == generation::FORMAT_VERSION)
        .ok_or_else(|| Error::Index("the index has no commit of this format".to_string()))?;
    let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
    // Made on a thread at niceness 19, whose priority tantivy's indexing, segment and
    // merge threads inherit: they do the follower's work, and like the follower they
    // should take the cores only when requests leave them (measured beside an import).
    let writer = priority::reading_in_background(|| K::follower_writer(&index, options))?;
    // A reindex's segments stay as they are until `compact` merges them, wherever opened.
    let merges = if payload.unmerged { Merges::Held } else { merges };
    writer.set_merge_policy(match merges {
        Merges::Held => Box::new(tantivy::indexer::NoMergePolicy),
        Merges::Follow => K::merge_policy(),
    });
    let generation = Generation {
        name: name.to_string(),
        reader,
        writer: Mutex::new(Some(writer)),
        seq: AtomicI64::new(payload.seq),
        unmerged: AtomicBool::new(payload.unmerged),
        held: Mutex::default(),
        meta: dir.join("meta.json"),
        meta_seen: Mutex::default(),
    };
    generation.hold_files();
    Ok(generation)
}

/// Merges the committed segments of `index` but its largest into one, with a writer of
/// its own that merges nothing else. Returns whether there were two or more to merge.
fn fold_small_segments(index: &Index) -> Result<bool> {
    let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000)?;
    writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
    let mut metas = index.searchable_segment_metas()?;
    metas.sort_by_key(|m| std::cmp::Reverse(m.num_docs()));
    let small: Vec<SegmentId> = metas.iter().skip(1).map(|m| m.id()).collect();
    let merged = small.len() >= 2;
    if merged {
        writer.merge(&small).wait()?;
    }
    writer.wait_merging_threads()?;
    Ok(merged)
}

/// Merges the index hard-linked at `snapshot` into one segment in `dir`, committed
/// with the snapshot's payload. Returns its documents, or `None` when the snapshot
/// has one segment already.
fn merge_snapshot<K: Kind>(snapshot: &Path, dir: &Path) -> Result<Option<u64>> {
    let mut source = Index::open_in_dir(snapshot)?;
    source.register_plugin(grams::plugin(K::gram_fields()));
    let metas = source.load_metas()?;
    if metas.segments.len() <= 1 {
        return Ok(None);
    }
    tracing::debug!(segments = metas.segments.len(), "merging a reindexed generation");
    let directory = MmapDirectory::open(dir).map_err(tantivy::TantivyError::from)?;
    // The merged index carries the source's plugins, the gram map among them.
    let merged = tantivy::indexer::merge_indices(&[source], directory)?;
    text::register(&merged);
    // The merge writes a payload of its own; the snapshot's says up to which change
    // the documents reach, where the replay after the merge starts.
    let seq = metas
        .payload
        .and_then(|p| serde_json::from_str::<Payload>(&p).ok())
        .ok_or_else(|| Error::Index("the reindexed generation has no payload".to_string()))?
        .seq;
    let mut writer: IndexWriter = merged.writer_with_num_threads(1, 15_000_000)?;
    commit(&mut writer, seq, false)?;
    writer.wait_merging_threads()?;
    let docs = merged.searchable_segment_metas()?.iter().map(|m| u64::from(m.num_docs())).sum();
    Ok(Some(docs))
}

/// Commits a full build as of change `seq` and merges it into one segment.
fn seal(mut writer: IndexWriter, seq: i64) -> Result<()> {
    let started = Instant::now();
    commit(&mut writer, seq, false)?;
    let committed = started.elapsed();
    let segments = writer.index().searchable_segment_ids()?.len();
    generation::compact(writer)?;
    tracing::debug!(
        commit_secs = committed.as_secs_f64(),
        segments,
        merge_secs = (started.elapsed() - committed).as_secs_f64(),
        "full build sealed"
    );
    Ok(())
}

fn commit(writer: &mut IndexWriter, seq: i64, unmerged: bool) -> Result<()> {
    let payload = Payload { format: generation::FORMAT_VERSION, seq, unmerged };
    let payload = serde_json::to_string(&payload).expect("serialising plain data cannot fail");
    let mut prepared = writer.prepare_commit()?;
    prepared.set_payload(&payload);
    prepared.commit()?;
    Ok(())
}

/// Where a build's threads run: a reindex's in the background (`priority`), the
/// first build of a missing index and a bulk load's at the caller's priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Schedule {
    Caller,
    Background,
}

/// Bytes of stored documents compressed together. Reading one found document
/// decompresses its whole block; at tantivy's 16 KiB that was a fifth of a 20-user
/// search load's CPU (a result page reads up to 100 scattered documents of a few
/// hundred bytes each), for a store a third smaller.
const DOCSTORE_BLOCK: usize = 2_048;

/// Builds a full index in `dir` from the store: the records in the order the store
/// keeps them, a page at a time, each page read in a snapshot of its own. Returns the
/// writer, uncommitted, the change-log sequence number of the first snapshot (the
/// changes after it are to be applied over the build) and the number of records.
///
/// The calling thread reads the pages while a document thread parses the one before
/// and feeds the writer's indexing threads, so that reads which miss the page cache
/// overlap with indexing. With [`Schedule::Background`], call it from
/// [`priority::reading_in_background`]: the document and indexing threads then run
/// in the idle class.
fn build<K: Kind>(
    tenant: &Tenant,
    dir: &Path,
    options: &IndexOptions,
    schedule: Schedule,
    progress: &mut dyn FnMut(ReindexProgress),
) -> Result<(IndexWriter, i64, u64)> {
    const PAGE: usize = 1_000;
    // Pages read ahead of the document thread: enough to ride out a slow read.
    const READ_AHEAD: usize = 2;
    let index = Index::builder()
        .schema(K::schema().clone())
        .settings(IndexSettings { docstore_blocksize: DOCSTORE_BLOCK, ..Default::default() })
        .register_plugin(grams::plugin(K::gram_fields()))
        .open_or_create(BuildDirectory::open(dir)?)?;
    text::register(&index);
    let new_writer =
        || generation::build_writer(&index, options.build_threads, options.build_memory);
    // Tantivy's indexing threads inherit the class of the thread that makes the writer.
    let writer = match schedule {
        Schedule::Caller => new_writer()?,
        Schedule::Background => priority::in_background(new_writer)?,
    };
    // Each page is read in a snapshot of its own (`Tenant::bulk_reads`): a build beside
    // a busy desk, in the idle class, may take many minutes, and one snapshot held so
    // long keeps the WAL from being checkpointed. The first snapshot's sequence number
    // is the build's: the changes after it are replayed over the build
    // (`Lifecycle::install`), so a record read in a later snapshot, already changed,
    // is made right again, and one a page missed (created behind the scan) added.
    let mut bulk = tenant.bulk_reads()?;
    let (seq, total, context) = bulk.read(|reader| {
        Ok::<_, Error>((reader.last_seq()?, reader.count(&K::RECORDS)?, K::context(reader)?))
    })?;
    progress(ReindexProgress { done: 0, total });
    let (pages, received) = std::sync::mpsc::sync_channel::<K::Page>(READ_AHEAD);
    let done = std::thread::scope(|scope| {
        let documents = std::thread::Builder::new()
            .name("reindex-documents".to_string())
            .spawn_scoped(scope, || {
                if schedule == Schedule::Background {
                    store::lower_current_thread();
                }
                for page in received {
                    K::add_page(&context, page, tenant.name(), &writer)?;
                }
                Ok::<_, Error>(())
            })
            .expect("starting a thread");
        let read = (|| {
            let mut after = None;
            let mut done = 0u64;
            loop {
                let next = bulk.read(|reader| {
                    let (page, last) = reader.scan_stored(&K::RECORDS, after, PAGE)?;
                    if page.is_empty() {
                        return Ok(None);
                    }
                    let read = page.len() as u64;
                    Ok::<_, Error>(Some((K::read_page(reader, page)?, read, last)))
                })?;
                let Some((page, read, last)) = next else { break };
                after = last;
                done += read;
                if pages.send(page).is_err() {
                    // The document thread stopped on an error, returned below.
                    break;
                }
                if done.is_multiple_of(PAGE as u64 * 10) {
                    progress(ReindexProgress { done, total });
                }
            }
            Ok::<_, Error>(done)
        })();
        drop(pages);
        documents.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        let done = read?;
        progress(ReindexProgress { done, total: total.max(done) });
        Ok::<_, Error>(done)
    })?;
    Ok((writer, seq, done))
}

/// Applied changes that the generation's last commit does not hold yet.
struct Pending<U> {
    /// The last change applied.
    last: i64,
    rows: u64,
    changed: bool,
    unseen: U,
}

/// Applies the change log after the generation's sequence number, at least up to
/// `target`: [`IndexOptions::batch_size`] rows at a time, committed every
/// [`IndexOptions::commit_rows`] rows and at the end, or earlier once `hand_over`
/// counts a caller waiting for the index. Returns the rows read.
///
/// The generation's sequence number moves only with a commit (or past rows that
/// changed nothing), so it always says what a searcher sees; a failure drops what was
/// applied since the last commit, and the next call applies it again.
fn apply_until<K: Kind>(
    generation: &Generation,
    tenant: &Tenant,
    options: &IndexOptions,
    target: i64,
    hand_over: Option<&AtomicU32>,
) -> Result<u64> {
    let mut pending = Pending {
        last: generation.seq.load(Ordering::SeqCst),
        rows: 0,
        changed: false,
        unseen: K::Unseen::default(),
    };
    let mut applied = 0;
    while pending.last < target {
        let n = apply_batch::<K>(generation, tenant, options.batch_size, &mut pending)?;
        if n == 0 {
            break;
        }
        applied += n;
        if pending.rows >= options.commit_rows {
            publish(generation, &mut pending)?;
        }
        if hand_over.is_some_and(|wanted| wanted.load(Ordering::SeqCst) > 0) {
            break;
        }
    }
    publish(generation, &mut pending)?;
    Ok(applied)
}

/// Adds what up to `batch` change-log rows after `pending.last` change to the writer,
/// uncommitted, reading them in one read transaction. Returns the rows read.
fn apply_batch<K: Kind>(
    generation: &Generation,
    tenant: &Tenant,
    batch: usize,
    pending: &mut Pending<K::Unseen>,
) -> Result<u64> {
    let mut guard = generation.writer.lock().unwrap_or_else(|p| p.into_inner());
    let writer = guard.as_mut().ok_or_else(|| Error::Index("index generation retired".into()))?;
    let searcher = generation.reader.searcher();
    let outcome = tenant.read(|reader| {
        let changes = reader.changes_since(pending.last, batch)?;
        let Some(last) = changes.last().map(|c| c.seq) else { return Ok(0) };
        let unseen = &mut pending.unseen;
        pending.changed |= K::apply(reader, &searcher, unseen, &changes, tenant.name(), writer)?;
        pending.last = last;
        pending.rows += changes.len() as u64;
        Ok::<_, Error>(changes.len() as u64)
    });
    if outcome.is_err() {
        // Drop what was added since the last commit; it is applied again next time.
        let _ignored = writer.rollback();
    }
    outcome
}

/// Commits what is pending, if it changed the index, and moves the generation's
/// sequence number to its last change.
fn publish<U: Default>(generation: &Generation, pending: &mut Pending<U>) -> Result<()> {
    // Rows that changed nothing here move the sequence number on in memory only: a
    // commit would cost an fsync for nothing, and a restart re-reads those rows and
    // skips them again.
    if pending.changed {
        let mut guard = generation.writer.lock().unwrap_or_else(|p| p.into_inner());
        let writer =
            guard.as_mut().ok_or_else(|| Error::Index("index generation retired".into()))?;
        commit(writer, pending.last, generation.unmerged.load(Ordering::SeqCst))?;
    }
    generation.seq.store(pending.last, Ordering::SeqCst);
    if pending.changed {
        generation.reload()?;
    }
    pending.rows = 0;
    pending.changed = false;
    pending.unseen = U::default();
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::atomic::Ordering;

    use folio::Actor;
    use inventory::{HoldingsRecord, Instance};
    use serde_json::json;
    use tantivy::Term;
    use tantivy::collector::Count;
    use tantivy::query::TermQuery;
    use tantivy::schema::IndexRecordOption;

    use super::{IndexOptions, Lifecycle, Pending, apply_batch, publish};
    use crate::instance::index::Instances;

    /// A tenant with FOLIO's reference data, in a directory kept as long as the guard.
    fn tenant() -> (tempfile::TempDir, std::sync::Arc<store::Tenant>) {
        let dir = tempfile::tempdir().unwrap();
        let store =
            store::Store::open(dir.path(), store::testing::options(), &[inventory::MIGRATIONS])
                .unwrap();
        let (tenant, _) = store.create_tenant("diku").unwrap();
        tenant.write(inventory::load_reference_data).unwrap();
        (dir, tenant)
    }

    fn add_instance(tenant: &store::Tenant, hrid: &str) -> Instance {
        let body = json!({"hrid": hrid, "source": "FOLIO", "title": hrid,
            "instanceTypeId": "6312d172-f0cf-40f6-b27d-9fa8feaf332f"});
        tenant
            .write(|w| {
                inventory::create::<Instance>(w, body.to_string().as_bytes(), Actor::default())
            })
            .unwrap()
    }

    /// A follower's catch-up that another caller waits for hands the index over after
    /// its current batch, with that batch committed; unasked, it applies everything.
    #[test]
    fn a_followers_catch_up_hands_over_after_a_batch_when_asked() {
        let (_dir, tenant) = tenant();
        let index = Lifecycle::<Instances>::open(&tenant, IndexOptions::default()).unwrap();
        let start = index.applied_seq();
        let rows = super::FOLLOW_BATCH + 50;
        tenant
            .write(|w| {
                for n in 0..rows {
                    let body = json!({"hrid": format!("h{n}"), "source": "FOLIO", "title": "Handed",
                        "instanceTypeId": "6312d172-f0cf-40f6-b27d-9fa8feaf332f"});
                    inventory::create::<Instance>(
                        w,
                        body.to_string().as_bytes(),
                        Actor::default(),
                    )?;
                }
                Ok::<_, inventory::Error>(())
            })
            .unwrap();
        let last = tenant.last_seq().unwrap();
        assert_eq!(last - start, rows as i64, "a change-log row per instance");

        index.wanted.store(1, Ordering::SeqCst);
        assert_eq!(index.follow(&tenant).unwrap(), super::FOLLOW_BATCH as u64);
        assert_eq!(index.applied_seq(), start + super::FOLLOW_BATCH as i64, "committed");
        assert_eq!(index.searcher().num_docs(), super::FOLLOW_BATCH as u64);
        index.wanted.store(0, Ordering::SeqCst);
        assert_eq!(index.follow(&tenant).unwrap(), 50);
        assert_eq!(index.applied_seq(), last);
        assert_eq!(index.searcher().num_docs(), rows as u64);
    }

    /// A stop between a reindex's swap and the merge of its segments leaves the merge
    /// to the next start: the generation keeps its segments (and follows the log
    /// without merging) until `resume_merge` makes it one, and then it is done.
    #[test]
    fn a_merge_a_stop_interrupted_is_resumed() {
        let (_dir, tenant) = tenant();
        for n in 0..20 {
            add_instance(&tenant, &format!("in{n}"));
        }
        let open = || Lifecycle::<Instances>::open(&tenant, IndexOptions::default()).unwrap();
        let segments = |index: &Lifecycle<Instances>| index.searcher().segment_readers().len();
        let unmerged =
            |index: &Lifecycle<Instances>| index.current().unmerged.load(Ordering::SeqCst);

        let index = open();
        assert_eq!(index.resume_merge(&tenant), None, "a built index is merged");
        // The reindex swaps in its build; the stop comes before the merge. A change
        // followed meanwhile adds a segment.
        index.reindex_inner(&tenant, &mut |_| {}).unwrap();
        add_instance(&tenant, "in20");
        index.catch_up(&tenant).unwrap();
        assert!(segments(&index) >= 2);
        drop(index);

        let index = open();
        assert!(unmerged(&index));
        add_instance(&tenant, "in21");
        index.catch_up(&tenant).unwrap();
        let before = segments(&index);
        assert!(before >= 3, "the build's and the follower's segments ({before})");
        assert!(index.resume_merge(&tenant).is_some());
        assert_eq!(segments(&index), 1);
        assert_eq!(index.searcher().num_docs(), 22);
        assert!(!index.status().compacting);
        assert_eq!(index.resume_merge(&tenant), None);
        drop(index);

        let index = open();
        assert!(!unmerged(&index), "the merged generation says so");
        assert_eq!(index.resume_merge(&tenant), None);
        assert_eq!(index.searcher().num_docs(), 22);
    }

    /// A merge of the writer's own replaces served segments and deletes their files
    /// at once: the follower's next look serves the merged segment without waiting for
    /// a write, and until then the replaced segments' gram maps stay readable (else
    /// every infix query would scan whole dictionaries).
    #[test]
    fn merged_segments_are_served_and_the_replaced_stay_readable() {
        let (_dir, tenant) = tenant();
        add_instance(&tenant, "in0");
        let index = Lifecycle::<Instances>::open(&tenant, IndexOptions::default()).unwrap();
        // The only merge is the test's own.
        let generation = index.current();
        let mut writer = generation.writer.lock().unwrap();
        writer.as_mut().unwrap().set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        drop(writer);
        for n in 1..4 {
            add_instance(&tenant, &format!("in{n}"));
            index.catch_up(&tenant).unwrap();
        }
        assert!(!index.serve_merges().unwrap(), "nothing merged yet");
        let served = index.searcher();
        let ids: Vec<_> = served.segment_readers().iter().map(|s| s.segment_id()).collect();
        assert_eq!(ids.len(), 4, "the build's segment and one a commit");
        let mut writer = generation.writer.lock().unwrap();
        writer.as_mut().unwrap().merge(&ids).wait().unwrap();
        drop(writer);

        let dir = index.root.join(&generation.name);
        for id in &ids {
            let file = dir.join(format!("{}.grams", id.uuid_string()));
            assert!(!file.exists(), "the merge deleted {}", file.display());
        }
        for segment in served.segment_readers() {
            assert!(crate::grams::gram_file(segment).is_some(), "a served gram map was lost");
        }
        assert_eq!(index.searcher().segment_readers().len(), 4, "not yet served");
        assert!(index.serve_merges().unwrap());
        assert_eq!(index.searcher().segment_readers().len(), 1);
        assert_eq!(index.searcher().num_docs(), 4);
        assert!(!index.serve_merges().unwrap());
    }

    /// What a batch adds stays unseen by searchers until the commit. A holding indexed
    /// with its instance in one batch and deleted before the next is traced to that
    /// instance through what the batches noted, and the instance is indexed without it.
    #[test]
    fn a_holding_gone_before_the_commit_leaves_its_instance() {
        let (_dir, tenant) = tenant();
        let id = add_instance(&tenant, "in0").id.unwrap();
        let index = Lifecycle::<Instances>::open(&tenant, IndexOptions::default()).unwrap();
        assert_eq!(index.searcher().num_docs(), 1);
        let body = json!({"instanceId": id, "sourceId": "f32d531e-df79-46b3-8932-cdd35f7a2264",
            "permanentLocationId": "53cf956f-c1df-410b-8bea-27f712cca7c0"});
        let holding: HoldingsRecord = tenant
            .write(|w| inventory::create(w, body.to_string().as_bytes(), Actor::default()))
            .unwrap();
        let holding = holding.id.unwrap();

        let generation = index.current();
        let last = generation.seq.load(Ordering::SeqCst);
        let mut pending = Pending { last, rows: 0, changed: false, unseen: HashMap::new() };
        assert_eq!(apply_batch::<Instances>(&generation, &tenant, 1, &mut pending).unwrap(), 1);
        tenant.write(|w| inventory::delete::<HoldingsRecord>(w, holding)).unwrap();
        assert_eq!(apply_batch::<Instances>(&generation, &tenant, 1, &mut pending).unwrap(), 1);
        publish(&generation, &mut pending).unwrap();

        let field = <Instances as super::Kind>::schema().get_field("holdings_id").unwrap();
        let term = Term::from_field_text(field, &holding.to_string());
        let query = TermQuery::new(term, IndexRecordOption::Basic);
        let found = index.searcher().search(&query, &Count).unwrap();
        assert_eq!(found, 0, "no document keeps the deleted holding");
        assert_eq!(index.searcher().num_docs(), 1);
    }
}
