//! SIGINT and SIGTERM. One handler for every command (a process has one): a command that
//! stops gracefully (`fuzz`: it prints its summary and shrinks what it found) asks for it,
//! and then counts the signals itself, exiting at the third; any other command exits at
//! the first. Either way, every live scratch folder is removed before the exit
//! ([`crate::scratch::remove_all`]), since an exit skips the drops that would remove them.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static SIGNALS: AtomicUsize = AtomicUsize::new(0);
static GRACEFUL: AtomicBool = AtomicBool::new(false);

/// Sets the handler (once, before any command runs).
pub fn install() {
    // An error here only means a handler is already set (racefuzz's CLI run in-process).
    let _ = ctrlc::set_handler(|| {
        let before = SIGNALS.fetch_add(1, Ordering::Relaxed);
        if !GRACEFUL.load(Ordering::Relaxed) || before >= 2 {
            crate::scratch::remove_all();
            std::process::exit(130);
        }
    });
}

/// From now on the first two signals only count ([`received`]); the third exits.
pub fn stop_gracefully() {
    GRACEFUL.store(true, Ordering::Relaxed);
}

/// How many signals arrived.
pub fn received() -> usize {
    SIGNALS.load(Ordering::Relaxed)
}
