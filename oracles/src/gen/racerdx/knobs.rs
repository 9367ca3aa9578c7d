//! The racerdx generator's knobs (docs/spec/racerdx.md §7 item 16: swarm testing, each
//! feature on or off per program) and their draw from a program's header bytes. The
//! knobs only shape programs; every program they allow stays in the dialect (§1.2 A1–A6).

use super::super::toolkit::chance;
use crate::lang::Relax;

/// Knobs of the racerdx generator.
#[derive(Clone, Copy, Debug)]
pub struct RacerDxKnobs {
    /// Methods: exactly this many (a body is empty when the input has run out).
    pub max_methods: usize,
    /// Statements per method body, counting nested ones (0..=max).
    pub max_stmts: usize,
    /// Fields per path (1..=max).
    pub max_path: usize,
    /// Distinct field names (1..=4).
    pub fields: usize,
    /// Formals per method (1..=max).
    pub max_formals: usize,
    /// Distinct local names (1..=3).
    pub locals: usize,
    /// Nesting depth of `lock` blocks.
    pub max_lock_nesting: usize,
    /// Nesting depth of `if`/`while`.
    pub max_control_nesting: usize,
    /// Whether methods call earlier methods.
    pub calls: bool,
    /// Whether copies `x := y` appear.
    pub copies: bool,
    /// Whether formals are assigned (by copies, loads and `new`): destabilizing.
    pub formal_writes: bool,
    /// Whether accesses and actuals may be rooted at locals.
    pub local_roots: bool,
    /// Whether a stray `unlock` may appear (outside A2).
    pub unmatched_unlock: bool,
    /// The most a method may cost, callees inlined (`builder::cost`: 1 + path
    /// length per access and per path actual, 1 per `lock`, `unlock`, `if` and `while`);
    /// a method pair then costs at most twice this. A statement that would exceed it ends
    /// the method. `usize::MAX` (the default, and [`RacerDxKnobs::swarm`]'s) is no cap.
    pub max_cost: usize,
    /// `new` and `skip` draws become calls when a method can call: under a cost cap, where
    /// calls of costly callees give way, this keeps calls (and calls in locks, in control,
    /// of 3-formal methods, nested) above the grammar floor.
    pub call_bias: bool,
}

impl Default for RacerDxKnobs {
    fn default() -> RacerDxKnobs {
        RacerDxKnobs {
            max_methods: 3,
            max_stmts: 8,
            max_path: 3,
            fields: 2,
            max_formals: 2,
            locals: 2,
            max_lock_nesting: 2,
            max_control_nesting: 2,
            calls: true,
            copies: true,
            formal_writes: true,
            local_roots: true,
            unmatched_unlock: false,
            max_cost: usize::MAX,
            call_bias: false,
        }
    }
}

/// Bytes [`swarm`](super::swarm) reads for its knobs before the program.
pub const SWARM_HEADER: usize = 12;

impl RacerDxKnobs {
    /// Swarm knobs (each feature on or off, each size drawn anew) from the header bytes:
    /// 1–3 methods (3 in half of the programs), 1–10 statements, paths of 1–3 fields, 1–3 field names, 1–3 formals,
    /// 1–3 locals, locks in 85% of programs (nesting 1–2), control flow in 75% (nesting
    /// 1–2), calls in 70%, copies in 60%, formals assigned in 50%, local-rooted accesses in
    /// 50%.
    pub fn swarm(h: [u8; SWARM_HEADER], relax: Relax) -> RacerDxKnobs {
        let pick = |b: u8, lo: usize, hi: usize| lo + usize::from(b) % (hi - lo + 1);
        RacerDxKnobs {
            max_methods: [1, 2, 3, 3][usize::from(h[0] % 4)],
            max_stmts: pick(h[1], 1, 10),
            max_path: pick(h[2], 1, 3),
            fields: pick(h[3], 1, 3),
            max_formals: pick(h[4], 1, 3),
            max_lock_nesting: if chance(h[5], 85) { pick(h[5] >> 4, 1, 2) } else { 0 },
            max_control_nesting: if chance(h[6], 75) { pick(h[6] >> 4, 1, 2) } else { 0 },
            calls: chance(h[7], 70),
            copies: chance(h[8], 60),
            formal_writes: chance(h[9], 50),
            local_roots: chance(h[10], 50),
            locals: pick(h[11], 1, 3),
            unmatched_unlock: relax.balanced_locking,
            max_cost: usize::MAX,
            call_bias: false,
        }
    }
}
