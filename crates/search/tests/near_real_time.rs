//! Near-real-time following: a write is searchable within a second.
//!
//! Alone in its test binary because it asserts a latency: cargo runs test binaries
//! one after another, so no other test's index builds and fsyncs share the machine
//! with it (beside the reindex tests it once took over a second in CI).

use std::sync::Arc;
use std::time::{Duration, Instant};

use search::{Follower, InstanceIndex};

mod common;
use common::{count, create_instance, fixture};

#[test]
fn follower_makes_writes_searchable_within_a_second() {
    let f = fixture();
    let index = Arc::new(InstanceIndex::open(&f.tenant).unwrap());
    let follower = Follower::spawn(f.tenant.clone(), index.clone());
    for n in 0..5 {
        let word = format!("nrtword{n}");
        create_instance(&f.tenant, &format!("nrt{n}"), &format!("Fresh {word}"));
        let started = Instant::now();
        while count(&index, &format!("title all {word}")) == 0 {
            assert!(started.elapsed() < Duration::from_secs(1), "not visible after 1 s");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    // Writes by "another process": the follower's poll of the database finds them.
    follower.stop();
    let other =
        store::Store::open(f.dir.path(), store::Options::default(), &[inventory::MIGRATIONS])
            .unwrap()
            .tenant("diku")
            .unwrap();
    let follower = Follower::spawn(f.tenant.clone(), index.clone());
    create_instance(&other, "elsewhere", "Written elsewhere");
    let started = Instant::now();
    while count(&index, "title all elsewhere") == 0 {
        assert!(started.elapsed() < Duration::from_secs(3), "other process's write not followed");
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(follower);
}
