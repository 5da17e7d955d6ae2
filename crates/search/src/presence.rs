//! `field = ""`: the documents that have a value in a registry field, read from the
//! presence columns the registry adds (`registry::add_presence_fields`).
//!
//! Owns [`PresentQuery`] and [`WithBitQuery`]. Does not own which bit is which field
//! (`registry`).

use tantivy::query::{
    BitSetDocSet, ConstScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::schema::Field;
use tantivy::{BitSet, DocId, DocSet, Score, SegmentReader, TERMINATED};

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

/// The documents of `inner` whose presence column `field` has `bit` set, with
/// `inner`'s scores: an echo field's query on its sources
/// ([`Echo`](crate::registry::Echo)). Unlike [`PresentQuery`] it reads the column only
/// for the documents `inner` matches.
#[derive(Debug)]
pub(crate) struct WithBitQuery {
    inner: Box<dyn Query>,
    field: Field,
    bit: u64,
}

impl WithBitQuery {
    pub(crate) fn new(inner: Box<dyn Query>, (field, bit): (Field, u64)) -> WithBitQuery {
        WithBitQuery { inner, field, bit }
    }
}

impl Clone for WithBitQuery {
    fn clone(&self) -> WithBitQuery {
        WithBitQuery { inner: self.inner.box_clone(), field: self.field, bit: self.bit }
    }
}

impl Query for WithBitQuery {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let inner = self.inner.weight(scoring)?;
        Ok(Box::new(WithBitWeight { inner, field: self.field, bit: self.bit }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a tantivy::Term, bool)) {
        self.inner.query_terms(visitor);
    }
}

struct WithBitWeight {
    inner: Box<dyn Weight>,
    field: Field,
    bit: u64,
}

impl Weight for WithBitWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let name = reader.schema().get_field_name(self.field);
        let column = reader.fast_fields().u64(name)?;
        let mut scorer =
            WithBitScorer { inner: self.inner.scorer(reader, boost)?, column, bit: self.bit };
        scorer.settle();
        Ok(Box::new(scorer))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut scorer = self.scorer(reader, 1.0)?;
        if scorer.seek(doc) != doc {
            return Err(tantivy::TantivyError::InvalidArgument("document does not match".into()));
        }
        self.inner.explain(reader, doc)
    }
}

struct WithBitScorer {
    inner: Box<dyn Scorer>,
    column: tantivy::columnar::Column<u64>,
    bit: u64,
}

impl WithBitScorer {
    /// Moves on from the current document to the first one with the bit.
    fn settle(&mut self) -> DocId {
        let mut doc = self.inner.doc();
        while doc != TERMINATED && !self.has_bit(doc) {
            doc = self.inner.advance();
        }
        doc
    }

    fn has_bit(&self, doc: DocId) -> bool {
        self.column.first(doc).is_some_and(|bits| bits & self.bit != 0)
    }
}

impl DocSet for WithBitScorer {
    fn advance(&mut self) -> DocId {
        self.inner.advance();
        self.settle()
    }

    fn seek(&mut self, target: DocId) -> DocId {
        self.inner.seek(target);
        self.settle()
    }

    fn doc(&self) -> DocId {
        self.inner.doc()
    }

    fn size_hint(&self) -> u32 {
        self.inner.size_hint()
    }
}

impl Scorer for WithBitScorer {
    fn score(&mut self) -> Score {
        self.inner.score()
    }
}
