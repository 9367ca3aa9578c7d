//! The thread-program generator: small tier-2 BFJ programs (docs/spec/bigfoot.md §2 and A2's
//! fork/join) whose point is to exercise the *explorers* (the
//! `explorer-agree` oracle) and the precise detectors (`fasttrack-precise`), so every form
//! that creates, hides or orders a dependence between threads appears: reads and writes of
//! shared fields, paths through a link field (`o.f.g`: the prefix `o.f` is read without an
//! event, and another thread may redirect it), publication of fresh objects into the link,
//! critical sections on two locks (nested in both orders: lock-order deadlocks), `sync`
//! blocks, `if *` and `while *` (choices inside a thread), conditions on loaded values,
//! `h = fork { C }` with a later `join(h)` (or none), and two to four threads.
//!
//! Built deterministically from bytes, like the racerdx generator: swarm knobs from a
//! header, then the program; a byte 0 or the end of the input means "stop adding". Every
//! program validates as `bfj2` and has no null dereference: `init` links `o1.f = o2` and
//! `o2.f = o1`, the link field `f` only ever holds objects, and paths go through it.
//! Programs stay small (a budget of at most 9 statements in all) so that the naive enumeration, the
//! ground truth the fast explorers are compared with, finishes. The statement budget is
//! split among the threads in equal shares give or take one (with exactly equal
//! shares, only the last of three threads had room for an access followed by a choice over
//! another access, the shape of `tests/regress/dpor_choice_after_access.race`; with shares
//! drawn uniformly, one of two threads was often too short for nested sections, and
//! lock-order deadlocks and release-then-access races became rare).

use std::collections::BTreeSet;

mod atomic_grammar;
mod atomics;
mod cost;
mod detectors;
mod knobs;
mod limits;

pub use atomic_grammar::GRAMMAR_ATOMICS;
pub use atomics::{swarm_atomics, swarm_atomics_model_checkers, AtomicKnobs, ATOMICS_HEADER};
pub use detectors::{swarm_detectors, swarm_histories, swarm_limits};
pub use knobs::{ThreadKnobs, SWARM_HEADER};
pub use limits::{reached, LimitForms};

use super::grammar::{prod, Grammar, Production};
use super::toolkit::{parse_generated, split_header, Bytes};
use crate::lang::*;

const OBJECTS: [&str; 2] = ["o1", "o2"];
const INTS: [&str; 2] = ["g", "h"];

struct Builder<'a, 'b> {
    src: &'a mut Bytes<'b>,
    k: ThreadKnobs,
    budget: usize,
    fresh: usize,
    /// Locks held here, innermost last (no lock is taken twice: BFJ locks are not
    /// reentrant, and a self-deadlock would teach the explorers nothing).
    held: Vec<usize>,
    /// The thread being written: its outermost sections mostly take lock `thread % locks`
    /// first, so that two threads nesting both locks take them in opposite orders.
    thread: usize,
    /// Inside a `while *` body.
    in_loop: bool,
}

impl Builder<'_, '_> {
    /// Appends statements to `out`; the threads it forks are joined later in the same
    /// block, each at a random point, or (a quarter of them) never.
    fn block(&mut self, depth: usize, out: &mut Vec<String>) {
        let mut forked = vec![];
        self.stmts(depth, out, &mut forked);
        for h in forked {
            if !self.src.next().is_multiple_of(4) {
                out.push(format!("join({h})"));
            }
        }
    }

    fn stmts(&mut self, depth: usize, out: &mut Vec<String>, forked: &mut Vec<String>) {
        // The field of the last statement written here, if it was a plain access: in
        // choice-heavy programs, two thirds of those are followed by a choice whose branch
        // opens with an access to the other field (a choice right after a shared
        // access, with a third thread on the branch's location, is where DPOR's wakeup
        // insertion had to treat a thread's alternatives as one group). That choice is
        // written even when the budget is spent, and its access too: a thread's share is
        // often one or two statements.
        let mut after_access: Option<&str> = None;
        let heavy = self.k.choices && self.k.control;
        loop {
            if !forked.is_empty() && self.src.next().is_multiple_of(3) {
                out.push(format!("join({})", forked.remove(0)));
            }
            let free_choice = heavy && after_access.is_some() && depth < 2 && self.budget == 0;
            if self.budget == 0 && !free_choice {
                return;
            }
            let b = self.src.next();
            if b == 0 || (free_choice && b % 3 == 2) {
                return;
            }
            self.budget = self.budget.saturating_sub(1);
            let o = OBJECTS[self.src.below(self.k.objects)];
            let fld = INTS[self.src.below(self.k.fields)];
            if heavy {
                match after_access {
                    Some(last) if b % 3 != 2 && depth < 2 => {
                        let other = if last == INTS[0] { INTS[1] } else { INTS[0] };
                        let mut a = vec![];
                        self.budget = self.budget.saturating_sub(1);
                        if b % 9 < 3 {
                            a.push(format!("r = {o}.{other}"));
                        } else {
                            a.push(format!("{o}.{other} = {}", self.src.below(3)));
                        }
                        let as_while = !(b / 3).is_multiple_of(2) && (self.k.nested_loops || !self.in_loop);
                        let outer = self.in_loop;
                        self.in_loop |= as_while;
                        self.block(depth + 1, &mut a);
                        self.in_loop = outer;
                        if (b / 3).is_multiple_of(2) {
                            let mut e = vec![];
                            self.block(depth + 1, &mut e);
                            out.push(format!("if * {{ {} }} else {{ {} }}", a.join("; "), e.join("; ")));
                        } else if as_while {
                            out.push(format!("while * {{ {} }}", a.join("; ")));
                        } else {
                            out.push(format!("if * {{ {} }} else {{ }}", a.join("; ")));
                        }
                        after_access = None;
                    }
                    _ if (b / 3).is_multiple_of(3) => {
                        out.push(format!("r = {o}.{fld}"));
                        after_access = Some(fld);
                    }
                    _ => {
                        out.push(format!("{o}.{fld} = {}", self.src.below(3)));
                        after_access = Some(fld);
                    }
                }
                continue;
            }
            // Inside a section, a third of the statements open a section on the other lock:
            // that is where lock-order deadlocks come from.
            let nest = !self.held.is_empty() && self.held.len() < self.k.locks && b.is_multiple_of(3);
            let form = if nest {
                7 + b % 2
            } else if b % 13 == 12 && !self.k.forks && b % 26 >= 13 {
                // Without fork/join, half of the fork's share opens a section (the other
                // half writes `skip`): sections, nested in opposite orders, are where
                // lock-order deadlocks come from.
                7
            } else if self.k.limits.frequent && matches!(b % 13, 4..=6) && !self.in_loop && self.fresh == 0 {
                12
            } else {
                b % 13
            };
            match form {
                0 | 1 => out.push(format!("r = {o}.{fld}")),
                2 | 3 => out.push(format!("{o}.{fld} = {}", self.src.below(3))),
                4 if self.k.paths => out.push(format!("r = {o}.f.{fld}")),
                5 if self.k.paths => out.push(format!("{o}.f.{fld} = {}", self.src.below(3))),
                6 if self.k.publish => {
                    self.fresh += 1;
                    out.push(format!("n{} = new C; n{}.f = {o}; {o}.f = n{}", self.fresh, self.fresh, self.fresh));
                }
                6 => out.push(format!("{o}.f = {}", OBJECTS[self.src.below(2)])),
                7 | 8 if self.k.locks > 0 && depth < 2 => {
                    let free: Vec<usize> = (0..self.k.locks).filter(|l| !self.held.contains(l)).collect();
                    if free.is_empty() {
                        out.push("skip".into());
                        continue;
                    }
                    let pick = self.src.next();
                    let own = self.thread % self.k.locks;
                    let l = if self.held.is_empty() && !pick.is_multiple_of(4) && free.contains(&own) { own } else { free[usize::from(pick) % free.len()] };
                    self.held.push(l);
                    let mut body = vec![];
                    if self.held.len() == 1 && self.k.locks == 2 && pick % 4 != 1 {
                        // Both locks, this thread's first: opposite orders in two threads.
                        let inner = 1 - l;
                        self.held.push(inner);
                        let mut b2 = vec![];
                        self.block(depth + 1, &mut b2);
                        self.held.pop();
                        body.push(format!("acq(m{inner}); {}rel(m{inner})", b2.iter().map(|s| format!("{s}; ")).collect::<String>()));
                    }
                    self.block(depth + 1, &mut body);
                    self.held.pop();
                    if b % 2 == 1 {
                        out.push(format!("acq(m{l}); {}rel(m{l})", body.iter().map(|s| format!("{s}; ")).collect::<String>()));
                    } else {
                        out.push(format!("sync(m{l}) {{ {} }}", body.join("; ")));
                    }
                }
                9 if self.k.control && depth < 2 => {
                    let (mut a, mut e) = (vec![], vec![]);
                    self.block(depth + 1, &mut a);
                    self.block(depth + 1, &mut e);
                    out.push(format!("if * {{ {} }} else {{ {} }}", a.join("; "), e.join("; ")));
                }
                10 if self.k.control && depth < 2 && (self.k.nested_loops || !self.in_loop) => {
                    let mut a = vec![];
                    let outer = std::mem::replace(&mut self.in_loop, true);
                    self.block(depth + 1, &mut a);
                    self.in_loop = outer;
                    out.push(format!("while * {{ {} }}", a.join("; ")));
                }
                11 if self.k.control && depth < 2 => {
                    let mut a = vec![];
                    self.block(depth + 1, &mut a);
                    out.push(format!("r = {o}.{fld}; if r > 0 {{ {} }}", a.join("; ")));
                }
                12 if self.k.forks && !self.k.loop_forks && self.in_loop => out.push("skip".into()),
                12 if self.k.forks && self.k.limits.any() && !self.in_loop => out.push(self.limit_form(o, fld, b)),
                12 if self.k.forks && self.k.shared_reads && b % 26 < 13 => {
                    self.fresh += 1;
                    self.budget = self.budget.saturating_sub(3);
                    let h = self.fresh;
                    out.push(format!("h{h} = fork {{ r = {o}.{fld} }}; r = {o}.{fld}; join(h{h}); {o}.{fld} = {}", self.src.below(3)));
                }
                12 if self.k.forks && depth < 2 => {
                    // The child holds no lock and starts with a copy of the parent's locals.
                    self.fresh += 1;
                    let h = format!("h{}", self.fresh);
                    let held = std::mem::take(&mut self.held);
                    let mut body = vec![];
                    self.block(depth + 1, &mut body);
                    self.held = held;
                    out.push(format!("{h} = fork {{ {} }}", body.join("; ")));
                    forked.push(h);
                }
                12 => out.push("skip".into()),
                // A form its knob turns off (or too deep) is a plain access instead: a
                // `skip` in its place only shortened the program (measured: with paths,
                // publication and locks off, five forms in twelve wrote `skip`).
                _ if b.is_multiple_of(2) => out.push(format!("r = {o}.{fld}")),
                _ => out.push(format!("{o}.{fld} = {}", self.src.below(3))),
            }
        }
    }
}

/// Builds a thread program from `bytes` with knobs `k` (deterministic).
pub fn build(bytes: &[u8], k: ThreadKnobs) -> Program {
    let mut src = Bytes::new(bytes);
    let mut b = Builder { src: &mut src, k, budget: k.stmts, fresh: 0, held: vec![], thread: 0, in_loop: false };
    let mut threads = vec![];
    let n = k.threads.clamp(2, 4);
    for t in 0..n {
        let mut body = vec![];
        b.thread = t;
        // Each thread takes an equal share of what is left, give or take one (leaving at
        // least one statement for each thread after it); the last one takes the rest, with
        // what the others left unused.
        let later = n - t - 1;
        let share = if later == 0 { b.budget } else { (b.budget / (later + 1) + b.src.below(3)).saturating_sub(1).clamp(1, b.budget.saturating_sub(later).max(1)) };
        let rest = b.budget.saturating_sub(share);
        b.budget = share;
        b.block(0, &mut body);
        b.budget += rest;
        threads.push(body);
    }
    let locks: String = (0..k.locks).map(|l| format!("; m{l} = new C")).collect();
    let mut text = format!("dialect bfj2\nclass C {{ fields f, g, h }}\ninit {{ o1 = new C; o2 = new C; o1.f = o2; o2.f = o1{locks} }}\n");
    for body in threads {
        text.push_str(&format!("thread {{ {} }}\n", body.join("; ")));
    }
    // The builder writes only forms it knows to be valid; a failure is its bug.
    parse_generated("thread", &text)
}

/// The registry's generator for thread-program oracles: swarm knobs from the first
/// [`SWARM_HEADER`] bytes, then [`build`] from the rest, under [`MAX_EXECUTIONS`].
pub fn swarm(bytes: &[u8], _relax: Relax) -> Program {
    let (h, rest) = split_header::<SWARM_HEADER>(bytes);
    let mut k = ThreadKnobs::swarm(h);
    // A program over the cost cap is built again from the same bytes with one statement
    // less, down to three (measured: capped at 5,000 estimated executions, 5.5% of the
    // programs are rebuilt; they held all 14 programs in 600 past 2,000 naive executions,
    // and 54% of explorer-agree's time: 6.76 G -> 3.66 G instructions for 300 programs).
    loop {
        let p = build(rest, k);
        if k.stmts <= 3 || cost::executions(&p) <= MAX_EXECUTIONS {
            return p;
        }
        k.stmts -= 1;
    }
}

/// The most executions [`swarm`] lets a program cost, as `cost::executions` estimates them.
pub const MAX_EXECUTIONS: f64 = 5_000.0;

/// The productions of the thread programs, one per form that creates, hides or orders a
/// dependence between threads.
pub const GRAMMAR: Grammar = Grammar { productions: PRODUCTIONS, uses };

/// The grammar of [`swarm_detectors`]' programs: [`GRAMMAR`] without four threads (the
/// last production), which the detector knobs leave out.
pub const GRAMMAR_DETECTORS: Grammar = Grammar { productions: PRODUCTIONS.split_last().expect("PRODUCTIONS is not empty").1, uses };

/// The productions of [`GRAMMAR`]; four threads last, for [`GRAMMAR_DETECTORS`].
const PRODUCTIONS: &[Production] = &[
    prod("read", "r = o.g"),
    prod("write", "o.g = k"),
    prod("link redirected", "o.f = p"),
    prod("publication", "n = new C; n.f = o; o.f = n"),
    prod("acq/rel", "acq(m); C; rel(m)"),
    prod("sync", "sync(m) { C }"),
    prod("two locks nested", "a section on one lock inside a section on the other"),
    prod("if *", "if * { C1 } else { C2 }"),
    prod("while *", "while * { C }"),
    prod("data condition", "if r > 0 { C }"),
    prod("three threads", "thread { … } × 3"),
    prod("fork", "h = fork { C }"),
    prod("join", "join(h)"),
    prod("skip", "skip"),
    prod("path read", "r = o.f.g (o.f read without an event)"),
    prod("path write", "o.f.g = k"),
    prod("four threads", "thread { … } × 4"),
];

fn uses(p: &Program) -> BTreeSet<&'static str> {
    let mut u = BTreeSet::new();
    let many = match p.threads.len() {
        3 => Some("three threads"),
        4 => Some("four threads"),
        _ => None,
    };
    u.extend(many);
    for t in &p.threads {
        stmts(t, 0, &mut u);
    }
    u
}

/// Classifies `block`, inside `locks` sections.
fn stmts(block: &[Stmt], locks: usize, u: &mut BTreeSet<&'static str>) {
    let mut open = locks;
    for s in block {
        match &s.kind {
            StmtKind::Skip => {
                u.insert("skip");
            }
            StmtKind::Load { src: Place::Field { fields, .. }, .. } => {
                u.insert(if fields.len() > 1 { "path read" } else { "read" });
            }
            StmtKind::Store { dst: Place::Field { fields, .. }, src } => {
                u.insert(match (fields.len() > 1, fields.first().map(String::as_str), src) {
                    (true, ..) => "path write",
                    (false, Some("f"), Expr::Var(v)) if v.starts_with('n') => "publication",
                    (false, Some("f"), _) => "link redirected",
                    _ => "write",
                });
            }
            StmtKind::Acq(_) => {
                u.insert("acq/rel");
                if open > 0 {
                    u.insert("two locks nested");
                }
                open += 1;
            }
            StmtKind::Rel(_) => open = open.saturating_sub(1),
            StmtKind::Sync { body, .. } => {
                u.insert("sync");
                if open > 0 {
                    u.insert("two locks nested");
                }
                stmts(body, open + 1, u);
            }
            StmtKind::If { cond, then_b, else_b } => {
                u.insert(if *cond == Cond::Star { "if *" } else { "data condition" });
                stmts(then_b, open, u);
                stmts(else_b, open, u);
            }
            StmtKind::While { body, .. } => {
                u.insert("while *");
                stmts(body, open, u);
            }
            StmtKind::Fork { target: ForkTarget::Block { body, .. }, .. } => {
                u.insert("fork");
                stmts(body, 0, u);
            }
            StmtKind::Join(_) => {
                u.insert("join");
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_validate_and_zero_means_stop() {
        let p = build(&[], ThreadKnobs::default());
        assert!(p.threads.iter().all(Vec::is_empty));
        for seed in 0..300u32 {
            let bytes: Vec<u8> = (0..40u32).map(|i| (seed.wrapping_mul(2_654_435_761).wrapping_add(i * 40_503) >> 11) as u8).collect();
            let p = swarm(&bytes, Relax::default());
            crate::lang::validate(&p).unwrap_or_else(|e| panic!("{e}\n{}", print(&p)));
        }
    }

    /// The histories generator writes chains of at least four forked readers joined before
    /// a write in a good share of its programs, all valid BFJ2 (counted: fails on a
    /// generator that stopped writing them).
    #[test]
    fn the_histories_generator_writes_reader_chains() {
        let (mut chains, n) = (0, 300u32);
        for seed in 0..n {
            let bytes: Vec<u8> = (0..48u32).map(|i| (seed.wrapping_mul(2_654_435_761).wrapping_add(i * 40_503) >> 11) as u8).collect();
            let p = swarm_histories(&bytes, Relax::default());
            crate::lang::validate(&p).unwrap_or_else(|e| panic!("{e}\n{}", print(&p)));
            let text = print(&p);
            chains += u32::from(text.matches("= fork {").count() >= 4 && text.matches("join(").count() >= 4);
        }
        assert!(chains * 4 >= n, "only {chains} of {n} programs hold a chain of four readers");
    }

    /// The classifier can fail: a hand-written program uses every production, an empty one
    /// none.
    #[test]
    fn the_classifier_sees_every_production() {
        let src = "dialect bfj2\nclass C { fields f, g, h }\ninit { o1 = new C; o2 = new C; o1.f = o2; o2.f = o1; m0 = new C; m1 = new C }
thread { r = o1.g; o1.g = 1; r = o1.f.g; o1.f.h = 2; o1.f = o2; n1 = new C; n1.f = o1; o1.f = n1; skip }
thread { acq(m0); sync(m1) { skip }; rel(m0); if * { skip } else { skip }; while * { skip }; r = o2.g; if r > 0 { skip } }
thread { skip }
thread { h1 = fork { skip }; join(h1) }\n";
        let p = parse(src).unwrap();
        crate::lang::validate(&p).unwrap();
        let mut used = uses(&p);
        used.extend(uses(&parse("dialect bfj2\nthread { }\nthread { }\nthread { }\n").unwrap()));
        let missing: Vec<&str> = GRAMMAR.productions.iter().map(|q| q.name).filter(|n| !used.contains(n)).collect();
        assert!(missing.is_empty(), "not seen: {missing:?}");
        assert!(uses(&parse("dialect bfj2\nthread { }\nthread { }\n").unwrap()).is_empty());
    }
}
