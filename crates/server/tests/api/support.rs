//! The one test harness: a fresh data directory with tenants, and a request helper.
//!
//! Tests never wait on a clock for derived state: [`TestApp::catch_up`] brings a
//! tenant's search indexes to the store's last change before a test searches, and a
//! background job (a reindex started through the API) is watched through its status
//! until it has finished, however long that takes.

use std::{sync::Arc, time::Duration};

use axum::{
    body::Body,
    http::{Method, Request, StatusCode},
};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

pub(crate) struct TestApp {
    pub(crate) router: axum::Router,
    pub(crate) store: Arc<store::Store>,
    /// The runtime the router serves from: the indexes searches read are its own.
    // Invariant: the runtime of the router's `AppState`.
    pub(crate) runtime: Arc<runtime::Runtime>,
    /// What the store was opened with: another node opens the same database with it.
    options: store::Options,
    _dir: tempfile::TempDir,
}

pub(crate) struct Response {
    pub(crate) status: StatusCode,
    pub(crate) headers: axum::http::HeaderMap,
    pub(crate) body: Value,
    pub(crate) text: String,
}

impl Response {
    /// The first error's message and parameters, from FOLIO's error body.
    pub(crate) fn error(&self) -> (String, Vec<(String, String)>) {
        let e = &self.body["errors"][0];
        let params = e["parameters"]
            .as_array()
            .map(|ps| {
                ps.iter()
                    .map(|p| {
                        (
                            p["key"].as_str().unwrap_or("").to_string(),
                            p["value"].as_str().unwrap_or("").to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        (e["message"].as_str().unwrap_or("").to_string(), params)
    }
}

pub(crate) const PASSWORD: &str = "test-password";

/// The pause between two looks at a background job's status. It paces the loop and
/// bounds nothing: the loop ends when the status says the job is done. A pause rather
/// than a bare yield, because a reindex builds at idle CPU priority and a test spinning
/// on the shared cores would starve it.
pub(crate) const POLL: Duration = Duration::from_millis(20);

/// Runs `f`, which uses the store, on a thread of its own: a test's body runs on the
/// async runtime, where the store's calls must not block (on PostgreSQL its client
/// refuses to), as the server's handlers run them on blocking threads.
pub(crate) fn blocking<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| scope.spawn(f).join().unwrap())
}

/// A runtime over `store`, as a server process has.
pub(crate) fn runtime(store: &Arc<store::Store>) -> Arc<runtime::Runtime> {
    Arc::new(runtime::Runtime::new(store.clone()))
}

impl TestApp {
    /// A server with tenants `diku` and `other`, each with administrator `admin`.
    pub(crate) fn new() -> TestApp {
        TestApp::with_config(server::Config::default())
    }

    pub(crate) fn with_config(config: server::Config) -> TestApp {
        let dir = tempfile::tempdir().unwrap();
        let options = store::testing::options();
        let store = blocking(|| {
            let store = Arc::new(
                store::Store::open(dir.path(), options.clone(), &runtime::components()).unwrap(),
            );
            let admin = runtime::AdminUser { username: "admin".into(), password: PASSWORD.into() };
            for tenant in ["diku", "other"] {
                runtime::provision_tenant(
                    &store,
                    tenant,
                    Some(&admin),
                    runtime::ExistingUsers::MayAdd,
                )
                .unwrap();
            }
            store
        });
        let runtime = runtime(&store);
        let state =
            server::AppState::new(runtime.clone(), auth::TokenKey::from_bytes([9; 32]), config);
        TestApp { router: server::router(state), store, runtime, options, _dir: dir }
    }

    /// Another node on this server's database, with a data directory (its own indexes)
    /// of its own and the same token key; `None` on SQLite, whose database one process
    /// serves.
    pub(crate) fn another_node(&self) -> Option<TestApp> {
        if !matches!(self.options.backend, store::Backend::Postgres { .. }) {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let store = blocking(|| {
            Arc::new(
                store::Store::open(dir.path(), self.options.clone(), &runtime::components())
                    .unwrap(),
            )
        });
        let runtime = runtime(&store);
        let key = auth::TokenKey::from_bytes([9; 32]);
        let state = server::AppState::new(runtime.clone(), key, server::Config::default());
        let options = self.options.clone();
        Some(TestApp { router: server::router(state), store, runtime, options, _dir: dir })
    }

    /// The same server publishing its tenants' events through `publisher`.
    pub(crate) fn publishing(mut self, publisher: Arc<events::Publisher>) -> TestApp {
        let state = server::AppState::new(
            self.runtime.clone(),
            auth::TokenKey::from_bytes([9; 32]),
            server::Config::default(),
        );
        self.router = server::router(state.with_events(publisher));
        self
    }

    /// Waits for an import job to end and answers it as the API does. It waits on the
    /// tenant's change log (each chunk the runner commits is a change), not on a clock;
    /// a job that has not ended after two minutes fails the test.
    pub(crate) async fn wait_for_job(&self, tenant: &str, job: &str) -> Value {
        let tenant = self.store.tenant(tenant).unwrap();
        let id = uuid::Uuid::parse_str(job).unwrap();
        tokio::task::spawn_blocking(move || {
            let deadline = std::time::Instant::now() + Duration::from_secs(120);
            loop {
                let seq = tenant.last_seq().unwrap();
                let job = tenant.read(|r| import::get_job(r, id)).unwrap();
                if job.status.is_final() {
                    return serde_json::to_value(job).unwrap();
                }
                assert!(std::time::Instant::now() < deadline, "job {id} still {:?}", job.status);
                tenant.wait_for_change(seq, Duration::from_secs(5));
            }
        })
        .await
        .unwrap()
    }

    /// Brings `tenant`'s search indexes (instances and authorities) up to the store's
    /// last committed change and returns its sequence number, so that a search sent
    /// afterwards sees every write acknowledged before the call. The followers get
    /// there within a second; a test does it itself rather than wait for them.
    pub(crate) async fn catch_up(&self, tenant: &str) -> i64 {
        let runtime = self.runtime.clone();
        let tenant = self.store.tenant(tenant).unwrap();
        tokio::task::spawn_blocking(move || {
            let seq = tenant.last_seq().unwrap();
            let instances = runtime.instances(&tenant).unwrap();
            let authorities = runtime.authorities(&tenant).unwrap();
            instances.catch_up(&tenant).unwrap();
            authorities.catch_up(&tenant).unwrap();
            assert!(
                instances.applied_seq() >= seq && authorities.applied_seq() >= seq,
                "indexes at {} and {}, the store at {seq}",
                instances.applied_seq(),
                authorities.applied_seq()
            );
            seq
        })
        .await
        .unwrap()
    }

    /// Waits for a bulk operation's running step to end and answers the operation as the
    /// API does; like [`TestApp::wait_for_job`], on the change log, not a clock.
    pub(crate) async fn wait_for_bulk(&self, tenant: &str, operation: &str) -> Value {
        let tenant = self.store.tenant(tenant).unwrap();
        let id = uuid::Uuid::parse_str(operation).unwrap();
        tokio::task::spawn_blocking(move || {
            let deadline = std::time::Instant::now() + Duration::from_secs(120);
            loop {
                let seq = tenant.last_seq().unwrap();
                let operation = tenant.read(|r| bulk::get_operation(r, id)).unwrap();
                if !operation.status.is_running() {
                    return serde_json::to_value(operation).unwrap();
                }
                assert!(std::time::Instant::now() < deadline, "{id} still {:?}", operation.status);
                tenant.wait_for_change(seq, Duration::from_secs(5));
            }
        })
        .await
        .unwrap()
    }

    pub(crate) async fn send(
        &self,
        method: Method,
        path: &str,
        tenant: Option<&str>,
        token: Option<&str>,
        body: Option<Vec<u8>>,
    ) -> Response {
        self.send_typed(method, path, tenant, token, "application/json", body).await
    }

    /// [`TestApp::send`] with a body of another content type.
    pub(crate) async fn send_typed(
        &self,
        method: Method,
        path: &str,
        tenant: Option<&str>,
        token: Option<&str>,
        content_type: &str,
        body: Option<Vec<u8>>,
    ) -> Response {
        let mut request = Request::builder().method(method).uri(path);
        if let Some(tenant) = tenant {
            request = request.header("x-okapi-tenant", tenant);
        }
        if let Some(token) = token {
            request = request.header("x-okapi-token", token);
        }
        let request = match body {
            Some(bytes) => {
                request.header("content-type", content_type).body(Body::from(bytes)).unwrap()
            }
            None => request.body(Body::empty()).unwrap(),
        };
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Response { status, headers, body, text }
    }

    pub(crate) async fn login(&self, tenant: &str) -> String {
        self.login_as(tenant, "admin", PASSWORD).await
    }

    pub(crate) async fn login_as(&self, tenant: &str, username: &str, password: &str) -> String {
        let body = serde_json::json!({ "username": username, "password": password });
        let r = self
            .send(
                Method::POST,
                "/authn/login",
                Some(tenant),
                None,
                Some(body.to_string().into_bytes()),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "login: {}", r.text);
        r.body["okapiToken"].as_str().unwrap().to_string()
    }
}

/// A logged-in client of one tenant.
pub(crate) struct Client<'a> {
    pub(crate) app: &'a TestApp,
    pub(crate) tenant: String,
    pub(crate) token: String,
}

impl<'a> Client<'a> {
    pub(crate) async fn admin(app: &'a TestApp, tenant: &str) -> Client<'a> {
        Client { app, tenant: tenant.to_string(), token: app.login(tenant).await }
    }

    /// [`TestApp::catch_up`] for this client's tenant.
    pub(crate) async fn catch_up(&self) -> i64 {
        self.app.catch_up(&self.tenant).await
    }

    pub(crate) async fn get(&self, path: &str) -> Response {
        self.app.send(Method::GET, path, Some(&self.tenant), Some(&self.token), None).await
    }

    pub(crate) async fn delete(&self, path: &str) -> Response {
        self.app.send(Method::DELETE, path, Some(&self.tenant), Some(&self.token), None).await
    }

    pub(crate) async fn post(&self, path: &str, body: &Value) -> Response {
        self.post_raw(path, body.to_string().into_bytes()).await
    }

    pub(crate) async fn post_raw(&self, path: &str, body: Vec<u8>) -> Response {
        self.app.send(Method::POST, path, Some(&self.tenant), Some(&self.token), Some(body)).await
    }

    pub(crate) async fn put(&self, path: &str, body: &Value) -> Response {
        self.put_raw(path, body.to_string().into_bytes()).await
    }

    pub(crate) async fn patch(&self, path: &str, body: &Value) -> Response {
        let body = Some(body.to_string().into_bytes());
        self.app.send(Method::PATCH, path, Some(&self.tenant), Some(&self.token), body).await
    }

    pub(crate) async fn put_raw(&self, path: &str, body: Vec<u8>) -> Response {
        self.app.send(Method::PUT, path, Some(&self.tenant), Some(&self.token), Some(body)).await
    }

    /// The id of the reference record of `path` named `name`.
    pub(crate) async fn ref_id(&self, path: &str, key: &str, name: &str) -> String {
        let r = self.get(&format!("{path}?limit=1000")).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        let records = r.body[key].as_array().unwrap_or_else(|| panic!("{key} in {}", r.text));
        records
            .iter()
            .find(|rec| rec["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {path}"))["id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// The number of records a storage list endpoint reports.
    pub(crate) async fn count(&self, path: &str) -> u64 {
        let r = self.get(&format!("{path}?limit=0")).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        r.body["totalRecords"].as_u64().unwrap()
    }

    /// A new instance's JSON, minimal and valid.
    pub(crate) async fn instance_json(&self, title: &str) -> Value {
        let text = self.ref_id("/instance-types", "instanceTypes", "text").await;
        serde_json::json!({ "source": "FOLIO", "title": title, "instanceTypeId": text })
    }

    pub(crate) async fn create_instance(&self, title: &str) -> Value {
        let body = self.instance_json(title).await;
        let r = self.post("/instance-storage/instances", &body).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        r.body
    }

    /// An instance with one holdings record at the first location; returns the holdings.
    pub(crate) async fn create_holdings(&self) -> Value {
        let instance = self.create_instance("Holdings test").await;
        let location = self.first_id("/locations", "locations").await;
        let source = self.ref_id("/holdings-sources", "holdingsRecordsSources", "FOLIO").await;
        let body = serde_json::json!({
            "instanceId": instance["id"], "permanentLocationId": location, "sourceId": source, "callNumber": "QA76 .B3"
        });
        let r = self.post("/holdings-storage/holdings", &body).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        r.body
    }

    pub(crate) async fn item_json(&self, holdings_id: &Value, barcode: &str) -> Value {
        let book = self.ref_id("/material-types", "mtypes", "book").await;
        let loan = self.ref_id("/loan-types", "loantypes", "Can circulate").await;
        serde_json::json!({
            "holdingsRecordId": holdings_id, "barcode": barcode, "status": {"name": "Available"},
            "materialTypeId": book, "permanentLoanTypeId": loan
        })
    }

    pub(crate) async fn first_id(&self, path: &str, key: &str) -> String {
        let r = self.get(&format!("{path}?limit=1")).await;
        r.body[key][0]["id"].as_str().unwrap_or_else(|| panic!("{path}: {}", r.text)).to_string()
    }
}
