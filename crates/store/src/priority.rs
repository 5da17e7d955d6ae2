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
    lower_to(Class::Ordinary { niceness: 19 });
}

/// Puts the calling thread at `niceness` (0 to 19) in the ordinary class: for
/// background work that must keep pace with the desk's writes, as the event publisher
/// must, and so may not wait behind index builds as [`nice_current_thread`]'s threads
/// do. At 10 it weighs 110 to requests' 1024 and to 19's 15. (`SCHED_BATCH` at 10, tried
/// for the publisher, did not lower the desk's p95 measurably.) Failing to is not an
/// error.
pub fn nice_current_thread_to(niceness: u8) {
    lower_to(Class::Ordinary { niceness: niceness.min(19) });
}

#[derive(Clone, Copy)]
enum Class {
    Idle,
    Ordinary { niceness: u8 },
}

/// The calling thread in `class` (at its lowest priority for the idle class), or at the
/// lowest niceness where that cannot be had.
fn lower_to(class: Class) {
    #[cfg(target_os = "linux")]
    let done = {
        use thread_priority::unix::{
            NormalThreadSchedulePolicy, ThreadSchedulePolicy, set_thread_priority_and_policy,
            thread_native_id,
        };
        let (policy, priority) = match class {
            Class::Idle => (NormalThreadSchedulePolicy::Idle, ThreadPriority::Min),
            Class::Ordinary { niceness } => {
                // The crate takes niceness only as its cross-platform 0..=99, which it
                // maps onto 19..=-20 linearly, rounding down; the first value to land on
                // `niceness` is it.
                let niceness = i32::from(niceness);
                let priority = (0u8..=99)
                    .find(|p| (39.0 * (1.0 - f32::from(*p) / 99.0)) as i32 - 20 <= niceness)
                    .and_then(|p| p.try_into().ok())
                    .map_or(ThreadPriority::Min, ThreadPriority::Crossplatform);
                (NormalThreadSchedulePolicy::Other, priority)
            }
        };
        set_thread_priority_and_policy(
            thread_native_id(),
            priority,
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The calling thread's niceness and scheduling policy, from procfs (fields 19 and
    /// 41 of its stat line).
    fn niceness_and_policy() -> (i32, u32) {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        (fields[19 - 3].parse().unwrap(), fields[41 - 3].parse().unwrap())
    }

    #[test]
    fn a_thread_is_set_to_the_niceness_asked() {
        const SCHED_OTHER: u32 = 0;
        for asked in [10u8, 19] {
            let got = std::thread::spawn(move || {
                super::nice_current_thread_to(asked);
                niceness_and_policy()
            })
            .join()
            .unwrap();
            assert_eq!(got, (i32::from(asked), SCHED_OTHER));
        }
    }
}
