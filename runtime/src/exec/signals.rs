//! SIGINT and SIGTERM during a run: the first asks the run to stop after
//! the step in flight has been recorded (a flag the workers and the step
//! loop read), a second ends the process at once.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, OnceLock};

/// The stop flag signals set.
static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// The signal that stopped the run (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The first SIGINT or SIGTERM asks the run to stop after the step in
/// flight has been recorded; a second one ends the process at once.
extern "C" fn on_signal(sig: libc::c_int) {
    if let Some(s) = STOP.get()
        && !s.swap(true, Ordering::SeqCst)
    {
        SIGNAL.store(sig, Ordering::SeqCst);
        return;
    }
    // SAFETY: signal and raise take numbers only; restoring the default action and raising the
    // signal again is how a handler hands a signal on.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

pub(super) fn stop_flag() -> Arc<AtomicBool> {
    let flag = STOP.get_or_init(|| Arc::new(AtomicBool::new(false))).clone();
    flag.store(false, Ordering::SeqCst);
    SIGNAL.store(0, Ordering::SeqCst);
    // SAFETY: `on_signal` is an extern "C" fn that only stores into atomics, which is
    // async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    flag
}

/// Whether SIGINT or SIGTERM asked the last run (or what runs after it in
/// this process, such as a crosscheck's fio) to stop.
pub fn stop_requested() -> bool {
    STOP.get().is_some_and(|s| s.load(Ordering::SeqCst))
}

/// `interrupted by SIGTERM`.
pub(super) fn interrupted_by() -> String {
    match SIGNAL.load(Ordering::SeqCst) {
        libc::SIGINT => "interrupted by SIGINT".into(),
        libc::SIGTERM => "interrupted by SIGTERM".into(),
        0 => "interrupted".into(),
        n => format!("interrupted by signal {n}"),
    }
}

/// The signal that stopped the last run, if one did.
pub(super) fn stopped_by() -> Option<i32> {
    Some(SIGNAL.load(Ordering::SeqCst)).filter(|s| *s != 0)
}
