use axum::http::{Method, StatusCode};

use crate::support::{Client, TestApp, blocking};

#[tokio::test]
async fn health_and_metrics() {
    let app = TestApp::new();
    let r = app.send(Method::GET, "/admin/health", None, None, None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["status"], "UP");
    assert_eq!(r.body["node"], app.store.node());
    assert_eq!(r.body["store"]["reachable"], true);
    assert_eq!(r.body["tenants"], 2);

    let client = Client::admin(&app, "diku").await;
    client.get("/instance-storage/instances").await;
    client.get("/instance-storage/instances/00000000-0000-4000-8000-000000000000").await;
    let r = app.send(Method::GET, "/admin/metrics", None, None, None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.text.contains(
        "quire_http_requests_total{method=\"GET\",route=\"/instance-storage/instances/{id}\",status=\"404\"} 1"
    ), "{}", r.text);
    assert!(r.text.contains("quire_http_request_duration_seconds_count{method=\"GET\",route=\"/instance-storage/instances\"} 1"));
}

/// A node's health shows, per tenant, the head of the change log, how far its search
/// and harvest indexes have applied it, whether a search index is being rebuilt, and the
/// job leases it holds.
#[tokio::test]
async fn health_shows_replica_lag_and_the_jobs_a_node_holds() {
    let app = TestApp::new();
    let client = Client::admin(&app, "diku").await;
    client.create_instance("Health of the replicas").await;
    let tenant = app.store.tenant("diku").unwrap();
    let index = blocking(|| app.runtime.instances(&tenant).unwrap());
    let head = blocking(|| tenant.last_seq().unwrap());
    blocking(|| index.catch_up(&tenant).unwrap());
    assert!(blocking(|| tenant
        .hold_lease("import:health", std::time::Duration::from_secs(60))
        .unwrap()));
    let r = app.send(Method::GET, "/admin/health", None, None, None).await;
    let diku = &r.body["replicas"]["diku"];
    assert!(diku["head"].as_i64().unwrap() >= head, "{}", r.text);
    assert!(diku["indexes"]["instancesApplied"].as_i64().unwrap() >= head, "{}", r.text);
    assert_eq!(diku["indexes"]["reindexing"], false, "{}", r.text);
    assert_eq!(diku["harvest"], serde_json::Value::Null, "no harvest follower yet: {}", r.text);
    assert_eq!(diku["jobs"], serde_json::json!(["import:health"]), "{}", r.text);
    assert_eq!(r.body["replicas"]["other"]["jobs"], serde_json::json!([]), "{}", r.text);

    // The harvest follower reports how far it has applied the log; it catches up on its own.
    blocking(|| app.runtime.follow_harvest_indexes().unwrap());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let r = app.send(Method::GET, "/admin/health", None, None, None).await;
        let harvest = &r.body["replicas"]["diku"]["harvest"];
        let applied = harvest["applied"].as_i64().unwrap();
        if applied >= head {
            let now = r.body["replicas"]["diku"]["head"].as_i64().unwrap();
            assert_eq!(harvest["lag"].as_i64().unwrap(), (now - applied).max(0), "{}", r.text);
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the harvest index never caught up: {}",
            r.text
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn responses_carry_a_request_id() {
    let app = TestApp::new();
    let r = app.send(Method::GET, "/admin/health", None, None, None).await;
    assert!(r.headers.contains_key("x-okapi-request-id"));
}
