//! The hand-off programs: the main thread and one worker pass one fresh object through the
//! worker object, which is also the lock, so that every thread-escape idiom of
//! docs/spec/escape_capsule.md §5 and §14 (and, for capsules, §10.2 and M-C1…M-C6) fits in a few
//! visible operations, since no thread fetches a holder or a lock first.

use crate::gen::toolkit::{parse_generated, Bytes};
use crate::lang::Program;

/// A hand-off program: the main thread forks one worker `w` and one of the two passes a
/// fresh object `r` to the other through `w.o` (in the worker, `this.o`), with `w` itself
/// as the lock. Every thread-escape idiom of spec §5 and §14 fits in a few visible
/// operations this way, since no thread fetches a holder or a lock first:
/// - the publisher: `r = new Ref`; an initialization (`r.f = v`; Fig. 4.1's
///   `sync(r) { r.f = 11; r.f = 12 }`; a linked object `s = new Ref; r.g = s`, M-E1; a
///   write of the holder under the fresh lock, `sync(r) { h.f = v }`, M-E8; a read of it,
///   `q = r.f`); the publication, plain (Fig. 4.2), under `sync(h)` (M-E1, M-E3), or
///   inside the fresh object's own `sync` (§5.3); then a write after it (`r.f`, `s.f` or
///   `h.f`) or a read `q = r.f`;
/// - the consumer: `x = h.o`, plain or under `sync(h)`, then, if `x != null`, a write or
///   read of `x.f` (Fig. 4.2, M-E3), Fig. 4.1's `sync(x) { y = x.f }; assert y != 11`,
///   the linked object `y = x.g` and its field (M-E1), or the holder's field under `x`'s
///   lock (M-E8).
pub fn handoff(bytes: &[u8]) -> Program {
    let mut src = Bytes::new(bytes);
    let main_publishes = src.next().is_multiple_of(2);
    let (pub_h, con_h) = if main_publishes { ("w", "this") } else { ("this", "w") };
    let v = src.value();
    // The publisher.
    let mut p = vec!["r = new Ref".to_string()];
    let linked = match src.next() % 6 {
        0 => {
            p.push(format!("r.f = {v}"));
            false
        }
        1 => {
            p.push("sync(r) { r.f = 11; r.f = 12 }".into());
            false
        }
        2 | 3 => {
            p.push("s = new Ref; r.g = s".into());
            true
        }
        4 => {
            p.push(format!("sync(r) {{ {pub_h}.f = {v} }}"));
            false
        }
        // A read of the fresh object before it escapes (elided, §3.2 read p ∉ G).
        5 => {
            p.push("q = r.f".into());
            false
        }
        _ => false,
    };
    p.push(match src.next() % 5 {
        0 | 1 => format!("{pub_h}.o = r"),
        2 | 3 => format!("sync({pub_h}) {{ {pub_h}.o = r }}"),
        _ => format!("sync(r) {{ sync({pub_h}) {{ {pub_h}.o = r }}; r.f = 11; r.f = 12 }}"),
    });
    match src.next() % 5 {
        0 => p.push(format!("r.f = {v}")),
        1 if linked => p.push(format!("s.f = {v}")),
        2 => p.push(format!("{pub_h}.f = {v}")),
        // A read after it: kept, whatever the read before publication decided.
        3 => p.push("q = r.f".into()),
        _ => {}
    }
    // The consumer.
    let mut c = vec![if src.next().is_multiple_of(2) { format!("x = {con_h}.o") } else { format!("sync({con_h}) {{ x = {con_h}.o }}") }];
    let then = match src.next() % 7 {
        0 => format!("x.f = {}", src.value()),
        1 => "y = x.f".into(),
        2 => "sync(x) { y = x.f }; assert y != 11".into(),
        3 | 4 => format!("y = x.g; if y != null {{ y.f = {} }}", src.value()),
        5 => format!("sync(x) {{ y = {con_h}.f }}"),
        _ => format!("{con_h}.f = {}", src.value()),
    };
    c.push(format!("if x != null {{ {then} }}"));
    let (main, worker) = if main_publishes { (p, c) } else { (c, p) };
    let text = format!(
        "dialect simplejava\nclass Ref {{ fields f, g }}\nclass W {{\n  fields o, f\n  method run() {{ {} }}\n}}\nthread {{ w = new W; fork w; {} }}\n",
        worker.join("; "),
        main.join("; ")
    );
    parse_generated("hand-off", &text)
}

/// A graph hand-off program in `dialect` (SimpleJava or CapJava): the main thread builds a
/// graph of fresh objects behind the worker `w` through which the worker reaches `r`, then
/// both write `r.f` (a race the filter keeps only if `r` is in reach(w) when `w` escapes,
/// docs/spec/escape_capsule.md §3.2, §5, §6.3): `r` one hop behind `w` (`w.o = r`) or two
/// (`p = new Ref; p.g = r; w.o = p`, with a cycle `r.g = p` in some), before the fork
/// (with, in some programs, an earlier reference in the same field overwritten, `w.o = q`
/// first, and a data write beside the reference, `w.f = v` or `p.f = v`) or after it, under
/// the worker's lock (`sync(w) { w.o = p }`), which the worker reads under it too. The worker
/// follows the graph: `x = this.o; if x != null { x.f = v }`, or through `x.g` at two hops.
/// These are the states the object graph must get right (a write replaces the field's
/// edge and only it, reach is transitive), which the other programs, whose shared objects
/// all hang one field off a worker and are written once, never reach.
pub fn graph_handoff(bytes: &[u8], dialect: &str) -> Program {
    let mut src = Bytes::new(bytes);
    // A third of the programs publish after the fork, under the worker's lock, so that the
    // first race is on what the write publishes, not on the holder (a kept write into a
    // shared object must leak its value, §3.2, §6.3).
    let after = src.next().is_multiple_of(3);
    let two_hops = src.next().is_multiple_of(2);
    let mut graph = vec!["r = new Ref".to_string()];
    if !after && src.next().is_multiple_of(3) {
        graph.push("q = new Ref; w.o = q".into());
    }
    let data = src.next() % 3;
    let holder = if two_hops {
        graph.push("p = new Ref; p.g = r".into());
        // A cycle, `r.g = p`, in a third of them: reach must not walk it twice.
        if src.next().is_multiple_of(3) {
            graph.push("r.g = p".into());
        }
        if data == 1 {
            graph.push(format!("p.f = {}", src.value()));
        }
        "p"
    } else {
        "r"
    };
    let mut main = vec![];
    if after {
        main.push("fork w".into());
        main.extend(graph);
        main.push(format!("sync(w) {{ w.o = {holder} }}"));
    } else {
        main.extend(graph);
        main.push(format!("w.o = {holder}"));
        if data == 0 {
            main.push(format!("w.f = {}", src.value()));
        }
        main.push("fork w".into());
    }
    main.push(format!("r.f = {}", src.value()));
    let read = if after { "sync(this) { x = this.o }" } else { "x = this.o" };
    let write = format!("y.f = {}", src.value());
    let worker = if two_hops { format!("{read}; if x != null {{ y = x.g; if y != null {{ {write} }} }}") } else { format!("{read}; if x != null {{ x.f = {} }}", src.value()) };
    let text =
        format!("dialect {dialect}\nclass Ref {{ fields f, g }}\nclass W {{\n  fields o, f\n  method run() {{ {worker} }}\n}}\nthread {{ w = new W; {} }}\n", main.join("; "));
    parse_generated("graph hand-off", &text)
}

/// A capsule hand-off program: the main thread and one worker `w` share a capsule `k` of
/// class `K` (and, in some programs, a sibling `k2`), and call it under `sync` on the worker
/// object (synchronized by construction) or without (a capFree or occupancy violation).
/// Each of the two does one of (the worker two in a third of the programs; spec §10.2, §14
/// M-C1–M-C6):
/// - `sync(h) { x = k.getO() }; if x != null { x.g = v }`: an object leaked by an exit,
///   then written unsynchronized (Fig. 5.2, M-C4), or its linked object `x.n` (M-C6);
/// - `a = new Ref; [b = new Ref; a.n = b, or a read z = a.g]; sync(h) { k.put(a) }; a.g = v` (or `b.g`): an
///   object leaked by an enter (M-C5, M-C6);
/// - `sync(h) { k.inc() }`, `sync(h) { k.touch() }` (the capsule's inner object, touched
///   inside) or either unsynchronized (capsule accesses; unsynchronized: M-C1, M-C2);
/// - `sync(h) { k.copyFrom(k2) }` against `sync(h) { k2.inc() }`: a capsule reading its
///   sibling's field, an encapsulation violation a class-based check misses (M-C3); or
///   `sync(h) { k.relay(k2) }` (in either thread), a capsule method entering another capsule.
pub fn capsule_handoff(bytes: &[u8]) -> Program {
    let mut src = Bytes::new(bytes);
    let sibling = src.next().is_multiple_of(4);
    let setup = !src.next().is_multiple_of(4);
    let mut bodies: [Vec<String>; 2] = [vec![], vec![]];
    let mut fresh = 0;
    for (i, h) in [(0, "w"), (1, "this")] {
        // Two operations in the worker of a third of the programs; one otherwise.
        let n = if i == 1 && src.next().is_multiple_of(3) { 2 } else { 1 };
        for _ in 0..n {
            let b = src.next();
            if b == 0 {
                break;
            }
            let v = src.value();
            let locked = |call: &str| if b % 7 == 6 { call.to_string() } else { format!("sync({h}) {{ {call} }}") };
            fresh += 1;
            let body = &mut bodies[i];
            // Getters in 3/8 of the operations and setters in 2/8: a race needs one in each thread.
            match b % 8 {
                0..=2 => {
                    body.push(locked(&format!("x{fresh} = k.getO()")));
                    body.push(if b.is_multiple_of(3) {
                        format!("if x{fresh} != null {{ y{fresh} = x{fresh}.n; if y{fresh} != null {{ y{fresh}.g = {v} }} }}")
                    } else {
                        format!("if x{fresh} != null {{ x{fresh}.g = {v} }}")
                    });
                }
                3 | 4 => {
                    let linked = b.is_multiple_of(3);
                    body.push(format!("a{fresh} = new Ref"));
                    if linked {
                        body.push(format!("b{fresh} = new Ref; a{fresh}.n = b{fresh}"));
                    } else if b.is_multiple_of(2) {
                        // A read of the fresh object before the enter leaks it: CE-READ1 (§8),
                        // which the hand-off programs otherwise never make.
                        body.push(format!("z{fresh} = a{fresh}.g"));
                    }
                    body.push(locked(&format!("k.put(a{fresh})")));
                    body.push(if linked { format!("b{fresh}.g = {v}") } else { format!("a{fresh}.g = {v}") });
                }
                // Three times the share of the other operations: the nested enter of `relay`
                // (§7.4 executor) needs a sibling and one of three picks, in either thread.
                // Unsynchronized in a third (not a seventh): two threads' enters into `k2`,
                // one nested, unordered by happens-before (a capFree violation, §7.4).
                5..=7 if sibling => {
                    let call = match (i, src.next() % 3) {
                        (_, 0) => "k.relay(k2)",
                        (0, _) => "k.copyFrom(k2)",
                        _ => "k2.inc()",
                    };
                    body.push(if b % 3 == 2 { call.to_string() } else { format!("sync({h}) {{ {call} }}") });
                }
                _ => body.push(locked(if b.is_multiple_of(2) { "k.inc()" } else { "k.touch()" })),
            }
        }
    }
    let uses_k2 = bodies.iter().flatten().any(|s| s.contains("k2"));
    let [main, worker] = bodies;
    let mut text = String::from("dialect capjava\nclass Ref { fields g, n }\n");
    text.push_str("capsule class K {\n  fields n, o\n  method setup() { r = new Ref; this.o = r; return null }\n  method getO() { x = this.o; return x }\n");
    text.push_str(
        "  method put(a) { this.o = a; return null }\n  method inc() { n = this.n; this.n = n }\n  method touch() { x = this.o; if x != null { x.g = 1 } }\n  method copyFrom(c) { v = c.n; this.n = v }\n  method relay(j) { j.inc() }\n}\n",
    );
    let fields = if uses_k2 { "k, k2" } else { "k" };
    let fetch = if uses_k2 { "k = this.k; k2 = this.k2" } else { "k = this.k" };
    let body = if worker.is_empty() { "skip".to_string() } else { format!("{fetch}; {}", worker.join("; ")) };
    text.push_str(&format!("class W {{\n  fields {fields}\n  method run() {{ {body} }}\n}}\n"));
    let mut m = vec!["k = new K".to_string()];
    if setup {
        m.push("k.setup()".into());
    }
    m.push("w = new W; w.k = k".into());
    if uses_k2 {
        m.push("k2 = new K; w.k2 = k2".into());
    }
    m.push("fork w".into());
    m.extend(main);
    text.push_str(&format!("thread {{ {} }}\n", m.join("; ")));
    parse_generated("capsule hand-off", &text)
}
