//! The free programs of the L-DRF generator (docs/spec/ldrf.md §1.1 the language, §6.4 what a
//! generator must enforce): every shared variable is guarded by one lock, confined to one
//! thread, or part of a Fig. 4 hand-off ([`Guard`]); threads are sequences of critical
//! sections over guarded variables, private work on the temp and confined variables, `if`
//! on private variables, a bounded counter loop and nested locks. Race free by construction
//! unless [`LdrfKnobs::racy`] makes a share of the accesses ignore their guard.

use std::collections::BTreeMap;

use super::write::{crit, ite, program, Gen};
use super::{LdrfKnobs, LOCKS, MAX_THREADS, SHARED, TEMPS};
use crate::gen::toolkit::{one, Bytes};
use crate::lang::Program;

/// How a shared variable is kept race free in a free program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Guard {
    /// Accessed only while holding this lock.
    Lock(&'static str),
    /// Mentioned only by this thread.
    Thread(usize),
    /// The hand-off pair (flag, data): used by the hand-off only.
    Handoff,
}

struct Free<'a, 'b> {
    g: Gen<'a, 'b>,
    guard: BTreeMap<&'static str, Guard>,
    /// Statements written so far.
    stmts: usize,
    /// A loop was written.
    looped: bool,
}

/// Where a free thread's builder is.
#[derive(Clone, Debug)]
struct At {
    t: usize,
    held: Vec<&'static str>,
    /// Nesting of `if`.
    depth: usize,
}

impl Free<'_, '_> {
    fn room(&self) -> usize {
        self.g.k.stmts.saturating_sub(self.stmts)
    }

    fn emit(&mut self, out: &mut Vec<String>, x: String) {
        self.stmts += 1;
        out.push(x);
    }

    fn temp(at: &At) -> &'static str {
        TEMPS[at.t]
    }

    /// Shared variables this thread may access here (guard held, or confined to it).
    fn readable(&self, at: &At) -> Vec<&'static str> {
        self.guard
            .iter()
            .filter(|(_, g)| match g {
                Guard::Lock(m) => at.held.contains(m),
                Guard::Thread(t) => *t == at.t,
                Guard::Handoff => false,
            })
            .map(|(v, _)| *v)
            .collect()
    }

    /// Variables the thread may read in a condition: its temp and its confined variables.
    fn private(&self, at: &At) -> Vec<&'static str> {
        let mut v = vec![Self::temp(at)];
        v.extend(self.guard.iter().filter(|(_, g)| **g == Guard::Thread(at.t)).map(|(v, _)| *v));
        v
    }

    /// Lock-guarded variables (the racy accesses' targets).
    fn guarded(&self) -> Vec<&'static str> {
        self.guard.iter().filter(|(_, g)| matches!(g, Guard::Lock(_))).map(|(v, _)| *v).collect()
    }

    fn choose(&mut self, v: &[&'static str]) -> Option<&'static str> {
        if v.is_empty() {
            None
        } else {
            Some(v[self.g.pick(v.len())])
        }
    }

    /// An expression over `vars` (and constants) written to `dst`.
    fn expr(&mut self, dst: &str, vars: &[&'static str]) -> String {
        let k = self.g.v();
        if self.g.k.arith && !vars.is_empty() && self.g.coin(30) {
            let a = self.choose(vars).unwrap_or("0");
            return match self.g.pick(4) {
                0 => format!("{a} * {k}"),
                1 => format!("{a} % {}", 2 + usize::from(self.g.coin(25))),
                2 => format!("-{a}"),
                _ => format!("-({a} + {k})"),
            };
        }
        match self.g.pick(20) {
            0..=3 => format!("{}", self.g.pick(4)),
            4..=7 => format!("{dst} {} {k}", if self.g.coin(70) { "+" } else { "-" }),
            8..=10 if !vars.is_empty() => self.choose(vars).unwrap_or("0").to_string(),
            11..=13 if !vars.is_empty() => {
                let a = self.choose(vars).unwrap_or("0");
                let b = self.choose(vars).unwrap_or("0");
                format!("{a} {} {b}", if self.g.coin(75) { "+" } else { "-" })
            }
            14 if !vars.is_empty() => {
                let a = self.choose(vars).unwrap_or("0");
                format!("{a} {} 2", if self.g.coin(50) { "*" } else { "%" })
            }
            // Up to 0..3 with more arithmetic: a remainder of a wide interval is not the
            // hull of its corners.
            15 | 16 if self.g.k.nondet => format!("nondet{{0..{}}}", 1 + self.g.pick(if self.g.k.arith { 3 } else { 2 })),
            _ => format!("{dst} + 1"),
        }
    }

    /// A condition over the thread's private variables.
    fn cond(&mut self, at: &At) -> String {
        let p = self.private(at);
        let a = self.choose(&p).unwrap_or("a");
        let k = self.g.pick(3);
        match self.g.pick(8) {
            0 | 1 => format!("{a} == {k}"),
            2 | 3 => format!("{a} < {}", k + 1),
            4 | 5 => format!("{a} != {k}"),
            6 => format!("{a} > 0 && {a} < 3"),
            _ => format!("!({a} == {k})"),
        }
    }

    /// An assert over `vars`.
    fn assert(&mut self, vars: &[&'static str]) -> String {
        let a = self.choose(vars).unwrap_or("a");
        let b = self.choose(vars).unwrap_or("a");
        let k = self.g.pick(4);
        match self.g.pick(8) {
            0 | 1 if a != b => format!("assert {a} == {b}"),
            2 => format!("assert {a} < 3"),
            3 => format!("assert {a} != {k}"),
            4 => format!("assert {a} == {k} || {b} != {k}"),
            5 => format!("assert {a} <= {b}"),
            _ => format!("assert {a} == {k}"),
        }
    }

    /// One operation inside a critical section of `m` (or on private state).
    fn op(&mut self, at: &At, out: &mut Vec<String>, racy: bool) {
        let shared = self.readable(at);
        let tmp = Self::temp(at);
        let mut vars = shared.clone();
        vars.push(tmp);
        match self.g.pick(10) {
            // A write to a guarded (or, racy, any lock-guarded) variable.
            0..=3 => {
                let targets = if racy { self.guarded() } else { shared.clone() };
                let Some(v) = self.choose(&targets) else { return self.private_op(at, out) };
                let e = self.expr(v, &vars);
                self.emit(out, format!("{v} = {e}"));
            }
            // A read into the temp.
            4 | 5 => {
                let targets = if racy { self.guarded() } else { shared.clone() };
                let Some(v) = self.choose(&targets) else { return self.private_op(at, out) };
                let e = if self.g.coin(75) { v.to_string() } else { format!("{v} + {tmp}") };
                self.emit(out, format!("{tmp} = {e}"));
            }
            6 | 7 => {
                let mut targets = if racy { self.guarded() } else { shared.clone() };
                if targets.is_empty() || self.g.coin(25) {
                    targets.push(tmp);
                }
                let a = self.assert(&targets);
                self.emit(out, a);
            }
            8 if self.g.k.branches && at.depth == 0 && self.room() >= 3 => self.branch(at, out),
            _ => self.private_op(at, out),
        }
    }

    /// Work on the temp and the confined variables.
    fn private_op(&mut self, at: &At, out: &mut Vec<String>) {
        let p = self.private(at);
        let tmp = Self::temp(at);
        let v = self.choose(&p).unwrap_or(tmp);
        let x = match self.g.pick(12) {
            0..=2 if self.g.k.nondet => format!("{v} = nondet{{0..{}}}", 1 + self.g.pick(3)),
            0..=4 => {
                let e = self.expr(v, &p);
                format!("{v} = {e}")
            }
            5 | 6 => self.assert(&p),
            7 => format!("assume {}", self.cond(at)),
            8 => "skip".into(),
            _ => format!("{v} = {v} + 1"),
        };
        self.emit(out, x);
    }

    /// `if c { .. } else { .. }` on private variables, or `if * { .. }`.
    fn branch(&mut self, at: &At, out: &mut Vec<String>) {
        let c = if self.g.coin(25) { "*".to_string() } else { self.cond(at) };
        self.stmts += 1;
        let inner = At { depth: at.depth + 1, ..at.clone() };
        let (mut a, mut b) = (vec![], vec![]);
        self.item(&inner, &mut a);
        if self.g.coin(60) && self.room() > 0 {
            self.item(&inner, &mut b);
        }
        out.push(ite(&c, &a, &b));
    }

    /// A critical section of a lock not held, with 1–3 operations.
    fn section(&mut self, at: &At, out: &mut Vec<String>) {
        let free: Vec<&'static str> = LOCKS[..self.g.k.locks].iter().copied().filter(|m| !at.held.contains(m)).collect();
        let Some(m) = self.choose(&free) else { return self.private_op(at, out) };
        // A racy section may take the wrong lock: `op` then sees the other lock's variables.
        self.stmts += 2;
        let mut inner = At { held: at.held.clone(), ..at.clone() };
        inner.held.push(m);
        let mut body = vec![];
        let n = 1 + self.g.pick(3);
        for i in 0..n {
            if i > 0 && self.room() == 0 {
                break;
            }
            if self.g.k.nested && inner.held.len() == 1 && self.g.k.locks == 2 && self.g.coin(30) && self.room() >= 3 {
                self.section(&inner, &mut body);
            } else {
                let racy = self.g.k.racy > 0 && self.g.coin(self.g.k.racy);
                self.op(&inner, &mut body, racy);
            }
        }
        out.extend(crit(m, &body));
    }

    /// `while a < k { a = a + 1; .. }`: a bounded counter loop on the temp.
    fn counter(&mut self, at: &At, out: &mut Vec<String>) {
        self.looped = true;
        let tmp = Self::temp(at);
        self.stmts += 2;
        let mut body = vec![format!("{tmp} = {tmp} + 1")];
        let inner = At { depth: at.depth + 1, ..at.clone() };
        if self.g.coin(70) {
            self.section(&inner, &mut body);
        } else {
            self.private_op(&inner, &mut body);
        }
        out.push(format!("while {tmp} < {} {{ {} }}", 1 + self.g.pick(2), body.join("; ")));
    }

    fn item(&mut self, at: &At, out: &mut Vec<String>) {
        let k = self.g.k;
        match self.g.src.next() % 10 {
            0..=4 if self.room() >= 3 => self.section(at, out),
            5 | 6 if k.branches && at.depth == 0 && self.room() >= 3 => self.branch(at, out),
            7 if k.counter && !self.looped && at.depth == 0 && self.room() >= 4 => self.counter(at, out),
            8 | 9 if k.racy > 0 && self.g.coin(k.racy + 20) => self.op(at, out, true),
            _ => self.private_op(at, out),
        }
    }
}

/// A free program (see the module documentation).
pub fn free(bytes: &[u8], k: LdrfKnobs) -> Program {
    let mut src = Bytes::new(bytes);
    let g = Gen { src: &mut src, k };
    let mut f = Free { g, guard: BTreeMap::new(), stmts: 0, looped: false };
    let n = k.threads.clamp(2, MAX_THREADS);
    let spin = k.spin;
    let shared = if spin { k.shared.max(3) } else { k.shared.clamp(2, 4) };
    let names = &SHARED[..shared];
    let mut threads: Vec<Vec<String>> = vec![vec![]; n];
    // The hand-off: flag and data are the last two names; thread `prod` sets them, thread
    // `cons` spins first.
    let mut lock_names: Vec<&'static str> = names.to_vec();
    if spin {
        let (data, flag) = (names[shared - 2], names[shared - 1]);
        lock_names.truncate(shared - 2);
        f.guard.insert(data, Guard::Handoff);
        f.guard.insert(flag, Guard::Handoff);
        let prod = f.g.pick(n);
        let cons = (prod + 1 + f.g.pick(n - 1)) % n;
        let m = LOCKS[f.g.pick(k.locks)];
        let v = if f.g.coin(70) { 1 } else { f.g.v() };
        let racy = k.racy > 0 && f.g.coin(40);
        let e = f.g.v();
        let mut sec = crit(m, &[format!("{data} = {e}"), format!("{flag} = {v}")]);
        if racy {
            // The data written after the release: a race with the consumer.
            sec = crit(m, &one(format!("{flag} = {v}")));
            sec.push(format!("{data} = {e}"));
        }
        f.stmts += sec.len();
        threads[prod] = sec;
        let tmp = TEMPS[cons];
        let mut after = vec![format!("{data} = {data} + 1")];
        if f.g.coin(60) {
            after.push(format!("{tmp} = {data}"));
            after.push(format!("assert {tmp} == {}", (e + 1) % 4));
        }
        f.stmts += 4 + after.len();
        threads[cons].push(format!("while {tmp} != {v} {{ acq({m}); {tmp} = {flag}; rel({m}) }}"));
        threads[cons].extend(after);
        f.looped = true;
    }
    // A confined variable: the last name left, when at least one other stays guarded.
    if k.confined && lock_names.len() >= 2 {
        let v = lock_names.pop().unwrap_or("w");
        let t = f.g.pick(n);
        f.guard.insert(v, Guard::Thread(t));
    }
    for (i, v) in lock_names.iter().enumerate() {
        f.guard.insert(v, Guard::Lock(LOCKS[(i + f.g.pick(2)) % k.locks]));
    }
    // Each thread gets a share of the statements; every thread does something.
    for (t, th) in threads.iter_mut().enumerate() {
        let at = At { t, held: vec![], depth: 0 };
        let budget = f.stmts + (k.stmts.saturating_sub(f.stmts)) / (n - t);
        let mut first = th.is_empty();
        while f.stmts < budget.min(k.stmts) || first {
            let b = f.g.src.next();
            if b == 0 && !first {
                break;
            }
            first = false;
            let mut out = vec![];
            if f.room() >= 3 {
                f.item(&at, &mut out);
            } else {
                f.private_op(&at, &mut out);
            }
            th.extend(out);
        }
    }
    let k2 = f.g.k;
    program(&threads, k2, f.g.src)
}
