//! Keeping a serving tenant's database in memory.
//!
//! A desk's requests touch patrons, items and loans all over the file, so until the
//! pages have been read once, a check-out waits on the disk for several of them. A
//! server therefore maps the whole file and has the kernel read it in, in the lowest
//! scheduling class (`priority`), as PostgreSQL's `pg_prewarm` does for its buffers,
//! and keeps the map while the tenant is open: the pages then count as in use, which
//! some kernels' reclaimers (DAMON's page-out scheme on this project's test machine)
//! respect and unmapped page cache they do not. The pages stay reclaimable under real
//! memory pressure. The map covers the file as it was when the tenant opened; pages
//! written since are in memory already, having just been written. The map is only ever
//! read by the kernel (`MADV_POPULATE_READ`), never by this program, so the writer
//! changing the file under it is harmless.

use std::path::Path;
use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::Tenant;

/// Pages populated per `madvise` call, so a tenant dropped meanwhile stops the work soon.
const CHUNK: usize = 64 << 20;

/// Starts the thread that warms and then holds the tenant's database file.
pub(crate) fn spawn(tenant: &Arc<Tenant>) {
    let weak = Arc::downgrade(tenant);
    let path = tenant.db_path.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("prewarm-{}", tenant.name()))
        .spawn(move || hold(&path, &weak));
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start the database prewarmer");
    }
}

fn hold(path: &Path, tenant: &Weak<Tenant>) {
    crate::lower_current_thread();
    let map = match Map::new(path) {
        Ok(Some(map)) => map,
        Ok(None) => return,
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot map the database to prewarm it");
            return;
        }
    };
    let started = std::time::Instant::now();
    let mut offset = 0;
    while offset < map.len && tenant.strong_count() > 0 {
        let len = CHUNK.min(map.len - offset);
        if let Err(e) = map.populate(offset, len) {
            tracing::debug!(error = %e, "prewarming stopped");
            break;
        }
        offset += len;
    }
    tracing::info!(path = %path.display(), bytes = offset, elapsed_ms = started.elapsed().as_millis() as u64, "database prewarmed");
    while tenant.strong_count() > 0 {
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// A read-only shared map of a whole file, unmapped on drop.
struct Map {
    addr: *mut libc::c_void,
    len: usize,
}

impl Map {
    fn new(path: &Path) -> std::io::Result<Option<Map>> {
        use std::os::fd::AsRawFd;
        // Never closed: closing it would release SQLite's locks on the file (`files`).
        let file = crate::files::handle(path)?;
        let len = usize::try_from(file.metadata()?.len()).unwrap_or(usize::MAX);
        if len == 0 {
            return Ok(None);
        }
        // SAFETY: a fresh read-only shared map chosen by the kernel (no address hint),
        // of an open file descriptor. Nothing in this program reads through it (see
        // the module comment).
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if addr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Some(Map { addr, len }))
    }

    /// Has the kernel read `len` bytes from `offset` into the page cache and map them.
    /// Fails on kernels before 5.14 (no `MADV_POPULATE_READ`) and on a range past the
    /// end of a file that shrank.
    fn populate(&self, offset: usize, len: usize) -> std::io::Result<()> {
        // SAFETY: the range lies within the map (`offset + len <= self.len`), and the
        // advice only makes the kernel fault pages in; it writes no memory of ours.
        let done = unsafe {
            libc::madvise(self.addr.cast::<u8>().add(offset).cast(), len, libc::MADV_POPULATE_READ)
        };
        if done == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the map `new` made, once.
        unsafe {
            libc::munmap(self.addr, self.len);
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use crate::fixtures;

    /// The prewarmer's map of the database (the one not advised random reads, as
    /// SQLite's own are) is resident in full once populated: what the prewarm thread
    /// does, done here on the test's thread so the test waits on nothing.
    #[test]
    fn a_prewarmed_database_is_mapped_and_resident() {
        let (_dir, tenant) = fixtures::sqlite_tenant();
        tenant.checkpoint().unwrap();
        let size_kib = std::fs::metadata(&tenant.db_path).unwrap().len() / 1024;
        let map = super::Map::new(&tenant.db_path).unwrap().expect("a database to map");
        map.populate(0, map.len).unwrap();
        let maps = fixtures::maps_of(&tenant.db_path);
        assert!(
            maps.iter().any(|map| !map.random && map.rss_kib >= size_kib),
            "no resident map of {size_kib} KiB"
        );
    }
}
