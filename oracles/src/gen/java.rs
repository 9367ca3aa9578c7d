//! STUB (not committed)
use super::grammar::Grammar;
use crate::lang::*;
/// stub
pub fn swarm_simplejava(_: &[u8], _: Relax) -> Program {
    parse("dialect simplejava\nthread { skip }\n").unwrap()
}
/// stub
pub fn swarm_capjava(_: &[u8], _: Relax) -> Program {
    parse("dialect capjava\nthread { skip }\n").unwrap()
}
/// stub
pub const GRAMMAR_SIMPLEJAVA: Grammar = Grammar { productions: &[], uses: |_| Default::default() };
/// stub
pub const GRAMMAR_CAPJAVA: Grammar = Grammar { productions: &[], uses: |_| Default::default() };
