//! Near-real-time following: the follower applies every write of this process, and
//! finds the writes of another process on the same data directory.
//!
//! The test waits for the index to reach the store's sequence number, however long
//! that takes; how long it takes (the write-to-visible latency) is measured by
//! `cargo bench -p quire-search --bench follower`.

use std::sync::Arc;
use std::time::Duration;

use folio::Actor;
use inventory::Instance;
use search::{Follower, FollowerOptions, InstanceIndex};
use serde_json::json;

mod common;
use common::{INSTANCE_TYPE, POLL, count, create_instance, create_instances, fixture, followed};

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
    let other = store::Store::open(f.dir.path(), f.options.clone(), &[inventory::MIGRATIONS])
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

/// Once the writes pause, the follower rebuilds an index that re-indexed records have
/// worn (deleted documents a tenth of the live ones or more, or many segments), in the
/// background: one segment again, nothing deleted, every record found; and it follows
/// the writes that come meanwhile.
#[test]
fn a_worn_index_is_rebuilt_once_the_writes_pause() {
    let f = fixture();
    let ids: Vec<_> = (0..20)
        .map(|n| create_instance(&f.tenant, &format!("w{n}"), &format!("Worn {n}")))
        .collect();
    let index = Arc::new(InstanceIndex::open(&f.tenant).unwrap());
    let built = index.status();
    assert_eq!((built.segments, built.deleted_documents), (1, 0));
    let options = FollowerOptions {
        rebuild_when_quiet: Some(Duration::from_millis(300)),
        ..FollowerOptions::default()
    };
    let follower = Follower::spawn_with(f.tenant.clone(), index.clone(), options);
    // Four instances retitled, each in a write of its own that the follower applies
    // before the next: four deleted documents.
    for (n, id) in ids.iter().take(4).enumerate() {
        let body = json!({"id": id, "hrid": format!("w{n}"), "source": "FOLIO",
            "title": format!("Retitled {n}"), "instanceTypeId": INSTANCE_TYPE});
        f.tenant
            .write(|w| {
                inventory::replace::<Instance>(
                    w,
                    *id,
                    body.to_string().as_bytes(),
                    Actor::default(),
                )
            })
            .unwrap();
        followed(&f.tenant, index.as_ref());
    }
    let worn = index.status();
    assert!(worn.deleted_documents >= 2, "{worn:?}");
    // The writes paused: the rebuild swaps in its build, then (if the build left more
    // than one segment) that build merged into one: a reindex's two steps.
    let rebuilt = |s: &search::IndexStatus| {
        s.last_reindex.as_ref().is_some_and(|r| r.generation != worn.generation)
            && s.reindex.is_none()
            && !s.compacting
    };
    while !rebuilt(&index.status()) {
        std::thread::sleep(POLL);
    }
    assert_eq!(index.status().segments, 1);
    create_instance(&f.tenant, "w20", "Worn 20");
    followed(&f.tenant, index.as_ref());
    let after = index.status();
    assert_eq!(after.deleted_documents, 0, "{after:?}");
    assert_eq!(after.segments, 2, "the rebuild's segment and the write after it: {after:?}");
    assert_eq!(count(&index, "cql.allRecords=1"), 21);
    assert_eq!(count(&index, "title all retitled"), 4);
    drop(follower);
}

/// Once the writes pause, the follower folds the small segments they added into one,
/// leaving the largest as it is: two instances added in two commits beside a built
/// segment of 5,000 make three segments, which the merge policy leaves (it merges three
/// of a level, and the built one is levels above).
#[test]
fn the_small_segments_are_folded_into_one_once_the_writes_pause() {
    let f = fixture();
    create_instances(&f.tenant, "f", "Built", 5_000);
    let index = Arc::new(InstanceIndex::open(&f.tenant).unwrap());
    let options = FollowerOptions {
        // Longer than the follower takes to apply a write, shorter than the test waits.
        pause: Some(Duration::from_millis(1500)),
        rebuild_when_quiet: None,
        ..FollowerOptions::default()
    };
    let follower = Follower::spawn_with(f.tenant.clone(), index.clone(), options);
    for n in 0..2 {
        create_instance(&f.tenant, &format!("g{n}"), &format!("Added {n}"));
        followed(&f.tenant, index.as_ref());
    }
    assert_eq!(index.status().segments, 3, "{:?}", index.status());
    while index.status().segments > 2 {
        std::thread::sleep(POLL);
    }
    let folded = index.status();
    assert_eq!(
        folded.largest_segment_documents, 5_000,
        "the largest is left as it was: {folded:?}"
    );
    assert_eq!(count(&index, "cql.allRecords=1"), 5_002);
    assert_eq!(count(&index, "title all added"), 2);
    drop(follower);
}
