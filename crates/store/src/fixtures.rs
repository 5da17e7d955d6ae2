//! Tables and a tenant for the crate's unit tests. Each table is defined once here:
//! the SQL written for a table is cached per table name for the whole process, so two
//! tests may not define one table two ways.

use std::sync::Arc;

use crate::{Component, Migration, Options, RecordTable, Store, Tenant};

pub(crate) const THINGS: RecordTable =
    RecordTable { table: "things", record_type: "thing", cached: false, columns: &["parent"] };

pub(crate) const PAIRS: RecordTable =
    RecordTable { table: "pairs", record_type: "pair", cached: false, columns: &["a", "b"] };

/// A table whose changes are of a record type the log indexes by record
/// ([`crate::HISTORY_TYPES`]).
pub(crate) const TITLES: RecordTable =
    RecordTable { table: "titles", record_type: "instance", cached: false, columns: &[] };

/// A table read through the tenant's cache.
pub(crate) const KINDS: RecordTable =
    RecordTable { table: "kinds", record_type: "kind", cached: true, columns: &["name"] };

pub(crate) const COMPONENT: Component = Component {
    name: "test",
    migrations: &[Migration {
        version: 1,
        description: "things, pairs with a partial index, titles and kinds",
        sql: "CREATE TABLE things (id TEXT PRIMARY KEY, version INTEGER NOT NULL, \
              body TEXT NOT NULL, parent TEXT); CREATE INDEX things_parent ON things (parent); \
              CREATE TABLE pairs (id TEXT PRIMARY KEY, version INTEGER NOT NULL, \
              body TEXT NOT NULL, a TEXT, b TEXT); \
              CREATE UNIQUE INDEX pairs_open ON pairs (a) WHERE b = 'open'; \
              CREATE TABLE titles (id TEXT PRIMARY KEY, version INTEGER NOT NULL, \
              body TEXT NOT NULL); \
              CREATE TABLE kinds (id TEXT PRIMARY KEY, version INTEGER NOT NULL, \
              body TEXT NOT NULL, name TEXT);",
    }],
};

/// A tenant with the test tables, on the backend the suite runs on
/// ([`crate::testing::options`]), in a directory kept while the guard lives.
pub(crate) fn tenant() -> (tempfile::TempDir, Arc<Tenant>) {
    tenant_with(crate::testing::options())
}

/// The same on SQLite whatever the suite runs on, for what only SQLite has (its WAL,
/// its memory map).
pub(crate) fn sqlite_tenant() -> (tempfile::TempDir, Arc<Tenant>) {
    tenant_with(Options::default())
}

pub(crate) fn tenant_with(options: Options) -> (tempfile::TempDir, Arc<Tenant>) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), options, &[COMPONENT]).unwrap();
    let (tenant, _) = store.create_tenant("t").unwrap();
    (dir, tenant)
}

/// A map of a file in this process, as `/proc/self/smaps` lists it.
#[cfg(target_os = "linux")]
pub(crate) struct FileMap {
    /// Kibibytes of it in memory.
    pub(crate) rss_kib: u64,
    /// Advised random reads (`rr` among its flags).
    pub(crate) random: bool,
}

/// This process's maps of `path`, now.
#[cfg(target_os = "linux")]
pub(crate) fn maps_of(path: &std::path::Path) -> Vec<FileMap> {
    let path = path.to_string_lossy();
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let (mut maps, mut in_map, mut rss_kib) = (Vec::new(), false, 0);
    for line in smaps.lines() {
        if line.split_whitespace().nth(5).is_some_and(|name| name == path) {
            in_map = true;
        } else if let Some(kib) = line.strip_prefix("Rss:") {
            rss_kib = kib.trim().trim_end_matches("kB").trim().parse().unwrap();
        } else if let Some(flags) = line.strip_prefix("VmFlags:") {
            if in_map {
                let random = flags.split_whitespace().any(|flag| flag == "rr");
                maps.push(FileMap { rss_kib, random });
            }
            in_map = false;
        }
    }
    maps
}
