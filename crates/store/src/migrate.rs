//! Versioned schema migrations, applied when a tenant database is opened.
//!
//! Each component (the store itself, inventory, auth, ...) owns an ordered list of
//! migrations. A migration runs in its own transaction together with the row that records
//! it, so a crash between two migrations leaves a database that the next start finishes,
//! and running them twice changes nothing.

use rusqlite::{Connection, TransactionBehavior};

use crate::Result;

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

/// The store's own tables: the change log, named sequences, and the bodies kept for
/// publishers with their cursors.
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
    ],
};

/// Applies every migration of `components` not yet recorded; returns how many ran.
pub(crate) fn apply(conn: &mut Connection, components: &[Component]) -> Result<usize> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
            component TEXT NOT NULL,
            version INTEGER NOT NULL,
            description TEXT NOT NULL,
            applied_at TEXT NOT NULL,
            PRIMARY KEY (component, version)
        );",
    )?;
    let mut n_applied = 0;
    for component in std::iter::once(&CORE).chain(components) {
        for (idx, migration) in component.migrations.iter().enumerate() {
            debug_assert_eq!(migration.version as usize, idx + 1, "{} migrations", component.name);
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let done: bool = tx.query_row(
                "SELECT EXISTS(SELECT 1 FROM schema_migrations WHERE component = ?1 AND version = ?2)",
                (component.name, migration.version),
                |row| row.get(0),
            )?;
            if done {
                continue;
            }
            tx.execute_batch(migration.sql)?;
            tx.execute(
                "INSERT INTO schema_migrations (component, version, description, applied_at)
                 VALUES (?1, ?2, ?3, ?4)",
                (component.name, migration.version, migration.description, crate::changes::now()),
            )?;
            tx.commit()?;
            tracing::info!(
                component = component.name,
                version = migration.version,
                "applied migration"
            );
            n_applied += 1;
        }
    }
    Ok(n_applied)
}
