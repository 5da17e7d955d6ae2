//! Scenarios: which requests a virtual user sends, in what order, with what values.
//!
//! The `search` scenario replays FOLIO's own search load test (its `requests.tsv` and word
//! files, read from a directory so the exact PTF workload is what runs); the others are
//! built in, each mirroring a FOLIO test.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
};

use anyhow::Context;

/// A named scenario of the load harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScenarioName {
    /// FOLIO's search load test: the query mix of baselines section 1.
    Search,
    /// `search` on one tenant while another tenant reindexes.
    SearchUnderReindex,
    SearchDuringCico,
    /// The MARC leader/field searches of baselines section 2.
    MarcSearch,
    /// Check-in/check-out (baselines section 3).
    Cico,
    /// The instance-UUID export.
    ExportIds,
    /// `cico` idle, then `cico` while a MARC file imports (baselines' import report).
    Import,
    BulkEdit,
    /// `cico` idle, then `cico` while an OAI-PMH harvest runs; the harvest timed.
    Oai,
}

impl ScenarioName {
    pub fn parse(name: &str) -> Option<ScenarioName> {
        Some(match name {
            "search" => ScenarioName::Search,
            "search-under-reindex" => ScenarioName::SearchUnderReindex,
            "search-during-cico" => ScenarioName::SearchDuringCico,
            "marc-search" => ScenarioName::MarcSearch,
            "cico" => ScenarioName::Cico,
            "export-ids" => ScenarioName::ExportIds,
            "import" => ScenarioName::Import,
            "bulk-edit" => ScenarioName::BulkEdit,
            "oai" => ScenarioName::Oai,
            _ => return None,
        })
    }

    pub fn all() -> &'static [&'static str] {
        &[
            "search",
            "search-under-reindex",
            "marc-search",
            "cico",
            "export-ids",
            "import",
            "bulk-edit",
            "oai",
        ]
    }
}

/// One kind of request: a name for the report, a method, a path with `${var}`
/// placeholders and an optional body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestTemplate {
    pub name: String,
    pub method: reqwest::Method,
    pub path: String,
    pub body: Option<String>,
}

/// The requests of a scenario and the values of its variables.
#[derive(Debug, Clone)]
pub struct Workload {
    pub requests: Vec<RequestTemplate>,
    pub values: HashMap<String, Vec<String>>,
}

/// FOLIO's variable-to-file mapping of the search load test.
const SEARCH_VARIABLES: &[(&str, &str)] = &[
    ("cqlAuthQuery", "auth_queries.csv"),
    ("cqlAuthQuerySentence", "auth_queries_sentence.csv"),
    ("cqlBoolAndQuery", "bool_queries_word_and_titleall_word.csv"),
    ("cqlBoolOrQuery", "bool_queries_word_or_titleall_word.csv"),
    ("cqlBoolSubjectOrQuery", "bool_queries_subject_word_or_word.csv"),
    ("cqlBoolSubjectNotQuery", "bool_queries_subject_word_not_word.csv"),
    ("cqlContributorsWordQuery", "contributors_queries_word.csv"),
    ("cqlContributorsTwoWordQuery", "contributors_queries_2_words.csv"),
    ("cqlFilterSentenceQuery", "filter_queries_sentence.csv"),
    ("cqlFilterLanguageQuery", "filter_queries_languages.csv"),
    ("cqlKeywordQuery", "keyword_queries.csv"),
    ("cqlSubjectQuery", "subject_queries.csv"),
    ("cqlTitleSentenceQuery", "title_queries_sentence3words.csv"),
];

/// Where FOLIO's search workload is looked for when `--workload` is not given: the
/// project's shared reference directory, beside the checkout.
pub fn default_workload_dir() -> Option<PathBuf> {
    let candidates = [
        PathBuf::from("../shared/reference/ptf-search-workload"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/reference/ptf-search-workload"),
    ];
    candidates.into_iter().find(|p| p.join("requests.tsv").is_file())
}

/// Reads FOLIO's search workload: `requests.tsv` and the word files.
pub fn search_workload(dir: &Path) -> anyhow::Result<Workload> {
    let tsv = std::fs::read_to_string(dir.join("requests.tsv"))
        .with_context(|| format!("reading {}/requests.tsv", dir.display()))?;
    let mut requests = Vec::new();
    for (idx, line) in tsv.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let (name, path) = line
            .split_once('\t')
            .with_context(|| format!("requests.tsv line {}: no tab", idx + 1))?;
        requests.push(RequestTemplate {
            name: name.to_string(),
            method: reqwest::Method::GET,
            path: path.to_string(),
            body: None,
        });
    }
    let mut values = HashMap::new();
    for (variable, file) in SEARCH_VARIABLES {
        let text = std::fs::read_to_string(dir.join(file))
            .with_context(|| format!("reading {}/{file}", dir.display()))?;
        let lines: Vec<String> =
            text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect();
        anyhow::ensure!(!lines.is_empty(), "{file} is empty");
        values.insert(variable.to_string(), lines);
    }
    Ok(Workload { requests, values })
}

/// The MARC searches of baselines section 2.
pub fn marc_search_workload() -> Workload {
    let request = |name: &str, body: &str| RequestTemplate {
        name: name.to_string(),
        method: reqwest::Method::POST,
        path: "/source-storage/stream/marc-record-identifiers".to_string(),
        body: Some(body.to_string()),
    };
    Workload {
        requests: vec![
            request("1: p_05 = 'd'", r#"{"leaderSearchExpression": "p_05 = 'd'"}"#),
            request(
                "2: p_05 = 'd', deleted and suppressed",
                r#"{"leaderSearchExpression": "p_05 = 'd'", "deleted": true, "suppressFromDiscovery": true}"#,
            ),
            request(
                "4: p_05 = 'd' and 005 date range",
                r#"{"leaderSearchExpression": "p_05 = 'd'", "fieldsSearchExpression": "005.date in '20141106-20231108'", "deleted": true, "suppressFromDiscovery": true}"#,
            ),
        ],
        values: HashMap::new(),
    }
}

/// The instance-UUID export: every instance id matching a query, streamed.
pub fn export_ids_workload() -> Workload {
    Workload {
        requests: vec![RequestTemplate {
            name: "GET /instance-bulk/ids (all instances)".to_string(),
            method: reqwest::Method::GET,
            path: "/instance-bulk/ids?query=cql.allRecords=1&limit=2147483647".to_string(),
            body: None,
        }],
        values: HashMap::new(),
    }
}

impl Workload {
    /// The path of the `n`th use of a template by a virtual user: each variable takes
    /// the next value of its file, round-robin, starting at an offset per user so users
    /// do not send identical sequences.
    pub fn render(&self, template: &RequestTemplate, cursor: usize) -> String {
        let mut out = String::with_capacity(template.path.len() + 32);
        let mut rest = template.path.as_str();
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let Some(end) = rest[start..].find('}') else { break };
            let variable = &rest[start + 2..start + end];
            match self.values.get(variable) {
                Some(values) => out.push_str(&values[cursor % values.len()]),
                None => out.push_str(&rest[start..start + end + 1]),
            }
            rest = &rest[start + end + 1..];
        }
        out.push_str(rest);
        encode_query(&out)
    }
}

/// Percent-encodes what a browser would in a query string (spaces, quotes, `*`, ...),
/// leaving the structure characters `?`, `&` and `=` between parameters alone.
pub fn encode_query(path: &str) -> String {
    let Some((base, query)) = path.split_once('?') else { return path.to_string() };
    let mut out = String::with_capacity(path.len() + 16);
    out.push_str(base);
    out.push('?');
    for (idx, pair) in query.split('&').enumerate() {
        if idx > 0 {
            out.push('&');
        }
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        out.push_str(key);
        out.push('=');
        for b in value.bytes() {
            match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    out.push(b as char)
                }
                _ => out.push_str(&format!("%{b:02X}")),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_round_robin_and_encodes() {
        let workload = Workload {
            requests: Vec::new(),
            values: HashMap::from([(
                "w".to_string(),
                vec!["fusion".to_string(), "in transit".to_string()],
            )]),
        };
        let t = RequestTemplate {
            name: "t".into(),
            method: reqwest::Method::GET,
            path: "/search/instances?query=title all *${w}&limit=100".into(),
            body: None,
        };
        assert_eq!(
            workload.render(&t, 0),
            "/search/instances?query=title%20all%20%2Afusion&limit=100"
        );
        assert_eq!(
            workload.render(&t, 3),
            "/search/instances?query=title%20all%20%2Ain%20transit&limit=100"
        );
    }

    #[test]
    fn reads_folio_search_workload() {
        let Some(dir) = default_workload_dir() else {
            panic!("the shared PTF workload is beside the checkout");
        };
        let workload = search_workload(&dir).unwrap();
        assert_eq!(workload.requests.len(), 44);
        for template in &workload.requests {
            let path = workload.render(template, 5);
            assert!(!path.contains("${"), "unfilled variable in {path}");
        }
    }
}
