//! Requests a hostile user would send: each gets a specific 4xx, none a 5xx, none stops
//! the server or raises anyone's rights. The first tests are the cases a hostile review
//! found; `hostile_requests_per_route_family` sweeps every route family.

use axum::{
    body::Body,
    http::{Method, Request, StatusCode},
};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::{
    instances::urlencode,
    support::{Client, PASSWORD, TestApp},
};

/// `n` clauses `{index}=={value}N` joined by `op`.
fn chain(index: &str, value: &str, op: &str, n: usize) -> String {
    (0..n).map(|i| format!("{index}=={value}{i}")).collect::<Vec<_>>().join(&format!(" {op} "))
}

/// `inner` inside `n` parentheses.
fn nested(inner: &str, n: usize) -> String {
    format!("{}{inner}{}", "(".repeat(n), ")".repeat(n))
}

/// Creates a user with credentials and the permissions given; returns its id and a client.
pub(crate) async fn user_with<'a>(
    admin: &Client<'a>,
    username: &str,
    permissions: &[&str],
) -> (String, Client<'a>) {
    let r = admin
        .post(
            "/users",
            &json!({"username": username, "active": true, "personal": {"lastName": username}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_string();
    let r = admin
        .post("/authn/credentials", &json!({"userId": id, "username": username, "password": "pw"}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    if !permissions.is_empty() {
        let r =
            admin.post("/perms/users", &json!({"userId": id, "permissions": permissions})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    let token = admin.app.login_as(&admin.tenant, username, "pw").await;
    (id, Client { app: admin.app, tenant: admin.tenant.clone(), token })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_and_deep_queries_are_answered_or_refused_never_crash() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    for title in ["w7", "w999", "other"] {
        c.create_instance(title).await;
    }
    let get = |path: &str, query: &str| format!("{path}?query={}", urlencode(query));

    // A chain of one operator is one level, however long: FOLIO's limit of a thousand.
    for n in [250, 1000] {
        let query = chain("title", "w", "or", n);
        let r = c.get(&get("/search/instances", &query)).await;
        assert_eq!(r.status, StatusCode::OK, "{n}: {}", r.text);
        assert_eq!(r.body["totalRecords"], if n == 1000 { 2 } else { 1 }, "{n}");
        let r = c.get(&get("/instance-bulk/ids", &query)).await;
        assert_eq!(r.status, StatusCode::OK, "{n}: {}", r.text);
        let r = c.get(&(get("/search/instances/facets", &query) + "&facet=source")).await;
        assert_eq!(r.status, StatusCode::OK, "{n}: {}", r.text);
        let and = chain("title", "w", "and", n);
        let r = c.get(&get("/search/instances", &and)).await;
        assert_eq!((r.status, &r.body["totalRecords"]), (StatusCode::OK, &json!(0)), "{n}");
        let not = format!("title==w999 not {}", chain("title", "x", "not", n - 1));
        let r = c.get(&get("/search/instances", &not)).await;
        assert_eq!((r.status, &r.body["totalRecords"]), (StatusCode::OK, &json!(1)), "{n}");
    }
    let r = c.get(&get("/search/authorities", &chain("headingRef", "w", "or", 1000))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);

    // Past the limits: a 400 that says which. (A query too long for the limit is too long
    // for a URL, whose limit is the same, 64 KiB: the CQL parser's own tests try it.)
    for (query, message) in [
        (chain("title", "w", "or", 1001), "Query has too many terms: at most 1000 are allowed"),
        (chain("title", "w", "or", 1500), "Query has too many terms: at most 1000 are allowed"),
        (nested("title==w7", 33), "Query is nested too deeply: at most 32 levels are allowed"),
        (nested("title==w7", 5000), "Query is nested too deeply: at most 32 levels are allowed"),
        (
            (0..40).map(|i| format!("title==w{i}")).collect::<Vec<_>>().join(" or (")
                + &")".repeat(39),
            "Query is nested too deeply: at most 32 levels are allowed",
        ),
    ] {
        for path in ["/search/instances", "/instance-bulk/ids", "/search/authorities"] {
            let r = c.get(&get(path, &query)).await;
            assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path} {}", r.text);
            assert!(r.error().0.contains(message), "{path}: {}", r.text);
        }
        let r = c.get(&(get("/search/instances/facets", &query) + "&facet=source")).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
        let r = c.get(&get("/item-storage/items", &query.replace("title", "barcode"))).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
        assert!(r.error().0.contains(message), "{}", r.text);
    }
    let deepest = nested(&chain("title", "w", "or", 3), 32);
    let r = c.get(&get("/search/instances", &deepest)).await;
    assert_eq!((r.status, &r.body["totalRecords"]), (StatusCode::OK, &json!(0)), "{}", r.text);

    // Storage lists: a thousand ids is one SQL statement SQLite accepts.
    let holdings = c.create_holdings().await;
    let item = c.item_json(&holdings["id"], "B-7").await;
    let item = c.post("/item-storage/items", &item).await.body;
    let mut ids: Vec<String> = (0..999).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    ids.push(item["id"].as_str().unwrap().to_string());
    let query = format!("id==({})", ids.join(" or "));
    let r = c.get(&get("/item-storage/items", &query)).await;
    assert_eq!((r.status, &r.body["totalRecords"]), (StatusCode::OK, &json!(1)), "{}", r.text);
    let query = format!("barcode==B-7 not ({})", chain("barcode", "X", "or", 999));
    let r = c.get(&get("/item-storage/items", &query)).await;
    assert_eq!((r.status, &r.body["totalRecords"]), (StatusCode::OK, &json!(1)), "{}", r.text);
    let r = c.get(&get("/users", &format!("id==({})", ids.join(" or ")))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);

    assert_eq!(c.get("/admin/health").await.status, StatusCode::OK);
}

#[tokio::test]
async fn nested_marc_expressions_are_refused() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    let path = "/source-storage/stream/marc-record-identifiers";
    let deep = nested("245.a ^= 'w'", 5000);
    for (body, message) in [
        (
            json!({"fieldsSearchExpression": deep}),
            "Query is nested too deeply: at most 32 levels are allowed [expression: marcFieldSearchExpression]",
        ),
        (
            json!({"leaderSearchExpression": nested("p_05 = 'c'", 5000)}),
            "Query is nested too deeply: at most 32 levels are allowed [expression: leaderSearchExpression]",
        ),
        (
            json!({"fieldsSearchExpression": vec!["245.a ^= 'w'"; 1001].join(" or ")}),
            "Query has too many terms: at most 1000 are allowed [expression: marcFieldSearchExpression]",
        ),
    ] {
        let r = c.post(path, &body).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
        assert_eq!(r.error().0, message);
    }
    for body in [
        json!({"fieldsSearchExpression": nested("245.a ^= 'w'", 32)}),
        json!({"fieldsSearchExpression": vec!["245.a ^= 'w'"; 1000].join(" or ")}),
        json!({"fieldsSearchExpression": vec!["245.a ^= 'w'"; 1000].join(" and ")}),
    ] {
        let r = c.post(path, &body).await;
        assert_eq!((r.status, &r.body["totalCount"]), (StatusCode::OK, &json!(0)), "{}", r.text);
    }
}

#[tokio::test]
async fn credentials_cannot_be_taken_over_nor_rights_raised() {
    let app = TestApp::new();
    let admin = Client::admin(&app, "diku").await;
    let admin_id = admin.get("/users?query=username==admin").await.body["users"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, clerk) = user_with(
        &admin,
        "clerk",
        &["login.item.post", "login.item.delete", "perms.users.item.post", "users.item.post"],
    )
    .await;

    // Credentials of a user who has them are not replaced: mod-login's 422.
    let takeover = json!({"userId": admin_id, "username": "admin", "password": "mine"});
    let r = clerk.post("/authn/credentials", &takeover).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(
        r.error(),
        (
            format!("There already exists credentials for user id '{admin_id}'"),
            vec![("userId".to_string(), admin_id.clone())]
        )
    );
    // Nor deleted to be made again: the administrator holds permissions the clerk lacks.
    let r = clerk.delete(&format!("/authn/credentials?userId={admin_id}")).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    assert!(r.error().0.contains("holds permission *"), "{}", r.text);
    app.login_as("diku", "admin", PASSWORD).await;

    // A powerful user without credentials yet is no way in either.
    let r = admin
        .post("/users", &json!({"username": "boss", "active": true, "personal": {"lastName": "B"}}))
        .await;
    let boss_id = r.body["id"].as_str().unwrap().to_string();
    let r = admin
        .post("/perms/users", &json!({"userId": boss_id, "permissions": ["users.item.delete"]}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let r = clerk
        .post(
            "/authn/credentials",
            &json!({"userId": boss_id, "username": "boss", "password": "x"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    let body = json!({"username": "boss", "password": "x"}).to_string().into_bytes();
    let r = app.send(Method::POST, "/authn/login", Some("diku"), None, Some(body)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "no credentials were made");

    // Credentials take the user record's username: no one logs in under another name.
    let r = admin
        .post(
            "/users",
            &json!({"username": "newbie", "active": true, "personal": {"lastName": "N"}}),
        )
        .await;
    let newbie_id = r.body["id"].as_str().unwrap().to_string();
    let r = clerk
        .post(
            "/authn/credentials",
            &json!({"userId": newbie_id, "username": "root", "password": "x"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let body = json!({"username": "root", "password": "x"}).to_string().into_bytes();
    let r = app.send(Method::POST, "/authn/login", Some("diku"), None, Some(body)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    app.login_as("diku", "newbie", "x").await;

    // A grant hands out only what the granter holds, to itself or anyone.
    let (intern_id, _) = user_with(&clerk, "intern", &[]).await;
    for (user, permission) in [(&intern_id, "users.item.delete"), (&intern_id, "*")] {
        let r =
            clerk.post("/perms/users", &json!({"userId": user, "permissions": [permission]})).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    }
    let r = clerk
        .post("/perms/users", &json!({"userId": intern_id, "permissions": ["users.item.post"]}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);

    // A password changes through mod-login's update path, with the current password.
    let update = |password: &str, new: &str| json!({"username": "admin", "password": password, "newPassword": new});
    let r = clerk.post("/authn/update", &update("guess", "mine")).await;
    assert_eq!((r.status, r.error().0.as_str()), (StatusCode::UNAUTHORIZED, "Invalid credentials"));
    let r = admin.post("/authn/update", &update(PASSWORD, "")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let r = admin.post("/authn/update", &update(PASSWORD, "n3w")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    app.login_as("diku", "admin", "n3w").await;
    let old = json!({"username": "admin", "password": PASSWORD}).to_string().into_bytes();
    let r = app.send(Method::POST, "/authn/login", Some("diku"), None, Some(old)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(admin.get("/users?limit=1").await.status, StatusCode::OK, "tokens stay valid");

    // An administrator replaces a password by deleting the credentials and making new ones.
    let (clerk_id, _) =
        (admin.get("/users?query=username==clerk").await.body["users"][0]["id"].clone(), ());
    let clerk_id = clerk_id.as_str().unwrap();
    let r = admin.get(&format!("/authn/credentials-existence?userId={clerk_id}")).await;
    assert_eq!(r.body, json!({"credentialsExist": true}));
    let r = admin.delete(&format!("/authn/credentials?userId={clerk_id}")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let r = admin.delete(&format!("/authn/credentials?userId={clerk_id}")).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.text);
    assert_eq!(clerk.get("/users?limit=1").await.status, StatusCode::UNAUTHORIZED);
    let r = admin.get(&format!("/authn/credentials-existence?userId={clerk_id}")).await;
    assert_eq!(r.body, json!({"credentialsExist": false}));
    let r =
        admin.post("/authn/credentials", &json!({"userId": clerk_id, "password": "fresh"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    app.login_as("diku", "clerk", "fresh").await;
}

#[tokio::test]
async fn paging_values_past_folios_range_are_400s_quoting_them() {
    let app = TestApp::new();
    let c = Client::admin(&app, "diku").await;
    for path in ["/item-storage/items", "/users", "/circulation/loans", "/loan-storage/loans"] {
        for (parameter, value, rule) in [
            ("limit", "9223372036854775808", "must be less than or equal to 2147483647"),
            ("limit", "2147483648", "must be less than or equal to 2147483647"),
            ("offset", "18446744073709551616", "must be less than or equal to 2147483647"),
            ("limit", "-1", "must be greater than or equal to 0"),
            ("offset", "1.5", "must be an integer, greater than or equal to 0"),
        ] {
            let r = c.get(&format!("{path}?{parameter}={value}")).await;
            assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path} {}", r.text);
            assert_eq!(
                r.error(),
                (
                    format!(
                        "'{parameter}' parameter is incorrect. parameter value {{{value}}} is not valid: {rule}"
                    ),
                    vec![(parameter.to_string(), value.to_string())]
                ),
                "{path}"
            );
        }
        let r = c.get(&format!("{path}?limit=2147483647&offset=2147483647")).await;
        assert_eq!(r.status, StatusCode::OK, "{path} {}", r.text);
    }
    let r = c.get("/search/instances?query=id=*&offset=18446744073709551615").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert_eq!(r.error().1, vec![("offset".to_string(), "18446744073709551615".to_string())]);
    assert!(r.error().0.contains("{18446744073709551615}"), "{}", r.text);
    let r = c.get("/search/instances?query=id=*&offset=4294967295").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert!(r.error().0.contains("{4294967295}"), "{}", r.text);
    let r = c.get("/search/instances?query=id=*&offset=9999&limit=2").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert_eq!(r.error().0, "The sum of limit and offset should not exceed 10000.");
}

#[tokio::test]
async fn a_deleted_or_deactivated_users_tokens_stop_at_once() {
    let app = TestApp::new();
    let admin = Client::admin(&app, "diku").await;
    let (id, reader) = user_with(&admin, "reader", &["users.collection.get"]).await;
    let user = admin.get(&format!("/users/{id}")).await.body;
    // Each token is used first, so its standing is cached when the change comes.
    assert_eq!(reader.get("/users?limit=1").await.status, StatusCode::OK);

    let mut inactive = user.clone();
    inactive["active"] = json!(false);
    let r = admin.put(&format!("/users/{id}"), &inactive).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    let r = reader.get("/users?limit=1").await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.text);
    // Active again: the old token stays refused, a new login works.
    let r = admin.put(&format!("/users/{id}"), &user).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(reader.get("/users?limit=1").await.status, StatusCode::UNAUTHORIZED);
    let again = Client {
        app: &app,
        tenant: "diku".into(),
        token: app.login_as("diku", "reader", "pw").await,
    };
    assert_eq!(again.get("/users?limit=1").await.status, StatusCode::OK);

    // Deleted: refused at once, and still refused for a new user under the same id.
    assert_eq!(admin.delete(&format!("/users/{id}")).await.status, StatusCode::NO_CONTENT);
    assert_eq!(again.get("/users?limit=1").await.status, StatusCode::UNAUTHORIZED);
    let r = admin.post("/users", &user).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let r = admin
        .post("/perms/users", &json!({"userId": id, "permissions": ["users.collection.get"]}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(again.get("/users?limit=1").await.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_open_tenant_api_adds_no_administrator_to_an_existing_tenant() {
    let app = TestApp::new();
    let enable = |username: &str, password: &str| {
        json!({"parameters": [{"key": "adminUsername", "value": username}, {"key": "adminPassword", "value": password}]})
            .to_string()
            .into_bytes()
    };
    let r =
        app.send(Method::POST, "/_/tenant", Some("diku"), None, Some(enable("evil", "x"))).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    let login = json!({"username": "evil", "password": "x"}).to_string().into_bytes();
    let r = app.send(Method::POST, "/authn/login", Some("diku"), None, Some(login)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "no administrator was made");
    // Enabling again with the administrator it has changes nothing, its password included.
    let r =
        app.send(Method::POST, "/_/tenant", Some("diku"), None, Some(enable("admin", "x"))).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    app.login_as("diku", "admin", PASSWORD).await;
    // A new tenant still gets its administrator.
    let r =
        app.send(Method::POST, "/_/tenant", Some("fresh"), None, Some(enable("boss", "x"))).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    app.login_as("fresh", "boss", "x").await;

    // With the admin key, an administrator may be added.
    let app = TestApp::with_config(server::Config {
        admin_key: Some("k3y".into()),
        ..server::Config::default()
    });
    let request = Request::post("/_/tenant")
        .header("x-okapi-tenant", "diku")
        .header("x-quire-admin-key", "k3y")
        .body(Body::from(enable("second", "y")))
        .unwrap();
    let response = app.router.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    app.login_as("diku", "second", "y").await;
}

/// A body that records whether anyone polled it, and never ends.
struct Untouched(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl http_body::Body for Untouched {
    type Data = axum::body::Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        std::task::Poll::Pending
    }
}

#[tokio::test]
async fn oversized_declared_bodies_and_odd_tenant_headers_are_refused_up_front() {
    let app = TestApp::new();
    let token = app.login("diku").await;
    for path in ["/instance-storage/instances", "/authn/login", "/_/tenant"] {
        let polled = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let request = Request::post(path)
            .header("x-okapi-tenant", "diku")
            .header("x-okapi-token", &token)
            .header("content-type", "application/json")
            .header("content-length", (1u64 << 30).to_string())
            .body(Body::new(Untouched(polled.clone())))
            .unwrap();
        let response = app.router.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE, "{path}");
        assert!(!polled.load(std::sync::atomic::Ordering::SeqCst), "{path}: the body was read");
        let body: Value =
            serde_json::from_slice(&response.into_body().collect().await.unwrap().to_bytes())
                .unwrap();
        assert_eq!(
            body["errors"][0]["message"],
            "Request body is larger than the limit of 67108864 bytes"
        );
    }

    for path in ["/authn/login", "/users", "/_/tenant"] {
        let request = Request::post(path)
            .header("x-okapi-tenant", axum::http::HeaderValue::from_bytes(b"d\xc3\xbcku").unwrap())
            .header("x-okapi-token", &token)
            .body(Body::from("{}"))
            .unwrap();
        let response = app.router.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{path}");
        let body: Value =
            serde_json::from_slice(&response.into_body().collect().await.unwrap().to_bytes())
                .unwrap();
        assert_eq!(body["errors"][0]["message"], "Invalid tenant name: düku", "{path}");
    }
}

/// Collects the requests whose status differs from the expected one, so one run shows
/// every route that answers wrong, and checks no answer is a 5xx.
struct Sweep<'a> {
    app: &'a TestApp,
    wrong: Vec<String>,
}

impl Sweep<'_> {
    async fn expect(
        &mut self,
        expected: StatusCode,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Vec<u8>>,
    ) {
        let r = self.app.send(method.clone(), path, Some("diku"), token, body).await;
        if r.status != expected {
            let mut text = r.text;
            text.truncate(200);
            self.wrong.push(format!("{method} {path}: {} (expected {expected}) {text}", r.status));
        } else if expected.is_client_error()
            && r.body["errors"][0]["message"].as_str().is_none()
            // The circulation rules' FOLIO shape: `{"message","line","column"}`.
            && r.body["message"].as_str().is_none()
            // mod-bulk-operations answers a caller's mistake in plain text.
            && (!path.starts_with("/bulk-operations") || r.text.trim().is_empty())
        {
            self.wrong.push(format!("{method} {path}: {} without FOLIO's error body", r.status));
        }
    }
}

/// A record collection with FOLIO's storage shape: a list, and records by id.
struct Collection {
    path: &'static str,
    /// Whether the list takes CQL (`query`).
    cql: bool,
    /// Whether records are created by POST to the list and deleted by id.
    post: bool,
    delete: bool,
}

const fn storage(path: &'static str) -> Collection {
    Collection { path, cql: true, post: true, delete: true }
}

const COLLECTIONS: &[Collection] = &[
    storage("/instance-storage/instances"),
    storage("/holdings-storage/holdings"),
    storage("/item-storage/items"),
    storage("/authority-storage/authorities"),
    storage("/inventory/instances"),
    storage("/inventory/items"),
    storage("/locations"),
    storage("/material-types"),
    storage("/instance-types"),
    storage("/service-points"),
    storage("/users"),
    storage("/groups"),
    storage("/proxiesfor"),
    // SRS lists by its own parameters, as FOLIO's does.
    Collection { path: "/source-storage/records", cql: false, post: true, delete: true },
    storage("/loan-policy-storage/loan-policies"),
    storage("/loan-storage/loans"),
    storage("/request-storage/requests"),
    // Loans are made by check-out, requests are cancelled by a PUT.
    Collection { path: "/circulation/loans", cql: true, post: false, delete: true },
    Collection { path: "/circulation/requests", cql: true, post: true, delete: false },
    storage("/accounts"),
    storage("/manualblocks"),
    storage("/configurations/entries"),
    // mod-calendar's list takes ids, service points and dates, not CQL.
    Collection { path: "/calendar/calendars", cql: false, post: true, delete: true },
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_requests_per_route_family() {
    let app = TestApp::with_config(server::Config {
        max_body_bytes: 64 * 1024,
        ..server::Config::default()
    });
    let admin = Client::admin(&app, "diku").await;
    let token = admin.token.clone();
    let foreign = app.login("other").await;
    let (_, nobody) = user_with(&admin, "nobody", &[]).await;
    let mut sweep = Sweep { app: &app, wrong: Vec::new() };
    let json = |text: &str| Some(text.as_bytes().to_vec());
    // Deeper than serde's recursion limit, within the body limit.
    let deep_json = format!("{{\"a\":{}1{}}}", "[".repeat(20_000), "]".repeat(20_000));
    let oversized = format!("{{\"title\":\"{}\"}}", "x".repeat(70 * 1024));
    let missing = uuid::Uuid::new_v4();
    use StatusCode as S;
    for &Collection { path, cql, post, delete } in COLLECTIONS {
        let list = format!("{path}?limit=1");
        // Who may ask.
        sweep.expect(S::UNAUTHORIZED, Method::GET, &list, None, None).await;
        sweep.expect(S::UNAUTHORIZED, Method::GET, &list, Some("not.a.token"), None).await;
        sweep.expect(S::FORBIDDEN, Method::GET, &list, Some(&foreign), None).await;
        sweep.expect(S::FORBIDDEN, Method::GET, &list, Some(&nobody.token), None).await;
        if post {
            sweep.expect(S::FORBIDDEN, Method::POST, path, Some(&nobody.token), json("{}")).await;
        }
        // Paging.
        for paging in ["limit=-1", "limit=99999999999999999999", "offset=-0.5", "offset=1e9"] {
            sweep
                .expect(
                    S::BAD_REQUEST,
                    Method::GET,
                    &format!("{path}?{paging}"),
                    Some(&token),
                    None,
                )
                .await;
        }
        // Injection-shaped and malformed queries.
        if cql {
            for (query, expected) in [
                (r#"id=="1' OR '1'='1""#, S::OK),
                (r#"id=="x\" or 1=1; DROP TABLE users; --""#, S::OK),
                ("id==(", S::BAD_REQUEST),
                ("id==x) or (1=1", S::BAD_REQUEST),
                ("; DROP TABLE users", S::BAD_REQUEST),
                ("id==x sortBy id; DROP TABLE users", S::BAD_REQUEST),
                ("id==x prox id==y", S::BAD_REQUEST),
                (&"(".repeat(5000), S::BAD_REQUEST),
            ] {
                let url = format!("{path}?query={}", urlencode(query));
                sweep.expect(expected, Method::GET, &url, Some(&token), None).await;
            }
        }
        // Ids.
        for id in ["not-a-uuid", "..%2F..%2Fetc%2Fpasswd", "%00", &"9".repeat(5000)] {
            sweep
                .expect(S::BAD_REQUEST, Method::GET, &format!("{path}/{id}"), Some(&token), None)
                .await;
            if delete {
                sweep
                    .expect(
                        S::BAD_REQUEST,
                        Method::DELETE,
                        &format!("{path}/{id}"),
                        Some(&token),
                        None,
                    )
                    .await;
            }
        }
        sweep
            .expect(S::NOT_FOUND, Method::GET, &format!("{path}/{missing}"), Some(&token), None)
            .await;
        // Bodies.
        for body in ["{\"title\": ", "nul", "\u{0}", deep_json.as_str()] {
            if post {
                sweep.expect(S::BAD_REQUEST, Method::POST, path, Some(&token), json(body)).await;
            }
            sweep
                .expect(
                    S::BAD_REQUEST,
                    Method::PUT,
                    &format!("{path}/{missing}"),
                    Some(&token),
                    json(body),
                )
                .await;
        }
        let put = format!("{path}/{missing}");
        sweep.expect(S::PAYLOAD_TOO_LARGE, Method::PUT, &put, Some(&token), json(&oversized)).await;
    }

    // Bulk operations: made by an upload or a query, driven by steps, never PUT.
    let bulk = format!("/bulk-operations/{missing}");
    for (expected, method, path, body) in [
        (S::FORBIDDEN, Method::GET, "/bulk-operations".to_string(), None),
        (S::BAD_REQUEST, Method::GET, "/bulk-operations?limit=-1".into(), None),
        (S::BAD_REQUEST, Method::GET, "/bulk-operations?query=id%3D%3D(".into(), None),
        (S::BAD_REQUEST, Method::GET, "/bulk-operations/not-a-uuid".into(), None),
        (S::BAD_REQUEST, Method::GET, "/bulk-operations/..%2F..%2Fetc%2Fpasswd".into(), None),
        (S::NOT_FOUND, Method::GET, bulk.clone(), None),
        (S::NOT_FOUND, Method::GET, format!("{bulk}/preview?step=UPLOAD"), None),
        (S::BAD_REQUEST, Method::GET, format!("{bulk}/preview?step=NONE"), None),
        (S::BAD_REQUEST, Method::GET, format!("{bulk}/download?fileContentType=../x"), None),
        (S::BAD_REQUEST, Method::POST, "/bulk-operations/query".into(), json("{\"entityType\":")),
        (S::BAD_REQUEST, Method::POST, "/bulk-operations/upload?entityType=X".into(), json("a")),
        (S::BAD_REQUEST, Method::POST, format!("{bulk}/start"), json("nul")),
        (S::BAD_REQUEST, Method::POST, format!("{bulk}/content-update"), json(&deep_json)),
        (S::NOT_FOUND, Method::POST, format!("{bulk}/cancel"), None),
        (
            S::PAYLOAD_TOO_LARGE,
            Method::POST,
            "/bulk-operations/upload?entityType=ITEM&identifierType=BARCODE".into(),
            json(&oversized),
        ),
    ] {
        let who = if expected == S::FORBIDDEN { &nobody.token } else { &token };
        sweep.expect(expected, method, &path, Some(who), body).await;
    }

    // Endpoints of their own shape.
    let t = Some(token.as_str());
    for (expected, method, path, body) in [
        (S::BAD_REQUEST, Method::POST, "/authn/login", json("{\"username\":")),
        (S::UNPROCESSABLE_ENTITY, Method::POST, "/authn/login", json(r#"{"username":"admin","password":"' OR 1=1 --"}"#)),
        (S::UNPROCESSABLE_ENTITY, Method::POST, "/authn/login", json(r#"{"username":"admin' --","password":"x"}"#)),
        (S::BAD_REQUEST, Method::POST, "/authn/credentials", json("[")),
        (S::UNPROCESSABLE_ENTITY, Method::POST, "/authn/credentials", json(&format!(r#"{{"userId":"{missing}","password":"x"}}"#))),
        (S::BAD_REQUEST, Method::DELETE, "/authn/credentials?userId=../admin", None),
        (S::BAD_REQUEST, Method::POST, "/authn/update", json(r#"{"password":"x","newPassword":"y"}"#)),
        (S::BAD_REQUEST, Method::POST, "/perms/users", json("{\"userId\":")),
        (S::BAD_REQUEST, Method::GET, "/perms/users/not-a-uuid/permissions", None),
        (S::BAD_REQUEST, Method::GET, "/search/instances", None),
        (S::BAD_REQUEST, Method::GET, "/search/instances?query=title%3D%3D(", None),
        (S::BAD_REQUEST, Method::GET, "/search/instances?query=id%3D*&limit=501", None),
        (S::BAD_REQUEST, Method::GET, "/search/instances?query=id%3D*&limit=-1", None),
        (S::BAD_REQUEST, Method::GET, "/search/instances?query=id%3D*&offset=99999999999", None),
        (S::BAD_REQUEST, Method::GET, "/search/instances?query=nosuchfield%3Dx", None),
        (S::BAD_REQUEST, Method::GET, "/search/instances/facets?query=id%3D*&facet=nosuch", None),
        (S::BAD_REQUEST, Method::GET, "/search/authorities?query=%22", None),
        (S::BAD_REQUEST, Method::GET, "/instance-bulk/ids?query=(((", None),
        (S::BAD_REQUEST, Method::POST, "/source-storage/stream/marc-record-identifiers", json("{")),
        (S::BAD_REQUEST, Method::POST, "/source-storage/stream/marc-record-identifiers", json(r#"{"fieldsSearchExpression":"245.a ^= 'x' or drop table"}"#)),
        (S::UNPROCESSABLE_ENTITY, Method::POST, "/source-storage/stream/marc-record-identifiers", json(r#"{"fieldsSearchExpression":"245.a ^= 'x'","limit":-1}"#)),
        (S::BAD_REQUEST, Method::POST, "/source-storage/snapshots", json("{")),
        (S::BAD_REQUEST, Method::POST, "/circulation/check-out-by-barcode", json("{")),
        (S::UNPROCESSABLE_ENTITY, Method::POST, "/circulation/check-out-by-barcode", json("{}")),
        (S::BAD_REQUEST, Method::POST, "/circulation/check-in-by-barcode", json("{")),
        (S::BAD_REQUEST, Method::PUT, "/circulation/rules", json("{")),
        (S::UNPROCESSABLE_ENTITY, Method::PUT, "/circulation/rules", json(&json!({"rulesAsText": format!("priority: last-line\nfallback-policy: l a r b n c o d i e\n{}", (0..40).map(|i| format!("{}m m{i}\n", " ".repeat(i))).collect::<String>())}).to_string())),
        (S::BAD_REQUEST, Method::GET, "/circulation/rules/loan-policy?item_type_id=x", None),
        (S::BAD_REQUEST, Method::GET, "/automated-patron-blocks/not-a-uuid", None),
        (S::BAD_REQUEST, Method::GET, "/calendar/dates/not-a-uuid/all-openings", None),
        (S::BAD_REQUEST, Method::POST, "/_/tenant", json("{")),
        (S::NOT_FOUND, Method::GET, "/no/such/endpoint", None),
        (S::NOT_FOUND, Method::GET, "/../../etc/passwd", None),
    ] {
        sweep.expect(expected, method, path, t, body).await;
    }
    assert!(
        sweep.wrong.is_empty(),
        "{} wrong answers:\n{}",
        sweep.wrong.len(),
        sweep.wrong.join("\n")
    );

    // Still serving, and nothing was written by any of it.
    assert_eq!(admin.get("/admin/health").await.status, StatusCode::OK);
    assert_eq!(admin.count("/instance-storage/instances").await, 0);
    assert_eq!(admin.count("/users").await, 2, "the administrator and nobody");
}
