use axum::http::{Method, StatusCode};

use crate::support::{Client, TestApp};

#[tokio::test]
async fn health_and_metrics() {
    let app = TestApp::new();
    let r = app.send(Method::GET, "/admin/health", None, None, None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["status"], "UP");

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

#[tokio::test]
async fn responses_carry_a_request_id() {
    let app = TestApp::new();
    let r = app.send(Method::GET, "/admin/health", None, None, None).await;
    assert!(r.headers.contains_key("x-okapi-request-id"));
}
