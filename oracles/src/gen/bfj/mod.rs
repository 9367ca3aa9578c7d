//! The BFJ generator of `bigfoot-precise` (issue 10 item 6; spec/bigfoot.md §10.2
//! "BFJ-mini"): small programs in A-normal form that exercise every rule of BigFoot's check
//! placement (§4.5) and every rule-coverage counter the spec lists: field and array reads
//! and writes, critical sections (`acq`/`rel` and `sync`, on two locks), `if *` and
//! conditions on loaded values, do-while loops with an induction variable over the array
//! (`i = 0; loop { …a[i]…; i = i + k; if i >= n break }`, k ∈ {1, 2}, §9.3 Ex. 2 and 8) and
//! `while` loops, reassigned index variables (renaming, §4.6), and calls to methods that do
//! not synchronize, that acquire and release, or that only acquire or only release (the
//! kill-set classes of \[CALL\], §9.3 Ex. 5 and 6).
//!
//! Built deterministically from bytes like [`super::threads`] ([`swarm_bfj`] for the
//! registry, hence for cargo fuzz's `arbitrary` bytes and quickcheck's; [`bfj_program`] with
//! fixed knobs for proptest): swarm knobs from a header, then the program; a byte 0 or the end of the input means "stop adding". Every program
//! validates as BFJ and never faults: fields and array elements hold integers from `init`
//! on, indices stay in `0..4`, loops terminate by construction, a lock is never taken twice,
//! and an acquire-only callee is always followed by its release-only partner in the same
//! thread. Sizes keep the exhaustive enumeration of the *placed* program small (at most
//! five visible operations per thread, counting loop iterations), since the oracle
//! checks every interleaving.

use std::collections::BTreeSet;

use super::grammar::{prod, Grammar};
use super::{split_header, Bytes};
use crate::lang::*;

/// Knobs of the BFJ generator.
#[derive(Clone, Copy, Debug)]
pub struct BfjKnobs {
    /// Threads (2 or 3).
    pub threads: usize,
    /// Visible operations (accesses, acquires, releases) per thread, about.
    pub ops: usize,
    /// The first thread's budget when it is larger than `ops` (0: the same): one long
    /// thread beside short ones keeps the interleavings few while the long one has room for
    /// a loop that synchronizes in every iteration.
    pub lead: usize,
    /// Locks (0–2).
    pub locks: usize,
    /// Whether the array and loops over it appear.
    pub arrays: bool,
    /// Whether calls appear.
    pub calls: bool,
    /// Whether `if` appears.
    pub control: bool,
    /// Fields used (1–2: `f`, then `g`) and objects (1–2: `o1`, then `o2`).
    pub fields: usize,
    /// See `fields`.
    pub objects: usize,
}

impl Default for BfjKnobs {
    fn default() -> BfjKnobs {
        BfjKnobs { threads: 2, ops: 5, lead: 0, locks: 1, arrays: true, calls: true, control: true, fields: 2, objects: 1 }
    }
}

/// Bytes [`swarm_bfj`] reads for its knobs before the program.
pub const SWARM_HEADER: usize = 4;

impl BfjKnobs {
    /// Swarm knobs: 3 threads in a sixth of the programs (1–3 operations each), else 2–5
    /// operations per thread, or in a quarter of the two-thread programs one thread of 7–8
    /// operations beside one of 1–2 (room for a loop around a critical section to iterate
    /// twice, spec §4.5 [LOOP] with a kill in the body); locks in 80%, arrays in 70%, calls
    /// in 50%, `if` in 60%, one field or object in half of the programs each.
    pub fn swarm(h: [u8; SWARM_HEADER]) -> BfjKnobs {
        let chance = |b: u8, pct: u32| u32::from(b) * 100 < pct * 256;
        let threads = if h[0].is_multiple_of(6) { 3 } else { 2 };
        let lead = threads == 2 && h[1].rotate_left(2) & 3 == 0;
        BfjKnobs {
            threads,
            ops: match (threads, lead) {
                (3, _) => 1 + usize::from(h[1]) % 3,
                (_, true) => 1 + usize::from(h[1]) % 2,
                _ => 2 + usize::from(h[1]) % 4,
            },
            lead: if lead { 7 + usize::from(h[3] >> 7) } else { 0 },
            locks: if chance(h[2], 80) { 1 + usize::from(h[2] % 2) } else { 0 },
            arrays: chance(h[3], 70),
            calls: chance(h[3].rotate_left(3), 50),
            control: chance(h[1].rotate_left(4), 60),
            fields: 1 + usize::from(h[0].rotate_left(2) & 1),
            objects: 1 + usize::from(h[2].rotate_left(5) & 1),
        }
    }
}

const OBJECTS: [&str; 2] = ["o1", "o2"];
const FIELDS: [&str; 2] = ["f", "g"];

/// The methods of class `C`, declared when calls are on (a declared method's checks count
/// in the whole-program proxy analysis of spec §5.2 even if it is never called, so
/// programs without calls declare none and can form proxy groups).
const METHODS: &str = "  method put(x) { this.f = x }
  method early(x) { this.f = x; if x > 1 { return 0 }; this.g = x }
  method bump(l) { acq(l); t = this.g; u = t + 1; this.g = u; rel(l) }
  method store(q, j) { q[j] = 1 }
  method acquireIt(l) { acq(l) }
  method releaseIt(l) { rel(l) }
";

struct Builder<'a, 'b> {
    src: &'a mut Bytes<'b>,
    k: BfjKnobs,
    /// Visible operations left for the thread being written.
    ops: usize,
    /// Fresh-name counter.
    fresh: usize,
    /// Locks held, innermost last.
    held: Vec<usize>,
}

impl Builder<'_, '_> {
    fn name(&mut self, base: &str) -> String {
        self.fresh += 1;
        format!("{base}{}", self.fresh)
    }

    fn lock(&mut self) -> Option<usize> {
        let free: Vec<usize> = (0..self.k.locks).filter(|l| !self.held.contains(l)).collect();
        (!free.is_empty()).then(|| free[self.src.below(free.len())])
    }

    /// Appends statements costing at most `self.ops` visible operations, times `times`
    /// (the iterations of the enclosing loop).
    fn block(&mut self, depth: usize, times: usize, out: &mut Vec<String>) {
        while self.ops >= times {
            let b = self.src.next();
            if b == 0 {
                return;
            }
            let o = OBJECTS[self.src.below(self.k.objects)];
            let f = FIELDS[self.src.below(self.k.fields)];
            let v = self.src.below(4);
            let cost = |n: usize| n * times;
            match b % 13 {
                0 | 1 => {
                    let r = self.name("r");
                    out.push(format!("{r} = {o}.{f}"));
                    self.ops -= cost(1);
                    // A condition on the loaded value (spec §10.2: data-dependent control).
                    if self.k.control && depth < 2 && b % 2 == 1 {
                        let (mut a, mut e) = (vec![], vec![]);
                        self.block(depth + 1, times, &mut a);
                        self.block(depth + 1, times, &mut e);
                        out.push(format!("if {r} > 0 {{ {} }} else {{ {} }}", a.join("; "), e.join("; ")));
                    }
                }
                2 | 3 => {
                    out.push(format!("{o}.{f} = {v}"));
                    self.ops -= cost(1);
                }
                4 if self.k.arrays => {
                    // A constant index through a variable, sometimes reassigned (§4.6).
                    out.push(format!("j = {v}; a[j] = {}", self.src.below(4)));
                    self.ops -= cost(1);
                }
                5 if self.k.arrays => {
                    let r = self.name("r");
                    out.push(format!("j = {v}; {r} = a[j]"));
                    self.ops -= cost(1);
                }
                6 | 7 if self.k.arrays && depth < 2 && times == 1 && self.ops >= 2 => self.array_loop(depth, b, out),
                8 | 9 if self.k.locks > 0 && depth < 2 => {
                    let Some(l) = self.lock() else { continue };
                    if self.ops < cost(2) {
                        return;
                    }
                    // Sometimes two sections in a row on one lock: accesses on both sides
                    // of a release-acquire pair (spec §9.2 row 7).
                    let sections = if (b / 13).is_multiple_of(3) && self.ops >= cost(5) { 2 } else { 1 };
                    for _ in 0..sections {
                        self.ops = self.ops.saturating_sub(cost(if sections == 2 { 3 } else { 2 }));
                        self.held.push(l);
                        // Both sections of a pair touch one location first.
                        let mut body = if sections == 2 { vec![format!("{o}.{f} = {v}")] } else { vec![] };
                        self.block(depth + 1, times, &mut body);
                        self.held.pop();
                        if b.is_multiple_of(2) {
                            out.push(format!("acq(m{l}); {}rel(m{l})", body.iter().map(|s| format!("{s}; ")).collect::<String>()));
                        } else {
                            out.push(format!("sync(m{l}) {{ {} }}", body.join("; ")));
                        }
                    }
                }
                10 if self.k.control && depth < 2 => {
                    let (mut a, mut e) = (vec![], vec![]);
                    self.block(depth + 1, times, &mut a);
                    self.block(depth + 1, times, &mut e);
                    out.push(format!("if * {{ {} }} else {{ {} }}", a.join("; "), e.join("; ")));
                }
                11 | 12 if self.k.calls => self.call(b, o, v, times, out),
                _ => out.push("skip".into()),
            }
        }
    }

    /// `i = 0; loop { BODY; i = i + k; if i >= n break }` or its `while` form, with an
    /// access to `a[i]` first in the body (the induction range of spec §4.7); with a lock
    /// free and room for two iterations, that access is a critical section, so the loop's back edge meets a release and an acquire (the invariant must
    /// be weakened: a kill inside the loop, spec §4.5 [LOOP]).
    fn array_loop(&mut self, depth: usize, b: u8, out: &mut Vec<String>) {
        let step = 1 + usize::from(self.src.next() % 2);
        let lock = if self.ops >= 6 { self.lock() } else { None };
        // Visible operations of the access per iteration (acq, access, rel when locked).
        let cost = if lock.is_some() { 3 } else { 1 };
        let max_iters = (self.ops / (cost + 1)).clamp(1, 4);
        let iters = if lock.is_some() { 2 + self.src.below(max_iters.saturating_sub(1)) } else { 1 + self.src.below(max_iters) };
        let n = (iters * step).min(4);
        let iters = n.div_ceil(step);
        let i = self.name("i");
        let r = self.name("r");
        let access = if self.src.next().is_multiple_of(2) { format!("a[{i}] = {}", self.src.below(4)) } else { format!("{r} = a[{i}]") };
        let access = match lock {
            Some(l) if b.is_multiple_of(3) => format!("sync(m{l}) {{ {access} }}"),
            Some(l) => format!("acq(m{l}); {access}; rel(m{l})"),
            None => access,
        };
        self.ops = self.ops.saturating_sub(iters * cost);
        let mut body = vec![access];
        self.block(depth + 1, iters, &mut body);
        if b.is_multiple_of(2) {
            out.push(format!("{i} = 0; loop {{ {}; {i} = {i} + {step}; if {i} >= {n} break }}", body.join("; ")));
        } else {
            out.push(format!("{i} = 0; while {i} < {n} {{ {}; {i} = {i} + {step} }}", body.join("; ")));
        }
    }

    fn call(&mut self, b: u8, o: &str, v: usize, times: usize, out: &mut Vec<String>) {
        let r = self.name("r");
        match (b / 13) % 4 {
            0 if v.is_multiple_of(2) => {
                out.push(format!("c = {v}; {r} = {o}.put(c)"));
                self.ops = self.ops.saturating_sub(times);
            }
            0 => {
                // A callee with an early return: its checks must precede each return.
                out.push(format!("c = {v}; {r} = {o}.early(c)"));
                self.ops = self.ops.saturating_sub(2 * times);
            }
            1 if self.k.arrays => {
                out.push(format!("j = {v}; {r} = {o}.store(a, j)"));
                self.ops = self.ops.saturating_sub(times);
            }
            n => {
                let Some(l) = self.lock() else { return };
                if n == 2 && self.ops >= 3 * times {
                    // Acquire-only and release-only callees, balanced within the thread.
                    let mid = if self.src.next().is_multiple_of(2) { format!("{o}.f = {v}") } else { format!("r = {o}.f") };
                    out.push(format!("{r} = {o}.acquireIt(m{l}); {mid}; {r} = {o}.releaseIt(m{l})"));
                    self.ops -= 3 * times;
                } else if self.ops >= 4 * times {
                    out.push(format!("{r} = {o}.bump(m{l})"));
                    self.ops -= 4 * times;
                }
            }
        }
    }
}

/// Builds a BFJ program from `bytes` with knobs `k` (deterministic).
pub fn build(bytes: &[u8], k: BfjKnobs) -> Program {
    let mut src = Bytes::new(bytes);
    let mut b = Builder { src: &mut src, k, ops: 0, fresh: 0, held: vec![] };
    let mut threads = vec![];
    for t in 0..k.threads.clamp(2, 3) {
        let mut body = vec![];
        b.ops = if t == 0 { k.ops.max(k.lead) } else { k.ops };
        // A long thread opens with its loop in half of the programs: while the budget is
        // whole, the loop can hold a critical section for two iterations.
        if t == 0 && k.lead > 0 && k.arrays {
            let first = b.src.next();
            if first.is_multiple_of(2) {
                b.array_loop(0, first / 2, &mut body);
            }
        }
        b.block(0, 1, &mut body);
        threads.push(body);
    }
    let locks: String = (0..k.locks).map(|l| format!("; m{l} = new C")).collect();
    let methods = if k.calls { METHODS } else { "" };
    let mut text = format!(
        "dialect bfj\nclass C {{\n  fields f, g\n{methods}}}\ninit {{ o1 = new C; o2 = new C; o1.f = 0; o1.g = 0; o2.f = 0; o2.g = 0; a = new_array 4; a[0] = 0; a[1] = 0; a[2] = 0; a[3] = 0{locks} }}\n"
    );
    for body in threads {
        text.push_str(&format!("thread {{ {} }}\n", body.join("; ")));
    }
    // The builder writes only forms it knows to be valid; a failure is its bug.
    parse(&text).unwrap_or_else(|e| panic!("racefuzz internal bug: the bfj generator wrote an unparsable program ({e}):\n{text}"))
}

/// The proptest form: programs with knobs `k` from proptest's byte vectors (shrinkable).
pub fn bfj_program(k: BfjKnobs) -> impl proptest::strategy::Strategy<Value = Program> {
    use proptest::prelude::*;
    proptest::collection::vec(any::<u8>(), 0..64).prop_map(move |b| build(&b, k))
}

/// The registry's generator for `bigfoot-precise`: knobs from the first [`SWARM_HEADER`]
/// bytes, then [`build`] from the rest.
pub fn swarm_bfj(bytes: &[u8], _relax: Relax) -> Program {
    let (h, rest) = split_header::<SWARM_HEADER>(bytes);
    build(rest, BfjKnobs::swarm(h))
}

/// The productions of the BFJ programs, one per rule of spec §4.5 they exercise.
pub const GRAMMAR_BFJ: Grammar = Grammar {
    productions: &[
        prod("field read", "r = o.f"),
        prod("field write", "o.f = k"),
        prod("array read", "r = a[j]"),
        prod("array write", "a[j] = k"),
        prod("reassigned index", "j = k; …a[j]…; j = k'"),
        prod("acq/rel", "acq(m); C; rel(m)"),
        prod("sync", "sync(m) { C }"),
        prod("if *", "if * { C1 } else { C2 }"),
        prod("data condition", "if r > 0 { C1 } else { C2 }"),
        prod("do-while loop", "i = 0; loop { a[i]…; i = i + k; if i >= n break }"),
        prod("stride 2", "i = i + 2"),
        prod("while loop", "i = 0; while i < n { a[i]…; i = i + k }"),
        prod("loop around a critical section", "i = 0; loop { acq(m); a[i]…; rel(m); … } run twice or more"),
        prod("call, no sync", "r = o.put(c) / r = o.store(a, j)"),
        prod("call, early return", "r = o.early(c), which may return before its end"),
        prod("call, acquires and releases", "r = o.bump(m)"),
        prod("call, acquire-only then release-only", "r = o.acquireIt(m); …; r = o.releaseIt(m)"),
        prod("three threads", "thread { … } × 3"),
    ],
    uses,
};

fn uses(p: &Program) -> BTreeSet<&'static str> {
    let mut u = BTreeSet::new();
    if p.threads.len() == 3 {
        u.insert("three threads");
    }
    for t in &p.threads {
        let mut index_sets: Vec<&str> = vec![];
        walk_block(t, &mut |s| {
            let name = match &s.kind {
                StmtKind::Load { src: Place::Field { .. }, .. } => "field read",
                StmtKind::Store { dst: Place::Field { .. }, .. } => "field write",
                StmtKind::Load { src: Place::Index { .. }, .. } => "array read",
                StmtKind::Store { dst: Place::Index { .. }, .. } => "array write",
                StmtKind::Acq(_) => "acq/rel",
                StmtKind::Sync { .. } => "sync",
                StmtKind::If { cond: Cond::Star, .. } => "if *",
                StmtKind::If { then_b, .. } if !matches!(then_b.as_slice(), [Stmt { kind: StmtKind::Break, .. }]) => "data condition",
                StmtKind::Loop { body, .. } | StmtKind::While { body, .. } if matches!(body.first().map(|s| &s.kind), Some(StmtKind::Acq(_) | StmtKind::Sync { .. })) => {
                    u.insert(if matches!(s.kind, StmtKind::Loop { .. }) { "do-while loop" } else { "while loop" });
                    "loop around a critical section"
                }
                StmtKind::Loop { .. } => "do-while loop",
                StmtKind::While { .. } => "while loop",
                StmtKind::Assign { dst, src: Expr::Binary(BinOp::Add, _, k) } if **k == Expr::Int(2) && dst.starts_with('i') => "stride 2",
                StmtKind::Assign { dst, src: Expr::Int(_) } if dst == "j" => {
                    index_sets.push("j");
                    if index_sets.len() > 1 {
                        "reassigned index"
                    } else {
                        ""
                    }
                }
                StmtKind::Call { method, .. } => match method.as_str() {
                    "put" | "store" => "call, no sync",
                    "early" => "call, early return",
                    "bump" => "call, acquires and releases",
                    "acquireIt" => "call, acquire-only then release-only",
                    _ => "",
                },
                _ => "",
            };
            if !name.is_empty() {
                u.insert(name);
            }
        });
    }
    u
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{Config, Explorer, Naive, Outcome};
    use crate::machine::Machine;

    fn bytes(seed: u32, len: u32) -> Vec<u8> {
        (0..len).map(|i| (seed.wrapping_mul(2_654_435_761).wrapping_add(i.wrapping_mul(40_503)) >> 11) as u8).collect()
    }

    /// Every program validates, and no execution of a sample faults or gets stuck: each one
    /// terminates (or deadlocks on lock order).
    #[test]
    fn programs_validate_and_never_fault() {
        let mut checked = 0;
        for seed in 0..400u32 {
            let p = swarm_bfj(&bytes(seed, 48), Relax::default());
            validate(&p).unwrap_or_else(|e| panic!("{e}\n{}", print(&p)));
            if seed % 4 != 0 {
                continue;
            }
            let cfg = Config { max_executions: 5_000, ..Config::default() };
            let m = Machine::new(&p, cfg.loop_bound);
            Naive.explore(&m, m.initial_state().unwrap(), &cfg, &mut |ex| {
                assert!(matches!(ex.outcome, Outcome::Terminated | Outcome::Deadlock { .. }), "{:?}\n{}", ex.outcome, print(&p));
                checked += 1;
                std::ops::ControlFlow::Continue(())
            });
        }
        assert!(checked > 1000, "only {checked} executions checked");
        for seed in 0..400u32 {
            let p = swarm_bfj(&bytes(seed, 48), Relax::default());
            assert_eq!(parse(&print(&p)).unwrap().without_lines(), p.without_lines(), "round trip:\n{}", print(&p));
        }
        assert!(build(&[], BfjKnobs::default()).threads.iter().all(Vec::is_empty));
    }

    /// The classifier can fail: a hand-written program uses every production, an empty one
    /// none.
    #[test]
    fn the_classifier_sees_every_production() {
        let src = format!(
            "dialect bfj\nclass C {{\n  fields f, g\n{METHODS}}}\ninit {{ o1 = new C; a = new_array 4; m0 = new C }}
thread {{ r = o1.f; o1.f = 1; j = 1; a[j] = 1; j = 2; r2 = a[j]; acq(m0); rel(m0); sync(m0) {{ skip }}; if * {{ skip }} else {{ skip }}; if r > 0 {{ skip }} else {{ skip }} }}
thread {{ i = 0; loop {{ a[i] = 1; i = i + 2; if i >= 4 break }}; k = 0; while k < 2 {{ acq(m0); k = k + 1; rel(m0) }}; c = 1; r = o1.put(c); r = o1.early(c); r = o1.bump(m0); r = o1.acquireIt(m0); r = o1.releaseIt(m0) }}
thread {{ skip }}\n"
        );
        let p = parse(&src).unwrap();
        validate(&p).unwrap();
        let used = uses(&p);
        let missing: Vec<&str> = GRAMMAR_BFJ.productions.iter().map(|q| q.name).filter(|n| !used.contains(n)).collect();
        assert!(missing.is_empty(), "not seen: {missing:?}");
        assert!(uses(&parse("dialect bfj\nthread { }\nthread { }\n").unwrap()).is_empty());
    }
}
