//! The generator of the Naik-Aiken programs (seed 002, spec/naik_aiken.md §4.1 the language,
//! §4.4 what a generator must enforce, §6 the regression programs): one main thread over an
//! empty heap that allocates at labelled sites, links objects, fills containers and forks
//! threads, which write the data field `g` at the end of paths.
//!
//! Two kinds of programs, mixed by a swarm knob ([`NaikAikenKnobs::idiom`]):
//! - **idioms** ([`idiom`]): randomized variants of the §6 regression programs, the shapes the
//!   analysis's stages are about: Ex. 2.1's allocate-and-link in one iteration (R1), the
//!   nested-loop container (R2) and its parent pointers (R3), Fig. 1's containers filled in
//!   one loop and picked in another with the lock on `a`, on the element, on `x.f`, on
//!   nothing or on another element (R4), the shared `u` hoisted before the loop (R5), the
//!   heap read that loses the correlation (R6), the linked list through `next` (R7), thread
//!   objects `fork(t) { self.f.g = k }` with `d` in the loop or hoisted and the main thread
//!   writing too (R8), per-iteration locks and the "unlikely" filter's misses (R9), stamps
//!   allocated by children (R10) and the stale re-publication of §5.2 (R11); plus the
//!   near-misses of the local-lock and local-thread stages (spec A4, §4.4): mixed depths
//!   (`l.g` against `l.f.g` where one lock object reaches the other), two thread objects
//!   sharing one target, an anonymous fork inside `fork(x)` (it sees `self` but has no
//!   thread object), and the main thread writing the same location;
//! - **free programs** ([`free`]): a swarm composition of the same ingredients (allocation,
//!   links, links to the previous iteration's variable, containers, loads, data writes and
//!   reads at depths 0–2, `if *`, nested loops, `sync`, anonymous and thread-object forks)
//!   over a small variable pool, tracking which variables and fields are surely non-null so
//!   that dereferences, `sync` and picks are rarely stuck.
//!
//! What every program satisfies: it validates for the dialect (unique `@h`/`@w` labels, `self`
//! only inside `fork(x)`, a `sync` variable never assigned in its body, except, with
//! [`Relax::sync_reassign`], in a few programs built to test a "reassigned lock still held"
//! bug: `sync(x) { x = a[*]; x.f.g = 1 }`, `sync(l) { l = d; l.g = 1 }`,
//! `sync(x) { x = y; x.f.g = 1 }`); at most [`MAX_THREADS`] threads at run time when loops
//! run at most B = 2 times (a fork inside a loop counts twice); at most about
//! [`MAX_STMTS`] statements; fields `f` and `next` (pointers) and `g` (the data field final
//! writes and reads target).
//!
//! Built deterministically from bytes like [`super::java`]: swarm knobs from a header
//! ([`swarm_naikaiken`]), then the program; a byte 0 or the end of the input means "stop
//! adding".

use std::collections::BTreeSet;

use super::grammar::{prod, Grammar};
use super::toolkit::{chance, if_star, keep_listed, one, parse_generated, split_header, sync, Bytes};
use crate::lang::*;

/// Threads at run time, at most, counting a fork inside `n` loops as 2ⁿ threads (B = 2).
pub const MAX_THREADS: usize = 4;

/// Statements per program (every statement, nested ones included), at most.
pub const MAX_STMTS: usize = 22;

/// Bytes [`swarm_naikaiken`] reads for its knobs before the program.
pub const SWARM_HEADER: usize = 4;

/// Knobs of the Naik-Aiken generator.
#[derive(Clone, Copy, Debug)]
pub struct NaikAikenKnobs {
    /// An idiom program ([`idiom`], a §6 shape) instead of a free one ([`free`]).
    pub idiom: bool,
    /// Statements of a free program, about (8–18; an item may overshoot by a few).
    pub stmts: usize,
    /// Threads at run time, at most (1–[`MAX_THREADS`]).
    pub threads: usize,
    /// Whether free programs have loops.
    pub loops: bool,
    /// Whether free programs nest loops.
    pub nested: bool,
    /// Whether `sync` appears in free programs.
    pub syncs: bool,
    /// Whether thread objects (`fork(x)`, `self`) appear in free programs.
    pub thread_objects: bool,
    /// Whether containers (`x[+] = y`, `x = y[*]`) appear in free programs.
    pub containers: bool,
    /// Whether heap reads (`x = y.f`) appear in free programs.
    pub heap_reads: bool,
    /// Whether the main thread accesses shared objects after its forks.
    pub main_after_fork: bool,
    /// Percent of the `sync` blocks that assign their variable in their body (only with
    /// [`Relax::sync_reassign`]; 0 otherwise).
    pub reassign: u32,
}

impl Default for NaikAikenKnobs {
    fn default() -> NaikAikenKnobs {
        NaikAikenKnobs {
            idiom: true,
            stmts: 14,
            threads: MAX_THREADS,
            loops: true,
            nested: true,
            syncs: true,
            thread_objects: true,
            containers: true,
            heap_reads: true,
            main_after_fork: true,
            reassign: 0,
        }
    }
}

impl NaikAikenKnobs {
    /// Swarm knobs: idioms in 55% of the programs; free programs of about 8–18 statements, with at
    /// most 4 threads (3 in a quarter, 2 in an eighth), loops in 85% (nested in half of
    /// those), `sync` in 75%, thread objects in 50%, containers in 40%, heap reads in 60%,
    /// main-thread accesses after the forks in 50%; under [`Relax::sync_reassign`], a third
    /// of the `sync` blocks reassign their variable.
    pub fn swarm(h: [u8; SWARM_HEADER], relax: Relax) -> NaikAikenKnobs {
        NaikAikenKnobs {
            idiom: chance(h[0], 55),
            stmts: 8 + usize::from(h[1]) % 11,
            threads: match h[0].rotate_left(4) % 8 {
                0 => 2,
                1 | 2 => 3,
                _ => MAX_THREADS,
            },
            loops: chance(h[2], 85),
            nested: chance(h[2].rotate_left(3), 50),
            syncs: chance(h[3], 75),
            thread_objects: chance(h[3].rotate_left(2), 50),
            containers: chance(h[3].rotate_left(5), 40),
            heap_reads: chance(h[2].rotate_left(6), 60),
            main_after_fork: chance(h[1].rotate_left(4), 50),
            reassign: if relax.sync_reassign { 33 } else { 0 },
        }
    }
}

/// Labels and the byte source, shared by idioms and free programs.
struct Gen<'a, 'b> {
    src: &'a mut Bytes<'b>,
    k: NaikAikenKnobs,
    sites: usize,
    loops: usize,
}

impl Gen<'_, '_> {
    fn h(&mut self) -> String {
        self.sites += 1;
        format!("@h{}", self.sites)
    }

    fn w(&mut self) -> String {
        self.loops += 1;
        format!("@w{}", self.loops)
    }

    /// An integer for a data write (1–3).
    fn v(&mut self) -> usize {
        self.src.value()
    }

    fn pick(&mut self, n: usize) -> usize {
        self.src.below(n)
    }

    fn coin(&mut self, pct: u32) -> bool {
        self.src.coin(pct)
    }

    /// Whether this `sync` reassigns its variable (only under `Relax::sync_reassign`).
    fn reassign(&mut self) -> bool {
        self.k.reassign > 0 && self.coin(self.k.reassign)
    }
}

/// `while @w * { body }`.
fn wl(w: &str, body: &[String]) -> String {
    format!("while {w} * {{ {} }}", body.join("; "))
}

/// `fork { body }` or `fork(x) { body }`.
fn fork(this: Option<&str>, body: &[String]) -> String {
    match this {
        Some(x) => format!("fork({x}) {{ {} }}", body.join("; ")),
        None => format!("fork {{ {} }}", body.join("; ")),
    }
}

/// One idiom program: a randomized §6 regression shape (see the module documentation).
pub fn idiom(bytes: &[u8], k: NaikAikenKnobs) -> Program {
    let mut src = Bytes::new(bytes);
    let mut g = Gen { src: &mut src, k, sites: 0, loops: 0 };
    let main = match g.src.next() % 16 {
        0 => r1(&mut g),
        1 => r2_r3(&mut g),
        2..=4 => r4(&mut g),
        5 | 6 => r7(&mut g),
        7 | 8 => r8(&mut g),
        9 => thread_objects(&mut g),
        10 | 11 => r9(&mut g),
        12 => r10(&mut g),
        13 => r11(&mut g),
        14 => r6(&mut g),
        _ => r4(&mut g),
    };
    program(&main)
}

fn program(main: &[String]) -> Program {
    let text = format!("dialect naikaiken\nthread {{ {} }}\n", main.join("; "));
    parse_generated("naikaiken", &text)
}

/// R1 (Ex. 2.1): `while { x = new; y = new; x.f = y; fork { sync(x) { x.f.g = k } } }`.
fn r1(g: &mut Gen<'_, '_>) -> Vec<String> {
    let (w, h1, h2, v) = (g.w(), g.h(), g.h(), g.v());
    let mut body = vec![format!("x = new {h1}"), format!("y = new {h2}"), "x.f = y".into()];
    let child = match g.pick(5) {
        0 => one(sync("x", &one(format!("x.f.g = {v}")))),
        1 => one(sync("y", &one(format!("x.f.g = {v}")))),
        2 => one(format!("x.f.g = {v}")),
        3 => one(sync("x", &["read x.f.g".to_string(), format!("x.g = {v}")])),
        _ if g.reassign() => one(sync("x", &["x = y".into(), format!("x.g = {v}")])),
        _ => one(sync("x", &one(format!("x.g = {v}")))),
    };
    body.push(fork(None, &child));
    if g.k.main_after_fork && g.coin(50) {
        body.push(if g.coin(50) { "read y.g".into() } else { sync("x", &one(format!("y.g = {v}"))) });
    }
    vec![wl(&w, &body)]
}

/// R2/R3 (Ex. 3.5): a loop nested in a loop, linking the inner object to the outer one or
/// back; a thread after the inner loop locks the outer object.
fn r2_r3(g: &mut Gen<'_, '_>) -> Vec<String> {
    let (w1, h1) = (g.w(), g.h());
    let (w2, h2) = (g.w(), g.h());
    let back = g.coin(40);
    let v = g.v();
    let mut outer = vec![format!("x = new {h1}")];
    let mut pre = vec![];
    if back {
        // R3: parent pointers; a thread locks the last inner object (`y` starts as a node).
        let h0 = g.h();
        pre.push(format!("y = new {h0}"));
        outer.push(wl(&w2, &[format!("y = new {h2}"), "y.f = x".into()]));
        outer.push(fork(None, &one(sync("y", &one(format!("y.f.g = {v}"))))));
    } else {
        // R2: the container pattern; `x.f` starts at a first node so that the thread is not
        // stuck when the inner loop runs 0 times (unless `bare`).
        if g.coin(85) {
            let h0 = g.h();
            outer.push(format!("z = new {h0}"));
            outer.push("x.f = z".into());
        }
        outer.push(wl(&w2, &[format!("y = new {h2}"), "x.f = y".into()]));
        let child = if g.coin(50) { sync("x", &one(format!("x.f.g = {v}"))) } else { "read x.f.g".to_string() };
        outer.push(fork(None, &one(child)));
    }
    pre.push(wl(&w1, &outer));
    pre
}

/// R4/R5 (Fig. 1): a container filled in one loop and picked in another, where each pick
/// forks a thread that writes `x.f.g` under one of several locks.
fn r4(g: &mut Gen<'_, '_>) -> Vec<String> {
    let ha = g.h();
    let mut main = vec![format!("a = new {ha}")];
    // The fill loop: `t.f = u` with `u` fresh (R4), hoisted (R5), or the previous node (a
    // list, for the mixed-depth near-miss).
    let fill = g.pick(6);
    // In 60% of the programs a first element is added before the loop (its own sites), so
    // that the picks are not stuck when the fill loop runs 0 times.
    let seeded = g.coin(60);
    let w1 = g.w();
    let mut shared = None;
    if fill <= 2 {
        let (hs, v) = (g.h(), if fill == 2 { "p" } else { "u" });
        main.push(format!("{v} = new {hs}"));
        shared = Some(v);
    }
    let fill_body = |g: &mut Gen<'_, '_>| {
        let mut body = vec![format!("t = new {}", g.h()), "a[+] = t".into()];
        match shared {
            Some("u") => body.push("t.f = u".into()),
            Some(_) => body.extend(["t.f = p".to_string(), "p = t".into()]),
            None => body.extend([format!("u = new {}", g.h()), "t.f = u".into()]),
        }
        body
    };
    if seeded {
        let first = fill_body(g);
        main.extend(first);
    }
    let body = fill_body(g);
    main.push(wl(&w1, &body));
    // The pick loop.
    let (w2, v) = (g.w(), g.v());
    let child: Vec<String> = match g.pick(10) {
        0 | 1 => one(sync("x", &one(format!("x.f.g = {v}")))),
        2 => one(sync("a", &one(format!("x.f.g = {v}")))),
        3 => vec!["y = x.f".into(), sync("y", &one(format!("y.g = {v}")))],
        4 => one(format!("x.f.g = {v}")),
        5 => vec!["y = a[*]".into(), sync("y", &one(format!("x.f.g = {v}")))],
        6 => one(if_star(&one(sync("x", &one(format!("x.g = {v}")))), &one(sync("x", &one(format!("x.f.g = {v}")))))),
        7 => one(if_star(&one(sync("x", &one(format!("x.f.g = {v}")))), &one(sync("x", &one("read x.f.g".to_string()))))),
        8 if g.reassign() => one(sync("x", &["x = a[*]".into(), format!("x.f.g = {v}")])),
        8 if g.reassign() => vec!["y = a[*]".into(), sync("x", &["x = y".into(), format!("x.f.g = {v}")])],
        _ => one(sync("x", &["read x.f.g".to_string(), format!("x.f.g = {v}")])),
    };
    let mut pick = vec!["x = a[*]".to_string(), fork(None, &child)];
    if g.k.main_after_fork && g.coin(40) {
        // The main thread writes too (thread context ε), under the same lock or none.
        pick.push(if g.coin(50) { sync("x", &one(format!("x.f.g = {}", g.v()))) } else { "read x.f.g".into() });
    }
    main.push(wl(&w2, &pick));
    main
}

/// R6 (Fig. 1 as printed): the link is made through a heap read (`s = a[*]; s.f = u`).
fn r6(g: &mut Gen<'_, '_>) -> Vec<String> {
    let (ha, w1, ht, w2, hu) = (g.h(), g.w(), g.h(), g.w(), g.h());
    let mut main = vec![format!("a = new {ha}"), format!("t = new {ht}"), "a[+] = t".into()];
    let (w0, ht2) = (g.w(), g.h());
    main.push(wl(&w0, &[format!("t = new {ht2}"), "a[+] = t".into()]));
    main.push(wl(&w1, &["s = a[*]".into(), format!("u = new {hu}"), "s.f = u".into()]));
    let v = g.v();
    let child = if g.coin(70) { sync("x", &one(format!("x.f.g = {v}"))) } else { "read x.f.g".to_string() };
    // `x.f` may still be null (no link made); the thread is then stuck, harmlessly.
    main.push(wl(&w2, &["x = a[*]".into(), fork(None, &one(child))]));
    main
}

/// R7: a linked list through `next`, every node locked by a thread.
fn r7(g: &mut Gen<'_, '_>) -> Vec<String> {
    let (hp, w, h2, h3, v) = (g.h(), g.w(), g.h(), g.h(), g.v());
    let mut main = vec![format!("p = new {hp}")];
    let mut body = vec![format!("t = new {h2}"), format!("u = new {h3}"), "t.f = u".into(), "t.next = p".into(), "p = t".into()];
    let child = match g.pick(5) {
        0 | 1 => sync("t", &one(format!("t.f.g = {v}"))),
        2 => if_star(&one(sync("t", &one(format!("t.g = {v}")))), &one(sync("t", &one(format!("t.next.g = {v}"))))),
        3 => sync("p", &one(format!("p.next.f.g = {v}"))),
        _ => sync("t", &["q = t.next.f".to_string(), "read t.next.g".to_string(), format!("t.f.g = {v}")]),
    };
    if g.coin(25) {
        body.insert(4, "t.f = null".into());
        body.insert(5, "t.f = u".into());
    }
    body.push(fork(None, &one(child)));
    main.push(wl(&w, &body));
    if g.k.main_after_fork && g.coin(50) {
        main.push(if g.coin(50) { format!("p.g = {}", g.v()) } else { sync("p", &one("read p.next.g")) });
    }
    main
}

/// R8: a thread object per iteration with the target in the loop (pruned) or hoisted (a
/// race), threads objects linked to each other (mixed depth), the main thread writing.
fn r8(g: &mut Gen<'_, '_>) -> Vec<String> {
    let (w, ht) = (g.w(), g.h());
    let mut main = vec![];
    let mut body = vec![format!("t = new {ht}")];
    let variant = g.pick(6);
    match variant {
        0 | 1 => {
            let hd = g.h();
            body.push(format!("d = new {hd}"));
        }
        2 | 3 => {
            let hd = g.h();
            main.push(format!("d = new {hd}"));
        }
        _ => {
            // The thread objects form a list: `self.f` is the previous thread object.
            let hd = g.h();
            main.push(format!("d = new {hd}"));
        }
    }
    body.push("t.f = d".into());
    if variant >= 4 {
        body.push("d = t".into());
    }
    let v = g.v();
    let child = match (variant, g.pick(4)) {
        (4 | 5, _) => one(if_star(&one(format!("self.g = {v}")), &one(format!("self.f.g = {v}")))),
        (_, 0) => vec!["read self.f.g".to_string(), format!("self.f.g = {v}")],
        (_, 1) => one(sync("self", &one(format!("self.f.g = {v}")))),
        _ => one(format!("self.f.g = {v}")),
    };
    body.push(fork(Some("t"), &child));
    if g.k.main_after_fork && g.coin(50) {
        body.push(if g.coin(60) { format!("d.g = {}", g.v()) } else { "read t.f.g".into() });
    }
    main.push(wl(&w, &body));
    main
}

/// Thread objects without loops: two thread objects sharing one target, or an anonymous
/// fork inside `fork(t)` (it reads `self` but has no thread object), or one thread object
/// reaching the other (mixed depth).
fn thread_objects(g: &mut Gen<'_, '_>) -> Vec<String> {
    let (h1, h2, hd, v) = (g.h(), g.h(), g.h(), g.v());
    let mut main = vec![format!("d = new {hd}"), format!("t = new {h1}"), "t.f = d".into()];
    match g.pick(3) {
        0 => {
            let shared = g.coin(60);
            main.push(format!("s = new {h2}"));
            if shared {
                main.push("s.f = d".into());
            } else {
                let he = g.h();
                main.extend([format!("e = new {he}"), "s.f = e".into()]);
            }
            main.push(fork(Some("t"), &one(format!("self.f.g = {v}"))));
            main.push(fork(Some("s"), &one(format!("self.f.g = {v}"))));
        }
        1 => {
            main.push(fork(Some("t"), &[fork(None, &one(format!("self.f.g = {v}"))), format!("self.f.g = {v}")]));
        }
        _ => {
            main.extend([format!("s = new {h2}"), "s.f = t".into()]);
            main.push(fork(Some("t"), &one(format!("self.g = {v}"))));
            main.push(fork(Some("s"), &one(format!("self.f.g = {v}"))));
        }
    }
    if g.k.main_after_fork && g.coin(50) {
        main.push(if g.coin(50) { format!("d.g = {}", g.v()) } else { "read t.f.g".into() });
    }
    main
}

/// R9: per-iteration locks around a shared object (the PLDI'06 filter's miss), a global
/// lock (allocated once), or no lock.
fn r9(g: &mut Gen<'_, '_>) -> Vec<String> {
    let (hd, w, hl, v) = (g.h(), g.w(), g.h(), g.v());
    let mut main = vec![format!("d = new {hd}")];
    let body = match g.pick(5) {
        0 | 1 => vec![format!("l = new {hl}"), fork(None, &one(sync("l", &one(format!("d.g = {v}")))))],
        2 => {
            main.push(format!("l = new {hl}"));
            one(fork(None, &one(sync("l", &one(format!("d.g = {v}"))))))
        }
        3 => one(fork(None, &one(format!("d.g = {v}")))),
        _ if g.reassign() => vec![format!("l = new {hl}"), fork(None, &one(sync("l", &["l = d".into(), format!("l.g = {v}")])))],
        _ => vec![format!("l = new {hl}"), "l.f = d".into(), fork(None, &one(sync("l", &one(format!("l.f.g = {v}")))))],
    };
    main.push(wl(&w, &body));
    if g.k.main_after_fork && g.coin(50) {
        main.push(if g.coin(50) { "read d.g".into() } else { format!("d.g = {}", g.v()) });
    }
    main
}

/// R10: children allocate and link to the parent's current-iteration object.
fn r10(g: &mut Gen<'_, '_>) -> Vec<String> {
    let (w, h1, h2, v) = (g.w(), g.h(), g.h(), g.v());
    let child = match g.pick(3) {
        0 => vec![format!("y = new {h2}"), "x.f = y".into()],
        1 => vec![format!("y = new {h2}"), "x.f = y".into(), format!("y.g = {v}")],
        _ => vec![format!("y = new {h2}"), "x.f = y".into(), sync("x", &one(format!("x.f.g = {v}")))],
    };
    let mut body = vec![format!("x = new {h1}"), fork(None, &child)];
    if g.k.main_after_fork && g.coin(50) {
        body.push("read x.g".into());
    }
    vec![wl(&w, &body)]
}

/// R11: a helper thread re-publishes a stale value under the lock that guards it (§5.2's
/// must-alias fact killed only by races).
fn r11(g: &mut Gen<'_, '_>) -> Vec<String> {
    let (hg, hs, h0, w2, w1, hy, hx, v) = (g.h(), g.h(), g.h(), g.w(), g.w(), g.h(), g.h(), g.v());
    let helper = wl(&w2, &[sync("m", &one("q = s.next")), sync("m", &one("s.next = q"))]);
    let lock = if g.coin(70) { "x" } else { "z" };
    let body = vec![
        format!("y = new {hy}"),
        format!("x = new {hx}"),
        sync("m", &one("s.next = y")),
        sync("m", &one("z = s.next")),
        "x.f = z".into(),
        fork(None, &one(sync(lock, &one(if lock == "x" { format!("x.f.g = {v}") } else { format!("z.g = {v}") })))),
    ];
    vec![format!("m = new {hg}"), format!("s = new {hs}"), format!("y = new {h0}"), "s.next = y".into(), fork(None, &one(helper)), wl(&w1, &body)]
}

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

const POOL: [&str; 8] = ["t", "u", "x", "y", "z", "p", "q", "v"];
const PTR: [&str; 2] = ["f", "next"];

struct Free<'a, 'b> {
    g: Gen<'a, 'b>,
    /// Statements written so far.
    stmts: usize,
    /// Threads at run time so far (main included).
    threads: usize,
}

impl Free<'_, '_> {
    fn room(&self) -> usize {
        self.g.k.stmts.saturating_sub(self.stmts)
    }

    fn emit(&mut self, out: &mut Vec<String>, x: String) {
        self.stmts += 1;
        out.push(x);
    }

    /// A variable of `set` chosen by a byte.
    fn choose<'s>(&mut self, set: impl IntoIterator<Item = &'s String>) -> Option<String> {
        let v: Vec<&String> = set.into_iter().collect();
        if v.is_empty() {
            return None;
        }
        Some(v[self.g.pick(v.len())].clone())
    }

    /// A variable to assign: one not live if possible, else any assignable one.
    fn target(&mut self, st: &St) -> Option<String> {
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
    fn roots(&self, st: &St) -> Vec<String> {
        let mut r: Vec<String> = st.live.iter().filter(|x| !st.containers.contains(*x)).cloned().collect();
        if st.has_self {
            r.push("self".into());
        }
        r
    }

    /// A path from a live root ending in `g`: `x.g`, `x.f.g` (when `x.f` is surely linked) or
    /// `x.f.next.g` rarely.
    fn path(&mut self, st: &St, root: &str) -> String {
        let links: Vec<&'static str> = PTR.iter().copied().filter(|f| st.linked.contains(&(root.to_string(), *f))).collect();
        if !links.is_empty() && self.g.coin(65) {
            let f = links[self.g.pick(links.len())];
            return format!("{root}.{f}.g");
        }
        format!("{root}.g")
    }

    /// An access to `g` at the end of a path: a write or a read.
    fn access(&mut self, st: &St, root: &str) -> String {
        let p = self.path(st, root);
        if self.g.coin(70) {
            format!("{p} = {}", self.g.v())
        } else {
            format!("read {p}")
        }
    }

    fn block(&mut self, st: &mut St, out: &mut Vec<String>, max: usize) {
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

    fn item(&mut self, b: u8, st: &mut St, out: &mut Vec<String>) {
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

    /// `t = new @h` and, often, `u = new @h; t.f = u` (allocate and link) or a link of `t` to
    /// a live object.
    fn alloc_link(&mut self, st: &mut St, out: &mut Vec<String>) {
        let Some(t) = self.target(st) else { return self.data(st, out) };
        let h = self.g.h();
        st.kill(&t);
        self.emit(out, format!("{t} = new {h}"));
        st.live.insert(t.clone());
        st.unshared.insert(t.clone());
        if self.room() == 0 {
            return;
        }
        match self.g.pick(5) {
            0 | 1 if self.room() >= 2 => {
                let mut st2 = st.clone();
                st2.frozen.insert(t.clone());
                let Some(u) = self.target(&st2) else { return };
                let h = self.g.h();
                st.kill(&u);
                let f = PTR[usize::from(self.g.coin(20))];
                self.emit(out, format!("{u} = new {h}"));
                self.emit(out, format!("{t}.{f} = {u}"));
                st.live.insert(u.clone());
                st.unshared.insert(u);
                st.linked.insert((t, f));
            }
            2 => {
                let others: Vec<String> = self.roots(st).into_iter().filter(|x| *x != t && x != "self").collect();
                if let Some(y) = self.choose(&others) {
                    let f = PTR[usize::from(self.g.coin(30))];
                    self.emit(out, format!("{t}.{f} = {y}"));
                    st.linked.insert((t, f));
                }
            }
            3 if self.g.coin(30) => {
                let f = PTR[usize::from(self.g.coin(50))];
                self.emit(out, format!("{t}.{f} = null"));
            }
            _ => {}
        }
    }

    /// `while @w * { .. }`: sometimes a list (`t.next = p; p = t` with `p` carried), a fill of
    /// a container, or a free body.
    fn lp(&mut self, st: &mut St, out: &mut Vec<String>) {
        if st.loops >= 2 || (st.loops >= 1 && !self.g.k.nested) {
            return self.data(st, out);
        }
        let w = self.g.w();
        self.stmts += 1;
        let mut inner = st.clone();
        inner.loops += 1;
        inner.mult *= 2;
        // Every variable live at the entry stays put (the next iteration relies on it).
        inner.frozen.extend(st.live.iter().cloned());
        let mut body = vec![];
        let list = self.g.coin(35) && self.room() >= 4;
        if list {
            // `p` is carried: live at the entry, assigned only live objects in the body.
            let carried = st.live.iter().find(|x| st.may_assign(x) && !st.containers.contains(*x)).cloned();
            let p = match carried {
                Some(p) => p,
                None => {
                    let Some(p) = self.target(st) else { return };
                    let h = self.g.h();
                    self.emit(out, format!("{p} = new {h}"));
                    st.live.insert(p.clone());
                    p
                }
            };
            inner = st.clone();
            inner.loops += 1;
            inner.mult *= 2;
            inner.frozen.extend(st.live.iter().filter(|x| **x != p).cloned());
            inner.carried.insert(p.clone());
            inner.linked.retain(|(v, _)| *v != p);
            let Some(t) = self.target(&inner) else { return };
            let h = self.g.h();
            inner.kill(&t);
            self.emit(&mut body, format!("{t} = new {h}"));
            inner.live.insert(t.clone());
            if self.g.coin(50) && self.room() >= 2 {
                let mut st2 = inner.clone();
                st2.frozen.insert(t.clone());
                if let Some(u) = self.target(&st2) {
                    let h = self.g.h();
                    inner.kill(&u);
                    self.emit(&mut body, format!("{u} = new {h}"));
                    self.emit(&mut body, format!("{t}.f = {u}"));
                    inner.live.insert(u);
                    inner.linked.insert((t.clone(), "f"));
                }
            }
            self.emit(&mut body, format!("{t}.next = {p}"));
            inner.linked.insert((t.clone(), "next"));
            self.block(&mut inner, &mut body, 2);
            self.emit(&mut body, format!("{p} = {t}"));
            inner.linked.retain(|(v, _)| *v != p);
        } else {
            self.block(&mut inner, &mut body, 4);
        }
        if body.is_empty() {
            self.emit(&mut body, "skip".into());
        }
        // Facts after the loop: those of its entry (0 iterations) that its exit keeps.
        let mut after = st.clone();
        for p in &inner.carried {
            after.linked.retain(|(v, _)| v != p);
        }
        after.meet(&inner);
        after.forked |= inner.forked;
        *st = after;
        out.push(wl(&w, &body));
    }

    fn branch(&mut self, st: &mut St, out: &mut Vec<String>) {
        self.stmts += 1;
        let (mut a, mut b) = (st.clone(), st.clone());
        let (mut ta, mut tb) = (vec![], vec![]);
        self.block(&mut a, &mut ta, 2);
        self.block(&mut b, &mut tb, 2);
        if ta.is_empty() {
            self.emit(&mut ta, "skip".into());
        }
        a.meet(&b);
        a.forked |= b.forked;
        *st = a;
        out.push(if_star(&ta, &tb));
    }

    /// The state a child starts from: a copy of the parent's (its own locals, the shared
    /// heap), nothing frozen.
    fn child_state(&self, st: &St) -> St {
        St { frozen: BTreeSet::new(), carried: BTreeSet::new(), unshared: BTreeSet::new(), child: true, ..st.clone() }
    }

    fn can_fork(&self, st: &St) -> bool {
        self.threads + st.mult <= self.g.k.threads
    }

    /// `fork { .. }`: the child accesses shared objects, under locks or not.
    fn fork_anon(&mut self, st: &mut St, out: &mut Vec<String>) {
        if !self.can_fork(st) || self.roots(st).is_empty() {
            return self.data(st, out);
        }
        self.threads += st.mult;
        self.stmts += 1;
        let mut c = self.child_state(st);
        let mut body = vec![];
        self.child_body(&mut c, &mut body);
        st.unshared.clear();
        st.forked = true;
        out.push(fork(None, &body));
        self.after_fork(st, out);
    }

    /// `fork(t) { .. }`: the child accesses paths rooted at `self`.
    fn fork_obj(&mut self, st: &mut St, out: &mut Vec<String>) {
        let roots: Vec<String> = self.roots(st).into_iter().filter(|x| x != "self").collect();
        if !self.can_fork(st) || roots.is_empty() {
            return self.data(st, out);
        }
        // Prefer a thread object with a linked field, so that `self.f.g` appears.
        let linked: Vec<String> = roots.iter().filter(|x| st.linked.iter().any(|(v, _)| v == *x)).cloned().collect();
        let t = if linked.is_empty() { self.choose(&roots) } else { self.choose(&linked) };
        let Some(t) = t else { return };
        self.threads += st.mult;
        self.stmts += 1;
        let mut c = self.child_state(st);
        c.has_self = true;
        let facts: Vec<(String, &'static str)> = st.linked.iter().filter(|(v, _)| *v == t).map(|(_, f)| ("self".to_string(), *f)).collect();
        c.linked.extend(facts);
        let mut body = vec![];
        // First an access rooted at `self`, then whatever fits.
        let a = self.access(&c, "self");
        self.emit(&mut body, a);
        if self.g.coin(25) && self.can_fork(&c) && self.room() >= 2 {
            // An anonymous fork inside `fork(x)`: it sees `self` but has no thread object.
            self.threads += c.mult;
            self.stmts += 1;
            let a = self.access(&c, "self");
            body.insert(0, fork(None, &[a]));
            self.stmts += 1;
        }
        self.child_body(&mut c, &mut body);
        st.unshared.clear();
        st.forked = true;
        out.push(fork(Some(&t), &body));
        self.after_fork(st, out);
    }

    fn child_body(&mut self, c: &mut St, body: &mut Vec<String>) {
        let before = body.len();
        self.block(c, body, 3);
        if body.len() == before {
            let roots = self.roots(c);
            if let Some(r) = self.choose(&roots) {
                let a = self.access(c, &r);
                self.emit(body, a);
            } else {
                self.emit(body, "skip".into());
            }
        }
    }

    /// The main thread right after a fork: sometimes an access to a shared object.
    fn after_fork(&mut self, st: &mut St, out: &mut Vec<String>) {
        if !st.child && self.g.k.main_after_fork && self.room() > 0 && self.g.coin(40) {
            let roots = self.roots(st);
            if let Some(r) = self.choose(&roots) {
                let a = self.access(st, &r);
                self.emit(out, a);
            }
        }
    }

    /// `sync(x) { x.f.g = k }` (the lock a prefix of the path), `sync(x) { x.g = k }`, a lock
    /// on another object than the path's root, or, under `Relax::sync_reassign`, a body that
    /// first reassigns `x`.
    fn sync(&mut self, st: &mut St, out: &mut Vec<String>) {
        let roots = self.roots(st);
        let Some(l) = self.choose(&roots) else { return self.data(st, out) };
        self.stmts += 1;
        let mut inner = st.clone();
        inner.held.insert(l.clone());
        let mut body = vec![];
        if l != "self" && st.may_assign(&l) && self.g.reassign() {
            // The mutation test of A5: the lock variable is reassigned inside its block.
            let others: Vec<String> = roots.iter().filter(|x| **x != l && *x != "self").cloned().collect();
            if let Some(y) = self.choose(&others) {
                self.emit(&mut body, format!("{l} = {y}"));
                let facts: Vec<(String, &'static str)> = inner.linked.iter().filter(|(v, _)| *v == y).map(|(_, f)| (l.clone(), *f)).collect();
                inner.linked.retain(|(v, _)| *v != l);
                inner.linked.extend(facts);
            }
        }
        let root = if self.g.coin(75) || roots.len() < 2 { l.clone() } else { self.choose(&roots).unwrap_or_else(|| l.clone()) };
        let a = self.access(&inner, &root);
        self.emit(&mut body, a);
        if self.g.coin(30) {
            self.block(&mut inner, &mut body, 1);
        }
        inner.held = st.held.clone();
        *st = inner;
        if body.iter().any(|b| b.starts_with(&format!("{l} = "))) {
            st.kill(&l);
        }
        out.push(sync(&l, &body));
    }

    /// A data write or read at the end of a path from a live root.
    fn data(&mut self, st: &mut St, out: &mut Vec<String>) {
        let roots = self.roots(st);
        match self.choose(&roots) {
            Some(r) => {
                let a = self.access(st, &r);
                self.emit(out, a);
            }
            None => {
                // Nothing is live yet: allocate a shared object.
                if let Some(t) = self.target(st) {
                    let h = self.g.h();
                    st.kill(&t);
                    self.emit(out, format!("{t} = new {h}"));
                    st.live.insert(t);
                }
            }
        }
    }

    /// `x = y.f` (a heap read; `x` is live only if `y.f` is surely linked) or `x = y.f.g`.
    fn load(&mut self, st: &mut St, out: &mut Vec<String>) {
        let roots = self.roots(st);
        let Some(y) = self.choose(&roots) else { return self.data(st, out) };
        let Some(x) = self.target(st) else { return self.data(st, out) };
        let links: Vec<&'static str> = PTR.iter().copied().filter(|f| st.linked.contains(&(y.clone(), *f))).collect();
        let two = !links.is_empty() && self.g.coin(35);
        let f = if links.is_empty() { PTR[usize::from(self.g.coin(30))] } else { links[self.g.pick(links.len())] };
        let src = if two { format!("{y}.{f}.f") } else { format!("{y}.{f}") };
        st.kill(&x);
        self.emit(out, format!("{x} = {src}"));
        if !two && links.contains(&f) {
            st.live.insert(x.clone());
            // Heap reads lose the correlation (T); linking the result is R6's shape.
            if self.g.coin(40) && self.room() >= 2 {
                if let Some(u) = self.target(&St { frozen: [x.clone()].into(), ..st.clone() }) {
                    let h = self.g.h();
                    st.kill(&u);
                    self.emit(out, format!("{u} = new {h}"));
                    self.emit(out, format!("{x}.f = {u}"));
                    st.live.insert(u);
                    st.linked.insert((x, "f"));
                }
            }
        }
    }

    /// A container: `a = new @h` (once), `a[+] = y`, `x = a[*]` when surely not empty.
    fn container(&mut self, st: &mut St, out: &mut Vec<String>) {
        if !st.containers.contains("a") {
            if st.frozen.contains("a") || st.carried.contains("a") || st.child {
                return self.data(st, out);
            }
            let h = self.g.h();
            self.emit(out, format!("a = new {h}"));
            st.kill("a");
            st.live.insert("a".into());
            st.containers.insert("a".into());
        }
        let elems: Vec<String> = self.roots(st).into_iter().filter(|x| x != "a" && x != "self").collect();
        if st.full.contains("a") && self.g.coin(50) {
            if let Some(x) = self.target(st) {
                st.kill(&x);
                self.emit(out, format!("{x} = a[*]"));
                st.live.insert(x);
                return;
            }
        }
        if let Some(y) = self.choose(&elems) {
            self.emit(out, format!("a[+] = {y}"));
            st.full.insert("a".into());
        } else if self.room() >= 2 {
            let Some(t) = self.target(st) else { return };
            let h = self.g.h();
            st.kill(&t);
            self.emit(out, format!("{t} = new {h}"));
            self.emit(out, format!("a[+] = {t}"));
            st.live.insert(t);
            st.full.insert("a".into());
        }
    }

    /// `x = y` (sharing one object under two names) or, rarely, `x = null`.
    fn copy(&mut self, st: &mut St, out: &mut Vec<String>) {
        let roots: Vec<String> = self.roots(st).into_iter().filter(|x| x != "self").collect();
        let Some(x) = self.target(st) else { return self.data(st, out) };
        if self.g.coin(15) || roots.is_empty() {
            st.kill(&x);
            self.emit(out, format!("{x} = null"));
            return;
        }
        let Some(y) = self.choose(&roots) else { return };
        if x == y {
            return self.data(st, out);
        }
        st.kill(&x);
        self.emit(out, format!("{x} = {y}"));
        st.live.insert(x.clone());
        let facts: Vec<(String, &'static str)> = st.linked.iter().filter(|(v, _)| *v == y).map(|(_, f)| (x.clone(), *f)).collect();
        st.linked.extend(facts);
    }
}

/// A free program: a prelude of shared objects, then the swarm composition.
pub fn free(bytes: &[u8], k: NaikAikenKnobs) -> Program {
    let mut src = Bytes::new(bytes);
    let g = Gen { src: &mut src, k, sites: 0, loops: 0 };
    let mut f = Free { g, stmts: 0, threads: 1 };
    let mut st = St { mult: 1, ..St::default() };
    let mut main = vec![];
    // A shared object allocated once (and, often, linked to a second one).
    f.alloc_link(&mut st, &mut main);
    f.block(&mut st, &mut main, usize::MAX);
    program(&main)
}

/// Builds a program from `bytes` with knobs `k` (deterministic).
pub fn build_naikaiken(bytes: &[u8], k: NaikAikenKnobs) -> Program {
    if k.idiom {
        return idiom(bytes, k);
    }
    free(bytes, k)
}

/// The registry's generator for Naik-Aiken: knobs from the first [`SWARM_HEADER`] bytes
/// ([`NaikAikenKnobs::swarm`]), then [`build_naikaiken`] from the rest.
pub fn swarm_naikaiken(bytes: &[u8], relax: Relax) -> Program {
    let (h, rest) = split_header::<SWARM_HEADER>(bytes);
    build_naikaiken(rest, NaikAikenKnobs::swarm(h, relax))
}

swarm_input!(
    /// A generated Naik-Aiken program with the bytes it came from (for cargo fuzz's `arbitrary`
    /// and quickcheck), built by [`swarm_naikaiken`] without relaxations.
    NaikAikenInput,
    swarm_naikaiken
);

/// The productions of the Naik-Aiken programs (spec/naik_aiken.md §4.1 the statements, §4.4
/// the biases, §6 the shapes).
pub static GRAMMAR_NAIKAIKEN: Grammar = Grammar {
    productions: &[
        prod("allocation", "x = new @h"),
        prod("copy", "x = y"),
        prod("null assignment", "x = null"),
        prod("heap read", "x = y.f"),
        prod("path load", "x = y.f.g (two or more fields)"),
        prod("pointer store", "x.f = y"),
        prod("null store", "x.f = null"),
        prod("data write", "x.g = k"),
        prod("path data write", "x.f.g = k (two or more fields)"),
        prod("read", "read x.f…"),
        prod("append", "x[+] = y"),
        prod("pick", "x = y[*]"),
        prod("if", "if * { .. } else { .. }"),
        prod("loop", "while @w * { .. }"),
        prod("nested loop", "while @w1 * { .. while @w2 * { .. } .. }"),
        prod("sync", "sync(x) { .. }"),
        prod("anonymous fork", "fork { .. }"),
        prod("thread-object fork", "fork(x) { .. }"),
        prod("self access", "self.f… inside fork(x)"),
        prod("fork inside a loop", "while @w * { .. fork .. }"),
        prod("allocate and link in one iteration", "while @w * { t = new @h2; u = new @h3; t.f = u }"),
        prod("link to the previous iteration", "while @w * { .. t.next = p; p = t }"),
        prod("object allocated once and shared", "d = new @h outside loops, used in a forked thread"),
        prod("fill and pick in two loops", "while @w1 * { .. a[+] = t }; while @w2 * { x = a[*] .. } (R4)"),
        prod("link from a heap read", "s = a[*] or s = x.f, then s.f = u (R6, type T)"),
        prod("lock-prefix access", "sync(x) { x.f.g = k } (depth ≥ 1)"),
        prod("lock-as-base access", "sync(x) { x.g = k } (depth 0)"),
        prod("lock not a prefix", "sync(l) { y.f.g = k } with y ≠ l"),
        prod("mixed depths", "sync(x) { x.g = k } and sync(x) { x.f.g = k } (or self.g and self.f.g)"),
        prod("self-prefix access", "fork(t) { self.f.g = k }"),
        prod("anonymous fork inside fork(x)", "fork(t) { fork { self.f.g = k } }"),
        prod("main access after fork", "fork { .. }; x.f.g = k (the main thread writes or reads too)"),
    ],
    uses: uses_naikaiken,
};

/// The data access of a statement: (root, fields) of `p = k` and `read p`.
fn data_access(s: &Stmt) -> Option<(&str, usize)> {
    match &s.kind {
        StmtKind::Store { dst: Place::Field { base, fields }, src: Expr::Int(_) } | StmtKind::Read(Place::Field { base, fields }) => Some((base, fields.len())),
        _ => None,
    }
}

/// Where the classifier is.
#[derive(Clone, Copy, Default)]
struct At {
    /// Loops enclosing this point, forks crossed.
    loops: usize,
    /// Loops enclosing this point in its own thread.
    own_loops: usize,
    /// Inside a forked thread.
    child: bool,
    /// Inside `fork(x)`.
    obj: bool,
}

struct Classify<'p> {
    u: BTreeSet<&'static str>,
    /// Variables allocated in the main thread outside every loop.
    once: BTreeSet<&'p str>,
    /// Variables some forked thread reads.
    child_reads: BTreeSet<&'p str>,
    /// Loops (by label) that append, and that pick.
    appends: BTreeSet<&'p str>,
    picks: BTreeSet<&'p str>,
    /// Depths of the accesses rooted at a `sync` variable (or `self`): 0 or ≥ 1.
    depths: BTreeSet<(&'p str, bool)>,
    main_forked: bool,
}

impl<'p> Classify<'p> {
    fn block(&mut self, b: &'p [Stmt], at: At, label: Option<&'p str>) {
        for s in b {
            self.stmt(s, at, label);
        }
    }

    fn stmt(&mut self, s: &'p Stmt, at: At, label: Option<&'p str>) {
        let u = &mut self.u;
        if at.child {
            s.kind.sub_blocks().is_empty().then(|| {
                reads(&s.kind, &mut |v| {
                    self.child_reads.insert(v);
                })
            });
        }
        if let Some((root, n)) = data_access(s) {
            if !at.child && self.main_forked {
                u.insert("main access after fork");
            }
            if root == "self" && n >= 2 {
                u.insert("self-prefix access");
            }
            if root == "self" {
                self.depths.insert(("self", n >= 2));
            }
        }
        match &s.kind {
            StmtKind::New { dst, .. } => {
                u.insert("allocation");
                if !at.child && at.loops == 0 {
                    self.once.insert(dst);
                }
            }
            StmtKind::Assign { src: Expr::Null, .. } => {
                u.insert("null assignment");
            }
            StmtKind::Assign { .. } => {
                u.insert("copy");
            }
            StmtKind::Load { src: Place::Field { base, fields }, .. } => {
                u.insert(if fields.len() >= 2 { "path load" } else { "heap read" });
                if base == "self" {
                    u.insert("self access");
                }
            }
            StmtKind::Store { dst: Place::Field { base, fields }, src } => {
                if base == "self" {
                    u.insert("self access");
                }
                match src {
                    Expr::Null => u.insert("null store"),
                    Expr::Int(_) if fields.len() >= 2 => u.insert("path data write"),
                    Expr::Int(_) => u.insert("data write"),
                    _ => u.insert("pointer store"),
                };
            }
            StmtKind::Read(p) => {
                u.insert("read");
                if p.base() == "self" {
                    u.insert("self access");
                }
            }
            StmtKind::Append { .. } => {
                u.insert("append");
                if let Some(l) = label {
                    self.appends.insert(l);
                }
            }
            StmtKind::Pick { .. } => {
                u.insert("pick");
                if let Some(l) = label {
                    self.picks.insert(l);
                }
            }
            StmtKind::If { then_b, else_b, .. } => {
                u.insert("if");
                self.block(then_b, at, label);
                self.block(else_b, at, label);
            }
            StmtKind::While { label: w, body, .. } => {
                u.insert("loop");
                if at.own_loops > 0 {
                    u.insert("nested loop");
                }
                loop_shapes(body, u);
                let inner = At { loops: at.loops + 1, own_loops: at.own_loops + 1, ..at };
                self.block(body, inner, w.as_deref().or(label));
            }
            StmtKind::Sync { lock, body } => {
                u.insert("sync");
                walk_block(body, &mut |t| {
                    if let Some((root, n)) = data_access(t) {
                        if root == lock {
                            u.insert(if n >= 2 { "lock-prefix access" } else { "lock-as-base access" });
                            self.depths.insert((lock, n >= 2));
                        } else {
                            u.insert("lock not a prefix");
                        }
                    }
                });
                self.block(body, at, label);
            }
            StmtKind::Fork { target: ForkTarget::Block { this, body }, .. } => {
                u.insert(if this.is_some() { "thread-object fork" } else { "anonymous fork" });
                if this.is_none() && at.obj {
                    u.insert("anonymous fork inside fork(x)");
                }
                if at.loops > 0 {
                    u.insert("fork inside a loop");
                }
                if let Some(x) = this {
                    if !at.child {
                        self.child_reads.insert(x);
                    }
                }
                let inner = At { own_loops: 0, child: true, obj: at.obj || this.is_some(), ..at };
                self.block(body, inner, None);
                if !at.child {
                    self.main_forked = true;
                }
            }
            _ => {}
        }
    }
}

/// Calls `f` on the variables a statement (not its nested blocks) reads.
fn reads<'p>(k: &'p StmtKind, f: &mut impl FnMut(&'p str)) {
    match k {
        StmtKind::Assign { src: Expr::Var(y), .. } => f(y),
        StmtKind::Load { src: p, .. } | StmtKind::Read(p) => f(p.base()),
        StmtKind::Store { dst, src } => {
            f(dst.base());
            if let Expr::Var(y) = src {
                f(y);
            }
        }
        StmtKind::Append { array, src } => {
            f(array);
            f(src);
        }
        StmtKind::Pick { array, .. } => f(array),
        _ => {}
    }
}

/// The shapes of one loop body (its own statements): allocate and link in one iteration, a
/// link to the previous iteration's variable, a link from a heap read.
fn loop_shapes(body: &[Stmt], u: &mut BTreeSet<&'static str>) {
    let mut fresh: BTreeSet<&str> = BTreeSet::new();
    let mut read: BTreeSet<&str> = BTreeSet::new();
    let mut linked_to: Vec<(&str, &str)> = vec![];
    for s in body {
        match &s.kind {
            StmtKind::New { dst, .. } => {
                fresh.insert(dst);
                read.remove(dst.as_str());
            }
            StmtKind::Load { dst, .. } | StmtKind::Pick { dst, .. } => {
                fresh.remove(dst.as_str());
                read.insert(dst);
            }
            StmtKind::Store { dst: Place::Field { base, .. }, src: Expr::Var(y) } => {
                if fresh.contains(base.as_str()) && fresh.contains(y.as_str()) {
                    u.insert("allocate and link in one iteration");
                }
                if read.contains(base.as_str()) {
                    u.insert("link from a heap read");
                }
                if fresh.contains(base.as_str()) && !fresh.contains(y.as_str()) {
                    linked_to.push((base, y));
                }
            }
            StmtKind::Assign { dst, src: Expr::Var(y) } => {
                if linked_to.iter().any(|(t, p)| t == y && p == dst) {
                    u.insert("link to the previous iteration");
                }
                fresh.remove(dst.as_str());
            }
            _ => {}
        }
    }
}

fn uses_naikaiken(p: &Program) -> BTreeSet<&'static str> {
    let Some(main) = p.threads.first() else { return BTreeSet::new() };
    let mut c = Classify {
        u: BTreeSet::new(),
        once: BTreeSet::new(),
        child_reads: BTreeSet::new(),
        appends: BTreeSet::new(),
        picks: BTreeSet::new(),
        depths: BTreeSet::new(),
        main_forked: false,
    };
    c.block(main, At::default(), None);
    // Heap reads outside loops that are then linked (R6's shape without a loop).
    loop_shapes(main, &mut c.u);
    c.u.remove("allocate and link in one iteration");
    walk_block(main, &mut |s| {
        if let StmtKind::While { body, .. } = &s.kind {
            loop_shapes(body, &mut c.u);
        }
    });
    if c.once.iter().any(|v| c.child_reads.contains(v)) {
        c.u.insert("object allocated once and shared");
    }
    if c.appends.iter().any(|a| c.picks.iter().any(|p| p != a)) {
        c.u.insert("fill and pick in two loops");
    }
    if c.depths.iter().any(|(v, deep)| *deep && c.depths.contains(&(v, false))) {
        c.u.insert("mixed depths");
    }
    keep_listed(&GRAMMAR_NAIKAIKEN, &mut c.u);
    c.u
}

/// Syntactic measures of a Naik-Aiken program (what `racefuzz gen naikaiken --stats` prints
/// until the instrumented semantics gives a ground truth).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Statements, nested ones included.
    pub stmts: usize,
    /// `fork` statements.
    pub forks: usize,
    /// `fork` statements inside a loop (of their thread or a parent's).
    pub forks_in_loops: usize,
    /// Threads at run time, at most, when loops run at most B = 2 times (main included).
    pub threads: usize,
    /// `sync` statements.
    pub syncs: usize,
    /// The longest path of an access (fields, `x.f.g` is 2).
    pub max_path: usize,
    /// Whether some `sync(x)` body accesses `x.f….g` (the local-lock stage's shape).
    pub lock_prefix: bool,
    /// Whether some `fork(t)` body accesses `self.f….g` (the local-thread stage's shape).
    pub self_prefix: bool,
    /// Whether some `sync(x)` body assigns `x` (only under `Relax::sync_reassign`).
    pub sync_reassign: bool,
}

/// The [`Shape`] of `p`.
pub fn shape(p: &Program) -> Shape {
    fn go(b: &[Stmt], mult: usize, loops: usize, sh: &mut Shape) {
        for s in b {
            sh.stmts += 1;
            match &s.kind {
                StmtKind::Load { src: Place::Field { fields, .. }, .. }
                | StmtKind::Store { dst: Place::Field { fields, .. }, .. }
                | StmtKind::Read(Place::Field { fields, .. }) => {
                    sh.max_path = sh.max_path.max(fields.len());
                }
                StmtKind::Fork { target: ForkTarget::Block { body, this }, .. } => {
                    sh.forks += 1;
                    sh.forks_in_loops += usize::from(loops > 0);
                    sh.threads += mult;
                    if this.is_some() {
                        let mut deep = false;
                        walk_block(body, &mut |t| deep |= matches!(data_access(t), Some(("self", n)) if n >= 2));
                        sh.self_prefix |= deep;
                    }
                    go(body, mult, loops, sh);
                    continue;
                }
                StmtKind::While { body, .. } => {
                    go(body, mult * 2, loops + 1, sh);
                    continue;
                }
                StmtKind::Sync { lock, body } => {
                    sh.syncs += 1;
                    walk_block(body, &mut |t| {
                        sh.lock_prefix |= matches!(data_access(t), Some((r, n)) if r == lock && n >= 2);
                        sh.sync_reassign |= t.kind.assigned() == Some(lock.as_str());
                    });
                }
                _ => {}
            }
            for sub in s.kind.sub_blocks() {
                go(sub, mult, loops, sh);
            }
        }
    }
    let mut sh = Shape { threads: 1, ..Shape::default() };
    for t in &p.threads {
        go(t, 1, 0, &mut sh);
    }
    sh
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::grammar::Coverage;

    use crate::gen::test_bytes as bytes;

    const REASSIGN: Relax = Relax { sync_reassign: true, balanced_locking: false };

    /// A rough model of one execution, for the test's estimates: threads run to their end when
    /// forked (one legal schedule), `*` and loop counts (0–2) come from a seeded generator, and
    /// a race is two accesses of one location from different threads, one a write, unordered
    /// by the forks and under no common lock (a lockset estimate, not the ground truth).
    struct Run {
        heap: Vec<std::collections::HashMap<String, Option<usize>>>,
        elems: std::collections::HashMap<usize, Vec<usize>>,
        acc: Vec<Access>,
        threads: usize,
        rng: u64,
        stuck: bool,
    }

    type Env = std::collections::HashMap<String, Option<usize>>;

    /// (thread, object, field, write, locks held, vector clock).
    type Access = (usize, usize, String, bool, Vec<usize>, Vec<usize>);

    impl Run {
        fn coin(&mut self, n: u64) -> u64 {
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 7;
            self.rng ^= self.rng << 17;
            self.rng % n
        }

        fn obj(&mut self, env: &Env, x: &str) -> Option<usize> {
            env.get(x).copied().flatten()
        }

        /// Follows `base.f1…f(n-1)` (reads), then the last field's access.
        #[allow(clippy::too_many_arguments)]
        fn path(&mut self, env: &Env, t: usize, vc: &[usize], held: &[usize], base: &str, fields: &[String], write: bool) -> Option<(usize, String)> {
            let mut o = self.obj(env, base)?;
            for f in &fields[..fields.len() - 1] {
                self.acc.push((t, o, f.clone(), false, held.to_vec(), vc.to_vec()));
                o = self.heap[o].get(f).copied().flatten()?;
            }
            let f = fields[fields.len() - 1].clone();
            self.acc.push((t, o, f.clone(), write, held.to_vec(), vc.to_vec()));
            Some((o, f))
        }

        fn block(&mut self, b: &[Stmt], env: &mut Env, t: usize, vc: &mut Vec<usize>, held: &mut Vec<usize>) -> Option<()> {
            for s in b {
                match &s.kind {
                    StmtKind::New { dst, .. } => {
                        self.heap.push(Default::default());
                        env.insert(dst.clone(), Some(self.heap.len() - 1));
                    }
                    StmtKind::Assign { dst, src: Expr::Var(y) } => {
                        let v = *env.get(y)?;
                        env.insert(dst.clone(), v);
                    }
                    StmtKind::Assign { dst, .. } => {
                        env.insert(dst.clone(), None);
                    }
                    StmtKind::Load { dst, src: Place::Field { base, fields } } => {
                        let (o, f) = self.path(env, t, vc, held, base, fields, false)?;
                        let v = self.heap[o].get(&f).copied().flatten();
                        env.insert(dst.clone(), v);
                    }
                    StmtKind::Store { dst: Place::Field { base, fields }, src } => {
                        let v = match src {
                            Expr::Var(y) => Some(*env.get(y)?),
                            _ => None,
                        };
                        let (o, f) = self.path(env, t, vc, held, base, fields, true)?;
                        if let Some(v) = v {
                            self.heap[o].insert(f, v);
                        }
                    }
                    StmtKind::Read(Place::Field { base, fields }) => {
                        self.path(env, t, vc, held, base, fields, false)?;
                    }
                    StmtKind::Append { array, src } => {
                        let a = self.obj(env, array)?;
                        let y = (*env.get(src)?)?;
                        self.elems.entry(a).or_default().push(y);
                    }
                    StmtKind::Pick { dst, array } => {
                        let a = self.obj(env, array)?;
                        let n = self.elems.get(&a).map_or(0, Vec::len);
                        if n == 0 {
                            return None;
                        }
                        let i = self.coin(n as u64) as usize;
                        let v = self.elems[&a][i];
                        env.insert(dst.clone(), Some(v));
                    }
                    StmtKind::If { then_b, else_b, .. } => {
                        let b = if self.coin(2) == 0 { then_b } else { else_b };
                        self.block(b, env, t, vc, held)?;
                    }
                    StmtKind::While { body, .. } => {
                        for _ in 0..self.coin(3) {
                            self.block(body, env, t, vc, held)?;
                        }
                    }
                    StmtKind::Sync { lock, body } => {
                        let l = self.obj(env, lock)?;
                        held.push(l);
                        self.block(body, env, t, vc, held)?;
                        held.pop();
                    }
                    StmtKind::Fork { target: ForkTarget::Block { this, body }, .. } => {
                        let c = self.threads;
                        self.threads += 1;
                        let mut cenv = env.clone();
                        if let Some(x) = this {
                            cenv.insert("self".into(), Some(self.obj(env, x)?));
                        }
                        let mut cvc = vc.clone();
                        cvc.resize(self.threads, 0);
                        cvc[c] = 1;
                        vc.resize(self.threads, 0);
                        vc[t] += 1;
                        if self.block(body, &mut cenv, c, &mut cvc, &mut Vec::new()).is_none() {
                            self.stuck = true;
                        }
                    }
                    _ => {}
                }
            }
            Some(())
        }

        fn racy(&self) -> bool {
            self.acc.iter().enumerate().any(|(i, a)| {
                self.acc[i + 1..].iter().any(|b| a.0 != b.0 && a.1 == b.1 && a.2 == b.2 && (a.3 || b.3) && a.5.get(a.0) > b.5.get(a.0) && !a.4.iter().any(|l| b.4.contains(l)))
            })
        }
    }

    /// (some execution stuck, some execution racy) over `runs` modelled executions.
    fn estimate(p: &Program, runs: u64) -> (bool, bool) {
        let (mut stuck, mut racy) = (false, false);
        for seed in 0..runs {
            let mut r = Run { heap: vec![], elems: Default::default(), acc: vec![], threads: 1, rng: seed * 2 + 1, stuck: false };
            let ok = r.block(&p.threads[0], &mut Env::new(), 0, &mut vec![1], &mut vec![]).is_some();
            stuck |= r.stuck || !ok;
            racy |= r.racy();
        }
        (stuck, racy)
    }

    /// Few programs have a stuck execution (null dereference, `sync` on null, a pick from an
    /// empty container, an unassigned variable); racy programs are common but not universal.
    #[test]
    fn programs_are_rarely_stuck_and_often_racy() {
        let n = 2000u64;
        let (mut stuck, mut racy) = (0, 0);
        for seed in 0..n {
            let p = swarm_naikaiken(&bytes(seed + 40_000, 64), Relax::default());
            let (s, r) = estimate(&p, 24);
            stuck += usize::from(s);
            racy += usize::from(r);
            if s && seed < 200 {
                println!("stuck:\n{}", print(&p));
            }
        }
        let pct = |k: usize| 100.0 * k as f64 / n as f64;
        println!("{:.1}% with a stuck execution; {:.1}% racy (lockset estimate)", pct(stuck), pct(racy));
        assert!(pct(stuck) < 15.0, "stuck share {}", pct(stuck));
        assert!((30.0..=85.0).contains(&pct(racy)), "racy share {}", pct(racy));
    }

    #[test]
    fn programs_validate_round_trip_and_stay_small() {
        for relax in [Relax::default(), REASSIGN] {
            for p in crate::gen::toolkit::assert_well_formed("naikaiken", swarm_naikaiken, relax, 3000) {
                let sh = shape(&p);
                assert!(sh.stmts <= MAX_STMTS, "{} statements:\n{}", sh.stmts, print(&p));
                assert!(sh.threads <= MAX_THREADS, "{} threads:\n{}", sh.threads, print(&p));
                if relax == Relax::default() {
                    assert!(!sh.sync_reassign);
                }
            }
        }
    }

    #[test]
    fn every_production_is_used() {
        let mut cov = Coverage::new(&GRAMMAR_NAIKAIKEN);
        for seed in 0..3000u64 {
            cov.add(&GRAMMAR_NAIKAIKEN, &swarm_naikaiken(&bytes(seed + 7_000, 64), Relax::default()));
        }
        for (q, pct) in cov.percents() {
            println!("{pct:5.1}% {}", q.name);
        }
        let below = cov.below_floor();
        assert!(below.is_empty(), "below the floor: {below:?}");
    }
}
