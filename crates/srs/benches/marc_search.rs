//! The four MARC searches of FOLIO's PTF report (folio-ptf.md section 2), and a search
//! that streams 20,000 ids.
//!
//! Source records: the Library of Congress file named by `QUIRE_SRS_BENCH_LC` (default
//! `~/.cache/quire/BooksAll.2016.part01.utf8`, ISO 2709, UTF-8) when it exists, else the
//! bibliographic records of `shared/data/marc`. They are replicated with fresh 001, 005
//! and ids to `QUIRE_SRS_BENCH_N` records (default 100,000), 1 in 50 with leader/05 `d`,
//! 1 in 100 suppressed. Prints the load rate (`put_marc_bibs`), the database size, the
//! index build time and size, then times the searches.
//!
//! `stream 20,000 ids` is the work of `POST /source-storage/stream/marc-record-identifiers`
//! for a result of 20,000 records, short of HTTP: the search, and the ids written as the
//! body FOLIO sends (`{"records":[...],"totalCount":n}`). The API test of that endpoint
//! checks the body; this is where its speed is measured.
//!
//! `QUIRE_SRS_BENCH_DIR` keeps the store in that directory and reuses it on the next
//! run (handy for profiling the index build); `QUIRE_SRS_BENCH_BUILD_ONLY=1` stops after
//! building the index. `cargo bench -p quire-srs --bench marc_search`.

use std::path::PathBuf;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};

fn is_bib(record: &marc::Record) -> bool {
    "acdefgijkmoprt".contains(record.leader().record_type())
}

fn read_file(path: &std::path::Path, limit: usize, out: &mut Vec<marc::Record>) {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    for (record, _) in marc::LenientReader::new(file).filter_map(Result::ok) {
        if is_bib(&record) {
            out.push(record);
            if out.len() >= limit {
                return;
            }
        }
    }
}

/// Up to `limit` source records, and where they came from.
fn source_bibs(limit: usize) -> (Vec<marc::Record>, String) {
    let lc = std::env::var_os("QUIRE_SRS_BENCH_LC").map(PathBuf::from).or_else(|| {
        let home = std::env::var_os("HOME")?;
        Some(PathBuf::from(home).join(".cache/quire/BooksAll.2016.part01.utf8"))
    });
    let mut out = Vec::new();
    if let Some(lc) = lc.filter(|p| p.exists()) {
        read_file(&lc, limit, &mut out);
        return (out, lc.display().to_string());
    }
    let shared = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/marc");
    for entry in std::fs::read_dir(shared).expect("shared MARC data") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "mrc") {
            read_file(&path, usize::MAX, &mut out);
        }
    }
    (out, shared.to_string())
}

fn variant(base: &marc::Record, n: usize) -> marc::Record {
    let mut record = base.clone();
    let stamp = format!("20{:02}{:02}{:02}101010.0", 10 + n % 15, 1 + n % 12, 1 + n % 28);
    record.fields_mut().retain(|f| !matches!(f.tag().as_str(), "001" | "005"));
    let tag = |t: &str| marc::Tag::new(t).unwrap();
    record.fields_mut().insert(0, marc::Field::control(tag("001"), format!("b{n:09}")).unwrap());
    record.fields_mut().insert(1, marc::Field::control(tag("005"), stamp).unwrap());
    let status = if n.is_multiple_of(50) { 'd' } else { 'c' };
    record.leader_mut().set(5, status).unwrap();
    record
}

fn load(tenant: &store::Tenant, n: usize) {
    let (bases, from) = source_bibs(n);
    let started = Instant::now();
    for chunk in (0..n).collect::<Vec<_>>().chunks(10_000) {
        tenant
            .write(|w| {
                let snapshot_id = srs::ensure_generated_snapshot(w)?;
                let bibs = chunk.iter().map(|&i| srs::NewBib {
                    id: Some(uuid::Uuid::from_u128(i as u128 + 1)),
                    marc: variant(&bases[i % bases.len()], i),
                    instance_id: uuid::Uuid::from_u128((1 << 64) + i as u128),
                    instance_hrid: format!("in{i:011}"),
                    snapshot_id,
                    suppress_discovery: i.is_multiple_of(100),
                    state: srs::State::Actual,
                });
                srs::put_marc_bibs(w, bibs)
            })
            .unwrap();
    }
    let load = started.elapsed();
    println!(
        "{n} records from {} bases of {from}: stored in {:.1} s ({:.0}/s)",
        bases.len(),
        load.as_secs_f64(),
        n as f64 / load.as_secs_f64(),
    );
}

fn bench(c: &mut Criterion) {
    let n: usize =
        std::env::var("QUIRE_SRS_BENCH_N").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let temp = tempfile::tempdir().unwrap();
    let dir = std::env::var_os("QUIRE_SRS_BENCH_DIR")
        .map_or_else(|| temp.path().to_path_buf(), PathBuf::from);
    let store = store::Store::open(&dir, Default::default(), &[srs::MIGRATIONS]).unwrap();
    let (tenant, created) = store.create_tenant("bench").unwrap();
    if created {
        load(&tenant, n);
    } else {
        println!("reusing the store in {}", dir.display());
    }
    let db = std::fs::metadata(tenant.dir().join("quire.sqlite")).map_or(0, |m| m.len());
    let started = Instant::now();
    let index = srs::MarcIndex::open(&tenant).unwrap();
    let build = started.elapsed();
    let indexed = index.len() as usize;
    println!(
        "database {} MB ({} bytes a record); index of {indexed} records built in {:.1} s \
         ({:.0} records/s), {} bytes a record",
        db / 1_000_000,
        db / indexed as u64,
        build.as_secs_f64(),
        indexed as f64 / build.as_secs_f64(),
        index.bytes() / indexed,
    );
    if std::env::var_os("QUIRE_SRS_BENCH_BUILD_ONLY").is_some() {
        return;
    }
    let search = |leader: &str, fields: Option<&str>, flags: bool| srs::SearchRequest {
        leader_search_expression: Some(leader.to_string()),
        fields_search_expression: fields.map(str::to_string),
        deleted: if flags { Some(true) } else { Some(false) },
        suppress_from_discovery: flags.then_some(true),
        ..Default::default()
    };
    let one = search("p_05 = 'd'", None, false);
    let two = search("p_05 = 'd'", None, true);
    let four = search("p_05 = 'd'", Some("005.date in '20141106-20231108'"), true);
    c.bench_function("ptf1 p_05 = d", |b| b.iter(|| index.search(&one).unwrap()));
    c.bench_function("ptf2 p_05 = d, deleted, suppressed", |b| {
        b.iter(|| index.search(&two).unwrap())
    });
    // Leader/05 is `c` in 49 of 50 records: a page of 20,000 of them.
    let twenty_thousand =
        srs::SearchRequest { limit: Some(20_000), ..search("p_05 = 'c'", None, false) };
    c.bench_function("stream 20,000 ids", |b| {
        b.iter(|| ids_body(&index.search(&twenty_thousand).unwrap()))
    });
    // Test 3: after deleting records through the API's verb (2% of the set).
    let started = Instant::now();
    tenant
        .write(|w| {
            for i in (1..indexed).step_by(50) {
                srs::delete(
                    w,
                    uuid::Uuid::from_u128(i as u128 + 1),
                    srs::IdType::SrsRecord,
                    Default::default(),
                )?;
            }
            Ok::<_, srs::Error>(())
        })
        .unwrap();
    let deleted = started.elapsed();
    let started = Instant::now();
    index.catch_up(&tenant).unwrap();
    println!(
        "deleted {} records in {:.2} s; index caught up in {:.2} s; test 3 matches {}, test 4 {}",
        indexed / 50,
        deleted.as_secs_f64(),
        started.elapsed().as_secs_f64(),
        index.search(&two).unwrap().total,
        index.search(&four).unwrap().total,
    );
    c.bench_function("ptf3 after deletes", |b| b.iter(|| index.search(&two).unwrap()));
    c.bench_function("ptf4 + 005.date range", |b| b.iter(|| index.search(&four).unwrap()));
}

/// The body of the MARC search endpoint: the ids as FOLIO writes them, then the count.
fn ids_body(result: &srs::SearchResult) -> String {
    let mut out = String::with_capacity(result.ids.len() * 39 + 40);
    out.push_str("{\"records\":[");
    let mut buf = uuid::Uuid::encode_buffer();
    for (idx, id) in result.ids.iter().enumerate() {
        if idx > 0 {
            out.push(',');
        }
        out.push('"');
        out.push_str(id.hyphenated().encode_lower(&mut buf));
        out.push('"');
    }
    out.push_str("],\"totalCount\":");
    out.push_str(&result.total.to_string());
    out.push('}');
    out
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
