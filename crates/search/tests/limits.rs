//! The largest queries Quire's query limits accept are answered within a small stack:
//! translation recurses once per nesting level, and so do tantivy's weights and scorers,
//! because a chain of one operator is one boolean query however long it is.

mod common;

use std::sync::Arc;

use search::{AuthorityIndex, AuthoritySearchRequest, FacetRequest, InstanceIndex, SearchRequest};

/// Clauses of the kinds that expand the most: a keyword over many fields, with stems,
/// wildcards on both ends, a range, a phrase, a negation.
const CLAUSES: &[&str] = &[
    r#"keyword all "semantic webs primer""#,
    "title=*emant*",
    "hrid=in0000000*",
    r#"title=="semantic web""#,
    "metadata.createdDate>2000-01-01",
    "contributors.name any primers",
    "title<>nothing",
    "languages==eng",
];

fn clause(idx: usize) -> &'static str {
    CLAUSES[idx % CLAUSES.len()]
}

/// 32 levels: each a parenthesis, a change of operator and a few clauses beside it.
fn deepest() -> String {
    (0..limits::MAX_DEPTH).fold(clause(0).to_string(), |inner, level| {
        let op = if level % 2 == 0 { "or" } else { "and" };
        let beside: Vec<&str> = (level..level + 3).map(clause).collect();
        format!("{} {op} ({inner})", beside.join(&format!(" {op} ")))
    })
}

/// A thousand clauses in one chain of each operator.
fn widest(op: &str) -> String {
    (0..limits::MAX_TERMS).map(clause).collect::<Vec<_>>().join(&format!(" {op} "))
}

#[test]
fn the_largest_instance_queries_accepted_run_on_a_small_stack() {
    let fixture = common::fixture();
    let tenant = fixture.tenant.clone();
    for (idx, title) in
        ["The semantic web primer", "Semantic fields", "A primer"].iter().enumerate()
    {
        common::create_instance(&tenant, &format!("in0000000{idx}"), title);
    }
    let index = Arc::new(InstanceIndex::open(&tenant).unwrap());
    index.catch_up(&tenant).unwrap();
    assert_eq!(common::count(&index, "title all semantic"), 2);
    let queries = [deepest(), widest("or"), widest("and"), widest("not")];
    for query in queries {
        assert!(cql::parse(&query).is_ok(), "within the limits: {query}");
        let (index, tenant) = (index.clone(), tenant.clone());
        let totals = limits::on_test_stack(move || {
            let count = index.count(&query).unwrap();
            let found = index.search(&tenant, &SearchRequest::new(query.as_str())).unwrap();
            let facet = FacetRequest::parse("languages").unwrap();
            index.facets(&query, &[facet]).unwrap();
            let mut streamed = 0;
            index
                .stream_ids(&query, |_| {
                    streamed += 1;
                    std::ops::ControlFlow::Continue(())
                })
                .unwrap();
            (count, found.total_records, streamed)
        });
        assert_eq!(totals.0, totals.1);
        assert_eq!(totals.0, totals.2);
    }
}

#[test]
fn the_largest_authority_queries_accepted_run_on_a_small_stack() {
    let fixture = common::fixture();
    let index = Arc::new(AuthorityIndex::open(&fixture.tenant).unwrap());
    let chain = |op: &str| {
        (0..limits::MAX_TERMS).map(|i| format!("headingRef=w{i}*")).collect::<Vec<_>>().join(op)
    };
    let deepest = (0..limits::MAX_DEPTH).fold("headingRef=x".to_string(), |inner, level| {
        let op = if level % 2 == 0 { "or" } else { "and" };
        format!("headingRef=y{level}* {op} personalName=z{level} {op} ({inner})")
    });
    for query in [deepest, chain(" or "), chain(" and ")] {
        let index = index.clone();
        let total = limits::on_test_stack(move || {
            index.search(&AuthoritySearchRequest::new(query), None).unwrap().total_records
        });
        assert_eq!(total, 0);
    }
}
