//! Random-access advice for SQLite's memory maps.
//!
//! Readers see the database through a memory map (`PRAGMA mmap_size`), which spares a
//! copy per page. But a fault on a mapped file makes Linux read around the faulting page,
//! `read_ahead_kb` worth, and B-tree lookups touch pages scattered over the file: on a
//! virtual disk with `read_ahead_kb = 8192` a check-out whose pages had left the page
//! cache read megabytes for each page it needed, and a server following the desk's
//! workload read 5.5 GB in three minutes ("Cold pages", in the history of docs/benchmarks.md). SQLite has no
//! setting for this, but its Unix VFS lets a program replace the system calls it makes
//! (`xSetSystemCall`), so every map it creates gets `MADV_RANDOM`: a fault reads the one
//! page it needs. `mremap`, which SQLite uses to grow a map, keeps the advice with the
//! mapping.

use std::ffi::{c_int, c_void};
use std::sync::{Once, OnceLock};

use rusqlite::ffi;

type Mmap =
    unsafe extern "C" fn(*mut c_void, usize, c_int, c_int, c_int, libc::off_t) -> *mut c_void;

/// The `mmap` SQLite called before ours replaced it.
static SQLITE_MMAP: OnceLock<Mmap> = OnceLock::new();

/// Installs the advising `mmap` in SQLite's default VFS, once per process, before the
/// first connection opens. Where it cannot (another VFS, no `mmap` in it), SQLite keeps
/// its own and only the read-around remains.
pub(crate) fn install() {
    static ONCE: Once = Once::new();
    // SAFETY: `sqlite3_vfs_find` initialises SQLite and returns the registered default
    // VFS, which lives for the whole process. `xSetSystemCall` is not thread-safe
    // against connections using the VFS; `Once` runs this before `open_connection`
    // opens any, and the store is the only code in the program that opens SQLite.
    // The transmutes convert between the pointer type SQLite's table stores
    // (`sqlite3_syscall_ptr`) and the real signature of `mmap`, which is what the
    // entry named "mmap" holds.
    ONCE.call_once(|| unsafe {
        let vfs = ffi::sqlite3_vfs_find(std::ptr::null());
        if vfs.is_null() || (*vfs).iVersion < 3 {
            return;
        }
        let (Some(get), Some(set)) = ((*vfs).xGetSystemCall, (*vfs).xSetSystemCall) else {
            return;
        };
        let Some(current) = get(vfs, c"mmap".as_ptr()) else { return };
        let current = std::mem::transmute::<unsafe extern "C" fn(), Mmap>(current);
        if SQLITE_MMAP.set(current).is_err() {
            return;
        }
        let ours = std::mem::transmute::<Mmap, unsafe extern "C" fn()>(mmap_random);
        if set(vfs, c"mmap".as_ptr(), Some(ours)) != ffi::SQLITE_OK {
            tracing::debug!("SQLite kept its own mmap: page faults read ahead");
        }
    });
}

/// SQLite's `mmap`, then `madvise(MADV_RANDOM)` on the new map. The advice is only a
/// hint: if it fails, the map works as before.
unsafe extern "C" fn mmap_random(
    addr: *mut c_void,
    len: usize,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    offset: libc::off_t,
) -> *mut c_void {
    let Some(mmap) = SQLITE_MMAP.get() else { return libc::MAP_FAILED };
    // SAFETY: the arguments are SQLite's, passed on unchanged to the function it would
    // have called; `madvise` only reads the range `mmap` just returned.
    unsafe {
        let map = mmap(addr, len, prot, flags, fd, offset);
        if map != libc::MAP_FAILED {
            libc::madvise(map, len, libc::MADV_RANDOM);
        }
        map
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use crate::fixtures;

    /// The kernel lists `rr` among a mapping's flags when it was advised random reads.
    #[test]
    fn the_database_map_is_advised_random_reads() {
        let (_dir, tenant) = fixtures::sqlite_tenant();
        // The migrations' pages go from the WAL into the file, and a read maps it.
        tenant.checkpoint().unwrap();
        tenant.read(|reader| reader.count(&fixtures::THINGS)).unwrap();
        let maps = fixtures::maps_of(&tenant.db_path);
        assert!(!maps.is_empty(), "no map of the database in /proc/self/smaps");
        assert!(maps.iter().all(|map| map.random));
    }
}
