//! `field = ""`: the documents that have a value in a registry field, read from the
//! presence columns the registry adds (`registry::add_presence_fields`).
//!
//! Owns [`PresentQuery`]. Does not own which bit is which field (`registry`).

use tantivy::query::{
    BitSetDocSet, ConstScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::schema::Field;
use tantivy::{BitSet, DocId, Score, SegmentReader};

use crate::pattern::explain_unscored;

/// Documents whose presence column `field` has `bit` set. Unscored, like the `exists`
/// query FOLIO sends to OpenSearch. Cost: one column value per document of each segment.
#[derive(Clone, Debug)]
pub(crate) struct PresentQuery {
    field: Field,
    bit: u64,
}

impl PresentQuery {
    pub(crate) fn new((field, bit): (Field, u64)) -> PresentQuery {
        PresentQuery { field, bit }
    }
}

impl Query for PresentQuery {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for PresentQuery {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let name = reader.schema().get_field_name(self.field);
        let column = reader.fast_fields().u64(name)?;
        let mut docs = BitSet::with_max_value(reader.max_doc());
        for doc in 0..reader.max_doc() {
            if column.first(doc).is_some_and(|bits| bits & self.bit != 0) {
                docs.insert(doc);
            }
        }
        Ok(Box::new(ConstScorer::new(BitSetDocSet::from(docs), boost)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        explain_unscored(self, "PresentQuery", reader, doc)
    }
}
