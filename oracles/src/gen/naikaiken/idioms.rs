//! The idiom programs of the Naik-Aiken generator: randomized variants of the regression
//! programs of docs/spec/naik_aiken.md §6 (R1–R11) and of the near-misses of the local-lock and
//! local-thread stages (§4.4, spec A4), each the shape one stage of the analysis is about
//! (the list is in the documentation of [`super`]).

use super::write::{fork, program, wl, Gen};
use super::NaikAikenKnobs;
use crate::gen::toolkit::{if_star, one, sync, Bytes};
use crate::lang::Program;

/// One idiom program: a randomized §6 regression shape (see the module documentation).
pub fn idiom(bytes: &[u8], k: NaikAikenKnobs) -> Program {
    let mut src = Bytes::new(bytes);
    let mut g = Gen::new(&mut src, k);
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
        _ if g.k.joined_target => joined_target(&mut g),
        _ => r4(&mut g),
    };
    program(&main)
}

/// A store whose target variable was joined from two sites (`if * { d = b } else { d = new
/// h3 }; a.f = d`: its type's site is ⊤, its loop entries are not), then a store, through
/// `b`, a precise alias of the same object, of an object allocated in a loop: K⁺ must chain
/// the two effects through the ⊤ site (Def. 4.2, τ̄a ~ τ̄b), which no other idiom draws (a
/// mutant of `compatible` went uncaught, docs/mutation.md); a thread may then write `d.g`
/// through `a`, under `a`'s lock or not, against a read of `b.g`.
fn joined_target(g: &mut Gen<'_, '_>) -> Vec<String> {
    let (h1, h2, h3, h4, w, v) = (g.h(), g.h(), g.h(), g.h(), g.w(), g.v());
    let mut main = vec![format!("a = new {h1}"), format!("b = new {h2}"), if_star(&one("d = b"), &one(format!("d = new {h3}"))), "a.f = d".into()];
    main.push(wl(&w, &[format!("c = new {h4}"), "b.g = c".into()]));
    if g.coin(50) {
        let child = if g.coin(50) { one(sync("a", &one(format!("a.f.g = {v}")))) } else { one(format!("a.f.g = {v}")) };
        main.push(fork(None, &child));
        main.push("read b.g".into());
    }
    main
}

/// R1 (Ex. 2.1): `while { x = new; y = new; x.f = y; fork { sync(x) { x.f.g = k } } }`.
fn r1(g: &mut Gen<'_, '_>) -> Vec<String> {
    let (w, h1, h2, v) = (g.w(), g.h(), g.h(), g.v());
    let mut body = vec![format!("x = new {h1}"), format!("y = new {h2}"), "x.f = y".into()];
    if g.coin(40) {
        // A second same-iteration link: K⁺ chains two 1–1 effects and keeps the correlation
        // (Def. 4.2), which no other idiom does often.
        body.extend([format!("z = new {}", g.h()), "y.f = z".into()]);
    }
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
    // A fresh head `x` per iteration linked to the previous iteration's list: its chain to
    // `u` runs through the carried `p`, ⟨⊤, h2⟩ at the loop head when `p` starts null (no
    // `p = new`, so no ⊤ site hides it), and K⁺ must drop the 1–1 correlation (Def. 4.2).
    // The child then reads only `t.f`, never null, and the main thread nothing after.
    let head = g.coin(35);
    let mut main = if head { vec![] } else { vec![format!("p = new {hp}")] };
    let mut body = vec![format!("t = new {h2}"), format!("u = new {h3}"), "t.f = u".into(), "t.next = p".into(), "p = t".into()];
    let child = match if head { 0 } else { g.pick(5) } {
        0 | 1 => sync("t", &one(format!("t.f.g = {v}"))),
        2 => if_star(&one(sync("t", &one(format!("t.g = {v}")))), &one(sync("t", &one(format!("t.next.g = {v}"))))),
        3 => sync("p", &one(format!("p.next.f.g = {v}"))),
        _ => sync("t", &["q = t.next.f".to_string(), "read t.next.g".to_string(), format!("t.f.g = {v}")]),
    };
    if g.coin(25) {
        body.insert(4, "t.f = null".into());
        body.insert(5, "t.f = u".into());
    }
    if head {
        let hx = g.h();
        let at = body.len() - 1;
        body.splice(at..at, [format!("x = new {hx}"), "x.f = p".to_string()]);
    }
    body.push(fork(None, &one(child)));
    main.push(wl(&w, &body));
    if !head && g.k.main_after_fork && g.coin(50) {
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
