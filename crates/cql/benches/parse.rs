//! Parsing FOLIO's search load-test mix (baselines section 1): every request
//! template of `ptf-search-workload/requests.tsv` with 20 values of its word
//! file, about 900 queries. Reports time per query (the "thrpt" line gives
//! queries per second).
//!
//! Run: `cargo bench -p quire-cql --bench parse`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use quire_cql as cql;

// Shared with the differential test, which also uses the conformance queries.
#[allow(dead_code)]
#[path = "../tests/differential/folio.rs"]
mod folio;

fn bench_parse(c: &mut Criterion) {
    let queries = folio::load_test_queries(20, 1);
    assert!(queries.iter().all(|q| cql::parse(q).is_ok()), "the FOLIO mix parses");

    let mix = format!("folio-mix-{}-queries", queries.len());
    let mut group = c.benchmark_group("cql");
    group.throughput(Throughput::Elements(queries.len() as u64));
    group.bench_with_input(BenchmarkId::new("parse", &mix), &queries, |b, queries| {
        b.iter(|| {
            for query in queries {
                std::hint::black_box(cql::parse(std::hint::black_box(query)).unwrap());
            }
        });
    });
    group.bench_with_input(BenchmarkId::new("parse+xcql", &mix), &queries, |b, queries| {
        b.iter(|| {
            for query in queries {
                std::hint::black_box(cql::parse(query).unwrap().to_xcql());
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bench_parse);
criterion_main!(benches);
