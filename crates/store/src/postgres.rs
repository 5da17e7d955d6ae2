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
    cell::{Cell, RefCell},
    collections::HashMap,
    future::Future,
    os::fd::RawFd,
    pin::Pin,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    task::{Context, Poll, Waker},
    time::Duration,
};

use tokio_postgres::{
    Client, Connection, NoTls, Statement,
    tls::NoTlsStream,
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
/// Each connection is driven on the thread that uses it ([`Session::drive`]): a
/// statement's request is written, and its answer read, by the caller itself, which
/// blocks in `poll(2)` on the socket while the database works. A hop to an I/O thread
/// and back per statement cost more than PostgreSQL's own work on a loopback
/// connection. tokio-postgres speaks the protocol over a socket of ours
/// ([`Socket`]); the blocking `postgres` crate could not be used instead, as it enters
/// a tokio runtime on the calling thread, which panics on the server's blocking threads
/// (they belong to a runtime). The pool's own runtime thread only drives the listener
/// connection ([`Pool::listen`]).
pub(crate) struct Pool {
    config: tokio_postgres::Config,
    idle: Mutex<Vec<Session>>,
    max_idle: usize,
    // Drives the listener's socket; shut down without waiting when the pool goes.
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
        config.connect_timeout(connect_timeout(&config));
        config.application_name("quire");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("postgres-io")
            .enable_all()
            .build()
            .map_err(|e| Error::Database(format!("cannot start PostgreSQL's I/O thread: {e}")))?;
        let pool = Pool { config, idle: Mutex::new(Vec::new()), max_idle, runtime: Some(runtime) };
        let session = pool.get()?;
        warn_of_a_locale_ctype(&session)?;
        pool.put(session);
        Ok(pool)
    }

    /// A connection: an idle one still open, or a new one.
    pub(crate) fn get(&self) -> Result<Session> {
        loop {
            let idle = self.idle.lock().unwrap().pop();
            match idle {
                Some(session) if session.is_open() => return Ok(session),
                Some(_closed) => continue,
                None => return Session::connect(&self.config),
            }
        }
    }

    /// Gives a connection back, outside any transaction.
    pub(crate) fn put(&self, session: Session) {
        if session.is_closed() {
            return;
        }
        session.forget_unsent_begin();
        session.begun_value.take();
        session.unsent_savepoint.take();
        session.savepoint_failed.set(false);
        session.discard_deferred();
        let mut idle = self.idle.lock().unwrap();
        if idle.len() < self.max_idle {
            idle.push(session);
        }
    }
}

/// Warns when the database folds case by a locale rather than as "C": `citext` (the
/// case-insensitive columns) then lowercases both sides of every comparison through wide
/// characters (a third of PostgreSQL's time in a harvest, looking up each page's holdings
/// and items), and folds letters beyond ASCII that SQLite's NOCASE leaves as they are.
fn warn_of_a_locale_ctype(session: &Session) -> Result<()> {
    let rows = session.query("SELECT current_setting('lc_ctype'), current_database()", &[])?;
    let Some(row) = rows.first() else { return Ok(()) };
    let ctype: String = row.try_get(0)?;
    if !matches!(ctype.as_str(), "C" | "POSIX") {
        let database: String = row.try_get(1)?;
        tracing::warn!(
            database,
            lc_ctype = ctype,
            "the database's LC_CTYPE is not C: case-insensitive comparisons are slower, and \
             fold letters beyond ASCII, which the embedded store does not; create it with \
             `CREATE DATABASE ... TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'`"
        );
    }
    Ok(())
}

/// The URL's `connect_timeout`, or ten seconds.
fn connect_timeout(config: &tokio_postgres::Config) -> Duration {
    config.get_connect_timeout().copied().unwrap_or(Duration::from_secs(10))
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
    ///
    /// Returns once the database has taken the first `LISTEN` (or the connect timeout
    /// has passed), so a commit made after the store opened is never announced before
    /// this node hears announcements.
    pub(crate) fn listen(&self, heard: impl Fn(&str, i64) + Send + Sync + 'static) {
        let config = self.config.clone();
        let (ready, listening_now) = std::sync::mpsc::sync_channel::<()>(1);
        let patience = connect_timeout(&config) + Duration::from_secs(5);
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
                                let _ = ready.try_send(());
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
        // Past the wait the store opens anyway: followers poll the change log.
        let _ = listening_now.recv_timeout(patience);
    }
}

/// A connection's half that reads and writes its socket.
type Driven = Connection<Socket, NoTlsStream>;

/// One connection, with its prepared statements, driven by the thread using it.
pub(crate) struct Session {
    client: Client,
    // `None` once the connection has ended: dropping it fails the requests it held.
    connection: RefCell<Option<Pin<Box<Driven>>>>,
    socket: RawFd,
    blocked: Arc<Blocked>,
    // Woken when a request hands the connection a message to send, or the connection
    // hands a request an answer: then the driver has more to do at once.
    woken: Arc<Woken>,
    waker: Waker,
    statements: RefCell<HashMap<String, Statement>>,
    // Writes waiting to go with the next statement (`defer`), and the highest change-log
    // sequence number those sent since it was last taken were given.
    deferred: RefCell<Vec<Deferred>>,
    deferred_seq: Cell<Option<i64>>,
    // Answers read ahead (`prefetch`), each taken by the first query that asks the same.
    prefetched: RefCell<Vec<Prefetched>>,
    // A write transaction's `BEGIN` not yet sent (`begin_write`): it goes with the next
    // statement. Then what it read (`value`), `Some(None)` for NULL.
    unsent_begin: RefCell<Option<String>>,
    begun_value: RefCell<Option<Option<String>>>,
    // A savepoint to open (`savepoint_with_next`): it goes with the next statement,
    // after any unsent `BEGIN`. Then whether it failed.
    unsent_savepoint: RefCell<Option<String>>,
    savepoint_failed: Cell<bool>,
}

/// A query's answer read ahead of its use, with the query and the tables it reads.
struct Prefetched {
    sql: String,
    params: Vec<ColumnValue>,
    tables: Vec<&'static str>,
    rows: Vec<tokio_postgres::Row>,
}

/// A query to read ahead: its SQL, its values, and the tables it reads (a write to one
/// of them forgets the answer).
pub(crate) struct Ahead {
    pub(crate) sql: String,
    pub(crate) values: Vec<ColumnValue>,
    pub(crate) tables: Vec<&'static str>,
    /// A query whose rows follow from keys (`Read::Via`): each row ends with its key,
    /// and has no record (a NULL id) when the key's read found none. This makes, for a
    /// key, the query whose answer those rows are.
    pub(crate) keyed: Option<MadeWithKey>,
}

/// Makes, from a key, the read a [`Ahead::keyed`] query's rows for that key answer.
pub(crate) type MadeWithKey = Box<dyn Fn(&str) -> Option<Ahead>>;

impl Ahead {
    pub(crate) fn new(sql: String, values: Vec<ColumnValue>, tables: Vec<&'static str>) -> Ahead {
        Ahead { sql, values, tables, keyed: None }
    }
}

/// The rows of a keyed query ([`Ahead::keyed`]), ordered by key, as each key's
/// records: a key whose read found no record has none.
fn by_key(rows: Vec<tokio_postgres::Row>) -> Result<Vec<(String, Vec<tokio_postgres::Row>)>> {
    let corrupt = |e: tokio_postgres::Error| Error::Corrupt(format!("a keyed read: {e}"));
    let mut keys: Vec<(String, Vec<tokio_postgres::Row>)> = Vec::new();
    for row in rows {
        // A key column may be NULL: nothing follows from it.
        let Some(key): Option<String> = row.try_get(3).map_err(corrupt)? else {
            continue;
        };
        let found: Option<String> = row.try_get(0).map_err(corrupt)?;
        if keys.last().is_none_or(|(last, _)| *last != key) {
            keys.push((key, Vec::new()));
        }
        if found.is_some() {
            keys.last_mut().expect("pushed above").1.push(row);
        }
    }
    Ok(keys)
}

/// A write sent with the session's next statement instead of on its own: the two go
/// in one round trip, as tokio-postgres pipelines requests polled together.
struct Deferred {
    statement: Statement,
    // Owned: the borrowed values are gone by the time it is sent.
    params: Vec<ColumnValue>,
    /// The write, named for its error.
    what: String,
    /// A logged write, answering its change-log row's sequence number, or no row if it
    /// changed none; otherwise it answers nothing.
    logged: bool,
}

impl Session {
    /// Opens a connection to the first of the configuration's hosts that answers.
    fn connect(config: &tokio_postgres::Config) -> Result<Session> {
        let failed = |e: &dyn std::fmt::Display| {
            Error::Database(format!("cannot connect to PostgreSQL: {e}"))
        };
        let socket = Socket::connect(config).map_err(|e| failed(&e))?;
        let (fd, blocked) = (socket.fd(), socket.blocked.clone());
        let (client, connection) = drive_socket(fd, &blocked, config.connect_raw(socket, NoTls))
            .map_err(|e| failed(&error_text(&e)))?;
        let woken = Arc::new(Woken::default());
        Ok(Session {
            client,
            connection: RefCell::new(Some(Box::pin(connection))),
            socket: fd,
            blocked,
            waker: Waker::from(woken.clone()),
            woken,
            statements: RefCell::new(HashMap::new()),
            deferred: RefCell::new(Vec::new()),
            deferred_seq: Cell::new(None),
            prefetched: RefCell::new(Vec::new()),
            unsent_begin: RefCell::new(None),
            begun_value: RefCell::new(None),
            unsent_savepoint: RefCell::new(None),
            savepoint_failed: Cell::new(false),
        })
    }

    /// Runs `future` (a request of the client's) to its end on this thread, polling
    /// the connection, which writes the request and reads the answer, and waiting on
    /// the socket between.
    fn drive<F: Future>(&self, future: F) -> F::Output {
        let mut connection = self.connection.borrow_mut();
        let mut future = std::pin::pin!(future);
        let mut cx = Context::from_waker(&self.waker);
        loop {
            self.woken.0.store(false, Ordering::Relaxed);
            if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
                return value;
            }
            // Writes what the request queued and reads what came. Once the connection
            // ends (the server went), it is dropped, which fails the request.
            self.blocked.clear();
            if connection.as_mut().is_some_and(|c| c.as_mut().poll(&mut cx).is_ready()) {
                *connection = None;
                continue;
            }
            // Nothing moved between the two, and the socket had nothing more: wait on
            // it. (The connection also stops when the request's channel is full; the
            // request, polled again, takes what waits and wakes it.)
            if !self.woken.0.load(Ordering::Relaxed) {
                self.blocked.wait(self.socket);
            }
        }
    }

    /// Whether the connection is still open: an idle one is looked at without waiting,
    /// so one the server closed meanwhile is found before a request is sent on it.
    fn is_open(&self) -> bool {
        let mut connection = self.connection.borrow_mut();
        let mut cx = Context::from_waker(Waker::noop());
        if connection.as_mut().is_some_and(|c| c.as_mut().poll(&mut cx).is_ready()) {
            *connection = None;
        }
        connection.is_some() && !self.client.is_closed()
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.connection.borrow().is_none() || self.client.is_closed()
    }

    fn statement(&self, sql: &str) -> Result<Statement> {
        if let Some(statement) = self.statements.borrow().get(sql) {
            return Ok(statement.clone());
        }
        // After the transaction's `BEGIN`, which names the schema its tables are in.
        let statement =
            self.drive_after_deferred(self.client.prepare(&numbered_placeholders(sql)))?;
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
        if let Some(rows) = self.take_prefetched(sql, params) {
            return Ok(rows);
        }
        if !sql.starts_with("SELECT") {
            // A write (a logged one is a `WITH`): what was read ahead may be stale.
            self.forget_prefetched(None);
        }
        let statement = self.statement(sql)?;
        let params: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as _).collect();
        self.drive_after_deferred(self.client.query(&statement, &params))
    }

    pub(crate) fn execute(&self, sql: &str, params: &[Param<'_>]) -> Result<u64> {
        self.forget_prefetched(None);
        let statement = self.statement(sql)?;
        let params: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as _).collect();
        self.drive_after_deferred(self.client.execute(&statement, &params))
    }

    pub(crate) fn batch(&self, sql: &str) -> Result<()> {
        // Savepoints and their rollbacks, commits, DDL.
        self.forget_prefetched(None);
        self.drive_after_deferred(self.client.batch_execute(sql))
    }

    /// Queues a write to go with the next statement (or [`Session::send_deferred`]);
    /// `logged`: it answers its change-log row's sequence number, and must change a row.
    pub(crate) fn defer(
        &self,
        sql: &str,
        params: &[Param<'_>],
        what: String,
        logged: bool,
    ) -> Result<()> {
        let statement = self.statement(sql)?;
        let params = params
            .iter()
            .map(|p| match *p {
                Param::Null => ColumnValue::Null,
                Param::Int(n) => ColumnValue::Int(n),
                Param::Text(s) => ColumnValue::Text(s.to_string()),
            })
            .collect();
        self.deferred.borrow_mut().push(Deferred { statement, params, what, logged });
        Ok(())
    }

    /// Sends the deferred writes, if any, and waits for their answers.
    pub(crate) fn send_deferred(&self) -> Result<()> {
        self.drive_after_deferred(std::future::ready(Ok::<_, tokio_postgres::Error>(())))
    }

    /// Drops the deferred writes unsent: the transaction (or savepoint) they belong to
    /// is being rolled back.
    pub(crate) fn discard_deferred(&self) {
        self.deferred.borrow_mut().clear();
        self.deferred_seq.set(None);
        self.forget_prefetched(None);
    }

    /// Sends `reads` together, with the deferred writes, in one round trip, and keeps
    /// their answers for the queries that will ask them: a check-out's lookups, made one
    /// after another under the tenant's lock, were a round trip each.
    pub(crate) fn prefetch(&self, reads: Vec<Ahead>) -> Result<()> {
        let statements =
            reads.iter().map(|read| self.statement(&read.sql)).collect::<Result<Vec<_>>>()?;
        let values: Vec<Vec<Param<'_>>> =
            reads.iter().map(|read| read.values.iter().map(ColumnValue::param).collect()).collect();
        let params: Vec<Vec<&(dyn ToSql + Sync)>> =
            values.iter().map(|v| v.iter().map(|p| p as _).collect()).collect();
        let mut queries: Vec<_> = statements
            .iter()
            .zip(&params)
            .map(|(statement, params)| Box::pin(self.client.query(statement, params)))
            .collect();
        let mut answers: Vec<Option<_>> = queries.iter().map(|_| None).collect();
        let all = std::future::poll_fn(|cx| match poll_each(&mut queries, &mut answers, cx) {
            true => Poll::Ready(Ok::<_, tokio_postgres::Error>(())),
            false => Poll::Pending,
        });
        self.drive_after_deferred(all)?;
        drop(queries);
        let mut kept = self.prefetched.borrow_mut();
        for (read, rows) in reads.into_iter().zip(answers) {
            let rows = rows.expect("every read answered")?;
            match read.keyed {
                None => kept.push(Prefetched {
                    sql: read.sql,
                    params: read.values,
                    tables: read.tables,
                    rows,
                }),
                Some(made_with) => {
                    for (key, rows) in by_key(rows)? {
                        if let Some(made) = made_with(&key) {
                            let Ahead { sql, values, tables, .. } = made;
                            kept.push(Prefetched { sql, params: values, tables, rows });
                        }
                    }
                }
            }
        }
        Ok(())
    }

    #[cfg(test)]
    pub(crate) fn prefetched_count(&self) -> usize {
        self.prefetched.borrow().len()
    }

    /// The answer read ahead for this query, if there is one; it is answered once.
    fn take_prefetched(&self, sql: &str, params: &[Param<'_>]) -> Option<Vec<tokio_postgres::Row>> {
        let mut kept = self.prefetched.borrow_mut();
        let same = |p: &Prefetched| {
            p.sql == sql
                && p.params.len() == params.len()
                && p.params.iter().zip(params).all(|(kept, asked)| match (kept, asked) {
                    (ColumnValue::Null, Param::Null) => true,
                    (ColumnValue::Int(a), Param::Int(b)) => a == b,
                    (ColumnValue::Text(a), Param::Text(b)) => a == b,
                    _ => false,
                })
        };
        let at = kept.iter().position(same)?;
        Some(kept.swap_remove(at).rows)
    }

    /// Forgets the answers read ahead from `table` (from every table when `None`): the
    /// transaction is about to change it.
    pub(crate) fn forget_prefetched(&self, table: Option<&str>) {
        let mut kept = self.prefetched.borrow_mut();
        if kept.is_empty() {
            return;
        }
        match table {
            Some(table) => kept.retain(|p| !p.tables.contains(&table)),
            None => kept.clear(),
        }
    }

    /// The highest sequence number the deferred writes sent since the last call were
    /// given.
    pub(crate) fn take_deferred_seq(&self) -> Option<i64> {
        self.deferred_seq.take()
    }

    /// Runs `future` after the unsent `BEGIN` and savepoint and the deferred writes, all in one round
    /// trip: each is polled once, in order, before `future` is, which writes its
    /// request. The first of them to fail is the error (the statements after it fail
    /// with it, PostgreSQL refusing all but a rollback).
    fn drive_after_deferred<T>(
        &self,
        future: impl Future<Output = std::result::Result<T, tokio_postgres::Error>>,
    ) -> Result<T> {
        let deferred = self.deferred.take();
        let begin_sql = self.unsent_begin.take();
        let savepoint_sql = self.unsent_savepoint.take();
        if deferred.is_empty() && begin_sql.is_none() && savepoint_sql.is_none() {
            return Ok(self.drive(future)?);
        }
        let began = begin_sql.is_some();
        let opens_savepoint = savepoint_sql.is_some();
        let prefix = match (begin_sql, savepoint_sql) {
            (Some(begin), Some(savepoint)) => Some(format!("{begin}; {savepoint}")),
            (begin, savepoint) => begin.or(savepoint),
        };
        let mut begin = prefix.as_deref().map(|sql| Box::pin(self.client.simple_query(sql)));
        let mut begun = None;
        let values: Vec<Vec<Param<'_>>> =
            deferred.iter().map(|d| d.params.iter().map(ColumnValue::param).collect()).collect();
        let params: Vec<Vec<&(dyn ToSql + Sync)>> =
            values.iter().map(|v| v.iter().map(|p| p as _).collect()).collect();
        let mut writes: Vec<_> = deferred
            .iter()
            .zip(&params)
            .map(|(d, params)| Box::pin(self.client.query(&d.statement, params)))
            .collect();
        let mut written: Vec<Option<_>> = writes.iter().map(|_| None).collect();
        let mut future = std::pin::pin!(future);
        let mut answer = None;
        self.drive(std::future::poll_fn(|cx| {
            if let Some(begin) = &mut begin
                && begun.is_none()
                && let Poll::Ready(messages) = begin.as_mut().poll(cx)
            {
                begun = Some(messages);
            }
            let all_written = poll_each(&mut writes, &mut written, cx);
            if answer.is_none()
                && let Poll::Ready(value) = future.as_mut().poll(cx)
            {
                answer = Some(value);
            }
            match answer.is_some() && all_written && (begin.is_none() || begun.is_some()) {
                true => Poll::Ready(()),
                false => Poll::Pending,
            }
        }));
        drop(begin);
        if let Some(messages) = begun {
            if messages.is_err() && opens_savepoint {
                self.savepoint_failed.set(true);
            }
            let messages = messages?;
            if began {
                // The one row is the lock's; its second column, if asked for, is the value.
                let value = messages.iter().find_map(|message| match message {
                    tokio_postgres::SimpleQueryMessage::Row(row) if row.len() > 1 => {
                        Some(row.get(1).map(str::to_string))
                    }
                    _ => None,
                });
                *self.begun_value.borrow_mut() = Some(value.flatten());
            }
        }
        for (d, rows) in deferred.iter().zip(written) {
            let failed =
                |source: Error| Error::Deferred { what: d.what.clone(), source: Box::new(source) };
            let rows = rows.expect("every write answered").map_err(|e| failed(e.into()))?;
            if !d.logged {
                continue;
            }
            let Some(row) = rows.first() else {
                return Err(failed(Error::Corrupt("the record it writes is not there".into())));
            };
            let seq: i64 = row.try_get(0)?;
            self.deferred_seq.set(self.deferred_seq.get().max(Some(seq)));
        }
        Ok(answer.expect("the statement answered")?)
    }

    /// Starts a read-only snapshot in `schema`.
    pub(crate) fn begin_read(&self, schema: &str) -> Result<()> {
        self.begun_value.take();
        self.batch(&format!(
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL search_path TO \"{schema}\", public"
        ))
    }

    /// Starts a write in `schema` that holds the tenant's write lock (`lock`) until it
    /// ends. Nothing is sent yet: the `BEGIN`, the
    /// lock and `value` (a query of one value, a scalar subquery, read under the lock;
    /// [`Session::begun_value`]) go with the transaction's first statement, which
    /// saves a round trip made under the lock of a tenant other writers wait for.
    /// Should the `BEGIN` fail, the statements sent with it fail too: PostgreSQL refuses
    /// all but a rollback in a transaction whose statement failed, and runs none after
    /// a failed statement of the same request.
    ///
    /// With `plan_each`, for the long transactions of background work, every statement
    /// is planned for the table as it is then. PostgreSQL keeps a prepared statement's
    /// generic plan once five executions found it no dearer, and a plan made while a
    /// table was empty (a harvest index the first time, after an `ANALYZE`) scans it
    /// whole: a transaction that fills that table and looks rows up in it as it goes
    /// slowed quadratically (a 100,000-instance harvest index unfinished after ten
    /// minutes; planned each time, three). Interactive writes keep the cached plans:
    /// planning each of their statements cost the desk a fifth of its throughput, and
    /// their tables' statistics follow them between transactions.
    pub(crate) fn begin_write(
        &self,
        schema: &str,
        lock: i64,
        value: Option<&str>,
        plan_each: bool,
    ) {
        let value = value.map(|sql| format!(", ({sql})")).unwrap_or_default();
        let plans = if plan_each { "SET LOCAL plan_cache_mode = force_custom_plan; " } else { "" };
        self.begun_value.take();
        self.unsent_savepoint.take();
        self.savepoint_failed.set(false);
        *self.unsent_begin.borrow_mut() = Some(format!(
            "BEGIN; SET LOCAL search_path TO \"{schema}\", public; {plans}\
             SELECT pg_advisory_xact_lock({lock}){value}"
        ));
    }

    /// What the transaction's `BEGIN` read of the value `begin_write` asked, once it has
    /// gone: `Some(None)` for NULL.
    pub(crate) fn begun_value(&self) -> Option<Option<String>> {
        self.begun_value.borrow().clone()
    }

    /// Whether the transaction's `BEGIN` is still unsent, forgetting it: then nothing
    /// was asked of the transaction, and there is nothing to end.
    pub(crate) fn forget_unsent_begin(&self) -> bool {
        let unsent = self.unsent_begin.take().is_some();
        if unsent {
            // Only a job of this transaction could have queued it.
            self.unsent_savepoint.take();
        }
        unsent
    }

    /// Opens a savepoint (or releases one and opens it again: `sql`) with the next
    /// statement, in its round trip, instead of in one of its own: each job of a write
    /// group after the first opens one, under the tenant's lock. Should it fail, the
    /// statement fails with it, and [`Session::savepoint_failed`] says so.
    pub(crate) fn savepoint_with_next(&self, sql: &str) -> Result<()> {
        // It goes before the writes deferred, which belong before it.
        if !self.deferred.borrow().is_empty() {
            return self.batch(sql);
        }
        let mut unsent = self.unsent_savepoint.borrow_mut();
        match &mut *unsent {
            // The job before asked nothing of the database.
            Some(queued) => {
                queued.push_str("; ");
                queued.push_str(sql);
            }
            None => *unsent = Some(sql.to_string()),
        }
        Ok(())
    }

    /// Whether a savepoint sent with a statement ([`Session::savepoint_with_next`])
    /// failed since the last call: the transaction can then only be rolled back.
    pub(crate) fn savepoint_failed(&self) -> bool {
        self.savepoint_failed.take()
    }

    /// Ends the transaction: commits it on `Ok`, rolls it back otherwise.
    pub(crate) fn end(&self, commit: bool) -> Result<()> {
        if !commit {
            self.discard_deferred();
        }
        // A transaction whose `BEGIN` has not gone, with no write waiting to go with it,
        // has nothing to end.
        if self.deferred.borrow().is_empty() && self.forget_unsent_begin() {
            return Ok(());
        }
        self.batch(if commit { "COMMIT" } else { "ROLLBACK" })
    }
}

/// Polls, in order, each of `futures` not yet answered, keeping its answer: the
/// requests polled together go to the database in one round trip. Whether all have
/// answered.
fn poll_each<F: Future>(
    futures: &mut [Pin<Box<F>>],
    answers: &mut [Option<F::Output>],
    cx: &mut Context<'_>,
) -> bool {
    for (future, answer) in futures.iter_mut().zip(answers.iter_mut()) {
        if answer.is_none()
            && let Poll::Ready(value) = future.as_mut().poll(cx)
        {
            *answer = Some(value);
        }
    }
    answers.iter().all(Option::is_some)
}

/// Runs the connection handshake to its end on this thread.
fn drive_socket<F: Future>(fd: RawFd, blocked: &Blocked, future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        blocked.clear();
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
        blocked.wait(fd);
    }
}

/// A waker that only notes it was woken: the driver polls again instead of waiting.
#[derive(Default)]
struct Woken(AtomicBool);

impl std::task::Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::Relaxed);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Which way the socket would have blocked since last cleared: what the driver must
/// wait for before polling again.
#[derive(Default)]
struct Blocked {
    read: AtomicBool,
    write: AtomicBool,
}

impl Blocked {
    fn clear(&self) {
        self.read.store(false, Ordering::Relaxed);
        self.write.store(false, Ordering::Relaxed);
    }

    /// Blocks until the socket can do what it could not (read, write), or has closed;
    /// returns at once when it refused nothing.
    fn wait(&self, fd: RawFd) {
        let mut events = 0;
        if self.read.load(Ordering::Relaxed) {
            events |= libc::POLLIN;
        }
        if self.write.load(Ordering::Relaxed) {
            events |= libc::POLLOUT;
        }
        if events == 0 {
            return;
        }
        let mut poll = libc::pollfd { fd, events, revents: 0 };
        // SAFETY: one valid pollfd, for the call's duration; an interrupted wait just
        // returns to the driver, which polls again.
        #[allow(unsafe_code)]
        unsafe {
            libc::poll(&mut poll, 1, -1);
        }
    }
}

/// A connection's socket, nonblocking, read and written by whichever thread drives
/// the connection: a read or write that would block is `Pending`, noted in
/// [`Blocked`], and the driver then waits in `poll(2)` rather than on a waker.
pub(crate) struct Socket {
    stream: Stream,
    blocked: Arc<Blocked>,
}

enum Stream {
    Tcp(std::net::TcpStream),
    Unix(std::os::unix::net::UnixStream),
}

impl Socket {
    /// Connects to the first host of `config` that answers, as libpq does: a TCP host
    /// and port, or a Unix socket directory (`<dir>/.s.PGSQL.<port>`).
    fn connect(config: &tokio_postgres::Config) -> std::io::Result<Socket> {
        use tokio_postgres::config::Host;
        let ports = config.get_ports();
        let timeout = connect_timeout(config);
        let mut last = std::io::Error::other("no host to connect to");
        for (i, host) in config.get_hosts().iter().enumerate() {
            let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
            let stream = match host {
                Host::Tcp(name) => {
                    use std::net::ToSocketAddrs;
                    let mut connected = Err(std::io::Error::other(format!("{name} not found")));
                    for address in (name.as_str(), port).to_socket_addrs()? {
                        connected = std::net::TcpStream::connect_timeout(&address, timeout);
                        if connected.is_ok() {
                            break;
                        }
                    }
                    connected.and_then(|tcp| {
                        tcp.set_nodelay(true)?;
                        Ok(Stream::Tcp(tcp))
                    })
                }
                Host::Unix(dir) => {
                    std::os::unix::net::UnixStream::connect(dir.join(format!(".s.PGSQL.{port}")))
                        .map(Stream::Unix)
                }
            };
            match stream {
                Ok(stream) => {
                    match &stream {
                        Stream::Tcp(tcp) => tcp.set_nonblocking(true)?,
                        Stream::Unix(unix) => unix.set_nonblocking(true)?,
                    }
                    return Ok(Socket { stream, blocked: Arc::default() });
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    fn fd(&self) -> RawFd {
        use std::os::fd::AsRawFd;
        match &self.stream {
            Stream::Tcp(tcp) => tcp.as_raw_fd(),
            Stream::Unix(unix) => unix.as_raw_fd(),
        }
    }

    fn io<T>(&self, result: std::io::Result<T>, writing: bool) -> Poll<std::io::Result<T>> {
        match result {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                let way = if writing { &self.blocked.write } else { &self.blocked.read };
                way.store(true, Ordering::Relaxed);
                Poll::Pending
            }
            result => Poll::Ready(result),
        }
    }
}

impl tokio::io::AsyncRead for Socket {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        use std::io::Read;
        let unfilled = buf.initialize_unfilled();
        let read = match &self.stream {
            Stream::Tcp(tcp) => (&*tcp).read(unfilled),
            Stream::Unix(unix) => (&*unix).read(unfilled),
        };
        self.io(read, false).map_ok(|n| buf.advance(n))
    }
}

impl tokio::io::AsyncWrite for Socket {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        use std::io::Write;
        let written = match &self.stream {
            Stream::Tcp(tcp) => (&*tcp).write(data),
            Stream::Unix(unix) => (&*unix).write(data),
        };
        self.io(written, true)
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let shut = match &self.stream {
            Stream::Tcp(tcp) => tcp.shutdown(std::net::Shutdown::Write),
            Stream::Unix(unix) => unix.shutdown(std::net::Shutdown::Write),
        };
        Poll::Ready(shut)
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
