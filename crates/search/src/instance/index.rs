//! `InstanceIndex`: one tenant's instance index, following the change log, searchable,
//! rebuilt without downtime.
//!
//! Owns the index's lifecycle: opening (and rebuilding a missing, corrupt or outdated
//! index), applying change-log rows, committing with the last applied sequence number
//! in the commit payload, building a new generation from a snapshot while the old one
//! serves, and swapping. Does not own query meaning (`query`) or the documents
//! (`document`).
//!
//! Invariant: the payload of a generation's last commit names the change-log sequence
//! number up to which every change is in that commit; replaying from there (re-indexing
//! each affected instance from the store as it is now) is idempotent, so a crash
//! between a store commit and an index commit loses nothing.

use std::collections::HashSet;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use store::{Change, Tenant};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, Term};
use uuid::Uuid;

use crate::error::{Error, Result, io_error};
use crate::facet::{FacetRequest, FacetsResponse};
use crate::generation;
use crate::instance::document::{self, RefIds};
use crate::instance::fields::Fields;
use crate::instance::query;
use crate::instance::search::{self, SearchRequest, SearchResponse};
use crate::instance::source;
use crate::priority;
use crate::text;

/// Tuning of an index. The defaults suit a 2-core machine.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Indexing memory of the writer that applies changes.
    pub writer_memory: usize,
    /// Indexing threads and memory of a full build.
    pub build_threads: usize,
    pub build_memory: usize,
    /// Change-log rows applied per commit when catching up.
    pub batch_size: usize,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            writer_memory: 64 << 20,
            build_threads: 2,
            build_memory: 512 << 20,
            batch_size: 2_000,
        }
    }
}

/// How far a reindex has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReindexProgress {
    /// Instances indexed so far.
    pub done: u64,
    /// Instances in the snapshot.
    pub total: u64,
}

/// What a finished reindex did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReindexStats {
    /// The new generation's directory name.
    pub generation: String,
    /// Instances in the snapshot.
    pub instances: u64,
    /// Change-log rows made during the build and replayed before the swap.
    pub replayed: u64,
    pub elapsed: Duration,
}

/// What the HTTP layer reports about an index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexStatus {
    pub generation: String,
    /// The change-log sequence number the index has applied.
    pub applied_seq: i64,
    /// Instances in the index.
    pub documents: u64,
    /// Set while a reindex runs.
    pub reindex: Option<ReindexProgress>,
    pub last_reindex: Option<ReindexStats>,
    /// The last reindex failure, cleared by a successful one.
    pub last_error: Option<String>,
}

/// One generation: a tantivy index directory, its reader and its writer.
struct Generation {
    name: String,
    reader: IndexReader,
    // Invariant: `None` only after the generation was retired.
    writer: Mutex<Option<IndexWriter>>,
    // Invariant: the sequence number in the payload of the last commit.
    seq: AtomicI64,
}

#[derive(Default)]
struct StatusState {
    reindex: Option<ReindexProgress>,
    last_reindex: Option<ReindexStats>,
    last_error: Option<String>,
}

/// A tenant's instance index. Share it with an `Arc`; every method takes `&self`.
pub struct InstanceIndex {
    root: PathBuf,
    tenant_name: String,
    options: IndexOptions,
    current: RwLock<Arc<Generation>>,
    // Serialises applying changes with swapping generations.
    apply_lock: Mutex<()>,
    reindexing: AtomicBool,
    status: Mutex<StatusState>,
}

impl std::fmt::Debug for InstanceIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstanceIndex").field("root", &self.root).finish_non_exhaustive()
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Payload {
    format: u32,
    seq: i64,
}

impl InstanceIndex {
    /// Opens the tenant's instance index under `tenant.dir()/search/instances`,
    /// building it from the store first when it is missing, corrupt or of an older
    /// format. Call [`InstanceIndex::catch_up`] (or start a follower) afterwards.
    pub fn open(tenant: &Tenant) -> Result<InstanceIndex> {
        InstanceIndex::open_with(tenant, IndexOptions::default())
    }

    pub fn open_with(tenant: &Tenant, options: IndexOptions) -> Result<InstanceIndex> {
        let root = tenant.dir().join("search").join("instances");
        std::fs::create_dir_all(&root).map_err(|e| io_error(&root, e))?;
        let existing = generation::read_current(&root).and_then(|name| {
            match open_generation(&root.join(&name), &name, &options) {
                Ok(generation) => Some(generation),
                Err(e) => {
                    tracing::warn!(tenant = tenant.name(), generation = %name, error = %e, "search index unusable; rebuilding");
                    None
                }
            }
        });
        let generation = match existing {
            Some(generation) => generation,
            None => {
                let (name, dir) = generation::create_next(&root)?;
                build(tenant, &dir, &options, &mut |_| {})?;
                let generation = open_generation(&dir, &name, &options)?;
                generation::write_current(&root, &name)?;
                generation
            }
        };
        generation::remove_others(&root, &generation.name);
        Ok(InstanceIndex {
            root,
            tenant_name: tenant.name().to_string(),
            options,
            current: RwLock::new(Arc::new(generation)),
            apply_lock: Mutex::new(()),
            reindexing: AtomicBool::new(false),
            status: Mutex::new(StatusState::default()),
        })
    }

    fn current(&self) -> Arc<Generation> {
        self.current.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The change-log sequence number the index has applied and committed.
    pub fn applied_seq(&self) -> i64 {
        self.current().seq.load(Ordering::SeqCst)
    }

    /// Applies the change-log rows committed before the call (and perhaps a few
    /// more), committing every [`IndexOptions::batch_size`] rows. Returns the rows
    /// applied. It does not chase a log that keeps growing: a follower calls it again.
    pub fn catch_up(&self, tenant: &Tenant) -> Result<u64> {
        let target = tenant.last_seq()?;
        let _guard = self.apply_lock.lock().unwrap_or_else(|p| p.into_inner());
        let generation = self.current();
        apply_until(&generation, tenant, self.options.batch_size, target)
    }

    /// One page of instances matching a query, with the exact total.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResponse> {
        request.validate()?;
        let translated = query::translate(&request.query)?;
        let searcher = self.current().reader.searcher();
        search::search(&searcher, &translated, request)
    }

    /// Facet counts over the instances matching a query.
    pub fn facets(&self, query: &str, facets: &[FacetRequest]) -> Result<FacetsResponse> {
        let parsed = crate::query::parse(Fields::get(), query)?;
        let searcher = self.current().reader.searcher();
        crate::facet::count(&searcher, Fields::get(), &parsed.root, facets)
    }

    /// Calls `sink` with the id of every instance matching a query, in index order,
    /// in bounded memory, until it returns `Break`. Returns how many ids were sent.
    pub fn stream_ids(
        &self,
        query: &str,
        mut sink: impl FnMut(Uuid) -> ControlFlow<()>,
    ) -> Result<u64> {
        let translated = query::translate(query)?;
        let searcher = self.current().reader.searcher();
        search::stream_ids(&searcher, translated.query.as_ref(), &mut sink)
    }

    pub fn status(&self) -> IndexStatus {
        let generation = self.current();
        let status = self.status.lock().unwrap_or_else(|p| p.into_inner());
        IndexStatus {
            generation: generation.name.clone(),
            applied_seq: generation.seq.load(Ordering::SeqCst),
            documents: generation.reader.searcher().num_docs(),
            reindex: status.reindex,
            last_reindex: status.last_reindex.clone(),
            last_error: status.last_error.clone(),
        }
    }

    /// Rebuilds the index into a new generation from one snapshot of the store while
    /// this one keeps serving (and following the log), replays the changes made
    /// meanwhile, swaps atomically and deletes the old generation. `progress` is
    /// called every few thousand instances. One reindex runs at a time; a second call
    /// meanwhile waits for nothing and fails.
    ///
    /// The build runs at the lowest CPU priority (`priority`), so searches keep their
    /// speed and the build takes the CPU time they leave.
    pub fn reindex(
        &self,
        tenant: &Tenant,
        mut progress: impl FnMut(ReindexProgress) + Send,
    ) -> Result<ReindexStats> {
        if self.reindexing.swap(true, Ordering::SeqCst) {
            return Err(Error::Index("a reindex of this index is already running".to_string()));
        }
        let result = self.reindex_inner(tenant, &mut progress);
        self.reindexing.store(false, Ordering::SeqCst);
        let mut status = self.status.lock().unwrap_or_else(|p| p.into_inner());
        status.reindex = None;
        match &result {
            Ok(stats) => {
                status.last_reindex = Some(stats.clone());
                status.last_error = None;
            }
            Err(e) => status.last_error = Some(e.to_string()),
        }
        result
    }

    fn reindex_inner(
        &self,
        tenant: &Tenant,
        progress: &mut (dyn FnMut(ReindexProgress) + Send),
    ) -> Result<ReindexStats> {
        let started = Instant::now();
        let (name, dir) = generation::create_next(&self.root)?;
        let outcome = (|| {
            let mut report = |p: ReindexProgress| {
                self.status.lock().unwrap_or_else(|e| e.into_inner()).reindex = Some(p);
                progress(p);
            };
            let instances =
                priority::in_background(|| build(tenant, &dir, &self.options, &mut report))?;
            let fresh = open_generation(&dir, &name, &self.options)?;
            // Most of the changes made during the build are replayed while the old
            // generation still serves; the rest with appliers held off, then the swap.
            let batch = self.options.batch_size;
            let mut replayed = apply_until(&fresh, tenant, batch, tenant.last_seq()?)?;
            let old = {
                let _guard = self.apply_lock.lock().unwrap_or_else(|p| p.into_inner());
                replayed += apply_until(&fresh, tenant, batch, tenant.last_seq()?)?;
                generation::write_current(&self.root, &name)?;
                let mut current = self.current.write().unwrap_or_else(|p| p.into_inner());
                std::mem::replace(&mut *current, Arc::new(fresh))
            };
            Ok::<_, Error>((instances, replayed, old))
        })();
        match outcome {
            Ok((instances, replayed, old)) => {
                retire(&old);
                drop(old);
                generation::remove_others(&self.root, &name);
                tracing::info!(tenant = %self.tenant_name, generation = %name, instances, replayed, "search reindex done");
                Ok(ReindexStats {
                    generation: name,
                    instances,
                    replayed,
                    elapsed: started.elapsed(),
                })
            }
            Err(e) => {
                let _ignored = std::fs::remove_dir_all(&dir);
                Err(e)
            }
        }
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

fn open_generation(dir: &Path, name: &str, options: &IndexOptions) -> Result<Generation> {
    let index = generation::open_for_serving(dir)?;
    if index.schema() != Fields::get().schema {
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
    let writer = index.writer_with_num_threads(1, options.writer_memory)?;
    writer.set_merge_policy(Box::new(follower_merge_policy()));
    Ok(Generation {
        name: name.to_string(),
        reader,
        writer: Mutex::new(Some(writer)),
        seq: AtomicI64::new(payload.seq),
    })
}

/// Merging for an index that takes a commit of a few hundred documents every half
/// second under load (check-outs and check-ins reindex one instance each). Tantivy's
/// default puts every segment under 10,000 documents in one level and merges them all
/// whenever there are eight, so a document is rewritten three or four times before it
/// leaves that level; with small levels it is rewritten once per eightfold growth.
pub(crate) fn follower_merge_policy() -> tantivy::indexer::LogMergePolicy {
    let mut policy = tantivy::indexer::LogMergePolicy::default();
    policy.set_min_layer_size(500);
    policy
}

fn commit(writer: &mut IndexWriter, seq: i64) -> Result<()> {
    let payload = serde_json::to_string(&Payload { format: generation::FORMAT_VERSION, seq })
        .expect("serialising plain data cannot fail");
    let mut prepared = writer.prepare_commit()?;
    prepared.set_payload(&payload);
    prepared.commit()?;
    Ok(())
}

/// Builds a full index in `dir` from one read transaction of the store: instances in
/// id order, a page at a time, each page's holdings and items fetched with one query
/// each. Returns the number of instances.
fn build(
    tenant: &Tenant,
    dir: &Path,
    options: &IndexOptions,
    progress: &mut dyn FnMut(ReindexProgress),
) -> Result<u64> {
    const PAGE: usize = 1_000;
    let index = Index::create_in_dir(dir, Fields::get().schema.clone())?;
    text::register(&index);
    let mut writer = generation::build_writer(&index, options.build_threads, options.build_memory)?;
    let tenant_name = tenant.name().to_string();
    let (seq, done) = tenant.read(|reader| {
        let seq = reader.last_seq()?;
        let total = reader.count(&source::INSTANCES)?;
        let refs = source::ref_ids(reader)?;
        let mut after: Option<String> = None;
        let mut done = 0u64;
        progress(ReindexProgress { done, total });
        loop {
            let page = reader.scan(&source::INSTANCES, after.as_deref(), PAGE)?;
            let Some(last) = page.last() else { break };
            after = Some(last.id.clone());
            let n = page.len() as u64;
            for family in source::families(reader, page)? {
                writer.add_document(document::build(&family, &refs, &tenant_name))?;
            }
            done += n;
            if done.is_multiple_of(PAGE as u64 * 10) {
                progress(ReindexProgress { done, total });
            }
        }
        progress(ReindexProgress { done, total: total.max(done) });
        Ok::<_, Error>((seq, done))
    })?;
    commit(&mut writer, seq)?;
    generation::compact(writer)?;
    Ok(done)
}

/// Applies the change log after the generation's sequence number, at least up to
/// `target`.
fn apply_until(generation: &Generation, tenant: &Tenant, batch: usize, target: i64) -> Result<u64> {
    let mut applied = 0;
    while generation.seq.load(Ordering::SeqCst) < target {
        let n = apply_batch(generation, tenant, batch)?;
        if n == 0 {
            break;
        }
        applied += n;
    }
    Ok(applied)
}

/// Applies up to `batch` change-log rows in one read transaction and commits.
fn apply_batch(generation: &Generation, tenant: &Tenant, batch: usize) -> Result<u64> {
    let after = generation.seq.load(Ordering::SeqCst);
    let fields = Fields::get();
    let mut guard = generation.writer.lock().unwrap_or_else(|p| p.into_inner());
    let writer = guard.as_mut().ok_or_else(|| Error::Index("index generation retired".into()))?;
    let searcher = generation.reader.searcher();
    let tenant_name = tenant.name();
    let outcome = tenant.read(|reader| {
        let changes = reader.changes_since(after, batch)?;
        let Some(last) = changes.last().map(|c| c.seq) else { return Ok(None) };
        let affected = affected_instances(&searcher, reader, &changes)?;
        let refs: RefIds = source::ref_ids(reader)?;
        let ids: Vec<String> = affected.iter().map(Uuid::to_string).collect();
        for id in &ids {
            writer.delete_term(Term::from_field_text(fields.id(), id));
        }
        for family in source::load_families(reader, &ids)? {
            writer.add_document(document::build(&family, &refs, tenant_name))?;
        }
        Ok::<_, Error>(Some((last, changes.len() as u64)))
    });
    let (last, n) = match outcome {
        Ok(Some(done)) => done,
        Ok(None) => return Ok(0),
        Err(e) => {
            // Drop what was added for this batch; it is applied again next time.
            let _ignored = writer.rollback();
            return Err(e);
        }
    };
    commit(writer, last)?;
    generation.seq.store(last, Ordering::SeqCst);
    generation.reader.reload()?;
    Ok(n)
}

/// The instances a batch of changes touches: changed instances; for holdings and
/// items, the instance indexed with them (found in the index, which is how deleted
/// records are traced) and the one they belong to in the store now.
fn affected_instances(
    searcher: &tantivy::Searcher,
    reader: &store::Reader<'_>,
    changes: &[Change],
) -> Result<HashSet<Uuid>> {
    let fields = Fields::get();
    let mut affected = HashSet::new();
    let mut holdings = Vec::new();
    let mut items = Vec::new();
    for change in changes {
        match change.record_type.as_str() {
            "instance" => {
                if let Ok(id) = Uuid::parse_str(&change.record_id) {
                    affected.insert(id);
                }
            }
            "holdings" => holdings.push(change.record_id.to_lowercase()),
            "item" => items.push(change.record_id.to_lowercase()),
            _ => {}
        }
    }
    let mut terms = Vec::new();
    for (ids, field) in [(&holdings, "holdings.id"), (&items, "items.id")] {
        let idx = fields.index_of(field).expect("linkage fields are registered");
        for id in ids.iter().collect::<HashSet<_>>() {
            terms.push(Term::from_field_text(fields.handles[idx].main, id));
        }
    }
    affected.extend(search::ids_with_terms(searcher, &terms)?);
    let holdings: Vec<&str> = holdings.iter().map(String::as_str).collect();
    affected.extend(source::instances_of_holdings(reader, &holdings)?);
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    affected.extend(source::instances_of_items(reader, &items)?);
    Ok(affected)
}
