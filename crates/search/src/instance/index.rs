//! `InstanceIndex`: one tenant's instance index (`tenant.dir()/search/instances`),
//! following the change log, searchable, rebuilt without downtime.
//!
//! The lifecycle (generations, replay, swap) is `crate::lifecycle`'s; this module says
//! what the instance documents are built from and which instances a change touches
//! (an item's change re-indexes its instance, as it was indexed and as it is now).
//! Does not own query meaning (`query`) or the documents (`document`).

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;

use store::{Change, Reader, RecordTable, StoredRecord, Tenant};
use tantivy::schema::Schema;
use tantivy::{Index, IndexWriter, Searcher, Term};
use uuid::Uuid;

use crate::error::Result;
use crate::facet::{FacetRequest, FacetsResponse};
use inventory::{HoldingsRecord, Instance, Item};

use crate::instance::document::{self, RefIds};
use crate::instance::fields::Fields;
use crate::instance::query;
use crate::instance::search::{self, SearchRequest, SearchResponse};
use crate::instance::source::{self, FamilyRecords};
use crate::lifecycle::{
    FedBuild, IndexOptions, IndexStatus, Kind, Lifecycle, ReindexProgress, ReindexStats,
};

/// The instance index's documents: an instance with its holdings and items.
pub(crate) struct Instances;

/// A tenant's instance index. Share it with an `Arc`; every method takes `&self`.
#[derive(Debug)]
pub struct InstanceIndex {
    pub(crate) lifecycle: Lifecycle<Instances>,
}

impl InstanceIndex {
    /// Opens the tenant's instance index under `tenant.dir()/search/instances`,
    /// building it from the store first when it is missing, corrupt or of an older
    /// format. Call [`InstanceIndex::catch_up`] (or start a follower) afterwards.
    pub fn open(tenant: &Tenant) -> Result<InstanceIndex> {
        InstanceIndex::open_with(tenant, IndexOptions::default())
    }

    pub fn open_with(tenant: &Tenant, options: IndexOptions) -> Result<InstanceIndex> {
        Ok(InstanceIndex { lifecycle: Lifecycle::open(tenant, options)? })
    }

    /// The change-log sequence number the index has applied (committed, or skipped as
    /// changing no instance).
    pub fn applied_seq(&self) -> i64 {
        self.lifecycle.applied_seq()
    }

    /// Applies the change-log rows committed before the call (and perhaps a few
    /// more), committing every [`IndexOptions::commit_rows`] rows. Returns the rows
    /// applied. It does not chase a log that keeps growing: a follower calls it again.
    pub fn catch_up(&self, tenant: &Tenant) -> Result<u64> {
        self.lifecycle.catch_up(tenant)
    }

    /// One page of instances matching a query, with the exact total. With
    /// `expand_all` the records are read from `tenant`'s store.
    pub fn search(&self, tenant: &Tenant, request: &SearchRequest) -> Result<SearchResponse> {
        request.validate()?;
        let translated = query::translate(&request.query)?;
        let searcher = self.lifecycle.searcher();
        search::search(&searcher, &translated, request, tenant)
    }

    /// How many instances match a query.
    pub fn count(&self, query: &str) -> Result<u64> {
        let translated = query::translate(query)?;
        let searcher = self.lifecycle.searcher();
        search::count_matches(&searcher, &translated)
    }

    /// Facet counts over the instances matching a query.
    pub fn facets(&self, query: &str, facets: &[FacetRequest]) -> Result<FacetsResponse> {
        let parsed = crate::query::parse(Fields::get(), query)?;
        let searcher = self.lifecycle.searcher();
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
        let searcher = self.lifecycle.searcher();
        search::stream_ids(&searcher, translated.query.as_ref(), &mut sink)
    }

    pub fn status(&self) -> IndexStatus {
        self.lifecycle.status()
    }

    /// Serves the segments the writer's background merges made since the last commit
    /// (a follower calls it every second). Returns whether it reloaded.
    pub fn serve_merges(&self) -> Result<bool> {
        self.lifecycle.serve_merges()
    }

    /// Merges into one segment a reindexed generation whose merge a stop interrupted
    /// (a reindex serves its build's segments first and merges them after), at
    /// background priority; for a server to call once it has opened the index. Returns
    /// how long the merge took, or `None` if there was none to do.
    pub fn resume_merge(&self, tenant: &Tenant) -> Option<std::time::Duration> {
        self.lifecycle.resume_merge(tenant)
    }

    /// Starts a full build for a bulk load that has its records in memory as it writes
    /// them: the instances in the store now are indexed first, then what the caller
    /// adds ([`BulkBuild::add`]), and [`InstanceIndex::finish_bulk_build`] swaps the
    /// result in. The old generation serves meanwhile; a reindex cannot start.
    pub fn bulk_build(&self, tenant: &Tenant) -> Result<BulkBuild> {
        let refs = tenant.read(source::ref_ids)?;
        let build = self.lifecycle.begin_fed(tenant)?;
        Ok(BulkBuild { build, refs, tenant: tenant.name().to_string(), handed: 0 })
    }

    /// Ends a bulk build. `seq` is the change-log sequence number up to which the
    /// build holds every change to instances, holdings and items: the changes after it
    /// are replayed before the swap. [`BulkBuild::covered_seq`] says which number the
    /// change log supports.
    pub fn finish_bulk_build(
        &self,
        tenant: &Tenant,
        build: BulkBuild,
        seq: i64,
    ) -> Result<ReindexStats> {
        self.lifecycle.finish_fed(tenant, build.build, seq)
    }

    /// Rebuilds the index into a new generation from the store while this one keeps
    /// serving (and following the log), replays the changes made since the build's
    /// first read, swaps atomically and deletes the old generation. `progress` is
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
        self.lifecycle.reindex(tenant, &mut progress)
    }
}

/// A full build of the instance index fed by a bulk load ([`InstanceIndex::bulk_build`]).
pub struct BulkBuild {
    build: FedBuild,
    refs: RefIds,
    tenant: String,
    // Instances, holdings records and items indexed from what the caller handed over.
    handed: u64,
}

impl std::fmt::Debug for BulkBuild {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BulkBuild").field("tenant", &self.tenant).finish_non_exhaustive()
    }
}

impl BulkBuild {
    /// Indexes records as stored. A holdings record goes with its instance, an item
    /// with its holdings record, all in the same call; any whose instance is not among
    /// `instances` is left out.
    pub fn add(
        &mut self,
        instances: &[Instance],
        holdings: &[HoldingsRecord],
        items: &[Item],
    ) -> Result<()> {
        let mut holdings_of: HashMap<Uuid, Vec<&HoldingsRecord>> = HashMap::new();
        for record in holdings {
            holdings_of.entry(record.instance_id).or_default().push(record);
        }
        let mut items_of: HashMap<Uuid, Vec<&Item>> = HashMap::new();
        for item in items {
            items_of.entry(item.holdings_record_id).or_default().push(item);
        }
        let none = Vec::new();
        for instance in instances {
            let Some(id) = instance.id else { continue };
            let holdings = holdings_of.get(&id).unwrap_or(&none);
            let items: Vec<&Item> = holdings
                .iter()
                .filter_map(|h| h.id.and_then(|id| items_of.get(&id)))
                .flatten()
                .copied()
                .collect();
            self.handed += 1 + holdings.len() as u64 + items.len() as u64;
            let doc = document::build(
                instance,
                holdings.iter().copied(),
                items,
                &self.refs,
                &self.tenant,
            );
            self.build.add_record([doc])?;
        }
        Ok(())
    }

    /// The sequence number to finish the build at, given that the caller's last write
    /// was change `upto`: `upto` itself when the change log from the build's snapshot
    /// to it holds exactly one inventory change per record handed over (no other
    /// writer touched instances, holdings or items, and none was left out); else the
    /// snapshot's, whose later changes are then replayed.
    pub fn covered_seq(&self, tenant: &Tenant, upto: i64) -> Result<i64> {
        let since = self.build.snapshot_seq();
        let types = [source::INSTANCES, source::HOLDINGS, source::ITEMS].map(|t| t.record_type);
        let logged = tenant.read(|r| r.count_changes(since, upto, &types))?;
        Ok(if logged == self.handed { upto } else { since })
    }
}

impl Kind for Instances {
    const DIR: &'static str = "instances";

    fn schema() -> &'static Schema {
        &Fields::get().schema
    }

    fn gram_fields() -> Vec<tantivy::schema::Field> {
        Fields::get().gram_fields()
    }

    fn follower_writer(index: &Index, options: &IndexOptions) -> Result<IndexWriter> {
        Ok(index.writer_with_num_threads(1, options.writer_memory)?)
    }

    /// Merging for an index that takes a commit of a few hundred documents every half
    /// second under load (check-outs and check-ins reindex one instance each). Each
    /// segment costs every search a dictionary lookup per term, so levels are eightfold
    /// (`level_log_size` 3) and a level is merged once it holds three segments: a
    /// handful of segments at most, each document rewritten about once per level. A
    /// segment whose documents are 30% deleted is merged too, so re-indexed records do
    /// not leave the large segment full of dead ones. On 100,000 instances after 30 s of
    /// desk traffic: 3 segments and 4,847 deleted documents once the merges caught up,
    /// against 11-17 segments and 55,000-65,000 deleted with tantivy's defaults and
    /// small levels (`docs/benchmarks.md`, row AB).
    fn merge_policy() -> Box<dyn tantivy::indexer::MergePolicy> {
        let mut policy = tantivy::indexer::LogMergePolicy::default();
        policy.set_min_layer_size(500);
        policy.set_level_log_size(3.0);
        policy.set_min_num_segments(3);
        policy.set_del_docs_ratio_before_merge(0.3);
        Box::new(policy)
    }

    const RECORDS: RecordTable = source::INSTANCES;

    type Context = RefIds;

    fn context(reader: &Reader<'_>) -> Result<RefIds> {
        source::ref_ids(reader)
    }

    type Page = FamilyRecords;

    /// The page's holdings and items are fetched with one query each.
    fn read_page(reader: &Reader<'_>, page: Vec<StoredRecord>) -> Result<FamilyRecords> {
        source::read_family_records(reader, page)
    }

    fn add_page(
        refs: &RefIds,
        page: FamilyRecords,
        tenant: &str,
        writer: &IndexWriter,
    ) -> Result<()> {
        for family in page.assemble()? {
            writer.add_document(family.document(refs, tenant))?;
        }
        Ok(())
    }

    /// The instance each holding and item added since the last commit was indexed
    /// with, by the holding's or item's id.
    type Unseen = HashMap<Uuid, Uuid>;

    /// Deletes each affected instance's document and adds it again as stored now.
    fn apply(
        reader: &Reader<'_>,
        searcher: &Searcher,
        unseen: &mut HashMap<Uuid, Uuid>,
        changes: &[Change],
        tenant: &str,
        writer: &mut IndexWriter,
    ) -> Result<bool> {
        let fields = Fields::get();
        let affected = affected_instances(searcher, unseen, reader, changes)?;
        let refs: RefIds = source::ref_ids(reader)?;
        let ids: Vec<String> = affected.iter().map(Uuid::to_string).collect();
        crate::deletes::delete_all(
            writer,
            ids.iter().map(|id| Term::from_field_text(fields.id(), id)).collect(),
        )?;
        for family in source::load_families(reader, &ids)? {
            let instance = family.instance.id.expect("stored instances have ids");
            let members = family.holdings.iter().map(|(h, _)| h.id);
            for member in members.chain(family.items.iter().map(|(i, _)| i.id)).flatten() {
                unseen.insert(member, instance);
            }
            writer.add_document(family.document(&refs, tenant))?;
        }
        Ok(!ids.is_empty())
    }
}

/// The instances a batch of changes touches: changed instances; for holdings and
/// items, the instance indexed with them (found in the index, which is how deleted
/// records are traced, or in `unseen` for documents not committed yet) and the one
/// they belong to in the store now.
fn affected_instances(
    searcher: &tantivy::Searcher,
    unseen: &HashMap<Uuid, Uuid>,
    reader: &store::Reader<'_>,
    changes: &[Change],
) -> Result<HashSet<Uuid>> {
    let fields = Fields::get();
    let mut affected = HashSet::new();
    let mut holdings = Vec::new();
    let mut items = Vec::new();
    for change in changes {
        let kind = change.record_type.as_str();
        if kind == source::INSTANCES.record_type {
            if let Ok(id) = Uuid::parse_str(&change.record_id) {
                affected.insert(id);
            }
        } else if kind == source::HOLDINGS.record_type {
            holdings.push(change.record_id.to_lowercase());
        } else if kind == source::ITEMS.record_type {
            items.push(change.record_id.to_lowercase());
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
    let members = holdings.iter().chain(&items).filter_map(|id| Uuid::parse_str(id).ok());
    affected.extend(members.filter_map(|id| unseen.get(&id)));
    let holdings: Vec<&str> = holdings.iter().map(String::as_str).collect();
    affected.extend(source::instances_of_holdings(reader, &holdings)?);
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    affected.extend(source::instances_of_items(reader, &items)?);
    Ok(affected)
}
