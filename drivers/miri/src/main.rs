//! racefuzz's Miri driver: replays one trace of a `.race` program, event by event in the
//! trace's order, under Miri's data-race detector (`src/miri/mod.rs`, docs/spec/atomics.md
//! §5.4, §6.2). The trace comes as the arguments (Miri's isolation allows them, and no
//! file or standard input), one item per argument:
//!
//! ```text
//! cells N            every cell of every object, one AtomicI64 each, in one allocation
//! locks N            one std::sync::Mutex each
//! threads N          the trace's threads, 0..N
//! start T            main starts thread T before the first event (a thread no event forks)
//! T OP ARGS          one event of thread T, in trace order:
//!   r C / w C          a plain (non-atomic) read or write of cell C, through `as_ptr`
//!   L C O / S C O      an atomic load or store of cell C with order O (r a c R s)
//!   X C O              an atomic read-modify-write (a swap) with order O
//!   K C S F            a compare-exchange that fails, with orders S (success) and F (failure)
//!   F O                a fence
//!   a K / l K          acquire or release lock K
//!   f U / j U          fork or join thread U
//!   n                  an event with no effect here (a check, a capsule entry or exit)
//! ```
//!
//! Threads are raw pthreads (Miri's `pthread_create` and `pthread_join`), so that a thread
//! can join a thread another one started: a handle is a number, passed through a relaxed
//! atomic, not memory that would race. Each thread is named `tT` (`pthread_setname_np`), so
//! Miri's report names the trace's thread. Threads take turns on *relaxed* counters: Miri
//! derives no happens-before from relaxed atomics, so what it sees is the trace's own
//! happens-before (fork, join, locks, the program's atomics, program order). Only `main`
//! hands out turns (`turn`), and only `main` reads that an event is done (`done`): a thread
//! never reads a counter another trace thread wrote, because a relaxed store after a
//! release fence and a relaxed load before an acquire fence synchronize
//! (`[atomics.fences]/2`, which Miri models), and `main` performs no fence. Before each
//! event, its thread prints `racefuzz-event K` on standard error, with a bare `write` (the
//! lock of `eprintln!` would synchronize the threads): Miri stops at the first undefined
//! behaviour, and the last such line names the event that was running.

use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::atomic::{fence, AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

extern "C" {
    fn pthread_create(thread: *mut u64, attr: *const c_void, start: extern "C" fn(*mut c_void) -> *mut c_void, arg: *mut c_void) -> i32;
    fn pthread_join(thread: u64, ret: *mut *mut c_void) -> i32;
    fn pthread_self() -> u64;
    fn pthread_setname_np(thread: u64, name: *const u8) -> i32;
    fn write(fd: i32, buf: *const u8, count: usize) -> isize;
}

/// Writes `line` to standard error with one `write`: never through `eprintln!`, whose lock
/// on standard error is a mutex Miri sees, which would order every event after the one
/// printed before it and hide every race.
fn say(line: &str) {
    let line = format!("{line}\n");
    // SAFETY: a live buffer of that length.
    unsafe { write(2, line.as_ptr(), line.len()) };
}

extern "Rust" {
    fn miri_get_alloc_id(ptr: *const ()) -> u64;
}

/// The orders of the turn counters (load, store). Relaxed: Miri sees no synchronization in
/// them.
const TURNS: (Ordering, Ordering) = (Ordering::Relaxed, Ordering::Relaxed);

#[derive(Clone, Copy)]
enum Op {
    Read(usize),
    Write(usize),
    Load(usize, Ordering),
    Store(usize, Ordering),
    Rmw(usize, Ordering),
    CasFailed(usize, Ordering, Ordering),
    Fence(Ordering),
    Acquire(usize),
    Release(usize),
    Fork(usize),
    Join(usize),
    Nothing,
}

struct Trace {
    cells: Box<[AtomicI64]>,
    locks: Box<[Mutex<()>]>,
    handles: Box<[AtomicU64]>,
    joined: Box<[AtomicBool]>,
    events: Vec<(usize, Op)>,
    /// The event whose turn it is: written by `main` only.
    turn: AtomicUsize,
    /// How many events are done: written by the thread that performed the last one, read by
    /// `main` only.
    done: AtomicUsize,
}

static TRACE: OnceLock<Trace> = OnceLock::new();

thread_local! {
    /// The locks this thread holds, innermost last: a reentrant lock acquired again by its
    /// holder is a second entry with no guard of its own.
    static HELD: RefCell<Vec<(usize, Option<MutexGuard<'static, ()>>)>> = const { RefCell::new(Vec::new()) };
    static SINK: RefCell<i64> = const { RefCell::new(0) };
}

fn order(s: &str) -> Ordering {
    match s {
        "r" => Ordering::Relaxed,
        "a" => Ordering::Acquire,
        "c" => Ordering::Release,
        "R" => Ordering::AcqRel,
        "s" => Ordering::SeqCst,
        _ => bad(s),
    }
}

fn bad(s: &str) -> ! {
    say(&format!("racefuzz-miri: bad trace item `{s}`"));
    std::process::exit(2)
}

fn number(s: Option<&str>) -> usize {
    s.and_then(|s| s.parse().ok()).unwrap_or_else(|| bad(s.unwrap_or("(missing)")))
}

fn parse(items: &[String]) -> (Trace, Vec<usize>) {
    let (mut cells, mut locks, mut threads, mut starts, mut events) = (0, 0, 0, vec![], vec![]);
    for line in items {
        let mut w = line.split_whitespace();
        let first = w.next().unwrap_or("");
        match first {
            "cells" => cells = number(w.next()),
            "locks" => locks = number(w.next()),
            "threads" => threads = number(w.next()),
            "start" => starts.push(number(w.next())),
            _ => {
                let t = number(Some(first));
                let op = w.next().unwrap_or_else(|| bad(line));
                let mut arg = || number(w.next());
                let op = match op {
                    "r" => Op::Read(arg()),
                    "w" => Op::Write(arg()),
                    "L" => Op::Load(arg(), order(w.next().unwrap_or(""))),
                    "S" => Op::Store(arg(), order(w.next().unwrap_or(""))),
                    "X" => Op::Rmw(arg(), order(w.next().unwrap_or(""))),
                    "K" => Op::CasFailed(arg(), order(w.next().unwrap_or("")), order(w.next().unwrap_or(""))),
                    "F" => Op::Fence(order(w.next().unwrap_or(""))),
                    "a" => Op::Acquire(arg()),
                    "l" => Op::Release(arg()),
                    "f" => Op::Fork(arg()),
                    "j" => Op::Join(arg()),
                    "n" => Op::Nothing,
                    _ => bad(line),
                };
                events.push((t, op));
            }
        }
    }
    let trace = Trace {
        // At least one cell: an empty allocation has no id to print.
        cells: (0..cells.max(1)).map(|_| AtomicI64::new(0)).collect(),
        locks: (0..locks).map(|_| Mutex::new(())).collect(),
        handles: (0..threads).map(|_| AtomicU64::new(0)).collect(),
        joined: (0..threads).map(|_| AtomicBool::new(false)).collect(),
        events,
        turn: AtomicUsize::new(usize::MAX),
        done: AtomicUsize::new(0),
    };
    (trace, starts)
}

fn trace() -> &'static Trace {
    TRACE.get().unwrap_or_else(|| bad("(no trace)"))
}

/// Starts thread `t` (its handle, a number, goes through a relaxed atomic).
fn start(t: usize) {
    let mut h = 0u64;
    // SAFETY: `run` is a valid start routine; the argument is a number, not a pointer.
    let rc = unsafe { pthread_create(&mut h, std::ptr::null(), run, std::ptr::without_provenance_mut(t)) };
    if rc != 0 {
        bad("(pthread_create failed)");
    }
    trace().handles[t].store(h, Ordering::Relaxed);
}

fn join(t: usize) {
    let tr = trace();
    let h = tr.handles[t].load(Ordering::Relaxed);
    tr.joined[t].store(true, Ordering::Relaxed);
    // SAFETY: `h` is a thread this replay started and nobody joined yet.
    if unsafe { pthread_join(h, std::ptr::null_mut()) } != 0 {
        bad("(pthread_join failed)");
    }
}

fn perform(op: Op) {
    let tr = trace();
    match op {
        // SAFETY: a plain access to a live cell; a race here is what Miri is asked to find.
        Op::Read(c) => SINK.with(|s| *s.borrow_mut() = unsafe { *tr.cells[c].as_ptr() }),
        Op::Write(c) => unsafe { *tr.cells[c].as_ptr() = 1 },
        Op::Load(c, o) => SINK.with(|s| *s.borrow_mut() = tr.cells[c].load(o)),
        Op::Store(c, o) => tr.cells[c].store(1, o),
        Op::Rmw(c, o) => SINK.with(|s| *s.borrow_mut() = tr.cells[c].swap(1, o)),
        // No cell ever holds i64::MIN (every write stores 1): the exchange fails, a load.
        Op::CasFailed(c, s, f) => SINK.with(|x| *x.borrow_mut() = tr.cells[c].compare_exchange(i64::MIN, 1, s, f).unwrap_or_else(|v| v)),
        Op::Fence(o) => fence(o),
        Op::Acquire(k) => HELD.with(|h| {
            let mut h = h.borrow_mut();
            // A reentrant lock acquired again by its holder takes nothing more.
            let guard = (!h.iter().any(|(l, _)| *l == k)).then(|| tr.locks[k].lock().unwrap_or_else(|p| p.into_inner()));
            h.push((k, guard));
        }),
        Op::Release(k) => HELD.with(|h| {
            let mut h = h.borrow_mut();
            if let Some(i) = h.iter().rposition(|(l, _)| *l == k) {
                drop(h.remove(i));
            }
        }),
        Op::Fork(u) => start(u),
        Op::Join(u) => join(u),
        Op::Nothing => {}
    }
}

extern "C" fn run(arg: *mut c_void) -> *mut c_void {
    let me = arg.addr();
    let name = format!("t{me}\0");
    // SAFETY: a NUL-terminated name of at most 16 bytes for this thread.
    unsafe { pthread_setname_np(pthread_self(), name.as_ptr()) };
    let tr = trace();
    for (k, &(t, op)) in tr.events.iter().enumerate() {
        if t != me {
            continue;
        }
        while tr.turn.load(TURNS.0) != k {
            std::thread::yield_now();
        }
        say(&format!("racefuzz-event {k}"));
        perform(op);
        tr.done.store(k + 1, TURNS.1);
    }
    std::ptr::null_mut()
}

fn main() {
    let items: Vec<String> = std::env::args().skip(1).collect();
    let (parsed, starts) = parse(&items);
    let n = parsed.events.len();
    if TRACE.set(parsed).is_err() {
        bad("(twice)");
    }
    // SAFETY: Miri's own function, on a live allocation.
    say(&format!("racefuzz-cells {}", unsafe { miri_get_alloc_id(trace().cells.as_ptr().cast()) }));
    for t in starts {
        start(t);
    }
    let tr = trace();
    for k in 0..n {
        tr.turn.store(k, TURNS.1);
        while tr.done.load(TURNS.0) != k + 1 {
            std::thread::yield_now();
        }
    }
    for t in 0..tr.handles.len() {
        let h = tr.handles[t].load(Ordering::Relaxed);
        if h != 0 && !tr.joined[t].load(Ordering::Relaxed) {
            // SAFETY: a thread this replay started that the trace did not join.
            unsafe { pthread_join(h, std::ptr::null_mut()) };
        }
    }
    say("racefuzz-done");
}
