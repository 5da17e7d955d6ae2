//! Users, patron groups and proxies (mod-users), with FOLIO's statuses and messages.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::{Client, TestApp};

/// FOLIO's reference `staff` group, seeded into every tenant.
const STAFF: &str = "3684a786-6671-4268-8ed0-9db82ebca60b";
const UNDERGRAD: &str = "bdc2b6d4-5ceb-4a12-ab46-249b9a68473e";

fn patron(username: &str, barcode: &str, last: &str, first: &str) -> Value {
    json!({
        "username": username, "barcode": barcode, "active": true, "type": "patron",
        "patronGroup": UNDERGRAD, "externalSystemId": format!("ext-{username}"),
        "personal": {"lastName": last, "firstName": first, "email": format!("{username}@example.org")},
        "departments": [], "tags": {"tagList": ["arts"]},
    })
}

async fn create(client: &Client<'_>, path: &str, body: &Value) -> Value {
    let r = client.post(path, body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.body
}

/// The total of a list query.
async fn total(client: &Client<'_>, path: &str, cql: &str) -> u64 {
    let r = client.get(&format!("{path}?query={}", urlencode(cql))).await;
    assert_eq!(r.status, StatusCode::OK, "{cql}: {}", r.text);
    r.body["totalRecords"].as_u64().unwrap()
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn users_crud_desk_query_lists_and_sorting() {
    let app = TestApp::new();
    let client = Client::admin(&app, "diku").await;
    let ann = create(&client, "/users", &patron("ann", "B-100", "Zeller", "Ann")).await;
    let bob = create(&client, "/users", &patron("bob", "B-200", "Adams", "Bob")).await;
    let ann_id = ann["id"].as_str().unwrap();
    assert_eq!(ann["tags"]["tagList"][0], "arts", "other fields are kept");
    assert!(ann["metadata"]["createdDate"].is_string());

    // The circulation desk's lookup, by any of the four identifiers.
    for x in ["B-100", "ann", "ext-ann", ann_id] {
        let cql = format!(
            r#"(barcode=="{x}" OR externalSystemId=="{x}" OR id=="{x}" OR username=="{x}")"#
        );
        let r = client.get(&format!("/users?query={}", urlencode(&cql))).await;
        assert_eq!(r.body["totalRecords"], 1, "{x}: {}", r.text);
        assert_eq!(r.body["users"][0]["id"], ann_id);
    }
    assert_eq!(total(&client, "/users", "personal.lastName==zeller").await, 1);
    assert_eq!(total(&client, "/users", "personal.firstName==Bo*").await, 1);
    assert_eq!(total(&client, "/users", &format!("patronGroup=={UNDERGRAD}")).await, 2);
    assert_eq!(total(&client, "/users", "active==true and type==patron").await, 2);
    assert_eq!(total(&client, "/users", "active==false").await, 0);

    let r = client
        .get(&format!(
            "/users?query={}&limit=1&offset=0",
            urlencode("type==patron sortBy personal.lastName")
        ))
        .await;
    assert_eq!(
        (r.body["totalRecords"].as_u64(), &r.body["users"][0]["username"]),
        (Some(2), &json!("bob"))
    );
    let r = client
        .get(&format!(
            "/users?query={}&limit=1&offset=1",
            urlencode("type==patron sortBy personal.lastName")
        ))
        .await;
    assert_eq!(r.body["users"][0]["username"], "ann");
    let r = client
        .get(&format!(
            "/users?query={}&limit=1",
            urlencode("type==patron sortBy personal.lastName/sort.descending")
        ))
        .await;
    assert_eq!(r.body["users"][0]["username"], "ann");

    // PUT replaces the record; creation metadata stays.
    let mut changed = ann.clone();
    changed["personal"]["lastName"] = json!("Able");
    changed["patronGroup"] = json!(STAFF);
    let r = client.put(&format!("/users/{ann_id}"), &changed).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let r = client.get(&format!("/users/{ann_id}")).await;
    assert_eq!(r.body["personal"]["lastName"], "Able");
    assert_eq!(r.body["patronGroup"], STAFF);
    assert_eq!(r.body["metadata"]["createdDate"], ann["metadata"]["createdDate"]);
    let r = client
        .get(&format!("/users?query={}", urlencode("cql.allRecords=1 sortBy personal.lastName")))
        .await;
    assert_eq!(r.body["users"][0]["username"], "ann", "Able sorts before Adams: {}", r.text);

    let r = client.delete(&format!("/users/{ann_id}")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(client.get(&format!("/users/{ann_id}")).await.status, StatusCode::NOT_FOUND);
    assert_eq!(client.delete(&format!("/users/{ann_id}")).await.status, StatusCode::NOT_FOUND);
    assert_eq!(total(&client, "/users", "barcode==B-100").await, 0);
    let _ = bob;
}

#[tokio::test]
async fn user_writes_fail_with_folio_statuses_and_messages() {
    let app = TestApp::new();
    let client = Client::admin(&app, "diku").await;
    let ann = create(&client, "/users", &patron("ann", "B-100", "Zeller", "Ann")).await;
    let bob = create(&client, "/users", &patron("bob", "B-200", "Adams", "Bob")).await;
    let bob_id = bob["id"].as_str().unwrap();

    // A patron group that does not exist: 400 on create and on update.
    let unknown = "2b94c631-fca9-4892-a730-03ee529ffe2a";
    let mut body = patron("cy", "B-300", "Cole", "Cy");
    body["patronGroup"] = json!(unknown);
    let r = client.post("/users", &body).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert_eq!(r.error().0, format!("Cannot add {unknown}. Patron group not found"));
    let mut bob_changed = bob.clone();
    bob_changed["patronGroup"] = json!(unknown);
    let r = client.put(&format!("/users/{bob_id}"), &bob_changed).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.error().0, format!("Cannot add {unknown}. Patron group not found"));

    // Taken username, barcode and id: 422 with the field on create ...
    for (field, value, message) in [
        ("username", json!("ANN"), "User with this username already exists"),
        ("barcode", json!("b-100"), "This barcode has already been taken"),
        ("id", ann["id"].clone(), "User with this id already exists"),
    ] {
        let mut body = patron("dee", "B-400", "Dee", "Dee");
        body[field] = value.clone();
        let r = client.post("/users", &body).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{field}: {}", r.text);
        assert_eq!(
            r.error(),
            (message.to_string(), vec![(field.to_string(), value.as_str().unwrap().to_string())])
        );
    }
    // ... and a plain 400 on update.
    for (field, value, message) in [
        ("username", "ann", "User with this username already exists"),
        ("barcode", "B-100", "This barcode has already been taken"),
    ] {
        let mut body = bob.clone();
        body[field] = json!(value);
        let r = client.put(&format!("/users/{bob_id}"), &body).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{field}: {}", r.text);
        assert_eq!(r.error().0, message);
    }

    let r = client.put(&format!("/users/{bob_id}"), &ann).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.error().0, "You cannot change the value of the id field");
    let r =
        client.put("/users/7a0b4d8c-0c55-4d8e-9a43-0c3c2d5f8e11", &json!({"username": "x"})).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);

    // `personal.lastName` is required when `personal` is sent.
    let r =
        client.post("/users", &json!({"username": "eve", "personal": {"firstName": "Eve"}})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(
        r.error(),
        (
            "must not be null".to_string(),
            vec![("personal.lastName".to_string(), "null".to_string())]
        )
    );

    let r = client.post_raw("/users", b"{\"username\": ".to_vec()).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.error().0.starts_with("Malformed JSON"), "{}", r.text);
    let r = client.post("/users", &json!({"username": "f", "expirationDate": "next week"})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);

    // Nothing above was stored.
    assert_eq!(client.count("/users").await, 3);

    // A user saved with an expiration date behind them is inactive, as FOLIO's expiry
    // timer leaves them; one with a date ahead stays active.
    let mut expired = patron("gil", "B-500", "Gil", "Gil");
    expired["expirationDate"] = json!("2020-01-01");
    let r = create(&client, "/users", &expired).await;
    assert_eq!(
        (r["active"].clone(), r["expirationDate"].clone()),
        (json!(false), json!("2020-01-01T00:00:00.000+00:00"))
    );
    let mut later = patron("hal", "B-600", "Hal", "Hal");
    later["expirationDate"] = json!("2999-01-01T00:00:00Z");
    assert_eq!(create(&client, "/users", &later).await["active"], true);
    assert_eq!(total(&client, "/users", r#"expirationDate<"2021-01-01""#).await, 1);
}

#[tokio::test]
async fn a_renamed_user_logs_in_with_the_new_name_and_a_deleted_one_not_at_all() {
    let app = TestApp::new();
    let client = Client::admin(&app, "diku").await;
    let user = create(&client, "/users", &patron("ann", "B-100", "Zeller", "Ann")).await;
    let id = user["id"].as_str().unwrap();
    let r = client
        .post("/authn/credentials", &json!({"userId": id, "username": "ann", "password": "pw"}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let mut renamed = user.clone();
    renamed["username"] = json!("annie");
    assert_eq!(client.put(&format!("/users/{id}"), &renamed).await.status, StatusCode::NO_CONTENT);
    app.login_as("diku", "annie", "pw").await;
    assert_eq!(client.delete(&format!("/users/{id}")).await.status, StatusCode::NO_CONTENT);
    let body = json!({"username": "annie", "password": "pw"}).to_string().into_bytes();
    let r =
        app.send(axum::http::Method::POST, "/authn/login", Some("diku"), None, Some(body)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
}

#[tokio::test]
async fn a_new_tenant_has_folio_reference_groups_and_groups_follow_folio_rules() {
    let app = TestApp::new();
    let client = Client::admin(&app, "other").await;
    let r = client.get("/groups?limit=100").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let mut groups: Vec<(String, String)> = r.body["usergroups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["group"].as_str().unwrap().into(), g["id"].as_str().unwrap().into()))
        .collect();
    groups.sort();
    assert_eq!(
        groups,
        [
            ("faculty", "503a81cd-6c26-400f-b620-14c08943697c"),
            ("graduate", "ad0bc554-d5bc-463c-85d1-5562127ae91b"),
            ("staff", STAFF),
            ("undergrad", UNDERGRAD),
        ]
        .map(|(g, id)| (g.to_string(), id.to_string()))
    );
    // Provisioning again adds nothing.
    let admin = runtime::AdminUser { username: "admin".into(), password: "x".into() };
    let existing = runtime::ExistingUsers::MayAdd;
    let again = runtime::provision_tenant(&app.store, "other", Some(&admin), existing).unwrap();
    assert_eq!(again.n_reference_records, 0);

    let group = create(
        &client,
        "/groups",
        &json!({"group": "Visiting Scholar", "desc": "Visitors", "expirationOffsetInDays": 90}),
    )
    .await;
    let id = group["id"].as_str().unwrap();
    assert_eq!(total(&client, "/groups", "group==\"visiting scholar\"").await, 1);
    assert_eq!(total(&client, "/groups", &format!("id=={id}")).await, 1);

    let r = client.post("/groups", &json!({"group": "STAFF"})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(
        r.error().0,
        "lower(f_unaccent(jsonb ->> 'group'::text)) value already exists in table groups: staff"
    );
    let r = client.post("/groups", &json!({"desc": "no name"})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(
        r.error(),
        ("must not be null".to_string(), vec![("group".to_string(), "null".to_string())])
    );

    let r = client
        .put(&format!("/groups/{id}"), &json!({"group": "Visitor", "desc": "Short stays"}))
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let r = client.get(&format!("/groups/{id}")).await;
    assert_eq!(
        (r.body["group"].clone(), r.body["desc"].clone()),
        (json!("Visitor"), json!("Short stays"))
    );
    assert_eq!(r.body["metadata"]["createdDate"], group["metadata"]["createdDate"]);

    // A group with members cannot be deleted.
    let mut member = patron("ann", "B-1", "Zeller", "Ann");
    member["patronGroup"] = json!(id);
    let member = create(&client, "/users", &member).await;
    let r = client.delete(&format!("/groups/{id}")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert_eq!(
        r.error().0,
        format!("Cannot delete groups.id = {id} because id is still referenced from table users.")
    );
    assert_eq!(client.get(&format!("/groups/{id}")).await.status, StatusCode::OK);
    client.delete(&format!("/users/{}", member["id"].as_str().unwrap())).await;
    assert_eq!(client.delete(&format!("/groups/{id}")).await.status, StatusCode::NO_CONTENT);
    assert_eq!(client.get(&format!("/groups/{id}")).await.status, StatusCode::NOT_FOUND);
    assert_eq!(client.delete(&format!("/groups/{id}")).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn proxies_are_recorded_once_per_sponsor_and_proxy() {
    let app = TestApp::new();
    let client = Client::admin(&app, "diku").await;
    let sponsor = create(&client, "/users", &patron("sam", "S-1", "Sponsor", "Sam")).await;
    let proxy = create(&client, "/users", &patron("pat", "P-1", "Proxy", "Pat")).await;
    let (sponsor_id, proxy_id) = (sponsor["id"].as_str().unwrap(), proxy["id"].as_str().unwrap());
    let body = json!({
        "userId": sponsor_id, "proxyUserId": proxy_id, "requestForSponsor": "Yes",
        "notificationsTo": "Proxy", "accrueTo": "Sponsor", "status": "Active",
        "expirationDate": "2999-12-31T00:00:00.000+00:00",
    });
    let created = create(&client, "/proxiesfor", &body).await;
    let id = created["id"].as_str().unwrap();

    let r = client.post("/proxiesfor", &body).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().0, "Proxy relationship already exists");

    let cql = format!("userId=={sponsor_id} and proxyUserId=={proxy_id}");
    let r = client.get(&format!("/proxiesfor?query={}", urlencode(&cql))).await;
    assert_eq!(r.body["totalRecords"], 1, "{}", r.text);
    assert_eq!(r.body["proxiesFor"][0]["id"], id);
    assert_eq!(total(&client, "/proxiesfor", &format!("proxyUserId=={sponsor_id}")).await, 0);

    let mut changed = created.clone();
    changed["status"] = json!("Inactive");
    assert_eq!(
        client.put(&format!("/proxiesfor/{id}"), &changed).await.status,
        StatusCode::NO_CONTENT
    );
    let r = client.get(&format!("/proxiesfor/{id}")).await;
    assert_eq!(r.body["status"], "Inactive");
    // The other direction is another relationship; turning it into this one is refused.
    let reverse =
        create(&client, "/proxiesfor", &json!({"userId": proxy_id, "proxyUserId": sponsor_id}))
            .await;
    let r = client
        .put(
            &format!("/proxiesfor/{}", reverse["id"].as_str().unwrap()),
            &json!({"userId": sponsor_id, "proxyUserId": proxy_id}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);

    // FOLIO's proxy schema allows no other properties.
    let r = client.post("/proxiesfor", &json!({"userId": proxy_id, "sponsor": true})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);

    assert_eq!(client.delete(&format!("/proxiesfor/{id}")).await.status, StatusCode::NO_CONTENT);
    assert_eq!(client.get(&format!("/proxiesfor/{id}")).await.status, StatusCode::NOT_FOUND);
    assert_eq!(client.count("/proxiesfor").await, 1);
}

#[tokio::test]
async fn each_route_requires_its_folio_permission() {
    let app = TestApp::new();
    let admin = Client::admin(&app, "diku").await;
    let user = create(&admin, "/users", &patron("clerk", "C-1", "Clerk", "Cal")).await;
    let id = user["id"].as_str().unwrap();
    let credentials = json!({"userId": id, "username": "clerk", "password": "pw"});
    assert_eq!(admin.post("/authn/credentials", &credentials).await.status, StatusCode::CREATED);
    let r = admin
        .post("/perms/users", &json!({"userId": id, "permissions": ["users.collection.get", "usergroups.collection.get"]}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let clerk = Client {
        app: &app,
        tenant: "diku".into(),
        token: app.login_as("diku", "clerk", "pw").await,
    };
    assert_eq!(clerk.get("/users").await.status, StatusCode::OK);
    assert_eq!(clerk.get("/groups").await.status, StatusCode::OK);
    for (r, permission) in [
        (clerk.put(&format!("/users/{id}"), &user).await, "users.item.put"),
        (clerk.delete(&format!("/users/{id}")).await, "users.item.delete"),
        (clerk.get(&format!("/groups/{STAFF}")).await, "usergroups.item.get"),
        (clerk.delete(&format!("/groups/{STAFF}")).await, "usergroups.item.delete"),
        (clerk.get("/proxiesfor").await, "proxiesfor.collection.get"),
        (clerk.post("/proxiesfor", &json!({})).await, "proxiesfor.item.post"),
    ] {
        assert_eq!(r.status, StatusCode::FORBIDDEN);
        assert_eq!(r.error().0, format!("Access requires permission: {permission}"));
    }
}

#[tokio::test]
async fn directory_records_are_stored_queried_and_kept_unique() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let user = c.post("/users", &json!({"username": "dir", "active": true})).await.body;
    let user_id = user["id"].as_str().unwrap();
    let desk = "3a40852d-49fd-4df2-a1f9-6e2641a6e91f";
    // (path, collection key, a record, the query that finds it, a second record that
    // takes the first one's unique value, and that value's field)
    let cases = [
        (
            "/addresstypes",
            "addressTypes",
            json!({"addressType": "Home", "desc": "Home address"}),
            "addressType==home",
            json!({"addressType": "HOME"}),
            "addressType",
        ),
        (
            "/departments",
            "departments",
            json!({"name": "History", "code": "HIST", "usageNumber": 3}),
            "code==HIST",
            json!({"name": "Art history", "code": "hist"}),
            "code",
        ),
        (
            "/service-points-users",
            "servicePointsUsers",
            json!({"userId": user_id, "servicePointsIds": [desk], "defaultServicePointId": desk}),
            &format!("userId=={user_id}"),
            json!({"userId": user_id, "servicePointsIds": []}),
            "userId",
        ),
        (
            "/request-preference-storage/request-preference",
            "requestPreferences",
            json!({"userId": user_id, "holdShelf": true, "delivery": false,
                "fulfillment": "Hold Shelf", "defaultServicePointId": desk}),
            &format!("userId=={user_id}"),
            json!({"userId": user_id, "holdShelf": false, "delivery": true}),
            "userId",
        ),
    ];
    for (path, key, record, query, clash, field) in cases {
        let r = c.post(path, &record).await;
        assert_eq!(r.status, StatusCode::CREATED, "{path}: {}", r.text);
        assert!(r.body.get("usageNumber").is_none(), "read-only usageNumber is dropped");
        let id = r.body["id"].as_str().unwrap().to_string();
        let item_path = format!("{path}/{id}");
        let found = c.get(&format!("{path}?query={}", urlencode(query))).await;
        assert_eq!(found.body["totalRecords"], 1, "{path}?query={query}: {}", found.text);
        assert_eq!(found.body[key][0]["id"], id.as_str());
        let r = c.post(path, &clash).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {}", r.text);
        assert_eq!(r.body["errors"][0]["code"], "value.duplicate", "{}", r.text);
        assert_eq!(r.error().1[0].0, field, "{}", r.text);
        let mut changed = c.get(&item_path).await.body;
        assert_eq!(c.put(&item_path, &changed).await.status, StatusCode::NO_CONTENT);
        changed["id"] = json!("00000000-0000-4000-8000-000000000009");
        let r = c.put(&item_path, &changed).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {}", r.text);
        assert_eq!(c.delete(&item_path).await.status, StatusCode::NO_CONTENT);
        assert_eq!(c.get(&item_path).await.status, StatusCode::NOT_FOUND);
    }
    let r = c.post("/request-preference-storage/request-preference",
        &json!({"userId": user_id, "holdShelf": true, "delivery": false, "fulfillment": "Mail"})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.error().1[0].0, "fulfillment", "{}", r.text);
}

#[tokio::test]
async fn user_import_maps_names_and_fails_one_user_at_a_time() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    assert_eq!(
        c.post("/addresstypes", &json!({"addressType": "Home"})).await.status,
        StatusCode::CREATED
    );
    assert_eq!(
        c.post("/addresstypes", &json!({"addressType": "Work"})).await.status,
        StatusCode::CREATED
    );
    let staff = c.get("/groups?query=group==staff").await.body["usergroups"][0]["id"].clone();
    let import = |body: Value| {
        let c = &c;
        async move { c.post("/user-import", &body).await }
    };
    let r = import(json!({"totalRecords": 0, "users": []})).await;
    assert_eq!(r.body["message"], "No users to import.", "{}", r.text);

    let first = json!({
        "totalRecords": 3, "sourceType": "campus",
        "included": {"departments": [{"name": "History", "code": "HIST"}]},
        "users": [
            {"username": "ann", "externalSystemId": "e-1", "barcode": "UI-1", "active": true,
             "patronGroup": "staff", "departments": ["History"],
             "personal": {"lastName": "Ann", "firstName": "A", "preferredContactTypeId": "email",
                "addresses": [{"addressTypeId": "Home", "addressLine1": "1 Main St"},
                              {"addressTypeId": "Nowhere", "addressLine1": "dropped"}]},
             "requestPreference": {"holdShelf": true, "delivery": false,
                "fulfillment": "Hold Shelf", "defaultServicePointId": "Circ Desk 1"}},
            {"username": "bob", "externalSystemId": "e-2", "active": true, "patronGroup": "wizards",
             "personal": {"lastName": "Bob"}},
            {"username": "cy", "externalSystemId": "e-3", "active": true, "patronGroup": "staff",
             "departments": ["Alchemy", "History"], "personal": {"lastName": "Cy"}}
        ]
    });
    let r = import(first).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["message"], "Users were imported successfully.");
    assert_eq!(
        (&r.body["createdRecords"], &r.body["updatedRecords"], &r.body["failedRecords"]),
        (&json!(1), &json!(0), &json!(2)),
        "{}",
        r.text
    );
    let failures: Vec<(String, String)> = r.body["failedUsers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["externalSystemId"].as_str().unwrap().into(),
                f["errorMessage"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        failures,
        vec![
            (
                "campus_e-2".to_string(),
                "Patron group does not exist in the system: [wizards]".to_string()
            ),
            (
                "campus_e-3".to_string(),
                "Departments do not exist in the system: [Alchemy]".to_string()
            ),
        ]
    );
    let found = c.get(&format!("/users?query={}", urlencode("externalSystemId==campus_e-1"))).await;
    let ann = found.body["users"][0].clone();
    assert_eq!(ann["patronGroup"], staff);
    assert_eq!(ann["personal"]["preferredContactTypeId"], "002");
    let addresses = ann["personal"]["addresses"].as_array().unwrap();
    assert_eq!(addresses.len(), 1, "the address of an unknown type is left out");
    let types = c.get(&format!("/addresstypes?query={}", urlencode("addressType==Home"))).await;
    assert_eq!(addresses[0]["addressTypeId"], types.body["addressTypes"][0]["id"]);
    assert_eq!(ann["departments"].as_array().unwrap().len(), 1);
    let ann_id = ann["id"].as_str().unwrap();
    let prefs = c
        .get(&format!("/request-preference-storage/request-preference?query=userId=={ann_id}"))
        .await;
    assert_eq!(
        prefs.body["requestPreferences"][0]["defaultServicePointId"],
        "3a40852d-49fd-4df2-a1f9-6e2641a6e91f",
        "Circ Desk 1, by name"
    );
    assert_eq!(c.get(&format!("/perms/users/{ann_id}/permissions")).await.status, StatusCode::OK);
    assert!(c.get(&format!("/users/{ann_id}")).await.body.get("requestPreference").is_none());

    // Again, with only present fields: Ann's email changes, her address stays; a new user
    // takes Ann's username and fails; the others of the source are deactivated only when
    // nothing failed.
    let second = json!({
        "totalRecords": 2, "sourceType": "campus", "updateOnlyPresentFields": true,
        "deactivateMissingUsers": true,
        "users": [
            {"username": "ann", "externalSystemId": "e-1", "patronGroup": "staff",
             "personal": {"lastName": "Ann", "email": "ann@example.org"}},
            {"username": "ann", "externalSystemId": "e-9", "patronGroup": "staff",
             "personal": {"lastName": "Other"}}
        ]
    });
    let r = import(second).await;
    assert_eq!(
        (&r.body["updatedRecords"], &r.body["failedRecords"]),
        (&json!(1), &json!(1)),
        "{}",
        r.text
    );
    assert_eq!(
        r.body["failedUsers"][0]["errorMessage"],
        "Failed to create new user with externalSystemId: campus_e-9"
    );
    assert_eq!(
        r.body["message"],
        "Users were imported successfully. Users were not deactivated because of import failures."
    );
    let ann = c.get(&format!("/users/{ann_id}")).await.body;
    assert_eq!(ann["personal"]["email"], "ann@example.org");
    assert_eq!(ann["personal"]["addresses"].as_array().unwrap().len(), 1);

    // A clean run deactivates the source's users it does not name.
    let dee = json!({"totalRecords": 1, "sourceType": "campus",
        "users": [{"username": "dee", "externalSystemId": "e-4", "active": true,
            "patronGroup": "staff", "personal": {"lastName": "Dee"}}]});
    assert_eq!(import(dee).await.body["createdRecords"], 1);
    let only_dee = json!({"totalRecords": 1, "sourceType": "campus", "deactivateMissingUsers": true,
        "users": [{"username": "dee", "externalSystemId": "e-4", "active": true,
            "patronGroup": "staff", "personal": {"lastName": "Dee"}}]});
    let r = import(only_dee).await;
    assert_eq!(r.body["message"], "Deactivated missing users.", "{}", r.text);
    assert_eq!(c.get(&format!("/users/{ann_id}")).await.body["active"], false);
    let admin = c.get(&format!("/users?query={}", urlencode("username==admin"))).await;
    assert_eq!(admin.body["users"][0]["active"], true, "users of no source are left alone");

    let r = c.post_raw("/user-import", b"{\"users\": [".to_vec()).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let r = import(json!({"users": []})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
}

#[tokio::test]
async fn custom_fields_are_defined_checked_on_users_and_imported_by_label() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let college = create(
        &c,
        "/custom-fields",
        &json!({"name": "College", "type": "SINGLE_SELECT_DROPDOWN", "entityType": "user",
            "refId": "ignored", "order": 9,
            "selectField": {"multiSelect": false, "options": {"values": [
                {"value": "Arts"}, {"value": "Science", "default": true}]}}}),
    )
    .await;
    assert_eq!(college["refId"], "college", "the read-only refId is made from the name");
    assert_eq!(college["order"], 1);
    assert_eq!(college["visible"], true);
    assert_eq!(college["selectField"]["options"]["values"][1]["id"], "opt_2");
    let college_id = college["id"].as_str().unwrap().to_string();
    let badge = create(
        &c,
        "/custom-fields",
        &json!({"name": "Badge number", "type": "TEXTBOX_SHORT", "entityType": "user"}),
    )
    .await;
    assert_eq!((&badge["refId"], &badge["order"]), (&json!("badgeNumber"), &json!(2)));
    assert_eq!(badge["textField"]["fieldFormat"], "TEXT");
    let again = create(
        &c,
        "/custom-fields",
        &json!({"name": "college", "type": "DATE_PICKER", "entityType": "user"}),
    )
    .await;
    assert_eq!(again["refId"], "college_2");

    let r = c.get("/custom-fields?query=entityType==user").await;
    assert_eq!(r.body["totalRecords"], 3, "{}", r.text);
    let names: Vec<&str> = r.body["customFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["refId"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["college", "badgeNumber", "college_2"], "in order");

    // FOLIO's checks of a definition.
    let r = c
        .post(
            "/custom-fields",
            &json!({"name": "Agree", "type": "SINGLE_CHECKBOX", "entityType": "user"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(
        r.error().0,
        "The 'checkBox' property should be defined for 'SINGLE_CHECKBOX' custom field type."
    );
    let mut changed = badge.clone();
    changed["type"] = json!("TEXTBOX_LONG");
    let r = c.put(&format!("/custom-fields/{}", badge["id"].as_str().unwrap()), &changed).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(
        r.error().0,
        "The type of the custom field can not be changed: newType = TEXTBOX_LONG, oldType = TEXTBOX_SHORT"
    );

    // A user's values are checked against the definitions, every problem reported.
    let mut user = patron("fay", "CF-1", "Fay", "F");
    user["customFields"] = json!({"college": "opt_9", "shoeSize": "42", "badgeNumber": "B7"});
    let r = c.post("/users", &user).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    let messages: Vec<&str> = r.body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        [
            "Field college can only have following values: [opt_1: Arts, opt_2: Science]",
            "Custom field with refId shoeSize is not found"
        ]
    );
    assert_eq!(total(&c, "/users", "username==fay").await, 0, "nothing written");
    user["customFields"] = json!({"college": "opt_1", "badgeNumber": "B7"});
    let fay = create(&c, "/users", &user).await;
    let fay_id = fay["id"].as_str().unwrap().to_string();
    let r = c.get(&format!("/custom-fields/{college_id}/stats")).await;
    assert_eq!(r.body["count"], 1, "{}", r.text);

    // Dropping an option drops the values that chose it; the import maps labels to ids.
    let mut fewer = college.clone();
    fewer["selectField"]["options"]["values"] = json!([{"id": "opt_2", "value": "Science"}]);
    let r = c.put(&format!("/custom-fields/{college_id}"), &fewer).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let fay = c.get(&format!("/users/{fay_id}")).await.body;
    assert!(fay["customFields"].get("college").is_none(), "{fay}");
    assert_eq!(fay["customFields"]["badgeNumber"], "B7");

    let import = json!({
        "totalRecords": 2,
        "included": {"customFields": [{"refId": "college",
            "selectField": {"options": {"values": [{"value": "Music"}]}}}]},
        "users": [
            {"username": "gil", "externalSystemId": "g-1", "active": true, "patronGroup": "staff",
             "personal": {"lastName": "Gil"}, "customFields": {"college": "Music"}},
            {"username": "hal", "externalSystemId": "h-1", "active": true, "patronGroup": "staff",
             "personal": {"lastName": "Hal"}, "customFields": {"college": "Law", "hat": "x"}}
        ]
    });
    let r = c.post("/user-import", &import).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!((&r.body["createdRecords"], &r.body["failedRecords"]), (&json!(1), &json!(1)));
    assert_eq!(
        r.body["failedUsers"][0]["errorMessage"],
        "Custom fields do not exist in the system: [hat]. Custom field's options do not exist in the system: [refId = college, options: [Law]]."
    );
    let gil = c.get(&format!("/users?query={}", urlencode("username==gil"))).await;
    assert_eq!(
        gil.body["users"][0]["customFields"]["college"], "opt_3",
        "Music, added by the import"
    );

    // An included field that does not exist fails the whole batch, as FOLIO's 500.
    let bad = json!({"totalRecords": 1, "included": {"customFields": [{"refId": "nope"}]},
        "users": [{"username": "ivy", "externalSystemId": "i-1", "personal": {"lastName": "Ivy"}}]});
    let r = c.post("/user-import", &bad).await;
    assert_eq!(r.status, StatusCode::INTERNAL_SERVER_ERROR, "{}", r.text);
    assert_eq!(r.body["message"], "Failed to import users.");
    assert_eq!(
        r.body["failedUsers"][0]["errorMessage"],
        "Custom fields do not exist in the system: [nope]."
    );

    // Deleting a field deletes its values and closes the gap in the order; a PUT of the
    // collection keeps exactly what it names.
    let r = c.delete(&format!("/custom-fields/{}", badge["id"].as_str().unwrap())).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let fay = c.get(&format!("/users/{fay_id}")).await.body;
    assert!(fay["customFields"].get("badgeNumber").is_none(), "{fay}");
    let r = c.get(&format!("/custom-fields/{}", again["id"].as_str().unwrap())).await;
    assert_eq!(r.body["order"], 2, "{}", r.text);
    let college = c.get(&format!("/custom-fields/{college_id}")).await.body;
    let set = json!({"entityType": "user", "customFields": [
        {"name": "Locker", "type": "TEXTBOX_SHORT", "entityType": "user"}, college]});
    let r = c.put("/custom-fields", &set).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let r = c.get("/custom-fields").await;
    let refs: Vec<&str> = r.body["customFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["refId"].as_str().unwrap())
        .collect();
    assert_eq!(refs, ["locker", "college"]);
}
