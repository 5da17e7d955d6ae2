//! Deleting the documents of a batch of ids with one delete operation.
//!
//! `IndexWriter::delete_term` queues a `TermQuery`'s weight for each term, and each
//! weight carries a 1 KiB BM25 cache. The writer keeps every queued operation until
//! each segment that was being written or merged when it came has applied it, so while
//! one long merge ran during the catch-up after a million-record import the queue grew
//! by some 400 MiB, and fell back when the merge ended. One operation for a batch costs
//! what its terms cost.
//!
//! Owns [`delete_all`]. Does not own which documents a change touches (the kinds).

use std::sync::Arc;

use tantivy::query::{ConstScorer, EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocId, DocSet, IndexWriter, Score, SegmentReader, TERMINATED, Term};

use crate::error::Result;
use crate::pattern::explain_unscored;

/// Queues the deletion of every document with one of `terms`, as one operation. It
/// deletes the documents added before it, committed or not, as `delete_term` would.
pub(crate) fn delete_all(writer: &IndexWriter, terms: Vec<Term>) -> Result<()> {
    if !terms.is_empty() {
        writer.delete_query(Box::new(AnyTerm { terms: Arc::new(terms) }))?;
    }
    Ok(())
}

/// The documents with any of `terms`, unscored.
#[derive(Clone, Debug)]
struct AnyTerm {
    terms: Arc<Vec<Term>>,
}

impl Query for AnyTerm {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for AnyTerm {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let mut docs = Vec::new();
        for term in self.terms.iter() {
            let index = reader.inverted_index(term.field())?;
            if let Some(mut postings) = index.read_postings(term, IndexRecordOption::Basic)? {
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    docs.push(doc);
                    doc = postings.advance();
                }
            }
        }
        docs.sort_unstable();
        docs.dedup();
        Ok(Box::new(ConstScorer::new(SortedDocs { docs, at: 0 }, boost)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        explain_unscored(self, "AnyTerm", reader, doc)
    }
}

/// A few documents, in order. (tantivy's own list doc set is built for its tests only.)
struct SortedDocs {
    docs: Vec<DocId>,
    at: usize,
}

impl DocSet for SortedDocs {
    fn advance(&mut self) -> DocId {
        self.at = (self.at + 1).min(self.docs.len());
        self.doc()
    }

    fn doc(&self) -> DocId {
        self.docs.get(self.at).copied().unwrap_or(TERMINATED)
    }

    fn size_hint(&self) -> u32 {
        self.docs.len() as u32
    }
}

#[cfg(test)]
mod tests {
    use tantivy::collector::Count;
    use tantivy::query::TermQuery;
    use tantivy::schema::{IndexRecordOption, STRING, Schema};
    use tantivy::{Index, TantivyDocument, Term, doc};

    use super::delete_all;

    /// One operation deletes what one `delete_term` per id would: the documents added
    /// before it, committed or not, and none added after it.
    #[test]
    fn one_operation_deletes_what_a_term_each_would() {
        let mut schema = Schema::builder();
        let id = schema.add_text_field("id", STRING);
        let index = Index::create_in_ram(schema.build());
        let mut writer: tantivy::IndexWriter<TantivyDocument> =
            index.writer_with_num_threads(1, 15_000_000).unwrap();
        for value in ["a", "b", "c"] {
            writer.add_document(doc!(id => value)).unwrap();
        }
        writer.commit().unwrap();
        writer.add_document(doc!(id => "d")).unwrap();
        let terms = ["a", "c", "d", "x"].map(|v| Term::from_field_text(id, v));
        delete_all(&writer, terms.to_vec()).unwrap();
        writer.add_document(doc!(id => "a")).unwrap();
        delete_all(&writer, Vec::new()).unwrap();
        writer.commit().unwrap();

        let searcher = index.reader().unwrap().searcher();
        let count = |value: &str| {
            let query = TermQuery::new(Term::from_field_text(id, value), IndexRecordOption::Basic);
            searcher.search(&query, &Count).unwrap()
        };
        assert_eq!(["a", "b", "c", "d"].map(count), [1, 1, 0, 0]);
        assert_eq!(searcher.num_docs(), 2);
    }
}
