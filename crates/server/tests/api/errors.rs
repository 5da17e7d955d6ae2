//! Bad input gets a specific error and changes nothing.

use axum::http::StatusCode;
use serde_json::json;

use crate::{
    instances::urlencode,
    support::{Client, TestApp},
};

#[tokio::test]
async fn malformed_and_invalid_bodies() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let path = "/instance-storage/instances";

    let r = c.post_raw(path, b"{\"title\": ".to_vec()).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.error().0.starts_with("Malformed JSON"), "{}", r.text);

    let mut body = c.instance_json("x").await;
    body.as_object_mut().unwrap().remove("title");
    let r = c.post(path, &body).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        r.error(),
        ("must not be null".to_string(), vec![("title".to_string(), "null".to_string())])
    );

    let mut body = c.instance_json("x").await;
    body["title"] = json!(42);
    let r = c.post(path, &body).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(r.error().1[0].0, "title");

    let mut body = c.instance_json("x").await;
    body["instanceTypeId"] = json!("not-a-uuid");
    let r = c.post(path, &body).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(r.error().1[0].0, "instanceTypeId");

    let mut body = c.instance_json("x").await;
    body["colour"] = json!("blue");
    let r = c.post(path, &body).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(r.error().1[0].0, "colour");

    let item = json!({"holdingsRecordId": uuid::Uuid::new_v4(), "status": {}, "materialTypeId": uuid::Uuid::new_v4(), "permanentLoanTypeId": uuid::Uuid::new_v4()});
    let r = c.post("/item-storage/items", &item).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(r.error().1[0].0, "status.name");

    assert_eq!(c.count(path).await, 0);
    assert_eq!(c.count("/item-storage/items").await, 0);
}

#[tokio::test]
async fn bad_ids_and_paths() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let r = c.get("/instance-storage/instances/not-a-uuid").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.error().1, vec![("id".to_string(), "not-a-uuid".to_string())]);
    let r = c.get("/instance-storage/instances/9a2f3c55-31b7-4c47-9d8c-111111111111").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = c.get("/no/such/endpoint").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let body = c.create_instance("Mismatch").await;
    let r = c.put("/instance-storage/instances/9a2f3c55-31b7-4c47-9d8c-111111111111", &body).await;
    assert_eq!(
        r.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "body id differs from path id: {}",
        r.text
    );
    let r = c.get("/instance-storage/instances?limit=ten").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.error().1, vec![("limit".to_string(), "ten".to_string())]);
}

#[tokio::test]
async fn unsupported_and_malformed_cql() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let r = c
        .get(&format!(
            "/instance-storage/instances?query={}",
            urlencode("title all \"war and peace\"")
        ))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.error().1, vec![("field".to_string(), "title".to_string())]);
    let r =
        c.get(&format!("/item-storage/items?query={}", urlencode("barcode within \"a b\""))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.error().0.contains("within"), "{}", r.text);
    let r = c.get(&format!("/item-storage/items?query={}", urlencode("barcode==(a or"))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.error().0.starts_with("Invalid CQL"), "{}", r.text);
}

#[tokio::test]
async fn oversized_bodies_get_413() {
    let app =
        TestApp::with_config(server::Config { max_body_bytes: 1024, ..server::Config::default() });
    let c = Client::admin(&app, "diku").await;
    let mut body = c.instance_json("x").await;
    body["title"] = json!("y".repeat(4096));
    let r = c.post("/instance-storage/instances", &body).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", r.text);
    assert!(r.error().0.contains("1024"));
    assert_eq!(c.count("/instance-storage/instances").await, 0);
}

/// Each kind of failure has its own code: FOLIO's bean-validation codes for the
/// constraints' messages, FOLIO's `not_found_error`, and a code per kind beside them.
#[tokio::test]
async fn error_codes_say_what_failed() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let code = |r: &crate::support::Response| {
        r.body["errors"][0]["code"].as_str().unwrap_or("").to_string()
    };

    let mut body = c.instance_json("x").await;
    body.as_object_mut().unwrap().remove("title");
    let r = c.post("/instance-storage/instances", &body).await;
    assert_eq!(code(&r), "javax.validation.constraints.NotNull.message", "{}", r.text);

    let mut body = c.instance_json("x").await;
    body["dates"] = json!({"date1": "20141"});
    let r = c.post("/instance-storage/instances", &body).await;
    assert_eq!(code(&r), "javax.validation.constraints.Size.message", "{}", r.text);

    let mut body = c.instance_json("x").await;
    body["colour"] = json!("blue");
    let r = c.post("/instance-storage/instances", &body).await;
    assert_eq!((r.status, code(&r)), (StatusCode::UNPROCESSABLE_ENTITY, "validation_error".into()));

    let entry = json!({"module": "CHECKOUT", "configName": "other_settings", "value": "{}"});
    assert_eq!(c.post("/configurations/entries", &entry).await.status, StatusCode::CREATED);
    let r = c.post("/configurations/entries", &entry).await;
    assert_eq!((r.status, code(&r)), (StatusCode::UNPROCESSABLE_ENTITY, "value.duplicate".into()));
    let path = format!("/configurations/entries/{}", uuid::Uuid::new_v4());
    let r =
        c.put(&path, &json!({"id": uuid::Uuid::new_v4(), "module": "M", "configName": "n"})).await;
    assert_eq!((r.status, code(&r)), (StatusCode::UNPROCESSABLE_ENTITY, "id_mismatch".into()));

    let r = c.get(&format!("/instance-storage/instances/{}", uuid::Uuid::new_v4())).await;
    assert_eq!((r.status, code(&r)), (StatusCode::NOT_FOUND, "not_found_error".into()));

    // A path that exists, with a method it does not take.
    let r = c.post("/circulation/loans", &json!({})).await;
    assert_eq!((r.status, code(&r)), (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed".into()));
    let r = c.delete(&format!("/circulation/requests/{}", uuid::Uuid::new_v4())).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{}", r.text);
    assert!(r.error().0.contains("method"), "{}", r.text);
}
