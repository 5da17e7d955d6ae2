//! Authority search on the Library of Congress subject authorities of the shared data
//! set: the index build rate, and the latency of FOLIO's authority search options.
//!
//! `cargo bench -p quire-search --bench authorities` (QUIRE_BENCH_MARC names another
//! MARC authority file; the default is `5000.mrc`, of which `2500.mrc` is the first
//! half).

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use folio::Actor;
use inventory::Authority;
use search::{AuthorityIndex, AuthoritySearchRequest, InstanceIndex};

const MARC: &str = "../../../shared/data/marc/5000.mrc";

fn authorities() -> Vec<Authority> {
    let path = std::env::var("QUIRE_BENCH_MARC").unwrap_or_else(|_| {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(MARC).display().to_string()
    });
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    marc::Reader::new(std::io::BufReader::new(file))
        .filter_map(|r| r.ok())
        .filter_map(|r| generate::authorities::authority_from_marc(&r))
        .collect()
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(dir.path(), store::Options::default(), &[inventory::MIGRATIONS])
        .unwrap();
    let (tenant, _) = store.create_tenant("bench").unwrap();
    tenant.write(inventory::load_reference_data).unwrap();
    let records = authorities();
    let n = records.len();
    tenant.write(|w| inventory::save_batch(w, records, false, Actor::default())).unwrap();
    let started = Instant::now();
    let index = AuthorityIndex::open(&tenant).unwrap();
    let built = started.elapsed();
    let headings = index.status().documents;
    let started = Instant::now();
    let stats = index.reindex(&tenant, |_| {}).unwrap();
    eprintln!(
        "{n} authorities, {headings} heading documents: built in {built:?} ({:.0} records/s), reindexed in {:?}",
        n as f64 / built.as_secs_f64(),
        started.elapsed(),
    );
    drop(stats);
    let instances = InstanceIndex::open(&tenant).unwrap();
    let mut group = c.benchmark_group("authorities");
    for (name, query, titles) in [
        ("keyword all (default sort)", "keyword all \"computers\"", false),
        ("keyword all, numberOfTitles", "keyword all \"computers\"", true),
        ("topicalTerm == phrase", "topicalTerm == \"Computer networks\"", false),
        ("keyword = *ology (leading wildcard)", "keyword = *ology", false),
        ("lccn", "lccn = sh85029552", false),
        ("all headings, sorted", "cql.allRecords=1", false),
    ] {
        let mut request = AuthoritySearchRequest::new(query);
        request.include_number_of_titles = titles;
        group.bench_function(name, |b| {
            b.iter(|| black_box(index.search(&request, Some(&instances)).unwrap()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
