//! Authorities over HTTP: storage CRUD with FOLIO's errors, and `/search/authorities`
//! (one result per heading, aliases, relations, wildcards, sorting, paging,
//! `numberOfTitles`, facets, near-real-time visibility, restart replay, reindex while
//! writes continue).

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::{
    instances::urlencode,
    support::{Client, POLL, TestApp},
};

const PATH: &str = "/authority-storage/authorities";

fn twain() -> Value {
    json!({"source": "MARC", "naturalId": "n79021164", "personalName": "Twain, Mark, 1835-1910",
        "sftPersonalName": ["Clemens, Samuel Langhorne, 1835-1910", "Snodgrass, Quintus Curtius"],
        "saftPersonalName": ["Conte, Louis de, 1835-1910"], "subjectHeadings": "a",
        "identifiers": [{"value": "n  79021164", "identifierTypeId": "c858e4f2-2b6b-4385-842b-60732ee14abb"}]})
}

async fn search(c: &Client<'_>, params: &str) -> crate::support::Response {
    c.get(&format!("/search/authorities?{params}")).await
}

/// Searches once the tenant's indexes hold every write made so far (the followers get
/// there within about a second; the test brings them there itself, see
/// [`TestApp::catch_up`](crate::support::TestApp::catch_up)).
async fn search_caught_up(c: &Client<'_>, cql: &str) -> Value {
    c.catch_up().await;
    let r = search(c, &format!("query={}", urlencode(cql))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    r.body
}

/// Waits until the authority reindex started through the API has finished, merge
/// included, and returns the index's status. The reindex runs on a thread of its own
/// and reports only in the index's status (FOLIO has no status endpoint for it), so
/// the test watches that, pausing between looks. No time limit: CI's reports a
/// reindex that hangs.
async fn authority_reindex_finished(app: &TestApp, tenant: &str) -> search::IndexStatus {
    let tenant = app.store.tenant(tenant).unwrap();
    let runtime = app.runtime.clone();
    let index =
        tokio::task::spawn_blocking(move || runtime.authorities(&tenant).unwrap()).await.unwrap();
    loop {
        let status = index.status();
        assert_eq!(status.last_error, None, "{status:?}");
        if status.last_reindex.is_some() && status.reindex.is_none() && !status.compacting {
            return status;
        }
        tokio::time::sleep(POLL).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn storage_crud_and_errors() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let r = c.post(PATH, &twain()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_string();
    assert_eq!(r.body["_version"], 1);
    assert!(r.body["metadata"]["createdDate"].is_string());
    assert_eq!(r.headers["location"], format!("{PATH}/{id}").as_str());

    let r = c.get(&format!("{PATH}/{id}")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["sftPersonalName"][1], "Snodgrass, Quintus Curtius");
    let r = c.get(&format!("{PATH}?query={}", urlencode("naturalId==n79021164"))).await;
    assert_eq!(
        (r.body["totalRecords"].as_u64(), r.body["authorities"][0]["id"].as_str()),
        (Some(1), Some(id.as_str()))
    );
    let r = c.get(&format!("{PATH}?query={}", urlencode("headingType==personalName"))).await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);

    let mut update = twain();
    update["personalName"] = json!("Twain, Mark");
    update["_version"] = json!(1);
    assert_eq!(c.put(&format!("{PATH}/{id}"), &update).await.status, StatusCode::NO_CONTENT);
    // A stale `_version` is a conflict.
    let r = c.put(&format!("{PATH}/{id}"), &update).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);
    assert_eq!(c.get(&format!("{PATH}/{id}")).await.body["_version"], 2);

    // FOLIO's 400 and 422s.
    assert_eq!(c.post_raw(PATH, b"{".to_vec()).await.status, StatusCode::BAD_REQUEST);
    let r = c.post(PATH, &json!({"source": "MARC"})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(r.error().1[0].0, "naturalId");
    let r = c.post(PATH, &json!({"source": "MARC", "naturalId": "x", "hrid": "a1"})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    let r =
        c.post(PATH, &json!({"source": "MARC", "naturalId": "x", "sourceFileId": "nope"})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    let r = c.get(&format!("{PATH}?query={}", urlencode("personalName==x"))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);

    assert_eq!(c.delete(&format!("{PATH}/{id}")).await.status, StatusCode::NO_CONTENT);
    assert_eq!(c.get(&format!("{PATH}/{id}")).await.status, StatusCode::NOT_FOUND);
    assert_eq!(c.delete(&format!("{PATH}/{id}")).await.status, StatusCode::NOT_FOUND);
    // Without a token: 401.
    let r = app.send(axum::http::Method::GET, PATH, Some("diku"), None, None).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_counts_headings_and_follows_writes() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let r = c.post(PATH, &twain()).await;
    let id = r.body["id"].as_str().unwrap().to_string();
    for (natural, term, sft) in [
        ("sh85029552", "Computers", vec!["Automatic computers", "Electronic brains"]),
        ("sh85029553", "Computer science", vec![]),
        ("sh85074420", "Law", vec!["Jurisprudence"]),
    ] {
        let body = json!({"source": "MARC", "naturalId": natural, "topicalTerm": term, "sftTopicalTerm": sft});
        assert_eq!(c.post(PATH, &body).await.status, StatusCode::CREATED);
    }
    // Four headings of Twain, three, one and two of the topical terms.
    let body = search_caught_up(&c, "cql.allRecords=1").await;
    assert_eq!(body["totalRecords"], 10, "{body}");
    // Default order: by heading.
    let refs: Vec<&str> = body["authorities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["headingRef"].as_str().unwrap())
        .collect();
    let mut sorted = refs.clone();
    sorted.sort_by_key(|s| s.to_lowercase());
    assert_eq!(refs, sorted);
    let first = &body["authorities"][0];
    assert_eq!(first["headingRef"], "Automatic computers");
    for key in ["id", "headingType", "authRefType", "headingRef", "naturalId", "tenantId"] {
        assert!(first.get(key).is_some(), "{key} in {first}");
    }

    for (cql, expected) in [
        ("keyword all computers", 2),
        ("keyword any \"brains law\"", 2),
        ("keyword == \"electronic brains\"", 1),
        ("keyword ==/string \"COMPUTER SCIENCE\"", 1),
        ("keyword <> computers", 8),
        ("personalName all twain", 1),
        ("sftPersonalName all clemens", 1),
        ("saftPersonalName all conte", 1),
        ("topicalTerm = computer*", 2),
        ("sftTopicalTerm = *brains", 1),
        ("keyword = *ompute*", 3),
        ("headingRef == \"law\"", 1),
        ("headingType == \"Personal Name\"", 4),
        ("authRefType == Reference", 5),
        ("naturalId == N79021164", 4),
        ("lccn = n79021164", 4),
        ("identifiers.value == \"n  79021164\"", 4),
        ("subjectHeadings == a", 4),
        ("sourceFileId == NULL", 10),
        (&format!("id == {id}"), 4),
        ("isTitleHeadingRef == false", 10),
        ("metadata.updatedDate > 2020-01-01", 10),
        ("personalName = \"\"", 1),
    ] {
        let r = search(&c, &format!("query={}", urlencode(cql))).await;
        assert_eq!(r.status, StatusCode::OK, "{cql}: {}", r.text);
        assert_eq!(r.body["totalRecords"], expected, "{cql}: {}", r.text);
    }

    // Sorting and paging.
    let r = search(
        &c,
        &format!(
            "query={}&limit=3&offset=2",
            urlencode("cql.allRecords=1 sortBy headingRef/sort.descending")
        ),
    )
    .await;
    let refs: Vec<&str> = r.body["authorities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["headingRef"].as_str().unwrap())
        .collect();
    assert_eq!(refs, ["Law", "Jurisprudence", "Electronic brains"]);
    let r =
        search(&c, &format!("query={}&limit=1", urlencode("cql.allRecords=1 sortBy headingType")))
            .await;
    assert_eq!(r.body["authorities"][0]["headingType"], "Personal Name");
    assert_eq!(r.body["totalRecords"], 10);

    // Deletes disappear.
    assert_eq!(c.delete(&format!("{PATH}/{id}")).await.status, StatusCode::NO_CONTENT);
    let body = search_caught_up(&c, "cql.allRecords=1").await;
    assert_eq!(body["totalRecords"], 6);

    // Tenants are separate.
    let other = Client::admin(&app, "other").await;
    assert_eq!(search(&other, "query=cql.allRecords%3D1").await.body["totalRecords"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_paging_expand_all_titles_and_facets() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let id = c.post(PATH, &twain()).await.body["id"].as_str().unwrap().to_string();
    let body = search_caught_up(&c, "cql.allRecords=1").await;
    assert_eq!(body["totalRecords"], 4, "{body}");

    for (params, status, message) in [
        (
            "query=title%20all%20x",
            StatusCode::BAD_REQUEST,
            "Invalid search field provided in the CQL query",
        ),
        (
            "query=keyword%20within%20x",
            StatusCode::BAD_REQUEST,
            "Failed to parse CQL query. Comparator 'within' is not supported.",
        ),
        (
            "query=keyword%20all",
            StatusCode::BAD_REQUEST,
            "Failed to parse CQL query [cql: 'keyword all', resource: authority]",
        ),
        (
            "query=keyword%3Dx&limit=501",
            StatusCode::BAD_REQUEST,
            "must be less than or equal to 500",
        ),
        (
            "query=keyword%3Dx&limit=100&offset=9901",
            StatusCode::BAD_REQUEST,
            "The sum of limit and offset should not exceed 10000.",
        ),
        ("limit=1", StatusCode::BAD_REQUEST, "Parameter 'query' is required"),
    ] {
        let r = search(&c, params).await;
        assert_eq!(r.status, status, "{params}: {}", r.text);
        assert_eq!(r.error().0, message, "{params}");
    }
    let r = search(&c, "query=title%20all%20x").await;
    assert_eq!(r.error().1, [("field".to_string(), "title".to_string())]);

    // expandAll gives the heading document's fields.
    let r =
        search(&c, &format!("query={}&expandAll=true", urlencode("authRefType==Authorized"))).await;
    let doc = &r.body["authorities"][0];
    assert_eq!(doc["personalName"], "Twain, Mark, 1835-1910");
    assert_eq!(doc["identifiers"][0]["value"], "n  79021164");
    assert_eq!(doc["numberOfTitles"], 0);

    // numberOfTitles: instances whose contributors, subjects, series or alternative
    // titles name the authority; on Authorized headings only.
    let mut instance = c.instance_json("Adventures of Huckleberry Finn").await;
    let name_type = c.first_id("/contributor-name-types", "contributorNameTypes").await;
    instance["contributors"] =
        json!([{"name": "Twain, Mark", "contributorNameTypeId": name_type, "authorityId": id}]);
    assert_eq!(c.post("/instance-storage/instances", &instance).await.status, StatusCode::CREATED);
    let mut instance = c.instance_json("Mark Twain: a life").await;
    instance["subjects"] = json!([{"value": "Twain, Mark", "authorityId": id}]);
    assert_eq!(c.post("/instance-storage/instances", &instance).await.status, StatusCode::CREATED);
    let body =
        search_caught_up(&c, "authRefType == (Authorized or Reference) sortBy authRefType").await;
    let authorized = &body["authorities"][0];
    assert_eq!(authorized["authRefType"], "Authorized", "{body}");
    assert_eq!(authorized["numberOfTitles"], 2, "{body}");
    assert!(body["authorities"][1].get("numberOfTitles").is_none(), "{body}");
    let r = search(&c, "query=cql.allRecords%3D1&includeNumberOfTitles=false").await;
    assert!(!r.text.contains("numberOfTitles"), "{}", r.text);

    // Facets.
    let r = c.get(&format!("/search/authorities/facets?query={}&facet=headingType,subjectHeadings:1&facet=sourceFileId", urlencode("cql.allRecords=1"))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["totalRecords"], 3, "FOLIO counts the facets here");
    assert_eq!(
        r.body["facets"]["headingType"]["values"][0],
        json!({"id": "Personal Name", "totalRecords": 4})
    );
    assert_eq!(
        r.body["facets"]["subjectHeadings"]["values"][0],
        json!({"id": "a", "totalRecords": 4})
    );
    assert_eq!(r.body["facets"]["sourceFileId"]["values"][0]["id"], "NULL");
    let r = c.get("/search/authorities/facets?query=cql.allRecords%3D1&facet=languages").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let r = c.get("/search/authorities/facets?query=cql.allRecords%3D1").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_replays_and_reindex_runs_while_writes_continue() {
    let mut app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    for n in 0..50 {
        let body = json!({"source": "MARC", "naturalId": format!("sh{n}"), "topicalTerm": format!("Subject {n}"), "sftTopicalTerm": [format!("Alias {n}")]});
        assert_eq!(c.post(PATH, &body).await.status, StatusCode::CREATED);
    }
    let body = search_caught_up(&c, "cql.allRecords=1").await;
    assert_eq!(body["totalRecords"], 100, "{body}");

    // A restart: the server (with its runtime, indexes and followers) goes, a write
    // lands while no index follows, and the next server replays it when it opens its
    // indexes.
    drop(c);
    app.router = axum::Router::new();
    app.runtime = crate::support::runtime(&app.store);
    let body = json!({"source": "MARC", "naturalId": "late", "topicalTerm": "Written while down"});
    let tenant = app.store.tenant("diku").unwrap();
    tenant
        .write(|w| {
            inventory::create::<inventory::Authority>(
                w,
                body.to_string().as_bytes(),
                folio::Actor::default(),
            )
        })
        .unwrap();
    let state = server::AppState::new(
        app.runtime.clone(),
        auth::TokenKey::from_bytes([9; 32]),
        server::Config::default(),
    );
    state.runtime().open_search_indexes().unwrap();
    app.router = server::router(state);
    let c = Client::admin(&app, "diku").await;
    // No catch-up here: opening the indexes has replayed the write, before it returned.
    let r = search(&c, &format!("query={}", urlencode("keyword all down"))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);

    // Reindex while writes continue: nothing is lost, and searches keep answering.
    let r = c.post("/search/index/inventory/reindex", &json!({"resourceName": "authority"})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["jobStatus"], "In progress");
    for n in 0..20 {
        let body = json!({"source": "MARC", "naturalId": format!("w{n}"), "topicalTerm": format!("During reindex {n}")});
        assert_eq!(c.post(PATH, &body).await.status, StatusCode::CREATED);
        let r = search(&c, "query=cql.allRecords%3D1&limit=0").await;
        assert!(r.body["totalRecords"].as_u64().unwrap() >= 101, "{}", r.text);
    }
    // Once the reindex has swapped its generation in (and merged it), the writes made
    // meanwhile are all in the index that serves.
    let status = authority_reindex_finished(&app, "diku").await;
    assert_eq!(
        status.last_reindex.as_ref().map(|last| last.generation.as_str()),
        Some(status.generation.as_str()),
        "{status:?}"
    );
    let body = search_caught_up(&c, "keyword all reindex").await;
    assert_eq!(body["totalRecords"], 20);
    let body = search_caught_up(&c, "cql.allRecords=1").await;
    assert_eq!(body["totalRecords"], 121);
}
