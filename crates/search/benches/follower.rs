//! The follower's write-to-visible latency: from a write's commit until a search of the
//! instance index finds it, with the follower's default timing (it commits at most
//! every 500 ms, and polls the database every second for other processes' writes).
//! `tests/near_real_time.rs` checks that the follower applies those writes; this
//! measures how soon.
//!
//! - `this process, back to back`: each write follows the last one's visibility at
//!   once, so the follower waits out its commit interval: the latency under a steady
//!   stream of writes.
//! - `another process`: writes through a second `Store` on the same data directory,
//!   which the follower finds by its poll.
//!
//! Before those it prints the mean latency of a write after a quiet spell (longer than
//! the commit interval), which the follower applies as soon as it is woken.
//!
//! `cargo bench -p quire-search --bench follower`

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use folio::Actor;
use inventory::Instance;
use search::{Follower, FollowerOptions, InstanceIndex};
use serde_json::json;

const INSTANCE_TYPE: &str = "6312d172-f0cf-40f6-b27d-9fa8feaf332f";

/// How often the bench looks for the write: the resolution of its figures.
const LOOK: Duration = Duration::from_millis(1);

/// Writes an instance through `writer` with a title word of its own, and returns the
/// time from its commit until a search of `index` finds it.
fn write_to_visible(writer: &store::Tenant, index: &InstanceIndex, n: u64) -> Duration {
    let word = format!("latencyword{n}");
    let body = json!({"hrid": format!("lat{n}"), "source": "FOLIO", "title": format!("Fresh {word}"),
        "instanceTypeId": INSTANCE_TYPE});
    writer
        .write(|w| inventory::create::<Instance>(w, body.to_string().as_bytes(), Actor::default()))
        .unwrap();
    let committed = Instant::now();
    let query = format!("title all {word}");
    while index.count(&query).unwrap() == 0 {
        std::thread::sleep(LOOK);
    }
    committed.elapsed()
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(dir.path(), store::Options::default(), &[inventory::MIGRATIONS])
        .unwrap();
    let (tenant, _) = store.create_tenant("bench").unwrap();
    tenant.write(inventory::load_reference_data).unwrap();
    let index = Arc::new(InstanceIndex::open(&tenant).unwrap());
    let _follower = Follower::spawn(tenant.clone(), index.clone());
    let mut n = 0;

    let quiet = FollowerOptions::default().commit_interval + Duration::from_millis(100);
    let mut total = Duration::ZERO;
    for _ in 0..5 {
        std::thread::sleep(quiet);
        n += 1;
        total += write_to_visible(&tenant, &index, n);
    }
    eprintln!("after a quiet spell: visible {:?} after the commit (mean of 5)", total / 5);

    // A second process's handle on the same tenant: nothing in this process tells the
    // follower of its writes.
    let other = store::Store::open(dir.path(), store::Options::default(), &[inventory::MIGRATIONS])
        .unwrap()
        .tenant("bench")
        .unwrap();

    let mut group = c.benchmark_group("follower");
    // Each write takes up to a second to show: a few flat samples, not criterion's
    // default hundred of growing size.
    group.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(10));
    for (name, writer) in [("this process, back to back", &tenant), ("another process", &other)] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| {
                        n += 1;
                        write_to_visible(writer, &index, n)
                    })
                    .sum()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
