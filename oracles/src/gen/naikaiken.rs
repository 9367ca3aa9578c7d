//! Placeholder: the `naikaiken` generator is being written on branch na-gen.

use std::collections::BTreeSet;

use super::grammar::Grammar;
use crate::lang::{parse, Program, Relax};

/// A fixed program (placeholder).
pub fn swarm_naikaiken(_bytes: &[u8], _relax: Relax) -> Program {
    parse("dialect naikaiken\nthread {\nx = new @h1\nfork { x.g = 1 }\nread x.g\n}\n").unwrap_or_else(|e| panic!("racefuzz internal bug: {e}"))
}

/// Placeholder grammar.
pub static GRAMMAR_NAIKAIKEN: Grammar = Grammar { productions: &[], uses: |_| BTreeSet::new() };
