//! The generator of the L-DRF programs ([Mukherjee et al. 2017], docs/spec/ldrf.md §1.1 the language, §6.4 what a
//! generator must enforce, §8 the paper's examples): 2–3 threads over global integers (all
//! start at 0), 1–2 named locks, 2–4 shared variables `x y z w` and one private temp per
//! thread (`a`, `b`, `c` for threads 1–3).
//!
//! Two kinds of programs, mixed by a swarm knob ([`LdrfKnobs::idiom`]):
//! - **idioms** ([`idiom`]): randomized variants of the §8 shapes: Fig. 1 (R1, a critical
//!   section keeping `x == y` and a thread that checks it), Fig. 4 (R2, the lock hand-off: a
//!   spin on a private copy read under the lock, then an unlocked write of a variable written
//!   before the hand-off), R5 (`acq m; x = 1; rel m` ∥ `y = 5; acq m; b = x + y; rel m`), the
//!   Batman family (R4, thread-confined blocks of variables), the racy controls R6 (or their
//!   locked twins) and R7's disjoint writes; most variants are race free, some (only with
//!   [`LdrfKnobs::races`]) drop a lock;
//! - **free programs** ([`free`]): every shared variable is guarded by one lock or confined
//!   to one thread; threads are sequences of critical sections over guarded variables (with
//!   writes `x = k`, `x = x ± c`, `x = y + z`, `x = nondet{..}`, reads into the temp, asserts
//!   and branches on the temp), private work on the temp and confined variables, `if` on
//!   private variables (branches may hold whole critical sections), a bounded counter loop, a
//!   Fig. 4 hand-off between two threads, nested locks; with the [`LdrfKnobs::racy`] knob a
//!   share of the accesses ignore their guard (unlocked, or under the other lock).
//!
//! Races are a knob ([`LdrfKnobs::races`]): off, every program is race free by construction.
//! The oracles' generator ([`swarm_ldrf`]) allows them in few programs, since their theorems
//! assume race freedom and a racy program is inconclusive there (spec §6.4 still holds: the
//! oracles classify every program with E-STD, the generator only leans); the negative
//! control that needs racy programs (C9) draws from [`swarm_ldrf_racy`].
//!
//! What every program satisfies: it validates for the dialect (conditions of `assume`, `if`
//! and `while` read only the thread's private variables, lock names are not variables); lock
//! use is balanced on every path (no re-acquire of a held lock, no release of an unheld one)
//! unless [`Relax::balanced_locking`] is given, which makes a few programs release an unheld
//! lock or keep one at the end; at most [`MAX_STMTS`] statements; at most one loop, either a
//! bounded counter loop or a hand-off spin (values are taken mod K = 4, so state spaces stay
//! small).
//!
//! Built deterministically from bytes like [`super::naikaiken`]: swarm knobs from a header
//! ([`swarm_ldrf`]), then the program; a byte 0 or the end of the input means "stop adding".
//!
//! The parts, one concept each: `knobs` (the swarm), `idioms` and `free` (the two kinds of
//! programs), `write` (the byte source, text combinators, the final parse), `regions` (the
//! region partitions of §3), `grammar` (the productions and their classifier) and `shape`
//! (sizes and balanced locking).

mod free;
mod grammar;
mod idioms;
mod knobs;
mod regions;
mod shape;
mod write;

pub use free::free;
pub use grammar::GRAMMAR_LDRF;
pub use idioms::idiom;
pub use knobs::LdrfKnobs;
pub use regions::regions;
pub use shape::{balanced, stmt_count};

use crate::gen::toolkit::split_header;
use crate::lang::*;

/// Statements per program (every statement, nested ones included, `acq`/`rel` too), at most
/// (one more under [`Relax::balanced_locking`]).
pub const MAX_STMTS: usize = 16;

/// Threads per program, at most.
pub const MAX_THREADS: usize = 3;

/// Bytes [`swarm_ldrf`] reads for its knobs before the program.
pub const SWARM_HEADER: usize = 4;

/// The private temp of each thread.
const TEMPS: [&str; MAX_THREADS] = ["a", "b", "c"];
/// The shared variables' names.
const SHARED: [&str; 4] = ["x", "y", "z", "w"];
/// The locks' names.
const LOCKS: [&str; 2] = ["m", "n"];

/// Builds a program from `bytes` with knobs `k` (deterministic). The regions read no bytes:
/// they are a function of the program and the knobs.
pub fn build_ldrf(bytes: &[u8], k: LdrfKnobs) -> Program {
    // Without races, no access ignores its guard, whatever `racy` says.
    let k = LdrfKnobs { racy: if k.races { k.racy } else { 0 }, ..k };
    let mut p = if k.idiom { idiom(bytes, k) } else { free(bytes, k) };
    if k.regions {
        p.regions = regions(&p, k.regions_by_statement);
    }
    p
}

/// The registry's generator for L-DRF: knobs from the first [`SWARM_HEADER`] bytes
/// ([`LdrfKnobs::swarm`], races in few programs), then [`build_ldrf`] from the rest.
pub fn swarm_ldrf(bytes: &[u8], relax: Relax) -> Program {
    let (h, rest) = split_header::<SWARM_HEADER>(bytes);
    build_ldrf(rest, LdrfKnobs::swarm(h, relax))
}

/// [`swarm_ldrf`] with races allowed in every program ([`LdrfKnobs::swarm_racy`]): the
/// generator of `ldrf-agree-racy` (C9).
pub fn swarm_ldrf_racy(bytes: &[u8], relax: Relax) -> Program {
    let (h, rest) = split_header::<SWARM_HEADER>(bytes);
    build_ldrf(rest, LdrfKnobs::swarm_racy(h, relax))
}

swarm_input!(
    /// A generated L-DRF program with the bytes it came from (for cargo fuzz's `arbitrary` and
    /// quickcheck), built by [`swarm_ldrf`] without relaxations.
    LdrfInput,
    swarm_ldrf
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::Config;
    use crate::gen::test_bytes as bytes;
    use crate::ldrf::cfg::Cfg;
    use crate::ldrf::standard::reach;

    const UNBALANCED: Relax = Relax { balanced_locking: true, sync_reassign: false };

    #[test]
    fn programs_validate_round_trip_and_stay_small() {
        for relax in [Relax::default(), UNBALANCED] {
            let mut unbalanced = 0;
            for seed in 0..3000u64 {
                let b = bytes(seed, 8 + (seed % 80) as usize);
                let p = swarm_ldrf(&b, relax);
                validate(&p).unwrap_or_else(|e| panic!("{e}\n{}", print(&p)));
                assert_eq!(parse(&print(&p)).unwrap().without_lines(), p.without_lines(), "round trip:\n{}", print(&p));
                assert_eq!(swarm_ldrf(&b, relax), p, "deterministic");
                // The unbalanced lock operation of `Relax::balanced_locking` comes on top.
                assert!(stmt_count(&p) <= MAX_STMTS + usize::from(relax.balanced_locking), "{} statements:\n{}", stmt_count(&p), print(&p));
                assert!((2..=MAX_THREADS).contains(&p.threads.len()), "{} threads:\n{}", p.threads.len(), print(&p));
                let ok = balanced(&p);
                if relax == Relax::default() {
                    assert!(ok, "unbalanced locking:\n{}", print(&p));
                }
                unbalanced += usize::from(!ok);
            }
            if relax == UNBALANCED {
                assert!((30..1000).contains(&unbalanced), "{unbalanced} unbalanced programs");
            }
            validate(&swarm_ldrf(&[], relax)).unwrap();
        }
    }

    /// Under E-STD, the oracles' programs are race free but for about 1% (at most 2%), those
    /// of the racy mix mostly race free with some racy; all small enough to explore
    /// completely. Prints the state-count distribution.
    #[test]
    fn mostly_race_free_and_small_under_e_std() {
        let (drf, racy) = e_std_shares(swarm_ldrf, 3000);
        assert!(drf >= 97.0 && (0.3..=2.0).contains(&racy), "race-free share {drf}, racy share {racy}");
        let (drf, racy) = e_std_shares(swarm_ldrf_racy, 1000);
        assert!(drf >= 55.0 && racy >= 10.0, "racy mix: race-free share {drf}, racy share {racy}");
    }

    /// The shares (percent) of race-free and racy programs among `n` of `generate`'s.
    fn e_std_shares(generate: fn(&[u8], Relax) -> Program, n: u64) -> (f64, f64) {
        let (mut drf, mut racy, mut cut) = (0, 0, 0);
        let mut counts = vec![];
        for seed in 0..n {
            let p = generate(&bytes(seed + 90_000, 64), Relax::default());
            let r = reach(&Cfg::of(&p, 4), &Config::default());
            counts.push(r.states.len());
            if r.cut.is_some() {
                cut += 1;
            } else if r.races.is_empty() {
                drf += 1;
            } else {
                racy += 1;
            }
        }
        counts.sort_unstable();
        let pct = |k: usize| 100.0 * k as f64 / n as f64;
        println!(
            "race free {:.1}%, racy {:.1}%, cut {:.1}%; states median {}, p90 {}, p99 {}, max {}",
            pct(drf),
            pct(racy),
            pct(cut),
            counts[counts.len() / 2],
            counts[counts.len() * 9 / 10],
            counts[counts.len() * 99 / 100],
            counts[counts.len() - 1]
        );
        assert_eq!(cut, 0, "programs over the state budget");
        (pct(drf), pct(racy))
    }

    /// Without [`LdrfKnobs::races`], every program is race free (E-STD), whatever the other
    /// knobs (the racy ones' `racy` knob included), under both lock disciplines.
    #[test]
    fn race_free_by_construction() {
        let mut checked = 0;
        for relax in [Relax::default(), UNBALANCED] {
            for seed in 0..1500u64 {
                let b = bytes(seed + 120_000, 16 + (seed % 72) as usize);
                let (h, rest) = split_header::<SWARM_HEADER>(&b);
                let p = build_ldrf(rest, LdrfKnobs { races: false, ..LdrfKnobs::swarm_racy(h, relax) });
                let r = reach(&Cfg::of(&p, 4), &Config::default());
                assert!(r.cut.is_none(), "cut:\n{}", print(&p));
                assert!(r.races.is_empty(), "racy without races:\n{}", print(&p));
                checked += 1;
            }
        }
        assert_eq!(checked, 3000);
    }
}
