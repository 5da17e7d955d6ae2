//! Any text as a CQL query against a small instance index and authority index: search,
//! count, facets and the id stream must not panic, and every failure must be the
//! caller's (a 4xx), never the system's. Long chains and deep nesting are what the
//! query limits bound; run with a `-max_len` past them to try both sides.
//!
//! Run: `cd fuzz && cargo +nightly fuzz run search_query -- -max_len=8192`.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

struct Fixture {
    _dir: tempfile::TempDir,
    tenant: std::sync::Arc<store::Tenant>,
    instances: search::InstanceIndex,
    authorities: search::AuthorityIndex,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let store =
            store::Store::open(dir.path(), store::Options::default(), &[inventory::MIGRATIONS])
                .unwrap();
        let (tenant, _) = store.create_tenant("fuzz").unwrap();
        tenant.write(inventory::load_reference_data).unwrap();
        for (idx, title) in ["The semantic web primer", "Semantic fields", "A primer"].iter().enumerate() {
            let body = serde_json::json!({
                "hrid": format!("in{idx:011}"), "source": "FOLIO", "title": title,
                "instanceTypeId": "6312d172-f0cf-40f6-b27d-9fa8feaf332f",
                "languages": ["eng"], "subjects": [{"value": "Semantics"}],
            });
            tenant
                .write(|w| {
                    inventory::create::<inventory::Instance>(
                        w,
                        body.to_string().as_bytes(),
                        folio::Actor::default(),
                    )
                })
                .unwrap();
        }
        let instances = search::InstanceIndex::open(&tenant).unwrap();
        instances.catch_up(&tenant).unwrap();
        let authorities = search::AuthorityIndex::open(&tenant).unwrap();
        Fixture { _dir: dir, tenant, instances, authorities }
    })
}

fn caller_at_fault<T>(result: Result<T, search::Error>, query: &str) {
    if let Err(e) = result {
        assert!(e.is_client_error(), "{query:?}: {e}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(query) = std::str::from_utf8(data) else {
        return;
    };
    let f = fixture();
    caller_at_fault(f.instances.count(query), query);
    let request = search::SearchRequest { expand_all: data.len() % 2 == 0, ..search::SearchRequest::new(query) };
    caller_at_fault(f.instances.search(&f.tenant, &request), query);
    let facets = [search::FacetRequest::parse("languages").unwrap()];
    caller_at_fault(f.instances.facets(query, &facets), query);
    let mut n = 0u64;
    let streamed = f.instances.stream_ids(query, |_| {
        n += 1;
        std::ops::ControlFlow::Continue(())
    });
    caller_at_fault(streamed, query);
    let request = search::AuthoritySearchRequest::new(query);
    caller_at_fault(f.authorities.search(&request, Some(&f.instances)), query);
});
