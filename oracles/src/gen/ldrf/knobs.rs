//! The swarm knobs of the L-DRF generator (docs/spec/ldrf.md §6.4: what a generator must enforce,
//! and how often each ingredient should appear): which kind of program, how big, whether it
//! may race, and which ingredients a free program may use, drawn per program from the header
//! bytes so that small programs stay common while every ingredient still appears.

use super::SWARM_HEADER;
use crate::gen::toolkit::chance;
use crate::lang::Relax;

/// Knobs of the L-DRF generator.
#[derive(Clone, Copy, Debug)]
pub struct LdrfKnobs {
    /// An idiom program ([`super::idiom`], a §8 shape) instead of a free one ([`super::free`]).
    pub idiom: bool,
    /// Threads (2–3).
    pub threads: usize,
    /// Locks (1–2).
    pub locks: usize,
    /// Shared variable names in use (2–4).
    pub shared: usize,
    /// Statements of a free program, about (7–13; an item may overshoot by a few).
    pub stmts: usize,
    /// Whether one shared-named variable is confined to one thread in free programs.
    pub confined: bool,
    /// Whether the program may race: the idioms may draw their racy variants (R6's controls,
    /// a check, a read or a hand-off outside the lock) and free programs may ignore guards
    /// ([`LdrfKnobs::racy`]). Off, every program is race free by construction (tested), so
    /// that the oracles, whose theorems assume race freedom (A2), judge nearly every program.
    pub races: bool,
    /// Percent of the shared accesses of free programs that ignore their guard (0 unless
    /// [`LdrfKnobs::races`]).
    pub racy: u32,
    /// Whether free programs branch (`if` on private variables, `if *`).
    pub branches: bool,
    /// Whether a free program has a Fig. 4 hand-off (a spin loop).
    pub spin: bool,
    /// Whether a free program may have a bounded counter loop.
    pub counter: bool,
    /// Whether `nondet{a..b}` appears in free programs.
    pub nondet: bool,
    /// Whether free programs write more arithmetic: products, remainders by 2 or 3, unary
    /// minus (the interval domain's hull and negation, §5.2 A5); in Fig. 1's idiom, the
    /// remainder of a nondet value.
    pub arith: bool,
    /// Whether free programs nest critical sections of two locks.
    pub nested: bool,
    /// Whether the program has one unbalanced lock operation, a release of an unheld lock
    /// first or an acquire left held at the end of a thread (only with
    /// [`Relax::balanced_locking`]).
    pub unbalanced: bool,
    /// Whether the program declares a region partition (`regions { x, y }`, §3), grouping
    /// co-accessed variables ([`super::regions`]).
    pub regions: bool,
    /// How the regions group variables: those one statement reads or writes together, or
    /// those one critical section touches.
    pub regions_by_statement: bool,
}

impl Default for LdrfKnobs {
    fn default() -> LdrfKnobs {
        LdrfKnobs {
            idiom: true,
            threads: 2,
            locks: 1,
            shared: 3,
            stmts: 12,
            confined: true,
            races: false,
            racy: 0,
            branches: true,
            spin: false,
            counter: false,
            nondet: true,
            arith: false,
            nested: false,
            unbalanced: false,
            regions: false,
            regions_by_statement: true,
        }
    }
}

impl LdrfKnobs {
    /// Swarm knobs for the oracles, whose theorems assume race freedom: races allowed
    /// ([`LdrfKnobs::races`]) in 6% of the programs, so that about 1% of them are racy
    /// (inconclusive there, but C10 and C11 still see racy programs), the other knobs as
    /// [`LdrfKnobs::swarm_racy`] draws them. Every knob is off for an all-zero header.
    pub fn swarm(h: [u8; SWARM_HEADER], relax: Relax) -> LdrfKnobs {
        // Bits mixed across the header, so that the other knobs are those of `swarm_racy`.
        let races = !chance(h[1] ^ h[2].rotate_left(3) ^ h[3].rotate_left(6), 94);
        LdrfKnobs::swarm_with(h, relax, races)
    }

    /// Swarm knobs with races allowed in every program (about 14% of them racy): the
    /// generator of the negative control that needs racy programs (C9, R6). Idioms in 40%
    /// of the programs; free programs with 3 threads in 35%, 2 locks in 40%, 2–4 shared
    /// variables, about 7–13 statements, a confined variable in 50%, racy accesses (30% of
    /// them) in 40%, branches in 70%, a hand-off spin in 25%, a counter loop in 20%,
    /// `nondet` in 60%, more arithmetic in 35%, nested locks in 35% (of those with 2 locks); under
    /// [`Relax::balanced_locking`], 15% of the programs have an unbalanced lock operation;
    /// 35% declare regions (half grouped by statement, half by critical section), from bits
    /// mixed across the header so that the other knobs, and the program itself, are the
    /// same with or without them.
    pub fn swarm_racy(h: [u8; SWARM_HEADER], relax: Relax) -> LdrfKnobs {
        LdrfKnobs::swarm_with(h, relax, true)
    }

    fn swarm_with(h: [u8; SWARM_HEADER], relax: Relax, races: bool) -> LdrfKnobs {
        LdrfKnobs {
            idiom: chance(h[0], 40),
            threads: if chance(h[0].rotate_left(3), 35) { 3 } else { 2 },
            locks: if chance(h[1], 40) { 2 } else { 1 },
            shared: 2 + usize::from(h[1].rotate_left(4)) % 3,
            stmts: 7 + usize::from(h[2]) % 7,
            confined: chance(h[2].rotate_left(4), 50),
            races,
            racy: if races && chance(h[3], 40) { 30 } else { 0 },
            branches: chance(h[3].rotate_left(2), 70),
            spin: chance(h[3].rotate_left(4), 25),
            counter: chance(h[3].rotate_left(6), 20),
            nondet: chance(h[0].rotate_left(6), 60),
            arith: chance(h[0].rotate_left(2) ^ h[2].rotate_left(6), 35),
            nested: chance(h[1].rotate_left(2), 35),
            unbalanced: relax.balanced_locking && chance(h[2].rotate_left(2), 15),
            regions: chance(h[0] ^ h[1].rotate_left(1) ^ h[2].rotate_left(5) ^ h[3].rotate_left(3), 35),
            regions_by_statement: chance(h[0].rotate_left(1) ^ h[1].rotate_left(7) ^ h[3].rotate_left(5), 50),
        }
    }
}
