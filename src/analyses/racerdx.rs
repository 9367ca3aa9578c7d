//! RacerDX ([Gorogiannis et al. 2019] in docs/references.md), the system under test of the
//! `racerdx-tp` and `racerdx-complete` oracles. Spec: docs/spec/racerdx.md §3.
//!
//! One concept, the RacerDX analysis of the paper, with its seeded bugs (over 600 lines: the
//! transfer functions, the summaries and the report rules belong together).
//!
//! The abstract domain is `⟨W, L, A⟩` (Def. 4.2): wobbly expressions, the lock level capped
//! at L̂, and the accesses with their lock levels. Transfer functions are Fig. 7 (rebuilt in
//! spec §3.2); method summaries are computed bottom-up from ⊥ and applied at call sites with
//! a simultaneous substitution θ, the `fml` filter and the call-site prefix rule
//! `Pre(ē) = { e_i | ∃ j ≠ i. e_i ≼ e_j }`; branches join with max on L (Def. 4.3); loops
//! iterate to a fixpoint. A pair of accesses of two methods (a method with itself too) is
//! reported when the field sequences are equal, at least one is a write, `L1 + L2 ≤ 1`, and
//! both paths are stable: no wobbly expression of the method is a proper prefix (§3.4).
//!
//! Choices, as the spec recommends (§7): L̂ defaults to `max(1, d)` with d the static
//! lock-nesting depth over call chains (item 6); the one-sided non-strict `Pre` (item 4);
//! max join (item 7); roots may differ (item 8); every pair of methods including self-pairs
//! (item 9); accesses are keyed by (kind, path, level) and carry their sites: the call chain of
//! lines down to the access statement (item 11).
//!
//! **RacerD-like** (`Options { stability: false, .. }`) is the same analysis without the stability
//! filter. RacerD's ownership domain (§5.1) only protects paths rooted at variables that
//! hold fresh objects; in IL those are locals or reassigned formals, and accesses through
//! locals are already dropped by `fml`, so on IL the difference from RacerDX is exactly the
//! stability filter (which is how RacerD reports the Burble false race, §6.1).
//!
//! The seeded bugs ([`SEEDED`], listed by the seeded-bug catalogue) are changes to the [`Options`].

use std::collections::{BTreeMap, BTreeSet};

use race_oracles::lang::{AccessKind, Block, Cond, Expr, Place, Program, Relax, StmtKind};
use race_oracles::rule_cases;
use race_oracles::theorems::rules::fire;
use race_oracles::theorems::{AccessPath, AnalysisFailure, RaceReport, ReportSide, StaticRaceAnalysis, Summary};

use crate::seeded::{Predicted, Seeded};

rule_cases! {
    /// The cases of RacerDX's summary rules (docs/spec/racerdx.md §3.1–3.3): the Fig. 7 transfer
    /// functions, the call rule's parts and the lock bound, each where the analysis decides
    /// it.
    pub enum RacerDxRule in RACERDX_RULES = "RacerDX summaries", "racerdx.md §3.1-3.3" {
        /// `x := y` with a formal on either side: `wobbly` adds it.
        CopyWobbly => "x := y makes a formal wobbly", "§3.2 wobbly";
        /// `x := π` through a formal: a read recorded at the pre-state L.
        Read => "x := π records a read", "§3.2 accs";
        /// `π := x` through a formal: a write recorded at L.
        Write => "π := x records a write", "§3.2 accs";
        /// A load or store through a local: `fml` drops it (a deliberate false negative).
        LocalDropped => "access through a local dropped (fml)", "§3.2 fml";
        /// `arg_i := new()`: the formal becomes wobbly.
        NewWobbly => "arg := new() makes it wobbly", "§3.2 wobbly";
        /// `lock()` below L̂: incr(L).
        Lock => "lock: incr(L)", "§3.2 locking";
        /// `lock()` at L̂: the level saturates and a lock level is lost.
        LockSaturates => "lock at L̂ saturates", "§3.3", rare "L̂ defaults to max(1, d) with d the static lock-nesting depth over call chains, and the generator writes only whole lock blocks, so no lock reaches past L̂ (§3.3); only an explicit lock bound below d, a mutant, saturates";
        /// `unlock()`: decr(L).
        Unlock => "unlock: decr(L)", "§3.2 locking";
        /// `if *`: the branches' states joined (Def. 4.3).
        IfJoin => "if: branches joined", "§3.2 if, Def 4.3";
        /// The branches end at different lock levels: max decides.
        IfLevelsDiffer => "if: branches end at different L (max)", "Def 4.3, §6.3(c)", rare "the generator writes only whole lock blocks (A2; a stray unlock clamps at 0 and a callee's summary starts at ⊥), so both branches end at the level they start at (Lemma 5.9): max and min agree";
        /// `while *`: the body adds to the state, so the loop is iterated again.
        LoopGrows => "while: body grows the state, iterated", "§3.2 while (lfp)";
        /// `while *`: the body adds nothing new, stable at once.
        LoopStable => "while: stable after one pass", "§3.2 while (lfp)";
        /// A call: the callee's summary from ⊥, shifted into the caller's state.
        Call => "call: summary instantiated", "§3.2 call";
        /// θ maps `arg_i` to an actual with fields: `arg_i.f̄[θ] = e_i.f̄` concatenates.
        CallConcat => "call: θ concatenates an actual's fields", "§3.2 call †";
        /// An actual rooted at a later formal of the caller (`m(arg2, arg1)`): only a
        /// simultaneous θ keeps it from being substituted again.
        CallSwapped => "call: actual is another formal (θ simultaneous)", "§3.2 call †";
        /// A callee's wobbly expression survives θ and fml into the caller's W.
        CallWobbly => "call: callee's W imported", "§3.2 call";
        /// A callee's access whose substituted root is a caller local: fml drops it.
        CallFmlDrops => "call: access rooted at a local dropped", "§3.2 call (fml after θ)";
        /// `Pre(ē)`: an actual that is a prefix of (or equal to) another becomes wobbly.
        CallPrefix => "call: Pre(ē) adds an actual", "§3.2 call Pre";
        /// A callee's access instantiated under the caller's lock: add(L, L') with L ≥ 1.
        CallUnderLock => "call under a lock: add(L, L')", "§3.2 call add";
    }
}

rule_cases! {
    /// The cases of RacerDX's reporting step (docs/spec/racerdx.md §3.4) on a pair of accesses with
    /// the same field sequence: a table of its own because `racerdx-complete` judges
    /// summaries only and never asks for reports (its `Oracle::unexercised`).
    pub enum RacerDxReportRule in RACERDX_REPORT_RULES = "RacerDX reporting", "racerdx.md §3.4" {
        /// A write/write pair reported.
        ReportWriteWrite => "report write/write", "§3.4 items 1-4";
        /// A read/write pair reported.
        ReportReadWrite => "report read/write", "§3.4 item 2";
        /// A pair reported with exactly one side under a lock (L1 + L2 = 1).
        ReportOneLocked => "report with one side locked", "§3.4 item 3";
        /// A pair reported whose roots differ (`arg1.f` against `arg2.f`).
        ReportRootsDiffer => "report with different roots", "§3.4 item 1";
        /// A method paired with itself, an access with itself (a write racing with itself).
        ReportSelfAccess => "report an access against itself", "§3.4 (m1 = m2, a1 = a2)";
        /// A reported path that is itself wobbly: only a proper prefix destabilizes.
        ReportTouchedStable => "report a path that is itself in W", "§3.1 Def 4.1, §3.4 item 4";
        /// Same fields, both reads: not reported.
        RejectReadRead => "no report: read/read", "§3.4 item 2";
        /// Same fields, a write, but L1 + L2 > 1.
        RejectLocked => "no report: both locked (L1 + L2 > 1)", "§3.4 item 3";
        /// Same fields, a write, locks allow it, but a side is unstable.
        RejectUnstable => "no report: a side unstable", "§3.4 item 4";
    }
}

/// How branches join on the lock level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Join {
    /// `max` (Def. 4.3, the paper's).
    Max,
    /// `min` (the Lemma 5.11 proof's wording; a seeded bug).
    Min,
}

/// The reporting condition on lock levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockRule {
    /// `L1 + L2 ≤ 1` (the paper's).
    SumAtMostOne,
    /// `min(L1, L2) = 0` (what the proof uses; spec §7.5).
    MinZero,
    /// `L1 + L2 ≤ 2` (a seeded bug).
    SumAtMostTwo,
}

/// Analysis options; [`Options::default`] is RacerDX as the paper defines it.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// L̂; `None` = `max(1, static lock-nesting depth)`.
    pub lock_bound: Option<u32>,
    /// Report only stable paths (RacerDX); `false` = RacerD-like.
    pub stability: bool,
    /// The join on L.
    pub join: Join,
    /// Add `Pre(ē)` to W at call sites.
    pub call_prefix_rule: bool,
    /// Apply θ simultaneously (a sequential application is a seeded bug).
    pub simultaneous: bool,
    /// The lock condition for reports.
    pub lock_rule: LockRule,
    /// Seeded bugs (all off in the paper's analysis).
    pub bugs: Bugs,
}

/// Seeded bugs that are not a choice the paper discusses: each is a realistic slip in one
/// transfer function or in the reporting step ([`SEEDED`] says what each breaks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)] // one switch per seeded bug, each read in one place
pub struct Bugs {
    /// The reporting step returns nothing.
    pub reports_nothing: bool,
    /// Pairs at lock levels (0, 1) are dropped: only `L1 = L2 = 0` is reported.
    pub drop_0_1_pairs: bool,
    /// A method is never paired with itself.
    pub no_self_pairs: bool,
    /// Read/write pairs are dropped: only write/write is reported.
    pub write_write_only: bool,
    /// Stability with `≼` instead of `≺`: touching π itself destabilizes π.
    pub stability_non_strict: bool,
    /// `x := y` adds nothing to W.
    pub copy_not_wobbly: bool,
    /// `arg_i := new()` adds nothing to W.
    pub new_not_wobbly: bool,
    /// At call sites, accesses whose substituted path is rooted at a caller local are kept.
    pub no_fml_after_call: bool,
    /// `Pre(ē)` symmetric (Lemma 5.13's `WB(ē)`): the longer actual is wobbly too.
    pub prefix_rule_symmetric: bool,
    /// A callee's accesses keep the callee's lock level, without the caller's.
    pub call_level_not_added: bool,
    /// A loop body is analysed once, without iterating to the fixpoint.
    pub loop_single_pass: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { lock_bound: None, stability: true, join: Join::Max, call_prefix_rule: true, simultaneous: true, lock_rule: LockRule::SumAtMostOne, bugs: Bugs::default() }
    }
}

/// A seeded bug of RacerDX: what it changes in the [`Options`], or in the assumptions the
/// oracles check (`unlock-clamp-unbalanced` feeds programs outside A2).
pub type Tweak = fn(&mut Options, &mut Relax);

/// Its seeded bugs (`--mutant NAME`), with what the spec predicts under each oracle
/// (the seeded-bug catalogue lists them).
pub const SEEDED: &[Seeded<Tweak>] = &[
    Seeded {
        name: "no-stability-filter",
        oracle: "racerdx-tp",
        description: "report unstable paths too (RacerD-like); Burble's meps ∥ beps becomes a report",
        predicted: Predicted::breaks(&["racerdx-tp", "racerdx-reports"]).and_equivalent(&["racerdx-complete"]),
        spec: "spec/racerdx.md §6.3(e), §6.1 Burble",
        bug: |o, _| o.stability = false,
    },
    Seeded {
        name: "lock-bound-1",
        oracle: "racerdx-tp",
        description: "L̂ = 1 whatever the nesting depth: `lock; lock; unlock` saturates and drops a level",
        predicted: Predicted::breaks(&["racerdx-tp", "racerdx-complete", "racerdx-reports"]),
        spec: "spec/racerdx.md §6.3(a), §3.3",
        bug: |o, _| o.lock_bound = Some(1),
    },
    Seeded {
        name: "min-join",
        oracle: "racerdx-tp",
        description: "join lock levels with min instead of max",
        predicted: Predicted::equivalent(&["racerdx-tp", "racerdx-complete", "racerdx-reports"]),
        spec: "spec/racerdx.md §6.3(c): only branch-unbalanced locking (outside A2) shows it",
        bug: |o, _| o.join = Join::Min,
    },
    Seeded {
        name: "unlock-clamp-unbalanced",
        oracle: "racerdx-tp",
        description: "accept programs with an unmatched unlock (A2 (ii) unchecked); the analysis clamps decr(0) = 0",
        predicted: Predicted::breaks(&["racerdx-tp", "racerdx-complete"]),
        spec: "spec/racerdx.md §6.3(b); §6.3(d): without A2 the max join also breaks completeness",
        bug: |_, r| r.balanced_locking = true,
    },
    Seeded {
        name: "no-call-prefix-rule",
        oracle: "racerdx-complete",
        description: "omit Pre(ē) from W at call sites",
        predicted: Predicted::breaks(&["racerdx-complete", "racerdx-reports"]),
        spec: "spec/racerdx.md §6.3(f) (exploratory for the TPT); Fig. 8 push row for α",
        bug: |o, _| o.call_prefix_rule = false,
    },
    Seeded {
        name: "substitution-not-simultaneous",
        oracle: "racerdx-complete",
        description: "apply θ = [arg1 ↦ e1, arg2 ↦ e2] one binding at a time",
        predicted: Predicted::breaks(&["racerdx-complete", "racerdx-reports"]),
        spec: "spec/racerdx.md §3.2 (θ must be simultaneous)",
        bug: |o, _| o.simultaneous = false,
    },
    Seeded {
        name: "lock-sum-2",
        oracle: "racerdx-tp",
        description: "report when L1 + L2 ≤ 2, so two protected accesses are reported",
        predicted: Predicted::breaks(&["racerdx-tp", "racerdx-reports"]).and_equivalent(&["racerdx-complete"]),
        spec: "spec/racerdx.md §3.4 item 3",
        bug: |o, _| o.lock_rule = LockRule::SumAtMostTwo,
    },
    Seeded {
        name: "reports-nothing",
        oracle: "racerdx-reports",
        description: "the reporting step returns no report at all (summaries intact)",
        // No report is no false positive, and the summaries are untouched.
        predicted: Predicted::breaks(&["racerdx-reports"]).and_equivalent(&["racerdx-tp", "racerdx-complete"]),
        spec: "spec/racerdx.md §3.4 (a bug that only removes reports)",
        bug: |o, _| o.bugs.reports_nothing = true,
    },
    Seeded {
        name: "drop-0-1-pairs",
        oracle: "racerdx-reports",
        description: "report only pairs at lock levels (0, 0): one protected side drops the pair",
        predicted: Predicted::breaks(&["racerdx-reports"]).and_equivalent(&["racerdx-tp", "racerdx-complete"]),
        spec: "spec/racerdx.md §3.4 item 3 (L1 + L2 ≤ 1 admits (0, 1))",
        bug: |o, _| o.bugs.drop_0_1_pairs = true,
    },
    Seeded {
        name: "no-self-pairs",
        oracle: "racerdx-reports",
        description: "never pair a method with itself (Dodo's zup ∥ zup is lost)",
        predicted: Predicted::breaks(&["racerdx-reports"]).and_equivalent(&["racerdx-tp", "racerdx-complete"]),
        spec: "spec/racerdx.md §3.4 (every pair, a method with itself included)",
        bug: |o, _| o.bugs.no_self_pairs = true,
    },
    Seeded {
        name: "write-write-only",
        oracle: "racerdx-reports",
        description: "report write/write pairs only, dropping read/write",
        predicted: Predicted::breaks(&["racerdx-reports"]).and_equivalent(&["racerdx-tp", "racerdx-complete"]),
        spec: "spec/racerdx.md §3.4 item 2 (at least one write)",
        bug: |o, _| o.bugs.write_write_only = true,
    },
    Seeded {
        name: "stability-non-strict",
        oracle: "racerdx-reports",
        description: "judge stability with ≼ instead of ≺, so touching π itself destabilizes π (nearly every report goes)",
        predicted: Predicted::breaks(&["racerdx-reports"]).and_equivalent(&["racerdx-tp", "racerdx-complete"]),
        spec: "spec/racerdx.md §3.1 (stable iff no element of W is a *proper* prefix)",
        bug: |o, _| o.bugs.stability_non_strict = true,
    },
    Seeded {
        name: "copy-not-wobbly",
        oracle: "racerdx-complete",
        description: "`x := y` adds neither variable to W, so `arg1 := x` leaves arg1's paths stable",
        predicted: Predicted::breaks(&["racerdx-tp", "racerdx-complete", "racerdx-reports"]),
        spec: "spec/racerdx.md §3.2 (wobbly W (x := e) = W ∪ fml{x, e}); copies were once never generated",
        bug: |o, _| o.bugs.copy_not_wobbly = true,
    },
    Seeded {
        name: "new-not-wobbly",
        oracle: "racerdx-tp",
        description: "`arg_i := new()` adds nothing to W, so paths through a fresh object are reported",
        predicted: Predicted::breaks(&["racerdx-tp", "racerdx-complete", "racerdx-reports"]),
        spec: "spec/racerdx.md §3.2 (wobbly W (x := new()) = W ∪ fml{x})",
        bug: |o, _| o.bugs.new_not_wobbly = true,
    },
    Seeded {
        name: "no-fml-after-call",
        oracle: "racerdx-complete",
        description: "keep a callee's accesses whose substituted path is rooted at a caller local (a local actual)",
        predicted: Predicted::breaks(&["racerdx-tp", "racerdx-complete", "racerdx-reports"]),
        spec: "spec/racerdx.md §3.2 (fml after substitution); local actuals were once never generated",
        bug: |o, _| o.bugs.no_fml_after_call = true,
    },
    Seeded {
        name: "prefix-rule-symmetric",
        oracle: "racerdx-complete",
        description: "Pre(ē) symmetric as Lemma 5.13's WB(ē): the longer actual is wobbly too",
        // racerdx-tp: more wobbly paths only remove reports; no false positive can appear.
        // racerdx-reports: W grows but no report changes: the extra e_j has e_i ≼ e_j
        // already in W, so every path e_j makes unstable (e_j ≺ π) was unstable (e_i ≺ π);
        // substitution and fml keep the prefix relation.
        predicted: Predicted::breaks(&["racerdx-complete"]).and_equivalent(&["racerdx-tp", "racerdx-reports"]),
        spec: "spec/racerdx.md §3.2 and §7 item 4 (the one-sided Pre of Fig. 8)",
        bug: |o, _| o.bugs.prefix_rule_symmetric = true,
    },
    Seeded {
        name: "call-level-not-added",
        oracle: "racerdx-tp",
        description: "a callee's accesses keep the callee's lock level, forgetting the caller's (a call under lock looks unprotected)",
        predicted: Predicted::breaks(&["racerdx-tp", "racerdx-complete", "racerdx-reports"]),
        spec: "spec/racerdx.md §3.2 (A ∪ fml{⟨c[θ], add(L, L')⟩})",
        bug: |o, _| o.bugs.call_level_not_added = true,
    },
    Seeded {
        name: "loop-single-pass",
        oracle: "racerdx-complete",
        description: "analyse a loop body once instead of iterating to the fixpoint",
        // Under A2 the body leaves L unchanged and A depends only on L, so the second
        // iteration adds nothing: one pass is the fixpoint (the proof of Lemma 5.11).
        predicted: Predicted::equivalent(&["racerdx-tp", "racerdx-complete", "racerdx-reports"]),
        spec: "spec/racerdx.md §3.2 (under A2 one iteration suffices)",
        bug: |o, _| o.bugs.loop_single_pass = true,
    },
];

/// The options and oracle relaxations the named mutants select (none: the real analysis);
/// `None` if a name is not one of [`SEEDED`]. Mutants combine
/// (`min-join+unlock-clamp-unbalanced` shows §6.3(c), which needs both the min join and a
/// program outside A2).
pub fn options(names: &[&str]) -> Option<(Options, Relax)> {
    let mut opts = Options::default();
    let mut relax = Relax::default();
    for tweak in crate::seeded::select(SEEDED, names)? {
        tweak(&mut opts, &mut relax);
    }
    Some((opts, relax))
}

/// The analysis.
#[derive(Clone, Copy, Debug, Default)]
pub struct RacerDx {
    /// Its options.
    pub opts: Options,
}

type Key = (AccessKind, AccessPath, u32);

/// The abstract state, with the sites (call chains of lines) of each access attached.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Dom {
    w: BTreeSet<AccessPath>,
    l: u32,
    a: BTreeMap<Key, BTreeSet<Vec<u32>>>,
}

/// Per-program context: L̂ and memoized summaries.
struct Ctx<'p> {
    p: &'p Program,
    opts: Options,
    bound: u32,
    summaries: BTreeMap<String, Dom>,
}

/// The static lock-nesting depth of a block over call chains (finite: no recursion, A5).
pub fn nesting_depth(p: &Program, b: &Block) -> u32 {
    fn go(p: &Program, b: &Block, depth: u32, seen: &mut Vec<String>) -> u32 {
        let mut cur = depth;
        let mut max = depth;
        for s in b {
            match &s.kind {
                StmtKind::Lock => {
                    cur += 1;
                    max = max.max(cur);
                }
                StmtKind::Unlock => cur = cur.saturating_sub(1),
                StmtKind::If { then_b, else_b, .. } => max = max.max(go(p, then_b, cur, seen)).max(go(p, else_b, cur, seen)),
                StmtKind::While { body, .. } => max = max.max(go(p, body, cur, seen)),
                StmtKind::Call { method, .. } if !seen.contains(method) => {
                    if let Some(m) = p.method(method) {
                        seen.push(method.clone());
                        max = max.max(go(p, &m.body, cur, seen));
                        seen.pop();
                    }
                }
                _ => {}
            }
        }
        max
    }
    go(p, b, 0, &mut vec![])
}

fn fml(e: AccessPath) -> Option<AccessPath> {
    e.is_formal_rooted().then_some(e)
}

fn var(x: &str) -> AccessPath {
    AccessPath::new(x, &[])
}

fn path_of(p: &Place) -> Option<AccessPath> {
    match p {
        Place::Field { base, fields } => Some(AccessPath::new(base, fields)),
        Place::Index { .. } => None,
    }
}

impl Ctx<'_> {
    fn add(&self, l: u32, k: u32) -> u32 {
        l.saturating_add(k).min(self.bound)
    }

    fn join(&self, a: Dom, b: Dom) -> Dom {
        let mut out = a;
        out.w.extend(b.w);
        out.l = match self.opts.join {
            Join::Max => out.l.max(b.l),
            Join::Min => out.l.min(b.l),
        };
        for (k, lines) in b.a {
            out.a.entry(k).or_default().extend(lines);
        }
        out
    }

    fn block(&mut self, b: &Block, mut d: Dom) -> Dom {
        for s in b {
            let line = s.line.0;
            match &s.kind {
                StmtKind::Assign { dst, src: Expr::Var(y) } if !self.opts.bugs.copy_not_wobbly => {
                    let (x, y) = (fml(var(dst)), fml(var(y)));
                    if x.is_some() || y.is_some() {
                        fire(RacerDxRule::CopyWobbly);
                    }
                    d.w.extend(x);
                    d.w.extend(y);
                }
                StmtKind::Load { dst, src } => {
                    if let Some(pi) = path_of(src) {
                        d.w.extend(fml(var(dst)));
                        d.w.extend(fml(pi.clone()));
                        if let Some(pi) = fml(pi) {
                            fire(RacerDxRule::Read);
                            d.a.entry((AccessKind::Read, pi, d.l)).or_default().insert(vec![line]);
                        } else {
                            fire(RacerDxRule::LocalDropped);
                        }
                    }
                }
                StmtKind::Store { dst, src } => {
                    if let Some(pi) = path_of(dst) {
                        if let Expr::Var(x) = src {
                            d.w.extend(fml(var(x)));
                        }
                        d.w.extend(fml(pi.clone()));
                        if let Some(pi) = fml(pi) {
                            fire(RacerDxRule::Write);
                            d.a.entry((AccessKind::Write, pi, d.l)).or_default().insert(vec![line]);
                        } else {
                            fire(RacerDxRule::LocalDropped);
                        }
                    }
                }
                StmtKind::New { dst, .. } if !self.opts.bugs.new_not_wobbly => {
                    if let Some(x) = fml(var(dst)) {
                        fire(RacerDxRule::NewWobbly);
                        d.w.insert(x);
                    }
                }
                StmtKind::Lock => {
                    fire(if d.l >= self.bound { RacerDxRule::LockSaturates } else { RacerDxRule::Lock });
                    d.l = self.add(d.l, 1);
                }
                StmtKind::Unlock => {
                    fire(RacerDxRule::Unlock);
                    d.l = d.l.saturating_sub(1);
                }
                StmtKind::If { cond: Cond::Star, then_b, else_b } => {
                    let a = self.block(then_b, d.clone());
                    let b = self.block(else_b, d);
                    fire(if a.l == b.l { RacerDxRule::IfJoin } else { RacerDxRule::IfLevelsDiffer });
                    d = self.join(a, b);
                }
                StmtKind::While { cond: Cond::Star, body, .. } => {
                    let mut grew = false;
                    loop {
                        let once = self.block(body, d.clone());
                        let next = self.join(d.clone(), once);
                        if next == d || self.opts.bugs.loop_single_pass {
                            d = next;
                            break;
                        }
                        grew = true;
                        d = next;
                    }
                    fire(if grew { RacerDxRule::LoopGrows } else { RacerDxRule::LoopStable });
                }
                StmtKind::Call { method, args, .. } => d = self.call(method, args, line, d),
                // Everything else is outside IL (the racerdx dialect rejects it).
                _ => {}
            }
        }
        d
    }

    fn summary(&mut self, method: &str) -> Dom {
        if let Some(s) = self.summaries.get(method) {
            return s.clone();
        }
        let Some(m) = self.p.method(method) else { return Dom::default() };
        let s = self.block(&m.body, Dom::default());
        self.summaries.insert(method.to_string(), s.clone());
        s
    }

    /// `e[θ]`: replaces a formal root `arg_i` by the actual `e_i`, concatenating fields.
    fn subst(&self, e: &AccessPath, theta: &[AccessPath]) -> AccessPath {
        let apply = |e: &AccessPath, i: usize, actual: &AccessPath| {
            if e.root == format!("arg{}", i + 1) {
                let mut fields = actual.fields.clone();
                fields.extend(e.fields.iter().cloned());
                AccessPath { root: actual.root.clone(), fields }
            } else {
                e.clone()
            }
        };
        if self.opts.simultaneous {
            match theta.iter().enumerate().find(|(i, _)| e.root == format!("arg{}", i + 1)) {
                Some((i, a)) => {
                    if !a.fields.is_empty() {
                        fire(RacerDxRule::CallConcat);
                    }
                    // A sequential θ would substitute `arg_j` again for a later j.
                    if race_oracles::lang::formal_index(&a.root).is_some_and(|j| j > i + 1 && j <= theta.len()) {
                        fire(RacerDxRule::CallSwapped);
                    }
                    apply(e, i, a)
                }
                None => e.clone(),
            }
        } else {
            // Seeded bug: [arg1 ↦ e1] then [arg2 ↦ e2] …, so an actual that mentions a later
            // formal is substituted again.
            theta.iter().enumerate().fold(e.clone(), |acc, (i, a)| apply(&acc, i, a))
        }
    }

    fn call(&mut self, method: &str, args: &[Expr], line: u32, mut d: Dom) -> Dom {
        fire(RacerDxRule::Call);
        let callee = self.summary(method);
        let theta: Vec<AccessPath> = args
            .iter()
            .map(|a| match a {
                Expr::Var(y) => var(y),
                Expr::Path(p) => path_of(p).unwrap_or_else(|| var("?")),
                _ => var("?"),
            })
            .collect();
        for e in &callee.w {
            if let Some(e) = fml(self.subst(e, &theta)) {
                fire(RacerDxRule::CallWobbly);
                d.w.insert(e);
            }
        }
        if self.opts.call_prefix_rule {
            for (i, ei) in theta.iter().enumerate() {
                let symmetric = self.opts.bugs.prefix_rule_symmetric;
                if theta.iter().enumerate().any(|(j, ej)| j != i && (ei.prefix_of(ej) || (symmetric && ej.prefix_of(ei)))) {
                    if let Some(e) = fml(ei.clone()) {
                        fire(RacerDxRule::CallPrefix);
                        d.w.insert(e);
                    }
                }
            }
        }
        for ((k, pi, l), sites) in &callee.a {
            let pi = self.subst(pi, &theta);
            if !pi.is_formal_rooted() {
                fire(RacerDxRule::CallFmlDrops);
            }
            let kept = if self.opts.bugs.no_fml_after_call { Some(pi) } else { fml(pi) };
            if let Some(pi) = kept {
                if d.l >= 1 {
                    fire(RacerDxRule::CallUnderLock);
                }
                let level = if self.opts.bugs.call_level_not_added { *l } else { self.add(d.l, *l) };
                let via = sites.iter().map(|s| std::iter::once(line).chain(s.iter().copied()).collect::<Vec<u32>>());
                d.a.entry((*k, pi, level)).or_default().extend(via);
            }
        }
        d.l = self.add(d.l, callee.l);
        d
    }
}

impl RacerDx {
    /// RacerDX with the paper's options.
    pub fn new(opts: Options) -> RacerDx {
        RacerDx { opts }
    }

    /// L̂ for a program.
    pub fn lock_bound(&self, p: &Program) -> u32 {
        self.opts.lock_bound.unwrap_or_else(|| p.methods.iter().map(|m| nesting_depth(p, &m.body)).max().unwrap_or(0).max(1))
    }

    fn ctx<'p>(&self, p: &'p Program) -> Ctx<'p> {
        Ctx { p, opts: self.opts, bound: self.lock_bound(p), summaries: BTreeMap::new() }
    }

    fn stable(&self, w: &BTreeSet<AccessPath>, pi: &AccessPath) -> bool {
        if self.opts.bugs.stability_non_strict {
            return !w.iter().any(|e| e.prefix_of(pi));
        }
        !w.iter().any(|e| e.proper_prefix_of(pi))
    }

    /// The §3.4 cases of a pair of accesses with the same field sequence, decided by the
    /// first condition that fails (items 2, 3, 4, in the spec's order), or, if the pair is
    /// reported, by what the report exercises.
    fn fire_pair_case((conflict, lock_ok, stable): (bool, bool, bool), same_method: bool, (a1, w1): (&Key, &BTreeSet<AccessPath>), (a2, w2): (&Key, &BTreeSet<AccessPath>)) {
        use RacerDxReportRule as R;
        let ((k1, p1, l1), (k2, p2, l2)) = (a1, a2);
        if !conflict {
            return fire(R::RejectReadRead);
        }
        if !lock_ok {
            return fire(R::RejectLocked);
        }
        if !stable {
            return fire(R::RejectUnstable);
        }
        fire(if k1 == k2 { R::ReportWriteWrite } else { R::ReportReadWrite });
        if l1 + l2 == 1 {
            fire(R::ReportOneLocked);
        }
        if p1.root != p2.root {
            fire(R::ReportRootsDiffer);
        }
        if same_method && a1 == a2 {
            fire(R::ReportSelfAccess);
        }
        if w1.contains(p1) || w2.contains(p2) {
            fire(R::ReportTouchedStable);
        }
    }

    fn lock_ok(&self, l1: u32, l2: u32) -> bool {
        if self.opts.bugs.drop_0_1_pairs && l1 + l2 > 0 {
            return false;
        }
        match self.opts.lock_rule {
            LockRule::SumAtMostOne => l1 + l2 <= 1,
            LockRule::MinZero => l1.min(l2) == 0,
            LockRule::SumAtMostTwo => l1 + l2 <= 2,
        }
    }
}

impl StaticRaceAnalysis for RacerDx {
    fn name(&self) -> String {
        if self.opts.stability {
            "RacerDX".into()
        } else {
            "RacerD-like".into()
        }
    }

    fn reports(&self, p: &Program) -> Result<Vec<RaceReport>, AnalysisFailure> {
        let mut ctx = self.ctx(p);
        let sums: Vec<(String, Dom)> = p.methods.iter().map(|m| (m.name.clone(), ctx.summary(&m.name))).collect();
        let mut out = BTreeSet::new();
        if self.opts.bugs.reports_nothing {
            return Ok(vec![]);
        }
        for (i, (m1, s1)) in sums.iter().enumerate() {
            for (m2, s2) in &sums[i..] {
                if self.opts.bugs.no_self_pairs && m1 == m2 {
                    continue;
                }
                let a1: Vec<_> = s1.a.iter().collect();
                let a2: Vec<_> = s2.a.iter().collect();
                for (x, ((k1, p1, l1), lines1)) in a1.iter().enumerate() {
                    // A self-pair considers each unordered pair of accesses once.
                    let from = if m1 == m2 { x } else { 0 };
                    for ((k2, p2, l2), lines2) in &a2[from..] {
                        let conflict = if self.opts.bugs.write_write_only {
                            *k1 == AccessKind::Write && *k2 == AccessKind::Write
                        } else {
                            *k1 == AccessKind::Write || *k2 == AccessKind::Write
                        };
                        let stable = !self.opts.stability || (self.stable(&s1.w, p1) && self.stable(&s2.w, p2));
                        if p1.fields == p2.fields {
                            Self::fire_pair_case((conflict, self.lock_ok(*l1, *l2), stable), m1 == m2, (&(*k1, (*p1).clone(), *l1), &s1.w), (&(*k2, (*p2).clone(), *l2), &s2.w));
                        }
                        if p1.fields == p2.fields && conflict && self.lock_ok(*l1, *l2) && stable {
                            let side = |m: &str, k: AccessKind, pth: &AccessPath, l: u32, sites: &BTreeSet<Vec<u32>>| ReportSide {
                                method: m.to_string(),
                                kind: k,
                                path: pth.clone(),
                                level: l,
                                sites: sites.clone(),
                            };
                            out.insert(RaceReport { sides: [side(m1, *k1, p1, *l1, lines1), side(m2, *k2, p2, *l2, lines2)] });
                        }
                    }
                }
            }
        }
        Ok(out.into_iter().collect())
    }

    fn summary(&self, p: &Program, method: &str) -> Option<Summary> {
        p.method(method)?;
        let d = self.ctx(p).summary(method);
        Some(Summary { w: d.w, l: d.l, a: d.a.into_keys().collect() })
    }
}

#[cfg(test)]
mod tests {
    use race_oracles::lang::parse;
    use race_oracles::theorems::rules::record;

    use super::*;

    /// Rule coverage on Burble (spec §6.1): meps ∥ reps is a read/write report with one
    /// side locked, reps ∥ reps a write racing with itself, meps ∥ meps read/read, and
    /// beps's write is unstable (`arg1 := new()` makes `arg1`, a proper prefix, wobbly).
    #[test]
    fn burble_fires_the_report_cases() {
        let p = parse(
            "dialect racerdx\nmethod meps(arg1) { lock; t = arg1.f; unlock }\nmethod reps(arg1) { v = new; arg1.f = v }\nmethod beps(arg1) { arg1 = new; v = new; arg1.f = v }\n",
        )
        .unwrap();
        let (reports, fired) = record(|| RacerDx::default().reports(&p));
        let reports = reports.expect("RacerDX always answers");
        assert_eq!(reports.len(), 2);
        use RacerDxReportRule as P;
        use RacerDxRule as R;
        for case in [R::Read, R::Write, R::NewWobbly, R::Lock, R::Unlock] {
            assert!(fired.contains(case), "{case:?} did not fire: {fired:?}");
        }
        for case in [P::ReportReadWrite, P::ReportOneLocked, P::ReportWriteWrite, P::ReportSelfAccess, P::ReportTouchedStable, P::RejectReadRead, P::RejectUnstable] {
            assert!(fired.contains(case), "{case:?} did not fire: {fired:?}");
        }
        for case in [R::LockSaturates, R::IfLevelsDiffer, R::Call, R::LocalDropped] {
            assert!(!fired.contains(case), "{case:?} fired");
        }
        assert!(!fired.contains(P::ReportRootsDiffer) && !fired.contains(P::RejectLocked));
    }
}
