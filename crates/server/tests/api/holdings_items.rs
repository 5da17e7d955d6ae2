use axum::http::StatusCode;
use serde_json::json;

use crate::{
    instances::urlencode,
    support::{Client, TestApp},
};

#[tokio::test]
async fn items_derive_effective_fields_from_holdings() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let holdings = c.create_holdings().await;
    assert_eq!(holdings["hrid"], "ho00000000001");
    assert_eq!(holdings["effectiveLocationId"], holdings["permanentLocationId"]);
    let item = c.item_json(&holdings["id"], "B-1").await;
    let r = c.post("/item-storage/items", &item).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let item = r.body;
    assert_eq!(item["effectiveLocationId"], holdings["permanentLocationId"]);
    assert_eq!(item["effectiveCallNumberComponents"]["callNumber"], "QA76 .B3");
    assert!(item["status"]["date"].is_string());

    // Moving the holdings moves the item's effective location.
    let locations = c.get("/locations?limit=10").await.body["locations"].clone();
    let other = locations
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] != holdings["permanentLocationId"])
        .unwrap()["id"]
        .clone();
    let mut moved = holdings.clone();
    moved["permanentLocationId"] = other.clone();
    let holdings_path = format!("/holdings-storage/holdings/{}", holdings["id"].as_str().unwrap());
    assert_eq!(c.put(&holdings_path, &moved).await.status, StatusCode::NO_CONTENT);
    let item_path = format!("/item-storage/items/{}", item["id"].as_str().unwrap());
    assert_eq!(c.get(&item_path).await.body["effectiveLocationId"], other);

    // The business view names what the ids point to.
    let r = c.get(&format!("/inventory/items?query={}", urlencode("barcode==\"b-1\""))).await;
    assert_eq!(r.body["totalRecords"], 1, "barcodes compare case-insensitively: {}", r.text);
    let view = &r.body["items"][0];
    assert_eq!(view["title"], "Holdings test");
    assert_eq!(view["materialType"]["name"], "book");
    assert_eq!(view["permanentLoanType"]["name"], "Can circulate");
    assert_eq!(view["effectiveLocation"]["id"], other);
    assert!(view["effectiveLocation"]["name"].as_str().is_some_and(|n| !n.is_empty()));
    assert_eq!(view["callNumber"], "QA76 .B3");

    // Dependants block deletes.
    let instance_path =
        format!("/instance-storage/instances/{}", holdings["instanceId"].as_str().unwrap());
    assert_eq!(c.delete(&instance_path).await.status, StatusCode::BAD_REQUEST);
    assert_eq!(c.delete(&holdings_path).await.status, StatusCode::BAD_REQUEST);
    assert_eq!(c.delete(&item_path).await.status, StatusCode::NO_CONTENT);
    assert_eq!(c.delete(&holdings_path).await.status, StatusCode::NO_CONTENT);
    assert_eq!(c.delete(&instance_path).await.status, StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn item_queries_and_unique_barcodes() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let holdings = c.create_holdings().await;
    for (idx, status) in ["Available", "Checked out", "Available"].iter().enumerate() {
        let mut item = c.item_json(&holdings["id"], &format!("BC{idx}")).await;
        item["status"]["name"] = json!(status);
        assert_eq!(c.post("/item-storage/items", &item).await.status, StatusCode::CREATED);
    }
    let dup = c.item_json(&holdings["id"], "bc0").await;
    let r = c.post("/item-storage/items", &dup).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().1[0].0, "barcode");

    let q = |cql: &str| format!("/item-storage/items?query={}", urlencode(cql));
    assert_eq!(c.get(&q("status.name==\"Available\"")).await.body["totalRecords"], 2);
    assert_eq!(
        c.get(&q("status.name==\"available\"")).await.body["totalRecords"],
        0,
        "item status is case-sensitive"
    );
    assert_eq!(c.get(&q("status.name<>\"Available\"")).await.body["totalRecords"], 1);
    let by_holdings = format!(
        "holdingsRecordId=={} sortBy barcode/sort.descending",
        holdings["id"].as_str().unwrap()
    );
    let r = c.get(&q(&by_holdings)).await;
    let barcodes: Vec<&str> = r.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["barcode"].as_str().unwrap())
        .collect();
    assert_eq!(barcodes, ["BC2", "BC1", "BC0"]);
    let r = c
        .get(&format!(
            "/holdings-storage/holdings?query={}",
            urlencode(&format!("instanceId=={}", holdings["instanceId"].as_str().unwrap()))
        ))
        .await;
    assert_eq!(r.body["totalRecords"], 1);
    assert_eq!(r.body["holdingsRecords"][0]["id"], holdings["id"]);
}

#[tokio::test]
async fn references_must_exist() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let holdings = c.create_holdings().await;
    let mut item = c.item_json(&holdings["id"], "X").await;
    item["materialTypeId"] = json!("11111111-1111-4111-8111-111111111111");
    let r = c.post("/item-storage/items", &item).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        r.error().1,
        vec![("materialTypeId".to_string(), "11111111-1111-4111-8111-111111111111".to_string())]
    );
    let item = c.item_json(&json!("22222222-2222-4222-8222-222222222222"), "Y").await;
    let r = c.post("/item-storage/items", &item).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(r.error().1[0].0, "holdingsRecordId");
    let mut instance = c.instance_json("No type").await;
    instance["instanceTypeId"] = json!("33333333-3333-4333-8333-333333333333");
    let r = c.post("/instance-storage/instances", &instance).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(c.count("/item-storage/items").await, 0);
}
