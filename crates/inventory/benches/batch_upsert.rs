//! Batch upsert throughput: instances per second written through `save_batch` (FOLIO's
//! `/instance-storage/batch/synchronous`), one transaction per batch of 1,000.
//!
//! `cargo bench -p quire-inventory --bench batch_upsert`

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;

fn instance(n: u128, instance_type: uuid::Uuid) -> inventory::Instance {
    serde_json::from_value(json!({
        "id": uuid::Uuid::from_u128(n),
        "source": "MARC",
        "title": format!("The collected works of author {n}: a study of libraries, catalogues and their readers"),
        "instanceTypeId": instance_type,
        "languages": ["eng"],
        "identifiers": [{"value": format!("978{n:010}"), "identifierTypeId": "8261054f-be78-422d-bd51-4ed9f33c3422"}],
        "contributors": [{"name": format!("Author, Number {n}"), "contributorNameTypeId": "2b94c631-fca9-4892-a730-03ee529ffe2a", "primary": true}],
        "subjects": [{"value": "Libraries -- History"}, {"value": "Cataloging"}],
        "publication": [{"publisher": "Quire Press", "place": "Chicago", "dateOfPublication": "2001"}],
        "physicalDescriptions": ["xii, 345 p. ; 24 cm"],
        "notes": [{"note": "Includes bibliographical references and index.", "staffOnly": false}]
    }))
    .unwrap()
}

fn batch_upsert(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(dir.path(), store::Options::default(), &[inventory::MIGRATIONS])
        .unwrap();
    let (tenant, _) = store.create_tenant("bench").unwrap();
    tenant.write(inventory::load_reference_data).unwrap();
    let instance_type = tenant
        .read(|r| inventory::reference_id_by_name(r, inventory::RefKind::InstanceType, "text"))
        .unwrap()
        .unwrap();
    const BATCH: u128 = 1000;
    let mut next = 1u128;
    let mut group = c.benchmark_group("instances");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.sample_size(30);
    group.bench_function("batch_upsert_1000", |b| {
        b.iter_batched(
            || {
                let batch: Vec<_> =
                    (next..next + BATCH).map(|n| instance(n, instance_type)).collect();
                next += BATCH;
                batch
            },
            |batch| {
                tenant
                    .write(|w| inventory::save_batch(w, batch, true, folio::Actor::default()))
                    .unwrap();
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, batch_upsert);
criterion_main!(benches);
