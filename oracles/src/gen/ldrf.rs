//! Placeholder: the `ldrf` generator is being written on branch ldrf-gen.

use std::collections::BTreeSet;

use super::grammar::Grammar;
use crate::lang::{parse, Program, Relax};

/// A fixed program (placeholder).
pub fn swarm_ldrf(_bytes: &[u8], _relax: Relax) -> Program {
    parse("dialect ldrf\nthread {\nacq(m)\nx = 1\nrel(m)\n}\nthread {\ny = 5\nacq(m)\na = x + y\n}\n").unwrap_or_else(|e| panic!("racefuzz internal bug: {e}"))
}

/// Placeholder grammar.
pub static GRAMMAR_LDRF: Grammar = Grammar { productions: &[], uses: |_| BTreeSet::new() };
