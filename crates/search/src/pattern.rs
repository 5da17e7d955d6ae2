//! Whole-value wildcard patterns and the queries that answer them from the term
//! dictionary without scanning it.
//!
//! Owns the pattern (`*` any run, `?` one character, everything else literal, as in an
//! OpenSearch `wildcard` query after mod-search escapes backslashes) and
//! [`TermScanQuery`]: the documents holding any term of a dictionary *range*, each
//! term optionally checked against the pattern. Which range answers which pattern is
//! chosen by [`wildcard`]:
//!
//! - `foo*`, `foo*bar`, `f?o*`: the range of terms starting with the literal prefix,
//!   on the field itself. Cost: the terms with that prefix.
//! - `*foo`, `*o?o`, `it*15`: the range of terms starting with the reversed literal
//!   suffix, on the field's reversed copy (`#r`), when the suffix is longer than the
//!   prefix. Cost: the terms with that suffix.
//! - `*foo*` (no literal at either end): the field's gram map ([`InfixQuery`]): the
//!   terms holding every trigram of each literal run, each then matched against the
//!   whole pattern. Cost: a few trigrams' term lists and the candidates they leave;
//!   never the values' dictionary unless most of it are candidates.
//!
//! Fields without a gram map (UUIDs, notes, URIs) answer an infix pattern by scanning
//! their term dictionary, which is bounded by the field's distinct values.

use std::ops::Bound;
use std::sync::Arc;

use tantivy::postings::TermInfo;
use tantivy::query::{
    BitSetDocSet, ConstScorer, EnableScoring, Explanation, Query, Scorer, TermQuery, Weight,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{BitSet, DocId, InvertedIndexReader, Score, SegmentReader, Term};

use crate::grams::InfixQuery;
use crate::text;

/// A wildcard pattern over a normalised whole value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pattern {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Any,
    One,
}

impl Pattern {
    /// Reads `*` and `?` as wildcards and every other character literally.
    pub(crate) fn parse(text: &str) -> Pattern {
        let mut parts = Vec::new();
        let mut literal = String::new();
        for c in text.chars() {
            let part = match c {
                '*' => Part::Any,
                '?' => Part::One,
                c => {
                    literal.push(c);
                    continue;
                }
            };
            if !literal.is_empty() {
                parts.push(Part::Literal(std::mem::take(&mut literal)));
            }
            // `**` is `*`.
            if part == Part::Any && parts.last() == Some(&Part::Any) {
                continue;
            }
            parts.push(part);
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Pattern { parts }
    }

    pub(crate) fn has_wildcard(&self) -> bool {
        self.parts.iter().any(|p| !matches!(p, Part::Literal(_)))
    }

    /// Whether the pattern has no literal text at all (`*`, `?*`).
    pub(crate) fn is_match_all(&self) -> bool {
        self.parts.iter().all(|p| *p == Part::Any)
    }

    fn prefix(&self) -> &str {
        match self.parts.first() {
            Some(Part::Literal(l)) => l,
            _ => "",
        }
    }

    /// The literal every match ends with (`bar` in `*bar`, `f*bar`); empty if none.
    pub(crate) fn suffix(&self) -> &str {
        match self.parts.last() {
            Some(Part::Literal(l)) if self.parts.len() > 1 => l,
            _ => "",
        }
    }

    /// Whether the whole pattern is a literal followed by `*`.
    fn is_prefix_only(&self) -> bool {
        matches!(self.parts.as_slice(), [Part::Literal(_), Part::Any])
    }

    fn reversed(&self) -> Pattern {
        let parts = self
            .parts
            .iter()
            .rev()
            .map(|p| match p {
                Part::Literal(l) => Part::Literal(text::reversed(l)),
                other => other.clone(),
            })
            .collect();
        Pattern { parts }
    }

    pub(crate) fn literals(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Literal(l) => Some(l.as_str()),
            _ => None,
        })
    }

    /// Whether the whole of `value` matches.
    pub(crate) fn matches(&self, value: &str) -> bool {
        matches_from(&self.parts, value)
    }
}

/// Matches on the string itself, without collecting its characters: a scan of many
/// terms calls this once per term.
fn matches_from(parts: &[Part], value: &str) -> bool {
    match parts.split_first() {
        None => value.is_empty(),
        Some((Part::Literal(l), rest)) => {
            value.starts_with(l.as_str()) && matches_from(rest, &value[l.len()..])
        }
        Some((Part::One, rest)) => match value.chars().next() {
            Some(c) => matches_from(rest, &value[c.len_utf8()..]),
            None => false,
        },
        Some((Part::Any, rest)) => {
            if rest.is_empty() {
                return true;
            }
            value
                .char_indices()
                .map(|(i, _)| i)
                .chain([value.len()])
                .any(|i| matches_from(rest, &value[i..]))
        }
    }
}

/// The fields a whole-value pattern can be answered from.
pub(crate) struct WildcardFields {
    /// The whole values.
    pub(crate) forward: Field,
    pub(crate) reversed: Option<Field>,
    /// Whether `forward` has a gram map.
    pub(crate) grams: bool,
}

/// The query for `pattern` over whole values, choosing the cheapest structure.
pub(crate) fn wildcard(fields: &WildcardFields, pattern: &Pattern) -> Box<dyn Query> {
    let prefix = pattern.prefix();
    let suffix = pattern.suffix();
    if !pattern.has_wildcard() {
        let term = Term::from_field_text(fields.forward, prefix);
        return Box::new(TermQuery::new(term, IndexRecordOption::Basic));
    }
    if !prefix.is_empty() && (prefix.len() >= suffix.len() || fields.reversed.is_none()) {
        let filter = (!pattern.is_prefix_only()).then(|| pattern.clone());
        return Box::new(TermScanQuery::prefix(fields.forward, prefix, filter));
    }
    if let (false, Some(reversed)) = (suffix.is_empty(), fields.reversed) {
        let reversed_pattern = pattern.reversed();
        let filter = (!reversed_pattern.is_prefix_only()).then(|| reversed_pattern.clone());
        return Box::new(TermScanQuery::prefix(reversed, reversed_pattern.prefix(), filter));
    }
    if fields.grams {
        Box::new(InfixQuery::new(fields.forward, pattern.clone()))
    } else {
        Box::new(TermScanQuery::prefix(fields.forward, "", Some(pattern.clone())))
    }
}

/// Documents with a term of `field` in a range of the term dictionary, optionally only
/// the terms a pattern matches. Unscored (constant score), like FOLIO's
/// `constant_score` rewrite of wildcard queries.
#[derive(Clone, Debug)]
pub(crate) struct TermScanQuery {
    field: Field,
    lower: Bound<Vec<u8>>,
    upper: Bound<Vec<u8>>,
    filter: Option<Arc<Pattern>>,
}

impl TermScanQuery {
    /// Terms starting with `prefix` (all terms for an empty prefix).
    pub(crate) fn prefix(field: Field, prefix: &str, filter: Option<Pattern>) -> TermScanQuery {
        let lower = Bound::Included(prefix.as_bytes().to_vec());
        let upper = match prefix_end(prefix.as_bytes()) {
            Some(end) => Bound::Excluded(end),
            None => Bound::Unbounded,
        };
        TermScanQuery { field, lower, upper, filter: filter.map(Arc::new) }
    }

    /// Terms between two bounds (byte order, which is code-point order for UTF-8).
    pub(crate) fn range(field: Field, lower: Bound<Vec<u8>>, upper: Bound<Vec<u8>>) -> Self {
        TermScanQuery { field, lower, upper, filter: None }
    }
}

/// The explanation of an unscored query's match: a constant 1, or an error when `doc`
/// does not match.
pub(crate) fn explain_unscored(
    weight: &dyn Weight,
    name: &'static str,
    reader: &SegmentReader,
    doc: DocId,
) -> tantivy::Result<Explanation> {
    let mut scorer = weight.scorer(reader, 1.0)?;
    if scorer.seek(doc) == doc {
        Ok(Explanation::new(name, 1.0))
    } else {
        Err(tantivy::TantivyError::InvalidArgument("document does not match".to_string()))
    }
}

/// Adds the documents of one term's postings to `docs`.
pub(crate) fn insert_postings(
    inverted_index: &InvertedIndexReader,
    info: &TermInfo,
    docs: &mut BitSet,
) -> tantivy::Result<()> {
    let mut postings =
        inverted_index.read_block_postings_from_terminfo(info, IndexRecordOption::Basic)?;
    loop {
        let block = postings.docs();
        if block.is_empty() {
            return Ok(());
        }
        for &doc in block {
            docs.insert(doc);
        }
        postings.advance();
    }
}

/// The smallest byte string greater than every string starting with `prefix`.
fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

impl Query for TermScanQuery {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for TermScanQuery {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let mut docs = BitSet::with_max_value(reader.max_doc());
        let inverted_index = reader.inverted_index(self.field)?;
        let mut builder = inverted_index.terms().range();
        builder = match &self.lower {
            Bound::Included(b) => builder.ge(b),
            Bound::Excluded(b) => builder.gt(b),
            Bound::Unbounded => builder,
        };
        builder = match &self.upper {
            Bound::Included(b) => builder.le(b),
            Bound::Excluded(b) => builder.lt(b),
            Bound::Unbounded => builder,
        };
        let mut stream = builder.into_stream()?;
        while stream.advance() {
            if let Some(filter) = &self.filter {
                let Ok(key) = std::str::from_utf8(stream.key()) else { continue };
                if !filter.matches(key) {
                    continue;
                }
            }
            insert_postings(&inverted_index, stream.value(), &mut docs)?;
        }
        Ok(Box::new(ConstScorer::new(BitSetDocSet::from(docs), boost)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        explain_unscored(self, "TermScanQuery", reader, doc)
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    #[test]
    fn matching() {
        let cases = [
            ("*rmelen, frank", "van harmelen, frank", true),
            ("van harmelen, fr*", "van harmelen, frank", true),
            ("00*0*8*x", "0040781x", true),
            ("***0***x", "0040781x", true),
            ("0****x", "0040781x", true),
            ("*x", "0040781y", false),
            ("it*100000015", "it000100000015", true),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
        ];
        for (pattern, value, expected) in cases {
            assert_eq!(Pattern::parse(pattern).matches(value), expected, "{pattern} {value}");
        }
        assert!(Pattern::parse("**").is_match_all());
        assert_eq!(Pattern::parse("ab*cd").reversed(), Pattern::parse("dc*ba"));
    }
}
