//! Any input: parsing must not panic, errors must point into the input, and
//! the XCQL of every accepted query must read back to the same tree.
//!
//! Run: `cd fuzz && cargo +nightly fuzz run cql_parse`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    match quire_cql::parse(input) {
        Ok(query) => {
            let xcql = query.to_xcql();
            match quire_cql::parse_xcql(&xcql) {
                Ok(reread) => assert_eq!(reread, query, "XCQL round trip changed {input:?}"),
                Err(e) => panic!("XCQL of {input:?} does not read back: {e}\n{xcql}"),
            }
            walk(&query.root);
        }
        Err(e) => {
            assert!(input.is_char_boundary(e.offset), "offset {} outside {input:?}", e.offset);
            assert!(!e.message.is_empty());
        }
    }
});

/// Exercises the term helpers on every clause.
fn walk(node: &quire_cql::Node) {
    match node {
        quire_cql::Node::Search(clause) => {
            let _ = (clause.term_parts(), clause.term_unescaped(), clause.has_masking());
            let _ = clause.relation.kind();
        }
        quire_cql::Node::Boolean { left, right, .. } => {
            walk(left);
            walk(right);
        }
        quire_cql::Node::Prefixed { node, .. } => walk(node),
    }
}
