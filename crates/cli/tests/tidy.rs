//! Keeps the crate graph the shape `docs/architecture.md` describes: the graph there is
//! read and compared with the manifests, so neither can drift from the other.

use std::collections::BTreeMap;

use serde_json::Value;

/// Each workspace crate and the workspace crates and external crates it depends on
/// (normal dependencies only).
fn graph() -> BTreeMap<String, Vec<String>> {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let metadata: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut graph = BTreeMap::new();
    for package in metadata["packages"].as_array().unwrap() {
        let deps = package["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].is_null())
            .map(|d| d["name"].as_str().unwrap().to_string())
            .collect();
        graph.insert(package["name"].as_str().unwrap().to_string(), deps);
    }
    graph
}

/// The graph in `docs/architecture.md`'s code map: `name -> a, b` or `name (no Quire
/// deps)` per line, names without the `quire-` prefix.
fn documented_graph() -> BTreeMap<String, Vec<String>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/architecture.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let map = doc.split("## Code map").nth(1).expect("a code map section");
    let block = map.split("```").nth(1).expect("the graph in a code block");
    block
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (name, deps) = match line.split_once("->") {
                Some((name, deps)) => {
                    let mut deps: Vec<String> =
                        deps.split(',').map(|d| format!("quire-{}", d.trim())).collect();
                    deps.sort();
                    (name, deps)
                }
                None => (line.split('(').next().unwrap_or(line), Vec::new()),
            };
            (format!("quire-{}", name.trim()), deps)
        })
        .collect()
}

#[test]
fn crate_graph_follows_the_architecture() {
    let graph = graph();
    let mut actual = BTreeMap::new();
    for (name, deps) in &graph {
        let mut quire: Vec<String> =
            deps.iter().filter(|d| d.starts_with("quire-")).cloned().collect();
        quire.sort();
        actual.insert(name.clone(), quire);
    }
    assert_eq!(documented_graph(), actual, "docs/architecture.md's graph against the manifests");
    for (name, deps) in &graph {
        if name != "quire-cli" {
            assert!(
                !deps.iter().any(|d| d == "quire-server" || d == "quire-cli"),
                "{name} depends on server or cli"
            );
        }
        // The edges (HTTP and the page it serves, Kafka, the binary) and the workload
        // crates (the generator, the harness) may use tokio and anyhow; the domain crates
        // may not. The store drives PostgreSQL's sockets on a tokio runtime of its own,
        // behind its blocking API.
        let is_domain = !matches!(
            name.as_str(),
            "quire-server"
                | "quire-web"
                | "quire-events"
                | "quire-cli"
                | "quire-load"
                | "quire-generate"
        );
        if is_domain {
            for forbidden in ["axum", "tokio", "tower", "anyhow"] {
                if forbidden == "tokio" && name == "quire-store" {
                    continue;
                }
                assert!(
                    !deps.iter().any(|d| d == forbidden),
                    "domain crate {name} depends on {forbidden}"
                );
            }
        }
        if name != "quire-store" {
            for database in ["rusqlite", "tokio-postgres", "postgres"] {
                assert!(
                    !deps.iter().any(|d| d == database),
                    "{name} uses {database} directly; only store may"
                );
            }
        }
    }
}
