//! Per-route request counts and latency histograms, rendered in Prometheus text format.

use std::{collections::BTreeMap, fmt::Write, sync::Mutex, time::Duration};

/// Upper bounds of the latency buckets, in seconds: 100 µs to 10 s.
const BUCKETS: [f64; 14] =
    [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 10.0];

#[derive(Default)]
pub(crate) struct Metrics {
    routes: Mutex<BTreeMap<(String, String), RouteStats>>,
}

#[derive(Default)]
struct RouteStats {
    by_status: BTreeMap<u16, u64>,
    // Invariant: bucket_counts[i] counts requests no slower than BUCKETS[i]; not cumulative.
    bucket_counts: [u64; BUCKETS.len()],
    over: u64,
    sum_seconds: f64,
    count: u64,
}

impl Metrics {
    pub(crate) fn record(&self, method: &str, route: &str, status: u16, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        let mut routes = self.routes.lock().unwrap();
        let stats = routes.entry((method.to_string(), route.to_string())).or_default();
        *stats.by_status.entry(status).or_default() += 1;
        match BUCKETS.iter().position(|&le| seconds <= le) {
            Some(idx) => stats.bucket_counts[idx] += 1,
            None => stats.over += 1,
        }
        stats.sum_seconds += seconds;
        stats.count += 1;
    }

    pub(crate) fn render(&self) -> String {
        let routes = self.routes.lock().unwrap();
        let mut out = String::new();
        out.push_str("# HELP quire_http_requests_total HTTP requests by route and status.\n");
        out.push_str("# TYPE quire_http_requests_total counter\n");
        for ((method, route), stats) in routes.iter() {
            for (status, n) in &stats.by_status {
                let _ = writeln!(
                    out,
                    "quire_http_requests_total{{method=\"{method}\",route=\"{}\",status=\"{status}\"}} {n}",
                    escape(route)
                );
            }
        }
        out.push_str("# HELP quire_http_request_duration_seconds HTTP request latency by route.\n");
        out.push_str("# TYPE quire_http_request_duration_seconds histogram\n");
        for ((method, route), stats) in routes.iter() {
            let labels = format!("method=\"{method}\",route=\"{}\"", escape(route));
            let mut cumulative = 0;
            for (le, n) in BUCKETS.iter().zip(stats.bucket_counts) {
                cumulative += n;
                let _ = writeln!(
                    out,
                    "quire_http_request_duration_seconds_bucket{{{labels},le=\"{le}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                out,
                "quire_http_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {}",
                stats.count
            );
            let _ = writeln!(
                out,
                "quire_http_request_duration_seconds_sum{{{labels}}} {}",
                stats.sum_seconds
            );
            let _ = writeln!(
                out,
                "quire_http_request_duration_seconds_count{{{labels}}} {}",
                stats.count
            );
        }
        if let Some(bytes) = status_kib("VmRSS:") {
            out.push_str("# HELP process_resident_memory_bytes Resident memory size in bytes.\n");
            out.push_str("# TYPE process_resident_memory_bytes gauge\n");
            let _ = writeln!(out, "process_resident_memory_bytes {bytes}");
        }
        // Resident memory counts the mapped database and index files a process has
        // touched; the anonymous part (heap, stacks) is what a leak would grow.
        if let Some(bytes) = status_kib("RssAnon:") {
            out.push_str(
                "# HELP quire_resident_anonymous_memory_bytes Resident memory not backed by files (heap, stacks).\n",
            );
            out.push_str("# TYPE quire_resident_anonymous_memory_bytes gauge\n");
            let _ = writeln!(out, "quire_resident_anonymous_memory_bytes {bytes}");
        }
        // The share of it that SQLite's page caches hold: it grows with the tenants'
        // databases up to the caches' size, and a leak elsewhere shows as the rest growing.
        out.push_str(
            "# HELP quire_sqlite_memory_bytes Heap SQLite holds (its page caches, mostly).\n",
        );
        out.push_str("# TYPE quire_sqlite_memory_bytes gauge\n");
        let _ = writeln!(out, "quire_sqlite_memory_bytes {}", store::sqlite_memory_bytes());
        out
    }
}

/// A memory figure of `/proc/self/status` in bytes (Linux; elsewhere absent). A long
/// load run samples them to show memory stays flat.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix(field))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib * 1024)
}

fn escape(label: &str) -> String {
    label.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The event publisher's figures per tenant, after the HTTP ones.
pub(crate) fn render_events(
    out: &mut String,
    status: &std::collections::BTreeMap<String, events::TenantStatus>,
) {
    type Figure = fn(&events::TenantStatus) -> f64;
    let gauges: [(&str, &str, Figure); 5] = [
        ("quire_events_published_total", "Events published since the process started.", |s| {
            s.events as f64
        }),
        ("quire_events_lag_changes", "Changes committed and not yet published.", |s| {
            s.lag_changes as f64
        }),
        (
            "quire_events_oldest_unpublished_seconds",
            "How long the oldest unpublished change has waited.",
            |s| s.oldest_unpublished_ms as f64 / 1000.0,
        ),
        (
            "quire_events_publish_lag_p95_seconds",
            "Commit-to-acknowledgement time, 95th percentile (bucket bound).",
            |s| s.lag_ms.p95 as f64 / 1000.0,
        ),
        ("quire_events_skipped_total", "Changes that had no bodies to publish.", |s| {
            s.skipped as f64
        }),
    ];
    for (name, help, value) in gauges {
        let _ = writeln!(out, "# HELP {name} {help}");
        let kind = if name.ends_with("_total") { "counter" } else { "gauge" };
        let _ = writeln!(out, "# TYPE {name} {kind}");
        for (tenant, s) in status {
            let _ = writeln!(out, "{name}{{tenant=\"{}\"}} {}", escape(tenant), value(s));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counts_and_cumulative_buckets() {
        let m = Metrics::default();
        m.record("GET", "/a/{id}", 200, Duration::from_micros(50));
        m.record("GET", "/a/{id}", 404, Duration::from_millis(3));
        let text = m.render();
        assert!(text.contains(
            "quire_http_requests_total{method=\"GET\",route=\"/a/{id}\",status=\"200\"} 1"
        ));
        assert!(text.contains(
            "quire_http_requests_total{method=\"GET\",route=\"/a/{id}\",status=\"404\"} 1"
        ));
        assert!(text.contains("le=\"0.0001\"} 1"));
        assert!(text.contains("le=\"0.005\"} 2"));
        assert!(text.contains(
            "quire_http_request_duration_seconds_count{method=\"GET\",route=\"/a/{id}\"} 2"
        ));
        if cfg!(target_os = "linux") {
            let rss = text
                .lines()
                .find_map(|l| l.strip_prefix("process_resident_memory_bytes "))
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap();
            assert!(rss > 1 << 20, "a running test process holds more than 1 MiB: {rss}");
            assert!(text.contains("quire_resident_anonymous_memory_bytes "), "{text}");
            assert!(text.contains("quire_sqlite_memory_bytes "), "{text}");
        }
    }
}
