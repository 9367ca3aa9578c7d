//! Scratch folders under the system's temporary directory (`racefuzz-WHAT-PID-N`): compiled
//! replays, trace files for a detector, a probe's program. Never in the source tree, and
//! never left behind: a [`Scratch`] is removed with everything in it when dropped, and
//! [`remove_all`] removes every live one when a signal stops racefuzz before its drops run
//! (the command line's handler calls it).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;

/// Every live scratch folder, for [`remove_all`].
static LIVE: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// A scratch folder of its own; removed when dropped.
///
/// Invariant: its path is among the live folders [`remove_all`] removes, from creation
/// to drop.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    /// A new, empty folder for `what`.
    ///
    /// # Errors
    /// When it cannot be created: the path and the system's reason.
    pub fn new(what: &str) -> Result<Scratch, String> {
        let s = Scratch::named(what);
        std::fs::create_dir_all(&s.0).map_err(|e| format!("cannot create {}: {e}", s.0.display()))?;
        Ok(s)
    }

    /// Its name only; the folder is made by whoever first writes into it.
    pub fn named(what: &str) -> Scratch {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("racefuzz-{what}-{}-{n}", std::process::id()));
        if let Ok(mut live) = LIVE.lock() {
            live.insert(path.clone());
        }
        Scratch(path)
    }

    /// The folder.
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
        if let Ok(mut live) = LIVE.lock() {
            live.remove(&self.0);
        }
    }
}

/// Removes every live scratch folder: what a signal handler does before it exits, since
/// the process then ends without running drops.
pub fn remove_all() {
    // A handler may run while a worker holds the lock; the folders are then left, rather
    // than deadlock the exit.
    if let Ok(live) = LIVE.try_lock() {
        for p in live.iter() {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_folder_is_removed_when_dropped_or_by_remove_all() {
        let s = Scratch::new("scratch-test").unwrap();
        let p = s.path().to_path_buf();
        std::fs::write(p.join("f"), "x").unwrap();
        drop(s);
        assert!(!p.exists());
        let kept = Scratch::new("scratch-test").unwrap();
        std::fs::write(kept.path().join("f"), "x").unwrap();
        remove_all();
        assert!(!kept.path().exists());
    }
}
