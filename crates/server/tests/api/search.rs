//! Search over HTTP: the index follows writes, and FOLIO's errors come back.

use axum::http::StatusCode;
use serde_json::json;

use crate::{
    instances::urlencode,
    support::{Client, POLL, TestApp},
};

/// Searches once the tenant's indexes hold every write made so far (the follower gets
/// there within a second; the test brings them there itself, see
/// [`TestApp::catch_up`](crate::support::TestApp::catch_up)).
async fn search_caught_up(c: &Client<'_>, cql: &str) -> serde_json::Value {
    c.catch_up().await;
    let r = c.get(&format!("/search/instances?query={}", urlencode(cql))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    r.body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_become_searchable_and_deletes_disappear() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let mut ids = Vec::new();
    for title in ["The semantic web primer", "A primer of ecology", "Semantic fields"] {
        ids.push(c.create_instance(title).await["id"].as_str().unwrap().to_string());
    }
    let body = search_caught_up(&c, "title all primer").await;
    assert_eq!(body["totalRecords"], 2, "{body}");
    let titles: Vec<&str> = body["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["title"].as_str().unwrap())
        .collect();
    assert!(titles.contains(&"The semantic web primer") && titles.contains(&"A primer of ecology"));

    // Whole-value wildcards: a title ending with "primer".
    let body = search_caught_up(&c, "title all *primer").await;
    assert_eq!(body["totalRecords"], 1, "{body}");
    assert_eq!(body["instances"][0]["title"], "The semantic web primer");

    assert_eq!(
        c.delete(&format!("/instance-storage/instances/{}", ids[0])).await.status,
        StatusCode::NO_CONTENT
    );
    let body = search_caught_up(&c, "title all primer").await;
    assert_eq!(body["totalRecords"], 1, "{body}");

    // Tenants are separate indexes.
    let other = Client::admin(&app, "other").await;
    let r = other.get(&format!("/search/instances?query={}", urlencode("title all primer"))).await;
    assert_eq!(r.body["totalRecords"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_fields_filter_instances_and_facets_count_them() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let holdings = c.create_holdings().await;
    let item = c.item_json(&holdings["id"], "S-1").await;
    assert_eq!(c.post("/item-storage/items", &item).await.status, StatusCode::CREATED);
    let body = search_caught_up(&c, "items.status.name == Available").await;
    assert_eq!(body["totalRecords"], 1, "{body}");
    assert_eq!(body["instances"][0]["id"], holdings["instanceId"]);
    let r = c
        .get(&format!(
            "/search/instances/facets?query={}&facet=source:5",
            urlencode("cql.allRecords=1")
        ))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["facets"]["source"]["values"][0]["id"], "FOLIO", "{}", r.text);
    assert_eq!(r.body["facets"]["source"]["values"][0]["totalRecords"], 1);
    assert_eq!(r.body["totalRecords"], 1, "the number of facets: {}", r.text);
    // A facet leaves out its own field's filter: the other sources stay counted.
    let r = c
        .get(&format!(
            "/search/instances/facets?query={}&facet=source&facet=items.status.name",
            urlencode("source == MARC")
        ))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["facets"]["source"]["values"], json!([{"id": "FOLIO", "totalRecords": 1}]));
    assert_eq!(r.body["facets"]["items.status.name"]["values"], json!([]), "{}", r.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ids_stream_and_reindex_reports_status() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let template = c.instance_json("x").await;
    let instances: Vec<serde_json::Value> = (0..300)
        .map(|n| {
            let mut i = template.clone();
            i["title"] = json!(format!("Streamed {n}"));
            i
        })
        .collect();
    let r = c.post("/instance-storage/batch/synchronous", &json!({ "instances": instances })).await;
    assert_eq!(r.status, StatusCode::CREATED);
    let body = search_caught_up(&c, "title all streamed").await;
    assert_eq!(body["totalRecords"], 300, "{body}");
    let r = c.get(&format!("/instance-bulk/ids?query={}", urlencode("title all streamed"))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["totalRecords"], 300);
    let ids: std::collections::HashSet<&str> =
        r.body["ids"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 300);

    let r = c.post("/search/index/instance-records/reindex/full", &json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    // The reindex runs on a thread of its own: watch its status until it has finished,
    // merge included (`lastReindex` is set once the new generation serves, `compacting`
    // cleared once it is merged). No time limit: CI's reports a reindex that hangs.
    let status = loop {
        let r = c.get("/search/index/instance-records/reindex/status").await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        let status = r.body[0].clone();
        assert_ne!(status["status"], "UPLOAD_FAILED", "{}", r.text);
        if status["lastReindex"].is_object() && status["compacting"] == false {
            break status;
        }
        tokio::time::sleep(POLL).await;
    };
    assert_eq!(status["status"], "UPLOAD_COMPLETED", "{status}");
    assert_eq!(status["documents"], 300, "{status}");
    assert_eq!(status["lastReindex"]["instances"], 300, "{status}");
    // Merged into one segment, with no deleted documents; the index has applied the log.
    assert_eq!(
        (&status["segments"], &status["deletedDocuments"]),
        (&json!(1), &json!(0)),
        "{status}"
    );
    assert_eq!(status["appliedSequence"], status["changeLogSequence"], "{status}");
    let body = search_caught_up(&c, "title all streamed").await;
    assert_eq!(body["totalRecords"], 300);
    let r = c.post("/search/index/inventory/reindex", &json!({"resourceName": "instance"})).await;
    assert_eq!(r.body["jobStatus"], "In progress", "{}", r.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn folio_errors_for_bad_queries_and_paging() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let r = c.get(&format!("/search/instances?query={}", urlencode("title all (unclosed"))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        r.error().0,
        "Failed to parse CQL query [cql: 'title all (unclosed', resource: instance]"
    );
    let r = c.get(&format!("/search/instances?query={}", urlencode("colour = blue"))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        r.error(),
        (
            "Invalid search field provided in the CQL query".to_string(),
            vec![("field".to_string(), "colour".to_string())]
        )
    );
    let r = c.get(&format!("/search/instances?query={}", urlencode("title within x"))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.error().0.contains("'within' is not supported"), "{}", r.text);
    let r = c
        .get(&format!(
            "/search/instances?query={}&limit=500&offset=9600",
            urlencode("cql.allRecords=1")
        ))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let r = c.get("/search/instances").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}
