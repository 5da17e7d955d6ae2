//! Differential test against Index Data's YAZ CQL parser.
//!
//! Runs only when `QUIRE_YAZ_ORACLE` names the compiled oracle
//! (`shared/tools/cql2xcql.c`); `scripts/cql-differential.sh` builds it and
//! runs this test. Without the variable the tests say they were skipped.
//!
//! Queries: FOLIO's load-test mix (every template with every value of its word
//! file) and mod-search's conformance queries, then `QUIRE_CQL_DIFF_QUERIES`
//! (default 100,000) random queries from seed `QUIRE_CQL_DIFF_SEED` (default
//! 1). A query agrees when both parsers reject it, or both accept it and
//! their XCQL is equal in canonical form (`canon.rs`). A disagreement is
//! explained only by a documented difference (crates/cql/README.md), checked
//! by a rewrite (`rewrite.rs`) or, for modifier names, by Quire's message.
//! Any other disagreement fails the test.

mod canon;
mod folio;
mod generate;
mod oracle;
mod rewrite;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use quire_cql as cql;

/// Writes past the test harness's output capture, so CI logs show it.
fn say(message: &str) {
    let _ = writeln!(std::io::stderr(), "{message}");
}

fn oracle() -> Option<PathBuf> {
    let oracle = std::env::var_os("QUIRE_YAZ_ORACLE").map(PathBuf::from);
    if oracle.is_none() {
        say(
            "cql differential test SKIPPED: QUIRE_YAZ_ORACLE is not set (run scripts/cql-differential.sh)",
        );
    }
    oracle
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{name}={v} is not a number")))
}

/// What happened to one query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    BothAccept,
    BothReject,
    /// Explained by the named documented difference.
    Explained(&'static str),
    Unexplained,
}

#[derive(Default)]
struct Tally {
    counts: BTreeMap<Outcome, usize>,
    examples: Vec<String>,
    explained_examples: BTreeMap<&'static str, String>,
}

impl Tally {
    fn summary(&self) -> String {
        self.counts
            .iter()
            .map(|(outcome, n)| format!("{outcome:?}: {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Compares Quire with YAZ on `queries`, with one more oracle run for the
/// rewritten queries of disagreements.
fn compare(oracle: &std::path::Path, queries: &[String]) -> Tally {
    let answers = oracle::run(oracle, queries);
    let mut tally = Tally::default();
    let mut retry: Vec<(usize, String, canon::Element, &'static str)> = Vec::new();
    for (i, (query, yaz)) in queries.iter().zip(&answers).enumerate() {
        let quire = cql::parse(query);
        if let Ok(parsed) = &quire {
            assert_eq!(
                cql::parse_xcql(&parsed.to_xcql()).as_ref(),
                Ok(parsed),
                "XCQL round trip of {query:?}"
            );
        }
        let outcome = match (&quire, yaz) {
            (Err(_), None) => Outcome::BothReject,
            (Ok(parsed), Some(yaz)) if canon::quire(&parsed.to_xcql()) == canon::yaz(yaz) => {
                Outcome::BothAccept
            }
            (Err(e), Some(_))
                if ["string", "and", "or", "not", "prox", "sortby"]
                    .iter()
                    .any(|got| e.message.starts_with(&format!("expected modifier, got {got}"))) =>
            {
                Outcome::Explained("modifier names")
            }
            // YAZ stops reading after a complete sort key and ignores the
            // rest (its parser sets the result before it sees the junk).
            (Err(e), Some(yaz)) if e.message.starts_with("expected sort index") => {
                match cql::parse(&query[..e.offset]) {
                    Ok(truncated) if canon::quire(&truncated.to_xcql()) == canon::yaz(yaz) => {
                        Outcome::Explained("junk after sort keys")
                    }
                    _ => Outcome::Unexplained,
                }
            }
            (Ok(parsed), _) => {
                let mut rewritten = query.clone();
                let mut label = "";
                if let Some(r) = rewrite::parenthesise_prefixes(&rewritten) {
                    rewritten = r;
                    label = "prefix placement";
                }
                if let Some(r) = rewrite::quote_late_relation_words(&rewritten) {
                    rewritten = r;
                    label = if label.is_empty() {
                        "late relation words"
                    } else {
                        "prefix placement + late relation words"
                    };
                }
                if label.is_empty() {
                    Outcome::Unexplained
                } else {
                    retry.push((i, rewritten, canon::quire(&parsed.to_xcql()), label));
                    continue;
                }
            }
            _ => Outcome::Unexplained,
        };
        record(&mut tally, outcome, query, &quire, yaz.as_deref());
    }
    let rewritten: Vec<String> = retry.iter().map(|(_, r, _, _)| r.clone()).collect();
    let answers_rewritten =
        if rewritten.is_empty() { Vec::new() } else { oracle::run(oracle, &rewritten) };
    for ((i, rewritten, quire_canon, label), yaz) in retry.into_iter().zip(answers_rewritten) {
        let query = &queries[i];
        let agrees = yaz.as_deref().is_some_and(|yaz| canon::yaz(yaz) == quire_canon);
        let outcome = if agrees { Outcome::Explained(label) } else { Outcome::Unexplained };
        if agrees {
            tally
                .explained_examples
                .entry(label)
                .or_insert_with(|| format!("{query}  =>  {rewritten}"));
        }
        record(&mut tally, outcome, query, &cql::parse(query), answers[i].as_deref());
    }
    tally
}

fn record(
    tally: &mut Tally,
    outcome: Outcome,
    query: &str,
    quire: &cql::Result<cql::Query>,
    yaz: Option<&str>,
) {
    *tally.counts.entry(outcome).or_default() += 1;
    if let Outcome::Explained(label) = outcome {
        tally.explained_examples.entry(label).or_insert_with(|| query.to_owned());
    }
    if outcome == Outcome::Unexplained && tally.examples.len() < 10 {
        let quire = match quire {
            Ok(parsed) => canon::quire(&parsed.to_xcql()).render(),
            Err(e) => format!("ERROR: {e}\n"),
        };
        let yaz = yaz.map_or_else(|| "ERROR\n".to_owned(), |yaz| canon::yaz(yaz).render());
        tally.examples.push(format!(
            "query: {query}\n--- Quire (canonical)\n{quire}--- YAZ (canonical)\n{yaz}"
        ));
    }
}

fn check(name: &str, oracle: &std::path::Path, queries: &[String]) {
    let started = Instant::now();
    let tally = compare(oracle, queries);
    say(&format!(
        "cql differential, {name}: {} queries in {:.1?}; {}",
        queries.len(),
        started.elapsed(),
        tally.summary()
    ));
    for (label, example) in &tally.explained_examples {
        say(&format!("  documented difference \"{label}\", e.g. {example}"));
    }
    assert!(
        tally.examples.is_empty(),
        "{name}: {} unexplained disagreements; first ones:\n\n{}",
        tally.counts.get(&Outcome::Unexplained).unwrap_or(&0),
        tally.examples.join("\n")
    );
}

#[test]
fn folio_queries_agree_with_yaz() {
    let Some(oracle) = oracle() else { return };
    let seed = env_number("QUIRE_CQL_DIFF_SEED", 1);
    let mut queries = folio::load_test_queries(usize::MAX, seed);
    queries.extend(folio::conformance_queries());
    check("FOLIO load-test mix and conformance queries", &oracle, &queries);
}

#[test]
fn random_queries_agree_with_yaz() {
    let Some(oracle) = oracle() else { return };
    let seed = env_number("QUIRE_CQL_DIFF_SEED", 1);
    let n_queries = env_number("QUIRE_CQL_DIFF_QUERIES", 100_000) as usize;
    let mut rng = generate::Rng::new(seed);
    let queries: Vec<String> =
        (0..n_queries).map(|_| generate::Generator::new(&mut rng).query()).collect();
    check(&format!("random queries (seed {seed})"), &oracle, &queries);
}

/// Each documented difference, pinned: if YAZ or Quire changes, this fails
/// and README.md needs updating.
#[test]
fn documented_differences_hold() {
    let Some(oracle) = oracle() else { return };
    // (query, Quire accepts, YAZ accepts, what the difference is)
    let cases: &[(&str, bool, bool)] = &[
        // Late relation-like words in a multi-word term.
        ("a b any c", true, false),
        ("keyword all Curious among any", true, false),
        ("a b c.d", true, false),
        // within and encloses are relations to cql-java only.
        ("title within x", true, true),
        ("title encloses x", true, true),
        // Prefix assignments after a boolean or a relation.
        (r#""fish" and > illegal="urn:x" "chips""#, true, false),
        ("x = >a=b c", true, false),
        // Quoted or keyword modifier names.
        (r#"a =/"x" b"#, false, true),
        ("a and/or b", false, true),
        // A backslash before a delimiter in an unquoted word.
        (r"a\(b", false, true),
        (r"a\=b", true, true),
        // Tab and CR split words in cql-java; FF and VT do not.
        ("a\tb", true, true),
        ("a \u{c}b", true, true),
        // Unterminated strings.
        (r#"a "b"#, false, true),
        (r#""b\"#, false, true),
    ];
    let queries: Vec<String> = cases.iter().map(|(q, _, _)| q.to_string()).collect();
    let answers = oracle::run(&oracle, &queries);
    for ((query, quire_accepts, yaz_accepts), yaz) in cases.iter().zip(&answers) {
        let quire = cql::parse(query);
        assert_eq!(quire.is_ok(), *quire_accepts, "Quire on {query:?}: {quire:?}");
        assert_eq!(yaz.is_some(), *yaz_accepts, "YAZ on {query:?}: {yaz:?}");
        if let (Ok(parsed), Some(yaz)) = (&quire, yaz) {
            assert_ne!(
                canon::quire(&parsed.to_xcql()),
                canon::yaz(yaz),
                "{query:?} is no longer a difference"
            );
        }
    }
}
