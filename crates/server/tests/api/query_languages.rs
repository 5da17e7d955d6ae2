//! A property of every query language Quire reads: whatever query a client sends, up to
//! ten times the limits in length, terms and depth (long chains, deep nesting, long
//! terms, odd Unicode), the answer is a success or the language's client error, never
//! a 5xx, and the server goes on serving.
//!
//! CQL goes in a URL, which HTTP caps at 64 KiB (the limit itself), so queries too
//! long for one are parsed directly; MARC expressions and rules go in bodies whole.

use std::cell::Cell;

use axum::http::StatusCode;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseResult, TestRunner};

use crate::{
    instances::urlencode,
    support::{Client, TestApp},
};

/// Cases per language: enough to reach every generator branch many times over.
const CASES: u32 = 200;

/// Runs `check` on `CASES` generated values; proptest shrinks a failure to its
/// smallest case before reporting it.
fn for_all<S: Strategy>(strategy: S, check: impl Fn(S::Value) -> TestCaseResult)
where
    S::Value: std::fmt::Debug,
{
    let mut runner = TestRunner::new(Config { cases: CASES, ..Config::default() });
    if let Err(e) = runner.run(&strategy, check) {
        panic!("{e}");
    }
}

/// Runs a request from inside a property (which is not async).
fn block<F: std::future::Future>(future: F) -> F::Output {
    tokio::task::block_in_place(|| tokio::runtime::Handle::current().block_on(future))
}

fn shown(text: &str) -> &str {
    &text[..text.floor_char_boundary(300)]
}

/// Words, masking and escapes, quotes, and Unicode that trips up naive code
/// (combining marks, right-to-left marks, astral planes, controls, case oddities).
fn words() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z]{1,8}",
        Just("*".to_string()),
        Just("?".to_string()),
        Just("\\\"".to_string()),
        Just("\\\\".to_string()),
        Just("'".to_string()),
        Just("e\u{301}\u{301}".to_string()),
        Just("\u{202e}ab\u{202c}".to_string()),
        Just("\u{1f4da}".to_string()),
        Just("\u{0}\u{7}".to_string()),
        Just("ǅ ß İ ﬁ".to_string()),
        "\\PC{1,4}",
    ];
    prop::collection::vec(piece, 1..6).prop_map(|pieces| pieces.join(" "))
}

/// A term: mostly words, sometimes far longer than a query may be.
fn term() -> impl Strategy<Value = String> {
    prop_oneof![
        20 => words(),
        1 => "[a-z ]{1000,20000}",
        1 => Just("x".repeat(10 * limits::MAX_BYTES)),
    ]
}

/// A count up to ten times `limit`, within it half of the time.
fn up_to_ten_times(limit: usize) -> impl Strategy<Value = usize> {
    prop_oneof![1..=limit, limit + 1..=10 * limit]
}

/// `a op1 (b op2 (c ...))`: `parts.len()` levels, each a parenthesis and, where the
/// operator changes, a level of nesting.
fn staircase<T: AsRef<str>>(parts: &[(T, &str)], innermost: &str) -> String {
    parts
        .iter()
        .rev()
        .fold(innermost.to_string(), |inner, (part, op)| format!("{}{op}({inner})", part.as_ref()))
}

/// A CQL clause on indexes the instance and authority indexes and the storage lists
/// know or refuse, with `term` as its term.
fn clause_with(term: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    let index = prop_oneof![
        Just("title"),
        Just("keyword"),
        Just("id"),
        Just("hrid"),
        Just("contributors.name"),
        Just("languages"),
        Just("headingRef"),
        Just("barcode"),
        Just("username"),
        Just("cql.allRecords"),
        Just("no.such.index"),
    ];
    let relation = prop_oneof![
        Just("="),
        Just("=="),
        Just("all"),
        Just("any"),
        Just("adj"),
        Just("<>"),
        Just("<"),
        Just(">="),
        Just("==/string"),
        Just("within"),
    ];
    (index, relation, term).prop_map(|(index, relation, term)| {
        format!("{index} {relation} \"{}\"", term.replace('\\', "\\\\").replace('"', "\\\""))
    })
}

/// Queries up to ten times the limits: chains of up to 10,000 clauses, up to 320
/// parentheses or changes of operator, terms up to ten times the length limit.
fn cql() -> impl Strategy<Value = String> {
    let op =
        prop_oneof![4 => Just(" and "), 4 => Just(" or "), 2 => Just(" not "), 1 => Just(" prox ")];
    let clause = || clause_with(words());
    // Chains of short clauses, so a thousand of them still fit in a URL.
    let chain = (clause_with("[a-z]{1,6}"), op.clone(), up_to_ten_times(limits::MAX_TERMS))
        .prop_map(|(clause, op, n)| vec![clause; n].join(op));
    let nested =
        (clause(), up_to_ten_times(limits::MAX_DEPTH), prop_oneof![4 => Just(0), 1 => Just(1)])
            .prop_map(|(c, n, unbalanced)| {
                format!("{}{c}{}", "(".repeat(n + unbalanced), ")".repeat(n))
            });
    let steps = up_to_ten_times(limits::MAX_DEPTH)
        .prop_flat_map(move |n| prop::collection::vec((clause(), op.clone()), n));
    let stairs = (steps, clause()).prop_map(|(steps, last)| staircase(&steps, &last));
    let sorted = (clause(), "[a-z.]{1,12}(/sort.descending)?")
        .prop_map(|(c, key)| format!("{c} sortBy {key}"));
    let prefixed = (up_to_ten_times(limits::MAX_DEPTH), clause()).prop_map(|(n, c)| {
        format!("{}{c}", ">dc=\"info:srw/cql-context-set/1/dc-v1.1\" ".repeat(n))
    });
    prop_oneof![
        3 => stairs,
        2 => chain,
        2 => nested,
        1 => sorted,
        1 => prefixed,
        1 => clause_with(term()),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cql_queries_get_200_or_400() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    for title in ["The semantic web primer", "Semantic fields"] {
        c.create_instance(title).await;
    }
    let paths = [
        "/search/instances?expandAll=true&query=",
        "/instance-bulk/ids?query=",
        "/search/instances/facets?facet=languages&query=",
        "/search/authorities?query=",
        "/item-storage/items?query=",
        "/users?query=",
        "/circulation/loans?query=",
    ];
    let step = Cell::new(0);
    for_all(cql(), |query| {
        let parsed = cql::parse(&query);
        if let Err(e) = &parsed {
            prop_assert!(e.offset <= query.len() && query.is_char_boundary(e.offset));
        }
        // Each query goes to one endpoint, in turn, if it fits in a URL.
        step.set(step.get() + 1);
        let url = format!("{}{}", paths[step.get() % paths.len()], urlencode(&query));
        if url.len() > 60 * 1024 {
            return Ok(());
        }
        let status = block(c.get(&url)).status;
        prop_assert!(
            status == StatusCode::OK || status == StatusCode::BAD_REQUEST,
            "{status} for {}",
            shown(&url)
        );
        if parsed.is_err_and(|e| e.exceeded.is_some()) {
            prop_assert_eq!(status, StatusCode::BAD_REQUEST, "{}", shown(&url));
        }
        Ok(())
    });
    assert_eq!(c.get("/admin/health").await.status, StatusCode::OK);
    assert_eq!(c.count("/instance-storage/instances").await, 2);
}

/// MARC search expressions: terms of every key kind and operator, joined and nested up
/// to ten times the limits, with values up to ten times the length limit.
fn marc_expression() -> impl Strategy<Value = String> {
    // Mostly terms FOLIO accepts, so the evaluation runs; some of every other shape.
    let valid = prop_oneof![
        "[a-z]{1,6}".prop_map(|v| format!("245.a ^= '{v}'")),
        Just("005.date from '20210101'".to_string()),
        Just("005.date in '20200101-20221231'".to_string()),
        Just("035.value is 'present'".to_string()),
        Just("245.ind1 = '1'".to_string()),
        Just("008.07_04 = '1999'".to_string()),
        Just("p_05 = 'c'".to_string()),
        Just("p_06 not= 'a'".to_string()),
    ]
    .boxed();
    let key = prop_oneof![
        Just("245.a".to_string()),
        Just("005.date".to_string()),
        Just("p_05".to_string()),
        Just("999.ff".to_string()),
        "[0-9]{3}\\.[a-z0-9_]{1,6}",
    ];
    let op = prop_oneof![Just("="), Just("^="), Just("not="), Just("from"), Just("in"), Just("~")];
    let odd = |text: BoxedStrategy<String>| {
        (key.clone(), op.clone(), text)
            .prop_map(|(k, op, v)| format!("{k} {op} '{}'", v.replace('\'', "")))
            .boxed()
    };
    // Chains and stairs repeat short terms only; a long one stands alone.
    let short = prop_oneof![6 => valid.clone(), 1 => odd(words().boxed())].boxed();
    let join =
        prop_oneof![4 => Just(" and "), 4 => Just(" or "), 1 => Just(" "), 1 => Just(" and or ")];
    let chain = (short.clone(), join.clone(), up_to_ten_times(limits::MAX_TERMS))
        .prop_map(|(t, j, n)| vec![t; n].join(j));
    let nested = (
        short.clone(),
        up_to_ten_times(limits::MAX_DEPTH),
        prop_oneof![4 => Just(0), 1 => Just(2)],
    )
        .prop_map(|(t, n, extra)| format!("{}{t}{}", "(".repeat(n + extra), ")".repeat(n)));
    let steps = up_to_ten_times(limits::MAX_DEPTH)
        .prop_flat_map(move |n| prop::collection::vec((short.clone(), join.clone()), n));
    let stairs = (steps, valid.clone()).prop_map(|(steps, last)| staircase(&steps, &last));
    prop_oneof![3 => stairs, 2 => chain, 2 => nested, 1 => odd(term().boxed())]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marc_expressions_get_200_or_400() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let path = "/source-storage/stream/marc-record-identifiers";
    let leader = Cell::new(false);
    for_all(marc_expression(), |expression| {
        leader.set(!leader.get());
        let key = if leader.get() { "leaderSearchExpression" } else { "fieldsSearchExpression" };
        let body = serde_json::json!({ key: expression, "limit": 5 });
        let status = block(c.post(path, &body)).status;
        prop_assert!(
            status == StatusCode::OK || status == StatusCode::BAD_REQUEST,
            "{status} for {}",
            shown(&expression)
        );
        Ok(())
    });
    assert_eq!(c.get("/admin/health").await.status, StatusCode::OK);
}

/// Circulation rules files with `policies` (the tenant's own, so a well-formed file is
/// accepted): criteria lines indented up to ten times the limit, odd names, tabs.
fn rules(policies: String) -> impl Strategy<Value = String> {
    let name = prop_oneof![4 => "[a-z0-9-]{1,12}", 1 => Just("!x".to_string()), 1 => words()];
    let letter = prop_oneof![
        4 => Just("g"),
        4 => Just("m"),
        4 => Just("t"),
        4 => Just("s"),
        1 => Just("x"),
    ];
    let rule_policies = policies.clone();
    let indent = prop_oneof![8 => Just(0), 1 => 1..10 * limits::MAX_DEPTH];
    let line = (letter, name, indent, prop::bool::weighted(0.9), prop::bool::weighted(0.05))
        .prop_map(move |(letter, name, indent, has_policies, tab)| {
            let policies = if has_policies { format!(": {rule_policies}") } else { String::new() };
            let indent = if tab { "\t".to_string() } else { " ".repeat(indent) };
            format!("{indent}{letter} {name}{policies}")
        });
    let deepest_policies = policies.clone();
    let staircase = up_to_ten_times(limits::MAX_DEPTH).prop_map(move |n| {
        (0..n).map(|i| format!("{}g grp{i}\n", " ".repeat(i))).collect::<String>()
            + &format!("{}m book: {deepest_policies}", " ".repeat(n))
    });
    let body = prop_oneof![
        prop::collection::vec(line, 0..100).prop_map(|lines| lines.join("\n")),
        staircase,
    ];
    body.prop_map(move |body| format!("priority: last-line\nfallback-policy: {policies}\n{body}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_get_204_or_folios_422() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let text = c.get("/circulation/rules").await.body["rulesAsText"].as_str().unwrap().to_string();
    let fallback = text.lines().find_map(|l| l.strip_prefix("fallback-policy:")).unwrap();
    let accepted = Cell::new(0);
    for_all(rules(fallback.trim().to_string()), |text| {
        let body = serde_json::json!({ "rulesAsText": text });
        let status = block(c.put("/circulation/rules", &body)).status;
        prop_assert!(
            status == StatusCode::NO_CONTENT || status == StatusCode::UNPROCESSABLE_ENTITY,
            "{status} for {}",
            shown(&text)
        );
        accepted.set(accepted.get() + u32::from(status == StatusCode::NO_CONTENT));
        Ok(())
    });
    assert!(accepted.get() > 0, "no generated rules file was well-formed");
    assert_eq!(c.get("/circulation/rules").await.status, StatusCode::OK);
}
