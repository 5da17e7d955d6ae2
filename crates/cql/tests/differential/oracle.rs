//! Running the YAZ oracle (`shared/tools/cql2xcql.c`): all queries through
//! one process, one a line, answers framed by `----` lines.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// YAZ's XCQL for each query, or `None` where YAZ printed `ERROR <code>`.
pub(crate) fn run(oracle: &Path, queries: &[String]) -> Vec<Option<String>> {
    for query in queries {
        assert!(
            !query.contains(['\n', '\r', '\0']) && query.len() < 65_000,
            "unframeable query {query:?}"
        );
    }
    let mut child = Command::new(oracle)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run the YAZ oracle {}: {e}", oracle.display()));
    let mut stdin = child.stdin.take().unwrap();
    let input: String = queries.iter().flat_map(|q| [q.as_str(), "\n"]).collect();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let mut answers = Vec::with_capacity(queries.len());
    let mut current = String::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.expect("the oracle writes UTF-8 when given UTF-8");
        if line == "----" {
            let answer = std::mem::take(&mut current);
            answers.push(if answer.starts_with("ERROR ") { None } else { Some(answer) });
        } else {
            current.push_str(&line);
            current.push('\n');
        }
    }
    writer.join().unwrap().expect("writing queries to the oracle");
    assert!(child.wait().unwrap().success(), "the oracle failed");
    assert_eq!(answers.len(), queries.len(), "one answer per query");
    answers
}
