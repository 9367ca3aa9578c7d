//! The racerdx generator: programs in the racerdx dialect (docs/spec/racerdx.md §1.2 A1–A6, ANF,
//! balanced locking, no recursion; §7 items 15–16), built deterministically from bytes.
//!
//! One builder, three drivers: proptest ([`racerdx_program`], shrinking the bytes), cargo
//! fuzz ([`RacerDxInput`]'s `arbitrary::Arbitrary`) and quickcheck (its
//! `quickcheck::Arbitrary`). A byte 0, and the end of the input, mean "stop adding": `arbitrary`
//! hands out zeros when its input runs out, so a short input is a small program, never a
//! long run of the same statement.
//!
//! **It writes the whole grammar** ([`GRAMMAR`], spec §1.1 Fig. 4 under A1–A6): copies
//! `x := y` between any two variables (formals included, so formals get reassigned), loads
//! into locals and formals, stores from locals (ANF), `new` into locals and formals, accesses
//! rooted at formals and at assigned locals with paths of 1–3 fields, balanced `lock …
//! unlock` blocks nested up to a knob and placed inside branches and loops (and branches
//! and loops inside them), `if *` and `while *`, `skip`, and calls to *earlier* methods (so
//! the call graph is acyclic, A5; calls nest through callees) whose actuals are formals,
//! locals and paths rooted at either, sometimes one actual a prefix of another (`m(x, x.f)`,
//! the `Pre(ē)` rule of Fig. 7). Locals are only read where they are definitely assigned
//! (A3). The `unmatched_unlock` knob emits a stray `unlock` (outside A2, for the
//! `unlock-clamp-unbalanced` mutant).
//!
//! The rule for every generator ([`super::grammar`]): each production of
//! [`GRAMMAR`] is used by at least 1% of programs at the default swarm settings
//! (`racefuzz gen racerdx --stats` prints the table; `tests/gen.rs` enforces it).
//!
//! The module, by concept: `knobs` (the knobs and their swarm draw, §7 item 16),
//! `builder` (statements and methods from bytes, under A1–A6), `classify` (the grammar
//! and which productions a program uses, Fig. 4) and `drivers` (proptest, cargo fuzz,
//! quickcheck). This file holds the registry's generators ([`swarm`], [`swarm_small`]).

mod builder;
mod classify;
mod drivers;
mod knobs;

pub use builder::build;
pub use classify::{GRAMMAR, GRAMMAR_SMALL};
pub use drivers::{racerdx_program, RacerDxInput};
pub use knobs::{RacerDxKnobs, SWARM_HEADER};

use super::toolkit::split_header;
use crate::lang::{Program, Relax};

/// The registry's generator for racerdx oracles: swarm knobs from the first
/// [`SWARM_HEADER`] bytes (zeros past the end), then [`build`] from the rest. A stray
/// `unlock` appears only when `relax` lifts balanced locking.
pub fn swarm(bytes: &[u8], relax: Relax) -> Program {
    let (h, rest) = split_header::<SWARM_HEADER>(bytes);
    build(rest, RacerDxKnobs::swarm(h, relax))
}

/// Bytes [`swarm_small`] reads for its knobs: [`swarm`]'s, then one for the cost cap.
pub const SMALL_HEADER: usize = SWARM_HEADER + 1;

/// The per-method cost caps [`swarm_small`] draws from (one each, per program): most
/// programs small, some at twice the smallest cap.
const SMALL_COST_CAPS: [usize; 8] = [2, 3, 4, 4, 5, 6, 6, 7];

/// [`swarm`] with at most 4 statements per method and a cost cap per method drawn from
/// `SMALL_COST_CAPS` ([`RacerDxKnobs::max_cost`]; a method pair costs at most twice it):
/// small enough that the naive enumeration of every method pair (docs/spec/racerdx.md Def. 3.6
/// over lazily fixed heaps of at most 2 objects) finishes within its budget, for the
/// oracles that compare an explorer with it (`explorer-agree-racerdx`). Without the cost
/// cap, a quarter of the programs had a pair over budget: 4 statements of 3-field paths
/// through 3 formals each fix a dozen heap facts. Every production of [`GRAMMAR_SMALL`] appears in at least 1% of programs.
pub fn swarm_small(bytes: &[u8], relax: Relax) -> Program {
    let (h, rest) = split_header::<SMALL_HEADER>(bytes);
    let mut k = [0u8; SWARM_HEADER];
    k.copy_from_slice(&h[..SWARM_HEADER]);
    let k = RacerDxKnobs::swarm(k, relax);
    let max_cost = SMALL_COST_CAPS[usize::from(h[SWARM_HEADER]) % SMALL_COST_CAPS.len()];
    build(rest, RacerDxKnobs { max_stmts: k.max_stmts.min(4), max_cost, call_bias: true, ..k })
}
