//! How much heap SQLite holds in this process: mostly the connections' page caches,
//! which fill as a tenant's database grows, up to their size each (64 MiB).

/// Bytes SQLite has allocated and not freed, over every connection of the process.
pub fn sqlite_memory_bytes() -> u64 {
    // SAFETY: `sqlite3_memory_used` only reads SQLite's own counter; it is thread-safe
    // and needs no connection.
    let used = unsafe { rusqlite::ffi::sqlite3_memory_used() };
    u64::try_from(used).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_what_a_connection_caches() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::Store::open(dir.path(), crate::Options::default(), &[]).unwrap();
        let (_tenant, _) = store.create_tenant("diku").unwrap();
        // Other tests of this process open and close connections at the same time, so
        // only this holds for certain: SQLite keeps its count (a build without memory
        // statistics reports 0).
        assert!(super::sqlite_memory_bytes() > 0, "an open tenant holds SQLite memory");
    }
}
