//! The free programs of the Naik-Aiken generator: a swarm composition of the ingredients of
//! docs/spec/naik_aiken.md §4.1 (allocation, links, links to the previous iteration's variable,
//! containers, loads, data writes and reads at depths 0–2, `if *`, nested loops, `sync`,
//! anonymous and thread-object forks) over a small variable pool, within the sizes of §4.4.
//!
//! The builder tracks what it knows at each point ([`St`]: which variables and fields
//! surely hold an object, which containers are surely not empty, which variables a loop or a
//! held lock needs unchanged), so that dereferences, `sync` and picks are rarely stuck and a
//! `sync` variable is never assigned in its body (A5). Its statements are written by
//! [`simple`] (one statement or a short run of them) and [`compound`] (loops, branches,
//! forks and `sync`, which recurse into blocks).

mod compound;
mod simple;

use std::collections::BTreeSet;

use super::write::{program, Gen};
use super::NaikAikenKnobs;
use crate::gen::toolkit::Bytes;
use crate::lang::Program;

/// What the free builder knows at a program point.
#[derive(Clone, Debug, Default)]
struct St {
    /// Variables surely holding an object.
    live: BTreeSet<String>,
    /// Fields surely holding an object: (variable, field).
    linked: BTreeSet<(String, &'static str)>,
    /// Containers surely not empty.
    full: BTreeSet<String>,
    /// Containers.
    containers: BTreeSet<String>,
    /// Variables that may not be assigned here: a variable live at a loop's entry, which the
    /// next iteration relies on.
    frozen: BTreeSet<String>,
    /// `sync` variables held here (not assigned in the body, nor in a fork inside it).
    held: BTreeSet<String>,
    /// Variables a loop carries to its next iteration (`p` of `t.next = p; p = t`): they may
    /// be assigned live objects only.
    carried: BTreeSet<String>,
    /// Objects allocated in this thread and not yet shared with a fork.
    unshared: BTreeSet<String>,
    /// Inside `fork(x)`: `self` is readable.
    has_self: bool,
    /// Threads each execution of this point stands for (2 per enclosing loop).
    mult: usize,
    /// Enclosing loops (in this thread and its parents).
    loops: usize,
    /// Inside a forked thread.
    child: bool,
    /// The main thread has forked.
    forked: bool,
}

impl St {
    fn kill(&mut self, x: &str) {
        self.live.remove(x);
        self.linked.retain(|(v, _)| v != x);
        self.full.remove(x);
        self.containers.remove(x);
        self.unshared.remove(x);
    }

    /// The facts both `self` and `o` have (a join of two paths).
    fn meet(&mut self, o: &St) {
        self.live.retain(|x| o.live.contains(x));
        self.linked.retain(|x| o.linked.contains(x));
        self.full.retain(|x| o.full.contains(x));
        self.containers.retain(|x| o.containers.contains(x));
        self.unshared.retain(|x| o.unshared.contains(x));
    }

    fn may_assign(&self, x: &str) -> bool {
        !self.frozen.contains(x) && !self.carried.contains(x) && !self.held.contains(x)
    }
}

/// The variables free programs assign.
const POOL: [&str; 8] = ["t", "u", "x", "y", "z", "p", "q", "v"];
/// The pointer fields.
const PTR: [&str; 2] = ["f", "next"];

/// The free builder: the writer, and the sizes written so far.
struct Free<'a, 'b> {
    g: Gen<'a, 'b>,
    /// Statements written so far.
    stmts: usize,
    /// Threads at run time so far (main included).
    threads: usize,
}

impl Free<'_, '_> {
    pub(super) fn room(&self) -> usize {
        self.g.k.stmts.saturating_sub(self.stmts)
    }

    pub(super) fn emit(&mut self, out: &mut Vec<String>, x: String) {
        self.stmts += 1;
        out.push(x);
    }

    /// A variable of `set` chosen by a byte.
    pub(super) fn choose<'s>(&mut self, set: impl IntoIterator<Item = &'s String>) -> Option<String> {
        let v: Vec<&String> = set.into_iter().collect();
        if v.is_empty() {
            return None;
        }
        Some(v[self.g.pick(v.len())].clone())
    }

    /// A variable to assign: one not live if possible, else any assignable one.
    pub(super) fn target(&mut self, st: &St) -> Option<String> {
        let dead: Vec<&str> = POOL.iter().copied().filter(|x| !st.live.contains(*x) && st.may_assign(x) && !st.containers.contains(*x)).collect();
        if !dead.is_empty() {
            return Some(dead[self.g.pick(dead.len())].to_string());
        }
        let any: Vec<&str> = POOL.iter().copied().filter(|x| st.may_assign(x) && !st.containers.contains(*x)).collect();
        if any.is_empty() {
            None
        } else {
            Some(any[self.g.pick(any.len())].to_string())
        }
    }

    /// Live objects usable as path roots here (`self` inside `fork(x)`).
    pub(super) fn roots(&self, st: &St) -> Vec<String> {
        let mut r: Vec<String> = st.live.iter().filter(|x| !st.containers.contains(*x)).cloned().collect();
        if st.has_self {
            r.push("self".into());
        }
        r
    }

    /// A path from a live root ending in `g`: `x.g`, `x.f.g` (when `x.f` is surely linked) or
    /// `x.f.next.g` rarely.
    pub(super) fn path(&mut self, st: &St, root: &str) -> String {
        let links: Vec<&'static str> = PTR.iter().copied().filter(|f| st.linked.contains(&(root.to_string(), *f))).collect();
        if !links.is_empty() && self.g.coin(65) {
            let f = links[self.g.pick(links.len())];
            return format!("{root}.{f}.g");
        }
        format!("{root}.g")
    }

    /// An access to `g` at the end of a path: a write or a read.
    pub(super) fn access(&mut self, st: &St, root: &str) -> String {
        let p = self.path(st, root);
        if self.g.coin(70) {
            format!("{p} = {}", self.g.v())
        } else {
            format!("read {p}")
        }
    }

    pub(super) fn block(&mut self, st: &mut St, out: &mut Vec<String>, max: usize) {
        let mut n = 0;
        while n < max && self.room() > 0 {
            let b = self.g.src.next();
            if b == 0 {
                break;
            }
            self.item(b, st, out);
            n += 1;
        }
    }

    pub(super) fn item(&mut self, b: u8, st: &mut St, out: &mut Vec<String>) {
        let k = self.g.k;
        match b % 20 {
            0..=2 => self.alloc_link(st, out),
            3 | 4 if k.loops && self.room() >= 3 => self.lp(st, out),
            5 if self.room() >= 3 => self.branch(st, out),
            6 | 7 if self.room() >= 2 => self.fork_anon(st, out),
            8 if k.thread_objects && self.room() >= 2 => self.fork_obj(st, out),
            9 | 10 if k.syncs && self.room() >= 2 => self.sync(st, out),
            11 | 12 => self.data(st, out),
            13 if k.heap_reads => self.load(st, out),
            14 if k.containers => self.container(st, out),
            15 => self.copy(st, out),
            16 if k.loops && k.nested && self.room() >= 4 => self.lp(st, out),
            17 if self.g.k.thread_objects && self.room() >= 3 => self.fork_obj(st, out),
            _ => self.data(st, out),
        }
    }
}

/// A free program: a prelude of shared objects, then the swarm composition.
pub fn free(bytes: &[u8], k: NaikAikenKnobs) -> Program {
    let mut src = Bytes::new(bytes);
    let g = Gen::new(&mut src, k);
    let mut f = Free { g, stmts: 0, threads: 1 };
    let mut st = St { mult: 1, ..St::default() };
    let mut main = vec![];
    // A shared object allocated once (and, often, linked to a second one).
    f.alloc_link(&mut st, &mut main);
    f.block(&mut st, &mut main, usize::MAX);
    program(&main)
}
