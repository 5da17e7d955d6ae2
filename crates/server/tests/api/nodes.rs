//! Several Quire nodes on one PostgreSQL database: each serves every tenant, keeps its
//! own search indexes following the shared change log, and their writes are serialised
//! per tenant as one process's are. On SQLite (one process per data directory) these
//! tests have nothing to check and say so.

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::json;

use crate::{
    circulation::{DESK_1, Desk},
    instances::urlencode,
    support::{Client, POLL, TestApp, blocking},
};

fn skipped() {
    eprintln!("skipped: several nodes need PostgreSQL (QUIRE_TEST_POSTGRES)");
}

/// A write through node 1 is searchable through node 2 once node 2's follower has
/// applied it, woken by the database's announcement of the commit.
#[tokio::test]
async fn a_write_through_one_node_is_found_through_another() {
    let app = TestApp::new();
    let Some(node2) = app.another_node() else { return skipped() };
    let c1 = Client::admin(&app, "diku").await;
    let c2 = Client { app: &node2, tenant: "diku".into(), token: c1.token.clone() };
    // Node 2's index and its follower, open before the write.
    let index2 = blocking(|| {
        let tenant = node2.store.tenant("diku").unwrap();
        node2.runtime.instances(&tenant).unwrap()
    });
    let written = Instant::now();
    let id = c1.create_instance("Nodewide heliotrope").await["id"].as_str().unwrap().to_string();
    let seq = blocking(|| app.store.tenant("diku").unwrap().last_seq().unwrap());
    let waited = blocking(|| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while index2.applied_seq() < seq {
            assert!(Instant::now() < deadline, "node 2's index at {}", index2.applied_seq());
            std::thread::sleep(POLL);
        }
        written.elapsed()
    });
    eprintln!("node 2 applied node 1's write {} ms after it", waited.as_millis());
    let cql = urlencode("title all heliotrope");
    let r = c2.get(&format!("/search/instances?query={cql}")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    assert_eq!(r.body["instances"][0]["id"], id.as_str());
    // And the record itself, through either node.
    let r = c2.get(&format!("/instance-storage/instances/{id}")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
}

/// Check-outs of one item sent at once through two nodes make exactly one loan: the
/// tenant's write lock orders them across processes as within one.
#[tokio::test]
async fn racing_check_outs_through_two_nodes_make_one_loan() {
    let app = TestApp::new();
    let Some(node2) = app.another_node() else { return skipped() };
    let desk = Desk::new(&app).await;
    let item = desk.item("RACE-1").await;
    for n in 0..16 {
        desk.patron(&format!("R-{n}"), json!({})).await;
    }
    let c2 = Client { app: &node2, tenant: "diku".into(), token: desk.c.token.clone() };
    let attempts = (0..16).map(|n| {
        let client = if n % 2 == 0 { &desk.c } else { &c2 };
        let body = json!({"itemBarcode": "RACE-1", "userBarcode": format!("R-{n}"),
            "servicePointId": DESK_1});
        async move { client.post("/circulation/check-out-by-barcode", &body).await.status }
    });
    let statuses = futures_util::future::join_all(attempts).await;
    let created = statuses.iter().filter(|s| **s == StatusCode::CREATED).count();
    let refused = statuses.iter().filter(|s| **s == StatusCode::UNPROCESSABLE_ENTITY).count();
    assert_eq!((created, refused), (1, 15), "{statuses:?}");
    let q = urlencode(&format!("(itemId=={} and status.name==Open)", item["id"].as_str().unwrap()));
    for client in [&desk.c, &c2] {
        let r = client.get(&format!("/loan-storage/loans?query={q}")).await;
        assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    }
}
