//! `/mapping-rules/{type}`: the MARC mapping rules a tenant's imports apply, as
//! mod-source-record-manager serves them.

use axum::http::StatusCode;
use serde_json::json;

use crate::support::{Client, TestApp};

#[tokio::test]
async fn mapping_rules_are_read_replaced_and_restored_per_tenant() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;

    let bib = c.get("/mapping-rules/marc-bib").await;
    assert_eq!(bib.status, StatusCode::OK, "{}", bib.text);
    assert_eq!(bib.body["245"][0]["target"], "title");
    assert_eq!(bib.body["650"].as_array().unwrap().len(), 9, "a rule per thesaurus");
    let holdings = c.get("/mapping-rules/marc-holdings").await;
    assert_eq!(holdings.body["852"][0]["entity"][1]["target"], "permanentLocationId");
    let authority = c.get("/mapping-rules/marc-authority").await;
    assert_eq!(authority.body["100"][0]["target"], "personalName");

    // A client's edit: GET, change one rule, PUT the whole set back.
    let mut edited = bib.body.clone();
    edited["500"][0]["entity"][1]["rules"] = json!([]);
    edited.as_object_mut().unwrap().remove("590");
    let r = c.put("/mapping-rules/marc-bib", &edited).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert!(r.body.get("590").is_none(), "the answer is the stored set");
    let again = c.get("/mapping-rules/marc-bib").await;
    assert!(again.body.get("590").is_none());
    assert_eq!(again.body["500"][0]["entity"][1]["rules"], json!([]));

    // Another tenant keeps the defaults.
    let other = Client::admin(&app, "other").await;
    assert!(other.get("/mapping-rules/marc-bib").await.body.get("590").is_some());

    let r = c.put("/mapping-rules/marc-bib/restore", &json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body, bib.body);
    assert_eq!(c.get("/mapping-rules/marc-bib").await.body, bib.body);

    // FOLIO's refusals, and Quire's check of the format: nothing is stored.
    let r = c.put_raw("/mapping-rules/marc-bib", b"not json".to_vec()).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert_eq!(r.error().0, "Can not update rules in non-JSON format");
    let r = c.put("/mapping-rules/marc-bib", &json!({"245": [{"subfield": ["a"]}]})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().0, "Invalid mapping rule at 245[0]: missing field `target`");
    assert_eq!(c.get("/mapping-rules/marc-bib").await.body, bib.body);
    let r = c.put("/mapping-rules/marc-authority", &authority.body).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert_eq!(r.error().0, "Can't edit MARC Authority default mapping rules");
    let r = c.get("/mapping-rules/marc-items").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert_eq!(r.error().0, "Only marc-bib, marc-holdings or marc-authority supported");
    let r = c.put("/mapping-rules/marc-items/restore", &json!({})).await;
    assert_eq!(r.error().0, "Only marc-bib or marc-holdings supported");
}
