//! One way to run a statement on either database a tenant can live in: SQLite (the
//! embedded default) or PostgreSQL (`postgres.rs`). Statements are written once, in SQL
//! both accept, with SQLite's `?N` (or `?`) placeholders; PostgreSQL gets `$N` as a
//! statement is prepared. Values go in as [`Param`]s and come out through [`Row`], so the
//! record layer above (`record.rs`) has one body for both.

use crate::{ColumnValue, Error, Result, postgres::Session};

/// Which SQL a statement must be written in, where the two differ (DDL, JSON functions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Sqlite,
    Postgres,
}

/// A value bound to a placeholder, borrowed: a record's body is never copied to be bound.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Param<'p> {
    Null,
    Int(i64),
    Text(&'p str),
}

impl ColumnValue {
    pub(crate) fn param(&self) -> Param<'_> {
        match self {
            ColumnValue::Null => Param::Null,
            ColumnValue::Int(n) => Param::Int(*n),
            ColumnValue::Text(s) => Param::Text(s),
        }
    }
}

impl<'p> From<&'p str> for Param<'p> {
    fn from(s: &'p str) -> Self {
        Param::Text(s)
    }
}

impl From<i64> for Param<'_> {
    fn from(n: i64) -> Self {
        Param::Int(n)
    }
}

impl<'p> From<Option<&'p str>> for Param<'p> {
    fn from(s: Option<&'p str>) -> Self {
        s.map_or(Param::Null, Param::Text)
    }
}

impl rusqlite::ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{Null, ToSqlOutput};
        Ok(match self {
            Param::Null => ToSqlOutput::from(Null),
            Param::Int(n) => ToSqlOutput::from(*n),
            Param::Text(s) => ToSqlOutput::from(*s),
        })
    }
}

/// The statement handle of one transaction, on whichever database.
#[derive(Clone, Copy)]
pub(crate) enum Tx<'a> {
    Sqlite(&'a rusqlite::Transaction<'a>),
    Postgres(&'a Session),
}

impl<'a> Tx<'a> {
    pub(crate) fn dialect(self) -> Dialect {
        match self {
            Tx::Sqlite(_) => Dialect::Sqlite,
            Tx::Postgres(_) => Dialect::Postgres,
        }
    }

    /// Every row `sql` returns, each read by `f`.
    pub(crate) fn query<T>(
        self,
        sql: &str,
        params: &[Param<'_>],
        mut f: impl FnMut(&Row<'_>) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut out = Vec::new();
        match self {
            Tx::Sqlite(tx) => {
                let mut stmt = tx.prepare_cached(sql)?;
                let mut rows = stmt.query(rusqlite::params_from_iter(params.iter()))?;
                while let Some(row) = rows.next()? {
                    out.push(f(&Row::Sqlite(row))?);
                }
            }
            Tx::Postgres(session) => {
                for row in session.query(sql, params)? {
                    out.push(f(&Row::Postgres(&row))?);
                }
            }
        }
        Ok(out)
    }

    /// The first row `sql` returns, if any, read by `f`.
    pub(crate) fn query_opt<T>(
        self,
        sql: &str,
        params: &[Param<'_>],
        f: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<Option<T>> {
        match self {
            Tx::Sqlite(tx) => {
                let mut stmt = tx.prepare_cached(sql)?;
                let mut rows = stmt.query(rusqlite::params_from_iter(params.iter()))?;
                rows.next()?.map(|row| f(&Row::Sqlite(row))).transpose()
            }
            Tx::Postgres(session) => {
                session.query(sql, params)?.first().map(|row| f(&Row::Postgres(row))).transpose()
            }
        }
    }

    /// The one row `sql` returns (an aggregate's), read by `f`.
    pub(crate) fn query_one<T>(
        self,
        sql: &str,
        params: &[Param<'_>],
        f: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        self.query_opt(sql, params, f)?.ok_or_else(|| Error::Database(format!("no row from {sql}")))
    }

    /// Runs a statement that returns no rows; how many rows it changed.
    pub(crate) fn execute(self, sql: &str, params: &[Param<'_>]) -> Result<u64> {
        match self {
            Tx::Sqlite(tx) => {
                let mut stmt = tx.prepare_cached(sql)?;
                Ok(stmt.execute(rusqlite::params_from_iter(params.iter()))? as u64)
            }
            Tx::Postgres(session) => session.execute(sql, params),
        }
    }

    /// Runs statements without parameters, several at once (savepoints, DDL).
    pub(crate) fn batch(self, sql: &str) -> Result<()> {
        match self {
            Tx::Sqlite(tx) => Ok(tx.execute_batch(sql)?),
            Tx::Postgres(session) => session.batch(sql),
        }
    }

    /// Opens a savepoint (`sql`): at once on SQLite; on PostgreSQL with the next
    /// statement, in its round trip ([`Session::savepoint_with_next`]).
    pub(crate) fn savepoint(self, sql: &str) -> Result<()> {
        match self {
            Tx::Sqlite(tx) => Ok(tx.execute_batch(sql)?),
            Tx::Postgres(session) => session.savepoint_with_next(sql),
        }
    }

    /// Whether a savepoint [`Tx::savepoint`] sent with a statement failed: the
    /// transaction can then only be rolled back. (SQLite's fail at once.)
    pub(crate) fn savepoint_failed(self) -> bool {
        match self {
            Tx::Sqlite(_) => false,
            Tx::Postgres(session) => session.savepoint_failed(),
        }
    }

    /// Sends the writes deferred on PostgreSQL ([`Session::defer`]) and waits for them.
    pub(crate) fn send_deferred(self) -> Result<()> {
        match self {
            Tx::Sqlite(_) => Ok(()),
            Tx::Postgres(session) => session.send_deferred(),
        }
    }

    /// Reads `reads` ahead of their use, in one round trip on PostgreSQL (a query asking
    /// the same then takes its answer); SQLite answers in-process, and reads nothing
    /// ahead.
    pub(crate) fn prefetch(
        self,
        reads: impl FnOnce() -> Vec<crate::postgres::Ahead>,
    ) -> Result<()> {
        match self {
            Tx::Sqlite(_) => Ok(()),
            Tx::Postgres(session) => session.prefetch(reads()),
        }
    }

    /// How many answers read ahead wait to be taken.
    #[cfg(test)]
    pub(crate) fn prefetched(self) -> usize {
        match self {
            Tx::Sqlite(_) => 0,
            Tx::Postgres(session) => session.prefetched_count(),
        }
    }

    /// Forgets what was read ahead of `table`, which the transaction is about to write.
    pub(crate) fn forget_prefetched(self, table: &str) {
        if let Tx::Postgres(session) = self {
            session.forget_prefetched(Some(table));
        }
    }

    /// Drops the deferred writes unsent, as their savepoint or transaction rolls back.
    pub(crate) fn discard_deferred(self) {
        if let Tx::Postgres(session) = self {
            session.discard_deferred();
        }
    }

    /// The highest change-log sequence number the deferred writes sent since the last
    /// call were given.
    pub(crate) fn take_deferred_seq(self) -> Option<i64> {
        match self {
            Tx::Sqlite(_) => None,
            Tx::Postgres(session) => session.take_deferred_seq(),
        }
    }

    /// The cached tables' counter as a PostgreSQL write's `BEGIN` read it
    /// ([`crate::postgres::Session::begin_write`]), once that has gone.
    pub(crate) fn begun_generation(self) -> Option<i64> {
        match self {
            Tx::Sqlite(_) => None,
            Tx::Postgres(session) => match session.begun_value()? {
                None => Some(0),
                Some(counter) => counter.parse().ok(),
            },
        }
    }

    /// Whether the database has given the transaction up (SQLite rolls a whole
    /// transaction back on a full disk or an I/O error; PostgreSQL ends it when the
    /// connection is lost).
    pub(crate) fn lost(self) -> bool {
        match self {
            Tx::Sqlite(tx) => tx.is_autocommit(),
            Tx::Postgres(session) => session.is_closed(),
        }
    }
}

/// A row, read by position.
pub(crate) enum Row<'r> {
    Sqlite(&'r rusqlite::Row<'r>),
    Postgres(&'r tokio_postgres::Row),
}

impl Row<'_> {
    pub(crate) fn len(&self) -> usize {
        match self {
            Row::Sqlite(row) => row.as_ref().column_count(),
            Row::Postgres(row) => row.len(),
        }
    }

    /// Column `i` as an extracted column's value: NULL, an integer or text.
    pub(crate) fn value(&self, i: usize) -> Result<ColumnValue> {
        match self {
            Row::Sqlite(row) => {
                use rusqlite::types::ValueRef;
                Ok(match row.get_ref(i)? {
                    ValueRef::Null => ColumnValue::Null,
                    ValueRef::Integer(n) => ColumnValue::Int(n),
                    ValueRef::Text(t) => ColumnValue::Text(
                        std::str::from_utf8(t)
                            .map_err(|e| Error::Corrupt(format!("column {i}: {e}")))?
                            .to_string(),
                    ),
                    other => {
                        return Err(Error::Corrupt(format!(
                            "column {i} holds {}, not text or an integer",
                            other.data_type()
                        )));
                    }
                })
            }
            Row::Postgres(row) => crate::postgres::value(row, i),
        }
    }

    pub(crate) fn opt_int(&self, i: usize) -> Result<Option<i64>> {
        match self.value(i)? {
            ColumnValue::Null => Ok(None),
            ColumnValue::Int(n) => Ok(Some(n)),
            ColumnValue::Text(t) => Err(Error::Corrupt(format!("column {i} holds text {t:?}"))),
        }
    }

    pub(crate) fn int(&self, i: usize) -> Result<i64> {
        self.opt_int(i)?.ok_or_else(|| Error::Corrupt(format!("column {i} is NULL")))
    }

    pub(crate) fn opt_text(&self, i: usize) -> Result<Option<String>> {
        match self {
            Row::Sqlite(row) => Ok(row.get(i)?),
            Row::Postgres(_) => match self.value(i)? {
                ColumnValue::Null => Ok(None),
                ColumnValue::Text(t) => Ok(Some(t)),
                ColumnValue::Int(n) => Err(Error::Corrupt(format!("column {i} holds {n}"))),
            },
        }
    }

    pub(crate) fn text(&self, i: usize) -> Result<String> {
        self.opt_text(i)?.ok_or_else(|| Error::Corrupt(format!("column {i} is NULL")))
    }
}

/// `sql` with SQLite's placeholders (`?N`, or `?` numbered in order) as PostgreSQL's
/// `$N`. A `?` inside a quoted literal or identifier is left alone.
pub(crate) fn numbered_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut chars = sql.chars().peekable();
    let (mut quote, mut next) = (None, 1);
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, '?') => {
                let mut digits = String::new();
                while let Some(d) = chars.next_if(char::is_ascii_digit) {
                    digits.push(d);
                }
                out.push('$');
                if digits.is_empty() {
                    out.push_str(&next.to_string());
                    next += 1;
                } else {
                    out.push_str(&digits);
                }
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn placeholders_are_numbered_for_postgres() {
        use super::numbered_placeholders as n;
        assert_eq!(
            n("SELECT a FROM t WHERE id = ?1 AND b > ?12"),
            "SELECT a FROM t WHERE id = $1 AND b > $12"
        );
        assert_eq!(n("x IN (?, ?, ?)"), "x IN ($1, $2, $3)");
        assert_eq!(n("a = '?' AND b = ? AND \"c?\" = ?"), "a = '?' AND b = $1 AND \"c?\" = $2");
    }
}
