//! The generator is deterministic for a seed and keeps FOLIO's proportions.

use std::collections::BTreeMap;

fn generated(
    seed: u64,
    n: usize,
) -> (load::GenerateReport, BTreeMap<String, String>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(
        dir.path(),
        store::Options::default(),
        &[auth::MIGRATIONS, inventory::MIGRATIONS],
    )
    .unwrap();
    let (tenant, _) = store.create_tenant("gen").unwrap();
    tenant.write(inventory::load_reference_data).unwrap();
    let options = load::GenerateOptions { instances: n, seed, batch_size: 500 };
    let mut calls = 0;
    let report = load::generate(&tenant, &options, &mut |_| calls += 1).unwrap();
    assert_eq!(calls, n.div_ceil(500), "progress after each batch");
    // Every record, without the metadata dates that say when it was written.
    let mut records = BTreeMap::new();
    tenant
        .read(|r| {
            for (table, key) in [("instance", "i"), ("holdings", "h"), ("item", "t")] {
                let page = store::Page { offset: 0, limit: u64::MAX >> 1 };
                let (bodies, _) = match table {
                    "instance" => inventory::list_json::<inventory::Instance>(r, None, page)?,
                    "holdings" => inventory::list_json::<inventory::HoldingsRecord>(r, None, page)?,
                    _ => inventory::list_json::<inventory::Item>(r, None, page)?,
                };
                for body in bodies {
                    let mut value: serde_json::Value = serde_json::from_str(&body).unwrap();
                    value.as_object_mut().unwrap().remove("metadata");
                    records.insert(format!("{key}:{}", value["id"]), value.to_string());
                }
            }
            Ok::<_, inventory::Error>(())
        })
        .unwrap();
    (report, records, dir)
}

#[test]
fn same_seed_same_records_and_folio_proportions() {
    let (a, records_a, _dir_a) = generated(7, 3000);
    let (b, records_b, _dir_b) = generated(7, 3000);
    assert_eq!(records_a.len(), a.instances + a.holdings + a.items);
    assert!(records_a == records_b, "two runs with one seed differ");
    assert_eq!((a.instances, a.holdings, a.items), (b.instances, b.holdings, b.items));
    let (_, records_c, _dir_c) = generated(8, 300);
    assert!(records_c.keys().all(|k| !records_a.contains_key(k)), "another seed, other ids");

    let per = |n: usize| n as f64 / a.instances as f64;
    assert!((per(a.holdings) - 1.07).abs() < 0.02, "holdings per instance {}", per(a.holdings));
    assert!((per(a.items) - 1.22).abs() < 0.04, "items per instance {}", per(a.items));
    assert!(per(a.suppressed_instances) > 0.005 && per(a.suppressed_instances) < 0.05);
    assert!(per(a.languages["eng"]) > 0.55 && per(a.languages["eng"]) < 0.75);
    let available = a.items_available as f64 / a.items as f64;
    assert!(available > 0.75 && available < 0.9, "{available}");
    assert!(a.users >= 150);
    let summary = a.summary();
    assert!(summary.contains("3000 instances") && summary.contains("per instance"), "{summary}");
}
