//! Mapping throughput: MARC bibliographic records to instances per second with the
//! default rules and a new tenant's reference data (one core, no I/O).
//!
//! `cargo bench -p quire-mapping --bench map`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;

fn records() -> Vec<marc::Record> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/marc/");
    let mut records = Vec::new();
    for file in ["100.mrc", "61PRINT160129.mrc", "CornellFOLIOExemplars.mrc"] {
        let bytes = std::fs::read(format!("{dir}{file}")).unwrap();
        for record in marc::Reader::new(bytes.as_slice()).lenient() {
            records.push(record.unwrap().0);
        }
    }
    records
}

/// A new tenant's reference data, from inventory's seed files.
fn reference() -> mapping::ReferenceData {
    let mut data = mapping::ReferenceData::default();
    for lookup in mapping::Lookup::ALL {
        let Some(kind) = inventory::RefKind::from_path(lookup.path()) else { continue };
        let records: Vec<Value> = serde_json::from_str(inventory::seed_records(kind)).unwrap();
        data.insert_records(lookup, &records);
    }
    data
}

fn map(c: &mut Criterion) {
    let records = records();
    let rules = mapping::defaults(mapping::RecordType::MarcBib);
    let reference = reference();
    let mut group = c.benchmark_group("map");
    group.throughput(Throughput::Elements(records.len() as u64));
    group.bench_function("bib_to_instance", |b| {
        b.iter(|| {
            for record in &records {
                std::hint::black_box(mapping::map_record(
                    record,
                    &rules,
                    mapping::Target::Instance,
                    &reference,
                ));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, map);
criterion_main!(benches);
