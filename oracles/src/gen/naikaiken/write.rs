//! Writing Naik-Aiken program text (docs/spec/naik_aiken.md §4.1, the oracle language): the
//! labels every allocation site and loop needs (unique `@h`/`@w`, the dialect's A1), the byte
//! source and knobs idioms and free programs share, the combinators of the compound
//! statements, and the parse of the finished main thread.

use super::NaikAikenKnobs;
use crate::gen::toolkit::{parse_generated, Bytes};
use crate::lang::Program;

/// Labels and the byte source, shared by idioms and free programs.
pub(super) struct Gen<'a, 'b> {
    /// The byte source.
    pub(super) src: &'a mut Bytes<'b>,
    /// The program's knobs.
    pub(super) k: NaikAikenKnobs,
    /// Allocation sites labelled so far (`@h1`, `@h2`, …).
    sites: usize,
    /// Loops labelled so far (`@w1`, …).
    loops: usize,
}

impl<'a, 'b> Gen<'a, 'b> {
    /// A writer at the start of a program.
    pub(super) fn new(src: &'a mut Bytes<'b>, k: NaikAikenKnobs) -> Gen<'a, 'b> {
        Gen { src, k, sites: 0, loops: 0 }
    }

    /// A fresh allocation-site label (`@h1`, `@h2`, …).
    pub(super) fn h(&mut self) -> String {
        self.sites += 1;
        format!("@h{}", self.sites)
    }

    /// A fresh loop label (`@w1`, …).
    pub(super) fn w(&mut self) -> String {
        self.loops += 1;
        format!("@w{}", self.loops)
    }

    /// An integer for a data write (1–3).
    pub(super) fn v(&mut self) -> usize {
        self.src.value()
    }

    /// One byte, as an index below `n`.
    pub(super) fn pick(&mut self, n: usize) -> usize {
        self.src.below(n)
    }

    /// One byte, as a coin that comes up `true` in `pct` percent of the byte range.
    pub(super) fn coin(&mut self, pct: u32) -> bool {
        self.src.coin(pct)
    }

    /// Whether this `sync` reassigns its variable (only under `Relax::sync_reassign`).
    pub(super) fn reassign(&mut self) -> bool {
        self.k.reassign > 0 && self.coin(self.k.reassign)
    }
}

/// `while @w * { body }`.
pub(super) fn wl(w: &str, body: &[String]) -> String {
    format!("while {w} * {{ {} }}", body.join("; "))
}

/// `fork { body }` or `fork(x) { body }`.
pub(super) fn fork(this: Option<&str>, body: &[String]) -> String {
    match this {
        Some(x) => format!("fork({x}) {{ {} }}", body.join("; ")),
        None => format!("fork {{ {} }}", body.join("; ")),
    }
}

/// The program whose one main thread runs `main`.
pub(super) fn program(main: &[String]) -> Program {
    let text = format!("dialect naikaiken\nthread {{ {} }}\n", main.join("; "));
    parse_generated("naikaiken", &text)
}
