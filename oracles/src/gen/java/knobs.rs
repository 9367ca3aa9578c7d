//! The swarm knobs of the SimpleJava and CapJava generators (docs/spec/escape_capsule.md §5.4:
//! the ingredients for rediscovering the counterexamples by fuzzing, and how often each
//! appears), drawn per program from the header bytes, and the one [`Setting`] both dialects'
//! builder reads them as.

use super::SWARM_HEADER;
use crate::gen::toolkit::chance;

/// Knobs of the SimpleJava generator.
#[derive(Clone, Copy, Debug)]
pub struct SimpleJavaKnobs {
    /// Worker threads the main thread forks (1–3).
    pub workers: usize,
    /// Visible operations per worker, at most (2–5, one more for SimpleJava's `sync` on fresh objects, one less for a capsule thread; 2 with three workers).
    pub ops: usize,
    /// Visible operations of the main thread after its forks, at most (0–2).
    pub main_ops: usize,
    /// Whether the lock object `l` (and `sync(l)`, `acq(l)`/`rel(l)`) appears.
    pub locks: bool,
    /// Whether the main thread gives an object `o` to the workers (`w.x = o`, M-E2).
    pub given: bool,
    /// Whether `sync` on fresh objects appears (Fig. 4.1, §5.3).
    pub sync_fresh: bool,
    /// Whether calls of the plain methods `set`/`get` appear.
    pub calls: bool,
    /// A hand-off program instead ([`super::handoff`]): the main thread and one worker pass a fresh
    /// object through the worker object itself, which is the holder and the lock.
    pub handoff: bool,
    /// A graph hand-off program instead ([`super::graph_handoff`]): the main thread builds a
    /// graph of fresh objects behind the worker before the fork.
    pub graph: bool,
}

impl Default for SimpleJavaKnobs {
    fn default() -> SimpleJavaKnobs {
        SimpleJavaKnobs { workers: 2, ops: 4, main_ops: 1, locks: true, given: true, sync_fresh: true, calls: true, handoff: false, graph: false }
    }
}

fn workers_of(b: u8) -> usize {
    match b % 8 {
        0 => 1,
        1 => 3,
        _ => 2,
    }
}

fn ops_of(workers: usize, b: u8) -> usize {
    if workers == 3 {
        2
    } else {
        2 + usize::from(b) % 4
    }
}

impl SimpleJavaKnobs {
    /// Swarm knobs: 2 workers (1 or 3 in an eighth of the programs each), 2–5 visible
    /// operations per worker (2 with three workers, +1 with `sync_fresh`), 0–2 for the main thread after its
    /// forks, locks in 75%, a given object in 60%, `sync` on fresh objects in 50%, plain
    /// calls in 40%; hand-off programs in 40%, graph hand-off programs in 10% (before the
    /// others: the object graph's mutants and hand-made slips went uncaught without them,
    /// docs/mutation-slips.md).
    pub fn swarm(h: [u8; SWARM_HEADER]) -> SimpleJavaKnobs {
        let workers = workers_of(h[0]);
        SimpleJavaKnobs {
            workers,
            ops: ops_of(workers, h[1]),
            main_ops: usize::from(h[1] >> 5) % 3,
            locks: chance(h[2], 75),
            given: chance(h[3], 60),
            sync_fresh: chance(h[2].rotate_left(3), 50),
            calls: chance(h[3].rotate_left(4), 40),
            handoff: chance(h[0].rotate_left(4), 40),
            graph: chance(h[1].rotate_left(2) ^ h[3], 10),
        }
    }
}

/// Knobs of the CapJava generator.
#[derive(Clone, Copy, Debug)]
pub struct CapJavaKnobs {
    /// Worker threads the main thread forks (1–3).
    pub workers: usize,
    /// Visible operations per worker, at most (2–5, one more for SimpleJava's `sync` on fresh objects, one less for a capsule thread; 2 with three workers).
    pub ops: usize,
    /// Visible operations of the main thread after its forks, at most (0–2).
    pub main_ops: usize,
    /// Percent of the workers that are capsule thread objects (a capsule class with `run()`).
    pub capsule_threads: u32,
    /// Whether the main thread calls `k.setup()` (creating the capsule's inner object).
    pub setup: bool,
    /// Whether the SimpleJava operations (publication of fresh objects, …) appear too.
    pub plain: bool,
    /// One deliberate capsule violation: 0 none, 1 unsynchronized capsule calls, 2 a
    /// `copyFrom` reading a sibling capsule's field (M-C3), 3 a capsule field read from
    /// outside.
    pub violation: u8,
    /// A capsule hand-off program instead ([`super::capsule_handoff`]).
    pub handoff: bool,
    /// A graph hand-off program instead ([`super::graph_handoff`], in CapJava): a plain
    /// worker reached through a graph of fresh objects, published before or after the fork.
    pub graph: bool,
}

impl Default for CapJavaKnobs {
    fn default() -> CapJavaKnobs {
        CapJavaKnobs { workers: 2, ops: 5, main_ops: 1, capsule_threads: 40, setup: true, plain: true, violation: 0, handoff: false, graph: false }
    }
}

impl CapJavaKnobs {
    /// Swarm knobs: workers as [`SimpleJavaKnobs::swarm`], at most 3 visible operations per worker, capsule thread
    /// objects for 0%, 30% or 60% of the workers, `setup` in 85%, SimpleJava operations in
    /// 50%, and a deliberate violation in about 4% of the programs (unsynchronized calls and
    /// `copyFrom` about 2% each, an outside field read rarer).
    pub fn swarm(h: [u8; SWARM_HEADER]) -> CapJavaKnobs {
        // Hand-off programs in 70% (`capsule_handoff`); the rest at most 3 operations a worker,
        // since every capsule call costs an enter, an exit and its accesses in every interleaving.
        let workers = workers_of(h[0]);
        let violation = match h[3] {
            0..=5 => 1,
            6..=10 => 2,
            11 => 3,
            _ => 0,
        };
        CapJavaKnobs {
            workers,
            ops: ops_of(workers, h[1]).min(3),
            main_ops: usize::from(h[1] >> 5) % 3,
            capsule_threads: [0, 30, 60][usize::from(h[2] % 3)],
            setup: chance(h[2].rotate_left(3), 85),
            plain: chance(h[3].rotate_left(4), 50),
            violation,
            handoff: chance(h[0].rotate_left(4), 70),
            graph: chance(h[1].rotate_left(2) ^ h[3], 10),
        }
    }
}

/// The settings both dialects share, from their knobs.
#[derive(Clone, Copy, Debug)]
pub(super) struct Setting {
    pub(super) cap: bool,
    pub(super) workers: usize,
    pub(super) ops: usize,
    pub(super) main_ops: usize,
    pub(super) locks: bool,
    pub(super) given: bool,
    pub(super) sync_fresh: bool,
    pub(super) calls: bool,
    pub(super) capsule_threads: u32,
    pub(super) setup: bool,
    pub(super) plain: bool,
    pub(super) violation: u8,
}

impl From<SimpleJavaKnobs> for Setting {
    fn from(k: SimpleJavaKnobs) -> Setting {
        Setting {
            cap: false,
            workers: k.workers,
            ops: k.ops,
            main_ops: k.main_ops,
            locks: k.locks,
            given: k.given,
            sync_fresh: k.sync_fresh,
            calls: k.calls,
            capsule_threads: 0,
            setup: false,
            plain: true,
            violation: 0,
        }
    }
}

impl From<CapJavaKnobs> for Setting {
    fn from(k: CapJavaKnobs) -> Setting {
        Setting {
            cap: true,
            workers: k.workers,
            ops: k.ops,
            main_ops: k.main_ops,
            locks: true,
            given: k.plain,
            sync_fresh: k.plain,
            calls: k.plain,
            capsule_threads: k.capsule_threads,
            setup: k.setup,
            plain: k.plain,
            violation: k.violation,
        }
    }
}
