//! The thread generator's knobs for the detector oracles (`fasttrack-precise`): programs
//! judged on every interleaving, so smaller than the explorers' (at most three threads), with
//! fewer locations, and with the shared-reads idiom that reaches FastTrack's WRITE after
//! shared reads (docs/spec/bigfoot.md §1.6; `racefuzz gen fasttrack-precise --stats` counts it)
//! in two-thread programs only: in three-thread ones the forked reader made a fourth thread
//! and cost the oracle a third of its rate (263 against 384 programs/s). For the same
//! reason forks come only in two-thread programs and never in a loop body, and loops do not
//! nest: the enumeration of every interleaving is what a program costs here.

use super::{build, LimitForms, ThreadKnobs, SWARM_HEADER};
use crate::gen::toolkit::split_header;
use crate::lang::{Program, Relax};

/// The registry's generator for detector oracles (`fasttrack-precise`): [`super::swarm`]'s knobs,
/// with one integer field in half of the programs and one object in half (`fields`,
/// `objects`), and one lock in half of those with locks.
pub fn swarm_detectors(bytes: &[u8], _relax: Relax) -> Program {
    let (h, rest) = split_header::<SWARM_HEADER>(bytes);
    build(rest, detector_knobs(h))
}

fn detector_knobs(h: [u8; SWARM_HEADER]) -> ThreadKnobs {
    let k = ThreadKnobs::swarm_all_forms(h);
    let half = |b: u8, bit: u32| b.rotate_left(bit) & 1 == 0;
    let (fields, objects) = (if half(h[2], 5) { 1 } else { 2 }, if half(h[3], 6) { 1 } else { 2 });
    let locks = if half(h[0], 4) { k.locks.min(1) } else { k.locks };
    // A detector is judged on every interleaving, not one per class: at most three
    // threads and seven statements with three, and no choice-heavy programs, keep the
    // oracle's rate (measured: four threads and choices cost it 2.5x in programs/s).
    // Two-thread programs keep up to 10 statements: FastTrack's same-epoch and release
    // mutants need a read, a synchronization and a read again in one thread beside a
    // writer (with 9, ft-same-thread-skip went uncaught in 6,000 programs).
    let s = usize::from(h[1]);
    let (threads, stmts) = match k.threads {
        // Up to 10 in half of them, up to 7 in the other half: the cost of a program is its
        // traces, which grow steeply with its length (measured: 10 in all of them cost the
        // oracle half its rate against 09a71bf's generator).
        2 => (2, 3 + s % if s >= 128 { 8 } else { 5 }),
        3 => (3, (3 + s % 6).min(7)),
        _ => (3, 3 + s % 5),
    };
    // Forks only beside one other thread (a fork in a three-thread program makes a fourth:
    // 3% of the programs took a fifth of the time), never in a loop body (`loop_forks`).
    let forks = k.forks && threads == 2;
    ThreadKnobs { fields, objects, locks, threads, stmts, choices: false, nested_loops: false, loop_forks: false, forks, shared_reads: forks && h[2].rotate_left(2) & 1 == 0, ..k }
}

/// The detector knobs for long histories (`racefuzz score --generator histories`): two
/// threads, one field of one object, fork/join in every program, and half of the fork draws
/// a chain of 4 to 8 readers joined before a write ([`LimitForms::reader_chains`]), so a
/// location's history outgrows a bounded one (ThreadSanitizer's 4 shadow cells per 8
/// bytes). Made for scoring one trace per Mazurkiewicz class: the readers do not conflict
/// with one another, so their classes stay few, though their interleavings do not.
pub fn swarm_histories(bytes: &[u8], _relax: Relax) -> Program {
    let (h, rest) = split_header::<SWARM_HEADER>(bytes);
    let k = detector_knobs(h);
    build(rest, ThreadKnobs { threads: 2, fields: 1, objects: 1, forks: true, shared_reads: false, limits: LimitForms { reader_chains: true, ..LimitForms::NONE }, ..k })
}

/// The detector limits' generator (`racefuzz score --generator limits`, `racefuzz gen limits
/// --stats`): [`swarm_histories`]' programs, one field of one object and fork/join in every
/// program, with a lock for the crowds, where each fork draw writes one of the limit forms
/// (`super::limits`: reader chains, crowds, fork chains, many readers, reuse after join),
/// each on in half of the programs (swarm testing: a program with fewer forms has room for
/// more of each) and at least one in every program. Made, like the histories, for one trace
/// per Mazurkiewicz class: its programs fork up to 8 threads.
pub fn swarm_limits(bytes: &[u8], _relax: Relax) -> Program {
    let (h, rest) = split_header::<SWARM_HEADER>(bytes);
    let k = detector_knobs(h);
    let limits = LimitForms::from_bits(h[4].rotate_left(1) ^ h[3]);
    build(rest, ThreadKnobs { threads: 2, fields: 1, objects: 1, locks: 1, forks: true, shared_reads: false, limits, ..k })
}
