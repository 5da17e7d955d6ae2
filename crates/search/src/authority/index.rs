//! `AuthorityIndex`: one tenant's authority index (`tenant.dir()/search/authorities`),
//! following the change log, searchable, rebuilt without downtime.
//!
//! Owns the index's lifecycle, as the instance index does: opening (and rebuilding a
//! missing, corrupt or outdated index), applying `authority` change-log rows,
//! committing with the last applied sequence number in the commit payload, building a
//! new generation from one snapshot while the old one serves, and swapping. Does not
//! own query meaning (`crate::query`), the documents (`document`) or the page
//! (`search`).
//!
//! Invariant: the payload of a generation's last commit names the change-log sequence
//! number up to which every change is in that commit. Applying a change deletes every
//! heading document of the authority (they share its `id` term) and adds the
//! documents of the record as stored now, so replay is idempotent.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use inventory::{Authority, RefKind};
use store::{Reader, RecordTable, StoredRecord, Tenant};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, Term};
use uuid::Uuid;

use crate::authority::document::{self, LccnTypes};
use crate::authority::fields::Fields;
use crate::authority::search::{
    self, AuthoritySearchRequest, AuthoritySearchResponse, SortField, SortKey,
};
use crate::error::{Error, Result, io_error};
use crate::facet::{FacetRequest, FacetsResponse};
use crate::instance::{IndexOptions, IndexStatus, InstanceIndex, ReindexProgress, ReindexStats};
use crate::{generation, text};

// The inventory crate's authority table (crates/inventory/src/storage.rs), as read
// here.
const AUTHORITIES: RecordTable =
    RecordTable { table: "authorities", record_type: "authority", columns: &["natural_id"] };

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

/// A tenant's authority index. Share it with an `Arc`; every method takes `&self`.
pub struct AuthorityIndex {
    root: PathBuf,
    tenant_name: String,
    options: IndexOptions,
    current: RwLock<Arc<Generation>>,
    // Serialises applying changes with swapping generations.
    apply_lock: Mutex<()>,
    reindexing: AtomicBool,
    status: Mutex<StatusState>,
}

impl std::fmt::Debug for AuthorityIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthorityIndex").field("root", &self.root).finish_non_exhaustive()
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Payload {
    format: u32,
    seq: i64,
}

impl AuthorityIndex {
    /// Opens the tenant's authority index, building it from the store first when it
    /// is missing, corrupt or of an older format. Call [`AuthorityIndex::catch_up`]
    /// (or start a follower) afterwards.
    pub fn open(tenant: &Tenant) -> Result<AuthorityIndex> {
        AuthorityIndex::open_with(tenant, IndexOptions::default())
    }

    pub fn open_with(tenant: &Tenant, options: IndexOptions) -> Result<AuthorityIndex> {
        let root = tenant.dir().join("search").join("authorities");
        std::fs::create_dir_all(&root).map_err(|e| io_error(&root, e))?;
        let existing = generation::read_current(&root).and_then(|name| {
            match open_generation(&root.join(&name), &name, &options) {
                Ok(generation) => Some(generation),
                Err(e) => {
                    tracing::warn!(tenant = tenant.name(), generation = %name, error = %e, "authority index unusable; rebuilding");
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
        Ok(AuthorityIndex {
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

    /// The change-log sequence number the index has applied (committed, or skipped as
    /// holding no authority change).
    pub fn applied_seq(&self) -> i64 {
        self.current().seq.load(Ordering::SeqCst)
    }

    /// Applies the change-log rows committed before the call, committing every
    /// [`IndexOptions::batch_size`] rows. Returns the rows read (of every record type).
    pub fn catch_up(&self, tenant: &Tenant) -> Result<u64> {
        let target = tenant.last_seq()?;
        let _guard = self.apply_lock.lock().unwrap_or_else(|p| p.into_inner());
        apply_until(&self.current(), tenant, self.options.batch_size, target)
    }

    /// One page of heading documents matching a query, with the exact number of
    /// matching headings. `instances` answers `numberOfTitles` (the instances whose
    /// contributors, subjects, series or alternative titles name the authority); without
    /// it no count is given.
    pub fn search(
        &self,
        request: &AuthoritySearchRequest,
        instances: Option<&InstanceIndex>,
    ) -> Result<AuthoritySearchResponse> {
        request.validate()?;
        let (query, sort) = translate(&request.query)?;
        let searcher = self.current().reader.searcher();
        let mut request = request.clone();
        request.include_number_of_titles &= instances.is_some();
        let mut titles = |id: Uuid| -> Result<u64> {
            let Some(instances) = instances else { return Ok(0) };
            let count = crate::SearchRequest {
                limit: 0,
                ..crate::SearchRequest::new(format!("authorityId == {id}"))
            };
            Ok(instances.search(&count)?.total_records)
        };
        search::search(&searcher, query.as_ref(), sort, &request, &mut titles)
    }

    /// Facet counts over the heading documents matching a query.
    pub fn facets(&self, query: &str, facets: &[FacetRequest]) -> Result<FacetsResponse> {
        let parsed = crate::query::parse(Fields::get(), query)?;
        let searcher = self.current().reader.searcher();
        crate::facet::count(&searcher, Fields::get(), &parsed.root, facets)
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
    /// this one keeps serving and following the log, replays the changes made
    /// meanwhile, swaps atomically and deletes the old generation. Progress counts
    /// authority records. One reindex runs at a time; a second call meanwhile fails.
    pub fn reindex(
        &self,
        tenant: &Tenant,
        mut progress: impl FnMut(ReindexProgress),
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
        progress: &mut dyn FnMut(ReindexProgress),
    ) -> Result<ReindexStats> {
        let started = Instant::now();
        let (name, dir) = generation::create_next(&self.root)?;
        let outcome = (|| {
            let mut report = |p: ReindexProgress| {
                self.status.lock().unwrap_or_else(|e| e.into_inner()).reindex = Some(p);
                progress(p);
            };
            let records = build(tenant, &dir, &self.options, &mut report)?;
            let fresh = open_generation(&dir, &name, &self.options)?;
            let batch = self.options.batch_size;
            let mut replayed = apply_until(&fresh, tenant, batch, tenant.last_seq()?)?;
            let old = {
                let _guard = self.apply_lock.lock().unwrap_or_else(|p| p.into_inner());
                replayed += apply_until(&fresh, tenant, batch, tenant.last_seq()?)?;
                generation::write_current(&self.root, &name)?;
                let mut current = self.current.write().unwrap_or_else(|p| p.into_inner());
                std::mem::replace(&mut *current, Arc::new(fresh))
            };
            Ok::<_, Error>((records, replayed, old))
        })();
        match outcome {
            Ok((records, replayed, old)) => {
                retire(&old);
                drop(old);
                generation::remove_others(&self.root, &name);
                tracing::info!(tenant = %self.tenant_name, generation = %name, records, replayed, "authority reindex done");
                Ok(ReindexStats {
                    generation: name,
                    instances: records,
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

/// Parses a query and translates it over the authority registry, with its sort key
/// (FOLIO's default for authorities: by heading).
fn translate(query_text: &str) -> Result<(Box<dyn tantivy::query::Query>, SortKey)> {
    let fields = Fields::get();
    let parsed = crate::query::parse(fields, query_text)?;
    let query = crate::query::node(fields, &parsed.root)?;
    let sort = match parsed.sort_keys.first() {
        Some(key) => search::sort_key(key)?,
        None => SortKey { field: SortField::HeadingRef, descending: false },
    };
    Ok((query, sort))
}

/// Stops a generation's writer so its directory can be deleted.
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
    let writer = index.writer_with_num_threads(1, options.writer_memory.min(32 << 20))?;
    Ok(Generation {
        name: name.to_string(),
        reader,
        writer: Mutex::new(Some(writer)),
        seq: AtomicI64::new(payload.seq),
    })
}

fn commit(writer: &mut IndexWriter, seq: i64) -> Result<()> {
    let payload = serde_json::to_string(&Payload { format: generation::FORMAT_VERSION, seq })
        .expect("serialising plain data cannot fail");
    let mut prepared = writer.prepare_commit()?;
    prepared.set_payload(&payload);
    prepared.commit()?;
    Ok(())
}

fn parse(record: &StoredRecord) -> Result<Authority> {
    serde_json::from_str(&record.body).map_err(|e| {
        Error::Inventory(inventory::Error::Corrupt(format!("authority {}: {e}", record.id)))
    })
}

/// The identifier types behind `lccn` and `canceledLccn`, by FOLIO's names.
fn lccn_types(reader: &Reader<'_>) -> Result<LccnTypes> {
    let mut types = LccnTypes::default();
    if let Some(id) = inventory::reference_id_by_name(reader, RefKind::IdentifierType, "LCCN")? {
        types.lccn.insert(id);
    }
    let canceled = "Canceled LCCN";
    if let Some(id) = inventory::reference_id_by_name(reader, RefKind::IdentifierType, canceled)? {
        types.canceled.insert(id);
    }
    Ok(types)
}

/// Builds a full index in `dir` from one read transaction: authorities in id order, a
/// page at a time. Returns the number of authority records.
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
        let total = reader.count(&AUTHORITIES)?;
        let lccn = lccn_types(reader)?;
        let mut after: Option<String> = None;
        let mut done = 0u64;
        progress(ReindexProgress { done, total });
        loop {
            let page = reader.scan(&AUTHORITIES, after.as_deref(), PAGE)?;
            let Some(last) = page.last() else { break };
            after = Some(last.id.clone());
            for stored in &page {
                for doc in document::build(&parse(stored)?, &lccn, &tenant_name) {
                    writer.add_document(doc)?;
                }
            }
            done += page.len() as u64;
            progress(ReindexProgress { done, total });
        }
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

/// Applies up to `batch` change-log rows in one read transaction and commits. Rows of
/// other record types only move the sequence number on.
fn apply_batch(generation: &Generation, tenant: &Tenant, batch: usize) -> Result<u64> {
    let after = generation.seq.load(Ordering::SeqCst);
    let fields = Fields::get();
    let mut guard = generation.writer.lock().unwrap_or_else(|p| p.into_inner());
    let writer = guard.as_mut().ok_or_else(|| Error::Index("index generation retired".into()))?;
    let tenant_name = tenant.name();
    let outcome = tenant.read(|reader| {
        let changes = reader.changes_since(after, batch)?;
        let Some(last) = changes.last().map(|c| c.seq) else { return Ok(None) };
        let ids: BTreeSet<String> = changes
            .iter()
            .filter(|c| c.record_type == AUTHORITIES.record_type)
            .filter_map(|c| Uuid::parse_str(&c.record_id).ok())
            .map(|id| id.to_string())
            .collect();
        if !ids.is_empty() {
            let lccn = lccn_types(reader)?;
            for id in &ids {
                writer.delete_term(Term::from_field_text(fields.id(), id));
            }
            let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
            for stored in reader.get_many(&AUTHORITIES, &refs)? {
                for doc in document::build(&parse(&stored)?, &lccn, tenant_name) {
                    writer.add_document(doc)?;
                }
            }
        }
        Ok::<_, Error>(Some((last, changes.len() as u64, !ids.is_empty())))
    });
    let (last, n, changed) = match outcome {
        Ok(Some(done)) => done,
        Ok(None) => return Ok(0),
        Err(e) => {
            let _ignored = writer.rollback();
            return Err(e);
        }
    };
    // A batch without authorities moves the sequence number on in memory only: a
    // commit per burst of instance writes would cost an fsync for nothing, and a
    // restart re-reads those rows and skips them again.
    if changed {
        commit(writer, last)?;
    }
    generation.seq.store(last, Ordering::SeqCst);
    if changed {
        generation.reader.reload()?;
    }
    Ok(n)
}
