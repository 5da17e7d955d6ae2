//! CQL to tantivy for any record family, with mod-search's meaning
//! (`CqlSearchQueryConverter` and the term query builders), over a family's
//! [`Registry`].
//!
//! Owns the relation table: `all`/`adj`/`=` are a cross-field AND of the words, `any`
//! an OR, `==` a phrase on text and an exact term on keywords, `==/string` the whole
//! value folded, `<>` a must-not, `<`..`>=` ranges, `field = ""` exists, a `*` anywhere
//! a whole-value wildcard; and the booleans. Does not own parsing (`cql`), a family's
//! sort keys, or how the query is run.
//!
//! `multilang` fields are matched as FOLIO's `cross_fields` query matches its two
//! analyser groups: every word in the source-analysed text of some field, or every
//! non-stopword's English stem in some field. Both live in one tantivy field here (a
//! stem is indexed at its word's position only when it differs from the word).

use std::ops::Bound;

use cql::{BooleanOp, Node, RelationKind, SearchClause};
use tantivy::Term;
use tantivy::query::{
    AllQuery, BooleanQuery, EmptyQuery, Occur, PhraseQuery, Query, RangeQuery, TermQuery,
};
use tantivy::schema::IndexRecordOption;

use crate::error::{Error, Result};
use crate::instance::identifiers;
use crate::pattern::{self, Pattern, TermScanQuery, WildcardFields};
use crate::presence::{PresentQuery, WithBitQuery};
use crate::registry::{FieldDef, Handles, Kind, Registry, TermProc, normalize};
use crate::text::{self, Word};

/// Parses a query for a family, with FOLIO's parse error naming the family's resource,
/// or the query limit it is over.
pub(crate) fn parse(reg: &Registry, query_text: &str) -> Result<cql::Query> {
    cql::parse(query_text).map_err(|detail| match detail.exceeded {
        Some(exceeded) => Error::QueryTooLarge { exceeded },
        None => {
            Error::InvalidQuery { query: query_text.to_string(), resource: reg.resource, detail }
        }
    })
}

/// The query for `node`. Chains of one operator become one boolean query, so this
/// recurses once per nesting level of the query, which the parser bounds, and so does
/// tantivy when it builds the query's weights and scorers.
pub(crate) fn node(reg: &Registry, node: &Node) -> Result<Box<dyn Query>> {
    let Some((op, operands)) = node.operands() else {
        let Node::Search(clause) = node.unprefixed() else {
            unreachable!("anything but a boolean is a search clause under its prefixes")
        };
        return search_clause(reg, clause);
    };
    let occur = match op {
        BooleanOp::And => Occur::Must,
        BooleanOp::Or => Occur::Should,
        // The first operand is kept, the others taken away.
        BooleanOp::Not => Occur::MustNot,
        BooleanOp::Prox => return Err(Error::UnsupportedOperator { operator: "PROX".to_string() }),
    };
    let mut clauses = Vec::with_capacity(operands.len());
    for (idx, operand) in operands.into_iter().enumerate() {
        let occur = if idx == 0 && op == BooleanOp::Not { Occur::Must } else { occur };
        clauses.push((occur, self::node(reg, operand)?));
    }
    Ok(Box::new(BooleanQuery::new(clauses)))
}

/// Whether the matches of `node` can differ in relevance: some clause that is not
/// negated searches the words of a text field. A query of filters only (keywords, ids,
/// flags, dates, `<>`, `cql.allRecords`) ranks every match alike, so its matches come
/// in index order and are not scored. Errors are `node`'s to report; a clause it would
/// reject counts as ranking.
pub(crate) fn ranks(reg: &Registry, node: &Node) -> bool {
    match node.operands() {
        None => match node.unprefixed() {
            Node::Search(clause) => clause_ranks(reg, clause),
            _ => unreachable!("anything but a boolean is a search clause under its prefixes"),
        },
        Some((BooleanOp::Not, operands)) => ranks(reg, operands[0]),
        Some((_, operands)) => operands.into_iter().any(|operand| ranks(reg, operand)),
    }
}

fn clause_ranks(reg: &Registry, clause: &SearchClause) -> bool {
    let index = if clause.is_server_choice() { "keyword" } else { clause.index.as_str() };
    if clause.relation.kind() == RelationKind::NotEq || index.eq_ignore_ascii_case("cql.allRecords")
    {
        return false;
    }
    let Some(fields) = reg.resolve(index) else { return true };
    fields.iter().any(|&idx| matches!(reg.def(idx).kind, Kind::Text { .. } | Kind::Whitespace))
}

/// A condition mod-search lifts out of a query's top level as a filter
/// (`CqlSearchQueryConverter.enhanceQuery`): a term or range on one filter field, or an
/// OR of terms on one such field. Facets leave out the filters on their own field.
pub(crate) struct Filter<'a> {
    /// The registry field it filters.
    pub(crate) field: usize,
    pub(crate) node: &'a Node,
    /// The values it selects, as indexed (none for a range).
    pub(crate) values: Vec<String>,
}

/// A query taken apart as mod-search takes it apart for facets: what must match, what
/// must not, and the filters.
pub(crate) struct Split<'a> {
    pub(crate) must: Vec<&'a Node>,
    pub(crate) must_not: Vec<&'a Node>,
    pub(crate) filters: Vec<Filter<'a>>,
}

/// Takes `root` apart: the operands of a top-level `AND` (flattened through left
/// operands only, as mod-search's `flattenBoolQuery` does) or the left operand of a
/// top-level `NOT` that are filters on a field `is_filter` accepts, and the rest.
pub(crate) fn split_filters<'a>(
    reg: &Registry,
    root: &'a Node,
    is_filter: &dyn Fn(usize) -> bool,
) -> Split<'a> {
    let root = root.unprefixed();
    let mut split = Split { must: Vec::new(), must_not: Vec::new(), filters: Vec::new() };
    let candidates = match root {
        Node::Boolean { op: BooleanOp::And, .. } => operands(root, BooleanOp::And),
        Node::Boolean { op: BooleanOp::Not, left, right, .. } => {
            split.must_not.push(right);
            vec![left.unprefixed()]
        }
        _ => vec![root],
    };
    for node in candidates {
        match filter(reg, node, is_filter) {
            Some(filter) => split.filters.push(filter),
            None => split.must.push(node),
        }
    }
    split
}

/// The operands of an `AND`, with a left operand that is an `AND` flattened and a right
/// one kept whole; likewise for `OR`. A loop, so a chain of any length is walked flat.
fn operands(node: &Node, op: BooleanOp) -> Vec<&Node> {
    let mut operands = Vec::new();
    let mut node = node;
    while let Node::Boolean { op: o, left, right, .. } = node
        && *o == op
    {
        operands.push(right.unprefixed());
        node = left.unprefixed();
    }
    operands.push(node);
    operands.reverse();
    operands
}

fn filter<'a>(
    reg: &Registry,
    node: &'a Node,
    is_filter: &dyn Fn(usize) -> bool,
) -> Option<Filter<'a>> {
    match node {
        Node::Search(clause) => {
            let (field, value) = clause_filter(reg, clause, is_filter)?;
            Some(Filter { field, node, values: value.into_iter().collect() })
        }
        Node::Boolean { op: BooleanOp::Or, .. } => {
            let mut field = None;
            let mut values = Vec::new();
            for operand in operands(node, BooleanOp::Or) {
                let Node::Search(clause) = operand else { return None };
                let (idx, value) = clause_filter(reg, clause, is_filter)?;
                if field.is_some_and(|f| f != idx) {
                    return None;
                }
                field = Some(idx);
                values.push(value?);
            }
            Some(Filter { field: field?, node, values })
        }
        _ => None,
    }
}

/// Whether a clause is a term (with its value as indexed) or a range (no value) on one
/// filter field: what mod-search builds as a `term` or `range` query.
fn clause_filter(
    reg: &Registry,
    clause: &SearchClause,
    is_filter: &dyn Fn(usize) -> bool,
) -> Option<(usize, Option<String>)> {
    if clause.is_server_choice() || clause.term.contains('*') {
        return None;
    }
    let fields = reg.resolve(&clause.index)?;
    let [idx] = fields[..] else { return None };
    let def = reg.def(idx);
    if !is_filter(idx) || !matches!(def.kind, Kind::Keyword(_) | Kind::Bool) {
        return None;
    }
    let term = unescape(&clause.term);
    match clause.relation.kind() {
        RelationKind::Eq if term.is_empty() => None,
        RelationKind::Exact if term == "[]" => None,
        RelationKind::Eq
        | RelationKind::All
        | RelationKind::Adj
        | RelationKind::Any
        | RelationKind::Exact => Some((idx, Some(keyword_value(def, &term)?))),
        RelationKind::Lt | RelationKind::Gt | RelationKind::Le | RelationKind::Ge => {
            Some((idx, None))
        }
        _ => None,
    }
}

/// mod-search collapses doubled backslashes, and an escaped quote is a quote.
fn unescape(term: &str) -> String {
    let mut out = String::with_capacity(term.len());
    let mut chars = term.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.peek(), Some('\\' | '"')) {
            out.push(chars.next().unwrap_or('\\'));
        } else {
            out.push(c);
        }
    }
    out
}

fn search_clause(reg: &Registry, clause: &SearchClause) -> Result<Box<dyn Query>> {
    let kind = clause.relation.kind();
    let index = if clause.is_server_choice() { "keyword" } else { clause.index.as_str() };
    let term = unescape(&clause.term);
    if index.eq_ignore_ascii_case("cql.allRecords") {
        return Ok(Box::new(AllQuery));
    }
    if matches!(kind, RelationKind::Within | RelationKind::Encloses | RelationKind::Other) {
        return Err(Error::UnsupportedRelation { relation: clause.relation.base.clone() });
    }
    if index == "keyword" && term.trim() == "*" {
        return Ok(Box::new(AllQuery));
    }
    let field_ids =
        reg.resolve(index).ok_or_else(|| Error::UnknownField { field: index.to_string() })?;
    let defs: Vec<(usize, &'static FieldDef)> =
        field_ids.iter().map(|&idx| (idx, reg.def(idx))).collect();
    let mut matched = positive(reg, clause, &term, &defs)?;
    // A text echo (alone in its clause, `Registry::new` checks) is asked as a whole of
    // its source where the document's values are the source's.
    if let [(idx, _)] = defs[..]
        && let Some(echoes) = reg.echoes(idx).filter(|e| e.whole_clause)
    {
        let source = echoes.sources[0];
        let theirs = positive(reg, clause, &term, &[(source, reg.def(source))])?;
        let theirs = Box::new(WithBitQuery::new(theirs, reg.bit(echoes.bit)));
        matched = any_of(vec![matched, theirs]);
    }
    Ok(if kind == RelationKind::NotEq { not(matched) } else { matched })
}

/// What a clause matches over the fields `defs`, before `<>` negates it.
fn positive(
    reg: &Registry,
    clause: &SearchClause,
    term: &str,
    defs: &[(usize, &'static FieldDef)],
) -> Result<Box<dyn Query>> {
    let kind = clause.relation.kind();
    Ok(if term.contains('*') {
        any_of(defs.iter().map(|&(idx, def)| wildcard(reg, idx, def, term)).collect())
    } else {
        match kind {
            RelationKind::Eq if term.is_empty() => {
                any_of(defs.iter().map(|&(idx, _)| exists(reg, idx)).collect())
            }
            RelationKind::Eq | RelationKind::All | RelationKind::Adj | RelationKind::NotEq => {
                match_words(reg, defs, term, Match::All)?
            }
            RelationKind::Any => match_words(reg, defs, term, Match::Any)?,
            RelationKind::Exact if clause.relation.modifier("string").is_some() => {
                any_of(defs.iter().map(|&(idx, def)| whole_value(reg, idx, def, term)).collect())
            }
            RelationKind::Exact if term == "[]" => {
                let present = any_of(defs.iter().map(|&(idx, _)| exists(reg, idx)).collect());
                not(present)
            }
            RelationKind::Exact => match_words(reg, defs, term, Match::Phrase)?,
            RelationKind::Lt | RelationKind::Gt | RelationKind::Le | RelationKind::Ge => {
                let ranges = defs
                    .iter()
                    .map(|&(idx, def)| range(reg, idx, def, kind, term))
                    .collect::<Result<Vec<_>>>()?;
                any_of(ranges)
            }
            RelationKind::Within | RelationKind::Encloses | RelationKind::Other => {
                unreachable!("rejected by search_clause")
            }
        }
    })
}

fn not(query: Box<dyn Query>) -> Box<dyn Query> {
    Box::new(BooleanQuery::new(vec![(Occur::Must, Box::new(AllQuery)), (Occur::MustNot, query)]))
}

fn any_of(mut queries: Vec<Box<dyn Query>>) -> Box<dyn Query> {
    match queries.len() {
        0 => Box::new(EmptyQuery),
        1 => queries.pop().expect("one query"),
        _ => Box::new(BooleanQuery::new(queries.into_iter().map(|q| (Occur::Should, q)).collect())),
    }
}

fn all_of(mut queries: Vec<Box<dyn Query>>) -> Box<dyn Query> {
    match queries.len() {
        0 => Box::new(EmptyQuery),
        1 => queries.pop().expect("one query"),
        _ => Box::new(BooleanQuery::new(queries.into_iter().map(|q| (Occur::Must, q)).collect())),
    }
}

/// The documents with a value in field `idx`. The first field (`id`) is in every one.
fn exists(reg: &Registry, idx: usize) -> Box<dyn Query> {
    if idx == 0 {
        return Box::new(AllQuery);
    }
    Box::new(PresentQuery::new(reg.presence_bit(idx)))
}

/// The term as the field's search-term processor rewrites it.
fn processed(def: &FieldDef, term: &str) -> String {
    match def.term {
        TermProc::None => term.to_string(),
        TermProc::Isbn => identifiers::isbn_term(term),
        TermProc::Oclc => identifiers::normalize_oclc(term).unwrap_or_default(),
        TermProc::NoSpace => identifiers::normalize_no_space(term).unwrap_or_default(),
        TermProc::AlphaNumeric => identifiers::alphanumeric_term(term),
    }
}

/// A keyword (or boolean) field's whole value, as indexed, for a query term.
fn keyword_value(def: &FieldDef, term: &str) -> Option<String> {
    match def.kind {
        Kind::Keyword(norm) => Some(normalize(norm, &processed(def, term))),
        Kind::Bool => Some(term.trim().to_lowercase()),
        _ => None,
    }
}

fn term_query(term: Term) -> Box<dyn Query> {
    Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs))
}

/// `==/string`: the whole value, folded, on the plain copy (or the keyword itself).
fn whole_value(reg: &Registry, idx: usize, def: &FieldDef, term: &str) -> Box<dyn Query> {
    let handles = reg.handles[idx];
    match (def.kind, handles.plain) {
        (Kind::Text { .. } | Kind::Whitespace, Some(plain)) => {
            term_query(Term::from_field_text(plain, &text::plain(&processed(def, term))))
        }
        _ => keyword_or_date(reg, idx, def, term).unwrap_or_else(|_| Box::new(EmptyQuery)),
    }
}

fn wildcard(reg: &Registry, idx: usize, def: &FieldDef, term: &str) -> Box<dyn Query> {
    let processed = processed(def, term);
    // Matched against the whole-value terms: a text field's plain copy, a keyword's own.
    let value = match def.kind {
        Kind::Text { .. } | Kind::Whitespace => text::plain(&processed),
        Kind::Keyword(norm) => normalize(norm, &processed),
        Kind::Bool | Kind::Date | Kind::Number => {
            return if Pattern::parse(term).is_match_all() {
                exists(reg, idx)
            } else {
                Box::new(EmptyQuery)
            };
        }
    };
    let pattern = Pattern::parse(&value);
    if pattern.is_match_all() {
        return exists(reg, idx);
    }
    on_field(reg, idx, |h| {
        let fields = WildcardFields { forward: h.whole(), reversed: h.reversed, grams: h.grams };
        pattern::wildcard(&fields, &pattern)
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Match {
    All,
    Any,
    Phrase,
}

/// `all`/`any`/`==` over the fields of an index: text fields by their words, keyword
/// fields by their whole value.
fn match_words(
    reg: &Registry,
    defs: &[(usize, &'static FieldDef)],
    term: &str,
    how: Match,
) -> Result<Box<dyn Query>> {
    let mut alternatives = Vec::new();
    let text: Vec<(usize, &FieldDef)> =
        defs.iter().filter(|(_, d)| d.is_text()).map(|&(i, d)| (i, d)).collect();
    // Fields with the same term processor and analyser form one cross-field group.
    let mut groups: Vec<Vec<(usize, &FieldDef)>> = Vec::new();
    for field in text {
        match groups.iter_mut().find(|g| {
            g[0].1.term == field.1.term
                && (g[0].1.kind == Kind::Whitespace) == (field.1.kind == Kind::Whitespace)
        }) {
            Some(group) => group.push(field),
            None => groups.push(vec![field]),
        }
    }
    for group in groups {
        alternatives.push(text_group(reg, &group, term, how));
    }
    for &(idx, def) in defs.iter().filter(|(_, d)| !d.is_text()) {
        alternatives.push(keyword_or_date(reg, idx, def, term)?);
    }
    Ok(any_of(alternatives))
}

fn keyword_or_date(
    reg: &Registry,
    idx: usize,
    def: &FieldDef,
    term: &str,
) -> Result<Box<dyn Query>> {
    match def.kind {
        Kind::Date | Kind::Number => {
            let (start, end) = parse_date_or_number(def, term)?;
            Ok(i64_range(reg, idx, Bound::Included(start), Bound::Excluded(end)))
        }
        _ => Ok(match keyword_value(def, term) {
            Some(value) => {
                on_field(reg, idx, |h| term_query(Term::from_field_text(h.main, &value)))
            }
            None => Box::new(EmptyQuery),
        }),
    }
}

/// The query `on` builds over field `idx`'s tantivy fields; for an echo field, or'd
/// with the same query over its sources, limited to the documents whose terms there
/// are the field's own ([`Echo`](crate::registry::Echo)). `on` gets the handles only:
/// the relation and the term's normalisation stay the field's.
fn on_field(reg: &Registry, idx: usize, on: impl Fn(Handles) -> Box<dyn Query>) -> Box<dyn Query> {
    let own = on(reg.handles[idx]);
    let Some(echoes) = reg.echoes(idx).filter(|e| !e.whole_clause) else { return own };
    let theirs = any_of(echoes.sources.iter().map(|&source| on(reg.handles[source])).collect());
    any_of(vec![own, Box::new(WithBitQuery::new(theirs, reg.bit(echoes.bit)))])
}

fn analyze(def: &FieldDef, term: &str) -> Vec<Word> {
    if def.kind == Kind::Whitespace {
        text::whitespace_words(term)
            .into_iter()
            .map(|w| Word { parts: vec![w], catenated: None })
            .collect()
    } else {
        text::words(term)
    }
}

/// A token in any of the group's fields.
fn in_any_field(reg: &Registry, group: &[(usize, &FieldDef)], token: &str) -> Box<dyn Query> {
    let handles = &reg.handles;
    any_of(
        group
            .iter()
            .map(|&(idx, _)| term_query(Term::from_field_text(handles[idx].main, token)))
            .collect(),
    )
}

fn text_group(
    reg: &Registry,
    group: &[(usize, &FieldDef)],
    term: &str,
    how: Match,
) -> Box<dyn Query> {
    let def = group[0].1;
    let term = processed(def, term);
    let words = analyze(def, &term);
    if words.is_empty() {
        return Box::new(EmptyQuery);
    }
    let stemmed: Vec<(usize, &FieldDef)> =
        group.iter().filter(|(_, d)| d.stemmed()).copied().collect();
    match how {
        Match::All | Match::Any => {
            let word_clauses: Vec<Box<dyn Query>> = words
                .iter()
                .map(|word| {
                    let parts: Vec<Box<dyn Query>> = word
                        .parts
                        .iter()
                        .map(|part| {
                            let mut alternatives = vec![in_any_field(reg, group, part)];
                            if how == Match::Any
                                && !stemmed.is_empty()
                                && let Some(stem) = text::stem(part)
                            {
                                alternatives.push(in_any_field(reg, &stemmed, &stem));
                            }
                            any_of(alternatives)
                        })
                        .collect();
                    let parts = if how == Match::All { all_of(parts) } else { any_of(parts) };
                    match &word.catenated {
                        Some(cat) => any_of(vec![parts, in_any_field(reg, group, cat)]),
                        None => parts,
                    }
                })
                .collect();
            let source =
                if how == Match::All { all_of(word_clauses) } else { any_of(word_clauses) };
            if how == Match::Any || stemmed.is_empty() {
                return source;
            }
            // The English group: every non-stopword's stem in some stemmed field.
            let stems: Vec<Box<dyn Query>> = words
                .iter()
                .flat_map(|w| w.parts.iter())
                .filter(|p| !text::is_stopword(p))
                .map(|p| in_any_field(reg, &stemmed, &text::stem(p).unwrap_or_else(|| p.clone())))
                .collect();
            if stems.is_empty() { source } else { any_of(vec![source, all_of(stems)]) }
        }
        Match::Phrase => {
            let handles = &reg.handles;
            let parts: Vec<&String> = words.iter().flat_map(|w| w.parts.iter()).collect();
            let mut phrases = Vec::new();
            for &(idx, def) in group {
                let field = handles[idx].main;
                let source: Vec<(usize, Term)> = parts
                    .iter()
                    .enumerate()
                    .map(|(pos, p)| (pos, Term::from_field_text(field, p)))
                    .collect();
                phrases.push(phrase(source));
                if def.stemmed() {
                    let english: Vec<(usize, Term)> = parts
                        .iter()
                        .enumerate()
                        .filter(|(_, p)| !text::is_stopword(p))
                        .map(|(pos, p)| {
                            let stem = text::stem(p).unwrap_or_else(|| (*p).clone());
                            (pos, Term::from_field_text(field, &stem))
                        })
                        .collect();
                    if !english.is_empty() {
                        phrases.push(phrase(english));
                    }
                }
            }
            any_of(phrases)
        }
    }
}

fn phrase(mut terms: Vec<(usize, Term)>) -> Box<dyn Query> {
    if terms.len() == 1 {
        return term_query(terms.pop().expect("one term").1);
    }
    let first = terms[0].0;
    let terms = terms.into_iter().map(|(pos, t)| (pos - first, t)).collect();
    Box::new(PhraseQuery::new_with_offset(terms))
}

fn range(
    reg: &Registry,
    idx: usize,
    def: &FieldDef,
    kind: RelationKind,
    term: &str,
) -> Result<Box<dyn Query>> {
    let handles = reg.handles[idx];
    match def.kind {
        Kind::Date | Kind::Number => {
            let (start, end) = parse_date_or_number(def, term)?;
            let (lower, upper) = match kind {
                RelationKind::Gt => (Bound::Included(end), Bound::Unbounded),
                RelationKind::Ge => (Bound::Included(start), Bound::Unbounded),
                RelationKind::Lt => (Bound::Unbounded, Bound::Excluded(start)),
                _ => (Bound::Unbounded, Bound::Excluded(end)),
            };
            Ok(i64_range(reg, idx, lower, upper))
        }
        _ => {
            // Compared with the whole-value terms: a keyword's own, a text field's plain copy.
            let value = match (def.kind, handles.plain) {
                (Kind::Keyword(norm), _) => normalize(norm, &processed(def, term)),
                (_, Some(_)) => text::plain(term),
                _ => term.trim().to_lowercase(),
            };
            let value = value.into_bytes();
            let (lower, upper) = match kind {
                RelationKind::Gt => (Bound::Excluded(value), Bound::Unbounded),
                RelationKind::Ge => (Bound::Included(value), Bound::Unbounded),
                RelationKind::Lt => (Bound::Unbounded, Bound::Excluded(value)),
                _ => (Bound::Unbounded, Bound::Included(value)),
            };
            Ok(on_field(reg, idx, |h| {
                Box::new(TermScanQuery::range(h.whole(), lower.clone(), upper.clone()))
            }))
        }
    }
}

fn i64_range(reg: &Registry, idx: usize, lower: Bound<i64>, upper: Bound<i64>) -> Box<dyn Query> {
    let field = reg.handles[idx].main;
    let term = |v: i64| Term::from_field_i64(field, v);
    Box::new(RangeQuery::new(lower.map(term), upper.map(term)))
}

/// A date as the half-open range of milliseconds it names (a day for `2021-01-15`), or
/// a number as the range holding just it.
fn parse_date_or_number(def: &FieldDef, term: &str) -> Result<(i64, i64)> {
    let invalid = || Error::InvalidDate { field: def.name.to_string(), value: term.to_string() };
    let term = term.trim();
    if def.kind == Kind::Number {
        let n: i64 = term.parse().map_err(|_| invalid())?;
        return Ok((n, n + 1));
    }
    parse_date(term).ok_or_else(invalid)
}

pub(crate) fn parse_date(term: &str) -> Option<(i64, i64)> {
    use chrono::{Datelike, Months, NaiveDate};
    let millis = |d: NaiveDate| d.and_hms_opt(0, 0, 0).map(|t| t.and_utc().timestamp_millis());
    if term.len() > 8 && term.bytes().all(|b| b.is_ascii_digit()) {
        let ms: i64 = term.parse().ok()?;
        return Some((ms, ms + 1));
    }
    let bytes = term.as_bytes();
    if bytes.len() == 4 && bytes.iter().all(u8::is_ascii_digit) {
        let year: i32 = term.parse().ok()?;
        let start = NaiveDate::from_ymd_opt(year, 1, 1)?;
        return Some((millis(start)?, millis(start.with_year(year + 1)?)?));
    }
    if bytes.len() == 7 && bytes[4] == b'-' {
        let start = NaiveDate::parse_from_str(&format!("{term}-01"), "%Y-%m-%d").ok()?;
        return Some((millis(start)?, millis(start.checked_add_months(Months::new(1))?)?));
    }
    if bytes.len() == 10 {
        let day = NaiveDate::parse_from_str(term, "%Y-%m-%d").ok()?;
        return Some((millis(day)?, millis(day.succ_opt()?)?));
    }
    let t = folio::Timestamp::parse(term)?.as_datetime().timestamp_millis();
    Some((t, t + 1))
}

#[cfg(test)]
mod tests {
    use super::unescape;

    #[test]
    fn terms_unescape_as_in_mod_search() {
        assert_eq!(unescape(r#"a\\b \"c\" d\e"#), r#"a\b "c" d\e"#);
    }
}
