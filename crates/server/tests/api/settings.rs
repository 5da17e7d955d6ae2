//! Configuration entries (mod-configuration) and staff slips: what FOLIO's desk pages
//! read besides circulation itself.

use axum::http::StatusCode;
use serde_json::json;

use crate::support::{Client, TestApp};

#[tokio::test]
async fn configuration_entries_crud_unique_keys_and_errors() {
    let app = TestApp::new();
    let client = Client::admin(&app, "diku").await;
    let settings = json!({"module": "CHECKOUT", "configName": "other_settings",
        "enabled": true, "value": "{\"audioAlertsEnabled\":false,\"checkoutTimeout\":true}"});
    let r = client.post("/configurations/entries", &settings).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_string();
    assert!(r.body["metadata"]["createdDate"].is_string());

    // The page's query, exactly as FOLIO's UI sends it.
    let q = "/configurations/entries?query=%28module%3D%3DCHECKOUT%20and%20configName%3D%3Dother_settings%29";
    let r = client.get(q).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["totalRecords"], 1);
    assert_eq!(r.body["configs"][0]["value"], settings["value"]);

    // Same module, name and (absent) code: refused, nothing written.
    let r = client.post("/configurations/entries", &settings).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert!(r.error().0.contains("already exists"), "{}", r.text);
    assert_eq!(client.get(q).await.body["totalRecords"], 1);

    let mut changed = settings.clone();
    changed["value"] = json!("{\"checkoutTimeout\":false}");
    let r = client.put(&format!("/configurations/entries/{id}"), &changed).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let r = client.get(&format!("/configurations/entries/{id}")).await;
    assert_eq!(r.body["value"], changed["value"]);

    let r = client.post("/configurations/entries", &json!({"module": "ORG"})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    let r = app
        .send(
            axum::http::Method::POST,
            "/configurations/entries",
            Some("diku"),
            Some(&client.token),
            Some(b"{\"module\":".to_vec()),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);

    let r = client.delete(&format!("/configurations/entries/{id}")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = client.get(&format!("/configurations/entries/{id}")).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    // Another tenant's entries are its own.
    let other = Client::admin(&app, "other").await;
    assert_eq!(other.get(q).await.body["totalRecords"], 0);
}

#[tokio::test]
async fn a_new_tenant_has_folio_staff_slips() {
    let app = TestApp::new();
    let client = Client::admin(&app, "diku").await;
    let r = client.get("/staff-slips-storage/staff-slips?limit=1000").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let mut names: Vec<&str> = r.body["staffSlips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["Hold", "Pick slip", "Request delivery", "Transit"]);
    let r = client
        .post("/staff-slips-storage/staff-slips", &json!({"name": "Hold", "template": "<p/>"}))
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "a slip name is unique: {}", r.text);
}
