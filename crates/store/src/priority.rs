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
    lower_to(Class::Idle);
}

/// Puts the calling thread at the lowest priority of the ordinary class (Linux
/// `SCHED_OTHER` at niceness 19): for background work that mostly waits on reads and
/// feeds threads lowered with [`lower_current_thread`]. Woken when a read completes,
/// such a thread preempts idle-class threads at once, where an idle-class one would
/// wait for them to block or for the next scheduler tick; against requests it weighs
/// 15 to their 1024. Leaving the idle class needs a privilege, so call it on a thread
/// not lowered already. Failing to is not an error.
pub fn nice_current_thread() {
    lower_to(Class::Ordinary);
}

#[derive(Clone, Copy)]
enum Class {
    Idle,
    Ordinary,
}

/// The calling thread at the lowest priority of `class`, or at the lowest niceness
/// where that class cannot be had.
fn lower_to(class: Class) {
    #[cfg(target_os = "linux")]
    let done = {
        use thread_priority::unix::{
            NormalThreadSchedulePolicy, ThreadSchedulePolicy, set_thread_priority_and_policy,
            thread_native_id,
        };
        let policy = match class {
            Class::Idle => NormalThreadSchedulePolicy::Idle,
            Class::Ordinary => NormalThreadSchedulePolicy::Other,
        };
        set_thread_priority_and_policy(
            thread_native_id(),
            ThreadPriority::Min,
            ThreadSchedulePolicy::Normal(policy),
        )
    };
    #[cfg(not(target_os = "linux"))]
    let done = {
        let _ = class;
        set_current_thread_priority(ThreadPriority::Min)
    };
    if let Err(e) = done.or_else(|_| set_current_thread_priority(ThreadPriority::Min)) {
        tracing::debug!(error = ?e, "could not lower a background thread's priority");
    }
}
