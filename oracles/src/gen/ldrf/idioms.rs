//! The idiom programs of the L-DRF generator: randomized variants of the shapes of
//! docs/spec/ldrf.md §8, Fig. 1 (R1), Fig. 4's lock hand-off (R2), R5, the Batman family (R4),
//! R6's racy controls (or their locked twins) and R7's disjoint writes. Most variants are
//! race free; some, only with [`LdrfKnobs::races`], drop a lock.

use super::write::{crit, ite, program, Gen};
use super::{LdrfKnobs, SHARED, TEMPS};
use crate::gen::toolkit::{one, Bytes};
use crate::lang::Program;

/// One idiom program: a randomized §8 shape (see the module documentation).
pub fn idiom(bytes: &[u8], k: LdrfKnobs) -> Program {
    let mut src = Bytes::new(bytes);
    let mut g = Gen { src: &mut src, k };
    let threads = match g.src.next() % 12 {
        0..=2 => fig1(&mut g),
        3..=5 => fig4(&mut g),
        6 | 7 => r5(&mut g),
        8 | 9 => batman(&mut g),
        _ => controls(&mut g),
    };
    program(&threads, k, g.src)
}

/// R1 (Fig. 1): t1 keeps `x == y` in a critical section, t2 works on its own `z` (with
/// [`LdrfKnobs::arith`], sometimes the remainder of a nondet value), then checks
/// `x == y` under the lock (or, racy, without it: only with [`LdrfKnobs::races`]); a third
/// thread may bump both under the lock.
fn fig1(g: &mut Gen<'_, '_>) -> Vec<Vec<String>> {
    let mut t1 = vec!["x = y".to_string(), "x = x + 1".into(), "y = y + 1".into()];
    if g.k.threads == 3 || g.coin(50) {
        t1.push("assert x == y".into());
    } else {
        t1.push("a = x".into());
        t1.push("assert a == y".into());
    }
    let t1 = crit("m", &t1);
    let v = g.v();
    let mut t2 = if g.k.arith && g.k.threads == 2 && g.coin(75) {
        // Private arithmetic with more arithmetic: the remainder of a wide nondet value, the
        // interval domain's hull of `%` over a range of operands (§5.2 A5), and a check of
        // it. One statement more than the usual pair: only without a third thread.
        let lo = g.pick(2);
        let check = if g.coin(75) { format!("z = c % 2; assert z == {}", g.pick(2)) } else { "z = c % 3; assert z < 2".into() };
        vec![format!("c = nondet{{{lo}..3}}"), check]
    } else {
        vec![format!("z = z + {v}"), format!("assert z == {}", if g.coin(80) { v } else { g.v() })]
    };
    let check = match g.pick(8) {
        0 => one("assert x == y"),
        1 => vec!["b = x".into(), "assert b == y".into()],
        2 if g.k.threads == 2 => one(ite("z == 1", &one("b = x"), &one("b = y"))),
        _ => one("assert x == y"),
    };
    // Drawn first, so that a program without races is its racy twin with the lock.
    if g.coin(85) || !g.k.races {
        t2.extend(crit("m", &check));
    } else {
        t2.extend(check);
    }
    let mut threads = vec![t1, t2];
    if g.k.threads == 3 {
        let t3 = match g.pick(3) {
            0 => crit("m", &["x = x + 1".into(), "y = y + 1".into()]),
            1 => one(ite("*", &crit("m", &["y = x".into()]), &[])),
            _ => vec!["w = 1".into(), "assert w == 1".into()],
        };
        threads.push(t3);
    }
    threads
}

/// R2 (Fig. 4): t1 writes `x` and the flag `y` under the lock; t2 spins on its private `b`
/// read under the lock until it sees the flag, then writes `x` with no lock. Racy variants
/// (only with [`LdrfKnobs::races`]) write `x` after the release or spin without the lock.
fn fig4(g: &mut Gen<'_, '_>) -> Vec<Vec<String>> {
    let f = if g.coin(70) { 1 } else { g.v() };
    // 0 and 1 are the racy variants; drawn anyway, so that the bytes after are the same.
    let racy = if g.k.races { g.pick(10) } else { 2 + g.pick(10) };
    let mut t1 = if racy == 0 { crit("m", &[format!("y = {f}")]) } else { crit("m", &["x = 1".into(), format!("y = {f}")]) };
    if racy == 0 {
        t1.push("x = 1".into());
    }
    let read = if racy == 1 { one("b = y") } else { crit("m", &one("b = y")) };
    let mut t2 = vec![format!("while b != {f} {{ {} }}", read.join("; "))];
    match g.pick(4) {
        0 => t2.extend(["x = x + 1".to_string(), "b = x".into(), "assert b == 2".into()]),
        1 => t2.extend(["x = 2".to_string(), "assert x != 1".into()]),
        _ => t2.extend(["x = 2".to_string(), "b = x".into(), "assert b != 1".into()]),
    }
    let mut threads = vec![t1, t2];
    if g.k.threads == 3 {
        threads.push(match g.pick(3) {
            0 => crit("m", &["c = y".into(), "assert c <= 1".into()]),
            1 => vec!["z = nondet{0..2}".into(), "assert z < 3".into()],
            _ => vec!["c = nondet{0..1}".into(), ite("c == 1", &one("z = 1"), &[])],
        });
    }
    threads
}

/// R5: t1 `acq m; x = 1; rel m` ∥ t2 `y = 5; acq m; b = x + y; rel m` (DRF; `y` is
/// confined to t2); with regions, t2 also resets `y = 0` before its release. With
/// [`LdrfKnobs::races`], t2 sometimes reads without the lock.
fn r5(g: &mut Gen<'_, '_>) -> Vec<Vec<String>> {
    let t1 = crit("m", &one(format!("x = {}", g.v())));
    let mut t2 = vec![format!("y = {}", if g.coin(60) { 5 } else { g.v() })];
    let mut body = one("b = x + y");
    if g.coin(50) {
        body.push(if g.coin(50) { "assert b != 0".into() } else { "assert x == 0 || b == y + 1".to_string() });
    }
    // With regions, t2 resets its `y` before it releases (no byte read: the program is the
    // same otherwise). Its post-release point then never publishes t2's first `y`, so the
    // spurious release → acquire loop through t1 cannot hide the region mix's loss under
    // the region-racy `{x, y}` (C9; R5 itself never releases, which unbalanced locking
    // forbids here).
    if g.k.regions {
        body.push("y = 0".into());
    }
    if g.coin(90) || !g.k.races {
        t2.extend(crit("m", &body));
    } else {
        t2.extend(body);
    }
    let mut threads = vec![t1, t2];
    if g.k.threads == 3 {
        threads.push(crit("m", &["c = x".into(), "x = c + 1".into()]));
    }
    threads
}

/// R4 (the Batman family): each thread writes only its own block of variables (confined),
/// branching on them; with [`LdrfKnobs::races`], one thread sometimes also reads another's
/// block (a race).
fn batman(g: &mut Gen<'_, '_>) -> Vec<Vec<String>> {
    let n = g.k.threads;
    let mut threads = vec![];
    let mut branched_x = false;
    for (t, (v, tmp)) in SHARED.iter().zip(TEMPS).take(n).enumerate() {
        let k = g.v();
        let mut th = vec![format!("{v} = {k}")];
        match g.pick(4) {
            0 => th.push(format!("{v} = {v} + 1")),
            // A branch on `x` keeps `x` private: thread 2 reads it only otherwise.
            1 => {
                branched_x |= t == 0;
                th.push(ite(&format!("{v} == {k}"), &one(format!("{tmp} = {v}")), &one(format!("{tmp} = 0"))));
            }
            2 => th.extend([format!("{tmp} = nondet{{0..2}}"), format!("{v} = {v} + {tmp}")]),
            _ => th.push(format!("assert {v} == {k}")),
        }
        if t == 1 && !branched_x && g.coin(25) {
            let k = g.v();
            if g.k.races {
                th.push(format!("assert x != {k}"));
            }
        }
        threads.push(th);
    }
    threads
}

/// R6's racy controls (`x = 1` ∥ `y = x`; `x = 1` ∥ `x = 2`) and R7's disjoint writes
/// (`x = 1` ∥ `y = 1`, race free). Without [`LdrfKnobs::races`], R6's twins with each
/// access in a critical section of `m` (race free).
fn controls(g: &mut Gen<'_, '_>) -> Vec<Vec<String>> {
    let races = g.k.races;
    let guard = |a: &str| if races { one(a) } else { crit("m", &one(a)) };
    let mut threads = match g.pick(3) {
        0 => vec![guard("x = 1"), guard("y = x")],
        1 => vec![guard("x = 1"), guard("x = 2")],
        _ => vec![one("x = 1"), one("y = 1")],
    };
    if g.coin(40) {
        threads[1].push("b = y".into());
        threads[1].push("assert b == 0".into());
    }
    if g.k.threads == 3 {
        threads.push(vec!["z = 1".into()]);
    }
    threads
}
