//! The load harness against a small server whose latencies and errors are known.
//!
//! The server's sleeps stand for its latencies. The checks are on what the harness
//! records, never on how long anything took: a latency is checked only against the
//! least the server's sleep makes it, which no load on the machine can undercut.

use std::{
    collections::HashMap,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use axum::{
    Router,
    http::StatusCode,
    routing::{get, post},
};

#[derive(Default)]
struct Counts {
    fast: AtomicU64,
    slow: AtomicU64,
    flaky: AtomicU64,
    flaky_failed: AtomicU64,
}

async fn start_server() -> (String, Arc<Counts>) {
    let counts = Arc::new(Counts::default());
    let (c1, c2, c3) = (counts.clone(), counts.clone(), counts.clone());
    let app = Router::new()
        .route(
            "/authn/login",
            post(|| async {
                (StatusCode::CREATED, [("x-okapi-token", "t0k3n")], "{\"okapiToken\":\"t0k3n\"}")
            }),
        )
        .route(
            "/fast",
            get(move || async move {
                c1.fast.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(2)).await;
                "ok"
            }),
        )
        .route(
            "/slow",
            get(move || async move {
                c2.slow.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                "ok"
            }),
        )
        .route(
            "/flaky",
            get(move || async move {
                let n = c3.flaky.fetch_add(1, Ordering::SeqCst);
                if n % 4 == 3 {
                    c3.flaky_failed.fetch_add(1, Ordering::SeqCst);
                    StatusCode::INTERNAL_SERVER_ERROR
                } else {
                    StatusCode::OK
                }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, counts)
}

fn workload(paths: &[&str]) -> Arc<load::Workload> {
    Arc::new(load::Workload {
        requests: paths
            .iter()
            .map(|p| load::RequestTemplate {
                name: p.to_string(),
                method: reqwest::Method::GET,
                path: p.to_string(),
                body: None,
            })
            .collect(),
        values: HashMap::new(),
    })
}

fn options(url: &str, users: usize, seconds: u64) -> load::LoadOptions {
    load::LoadOptions {
        url: url.to_string(),
        tenant: "t".into(),
        username: "u".into(),
        password: "p".into(),
        users,
        duration: Duration::from_secs(seconds),
        ramp_up: Duration::ZERO,
        rate: None,
        think_time: Duration::ZERO,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_model_counts_requests_errors_and_latencies() {
    let (url, counts) = start_server().await;
    let m = load::run(&options(&url, 4, 2), workload(&["/fast", "/slow", "/flaky"])).await.unwrap();

    let fast = &m.by_request["/fast"];
    let slow = &m.by_request["/slow"];
    let flaky = &m.by_request["/flaky"];
    // Every request the server saw was measured, and nothing else.
    assert_eq!(fast.histogram.len(), counts.fast.load(Ordering::SeqCst));
    assert_eq!(slow.histogram.len(), counts.slow.load(Ordering::SeqCst));
    assert_eq!(flaky.histogram.len(), counts.flaky.load(Ordering::SeqCst));
    assert_eq!(flaky.errors, counts.flaky_failed.load(Ordering::SeqCst));
    assert!(
        flaky.errors > 0 && flaky.first_error.as_deref() == Some("HTTP 500 Internal Server Error")
    );
    assert_eq!(fast.errors + slow.errors, 0);
    // Each of the 4 users sends the workload's requests in order until the end of the
    // run: as many of each, give or take one a user.
    let (n_fast, n_slow, n_flaky) =
        (fast.histogram.len(), slow.histogram.len(), flaky.histogram.len());
    assert!(
        n_fast >= n_slow && n_slow >= n_flaky && n_fast <= n_flaky + 4,
        "{n_fast} {n_slow} {n_flaky}"
    );

    // Each request is measured on its own row: none is faster than its server's sleep.
    let ms = |us: u64| us as f64 / 1000.0;
    assert!(ms(fast.histogram.min()) >= 2.0, "no request is faster than the server's sleep");
    assert!(ms(slow.histogram.min()) >= 20.0, "no request is faster than the server's sleep");

    let report = load::Report::new("test", &options(&url, 4, 2), &m);
    let text = report.text();
    assert!(
        text.contains("Total")
            && text.contains("95pct")
            && text.contains("/slow")
            && text.contains("All requests"),
        "{text}"
    );
    assert_eq!(
        report.all.total,
        fast.histogram.len() + slow.histogram.len() + flaky.histogram.len()
    );
    assert_eq!(report.all.errors, flaky.errors);
    let timeline_total: u64 = report.timeline.iter().map(|s| s.requests).sum();
    assert_eq!(timeline_total, report.all.total);
    let timeline_errors: u64 = report.timeline.iter().map(|s| s.errors).sum();
    assert_eq!(timeline_errors, flaky.errors);
    let json: serde_json::Value = serde_json::from_str(&report.json()).unwrap();
    assert_eq!(json["rows"][1]["request"], "/slow");
    assert!(report.html().contains("<svg") && report.html().contains("/flaky"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_model_keeps_the_arrival_rate() {
    let (url, counts) = start_server().await;
    let mut opts = options(&url, 8, 2);
    opts.rate = Some(100.0);
    let m = load::run(&opts, workload(&["/fast"])).await.unwrap();
    let total = m.by_request["/fast"].histogram.len();
    assert!((190..=201).contains(&total), "100/s for 2 s: {total}");
    assert_eq!(total, counts.fast.load(Ordering::SeqCst));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_model_latency_includes_waiting_for_a_free_slot() {
    let (url, _) = start_server().await;
    let mut opts = options(&url, 1, 1);
    // One slot, 20 ms a request, 100 arrivals/s: requests queue, and the queueing shows.
    opts.rate = Some(100.0);
    let m = load::run(&opts, workload(&["/slow"])).await.unwrap();
    let p95 = m.by_request["/slow"].histogram.value_at_quantile(0.95) as f64 / 1000.0;
    assert!(p95 > 200.0, "coordinated omission would report ~20 ms; got p95 {p95} ms");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_endpoints_are_named() {
    let (url, _) = start_server().await;
    let opts = options(&url, 1, 1);
    let client = reqwest::Client::new();
    let token = load::login(&client, &opts).await.unwrap();
    let missing =
        load::missing_endpoints(&client, &opts, &token, &workload(&["/fast", "/nope?x=1"]))
            .await
            .unwrap();
    assert_eq!(missing, vec!["GET /nope".to_string()]);
}
