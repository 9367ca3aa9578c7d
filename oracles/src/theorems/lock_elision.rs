//! `lock-elision-race-free`, a negative control (docs/spec/escape_capsule.md
//! §5.1 Fig. 4.1, §5.3, §13 P-E10): partial *lock* elision, the optimization the thesis
//! shows unsound, claimed to keep every location race-free and every SC outcome. The
//! claim is false, and the fuzzer must rediscover that from scratch.
//!
//! The transform ([`elide_locks`]) is block-level, as spec §5.3 \[REC\] models a compiler:
//! a `sync(x) { B }` whose lock object x is a fresh object that has not escaped when the
//! block is entered becomes `B`. "Not escaped" is decided statically and conservatively, in
//! one body at a time: x was assigned `new C` earlier in the body, and no statement since
//! stored it into a field, passed it to a call (as receiver or argument), forked it,
//! copied it into another local, or reassigned it; a compound statement in between
//! that does any of these anywhere inside counts. (The decision is taken at entry: x may
//! escape inside the block, which is §5.3's case.)
//!
//! The property (P-E10), over every interleaving of the program P and of its transform
//! P′: every location race-free in P is race-free in P′, and no assertion fails in P′
//! that never fails in P (an SC-visible difference, §5.3). Fig. 4.1 breaks the first
//! (`r0.f` races in P′), §5.3 the second. The oracle judges the transform, which the spec
//! defines; the SUT it is given (the escape filter) takes no part.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use super::result::{Item, ItemStatus, OracleResult};
use super::{Budget, Oracle, Reads, Sut, SutKind, Unexercised};
use crate::explore::{Config, Execution, Explorer, ExplorerKind, Naive, Outcome, Witness};
use crate::gen;
use crate::lang::{print, Block, Dialect, Expr, ForkTarget, Program, Stmt, StmtKind};
use crate::machine::Machine;
use crate::race::data_races;

/// `lock-elision-race-free`.
pub const ORACLE: Oracle = Oracle {
    id: "lock-elision-race-free",
    claim: "NEGATIVE CONTROL (false, Fig. 4.1, §5.3): eliding sync blocks on not-yet-escaped objects keeps race freedom and SC outcomes (P-E10)",
    spec: "spec/escape_capsule.md §5.1, §5.3, §13 P-E10",
    dialect: Dialect::SimpleJava,
    sut: SutKind::Filter,
    item_kind: "property",
    negative_control: true,
    atomics: false,
    reads: Reads::Answers,
    unexercised: &[Unexercised {
        table: "escape filter",
        why: "lock-elision-race-free judges the lock-elision transform the spec defines (escape_capsule.md §5.3); the escape filter it is given takes no part",
    }],
    scorecard: false,
    operational: None,
    generate: gen::java::swarm_simplejava,
    grammar: &gen::java::GRAMMAR_SIMPLEJAVA,
    check,
};

/// The program with every `sync` block on a not-yet-escaped fresh object replaced by its
/// body (see the module docs), and how many blocks were elided.
pub fn elide_locks(p: &Program) -> (Program, usize) {
    let mut q = p.clone();
    let mut n = 0;
    for c in &mut q.classes {
        for m in &mut c.methods {
            m.body = elide_block(&m.body, &mut BTreeSet::new(), &mut n);
        }
    }
    for m in &mut q.methods {
        m.body = elide_block(&m.body, &mut BTreeSet::new(), &mut n);
    }
    for t in &mut q.threads {
        *t = elide_block(t, &mut BTreeSet::new(), &mut n);
    }
    (q, n)
}

/// `block` with its elidable `sync`s inlined; `fresh` holds the locals that hold a fresh,
/// not-yet-escaped object, and is updated as the block runs.
fn elide_block(block: &[Stmt], fresh: &mut BTreeSet<String>, n: &mut usize) -> Block {
    let mut out = vec![];
    for s in block {
        match &s.kind {
            StmtKind::Sync { lock, body } if fresh.contains(lock) => {
                *n += 1;
                out.extend(elide_block(body, fresh, n));
            }
            StmtKind::Sync { lock, body } => {
                let body = elide_block(body, fresh, n);
                out.push(Stmt { kind: StmtKind::Sync { lock: lock.clone(), body }, line: s.line });
            }
            kind if !kind.sub_blocks().is_empty() => {
                let mut k = kind.clone();
                for b in k.sub_blocks_mut() {
                    *b = elide_block(b, &mut fresh.clone(), n);
                }
                crate::lang::walk_block(std::slice::from_ref(s), &mut |t| {
                    for x in escapes(&t.kind) {
                        fresh.remove(x);
                    }
                });
                out.push(Stmt { kind: k, line: s.line });
            }
            kind => {
                for x in escapes(kind) {
                    fresh.remove(x);
                }
                if let StmtKind::New { dst, .. } = kind {
                    fresh.insert(dst.clone());
                }
                out.push(s.clone());
            }
        }
    }
    out
}

/// The locals a simple statement lets escape (stores, call receivers and arguments, forks,
/// copies, returns) or reassigns.
fn escapes(k: &StmtKind) -> Vec<&str> {
    let mut v: Vec<&str> = k.assigned().into_iter().collect();
    match k {
        StmtKind::Assign { src, .. } | StmtKind::Store { src, .. } => expr_vars(src, &mut v),
        StmtKind::Return(Some(e)) => expr_vars(e, &mut v),
        StmtKind::Call { recv, args, .. } | StmtKind::Fork { target: ForkTarget::Call { recv, args, .. }, .. } => {
            v.extend(recv.as_deref());
            args.iter().for_each(|a| expr_vars(a, &mut v));
        }
        _ => {}
    }
    v
}

fn expr_vars<'a>(e: &'a Expr, out: &mut Vec<&'a str>) {
    match e {
        Expr::Var(x) => out.push(x),
        Expr::Unary(_, a) => expr_vars(a, out),
        Expr::Binary(_, a, b) => {
            expr_vars(a, out);
            expr_vars(b, out);
        }
        Expr::Int(_) | Expr::Bool(_) | Expr::Null | Expr::Path(_) => {}
    }
}

/// What every interleaving of one program shows: its racy locations and failing asserts.
struct Observed {
    racy: BTreeSet<String>,
    asserts: BTreeSet<(String, u32)>,
    /// One execution per racy location and per failing assert, for the explanation.
    witness: std::collections::BTreeMap<String, Witness>,
    complete: bool,
    traces: u64,
}

fn observe(p: &Program, cfg: &Config) -> Result<Observed, String> {
    let m = Machine::new(p, cfg.loop_bound);
    let init = m.initial_state().map_err(|e| e.to_string())?;
    let mut o = Observed { racy: BTreeSet::new(), asserts: BTreeSet::new(), witness: Default::default(), complete: true, traces: 0 };
    let stats = Naive.explore(&m, init, cfg, &mut |ex: &Execution<'_, '_>| {
        o.traces += 1;
        for r in data_races(ex.trace) {
            let name = ex.state.addr_name(&m, r.addr);
            o.witness.entry(format!("race on {name}")).or_insert_with(|| Witness::of_execution(&m, ex));
            o.racy.insert(name);
        }
        if let Outcome::Stuck { thread, line, reason } = ex.outcome {
            if reason == "assertion failed" {
                o.witness.entry(format!("assert at line {line}")).or_insert_with(|| Witness::of_execution(&m, ex));
                o.asserts.insert((thread.clone(), *line));
            }
        }
        ControlFlow::Continue(())
    });
    o.complete = stats.complete;
    Ok(o)
}

fn check(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    let Sut::Filter(..) = sut else { return ORACLE.wrong_sut(sut) };
    let name = "block-level partial lock elision".to_string();
    let inconclusive = |note: String| OracleResult::inconclusive(ORACLE.id, name.clone(), ORACLE.item_kind, note);
    if let Some(note) = ORACLE.unmet(p, b.relax) {
        return inconclusive(note);
    }
    let cfg = Config { max_executions: b.explore.max_executions.min(super::trace_precision::BUDGET), explorer: ExplorerKind::Naive, ..b.explore };
    let (q, elided) = elide_locks(p);
    let subject = format!("{elided} sync block(s) elided: race freedom and assertions kept");
    let (before, after) = match (observe(p, &cfg), observe(&q, &cfg)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return inconclusive(format!("no initial state: {e}")),
    };
    let new_races: Vec<&String> = after.racy.difference(&before.racy).collect();
    let new_asserts: Vec<&(String, u32)> = after.asserts.difference(&before.asserts).collect();
    if !new_races.is_empty() || !new_asserts.is_empty() {
        let mut explanation = vec!["the program after lock elision:".to_string()];
        explanation.extend(print(&q).lines().map(|l| format!("  {l}")));
        // Every key below was inserted with its location or assert (`observe`).
        let schedule = |key: String| after.witness.get(&key).map(|w| w.schedule.to_string()).unwrap_or_default();
        for r in &new_races {
            explanation.push(format!("NEW RACE on {r}, race-free in every interleaving of the original (schedule {} of the elided program)", schedule(format!("race on {r}"))));
        }
        for (t, line) in &new_asserts {
            explanation.push(format!("NEW ASSERTION FAILURE in {t} at line {line} (schedule {} of the elided program)", schedule(format!("assert at line {line}"))));
        }
        // The first new race's execution, else the first new assertion failure's.
        let key = new_races.first().map(|r| format!("race on {r}")).or_else(|| new_asserts.first().map(|(_, line)| format!("assert at line {line}")));
        let witness = key.and_then(|k| after.witness.get(&k).cloned());
        let item = Item { subject, status: ItemStatus::Violated, explanation, witness };
        return OracleResult::from_items(ORACLE.id, name, ORACLE.item_kind, vec![item], None);
    }
    let note = b.cut_short(before.complete && after.complete, before.traces + after.traces);
    let explanation = vec![format!("{} and {} trace(s); racy locations: {}", before.traces, after.traces, before.racy.iter().cloned().collect::<Vec<_>>().join(", "))];
    let item = Item { subject, status: if note.is_some() { ItemStatus::Unknown } else { ItemStatus::Holds }, explanation, witness: None };
    OracleResult::from_items(ORACLE.id, name, ORACLE.item_kind, vec![item], note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    fn elided(src: &str) -> (String, usize) {
        let (q, n) = elide_locks(&parse(&format!("dialect simplejava\nclass R {{ fields f, o }}\n{src}")).unwrap());
        (print(&q).lines().filter(|l| l.starts_with("  ") || l.starts_with("thread")).collect::<Vec<_>>().join(" "), n)
    }

    #[test]
    fn only_blocks_on_fresh_unescaped_objects_are_elided() {
        // Fig. 4.1's shape: r0 is fresh at its sync and escapes only after it.
        assert_eq!(elided("thread { p = new R; r0 = new R; sync(r0) { r0.f = 11 }; p.o = r0 }\n").1, 1);
        // §5.3's shape: r escapes inside the block; the decision is taken at entry.
        assert_eq!(elided("thread { p = new R; r = new R; sync(r) { p.o = r; r.f = 1 } }\n").1, 1);
        // Published, passed, copied or forked before the block: kept.
        for before in ["p.o = r", "x = r", "r2 = new R; r2.o = r"] {
            assert_eq!(elided(&format!("thread {{ p = new R; r = new R; {before}; sync(r) {{ r.f = 1 }} }}\n")).1, 0, "{before}");
        }
        // Escaping in a branch counts; a lock that is no fresh object is kept.
        assert_eq!(elided("thread { p = new R; r = new R; if p != null { p.o = r }; sync(r) { r.f = 1 } }\n").1, 0);
        assert_eq!(elided("thread { p = new R; x = p.o; if x != null { sync(x) { x.f = 1 } } }\n").1, 0);
    }
}
