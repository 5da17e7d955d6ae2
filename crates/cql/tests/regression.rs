//! cql-java's regression corpus: every query `NN/MM.cql` must give exactly the
//! XCQL in `NN/MM.xcql`, or, where that file holds an error message instead
//! of XML, be rejected with exactly that message.

use std::fs;
use std::path::{Path, PathBuf};

use quire_cql as cql;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/reference/cql-regression")
}

/// Every `(query file, expected file)` pair, in order.
fn pairs() -> Vec<(PathBuf, PathBuf)> {
    let mut pairs = Vec::new();
    let mut sections: Vec<_> = fs::read_dir(corpus_dir())
        .expect("the regression corpus is at shared/reference/cql-regression")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    sections.sort();
    for section in sections {
        let mut queries: Vec<_> = fs::read_dir(&section)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "cql"))
            .collect();
        queries.sort();
        for query in queries {
            let expected = query.with_extension("xcql");
            pairs.push((query, expected));
        }
    }
    pairs
}

#[test]
fn every_regression_pair_matches() {
    let pairs = pairs();
    assert_eq!(pairs.len(), 92, "the corpus has 92 pairs in 12 sections");
    let mut failures = Vec::new();
    let mut n_rejected = 0;
    for (query_path, expected_path) in &pairs {
        let query = fs::read_to_string(query_path).unwrap();
        let expected = fs::read_to_string(expected_path).unwrap();
        let actual = match cql::parse(&query) {
            Ok(parsed) => parsed.to_xcql(),
            Err(e) => {
                n_rejected += 1;
                // Error files hold the message and a newline.
                format!("{}\n", e.message)
            }
        };
        if actual != expected {
            failures.push(format!(
                "{}: query {query:?}\n--- expected\n{expected}--- actual\n{actual}",
                query_path.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} pairs differ:\n{}",
        failures.len(),
        pairs.len(),
        failures.join("\n")
    );
    // Section 11 holds the failures; its last pair is a query cql-java
    // accepts despite the section's name (a prefix after a boolean).
    assert_eq!(n_rejected, 7);
}

#[test]
fn xcql_of_every_corpus_query_reads_back_to_the_same_tree() {
    for (query_path, _) in pairs() {
        let query = fs::read_to_string(&query_path).unwrap();
        if let Ok(parsed) = cql::parse(&query) {
            assert_eq!(cql::parse_xcql(&parsed.to_xcql()), Ok(parsed), "{}", query_path.display());
        }
    }
}
