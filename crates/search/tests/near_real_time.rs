//! Near-real-time following: the follower applies every write of this process, and
//! finds the writes of another process on the same data directory.
//!
//! The test waits for the index to reach the store's sequence number, however long
//! that takes; how long it takes (the write-to-visible latency) is measured by
//! `cargo bench -p quire-search --bench follower`.

use std::sync::Arc;

use search::{Follower, InstanceIndex};

mod common;
use common::{count, create_instance, fixture, followed};

#[test]
fn follower_applies_writes_of_this_process_and_of_another() {
    let f = fixture();
    let index = Arc::new(InstanceIndex::open(&f.tenant).unwrap());
    let follower = Follower::spawn(f.tenant.clone(), index.clone());
    for n in 0..5 {
        let word = format!("nrtword{n}");
        create_instance(&f.tenant, &format!("nrt{n}"), &format!("Fresh {word}"));
        followed(&f.tenant, index.as_ref());
        assert_eq!(count(&index, &format!("title all {word}")), 1);
    }
    // Writes by "another process": the follower's poll of the database finds them, as
    // nothing in this process tells it of them. The sequence number to wait for is read
    // through the other process's handle for the same reason: reading it through this
    // process's would tell the follower.
    follower.stop();
    let other =
        store::Store::open(f.dir.path(), store::Options::default(), &[inventory::MIGRATIONS])
            .unwrap()
            .tenant("diku")
            .unwrap();
    let follower = Follower::spawn(f.tenant.clone(), index.clone());
    create_instance(&other, "elsewhere", "Written elsewhere");
    followed(&other, index.as_ref());
    assert_eq!(count(&index, "title all elsewhere"), 1);
    assert_eq!(count(&index, "cql.allRecords=1"), 6);
    drop(follower);
}
