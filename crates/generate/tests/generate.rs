//! The generator is deterministic for a seed and keeps FOLIO's proportions.

use std::collections::BTreeMap;

fn generated(
    seed: u64,
    n: usize,
) -> (generate::GenerateReport, BTreeMap<String, String>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(
        dir.path(),
        store::testing::options(),
        &[auth::MIGRATIONS, inventory::MIGRATIONS, srs::MIGRATIONS, circ::MIGRATIONS],
    )
    .unwrap();
    let (tenant, _) = store.create_tenant("gen").unwrap();
    tenant.write(inventory::load_reference_data).unwrap();
    tenant.write(auth::seed_groups).unwrap();
    tenant.write(circ::seed).unwrap();
    let options = generate::GenerateOptions {
        instances: n,
        seed,
        batch_size: 500,
        corpus: Some(corpus()),
        authority_records: authority_records(),
        ..generate::GenerateOptions::default()
    };
    let mut calls = 0;
    let report = generate::generate(&tenant, &options, &mut |_| calls += 1).unwrap();
    assert_eq!(calls, n.div_ceil(500), "progress after each batch");
    // Every record, without the metadata dates that say when it was written.
    let mut records = BTreeMap::new();
    tenant
        .read(|r| {
            let all = store::Page { offset: 0, limit: u64::MAX >> 1 };
            let (bibs, _) = srs::list(r, &srs::RecordFilter::default(), all).unwrap();
            for bib in bibs {
                // The MARC, and the instance it belongs to, without the write time.
                let value = serde_json::to_value(&bib).unwrap();
                let marc = &value["parsedRecord"]["content"];
                let holder = &value["externalIdsHolder"];
                // FOLIO keeps the instance's HRID in 001.
                let f001 = marc["fields"].as_array().unwrap().iter().find_map(|f| f.get("001"));
                assert_eq!(f001, Some(&holder["instanceHrid"]), "{holder}");
                records.insert(format!("s:{}", value["id"]), format!("{marc} {holder}"));
            }
            let (authorities, _) = inventory::list_json::<inventory::Authority>(r, None, all)?;
            for body in authorities {
                let mut value: serde_json::Value = serde_json::from_str(&body).unwrap();
                value.as_object_mut().unwrap().remove("metadata");
                records.insert(format!("a:{}", value["id"]), value.to_string());
            }
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
            let loans = circ::list_json::<circ::model::Loan>(r, None, all).unwrap().0;
            let requests = circ::list_json::<circ::model::Request>(r, None, all).unwrap().0;
            for (key, body) in
                loans.iter().map(|b| ("l", b)).chain(requests.iter().map(|b| ("r", b)))
            {
                let mut value: serde_json::Value = serde_json::from_str(body).unwrap();
                value.as_object_mut().unwrap().remove("metadata");
                records.insert(format!("{key}:{}", value["id"]), value.to_string());
            }
            Ok::<_, inventory::Error>(())
        })
        .unwrap();
    (report, records, dir)
}

fn shared_marc(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/marc").join(name)
}

/// Real bibliographic records to derive from (the LC corpus stands in for them in
/// `quire generate`; the 62 Cornell exemplars and 100 FOLIO test records keep this fast).
fn corpus() -> std::sync::Arc<generate::marc_bibs::LcCorpus> {
    let mut bytes = std::fs::read(shared_marc("100.mrc")).unwrap();
    bytes.extend(std::fs::read(shared_marc("CornellFOLIOExemplars.mrc")).unwrap());
    std::sync::Arc::new(generate::marc_bibs::LcCorpus::from_bytes(bytes).unwrap())
}

fn authority_records() -> std::sync::Arc<Vec<marc::Record>> {
    let file = std::fs::File::open(shared_marc("2500.mrc")).unwrap();
    std::sync::Arc::new(
        marc::Reader::new(std::io::BufReader::new(file)).map(Result::unwrap).collect(),
    )
}

#[test]
fn same_seed_same_records_and_folio_proportions() {
    let (a, records_a, _dir_a) = generated(7, 3000);
    let (b, records_b, _dir_b) = generated(7, 3000);
    let circulation = &a.circulation;
    assert_eq!(
        records_a.len(),
        a.instances
            + a.holdings
            + a.items
            + a.marc_records
            + a.authorities
            + circulation.open_loans
            + circulation.requests
    );
    assert!(records_a == records_b, "two runs with one seed differ");
    assert_eq!((a.instances, a.holdings, a.items), (b.instances, b.holdings, b.items));
    let (_, records_c, _dir_c) = generated(8, 300);
    assert!(records_c.keys().all(|k| !records_a.contains_key(k)), "another seed, other ids");

    let per = |n: usize| n as f64 / a.instances as f64;
    assert!((per(a.holdings) - 1.07).abs() < 0.02, "holdings per instance {}", per(a.holdings));
    assert!((per(a.items) - 1.22).abs() < 0.04, "items per instance {}", per(a.items));
    assert!(per(a.suppressed_instances) > 0.005 && per(a.suppressed_instances) < 0.05);
    // Languages come from the word-list shares and, for MARC instances, from the real
    // records' 008: nearly every instance has one, English the most common.
    let with_language: usize = a.languages.values().sum();
    assert!(per(with_language) > 0.9, "{:?}", a.languages);
    let top = a.languages.iter().max_by_key(|(_, n)| **n).unwrap();
    assert_eq!(top.0, "eng", "{:?}", a.languages);
    let available = a.items_available as f64 / a.items as f64;
    assert!(available > 0.75 && available < 0.9, "{available}");
    assert!(a.users >= 150);
    // MARC-sourced instances, each with its source record, in the configured share.
    assert!((per(a.marc_records) - 0.9).abs() < 0.03, "MARC share {}", per(a.marc_records));
    assert_eq!(a.authorities, 300, "one authority per ten instances");
    let sources =
        records_a.iter().filter(|(k, v)| k.starts_with("i:") && v.contains(r#""source":"MARC""#));
    assert_eq!(sources.count(), a.marc_records);
    // Every item Checked out has its open loan, under the policy the generated rules
    // choose; a share of them have holds and recalls queued, as in the PTF seed data.
    let checked_out = records_a
        .iter()
        .filter(|(k, v)| k.starts_with("t:") && v.contains(r#""name":"Checked out""#))
        .count();
    assert_eq!(circulation.open_loans, checked_out);
    assert!(circulation.rules_replaced);
    let queued = circulation.queued_items as f64 / circulation.open_loans as f64;
    assert!((0.2..0.4).contains(&queued), "queued share {queued}");
    assert!(circulation.requests > circulation.queued_items);
    assert!(circulation.overdue_loans > 0);
    let loans: Vec<serde_json::Value> = records_a
        .iter()
        .filter(|(k, _)| k.starts_with("l:"))
        .map(|(_, v)| serde_json::from_str(v).unwrap())
        .collect();
    let faculty_loans = loans
        .iter()
        .filter(|l| l["patronGroupIdAtCheckout"] == "503a81cd-6c26-400f-b620-14c08943697c")
        .count();
    assert!(faculty_loans > 0);
    // Reading-room copies are not loanable under the generated rules: none is on loan.
    let non_circulating = "6f5f1a43-3c1e-4b2a-9a7e-0c3a5d1b2e03";
    assert!(loans.iter().all(|l| l["loanPolicyId"] != non_circulating));
    for loan in loans
        .iter()
        .filter(|l| l["patronGroupIdAtCheckout"] == "503a81cd-6c26-400f-b620-14c08943697c")
    {
        // A faculty loan of an ordinary item is a semester loan (rule `g faculty`).
        let policy = loan["loanPolicyId"].as_str().unwrap();
        assert_ne!(policy, circ::DEFAULT_LOAN_POLICY_ID, "{loan}");
    }
    let summary = a.summary();
    assert!(summary.contains("3000 instances") && summary.contains("per instance"), "{summary}");
}
