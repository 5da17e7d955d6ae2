//! Versioned schema migrations, applied when a tenant database is opened.
//!
//! Each component (the store itself, inventory, auth, ...) owns an ordered list of
//! migrations. A migration runs in its own transaction together with the row that records
//! it, so a crash between two migrations leaves a database that the next start finishes,
//! and running them twice changes nothing.

use rusqlite::{Connection, TransactionBehavior};

use crate::{
    Result,
    postgres::Session,
    sql::{Dialect, Tx},
};

/// One step of a component's schema.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// Starts at 1 and increases by one per step, with no gaps.
    pub version: u32,
    pub description: &'static str,
    pub sql: &'static str,
}

/// The migrations of one component, e.g. `inventory`.
#[derive(Debug, Clone, Copy)]
pub struct Component {
    pub name: &'static str,
    pub migrations: &'static [Migration],
}

/// The store's own tables: the change log (with its index by record, for the record
/// types [`HISTORY_TYPES`](crate::HISTORY_TYPES) names), named sequences, the bodies
/// kept for publishers with their cursors, the leases on long jobs and the files nodes
/// share.
pub(crate) const CORE: Component = Component {
    name: "store",
    migrations: &[
        Migration {
            version: 1,
            description: "change log and sequences",
            sql: "
            CREATE TABLE change_log (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                record_type TEXT NOT NULL,
                record_id TEXT NOT NULL,
                op TEXT NOT NULL,
                at TEXT NOT NULL
            );
            CREATE TABLE sequences (
                name TEXT PRIMARY KEY,
                value INTEGER NOT NULL
            );
        ",
        },
        Migration {
            version: 2,
            description: "change bodies kept for publishers",
            sql: "
            CREATE TABLE change_bodies (
                seq INTEGER PRIMARY KEY,
                old TEXT,
                new TEXT
            );
            CREATE TABLE publishers (
                name TEXT PRIMARY KEY,
                published INTEGER NOT NULL,
                record_types TEXT NOT NULL
            );
        ",
        },
        Migration {
            version: 3,
            description: "job leases and files shared between nodes",
            sql: "
            CREATE TABLE job_leases (
                job TEXT PRIMARY KEY,
                node TEXT NOT NULL,
                expires INTEGER NOT NULL
            );
            CREATE TABLE shared_files (
                name TEXT NOT NULL,
                part INTEGER NOT NULL,
                data TEXT NOT NULL,
                PRIMARY KEY (name, part)
            );
        ",
        },
        Migration {
            version: 4,
            description: "change log by record, for instances and holdings",
            // Partial, so the writes a desk makes (items, loans, check-ins) pay nothing
            // for it: a record's history is asked for rarely, a check-out is not.
            sql: "
            CREATE INDEX change_log_record ON change_log (record_id)
                WHERE record_type IN ('instance', 'holdings');
        ",
        },
    ],
};

/// The table that records which migrations ran, in SQL both databases take.
const SCHEMA_MIGRATIONS: &str = "CREATE TABLE IF NOT EXISTS schema_migrations (
    component TEXT NOT NULL,
    version INTEGER NOT NULL,
    description TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (component, version)
)";

/// Applies every migration of `components` not yet recorded to an SQLite database;
/// returns how many ran.
pub(crate) fn apply(conn: &mut Connection, components: &[Component]) -> Result<usize> {
    conn.execute_batch(SCHEMA_MIGRATIONS)?;
    apply_each(components, &mut |step| {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let ran = step(Tx::Sqlite(&tx))?;
        tx.commit()?;
        Ok(ran)
    })
}

/// Applies them to a tenant's PostgreSQL schema, creating it (and the `citext` type its
/// case-insensitive columns use) if it is new. Each migration holds the tenant's write
/// lock: nodes starting together apply each once.
pub(crate) fn apply_postgres(
    session: &Session,
    schema: &str,
    components: &[Component],
) -> Result<usize> {
    session.batch(&format!(
        "BEGIN; SELECT pg_advisory_xact_lock({});
         CREATE EXTENSION IF NOT EXISTS citext WITH SCHEMA public;
         CREATE SCHEMA IF NOT EXISTS \"{schema}\";
         SET LOCAL search_path TO \"{schema}\", public;
         {SCHEMA_MIGRATIONS};
         COMMIT",
        crate::postgres::SETUP_LOCK
    ))?;
    let lock = crate::postgres::lock_key(schema);
    apply_each(components, &mut |step| {
        session.begin_write(schema, lock, None, false);
        let ran = step(Tx::Postgres(session));
        session.end(ran.is_ok())?;
        ran
    })
}

/// A migration's work within the transaction `in_transaction` gives it: true when it ran.
type Step<'s> = dyn FnMut(Tx<'_>) -> Result<bool> + 's;

fn apply_each(
    components: &[Component],
    in_transaction: &mut dyn FnMut(&mut Step<'_>) -> Result<bool>,
) -> Result<usize> {
    let mut n_applied = 0;
    for component in std::iter::once(&CORE).chain(components) {
        for (idx, migration) in component.migrations.iter().enumerate() {
            debug_assert_eq!(migration.version as usize, idx + 1, "{} migrations", component.name);
            let version = i64::from(migration.version);
            let ran = in_transaction(&mut |tx| {
                let done = tx
                    .query_opt(
                        "SELECT 1 FROM schema_migrations WHERE component = ?1 AND version = ?2",
                        &[component.name.into(), version.into()],
                        |_| Ok(()),
                    )?
                    .is_some();
                if done {
                    return Ok(false);
                }
                match tx.dialect() {
                    Dialect::Sqlite => tx.batch(migration.sql)?,
                    Dialect::Postgres => tx.batch(&crate::dialect::postgres_ddl(migration.sql))?,
                }
                let now = crate::changes::now();
                tx.execute(
                    "INSERT INTO schema_migrations (component, version, description, applied_at)
                     VALUES (?1, ?2, ?3, ?4)",
                    &[
                        component.name.into(),
                        version.into(),
                        migration.description.into(),
                        now.as_str().into(),
                    ],
                )?;
                Ok(true)
            })?;
            if ran {
                tracing::info!(
                    component = component.name,
                    version = migration.version,
                    "applied migration"
                );
                n_applied += 1;
            }
        }
    }
    Ok(n_applied)
}
