//! What a typical FOLIO client does, end to end, holding nothing but the cookies FOLIO
//! sets: log in with expiry, refresh, page a whole table by id and by offset, edit a
//! record by GET and PUT, meet a stale `_version`, and log out (one session, then all).

use axum::http::{Method, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};

use crate::{
    instances::urlencode,
    support::{Client, PASSWORD, TestApp},
};

/// A client that holds FOLIO's two cookies, as a browser or `requests.Session` would.
struct Session<'a> {
    app: &'a TestApp,
    access: String,
    refresh: String,
}

struct Answer {
    status: StatusCode,
    body: Value,
    cookies: Vec<String>,
}

impl<'a> Session<'a> {
    async fn login(app: &'a TestApp) -> Session<'a> {
        let body = json!({"username": "admin", "password": PASSWORD});
        let mut session = Session { app, access: String::new(), refresh: String::new() };
        let r = session.send(Method::POST, "/authn/login-with-expiry", Some(body)).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
        session.take_cookies(&r);
        session
    }

    fn take_cookies(&mut self, answer: &Answer) {
        for cookie in &answer.cookies {
            let pair = cookie.split(';').next().unwrap();
            if let Some(token) = pair.strip_prefix("folioAccessToken=") {
                self.access = token.to_string();
            }
            if let Some(token) = pair.strip_prefix("folioRefreshToken=") {
                self.refresh = token.to_string();
            }
        }
    }

    /// A request with the tenant header and the cookies, and no token header.
    async fn send(&self, method: Method, path: &str, body: Option<Value>) -> Answer {
        let mut request = axum::http::Request::builder()
            .method(method)
            .uri(path)
            .header("x-okapi-tenant", "diku")
            .header(
                "cookie",
                format!("folioAccessToken={}; folioRefreshToken={}", self.access, self.refresh),
            );
        let body = match body {
            Some(json) => {
                request = request.header("content-type", "application/json");
                axum::body::Body::from(json.to_string())
            }
            None => axum::body::Body::empty(),
        };
        let response =
            tower::ServiceExt::oneshot(self.app.router.clone(), request.body(body).unwrap())
                .await
                .unwrap();
        let status = response.status();
        let cookies = response
            .headers()
            .get_all("set-cookie")
            .iter()
            .map(|v| v.to_str().unwrap().to_string())
            .collect();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        Answer { status, body: serde_json::from_slice(&bytes).unwrap_or(Value::Null), cookies }
    }

    async fn get(&self, path: &str) -> Answer {
        self.send(Method::GET, path, None).await
    }
}

#[tokio::test]
async fn a_cookie_only_client_pages_edits_and_logs_out() {
    let app = TestApp::new();
    let admin = Client::admin(&app, "diku").await;
    let holdings = admin.create_holdings().await;
    for n in 0..25 {
        let item = admin.item_json(&holdings["id"], &format!("CF-{n:02}")).await;
        assert_eq!(admin.post("/item-storage/items", &item).await.status, StatusCode::CREATED);
    }

    let mut session = Session::login(&app).await;
    assert_eq!(session.get("/item-storage/items?limit=1").await.status, StatusCode::OK);

    // A refresh buys new cookies; the session goes on with them.
    let r = session.send(Method::POST, "/authn/refresh", None).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.cookies.len(), 2);
    session.take_cookies(&r);

    // Paging a whole table by id, as migration tools do: `id>"last" sortBy id`.
    let mut seen = Vec::new();
    let mut last = String::new();
    loop {
        let cql = format!("id>\"{last}\" sortBy id");
        let path = format!("/item-storage/items?limit=10&query={}", urlencode(&cql));
        let page = session.get(&path).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        let items = page.body["items"].as_array().unwrap().clone();
        if items.is_empty() {
            break;
        }
        last = items.last().unwrap()["id"].as_str().unwrap().to_string();
        seen.extend(items.iter().map(|i| i["id"].as_str().unwrap().to_string()));
    }
    let mut sorted = seen.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!((seen.len(), &seen), (25, &sorted), "every item once, in id order");

    // Offset paging, with the total on every page.
    let mut by_offset: Vec<String> = Vec::new();
    for offset in (0..30).step_by(10) {
        let page = session
            .get(&format!(
                "/item-storage/items?limit=10&offset={offset}&query={}",
                urlencode("cql.allRecords=1 sortBy id")
            ))
            .await;
        assert_eq!(page.body["totalRecords"], 25, "{}", page.body);
        by_offset.extend(
            page.body["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().into()),
        );
    }
    assert_eq!(by_offset, seen);

    // An edit by GET and PUT; then the same stale body again is a 409.
    let path = format!("/item-storage/items/{}", seen[0]);
    let mut item = session.get(&path).await.body;
    item["copyNumber"] = json!("c.2");
    let r = session.send(Method::PUT, &path, Some(item.clone())).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(session.get(&path).await.body["copyNumber"], "c.2");
    item["copyNumber"] = json!("c.3");
    let r = session.send(Method::PUT, &path, Some(item)).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.body);

    // Logging out clears the cookies and ends the refresh token.
    let r = session.send(Method::POST, "/authn/logout", None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(r.cookies.len(), 2);
    assert!(r.cookies.iter().all(|c| c.contains("Max-Age=0")), "{:?}", r.cookies);
    let r = session.send(Method::POST, "/authn/refresh", None).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.body);
}

#[tokio::test]
async fn logout_needs_its_cookie_and_logout_all_ends_every_session() {
    let app = TestApp::new();
    let first = Session::login(&app).await;
    let second = Session::login(&app).await;

    let cookieless = app.send(Method::POST, "/authn/logout", Some("diku"), None, None).await;
    assert_eq!(cookieless.status, StatusCode::BAD_REQUEST, "{}", cookieless.text);
    assert!(cookieless.text.contains("folioRefreshToken"), "{}", cookieless.text);

    let r = first.send(Method::POST, "/authn/logout-all", None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    for session in [&first, &second] {
        assert_eq!(session.get("/locations").await.status, StatusCode::UNAUTHORIZED);
        let r = session.send(Method::POST, "/authn/refresh", None).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.body);
    }
    // Logging in again starts a new session.
    let third = Session::login(&app).await;
    assert_eq!(third.get("/locations").await.status, StatusCode::OK);
}
