use axum::http::StatusCode;
use serde_json::json;

use crate::support::{Client, TestApp};

#[tokio::test]
async fn new_tenants_have_reference_data() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    for (path, key) in [
        ("/instance-types", "instanceTypes"),
        ("/contributor-name-types", "contributorNameTypes"),
        ("/identifier-types", "identifierTypes"),
        ("/holdings-types", "holdingsTypes"),
        ("/call-number-types", "callNumberTypes"),
        ("/material-types", "mtypes"),
        ("/loan-types", "loantypes"),
        ("/location-units/institutions", "locinsts"),
        ("/location-units/campuses", "loccamps"),
        ("/location-units/libraries", "loclibs"),
        ("/locations", "locations"),
        ("/service-points", "servicepoints"),
        ("/holdings-sources", "holdingsRecordsSources"),
    ] {
        let r = c.get(&format!("{path}?limit=1000")).await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.text);
        assert!(r.body[key].as_array().is_some_and(|a| !a.is_empty()), "{path}: {}", r.text);
        assert_eq!(
            r.body["totalRecords"].as_u64().unwrap() as usize,
            r.body[key].as_array().unwrap().len()
        );
    }
    // FOLIO's well-known ISBN identifier type keeps its id.
    assert_eq!(
        c.ref_id("/identifier-types", "identifierTypes", "ISBN").await,
        "8261054f-be78-422d-bd51-4ed9f33c3422"
    );
}

#[tokio::test]
async fn reference_crud_with_unique_names_and_in_use_checks() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let r = c.post("/material-types", &json!({"name": "zine", "source": "local"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_string();
    let r = c.post("/material-types", &json!({"name": "ZINE", "source": "local"})).await;
    assert_eq!(
        r.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "names are unique, ignoring case: {}",
        r.text
    );
    assert_eq!(r.error().1[0].0, "name");
    let r = c
        .put(
            &format!("/material-types/{id}"),
            &json!({"id": id, "name": "fanzine", "source": "local"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(c.get(&format!("/material-types/{id}")).await.body["name"], "fanzine");
    let r = c.get("/material-types?query=name%3D%3Dfanzine").await;
    assert_eq!(r.body["totalRecords"], 1);

    // A material type that an item uses cannot go.
    let holdings = c.create_holdings().await;
    let mut item = c.item_json(&holdings["id"], "Z1").await;
    item["materialTypeId"] = json!(id);
    assert_eq!(c.post("/item-storage/items", &item).await.status, StatusCode::CREATED);
    assert_eq!(c.delete(&format!("/material-types/{id}")).await.status, StatusCode::BAD_REQUEST);

    // A library must point to an existing campus.
    let r = c
        .post(
            "/location-units/libraries",
            &json!({"name": "Branch", "code": "BR", "campusId": uuid::Uuid::new_v4()}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().1[0].0, "campusId");
}

#[tokio::test]
async fn instance_statuses_and_modes_of_issuance_have_folios_records() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let r = c.get("/instance-statuses?query=code==cat").await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    assert_eq!(r.body["instanceStatuses"][0]["name"], "Cataloged");
    assert_eq!(r.body["instanceStatuses"][0]["id"], "9634a5ab-9228-4703-baf2-4d12ebc77d56");
    assert_eq!(c.count("/instance-statuses").await, 6);
    let r = c.get("/modes-of-issuance?limit=100").await;
    assert_eq!(r.body["totalRecords"], 5, "{}", r.text);
    let names: Vec<&str> = r.body["issuanceModes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["integrating resource", "multipart monograph", "serial", "single unit", "unspecified"]
    );
    let taken = json!({"name": "Catalogued again", "code": "CAT", "source": "local"});
    let r = c.post("/instance-statuses", &taken).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().1[0].0, "code", "{}", r.text);
    let local = json!({"name": "Loose-leaf"});
    assert_eq!(c.post("/modes-of-issuance", &local).await.status, StatusCode::CREATED);
}
