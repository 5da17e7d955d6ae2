//! `AuthorityIndex`: one tenant's authority index (`tenant.dir()/search/authorities`),
//! following the change log, searchable, rebuilt without downtime.
//!
//! The lifecycle (generations, replay, swap) is `crate::lifecycle`'s; this module says
//! what the heading documents are built from: an authority change deletes every
//! heading document of the record (they share its `id` term) and adds those of the
//! record as stored now. Does not own query meaning (`crate::query`), the documents
//! (`document`) or the page (`search`).

use std::collections::BTreeSet;

use inventory::{Authority, RefKind};
use store::{Change, Reader, RecordTable, StoredRecord, Tenant};
use tantivy::schema::Schema;
use tantivy::{Index, IndexWriter, Searcher, Term};
use uuid::Uuid;

use crate::authority::document::{self, LccnTypes};
use crate::authority::fields::Fields;
use crate::authority::search::{
    self, AuthoritySearchRequest, AuthoritySearchResponse, SortField, SortKey,
};
use crate::error::{Error, Result};
use crate::facet::{FacetRequest, FacetsResponse};
use crate::instance::InstanceIndex;
use crate::lifecycle::{IndexOptions, IndexStatus, Kind, Lifecycle, ReindexProgress, ReindexStats};

use inventory::AUTHORITIES;

/// The authority index's documents: one per heading of an authority record.
pub(crate) struct Authorities;

/// A tenant's authority index. Share it with an `Arc`; every method takes `&self`.
#[derive(Debug)]
pub struct AuthorityIndex {
    pub(crate) lifecycle: Lifecycle<Authorities>,
}

impl AuthorityIndex {
    /// Opens the tenant's authority index, building it from the store first when it
    /// is missing, corrupt or of an older format. Call [`AuthorityIndex::catch_up`]
    /// (or start a follower) afterwards.
    pub fn open(tenant: &Tenant) -> Result<AuthorityIndex> {
        AuthorityIndex::open_with(tenant, IndexOptions::default())
    }

    pub fn open_with(tenant: &Tenant, options: IndexOptions) -> Result<AuthorityIndex> {
        Ok(AuthorityIndex { lifecycle: Lifecycle::open(tenant, options)? })
    }

    /// The change-log sequence number the index has applied (committed, or skipped as
    /// holding no authority change).
    pub fn applied_seq(&self) -> i64 {
        self.lifecycle.applied_seq()
    }

    /// Applies the change-log rows committed before the call, committing every
    /// [`IndexOptions::commit_rows`] rows. Returns the rows read (of every record type).
    pub fn catch_up(&self, tenant: &Tenant) -> Result<u64> {
        self.lifecycle.catch_up(tenant)
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
        let searcher = self.lifecycle.searcher();
        let mut request = request.clone();
        request.include_number_of_titles &= instances.is_some();
        let mut titles = |id: Uuid| -> Result<u64> {
            let Some(instances) = instances else { return Ok(0) };
            instances.count(&format!("authorityId == {id}"))
        };
        search::search(&searcher, query.as_ref(), sort, &request, &mut titles)
    }

    /// Facet counts over the heading documents matching a query.
    pub fn facets(&self, query: &str, facets: &[FacetRequest]) -> Result<FacetsResponse> {
        let parsed = crate::query::parse(Fields::get(), query)?;
        let searcher = self.lifecycle.searcher();
        crate::facet::count(&searcher, Fields::get(), &parsed.root, facets)
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

    /// Rebuilds the index into a new generation from the store while this one keeps
    /// serving and following the log, replays the changes made since the build's first
    /// read, swaps atomically and deletes the old generation. Progress counts
    /// authority records. One reindex runs at a time; a second call meanwhile fails.
    pub fn reindex(
        &self,
        tenant: &Tenant,
        mut progress: impl FnMut(ReindexProgress) + Send,
    ) -> Result<ReindexStats> {
        self.lifecycle.reindex(tenant, &mut progress)
    }
}

impl Kind for Authorities {
    const DIR: &'static str = "authorities";

    fn schema() -> &'static Schema {
        &Fields::get().schema
    }

    fn gram_fields() -> Vec<tantivy::schema::Field> {
        Fields::get().gram_fields()
    }

    fn follower_writer(index: &Index, options: &IndexOptions) -> Result<IndexWriter> {
        Ok(index.writer_with_num_threads(1, options.writer_memory.min(32 << 20))?)
    }

    fn merge_policy() -> Box<dyn tantivy::indexer::MergePolicy> {
        Box::new(tantivy::indexer::LogMergePolicy::default())
    }

    const RECORDS: RecordTable = AUTHORITIES;

    type Context = LccnTypes;

    fn context(reader: &Reader<'_>) -> Result<LccnTypes> {
        lccn_types(reader)
    }

    type Page = Vec<StoredRecord>;

    fn read_page(_reader: &Reader<'_>, page: Vec<StoredRecord>) -> Result<Vec<StoredRecord>> {
        Ok(page)
    }

    fn add_page(
        lccn: &LccnTypes,
        page: Vec<StoredRecord>,
        tenant: &str,
        writer: &IndexWriter,
    ) -> Result<()> {
        for stored in &page {
            for doc in document::build(&parse(stored)?, lccn, tenant) {
                writer.add_document(doc)?;
            }
        }
        Ok(())
    }

    /// An authority's documents are found by its own id, which the change names.
    type Unseen = ();

    /// Deletes every heading document of each changed authority (they share its `id`
    /// term) and adds the documents of the record as stored now. Rows of other record
    /// types change nothing here.
    fn apply(
        reader: &Reader<'_>,
        _searcher: &Searcher,
        _unseen: &mut (),
        changes: &[Change],
        tenant: &str,
        writer: &mut IndexWriter,
    ) -> Result<bool> {
        let fields = Fields::get();
        let ids: BTreeSet<String> = changes
            .iter()
            .filter(|c| c.record_type == AUTHORITIES.record_type)
            .filter_map(|c| Uuid::parse_str(&c.record_id).ok())
            .map(|id| id.to_string())
            .collect();
        if ids.is_empty() {
            return Ok(false);
        }
        let lccn = lccn_types(reader)?;
        crate::deletes::delete_all(
            writer,
            ids.iter().map(|id| Term::from_field_text(fields.id(), id)).collect(),
        )?;
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        for stored in reader.get_many(&AUTHORITIES, &refs)? {
            for doc in document::build(&parse(&stored)?, &lccn, tenant) {
                writer.add_document(doc)?;
            }
        }
        Ok(true)
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
