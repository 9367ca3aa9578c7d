//! Oracle `racerdx-complete`: the analysis loses nothing with respect to the abstraction of
//! the bounded syntactic traces (Theorem 5.15 with Lemma 5.9; docs/spec/racerdx.md §4.1–4.2):
//! for every method of an ANF program with balanced locking, `[[mbody(m)]]# ⊥ = α(T)`,
//! where T are the syntactic traces of the body with calls unfolded (`push`/`pop`) and each
//! `while *` unrolled 0 to K times (under A2, 0 or 1 already realizes every contribution).
//!
//! α is computed here the plain way, independently of any summary: enumerate the traces,
//! run `exec` (Fig. 8) along each with its stack of substitutions θ̄, and join. Lock levels
//! use plain arithmetic (no L̂), which equals the paper's α whenever L̂ is at least the
//! nesting depth, the regime the theorem needs.

use std::collections::{BTreeMap, BTreeSet};

use super::result::{Item, ItemStatus, OracleResult};
use super::static_race::{Access, AccessPath, StaticRaceAnalysis, Summary};
use super::Verdict;
use super::{Budget, Oracle, Reads, Sut, SutKind, Unexercised};
use crate::lang::{validate_relaxed, AccessKind, Cond, Dialect, Expr, Method, Place, Program, Relax, StmtKind};

/// The registry entry. Under A2 one unrolling of each loop realizes every contribution
/// (spec §4.1), so α unrolls each `while *` 0 or 1 times whatever the budget's loop bound.
pub const ORACLE: Oracle = Oracle {
    id: "racerdx-complete",
    claim: "RacerDX summaries equal α of the bounded syntactic traces (Theorem 5.15)",
    spec: "spec/racerdx.md §4.1–4.2",
    dialect: Dialect::RacerDx,
    sut: SutKind::StaticRaceAnalysis,
    item_kind: "method",
    negative_control: false,
    atomics: false,
    reads: Reads::Summaries,
    unexercised: &[Unexercised {
        table: "RacerDX reporting",
        why: "racerdx-complete judges the method summaries (spec/racerdx.md §4.2, Theorem 5.15) and never asks RacerDX for reports (§3.4)",
    }],
    scorecard: false,
    operational: None,
    generate: crate::gen::racerdx::swarm,
    grammar: &crate::gen::racerdx::GRAMMAR,
    check: check_entry,
};

fn check_entry(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    let Sut::Static(a) = sut else { return ORACLE.wrong_sut(sut) };
    let r = check(p, *a, 1, b.relax, Bound::of(b));
    let items = r
        .methods
        .into_iter()
        .map(|c| {
            let (status, mark) = if c.equal { (ItemStatus::Holds, "=") } else { (ItemStatus::Violated, "≠") };
            Item { subject: c.method, status, explanation: vec![format!("analysis {}", c.analysis), format!("{mark} α      {}", c.alpha)], witness: None }
        })
        .collect();
    let mut out = OracleResult::from_items(ORACLE.id, a.name(), ORACLE.item_kind, items, r.note);
    if r.verdict == Verdict::Inconclusive {
        out.verdict = Verdict::Inconclusive;
    }
    out
}

/// One command of a syntactic trace.
#[derive(Clone, Debug)]
enum Cmd {
    Copy(String, String),
    Load(String, AccessPath, u32),
    Store(AccessPath, String, u32),
    New(String),
    Lock,
    Unlock,
    Push(Vec<AccessPath>, u32),
    Pop,
}

/// The oracle's result.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CompleteResult {
    /// Pass, fail or inconclusive.
    pub verdict: Verdict,
    /// Per method: the analysis's summary, α, and whether they agree.
    pub methods: Vec<MethodCheck>,
    /// Set when a precondition is unmet or a budget is hit.
    pub note: Option<String>,
}

/// One method's comparison.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MethodCheck {
    /// The method.
    pub method: String,
    /// `[[mbody]]# ⊥` from the analysis.
    pub analysis: String,
    /// α of the bounded syntactic traces.
    pub alpha: String,
    /// Whether they are equal.
    pub equal: bool,
}

/// At most this many syntactic traces per method (beyond it: inconclusive).
pub const MAX_TRACES: usize = 20_000;

/// At most this many commands per syntactic trace on average: α's cost is the total length
/// of the traces, and nested calls make one trace exponentially long in the program's size
/// (six calls to a method that calls six times: 36 unfolded bodies), so counting traces
/// alone let one 256-byte fuzz input take seconds. The campaign's generated programs stay
/// far below it.
pub const COMMANDS_PER_TRACE: usize = 64;

/// What α may enumerate per method: traces, and commands over all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    /// Syntactic traces.
    pub traces: usize,
    /// Commands, summed over the traces.
    pub commands: usize,
}

impl Bound {
    /// The bound under budget `b`: [`MAX_TRACES`], or the budget's execution count if
    /// smaller (a syntactic trace is this oracle's execution), so that a fuzz target's small
    /// budget bounds α as it bounds the explorers; [`COMMANDS_PER_TRACE`] times that many
    /// commands.
    pub fn of(b: &Budget) -> Self {
        Self::traces(MAX_TRACES.min(usize::try_from(b.explore.max_executions).unwrap_or(usize::MAX)))
    }

    /// At most `traces` traces of [`COMMANDS_PER_TRACE`] commands on average.
    pub fn traces(traces: usize) -> Self {
        Self { traces, commands: traces.saturating_mul(COMMANDS_PER_TRACE) }
    }
}

/// Why α was not computed: the method has more traces, or longer ones, than its [`Bound`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("method {method} has more than {limit} {what}")]
pub struct Cut {
    /// The method.
    pub method: String,
    /// The limit passed.
    pub limit: usize,
    /// `syntactic traces`, or `commands in its syntactic traces`.
    pub what: &'static str,
}

/// Compares the analysis's summaries with α, for every method.
pub fn check(p: &Program, analysis: &dyn StaticRaceAnalysis, loop_bound: u32, relax: Relax, bound: Bound) -> CompleteResult {
    let pre =
        if p.dialect != Dialect::RacerDx { Some("racerdx-complete applies to racerdx programs only".to_string()) } else { validate_relaxed(p, relax).err().map(|e| e.to_string()) };
    if let Some(note) = pre {
        return CompleteResult { verdict: Verdict::Inconclusive, methods: vec![], note: Some(note) };
    }
    let mut methods = vec![];
    for m in &p.methods {
        let Some(sum) = analysis.summary(p, &m.name) else {
            return CompleteResult { verdict: Verdict::Inconclusive, methods, note: Some(format!("{} gives no summaries", analysis.name())) };
        };
        let a = match alpha(p, m, loop_bound, bound) {
            Ok(a) => a,
            Err(cut) => return CompleteResult { verdict: Verdict::Inconclusive, methods, note: Some(cut.to_string()) },
        };
        methods.push(MethodCheck { method: m.name.clone(), analysis: sum.to_string(), alpha: a.to_string(), equal: sum == a });
    }
    let verdict = if methods.iter().all(|c| c.equal) { Verdict::Pass } else { Verdict::Fail };
    CompleteResult { verdict, methods, note: None }
}

/// α of the syntactic traces of method `m`'s body.
///
/// # Errors
/// When the traces pass `bound`.
pub fn alpha(p: &Program, m: &Method, k: u32, bound: Bound) -> Result<Summary, Cut> {
    alpha_with_sites(p, m, k, bound).map(|(s, _)| s)
}

/// The sites of each access of α: the call lines of the trace's open `push`es, then the
/// access line (the convention of [`super::static_race::ReportSide::sites`]).
pub type Sites = BTreeMap<Access, BTreeSet<Vec<u32>>>;

/// α with the sites of each access.
///
/// The traces are enumerated depth-first and folded into α as each one ends, so memory
/// stays proportional to one trace, not to their number.
///
/// # Errors
/// When the traces pass `bound`.
pub fn alpha_with_sites(p: &Program, m: &Method, k: u32, bound: Bound) -> Result<(Summary, Sites), Cut> {
    let mut out = Summary::default();
    let mut sites = Sites::new();
    let (mut traces, mut commands) = (0, 0);
    let mut cut = None;
    let mut trace = vec![];
    let done = walk(p, vec![Work::Block(&m.body)], k, &mut trace, &mut |t| {
        traces += 1;
        commands += t.len();
        if traces > bound.traces {
            cut = Some((bound.traces, "syntactic traces"));
            return false;
        }
        if commands > bound.commands {
            cut = Some((bound.commands, "commands in its syntactic traces"));
            return false;
        }
        let s = exec(t, &mut sites);
        out.w.extend(s.w);
        out.l = out.l.max(s.l);
        out.a.extend(s.a);
        true
    });
    match (done, cut) {
        (Some(()), _) => Ok((out, sites)),
        (None, Some((limit, what))) => Err(Cut { method: m.name.clone(), limit, what }),
        // OK since validation rejects a call to an undeclared method before any oracle runs.
        (None, None) => Err(Cut { method: m.name.clone(), limit: 0, what: "calls to undeclared methods" }),
    }
}

fn path(p: &Place) -> AccessPath {
    match p {
        Place::Field { base, fields } => AccessPath::new(base, fields),
        Place::Index { base, .. } => AccessPath::new(base, &[]),
    }
}

/// What is left to run: statement sequences and the `pop` that ends a call.
#[derive(Clone)]
enum Work<'a> {
    Block(&'a [crate::lang::Stmt]),
    Pop,
}

/// Enumerates every syntactic trace (calls unfolded between `push`/`pop`, each `while *`
/// unrolled 0..=k times), calling `leaf` on each; `None` when `leaf` asks to stop.
fn walk<'a>(p: &'a Program, mut work: Vec<Work<'a>>, k: u32, trace: &mut Vec<Cmd>, leaf: &mut impl FnMut(&[Cmd]) -> bool) -> Option<()> {
    let mark = trace.len();
    let result = loop {
        let Some(w) = work.pop() else {
            break if leaf(trace) { Some(()) } else { None };
        };
        let stmts = match w {
            Work::Pop => {
                trace.push(Cmd::Pop);
                continue;
            }
            Work::Block(stmts) => stmts,
        };
        let Some((s, rest)) = stmts.split_first() else { continue };
        work.push(Work::Block(rest));
        match &s.kind {
            StmtKind::Assign { dst, src: Expr::Var(y) } => trace.push(Cmd::Copy(dst.clone(), y.clone())),
            StmtKind::Load { dst, src } => trace.push(Cmd::Load(dst.clone(), path(src), s.line.0)),
            StmtKind::Store { dst, src: Expr::Var(x) } => trace.push(Cmd::Store(path(dst), x.clone(), s.line.0)),
            StmtKind::New { dst, .. } => trace.push(Cmd::New(dst.clone())),
            StmtKind::Lock => trace.push(Cmd::Lock),
            StmtKind::Unlock => trace.push(Cmd::Unlock),
            StmtKind::If { cond: Cond::Star, then_b, else_b } => {
                for b in [then_b, else_b] {
                    let mut w2 = work.clone();
                    w2.push(Work::Block(b));
                    walk(p, w2, k, trace, leaf)?;
                }
                break Some(());
            }
            StmtKind::While { cond: Cond::Star, body, .. } => {
                for n in 0..=k {
                    let mut w2 = work.clone();
                    w2.extend((0..n).map(|_| Work::Block(body.as_slice())));
                    walk(p, w2, k, trace, leaf)?;
                }
                break Some(());
            }
            StmtKind::Call { method, args, .. } => {
                let callee = p.method(method)?;
                let actuals = args
                    .iter()
                    .map(|a| match a {
                        Expr::Var(v) => AccessPath::new(v, &[]),
                        Expr::Path(pl) => path(pl),
                        _ => AccessPath::new("?", &[]),
                    })
                    .collect();
                trace.push(Cmd::Push(actuals, s.line.0));
                work.push(Work::Pop);
                work.push(Work::Block(&callee.body));
            }
            _ => {}
        }
    };
    trace.truncate(mark);
    result
}

/// `e^θ̄` (Fig. 8): resolve through the substitution stack; `None` for locals.
fn under(e: &AccessPath, stack: &[Vec<AccessPath>]) -> Option<AccessPath> {
    match stack.split_last() {
        None => e.is_formal_rooted().then(|| e.clone()),
        Some((theta, rest)) => {
            let i = crate::lang::formal_index(&e.root)?;
            let actual = theta.get(i.checked_sub(1)?)?;
            let mut fields = actual.fields.clone();
            fields.extend(e.fields.iter().cloned());
            under(&AccessPath { root: actual.root.clone(), fields }, rest)
        }
    }
}

/// `exec` of one syntactic trace from `(⊥, ε)`, adding the site of each access to `sites`.
fn exec(t: &[Cmd], sites: &mut Sites) -> Summary {
    let mut s = Summary::default();
    let mut stack: Vec<Vec<AccessPath>> = vec![];
    let mut calls: Vec<u32> = vec![];
    let mut record = |s: &mut Summary, access: Access, calls: &[u32], line: u32| {
        sites.entry(access.clone()).or_default().insert(calls.iter().copied().chain([line]).collect());
        s.a.insert(access);
    };
    let var = |x: &str| AccessPath::new(x, &[]);
    for c in t {
        let mut wob: Vec<AccessPath> = vec![];
        match c {
            Cmd::Copy(x, y) => wob.extend([var(x), var(y)]),
            Cmd::Load(x, pi, line) => {
                wob.extend([var(x), pi.clone()]);
                if let Some(q) = under(pi, &stack) {
                    let level = s.l;
                    record(&mut s, (AccessKind::Read, q, level), &calls, *line);
                }
            }
            Cmd::Store(pi, x, line) => {
                wob.extend([var(x), pi.clone()]);
                if let Some(q) = under(pi, &stack) {
                    let level = s.l;
                    record(&mut s, (AccessKind::Write, q, level), &calls, *line);
                }
            }
            Cmd::New(x) => wob.push(var(x)),
            Cmd::Lock => s.l += 1,
            Cmd::Unlock => s.l = s.l.saturating_sub(1),
            Cmd::Push(actuals, line) => {
                calls.push(*line);
                for (i, ei) in actuals.iter().enumerate() {
                    if actuals.iter().enumerate().any(|(j, ej)| j != i && ei.prefix_of(ej)) {
                        wob.push(ei.clone());
                    }
                }
                // The prefix actuals are resolved in the caller's context, before the push.
                s.w.extend(wob.drain(..).filter_map(|e| under(&e, &stack)));
                stack.push(actuals.clone());
            }
            Cmd::Pop => {
                calls.pop();
                stack.pop();
            }
        }
        s.w.extend(wob.iter().filter_map(|e| under(e, &stack)));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    #[test]
    fn wurble_alpha_matches_the_paper() {
        let p = parse("dialect racerdx\nmethod qwop(arg1) { zwup(arg1.x) }\nmethod zwup(arg1) { lock; t = arg1.x.g; unlock; arg1 = new; v = new; arg1.g.f = v }\n").unwrap();
        let a = alpha(&p, &p.methods[0], 2, Bound::traces(MAX_TRACES)).unwrap();
        assert_eq!(a.to_string(), "⟨{arg1.x, arg1.x.g.f, arg1.x.x.g}, 0, {⟨R,arg1.x.x.g,1⟩, ⟨W,arg1.x.g.f,0⟩}⟩");
    }

    #[test]
    fn long_traces_are_cut_by_their_commands_not_only_by_their_number() {
        // One trace per method, but m3's unfolds m2's six calls of m1 six times over.
        let m1 = "method m1(arg1) { x = arg1.f; arg1.f = x }\n";
        let m2 = format!("method m2(arg1) {{ {} }}\n", ["m1(arg1)"; 6].join("; "));
        let m3 = format!("method m3(arg1) {{ {} }}\n", ["m2(arg1)"; 6].join("; "));
        let p = parse(&format!("dialect racerdx\n{m1}{m2}{m3}")).unwrap();
        // 36 calls of m1 with 2 accesses each, plus a push and a pop per call.
        assert!(alpha(&p, &p.methods[2], 1, Bound { traces: 1, commands: 36 * 2 + 2 * 42 }).is_ok());
        let cut = alpha(&p, &p.methods[2], 1, Bound { traces: 1, commands: 36 * 2 + 2 * 42 - 1 }).unwrap_err();
        assert_eq!(cut.to_string(), "method m3 has more than 155 commands in its syntactic traces");
        let cut = alpha(&p, &p.methods[0], 1, Bound { traces: 0, commands: 100 }).unwrap_err();
        assert_eq!(cut.to_string(), "method m1 has more than 0 syntactic traces");
    }
}
