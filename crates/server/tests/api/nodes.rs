//! Several Quire nodes on one PostgreSQL database: each serves every tenant, keeps its
//! own search indexes following the shared change log, and their writes are serialised
//! per tenant as one process's are. On SQLite (one process per data directory) these
//! tests have nothing to check and say so.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use axum::http::StatusCode;
use serde_json::json;

use crate::{
    circulation::{DESK_1, Desk},
    instances::urlencode,
    oai::{Harvester, library, token},
    support::{Client, POLL, TestApp, blocking},
};

fn skipped() {
    eprintln!("skipped: several nodes need PostgreSQL (QUIRE_TEST_POSTGRES)");
}

/// A write through node 1 is searchable through nodes 2 and 3 once their followers have
/// applied it, woken by the database's announcement of the commit.
#[tokio::test]
async fn a_write_through_one_node_is_found_through_the_others() {
    let app = TestApp::new();
    let Some(node2) = app.another_node() else { return skipped() };
    let node3 = app.another_node().expect("a third node");
    let c1 = Client::admin(&app, "diku").await;
    // The other nodes' indexes and their followers, open before the write.
    let indexes = blocking(|| {
        [&node2, &node3].map(|node| {
            let tenant = node.store.tenant("diku").unwrap();
            node.runtime.instances(&tenant).unwrap()
        })
    });
    let written = Instant::now();
    let id = c1.create_instance("Nodewide heliotrope").await["id"].as_str().unwrap().to_string();
    let seq = blocking(|| app.store.tenant("diku").unwrap().last_seq().unwrap());
    for (n, index) in [2, 3].into_iter().zip(indexes) {
        let waited = blocking(|| {
            let deadline = Instant::now() + Duration::from_secs(30);
            while index.applied_seq() < seq {
                assert!(Instant::now() < deadline, "node {n}'s index at {}", index.applied_seq());
                std::thread::sleep(POLL);
            }
            written.elapsed()
        });
        eprintln!("node {n} applied node 1's write {} ms after it", waited.as_millis());
    }
    for node in [&node2, &node3] {
        let client = Client { app: node, tenant: "diku".into(), token: c1.token.clone() };
        let cql = urlencode("title all heliotrope");
        let r = client.get(&format!("/search/instances?query={cql}")).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
        assert_eq!(r.body["instances"][0]["id"], id.as_str());
        // And the record itself.
        let r = client.get(&format!("/instance-storage/instances/{id}")).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    }
}

/// Fifty check-outs of one item sent at once, spread across three nodes, make exactly
/// one loan: the tenant's write lock orders them across processes as within one.
#[tokio::test]
async fn racing_check_outs_through_three_nodes_make_one_loan() {
    let app = TestApp::new();
    let Some(node2) = app.another_node() else { return skipped() };
    let node3 = app.another_node().expect("a third node");
    let desk = Desk::new(&app).await;
    let item = desk.item("RACE-1").await;
    for n in 0..50 {
        desk.patron(&format!("R-{n}"), json!({})).await;
    }
    let c2 = Client { app: &node2, tenant: "diku".into(), token: desk.c.token.clone() };
    let c3 = Client { app: &node3, tenant: "diku".into(), token: desk.c.token.clone() };
    let clients = [&desk.c, &c2, &c3];
    let attempts = (0..50).map(|n| {
        let client = clients[n % 3];
        let body = json!({"itemBarcode": "RACE-1", "userBarcode": format!("R-{n}"),
            "servicePointId": DESK_1});
        async move { client.post("/circulation/check-out-by-barcode", &body).await.status }
    });
    let statuses = futures_util::future::join_all(attempts).await;
    let created = statuses.iter().filter(|s| **s == StatusCode::CREATED).count();
    let refused = statuses.iter().filter(|s| **s == StatusCode::UNPROCESSABLE_ENTITY).count();
    assert_eq!((created, refused), (1, 49), "{statuses:?}");
    let q = urlencode(&format!("(itemId=={} and status.name==Open)", item["id"].as_str().unwrap()));
    for client in clients {
        let r = client.get(&format!("/loan-storage/loans?query={q}")).await;
        assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    }
}

/// An OAI-PMH harvest started on node 2 goes on on node 3 with node 2's resumption
/// token, and gets every record once: a token carries all it needs.
#[tokio::test]
async fn a_resumption_token_from_one_node_goes_on_on_another() {
    let app = TestApp::new();
    let Some(node2) = app.another_node() else { return skipped() };
    let node3 = app.another_node().expect("a third node");
    let (_c, h1, _) = library(&app).await;
    let h2 = Harvester { app: &node2, key: h1.key.clone() };
    let h3 = Harvester { app: &node3, key: h1.key.clone() };
    let first = h2.get("verb=ListRecords&metadataPrefix=marc21").await;
    let resume = token(&first).expect("a first page of 100 of 103 has a token");
    let second = h3.get(&format!("verb=ListRecords&resumptionToken={resume}")).await;
    assert!(second.contains("cursor=\"100\""), "{second}");
    let identifiers: Vec<&str> = [&first, &second]
        .iter()
        .flat_map(|page| page.split("<header").skip(1))
        .map(|header| {
            let start = header.find("<identifier>").unwrap() + "<identifier>".len();
            &header[start..start + header[start..].find('<').unwrap()]
        })
        .collect();
    let distinct: std::collections::HashSet<_> = identifiers.iter().collect();
    assert_eq!((identifiers.len(), distinct.len()), (103, 103));
}

/// Two nodes with an event publisher each: one publishes the tenant's events (holds the
/// lease), the other stands by, and takes over when the first stops.
#[tokio::test]
async fn one_node_publishes_a_tenants_events_and_another_takes_over() {
    let app = TestApp::new();
    let Some(node2) = app.another_node() else { return skipped() };
    // No broker is needed to see who publishes: the lease decides before Kafka is tried.
    let options = || events::Options::new(events::KafkaOptions::new(vec!["127.0.0.1:9".into()]));
    let start = |store| blocking(|| Arc::new(events::Publisher::start(store, options()).unwrap()));
    let one = start(app.store.clone());
    let two = start(node2.store.clone());
    let publishing = |publisher: &events::Publisher| {
        publisher.status().get("diku").is_some_and(|status| status.publishing)
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    let first_is_one = loop {
        match (publishing(&one), publishing(&two)) {
            (true, false) => break true,
            (false, true) => break false,
            (true, true) => panic!("both nodes publish"),
            (false, false) => {}
        }
        assert!(Instant::now() < deadline, "no node publishes");
        tokio::time::sleep(POLL).await;
    };
    let (stopped, standby) = if first_is_one { (one, two) } else { (two, one) };
    blocking(move || drop(stopped));
    let deadline = Instant::now() + Duration::from_secs(30);
    while !publishing(&standby) {
        assert!(Instant::now() < deadline, "the standby did not take over");
        tokio::time::sleep(POLL).await;
    }
}

/// A reindex asked of node 1 is recorded in the store; node 2 finds the request when it
/// next looks for work and rebuilds its own copy of the index.
#[tokio::test]
async fn a_reindex_asked_of_one_node_rebuilds_every_nodes_index() {
    let app = TestApp::new();
    let Some(node2) = app.another_node() else { return skipped() };
    let c1 = Client::admin(&app, "diku").await;
    c1.create_instance("Reindexed everywhere").await;
    let tenant2 = node2.store.tenant("diku").unwrap();
    let index2 = blocking(|| node2.runtime.instances(&tenant2).unwrap());
    // Node 2's first look finds no request it has not acted on.
    blocking(|| node2.runtime.resume_jobs());
    assert_eq!(index2.status().last_reindex, None);
    let before = index2.status().generation;

    let r = c1.post("/search/index/instance-records/reindex/full", &json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    blocking(|| node2.runtime.resume_jobs());
    let deadline = Instant::now() + Duration::from_secs(60);
    while index2.status().last_reindex.is_none() {
        assert!(Instant::now() < deadline, "node 2 did not reindex: {:?}", index2.status());
        tokio::time::sleep(POLL).await;
    }
    assert_ne!(index2.status().generation, before);
    let r = Client { app: &node2, tenant: "diku".into(), token: c1.token.clone() }
        .get(&format!("/search/instances?query={}", urlencode("title all everywhere")))
        .await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
}
