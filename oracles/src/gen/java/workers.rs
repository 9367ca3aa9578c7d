//! The thread bodies of the SimpleJava and CapJava programs: the workers' `run()` and the
//! main thread's operations after its forks, written within a budget of visible operations
//! (accesses, acquires, releases, capsule enters and exits), because the oracles enumerate
//! every interleaving. The operations are the ingredients of docs/spec/escape_capsule.md §5.4
//! (publication of fresh objects, Figs. 4.1 and 4.2, M-E1…M-E5) and of §7 and §10 (calls into
//! a capsule under the lock `l`, or a deliberate violation).

use std::collections::BTreeSet;

use super::knobs::Setting;
use crate::gen::toolkit::{sync, Bytes};

/// One thread body being written: the main thread or a worker's `run()`.
pub(super) struct Ctx {
    /// The main thread (its shared objects are locals already).
    pub(super) main: bool,
    /// A capsule thread's `run()` (it may update its own field `n`).
    pub(super) capsule: bool,
    /// Visible operations left.
    pub(super) ops: usize,
    /// Shared objects this body refers to (`p`, `l`, `o`, `k`), fetched from `this` in a
    /// worker the first time.
    pub(super) fetched: BTreeSet<&'static str>,
    /// Inside `sync(l)` / `acq(l)`.
    pub(super) locked: bool,
}

/// The worker field that holds shared object `v` (a local of the same name in main).
pub(super) fn field_of(v: &str) -> &'static str {
    match v {
        "p" => "p",
        "l" => "l",
        "o" => "x",
        _ => "k",
    }
}

/// The writer of thread bodies: the byte source, the setting, and what the bodies use.
pub(super) struct Builder<'a, 'b> {
    pub(super) src: &'a mut Bytes<'b>,
    pub(super) s: Setting,
    pub(super) fresh: usize,
    /// Methods of `K` that some body calls.
    pub(super) k_methods: BTreeSet<&'static str>,
    /// Whether the plain methods of `Ref` are called.
    pub(super) ref_calls: BTreeSet<&'static str>,
}

impl Builder<'_, '_> {
    /// A fresh local named `base` and a number.
    fn name(&mut self, base: &str) -> String {
        self.fresh += 1;
        format!("{base}{}", self.fresh)
    }

    /// A small constant for a data write (1–3).
    pub(super) fn val(&mut self) -> usize {
        self.src.value()
    }

    /// What fetching `vars` costs `c` (one read of `this.f` each, in a worker).
    fn need_cost(c: &Ctx, vars: &[&'static str]) -> usize {
        if c.main {
            0
        } else {
            vars.iter().filter(|v| !c.fetched.contains(*v)).count()
        }
    }

    /// Takes `n` visible operations plus the fetches of `vars`, if they fit, and writes the
    /// fetches.
    fn take(c: &mut Ctx, vars: &[&'static str], n: usize, out: &mut Vec<String>) -> bool {
        let cost = n + Self::need_cost(c, vars);
        if cost > c.ops {
            return false;
        }
        c.ops -= cost;
        for v in vars {
            if c.fetched.insert(v) && !c.main {
                out.push(format!("{v} = this.{}", field_of(v)));
            }
        }
        true
    }

    /// Appends operations until the budget or the bytes run out.
    pub(super) fn body(&mut self, c: &mut Ctx, out: &mut Vec<String>) {
        while c.ops > 0 {
            let b = self.src.next();
            if b == 0 {
                return;
            }
            self.op(b, c, out);
        }
    }

    fn op(&mut self, b: u8, c: &mut Ctx, out: &mut Vec<String>) {
        let s = self.s;
        let plain = !s.cap || s.plain;
        if s.cap && (!plain || b % 16 < 8) {
            // Capsule operations.
            match b % 5 {
                0 if c.capsule && !c.locked && b.is_multiple_of(16) => {
                    if Self::take(c, &[], 2, out) {
                        out.push("n = this.n; this.n = n".into());
                    }
                }
                _ => self.cap_call(c, out),
            }
            return;
        }
        // In CapJava the SimpleJava operations do without the room reserved for `k` and `l`.
        let reserve = if s.cap && !c.capsule && !c.main { c.ops.min(3) } else { 0 };
        c.ops -= reserve;
        self.plain_op(b, c, out);
        c.ops += reserve;
    }

    fn plain_op(&mut self, b: u8, c: &mut Ctx, out: &mut Vec<String>) {
        let s = self.s;
        match b % 11 {
            0..=2 if !c.locked => self.publish(c, out),
            3..=5 => self.consume(c, out),
            6 | 7 if s.given => self.given(c, out),
            8 | 9 if s.locks && !c.locked => self.locked(b, c, out),
            10 if s.locks && !c.locked => self.publish(c, out),
            _ => self.consume(c, out),
        }
    }

    /// `r = new Ref; [init]; [link]; publish; [post]` (Figs. 4.1, 4.2, §5.3, M-E1, M-E3,
    /// M-E5).
    fn publish(&mut self, c: &mut Ctx, out: &mut Vec<String>) {
        if !Self::take(c, &["p"], 1, out) {
            return;
        }
        let s = self.s;
        let r = self.name("r");
        out.push(format!("{r} = new Ref"));
        let mut linked = None;
        // §5.3: the publication inside the fresh object's own `sync`, decided first.
        let how = self.src.next() % 6;
        let in_sync = how >= 3 && s.sync_fresh && !c.locked && c.ops >= 4;
        let init = if in_sync { 5 } else { self.src.next() % 6 };
        let mut synced = false;
        match init {
            2 | 3 if s.sync_fresh && !c.locked && c.ops >= 4 => {
                c.ops -= 4;
                synced = true;
                out.push(format!("sync({r}) {{ {r}.f = 11; {r}.f = 12 }}"));
            }
            0 | 1 if c.ops >= 1 => {
                c.ops -= 1;
                let v = self.val();
                // Through the setter whenever calls are on: one `set` line then writes both
                // fresh (not escaped) and shared objects, the case a per-site cache gets
                // wrong (M-E6), which needs the one site to see both.
                if s.calls {
                    self.ref_calls.insert("set");
                    out.push(format!("{r}.set({v})"));
                } else {
                    out.push(format!("{r}.f = {v}"));
                }
            }
            3 | 4 if c.ops >= 1 => {
                c.ops -= 1;
                let q = self.name("s");
                out.push(format!("{q} = new Ref; {r}.g = {q}"));
                linked = Some(q);
            }
            // A read of the fresh object before it escapes: the filters' elided read (§3.2
            // read, p ∉ G; §8 CE-READ1), which no other operation makes. Not before a
            // publication under `l`, whose budget it would take.
            5 if !in_sync && c.ops >= 1 && !(1..=2).contains(&how) => {
                c.ops -= 1;
                let y = self.name("y");
                out.push(format!("{y} = {r}.f"));
            }
            _ => {}
        }
        // The publication (its one visible write is already paid for).
        if (1..=2).contains(&how) && s.locks && !c.locked && Self::take(c, &["l"], 2, out) {
            out.push(format!("sync(l) {{ p.o = {r} }}"));
        } else if in_sync && !synced && c.ops >= 4 {
            c.ops -= 4;
            out.push(format!("sync({r}) {{ p.o = {r}; {r}.f = 11; {r}.f = 12 }}"));
        } else {
            out.push(format!("p.o = {r}"));
        }
        if c.ops >= 1 {
            match (self.src.next() % 3, linked) {
                (0, Some(q)) => {
                    c.ops -= 1;
                    let v = self.val();
                    out.push(format!("{q}.f = {v}"));
                }
                (1, _) => {
                    c.ops -= 1;
                    let v = self.val();
                    out.push(format!("{r}.f = {v}"));
                }
                // A self-link after publication: an escaped object written into an escaped
                // object, where reach stops at once (§3.4 Closed; CE-WRITE2 leaking nothing).
                (2, _) => {
                    c.ops -= 1;
                    out.push(format!("{r}.g = {r}"));
                }
                // A read after publication: kept now, whatever an earlier read of the fresh
                // object decided (§3.2 read decides per event).
                (0, None) => {
                    c.ops -= 1;
                    let y = self.name("y");
                    out.push(format!("{y} = {r}.f"));
                }
                _ => {}
            }
        }
    }

    /// `x = p.o; if x != null { .. }` (Fig. 4.2's and Fig. 4.1's readers, M-E1's).
    fn consume(&mut self, c: &mut Ctx, out: &mut Vec<String>) {
        let s = self.s;
        let x = self.name("x");
        let how = self.src.next();
        if how % 4 == 3 && s.locks && !c.locked && Self::take(c, &["p", "l"], 3, out) {
            out.push(format!("sync(l) {{ {x} = p.o }}"));
        } else if Self::take(c, &["p"], 1, out) {
            out.push(format!("{x} = p.o"));
        } else {
            return;
        }
        let y = self.name("y");
        let v = self.val();
        let then = match self.src.next() % 7 {
            0 | 1 if c.ops >= 1 => {
                c.ops -= 1;
                format!("{x}.f = {v}")
            }
            2 | 6 if c.ops >= 3 && s.sync_fresh && !c.locked => {
                c.ops -= 3;
                format!("sync({x}) {{ {y} = {x}.f }}; assert {y} != 11")
            }
            3 if c.ops >= 2 => {
                c.ops -= 2;
                format!("{y} = {x}.g; if {y} != null {{ {y}.f = {v} }}")
            }
            4 if c.ops >= 1 && s.calls => {
                c.ops -= 1;
                if v != 3 {
                    self.ref_calls.insert("get");
                    format!("{y} = {x}.get()")
                } else {
                    self.ref_calls.insert("set");
                    format!("{x}.set({v})")
                }
            }
            5 if c.ops >= 1 => {
                c.ops -= 1;
                format!("{y} = {x}.f")
            }
            _ => return,
        };
        out.push(format!("if {x} != null {{ {then} }}"));
    }

    /// An access to the object `o` the main thread gave the workers (M-E2).
    fn given(&mut self, c: &mut Ctx, out: &mut Vec<String>) {
        if !Self::take(c, &["o"], 1, out) {
            return;
        }
        let v = self.val();
        let y = self.name("y");
        out.push(match self.src.next() % 4 {
            0 | 3 if self.s.calls => {
                self.ref_calls.insert("set");
                format!("o.set({v})")
            }
            1 => format!("{y} = o.f"),
            _ => format!("o.f = {v}"),
        });
    }

    /// One operation under the lock `l`: `sync(l) { .. }` or `acq(l); ..; rel(l)`.
    fn locked(&mut self, b: u8, c: &mut Ctx, out: &mut Vec<String>) {
        if !Self::take(c, &["l"], 2, out) {
            return;
        }
        c.locked = true;
        let mut inner = vec![];
        if self.s.given && b.is_multiple_of(2) {
            self.given(c, &mut inner);
        } else {
            self.consume(c, &mut inner);
        }
        c.locked = false;
        if inner.is_empty() {
            c.ops += 2;
            return;
        }
        if (b / 11).is_multiple_of(3) {
            out.push(format!("acq(l); {}; rel(l)", inner.join("; ")));
        } else {
            out.push(sync("l", &inner));
        }
    }

    /// A call into the shared capsule `k`, under `sync(l)` unless the program is leaky.
    fn cap_call(&mut self, c: &mut Ctx, out: &mut Vec<String>) {
        let leaky = self.s.violation == 1;
        let lock = !leaky && !c.locked;
        let (method, inner) = match self.src.next() % 10 {
            0 => ("inc", 2),
            1 | 2 => ("touch", 2),
            6 => ("put", 1),
            7 => ("setv", 1),
            _ => ("getO", 1),
        };
        let extra = match method {
            "getO" => 1,
            "put" => 2,
            _ => 0,
        };
        // The enter, the exit, the accesses inside, and the lock's acquire and release.
        let cost = 2 + inner + if lock { 2 } else { 0 };
        let vars: &[&'static str] = if lock { &["k", "l"] } else { &["k"] };
        // The follow-up accesses are optional: drop them if the budget is short.
        let with_extra = Self::need_cost(c, vars) + cost + extra <= c.ops || method != "put" || c.ops >= 8;
        if !Self::take(c, vars, cost, out) {
            return;
        }
        if with_extra {
            c.ops = c.ops.saturating_sub(extra);
        }
        self.k_methods.insert(method);
        let v = self.val();
        let (before, call, after) = match method {
            "getO" => {
                let y = self.name("y");
                (None, format!("{y} = k.getO()"), with_extra.then(|| format!("if {y} != null {{ {y}.g = {v} }}")))
            }
            "put" => {
                let r = self.name("r");
                let w = self.val();
                (
                    Some(format!("{r} = new Ref{}", if with_extra { format!("; {r}.g = {v}") } else { String::new() })),
                    format!("k.put({r})"),
                    with_extra.then(|| format!("{r}.g = {w}")),
                )
            }
            "setv" => (None, format!("k.setv({v})"), None),
            m => (None, format!("k.{m}()"), None),
        };
        out.extend(before);
        out.push(if lock { format!("sync(l) {{ {call} }}") } else { call });
        out.extend(after);
    }
}
