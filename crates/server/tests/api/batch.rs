use axum::http::StatusCode;
use serde_json::json;

use crate::support::{Client, TestApp};

#[tokio::test]
async fn batch_upsert_is_all_or_nothing() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let template = c.instance_json("x").await;
    let mut instances: Vec<serde_json::Value> = (0..200)
        .map(|idx| {
            let mut i = template.clone();
            i["id"] = json!(uuid::Uuid::from_u128(idx + 1).to_string());
            i["title"] = json!(format!("Batch {idx}"));
            i
        })
        .collect();
    let r = c.post("/instance-storage/batch/synchronous", &json!({ "instances": instances })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(c.count("/instance-storage/instances").await, 200);

    // Without upsert, existing ids fail the whole batch.
    let r = c.post("/instance-storage/batch/synchronous", &json!({ "instances": instances })).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);

    // With upsert they are updated; a bad record in the middle rolls everything back.
    for i in &mut instances {
        i["title"] = json!("Updated");
    }
    instances[150]["instanceTypeId"] = json!("33333333-3333-4333-8333-333333333333");
    let r = c
        .post("/instance-storage/batch/synchronous?upsert=true", &json!({ "instances": instances }))
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert!(r.error().1[0].0.starts_with("[150]"), "{}", r.text);
    let first = c.get(&format!("/instance-storage/instances/{}", uuid::Uuid::from_u128(1))).await;
    assert_eq!(first.body["title"], "Batch 0", "nothing of a failed batch is kept");

    instances[150]["instanceTypeId"] = template["instanceTypeId"].clone();
    let r = c
        .post("/instance-storage/batch/synchronous?upsert=true", &json!({ "instances": instances }))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let first = c.get(&format!("/instance-storage/instances/{}", uuid::Uuid::from_u128(1))).await;
    assert_eq!(first.body["title"], "Updated");
    assert_eq!(first.body["_version"], 2);
    assert_eq!(c.count("/instance-storage/instances").await, 200);
}

#[tokio::test]
async fn holdings_and_item_batches() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let holdings = c.create_holdings().await;
    let mut items = Vec::new();
    for idx in 0..50 {
        items.push(c.item_json(&holdings["id"], &format!("batch-{idx}")).await);
    }
    let r = c.post("/item-storage/batch/synchronous", &json!({ "items": items })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(c.count("/item-storage/items").await, 50);
    let mut h2 = holdings.clone();
    h2["id"] = json!(uuid::Uuid::new_v4().to_string());
    h2.as_object_mut().unwrap().remove("hrid");
    let r =
        c.post("/holdings-storage/batch/synchronous", &json!({ "holdingsRecords": [h2] })).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(c.count("/holdings-storage/holdings").await, 2);
}

#[tokio::test]
async fn every_write_is_in_the_change_log() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let tenant = app.store.tenant("diku").unwrap();
    let before = tenant.last_seq().unwrap();
    let instance = c.create_instance("Logged").await;
    let id = instance["id"].as_str().unwrap().to_string();
    let mut update = instance.clone();
    update["title"] = json!("Logged again");
    c.put(&format!("/instance-storage/instances/{id}"), &update).await;
    c.delete(&format!("/instance-storage/instances/{id}")).await;
    let changes = tenant.read(|r| r.changes_since(before, 100)).unwrap();
    let ops: Vec<(String, store::Operation)> =
        changes.iter().map(|ch| (ch.record_id.clone(), ch.op)).collect();
    assert_eq!(
        ops,
        vec![
            (id.clone(), store::Operation::Create),
            (id.clone(), store::Operation::Update),
            (id, store::Operation::Delete)
        ]
    );
    assert!(changes.windows(2).all(|w| w[0].seq < w[1].seq));
    assert!(changes.iter().all(|ch| ch.record_type == "instance"));
    // A refused write appends nothing.
    let last = tenant.last_seq().unwrap();
    let mut bad = c.instance_json("x").await;
    bad["title"] = json!(5);
    assert_eq!(
        c.post("/instance-storage/instances", &bad).await.status,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    assert_eq!(tenant.last_seq().unwrap(), last);
}

#[tokio::test]
async fn unsafe_batches_skip_optimistic_locking_and_retrieve_takes_cql_in_the_body() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let holdings = c.create_holdings().await;
    let mut items = Vec::new();
    for n in 0..3 {
        let item = c.item_json(&holdings["id"], &format!("UN-{n}")).await;
        items.push(c.post("/item-storage/items", &item).await.body);
    }
    // A stale `_version`: the safe batch refuses it, the unsafe one writes over it.
    let path = format!("/item-storage/items/{}", items[0]["id"].as_str().unwrap());
    let mut edited = c.get(&path).await.body;
    edited["copyNumber"] = json!("c.1");
    assert_eq!(c.put(&path, &edited).await.status, StatusCode::NO_CONTENT);
    let mut stale = items.clone();
    stale[0]["copyNumber"] = json!("c.2");
    let body = json!({ "items": stale });
    let r = c.post("/item-storage/batch/synchronous?upsert=true", &body).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);
    let r = c.post("/item-storage/batch/synchronous-unsafe?upsert=true", &body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let item = c.get(&path).await.body;
    assert_eq!((&item["copyNumber"], &item["_version"]), (&json!("c.2"), &json!(3)));

    // `retrieve`: the list, with its query and paging in the body.
    let ids: Vec<&str> = items.iter().map(|i| i["id"].as_str().unwrap()).collect();
    let query = format!("id==({}) sortBy barcode", ids.join(" or "));
    let r = c.post("/item-storage/items/retrieve", &json!({"query": query, "limit": 2})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["totalRecords"], 3);
    let barcodes: Vec<&str> = r.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["barcode"].as_str().unwrap())
        .collect();
    assert_eq!(barcodes, ["UN-0", "UN-1"]);
    let r = c.post("/holdings-storage/holdings/retrieve", &json!({})).await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    let r = c.post("/item-storage/items/retrieve", &json!({"limit": -1})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let r = c.post("/item-storage/items/retrieve", &json!({"query": "id==", "limt": 2})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
}
