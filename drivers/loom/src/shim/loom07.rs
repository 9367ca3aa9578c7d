//! The loom API of the 0.5, 0.6 and 0.7 series: `loom::cell::UnsafeCell` with
//! `with`/`with_mut`, `loom::model::Builder` with public fields, `thread::spawn` without a
//! `Send` bound (loom's threads are coroutines on one OS thread).

/// loom's limit on threads in one execution, the main thread included.
pub const MAX_THREADS: usize = loom::MAX_THREADS;

/// One memory location.
pub type Cell = loom::cell::UnsafeCell<()>;
/// One lock.
pub type Mutex = loom::sync::Mutex<()>;
/// A held lock.
pub type Guard<'a> = loom::sync::MutexGuard<'a, ()>;
/// A started thread.
pub type Handle = loom::thread::JoinHandle<()>;

pub fn new_cell() -> Cell {
    loom::cell::UnsafeCell::new(())
}

pub fn read(c: &Cell) {
    c.with(|_| ());
}

pub fn write(c: &Cell) {
    c.with_mut(|_| ());
}

pub fn new_mutex() -> Mutex {
    loom::sync::Mutex::new(())
}

pub fn lock(m: &Mutex) -> Guard<'_> {
    // No thread panics while holding a lock (a panic ends the driver), so no poisoning.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn spawn(f: impl FnOnce() + 'static) -> Handle {
    loom::thread::spawn(f)
}

pub fn join(h: Handle) {
    let _ = h.join();
}

/// Runs `f` in every execution loom explores: no permutation or time limit (either would
/// end the search early and silently), the given preemption and branch bounds.
pub fn check(preemption_bound: Option<usize>, max_branches: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = preemption_bound;
    b.max_branches = max_branches;
    b.max_permutations = None;
    b.max_duration = None;
    b.checkpoint_file = None;
    b.check(f);
}
