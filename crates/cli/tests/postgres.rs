//! The binary on PostgreSQL: `--store`, and `quire tenant move` between the backends.
//! They need a server: `scripts/test.sh` runs this file with `QUIRE_TEST_POSTGRES` set
//! to a throwaway cluster's URL; without it they say they are skipped.

use std::process::Command;

mod support;

use support::{QUIRE, quire};

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
