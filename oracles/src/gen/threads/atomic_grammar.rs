//! The grammar of the atomic programs ([`GRAMMAR_ATOMICS`]): the productions that the
//! atomic generator ([`super::atomics`]) is held to reach, and the classifier that says
//! which of them a program uses (`gen --stats`, the rule-coverage report).

use std::collections::BTreeSet;

use super::super::grammar::{prod, Grammar, Production};
use crate::lang::{Atomic, Order, Program, RmwOp, Stmt, StmtKind};

/// The productions of the atomic programs: every operation × valid order (a CAS: success
/// × failure), every fence order, every unordered pair of fence orders in two threads, and
/// the idioms.
pub const GRAMMAR_ATOMICS: Grammar = Grammar { productions: PRODUCTIONS, uses };

macro_rules! productions {
    ($($name:literal => $rule:literal),* $(,)?) => { &[$(prod($name, $rule)),*] };
}

const PRODUCTIONS: &[Production] = productions![
    "load relaxed" => "r = x.f.load(relaxed)",
    "load acquire" => "r = x.f.load(acquire)",
    "load seq_cst" => "r = x.f.load(seq_cst)",
    "store relaxed" => "x.f.store(v, relaxed)",
    "store release" => "x.f.store(v, release)",
    "store seq_cst" => "x.f.store(v, seq_cst)",
    "fetch_add relaxed" => "r = x.f.fetch_add(v, relaxed)",
    "fetch_add acquire" => "r = x.f.fetch_add(v, acquire)",
    "fetch_add release" => "r = x.f.fetch_add(v, release)",
    "fetch_add acq_rel" => "r = x.f.fetch_add(v, acq_rel)",
    "fetch_add seq_cst" => "r = x.f.fetch_add(v, seq_cst)",
    "xchg relaxed" => "r = x.f.xchg(v, relaxed)",
    "xchg acquire" => "r = x.f.xchg(v, acquire)",
    "xchg release" => "r = x.f.xchg(v, release)",
    "xchg acq_rel" => "r = x.f.xchg(v, acq_rel)",
    "xchg seq_cst" => "r = x.f.xchg(v, seq_cst)",
    "cas relaxed/relaxed" => "ok = x.f.cas(e, v, relaxed, relaxed)",
    "cas acquire/relaxed" => "ok = x.f.cas(e, v, acquire, relaxed)",
    "cas release/relaxed" => "ok = x.f.cas(e, v, release, relaxed)",
    "cas acq_rel/relaxed" => "ok = x.f.cas(e, v, acq_rel, relaxed)",
    "cas seq_cst/relaxed" => "ok = x.f.cas(e, v, seq_cst, relaxed)",
    "cas acquire/acquire" => "ok = x.f.cas(e, v, acquire, acquire)",
    "cas release/acquire" => "ok = x.f.cas(e, v, release, acquire)",
    "cas acq_rel/acquire" => "ok = x.f.cas(e, v, acq_rel, acquire)",
    "cas seq_cst/acquire" => "ok = x.f.cas(e, v, seq_cst, acquire)",
    "cas seq_cst/seq_cst" => "ok = x.f.cas(e, v, seq_cst, seq_cst)",
    "fence acquire" => "fence(acquire)",
    "fence release" => "fence(release)",
    "fence acq_rel" => "fence(acq_rel)",
    "fence seq_cst" => "fence(seq_cst)",
    "fences acquire × acquire" => "fence(acquire) ∥ fence(acquire)",
    "fences acquire × release" => "fence(acquire) ∥ fence(release)",
    "fences acquire × acq_rel" => "fence(acquire) ∥ fence(acq_rel)",
    "fences acquire × seq_cst" => "fence(acquire) ∥ fence(seq_cst)",
    "fences release × release" => "fence(release) ∥ fence(release)",
    "fences release × acq_rel" => "fence(release) ∥ fence(acq_rel)",
    "fences release × seq_cst" => "fence(release) ∥ fence(seq_cst)",
    "fences acq_rel × acq_rel" => "fence(acq_rel) ∥ fence(acq_rel)",
    "fences acq_rel × seq_cst" => "fence(acq_rel) ∥ fence(seq_cst)",
    "fences seq_cst × seq_cst" => "fence(seq_cst) ∥ fence(seq_cst)",
    "message passing" => "o.d = v; … f ∥ … f; … t = o.d",
    "flag read by many" => "an atomic read of f in two threads",
    "release sequence, RMW" => "a release write of f ∥ an RMW of f",
    "release sequence, store" => "a release write of f ∥ another store to f",
    "plain access to an atomic field" => "o.f = v or t = o.f where f is used atomically",
    "CAS spinlock" => "ok = o.l.cas(0, 1, s, f); if ok { … o.l.store(0, u) }",
    "data condition" => "if r > 0 { t = o.d }",
    "three threads" => "thread { … } × 3",
];

/// What each thread does atomically, for the classifier.
#[derive(Default)]
struct Seen {
    ops: BTreeSet<&'static str>,
    fences: BTreeSet<Order>,
    reads_f: bool,
    writes_f: bool,
    release_writes_f: bool,
    rmw_f: bool,
    stores_f: usize,
    plain_f: bool,
    plain_d: bool,
    spin: bool,
    condition: bool,
}

fn uses(p: &Program) -> BTreeSet<&'static str> {
    let mut u = BTreeSet::new();
    let seen: Vec<Seen> = p.threads.iter().map(Vec::as_slice).map(thread).collect();
    if p.threads.len() == 3 {
        u.insert("three threads");
    }
    for (i, s) in seen.iter().enumerate() {
        u.extend(s.ops.iter().copied());
        for o in &s.fences {
            u.insert(fence_name(*o));
            for other in seen.iter().skip(i + 1) {
                u.extend(other.fences.iter().map(|o2| fence_pair(*o, *o2)));
            }
        }
        if s.condition {
            u.insert("data condition");
        }
        if s.spin {
            u.insert("CAS spinlock");
        }
        if s.plain_f && seen.iter().any(|o| o.reads_f || o.writes_f) {
            u.insert("plain access to an atomic field");
        }
    }
    let pairs = || (0..seen.len()).flat_map(|i| (0..seen.len()).filter(move |&j| j != i).map(move |j| (i, j)));
    if pairs().any(|(i, j)| seen[i].writes_f && seen[i].plain_d && seen[j].reads_f && seen[j].plain_d) {
        u.insert("message passing");
    }
    if seen.iter().filter(|s| s.reads_f).count() >= 2 {
        u.insert("flag read by many");
    }
    if pairs().any(|(i, j)| seen[i].release_writes_f && seen[j].rmw_f) {
        u.insert("release sequence, RMW");
    }
    if seen.iter().any(|s| s.release_writes_f && s.stores_f >= 2) || pairs().any(|(i, j)| seen[i].release_writes_f && seen[j].stores_f > 0) {
        u.insert("release sequence, store");
    }
    u
}

fn fence_name(o: Order) -> &'static str {
    match o {
        Order::Relaxed | Order::Acquire => "fence acquire",
        Order::Release => "fence release",
        Order::AcqRel => "fence acq_rel",
        Order::SeqCst => "fence seq_cst",
    }
}

fn fence_pair(a: Order, b: Order) -> &'static str {
    let (a, b) = (a.min(b), a.max(b));
    const NAMES: [&str; 10] = [
        "fences acquire × acquire",
        "fences acquire × release",
        "fences acquire × acq_rel",
        "fences acquire × seq_cst",
        "fences release × release",
        "fences release × acq_rel",
        "fences release × seq_cst",
        "fences acq_rel × acq_rel",
        "fences acq_rel × seq_cst",
        "fences seq_cst × seq_cst",
    ];
    // Fence orders are acquire (1) to seq_cst (4); the pairs a ≤ b in row order.
    let (i, j) = (a as usize - 1, b as usize - 1);
    NAMES[(0..i).map(|r| 4 - r).sum::<usize>() + (j - i)]
}

fn thread(block: &[Stmt]) -> Seen {
    let mut s = Seen::default();
    walk(block, &mut s);
    s
}

fn walk(block: &[Stmt], s: &mut Seen) {
    for st in block {
        match &st.kind {
            StmtKind::Atomic(a) => atomic(a, s),
            StmtKind::If { cond, then_b, else_b } => {
                s.condition |= matches!(cond, crate::lang::Cond::Expr(crate::lang::Expr::Binary(..)));
                if then_b.iter().any(|t| matches!(&t.kind, StmtKind::Atomic(Atomic::Store { place, .. }) if field(place) == "l")) {
                    s.spin = true;
                }
                walk(then_b, s);
                walk(else_b, s);
            }
            StmtKind::Load { src, .. } => match field(src) {
                "f" => s.plain_f = true,
                "d" => s.plain_d = true,
                _ => {}
            },
            StmtKind::Store { dst, .. } => match field(dst) {
                "f" => s.plain_f = true,
                "d" => s.plain_d = true,
                _ => {}
            },
            _ => {}
        }
    }
}

/// The last field of a place (`d` of `o.d`), or "".
fn field(p: &crate::lang::Place) -> &str {
    match p {
        crate::lang::Place::Field { fields, .. } => fields.last().map_or("", String::as_str),
        _ => "",
    }
}

fn atomic(a: &Atomic, s: &mut Seen) {
    let on_f = a.place().is_some_and(|p| field(p) == "f");
    let op: Option<String> = match a {
        Atomic::Fence(o) => {
            s.fences.insert(*o);
            None
        }
        Atomic::Load { order, .. } => {
            s.reads_f |= on_f;
            Some(format!("load {order}"))
        }
        Atomic::Store { order, .. } => {
            if on_f {
                s.writes_f = true;
                s.stores_f += 1;
                s.release_writes_f |= order.releases();
            }
            Some(format!("store {order}"))
        }
        Atomic::Rmw { op, order, .. } => {
            if on_f {
                (s.reads_f, s.writes_f, s.rmw_f) = (true, true, true);
                s.release_writes_f |= order.releases();
            }
            Some(format!("{} {order}", if *op == RmwOp::FetchAdd { "fetch_add" } else { "xchg" }))
        }
        Atomic::Cas { success, failure, .. } => {
            if on_f {
                (s.reads_f, s.writes_f, s.rmw_f) = (true, true, true);
                s.release_writes_f |= success.releases();
            }
            Some(format!("cas {success}/{failure}"))
        }
    };
    if let Some(name) = op.and_then(|n| PRODUCTIONS.iter().find(|p| p.name == n)) {
        s.ops.insert(name.name);
    }
}

#[cfg(test)]
mod tests {
    use super::super::atomics::{CAS, LOAD, STORE};
    use super::*;
    use crate::lang::parse;

    /// The classifier can fail: hand-written programs use every production, an empty one
    /// none.
    #[test]
    fn the_classifier_sees_every_production() {
        let mut used = BTreeSet::new();
        let orders = ["acquire", "release", "acq_rel", "seq_cst"];
        for a in orders {
            for b in orders {
                let src = format!("dialect bfj2\nclass C {{ fields d, f, l, x, y }}\ninit {{ o = new C }}\nthread {{ fence({a}) }}\nthread {{ fence({b}) }}\n");
                used.extend(uses(&parse(&src).unwrap()));
            }
        }
        let mut ops = vec![];
        for o in LOAD {
            ops.push(format!("r = o.x.load({o})"));
        }
        for o in STORE {
            ops.push(format!("o.x.store(1, {o})"));
        }
        for o in Order::ALL {
            ops.push(format!("s = o.x.fetch_add(1, {o})"));
            ops.push(format!("s = o.x.xchg(1, {o})"));
        }
        for (s, f) in CAS {
            ops.push(format!("ok = o.x.cas(0, 1, {s}, {f})"));
        }
        let src = format!(
            "dialect bfj2\nclass C {{ fields d, f, l, x, y }}\ninit {{ o = new C }}\nthread {{ {}; o.d = 1; o.f.store(1, release); o.f.store(2, relaxed) }}\nthread {{ r = o.f.load(acquire); if r > 0 {{ t = o.d }}; s = o.f.fetch_add(1, relaxed); t = o.f }}\nthread {{ r = o.f.load(relaxed); ok = o.l.cas(0, 1, acquire, relaxed); if ok {{ t = o.d; o.d = t + 1; o.l.store(0, release) }} }}\n",
            ops.join("; ")
        );
        used.extend(uses(&parse(&src).unwrap()));
        let missing: Vec<&str> = PRODUCTIONS.iter().map(|q| q.name).filter(|n| !used.contains(n)).collect();
        assert!(missing.is_empty(), "not seen: {missing:?}");
        assert!(uses(&parse("dialect bfj2\nthread { }\nthread { }\n").unwrap()).is_empty());
    }
}
