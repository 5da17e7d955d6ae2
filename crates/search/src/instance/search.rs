//! Running instance queries: pages of results (relevance or sorted), exact totals,
//! facets and id streams, on one searcher (one committed view of the index).
//!
//! Owns the collectors: relevance is tantivy's BM25 top-k, except for queries of filters
//! only, whose page is their first matches in index order; sorts and facets read fast
//! columns per segment and convert segment-local term ordinals to strings only for
//! the few documents or values that survive. Does not own query meaning (`query`) or
//! the index's lifecycle (`index`).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::ops::ControlFlow;

use store::Tenant;
use tantivy::collector::{Collector, Count, SegmentCollector, TopDocs};
use tantivy::columnar::{Column, StrColumn};
use tantivy::query::{AllQuery, Bm25StatisticsProvider, BooleanQuery, EnableScoring, Occur, Query};
use tantivy::schema::Value;
use tantivy::{DocAddress, DocId, Score, Searcher, SegmentOrdinal, SegmentReader, TantivyDocument};
use uuid::Uuid;

use crate::error::{Error, Result};
use crate::facet::FacetRequest;
use crate::instance::fields::{self, FACET, Fields};
use crate::instance::query::{SortField, SortKey, Translated};
use crate::instance::{document, source};

/// Most results one page may hold (FOLIO's `limit` maximum).
pub const MAX_LIMIT: u32 = 500;
/// FOLIO's bound on `offset + limit`.
pub const MAX_WINDOW: u32 = 10_000;

/// `GET /search/instances` parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRequest {
    /// CQL.
    pub query: String,
    /// 0 to [`MAX_LIMIT`]; FOLIO's default is 100.
    pub limit: u32,
    pub offset: u32,
    /// The whole instance with its holdings and items, instead of the basic fields.
    pub expand_all: bool,
}

impl SearchRequest {
    /// A request with FOLIO's defaults: limit 100, offset 0, basic fields.
    pub fn new(query: impl Into<String>) -> SearchRequest {
        SearchRequest { query: query.into(), limit: 100, offset: 0, expand_all: false }
    }

    /// Checks FOLIO's paging rules, with FOLIO's messages.
    pub fn validate(&self) -> Result<()> {
        if self.limit > MAX_LIMIT {
            return Err(Error::InvalidPaging {
                parameter: "limit",
                value: self.limit.to_string(),
                message: format!("must be less than or equal to {MAX_LIMIT}"),
            });
        }
        if self.offset.saturating_add(self.limit) > MAX_WINDOW {
            return Err(Error::InvalidPaging {
                parameter: "offset",
                value: self.offset.to_string(),
                message: "The sum of limit and offset should not exceed 10000.".to_string(),
            });
        }
        Ok(())
    }
}

/// One page of instances and the exact number of matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResponse {
    pub total_records: u64,
    /// Each instance as a JSON object, in result order.
    pub instances: Vec<String>,
}

impl SearchResponse {
    /// FOLIO's body: `{"totalRecords":N,"instances":[...]}`.
    pub fn to_json(&self) -> String {
        let size: usize = self.instances.iter().map(|i| i.len() + 1).sum();
        let mut out = String::with_capacity(size + 48);
        out.push_str(&format!("{{\"totalRecords\":{},\"instances\":[", self.total_records));
        for (idx, instance) in self.instances.iter().enumerate() {
            if idx > 0 {
                out.push(',');
            }
            out.push_str(instance);
        }
        out.push_str("]}");
        out
    }
}

impl FacetRequest {
    /// Reads `languages` or `languages:5`; the name must be a facet field.
    pub fn parse(spec: &str) -> Result<FacetRequest> {
        FacetRequest::parse_with(spec, |name| {
            fields::resolve(name)
                .is_some_and(|f| f.len() == 1 && Fields::get().def(f[0]).has(FACET))
        })
    }
}

/// BM25's statistics for ranking, with each term's document frequency read from the
/// largest segment alone and scaled to the whole index, as Elasticsearch ranks each
/// shard by its own statistics. Tantivy's own provider looks every term up in every
/// segment, and the scorers then look it up in each segment again: a lookup decodes a
/// dictionary block, and the lookups were half of a search's CPU on an index check-outs
/// had left in five segments (a third on one). On one segment the figures are exact.
struct LargestSegment<'a> {
    searcher: &'a Searcher,
    largest: Option<&'a SegmentReader>,
    scale: f64,
}

impl<'a> LargestSegment<'a> {
    fn of(searcher: &'a Searcher) -> LargestSegment<'a> {
        let largest = searcher.segment_readers().iter().max_by_key(|s| s.max_doc());
        let all: u64 = searcher.segment_readers().iter().map(|s| u64::from(s.max_doc())).sum();
        let scale = largest.map_or(1.0, |s| all as f64 / f64::from(s.max_doc().max(1)));
        LargestSegment { searcher, largest, scale }
    }
}

impl Bm25StatisticsProvider for LargestSegment<'_> {
    fn total_num_tokens(&self, field: tantivy::schema::Field) -> tantivy::Result<u64> {
        self.searcher.total_num_tokens(field)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        self.searcher.total_num_docs()
    }

    fn doc_freq(&self, term: &tantivy::Term) -> tantivy::Result<u64> {
        let Some(largest) = self.largest else { return Ok(0) };
        let in_largest = largest.inverted_index(term.field())?.doc_freq(term)?;
        Ok((f64::from(in_largest) * self.scale).round() as u64)
    }
}

pub(crate) fn search(
    searcher: &Searcher,
    translated: &Translated,
    request: &SearchRequest,
    tenant: &Tenant,
) -> Result<SearchResponse> {
    let fields = Fields::get();
    let (limit, offset) = (request.limit as usize, request.offset as usize);
    let (total, addresses): (usize, Vec<DocAddress>) = if limit == 0 {
        (count(searcher, translated.query.as_ref())?, Vec::new())
    } else if translated.sort.is_empty() && !translated.ranked {
        let total = count(searcher, translated.query.as_ref())?;
        let first = first_in_index_order(searcher, translated.query.as_ref(), offset + limit)?;
        (total, first.into_iter().skip(offset).collect())
    } else if translated.sort.is_empty() {
        let top = TopDocs::with_limit(limit).and_offset(offset).order_by_score();
        let statistics = LargestSegment::of(searcher);
        let (total, top) = searcher.search_with_statistics_provider(
            &translated.query,
            &(Count, top),
            &statistics,
        )?;
        (total, top.into_iter().map(|(_, address)| address).collect())
    } else {
        let sorted = SortCollector { key: translated.sort[0], top: offset + limit };
        let (total, docs) = searcher.search(&translated.query, &(Count, sorted))?;
        (total, docs.into_iter().skip(offset).collect())
    };
    let instances = if request.expand_all {
        full(searcher, &addresses, tenant)?
    } else {
        let mut instances = Vec::with_capacity(addresses.len());
        for address in addresses {
            let doc: TantivyDocument = searcher.doc(address)?;
            let json = doc.get_first(fields.basic).and_then(|v| v.as_str()).unwrap_or("{}");
            instances.push(json.to_string());
        }
        instances
    };
    Ok(SearchResponse { total_records: total as u64, instances })
}

/// The found instances with their holdings and items, as stored now. The index keeps
/// only their ids: a copy of every record in its document store was the largest part
/// of the index (1.06 GB of 2.6 GB at 1M instances) and of its build. An instance
/// deleted since the index last caught up (within a second) is left out.
fn full(searcher: &Searcher, addresses: &[DocAddress], tenant: &Tenant) -> Result<Vec<String>> {
    let columns: Vec<IdColumns> =
        searcher.segment_readers().iter().map(IdColumns::open).collect::<Result<_>>()?;
    let ids: Vec<Uuid> =
        addresses.iter().filter_map(|a| columns[a.segment_ord as usize].id(a.doc_id)).collect();
    let keys: Vec<String> = ids.iter().map(Uuid::to_string).collect();
    let families = tenant.read(|reader| source::load_families(reader, &keys))?;
    let mut by_id: HashMap<Uuid, String> = families
        .iter()
        .filter_map(|family| Some((family.instance.id?, document::full_json(family))))
        .collect();
    Ok(ids.iter().filter_map(|id| by_id.remove(id)).collect())
}

/// The live matches of a translated query.
pub(crate) fn count_matches(searcher: &Searcher, translated: &Translated) -> Result<u64> {
    Ok(count(searcher, translated.query.as_ref())? as u64)
}

/// The live matches of `query`, counted without scoring. `<>` (everything but X, the
/// shape `query::not` builds) is the live documents less X's matches: X is usually a
/// few, everything a million.
fn count(searcher: &Searcher, query: &dyn Query) -> Result<usize> {
    if let Some(boolean) = query.downcast_ref::<BooleanQuery>()
        && let [(Occur::Must, all), (Occur::MustNot, excluded)] = boolean.clauses()
        && all.is::<AllQuery>()
    {
        let excluded = searcher.search(excluded.as_ref(), &Count)?;
        return Ok(searcher.num_docs() as usize - excluded);
    }
    Ok(searcher.search(query, &Count)?)
}

/// The first `n` live matches in index order (segment by segment, by document id
/// within one), which is also the order of equal scores. It stops at the `n`-th match
/// instead of scoring every one.
fn first_in_index_order(
    searcher: &Searcher,
    query: &dyn Query,
    n: usize,
) -> Result<Vec<DocAddress>> {
    use tantivy::{DocSet, TERMINATED};
    let weight = query.weight(EnableScoring::disabled_from_searcher(searcher))?;
    let mut out = Vec::with_capacity(n);
    for (ord, reader) in searcher.segment_readers().iter().enumerate() {
        if out.len() >= n {
            break;
        }
        let mut scorer = weight.scorer(reader, 1.0)?;
        let alive = reader.alive_bitset();
        let mut doc = scorer.doc();
        while doc != TERMINATED && out.len() < n {
            if alive.is_none_or(|a| a.is_alive(doc)) {
                out.push(DocAddress::new(ord as SegmentOrdinal, doc));
            }
            doc = scorer.advance();
        }
    }
    Ok(out)
}

/// A segment's instance-id columns: the id as two `u64` fast values.
struct IdColumns {
    hi: Column<u64>,
    lo: Column<u64>,
}

impl IdColumns {
    fn open(reader: &SegmentReader) -> Result<IdColumns> {
        let fast = reader.fast_fields();
        Ok(IdColumns { hi: fast.u64(fields::ID_HI)?, lo: fast.u64(fields::ID_LO)? })
    }

    fn id(&self, doc: DocId) -> Option<Uuid> {
        Some(Uuid::from_u64_pair(self.hi.first(doc)?, self.lo.first(doc)?))
    }
}

/// Calls `sink` with the id of every live document matching `query`, segment by
/// segment, holding one block of doc ids at a time. Returns how many ids were sent.
pub(crate) fn stream_ids(
    searcher: &Searcher,
    query: &dyn Query,
    sink: &mut dyn FnMut(Uuid) -> ControlFlow<()>,
) -> Result<u64> {
    let weight = query.weight(EnableScoring::disabled_from_searcher(searcher))?;
    let mut sent = 0u64;
    let mut stopped = false;
    for reader in searcher.segment_readers() {
        if stopped {
            break;
        }
        let columns = IdColumns::open(reader)?;
        let alive = reader.alive_bitset();
        weight.for_each_no_score(reader, &mut |docs: &[DocId]| {
            for &doc in docs {
                if stopped || alive.is_some_and(|a| !a.is_alive(doc)) {
                    continue;
                }
                let Some(id) = columns.id(doc) else { continue };
                sent += 1;
                if sink(id).is_break() {
                    stopped = true;
                }
            }
        })?;
    }
    Ok(sent)
}

/// The instances whose documents hold any of `terms`: what a batch of holdings or item
/// changes touches. Each segment's id columns are opened once for the whole batch, and
/// each term is one postings read, not a query with its own weight and collector.
pub(crate) fn ids_with_terms(searcher: &Searcher, terms: &[tantivy::Term]) -> Result<Vec<Uuid>> {
    use tantivy::{DocSet, TERMINATED};
    let mut out = Vec::new();
    if terms.is_empty() {
        return Ok(out);
    }
    for reader in searcher.segment_readers() {
        let columns = IdColumns::open(reader)?;
        let alive = reader.alive_bitset();
        for term in terms {
            // The segment reader keeps each field's inverted index once opened.
            let postings = reader
                .inverted_index(term.field())?
                .read_postings(term, tantivy::schema::IndexRecordOption::Basic)
                .map_err(|e| Error::Index(e.to_string()))?;
            let Some(mut postings) = postings else {
                continue;
            };
            let mut doc = postings.doc();
            while doc != TERMINATED {
                if alive.is_none_or(|a| a.is_alive(doc))
                    && let Some(id) = columns.id(doc)
                {
                    out.push(id);
                }
                doc = postings.advance();
            }
        }
    }
    Ok(out)
}

/// Top documents by a sort key; ties by document order.
struct SortCollector {
    key: SortKey,
    top: usize,
}

/// A sort value: a string (through a segment-local ordinal) or a number.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Val {
    Num(i64),
    Str(String),
}

struct SortedDoc {
    primary: Option<Val>,
    secondary: Option<String>,
    address: DocAddress,
}

enum Primary {
    Str(StrColumn),
    Num(Column<i64>),
}

struct SegmentSort {
    key: SortKey,
    top: usize,
    segment: SegmentOrdinal,
    primary: Option<Primary>,
    /// The sort title, the secondary key of the item-status collection sort.
    title: Option<StrColumn>,
    /// (primary, secondary, doc) with segment-local ordinals.
    docs: Vec<(Option<u64>, Option<u64>, DocId)>,
}

fn str_column(reader: &SegmentReader, name: &str) -> tantivy::Result<Option<StrColumn>> {
    reader.fast_fields().str(name)
}

/// Orders numbers so that unsigned comparison matches signed comparison.
fn i64_key(v: i64) -> u64 {
    (v as u64) ^ (1 << 63)
}

impl Collector for SortCollector {
    type Fruit = Vec<DocAddress>;
    type Child = SegmentSort;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentSort> {
        let num = |name: &str| -> tantivy::Result<Option<Primary>> {
            Ok(Some(Primary::Num(reader.fast_fields().i64(name)?)))
        };
        let primary = match self.key.field {
            SortField::Title => str_column(reader, fields::SORT_TITLE)?.map(Primary::Str),
            SortField::Contributors => {
                str_column(reader, fields::SORT_CONTRIBUTORS)?.map(Primary::Str)
            }
            SortField::ItemStatus => str_column(reader, "items_status_name")?.map(Primary::Str),
            SortField::NormalizedDate1 => num("normalizedDate1")?,
            SortField::CreatedDate => num("metadata_createdDate")?,
            SortField::UpdatedDate => num("metadata_updatedDate")?,
        };
        let title = match self.key.field {
            SortField::ItemStatus => str_column(reader, fields::SORT_TITLE)?,
            _ => None,
        };
        Ok(SegmentSort { key: self.key, top: self.top, segment, primary, title, docs: Vec::new() })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Vec<SortedDoc>>) -> tantivy::Result<Vec<DocAddress>> {
        let mut all: Vec<SortedDoc> = fruits.into_iter().flatten().collect();
        let descending = self.key.descending;
        all.sort_by(|a, b| compare_sorted(a, b, descending));
        all.truncate(self.top);
        Ok(all.into_iter().map(|d| d.address).collect())
    }
}

fn missing_last<T: Ord>(a: &Option<T>, b: &Option<T>, descending: bool) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => {
            if descending {
                b.cmp(a)
            } else {
                a.cmp(b)
            }
        }
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

fn compare_sorted(a: &SortedDoc, b: &SortedDoc, descending: bool) -> Ordering {
    missing_last(&a.primary, &b.primary, descending)
        .then_with(|| missing_last(&a.secondary, &b.secondary, false))
        .then_with(|| {
            (a.address.segment_ord, a.address.doc_id)
                .cmp(&(b.address.segment_ord, b.address.doc_id))
        })
}

impl SegmentCollector for SegmentSort {
    type Fruit = Vec<SortedDoc>;

    fn collect(&mut self, doc: DocId, _score: Score) {
        let primary = match &self.primary {
            Some(Primary::Str(column)) => {
                let ords = column.term_ords(doc);
                if self.key.descending { ords.max() } else { ords.min() }
            }
            Some(Primary::Num(column)) => column.first(doc).map(i64_key),
            None => None,
        };
        let secondary = self.title.as_ref().and_then(|t| t.term_ords(doc).next());
        self.docs.push((primary, secondary, doc));
    }

    fn harvest(mut self) -> Vec<SortedDoc> {
        let descending = self.key.descending;
        let cmp = |a: &(Option<u64>, Option<u64>, DocId), b: &(Option<u64>, Option<u64>, DocId)| {
            missing_last(&a.0, &b.0, descending)
                .then_with(|| missing_last(&a.1, &b.1, false))
                .then(a.2.cmp(&b.2))
        };
        if self.docs.len() > self.top && self.top > 0 {
            self.docs.select_nth_unstable_by(self.top - 1, cmp);
            self.docs.truncate(self.top);
        }
        self.docs.sort_by(cmp);
        let mut out = Vec::with_capacity(self.docs.len());
        for (primary, secondary, doc) in self.docs {
            let primary = primary.map(|ord| match &self.primary {
                Some(Primary::Str(column)) => {
                    let mut s = String::new();
                    let _found = column.ord_to_str(ord, &mut s);
                    Val::Str(s)
                }
                _ => Val::Num((ord ^ (1 << 63)) as i64),
            });
            let secondary = secondary.and_then(|ord| {
                let mut s = String::new();
                self.title.as_ref().map(|t| {
                    let _found = t.ord_to_str(ord, &mut s);
                    s
                })
            });
            out.push(SortedDoc { primary, secondary, address: DocAddress::new(self.segment, doc) });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;
    use std::time::Instant;

    use tantivy::schema::Value;
    use tantivy::{Index, TantivyDocument};
    use uuid::Uuid;

    use crate::instance::fields::Fields;
    use crate::instance::query::translate;

    /// Queries of filters only skip scoring: their pages come in index order across
    /// segments, and their totals (`<>` as the live documents less the excluded ones)
    /// leave deleted documents out.
    #[test]
    fn filters_come_in_index_order_and_count_live_documents() {
        use tantivy::Term;
        use tantivy::indexer::NoMergePolicy;

        use super::{SearchRequest, search};

        let fields = Fields::get();
        let index = Index::create_in_ram(fields.schema.clone());
        crate::text::register(&index);
        let languages = fields.handles[fields.index_of("languages").unwrap()].main;
        let mut writer = index.writer_with_num_threads(1, 32 << 20).unwrap();
        writer.set_merge_policy(Box::new(NoMergePolicy));
        let english = |n: u64| !n.is_multiple_of(3);
        // Two segments of 150 documents; every seventh is deleted afterwards.
        for n in 0..300u64 {
            let mut doc = TantivyDocument::default();
            doc.add_text(fields.id(), format!("i{n}"));
            doc.add_text(languages, if english(n) { "eng" } else { "ger" });
            doc.add_text(fields.basic, n.to_string());
            writer.add_document(doc).unwrap();
            if n == 149 {
                writer.commit().unwrap();
            }
        }
        writer.commit().unwrap();
        for n in (0..300u64).step_by(7) {
            writer.delete_term(Term::from_field_text(fields.id(), &format!("i{n}")));
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        assert_eq!(searcher.segment_readers().len(), 2);
        // Index order: the searcher's segments in turn, each by document id.
        let mut in_index_order = Vec::new();
        for (ord, reader) in searcher.segment_readers().iter().enumerate() {
            for doc in (0..reader.max_doc()).filter(|d| !reader.is_deleted(*d)) {
                let stored: TantivyDocument =
                    searcher.doc(tantivy::DocAddress::new(ord as u32, doc)).unwrap();
                let n = stored.get_first(fields.basic).and_then(|v| v.as_str()).unwrap();
                in_index_order.push(n.parse::<u64>().unwrap());
            }
        }
        let mut sorted = in_index_order.clone();
        sorted.sort();
        assert_eq!(sorted, (0..300u64).filter(|n| !n.is_multiple_of(7)).collect::<Vec<_>>());
        let live = |keep: &dyn Fn(u64) -> bool| -> Vec<String> {
            in_index_order.iter().filter(|n| keep(**n)).map(|n| n.to_string()).collect()
        };

        // Basic fields only: the store is never read.
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(dir.path(), store::testing::options(), &[]).unwrap();
        let (tenant, _) = store.create_tenant("t").unwrap();
        let run = |query: &str, offset: u32, limit: u32| {
            let translated = translate(query).unwrap();
            assert!(!translated.ranked, "{query}");
            let request = SearchRequest { offset, limit, ..SearchRequest::new(query) };
            search(&searcher, &translated, &request, &tenant).unwrap()
        };
        let eng = live(&|n| english(n));
        let page = run("languages == eng", 95, 20);
        assert_eq!(page.total_records, eng.len() as u64);
        assert_eq!(page.instances, eng[95..115]);

        let ger = live(&|n| !english(n));
        let page = run("languages <> eng", 0, 500);
        assert_eq!(page.total_records, ger.len() as u64);
        assert_eq!(page.instances, ger);
        assert_eq!(
            run("cql.allRecords=1 NOT languages == ger", 0, 0).total_records,
            eng.len() as u64
        );
    }

    #[test]
    fn which_queries_rank() {
        let ranked = |q: &str| translate(q).unwrap().ranked;
        assert!(ranked("title all primer"));
        assert!(ranked("primer"));
        assert!(ranked("title all primer NOT languages == eng"));
        assert!(ranked("languages == eng OR contributors any smith"));
        assert!(!ranked("languages == eng NOT title all primer"));
        assert!(!ranked("title <> primer"));
        assert!(!ranked("cql.allRecords=1"));
        assert!(!ranked("languages == eng AND items.status.name == Available"));
        assert!(!ranked("hrid == in0001 OR metadata.createdDate > 2020-01-01"));
    }

    /// Streams every id of a million-document index, checking each arrives once. The
    /// documents are the cheapest that match (ids and a language), written straight
    /// into an in-memory index.
    #[test]
    fn streams_a_million_ids() {
        const N: u64 = 1_000_000;
        let fields = Fields::get();
        let index = Index::create_in_ram(fields.schema.clone());
        crate::text::register(&index);
        let languages = fields.handles[fields.index_of("languages").unwrap()].main;
        let started = Instant::now();
        let mut writer = index.writer_with_num_threads(2, 256 << 20).unwrap();
        for n in 0..N {
            let mut doc = TantivyDocument::default();
            doc.add_u64(fields.id_hi, 7);
            doc.add_u64(fields.id_lo, n);
            doc.add_text(languages, if n % 10 == 0 { "ger" } else { "eng" });
            writer.add_document(doc).unwrap();
        }
        writer.commit().unwrap();
        let indexed = started.elapsed();
        let searcher = index.reader().unwrap().searcher();

        let mut seen = vec![0u64; (N as usize).div_ceil(64)];
        let query = translate("languages == eng or languages == ger").unwrap().query;
        let started = Instant::now();
        let sent = super::stream_ids(&searcher, query.as_ref(), &mut |id: Uuid| {
            let (hi, lo) = id.as_u64_pair();
            assert_eq!(hi, 7);
            let (word, bit) = ((lo / 64) as usize, lo % 64);
            assert_eq!(seen[word] & (1 << bit), 0, "id {lo} twice");
            seen[word] |= 1 << bit;
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(sent, N);
        assert!(seen.iter().all(|w| *w == u64::MAX) || !N.is_multiple_of(64));
        eprintln!("indexed {N} in {indexed:?}, streamed in {:?}", started.elapsed());

        let mut taken = 0;
        let query = translate("languages == ger").unwrap().query;
        let sent = super::stream_ids(&searcher, query.as_ref(), &mut |_| {
            taken += 1;
            if taken == 10 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        })
        .unwrap();
        assert_eq!((sent, taken), (10, 10));
    }
}
