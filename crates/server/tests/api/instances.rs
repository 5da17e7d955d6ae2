use axum::http::StatusCode;
use serde_json::json;

use crate::support::{Client, TestApp};

#[tokio::test]
async fn crud_with_hrid_metadata_and_versions() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let created = c.create_instance("A primer").await;
    let id = created["id"].as_str().unwrap().to_string();
    assert_eq!(created["hrid"], "in00000000001");
    assert_eq!(created["_version"], 1);
    assert!(created["metadata"]["createdDate"].is_string());
    assert_eq!(c.create_instance("Second").await["hrid"], "in00000000002");

    let r = c.get(&format!("/instance-storage/instances/{id}")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["title"], "A primer");
    assert_eq!(r.body["identifiers"], json!([]), "arrays are present even when empty");

    let mut update = r.body.clone();
    update["title"] = json!("A primer, revised");
    assert_eq!(
        c.put(&format!("/instance-storage/instances/{id}"), &update).await.status,
        StatusCode::NO_CONTENT
    );
    let r = c.get(&format!("/instance-storage/instances/{id}")).await;
    assert_eq!(r.body["title"], "A primer, revised");
    assert_eq!(r.body["_version"], 2);
    assert_eq!(r.body["hrid"], "in00000000001");
    assert_eq!(r.body["metadata"]["createdDate"], created["metadata"]["createdDate"]);

    // A stale version is refused and changes nothing.
    let r = c.put(&format!("/instance-storage/instances/{id}"), &update).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);
    assert!(r.error().0.contains("Stored _version is 2, _version of request is 1"), "{}", r.text);
    assert_eq!(c.get(&format!("/instance-storage/instances/{id}")).await.body["_version"], 2);

    assert_eq!(
        c.delete(&format!("/instance-storage/instances/{id}")).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        c.get(&format!("/instance-storage/instances/{id}")).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        c.delete(&format!("/instance-storage/instances/{id}")).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn client_ids_and_hrids_are_kept_and_must_be_unique() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let mut body = c.instance_json("Mine").await;
    body["id"] = json!("7fbd5d84-62d1-44c6-9c45-6cb173998bbd");
    body["hrid"] = json!("myhrid1");
    let r = c.post("/instance-storage/instances", &body).await;
    assert_eq!(r.status, StatusCode::CREATED);
    assert_eq!(
        r.headers["location"],
        "/instance-storage/instances/7fbd5d84-62d1-44c6-9c45-6cb173998bbd"
    );
    assert_eq!(r.body["hrid"], "myhrid1");
    let r = c.post("/instance-storage/instances", &body).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    body["id"] = json!("8fbd5d84-62d1-44c6-9c45-6cb173998bbd");
    let r = c.post("/instance-storage/instances", &body).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().1[0].0, "hrid");
    assert_eq!(c.count("/instance-storage/instances").await, 1);
}

#[tokio::test]
async fn cql_list_queries() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let mut ids = Vec::new();
    for idx in 0..15 {
        ids.push(
            c.create_instance(&format!("Title {idx}")).await["id"].as_str().unwrap().to_string(),
        );
    }
    let r = c.get("/instance-storage/instances").await;
    assert_eq!(r.body["totalRecords"], 15);
    assert_eq!(r.body["instances"].as_array().unwrap().len(), 10, "FOLIO's default limit is 10");

    let r = c.get(&format!("/instance-storage/instances?query=id%3D%3D{}", ids[3])).await;
    assert_eq!(r.body["totalRecords"], 1);
    assert_eq!(r.body["instances"][0]["title"], "Title 3");

    let q = format!("(id==\"{}\" or id==\"{}\") and source==FOLIO", ids[1], ids[2]);
    let r = c.get(&format!("/instance-storage/instances?query={}", urlencode(&q))).await;
    assert_eq!(r.body["totalRecords"], 2, "{}", r.text);

    let r = c
        .get(&format!("/instance-storage/instances?query={}", urlencode("hrid==in0000000001*")))
        .await;
    assert_eq!(r.body["totalRecords"], 6, "in00000000010..15: {}", r.text);

    let r = c
        .get(&format!(
            "/instance-storage/instances?query={}&limit=3&offset=1",
            urlencode("cql.allRecords=1 sortBy hrid/sort.descending")
        ))
        .await;
    let hrids: Vec<&str> = r.body["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["hrid"].as_str().unwrap())
        .collect();
    assert_eq!(hrids, ["in00000000014", "in00000000013", "in00000000012"]);
    assert_eq!(r.body["totalRecords"], 15);

    let r = c
        .get(&format!("/instance-storage/instances?query={}", urlencode("hrid<>in00000000001")))
        .await;
    assert_eq!(r.body["totalRecords"], 14);
}

pub(crate) fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn business_view_adds_relationship_arrays() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let id = c.create_instance("Viewed").await["id"].as_str().unwrap().to_string();
    let r = c.get(&format!("/inventory/instances/{id}")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["title"], "Viewed");
    assert_eq!(r.body["isBoundWith"], false);
    assert_eq!(r.body["precedingTitles"], json!([]));
    let r = c.get("/inventory/instances?query=cql.allRecords%3D1").await;
    assert_eq!(r.body["totalRecords"], 1);
}

#[tokio::test]
async fn hrid_settings_number_new_records() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let path = "/hrid-settings-storage/hrid-settings";
    let defaults = c.get(path).await;
    assert_eq!(defaults.status, StatusCode::OK, "{}", defaults.text);
    assert_eq!(defaults.body["instances"], json!({"prefix": "in", "startNumber": 1}));
    assert_eq!(defaults.body["commonRetainLeadingZeroes"], true);
    assert_eq!(c.create_instance("First").await["hrid"], "in00000000001");

    // A new prefix and start number, without leading zeroes.
    let mut settings = defaults.body.clone();
    settings["instances"] = json!({"prefix": "lib", "startNumber": 500});
    settings["commonRetainLeadingZeroes"] = json!(false);
    assert_eq!(c.put(path, &settings).await.status, StatusCode::NO_CONTENT);
    assert_eq!(c.create_instance("Second").await["hrid"], "lib500");
    // The same start number again does not restart the counter; a GET PUT back neither.
    assert_eq!(c.put(path, &settings).await.status, StatusCode::NO_CONTENT);
    let stored = c.get(path).await.body;
    assert_eq!(c.put(path, &stored).await.status, StatusCode::NO_CONTENT);
    assert_eq!(c.create_instance("Third").await["hrid"], "lib501");
    assert_eq!(c.create_holdings().await["hrid"], "ho1", "each type keeps its own counter");

    settings["items"] = json!({"prefix": "it", "startNumber": 0});
    let r = c.put(path, &settings).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().1[0].0, "items.startNumber");
    let r = c.put(path, &json!({"instances": {"prefix": "x"}})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
}
