//! Keeps the crate graph the shape `docs/architecture.md` describes.

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

#[test]
fn crate_graph_follows_the_architecture() {
    let graph = graph();
    let quire_deps = |name: &str| -> Vec<&str> {
        graph[name].iter().filter(|d| d.starts_with("quire-")).map(String::as_str).collect()
    };
    assert_eq!(quire_deps("quire-limits"), Vec::<&str>::new(), "limits is a leaf");
    assert_eq!(quire_deps("quire-cql"), ["quire-limits"], "cql needs only the query limits");
    assert_eq!(quire_deps("quire-marc"), Vec::<&str>::new(), "marc is a leaf");
    assert_eq!(quire_deps("quire-circ-rules"), ["quire-limits"]);
    assert_eq!(quire_deps("quire-store"), ["quire-cql"]);
    for (name, deps) in &graph {
        if name != "quire-cli" {
            assert!(
                !deps.iter().any(|d| d == "quire-server" || d == "quire-cli"),
                "{name} depends on server or cli"
            );
        }
        // The edges and the workload crate run async code and may use anyhow; the
        // domain crates may not.
        let is_domain =
            !matches!(name.as_str(), "quire-server" | "quire-cli" | "quire-load" | "quire-jobs");
        if is_domain {
            for forbidden in ["axum", "tokio", "tower", "anyhow"] {
                assert!(
                    !deps.iter().any(|d| d == forbidden),
                    "domain crate {name} depends on {forbidden}"
                );
            }
        }
        if name != "quire-store" {
            assert!(
                !deps.iter().any(|d| d == "rusqlite"),
                "{name} uses SQLite directly; only store may"
            );
        }
    }
}
