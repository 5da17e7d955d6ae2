//! The store's own handles on database files, opened once per process and never closed.
//!
//! Why: SQLite's locks on a database file are POSIX advisory locks, and those belong to
//! the process: closing *any* descriptor of the file releases all of them
//! (sqlite.org/howtocorrupt.html, 2.2). A handle of our own on a tenant's database (to
//! flush it while checkpointing, to map it for the prewarm) closed while connections are
//! open silently dropped their shared lock on the file. Another process on the same data
//! directory (`quire tenant list` beside a running server) then found the database
//! unused, and on closing its last connection checkpointed and removed the WAL under the
//! server: rows missing from indexes after the server's next writes (session 31). Kept
//! open, these handles never release anyone's locks; there is one per tenant.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// This process's read-only handle on `path`, opened on first use.
pub(crate) fn handle(path: &Path) -> std::io::Result<Arc<File>> {
    static OPEN: OnceLock<Mutex<HashMap<PathBuf, Arc<File>>>> = OnceLock::new();
    let mut open = OPEN.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(file) = open.get(path) {
        return Ok(file.clone());
    }
    let file = Arc::new(File::open(path)?);
    open.insert(path.to_path_buf(), file.clone());
    Ok(file)
}
