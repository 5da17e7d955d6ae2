//! Running authority queries: pages of heading documents in heading order (or by
//! `sortBy`), exact totals, `numberOfTitles`, and facets, on one searcher.
//!
//! Owns the authority request and response shapes, the sort (FOLIO's default for
//! authorities is `headingRef`; `headingType` and `authRefType` sort by their value,
//! then by `headingRef`), and the facet counts. Does not own query meaning
//! (`crate::query`) or the index's lifecycle (`index`).

use std::cmp::Ordering;

use tantivy::collector::{Collector, Count, SegmentCollector};
use tantivy::columnar::StrColumn;
use tantivy::query::Query;
use tantivy::schema::Value;
use tantivy::{DocAddress, DocId, Score, Searcher, SegmentOrdinal, SegmentReader, TantivyDocument};
use uuid::Uuid;

use crate::authority::fields::{FACETS, Fields, SORT_HEADING_REF};
use crate::error::{Error, Result};
use crate::facet::FacetRequest;

/// `GET /search/authorities` parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthoritySearchRequest {
    /// CQL.
    pub query: String,
    /// 0 to [`crate::MAX_LIMIT`]; FOLIO's default is 100.
    pub limit: u32,
    pub offset: u32,
    /// The heading document with every field, instead of the basic fields.
    pub expand_all: bool,
    /// Count, for each Authorized heading, the instances linked to the authority
    /// (FOLIO's default: true).
    pub include_number_of_titles: bool,
}

impl AuthoritySearchRequest {
    /// A request with FOLIO's defaults: limit 100, offset 0, basic fields, with
    /// `numberOfTitles`.
    pub fn new(query: impl Into<String>) -> AuthoritySearchRequest {
        AuthoritySearchRequest {
            query: query.into(),
            limit: 100,
            offset: 0,
            expand_all: false,
            include_number_of_titles: true,
        }
    }

    /// Checks FOLIO's paging rules, with FOLIO's messages (as for instances).
    pub fn validate(&self) -> Result<()> {
        crate::SearchRequest {
            limit: self.limit,
            offset: self.offset,
            ..crate::SearchRequest::new("")
        }
        .validate()
    }
}

/// One page of heading documents and the exact number of matching headings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthoritySearchResponse {
    /// Matching heading documents (an authority with a heading and two tracings that
    /// all match counts three times, as in FOLIO).
    pub total_records: u64,
    /// Each heading document as a JSON object, in result order.
    pub authorities: Vec<String>,
}

impl AuthoritySearchResponse {
    /// FOLIO's body: `{"totalRecords":N,"authorities":[...]}`.
    pub fn to_json(&self) -> String {
        let size: usize = self.authorities.iter().map(|a| a.len() + 1).sum();
        let mut out = String::with_capacity(size + 48);
        out.push_str(&format!("{{\"totalRecords\":{},\"authorities\":[", self.total_records));
        out.push_str(&self.authorities.join(","));
        out.push_str("]}");
        out
    }
}

/// What authorities sort on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortField {
    HeadingRef,
    /// Then by heading.
    HeadingType,
    /// Then by heading.
    AuthRefType,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SortKey {
    pub(crate) field: SortField,
    pub(crate) descending: bool,
}

pub(crate) fn sort_key(key: &cql::SortKey) -> Result<SortKey> {
    let field = match key.index.as_str() {
        "headingRef" => SortField::HeadingRef,
        "headingType" => SortField::HeadingType,
        "authRefType" => SortField::AuthRefType,
        _ => return Err(Error::InvalidSort { field: key.index.clone() }),
    };
    let descending = key.modifiers.iter().any(|m| m.name == "sort.descending");
    Ok(SortKey { field, descending })
}

/// A page of documents, each with the authority id when `numberOfTitles` applies.
pub(crate) fn search(
    searcher: &Searcher,
    query: &dyn Query,
    sort: SortKey,
    request: &AuthoritySearchRequest,
    titles: &mut dyn FnMut(Uuid) -> Result<u64>,
) -> Result<AuthoritySearchResponse> {
    let fields = Fields::get();
    let (limit, offset) = (request.limit as usize, request.offset as usize);
    let (total, addresses) = if limit == 0 {
        (searcher.search(query, &Count)?, Vec::new())
    } else {
        let sorted = SortCollector { key: sort, top: offset + limit };
        let (total, docs) = searcher.search(query, &(Count, sorted))?;
        (total, docs.into_iter().skip(offset).collect())
    };
    let stored = if request.expand_all { fields.full } else { fields.basic };
    let mut authorities = Vec::with_capacity(addresses.len());
    for address in addresses {
        let doc: TantivyDocument = searcher.doc(address)?;
        let mut json = doc.get_first(stored).and_then(|v| v.as_str()).unwrap_or("{}").to_string();
        let authorized = doc.get_first(fields.authorized_id).and_then(|v| v.as_str());
        if request.include_number_of_titles
            && let Some(id) = authorized.and_then(|id| Uuid::parse_str(id).ok())
        {
            let n = titles(id)?;
            // The stored object always ends with `}`; the count goes before it.
            json.truncate(json.len() - 1);
            json.push_str(&format!(",\"numberOfTitles\":{n}}}"));
        }
        authorities.push(json);
    }
    Ok(AuthoritySearchResponse { total_records: total as u64, authorities })
}

impl FacetRequest {
    /// Reads an authority facet, `headingType` or `headingType:5`: `headingType`,
    /// `sourceFileId`, `subjectHeadings`, `tenantId` or `shared`.
    pub fn parse_authority(spec: &str) -> Result<FacetRequest> {
        FacetRequest::parse_with(spec, |name| FACETS.contains(&name))
    }
}

/// Top documents by a sort key, then by heading, then in index order (an
/// authority's documents are contiguous and in FOLIO's order).
struct SortCollector {
    key: SortKey,
    top: usize,
}

struct SegmentSort {
    key: SortKey,
    top: usize,
    segment: SegmentOrdinal,
    primary: Option<StrColumn>,
    heading: Option<StrColumn>,
    /// (primary, heading, doc) with segment-local ordinals.
    docs: Vec<(Option<u64>, Option<u64>, DocId)>,
}

struct SortedDoc {
    primary: Option<String>,
    heading: Option<String>,
    address: DocAddress,
}

fn missing_last<T: Ord>(a: &Option<T>, b: &Option<T>, descending: bool) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) if descending => b.cmp(a),
        (Some(a), Some(b)) => a.cmp(b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

impl Collector for SortCollector {
    type Fruit = Vec<DocAddress>;
    type Child = SegmentSort;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentSort> {
        let heading = reader.fast_fields().str(SORT_HEADING_REF)?;
        let primary = match self.key.field {
            SortField::HeadingRef => None,
            SortField::HeadingType => reader.fast_fields().str("headingType")?,
            SortField::AuthRefType => reader.fast_fields().str("authRefType")?,
        };
        Ok(SegmentSort {
            key: self.key,
            top: self.top,
            segment,
            primary,
            heading,
            docs: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Vec<SortedDoc>>) -> tantivy::Result<Vec<DocAddress>> {
        let mut all: Vec<SortedDoc> = fruits.into_iter().flatten().collect();
        all.sort_by(|a, b| compare(self.key, a, b));
        all.truncate(self.top);
        Ok(all.into_iter().map(|d| d.address).collect())
    }
}

fn compare(key: SortKey, a: &SortedDoc, b: &SortedDoc) -> Ordering {
    let heading_descending = key.field == SortField::HeadingRef && key.descending;
    missing_last(&a.primary, &b.primary, key.descending)
        .then_with(|| missing_last(&a.heading, &b.heading, heading_descending))
        .then_with(|| {
            (a.address.segment_ord, a.address.doc_id)
                .cmp(&(b.address.segment_ord, b.address.doc_id))
        })
}

impl SegmentCollector for SegmentSort {
    type Fruit = Vec<SortedDoc>;

    fn collect(&mut self, doc: DocId, _score: Score) {
        let primary = self.primary.as_ref().and_then(|c| c.term_ords(doc).next());
        let heading = self.heading.as_ref().and_then(|c| c.term_ords(doc).next());
        self.docs.push((primary, heading, doc));
    }

    fn harvest(mut self) -> Vec<SortedDoc> {
        let key = self.key;
        let heading_descending = key.field == SortField::HeadingRef && key.descending;
        // Ordinals order as their strings within a segment.
        let cmp = |a: &(Option<u64>, Option<u64>, DocId), b: &(Option<u64>, Option<u64>, DocId)| {
            missing_last(&a.0, &b.0, key.descending)
                .then_with(|| missing_last(&a.1, &b.1, heading_descending))
                .then(a.2.cmp(&b.2))
        };
        if self.docs.len() > self.top && self.top > 0 {
            self.docs.select_nth_unstable_by(self.top - 1, cmp);
            self.docs.truncate(self.top);
        }
        self.docs.sort_by(cmp);
        let text = |column: &Option<StrColumn>, ord: Option<u64>| {
            let (column, ord) = (column.as_ref()?, ord?);
            let mut s = String::new();
            column.ord_to_str(ord, &mut s).ok()?;
            Some(s)
        };
        self.docs
            .iter()
            .map(|&(primary, heading, doc)| SortedDoc {
                primary: text(&self.primary, primary),
                heading: text(&self.heading, heading),
                address: DocAddress::new(self.segment, doc),
            })
            .collect()
    }
}
