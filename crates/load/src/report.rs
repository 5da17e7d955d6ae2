//! Reports in FOLIO PTF's layout: per request `Total | Req/s | Min | 50pct | 75pct |
//! 95pct | 99pct | Max | Avg | Errors`, with FOLIO's published figure and the ratio where
//! one exists (`shared/baselines/folio-ptf.md`), as text, JSON and an HTML page.

use serde::Serialize;

use crate::engine::{Measurements, Second};

/// One row of the report; times in milliseconds.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub request: String,
    pub total: u64,
    pub requests_per_second: f64,
    pub min_ms: f64,
    pub p50_ms: f64,
    pub p75_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub avg_ms: f64,
    pub errors: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folio: Option<Baseline>,
}

/// FOLIO's published figure for a request, in milliseconds.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Baseline {
    /// Absent where FOLIO published only a percentile.
    pub avg_ms: Option<f64>,
    pub p95_ms: f64,
    pub source: &'static str,
}

/// A whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub scenario: String,
    pub url: String,
    pub tenant: String,
    pub users: usize,
    pub duration_seconds: f64,
    pub model: String,
    pub rows: Vec<Row>,
    pub all: Row,
    pub timeline: Vec<Second>,
    /// The server's resident memory over the run.
    pub memory: Vec<crate::engine::MemorySample>,
}

/// FOLIO's per-query figures from the PTF Lotus search test, 1 user, no reindex (average
/// and 95th percentile).
const SEARCH_BASELINES: &[(&str, f64, f64)] = &[
    ("GET /search/instances: title all *1randomword", 6886.0, 11234.0),
    ("GET /search/instances: subjects = *1randomword", 850.0, 1327.0),
    ("GET /search/instances: contributors = *randomword", 562.0, 943.0),
    ("GET /search/authorities keyword = *random sentence*", 874.0, 1681.0),
    ("GET /search/authorities keyword all *randomword*", 644.0, 1198.0),
    ("GET /search/instances: title any 3 word sentence", 585.0, 1747.0),
    ("GET /search/instances: keyword <> 1word", 323.0, 488.0),
    ("GET /search/instances: title <> 3 word sentence", 320.0, 499.0),
    ("GET /search/instances: keyword == random 2words", 37.0, 82.0),
    ("GET /search/instances: contributors == 2random words", 23.0, 39.0),
    (
        "GET /search/instances: languages == lang AND items.status.name == \"Available\"",
        127.0,
        243.0,
    ),
    ("GET /search/instances: keyword all random sentence AND languages == randomlang", 93.0, 194.0),
    ("GET /search/instances: subjects all randomword NOT title all randomword", 182.0, 333.0),
];

/// FOLIO's MARC search figures (29.4M records, 2 users): median and 95th percentile.
const MARC_BASELINES: &[(&str, f64, f64)] = &[
    ("1: p_05 = 'd'", 6400.0, 6900.0),
    ("2: p_05 = 'd', deleted and suppressed", 6400.0, 6900.0),
    ("4: p_05 = 'd' and 005 date range", 6700.0, 7200.0),
];

/// FOLIO's check-in/check-out figures (Sunflower, 8 users): 95th percentile of the bare
/// POSTs and of the whole transaction controllers.
const CICO_BASELINES: &[(&str, f64)] = &[
    (crate::cico::CHECK_OUT_TRANSACTION, 1228.0),
    (crate::cico::CHECK_OUT_POST, 425.0),
    (crate::cico::CHECK_IN_TRANSACTION, 636.0),
    (crate::cico::CHECK_IN_POST, 252.0),
];

fn baseline(request: &str) -> Option<Baseline> {
    if let Some((_, avg, p95)) = SEARCH_BASELINES.iter().find(|(name, _, _)| *name == request) {
        return Some(Baseline {
            avg_ms: Some(*avg),
            p95_ms: *p95,
            source: "PTF Lotus search, 1 user (avg, p95)",
        });
    }
    if let Some((_, p95)) = CICO_BASELINES.iter().find(|(name, _)| *name == request) {
        return Some(Baseline {
            avg_ms: None,
            p95_ms: *p95,
            source: "PTF Sunflower CICO, 8 users (p95)",
        });
    }
    MARC_BASELINES.iter().find(|(name, _, _)| *name == request).map(|(_, median, p95)| Baseline {
        avg_ms: Some(*median),
        p95_ms: *p95,
        source: "PTF MARC search, 2 users (median, p95)",
    })
}

fn row(
    request: &str,
    h: &hdrhistogram::Histogram<u64>,
    errors: u64,
    first_error: Option<String>,
    seconds: f64,
) -> Row {
    let ms = |micros: u64| micros as f64 / 1000.0;
    let empty = h.is_empty();
    Row {
        request: request.to_string(),
        total: h.len(),
        requests_per_second: h.len() as f64 / seconds.max(1e-9),
        min_ms: if empty { 0.0 } else { ms(h.min()) },
        p50_ms: ms(h.value_at_quantile(0.50)),
        p75_ms: ms(h.value_at_quantile(0.75)),
        p95_ms: ms(h.value_at_quantile(0.95)),
        p99_ms: ms(h.value_at_quantile(0.99)),
        max_ms: ms(h.max()),
        avg_ms: h.mean() / 1000.0,
        errors,
        first_error,
        folio: baseline(request),
    }
}

impl Report {
    pub fn new(scenario: &str, options: &crate::LoadOptions, m: &Measurements) -> Report {
        let seconds = m.elapsed.as_secs_f64();
        let mut rows = Vec::new();
        let mut all = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 600_000_000, 3)
            .expect("valid bounds");
        let mut all_errors = 0;
        let mut seen = std::collections::HashSet::new();
        for name in &m.order {
            if !seen.insert(name) {
                continue;
            }
            if let Some(stats) = m.by_request.get(name) {
                if !m.transactions.contains(name) {
                    all.add(&stats.histogram).expect("same bounds");
                    all_errors += stats.errors;
                }
                rows.push(row(
                    name,
                    &stats.histogram,
                    stats.errors,
                    stats.first_error.clone(),
                    seconds,
                ));
            }
        }
        let model = match options.rate {
            Some(rate) => format!("open, {rate} requests/s, at most {} in flight", options.users),
            None => format!(
                "closed, {} virtual users, think time {} ms",
                options.users,
                options.think_time.as_millis()
            ),
        };
        Report {
            scenario: scenario.to_string(),
            url: options.url.clone(),
            tenant: options.tenant.clone(),
            users: options.users,
            duration_seconds: seconds,
            model,
            rows,
            all: row("All requests", &all, all_errors, None, seconds),
            timeline: m.timeline.clone(),
            memory: m.memory.clone(),
        }
    }

    /// The PTF table, then FOLIO's figures beside Quire's.
    pub fn text(&self) -> String {
        let mut out = format!(
            "Scenario {} against {} (tenant {}), {}, {:.1} s\n\n",
            self.scenario, self.url, self.tenant, self.model, self.duration_seconds
        );
        let width = self.rows.iter().map(|r| r.request.len()).max().unwrap_or(10).max(12);
        out.push_str(&format!(
            "{:<width$} | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>6}\n",
            "Request", "Total", "Req/s", "Min", "50pct", "75pct", "95pct", "99pct", "Max", "Avg", "Errors"
        ));
        for row in self.rows.iter().chain(std::iter::once(&self.all)) {
            out.push_str(&format!(
                "{:<width$} | {:>8} | {:>8.1} | {:>8.2} | {:>8.2} | {:>8.2} | {:>8.2} | {:>8.2} | {:>8.2} | {:>8.2} | {:>6}\n",
                row.request,
                row.total,
                row.requests_per_second,
                row.min_ms,
                row.p50_ms,
                row.p75_ms,
                row.p95_ms,
                row.p99_ms,
                row.max_ms,
                row.avg_ms,
                row.errors
            ));
        }
        out.push_str("(times in milliseconds)\n");
        let compared: Vec<&Row> =
            self.rows.iter().filter(|r| r.folio.is_some() && r.total > 0).collect();
        if !compared.is_empty() {
            out.push_str("\nBeside FOLIO's published figures:\n");
            for row in compared {
                let folio = row.folio.expect("filtered");
                let folio_avg = folio.avg_ms.map(|a| format!("{a:.0} ms, ")).unwrap_or_default();
                out.push_str(&format!(
                    "  {}: Quire avg {:.2} ms, p95 {:.2} ms; FOLIO {}p95 {:.0} ms ({}); {:.0}x faster at p95\n",
                    row.request,
                    row.avg_ms,
                    row.p95_ms,
                    folio_avg,
                    folio.p95_ms,
                    folio.source,
                    folio.p95_ms / row.p95_ms.max(0.001)
                ));
            }
        }
        if let Some(memory) = self.memory_summary() {
            out.push_str(&format!("\n{memory}\n"));
        }
        for row in self.rows.iter().filter(|r| r.errors > 0) {
            out.push_str(&format!(
                "errors in {}: {} (first: {})\n",
                row.request,
                row.errors,
                row.first_error.as_deref().unwrap_or("-")
            ));
        }
        out
    }

    /// The server's resident memory at the start, the peak, and the averages of the
    /// first and last fifths of the run: flat memory shows as equal averages.
    pub fn memory_summary(&self) -> Option<String> {
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        let samples = &self.memory;
        let first = samples.first()?;
        let fifth = (samples.len() / 5).max(1);
        let avg = |s: &[crate::engine::MemorySample],
                   f: &dyn Fn(&crate::engine::MemorySample) -> u64| {
            s.iter().map(|m| mib(f(m))).sum::<f64>() / s.len().max(1) as f64
        };
        let peak = samples.iter().map(|m| m.resident_bytes).max().unwrap_or(0);
        let mut text = format!(
            "Server resident memory ({} samples, every 10 s): {:.0} MiB at the start, peak {:.0} MiB; \
             first fifth avg {:.0} MiB, last fifth avg {:.0} MiB",
            samples.len(),
            mib(first.resident_bytes),
            mib(peak),
            avg(&samples[..fifth], &|m| m.resident_bytes),
            avg(&samples[samples.len() - fifth..], &|m| m.resident_bytes),
        );
        if samples.iter().all(|m| m.anonymous_bytes.is_some()) {
            let anon = |m: &crate::engine::MemorySample| m.anonymous_bytes.unwrap_or(0);
            text.push_str(&format!(
                "\n  of it not file-backed (heap, stacks): {:.0} MiB at the start, peak {:.0} MiB; \
                 first fifth avg {:.0} MiB, last fifth avg {:.0} MiB",
                mib(anon(first)),
                mib(samples.iter().map(anon).max().unwrap_or(0)),
                avg(&samples[..fifth], &anon),
                avg(&samples[samples.len() - fifth..], &anon),
            ));
        }
        Some(text)
    }

    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report serialises")
    }

    /// A self-contained HTML page: the table and a response-time-over-time chart.
    pub fn html(&self) -> String {
        page(&format!("Quire load report: {}", self.scenario), &self.html_section(false))
    }

    /// The run's line, its response-time chart and its table, as a part of a page;
    /// `titled` heads it with the scenario's name (a page of several runs).
    fn html_section(&self, titled: bool) -> String {
        let mut rows = String::new();
        for row in self.rows.iter().chain(std::iter::once(&self.all)) {
            let folio = row
                .folio
                .map(|f| {
                    let avg = f.avg_ms.map(|a| format!("{a:.0}")).unwrap_or_else(|| "-".into());
                    format!("{avg} / {:.0}", f.p95_ms)
                })
                .unwrap_or_default();
            rows.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{:.1}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td><td>{}</td><td>{}</td></tr>\n",
                escape(&row.request), row.total, row.requests_per_second, row.min_ms, row.p50_ms, row.p75_ms,
                row.p95_ms, row.p99_ms, row.max_ms, row.avg_ms, row.errors, folio
            ));
        }
        let title =
            if titled { format!("<h2>{}</h2>", escape(&self.scenario)) } else { String::new() };
        format!(
            "{title}<p>{url}, tenant {tenant}, {model}, {secs:.1} s</p>\n\
             <h3>Response time over time</h3>{chart}\n\
             <h3>Requests (milliseconds)</h3><table><tr><th>Request</th><th>Total</th><th>Req/s</th><th>Min</th><th>50pct</th><th>75pct</th><th>95pct</th><th>99pct</th><th>Max</th><th>Avg</th><th>Errors</th><th>FOLIO avg / p95</th></tr>\n{rows}</table>\n",
            url = escape(&self.url),
            tenant = escape(&self.tenant),
            model = escape(&self.model),
            secs = self.duration_seconds,
            chart = self.chart(),
        )
    }

    /// Average and maximum response time per second, and requests per second, as SVG.
    fn chart(&self) -> String {
        let (w, h, pad) = (900.0, 300.0, 50.0);
        let n = self.timeline.len().max(2);
        let max_ms = self.timeline.iter().map(|s| s.max_micros as f64 / 1000.0).fold(1.0, f64::max);
        let max_rps = self.timeline.iter().map(|s| s.requests as f64).fold(1.0, f64::max);
        let x = |i: usize| pad + (w - 2.0 * pad) * i as f64 / (n - 1) as f64;
        let y = |v: f64, max: f64| h - pad - (h - 2.0 * pad) * v / max;
        let line = |f: &dyn Fn(&Second) -> f64, max: f64| {
            self.timeline
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{:.1},{:.1}", x(i), y(f(s), max)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let avg = line(
            &|s| {
                if s.requests == 0 { 0.0 } else { s.sum_micros as f64 / s.requests as f64 / 1000.0 }
            },
            max_ms,
        );
        let max = line(&|s| s.max_micros as f64 / 1000.0, max_ms);
        let rps = line(&|s| s.requests as f64, max_rps);
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\">\
             <rect x=\"{pad}\" y=\"{pad}\" width=\"{iw}\" height=\"{ih}\" fill=\"none\" stroke=\"#999\"/>\
             <polyline points=\"{max}\" fill=\"none\" stroke=\"#e99\"/>\
             <polyline points=\"{avg}\" fill=\"none\" stroke=\"#c00\" stroke-width=\"2\"/>\
             <polyline points=\"{rps}\" fill=\"none\" stroke=\"#36c\" stroke-dasharray=\"4 2\"/>\
             <text x=\"{pad}\" y=\"20\" font-size=\"12\">red: avg (dark) and max (light) response time, 0-{max_ms:.1} ms; blue dashed: requests/s, 0-{max_rps:.0}; x: seconds 0-{secs}</text>\
             </svg>",
            iw = w - 2.0 * pad,
            ih = h - 2.0 * pad,
            secs = n - 1,
        )
    }
}

/// One sample of the search index's shape during a run.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexSample {
    /// Seconds since the run began.
    pub second: u64,
    pub segments: u64,
    pub deleted_documents: u64,
}

/// A page of several runs (search-during-cico's phases), headed by `summary` and a
/// chart of the index's segments and deleted documents over them.
pub fn html_page(title: &str, summary: &str, reports: &[&Report], index: &[IndexSample]) -> String {
    let mut body = format!(
        "<p>{}</p>\n<h2>Index segments over the run</h2>{}\n",
        escape(summary),
        index_chart(index)
    );
    for report in reports {
        body.push_str(&report.html_section(true));
    }
    page(title, &body)
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title>\n\
         <style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 6px;text-align:right}}td:first-child{{text-align:left}}</style></head>\n\
         <body><h1>{title}</h1>\n{body}</body></html>\n",
        title = escape(title),
    )
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Segments (a step line, left scale) and deleted documents (dashed, right scale) by
/// second, as SVG.
fn index_chart(samples: &[IndexSample]) -> String {
    let (w, h, pad) = (900.0, 300.0, 50.0);
    let last = samples.last().map_or(1, |s| s.second.max(1)) as f64;
    let max_segments = samples.iter().map(|s| s.segments).max().unwrap_or(1).max(1) as f64;
    let max_deleted = samples.iter().map(|s| s.deleted_documents).max().unwrap_or(1).max(1) as f64;
    let x = |t: u64| pad + (w - 2.0 * pad) * t as f64 / last;
    let y = |v: f64, max: f64| h - pad - (h - 2.0 * pad) * v / max;
    let line = |f: &dyn Fn(&IndexSample) -> f64, max: f64| {
        samples
            .iter()
            .map(|s| format!("{:.1},{:.1}", x(s.second), y(f(s), max)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let segments = line(&|s| s.segments as f64, max_segments);
    let deleted = line(&|s| s.deleted_documents as f64, max_deleted);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\">\
         <rect x=\"{pad}\" y=\"{pad}\" width=\"{iw}\" height=\"{ih}\" fill=\"none\" stroke=\"#999\"/>\
         <polyline points=\"{segments}\" fill=\"none\" stroke=\"#070\" stroke-width=\"2\"/>\
         <polyline points=\"{deleted}\" fill=\"none\" stroke=\"#960\" stroke-dasharray=\"4 2\"/>\
         <text x=\"{pad}\" y=\"20\" font-size=\"12\">green: segments, 0-{max_segments:.0}; brown dashed: deleted documents, 0-{max_deleted:.0}; x: seconds 0-{last:.0}</text>\
         </svg>",
        iw = w - 2.0 * pad,
        ih = h - 2.0 * pad,
    )
}
