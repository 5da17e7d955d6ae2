//! The `cico` scenario: FOLIO's check-in/check-out workflow as PTF's JMeter script sends
//! it (`shared/reference/folio-circulation-import-bulk.md` section 6).
//!
//! Unlike the other scenarios each step depends on the last (the patron scan names the
//! user whose loans, blocks and requests the page reads next), so virtual users here run
//! a small program instead of a list of templates. Every iteration is a check-in (43%)
//! or a check-out (57%) at random:
//! - check-out: the page's GETs, the patron scan's GETs, the item scan, the POST, and
//!   the GETs that refresh the page after it;
//! - check-in: the page's GETs, the item scan, the POST, and the GETs after it.
//!
//! Each request is timed on its own row, and each whole controller on a transaction
//! row, as JMeter's transaction controllers report them. Items move between two shared
//! pools, so no two users scan the same barcode: a check-out takes an Available item
//! and puts it in the checked-out pool, a check-in takes the oldest loaned item and
//! returns it to the available pool when the desk shelves it (not when a request holds
//! it). The pools start from the server's data: Available items of the circulating loan
//! type, and open loans (the generated ones are overdue, as PTF's seed loans are).
//!
//! FOLIO's page also reads `note-links` (mod-notes), which Quire does not cover; that one
//! GET is left out and the report says so.

use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use anyhow::Context;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reqwest::Method;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::engine::{LoadOptions, Measurements, Recorder, sample_memory};
use crate::workload::encode_query;

/// Check-ins among iterations, as PTF's `DISTRIBUTION=43-57`.
const CHECK_IN_SHARE: f64 = 0.43;

/// Row names of the two POSTs and the two transactions.
pub const CHECK_OUT_POST: &str = "POST checkout-by-barcode";
pub const CHECK_IN_POST: &str = "POST checkin-by-barcode";
pub const CHECK_OUT_TRANSACTION: &str = "Check-out transaction (all requests)";
pub const CHECK_IN_TRANSACTION: &str = "Check-in transaction (all requests)";

/// How the scenario runs beyond the common options.
#[derive(Debug, Clone)]
pub struct CicoOptions {
    /// Send only the two POSTs: the saturation figure of the bare transactions.
    pub posts_only: bool,
    /// Available items to fetch for the check-out pool.
    pub pool: usize,
    /// Leave out steps whose endpoint the server does not have.
    pub skip_missing: bool,
    /// Pause between iterations as PTF's script does (1-5 s plus 2-4 s, at random)
    /// instead of `think_time`.
    pub folio_think_time: bool,
    /// This desk's share of the items, (K, N): every N-th from the K-th, counting from
    /// 0, so that N load generators (one per node) do not race for the same items.
    pub share: Option<(usize, usize)>,
}

impl Default for CicoOptions {
    fn default() -> Self {
        CicoOptions {
            posts_only: false,
            pool: 20_000,
            skip_missing: false,
            folio_think_time: false,
            share: None,
        }
    }
}

/// The endpoints the page's GETs read, probed before the run.
const PAGE_ENDPOINTS: &[&str] = &[
    "/groups",
    "/users",
    "/staff-slips-storage/staff-slips",
    "/service-points",
    "/configurations/entries",
    "/inventory/items",
    "/circulation/requests",
    "/circulation/loans",
    "/lost-item-fees-policies",
    "/accounts",
    "/proxiesfor",
    "/manualblocks",
];

/// What every virtual user shares.
struct Desk {
    client: reqwest::Client,
    options: LoadOptions,
    cico: CicoOptions,
    token: String,
    service_point: Uuid,
    /// (barcode, id, patron group) of patrons who may borrow.
    patrons: Vec<(String, String, String)>,
    available: Mutex<VecDeque<String>>,
    checked_out: Mutex<VecDeque<String>>,
    missing: Vec<String>,
    recorder: Mutex<Recorder>,
}

impl Desk {
    async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Sent {
        let url = format!("{}{}", self.options.url, encode_query(path));
        let mut request = self
            .client
            .request(method, url)
            .header("x-okapi-tenant", &self.options.tenant)
            .header("x-okapi-token", &self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let started = Instant::now();
        let result = async {
            let response = request.send().await?;
            let status = response.status();
            let bytes = response.bytes().await?;
            Ok::<_, reqwest::Error>((status, bytes))
        }
        .await;
        let latency = started.elapsed();
        match result {
            Ok((status, bytes)) => Sent {
                started,
                latency,
                error: (!status.is_success()).then(|| {
                    format!(
                        "HTTP {status}: {}",
                        String::from_utf8_lossy(&bytes[..bytes.len().min(300)])
                    )
                }),
                body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
            },
            Err(e) => Sent { started, latency, error: Some(e.to_string()), body: Value::Null },
        }
    }

    /// Sends and records one request of a transaction; `None` when its endpoint is
    /// missing and the run leaves it out.
    async fn step(
        &self,
        tx: &mut Transaction,
        name: &str,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Option<Value> {
        let endpoint = path.split('?').next().unwrap_or(path);
        if self.missing.iter().any(|m| endpoint.starts_with(m.as_str())) {
            return None;
        }
        let sent = self.send(method, path, body).await;
        tx.elapsed += sent.latency;
        tx.failed |= sent.error.is_some();
        self.recorder.lock().unwrap().record(name, sent.started, sent.latency, sent.error);
        Some(sent.body)
    }

    fn finish(&self, name: &str, tx: Transaction) {
        let error = tx.failed.then(|| "a request of the transaction failed".to_string());
        self.recorder.lock().unwrap().record(name, tx.started, tx.elapsed, error);
    }
}

enum Job {
    CheckIn(String),
    CheckOut(String),
}

impl Desk {
    /// The next item to handle: from the wanted pool, else the other, so a run whose
    /// pool runs dry keeps going.
    fn next_job(&self, check_in: bool) -> Option<Job> {
        let loaned = || self.checked_out.lock().unwrap().pop_front().map(Job::CheckIn);
        let available = || self.available.lock().unwrap().pop_front().map(Job::CheckOut);
        if check_in { loaned().or_else(available) } else { available().or_else(loaned) }
    }
}

struct Sent {
    started: Instant,
    latency: Duration,
    error: Option<String>,
    body: Value,
}

/// A transaction controller: the sum of its requests' times, as JMeter adds them.
struct Transaction {
    started: Instant,
    elapsed: Duration,
    failed: bool,
}

impl Transaction {
    fn new() -> Transaction {
        Transaction { started: Instant::now(), elapsed: Duration::ZERO, failed: false }
    }
}

fn now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

async fn check_out(desk: &Desk, rng: &mut ChaCha8Rng, item: String) {
    let (barcode, user, group) = desk.patrons[rng.gen_range(0..desk.patrons.len())].clone();
    let sp = desk.service_point;
    let mut tx = Transaction::new();
    let full = !desk.cico.posts_only;
    if full {
        let config =
            "/configurations/entries?query=(module==CHECKOUT and configName==other_settings)";
        desk.step(&mut tx, "Check-out: GET configurations/entries", Method::GET, config, None)
            .await;
        let config =
            "/configurations/entries?query=(module==USERS and configName==profile_pictures)";
        desk.step(&mut tx, "Check-out: GET configurations/entries", Method::GET, config, None)
            .await;
        desk.step(&mut tx, "Check-out: GET groups", Method::GET, "/groups?limit=2000", None).await;
        let q = format!(
            "/users?query=(barcode==\"{barcode}\" OR externalSystemId==\"{barcode}\" OR id==\"{barcode}\" OR username==\"{barcode}\")"
        );
        desk.step(&mut tx, "Check-out: GET users (patron scan)", Method::GET, &q, None).await;
        let q = format!("/groups?query=(id=={group})");
        desk.step(&mut tx, "Check-out: GET groups (patron's)", Method::GET, &q, None).await;
        let q = format!("/accounts?query=(userId=={user} and status.name<>Closed)&limit=100");
        desk.step(&mut tx, "Check-out: GET accounts (open)", Method::GET, &q, None).await;
        let q =
            format!("/circulation/loans?query=(userId=={user} and status.name<>Closed)&limit=1");
        desk.step(&mut tx, "Check-out: GET circulation/loans", Method::GET, &q, None).await;
        let q = format!(
            "/circulation/requests?query=(requesterId=={user} and status=\"Open\")&limit=100"
        );
        desk.step(&mut tx, "Check-out: GET circulation/requests", Method::GET, &q, None).await;
        for q in [
            format!("/proxiesfor?query=(proxyUserId=={user})&limit=1000"),
            format!("/proxiesfor?query=(userId=={user})&limit=1000"),
            format!("/proxiesfor?query=(proxyUserId=={user})&limit=1000"),
        ] {
            desk.step(&mut tx, "Check-out: GET proxiesfor", Method::GET, &q, None).await;
        }
        let q = format!("/manualblocks?query=(userId=={user})&limit=10000");
        desk.step(&mut tx, "Check-out: GET manualblocks", Method::GET, &q, None).await;
        let q = format!("/automated-patron-blocks/{user}");
        desk.step(&mut tx, "Check-out: GET automated-patron-blocks", Method::GET, &q, None).await;
        let q = format!(
            "/circulation/requests?query=(requesterId=={user} and status==\"Open - Awaiting pickup\" and pickupServicePointId=={sp})&limit=100"
        );
        desk.step(
            &mut tx,
            "Check-out: GET circulation/requests (awaiting pickup)",
            Method::GET,
            &q,
            None,
        )
        .await;
        let q = format!("/inventory/items?query=barcode==\"{item}\"&limit=40");
        desk.step(&mut tx, "Check-out: GET inventory/items (item scan)", Method::GET, &q, None)
            .await;
    }
    let body = json!({
        "itemBarcode": item, "userBarcode": barcode, "servicePointId": sp,
        "loanDate": now(), "id": Uuid::new_v4(),
    });
    let loan = desk
        .step(
            &mut tx,
            CHECK_OUT_POST,
            Method::POST,
            "/circulation/check-out-by-barcode",
            Some(body),
        )
        .await
        .unwrap_or(Value::Null);
    let checked_out = loan["status"]["name"] == "Open";
    if checked_out {
        desk.checked_out.lock().unwrap().push_back(item);
    }
    if full {
        let q =
            format!("/circulation/loans?query=(userId=={user} and status.name<>Closed)&limit=1000");
        desk.step(&mut tx, "Check-out: GET circulation/loans (after)", Method::GET, &q, None).await;
        let q = format!("/automated-patron-blocks/{user}");
        desk.step(&mut tx, "Check-out: GET automated-patron-blocks (after)", Method::GET, &q, None)
            .await;
        let q = format!(
            "/circulation/requests?query=(requesterId=={user} and status=\"Open\")&limit=100"
        );
        desk.step(&mut tx, "Check-out: GET circulation/requests (after)", Method::GET, &q, None)
            .await;
    }
    desk.finish(CHECK_OUT_TRANSACTION, tx);
}

async fn check_in(desk: &Desk, item: String) {
    let sp = desk.service_point;
    let mut tx = Transaction::new();
    let full = !desk.cico.posts_only;
    if full {
        desk.step(&mut tx, "Check-in: GET groups", Method::GET, "/groups?limit=2000", None).await;
        let q = format!("/users?query=(username==\"{}\")", desk.options.username);
        desk.step(&mut tx, "Check-in: GET users", Method::GET, &q, None).await;
        let q = "/staff-slips-storage/staff-slips?limit=1000";
        desk.step(&mut tx, "Check-in: GET staff-slips", Method::GET, q, None).await;
        let q = "/service-points?limit=1000";
        desk.step(&mut tx, "Check-in: GET service-points", Method::GET, q, None).await;
        let config =
            "/configurations/entries?query=(module==CHECKOUT and configName==other_settings)";
        desk.step(&mut tx, "Check-in: GET configurations/entries", Method::GET, config, None).await;
        let q = format!("/inventory/items?query=barcode==\"{item}\"&limit=1000");
        desk.step(&mut tx, "Check-in: GET inventory/items (item scan)", Method::GET, &q, None)
            .await;
    }
    let body = json!({
        "itemBarcode": item, "servicePointId": sp, "checkInDate": now(), "id": Uuid::new_v4(),
    });
    let outcome = desk
        .step(&mut tx, CHECK_IN_POST, Method::POST, "/circulation/check-in-by-barcode", Some(body))
        .await
        .unwrap_or(Value::Null);
    if outcome["item"]["status"]["name"] == "Available" {
        desk.available.lock().unwrap().push_back(item);
    }
    if full {
        let item_id = outcome["item"]["id"].as_str().unwrap_or_default().to_string();
        let q = format!(
            "/circulation/requests?query=(itemId=={item_id} and (status==\"Open - Awaiting pickup\" or status==\"Open - Awaiting delivery\"))"
        );
        desk.step(&mut tx, "Check-in: GET circulation/requests", Method::GET, &q, None).await;
        let loan = &outcome["loan"];
        if let (Some(policy), Some(loan_id), Some(user)) =
            (loan["lostItemPolicyId"].as_str(), loan["id"].as_str(), loan["userId"].as_str())
        {
            let q = format!("/lost-item-fees-policies?query=(id=={policy})");
            desk.step(&mut tx, "Check-in: GET lost-item-fees-policies", Method::GET, &q, None)
                .await;
            for q in [
                format!("/accounts?query=(loanId=={loan_id})"),
                format!("/accounts?query=(userId=={user} and itemId=={item_id})"),
                format!("/accounts?query=(userId=={user} and status.name<>Closed)"),
            ] {
                desk.step(&mut tx, "Check-in: GET accounts", Method::GET, &q, None).await;
            }
        }
    }
    desk.finish(CHECK_IN_TRANSACTION, tx);
}

/// Reads the pools and the desk's service point from the server (not measured).
async fn prepare(
    client: &reqwest::Client,
    options: &LoadOptions,
    cico: &CicoOptions,
    token: &str,
) -> anyhow::Result<Desk> {
    let get = |path: String| {
        let request = client
            .get(format!("{}{}", options.url, encode_query(&path)))
            .header("x-okapi-tenant", &options.tenant)
            .header("x-okapi-token", token);
        async move {
            let response = request.send().await?;
            let status = response.status();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            Ok::<_, anyhow::Error>((status, body))
        }
    };
    let mut missing = Vec::new();
    for endpoint in PAGE_ENDPOINTS {
        let (status, _) = get(format!("{endpoint}?limit=1")).await?;
        if status == reqwest::StatusCode::NOT_FOUND
            || status == reqwest::StatusCode::METHOD_NOT_ALLOWED
        {
            missing.push(endpoint.to_string());
        }
    }
    if !missing.is_empty() && !cico.skip_missing && !cico.posts_only {
        anyhow::bail!(
            "scenario cico needs endpoints this server does not have yet: {} (--skip-missing runs the rest)",
            missing.join(", ")
        );
    }

    let (_, points) = get("/service-points?limit=1000".to_string()).await?;
    let points = points["servicepoints"].as_array().cloned().unwrap_or_default();
    let point = points
        .iter()
        .find(|p| p["pickupLocation"] == true)
        .or(points.first())
        .context("the tenant has no service point")?;
    let service_point: Uuid = point["id"].as_str().unwrap_or_default().parse()?;

    let (_, types) = get("/loan-types?query=(name==\"Can circulate\")".to_string()).await?;
    let loan_type = types["loantypes"][0]["id"].as_str().map(str::to_string);
    let mut available = VecDeque::new();
    let item_query = match &loan_type {
        Some(t) => format!("(status.name==\"Available\" and permanentLoanTypeId=={t})"),
        None => "(status.name==\"Available\")".to_string(),
    };
    while available.len() < cico.pool {
        let path =
            format!("/item-storage/items?query={item_query}&limit=1000&offset={}", available.len());
        let (status, page) = get(path).await?;
        anyhow::ensure!(status.is_success(), "listing available items: HTTP {status}");
        let items = page["items"].as_array().cloned().unwrap_or_default();
        if items.is_empty() {
            break;
        }
        available.extend(items.iter().filter_map(|i| i["barcode"].as_str().map(str::to_string)));
    }
    let mut checked_out = VecDeque::new();
    for offset in (0..cico.pool).step_by(1000) {
        let path =
            format!("/circulation/loans?query=(status.name==\"Open\")&limit=1000&offset={offset}");
        let (status, page) = get(path).await?;
        anyhow::ensure!(status.is_success(), "listing open loans: HTTP {status}");
        let loans = page["loans"].as_array().cloned().unwrap_or_default();
        if loans.is_empty() {
            break;
        }
        checked_out
            .extend(loans.iter().filter_map(|l| l["item"]["barcode"].as_str().map(str::to_string)));
    }
    if let Some((k, n)) = cico.share {
        let mine = |items: VecDeque<String>| -> VecDeque<String> {
            items.into_iter().enumerate().filter(|(i, _)| i % n == k).map(|(_, b)| b).collect()
        };
        available = mine(available);
        checked_out = mine(checked_out);
    }
    let today = chrono::Utc::now().to_rfc3339();
    let mut patrons = Vec::new();
    for offset in (0..20_000).step_by(1000) {
        let path = format!("/users?query=(active==true)&limit=1000&offset={offset}");
        let (status, page) = get(path).await?;
        anyhow::ensure!(status.is_success(), "listing users: HTTP {status}");
        let users = page["users"].as_array().cloned().unwrap_or_default();
        if users.is_empty() {
            break;
        }
        for user in users {
            let expired = user["expirationDate"].as_str().is_some_and(|d| d < today.as_str());
            if let (Some(barcode), Some(id), Some(group), false) = (
                user["barcode"].as_str(),
                user["id"].as_str(),
                user["patronGroup"].as_str(),
                expired,
            ) {
                patrons.push((barcode.to_string(), id.to_string(), group.to_string()));
            }
        }
    }
    anyhow::ensure!(
        !patrons.is_empty(),
        "the tenant has no active patron with a barcode and a patron group (quire generate writes them)"
    );
    anyhow::ensure!(
        !available.is_empty() || !checked_out.is_empty(),
        "the tenant has no Available item and no open loan (quire generate writes them)"
    );
    Ok(Desk {
        client: client.clone(),
        options: options.clone(),
        cico: cico.clone(),
        token: token.to_string(),
        service_point,
        patrons,
        available: Mutex::new(available),
        checked_out: Mutex::new(checked_out),
        missing,
        recorder: Mutex::new(Recorder::new(Instant::now())),
    })
}

/// What a run left out and started from, for the report.
#[derive(Debug, Clone, Default)]
pub struct CicoSetup {
    pub missing_endpoints: Vec<String>,
    pub patrons: usize,
    pub available_items: usize,
    pub open_loans: usize,
}

/// Runs the scenario in the closed model (`options.users` virtual users).
pub async fn run_cico(
    options: &LoadOptions,
    cico: &CicoOptions,
) -> anyhow::Result<(Measurements, CicoSetup)> {
    anyhow::ensure!(options.users > 0, "--users must be at least 1");
    anyhow::ensure!(options.rate.is_none(), "cico runs virtual users; --rate is not supported");
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(options.users)
        .timeout(Duration::from_secs(120))
        .build()?;
    let token = crate::engine::login(&client, options).await?;
    let desk = prepare(&client, options, cico, &token).await?;
    let setup = CicoSetup {
        missing_endpoints: desk.missing.clone(),
        patrons: desk.patrons.len(),
        available_items: desk.available.lock().unwrap().len(),
        open_loans: desk.checked_out.lock().unwrap().len(),
    };
    let desk = Arc::new(desk);
    let started = Instant::now();
    *desk.recorder.lock().unwrap() = Recorder::new(started);
    let deadline = started + options.ramp_up + options.duration;
    let memory = sample_memory(client.clone(), options.url.clone(), deadline);
    let mut tasks = Vec::new();
    for user in 0..options.users {
        let desk = desk.clone();
        tasks.push(tokio::spawn(async move {
            let mut rng = ChaCha8Rng::seed_from_u64(user as u64);
            let ramp = &desk.options.ramp_up;
            tokio::time::sleep(ramp.mul_f64(user as f64 / desk.options.users as f64)).await;
            while Instant::now() < deadline {
                match desk.next_job(rng.gen_bool(CHECK_IN_SHARE)) {
                    Some(Job::CheckIn(item)) => check_in(&desk, item).await,
                    Some(Job::CheckOut(item)) => check_out(&desk, &mut rng, item).await,
                    // Every item is in another user's hands this instant.
                    None => tokio::time::sleep(Duration::from_millis(10)).await,
                }
                let pause = if desk.cico.folio_think_time {
                    Duration::from_millis(rng.gen_range(1000..5000) + rng.gen_range(2000..4000))
                } else {
                    desk.options.think_time
                };
                if !pause.is_zero() {
                    // Never past the end of the run.
                    let until = (Instant::now() + pause).min(deadline);
                    tokio::time::sleep_until(until.into()).await;
                }
            }
        }));
    }
    for task in tasks {
        task.await?;
    }
    let elapsed = started.elapsed();
    let memory = memory.await?;
    let desk = Arc::try_unwrap(desk).map_err(|_| anyhow::anyhow!("virtual users still running"))?;
    let recorder = desk.recorder.into_inner().unwrap();
    let transactions = vec![CHECK_OUT_TRANSACTION.to_string(), CHECK_IN_TRANSACTION.to_string()];
    let mut order = vec![
        CHECK_OUT_TRANSACTION.to_string(),
        CHECK_OUT_POST.to_string(),
        CHECK_IN_TRANSACTION.to_string(),
        CHECK_IN_POST.to_string(),
    ];
    order.extend(recorder.names_in_first_use_order());
    let mut measurements = recorder.into_measurements(order, elapsed, memory);
    measurements.transactions = transactions;
    Ok((measurements, setup))
}
