//! Grammar coverage: a dialect's productions, and which of them a program uses.
//!
//! An oracle only has teeth where its generator writes programs: a bug in a statement form
//! the generator never produces passes every campaign (we measured two such bugs
//! surviving 200,000 programs). So every generator comes with the [`Grammar`] of its
//! dialect: the list of productions the dialect admits, each named and written as a rule,
//! and a classifier that says which productions a program uses. The classifier reads the
//! *program*, not the generator's choices, so it cannot be fooled by a generator that
//! believes it emits a form it does not.
//!
//! The rule every generator follows (one [`Grammar`] per registry entry: each oracle of the
//! registry, above this module, names its grammar): at its default swarm settings, every production is
//! used by at least [`FLOOR_PERCENT`]% of generated programs. `racefuzz gen DIALECT --stats`
//! prints the table, and `tests/gen.rs` fails on any production below the floor.

use std::collections::BTreeSet;

use crate::lang::Program;

/// The least share of programs (in percent) that must use each production at a
/// generator's default settings.
pub const FLOOR_PERCENT: f64 = 1.0;

/// One production of a dialect's grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Production {
    /// A short name, unique in its grammar (`copy formal := local`).
    pub name: &'static str,
    /// The form, in the spec's notation (`arg_i := x`).
    pub rule: &'static str,
}

/// A production, in a `const` table (`prod("copy", "x = y")`).
pub const fn prod(name: &'static str, rule: &'static str) -> Production {
    Production { name, rule }
}

/// A dialect's productions and a classifier for programs.
#[derive(Clone, Copy)]
pub struct Grammar {
    /// Every production, in the order tables print them.
    pub productions: &'static [Production],
    /// The names of the productions `p` uses (a subset of `productions`' names).
    pub uses: fn(&Program) -> BTreeSet<&'static str>,
}

impl std::fmt::Debug for Grammar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grammar").field("productions", &self.productions.len()).finish_non_exhaustive()
    }
}

/// How often each production appeared over a set of programs.
#[derive(Clone, Debug)]
pub struct Coverage {
    /// Programs counted.
    pub programs: usize,
    /// Per production (in grammar order): programs that use it.
    pub counts: Vec<(Production, usize)>,
}

impl Coverage {
    /// An empty tally for `g`.
    pub fn new(g: &Grammar) -> Coverage {
        Coverage { programs: 0, counts: g.productions.iter().map(|p| (*p, 0)).collect() }
    }

    /// Counts one program.
    ///
    /// # Panics
    /// If the classifier names a production its grammar does not list (an internal bug of
    /// the grammar, caught by its unit tests).
    pub fn add(&mut self, g: &Grammar, p: &Program) {
        self.programs += 1;
        for name in (g.uses)(p) {
            let slot = self.counts.iter_mut().find(|(q, _)| q.name == name);
            slot.unwrap_or_else(|| panic!("racefuzz internal bug: the classifier names `{name}`, which its grammar does not list")).1 += 1;
        }
    }

    /// The share of programs, in percent, that use each production.
    pub fn percents(&self) -> Vec<(Production, f64)> {
        self.counts.iter().map(|(p, n)| (*p, 100.0 * *n as f64 / self.programs.max(1) as f64)).collect()
    }

    /// The productions below [`FLOOR_PERCENT`].
    pub fn below_floor(&self) -> Vec<(Production, f64)> {
        self.percents().into_iter().filter(|(_, pct)| *pct < FLOOR_PERCENT).collect()
    }
}
