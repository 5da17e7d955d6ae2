//! A tenant's cache of its small, rarely changed tables ([`RecordTable::cached`]):
//! reference data, policies, circulation rules, patron groups.
//!
//! A check-out reads about a dozen such records (its service point, three policies,
//! the item's location and material type, the patron's group, the rules, ...). On
//! PostgreSQL each read is a round trip made while the tenant's write lock is held, and
//! those round trips were about half of a desk transaction's.
//!
//! Every write to a cached table also increments a counter in the tenant's store (the named
//! counter [`GENERATION`], `Writer::next_sequence`), in the same transaction. A transaction
//! reads the counter once, at its first cached read, and the cache answers only for the
//! counter value its entries were read under: two snapshots that see the same value see the
//! same cached tables. So a change made anywhere (this process, a CLI command beside it,
//! another node on the same PostgreSQL database) is seen as soon as it is committed, as
//! without the cache. A transaction that wrote a cached table itself reads past the cache
//! until it ends, since its own writes are not yet everyone's. The writes that do not go
//! through the record layer come before any cached read of the tenant: its migrations, and
//! `quire tenant move`'s copy into a tenant it has just created.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::{RecordTable, Result, StoredRecord};

macro_rules! generation {
    () => {
        "store.cached_tables"
    };
}

/// The `sequences` row counting the writes to cached tables.
pub(crate) const GENERATION: &str = generation!();

/// The counter's value, as a scalar subquery (no row before the first write).
pub(crate) const READ_GENERATION: &str =
    concat!("SELECT value FROM sequences WHERE name = '", generation!(), "'");

/// Entries past which the cache starts over: the cached tables are small, but a lookup
/// by a value (a configuration entry by user) may vary without bound.
const MAX_ENTRIES: usize = 20_000;

/// What one cached read answered.
#[derive(Clone)]
pub(crate) enum Entry {
    Record(Option<StoredRecord>),
    Column(Option<Option<String>>),
    Records(Vec<StoredRecord>),
}

/// The cache a tenant's transactions share.
#[derive(Default)]
pub(crate) struct TableCache {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    // The counter value the entries were read under; `None` before the first.
    generation: Option<i64>,
    entries: HashMap<(&'static str, String), Entry>,
}

impl TableCache {
    fn get(&self, generation: i64, key: &(&'static str, String)) -> Option<Entry> {
        let state = self.state.lock().unwrap();
        if state.generation != Some(generation) {
            return None;
        }
        state.entries.get(key).cloned()
    }

    fn put(&self, generation: i64, key: (&'static str, String), entry: Entry) {
        let mut state = self.state.lock().unwrap();
        match state.generation {
            // A transaction on an older snapshot than the cache's: it keeps its reads.
            Some(current) if current > generation => return,
            Some(current) if current == generation && state.entries.len() < MAX_ENTRIES => {}
            _ => {
                state.generation = Some(generation);
                state.entries.clear();
            }
        }
        state.entries.insert(key, entry);
    }
}

/// One transaction's use of the cache.
pub(crate) struct TxCache {
    shared: Arc<TableCache>,
    // The counter as this transaction sees it, once read.
    generation: Cell<Option<i64>>,
    // Whether this transaction wrote a cached table.
    wrote: Cell<bool>,
}

impl TxCache {
    pub(crate) fn new(shared: &Arc<TableCache>) -> TxCache {
        TxCache { shared: shared.clone(), generation: Cell::new(None), wrote: Cell::new(false) }
    }

    /// Notes that the transaction wrote a cached table.
    pub(crate) fn wrote(&self) {
        self.wrote.set(true);
    }

    /// The entry for `key` of `table`: the cache's, or `load`'s, kept for the next
    /// transaction. `generation` reads the counter in this transaction.
    pub(crate) fn through(
        &self,
        table: &RecordTable,
        key: String,
        generation: impl FnOnce() -> Result<i64>,
        load: impl FnOnce() -> Result<Entry>,
    ) -> Result<Entry> {
        if self.wrote.get() {
            return load();
        }
        let generation = match self.generation.get() {
            Some(generation) => generation,
            None => {
                let read = generation()?;
                self.generation.set(Some(read));
                read
            }
        };
        let key = (table.table, key);
        if let Some(entry) = self.shared.get(generation, &key) {
            return Ok(entry);
        }
        let entry = load()?;
        self.shared.put(generation, key, entry.clone());
        Ok(entry)
    }
}

#[cfg(test)]
mod tests {
    use crate::fixtures::{COMPONENT, KINDS, tenant};
    use crate::{ColumnValue, Error, Store, Tenant};

    fn put(tenant: &Tenant, id: &str, name: &str) {
        let body = format!(r#"{{"name":"{name}"}}"#);
        let columns = [ColumnValue::Text(name.to_string())];
        tenant.write(|w| w.upsert(&KINDS, id, 1, &body, &columns)).unwrap();
    }

    /// The body, the `name` column and the records found by name, as one read sees them.
    fn seen(tenant: &Tenant, id: &str, name: &str) -> (Option<String>, Option<String>, usize) {
        tenant
            .read(|r| {
                Ok::<_, Error>((
                    r.get(&KINDS, id)?.map(|k| k.body),
                    r.get_column(&KINDS, id, "name")?.flatten(),
                    r.find_by(&KINDS, "name", name)?.len(),
                ))
            })
            .unwrap()
    }

    /// Changes a kind behind the record layer, as nothing but a test does: the write is
    /// not counted.
    fn change_uncounted(tenant: &Tenant, id: &str, name: &str) {
        tenant
            .write(|w| {
                let body = format!(r#"{{"name":"{name}"}}"#);
                w.tx().execute(
                    "UPDATE kinds SET body = ?1, name = ?2 WHERE id = ?3",
                    &[body.as_str().into(), name.into(), id.into()],
                )
            })
            .unwrap();
    }

    #[test]
    fn reads_are_answered_from_the_cache_until_a_counted_write() {
        let (_dir, tenant) = tenant();
        put(&tenant, "k1", "one");
        let one = (Some(r#"{"name":"one"}"#.to_string()), Some("one".to_string()), 1);
        assert_eq!(seen(&tenant, "k1", "one"), one);
        // The cache answers: the change it was not told of is not seen.
        change_uncounted(&tenant, "k1", "two");
        assert_eq!(seen(&tenant, "k1", "one"), one);
        assert!(tenant.read(|r| r.exists(&KINDS, "k1")).unwrap());
        // Any write to the table, of any record, is counted, and the next read sees all.
        put(&tenant, "k2", "other");
        let two = (Some(r#"{"name":"two"}"#.to_string()), Some("two".to_string()), 0);
        assert_eq!(seen(&tenant, "k1", "one"), two);
        assert_eq!(seen(&tenant, "k1", "two").2, 1);
    }

    #[test]
    fn a_write_through_another_process_is_seen_at_once() {
        // Two stores on one database, as a server and a CLI command beside it on SQLite,
        // or two nodes on PostgreSQL.
        let options = crate::testing::options();
        let dir = tempfile::tempdir().unwrap();
        let here = Store::open(dir.path(), options.clone(), &[COMPONENT]).unwrap();
        let (here, _) = here.create_tenant("t").unwrap();
        let there = Store::open(dir.path(), options, &[COMPONENT]).unwrap();
        let there = there.tenant("t").unwrap();
        put(&here, "k1", "one");
        assert_eq!(seen(&here, "k1", "one").1.as_deref(), Some("one"));
        put(&there, "k1", "two");
        assert_eq!(seen(&here, "k1", "two").1.as_deref(), Some("two"));
        // And a write's own reads, from the cache of the process that writes.
        let read = here.write(|w| w.get_column(&KINDS, "k1", "name")).unwrap();
        assert_eq!(read.flatten().as_deref(), Some("two"));
    }

    #[test]
    fn a_transaction_reads_its_own_writes_and_a_rolled_back_one_leaves_no_trace() {
        let (_dir, tenant) = tenant();
        put(&tenant, "k1", "one");
        assert_eq!(seen(&tenant, "k1", "one").1.as_deref(), Some("one"));
        let failed: crate::Result<()> = tenant.write(|w| {
            let columns = [ColumnValue::Text("two".into())];
            w.update(&KINDS, "k1", 2, r#"{"name":"two"}"#, &columns)?;
            assert_eq!(w.get_column(&KINDS, "k1", "name")?.flatten().as_deref(), Some("two"));
            assert_eq!(w.find_by(&KINDS, "name", "two")?.len(), 1);
            Err(Error::Database("given up".into()))
        });
        assert!(failed.is_err());
        assert_eq!(seen(&tenant, "k1", "one").1.as_deref(), Some("one"));
        // The count went back with the write: the cache's entries still hold, and a
        // later write counts past them.
        put(&tenant, "k1", "three");
        assert_eq!(seen(&tenant, "k1", "three").1.as_deref(), Some("three"));
    }
}
