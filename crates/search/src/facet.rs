//! Facets for any record family: value counts of keyword fast columns over a query's
//! matches, with mod-search's rule for filters (`FacetQueryBuilder`).
//!
//! mod-search lifts a query's top-level filters (a term or range on one filter field,
//! or an OR of terms on one such field: `query::split_filters`) out of the query, and
//! counts each facet over the rest of the query and the filters on *other* fields. A
//! filter on the facet's own field is left out, so the values a user could switch to
//! are still counted, and the values it selects come first. Owns the request and
//! response shapes and the collector; does not own which fields are facets (each
//! family's registry) or query meaning (`query`).

use std::collections::HashMap;

use cql::Node;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::StrColumn;
use tantivy::query::{AllQuery, BooleanQuery, Occur, Query};
use tantivy::{DocId, Score, Searcher, SegmentOrdinal, SegmentReader};

use crate::error::{Error, Result};
use crate::query;
use crate::registry::{FACET, Registry, tantivy_name};

/// Values per facet when the request names no size: all of them, as mod-search
/// (`DEFAULT_FACET_SIZE = Integer.MAX_VALUE`).
pub const DEFAULT_FACET_SIZE: usize = usize::MAX;

/// One facet of `GET /search/{instances,authorities}/facets`: `name` or `name:size`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FacetRequest {
    pub name: String,
    pub size: usize,
}

impl FacetRequest {
    /// Reads `name` or `name:size`; `is_facet` says whether the name is one.
    pub(crate) fn parse_with(spec: &str, is_facet: impl Fn(&str) -> bool) -> Result<FacetRequest> {
        let invalid = || Error::InvalidFacet { facet: spec.to_string() };
        let (name, size) = match spec.split_once(':') {
            Some((name, size)) => (name, size.trim().parse().map_err(|_| invalid())?),
            None => (spec, DEFAULT_FACET_SIZE),
        };
        let name = name.trim();
        if !is_facet(name) {
            return Err(invalid());
        }
        Ok(FacetRequest { name: name.to_string(), size })
    }
}

/// The facets of one request, in request order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FacetsResponse {
    pub facets: Vec<Facet>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facet {
    pub name: String,
    /// The values the query's filters on this field select first, then the others;
    /// each group most frequent first, then by value.
    pub values: Vec<FacetValue>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FacetValue {
    /// The value as indexed (lowercased for `keyword_lowercase` fields, as in FOLIO).
    pub id: String,
    /// Matching records holding this value.
    pub total_records: u64,
}

impl FacetsResponse {
    /// FOLIO's body: `{"facets":{"languages":{"values":[{"id":"eng","totalRecords":2}],
    /// "totalRecords":1}},"totalRecords":1}`, where the outer `totalRecords` counts the
    /// facets (mod-search's `FacetResult`).
    pub fn to_json(&self) -> String {
        let mut facets = serde_json::Map::new();
        for facet in &self.facets {
            let values: Vec<serde_json::Value> = facet
                .values
                .iter()
                .map(|v| serde_json::json!({"id": v.id, "totalRecords": v.total_records}))
                .collect();
            facets.insert(
                facet.name.clone(),
                serde_json::json!({"values": values, "totalRecords": facet.values.len()}),
            );
        }
        serde_json::json!({"facets": facets, "totalRecords": self.facets.len()}).to_string()
    }
}

/// Counts `requests` (already checked to be facets of `reg`) over the records matching
/// `root`. Facets whose field no filter names share one pass over the whole query;
/// each other field gets a pass without its own filters.
pub(crate) fn count(
    searcher: &Searcher,
    reg: &Registry,
    root: &Node,
    requests: &[FacetRequest],
) -> Result<FacetsResponse> {
    let split = query::split_filters(reg, root, &|idx| reg.def(idx).has(FACET));
    let mut fields = Vec::with_capacity(requests.len());
    for request in requests {
        let idx = reg
            .resolve(&request.name)
            .and_then(|f| f.first().copied())
            .ok_or_else(|| Error::InvalidFacet { facet: request.name.clone() })?;
        fields.push(idx);
    }
    // One pass per distinct left-out field (`None`: nothing left out).
    let mut passes: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
    for (request_no, &idx) in fields.iter().enumerate() {
        let left_out = split.filters.iter().any(|f| f.field == idx).then_some(idx);
        match passes.iter_mut().find(|(l, _)| *l == left_out) {
            Some((_, members)) => members.push(request_no),
            None => passes.push((left_out, vec![request_no])),
        }
    }
    let mut counted: Vec<HashMap<String, u64>> = vec![HashMap::new(); requests.len()];
    for (left_out, members) in &passes {
        let query = split.query(reg, *left_out)?;
        let columns = members.iter().map(|&r| tantivy_name(reg.def(fields[r]).name)).collect();
        let counts = searcher.search(query.as_ref(), &FacetCounts { fields: columns })?;
        for (&request_no, counts) in members.iter().zip(counts) {
            counted[request_no] = counts;
        }
    }
    let facets = requests
        .iter()
        .zip(fields)
        .zip(counted)
        .map(|((request, idx), counts)| {
            let selected = split.selected(idx);
            Facet {
                name: request.name.clone(),
                values: top_values(counts, &selected, request.size),
            }
        })
        .collect();
    Ok(FacetsResponse { facets })
}

/// The facet's values as mod-search returns them: with no selected values, the `size`
/// most frequent; otherwise the selected ones that occur (at most `size`), then the
/// most frequent others up to `size` in all.
fn top_values(counts: HashMap<String, u64>, selected: &[String], size: usize) -> Vec<FacetValue> {
    let by_count = |a: &FacetValue, b: &FacetValue| {
        b.total_records.cmp(&a.total_records).then_with(|| a.id.cmp(&b.id))
    };
    let (mut chosen, mut others): (Vec<FacetValue>, Vec<FacetValue>) = counts
        .into_iter()
        .map(|(id, n)| FacetValue { id, total_records: n })
        .partition(|v| selected.contains(&v.id));
    chosen.sort_by(by_count);
    others.sort_by(by_count);
    chosen.truncate(size);
    others.truncate(size.saturating_sub(selected.len()));
    chosen.extend(others);
    chosen
}

impl query::Split<'_> {
    /// The query with every filter but those on `left_out`.
    fn query(&self, reg: &Registry, left_out: Option<usize>) -> Result<Box<dyn Query>> {
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for node in &self.must {
            clauses.push((Occur::Must, query::node(reg, node)?));
        }
        for filter in self.filters.iter().filter(|f| Some(f.field) != left_out) {
            clauses.push((Occur::Must, query::node(reg, filter.node)?));
        }
        if clauses.is_empty() {
            clauses.push((Occur::Must, Box::new(AllQuery)));
        }
        for node in &self.must_not {
            clauses.push((Occur::MustNot, query::node(reg, node)?));
        }
        Ok(Box::new(BooleanQuery::new(clauses)))
    }

    /// The values the filters on field `idx` select, in query order.
    fn selected(&self, idx: usize) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for value in self.filters.iter().filter(|f| f.field == idx).flat_map(|f| &f.values) {
            if !out.contains(value) {
                out.push(value.clone());
            }
        }
        out
    }
}

/// Value counts of keyword fast columns.
struct FacetCounts {
    /// Tantivy field names.
    fields: Vec<String>,
}

struct SegmentFacets {
    columns: Vec<Option<StrColumn>>,
    counts: Vec<Vec<u32>>,
}

impl Collector for FacetCounts {
    type Fruit = Vec<HashMap<String, u64>>;
    type Child = SegmentFacets;

    fn for_segment(
        &self,
        _segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentFacets> {
        let mut columns = Vec::with_capacity(self.fields.len());
        let mut counts = Vec::with_capacity(self.fields.len());
        for name in &self.fields {
            let column = reader.fast_fields().str(name)?;
            counts.push(vec![0; column.as_ref().map_or(0, |c| c.num_terms())]);
            columns.push(column);
        }
        Ok(SegmentFacets { columns, counts })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        let mut merged = vec![HashMap::new(); self.fields.len()];
        for fruit in fruits {
            for (idx, counts) in fruit.into_iter().enumerate() {
                for (value, n) in counts {
                    *merged[idx].entry(value).or_insert(0) += n;
                }
            }
        }
        Ok(merged)
    }
}

impl SegmentCollector for SegmentFacets {
    type Fruit = Vec<HashMap<String, u64>>;

    fn collect(&mut self, doc: DocId, _score: Score) {
        for (column, counts) in self.columns.iter().zip(&mut self.counts) {
            if let Some(column) = column {
                for ord in column.term_ords(doc) {
                    counts[ord as usize] += 1;
                }
            }
        }
    }

    fn harvest(self) -> Self::Fruit {
        self.columns
            .iter()
            .zip(self.counts)
            .map(|(column, counts)| {
                let mut out = HashMap::new();
                if let Some(column) = column {
                    for (ord, n) in counts.into_iter().enumerate().filter(|(_, n)| *n > 0) {
                        let mut value = String::new();
                        if column.ord_to_str(ord as u64, &mut value).unwrap_or(false) {
                            out.insert(value, n as u64);
                        }
                    }
                }
                out
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::top_values;

    fn ids(values: &[super::FacetValue]) -> Vec<(&str, u64)> {
        values.iter().map(|v| (v.id.as_str(), v.total_records)).collect()
    }

    /// Selected values come first (those that occur), then the most frequent others,
    /// `size` in all; with `size` at most the selected count, only selected values.
    #[test]
    fn selected_values_come_first_within_the_size() {
        let counts: HashMap<String, u64> =
            [("eng", 5), ("fre", 3), ("ger", 9), ("rus", 1), ("spa", 3)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
        let sel = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(ids(&top_values(counts.clone(), &[], 3)), [("ger", 9), ("eng", 5), ("fre", 3)]);
        assert_eq!(
            ids(&top_values(counts.clone(), &sel(&["rus", "eng"]), 3)),
            [("eng", 5), ("rus", 1), ("ger", 9)]
        );
        assert_eq!(ids(&top_values(counts.clone(), &sel(&["rus", "eng"]), 1)), [("eng", 5)]);
        // A selected value no record holds takes a place in the size but is not listed.
        assert_eq!(ids(&top_values(counts.clone(), &sel(&["lat"]), 2)), [("ger", 9)]);
        assert_eq!(top_values(counts, &[], usize::MAX).len(), 5);
    }
}
