//! The racerdx generator: programs in the racerdx dialect (spec/racerdx.md §1.2 A1–A6, ANF,
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
//! The rule for every generator (issue 8; [`super::grammar`]): each production of
//! [`GRAMMAR`] is used by at least 1% of programs at the default swarm settings
//! (`racefuzz gen racerdx --stats` prints the table; `tests/gen.rs` enforces it).

use std::collections::BTreeSet;

use proptest::prelude::*;

use super::grammar::{prod, Grammar};
use super::toolkit::{chance, parse_generated, split_header, Bytes};
use crate::lang::*;
use crate::theorems::static_race::is_formal;

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
        }
    }
}

const FIELD_NAMES: [&str; 4] = ["f", "g", "h", "k"];
const LOCAL_NAMES: [&str; 3] = ["x", "y", "z"];

struct Builder<'a, 'b> {
    src: &'a mut Bytes<'b>,
    k: RacerDxKnobs,
    formals: usize,
    me: usize,
    params: Vec<usize>,
    budget: usize,
    /// Locals definitely assigned here (A3): the only locals that may be read.
    assigned: Vec<String>,
}

fn stmt(kind: StmtKind) -> Stmt {
    Stmt { kind, line: Line(0) }
}

impl Builder<'_, '_> {
    fn formal(&mut self) -> String {
        format!("arg{}", self.src.below(self.formals) + 1)
    }

    fn path(&mut self) -> Vec<String> {
        let n = self.src.below(self.k.max_path) + 1;
        (0..n).map(|_| FIELD_NAMES[self.src.below(self.k.fields.clamp(1, 4))].to_string()).collect()
    }

    /// A variable to read: when `locals` and one is assigned, a local half of the time;
    /// otherwise a formal.
    fn readable(&mut self, locals: bool) -> String {
        let b = self.src.next();
        if locals && !self.assigned.is_empty() && b.is_multiple_of(2) {
            self.assigned[usize::from(b / 2) % self.assigned.len()].clone()
        } else {
            format!("arg{}", usize::from(b / 2) % self.formals + 1)
        }
    }

    /// A variable to assign: a local, or a formal one time in three (when formals are written).
    fn writable(&mut self) -> String {
        let b = self.src.next();
        if self.k.formal_writes && b.is_multiple_of(3) {
            format!("arg{}", usize::from(b / 3) % self.formals + 1)
        } else {
            LOCAL_NAMES[usize::from(b) % self.k.locals.clamp(1, 3)].to_string()
        }
    }

    fn assign(&mut self, x: &str) {
        if !is_formal(x) && !self.assigned.iter().any(|a| a == x) {
            self.assigned.push(x.to_string());
        }
    }

    fn place(&mut self) -> Place {
        let base = self.readable(self.k.local_roots);
        Place::Field { base, fields: self.path() }
    }

    fn load(&mut self, out: &mut Block) {
        let src = self.place();
        let dst = self.writable();
        self.assign(&dst);
        out.push(stmt(StmtKind::Load { dst, src }));
    }

    /// `π := x` with x an assigned local (ANF forbids a formal); when none is assigned or
    /// one time in two, a fresh object first (`x := new()`).
    fn store(&mut self, out: &mut Block) {
        let dst = self.place();
        let reuse = !self.assigned.is_empty() && self.src.next() % 2 == 1;
        let x = if reuse {
            self.assigned[self.src.below(self.assigned.len())].clone()
        } else {
            let x = LOCAL_NAMES[self.src.below(self.k.locals.clamp(1, 3))].to_string();
            out.push(stmt(StmtKind::New { dst: x.clone(), class: None, site: None }));
            self.assign(&x);
            x
        };
        out.push(stmt(StmtKind::Store { dst, src: Expr::Var(x) }));
    }

    fn call(&mut self, out: &mut Block) {
        // The previous method half of the time, so that calls chain (m3 → m2 → m1).
        let b = self.src.next();
        let callee = if b.is_multiple_of(2) { self.me - 1 } else { usize::from(b / 2) % self.me };
        let mut args: Vec<Expr> = vec![];
        let n = self.params[callee];
        for i in 0..n {
            let b = self.src.next();
            let arg = match args.last() {
                // One actual a prefix of another (Fig. 7's Pre(ē)): the same actual again,
                // or an earlier one extended by a field.
                Some(prev) if b.is_multiple_of(4) => {
                    let prev = prev.clone();
                    if b.is_multiple_of(8) {
                        prev
                    } else {
                        let (base, mut fields) = match prev {
                            Expr::Path(p) => match *p {
                                Place::Field { base, fields } => (base, fields),
                                Place::Index { base, .. } => (base, vec![]),
                            },
                            Expr::Var(v) => (v, vec![]),
                            _ => (self.formal(), vec![]),
                        };
                        fields.push(FIELD_NAMES[self.src.below(self.k.fields.clamp(1, 4))].to_string());
                        Expr::Path(Box::new(Place::Field { base, fields }))
                    }
                }
                _ => {
                    // A local actual whatever `local_roots` says: passing a local is not an
                    // access through it here, and its accesses in the callee drop out by fml.
                    // One time in four, the caller's formal in the mirrored position
                    // (`m(arg2, arg1)`): θ must then substitute simultaneously (§3.2).
                    let base = if self.src.next().is_multiple_of(4) { format!("arg{}", (n - 1 - i) % self.formals + 1) } else { self.readable(true) };
                    if b.is_multiple_of(2) {
                        Expr::Var(base)
                    } else {
                        Expr::Path(Box::new(Place::Field { base, fields: self.path() }))
                    }
                }
            };
            args.push(arg);
        }
        out.push(stmt(StmtKind::Call { dst: None, recv: None, method: format!("m{}", callee + 1), args }));
    }

    /// A nested block: at most 1–3 statements (drawn), so that statements follow it.
    fn nested(&mut self, locks: usize, control: usize) -> Block {
        let len = self.src.below(3) + 1;
        self.block_of(locks, control, len)
    }

    fn block(&mut self, locks: usize, control: usize) -> Block {
        self.block_of(locks, control, usize::MAX)
    }

    fn block_of(&mut self, locks: usize, control: usize, max_len: usize) -> Block {
        let mut out = vec![];
        let mut len = 0;
        while self.budget > 0 && len < max_len && !self.src.exhausted() {
            len += 1;
            let c = self.src.next();
            if c == 0 {
                break;
            }
            self.budget -= 1;
            // A 32-way choice (weights: loads 5, stores 5, copies 4, `new` 2, locks 4,
            // `if` 2, `while` 2, calls 6, `skip` 1); an option that is unavailable here
            // (switched off, nesting at its limit, no earlier method to call) falls back to
            // a load.
            match c % 32 {
                8..=12 => self.store(&mut out),
                5..=7 | 31 if self.k.copies => {
                    let src = self.readable(true);
                    // A local copied into a formal half of the time (`arg_i := x` rebinds a
                    // formal to a caller-invisible object, the form issue 8 found unwritten).
                    let dst = if !is_formal(&src) && self.k.formal_writes && self.src.next().is_multiple_of(2) { self.formal() } else { self.writable() };
                    self.assign(&dst);
                    out.push(stmt(StmtKind::Assign { dst, src: Expr::Var(src) }));
                }
                13 | 14 => {
                    let dst = self.writable();
                    self.assign(&dst);
                    out.push(stmt(StmtKind::New { dst, class: None, site: None }));
                }
                15..=18 if locks < self.k.max_lock_nesting => {
                    out.push(stmt(StmtKind::Lock));
                    out.extend(self.nested(locks + 1, control));
                    out.push(stmt(StmtKind::Unlock));
                }
                19 | 20 if control < self.k.max_control_nesting => {
                    // A local assigned on one branch only is not definitely assigned after.
                    let before = self.assigned.clone();
                    let then_b = self.nested(locks, control + 1);
                    let after_then = std::mem::replace(&mut self.assigned, before);
                    let else_b = self.nested(locks, control + 1);
                    self.assigned.retain(|x| after_then.contains(x));
                    out.push(stmt(StmtKind::If { cond: Cond::Star, then_b, else_b }));
                }
                21 | 22 if control < self.k.max_control_nesting => {
                    let before = self.assigned.clone();
                    let body = self.nested(locks, control + 1);
                    self.assigned = before;
                    out.push(stmt(StmtKind::While { label: None, cond: Cond::Star, body }));
                }
                23..=28 if self.k.calls && self.me > 0 => self.call(&mut out),
                29 => out.push(stmt(StmtKind::Skip)),
                30 if self.k.unmatched_unlock && locks == 0 => out.push(stmt(StmtKind::Unlock)),
                _ => self.load(&mut out),
            }
        }
        out
    }
}

/// Builds a racerdx program from `bytes` (deterministic; a prefix gives a smaller program).
pub fn build(bytes: &[u8], k: RacerDxKnobs) -> Program {
    let mut src = Bytes::new(bytes);
    let n = k.max_methods.max(1);
    let mut methods: Vec<Method> = vec![];
    let mut params = vec![];
    for me in 0..n {
        let formals = src.below(k.max_formals.max(1)) + 1;
        let mut b = Builder { src: &mut src, k, formals, me, params: params.clone(), budget: k.max_stmts, assigned: vec![] };
        let body = b.block(0, 0);
        params.push(formals);
        methods.push(Method { name: format!("m{}", me + 1), params: (1..=formals).map(|i| format!("arg{i}")).collect(), body, line: Line(0) });
    }
    // Give every statement a distinct line, as if printed, so that reports name lines.
    let text = print(&Program { dialect: Dialect::RacerDx, classes: vec![], methods, init: None, threads: vec![], regions: vec![] });
    parse_generated("racerdx", &text)
}

/// Bytes [`swarm`] reads for its knobs before the program.
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
        }
    }
}

/// The registry's generator for racerdx oracles: swarm knobs from the first
/// [`SWARM_HEADER`] bytes (zeros past the end), then [`build`] from the rest. A stray
/// `unlock` appears only when `relax` lifts balanced locking.
pub fn swarm(bytes: &[u8], relax: Relax) -> Program {
    let (h, rest) = split_header::<SWARM_HEADER>(bytes);
    build(rest, RacerDxKnobs::swarm(h, relax))
}

/// [`swarm`] with at most 4 statements per method: small enough that the naive
/// enumeration of every method pair usually finishes, for the oracles that compare an
/// explorer with it (`explorer-agree-racerdx`). Every production still appears.
pub fn swarm_small(bytes: &[u8], relax: Relax) -> Program {
    let (h, rest) = split_header::<SWARM_HEADER>(bytes);
    let k = RacerDxKnobs::swarm(h, relax);
    build(rest, RacerDxKnobs { max_stmts: k.max_stmts.min(4), ..k })
}

/// The racerdx grammar (spec/racerdx.md §1.1, Fig. 4, under A1–A6 and ANF), one production
/// per statement form, variable role and context an analysis can treat differently.
pub const GRAMMAR: Grammar = Grammar {
    productions: &[
        prod("skip", "skip"),
        prod("copy local := local", "x := y"),
        prod("copy local := formal", "x := arg_i"),
        prod("copy formal := local", "arg_i := x"),
        prod("copy formal := formal", "arg_i := arg_j"),
        prod("new into a local", "x := new()"),
        prod("new into a formal", "arg_i := new()"),
        prod("load into a local", "x := e.f̄"),
        prod("load into a formal", "arg_i := e.f̄"),
        prod("store", "e.f̄ := x"),
        prod("access rooted at a formal", "arg_i.f̄ (load or store)"),
        prod("access rooted at a local", "x.f̄ (load or store)"),
        prod("access through a reassigned formal", "arg_i.f̄ where the method assigns arg_i"),
        prod("access path of 1 field", "e.f"),
        prod("access path of 2 fields", "e.f.g"),
        prod("access path of 3 fields", "e.f.g.h"),
        prod("lock block", "lock(); C; unlock()"),
        prod("nested lock", "lock(); … lock(); C; unlock(); … unlock()"),
        prod("if *", "if * then C1 else C2"),
        prod("while *", "while * do C"),
        prod("nested control", "if/while inside if/while"),
        prod("lock inside control", "lock() inside if/while"),
        prod("control inside lock", "if/while between lock() and unlock()"),
        prod("call", "m(ē)"),
        prod("actual: formal", "m(…, arg_i, …)"),
        prod("actual: local", "m(…, x, …)"),
        prod("actual: path from a formal", "m(…, arg_i.f̄, …)"),
        prod("actual: path from a local", "m(…, x.f̄, …)"),
        prod("actual: path of ≥ 2 fields", "m(…, e.f.g, …)"),
        prod("actuals: one a prefix of another", "m(…, e, …, e.f̄, …), Pre(ē) ≠ ∅"),
        prod("call of a 2-formal method", "m(e1, e2)"),
        prod("call of a 3-formal method", "m(e1, e2, e3)"),
        prod("call inside lock", "lock(); … m(ē) …; unlock()"),
        prod("call inside control", "m(ē) inside if/while"),
        prod("nested call", "m(ē) where m calls"),
    ],
    uses,
};

/// Where a statement sits.
#[derive(Clone, Copy)]
struct At {
    locks: usize,
    control: usize,
}

fn uses(p: &Program) -> BTreeSet<&'static str> {
    let mut u = BTreeSet::new();
    for m in &p.methods {
        let mut reassigned = BTreeSet::new();
        walk_block(&m.body, &mut |s| match &s.kind {
            StmtKind::Assign { dst, .. } | StmtKind::Load { dst, .. } | StmtKind::New { dst, .. } if is_formal(dst) => {
                reassigned.insert(dst.as_str());
            }
            _ => {}
        });
        classify(p, &m.body, At { locks: 0, control: 0 }, &reassigned, &mut u);
    }
    u
}

fn classify(p: &Program, b: &Block, mut at: At, reassigned: &BTreeSet<&str>, u: &mut BTreeSet<&'static str>) {
    let role = |v: &str, formal: &'static str, local: &'static str| if is_formal(v) { formal } else { local };
    let access = |pl: &Place, u: &mut BTreeSet<&'static str>| {
        if let Place::Field { base, fields } = pl {
            u.insert(role(base, "access rooted at a formal", "access rooted at a local"));
            if reassigned.contains(base.as_str()) {
                u.insert("access through a reassigned formal");
            }
            u.extend(match fields.len() {
                1 => Some("access path of 1 field"),
                2 => Some("access path of 2 fields"),
                3 => Some("access path of 3 fields"),
                _ => None,
            });
        }
    };
    for s in b {
        match &s.kind {
            StmtKind::Skip => {
                u.insert("skip");
            }
            StmtKind::Assign { dst, src: Expr::Var(y) } => {
                u.insert(match (is_formal(dst), is_formal(y)) {
                    (false, false) => "copy local := local",
                    (false, true) => "copy local := formal",
                    (true, false) => "copy formal := local",
                    (true, true) => "copy formal := formal",
                });
            }
            StmtKind::New { dst, .. } => {
                u.insert(role(dst, "new into a formal", "new into a local"));
            }
            StmtKind::Load { dst, src } => {
                u.insert(role(dst, "load into a formal", "load into a local"));
                access(src, u);
            }
            StmtKind::Store { dst, .. } => {
                u.insert("store");
                access(dst, u);
            }
            StmtKind::Lock => {
                u.insert(if at.locks > 0 { "nested lock" } else { "lock block" });
                if at.control > 0 {
                    u.insert("lock inside control");
                }
                at.locks += 1;
            }
            StmtKind::Unlock => at.locks = at.locks.saturating_sub(1),
            StmtKind::If { then_b, else_b, .. } => {
                control(at, "if *", u);
                let inner = At { control: at.control + 1, ..at };
                classify(p, then_b, inner, reassigned, u);
                classify(p, else_b, inner, reassigned, u);
            }
            StmtKind::While { body, .. } => {
                control(at, "while *", u);
                classify(p, body, At { control: at.control + 1, ..at }, reassigned, u);
            }
            StmtKind::Call { method, args, .. } => {
                u.insert("call");
                call(p, method, args, at, u);
            }
            _ => {}
        }
    }
}

fn control(at: At, what: &'static str, u: &mut BTreeSet<&'static str>) {
    u.insert(what);
    if at.control > 0 {
        u.insert("nested control");
    }
    if at.locks > 0 {
        u.insert("control inside lock");
    }
}

fn call(p: &Program, method: &str, args: &[Expr], at: At, u: &mut BTreeSet<&'static str>) {
    if at.locks > 0 {
        u.insert("call inside lock");
    }
    if at.control > 0 {
        u.insert("call inside control");
    }
    match args.len() {
        2 => u.insert("call of a 2-formal method"),
        3 => u.insert("call of a 3-formal method"),
        _ => false,
    };
    if p.method(method).is_some_and(|m| {
        let mut calls = false;
        walk_block(&m.body, &mut |s| calls |= matches!(s.kind, StmtKind::Call { .. }));
        calls
    }) {
        u.insert("nested call");
    }
    let mut paths = vec![];
    for a in args {
        let (base, fields): (&str, &[String]) = match a {
            Expr::Var(v) => (v, &[]),
            Expr::Path(pl) => match &**pl {
                Place::Field { base, fields } => (base, fields),
                Place::Index { .. } => continue,
            },
            _ => continue,
        };
        u.insert(match (fields.is_empty(), is_formal(base)) {
            (true, true) => "actual: formal",
            (true, false) => "actual: local",
            (false, true) => "actual: path from a formal",
            (false, false) => "actual: path from a local",
        });
        if fields.len() >= 2 {
            u.insert("actual: path of ≥ 2 fields");
        }
        paths.push((base, fields));
    }
    let prefix = |(b1, f1): &(&str, &[String]), (b2, f2): &(&str, &[String])| b1 == b2 && f2.starts_with(f1);
    if paths.iter().enumerate().any(|(i, a)| paths.iter().enumerate().any(|(j, b)| i != j && prefix(a, b))) {
        u.insert("actuals: one a prefix of another");
    }
}

/// The proptest strategy: bytes, shrunk by proptest, built into a program.
pub fn racerdx_program(k: RacerDxKnobs) -> impl Strategy<Value = Program> {
    proptest::collection::vec(any::<u8>(), 0..160).prop_map(move |b| build(&b, k))
}

/// A generated racerdx program with the bytes it came from (for cargo fuzz and quickcheck).
#[derive(Clone)]
pub struct RacerDxInput {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// The program built from them with the default knobs.
    pub program: Program,
}

impl RacerDxInput {
    /// Builds the input for `bytes`.
    pub fn new(bytes: Vec<u8>) -> RacerDxInput {
        let program = build(&bytes, RacerDxKnobs::default());
        RacerDxInput { bytes, program }
    }
}

impl std::fmt::Debug for RacerDxInput {
    // Print the program as text: that is what a person wants to see in a fuzz crash.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", print(&self.program))
    }
}

impl<'a> arbitrary::Arbitrary<'a> for RacerDxInput {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        let n = u.len();
        Ok(RacerDxInput::new(u.bytes(n)?.to_vec()))
    }
}

impl quickcheck::Arbitrary for RacerDxInput {
    fn arbitrary(g: &mut quickcheck::Gen) -> Self {
        RacerDxInput::new(<Vec<u8> as quickcheck::Arbitrary>::arbitrary(g))
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        Box::new(quickcheck::Arbitrary::shrink(&self.bytes).map(RacerDxInput::new))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_means_stop() {
        let p = build(&[], RacerDxKnobs::default());
        assert_eq!(p.methods.len(), 3);
        assert!(p.methods.iter().all(|m| m.body.is_empty()));
        let p = build(&[0, 1, 1, 1, 1, 0], RacerDxKnobs::default());
        assert_eq!(p.methods[0].body.len(), 1);
    }

    /// The classifier can fail: a program written by hand to use every production is
    /// classified as using every production, and an empty one as using none.
    #[test]
    fn the_classifier_sees_every_production() {
        let src = "dialect racerdx
method m1(arg1) { skip }
method m2(arg1, arg2) { m1(arg1) }
method m3(arg1, arg2, arg3) {
  x = new; y = x; z = arg1; arg2 = z; arg3 = arg1; arg1 = new
  u = arg2.f; arg3 = arg2.f.g; arg1.f.g.h = u; x.f = u
  lock; lock; if * { m2(arg1, arg1.f) } else { skip }; unlock; unlock
  while * { lock; unlock; if * { skip } else { skip } }
  lock; m1(x); unlock
  if * { m2(x.f, arg2.f.g) } else { skip }
  m3b(arg1, arg2, arg3)
}
method m3b(arg1, arg2, arg3) { skip }
";
        let p = parse(src).unwrap();
        crate::lang::validate(&p).unwrap();
        let used = uses(&p);
        let missing: Vec<&str> = GRAMMAR.productions.iter().map(|q| q.name).filter(|n| !used.contains(n)).collect();
        assert!(missing.is_empty(), "not seen: {missing:?}");
        assert!(uses(&parse("dialect racerdx\nmethod m(arg1) { }\n").unwrap()).is_empty());
    }
}
