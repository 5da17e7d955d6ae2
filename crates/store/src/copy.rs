//! Copying a tenant between stores (SQLite to PostgreSQL and back), table by table with
//! its change log, checked by each table's row count and checksum: for the library that
//! outgrows its machine, or moves back.
//!
//! The copy works below the record layer: every table of the tenant's schema, whatever
//! component made it, row for row, so the target holds what the source held, change
//! log, counters, jobs and sessions included, and followers on the target start from the
//! same sequence numbers.

use std::sync::Arc;

use crate::{
    ColumnValue, Error, Result, Store, Tenant,
    sql::{Dialect, Param, Tx},
};

/// One table of a copied tenant: its rows, and a checksum of their values that does not
/// depend on their order (the databases store them in different orders).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSum {
    pub table: String,
    pub rows: u64,
    pub checksum: u64,
}

/// Rows read or written at a time; each target transaction writes this many rows.
const BATCH: usize = 500;

/// The table that records which migrations ran: the target made its own, and the two
/// stores run the same program, so it is compared, not copied.
const MIGRATIONS_TABLE: &str = "schema_migrations";

impl Store {
    /// Copies tenant `name` from this store into `to`, which must not hold it yet, and
    /// checks the copy: every table's row count and checksum, read back from the
    /// target, equal the source's. Both stores must be opened with the same components.
    /// Returns the source's sums. The source is left as it was.
    pub fn copy_tenant(&self, name: &str, to: &Store) -> Result<Vec<TableSum>> {
        let source = self.tenant(name)?;
        if to.tenant(name).is_ok() {
            return Err(Error::Copy(format!("the target already holds a tenant {name}")));
        }
        let (target, _) = to.create_tenant(name)?;
        let tables = source.read(|r| tables(r.tx()))?;
        let mut sums = Vec::with_capacity(tables.len());
        for (table, columns) in &tables {
            let copied = copy_table(&source, &target, table, columns)?;
            tracing::info!(tenant = name, table, rows = copied.rows, "copied");
            sums.push(copied);
        }
        let last = target.write(|w| {
            let tx = w.tx();
            if tx.dialect() == Dialect::Postgres {
                // Rows came with their sequence numbers; the next one follows them.
                tx.query_one(
                    "SELECT setval(pg_get_serial_sequence('change_log', 'seq'), \
                     GREATEST((SELECT MAX(seq) FROM change_log), 1))",
                    &[],
                    |_| Ok(()),
                )?;
            }
            w.last_seq_stored()
        })?;
        target.note_commit(last);
        for (sum, (table, columns)) in sums.iter().zip(&tables) {
            let check = sum_table(&target, table, columns)?;
            if check != *sum {
                return Err(Error::Copy(format!(
                    "table {table}: {} rows (checksum {:016x}) in the source, {} ({:016x}) in the target",
                    sum.rows, sum.checksum, check.rows, check.checksum
                )));
            }
        }
        let migrations = |t: &Arc<Tenant>| {
            t.read(|r| {
                r.tx().query(
                    "SELECT component, version FROM schema_migrations ORDER BY 1, 2",
                    &[],
                    |row| Ok((row.text(0)?, row.int(1)?)),
                )
            })
        };
        if migrations(&source)? != migrations(&target)? {
            return Err(Error::Copy("the two stores' schemas are at different versions".into()));
        }
        Ok(sums)
    }
}

/// The tenant's tables and their columns, in the source's order, but the migrations'.
fn tables(tx: Tx<'_>) -> Result<Vec<(String, Vec<String>)>> {
    let names = match tx.dialect() {
        Dialect::Sqlite => tx.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
            &[],
            |row| row.text(0),
        )?,
        Dialect::Postgres => tx.query(
            "SELECT table_name::text FROM information_schema.tables \
             WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
            &[],
            |row| row.text(0),
        )?,
    };
    let mut tables = Vec::new();
    for name in names.into_iter().filter(|n| n != MIGRATIONS_TABLE) {
        let columns = match tx.dialect() {
            Dialect::Sqlite => {
                tx.query(&format!("PRAGMA table_info({name})"), &[], |row| row.text(1))?
            }
            Dialect::Postgres => tx.query(
                "SELECT column_name::text FROM information_schema.columns \
                 WHERE table_schema = current_schema() AND table_name = ?1 ORDER BY ordinal_position",
                &[name.as_str().into()],
                |row| row.text(0),
            )?,
        };
        tables.push((name, columns));
    }
    Ok(tables)
}

/// Copies one table in batches, each written in a transaction of its own, and sums what
/// it read.
fn copy_table(
    source: &Tenant,
    target: &Tenant,
    table: &str,
    columns: &[String],
) -> Result<TableSum> {
    let mut sum = TableSum { table: table.to_string(), rows: 0, checksum: 0 };
    let insert = |rows: &[Vec<ColumnValue>]| -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        target.write(|w| {
            let mut sql = format!("INSERT INTO {table} ({}) VALUES ", columns.join(", "));
            let mut params: Vec<Param<'_>> = Vec::with_capacity(rows.len() * columns.len());
            for (i, row) in rows.iter().enumerate() {
                sql.push_str(if i == 0 { "(" } else { ", (" });
                for (j, value) in row.iter().enumerate() {
                    params.push(value.param());
                    sql.push_str(&format!("{}?{}", if j == 0 { "" } else { ", " }, params.len()));
                }
                sql.push(')');
            }
            w.tx().execute(&sql, &params).map(drop)
        })
    };
    let mut batch = Vec::with_capacity(BATCH);
    source.read_bulk(|r| {
        each_row(r.tx(), table, columns, &mut |row| {
            sum.add(&row);
            batch.push(row);
            if batch.len() == BATCH {
                insert(&batch)?;
                batch.clear();
            }
            Ok(())
        })
    })?;
    insert(&batch)?;
    Ok(sum)
}

/// Reads a table back and sums it.
fn sum_table(tenant: &Tenant, table: &str, columns: &[String]) -> Result<TableSum> {
    let mut sum = TableSum { table: table.to_string(), rows: 0, checksum: 0 };
    tenant.read_bulk(|r| {
        each_row(r.tx(), table, columns, &mut |row| {
            sum.add(&row);
            Ok(())
        })
    })?;
    Ok(sum)
}

/// Calls `f` with every row of `table` (its `columns`), a page at a time, without
/// holding the table in memory: by rowid on SQLite, through a cursor on PostgreSQL.
fn each_row(
    tx: Tx<'_>,
    table: &str,
    columns: &[String],
    f: &mut dyn FnMut(Vec<ColumnValue>) -> Result<()>,
) -> Result<()> {
    let n = columns.len();
    let values =
        |row: &crate::sql::Row<'_>| (0..n).map(|i| row.value(i)).collect::<Result<Vec<_>>>();
    match tx.dialect() {
        Dialect::Sqlite => {
            let sql = format!(
                "SELECT {}, rowid FROM {table} WHERE rowid > ?1 ORDER BY rowid LIMIT {BATCH}",
                columns.join(", ")
            );
            let mut after = i64::MIN;
            loop {
                let page =
                    tx.query(&sql, &[after.into()], |row| Ok((values(row)?, row.int(n)?)))?;
                let Some((_, last)) = page.last() else { return Ok(()) };
                after = *last;
                for (row, _) in page {
                    f(row)?;
                }
            }
        }
        Dialect::Postgres => {
            // A cursor named after its table: the FETCH is a prepared statement, kept by
            // its text with the columns it returns, so one name for every table would
            // answer one table's rows with another's columns.
            let cursor = format!("quire_copy_{table}");
            tx.batch(&format!(
                "DECLARE {cursor} NO SCROLL CURSOR FOR SELECT {} FROM {table}",
                columns.join(", ")
            ))?;
            loop {
                let page = tx.query(&format!("FETCH {BATCH} FROM {cursor}"), &[], values)?;
                if page.is_empty() {
                    break;
                }
                for row in page {
                    f(row)?;
                }
            }
            tx.batch(&format!("CLOSE {cursor}"))
        }
    }
}

impl TableSum {
    /// Adds a row: its values hashed (FNV-1a over a tagged form, so NULL, 1 and '1'
    /// differ), the hashes summed, so the order rows come in does not matter.
    fn add(&mut self, row: &[ColumnValue]) {
        let mut hash = crate::ids::FNV_START;
        let mut feed = |bytes: &[u8]| hash = crate::ids::fnv1a(hash, bytes);
        for value in row {
            match value {
                ColumnValue::Null => feed(b"N"),
                ColumnValue::Int(n) => {
                    feed(b"I");
                    feed(&n.to_le_bytes());
                }
                ColumnValue::Text(text) => {
                    feed(b"T");
                    feed(&(text.len() as u64).to_le_bytes());
                    feed(text.as_bytes());
                }
            }
        }
        self.rows += 1;
        self.checksum = self.checksum.wrapping_add(hash);
    }
}

#[cfg(test)]
mod tests {
    use crate::{
        ColumnValue, Options, Store,
        fixtures::{COMPONENT, PAIRS, THINGS},
    };

    /// A tenant copied SQLite to PostgreSQL and back holds the same rows, change log
    /// and counters, and writes go on from the same sequence number.
    #[test]
    fn a_tenant_round_trips_between_the_backends() {
        let Some(_) = crate::testing::postgres_url() else { return };
        let (one, two, three) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        let sqlite = Store::open(one.path(), Options::default(), &[COMPONENT]).unwrap();
        let (tenant, _) = sqlite.create_tenant("lib").unwrap();
        tenant
            .write(|w| {
                for n in 0..1234 {
                    let parent = if n % 3 == 0 {
                        ColumnValue::Null
                    } else {
                        ColumnValue::Text(format!("p{n}"))
                    };
                    w.insert(
                        &THINGS,
                        &format!("id{n:05}"),
                        n,
                        &format!(r#"{{"n":{n},"t":"ü'\""}}"#),
                        &[parent],
                    )?;
                }
                w.insert(
                    &PAIRS,
                    "x",
                    1,
                    "{}",
                    &[ColumnValue::Text("k".into()), ColumnValue::Text("open".into())],
                )?;
                w.delete(&THINGS, "id00007")?;
                w.next_sequence("hrid", 100).map(drop)
            })
            .unwrap();
        let last = tenant.last_seq().unwrap();

        let postgres = Store::open(two.path(), crate::testing::options(), &[COMPONENT]).unwrap();
        let there = sqlite.copy_tenant("lib", &postgres).unwrap();
        assert!(there.iter().any(|s| s.table == "things" && s.rows == 1233), "{there:?}");
        let back = Store::open(three.path(), Options::default(), &[COMPONENT]).unwrap();
        let again = postgres.copy_tenant("lib", &back).unwrap();
        assert_eq!(there, again);
        assert!(sqlite.copy_tenant("lib", &postgres).is_err(), "the target holds it already");

        for store in [&postgres, &back] {
            let tenant = store.tenant("lib").unwrap();
            assert_eq!(tenant.last_seq().unwrap(), last);
            let (seq, hrid) = tenant
                .write(|w| {
                    w.insert(&THINGS, "new", 1, "{}", &[ColumnValue::Null])?;
                    Ok::<_, crate::Error>((w.last_seq_stored()?, w.next_sequence("hrid", 100)?))
                })
                .unwrap();
            assert_eq!((seq, hrid), (last + 1, 101));
            let found = tenant.read(|r| r.get(&THINGS, "id00042")).unwrap().unwrap();
            assert_eq!(found.body, r#"{"n":42,"t":"ü'\""}"#);
        }
    }
}
