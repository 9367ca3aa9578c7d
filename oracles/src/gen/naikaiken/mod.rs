//! The generator of the Naik-Aiken programs ([Naik-Aiken 2007], docs/spec/naik_aiken.md §4.1 the language,
//! §4.4 what a generator must enforce, §6 the regression programs): one main thread over an
//! empty heap that allocates at labelled sites, links objects, fills containers and forks
//! threads, which write the data field `g` at the end of paths.
//!
//! Two kinds of programs, mixed by a swarm knob ([`NaikAikenKnobs::idiom`]):
//! - **idioms** ([`idiom`]): randomized variants of the §6 regression programs, the shapes the
//!   analysis's stages are about: Ex. 2.1's allocate-and-link in one iteration (R1), the
//!   nested-loop container (R2) and its parent pointers (R3), Fig. 1's containers filled in
//!   one loop and picked in another with the lock on `a`, on the element, on `x.f`, on
//!   nothing or on another element (R4), the shared `u` hoisted before the loop (R5), the
//!   heap read that loses the correlation (R6), the linked list through `next` (R7), thread
//!   objects `fork(t) { self.f.g = k }` with `d` in the loop or hoisted and the main thread
//!   writing too (R8), per-iteration locks and the "unlikely" filter's misses (R9), stamps
//!   allocated by children (R10) and the stale re-publication of §5.2 (R11); plus the
//!   near-misses of the local-lock and local-thread stages (spec A4, §4.4): mixed depths
//!   (`l.g` against `l.f.g` where one lock object reaches the other), two thread objects
//!   sharing one target, an anonymous fork inside `fork(x)` (it sees `self` but has no
//!   thread object), and the main thread writing the same location;
//! - **free programs** ([`free`]): a swarm composition of the same ingredients (allocation,
//!   links, links to the previous iteration's variable, containers, loads, data writes and
//!   reads at depths 0–2, `if *`, nested loops, `sync`, anonymous and thread-object forks)
//!   over a small variable pool, tracking which variables and fields are surely non-null so
//!   that dereferences, `sync` and picks are rarely stuck.
//!
//! What every program satisfies: it validates for the dialect (unique `@h`/`@w` labels, `self`
//! only inside `fork(x)`, a `sync` variable never assigned in its body, except, with
//! [`Relax::sync_reassign`], in a few programs built to test a "reassigned lock still held"
//! bug: `sync(x) { x = a[*]; x.f.g = 1 }`, `sync(l) { l = d; l.g = 1 }`,
//! `sync(x) { x = y; x.f.g = 1 }`); at most [`MAX_THREADS`] threads at run time when loops
//! run at most B = 2 times (a fork inside a loop counts twice); at most about
//! [`MAX_STMTS`] statements; fields `f` and `next` (pointers) and `g` (the data field final
//! writes and reads target).
//!
//! Built deterministically from bytes like [`super::java`]: swarm knobs from a header
//! ([`swarm_naikaiken`]), then the program; a byte 0 or the end of the input means "stop
//! adding".
//!
//! The parts, one concept each: `knobs` (the swarm), `idioms` and `free` (the two kinds of
//! programs; `free` in three files), `write` (labels, text combinators, the final parse),
//! `grammar` (the productions and their classifier) and `shape` (sizes, and the shapes the
//! analysis's stages prune).

mod free;
mod grammar;
mod idioms;
mod knobs;
mod shape;
mod write;

pub use free::free;
pub use grammar::GRAMMAR_NAIKAIKEN;
pub use idioms::idiom;
pub use knobs::NaikAikenKnobs;
pub use shape::{shape, Shape};

use crate::gen::toolkit::split_header;
use crate::lang::*;

/// Threads at run time, at most, counting a fork inside `n` loops as 2ⁿ threads (B = 2).
pub const MAX_THREADS: usize = 4;

/// Statements per program (every statement, nested ones included), at most.
pub const MAX_STMTS: usize = 22;

/// Bytes [`swarm_naikaiken`] reads for its knobs before the program.
pub const SWARM_HEADER: usize = 4;

/// Builds a program from `bytes` with knobs `k` (deterministic).
pub fn build_naikaiken(bytes: &[u8], k: NaikAikenKnobs) -> Program {
    if k.idiom {
        return idiom(bytes, k);
    }
    free(bytes, k)
}

/// The registry's generator for Naik-Aiken: knobs from the first [`SWARM_HEADER`] bytes
/// ([`NaikAikenKnobs::swarm`]), then [`build_naikaiken`] from the rest.
pub fn swarm_naikaiken(bytes: &[u8], relax: Relax) -> Program {
    let (h, rest) = split_header::<SWARM_HEADER>(bytes);
    build_naikaiken(rest, NaikAikenKnobs::swarm(h, relax))
}

swarm_input!(
    /// A generated Naik-Aiken program with the bytes it came from (for cargo fuzz's `arbitrary`
    /// and quickcheck), built by [`swarm_naikaiken`] without relaxations.
    NaikAikenInput,
    swarm_naikaiken
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::Config;
    use crate::gen::test_bytes as bytes;
    use crate::gen::toolkit::assert_well_formed;

    const REASSIGN: Relax = Relax { sync_reassign: true, balanced_locking: false };

    /// Judged by the ground truth, the instrumented semantics over every reachable state
    /// within the loop bound B = 2 (docs/spec/naik_aiken.md §4.2, [`crate::instrumented::ground_truth`]):
    /// few programs reach a final state with a thread stuck (a null dereference, `sync` on
    /// null, a pick from an empty container, a deadlock), and racy programs (two threads
    /// whose next accesses conflict in some state) are common but not universal.
    #[test]
    fn programs_are_rarely_stuck_and_often_racy() {
        let n = 2000u64;
        let cfg = Config::default();
        let (mut stuck, mut racy) = (0, 0);
        for seed in 0..n {
            let p = swarm_naikaiken(&bytes(seed + 40_000, 64), Relax::default());
            let run = crate::instrumented::ground_truth(&p, &cfg);
            assert!(run.executions.complete, "an incomplete search: {:?}\n{}", run.problems, print(&p));
            stuck += usize::from(run.executions.stuck > 0);
            racy += usize::from(run.racy);
            if run.executions.stuck > 0 && seed < 200 {
                println!("stuck:\n{}", print(&p));
            }
        }
        let pct = |k: usize| 100.0 * k as f64 / n as f64;
        println!("{:.1}% with a stuck final state; {:.1}% racy (instrumented semantics)", pct(stuck), pct(racy));
        // 14.9% at 2000 programs: R2, R6 and R7 leave a pointer null on purpose in some
        // iterations (spec §6), and every interleaving and loop count is looked at. The
        // ceiling is the one the old one-schedule estimate had; a generator change that
        // strands more threads must lower the share, not raise the ceiling.
        assert!(pct(stuck) < 15.0, "stuck share {}", pct(stuck));
        assert!((30.0..=85.0).contains(&pct(racy)), "racy share {}", pct(racy));
    }

    #[test]
    fn programs_validate_round_trip_and_stay_small() {
        for relax in [Relax::default(), REASSIGN] {
            for p in assert_well_formed("naikaiken", swarm_naikaiken, relax, 3000) {
                let sh = shape(&p);
                assert!(sh.stmts <= MAX_STMTS, "{} statements:\n{}", sh.stmts, print(&p));
                assert!(sh.threads <= MAX_THREADS, "{} threads:\n{}", sh.threads, print(&p));
                if relax == Relax::default() {
                    assert!(!sh.sync_reassign);
                }
            }
        }
    }
}
