//! ISO 2709 decoding and encoding of FOLIO's test files (100 bibliographic,
//! 5,000 authority records), plus MARCXML and MARC-in-JSON writing and
//! reading of the same records for comparison. Throughput is in records.
//!
//! Run: `CARGO_TARGET_DIR=/work/target-marc cargo bench -p quire-marc --bench codec`
//! (figures in docs/benchmarks.md, "Components").

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn read(file: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/marc").join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn codec(c: &mut Criterion) {
    for file in ["100.mrc", "5000.mrc"] {
        let input = read(file);
        let records: Vec<marc::Record> =
            marc::Reader::new(input.as_slice()).map(|r| r.unwrap()).collect();
        let n_records = records.len() as u64;
        let mut group = c.benchmark_group(format!("marc/{file}"));
        group.throughput(Throughput::Elements(n_records));

        group.bench_function("iso2709 decode", |b| {
            b.iter(|| {
                for record in marc::Reader::new(black_box(input.as_slice())) {
                    black_box(record.unwrap());
                }
            })
        });
        group.bench_function("iso2709 decode lenient", |b| {
            b.iter(|| {
                for record in marc::LenientReader::new(black_box(input.as_slice())) {
                    black_box(record.unwrap());
                }
            })
        });
        let mut out = Vec::with_capacity(input.len());
        group.bench_function("iso2709 encode", |b| {
            b.iter(|| {
                out.clear();
                for record in &records {
                    marc::encode_into(black_box(record), &mut out).unwrap();
                }
                black_box(out.len())
            })
        });

        let xml: Vec<String> = records.iter().map(marc::marcxml::to_string).collect();
        group.bench_function("marcxml write", |b| {
            b.iter(|| {
                records.iter().map(|r| marc::marcxml::to_string(black_box(r)).len()).sum::<usize>()
            })
        });
        group.bench_function("marcxml read", |b| {
            b.iter(|| {
                xml.iter()
                    .map(|x| marc::marcxml::from_str(black_box(x)).unwrap().fields().len())
                    .sum::<usize>()
            })
        });
        let json: Vec<String> = records.iter().map(marc::json::to_string).collect();
        group.bench_function("json write", |b| {
            b.iter(|| {
                records.iter().map(|r| marc::json::to_string(black_box(r)).len()).sum::<usize>()
            })
        });
        group.bench_function("json read", |b| {
            b.iter(|| {
                json.iter()
                    .map(|j| marc::json::from_str(black_box(j)).unwrap().fields().len())
                    .sum::<usize>()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, codec);
criterion_main!(benches);
