//! The store a test runs on, for the tests of every crate. Without `QUIRE_TEST_POSTGRES`
//! it is SQLite, in the test's own directory. With it set to a PostgreSQL server's URL
//! (`scripts/test.sh` starts a throwaway cluster and sets it for its PostgreSQL pass),
//! each call makes a database of its own on that server, so tests running at once never
//! see each other's tenants.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{Backend, Options};

/// The variable naming the PostgreSQL server tests run on.
pub const POSTGRES_VARIABLE: &str = "QUIRE_TEST_POSTGRES";

/// Default storage options on the backend the suite runs on (a fresh database each
/// call, on PostgreSQL).
pub fn options() -> Options {
    match postgres_url() {
        Some(url) => Options {
            backend: Backend::Postgres { url: fresh_database(&url) },
            ..Options::default()
        },
        None => Options::default(),
    }
}

/// The server tests run on, if they run on PostgreSQL.
pub fn postgres_url() -> Option<String> {
    std::env::var(POSTGRES_VARIABLE).ok().filter(|url| !url.is_empty())
}

/// Creates an empty database on the server at `url` and returns its URL.
pub fn fresh_database(url: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let name = format!(
        "quire_test_{}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos())
    );
    let pool = crate::postgres::Pool::connect(url, 1)
        .unwrap_or_else(|e| panic!("{POSTGRES_VARIABLE}={url}: {e}"));
    let session = pool.get().expect("a connection");
    session.batch(&format!("CREATE DATABASE {name}")).expect("a test database");
    // postgresql://user@host:port/database?options: the database is the path.
    let (base, query) = url.split_once('?').map_or((url, None), |(b, q)| (b, Some(q)));
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let host_end = base[scheme_end..].find('/').map_or(base.len(), |i| scheme_end + i);
    let mut fresh = format!("{}/{name}", &base[..host_end]);
    if let Some(query) = query {
        fresh.push('?');
        fresh.push_str(query);
    }
    fresh
}
