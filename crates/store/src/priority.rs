//! The scheduling class of background work.
//!
//! Background work (the prewarm here, index builds in `search`) should take only the
//! CPU time requests leave: on a 2-core machine it would otherwise take half of it.

use thread_priority::{ThreadPriority, set_current_thread_priority};

/// Puts the calling thread in the lowest scheduling class the OS offers ordinary
/// threads (Linux `SCHED_IDLE`; the lowest niceness elsewhere). Threads it starts
/// afterwards inherit the class. Failing to is not an error: the work then competes
/// with requests as any thread does.
pub fn lower_current_thread() {
    #[cfg(target_os = "linux")]
    let done = {
        use thread_priority::unix::{
            NormalThreadSchedulePolicy, ThreadSchedulePolicy, set_thread_priority_and_policy,
            thread_native_id,
        };
        set_thread_priority_and_policy(
            thread_native_id(),
            ThreadPriority::Min,
            ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle),
        )
    };
    #[cfg(not(target_os = "linux"))]
    let done = set_current_thread_priority(ThreadPriority::Min);
    if let Err(e) = done.or_else(|_| set_current_thread_priority(ThreadPriority::Min)) {
        tracing::debug!(error = ?e, "could not lower a background thread's priority");
    }
}
