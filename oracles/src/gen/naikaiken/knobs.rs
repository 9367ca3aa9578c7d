//! The swarm knobs of the Naik-Aiken generator (docs/spec/naik_aiken.md §4.4: what a generator
//! must enforce, and how often each ingredient should appear): which kind of program, how
//! big, and which ingredients a free program may use, drawn per program from the header
//! bytes so that small programs stay common while every ingredient still appears.

use super::{MAX_THREADS, SWARM_HEADER};
use crate::gen::toolkit::chance;
use crate::lang::Relax;

/// Knobs of the Naik-Aiken generator.
#[derive(Clone, Copy, Debug)]
pub struct NaikAikenKnobs {
    /// An idiom program ([`super::idiom`], a §6 shape) instead of a free one ([`super::free`]).
    pub idiom: bool,
    /// Statements of a free program, about (8–18; an item may overshoot by a few).
    pub stmts: usize,
    /// Threads at run time, at most (1–[`MAX_THREADS`]).
    pub threads: usize,
    /// Whether free programs have loops.
    pub loops: bool,
    /// Whether free programs nest loops.
    pub nested: bool,
    /// Whether `sync` appears in free programs.
    pub syncs: bool,
    /// Whether thread objects (`fork(x)`, `self`) appear in free programs.
    pub thread_objects: bool,
    /// Whether containers (`x[+] = y`, `x = y[*]`) appear in free programs.
    pub containers: bool,
    /// Whether heap reads (`x = y.f`) appear in free programs.
    pub heap_reads: bool,
    /// Whether the main thread accesses shared objects after its forks.
    pub main_after_fork: bool,
    /// Whether free programs use a null variable: `x = null` more often, then a copy of it
    /// or a store of it (rules 13 and 15 with Γ(y) = ⊥).
    pub null_uses: bool,
    /// Percent of the `sync` blocks that assign their variable in their body (only with
    /// [`Relax::sync_reassign`]; 0 otherwise).
    pub reassign: u32,
    /// Whether the idioms include the store through a target joined from two sites
    /// (`super::idioms`, `joined_target`), in a sixteenth of the idiom programs; on in every
    /// program the swarm draws, a knob so that `cargo bench --bench campaign` can measure
    /// the generator without it (those programs are then R4's).
    pub joined_target: bool,
}

impl Default for NaikAikenKnobs {
    fn default() -> NaikAikenKnobs {
        NaikAikenKnobs {
            idiom: true,
            stmts: 14,
            threads: MAX_THREADS,
            loops: true,
            nested: true,
            syncs: true,
            thread_objects: true,
            containers: true,
            heap_reads: true,
            main_after_fork: true,
            null_uses: true,
            reassign: 0,
            joined_target: true,
        }
    }
}

impl NaikAikenKnobs {
    /// Swarm knobs: idioms in 55% of the programs; free programs of about 8–18 statements, with at
    /// most 4 threads (3 in a quarter, 2 in an eighth), loops in 85% (nested in half of
    /// those), `sync` in 75%, thread objects in 50%, containers in 40%, heap reads in 60%,
    /// main-thread accesses after the forks in 50%, uses of a null variable in 30%; under [`Relax::sync_reassign`], a third
    /// of the `sync` blocks reassign their variable.
    pub fn swarm(h: [u8; SWARM_HEADER], relax: Relax) -> NaikAikenKnobs {
        NaikAikenKnobs {
            idiom: chance(h[0], 55),
            stmts: 8 + usize::from(h[1]) % 11,
            threads: match h[0].rotate_left(4) % 8 {
                0 => 2,
                1 | 2 => 3,
                _ => MAX_THREADS,
            },
            loops: chance(h[2], 85),
            nested: chance(h[2].rotate_left(3), 50),
            syncs: chance(h[3], 75),
            thread_objects: chance(h[3].rotate_left(2), 50),
            containers: chance(h[3].rotate_left(5), 40),
            heap_reads: chance(h[2].rotate_left(6), 60),
            main_after_fork: chance(h[1].rotate_left(4), 50),
            null_uses: chance(h[1].rotate_left(6), 30),
            reassign: if relax.sync_reassign { 33 } else { 0 },
            joined_target: true,
        }
    }
}
