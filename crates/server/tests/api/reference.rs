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

#[tokio::test]
async fn the_rest_of_folios_reference_kinds_have_folios_records_and_indexes() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    // FOLIO's record count of a handful of kinds, and one well-known record's id.
    for (path, key, count, name, id) in [
        (
            "/contributor-types",
            "contributorTypes",
            268,
            "Author",
            "6e09d47d-95e2-4d8a-831b-f777b8ef6d81",
        ),
        (
            "/instance-formats",
            "instanceFormats",
            57,
            "unmediated -- volume",
            "8d511d33-5e85-4c5d-9bce-6e3c9cd0c324",
        ),
        (
            "/item-damaged-statuses",
            "itemDamageStatuses",
            2,
            "Damaged",
            "54d1dd76-ea33-4bcb-955b-6b29df4f7930",
        ),
        (
            "/statistical-code-types",
            "statisticalCodeTypes",
            4,
            "ARL (Collection stats)",
            "3abd6fc2-b3e4-4879-b1e1-78be41769fe3",
        ),
        (
            "/instance-date-types",
            "instanceDateTypes",
            15,
            "Single known date/probable date",
            "24a506e8-2a92-4ecc-bd09-ff849321fd5a",
        ),
        (
            "/authority-note-types",
            "authorityNoteTypes",
            1,
            "Nonpublic general note",
            "76c74801-afec-45a0-aad7-3ff23591e147",
        ),
    ] {
        assert_eq!(c.count(path).await, count, "{path}");
        assert_eq!(c.ref_id(path, key, name).await, id, "{path}");
    }
    let r = c.get("/contributor-types?query=code==aut").await;
    assert_eq!(r.body["contributorTypes"][0]["name"], "Author", "{}", r.text);
    let r = c.get("/subject-sources?query=code==LCSH").await;
    assert_eq!(r.body["subjectSources"][0]["id"], "e894d0dc-621d-4b1d-98f6-6f7120eb0d40");

    // Indexes beyond the shared ones: a JSON boolean, a link, `source`, and a code that
    // is not unique.
    let r = c.get("/service-points?query=pickupLocation==true").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["totalRecords"], 2, "{}", r.text);
    assert!(
        r.body["servicepoints"].as_array().unwrap().iter().all(|sp| sp["pickupLocation"] == true)
    );
    let r = c.get("/service-points?query=pickupLocation==maybe").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let arl = "3abd6fc2-b3e4-4879-b1e1-78be41769fe3";
    let r = c.get(&format!("/statistical-codes?query=statisticalCodeTypeId=={arl}")).await;
    assert_eq!(r.body["totalRecords"], 13, "{}", r.text);
    let r = c.get("/statistical-codes?query=source==FOLIO%20sortBy%20name").await;
    assert_eq!(r.body["totalRecords"], 2, "{}", r.text);
    assert_eq!(r.body["statisticalCodes"][0]["name"], "Do not share with OCLC");
    let r = c.get("/instance-date-types?query=code==s").await;
    assert_eq!(r.body["instanceDateTypes"][0]["name"], "Single known date/probable date");
    let r = c.get("/location-units/campuses?query=code==CC").await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    let r = c.get("/location-units/campuses?query=source==folio").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "campuses have no source: {}", r.text);
}

#[tokio::test]
async fn statistical_codes_and_other_kinds_keep_folios_unique_values_and_links() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let arl = "3abd6fc2-b3e4-4879-b1e1-78be41769fe3";
    // A statistical code's type must exist.
    let code = json!({"name": "Zines", "code": "zines", "source": "local",
        "statisticalCodeTypeId": uuid::Uuid::new_v4()});
    let r = c.post("/statistical-codes", &code).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().1[0].0, "statisticalCodeTypeId", "{}", r.text);

    // Its code is unique within its type only; its name is unique.
    let r = c.post("/statistical-code-types", &json!({"name": "Local", "source": "local"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let local = r.body["id"].as_str().unwrap().to_string();
    let books = |name: &str, type_id: &str| json!({"name": name, "code": "BOOKS", "source": "local", "statisticalCodeTypeId": type_id});
    let r = c.post("/statistical-codes", &books("Local books", arl)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().1[0], ("code".to_string(), "BOOKS".to_string()), "{}", r.text);
    let r = c.post("/statistical-codes", &books("Local books", &local)).await;
    assert_eq!(r.status, StatusCode::CREATED, "another type may reuse the code: {}", r.text);
    let r = c.post("/statistical-codes", &books("local BOOKS", &local)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().1[0].0, "name", "{}", r.text);
    // Statistical code types' names are not unique in FOLIO.
    let r = c.post("/statistical-code-types", &json!({"name": "Local", "source": "local"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);

    // A type in use cannot go; once unused it can.
    let r = c.delete(&format!("/statistical-code-types/{local}")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let r = c.get(&format!("/statistical-codes?query=statisticalCodeTypeId=={local}")).await;
    let code_id = r.body["statisticalCodes"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(
        c.delete(&format!("/statistical-codes/{code_id}")).await.status,
        StatusCode::NO_CONTENT
    );
    let r = c.delete(&format!("/statistical-code-types/{local}")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);

    // Unique names and codes elsewhere.
    let taken = json!({"name": "author", "code": "xyz", "source": "local"});
    let r = c.post("/contributor-types", &taken).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().1[0].0, "name", "{}", r.text);
    let r = c
        .post("/subject-sources", &json!({"name": "Mine", "code": "MeSH", "source": "local"}))
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().1[0].0, "code", "{}", r.text);
    let r = c.post("/subject-sources", &json!({"name": "Mine", "source": "local"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "a subject source needs no code: {}", r.text);
}

#[tokio::test]
async fn authority_source_files_follow_mod_entities_links() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    const LCNAF: &str = "af045f2f-e851-4613-984c-4bc13430454a";
    let r = c.get("/authority-source-files?limit=100").await;
    assert_eq!(r.body["totalRecords"], 12, "{}", r.text);
    let lcnaf = c.get(&format!("/authority-source-files/{LCNAF}")).await;
    assert_eq!(lcnaf.body["codes"], json!(["n", "nb", "nr", "no", "ns"]));
    assert_eq!(lcnaf.body["_version"], 1);
    let r = c.get("/authority-source-files?query=type==Names").await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);

    // A library's own file numbers its records.
    let local = json!({"name": "Campus names", "code": "cn", "type": "Names",
        "baseUrl": "https://www.example.edu/names", "hridManagement": {"startNumber": 100}});
    let r = c.post("/authority-source-files", &local).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["source"], "local");
    assert_eq!(r.body["baseUrl"], "example.edu/names/", "stored as FOLIO keeps it");
    let id = r.body["id"].as_str().unwrap().to_string();
    for expected in ["cn100", "cn101"] {
        let r = c.post(&format!("/authority-source-files/{id}/hrid"), &json!({})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        assert_eq!(r.body["hrid"], expected);
    }
    let r = c.post(&format!("/authority-source-files/{LCNAF}/hrid"), &json!({})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);

    // Codes, names and URLs are unique; prefixes are letters.
    for (body, field) in [
        (json!({"name": "Other", "code": "sh"}), "code"),
        (json!({"name": "Campus names", "code": "zz"}), "name"),
        (json!({"name": "Other", "code": "z9"}), "code"),
    ] {
        let r = c.post("/authority-source-files", &body).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
        assert_eq!(r.error().1[0].0, field, "{}", r.text);
    }

    // A PATCH sends the version it read; FOLIO's files keep their names.
    let r = c
        .patch(
            &format!("/authority-source-files/{id}"),
            &json!({"selectable": false, "_version": 1}),
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let r = c
        .patch(&format!("/authority-source-files/{id}"), &json!({"name": "Stale", "_version": 1}))
        .await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);
    let r = c
        .patch(&format!("/authority-source-files/{LCNAF}"), &json!({"name": "Mine", "_version": 1}))
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(
        r.error().0,
        "Unable to patch. Authority source file source is FOLIO or it has authority references"
    );
    let r = c.delete(&format!("/authority-source-files/{LCNAF}")).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().0, "Cannot delete Authority source file with source 'folio'");
    assert_eq!(
        c.delete(&format!("/authority-source-files/{id}")).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(c.get(&format!("/authority-source-files/{id}")).await.status, StatusCode::NOT_FOUND);
}
