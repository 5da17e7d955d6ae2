//! PostgreSQL as a store's database: one schema per tenant (`<tenant>_quire`, after
//! FOLIO's `<tenant>_<module>`) in one database, reached through a pool of connections
//! the whole store shares.
//!
//! A transaction names its tenant's schema (`SET LOCAL search_path`) in the same round
//! trip as its `BEGIN`, so any pooled connection serves any tenant. A tenant's writes
//! are serialised as SQLite's are, across every process on the database, by a
//! transaction-scoped advisory lock keyed by the tenant: the change log's sequence
//! numbers are then assigned in commit order, which followers rely on to read "every
//! change after N" without missing one that commits late, and the domain rules that
//! read before they write (one open loan per item, a request queue's positions) hold
//! for writers on different nodes as they do for threads of one process.

use std::{
    cell::RefCell,
    collections::HashMap,
    future::Future,
    sync::{Arc, Mutex},
    task::{Context, Poll, Wake},
    time::Duration,
};

use tokio_postgres::{
    Client, NoTls, Statement,
    types::{IsNull, ToSql, Type, to_sql_checked},
};

use crate::{
    ColumnValue, Error, Result, StoredRecord,
    record::stored_record,
    sql::{Param, Tx, numbered_placeholders},
};

/// How many prepared statements a connection keeps; past it the cache starts over (a
/// listing's `LIMIT` and `OFFSET` are written into its SQL, so the set is open).
const STATEMENTS_KEPT: usize = 512;

/// The connections of one store.
///
/// Why tokio-postgres with a runtime of its own rather than the blocking `postgres`
/// crate: that crate runs each call on a runtime it enters on the calling thread, which
/// panics on a thread that is already driving async tasks, and in a destructor that
/// aborts the process. Here the sockets are driven on the pool's own thread, and a
/// caller only waits for a channel ([`wait`]), which any thread may do.
pub(crate) struct Pool {
    config: tokio_postgres::Config,
    idle: Mutex<Vec<Session>>,
    max_idle: usize,
    // Drives every connection's socket; shut down without waiting when the pool goes.
    runtime: Option<tokio::runtime::Runtime>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").finish_non_exhaustive()
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Pool {
    /// A pool for the database at `url` (`postgresql://user@host:port/db`); connects
    /// once to check it.
    pub(crate) fn connect(url: &str, max_idle: usize) -> Result<Pool> {
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| Error::Database(format!("invalid PostgreSQL URL {url:?}: {e}")))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        config.application_name("quire");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("postgres-io")
            .enable_all()
            .build()
            .map_err(|e| Error::Database(format!("cannot start PostgreSQL's I/O thread: {e}")))?;
        let pool = Pool { config, idle: Mutex::new(Vec::new()), max_idle, runtime: Some(runtime) };
        let session = pool.get()?;
        pool.put(session);
        Ok(pool)
    }

    /// A connection: an idle one, or a new one.
    pub(crate) fn get(&self) -> Result<Session> {
        let idle = self.idle.lock().unwrap().pop();
        if let Some(session) = idle
            && !session.is_closed()
        {
            return Ok(session);
        }
        let (sent, received) = std::sync::mpsc::channel();
        let config = self.config.clone();
        self.runtime().spawn(async move {
            match config.connect(NoTls).await {
                Ok((client, connection)) => {
                    let _ = sent.send(Ok(client));
                    // Runs until the client is dropped or the server goes.
                    let _ = connection.await;
                }
                Err(e) => {
                    let _ = sent.send(Err(e));
                }
            }
        });
        let client = received
            .recv()
            .map_err(|_| Error::Database("PostgreSQL's I/O thread stopped".to_string()))?
            .map_err(|e| {
                Error::Database(format!("cannot connect to PostgreSQL: {}", error_text(&e)))
            })?;
        Ok(Session { client, statements: RefCell::new(HashMap::new()) })
    }

    /// Gives a connection back, outside any transaction.
    pub(crate) fn put(&self, session: Session) {
        if session.is_closed() {
            return;
        }
        let mut idle = self.idle.lock().unwrap();
        if idle.len() < self.max_idle {
            idle.push(session);
        }
    }
}

/// The channel every commit on PostgreSQL is announced on, as `<schema> <seq>`: a
/// node's followers wake for another node's writes at once, not at their next poll.
pub(crate) const CHANGES_CHANNEL: &str = "quire_changes";

impl Pool {
    fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime.as_ref().expect("a pool's runtime lives as long as it")
    }

    /// Calls `heard(schema, seq)` for each commit any process announces on the
    /// database, on the pool's I/O thread, for as long as the pool lives. `heard` must
    /// not block: every connection's I/O waits while it runs. A dropped
    /// connection is made again a second later; what was announced meanwhile is missed,
    /// which followers' polls of the change log make up for.
    pub(crate) fn listen(&self, heard: impl Fn(&str, i64) + Send + Sync + 'static) {
        let config = self.config.clone();
        self.runtime().spawn(async move {
            loop {
                if let Ok((client, mut connection)) = config.connect(NoTls).await {
                    let sql = format!("LISTEN {CHANGES_CHANNEL}");
                    let mut listen = std::pin::pin!(client.batch_execute(&sql));
                    let mut listening = false;
                    loop {
                        // The connection is polled for its messages while the LISTEN
                        // itself goes through it.
                        let message = std::future::poll_fn(|cx| {
                            if !listening && let Poll::Ready(result) = listen.as_mut().poll(cx) {
                                listening = true;
                                if result.is_err() {
                                    return Poll::Ready(None);
                                }
                            }
                            connection.poll_message(cx)
                        })
                        .await;
                        match message {
                            Some(Ok(tokio_postgres::AsyncMessage::Notification(note))) => {
                                if let Some((schema, seq)) = note.payload().split_once(' ')
                                    && let Ok(seq) = seq.parse()
                                {
                                    heard(schema, seq);
                                }
                            }
                            Some(Ok(_)) => {}
                            Some(Err(_)) | None => break,
                        }
                    }
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
    }
}

/// Waits on this thread for a future whose I/O another thread does (a client's request
/// to its connection): parks until woken, so it needs no runtime of its own.
fn wait<F: Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Arc::new(Unpark(std::thread::current())).into();
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
        std::thread::park();
    }
}

/// One connection, with its prepared statements.
pub(crate) struct Session {
    client: Client,
    statements: RefCell<HashMap<String, Statement>>,
}

impl Session {
    pub(crate) fn is_closed(&self) -> bool {
        self.client.is_closed()
    }

    fn statement(&self, sql: &str) -> Result<Statement> {
        if let Some(statement) = self.statements.borrow().get(sql) {
            return Ok(statement.clone());
        }
        let statement = wait(self.client.prepare(&numbered_placeholders(sql)))?;
        let mut statements = self.statements.borrow_mut();
        if statements.len() >= STATEMENTS_KEPT {
            statements.clear();
        }
        statements.insert(sql.to_string(), statement.clone());
        Ok(statement)
    }

    pub(crate) fn query(
        &self,
        sql: &str,
        params: &[Param<'_>],
    ) -> Result<Vec<tokio_postgres::Row>> {
        let statement = self.statement(sql)?;
        let params: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as _).collect();
        Ok(wait(self.client.query(&statement, &params))?)
    }

    pub(crate) fn execute(&self, sql: &str, params: &[Param<'_>]) -> Result<u64> {
        let statement = self.statement(sql)?;
        let params: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as _).collect();
        Ok(wait(self.client.execute(&statement, &params))?)
    }

    pub(crate) fn batch(&self, sql: &str) -> Result<()> {
        Ok(wait(self.client.batch_execute(sql))?)
    }

    /// Starts a transaction in `schema`: a read-only snapshot, or a write that holds the
    /// tenant's write lock (`lock`) until it ends.
    pub(crate) fn begin(&self, schema: &str, write_lock: Option<i64>) -> Result<()> {
        let sql = match write_lock {
            None => format!(
                "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL search_path TO \"{schema}\", public"
            ),
            Some(key) => format!(
                "BEGIN; SET LOCAL search_path TO \"{schema}\", public; SELECT pg_advisory_xact_lock({key})"
            ),
        };
        self.batch(&sql)
    }

    /// Ends the transaction: commits it on `Ok`, rolls it back otherwise.
    pub(crate) fn end(&self, commit: bool) -> Result<()> {
        self.batch(if commit { "COMMIT" } else { "ROLLBACK" })
    }
}

/// The advisory-lock key of a tenant's writes: its schema name hashed (FNV-1a), so
/// every process derives the same key.
pub(crate) fn lock_key(schema: &str) -> i64 {
    crate::ids::fnv1a(crate::ids::FNV_START, schema.as_bytes()) as i64
}

/// The advisory-lock key that serialises creating schemas and extensions.
pub(crate) const SETUP_LOCK: i64 = 0x7175_6972_6500; // "quire\0"

/// The schema of a tenant.
pub(crate) fn schema_of(tenant: &str) -> String {
    format!("{tenant}_quire")
}

/// The tenant of a schema, if it is one of ours.
pub(crate) fn tenant_of(schema: &str) -> Option<&str> {
    schema.strip_suffix("_quire").filter(|t| crate::validate_tenant_name(t).is_ok())
}

/// [`crate::Reader::scan_stored`] on PostgreSQL: pages in the order of the rows'
/// addresses (`ctid`), read a window of blocks at a time (a TID range scan), so a pass
/// over the table reads it front to back as SQLite's rowid order does. A position is
/// an address as `block << 16 | offset`.
pub(crate) fn scan_stored(
    tx: Tx<'_>,
    table: &str,
    after: Option<i64>,
    limit: usize,
) -> Result<(Vec<StoredRecord>, Option<i64>)> {
    let blocks = tx.query_one(
        "SELECT pg_relation_size(?1::text::regclass) / current_setting('block_size')::bigint",
        &[table.into()],
        |row| row.int(0),
    )?;
    let sql = format!(
        "SELECT id, version, body, ctid::text AS address FROM {table} \
         WHERE ctid > ?1::text::tid AND ctid < ?2::text::tid ORDER BY ctid LIMIT ?3"
    );
    let (mut block, mut offset) = after.map_or((0, 0), |p| (p >> 16, p & 0xffff));
    let (mut out, mut last, mut window) = (Vec::new(), None, 64);
    while out.len() < limit && block < blocks {
        let (from, to) = (format!("({block},{offset})"), format!("({},0)", block + window));
        let want = (limit - out.len()) as i64;
        let rows =
            tx.query(&sql, &[from.as_str().into(), to.as_str().into(), want.into()], |row| {
                Ok((stored_record(row)?, address(&row.text(3)?)?))
            })?;
        let full = rows.len() as i64 == want;
        for (record, at) in rows {
            out.push(record);
            last = Some(at);
        }
        if full {
            break;
        }
        (block, offset) = (block + window, 0);
        window = (window * 2).min(8192);
    }
    Ok((out, last))
}

/// A `ctid` as text, `(block,offset)`, as a position.
fn address(ctid: &str) -> Result<i64> {
    let bad = || Error::Corrupt(format!("row address {ctid:?}"));
    let (block, offset) =
        ctid.trim_matches(|c| c == '(' || c == ')').split_once(',').ok_or_else(bad)?;
    let block: i64 = block.parse().map_err(|_| bad())?;
    let offset: i64 = offset.parse().map_err(|_| bad())?;
    Ok(block << 16 | offset)
}

/// Column `i` of a PostgreSQL row as an extracted column's value.
pub(crate) fn value(row: &tokio_postgres::Row, i: usize) -> Result<ColumnValue> {
    let ty = row.columns()[i].type_().clone();
    let read = |e: tokio_postgres::Error| Error::Corrupt(format!("column {i}: {e}"));
    Ok(match ty {
        Type::INT8 => row.try_get::<_, Option<i64>>(i).map_err(read)?.map(ColumnValue::Int),
        Type::INT4 => {
            row.try_get::<_, Option<i32>>(i).map_err(read)?.map(|n| ColumnValue::Int(n.into()))
        }
        Type::INT2 => {
            row.try_get::<_, Option<i16>>(i).map_err(read)?.map(|n| ColumnValue::Int(n.into()))
        }
        Type::BOOL => {
            row.try_get::<_, Option<bool>>(i).map_err(read)?.map(|b| ColumnValue::Int(b.into()))
        }
        _ => row.try_get::<_, Option<String>>(i).map_err(read)?.map(ColumnValue::Text),
    }
    .unwrap_or(ColumnValue::Null))
}

impl ToSql for Param<'_> {
    /// Binds by the type PostgreSQL inferred for the placeholder: integers to the
    /// integer and boolean types (as SQLite holds booleans), text to the text types
    /// (`citext` among them).
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match (*self, ty) {
            (Param::Null, _) => Ok(IsNull::Yes),
            (Param::Int(n), &Type::INT8) => n.to_sql(ty, out),
            (Param::Int(n), &Type::INT4) => i32::try_from(n)?.to_sql(ty, out),
            (Param::Int(n), &Type::INT2) => i16::try_from(n)?.to_sql(ty, out),
            (Param::Int(n), &Type::BOOL) => (n != 0).to_sql(ty, out),
            (Param::Int(n), _) => n.to_string().as_str().to_sql(ty, out),
            (Param::Text(s), &Type::INT8) => s.trim().parse::<i64>()?.to_sql(ty, out),
            (Param::Text(s), _) => s.to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// PostgreSQL's words for an error, with its detail when it has one.
fn error_text(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => match db.detail() {
            Some(detail) => format!("{}: {detail}", db.message()),
            None => db.message().to_string(),
        },
        None => match std::error::Error::source(e) {
            Some(cause) => format!("{e}: {cause}"),
            None => e.to_string(),
        },
    }
}

impl From<tokio_postgres::Error> for Error {
    fn from(e: tokio_postgres::Error) -> Self {
        if let Some(db) = e.as_db_error()
            && *db.code() == tokio_postgres::error::SqlState::UNIQUE_VIOLATION
        {
            // The detail names the index's columns: "Key (barcode)=(X) already exists."
            let column = db
                .detail()
                .and_then(|d| d.strip_prefix("Key ("))
                .and_then(|d| d.split([')', ',']).next())
                .unwrap_or_default();
            return Error::Unique {
                table: db.table().unwrap_or_default().to_string(),
                column: column.trim().to_string(),
            };
        }
        Error::Database(error_text(&e))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn lock_keys_are_stable_and_differ_by_tenant() {
        assert_eq!(super::lock_key("diku_quire"), super::lock_key("diku_quire"));
        assert_ne!(super::lock_key("diku_quire"), super::lock_key("other_quire"));
        assert_eq!(super::tenant_of("diku_quire"), Some("diku"));
        assert_eq!(super::tenant_of("public"), None);
    }
}
