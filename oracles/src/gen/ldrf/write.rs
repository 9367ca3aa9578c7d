//! Writing L-DRF program text (docs/spec/ldrf.md §1.1, the language): the byte source and knobs
//! idioms and free programs share, the combinators of critical sections and branches, and
//! the finished program: its text, with the one unbalanced lock operation of
//! [`crate::lang::Relax::balanced_locking`] when the knobs ask for it (§6.4), parsed back.

use super::{LdrfKnobs, LOCKS};
use crate::gen::toolkit::{parse_generated, Bytes};
use crate::lang::Program;

/// The byte source and the knobs, shared by idioms and free programs.
pub(super) struct Gen<'a, 'b> {
    /// The byte source.
    pub(super) src: &'a mut Bytes<'b>,
    /// The program's knobs.
    pub(super) k: LdrfKnobs,
}

impl Gen<'_, '_> {
    /// One byte, as an index below `n`.
    pub(super) fn pick(&mut self, n: usize) -> usize {
        self.src.below(n)
    }

    /// One byte, as a coin that comes up `true` in `pct` percent of the byte range.
    pub(super) fn coin(&mut self, pct: u32) -> bool {
        self.src.coin(pct)
    }

    /// A small constant (1–3).
    pub(super) fn v(&mut self) -> usize {
        self.src.value()
    }
}

/// `acq(m); body; rel(m)`: a critical section of `m`.
pub(super) fn crit(m: &str, body: &[String]) -> Vec<String> {
    let mut v = vec![format!("acq({m})")];
    v.extend(body.iter().cloned());
    v.push(format!("rel({m})"));
    v
}

/// `if c { a } else { b }` (`skip` for an empty branch; no `else` when `b` is empty).
pub(super) fn ite(c: &str, a: &[String], b: &[String]) -> String {
    let block = |x: &[String]| if x.is_empty() { "skip".to_string() } else { x.join("; ") };
    if b.is_empty() {
        return format!("if {c} {{ {} }}", block(a));
    }
    format!("if {c} {{ {} }} else {{ {} }}", block(a), block(b))
}

/// The program whose threads run `threads`; with [`LdrfKnobs::unbalanced`], one thread
/// first releases an unheld lock or ends holding one (bytes read only then).
pub(super) fn program(threads: &[Vec<String>], k: LdrfKnobs, src: &mut Bytes<'_>) -> Program {
    let mut threads: Vec<Vec<String>> = threads.to_vec();
    if k.unbalanced {
        let t = src.below(threads.len());
        let m = LOCKS[src.below(k.locks.max(1))];
        if src.next().is_multiple_of(2) {
            threads[t].insert(0, format!("rel({m})"));
        } else {
            threads[t].push(format!("acq({m})"));
        }
    }
    let mut text = String::from("dialect ldrf\n");
    for t in &threads {
        let body = if t.is_empty() { "skip".to_string() } else { t.join("\n") };
        text.push_str(&format!("thread {{\n{body}\n}}\n"));
    }
    parse_generated("ldrf", &text)
}
