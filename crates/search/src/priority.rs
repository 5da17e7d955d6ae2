//! Background priority for index builds.
//!
//! A reindex must not slow live search: on a 2-core machine its indexing threads would
//! otherwise take half the CPU from searches. A build therefore runs on a thread of the
//! lowest scheduling class the OS offers to ordinary threads (Linux `SCHED_IDLE`; the
//! lowest niceness elsewhere), and the threads it starts, tantivy's indexing and
//! compression threads among them, inherit that class. The build then uses the CPU
//! time searches leave idle: on an idle machine it runs at full speed, under a
//! saturating search load it slows down instead of the searches.
//!
//! A full build's reading thread is the exception ([`reading_in_background`]): it
//! spends its time waiting on the database file, and in the idle class every wake-up
//! would wait for an indexing thread to block or for the next scheduler tick, starving
//! the indexing threads it feeds.

/// Runs `work` on a new low-priority thread and waits for its result.
pub(crate) fn in_background<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    on_new_thread(store::lower_current_thread, work)
}

/// Runs `work` on a new thread at the lowest priority of the ordinary class (niceness
/// 19; `store::nice_current_thread`) and waits for its result: for a full build's
/// reading thread, which starts its other threads in the idle class itself, and for
/// making a follower's writer, whose tantivy threads inherit the niceness.
pub(crate) fn reading_in_background<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    on_new_thread(store::nice_current_thread, work)
}

fn on_new_thread<T: Send>(lower: fn(), work: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("quire-reindex".to_string())
            .spawn_scoped(scope, || {
                lower();
                work()
            })
            .expect("starting a thread");
        thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}
