//! Any text as a MARC search expression, leader or fields, against a small MARC index:
//! no panic, and every failure is an expression error (FOLIO's 400) pointing into the
//! expression. Long chains and deep parentheses are what the query limits bound.
//!
//! Run: `cd fuzz && cargo +nightly fuzz run marc_expression -- -max_len=8192`.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

struct Fixture {
    _dir: tempfile::TempDir,
    index: srs::MarcIndex,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(dir.path(), store::Options::default(), &[srs::MIGRATIONS])
            .unwrap();
        let (tenant, _) = store.create_tenant("fuzz").unwrap();
        let tag = |t: &str| marc::Tag::new(t).unwrap();
        let bibs: Vec<srs::NewBib> = (0..3u128)
            .map(|i| {
                let mut record =
                    marc::Record::new(marc::Leader::new("00000cam a2200000 a 4500").unwrap());
                record.push(marc::Field::control(tag("005"), "20210315120000.0").unwrap());
                let title = format!("Title {i}");
                record.push(marc::Field::data(tag("245"), '1', '0', [('a', title.as_str())]).unwrap());
                srs::NewBib {
                    id: None,
                    marc: record,
                    instance_id: uuid::Uuid::from_u128(i + 1),
                    instance_hrid: format!("in{i}"),
                    snapshot_id: uuid::Uuid::nil(),
                    suppress_discovery: false,
                    state: srs::State::Actual,
                }
            })
            .collect();
        tenant
            .write(|w| {
                let snapshot_id = srs::ensure_generated_snapshot(w)?;
                srs::put_marc_bibs(w, bibs.into_iter().map(|b| srs::NewBib { snapshot_id, ..b }))
            })
            .unwrap();
        let index = srs::MarcIndex::open(&tenant).unwrap();
        Fixture { _dir: dir, index }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(expression) = std::str::from_utf8(data) else {
        return;
    };
    let f = fixture();
    for leader in [true, false] {
        let mut request = srs::SearchRequest::default();
        if leader {
            request.leader_search_expression = Some(expression.to_string());
        } else {
            request.fields_search_expression = Some(expression.to_string());
        }
        match f.index.search(&request) {
            Ok(found) => assert!(found.ids.len() as u64 <= found.total),
            Err(srs::Error::Expression(e)) => {
                assert!(e.offset <= expression.len(), "{expression:?}: {e:?}");
                assert!(!e.message.is_empty());
            }
            Err(e) => panic!("{expression:?}: not the caller's fault: {e}"),
        }
    }
});
