//! The four MARC searches of FOLIO's PTF report (folio-ptf.md section 2) on a synthetic
//! set: the bibliographic records of `shared/data/marc` replicated with fresh 001, 005
//! and ids to `QUIRE_SRS_BENCH_N` records (default 100,000), 1 in 50 with leader/05 `d`.
//! Prints the load rate (`put_marc_bibs`), the index build time and size, then times the
//! searches. `cargo bench -p quire-srs --bench marc_search`.

use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};

fn source_bibs() -> Vec<marc::Record> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/work/shared/data/marc").expect("shared MARC data") {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "mrc") {
            continue;
        }
        let file = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
        for (record, _) in marc::LenientReader::new(file).filter_map(Result::ok) {
            if "acdefgijkmoprt".contains(record.leader().record_type()) {
                out.push(record);
            }
        }
    }
    out
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

fn bench(c: &mut Criterion) {
    let n: usize =
        std::env::var("QUIRE_SRS_BENCH_N").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let bases = source_bibs();
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(dir.path(), Default::default(), &[srs::MIGRATIONS]).unwrap();
    let (tenant, _) = store.create_tenant("bench").unwrap();
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
    let db = std::fs::metadata(tenant.dir().join("quire.sqlite")).map_or(0, |m| m.len());
    let started = Instant::now();
    let index = srs::MarcIndex::open(&tenant).unwrap();
    let build = started.elapsed();
    println!(
        "{n} records from {} bases: stored in {:.1} s ({:.0}/s), database {} MB ({} bytes a record); \
         index built in {:.1} s, {} bytes a record",
        bases.len(),
        load.as_secs_f64(),
        n as f64 / load.as_secs_f64(),
        db / 1_000_000,
        db / n as u64,
        build.as_secs_f64(),
        index.bytes() / n,
    );
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
    // Test 3: after deleting records through the API's verb (2% of the set).
    let started = Instant::now();
    tenant
        .write(|w| {
            for i in (1..n).step_by(50) {
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
        "deleted {} records in {:.2} s; index caught up in {:.2} s; test 3 matches {}",
        n / 50,
        deleted.as_secs_f64(),
        started.elapsed().as_secs_f64(),
        index.search(&two).unwrap().total
    );
    c.bench_function("ptf3 after deletes", |b| b.iter(|| index.search(&two).unwrap()));
    c.bench_function("ptf4 + 005.date range", |b| b.iter(|| index.search(&four).unwrap()));
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
