//! Checking your own dynamic race detector with racefuzz, in a few lines: an Eraser-style
//! lockset detector (Savage et al., 1997; imprecise by design) run through the
//! `fasttrack-precise` oracle, which compares the locations a detector reports on every
//! interleaving with the trace's happens-before data races (docs/spec/bigfoot.md §9.1, O0).
//! The example draws programs from the oracle's own generator until one fails, shrinks it,
//! and prints the verdict with the trace that shows the difference.
//!
//! With `score`, it prints the detector's scorecard instead (precision, recall and F1 per
//! program, location and event over 1,000 generated programs, `racefuzz::score`).
//!
//! Run with `cargo run --release --example eraser [-- score]`.

use std::collections::{HashMap, HashSet};

use race_oracles::gen::shrink::shrink;
use race_oracles::lang::{print, AccessKind, Relax};
use race_oracles::machine::{Addr, Event, EventKind, LockId, ThreadId};
use race_oracles::theorems::{Budget, DetectorFactory, DynamicDetector, Registry, Reported, Sut, Verdict};

/// Eraser's per-location state: first owned by one thread, then shared (read-only), then
/// shared-modified, with the candidate lockset refined on every access once shared.
enum Location {
    Exclusive(ThreadId),
    Shared(HashSet<LockId>),
    SharedModified(HashSet<LockId>),
}

#[derive(Default)]
struct Eraser {
    held: HashMap<ThreadId, HashSet<LockId>>,
    locations: HashMap<Addr, Location>,
}

impl DynamicDetector for Eraser {
    fn on_event(&mut self, e: &Event) -> Result<(), Reported> {
        let held = self.held.entry(e.thread).or_default();
        match e.kind {
            EventKind::Acquire(l) => {
                held.insert(l);
            }
            EventKind::Release(l) => {
                held.remove(&l);
            }
            EventKind::Access(kind, x) => {
                let held = held.clone();
                let write = kind == AccessKind::Write;
                let next = match self.locations.remove(&x) {
                    None => Location::Exclusive(e.thread),
                    Some(Location::Exclusive(t)) if t == e.thread => Location::Exclusive(t),
                    Some(Location::Exclusive(_)) if write => Location::SharedModified(held),
                    Some(Location::Exclusive(_)) => Location::Shared(held),
                    Some(Location::Shared(c)) => {
                        let c: HashSet<LockId> = c.intersection(&held).copied().collect();
                        if write {
                            Location::SharedModified(c)
                        } else {
                            Location::Shared(c)
                        }
                    }
                    Some(Location::SharedModified(c)) => Location::SharedModified(c.intersection(&held).copied().collect()),
                };
                let report = matches!(&next, Location::SharedModified(c) if c.is_empty());
                self.locations.insert(x, next);
                if report {
                    return Err(Reported);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn name(&self) -> String {
        "Eraser".into()
    }
}

/// A fresh detector per trace.
struct Factory;

impl DetectorFactory for Factory {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        Box::new(Eraser::default())
    }
}

fn main() {
    if std::env::args().any(|a| a == "score") {
        match racefuzz::score::score(&|| Sut::Detector(&Factory), Relax::default(), racefuzz::score::Corpus::new(1_000, 1), 1, &|| {}) {
            Ok(card) => print!("{card}"),
            Err(e) => eprintln!("{e}"),
        }
        return;
    }
    let registry = Registry::builtin();
    let oracle = registry.find("fasttrack-precise").expect("a built-in oracle");
    let sut = Sut::Detector(&Factory);
    let budget = Budget::default();
    let fails = |p: &race_oracles::lang::Program| oracle.check(p, &sut, &budget).verdict == Verdict::Fail;
    // Programs from the oracle's generator, from a fixed stream of bytes (reproducible).
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for n in 1..=10_000 {
        let bytes: Vec<u8> = (0..48)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state.to_le_bytes()[0]
            })
            .collect();
        let p = (oracle.generate)(&bytes, Relax::default());
        if !fails(&p) {
            continue;
        }
        let small = shrink(&p, Relax::default(), 500, fails).program;
        println!("program {n} fails {}; shrunk:\n\n{}", oracle.id, print(&small));
        print!("{}", racefuzz::render::result_full(&oracle.check(&small, &sut, &budget), "the shrunk program"));
        return;
    }
    println!("no counterexample in 10,000 programs");
}
