use axum::http::{Method, StatusCode};
use serde_json::json;

use crate::support::{Client, TestApp};

#[tokio::test]
async fn unknown_missing_and_invalid_tenants_get_400() {
    let app = TestApp::new();
    let body = json!({"username": "admin", "password": "x"}).to_string().into_bytes();
    let r = app.send(Method::POST, "/authn/login", Some("nosuch"), None, Some(body.clone())).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.error().0, "No such tenant: nosuch");
    let r = app.send(Method::POST, "/authn/login", None, None, Some(body.clone())).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.error().0.contains("X-Okapi-Tenant"));
    let r = app.send(Method::POST, "/authn/login", Some("../etc"), None, Some(body)).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn records_are_invisible_across_tenants() {
    let app = TestApp::new();
    let diku = Client::admin(&app, "diku").await;
    let other = Client::admin(&app, "other").await;
    let instance = diku.create_instance("Only in diku").await;
    let id = instance["id"].as_str().unwrap();
    assert_eq!(diku.get(&format!("/instance-storage/instances/{id}")).await.status, StatusCode::OK);
    assert_eq!(
        other.get(&format!("/instance-storage/instances/{id}")).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(other.count("/instance-storage/instances").await, 0);
    let r = other.get(&format!("/instance-storage/instances?query=id=={id}")).await;
    assert_eq!(r.body["totalRecords"], 0);
}

#[tokio::test]
async fn tenant_api_creates_tenants_idempotently() {
    let app = TestApp::new();
    let body = json!({
        "module_to": "mod-quire-1.0.0",
        "parameters": [{"key": "loadReference", "value": "true"}, {"key": "adminUsername", "value": "boss"}, {"key": "adminPassword", "value": "pw"}]
    })
    .to_string()
    .into_bytes();
    for _ in 0..2 {
        let r =
            app.send(Method::POST, "/_/tenant", Some("fresh_1"), None, Some(body.clone())).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    }
    let token = app.login_as("fresh_1", "boss", "pw").await;
    let client = Client { app: &app, tenant: "fresh_1".into(), token };
    let n_locations = client.count("/locations").await;
    assert!(n_locations > 0);
    let r = app.send(Method::POST, "/_/tenant", Some("Bad-Name"), None, Some(body)).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.error().0.contains("Invalid tenant name"), "{}", r.text);
}

#[tokio::test]
async fn tenant_api_can_be_guarded_by_a_key() {
    let app = TestApp::with_config(server::Config {
        admin_key: Some("k3y".into()),
        ..server::Config::default()
    });
    let r = app.send(Method::POST, "/_/tenant", Some("t2"), None, Some(b"{}".to_vec())).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let request = axum::http::Request::builder()
        .method("POST")
        .uri("/_/tenant")
        .header("x-okapi-tenant", "t2")
        .header("x-quire-admin-key", "k3y")
        .body(axum::body::Body::from("{}"))
        .unwrap();
    let response = tower::ServiceExt::oneshot(app.router.clone(), request).await.unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert!(app.store.tenant("t2").is_ok());
}
