//! The process's allocator: mimalloc, and how long it keeps memory it has freed.

/// mimalloc, as Meilisearch ships: tantivy's indexing allocates per token and per value,
/// and a search reindex runs 1.17x faster than on glibc's malloc (in the history of docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How long mimalloc keeps freed memory before it gives it back to the OS, unless
/// `MIMALLOC_PURGE_DELAY` says otherwise.
///
/// Why a minute and not mimalloc's second: an index build frees each segment's
/// indexing arena and hash tables when it flushes them, and fills new ones over the
/// next seconds. Given back within the second, that memory returns from the kernel as
/// fresh zeroed pages, a fault each, and on a virtual machine whose freed pages the
/// host reclaims (free page reporting) each faults in the host too: 4.3-4.9 GB per
/// million-instance build. Kept a minute, most of it is reused (1.2-1.5 GB faulted),
/// and a 1M build took 8-11% less time, for 0.5 GB more peak resident
/// (session 19, in the history of docs/benchmarks.md).
const PURGE_DELAY_MS: std::ffi::c_long = 60_000;

/// mimalloc's `mi_option_purge_delay`, which `libmimalloc-sys` does not name: its
/// place in mimalloc's `mi_option_t` (the same in mimalloc 2 and 3).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Sets mimalloc's purge delay to [`PURGE_DELAY_MS`]: as a default, which the
/// environment (`MIMALLOC_PURGE_DELAY`, or its old name `MIMALLOC_RESET_DELAY`) still
/// overrides.
pub(crate) fn keep_freed_memory() {
    // SAFETY: sets one of mimalloc's process-wide options, which it reads atomically;
    // any thread may set one at any time.
    unsafe { libmimalloc_sys::mi_option_set_default(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
}

/// How often the memory freed into mimalloc's arenas is given back to the OS.
const GIVE_BACK_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// Starts a thread that, every [`GIVE_BACK_EVERY`], has mimalloc give the OS the memory
/// its arenas hold freed.
///
/// Why: the purge delay keeps a thread's freed pages for that thread to reuse (an index
/// build's arena), but pages no thread holds any more go back to the arenas, and those
/// wait ten purge delays (mimalloc's `arena_purge_mult`), ten minutes here. Many come
/// from threads that have ended: tantivy starts an indexing thread at each commit, and
/// the search index commits twice a second while records change. Measured on a server
/// beside a 100,000-record import: 377-403 MiB not file-backed against 497-517 MiB
/// without this, check-out and check-in p95 unchanged; a 500,000-record import peaked
/// at 301 MiB against 448 (docs/benchmarks.md, row W).
pub(crate) fn give_back_freed_memory() {
    let spawned = std::thread::Builder::new().name("allocator".into()).spawn(|| {
        loop {
            std::thread::sleep(GIVE_BACK_EVERY);
            // SAFETY: collects this thread's heap, which holds nothing, and purges the
            // arenas' free memory, which mimalloc does under its own locks for any thread.
            unsafe { libmimalloc_sys::mi_collect(true) };
        }
    });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "could not start the thread that gives freed memory back");
    }
}

#[cfg(test)]
mod tests {
    use super::{MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS, keep_freed_memory};

    fn purge_delay() -> std::ffi::c_long {
        // SAFETY: reads one of mimalloc's options.
        unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) }
    }

    /// The option number is ours, not the crate's: a mimalloc that numbered its options
    /// differently would have the setting land on another option.
    #[test]
    fn the_purge_delay_is_the_option_set() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // mimalloc 3's default purge delay; no other option of its has this default.
        assert_eq!(purge_delay(), 1_000);
        keep_freed_memory();
        assert_eq!(purge_delay(), PURGE_DELAY_MS);
    }
}
