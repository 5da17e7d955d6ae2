//! Virtual users sending a workload's requests, and what they measured.
//!
//! Two models, as load tools have them:
//! - closed (default): each of `users` virtual users logs in once, then sends the
//!   workload's requests in order, waiting for each answer, with optional think time;
//! - open (`rate`): requests start at a fixed arrival rate whatever the server does, at
//!   most `users` in flight; each is timed from when it *should* have started, so a
//!   server that falls behind shows it in the latencies (no coordinated omission).

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use anyhow::Context;
use hdrhistogram::Histogram;

use crate::workload::{RequestTemplate, Workload};

/// How to run.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    pub url: String,
    pub tenant: String,
    pub username: String,
    pub password: String,
    pub users: usize,
    pub duration: Duration,
    pub ramp_up: Duration,
    /// Open model: total requests started per second.
    pub rate: Option<f64>,
    /// Closed model: pause after each answer.
    pub think_time: Duration,
}

/// The measurements of one request name.
#[derive(Debug, Clone)]
pub struct RequestStats {
    /// Microseconds, 1 µs to 10 minutes at 3 significant digits.
    pub histogram: Histogram<u64>,
    pub errors: u64,
    /// The first error seen, for the report.
    pub first_error: Option<String>,
}

impl RequestStats {
    fn new() -> RequestStats {
        RequestStats {
            histogram: Histogram::new_with_bounds(1, 600_000_000, 3)
                .expect("valid histogram bounds"),
            errors: 0,
            first_error: None,
        }
    }
}

/// One second of the run, all requests together.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Second {
    pub requests: u64,
    pub errors: u64,
    pub sum_micros: u64,
    pub max_micros: u64,
}

/// The server's resident memory at one moment of the run.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct MemorySample {
    pub second: u64,
    pub resident_bytes: u64,
    /// The part not backed by files (heap, stacks), when the server publishes it.
    pub anonymous_bytes: Option<u64>,
}

/// Everything a run measured.
#[derive(Debug, Clone)]
pub struct Measurements {
    pub by_request: BTreeMap<String, RequestStats>,
    /// In the order the workload lists them.
    pub order: Vec<String>,
    /// Rows that sum other rows (JMeter's transaction controllers): reported, but not
    /// counted again in "All requests".
    pub transactions: Vec<String>,
    pub timeline: Vec<Second>,
    /// The server's resident memory over the run, when it publishes it.
    pub memory: Vec<MemorySample>,
    pub elapsed: Duration,
}

pub(crate) struct Recorder {
    by_request: BTreeMap<String, RequestStats>,
    first_use: Vec<String>,
    timeline: Vec<Second>,
    started: Instant,
}

impl Recorder {
    pub(crate) fn new(started: Instant) -> Recorder {
        Recorder {
            by_request: BTreeMap::new(),
            first_use: Vec::new(),
            timeline: Vec::new(),
            started,
        }
    }

    pub(crate) fn names_in_first_use_order(&self) -> Vec<String> {
        self.first_use.clone()
    }

    pub(crate) fn into_measurements(
        self,
        order: Vec<String>,
        elapsed: Duration,
        memory: Vec<MemorySample>,
    ) -> Measurements {
        Measurements {
            by_request: self.by_request,
            order,
            transactions: Vec::new(),
            timeline: self.timeline,
            memory,
            elapsed,
        }
    }

    pub(crate) fn record(
        &mut self,
        name: &str,
        at: Instant,
        latency: Duration,
        error: Option<String>,
    ) {
        let micros = (latency.as_micros() as u64).clamp(1, 600_000_000);
        let failed = error.is_some();
        if !self.by_request.contains_key(name) {
            self.first_use.push(name.to_string());
        }
        let stats = self.by_request.entry(name.to_string()).or_insert_with(RequestStats::new);
        stats.histogram.saturating_record(micros);
        if let Some(error) = error {
            stats.errors += 1;
            stats.first_error.get_or_insert(error);
        }
        let second = at.saturating_duration_since(self.started).as_secs() as usize;
        if self.timeline.len() <= second {
            self.timeline.resize(second + 1, Second::default());
        }
        let slot = &mut self.timeline[second];
        slot.requests += 1;
        slot.errors += failed as u64;
        slot.sum_micros += micros;
        slot.max_micros = slot.max_micros.max(micros);
    }
}

/// The instance index's status (`/search/index/instance-records/reindex/status`): its
/// applied and the change log's sequence numbers, segments and deleted documents.
pub async fn index_status(
    client: &reqwest::Client,
    options: &LoadOptions,
    token: &str,
) -> anyhow::Result<serde_json::Value> {
    let status =
        get_json(client, options, token, "/search/index/instance-records/reindex/status").await?;
    Ok(status[0].clone())
}

/// A GET of `path` on the server as the tenant's logged-in user, its body as JSON.
pub(crate) async fn get_json(
    client: &reqwest::Client,
    options: &LoadOptions,
    token: &str,
    path: &str,
) -> anyhow::Result<serde_json::Value> {
    Ok(client
        .get(format!("{}{path}", options.url))
        .header("x-okapi-tenant", &options.tenant)
        .header("x-okapi-token", token)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?)
}

/// Logs in as FOLIO's virtual users do and returns the token.
pub async fn login(client: &reqwest::Client, options: &LoadOptions) -> anyhow::Result<String> {
    let response = client
        .post(format!("{}/authn/login", options.url))
        .header("x-okapi-tenant", &options.tenant)
        .json(&serde_json::json!({ "username": options.username, "password": options.password }))
        .send()
        .await
        .with_context(|| format!("cannot reach {}", options.url))?;
    let status = response.status();
    let token =
        response.headers().get("x-okapi-token").and_then(|v| v.to_str().ok()).map(str::to_string);
    match token {
        Some(token) if status.is_success() => Ok(token),
        _ => anyhow::bail!(
            "login as {} on tenant {} failed: {status} {}",
            options.username,
            options.tenant,
            response.text().await.unwrap_or_default()
        ),
    }
}

/// Sends each request of the workload once and names those whose endpoint the server
/// does not have (404 on a path that must exist).
pub async fn missing_endpoints(
    client: &reqwest::Client,
    options: &LoadOptions,
    token: &str,
    workload: &Workload,
) -> anyhow::Result<Vec<String>> {
    let mut missing = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for template in &workload.requests {
        let endpoint = template.path.split('?').next().unwrap_or(&template.path).to_string();
        if !seen.insert((template.method.clone(), endpoint.clone())) {
            continue;
        }
        let (status, _) = send(client, options, token, workload, template, 0).await?;
        if status == reqwest::StatusCode::NOT_FOUND
            || status == reqwest::StatusCode::METHOD_NOT_ALLOWED
        {
            missing.push(format!("{} {endpoint}", template.method));
        }
    }
    Ok(missing)
}

async fn send(
    client: &reqwest::Client,
    options: &LoadOptions,
    token: &str,
    workload: &Workload,
    template: &RequestTemplate,
    cursor: usize,
) -> anyhow::Result<(reqwest::StatusCode, usize)> {
    let path = workload.render(template, cursor);
    let mut request = client
        .request(template.method.clone(), format!("{}{path}", options.url))
        .header("x-okapi-tenant", &options.tenant)
        .header("x-okapi-token", token);
    if let Some(body) = &template.body {
        request = request.header("content-type", "application/json").body(body.clone());
    }
    let response = request.send().await?;
    let status = response.status();
    // The whole body is read: a response is done when its last byte is in.
    let bytes = response.bytes().await?;
    Ok((status, bytes.len()))
}

/// Runs the workload and returns what it measured.
pub async fn run(options: &LoadOptions, workload: Arc<Workload>) -> anyhow::Result<Measurements> {
    anyhow::ensure!(options.users > 0, "--users must be at least 1");
    anyhow::ensure!(!workload.requests.is_empty(), "the scenario has no requests");
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(options.users)
        .timeout(Duration::from_secs(120))
        .build()?;
    let token = login(&client, options).await?;
    let started = Instant::now();
    let deadline = started + options.ramp_up + options.duration;
    let recorder = Arc::new(Mutex::new(Recorder::new(started)));
    let memory = sample_memory(client.clone(), options.url.clone(), deadline);
    let options = Arc::new(options.clone());
    match options.rate {
        None => {
            let mut tasks = Vec::new();
            for user in 0..options.users {
                let (client, options, workload, recorder, token) = (
                    client.clone(),
                    options.clone(),
                    workload.clone(),
                    recorder.clone(),
                    token.clone(),
                );
                tasks.push(tokio::spawn(async move {
                    let delay = options.ramp_up.mul_f64(user as f64 / options.users as f64);
                    tokio::time::sleep(delay).await;
                    let mut iteration = 0usize;
                    'run: loop {
                        for template in &workload.requests {
                            if Instant::now() >= deadline {
                                break 'run;
                            }
                            let cursor = user * 7919 + iteration;
                            let at = Instant::now();
                            let result =
                                send(&client, &options, &token, &workload, template, cursor).await;
                            let latency = at.elapsed();
                            recorder.lock().unwrap().record(
                                &template.name,
                                at,
                                latency,
                                error_of(result),
                            );
                            if !options.think_time.is_zero() {
                                tokio::time::sleep(options.think_time).await;
                            }
                        }
                        iteration += 1;
                    }
                }));
            }
            for task in tasks {
                task.await?;
            }
        }
        Some(rate) => {
            anyhow::ensure!(rate > 0.0, "--rate must be positive");
            let in_flight = Arc::new(tokio::sync::Semaphore::new(options.users));
            let interval = Duration::from_secs_f64(1.0 / rate);
            let mut tasks = tokio::task::JoinSet::new();
            let mut n = 0usize;
            loop {
                // Scheduled, not measured: the n-th request is due at start + n/rate.
                let due = started + interval.mul_f64(n as f64);
                if due >= deadline {
                    break;
                }
                tokio::time::sleep_until(due.into()).await;
                let template_idx = n % workload.requests.len();
                let (client, options, workload, recorder, token, in_flight) = (
                    client.clone(),
                    options.clone(),
                    workload.clone(),
                    recorder.clone(),
                    token.clone(),
                    in_flight.clone(),
                );
                tasks.spawn(async move {
                    let _permit = in_flight.acquire_owned().await.expect("semaphore open");
                    let template = &workload.requests[template_idx];
                    let result = send(
                        &client,
                        &options,
                        &token,
                        &workload,
                        template,
                        n / workload.requests.len(),
                    )
                    .await;
                    let latency = due.elapsed();
                    recorder.lock().unwrap().record(&template.name, due, latency, error_of(result));
                });
                n += 1;
                while tasks.try_join_next().is_some() {}
            }
            while tasks.join_next().await.is_some() {}
        }
    }
    let elapsed = started.elapsed();
    let recorder = Arc::try_unwrap(recorder)
        .map_err(|_| anyhow::anyhow!("tasks still running"))?
        .into_inner()
        .unwrap();
    let order = workload.requests.iter().map(|t| t.name.clone()).collect();
    Ok(recorder.into_measurements(order, elapsed, memory.await?))
}

/// Samples the server's resident memory (`process_resident_memory_bytes` of
/// `/admin/metrics`) every ten seconds until `deadline`; empty if the server does not
/// publish it.
pub(crate) fn sample_memory(
    client: reqwest::Client,
    url: String,
    deadline: Instant,
) -> tokio::task::JoinHandle<Vec<MemorySample>> {
    tokio::spawn(async move {
        let started = Instant::now();
        let mut samples = Vec::new();
        loop {
            let Ok(response) = client.get(format!("{url}/admin/metrics")).send().await else {
                break;
            };
            let Ok(text) = response.text().await else { break };
            let gauge = |name: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
                    .and_then(|v| v.trim().parse::<f64>().ok())
                    .map(|v| v as u64)
            };
            let Some(bytes) = gauge("process_resident_memory_bytes") else { break };
            samples.push(MemorySample {
                second: started.elapsed().as_secs(),
                resident_bytes: bytes,
                anonymous_bytes: gauge("quire_resident_anonymous_memory_bytes"),
            });
            let next = Instant::now() + Duration::from_secs(10);
            if next >= deadline {
                break;
            }
            tokio::time::sleep_until(next.into()).await;
        }
        samples
    })
}

/// A transport failure or an HTTP error status counts as an error.
fn error_of(result: anyhow::Result<(reqwest::StatusCode, usize)>) -> Option<String> {
    match result {
        Ok((status, _)) if status.is_success() => None,
        Ok((status, _)) => Some(format!("HTTP {status}")),
        Err(e) => Some(format!("{e:#}")),
    }
}
