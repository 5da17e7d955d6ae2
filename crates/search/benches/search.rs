//! Instance search on a generated catalogue: the queries of FOLIO's PTF search mix, and
//! the throughput of a full reindex.
//!
//! `cargo bench -p quire-search --bench search` (QUIRE_BENCH_INSTANCES sets the size,
//! default 100,000; QUIRE_BENCH_BUILD_THREADS and QUIRE_BENCH_BUILD_MB the build writer). The catalogue's words are the PTF workload's own query words
//! (shared/reference/ptf-search-workload), drawn with a Zipf-like distribution, so
//! queries hit realistic posting-list sizes.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use folio::Actor;
use inventory::{HoldingsRecord, Instance, Item};
use search::{FacetRequest, InstanceIndex, SearchRequest};
use serde_json::json;
use uuid::Uuid;

const WORKLOAD: &str = "../../../shared/reference/ptf-search-workload";
const INSTANCE_TYPE: &str = "6312d172-f0cf-40f6-b27d-9fa8feaf332f";
const PERSONAL: &str = "2b94c631-fca9-4892-a730-03ee529ffe2a";
const FOLIO_SOURCE: &str = "f32d531e-df79-46b3-8932-cdd35f7a2264";
const LOCATIONS: [&str; 3] = [
    "fcd64ce1-6995-48f0-840e-89ffa2288371",
    "53cf956f-c1df-410b-8bea-27f712cca7c0",
    "184aae84-a5bf-4c6a-85ba-4a7c73026cd5",
];
const BOOK: &str = "1a54b431-2e4f-452d-9cae-9cee66c9a892";
const CAN_CIRCULATE: &str = "2b94c631-fca9-4892-a730-03ee529ffe27";
const LANGUAGES: [&str; 8] = ["eng", "eng", "eng", "eng", "ger", "fre", "ita", "ukr"];
const STATUSES: [&str; 6] =
    ["Available", "Available", "Available", "Checked out", "In transit", "Missing"];

/// xorshift64*: reproducible and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

struct Words {
    words: Vec<String>,
}

impl Words {
    fn load() -> Words {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(WORKLOAD);
        let mut words = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for file in [
            "contributors_queries_word.csv",
            "auth_queries.csv",
            "contributors_queries_2_words.csv",
            "filter_queries_sentence.csv",
            "title_queries_sentence3words.csv",
            "auth_queries_sentence.csv",
        ] {
            let text = std::fs::read_to_string(dir.join(file)).expect("PTF word list");
            for word in text.split_whitespace() {
                let word = word.to_lowercase();
                if word.chars().all(char::is_alphabetic) && seen.insert(word.clone()) {
                    words.push(word);
                }
            }
        }
        Words { words }
    }

    /// A word with rank r drawn with weight about 1/r.
    fn zipf(&self, rng: &mut Rng) -> &str {
        let n = self.words.len() as f64;
        let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
        let rank = (n.powf(u) as usize).saturating_sub(1).min(self.words.len() - 1);
        &self.words[rank]
    }

    fn phrase(&self, rng: &mut Rng, n: usize) -> String {
        let mut words: Vec<String> = (0..n).map(|_| self.zipf(rng).to_string()).collect();
        if let Some(first) = words.first_mut() {
            *first = capitalise(first);
        }
        words.join(" ")
    }
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

fn generate(tenant: &store::Tenant, n: usize, words: &Words) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let actor = Actor::default();
    // Barcodes must be unique: numbered, as random ones collide at a few hundred thousand.
    let mut barcode = 0u64;
    tenant.write(inventory::load_reference_data).unwrap();
    for start in (0..n).step_by(1_000) {
        let mut instances = Vec::new();
        let mut holdings = Vec::new();
        let mut items = Vec::new();
        for _ in start..(start + 1_000).min(n) {
            let id = Uuid::from_u64_pair(rng.next(), rng.next());
            let title_len = 2 + rng.below(6);
            let instance = json!({
                "id": id, "source": if rng.below(3) == 0 { "MARC" } else { "FOLIO" },
                "title": words.phrase(&mut rng, title_len),
                "instanceTypeId": INSTANCE_TYPE,
                "contributors": (0..1 + rng.below(2)).map(|_| json!({
                    "name": format!("{}, {}", capitalise(words.zipf(&mut rng)), capitalise(words.zipf(&mut rng))),
                    "contributorNameTypeId": PERSONAL})).collect::<Vec<_>>(),
                "subjects": (0..rng.below(4)).map(|_| json!({"value": words.phrase(&mut rng, 2)})).collect::<Vec<_>>(),
                "series": (0..rng.below(2)).map(|_| json!({"value": words.phrase(&mut rng, 3)})).collect::<Vec<_>>(),
                "languages": [LANGUAGES[rng.below(LANGUAGES.len())]],
                "dates": {"date1": format!("{}", 1900 + rng.below(125))},
                "publication": [{"publisher": words.phrase(&mut rng, 2), "dateOfPublication": "2001"}],
            });
            instances.push(serde_json::from_value::<Instance>(instance).unwrap());
            let holdings_id = Uuid::from_u64_pair(rng.next(), rng.next());
            holdings.push(
                serde_json::from_value::<HoldingsRecord>(
                    json!({"id": holdings_id, "instanceId": id,
                    "sourceId": FOLIO_SOURCE, "permanentLocationId": LOCATIONS[rng.below(3)],
                    "callNumber": format!("QA{} .{}", rng.below(999), rng.below(99))}),
                )
                .unwrap(),
            );
            for _ in 0..1 + rng.below(2) {
                barcode += 1;
                items.push(
                    serde_json::from_value::<Item>(json!({"holdingsRecordId": holdings_id,
                        "status": {"name": STATUSES[rng.below(STATUSES.len())]},
                        "barcode": format!("{barcode:010}"),
                        "materialTypeId": BOOK, "permanentLoanTypeId": CAN_CIRCULATE}))
                    .unwrap(),
                );
            }
        }
        tenant
            .write(|w| {
                inventory::save_batch(w, instances, false, actor)?;
                inventory::save_batch(w, holdings, false, actor)?;
                inventory::save_batch(w, items, false, actor)?;
                Ok::<_, inventory::Error>(())
            })
            .unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let n: usize =
        std::env::var("QUIRE_BENCH_INSTANCES").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let words = Words::load();
    eprintln!("vocabulary: {} words", words.words.len());
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(dir.path(), store::Options::default(), &[inventory::MIGRATIONS])
        .unwrap();
    let (tenant, _) = store.create_tenant("bench").unwrap();
    let started = Instant::now();
    generate(&tenant, n, &words);
    eprintln!("generated {n} instances in {:.1} s", started.elapsed().as_secs_f64());

    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<usize>().ok());
    let mut options = search::IndexOptions::default();
    if let Some(threads) = env("QUIRE_BENCH_BUILD_THREADS") {
        options.build_threads = threads;
    }
    if let Some(mb) = env("QUIRE_BENCH_BUILD_MB") {
        options.build_memory = mb << 20;
    }
    let started = Instant::now();
    let index = InstanceIndex::open_with(&tenant, options).unwrap();
    let secs = started.elapsed().as_secs_f64();
    eprintln!("initial build: {n} instances in {secs:.1} s = {:.0} instances/s", n as f64 / secs);
    for _ in 0..2 {
        let stats = index.reindex(&tenant, |_| {}).unwrap();
        let secs = stats.elapsed.as_secs_f64();
        eprintln!(
            "reindex: {} instances in {secs:.1} s = {:.0} instances/s",
            stats.instances,
            stats.instances as f64 / secs
        );
    }

    // The PTF mix's instance queries, each cycling through the workload's own words.
    let word = |i: usize| words.words[(i * 7919) % words.words.len()].clone();
    type Make<'a> = Box<dyn Fn(usize) -> String + 'a>;
    let queries: Vec<(&str, Make<'_>)> = vec![
        ("title all word", Box::new(|i| format!("title all {}", word(i)))),
        (
            "keyword all 2words",
            Box::new(|i| format!("keyword all \"{} {}\"", word(i), word(i + 1))),
        ),
        ("keyword == 2words", Box::new(|i| format!("keyword == \"{} {}\"", word(i), word(i + 1)))),
        (
            "title any 3words",
            Box::new(|i| format!("title any \"{} {} {}\"", word(i), word(i + 1), word(i + 2))),
        ),
        ("title all word* (trailing)", Box::new(|i| format!("title all {}*", word(i)))),
        ("title all *word (leading)", Box::new(|i| format!("title all *{}", word(i)))),
        ("subjects = *word (leading)", Box::new(|i| format!("subjects = *{}", word(i)))),
        ("contributors = *word (leading)", Box::new(|i| format!("contributors = *{}", word(i)))),
        ("keyword <> word", Box::new(|i| format!("keyword <> {}", word(i)))),
        (
            "title <> 3words",
            Box::new(|i| format!("title <> \"{} {} {}\"", word(i), word(i + 1), word(i + 2))),
        ),
        (
            "languages + status filter",
            Box::new(|_| "languages == eng and items.status.name == \"Available\"".to_string()),
        ),
        (
            "subjects all NOT title all",
            Box::new(|i| format!("subjects all {} NOT title all {}", word(i), word(i + 1))),
        ),
        (
            "cql.allRecords=1 sortBy title",
            Box::new(|_| "cql.allRecords=1 sortBy title".to_string()),
        ),
    ];
    let mut group = c.benchmark_group("search");
    for (name, make) in &queries {
        let mut i = 0;
        group.bench_function(*name, |b| {
            b.iter(|| {
                i += 1;
                black_box(
                    index.search(&tenant, &SearchRequest::new(make(i))).unwrap().total_records,
                )
            })
        });
    }
    let facets: Vec<FacetRequest> =
        ["languages:5", "items.status.name", "holdings.permanentLocationId", "source"]
            .iter()
            .map(|f| FacetRequest::parse(f).unwrap())
            .collect();
    group.bench_function("facets over all", |b| {
        b.iter(|| black_box(index.facets("cql.allRecords=1", &facets).unwrap().facets.len()))
    });
    group.bench_function("stream all ids", |b| {
        b.iter(|| {
            black_box(
                index
                    .stream_ids("cql.allRecords=1", |_| std::ops::ControlFlow::Continue(()))
                    .unwrap(),
            )
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
