//! The index's life: replay after a restart, deletes and
//! moves traced through the index, rebuilding a lost or corrupt index, and a reindex
//! that runs while writes and searches continue.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use folio::Actor;
use inventory::{HoldingsRecord, Instance, Item};
use search::{Follower, InstanceIndex, SearchRequest};
use serde_json::json;
use uuid::Uuid;

mod common;
use common::{INSTANCE_TYPE, count, create_instance, create_instances, fixture};

const FOLIO_SOURCE: &str = "f32d531e-df79-46b3-8932-cdd35f7a2264";
const MAIN_LIBRARY: &str = "fcd64ce1-6995-48f0-840e-89ffa2288371";
const BOOK: &str = "1a54b431-2e4f-452d-9cae-9cee66c9a892";
const CAN_CIRCULATE: &str = "2b94c631-fca9-4892-a730-03ee529ffe27";

fn create_holdings(tenant: &store::Tenant, instance: Uuid) -> Uuid {
    let body = json!({"instanceId": instance, "sourceId": FOLIO_SOURCE, "permanentLocationId": MAIN_LIBRARY});
    tenant
        .write(|w| {
            inventory::create::<HoldingsRecord>(w, body.to_string().as_bytes(), Actor::default())
        })
        .unwrap()
        .id
        .unwrap()
}

fn item_body(holdings: Uuid, status: &str) -> serde_json::Value {
    json!({"holdingsRecordId": holdings, "status": {"name": status},
        "materialTypeId": BOOK, "permanentLoanTypeId": CAN_CIRCULATE})
}

fn create_item(tenant: &store::Tenant, holdings: Uuid, status: &str) -> Uuid {
    let body = item_body(holdings, status);
    tenant
        .write(|w| inventory::create::<Item>(w, body.to_string().as_bytes(), Actor::default()))
        .unwrap()
        .id
        .unwrap()
}

#[test]
fn restart_replays_what_was_not_committed() {
    let f = fixture();
    let index = InstanceIndex::open(&f.tenant).unwrap();
    create_instance(&f.tenant, "r1", "Before the crash");
    index.catch_up(&f.tenant).unwrap();
    let committed = index.applied_seq();
    // Changes the index never applied, then the process "dies".
    let second = create_instance(&f.tenant, "r2", "After the crash");
    let holdings = create_holdings(&f.tenant, second);
    create_item(&f.tenant, holdings, "Missing");
    drop(index);

    let index = InstanceIndex::open(&f.tenant).unwrap();
    assert_eq!(index.applied_seq(), committed);
    assert_eq!(count(&index, "title all crash"), 1);
    assert_eq!(index.catch_up(&f.tenant).unwrap(), 3);
    assert_eq!(count(&index, "title all crash"), 2);
    assert_eq!(count(&index, "items.status.name == Missing"), 1);
    assert_eq!(index.catch_up(&f.tenant).unwrap(), 0);
}

#[test]
fn item_and_holdings_changes_reindex_their_instances() {
    let f = fixture();
    let index = InstanceIndex::open(&f.tenant).unwrap();
    let a = create_instance(&f.tenant, "a", "First");
    let b = create_instance(&f.tenant, "b", "Second");
    let holdings_a = create_holdings(&f.tenant, a);
    let holdings_b = create_holdings(&f.tenant, b);
    let item = create_item(&f.tenant, holdings_a, "Available");
    index.catch_up(&f.tenant).unwrap();
    let hits = |q: &str| {
        let found = index.search(&f.tenant, &SearchRequest::new(q)).unwrap();
        let mut hrids: Vec<String> = found
            .instances
            .iter()
            .map(|i| {
                serde_json::from_str::<serde_json::Value>(i).unwrap()["hrid"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        hrids.sort();
        hrids.join(" ")
    };
    assert_eq!(hits("items.status.name == Available"), "a");

    // The item moves to the other instance's holdings and changes status.
    let mut moved = item_body(holdings_b, "Checked out");
    moved["id"] = json!(item);
    f.tenant
        .write(|w| {
            inventory::replace::<Item>(w, item, moved.to_string().as_bytes(), Actor::default())
        })
        .unwrap();
    index.catch_up(&f.tenant).unwrap();
    assert_eq!(hits("items.status.name == Available"), "");
    assert_eq!(hits("items.status.name == \"Checked out\""), "b");

    // Deleted: only the index knows which instance held it.
    f.tenant.write(|w| inventory::delete::<Item>(w, item)).unwrap();
    index.catch_up(&f.tenant).unwrap();
    assert_eq!(hits("items.status.name == \"Checked out\""), "");
    assert_eq!(hits(&format!("items.id == {item}")), "");
    f.tenant.write(|w| inventory::delete::<HoldingsRecord>(w, holdings_b)).unwrap();
    index.catch_up(&f.tenant).unwrap();
    assert_eq!(hits(&format!("holdings.id == {holdings_b}")), "");
    assert_eq!(hits(&format!("holdings.id == {holdings_a}")), "a");
    f.tenant.write(|w| inventory::delete::<Instance>(w, b)).unwrap();
    index.catch_up(&f.tenant).unwrap();
    assert_eq!(hits("cql.allRecords=1"), "a");
}

#[test]
fn lost_or_corrupt_index_is_rebuilt_on_open() {
    let f = fixture();
    for n in 0..20 {
        create_instance(&f.tenant, &format!("c{n}"), &format!("Volume {n}"));
    }
    let root = f.tenant.dir().join("search").join("instances");
    let index = InstanceIndex::open(&f.tenant).unwrap();
    assert_eq!(count(&index, "title all volume"), 20);
    let generation = index.status().generation;
    drop(index);

    std::fs::write(root.join(&generation).join("meta.json"), b"{ not json").unwrap();
    let index = InstanceIndex::open(&f.tenant).unwrap();
    assert_ne!(index.status().generation, generation);
    assert_eq!(count(&index, "title all volume"), 20);
    assert_eq!(index.applied_seq(), f.tenant.last_seq().unwrap());
    drop(index);

    std::fs::remove_dir_all(&root).unwrap();
    let index = InstanceIndex::open(&f.tenant).unwrap();
    assert_eq!(count(&index, "title all volume"), 20);
    let dirs: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(dirs.len(), 2, "CURRENT and one generation: {dirs:?}");
}

/// A reindex that meets a record it cannot parse fails and names it, although the
/// reading thread has more pages to hand the document thread that failed; the serving
/// generation serves on and the failed one leaves nothing behind.
#[test]
fn a_reindex_that_meets_a_broken_record_fails_and_serving_goes_on() {
    let f = fixture();
    // Pages of 1,000: more than the build reads ahead of its document thread.
    let ids = create_instances(&f.tenant, "v", "Volume", 4_500);
    let index = InstanceIndex::open(&f.tenant).unwrap();
    let generation = index.status().generation;
    // The first record of the first page, broken behind the inventory's back.
    let instances = store::RecordTable {
        table: "instances",
        record_type: "instance",
        cached: false,
        columns: &["hrid"],
    };
    let broken = ids[0].to_string();
    f.tenant
        .write(|w| w.upsert(&instances, &broken, 2, "{ not json", &[Some("v0").into()]))
        .unwrap();

    let failed = index.reindex(&f.tenant, |_| {}).unwrap_err();
    assert!(failed.to_string().contains(&broken), "{failed}");
    assert_eq!(index.status().generation, generation);
    assert_eq!(count(&index, "title all volume"), 4_500);
    let root = f.tenant.dir().join("search").join("instances");
    let dirs: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(dirs.len(), 2, "CURRENT and one generation: {dirs:?}");
}

/// A second open of an index another writer holds (a running server, when the CLI is
/// pointed at its data directory) fails instead of rebuilding over it.
#[test]
fn an_index_in_use_is_not_rebuilt_under_its_owner() {
    let f = fixture();
    create_instance(&f.tenant, "inuse1", "Held index");
    let index = InstanceIndex::open(&f.tenant).unwrap();
    let generation = index.status().generation;
    let second = InstanceIndex::open(&f.tenant);
    assert!(matches!(second, Err(search::Error::Busy(_))), "{second:?}");
    assert_eq!(index.status().generation, generation);
    assert_eq!(count(&index, "title all held"), 1);
}

#[test]
fn reindex_while_writing_and_searching() {
    let f = fixture();
    // Enough instances that the build takes a while.
    create_instances(&f.tenant, "base", "Base record", 3_000);
    let index = Arc::new(InstanceIndex::open(&f.tenant).unwrap());
    let follower = Follower::spawn(f.tenant.clone(), index.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let searches = Arc::new(AtomicU64::new(0));
    let written = Arc::new(AtomicU64::new(0));

    let writer = {
        let (tenant, stop, written) = (f.tenant.clone(), stop.clone(), written.clone());
        std::thread::spawn(move || {
            let mut created = Vec::new();
            while !stop.load(Ordering::SeqCst) {
                let n = created.len();
                created.push(create_instance(
                    &tenant,
                    &format!("live{n}"),
                    &format!("Live record {n}"),
                ));
                if n % 5 == 0 {
                    // Rename an earlier record: the last title must win.
                    let id = created[n / 2];
                    let body = json!({"id": id, "hrid": format!("live{}", n / 2), "source": "FOLIO",
                        "title": format!("Renamed record {}", n / 2), "instanceTypeId": INSTANCE_TYPE});
                    tenant
                        .write(|w| {
                            inventory::replace::<Instance>(
                                w,
                                id,
                                body.to_string().as_bytes(),
                                Actor::default(),
                            )
                        })
                        .unwrap();
                }
                written.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(2));
            }
            created.len()
        })
    };
    let searcher = {
        let (index, stop, searches) = (index.clone(), stop.clone(), searches.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let found = index.count("title all record").unwrap();
                assert!(found >= 3_000, "a search saw {found} records");
                searches.fetch_add(1, Ordering::SeqCst);
            }
        })
    };
    // The reindex starts once writes and searches are under way, and they go on until
    // some more writes have landed after its swap. The pauses pace the looks and bound
    // nothing.
    let reached = |counter: &AtomicU64, at_least: u64| {
        while counter.load(Ordering::SeqCst) < at_least {
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    reached(&written, 20);
    reached(&searches, 1);
    let before = index.status().generation;
    let mut reports = 0;
    let stats = index.reindex(&f.tenant, |_| reports += 1).unwrap();
    reached(&written, written.load(Ordering::SeqCst) + 20);
    stop.store(true, Ordering::SeqCst);
    let created = writer.join().unwrap();
    searcher.join().unwrap();
    follower.stop();
    index.catch_up(&f.tenant).unwrap();

    assert_ne!(stats.generation, before);
    assert!(reports >= 2 && stats.instances >= 3_000, "{stats:?}");
    // The build's segments and the replayed changes were merged into one generation
    // after the swap, while the writes went on; the counts below hold for it.
    assert!(stats.compaction.is_some(), "{stats:?}");
    assert!(searches.load(Ordering::SeqCst) > 0);
    assert_eq!(count(&index, "cql.allRecords=1"), 3_000 + created as u64);
    let renamed = (0..created).filter(|n| n % 5 == 0).count() as u64;
    assert_eq!(count(&index, "title all renamed"), renamed);
    assert_eq!(count(&index, "title all live"), created as u64 - renamed);
    let status = index.status();
    assert_eq!(status.generation, stats.generation);
    assert!(status.reindex.is_none() && status.last_reindex.is_some());
    let generations = std::fs::read_dir(f.tenant.dir().join("search").join("instances"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with('g'))
        .count();
    assert_eq!(generations, 1);
    let current = f.tenant.dir().join("search").join("instances").join(&stats.generation);
    assert!(!current.join("snapshot").exists(), "the merge's hard links are removed");
}

/// A bulk build indexes the store as it was at the start and then the records the
/// caller writes and hands over; changes after the sequence number it is finished with
/// are replayed. It gives what a build from the store gives.
#[test]
fn a_bulk_build_indexes_handed_records_and_replays_the_rest() {
    let f = fixture();
    let index = InstanceIndex::open(&f.tenant).unwrap();
    create_instance(&f.tenant, "pre", "Already there");
    let before = f.tenant.last_seq().unwrap();
    let mut build = index.bulk_build(&f.tenant).unwrap();
    assert!(index.reindex(&f.tenant, |_| {}).is_err(), "one full build at a time");

    let bulk_instance = |hrid: &str, title: &str| -> Instance {
        serde_json::from_value(json!({"id": Uuid::new_v4(), "hrid": hrid, "source": "FOLIO",
            "title": title, "instanceTypeId": INSTANCE_TYPE}))
        .unwrap()
    };
    let (first, second) = (bulk_instance("b1", "Bulk one"), bulk_instance("b2", "Bulk two"));
    let holdings: HoldingsRecord = serde_json::from_value(json!({"id": Uuid::new_v4(),
        "instanceId": first.id, "sourceId": FOLIO_SOURCE, "permanentLocationId": MAIN_LIBRARY}))
    .unwrap();
    let item: Item =
        serde_json::from_value(item_body(holdings.id.unwrap(), "Checked out")).unwrap();
    let (instances, holdings, items) = f
        .tenant
        .write(|w| {
            let actor = Actor::default();
            Ok::<_, inventory::Error>((
                inventory::save_batch(w, vec![first, second], false, actor)?,
                inventory::save_batch(w, vec![holdings], false, actor)?,
                inventory::save_batch(w, vec![item], false, actor)?,
            ))
        })
        .unwrap();
    build.add(&instances, &holdings, &items).unwrap();
    let written = f.tenant.last_seq().unwrap();
    assert_eq!(
        f.tenant
            .read(|r| r.count_changes(before, written, &["instance", "holdings", "item"]))
            .unwrap(),
        4
    );
    assert_eq!(build.covered_seq(&f.tenant, written).unwrap(), written);
    // Written by someone else after the bulk load's own writes.
    create_instance(&f.tenant, "late", "Came later");
    let last = f.tenant.last_seq().unwrap();
    assert_eq!(build.covered_seq(&f.tenant, last).unwrap(), before, "not ours: replay it");

    let stats = index.finish_bulk_build(&f.tenant, build, written).unwrap();
    assert_eq!((stats.instances, stats.replayed), (3, 1));
    let queries = [
        "cql.allRecords=1",
        "hrid == pre",
        "hrid == late",
        "title all bulk",
        "items.status.name == \"Checked out\"",
        "holdings.permanentLocationId == fcd64ce1-6995-48f0-840e-89ffa2288371",
        "items.hrid = *",
        "holdings.hrid = *",
    ];
    let counts = |index: &InstanceIndex| queries.map(|q| count(index, q));
    let bulk = counts(&index);
    assert_eq!(bulk, [4, 1, 1, 2, 1, 1, 1, 1]);
    index.reindex(&f.tenant, |_| {}).unwrap();
    assert_eq!(counts(&index), bulk, "a build from the store agrees");

    // Dropped unfinished, it leaves the index as it was and free to rebuild.
    drop(index.bulk_build(&f.tenant).unwrap());
    assert_eq!(counts(&index), bulk);
    index.reindex(&f.tenant, |_| {}).unwrap();

    // Finished with the sequence number from before, it replays everything after it.
    let build = index.bulk_build(&f.tenant).unwrap();
    let stats = index.finish_bulk_build(&f.tenant, build, before).unwrap();
    assert_eq!(stats.replayed, 5);
    assert_eq!(counts(&index), bulk);
}
