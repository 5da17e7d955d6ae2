//! FOLIO's own search conformance cases (mod-search's
//! `instance-search-test-queries.csv`) against its sample records, stored through the
//! inventory storage verbs and indexed by the follower's code path.
//!
//! Adjustments to the samples, each because Quire's typed models or reference data
//! differ from mod-search's test fixtures:
//! - `tenantId` and `isBoundWith` are removed from the instance: they are search-side
//!   fields, not inventory-storage properties (Quire's model rejects them). `tenantId`
//!   is indexed from the tenant's name, `isBoundWith` as `false`.
//! - `holdingsItems` and `bareHoldingsItems` are removed from holdings (not in the
//!   storage schema), and the holdings record without a `sourceId` (required) gets
//!   FOLIO's "FOLIO" holdings source.
//! - mod-search's tests mock reference data: identifier types `c3c651c7…` (OCLC),
//!   `82fb97e1…` (Cancelled OCLC) and `3fb87c8e…` (Canceled LCCN) are installed under
//!   those ids, replacing the seed records of the same names; the alternative title
//!   type `9d968396…` ("Uniform Title" in the mock) is rewritten to FOLIO's standard
//!   Uniform Title type id, the one Quire recognises.
//! - 22 rows query values that are in mod-search's own sample set but in none of the
//!   records here, and rows expecting instances `00000001…` and `00000014…` refer to
//!   sample records not in this directory. Minimal stand-ins carry exactly those values:
//!   instances `00000001…` (hrid `in00010000001`, title "Applied Linguistic Theory") and
//!   `00000014…` (dates `198u`/`1333`); a subject with authority `4d56bbff…` on
//!   `00000008…`; a holdings record `e3ff6133…` with the link text "Catalog link text"
//!   and an item `7212ba6a…` with hrid `it000100000015` under `00000008…`.
//!
//! Each query must find exactly its expected instance (FOLIO's test only asks that it
//! is among the hits), so over-matching fails too.

use std::path::Path;

use folio::Actor;
use inventory::{HoldingsRecord, Instance, Item, RefKind};
use search::{InstanceIndex, SearchRequest};
use serde_json::{Value, json};

const SAMPLES: &str = "../../../shared/reference/mod-search-conformance";

/// Rows that do not pass, with the reason. Kept in step with crates/search/README.md.
const DEVIATIONS: &[(u32, &str)] = &[];

fn read(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLES).join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn decode<T: serde::de::DeserializeOwned>(value: &Value) -> T {
    match folio::decode::<T>(value.to_string().as_bytes()) {
        Ok(v) => v,
        Err(e) => panic!("sample does not decode: {e:?}\n{value}"),
    }
}

/// Parses the CSV (quoted fields, `""` escapes) into (case, query) pairs.
fn cases() -> Vec<(u32, String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(SAMPLES)
        .join("instance-search-test-queries.csv");
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let mut fields = Vec::new();
        let mut field = String::new();
        let mut quoted = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, quoted) {
                ('"', true) if chars.peek() == Some(&'"') => {
                    field.push('"');
                    chars.next();
                }
                ('"', _) => quoted = !quoted,
                (',', false) => fields.push(std::mem::take(&mut field)),
                (c, _) => field.push(c),
            }
        }
        fields.push(field);
        let [case, template, value, expected] = fields.try_into().unwrap();
        out.push((case.parse().unwrap(), template.replace("{value}", &value), expected));
    }
    out
}

fn load(tenant: &store::Tenant) {
    let actor = Actor::default();
    tenant
        .write(|w| {
            inventory::load_reference_data(w)?;
            let mocks = [
                ("c3c651c7-96b4-416c-a1af-17146ce0a409", "OCLC"),
                ("82fb97e1-1f1d-4e0e-8f4a-4bd6e4e5d3a2", "Cancelled OCLC"),
                ("3fb87c8e-d0d2-4c3a-821a-b481f32f48a9", "Canceled LCCN"),
            ];
            for (id, name) in mocks {
                if let Some(seed) =
                    inventory::reference_id_by_name(w, RefKind::IdentifierType, name)?
                {
                    inventory::delete_reference(w, RefKind::IdentifierType, seed)?;
                }
                let body = json!({"id": id, "name": name, "source": "folio"}).to_string();
                inventory::create_reference(w, RefKind::IdentifierType, body.as_bytes(), actor)?;
            }
            Ok::<_, inventory::Error>(())
        })
        .unwrap();

    let mut instance = read("instance.json");
    let object = instance.as_object_mut().unwrap();
    object.remove("tenantId");
    object.remove("isBoundWith");
    for title in object["alternativeTitles"].as_array_mut().unwrap() {
        if title["alternativeTitleTypeId"] == "9d968396-0cce-4e9f-8867-c4d04c01f535" {
            title["alternativeTitleTypeId"] = json!("30512027-cdc9-4c79-af75-1565b3bd888d");
        }
    }
    // The identifier with the Cancelled OCLC mock id in the sample.
    for identifier in object["identifiers"].as_array_mut().unwrap() {
        if identifier["identifierTypeId"].as_str().unwrap().starts_with("82fb97e1") {
            identifier["identifierTypeId"] = json!("82fb97e1-1f1d-4e0e-8f4a-4bd6e4e5d3a2");
        }
    }
    object["subjects"].as_array_mut().unwrap().push(
        json!({"value": "Stand-in subject", "authorityId": "4d56bbff-f18c-45de-bf87-2dcbfad3b821"}),
    );
    let stand_ins = [
        json!({"id": "00000001-0000-4000-8000-000000000000", "hrid": "in00010000001",
               "source": "FOLIO", "title": "Applied Linguistic Theory",
               "instanceTypeId": "6312d172-f0cf-40f6-b27d-9fa8feaf332f"}),
        json!({"id": "00000014-0000-4000-8000-000000000000", "source": "MARC",
               "title": "Stand-in for dates", "dates": {"date1": "198u", "date2": "1333"},
               "instanceTypeId": "6312d172-f0cf-40f6-b27d-9fa8feaf332f"}),
    ];
    let mut instances: Vec<Instance> = vec![decode(&instance)];
    instances.extend(stand_ins.iter().map(decode::<Instance>));

    let holdings: Vec<HoldingsRecord> = read("holdings.json")
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let mut h = h.clone();
            let o = h.as_object_mut().unwrap();
            o.remove("holdingsItems");
            o.remove("bareHoldingsItems");
            o.entry("sourceId").or_insert(json!("f32d531e-df79-46b3-8932-cdd35f7a2264"));
            decode(&h)
        })
        .collect();
    let mut holdings = holdings;
    holdings.push(decode(&json!({
        "id": "e3ff6133-b9a2-4d4c-a1c9-dc1867d4df19",
        "instanceId": "00000008-0000-4000-8000-000000000000",
        "sourceId": "f32d531e-df79-46b3-8932-cdd35f7a2264",
        "permanentLocationId": "fcd64ce1-6995-48f0-840e-89ffa2288371",
        "electronicAccess": [{"uri": "https://catalog.example.org/x", "linkText": "Catalog link text"}]
    })));
    let mut items: Vec<Item> = read("items.json").as_array().unwrap().iter().map(decode).collect();
    items.push(decode(&json!({
        "id": "7212ba6a-8dcf-45a1-be9a-ffaa847c4423",
        "hrid": "it000100000015",
        "holdingsRecordId": "e3ff6133-b9a2-4d4c-a1c9-dc1867d4df19",
        "status": {"name": "Checked out"},
        "materialTypeId": "1a54b431-2e4f-452d-9cae-9cee66c9a892",
        "permanentLoanTypeId": "2b94c631-fca9-4892-a730-03ee529ffe27"
    })));
    tenant
        .write(|w| {
            inventory::save_batch(w, instances, false, actor)?;
            inventory::save_batch(w, holdings, false, actor)?;
            inventory::save_batch(w, items, false, actor)?;
            Ok::<_, inventory::Error>(())
        })
        .unwrap();
}

#[test]
fn folio_conformance_cases() {
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(dir.path(), store::testing::options(), &[inventory::MIGRATIONS])
        .unwrap();
    let (tenant, _) = store.create_tenant("test_tenant").unwrap();
    // An empty index first, then the records through the change log, as in production.
    let index = InstanceIndex::open(&tenant).unwrap();
    load(&tenant);
    index.catch_up(&tenant).unwrap();

    let mut failures = Vec::new();
    let cases = cases();
    for (case, query, expected) in &cases {
        let result = index
            .search(&tenant, &SearchRequest { limit: 100, ..SearchRequest::new(query.as_str()) });
        let outcome = match result {
            Ok(found)
                if found.total_records == 1
                    && found.instances.iter().any(|i| i.contains(expected.as_str())) =>
            {
                continue;
            }
            Ok(found) => format!("{} hits, not the expected {expected}", found.total_records),
            Err(e) => format!("error: {e}"),
        };
        failures.push(format!("{case}: {query} => {outcome}"));
    }
    let unexpected: Vec<&String> = failures
        .iter()
        .filter(|f| {
            let case: u32 = f.split(':').next().unwrap().parse().unwrap();
            !DEVIATIONS.iter().any(|(c, _)| *c == case)
        })
        .collect();
    println!("{} of {} cases pass", cases.len() - failures.len(), cases.len());
    assert!(
        unexpected.is_empty(),
        "{} unexpected failures:\n{}",
        unexpected.len(),
        failures.join("\n")
    );
    // Every documented deviation still deviates, so the list stays honest.
    assert_eq!(failures.len(), DEVIATIONS.len(), "{}", failures.join("\n"));
}
