//! Tenants and their databases: `DATA_DIR/tenants/<name>/quire.sqlite`, one per tenant.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{
        Arc, Condvar, Mutex, RwLock,
        atomic::{AtomicI64, Ordering},
    },
    time::Duration,
};

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::{
    Error, Result,
    cache::{TableCache, TxCache},
    changes::Publisher,
    group::{Outcome, WriteFn, WriteQueue, WriterConn},
    migrate::{self, Component},
    postgres::Pool,
    record::{Reader, Writer},
    sql::Tx,
};

/// How hard a commit tries to survive a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// A commit survives the process being killed; a power loss may lose the last
    /// commits but never corrupts the database (SQLite WAL, `synchronous=NORMAL`).
    #[default]
    Normal,
    /// A commit is on disk before it is acknowledged (`synchronous=FULL`).
    Full,
}

/// Where a store keeps its tenants' records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Backend {
    /// One SQLite database per tenant under the data directory: the embedded default.
    #[default]
    Sqlite,
    /// One schema per tenant (`<tenant>_quire`) in a PostgreSQL database, given by its
    /// URL (`postgresql://user@host:port/database`). The data directory then holds only
    /// what is derived (search indexes), per node.
    Postgres { url: String },
}

/// Storage settings.
#[derive(Debug, Clone)]
pub struct Options {
    pub backend: Backend,
    pub durability: Durability,
    /// Read connections kept open per tenant.
    pub max_idle_readers: usize,
    /// On PostgreSQL: how many connections the store keeps open for reuse, shared by
    /// every tenant; more are opened while the load needs them, and closed after.
    pub connections: usize,
    /// Map each open tenant's database and read it into memory in the background, and
    /// keep it mapped (`warm.rs`): for a server, not for a one-off command.
    pub prewarm: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            backend: Backend::Sqlite,
            durability: Durability::Normal,
            max_idle_readers: 8,
            connections: 16,
            prewarm: false,
        }
    }
}

/// All tenants of one data directory, or of one PostgreSQL database.
pub struct Store {
    root: PathBuf,
    options: Options,
    components: Vec<Component>,
    // Shared with the PostgreSQL listener, which tells a tenant of other processes'
    // commits.
    tenants: Arc<RwLock<HashMap<String, Arc<Tenant>>>>,
    // The connections every tenant shares, on PostgreSQL.
    pool: Option<Arc<Pool>>,
    // Who this process is among the nodes on the store, for job leases.
    node: Arc<str>,
}

/// Checks FOLIO's tenant-name rule: `[a-z][a-z0-9_]{0,30}`.
pub fn validate_tenant_name(name: &str) -> Result<()> {
    let bytes = name.as_bytes();
    let ok = !bytes.is_empty()
        && bytes.len() <= 31
        && bytes[0].is_ascii_lowercase()
        && bytes.iter().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_');
    if ok { Ok(()) } else { Err(Error::InvalidTenantName(name.to_string())) }
}

impl Store {
    /// Opens the data directory (creating it), and every tenant in it (or, on
    /// PostgreSQL, in the database), applying pending migrations of `components` to each.
    pub fn open(root: &Path, options: Options, components: &[Component]) -> Result<Store> {
        let tenants_dir = root.join("tenants");
        std::fs::create_dir_all(&tenants_dir).map_err(|e| io_error(&tenants_dir, e))?;
        let pool = match &options.backend {
            Backend::Sqlite => None,
            Backend::Postgres { url } => {
                // Readers and writers of every tenant draw on it.
                Some(Arc::new(Pool::connect(url, options.connections.max(1))?))
            }
        };
        let tenants: Arc<RwLock<HashMap<String, Arc<Tenant>>>> = Arc::default();
        if let Some(pool) = &pool {
            let open = Arc::downgrade(&tenants);
            pool.listen(move |schema, seq| {
                let Some(open) = open.upgrade() else { return };
                let Some(name) = crate::postgres::tenant_of(schema) else { return };
                // This runs on the pool's I/O thread, which must never wait: a tenant
                // being opened holds the map while its migrations wait on that thread.
                // Missed, the commit is found by the followers' poll of the change log.
                let Ok(tenants) = open.try_read() else { return };
                if let Some(tenant) = tenants.get(name) {
                    tenant.note_commit(seq);
                }
            });
        }
        let store = Store {
            root: root.to_path_buf(),
            options,
            components: components.to_vec(),
            tenants,
            pool,
            node: crate::lease::node_name().into(),
        };
        for name in store.stored_tenants()? {
            store.open_tenant(&name)?;
        }
        Ok(store)
    }

    /// The names of the tenants stored, whether open yet or not.
    fn stored_tenants(&self) -> Result<Vec<String>> {
        if let Some(pool) = &self.pool {
            let session = pool.get()?;
            let rows = session.query(
                "SELECT nspname::text FROM pg_namespace WHERE nspname LIKE '%\\_quire' ORDER BY 1",
                &[],
            )?;
            pool.put(session);
            return Ok(rows
                .iter()
                .filter_map(|row| crate::postgres::tenant_of(row.get(0)).map(String::from))
                .collect());
        }
        let tenants_dir = self.root.join("tenants");
        let mut names = Vec::new();
        let entries = std::fs::read_dir(&tenants_dir).map_err(|e| io_error(&tenants_dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io_error(&tenants_dir, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if validate_tenant_name(&name).is_ok() && entry.path().join(DB_FILE).exists() {
                names.push(name);
            }
        }
        Ok(names)
    }

    /// Whether a tenant is stored, open here or not.
    fn is_stored(&self, name: &str) -> Result<bool> {
        let Some(pool) = &self.pool else {
            return Ok(self.root.join("tenants").join(name).join(DB_FILE).exists());
        };
        let session = pool.get()?;
        let schema = crate::postgres::schema_of(name);
        let rows = session
            .query("SELECT 1 FROM pg_namespace WHERE nspname = ?1", &[schema.as_str().into()])?;
        pool.put(session);
        Ok(!rows.is_empty())
    }

    /// A value every process on this store shares, made by `make` in whichever process
    /// asks first: the key that signs tokens, so that a token from one node is good on
    /// every node. Kept in the database on PostgreSQL (schema `quire`); `None` on SQLite,
    /// whose data directory one process serves, which keeps such values itself.
    pub fn shared_value(
        &self,
        name: &str,
        make: impl FnOnce() -> String,
    ) -> Result<Option<String>> {
        let Some(pool) = &self.pool else { return Ok(None) };
        let session = pool.get()?;
        let candidate = make();
        session.batch(&format!(
            "BEGIN; SELECT pg_advisory_xact_lock({});
             CREATE SCHEMA IF NOT EXISTS quire;
             CREATE TABLE IF NOT EXISTS quire.shared_values (name TEXT PRIMARY KEY, value TEXT NOT NULL);
             COMMIT",
            crate::postgres::SETUP_LOCK
        ))?;
        let tx = Tx::Postgres(&session);
        tx.execute(
            "INSERT INTO quire.shared_values (name, value) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING",
            &[name.into(), candidate.as_str().into()],
        )?;
        let value = tx.query_one(
            "SELECT value FROM quire.shared_values WHERE name = ?1",
            &[name.into()],
            |row| row.text(0),
        )?;
        pool.put(session);
        Ok(Some(value))
    }

    /// Whether the store is a PostgreSQL database that several nodes may share, rather
    /// than a data directory one process serves.
    pub fn is_shared(&self) -> bool {
        self.pool.is_some()
    }

    /// This node's name among the processes on the store, as its job leases carry it:
    /// host, process id and a number of the store within the process.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// The data directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Creates a tenant, or opens it if it exists. The flag says whether it was new.
    pub fn create_tenant(&self, name: &str) -> Result<(Arc<Tenant>, bool)> {
        validate_tenant_name(name)?;
        if let Some(tenant) = self.tenants.read().unwrap().get(name) {
            return Ok((tenant.clone(), false));
        }
        let existed = self.is_stored(name)?;
        let tenant = self.open_tenant(name)?;
        Ok((tenant, !existed))
    }

    /// An existing tenant. A tenant created by another process on the same data
    /// directory (`quire tenant create` beside a running server) is found too.
    pub fn tenant(&self, name: &str) -> Result<Arc<Tenant>> {
        if let Some(tenant) = self.tenants.read().unwrap().get(name) {
            return Ok(tenant.clone());
        }
        validate_tenant_name(name).map_err(|_| Error::UnknownTenant(name.to_string()))?;
        if !self.is_stored(name)? {
            return Err(Error::UnknownTenant(name.to_string()));
        }
        self.open_tenant(name)
    }

    /// The names of all tenants, sorted.
    pub fn tenant_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.tenants.read().unwrap().keys().cloned().collect();
        names.sort();
        names
    }

    fn open_tenant(&self, name: &str) -> Result<Arc<Tenant>> {
        let mut tenants = self.tenants.write().unwrap();
        if let Some(tenant) = tenants.get(name) {
            return Ok(tenant.clone());
        }
        let dir = self.root.join("tenants").join(name);
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        let node = self.node.clone();
        let tenant = match &self.pool {
            Some(pool) => {
                Arc::new(Tenant::open_postgres(name, &dir, pool, &self.components, node)?)
            }
            None => {
                let tenant =
                    Arc::new(Tenant::open(name, &dir, &self.options, &self.components, node)?);
                spawn_checkpointer(&tenant);
                if self.options.prewarm {
                    crate::warm::spawn(&tenant);
                }
                tenant
            }
        };
        tenants.insert(name.to_string(), tenant.clone());
        Ok(tenant)
    }
}

const DB_FILE: &str = "quire.sqlite";

/// One tenant's database: a single writer connection and a pool of readers; or, on
/// PostgreSQL, its schema, read and written through the store's pool.
pub struct Tenant {
    name: String,
    dir: PathBuf,
    pub(crate) db_path: PathBuf,
    options: Options,
    // Invariant: SQLite allows one writer at a time; the queue's connection is it.
    // Writes run first come, first served, in groups (see `group`).
    pub(crate) writer: WriteQueue,
    readers: Mutex<Vec<Connection>>,
    // On PostgreSQL: the store's connections and the tenant's schema.
    postgres: Option<(Arc<Pool>, String)>,
    // Invariant: the highest change-log sequence number committed through this process.
    last_seq: AtomicI64,
    changed: (Mutex<()>, Condvar),
    // The store's node name (`Store::node`).
    pub(crate) node: Arc<str>,
}

impl std::fmt::Debug for Tenant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tenant").field("name", &self.name).finish_non_exhaustive()
    }
}

impl Tenant {
    fn open(
        name: &str,
        dir: &Path,
        options: &Options,
        components: &[Component],
        node: Arc<str>,
    ) -> Result<Tenant> {
        let db_path = dir.join(DB_FILE);
        let mut writer = open_connection(&db_path, options, false)?;
        // Commits never checkpoint the WAL themselves: copying pages into the database
        // file and syncing it would land on whichever request happened to commit then.
        // The tenant's checkpointer thread does it instead.
        writer.pragma_update(None, "wal_autocheckpoint", 0)?;
        migrate::apply(&mut writer, components)?;
        let last_seq = read_last_seq(&writer)?;
        let publishers = {
            let tx = writer.transaction()?;
            Reader::new(Tx::Sqlite(&tx), None).publishers()?
        };
        let queue = WriteQueue::new(WriterConn::Sqlite(writer));
        queue.kept.set(&publishers);
        Ok(Tenant {
            name: name.to_string(),
            dir: dir.to_path_buf(),
            db_path,
            options: options.clone(),
            writer: queue,
            readers: Mutex::new(Vec::new()),
            postgres: None,
            last_seq: AtomicI64::new(last_seq),
            changed: (Mutex::new(()), Condvar::new()),
            node,
        })
    }

    fn open_postgres(
        name: &str,
        dir: &Path,
        pool: &Arc<Pool>,
        components: &[Component],
        node: Arc<str>,
    ) -> Result<Tenant> {
        let schema = crate::postgres::schema_of(name);
        let session = pool.get()?;
        migrate::apply_postgres(&session, &schema, components)?;
        pool.put(session);
        let lock = crate::postgres::lock_key(&schema);
        let queue = WriteQueue::new(WriterConn::Postgres {
            pool: pool.clone(),
            schema: schema.clone(),
            lock,
        });
        let tenant = Tenant {
            name: name.to_string(),
            dir: dir.to_path_buf(),
            db_path: dir.join(DB_FILE),
            options: Options::default(),
            writer: queue,
            readers: Mutex::new(Vec::new()),
            postgres: Some((pool.clone(), schema)),
            last_seq: AtomicI64::new(0),
            changed: (Mutex::new(()), Condvar::new()),
            node,
        };
        let (last_seq, publishers) =
            tenant.read(|r| Ok::<_, Error>((r.last_seq()?, r.publishers()?)))?;
        tenant.last_seq.store(last_seq, Ordering::SeqCst);
        tenant.writer.kept.set(&publishers);
        Ok(tenant)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the tenant lives in PostgreSQL, shared by every node, rather than in this
    /// node's data directory.
    pub fn is_shared(&self) -> bool {
        self.postgres.is_some()
    }

    /// The tenant's own directory, where derived state such as search indexes lives.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Runs `f` in a read transaction: it sees one consistent snapshot.
    pub fn read<T, E: From<Error>>(
        &self,
        f: impl FnOnce(&Reader<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        if let Some((pool, schema)) = &self.postgres {
            let session = pool.get()?;
            session.begin_read(schema)?;
            let cache = TxCache::new(&self.writer.cache);
            let result = f(&Reader::new(Tx::Postgres(&session), Some(&cache)));
            let ended = session.end(result.is_ok());
            pool.put(session);
            let value = result?;
            ended?;
            return Ok(value);
        }
        let mut conn = match self.readers.lock().unwrap().pop() {
            Some(conn) => conn,
            None => open_connection(&self.db_path, &self.options, true)?,
        };
        let result = read_in(&mut conn, &self.writer.cache, f);
        let mut readers = self.readers.lock().unwrap();
        if readers.len() < self.options.max_idle_readers {
            readers.push(conn);
        }
        result
    }

    /// Runs `f` in a read transaction, like [`Tenant::read`], on a connection of its own
    /// that reads the file with plain reads instead of the memory map: for passes over
    /// whole tables (a reindex). The map is advised random access (`random_reads`), so
    /// a fault on a page that has left the page cache reads that page alone; plain reads
    /// let the kernel read ahead of a scan. On the generated million, whose database
    /// outgrows the page cache here, a reindex took 105 s this way against 131 s.
    pub fn read_bulk<T, E: From<Error>>(
        &self,
        f: impl FnOnce(&Reader<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        self.bulk_reads()?.read(f)
    }

    /// A connection for a pass over whole tables a page at a time, each page read in a
    /// transaction of its own ([`BulkReads::read`]), with plain reads as
    /// [`Tenant::read_bulk`]'s. For passes that run at background priority beside the
    /// desk (a reindex): a snapshot held for the whole pass keeps the WAL from being
    /// checkpointed past it, and a reindex slowed to a crawl by a busy desk held one
    /// while the WAL grew to 3.8 GB, every read of the desk searching it. A caller
    /// needing one consistent view across pages replays the change log after the first
    /// page's snapshot, as a reindex does.
    pub fn bulk_reads(&self) -> Result<BulkReads<'_>> {
        let conn = match &self.postgres {
            // Each read takes a pooled connection and a snapshot of its own.
            Some(_) => None,
            None => {
                let conn = open_connection(&self.db_path, &self.options, true)?;
                conn.execute_batch("PRAGMA mmap_size = 0;")?;
                Some(conn)
            }
        };
        Ok(BulkReads { tenant: self, conn })
    }

    /// Runs `f` in a write transaction, committed when `f` returns `Ok` and rolled back
    /// otherwise. Writers are serialised: writes that queue up meanwhile are committed
    /// together, each as if it ran alone (`group`). Returns once `f`'s changes are
    /// committed.
    pub fn write<T: Send, E: From<Error> + Send>(
        &self,
        f: impl FnOnce(&mut Writer<'_>) -> Result<T, E> + Send,
    ) -> Result<T, E> {
        self.write_as(false, f)
    }

    /// Like [`Tenant::write`], for background work that writes much at a time (an
    /// import's chunk): it runs alone, after the interactive writes queued before it, and
    /// `f` should end early, committing what it has done, once [`Writer::should_end`]
    /// says interactive writes queued up behind it or its slice is over. While the desk
    /// is busy, the caller then rests a while before it returns (see `group`). Call it from a thread at ordinary
    /// priority: a lowered thread holding the writer would keep them waiting.
    pub fn write_background<T: Send, E: From<Error> + Send>(
        &self,
        f: impl FnOnce(&mut Writer<'_>) -> Result<T, E> + Send,
    ) -> Result<T, E> {
        self.write_as(true, f)
    }

    fn write_as<T: Send, E: From<Error> + Send>(
        &self,
        background: bool,
        f: impl FnOnce(&mut Writer<'_>) -> Result<T, E> + Send,
    ) -> Result<T, E> {
        let mut f = Some(f);
        let mut result = None;
        let mut run = |writer: &mut Writer<'_>| {
            let Some(f) = f.take() else { return false };
            let value = f(writer);
            let ok = value.is_ok();
            result = Some(value);
            ok
        };
        let outcome = self.writer.submit(&mut run as &mut WriteFn<'_>, background, &|seq| {
            // Runs on the thread committing the group: it must not panic.
            self.note_commit(seq);
        });
        match outcome {
            Outcome::Committed | Outcome::RolledBack => {
                result.expect("a finished write has its closure's result")
            }
            Outcome::Failed(e) => Err(e.into()),
            Outcome::Panicked(payload) => std::panic::resume_unwind(payload),
        }
    }

    /// Sets the writer connection's page cache to about `bytes`, or back to every
    /// connection's 64 MiB with `None`. A bulk load raises it while it runs: its
    /// transactions insert into indexes keyed by random UUIDs, and once those indexes
    /// outgrow the cache every insert re-reads and re-writes a page another insert of
    /// the same transaction had already touched.
    pub fn set_write_cache(&self, bytes: Option<u64>) -> Result<()> {
        let kib = (bytes.unwrap_or(CACHE_BYTES) / 1024).max(1024);
        self.writer.with_connection(|conn| match conn {
            WriterConn::Sqlite(conn) => conn.pragma_update(None, "cache_size", -(kib as i64)),
            // PostgreSQL's buffers are the server's.
            WriterConn::Postgres { .. } => Ok(()),
        })?;
        Ok(())
    }

    /// Copies the WAL into the database and empties it, holding writers back meanwhile.
    /// For bulk loads, between their transactions: the background checkpointer cannot
    /// empty the WAL of a writer that never pauses, and a WAL that only grows fills the
    /// disk (a 400,000-instance `quire generate` left 12 GB of it) and slows every read.
    /// It waits for readers a moment at most; returns whether the WAL was emptied.
    pub fn checkpoint(&self) -> Result<bool> {
        self.checkpoint_mode("TRUNCATE")
    }

    /// Like [`Tenant::checkpoint`], but the WAL file keeps its size and the next
    /// transaction overwrites it from the start. For a bulk load between its
    /// transactions: a WAL truncated to nothing makes the filesystem allocate and zero
    /// its blocks again as it regrows (a WAL frame is a page and a 24-byte header, so
    /// no write covers whole blocks), which was a tenth of `quire generate`'s CPU. End
    /// the load with [`Tenant::checkpoint`] to give the space back.
    pub fn checkpoint_in_place(&self) -> Result<bool> {
        self.checkpoint_mode("RESTART")
    }

    fn checkpoint_mode(&self, mode: &str) -> Result<bool> {
        self.writer.with_connection(|conn| {
            // PostgreSQL checkpoints its own WAL.
            let WriterConn::Sqlite(conn) = conn else { return Ok(true) };
            conn.busy_timeout(BULK_TRUNCATE_PATIENCE)?;
            let done = wal_checkpoint(conn, mode);
            conn.busy_timeout(WRITER_PATIENCE)?;
            Ok(done?)
        })
    }

    /// Records a publisher of the change log (or updates its record types) and returns
    /// it. From the next write on, each write of those record types keeps the record's
    /// bodies before and after beside its change-log row, until dropped
    /// ([`Writer::drop_bodies`]). A new publisher starts at the end of the log.
    pub fn start_publisher(&self, name: &str, record_types: &[&str]) -> Result<Publisher> {
        let kept = &self.writer.kept;
        self.write(|w| {
            w.start_publisher(name, record_types)?;
            let publishers = w.publishers()?;
            // Set inside the transaction: the writes after this one, in its group too,
            // keep their bodies. Set early (if the commit then fails) it only keeps more.
            kept.set(&publishers);
            Ok(publishers.into_iter().find(|p| p.name == name).expect("the publisher just written"))
        })
    }

    /// Removes a publisher; bodies are kept for the others only.
    pub fn stop_publisher(&self, name: &str) -> Result<()> {
        let kept = &self.writer.kept;
        self.write(|w| {
            w.stop_publisher(name)?;
            kept.set(&w.publishers()?);
            Ok(())
        })
    }

    /// The last change-log sequence number committed, read from the database (so writes
    /// by other processes on the same data directory count).
    pub fn last_seq(&self) -> Result<i64> {
        let seq = self.read(|reader| reader.last_seq())?;
        self.last_seq.fetch_max(seq, Ordering::SeqCst);
        Ok(seq)
    }

    /// Records that changes up to `seq` are committed and wakes whoever waits for them
    /// ([`Tenant::wait_for_change`]): this process's writes, and on PostgreSQL other
    /// processes' as they announce them. Must not panic.
    pub(crate) fn note_commit(&self, seq: i64) {
        self.last_seq.fetch_max(seq, Ordering::SeqCst);
        let _guard = self.changed.0.lock().unwrap_or_else(|e| e.into_inner());
        self.changed.1.notify_all();
    }

    /// Waits until a write through this process (on PostgreSQL, through any process on
    /// the database) commits a change after `seq`, or the timeout passes. Returns the
    /// last sequence number known to this process; followers should still poll
    /// [`Tenant::last_seq`] now and then for other processes' writes (on SQLite, or an
    /// announcement missed while PostgreSQL's listener reconnected).
    pub fn wait_for_change(&self, seq: i64, timeout: Duration) -> i64 {
        let guard = self.changed.0.lock().unwrap();
        let current = self.last_seq.load(Ordering::SeqCst);
        if current > seq {
            return current;
        }
        let _unused = self.changed.1.wait_timeout(guard, timeout).unwrap();
        self.last_seq.load(Ordering::SeqCst)
    }
}

/// How long a connection waits for another process's lock before failing.
const WRITER_PATIENCE: Duration = Duration::from_secs(30);

/// How often a tenant's WAL is checkpointed.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(500);

/// The WAL size past which the checkpointer empties it once writes pause, waiting for
/// readers if it must.
const WAL_LIMIT: u64 = 64 << 20;

/// The WAL size past which it empties it even while writes go on.
const WAL_HARD_LIMIT: u64 = 1 << 30;

/// How much of the WAL may be left to copy when a checkpoint past the hard limit starts
/// over while writes go on: it holds writers back while it copies it.
const RESTART_TAIL: u64 = 16 << 20;

/// How long an emptying checkpoint waits for readers (and holds writers back) at most.
const TRUNCATE_PATIENCE: Duration = Duration::from_millis(20);

/// The same for a bulk load's own checkpoint: between its transactions nobody else is
/// usually writing, and a WAL left full grows by the next transaction.
const BULK_TRUNCATE_PATIENCE: Duration = Duration::from_millis(200);

/// Runs a checkpoint in `mode` (PASSIVE, RESTART or TRUNCATE). True when every frame of
/// the WAL was copied.
fn wal_checkpoint(conn: &Connection, mode: &str) -> rusqlite::Result<bool> {
    checkpoint_frames(conn, mode).map(|(in_wal, copied)| in_wal == Some(copied))
}

/// Runs a checkpoint in `mode`: the frames in the WAL (`None` when the checkpoint was
/// blocked) and those copied. The pragma's row is (blocked, frames in the WAL, frames
/// copied), and an emptied WAL reports (0, 0, 0).
fn checkpoint_frames(conn: &Connection, mode: &str) -> rusqlite::Result<(Option<i64>, i64)> {
    conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |row| {
        let blocked = row.get::<_, i64>(0)? != 0;
        Ok(((!blocked).then_some(row.get(1)?), row.get(2)?))
    })
}

/// Checkpoints the tenant's WAL in the background (`PASSIVE`: it waits for no reader or
/// writer) until the tenant is dropped, and starts it over when it grows long. A
/// checkpoint of an empty WAL costs nothing.
fn spawn_checkpointer(tenant: &Arc<Tenant>) {
    let weak = Arc::downgrade(tenant);
    let (path, options) = (tenant.db_path.clone(), tenant.options.clone());
    let spawned =
        std::thread::Builder::new().name(format!("checkpoint-{}", tenant.name)).spawn(move || {
            // RESTART and TRUNCATE wait for readers on the busy handler while holding
            // writers back: a moment at most, never a long reader's whole transaction
            // (the search follower reads for a few hundred milliseconds under load).
            // Given up, they copy what they can like PASSIVE and try again next round.
            let opened = open_connection(&path, &options, false).and_then(|conn| {
                conn.busy_timeout(TRUNCATE_PATIENCE)?;
                Ok(conn)
            });
            let conn = match opened {
                Ok(conn) => conn,
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "no WAL checkpointer");
                    return;
                }
            };
            let wal = path.with_extension("sqlite-wal");
            // Our own handle on the database file, only to flush it (see below); never
            // closed (`files`).
            let db_file = crate::files::handle(&path).ok();
            let page_size: i64 =
                conn.query_row("PRAGMA page_size", [], |row| row.get(0)).unwrap_or(4096);
            let frame_bytes = (page_size + 24) as u64;
            let (mut last_frames, mut last_copied) = (0, 0);
            while weak.strong_count() > 0 {
                std::thread::sleep(CHECKPOINT_EVERY);
                // Under steady reads some reader always holds a WAL snapshot, so passive
                // checkpoints never let the WAL start over: it grows for as long as writes
                // go on. A PASSIVE pass copies all but the last moment's pages without
                // blocking anyone; then, past WAL_LIMIT in use, RESTART copies the rest
                // and has the next write start the file over (holding writers back while
                // it syncs: tens of milliseconds). While writes keep coming (an import)
                // it waits for them to pause, up to WAL_HARD_LIMIT. Truncating the file
                // frees its blocks, which took 200-700 ms of stalled writes on a 1 GiB
                // WAL here, so the file is emptied only once writes are quiet.
                let started = std::time::Instant::now();
                let (frames, copied) = match checkpoint_frames(&conn, "PASSIVE") {
                    Ok((frames, copied)) => (frames.unwrap_or(last_frames), copied),
                    Err(e) => {
                        tracing::warn!(path = %path.display(), error = %e, "WAL checkpoint failed");
                        continue;
                    }
                };
                // A checkpoint that copies only part of the WAL leaves the pages it
                // wrote dirty in the kernel's cache: SQLite syncs the database only once
                // it has copied every frame. The emptying checkpoint below then flushed
                // hundreds of megabytes while holding writers back (451 ms beside an
                // import), so the flush is done here, where it blocks no one.
                if copied != frames
                    && copied > last_copied
                    && let Some(file) = &db_file
                {
                    let _ = file.sync_data();
                }
                last_copied = copied;
                let in_use = frames as u64 * frame_bytes;
                let behind = frames.saturating_sub(copied) as u64 * frame_bytes;
                let quiet = frames == last_frames;
                last_frames = frames;
                let file = std::fs::metadata(&wal).map_or(0, |m| m.len());
                // Past the hard limit the RESTART copies what PASSIVE could not while
                // writers wait: only once that is a short tail, unless the WAL keeps
                // growing far past the limit (a reader that holds an old snapshot).
                let hard = in_use > WAL_HARD_LIMIT
                    && (behind <= RESTART_TAIL || in_use > 4 * WAL_HARD_LIMIT);
                let mode = if hard || (in_use > WAL_LIMIT && quiet) {
                    "RESTART"
                } else if file > WAL_LIMIT && quiet {
                    "TRUNCATE"
                } else {
                    continue;
                };
                let passive_ms = started.elapsed().as_millis();
                let started = std::time::Instant::now();
                let done = checkpoint_frames(&conn, mode);
                let ms = started.elapsed().as_millis();
                match done {
                    Ok((frames, copied)) => {
                        tracing::debug!(
                            mode,
                            ms,
                            passive_ms,
                            in_use,
                            behind,
                            file,
                            ?frames,
                            copied,
                            "WAL checkpoint"
                        )
                    }
                    Err(e) => {
                        tracing::warn!(path = %path.display(), error = %e, "WAL checkpoint failed")
                    }
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start the WAL checkpointer");
    }
}

/// Each connection's page cache.
const CACHE_BYTES: u64 = 64 << 20;

/// How much of a database file readers see through the memory map: all of it. SQLite
/// caps the map at the compile-time `SQLITE_MAX_MMAP_SIZE` (2 GiB unless built with
/// `.cargo/config.toml`'s flags). Pages past the map are copied into a connection's
/// page cache, and in WAL mode a connection empties that cache whenever another
/// connection has written since its last transaction: with the desk writing all day, a
/// million-instance database (9 GB) was mostly read by system calls, page by page.
const MMAP_BYTES: u64 = 1 << 40;

fn open_connection(path: &Path, options: &Options, read_only: bool) -> Result<Connection> {
    let flags = if read_only {
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX
    } else {
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
    };
    crate::random_reads::install();
    let conn = Connection::open_with_flags(path, flags)?;
    // Another process (a CLI command beside the server) may hold the write lock for a
    // while; wait for it rather than failing at once.
    conn.busy_timeout(WRITER_PATIENCE)?;
    let synchronous = match options.durability {
        Durability::Normal => "NORMAL",
        Durability::Full => "FULL",
    };
    if !read_only {
        conn.pragma_update(None, "journal_mode", "WAL")?;
    }
    conn.execute_batch(&format!(
        "PRAGMA synchronous = {synchronous};
         PRAGMA foreign_keys = ON;
         PRAGMA temp_store = MEMORY;
         PRAGMA cache_size = -{};
         PRAGMA mmap_size = {MMAP_BYTES};",
        CACHE_BYTES / 1024
    ))?;
    conn.set_prepared_statement_cache_capacity(128);
    Ok(conn)
}

/// A tenant's connection for a long pass, read a transaction at a time
/// ([`Tenant::bulk_reads`]).
pub struct BulkReads<'t> {
    tenant: &'t Tenant,
    // SQLite's plain-read connection; `None` on PostgreSQL.
    conn: Option<Connection>,
}

impl BulkReads<'_> {
    /// Runs `f` in a read transaction of its own, on a snapshot taken now.
    pub fn read<T, E: From<Error>>(
        &mut self,
        f: impl FnOnce(&Reader<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        match &mut self.conn {
            Some(conn) => read_in(conn, &self.tenant.writer.cache, f),
            None => self.tenant.read(f),
        }
    }
}

/// Runs `f` in a read transaction on `conn`.
fn read_in<T, E: From<Error>>(
    conn: &mut Connection,
    cache: &Arc<TableCache>,
    f: impl FnOnce(&Reader<'_>) -> Result<T, E>,
) -> Result<T, E> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred).map_err(Error::from)?;
    let cache = TxCache::new(cache);
    let value = f(&Reader::new(Tx::Sqlite(&tx), Some(&cache)))?;
    tx.commit().map_err(Error::from)?;
    Ok(value)
}

fn read_last_seq(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT COALESCE(MAX(seq), 0) FROM change_log", [], |row| row.get(0))?)
}

pub(crate) fn io_error(path: &Path, source: std::io::Error) -> Error {
    Error::Io { path: path.display().to_string(), source }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        ColumnValue,
        fixtures::{COMPONENT, THINGS},
    };

    /// Each read of a bulk pass takes a snapshot of its own, so between two pages nothing
    /// holds the WAL: a write made between them is seen, and an emptying checkpoint,
    /// refused while a page's transaction reads, goes through.
    #[test]
    fn a_bulk_pass_holds_no_snapshot_between_its_reads() {
        let (_dir, tenant) = crate::fixtures::sqlite_tenant();
        let insert = |id: &str| {
            tenant.write(|w| w.insert(&THINGS, id, 1, "{}", &[ColumnValue::Null])).unwrap();
            tenant.last_seq().unwrap()
        };
        let first = insert("a");
        let mut bulk = tenant.bulk_reads().unwrap();
        let emptied_while_reading = bulk
            .read(|r| {
                assert_eq!(r.last_seq()?, first);
                tenant.checkpoint()
            })
            .unwrap();
        assert!(!emptied_while_reading, "a checkpoint emptied the WAL under a reader");
        let second = insert("b");
        assert_eq!(bulk.read(|r| r.last_seq()).unwrap(), second);
        assert!(tenant.checkpoint().unwrap(), "the WAL was not emptied between two reads");
    }

    /// Two stores on one PostgreSQL database, as two nodes: each finds the tenants the
    /// other made and hears of its commits (announced by the database: no poll), they
    /// share one value, and their writes to a tenant are serialised. On SQLite a store
    /// shares nothing.
    #[test]
    fn two_stores_on_one_database_act_as_one() {
        let sqlite = tempfile::tempdir().unwrap();
        let alone = Store::open(sqlite.path(), Options::default(), &[]).unwrap();
        assert_eq!(alone.shared_value("key", || "made".into()).unwrap(), None);
        if crate::testing::postgres_url().is_none() {
            return;
        }
        let options = crate::testing::options();
        let (dir1, dir2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let one = Store::open(dir1.path(), options.clone(), &[COMPONENT]).unwrap();
        let (t1, _) = one.create_tenant("t").unwrap();
        let two = Store::open(dir2.path(), options, &[COMPONENT]).unwrap();
        assert_eq!(two.tenant_names(), ["t"]);
        let t2 = two.tenant("t").unwrap();

        let seq = t1.write(|w| {
            w.insert(&THINGS, "a", 1, "{}", &[ColumnValue::Null])?;
            w.last_seq().ok_or_else(|| Error::Corrupt("no change".into()))
        });
        let seq = seq.unwrap();
        // Only the announcement can move the other store's count: it reads nothing.
        assert!(t2.wait_for_change(0, Duration::from_secs(30)) >= seq, "not announced");

        assert_eq!(one.shared_value("key", || "first".into()).unwrap().as_deref(), Some("first"));
        assert_eq!(two.shared_value("key", || "second".into()).unwrap().as_deref(), Some("first"));

        let counted = |tenant: Arc<Tenant>| {
            std::thread::spawn(move || {
                (0..25)
                    .map(|_| tenant.write(|w| w.next_sequence("n", 1)).unwrap())
                    .collect::<Vec<_>>()
            })
        };
        let (a, b) = (counted(t1), counted(t2));
        let mut values: Vec<i64> = a.join().unwrap().into_iter().chain(b.join().unwrap()).collect();
        values.sort();
        assert_eq!(values, (1..=50).collect::<Vec<_>>(), "a value handed out twice");
    }

    /// The map covers whole databases only if SQLite was built with a larger
    /// `SQLITE_MAX_MMAP_SIZE` (`.cargo/config.toml`); without it SQLite clamps the pragma.
    #[test]
    fn readers_map_a_whole_database() {
        let dir = tempfile::tempdir().unwrap();
        let conn =
            open_connection(&dir.path().join("db.sqlite"), &Options::default(), false).unwrap();
        let mapped: u64 = conn.query_row("PRAGMA mmap_size", [], |row| row.get(0)).unwrap();
        assert_eq!(mapped, MMAP_BYTES);
    }
}
