//! The binary on PostgreSQL: `--store`, several nodes on one database, and `quire
//! tenant move` between the backends.
//! They need a server: `scripts/test.sh` runs this file with `QUIRE_TEST_POSTGRES` set
//! to a throwaway cluster's URL; without it they say they are skipped.

use std::{process::Command, time::Duration};

use serde_json::{Value, json};

mod support;

use support::{QUIRE, Server, quire};

fn postgres() -> Option<String> {
    let url = store::testing::postgres_url().map(|url| store::testing::fresh_database(&url));
    if url.is_none() {
        eprintln!("skipped: needs PostgreSQL (QUIRE_TEST_POSTGRES)");
    }
    url
}

fn run(args: &[&str]) -> String {
    let out = Command::new(QUIRE).args(args).env("QUIRE_LOG", "warn").output().unwrap();
    assert!(out.status.success(), "quire {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The table lines of `tenant move`'s report: name, rows and checksum.
fn sums(report: &str) -> Vec<String> {
    report.lines().filter(|line| line.contains(" rows  checksum ")).map(String::from).collect()
}

/// A generated tenant moved SQLite -> PostgreSQL -> SQLite arrives with every table's
/// rows and checksum equal, and serves from each store; a second move onto a store
/// that holds it is refused.
#[test]
fn a_tenant_moves_to_postgresql_and_back() {
    let Some(url) = postgres() else { return };
    let (first, last) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let out = quire(&["generate", "--tenant", "lib", "--instances", "150"], first.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let first_dir = first.path().to_str().unwrap();
    let last_dir = last.path().to_str().unwrap();

    let there = run(&["tenant", "move", "lib", "--from", first_dir, "--to", &url]);
    let back = run(&["tenant", "move", "lib", "--from", &url, "--to", last_dir]);
    let (there, back) = (sums(&there), sums(&back));
    assert!(there.iter().any(|l| l.starts_with("items ")), "{there:?}");
    assert!(there.iter().any(|l| l.starts_with("change_log ")), "{there:?}");
    assert_eq!(there, back);

    assert_eq!(run(&["tenant", "list", "--store", &url]).trim(), "lib");
    assert_eq!(run(&["tenant", "list", "--data-dir", last_dir]).trim(), "lib");
    let again = Command::new(QUIRE)
        .args(["tenant", "move", "lib", "--from", first_dir, "--to", &url])
        .env("QUIRE_LOG", "warn")
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already holds a tenant lib"));
}

/// Three nodes on one database, an import started through node 1. The node running it
/// is killed with SIGKILL midway; another takes the job up once its lease runs out, and
/// it ends `COMMITTED` with every record once, searchable through both nodes left.
#[test]
fn an_import_whose_node_dies_is_finished_by_another() {
    const N: usize = 5_000;
    let Some(url) = postgres() else { return };
    let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let out = quire(
        &["tenant", "create", "imp", "--admin-password", "pw", "--store", &url],
        dirs[0].path(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut nodes: Vec<Option<Server>> =
        dirs.iter().map(|dir| Some(Server::start_with(dir.path(), &["--store", &url]))).collect();
    let token = nodes[0].as_ref().unwrap().login("imp", "pw");
    let call = |server: &Server, method: &str, path: &str| {
        ureq::request(method, &format!("{}{path}", server.url))
            .set("x-okapi-tenant", "imp")
            .set("x-okapi-token", &token)
    };
    let get = |server: &Server, path: &str| -> Value {
        call(server, "GET", path).call().unwrap().into_json().unwrap()
    };
    let health = |server: &Server| -> Value {
        ureq::get(&format!("{}/admin/health", server.url)).call().unwrap().into_json().unwrap()
    };

    let first = nodes[0].as_ref().unwrap();
    let job = first.start_import("imp", &token, "nodes.mrc", &support::numbered_marc(N, "node"));

    // The node holding the job's lease, once some chunks have committed and many remain.
    let lease = json!(format!("import:{job}"));
    let holder = loop {
        let holder = nodes.iter().position(|node| {
            let held = health(node.as_ref().unwrap())["replicas"]["imp"]["jobs"].clone();
            held.as_array().is_some_and(|jobs| jobs.contains(&lease))
        });
        let state = get(first, &format!("/change-manager/jobExecutions/{job}"));
        assert_ne!(state["status"], "COMMITTED", "the job ended before the kill");
        if let Some(holder) = holder
            && state["progress"]["current"].as_u64().unwrap() >= 500
        {
            break holder;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    nodes[holder].take().unwrap().kill();
    let left: Vec<&Server> = nodes.iter().flatten().collect();

    let ended = loop {
        let state = get(left[0], &format!("/change-manager/jobExecutions/{job}"));
        if state["status"] != "PARSING_IN_PROGRESS" {
            break state;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(ended["status"], "COMMITTED", "{ended}");
    assert_eq!(ended["progress"]["current"], N);
    let total = |server: &Server, path: &str| get(server, path)["totalRecords"].as_u64().unwrap();
    assert_eq!(total(left[0], "/instance-storage/instances?limit=0"), N as u64);
    assert_eq!(total(left[0], "/source-storage/records?limit=0"), N as u64);
    assert_eq!(
        total(left[0], &format!("/metadata-provider/jobLogEntries/{job}?limit=0")),
        N as u64
    );
    for node in &left {
        // Searched once this node's index has applied the whole log.
        while health(node)["replicas"]["imp"]["indexes"]["lag"] != 0 {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(total(node, "/search/instances?query=cql.allRecords%3D1&limit=0"), N as u64);
        assert!(health(node)["replicas"]["imp"]["jobs"].as_array().unwrap().is_empty());
    }
}

/// The pool's size is a setting, and the URL carries the timeouts (`connect_timeout`,
/// and `statement_timeout` among the session's `options`); a pool of none is refused,
/// and a server that is not there is reported as such.
#[test]
fn pool_size_and_timeouts_are_settings() {
    let Some(url) = postgres() else { return };
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().to_str().unwrap();
    let tuned = format!("{url}?connect_timeout=5&options=-c%20statement_timeout%3D60000");
    run(&[
        "tenant",
        "create",
        "tuned",
        "--admin-password",
        "pw",
        "--store",
        &tuned,
        "--store-connections",
        "2",
        "--data-dir",
        dir,
    ]);
    assert_eq!(
        run(&["tenant", "list", "--store", &tuned, "--store-connections", "1"]).trim(),
        "tuned"
    );

    let refused = |args: &[&str]| {
        let out = Command::new(QUIRE).args(args).env("QUIRE_LOG", "warn").output().unwrap();
        assert!(!out.status.success(), "{args:?} succeeded");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let none = refused(&["tenant", "list", "--store", &url, "--store-connections", "0"]);
    assert!(none.contains("--store-connections must be at least 1"), "{none}");
    // Nothing listens on port 1.
    let away = refused(&[
        "tenant",
        "list",
        "--store",
        "postgresql://quire@127.0.0.1:1/quire?connect_timeout=2",
    ]);
    assert!(away.contains("cannot connect to PostgreSQL"), "{away}");
}
