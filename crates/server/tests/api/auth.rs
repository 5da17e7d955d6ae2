use axum::http::{Method, StatusCode};
use serde_json::json;

use crate::support::{Client, PASSWORD, TestApp};

#[tokio::test]
async fn login_returns_a_token_in_header_and_body() {
    let app = TestApp::new();
    let body = json!({"username": "admin", "password": PASSWORD}).to_string().into_bytes();
    let r = app.send(Method::POST, "/authn/login", Some("diku"), None, Some(body)).await;
    assert_eq!(r.status, StatusCode::CREATED);
    let token = r.body["okapiToken"].as_str().unwrap();
    assert_eq!(r.headers["x-okapi-token"], token);
    let client = Client { app: &app, tenant: "diku".into(), token: token.into() };
    assert_eq!(client.get("/instance-storage/instances").await.status, StatusCode::OK);
}

#[tokio::test]
async fn login_with_expiry_sets_folio_cookies_and_refresh_works() {
    let app = TestApp::new();
    let body = json!({"username": "admin", "password": PASSWORD}).to_string().into_bytes();
    let r =
        app.send(Method::POST, "/authn/login-with-expiry", Some("diku"), None, Some(body)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert!(
        r.body["accessTokenExpiration"].is_string() && r.body["refreshTokenExpiration"].is_string()
    );
    let cookies: Vec<String> =
        r.headers.get_all("set-cookie").iter().map(|v| v.to_str().unwrap().to_string()).collect();
    let access =
        cookies.iter().find(|c| c.starts_with("folioAccessToken=")).expect("access cookie");
    let refresh =
        cookies.iter().find(|c| c.starts_with("folioRefreshToken=")).expect("refresh cookie");
    assert!(access.contains("Max-Age=600") && access.contains("Path=/;"));
    assert!(refresh.contains("Path=/authn"));

    let access_token = access.split(';').next().unwrap().trim_start_matches("folioAccessToken=");
    let client = Client { app: &app, tenant: "diku".into(), token: access_token.into() };
    assert_eq!(client.get("/locations").await.status, StatusCode::OK);

    // A refresh token cannot authorize an API call, but buys new cookies.
    let refresh_token = refresh.split(';').next().unwrap().trim_start_matches("folioRefreshToken=");
    let misuse = Client { app: &app, tenant: "diku".into(), token: refresh_token.into() };
    assert_eq!(misuse.get("/locations").await.status, StatusCode::UNAUTHORIZED);
    let request = axum::http::Request::builder()
        .method("POST")
        .uri("/authn/refresh")
        .header("x-okapi-tenant", "diku")
        .header("cookie", format!("folioRefreshToken={refresh_token}"))
        .body(axum::body::Body::empty())
        .unwrap();
    let response = tower::ServiceExt::oneshot(app.router.clone(), request).await.unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(response.headers().get_all("set-cookie").iter().count(), 2);
}

#[tokio::test]
async fn wrong_password_and_unknown_user_are_refused() {
    let app = TestApp::new();
    for (user, password) in [("admin", "nope"), ("nobody", PASSWORD)] {
        let body = json!({"username": user, "password": password}).to_string().into_bytes();
        let r = app.send(Method::POST, "/authn/login", Some("diku"), None, Some(body)).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
        assert!(r.headers.get("x-okapi-token").is_none());
    }
    let r = app
        .send(Method::POST, "/authn/login", Some("diku"), None, Some(b"{\"username\":".to_vec()))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn missing_bad_and_foreign_tokens() {
    let app = TestApp::new();
    let r = app.send(Method::GET, "/instance-storage/instances", Some("diku"), None, None).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(r.error().0.contains("Missing token"), "{}", r.text);

    let r = app
        .send(Method::GET, "/instance-storage/instances", Some("diku"), Some("not.a.token"), None)
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);

    // A token signed with another key.
    let forged = auth::TokenKey::from_bytes([1; 32]).sign(&auth::Claims::new(
        "admin",
        uuid::Uuid::new_v4(),
        "diku",
        auth::TokenType::Legacy,
        60,
    ));
    let r = app
        .send(Method::GET, "/instance-storage/instances", Some("diku"), Some(&forged), None)
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);

    // A good token of tenant `other` used on `diku`.
    let other = app.login("other").await;
    let r = app
        .send(Method::GET, "/instance-storage/instances", Some("diku"), Some(&other), None)
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
}

#[tokio::test]
async fn permissions_are_checked_per_route() {
    let app = TestApp::new();
    let admin = Client::admin(&app, "diku").await;
    let r = admin
        .post(
            "/users",
            &json!({"username": "reader", "active": true, "personal": {"lastName": "Reader"}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let user_id = r.body["id"].as_str().unwrap().to_string();
    let r = admin
        .post(
            "/authn/credentials",
            &json!({"userId": user_id, "username": "reader", "password": "pw"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let r = admin
        .post("/perms/users", &json!({"userId": user_id, "permissions": ["inventory-storage.instances.collection.get"]}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);

    let reader = Client {
        app: &app,
        tenant: "diku".into(),
        token: app.login_as("diku", "reader", "pw").await,
    };
    assert_eq!(reader.get("/instance-storage/instances").await.status, StatusCode::OK);
    let instance = admin.instance_json("Forbidden").await;
    let r = reader.post("/instance-storage/instances", &instance).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(r.error().0, "Access requires permission: inventory-storage.instances.item.post");
    assert_eq!(
        admin.count("/instance-storage/instances").await,
        0,
        "a refused write changes nothing"
    );

    // Granting takes effect at once.
    let r = admin
        .post(
            &format!("/perms/users/{user_id}/permissions?indexField=userId"),
            &json!({"permissionName": "inventory-storage.instances.item.post"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(
        reader.post("/instance-storage/instances", &instance).await.status,
        StatusCode::CREATED
    );
    let r = reader.get(&format!("/perms/users/{user_id}/permissions")).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "reading permissions needs its own permission");

    // Only an administrator may grant everything.
    let r = reader.post("/perms/users", &json!({"userId": user_id, "permissions": ["*"]})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn bl_users_answers_the_composite_user() {
    let app = TestApp::new();
    let body = json!({"username": "admin", "password": PASSWORD}).to_string().into_bytes();
    let r = app.send(Method::POST, "/bl-users/login", Some("diku"), None, Some(body)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["user"]["username"], "admin");
    assert!(r.body["permissions"]["permissions"].as_array().is_some_and(|p| !p.is_empty()));
    let token = r.headers["x-okapi-token"].to_str().unwrap().to_string();
    let admin = Client { app: &app, tenant: "diku".into(), token };
    let own = admin.get("/bl-users/_self").await;
    assert_eq!(own.status, StatusCode::OK, "{}", own.text);
    assert_eq!(own.body["user"]["id"], r.body["user"]["id"]);

    // Another user, with a patron group and a sponsor, read by id and by username.
    let group = admin.first_id("/groups", "usergroups").await;
    let reader = json!({"username": "reader", "active": true, "patronGroup": group,
        "personal": {"lastName": "Reader"}});
    let reader = admin.post("/users", &reader).await.body;
    let sponsor = admin.post("/users", &json!({"username": "sponsor", "active": true})).await.body;
    let proxy = json!({"userId": reader["id"], "proxyUserId": sponsor["id"]});
    assert_eq!(admin.post("/proxiesfor", &proxy).await.status, StatusCode::CREATED);
    let by_id = admin.get(&format!("/bl-users/by-id/{}", reader["id"].as_str().unwrap())).await;
    assert_eq!(by_id.status, StatusCode::OK, "{}", by_id.text);
    assert_eq!(by_id.body["patronGroup"]["id"], group);
    assert_eq!(by_id.body["proxiesFor"][0]["proxyUserId"], sponsor["id"]);
    assert_eq!(by_id.body["permissions"]["permissions"], json!([]));
    assert!(by_id.body.get("servicePointsUser").is_none(), "none kept for this user");
    let desk = "3a40852d-49fd-4df2-a1f9-6e2641a6e91f";
    let spu =
        json!({"userId": reader["id"], "servicePointsIds": [desk], "defaultServicePointId": desk});
    assert_eq!(admin.post("/service-points-users", &spu).await.status, StatusCode::CREATED);
    let by_name = admin.get("/bl-users/by-username/READER").await;
    let points = &by_name.body["servicePointsUser"];
    assert_eq!(points["servicePoints"][0]["name"], "Circ Desk 1", "{}", by_name.text);
    assert_eq!(points["defaultServicePoint"]["id"], desk);
    assert_eq!(by_name.body["user"]["id"], reader["id"], "usernames compare without case");
    let missing = admin.get("/bl-users/by-id/00000000-0000-4000-8000-000000000000").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND, "{}", missing.text);

    // With expiry: the composite, the expirations and FOLIO's two cookies.
    let body = json!({"username": "admin", "password": PASSWORD}).to_string().into_bytes();
    let r =
        app.send(Method::POST, "/bl-users/login-with-expiry", Some("diku"), None, Some(body)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert!(r.body["tokenExpiration"]["accessTokenExpiration"].is_string());
    assert_eq!(r.body["user"]["username"], "admin");
    assert_eq!(r.headers.get_all("set-cookie").iter().count(), 2);
    let body = json!({"username": "admin", "password": "wrong"}).to_string().into_bytes();
    let r = app.send(Method::POST, "/bl-users/login", Some("diku"), None, Some(body)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
}
