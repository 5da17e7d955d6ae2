//! FOLIO's own queries: the mod-search load-test mix (baselines section 1,
//! `shared/reference/ptf-search-workload`) and mod-search's conformance
//! queries. Shared with `benches/parse.rs`.

use std::fs;
use std::path::{Path, PathBuf};

fn reference_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/reference")
}

/// The CSV file behind each `${variable}` of `requests.tsv`.
const VARIABLES: &[(&str, &str)] = &[
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

fn lines(path: &Path) -> Vec<String> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|line| line.trim_end_matches('\r').to_owned())
        .filter(|line| !line.is_empty())
        .collect()
}

/// The load-test queries: every request template of `requests.tsv` with its
/// `${variable}` replaced by values of the variable's word file, taken in
/// order from a position chosen by `seed`, at most `per_template` of them
/// (`usize::MAX` for every value). `keyword_queries.csv`, whole queries that
/// no template uses, is added likewise.
pub(crate) fn load_test_queries(per_template: usize, seed: u64) -> Vec<String> {
    let dir = reference_dir().join("ptf-search-workload");
    let mut templates: Vec<String> = lines(&dir.join("requests.tsv"))
        .iter()
        .skip(1)
        .map(|line| {
            let path = line.split('\t').nth(1).expect("name<TAB>path");
            let query = &path[path.find("query=").expect("a query parameter") + "query=".len()..];
            query.split('&').next().unwrap().to_owned()
        })
        .collect();
    templates.push("${cqlKeywordQuery}".to_owned());
    let mut queries = Vec::new();
    for (i, template) in templates.iter().enumerate() {
        // The first variable's values are walked; any other variable (one
        // template has two) takes the value on the same row of its file.
        let variables: Vec<(String, Vec<String>)> = VARIABLES
            .iter()
            .filter(|(variable, _)| template.contains(&format!("${{{variable}}}")))
            .map(|(variable, file)| (format!("${{{variable}}}"), lines(&dir.join(file))))
            .collect();
        assert!(!variables.is_empty(), "no known variable in {template}");
        let n_values = variables[0].1.len();
        let start = (seed as usize).wrapping_add(i * 7919);
        for row in (start..).take(per_template.min(n_values)) {
            let mut query = template.clone();
            for (placeholder, values) in &variables {
                query = query.replace(placeholder, &values[row % values.len()]);
            }
            assert!(!query.contains("${"), "unfilled variable in {query}");
            queries.push(query);
        }
    }
    queries
}

/// mod-search's conformance queries (`instance-search-test-queries.csv`):
/// each query template with its value filled in.
pub(crate) fn conformance_queries() -> Vec<String> {
    let path = reference_dir().join("mod-search-conformance/instance-search-test-queries.csv");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut queries = Vec::new();
    for record in csv_records(&text).into_iter().skip(1) {
        let [_, template, value, ..] = record.as_slice() else { panic!("short record {record:?}") };
        queries.push(template.replace("{value}", value));
    }
    queries
}

/// RFC 4180 records: `"` quotes a field, `""` is a quote inside one.
fn csv_records(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    records
}
