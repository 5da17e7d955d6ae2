//! Generic JSON record tables and the read and write handles of a transaction.
//!
//! A record table has the columns `id TEXT PRIMARY KEY, version INTEGER NOT NULL,
//! body TEXT NOT NULL`, followed by the extracted columns its [`RecordTable`] names, which
//! the owning domain crate fills from its typed model. The body is the record's FOLIO JSON,
//! stored as sent back to clients, so a GET does no JSON work at all. Every statement
//! here is written once for both databases (`sql.rs`).

use std::ops::Deref;

use crate::{
    Change, Error, Operation, QueryField, Result,
    cache::{self, Entry, TxCache},
    changes::{Bodies, Publisher, RecordHistory, now},
    postgres::Ahead,
    query::{self, SqlQuery},
    sql::{Dialect, Param, Row, Tx},
};

/// A table of JSON records of one type, and the columns extracted from them.
#[derive(Debug, Clone, Copy)]
pub struct RecordTable {
    pub table: &'static str,
    /// The record type named in the change log, e.g. `instance`. Empty for a
    /// bookkeeping table no follower reads (an import's journal and cursors): its writes
    /// are not logged, which saves a row per write where there are many.
    pub record_type: &'static str,
    /// Whether reads of the table go through the tenant's cache (`cache`): for small
    /// tables that nearly every desk transaction reads and staff rarely change
    /// (reference data, policies, circulation rules, patron groups).
    pub cached: bool,
    /// Extracted columns, in the order values are passed to the write calls.
    pub columns: &'static [&'static str],
}

/// A value for an extracted column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnValue {
    Null,
    Text(String),
    Int(i64),
}

impl From<Option<String>> for ColumnValue {
    fn from(value: Option<String>) -> Self {
        value.map_or(ColumnValue::Null, ColumnValue::Text)
    }
}

impl From<Option<&str>> for ColumnValue {
    fn from(value: Option<&str>) -> Self {
        value.map_or(ColumnValue::Null, |s| ColumnValue::Text(s.to_string()))
    }
}

/// A record as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRecord {
    pub id: String,
    pub version: i64,
    /// The record's JSON document.
    pub body: String,
}

/// Which slice of a result list to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub offset: u64,
    pub limit: u64,
}

/// Reads within one transaction.
pub struct Reader<'a> {
    tx: Tx<'a>,
    // The tenant's cache of its cached tables, as this transaction uses it.
    cache: Option<&'a TxCache>,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(tx: Tx<'a>, cache: Option<&'a TxCache>) -> Reader<'a> {
        Reader { tx, cache }
    }

    /// `load`'s answer, or the cache's when `table` is cached.
    fn cached(
        &self,
        table: &RecordTable,
        key: impl FnOnce() -> String,
        load: impl FnOnce() -> Result<Entry>,
    ) -> Result<Entry> {
        match self.cache {
            Some(cache) if table.cached => cache.through(
                table,
                key(),
                || match self.tx.begun_generation() {
                    Some(generation) => Ok(generation),
                    None => Ok(self.sequence_value(cache::GENERATION)?.unwrap_or(0)),
                },
                load,
            ),
            _ => load(),
        }
    }

    /// The transaction's statement handle, for the store's own passes over whole
    /// tables (`copy`).
    pub(crate) fn tx(&self) -> Tx<'a> {
        self.tx
    }

    /// The records `read` names.
    pub fn records(&self, read: &Read<'_>) -> Result<Vec<StoredRecord>> {
        match *read {
            Read::Get(table, id) => Ok(self.get(table, id)?.into_iter().collect()),
            Read::NamedBy(table, named_by) => {
                Ok(self.get_named_by(table, named_by)?.into_iter().collect())
            }
            Read::Where(table, ref conditions, constants) => {
                self.find_where_const(table, conditions, constants)
            }
            Read::Via(ref key, then) => {
                let keys = self.tx.query(&key.sql(), &[key.value.into()], |row| row.opt_text(0))?;
                let mut records = Vec::new();
                for value in keys.into_iter().flatten() {
                    records.extend(self.records(&then(&value))?);
                }
                Ok(records)
            }
        }
    }

    /// How many answers read ahead wait to be taken.
    #[cfg(test)]
    pub(crate) fn prefetched(&self) -> usize {
        self.tx.prefetched()
    }

    /// Reads `reads` ahead of their use, together: on PostgreSQL one round trip for
    /// them all (and for the writes waiting to go), where each would be one when used;
    /// [`Reader::records`], or the reading method a `Read` names, then answers from
    /// what was read, once. A write to a table forgets what was read of it. Reads of
    /// cached tables are left to the cache. SQLite reads nothing ahead.
    pub fn prefetch(&self, reads: &[Read<'_>]) -> Result<()> {
        let cached = self.cache.is_some();
        self.tx.prefetch(|| reads.iter().filter_map(|read| ahead(read, cached)).collect())
    }

    /// The record with this id, if any.
    pub fn get(&self, table: &RecordTable, id: &str) -> Result<Option<StoredRecord>> {
        let entry = self.cached(
            table,
            || id.to_string(),
            || {
                let sql = get_sql(table);
                self.tx.query_opt(&sql, &[id.into()], stored_record).map(Entry::Record)
            },
        )?;
        match entry {
            Entry::Record(record) => Ok(record),
            _ => unreachable!("an id's entry is a record"),
        }
    }

    /// The record of `table` whose id the row `id` of `from` holds in `column` (the
    /// instance a holdings record names): one statement where [`Reader::get_column`]
    /// and then [`Reader::get`] are two, each a round trip on PostgreSQL. Read past the
    /// cache.
    pub fn get_named_by(
        &self,
        table: &RecordTable,
        (from, id, column): (&RecordTable, &str, &str),
    ) -> Result<Option<StoredRecord>> {
        self.tx.query_opt(&named_by_sql(table, from, column), &[id.into()], stored_record)
    }

    /// A record with its extracted columns as stored, for an update that writes only the
    /// columns it changes ([`Writer::update_changed`]).
    pub fn get_with_columns(
        &self,
        table: &RecordTable,
        id: &str,
    ) -> Result<Option<(StoredRecord, Vec<ColumnValue>)>> {
        self.with_columns(table, id, "id, version, body", stored_record)
    }

    /// A record's version and extracted columns as stored, without its body.
    pub fn version_and_columns(
        &self,
        table: &RecordTable,
        id: &str,
    ) -> Result<Option<(i64, Vec<ColumnValue>)>> {
        self.with_columns(table, id, "version", |row| row.int(0))
    }

    /// `leading` (read by `read`) and then the extracted columns of one record.
    fn with_columns<T>(
        &self,
        table: &RecordTable,
        id: &str,
        leading: &str,
        read: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<Option<(T, Vec<ColumnValue>)>> {
        let mut sql = format!("SELECT {leading}");
        for column in table.columns {
            sql.push_str(", ");
            sql.push_str(column);
        }
        sql.push_str(&format!(" FROM {} WHERE id = ?1", table.table));
        self.tx.query_opt(&sql, &[id.into()], |row| {
            // The extracted columns are the row's last ones, whatever `leading` holds.
            let start = row.len() - table.columns.len();
            let columns = (start..start + table.columns.len())
                .map(|i| row.value(i))
                .collect::<Result<Vec<_>>>()?;
            Ok((read(row)?, columns))
        })
    }

    /// One extracted column of a record, without reading its body: `None` when there is
    /// no such record, `Some(None)` when the column is NULL.
    pub fn get_column(
        &self,
        table: &RecordTable,
        id: &str,
        column: &str,
    ) -> Result<Option<Option<String>>> {
        assert!(table.columns.contains(&column), "{column} is not a column of {}", table.table);
        let entry = self.cached(
            table,
            || format!("{column}\0{id}"),
            || {
                let sql = format!("SELECT {column} FROM {} WHERE id = ?1", table.table);
                self.tx.query_opt(&sql, &[id.into()], |row| row.opt_text(0)).map(Entry::Column)
            },
        )?;
        match entry {
            Entry::Column(value) => Ok(value),
            _ => unreachable!("a column's entry is a column"),
        }
    }

    /// Records whose extracted `column` equals `value`, in id order.
    pub fn find_by(
        &self,
        table: &RecordTable,
        column: &str,
        value: &str,
    ) -> Result<Vec<StoredRecord>> {
        self.find_where(table, &[(column, value)])
    }

    /// Records whose extracted columns equal all of `conditions` (`column`, `value`),
    /// in id order: one index lookup when an index covers them (an item's open loan,
    /// a patron's open loans), where [`Reader::find_by`] on one column would read the
    /// whole history.
    pub fn find_where(
        &self,
        table: &RecordTable,
        conditions: &[(&str, &str)],
    ) -> Result<Vec<StoredRecord>> {
        self.find_where_const(table, conditions, &[])
    }

    /// As [`Reader::find_where`], with `constants` written into the SQL as literals.
    /// SQLite uses a partial index (an item's one open loan: `WHERE status_name = 'Open'`)
    /// only when it sees the value, and for a bound value it prepares the statement
    /// again on every run to check.
    pub fn find_where_const(
        &self,
        table: &RecordTable,
        conditions: &[(&str, &str)],
        constants: &[(&str, &'static str)],
    ) -> Result<Vec<StoredRecord>> {
        let sql = find_where_sql(table, conditions, constants);
        let key = || {
            let mut key = sql.clone();
            for (_, value) in conditions {
                key.push('\0');
                key.push_str(value);
            }
            key
        };
        let entry = self.cached(table, key, || {
            let values: Vec<Param<'_>> =
                conditions.iter().map(|(_, value)| (*value).into()).collect();
            self.tx.query(&sql, &values, stored_record).map(Entry::Records)
        })?;
        match entry {
            Entry::Records(records) => Ok(records),
            _ => unreachable!("a query's entry is records"),
        }
    }

    /// The records with these ids, in id order; ids with no record are skipped.
    pub fn get_many(&self, table: &RecordTable, ids: &[&str]) -> Result<Vec<StoredRecord>> {
        self.find_by_any(table, "id", ids)
    }

    /// Records whose `column` (an extracted column, or `id`) is one of `values`, in
    /// (column, id) order. Many values are looked up a few hundred at a time, each an
    /// index lookup when the column is indexed.
    pub fn find_by_any(
        &self,
        table: &RecordTable,
        column: &str,
        values: &[&str],
    ) -> Result<Vec<StoredRecord>> {
        assert!(
            column == "id" || table.columns.contains(&column),
            "{column} is not a column of {}",
            table.table
        );
        let mut out = Vec::new();
        for chunk in values.chunks(IN_LIST_CHUNK) {
            let placeholders = vec!["?"; chunk.len()].join(", ");
            let sql = format!(
                "SELECT id, version, body FROM {} WHERE {column} IN ({placeholders}) ORDER BY {column}, id",
                table.table
            );
            let params: Vec<Param<'_>> = chunk.iter().map(|v| (*v).into()).collect();
            out.extend(self.tx.query(&sql, &params, stored_record)?);
        }
        Ok(out)
    }

    /// Up to `limit` records with ids after `after` (from the first when `None`), in id
    /// order: a keyset page, so scanning a whole table costs one index walk.
    pub fn scan(
        &self,
        table: &RecordTable,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<StoredRecord>> {
        let sql = format!(
            "SELECT id, version, body FROM {} WHERE id > ?1 ORDER BY id LIMIT ?2",
            table.table
        );
        self.tx.query(&sql, &[after.unwrap_or("").into(), (limit as i64).into()], stored_record)
    }

    /// Up to `limit` ids of `table` with their columns, ordered by the integer `column`
    /// and then id, strictly after `after` (a value of `column` and an id) and with
    /// `column` at most `upto`: a keyset page over an index on (`column`, id), which
    /// neither skips nor repeats a row that stays put while the pages are read.
    pub fn scan_by(
        &self,
        table: &RecordTable,
        column: &str,
        after: (i64, &str),
        upto: i64,
        limit: usize,
    ) -> Result<Vec<(String, Vec<ColumnValue>)>> {
        assert!(table.columns.contains(&column), "{column} is not a column of {}", table.table);
        let sql = format!(
            "SELECT id, {} FROM {} WHERE ({column}, id) > (?1, ?2) AND {column} <= ?3 \
             ORDER BY {column}, id LIMIT ?4",
            table.columns.join(", "),
            table.table
        );
        let params = [after.0.into(), after.1.into(), upto.into(), (limit as i64).into()];
        self.tx.query(&sql, &params, |row| {
            let columns =
                (1..=table.columns.len()).map(|i| row.value(i)).collect::<Result<Vec<_>>>()?;
            Ok((row.text(0)?, columns))
        })
    }

    /// How many rows of `table` have the integer `column` in `from..=upto`.
    pub fn count_between(
        &self,
        table: &RecordTable,
        column: &str,
        from: i64,
        upto: i64,
    ) -> Result<u64> {
        assert!(table.columns.contains(&column), "{column} is not a column of {}", table.table);
        let sql = format!("SELECT count(*) FROM {} WHERE {column} BETWEEN ?1 AND ?2", table.table);
        Ok(self.tx.query_one(&sql, &[from.into(), upto.into()], |row| row.int(0))? as u64)
    }

    /// Up to `limit` records stored after position `after` (from the first when
    /// `None`), in the order the table stores them, and the position of the last one:
    /// a keyset page over the table itself. A whole-table pass in id order reads the
    /// rows in the order of their random ids, one table page per row once the table
    /// outgrows the page cache; this reads each page once, and records written
    /// together (an instance, its holdings and items) are read together.
    ///
    /// The positions are SQLite's rowids, or PostgreSQL's row addresses (`ctid`), which
    /// stay put within one transaction: a pass over a table must be one read.
    pub fn scan_stored(
        &self,
        table: &RecordTable,
        after: Option<i64>,
        limit: usize,
    ) -> Result<(Vec<StoredRecord>, Option<i64>)> {
        if self.tx.dialect() == Dialect::Postgres {
            return crate::postgres::scan_stored(self.tx, table.table, after, limit);
        }
        let sql = format!(
            "SELECT id, version, body, rowid FROM {} WHERE rowid > ?1 ORDER BY rowid LIMIT ?2",
            table.table
        );
        let mut last = None;
        let params = [after.unwrap_or(i64::MIN).into(), (limit as i64).into()];
        let records = self.tx.query(&sql, &params, |row| {
            last = Some(row.int(3)?);
            stored_record(row)
        })?;
        Ok((records, last))
    }

    /// Whether a record with this id exists.
    pub fn exists(&self, table: &RecordTable, id: &str) -> Result<bool> {
        if table.cached {
            return Ok(self.get(table, id)?.is_some());
        }
        let sql = format!("SELECT 1 FROM {} WHERE id = ?1", table.table);
        Ok(self.tx.query_opt(&sql, &[id.into()], |_| Ok(()))?.is_some())
    }

    /// Records matching a CQL query (`None` means all), one page of them, and the exact
    /// number of matches. `fields` says which CQL indexes map to which columns.
    pub fn list(
        &self,
        table: &RecordTable,
        fields: &[QueryField],
        cql: Option<&str>,
        page: Page,
    ) -> Result<(Vec<StoredRecord>, u64)> {
        let SqlQuery { where_clause, params, order_by } = match cql {
            Some(cql) => query::translate(cql, fields, self.tx.dialect())?,
            None => SqlQuery::all(),
        };
        let params: Vec<Param<'_>> = params.iter().map(ColumnValue::param).collect();
        let count_sql = format!("SELECT count(*) FROM {} WHERE {where_clause}", table.table);
        let total = self.tx.query_one(&count_sql, &params, |row| row.int(0))?;
        if page.limit == 0 || page.offset >= total as u64 {
            return Ok((Vec::new(), total as u64));
        }
        // SQLite reads a number past i64 as a real and refuses it; past the total it
        // means the same as the total.
        let limit = page.limit.min(total as u64);
        let sql = format!(
            "SELECT id, version, body FROM {} WHERE {where_clause} ORDER BY {order_by} LIMIT {limit} OFFSET {}",
            table.table, page.offset
        );
        Ok((self.tx.query(&sql, &params, stored_record)?, total as u64))
    }

    /// The number of records in a table.
    pub fn count(&self, table: &RecordTable) -> Result<u64> {
        let sql = format!("SELECT count(*) FROM {}", table.table);
        Ok(self.tx.query_one(&sql, &[], |row| row.int(0))? as u64)
    }

    /// Up to `limit` change-log rows after sequence number `after`, in order.
    pub fn changes_since(&self, after: i64, limit: usize) -> Result<Vec<Change>> {
        self.tx.query(
            "SELECT seq, record_type, record_id, op, at FROM change_log WHERE seq > ?1 ORDER BY seq LIMIT ?2",
            &[after.into(), (limit as i64).into()],
            change_row,
        )
    }

    /// How many change-log rows after `after`, up to `upto`, are of these record types.
    pub fn count_changes(&self, after: i64, upto: i64, record_types: &[&str]) -> Result<u64> {
        let counts = self.tx.query(
            "SELECT record_type, count(*) FROM change_log WHERE seq > ?1 AND seq <= ?2 GROUP BY record_type",
            &[after.into(), upto.into()],
            |row| Ok((row.text(0)?, row.int(1)?)),
        )?;
        Ok(counts
            .into_iter()
            .filter(|(record_type, _)| record_types.contains(&record_type.as_str()))
            .map(|(_, count)| count as u64)
            .sum())
    }

    /// The stored value of a named counter, if it was ever used.
    pub fn sequence_value(&self, name: &str) -> Result<Option<i64>> {
        self.tx.query_opt("SELECT value FROM sequences WHERE name = ?1", &[name.into()], |row| {
            row.int(0)
        })
    }

    /// The highest change-log sequence number, 0 for an empty log.
    pub fn last_seq(&self) -> Result<i64> {
        self.tx.query_one("SELECT COALESCE(MAX(seq), 0) FROM change_log", &[], |row| row.int(0))
    }

    /// Up to `limit` change-log rows after `after`, in order, each with its kept bodies
    /// (`None` when its bodies were not kept: no publisher wanted them when it was
    /// written, or they have been dropped since).
    pub fn changes_with_bodies(
        &self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(Change, Option<Bodies>)>> {
        self.tx.query(
            "SELECT c.seq, c.record_type, c.record_id, c.op, c.at, b.seq, b.old, b.new
             FROM change_log c LEFT JOIN change_bodies b ON b.seq = c.seq
             WHERE c.seq > ?1 ORDER BY c.seq LIMIT ?2",
            &[after.into(), (limit as i64).into()],
            change_with_bodies,
        )
    }

    /// A record's changes, newest first: up to `limit` committed before `before` (RFC
    /// 3339, as [`Change::at`]) if given, each with its kept bodies, and how many the
    /// log holds for the record in all. Only for the record types of [`HISTORY_TYPES`],
    /// which the log indexes by record id; any other is refused rather than scanned.
    ///
    /// [`HISTORY_TYPES`]: crate::HISTORY_TYPES
    pub fn record_history(
        &self,
        table: &RecordTable,
        id: &str,
        before: Option<&str>,
        limit: usize,
    ) -> Result<RecordHistory> {
        if !crate::HISTORY_TYPES.contains(&table.record_type) {
            return Err(Error::Query(crate::QueryError::UnsupportedField(format!(
                "the change history of {} records",
                table.table
            ))));
        }
        let indexed = crate::changes::HISTORY_INDEXED;
        let total = self.tx.query_one(
            &format!(
                "SELECT count(*) FROM change_log
                 WHERE record_id = ?1 AND record_type = ?2 AND {indexed}"
            ),
            &[id.into(), table.record_type.into()],
            |row| row.int(0),
        )?;
        let mut params: Vec<Param<'_>> =
            vec![id.into(), table.record_type.into(), (limit as i64).into()];
        let before_clause = match before {
            Some(at) => {
                params.push(at.into());
                "AND c.at < ?4"
            }
            None => "",
        };
        let changes = self.tx.query(
            &format!(
                "SELECT c.seq, c.record_type, c.record_id, c.op, c.at, b.seq, b.old, b.new
                 FROM change_log c LEFT JOIN change_bodies b ON b.seq = c.seq
                 WHERE c.record_id = ?1 AND c.record_type = ?2 AND c.{indexed} {before_clause}
                 ORDER BY c.seq DESC LIMIT ?3"
            ),
            &params,
            change_with_bodies,
        )?;
        Ok(RecordHistory { changes, total: total as u64 })
    }

    /// The first kept body's sequence number, if any body is kept.
    pub fn first_kept_body(&self) -> Result<Option<i64>> {
        self.tx.query_one("SELECT MIN(seq) FROM change_bodies", &[], |row| row.opt_int(0))
    }

    /// The last change in `after..=through` committed before `at` (RFC 3339, as
    /// [`Change::at`]), found by bisection on the sequence number: commit times grow with
    /// it, as writes are serialised. For dropping kept bodies older than a retention time.
    pub fn last_change_before(&self, at: &str, after: i64, through: i64) -> Result<Option<i64>> {
        let first_at_or_after = |seq: i64| -> Result<Option<(i64, String)>> {
            self.tx.query_opt(
                "SELECT seq, at FROM change_log WHERE seq > ?1 ORDER BY seq LIMIT 1",
                &[seq.into()],
                |row| Ok((row.int(0)?, row.text(1)?)),
            )
        };
        // Invariant: every change in (after, lo] is before `at`; none in (hi, through] is.
        let (mut lo, mut hi) = (after, through);
        while lo < hi {
            let mid = lo + (hi - lo + 1) / 2;
            match first_at_or_after(mid - 1)? {
                Some((seq, when)) if seq <= hi && when.as_str() < at => lo = seq,
                _ => hi = mid - 1,
            }
        }
        Ok((lo > after).then_some(lo))
    }

    /// How far the publisher `name` has published, if there is one.
    pub fn published(&self, name: &str) -> Result<Option<i64>> {
        self.tx.query_opt(
            "SELECT published FROM publishers WHERE name = ?1",
            &[name.into()],
            |row| row.int(0),
        )
    }

    /// The tenant's publishers.
    pub fn publishers(&self) -> Result<Vec<Publisher>> {
        self.tx.query(
            "SELECT name, published, record_types FROM publishers ORDER BY name",
            &[],
            |row| {
                let types = row.text(2)?;
                Ok(Publisher {
                    name: row.text(0)?,
                    published: row.int(1)?,
                    record_types: types
                        .split(',')
                        .filter(|t| !t.is_empty())
                        .map(String::from)
                        .collect(),
                })
            },
        )
    }
}

/// The version an update gives its row.
#[derive(Clone, Copy)]
enum Version {
    Is(i64),
    /// One more than the stored version.
    Next,
}

/// A read of records, named so that it can be made ahead of its use
/// ([`Reader::prefetch`]); [`Reader::records`] makes it.
#[derive(Debug, Clone)]
pub enum Read<'r> {
    /// The record with this id ([`Reader::get`]).
    Get(&'static RecordTable, &'r str),
    /// The record another names ([`Reader::get_named_by`]).
    NamedBy(&'static RecordTable, (&'static RecordTable, &'r str, &'static str)),
    /// The records whose columns equal these values and constants
    /// ([`Reader::find_where_const`]).
    Where(
        &'static RecordTable,
        Vec<(&'static str, &'r str)>,
        &'static [(&'static str, &'static str)],
    ),
    /// The reads that follow from another's rows: for each value of the key's column
    /// in the rows it finds, the read the function makes with that value (a read of
    /// one value, as [`Read::Get`] is). Read ahead, on PostgreSQL, in the same round
    /// trip as the rows they follow from, and kept as the reads they make: a check-out
    /// asks for the item's open loan by the item's id, and finds it read already with
    /// the item, by its barcode.
    Via(Key<'r>, fn(&str) -> Read<'_>),
}

/// The rows of a table whose column `by` equals `value`, and the column of theirs whose
/// values key the reads a [`Read::Via`] makes.
#[derive(Debug, Clone)]
pub struct Key<'r> {
    pub table: &'static RecordTable,
    pub by: &'static str,
    pub value: &'r str,
    pub column: &'static str,
}

impl Key<'_> {
    fn sql(&self) -> String {
        for column in [self.by, self.column] {
            assert!(
                self.table.columns.contains(&column) || column == "id",
                "{column} is not a column of {}",
                self.table.table
            );
        }
        // As text, so the reads it keys compare as they would with a value given.
        format!(
            "SELECT CAST({} AS TEXT) AS key FROM {} WHERE {} = ?1",
            self.column, self.table.table, self.by
        )
    }
}

fn text(value: &str) -> ColumnValue {
    ColumnValue::Text(value.to_string())
}

/// What PostgreSQL reads ahead for `read`: nothing for a table the tenant's cache
/// answers (`cached`: the transaction has one).
fn ahead(read: &Read<'_>, has_cache: bool) -> Option<Ahead> {
    let cached = |table: &RecordTable| table.cached && has_cache;
    match *read {
        Read::Get(table, id) if !cached(table) => {
            Some(Ahead::new(get_sql(table), vec![text(id)], vec![table.table]))
        }
        Read::NamedBy(table, (from, id, column)) => Some(Ahead::new(
            named_by_sql(table, from, column),
            vec![text(id)],
            vec![table.table, from.table],
        )),
        Read::Where(table, ref conditions, constants) if !cached(table) => Some(Ahead::new(
            find_where_sql(table, conditions, constants),
            conditions.iter().map(|(_, value)| text(value)).collect(),
            vec![table.table],
        )),
        Read::Via(ref key, then) => {
            // The read made with a value no key holds, to learn its statement: the
            // value is its one parameter, `?1`, which becomes the key's column.
            let made = ahead(&then("\0"), has_cache)?;
            assert!(
                matches!(made.values.as_slice(), [ColumnValue::Text(v)] if v == "\0"),
                "a read that follows from a key is made with the one value: {}",
                made.sql
            );
            let sql = format!(
                "SELECT t.id, t.version, t.body, k.key FROM ({}) AS k LEFT JOIN LATERAL ({}) AS t ON true ORDER BY k.key, t.id",
                key.sql(),
                made.sql.replace("?1", "k.key")
            );
            let keyed = move |value: &str| ahead(&then(value), has_cache);
            Some(Ahead {
                keyed: Some(Box::new(keyed)),
                ..Ahead::new(sql, vec![text(key.value)], made.tables)
            })
        }
        _ => None,
    }
}

fn get_sql(table: &RecordTable) -> String {
    format!("SELECT id, version, body FROM {} WHERE id = ?1", table.table)
}

fn named_by_sql(table: &RecordTable, from: &RecordTable, column: &str) -> String {
    assert!(from.columns.contains(&column), "{column} is not a column of {}", from.table);
    // The cast compares as the id column does, and on PostgreSQL keeps a `citext`
    // column from turning the comparison into one its primary key cannot serve.
    format!(
        "SELECT id, version, body FROM {} WHERE id = CAST((SELECT {column} FROM {} WHERE id = ?1) AS TEXT)",
        table.table, from.table
    )
}

fn find_where_sql(
    table: &RecordTable,
    conditions: &[(&str, &str)],
    constants: &[(&str, &str)],
) -> String {
    let mut clauses = Vec::with_capacity(conditions.len() + constants.len());
    for (idx, (column, _)) in conditions.iter().enumerate() {
        assert!(table.columns.contains(column), "{column} is not a column of {}", table.table);
        clauses.push(format!("{column} = ?{}", idx + 1));
    }
    for (column, value) in constants {
        assert!(table.columns.contains(column), "{column} is not a column of {}", table.table);
        clauses.push(format!("{column} = '{}'", value.replace('\'', "''")));
    }
    format!(
        "SELECT id, version, body FROM {} WHERE {} ORDER BY id",
        table.table,
        clauses.join(" AND ")
    )
}

/// Writes within one transaction; also reads, through `Deref`.
pub struct Writer<'a> {
    reader: Reader<'a>,
    last_seq: Option<i64>,
    // Named counters used in this transaction: (value now, value stored). They are kept
    // here and written back once, before commit, instead of one statement per use.
    sequences: std::collections::HashMap<String, (i64, Option<i64>)>,
    // One commit time for every change-log row of the transaction.
    now: Option<String>,
    // Interactive writes queued behind this one (`group`).
    waiting: &'a std::sync::atomic::AtomicUsize,
    // When a background write's slice of the writer is over, while the desk is busy.
    slice_ends: Option<std::time::Instant>,
    // The record types whose bodies the change log keeps (`changes::KeptTypes`).
    kept: std::sync::Arc<[String]>,
    // Records found to exist in this transaction (`exists_remembered`): table, id.
    found: std::collections::HashSet<(&'static str, String)>,
    // Record writes go with the next statement (`defer_writes`).
    deferring: bool,
}

impl<'a> Deref for Writer<'a> {
    type Target = Reader<'a>;
    fn deref(&self) -> &Reader<'a> {
        &self.reader
    }
}

impl<'a> Writer<'a> {
    pub(crate) fn new(
        tx: Tx<'a>,
        waiting: &'a std::sync::atomic::AtomicUsize,
        slice: Option<std::time::Duration>,
        kept: std::sync::Arc<[String]>,
        cache: Option<&'a TxCache>,
    ) -> Writer<'a> {
        Writer {
            reader: Reader::new(tx, cache),
            last_seq: None,
            sequences: std::collections::HashMap::new(),
            now: None,
            waiting,
            slice_ends: slice.map(|slice| std::time::Instant::now() + slice),
            kept,
            found: std::collections::HashSet::new(),
            deferring: false,
        }
    }

    /// From here to the end of the write, on PostgreSQL, each record write goes to the
    /// database with the next statement, or with the write's end, instead of one round
    /// trip each: a chunk of imported records is written in one. The price is the
    /// errors: a write that fails (a unique value taken) or finds no record to change
    /// fails whichever statement carried it, as [`Error::Deferred`], and the calls
    /// themselves answer as if it succeeded (an update, that it found its record). So
    /// defer only where any failed write fails the whole write, to be done again without
    /// deferring. SQLite answers in-process; there it changes nothing.
    pub fn defer_writes(&mut self) {
        self.deferring = true;
    }

    /// The session to defer a write on: PostgreSQL's, once [`Writer::defer_writes`].
    fn deferring_session(&self) -> Option<&'a crate::postgres::Session> {
        match self.reader.tx {
            Tx::Postgres(session) if self.deferring => Some(session),
            _ => None,
        }
    }

    /// Whether a record exists, remembered for the rest of the transaction once it
    /// does: for a check a batch repeats on every record (an import's SRS snapshot),
    /// a round trip each on PostgreSQL. Deleting the record through this writer, or an
    /// [`attempt`](Self::attempt) that fails, forgets it; no other writer can delete
    /// it meanwhile, as a tenant's writes run one at a time.
    pub fn exists_remembered(&mut self, table: &RecordTable, id: &str) -> Result<bool> {
        let key = (table.table, id.to_string());
        if self.found.contains(&key) {
            return Ok(true);
        }
        let exists = self.reader.exists(table, id)?;
        if exists {
            self.found.insert(key);
        }
        Ok(exists)
    }

    /// Whether a long background write ([`crate::Tenant::write_background`]) should
    /// commit what it has done and let the writer go: interactive writes are queued
    /// behind it, or the desk is busy and it has had its slice.
    pub fn should_end(&self) -> bool {
        self.waiting.load(std::sync::atomic::Ordering::Relaxed) > 0
            || self.slice_ends.is_some_and(|end| std::time::Instant::now() >= end)
    }

    /// Writes back what the transaction kept in memory, and sends the deferred writes;
    /// called just before commit.
    pub(crate) fn flush(&mut self) -> Result<()> {
        self.reader.tx.send_deferred()?;
        self.last_seq = self.last_seq.max(self.reader.tx.take_deferred_seq());
        for (name, (value, stored)) in self.sequences.drain() {
            if stored == Some(value) {
                continue;
            }
            self.reader.tx.execute(
                "INSERT INTO sequences (name, value) VALUES (?1, ?2)
                 ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                &[name.as_str().into(), value.into()],
            )?;
        }
        Ok(())
    }

    pub(crate) fn last_seq(&self) -> Option<i64> {
        self.last_seq
    }

    /// The highest sequence number in the change log as this transaction sees it
    /// ([`Reader::last_seq`], which [`Writer::last_seq`] hides).
    pub(crate) fn last_seq_stored(&self) -> Result<i64> {
        self.reader.last_seq()
    }

    /// Inserts a new record; fails with [`Error::DuplicateId`] if the id is taken.
    pub fn insert(
        &mut self,
        table: &RecordTable,
        id: &str,
        version: i64,
        body: &str,
        columns: &[ColumnValue],
    ) -> Result<()> {
        check_arity(table, columns);
        let sql = plain_insert_sql(table);
        let params = record_params(id, version, body, columns);
        match self.write_logged(table, id, Operation::Create, sql, params, None, Some(body)) {
            Ok(_) => Ok(()),
            Err(Error::Unique { column, .. }) if column == "id" => {
                Err(Error::DuplicateId { table: table.table.to_string(), id: id.to_string() })
            }
            Err(other) => Err(other),
        }
    }

    /// Inserts or replaces a record, keeping its place; says which it did.
    pub fn upsert(
        &mut self,
        table: &RecordTable,
        id: &str,
        version: i64,
        body: &str,
        columns: &[ColumnValue],
    ) -> Result<Operation> {
        check_arity(table, columns);
        let old = self.old_body(table, id)?;
        let existed = match &old {
            Some(old) => old.is_some(),
            None => self.reader.exists(table, id)?,
        };
        let op = if existed { Operation::Update } else { Operation::Create };
        let params = record_params(id, version, body, columns);
        self.write_logged(table, id, op, &upsert_sql(table), params, old.flatten(), Some(body))?;
        Ok(op)
    }

    /// Inserts or replaces a record of a bookkeeping table (one whose writes are not
    /// logged: an import's journal, a bulk edit's rows) with one statement: an
    /// [`upsert`](Self::upsert) that does not first ask which it will be, a round trip
    /// saved a write on PostgreSQL. A logged table's change must say which, so it panics.
    pub fn put(
        &mut self,
        table: &RecordTable,
        id: &str,
        version: i64,
        body: &str,
        columns: &[ColumnValue],
    ) -> Result<()> {
        assert!(
            table.record_type.is_empty(),
            "{} is logged: upsert says create or update",
            table.table
        );
        check_arity(table, columns);
        let (sql, params) = (upsert_sql(table), record_params(id, version, body, columns));
        self.reader.tx.forget_prefetched(table.table);
        match self.deferring_session() {
            Some(session) => session.defer(&sql, &params, format!("{} {id}", table.table), false),
            None => self.reader.tx.execute(&sql, &params).map(drop),
        }
    }

    /// Replaces an existing record; returns false (and writes nothing) if there is none.
    pub fn update(
        &mut self,
        table: &RecordTable,
        id: &str,
        version: i64,
        body: &str,
        columns: &[ColumnValue],
    ) -> Result<bool> {
        self.replace_row(table, (id, Version::Is(version), body), columns, &|_| true)
    }

    /// Replaces an existing record whose columns are stored as `previous`, writing only
    /// the columns that differ: SQLite then leaves the indexes of the others alone, and
    /// a check-out that changes an item's status rewrites one index, not five. Returns
    /// false (and writes nothing) if there is no such record.
    pub fn update_changed(
        &mut self,
        table: &RecordTable,
        (id, version, body): (&str, i64, &str),
        columns: &[ColumnValue],
        previous: &[ColumnValue],
    ) -> Result<bool> {
        check_arity(table, previous);
        let changed = |i: usize| columns[i] != previous[i];
        self.replace_row(table, (id, Version::Is(version), body), columns, &changed)
    }

    /// As [`update_changed`](Self::update_changed) for a record this transaction read
    /// (its columns then were `previous`), its version one more than the stored one,
    /// whatever that is: the caller need not read the version first, a round trip on
    /// PostgreSQL. Nothing else can have written the record since it was read, as a
    /// tenant's writes run one at a time.
    pub fn update_read(
        &mut self,
        table: &RecordTable,
        (id, body): (&str, &str),
        columns: &[ColumnValue],
        previous: &[ColumnValue],
    ) -> Result<bool> {
        check_arity(table, previous);
        let changed = |i: usize| columns[i] != previous[i];
        self.replace_row(table, (id, Version::Next, body), columns, &changed)
    }

    /// `UPDATE` of the body, the version and the columns `changed` picks.
    fn replace_row(
        &mut self,
        table: &RecordTable,
        (id, version, body): (&str, Version, &str),
        columns: &[ColumnValue],
        changed: &dyn Fn(usize) -> bool,
    ) -> Result<bool> {
        check_arity(table, columns);
        let old = self.old_body(table, id)?;
        if matches!(old, Some(None)) {
            return Ok(false);
        }
        let (mut set, version) = match version {
            Version::Is(version) => (String::from("version = ?2, body = ?3"), version),
            Version::Next => (String::from("version = version + ?2, body = ?3"), 1),
        };
        let mut params: Vec<Param<'_>> = vec![id.into(), version.into(), body.into()];
        for (i, (name, value)) in table.columns.iter().zip(columns).enumerate() {
            if changed(i) {
                params.push(value.param());
                set.push_str(&format!(", {name} = ?{}", params.len()));
            }
        }
        let sql = format!("UPDATE {} SET {set} WHERE id = ?1", table.table);
        self.write_logged(table, id, Operation::Update, &sql, params, old.flatten(), Some(body))
    }

    /// Deletes a record; returns false if there was none.
    pub fn delete(&mut self, table: &RecordTable, id: &str) -> Result<bool> {
        let old = self.old_body(table, id)?;
        if !self.found.is_empty() {
            self.found.remove(&(table.table, id.to_string()));
        }
        let sql = format!("DELETE FROM {} WHERE id = ?1", table.table);
        self.write_logged(table, id, Operation::Delete, &sql, vec![id.into()], old.flatten(), None)
    }

    /// The next value of a named counter, starting at `start` (used for HRIDs).
    pub fn next_sequence(&mut self, name: &str, start: i64) -> Result<i64> {
        if let Some((value, _)) = self.sequences.get_mut(name) {
            *value += 1;
            return Ok(*value);
        }
        let stored = self.sequence_value(name)?;
        let value = stored.map_or(start, |v| v + 1);
        self.sequences.insert(name.to_string(), (value, stored));
        Ok(value)
    }

    /// Runs `f` so that its writes stay only if it succeeds: on `Err` the database, the
    /// change log and the named counters are as they were before it (a savepoint). For
    /// work that writes several records and must write all or none of them, inside a
    /// transaction that goes on: one record of an import.
    pub fn attempt<T, E: From<Error>>(
        &mut self,
        f: impl FnOnce(&mut Writer<'a>) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        self.reader.tx.batch("SAVEPOINT quire_attempt")?;
        // The deferred writes sent before the savepoint stay whatever `f` does.
        self.last_seq = self.last_seq.max(self.reader.tx.take_deferred_seq());
        let (last_seq, sequences) = (self.last_seq, self.sequences.clone());
        // A deferred write of `f`'s that fails fails `f`.
        let done = f(self).and_then(|value| {
            self.reader.tx.send_deferred()?;
            Ok(value)
        });
        match done {
            Ok(value) => {
                self.reader.tx.batch("RELEASE quire_attempt")?;
                self.last_seq = self.last_seq.max(self.reader.tx.take_deferred_seq());
                Ok(value)
            }
            Err(e) => {
                self.reader.tx.discard_deferred();
                self.reader.tx.batch("ROLLBACK TO quire_attempt; RELEASE quire_attempt")?;
                self.last_seq = last_seq;
                self.sequences = sequences;
                // Forgetting is always safe, and cheaper than a copy per attempt (an
                // import makes one per record) to restore.
                self.found.clear();
                Err(e)
            }
        }
    }

    /// Restarts a named counter: its next value is `next`.
    pub fn restart_sequence(&mut self, name: &str, next: i64) -> Result<()> {
        let stored = match self.sequences.get(name) {
            Some((_, stored)) => *stored,
            None => self.sequence_value(name)?,
        };
        self.sequences.insert(name.to_string(), (next - 1, stored));
        Ok(())
    }

    /// The current value of a named counter, if it was ever used (with this
    /// transaction's uses).
    pub fn sequence_value(&self, name: &str) -> Result<Option<i64>> {
        if let Some((value, _)) = self.sequences.get(name) {
            return Ok(Some(*value));
        }
        self.reader.sequence_value(name)
    }

    /// Whether a publisher needs this table's bodies.
    fn keeps(&self, table: &RecordTable) -> bool {
        !table.record_type.is_empty() && self.kept.iter().any(|t| t == table.record_type)
    }

    /// The stored body of a record about to be written, when the change log keeps this
    /// table's bodies (`Some`, holding `None` if there is no such record); `None` when
    /// it does not, so a write that needs no old body reads none.
    fn old_body(&self, table: &RecordTable, id: &str) -> Result<Option<Option<String>>> {
        if !self.keeps(table) {
            return Ok(None);
        }
        Ok(Some(self.reader.get(table, id)?.map(|record| record.body)))
    }

    /// Runs `sql`, a write of `table`'s row `id` with `params`, and logs it as `op`;
    /// false, with nothing logged, when it changed no row. On PostgreSQL the write, its
    /// change-log row and its kept bodies are one statement (a data-modifying `WITH`):
    /// each statement there is a round trip, and a logged write took two or three (an
    /// imported record makes two such writes). SQLite answers in-process.
    #[allow(clippy::too_many_arguments)]
    fn write_logged(
        &mut self,
        table: &RecordTable,
        id: &str,
        op: Operation,
        sql: &str,
        params: Vec<Param<'_>>,
        old: Option<String>,
        new: Option<&str>,
    ) -> Result<bool> {
        self.reader.tx.forget_prefetched(table.table);
        if table.cached {
            // Past the cache from here on, even if the write fails. The count is a
            // named counter, written back once before commit however many records the
            // transaction writes.
            if let Some(cache) = self.reader.cache {
                cache.wrote();
            }
            self.next_sequence(cache::GENERATION, 1)?;
        }
        if self.reader.tx.dialect() != Dialect::Postgres || table.record_type.is_empty() {
            if self.reader.tx.execute(sql, &params)? == 0 {
                return Ok(false);
            }
            self.log(table, id, op, old, new)?;
            return Ok(true);
        }
        let at = self.now.get_or_insert_with(now).clone();
        let n = params.len();
        // Rebound: the added parameters borrow values local to this call.
        let mut params: Vec<Param<'_>> = params;
        params.extend([
            Param::Text(table.record_type),
            Param::Text(id),
            Param::Text(op.as_str()),
            Param::Text(&at),
        ]);
        let mut logged = format!(
            "WITH written AS ({sql} RETURNING 1), \
             logged AS (INSERT INTO change_log (record_type, record_id, op, at) \
             SELECT CAST(?{} AS TEXT), CAST(?{} AS TEXT), CAST(?{} AS TEXT), CAST(?{} AS TEXT) \
             FROM written RETURNING seq)",
            n + 1,
            n + 2,
            n + 3,
            n + 4,
        );
        if self.keeps(table) {
            params.extend([Param::from(old.as_deref()), Param::from(new)]);
            logged.push_str(&format!(
                ", kept AS (INSERT INTO change_bodies (seq, old, new) \
                 SELECT seq, CAST(?{} AS TEXT), CAST(?{} AS TEXT) FROM logged)",
                n + 5,
                n + 6,
            ));
        }
        logged.push_str(" SELECT seq FROM logged");
        if let Some(session) = self.deferring_session() {
            let what = format!("{} of {} {id}", op.as_str(), table.table);
            session.defer(&logged, &params, what, true)?;
            return Ok(true);
        }
        let seq = self.reader.tx.query_opt(&logged, &params, |row| row.int(0))?;
        if seq.is_some() {
            self.last_seq = seq;
        }
        Ok(seq.is_some())
    }

    fn log(
        &mut self,
        table: &RecordTable,
        id: &str,
        op: Operation,
        old: Option<String>,
        new: Option<&str>,
    ) -> Result<()> {
        if table.record_type.is_empty() {
            return Ok(());
        }
        let at = self.now.get_or_insert_with(now);
        let seq = self.reader.tx.query_one(
            "INSERT INTO change_log (record_type, record_id, op, at) VALUES (?1, ?2, ?3, ?4) RETURNING seq",
            &[table.record_type.into(), id.into(), op.as_str().into(), at.as_str().into()],
            |row| row.int(0),
        )?;
        self.last_seq = Some(seq);
        if self.keeps(table) {
            self.reader.tx.execute(
                "INSERT INTO change_bodies (seq, old, new) VALUES (?1, ?2, ?3)",
                &[seq.into(), old.as_deref().into(), new.into()],
            )?;
        }
        Ok(())
    }

    /// Records (or updates) a publisher; from the next write on, the change log keeps
    /// the bodies of its record types. A new publisher starts at the end of the log.
    pub(crate) fn start_publisher(&mut self, name: &str, record_types: &[&str]) -> Result<()> {
        let last = self.reader.last_seq()?;
        let types = record_types.join(",");
        self.reader.tx.execute(
            "INSERT INTO publishers (name, published, record_types) VALUES (?1, ?2, ?3)
             ON CONFLICT(name) DO UPDATE SET record_types = excluded.record_types",
            &[name.into(), last.into(), types.as_str().into()],
        )?;
        Ok(())
    }

    /// Removes a publisher; the bodies no other publisher needs are dropped.
    pub(crate) fn stop_publisher(&mut self, name: &str) -> Result<()> {
        self.reader.tx.execute("DELETE FROM publishers WHERE name = ?1", &[name.into()])?;
        if self.reader.publishers()?.is_empty() {
            self.reader.tx.batch("DELETE FROM change_bodies")?;
        }
        Ok(())
    }

    /// Records that a publisher has published every change up to `seq`.
    pub fn set_published(&mut self, name: &str, seq: i64) -> Result<()> {
        let n = self.reader.tx.execute(
            "UPDATE publishers SET published = ?2 WHERE name = ?1",
            &[name.into(), seq.into()],
        )?;
        if n == 0 {
            return Err(Error::Corrupt(format!("no publisher named {name:?}")));
        }
        Ok(())
    }

    /// Drops the kept bodies of changes after `after` up to `through`; returns how many.
    /// The caller keeps what a publisher has yet to publish, or may replay.
    pub fn drop_bodies(&mut self, after: i64, through: i64) -> Result<usize> {
        Ok(self.reader.tx.execute(
            "DELETE FROM change_bodies WHERE seq > ?1 AND seq <= ?2",
            &[after.into(), through.into()],
        )? as usize)
    }
}

/// How many values one `IN (...)` list binds: well under SQLite's variable limit, and
/// a size whose statement the cache keeps (a shorter last chunk gets its own).
const IN_LIST_CHUNK: usize = 256;

/// A change-log row selected as `seq, record_type, record_id, op, at`, first.
fn change_row(row: &Row<'_>) -> Result<Change> {
    let seq = row.int(0)?;
    let op = row.text(3)?;
    let op = Operation::parse(&op)
        .ok_or_else(|| Error::Corrupt(format!("change {seq} has operation {op:?}")))?;
    Ok(Change { seq, record_type: row.text(1)?, record_id: row.text(2)?, op, at: row.text(4)? })
}

/// A change-log row joined with its kept bodies, selected as `seq, record_type,
/// record_id, op, at, bodies.seq, old, new`.
fn change_with_bodies(row: &Row<'_>) -> Result<(Change, Option<Bodies>)> {
    let change = change_row(row)?;
    let kept = row.opt_int(5)?.is_some();
    let bodies = kept
        .then(|| Ok::<_, Error>(Bodies { old: row.opt_text(6)?, new: row.opt_text(7)? }))
        .transpose()?;
    Ok((change, bodies))
}

pub(crate) fn stored_record(row: &Row<'_>) -> Result<StoredRecord> {
    Ok(StoredRecord { id: row.text(0)?, version: row.int(1)?, body: row.text(2)? })
}

fn check_arity(table: &RecordTable, columns: &[ColumnValue]) {
    assert_eq!(table.columns.len(), columns.len(), "column values for table {}", table.table);
}

/// The plain INSERT of a table, built once per table: a bulk load inserts millions of
/// rows, and formatting the statement for each was a measurable share of the work.
fn plain_insert_sql(table: &RecordTable) -> &'static str {
    static CACHE: std::sync::OnceLock<
        std::sync::Mutex<std::collections::HashMap<&'static str, &'static str>>,
    > = std::sync::OnceLock::new();
    let mut cache = CACHE.get_or_init(Default::default).lock().unwrap();
    // Leaked on purpose: one short string per table, for the life of the process.
    cache.entry(table.table).or_insert_with(|| Box::leak(insert_sql(table, "").into_boxed_str()))
}

/// An insert that replaces the row of the same id, keeping its place.
fn upsert_sql(table: &RecordTable) -> String {
    let mut set = String::from("version = excluded.version, body = excluded.body");
    for column in table.columns {
        set.push_str(&format!(", {column} = excluded.{column}"));
    }
    insert_sql(table, &format!(" ON CONFLICT(id) DO UPDATE SET {set}"))
}

fn insert_sql(table: &RecordTable, suffix: &str) -> String {
    let mut names = String::from("id, version, body");
    let mut placeholders = String::from("?1, ?2, ?3");
    for (idx, column) in table.columns.iter().enumerate() {
        names.push_str(&format!(", {column}"));
        placeholders.push_str(&format!(", ?{}", idx + 4));
    }
    format!("INSERT INTO {} ({names}) VALUES ({placeholders}){suffix}", table.table)
}

/// The parameters of a record write, borrowed: a body is never copied to be bound.
fn record_params<'p>(
    id: &'p str,
    version: i64,
    body: &'p str,
    columns: &'p [ColumnValue],
) -> Vec<Param<'p>> {
    let mut params = Vec::with_capacity(3 + columns.len());
    params.extend([Param::Text(id), Param::Int(version), Param::Text(body)]);
    params.extend(columns.iter().map(ColumnValue::param));
    params
}

#[cfg(test)]
mod tests {
    use crate::fixtures::{PAIRS, THINGS, tenant};

    #[test]
    fn batch_reads_and_scans() {
        let (_dir, tenant) = tenant();
        tenant
            .write(|w| {
                for n in 0..600 {
                    let id = format!("id{n:04}");
                    let parent = crate::ColumnValue::Text(format!("p{}", n % 3));
                    w.insert(&THINGS, &id, 1, "{}", &[parent])?;
                }
                Ok::<_, crate::Error>(())
            })
            .unwrap();
        tenant
            .read(|r| {
                let ids: Vec<String> =
                    (0..600).rev().step_by(7).map(|n| format!("id{n:04}")).collect();
                let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
                let mut with_missing = id_refs.clone();
                with_missing.push("nope");
                let found = r.get_many(&THINGS, &with_missing)?;
                assert_eq!(found.len(), ids.len());
                assert!(found.windows(2).all(|w| w[0].id < w[1].id));

                let children = r.find_by_any(&THINGS, "parent", &["p0", "p2"])?;
                assert_eq!(children.len(), 400);

                let mut after: Option<String> = None;
                let mut seen = 0;
                loop {
                    let page = r.scan(&THINGS, after.as_deref(), 250)?;
                    if page.is_empty() {
                        break;
                    }
                    seen += page.len();
                    after = page.last().map(|p| p.id.clone());
                }
                assert_eq!(seen, 600);
                Ok::<_, crate::Error>(())
            })
            .unwrap();
    }

    /// A failed attempt leaves no record, change-log row or counter step behind; a
    /// good one keeps its writes, in the same transaction as the others.
    #[test]
    fn a_failed_attempt_writes_nothing() {
        let (_dir, tenant) = tenant();
        let seq_before = tenant.read(|r| r.last_seq()).unwrap();
        tenant
            .write(|w| {
                let parent = || [crate::ColumnValue::Text("p".into())];
                w.attempt(|w| w.insert(&THINGS, "kept", 1, "{}", &parent()))?;
                let failed: crate::Result<()> = w.attempt(|w| {
                    w.insert(&THINGS, "lost", 1, "{}", &parent())?;
                    assert_eq!(w.next_sequence("n", 1)?, 1);
                    w.insert(&THINGS, "kept", 1, "{}", &parent())
                });
                assert!(matches!(failed, Err(crate::Error::DuplicateId { .. })));
                assert_eq!(w.next_sequence("n", 1)?, 1, "the failed attempt's step is undone");
                w.insert(&THINGS, "after", 1, "{}", &parent())
            })
            .unwrap();
        tenant
            .read(|r| {
                assert!(r.exists(&THINGS, "kept")? && r.exists(&THINGS, "after")?);
                assert!(!r.exists(&THINGS, "lost")?);
                let changes = r.changes_since(seq_before, 10)?;
                let ids: Vec<&str> = changes.iter().map(|c| c.record_id.as_str()).collect();
                assert_eq!(ids, ["kept", "after"]);
                Ok::<_, crate::Error>(())
            })
            .unwrap();
    }

    /// Deferred writes (on PostgreSQL, sent with the next statement) are read back by
    /// the transaction that made them, commit with their change-log rows in the order
    /// made, and the commit announces the last of those rows.
    #[test]
    fn deferred_writes_are_seen_logged_and_announced() {
        let (_dir, tenant) = tenant();
        let before = tenant.read(|r| r.last_seq()).unwrap();
        let parent = || [crate::ColumnValue::Text("p".into())];
        tenant
            .write(|w| {
                w.defer_writes();
                w.insert(&THINGS, "a", 1, "{\"n\":1}", &parent())?;
                w.insert(&THINGS, "b", 1, "{}", &parent())?;
                assert!(w.update(&THINGS, "a", 2, "{\"n\":2}", &parent())?);
                assert_eq!(w.get(&THINGS, "a")?.unwrap().body, "{\"n\":2}");
                w.insert(&THINGS, "c", 1, "{}", &parent())
            })
            .unwrap();
        let changes = tenant.read(|r| r.changes_since(before, 10)).unwrap();
        let made: Vec<(&str, &str)> =
            changes.iter().map(|c| (c.record_id.as_str(), c.op.as_str())).collect();
        assert_eq!(made, [("a", "CREATE"), ("b", "CREATE"), ("a", "UPDATE"), ("c", "CREATE")]);
        let last = changes.last().unwrap().seq;
        assert_eq!(tenant.wait_for_change(before, std::time::Duration::ZERO), last);
    }

    /// What is read ahead answers as the read would; a write to its table, deferred or
    /// not, forgets it, so the read then sees the write; other tables' answers stay.
    #[test]
    fn reads_ahead_answer_as_reads_and_a_write_forgets_them() {
        use crate::{ColumnValue::Text, Read};
        let (_dir, tenant) = tenant();
        let parent = |p: &str| [Text(p.into())];
        tenant
            .write(|w| {
                w.insert(&THINGS, "a", 1, "{\"n\":1}", &parent("x"))?;
                w.insert(&PAIRS, "q", 1, "{}", &[Text("1".into()), Text("2".into())])
            })
            .unwrap();
        let reads = [
            Read::Get(&THINGS, "a"),
            Read::Where(&THINGS, vec![("parent", "x")], &[]),
            Read::Get(&PAIRS, "q"),
        ];
        for deferring in [false, true] {
            tenant
                .write(|w| {
                    if deferring {
                        w.defer_writes();
                    }
                    let read_all = |w: &crate::Writer<'_>| {
                        reads.iter().map(|r| w.records(r)).collect::<crate::Result<Vec<_>>>()
                    };
                    let plain = read_all(w)?;
                    w.prefetch(&reads)?;
                    assert_eq!(read_all(w)?, plain);
                    w.prefetch(&reads)?;
                    assert!(w.update(&THINGS, "a", 2, "{\"n\":2}", &parent("y"))?);
                    assert_eq!(w.records(&reads[0])?[0].body, "{\"n\":2}");
                    assert!(w.records(&reads[1])?.is_empty());
                    assert_eq!(w.records(&reads[2])?, plain[2]);
                    Ok::<_, crate::Error>(())
                })
                .unwrap();
            tenant.write(|w| w.update(&THINGS, "a", 1, "{\"n\":1}", &parent("x"))).unwrap();
        }
    }

    /// Reads that follow from a key answer as the reads they make, whatever the key's
    /// read finds: several keys, a key whose read finds nothing, no key, a NULL one. On
    /// PostgreSQL they are kept as those reads, and each is taken once.
    #[test]
    fn reads_that_follow_from_a_key_are_kept_as_the_reads_they_make() {
        use crate::ColumnValue::{Null, Text};
        use crate::{Key, Read};
        let (_dir, tenant) = tenant();
        tenant
            .write(|w| {
                for (id, parent) in [("a", Text("x".into())), ("b", Text("x".into())), ("c", Null)]
                {
                    w.insert(&THINGS, id, 1, &format!("{{\"id\":\"{id}\"}}"), &[parent])?;
                }
                w.insert(&THINGS, "d", 1, "{}", &[Text("y".into())])?;
                for (id, a, b) in [("p1", "x", "open"), ("p2", "x", "closed"), ("p3", "z", "open")]
                {
                    w.insert(&PAIRS, id, 1, "{}", &[Text(a.into()), Text(b.into())]).map(|_| ())?;
                }
                Ok::<_, crate::Error>(())
            })
            .unwrap();
        let key = |by, value, column| Key { table: &THINGS, by, value, column };
        let thing: fn(&str) -> Read<'_> = |id| Read::Get(&THINGS, id);
        let open_pairs: fn(&str) -> Read<'_> =
            |a| Read::Where(&PAIRS, vec![("a", a)], &[("b", "open")]);
        let vias = [
            (Read::Via(key("parent", "x", "id"), thing), vec!["a", "b"]),
            (Read::Via(key("id", "a", "parent"), open_pairs), vec!["x"]),
            (Read::Via(key("id", "d", "parent"), open_pairs), vec!["y"]),
            (Read::Via(key("id", "none", "parent"), open_pairs), vec![]),
            (Read::Via(key("id", "c", "parent"), open_pairs), vec![]),
        ];
        let postgres = crate::testing::postgres_url().is_some();
        tenant
            .write(|w| {
                let plain: Vec<_> =
                    vias.iter().map(|(via, _)| w.records(via)).collect::<crate::Result<_>>()?;
                assert_eq!(plain[0].iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
                assert_eq!(plain[1].iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["p1"]);
                assert!(plain[2..].iter().all(Vec::is_empty));
                w.prefetch(&vias.iter().map(|(via, _)| via.clone()).collect::<Vec<_>>())?;
                assert_eq!(w.prefetched(), if postgres { 4 } else { 0 });
                for ((via, keys), plain) in vias.iter().zip(&plain) {
                    let Read::Via(_, then) = via else { unreachable!() };
                    let mut records = Vec::new();
                    for key in keys {
                        records.extend(w.records(&then(key))?);
                    }
                    assert_eq!(&records, plain, "{via:?}");
                }
                assert_eq!(w.prefetched(), 0, "each answer taken once");
                Ok::<_, crate::Error>(())
            })
            .unwrap();
    }

    /// A deferred write that fails fails the whole write, whose other writes are then
    /// rolled back; inside an attempt it fails the attempt only.
    #[test]
    fn a_failed_deferred_write_fails_its_write_or_attempt() {
        let (_dir, tenant) = tenant();
        let parent = || [crate::ColumnValue::Text("p".into())];
        tenant.write(|w| w.insert(&THINGS, "taken", 1, "{}", &parent())).unwrap();
        let before = tenant.read(|r| r.last_seq()).unwrap();
        let failed = tenant.write(|w| {
            w.defer_writes();
            w.insert(&THINGS, "lost", 1, "{}", &parent())?;
            w.insert(&THINGS, "taken", 1, "{}", &parent())
        });
        match (failed, crate::testing::postgres_url().is_some()) {
            (Err(crate::Error::Deferred { what, source }), true) => {
                assert!(what.contains("things taken"), "{what}");
                assert!(matches!(*source, crate::Error::Unique { .. }), "{source:?}");
            }
            // SQLite answers the insert itself.
            (Err(crate::Error::DuplicateId { .. }), false) => {}
            other => panic!("a second record with one id: {other:?}"),
        }
        tenant
            .write(|w| {
                w.defer_writes();
                w.insert(&THINGS, "kept", 1, "{}", &parent())?;
                let failed: crate::Result<()> = w.attempt(|w| {
                    w.insert(&THINGS, "undone", 1, "{}", &parent())?;
                    w.insert(&THINGS, "taken", 1, "{}", &parent())
                });
                assert!(failed.is_err());
                w.insert(&THINGS, "after", 1, "{}", &parent())
            })
            .unwrap();
        tenant
            .read(|r| {
                assert!(!r.exists(&THINGS, "lost")? && !r.exists(&THINGS, "undone")?);
                let changes = r.changes_since(before, 10)?;
                let ids: Vec<&str> = changes.iter().map(|c| c.record_id.as_str()).collect();
                assert_eq!(ids, ["kept", "after"]);
                Ok::<_, crate::Error>(())
            })
            .unwrap();
    }

    /// A record found to exist is remembered for the transaction, and forgotten when
    /// the writer deletes it or an attempt that found it fails.
    #[test]
    fn an_existing_record_is_remembered_until_deleted() {
        let (_dir, tenant) = tenant();
        let parent = || [crate::ColumnValue::Text("p".into())];
        tenant.write(|w| w.insert(&THINGS, "a", 1, "{}", &parent())).unwrap();
        tenant
            .write(|w| {
                assert!(!w.exists_remembered(&THINGS, "b")?, "a missing record is not remembered");
                w.insert(&THINGS, "b", 1, "{}", &parent())?;
                assert!(w.exists_remembered(&THINGS, "b")?);
                assert!(w.exists_remembered(&THINGS, "a")?);
                w.delete(&THINGS, "a")?;
                assert!(!w.exists_remembered(&THINGS, "a")?, "deleted through the writer");

                let failed: crate::Result<()> = w.attempt(|w| {
                    w.insert(&THINGS, "c", 1, "{}", &parent())?;
                    assert!(w.exists_remembered(&THINGS, "c")?);
                    Err(crate::Error::Database("undone".into()))
                });
                assert!(failed.is_err());
                assert!(
                    !w.exists_remembered(&THINGS, "c")?,
                    "the failed attempt's insert is undone"
                );
                Ok::<_, crate::Error>(())
            })
            .unwrap();
    }

    /// A bookkeeping table (no record type) is written without change-log rows.
    #[test]
    fn a_table_without_a_record_type_is_not_logged() {
        let (_dir, tenant) = tenant();
        let unlogged = crate::RecordTable { record_type: "", ..THINGS };
        let before = tenant.read(|r| r.last_seq()).unwrap();
        tenant
            .write(|w| {
                w.insert(&unlogged, "quiet", 1, "{}", &[crate::ColumnValue::Null])?;
                w.insert(&THINGS, "heard", 1, "{}", &[crate::ColumnValue::Null])
            })
            .unwrap();
        let changes = tenant.read(|r| r.changes_since(before, 10)).unwrap();
        let ids: Vec<&str> = changes.iter().map(|c| c.record_id.as_str()).collect();
        assert_eq!(ids, ["heard"]);
        assert!(tenant.read(|r| r.exists(&THINGS, "quiet")).unwrap());
    }

    /// A put inserts a bookkeeping row or replaces it in place; a logged table is refused
    /// it, as its change must say whether it created or updated.
    #[test]
    fn a_put_inserts_or_replaces_an_unlogged_row() {
        let (_dir, tenant) = tenant();
        let unlogged = crate::RecordTable { record_type: "", ..THINGS };
        let parent = |p: &str| [crate::ColumnValue::Text(p.to_string())];
        tenant.write(|w| w.put(&unlogged, "row", 1, r#"{"n":1}"#, &parent("a"))).unwrap();
        tenant.write(|w| w.put(&unlogged, "row", 2, r#"{"n":2}"#, &parent("b"))).unwrap();
        let row = tenant.read(|r| r.get(&unlogged, "row")).unwrap().unwrap();
        assert_eq!((row.version, row.body.as_str()), (2, r#"{"n":2}"#));
        let found = tenant.read(|r| r.find_by(&unlogged, "parent", "b")).unwrap();
        assert_eq!(found.len(), 1);
    }

    #[test]
    #[should_panic(expected = "is logged")]
    fn a_put_is_refused_a_logged_table() {
        let (_dir, tenant) = tenant();
        let _ = tenant.write(|w| w.put(&THINGS, "row", 1, "{}", &[crate::ColumnValue::Null]));
    }

    /// A scan in stored order pages through every record once, in the order they were
    /// written (not their ids' order), skipping deleted ones; on a connection without
    /// the memory map as on a pooled one.
    #[test]
    fn a_scan_in_stored_order_reads_each_record_once_in_write_order() {
        let (_dir, tenant) = tenant();
        tenant
            .write(|w| {
                for n in (0..600).rev() {
                    let parent = crate::ColumnValue::Text("p".to_string());
                    w.insert(&THINGS, &format!("id{n:04}"), 1, "{}", &[parent])?;
                }
                for n in (0..600).step_by(5) {
                    assert!(w.delete(&THINGS, &format!("id{n:04}"))?);
                }
                Ok::<_, crate::Error>(())
            })
            .unwrap();
        let expected: Vec<String> =
            (0..600).rev().filter(|n| n % 5 != 0).map(|n| format!("id{n:04}")).collect();
        let scan = |r: &crate::Reader<'_>| {
            let (mut after, mut seen) = (None, Vec::new());
            loop {
                let (page, last) = r.scan_stored(&THINGS, after, 250)?;
                if page.is_empty() {
                    assert_eq!(last, None);
                    break;
                }
                seen.extend(page.into_iter().map(|p| p.id));
                after = last;
            }
            Ok::<_, crate::Error>(seen)
        };
        assert_eq!(tenant.read_bulk(scan).unwrap(), expected);
        assert_eq!(tenant.read(scan).unwrap(), expected);
    }

    #[test]
    fn an_update_of_changed_columns_keeps_the_others_and_logs_once() {
        use crate::ColumnValue::{Null, Text};
        let (_dir, tenant) = tenant();
        let before = tenant.read(|r| r.last_seq()).unwrap();
        tenant
            .write(|w| {
                w.insert(&PAIRS, "x", 1, r#"{"n":1}"#, &[Text("k1".into()), Text("open".into())])?;
                let (stored, previous) = w.get_with_columns(&PAIRS, "x")?.expect("stored");
                assert_eq!(stored.version, 1);
                assert_eq!(previous, [Text("k1".into()), Text("open".into())]);
                // Only b changes; a is left as stored.
                let columns = [Text("k1".into()), Null];
                assert!(w.update_changed(&PAIRS, ("x", 2, r#"{"n":2}"#), &columns, &previous)?);
                assert!(!w.update_changed(&PAIRS, ("nope", 2, "{}"), &columns, &previous)?);
                Ok::<_, crate::Error>(())
            })
            .unwrap();
        tenant
            .read(|r| {
                let (version, columns) = r.version_and_columns(&PAIRS, "x")?.expect("stored");
                assert_eq!(version, 2);
                assert_eq!(columns, [Text("k1".into()), Null]);
                assert_eq!(r.get(&PAIRS, "x")?.expect("stored").body, r#"{"n":2}"#);
                assert_eq!(r.get_column(&PAIRS, "x", "a")?, Some(Some("k1".into())));
                assert_eq!(r.get_column(&PAIRS, "x", "b")?, Some(None));
                assert_eq!(r.get_column(&PAIRS, "nope", "a")?, None);
                // The partial index no longer holds x, and a constant finds by it.
                assert!(r.find_where_const(&PAIRS, &[("a", "k1")], &[("b", "open")])?.is_empty());
                assert_eq!(r.find_where(&PAIRS, &[("a", "k1")])?.len(), 1);
                // One create and one update in the change log, not a failed update.
                assert_eq!(r.changes_since(before, 10)?.len(), 2);
                let last = r.last_seq()?;
                assert_eq!(r.count_changes(before, last, &[PAIRS.record_type])?, 2);
                assert_eq!(r.count_changes(before, last - 1, &[PAIRS.record_type])?, 1);
                assert_eq!(r.count_changes(before, last, &["other"])?, 0);
                Ok::<_, crate::Error>(())
            })
            .unwrap();
    }

    #[test]
    fn an_update_of_a_record_read_takes_the_next_version() {
        use crate::ColumnValue::{Null, Text};
        let (_dir, tenant) = tenant();
        let read = [Text("k1".into()), Text("open".into())];
        tenant
            .write(|w| {
                w.insert(&PAIRS, "x", 4, r#"{"n":1}"#, &read)?;
                let columns = [Text("k1".into()), Null];
                assert!(w.update_read(&PAIRS, ("x", r#"{"n":2}"#), &columns, &read)?);
                assert!(!w.update_read(&PAIRS, ("nope", "{}"), &columns, &read)?);
                Ok::<_, crate::Error>(())
            })
            .unwrap();
        tenant
            .read(|r| {
                let (version, columns) = r.version_and_columns(&PAIRS, "x")?.expect("stored");
                assert_eq!(version, 5);
                assert_eq!(columns, [Text("k1".into()), Null]);
                assert_eq!(r.get(&PAIRS, "x")?.expect("stored").body, r#"{"n":2}"#);
                assert!(r.find_where_const(&PAIRS, &[("a", "k1")], &[("b", "open")])?.is_empty());
                Ok::<_, crate::Error>(())
            })
            .unwrap();
    }

    #[test]
    fn a_record_is_read_through_the_column_that_names_it() {
        use crate::ColumnValue::{Null, Text};
        let (_dir, tenant) = tenant();
        tenant
            .write(|w| {
                w.insert(&THINGS, "mom", 1, r#"{"n":"mom"}"#, &[Null])?;
                w.insert(&THINGS, "kid", 1, r#"{"n":"kid"}"#, &[Text("mom".into())])?;
                w.insert(&THINGS, "stray", 1, r#"{"n":"stray"}"#, &[Text("gone".into())])?;
                Ok::<_, crate::Error>(())
            })
            .unwrap();
        tenant
            .read(|r| {
                let parent = |id: &str| r.get_named_by(&THINGS, (&THINGS, id, "parent"));
                assert_eq!(parent("kid")?.expect("mom").body, r#"{"n":"mom"}"#);
                assert_eq!(parent("mom")?, None);
                assert_eq!(parent("stray")?, None);
                assert_eq!(parent("nobody")?, None);
                Ok::<_, crate::Error>(())
            })
            .unwrap();
    }

    #[test]
    fn checkpoints_empty_the_wal_and_keep_the_data() {
        let (_dir, tenant) = crate::fixtures::sqlite_tenant();
        tenant
            .write(|w| {
                for n in 0..200 {
                    w.insert(&THINGS, &format!("id{n}"), 1, "{}", &[crate::ColumnValue::Null])?;
                }
                Ok::<_, crate::Error>(())
            })
            .unwrap();
        let wal = tenant.dir().join("quire.sqlite-wal");
        let grown = std::fs::metadata(&wal).unwrap().len();
        assert!(grown > 0);
        // A reader between transactions does not hold it back.
        tenant.read(|r| r.count(&THINGS)).unwrap();
        // In place: the file stays, and the next transaction writes from its start.
        assert!(tenant.checkpoint_in_place().unwrap());
        assert_eq!(std::fs::metadata(&wal).unwrap().len(), grown);
        tenant
            .write(|w| w.insert(&THINGS, "one more", 1, "{}", &[crate::ColumnValue::Null]))
            .unwrap();
        assert_eq!(std::fs::metadata(&wal).unwrap().len(), grown, "overwritten, not appended");
        assert!(tenant.checkpoint().unwrap());
        assert_eq!(std::fs::metadata(&wal).unwrap().len(), 0);
        assert_eq!(tenant.read(|r| r.count(&THINGS)).unwrap(), 201);
    }
}

#[cfg(test)]
mod sequence_tests {
    use crate::Store;

    #[test]
    fn sequences_continue_across_transactions_and_roll_back_with_them() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), crate::testing::options(), &[]).unwrap();
        let (tenant, _) = store.create_tenant("t").unwrap();
        let first: Vec<i64> = tenant
            .write(|w| (0..3).map(|_| w.next_sequence("hrid", 1)).collect::<crate::Result<_>>())
            .unwrap();
        assert_eq!(first, [1, 2, 3]);
        // A failed transaction gives its numbers back.
        let failed: crate::Result<()> = tenant.write(|w| {
            w.next_sequence("hrid", 1)?;
            Err(crate::Error::Corrupt("abort".into()))
        });
        assert!(failed.is_err());
        let next = tenant.write(|w| w.next_sequence("hrid", 1)).unwrap();
        assert_eq!(next, 4);
        assert_eq!(tenant.read(|r| r.last_seq()).unwrap(), 0, "counters are not records");
    }
}
