//! The type and effect rules of Fig. 8 (docs/spec/naik_aiken.md §2.2), `W, Π, Γ ⊢ s : Γ', K`,
//! with Π = λw.1 (A2 \[C\]), the subsumption rule Sub (A1 \[C\]) and the dialect's
//! extensions (§4.1 \[C\]).
//!
//! Rule (18) demands an exact loop invariant and Fig. 8 has no weakening rule, so a loop is
//! typed by Kleene iteration, which Sub justifies: I₀ = Γ_entry,
//! I_{n+1} = I_n ⊔ out(body, I_n^{w+}), accumulating K, until I is stable; Γ after the loop
//! is the invariant. The lattice is finite and the iteration only goes up, so it stops.
//!
//! Extensions: `x = y[*]` is a heap read (rule 14); `x[+] = y` is an effect like `x.f = y`
//! (rule 15); `fork { s }` types `s` with (W_fork, Γ_at_fork), plus `self ↦ Γ(x)` for
//! `fork(x)`, adds its K and leaves Γ unchanged; `sync(x) { s }` is typed as `s`; data
//! writes `x.p := k` and `read x.p` make no effect.
//!
//! Γ before each statement is recorded by point (for a `while`, its invariant). Inside a
//! loop, the last pass (the one from the stable invariant) is what remains recorded.

use std::collections::BTreeSet;

use race_oracles::lang::labels::Labels;
use race_oracles::lang::{Block, Cond, Expr, ForkTarget, Place, Stmt, StmtKind};
use race_oracles::theorems::must_not_alias::{AbsEffect, AbsEnv, TypingError};
use race_oracles::theorems::rules::fire;

use super::types::{fresh, top, Lattice};
use super::NaikAikenRule;

/// More passes than any finite-height iteration needs: a guard, not a bound the analysis relies on.
const MAX_PASSES: usize = 10_000;

/// The typing of one program: Γ per point and K.
pub struct Typer<'l, 'p> {
    labels: &'l Labels<'p>,
    lattice: Lattice,
    /// Γ before each point (`None`: never reached by the typing).
    pub envs: Vec<Option<AbsEnv>>,
    /// K.
    pub effects: BTreeSet<AbsEffect>,
}

impl<'l, 'p> Typer<'l, 'p> {
    /// A typer over `labels`' program.
    pub fn new(labels: &'l Labels<'p>, lattice: Lattice) -> Self {
        Typer { labels, lattice, envs: vec![None; labels.points.len()], effects: BTreeSet::new() }
    }

    fn n_loops(&self) -> usize {
        self.labels.loops.len()
    }

    /// Rule (16), seq: threads Γ through the block and unions the K's.
    ///
    /// # Errors
    /// A statement outside the dialect, or a loop whose iteration does not stabilize.
    pub fn block(&mut self, b: &Block, w_set: &[usize], g: AbsEnv) -> Result<AbsEnv, TypingError> {
        b.iter().try_fold(g, |g, s| self.stmt(s, w_set, g))
    }

    fn record(&mut self, s: &Stmt, g: &AbsEnv) -> Result<(), TypingError> {
        let p = self.labels.point_of(s).ok_or(TypingError::StatementNotNumbered { line: s.line.0 })?;
        self.envs[p.index()] = Some(g.clone());
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, w_set: &[usize], mut g: AbsEnv) -> Result<AbsEnv, TypingError> {
        if !matches!(s.kind, StmtKind::While { .. }) {
            self.record(s, &g)?;
        }
        match &s.kind {
            StmtKind::Skip | StmtKind::Read(_) => {}
            StmtKind::Assign { dst, src: Expr::Null } => rule_11_null(&mut g, dst),
            StmtKind::Assign { dst, src: Expr::Var(y) } => rule_13_copy(&mut g, dst, y),
            StmtKind::New { dst, site: Some(h), .. } => {
                fire(if w_set.is_empty() { NaikAikenRule::NewOutsideLoops } else { NaikAikenRule::NewInLoop });
                g.insert(dst.clone(), fresh(self.n_loops(), w_set, h)); // rule 12
            }
            StmtKind::Load { dst, src: Place::Field { .. } } | StmtKind::Pick { dst, .. } => {
                fire(NaikAikenRule::HeapRead);
                g.insert(dst.clone(), top(self.n_loops())); // rule 14
            }
            StmtKind::Store { dst: Place::Field { base, fields }, src: Expr::Var(y) } if fields.len() == 1 => self.rule_15_effect(&g, base, y),
            // `x.f = null` is rule 15 with Γ(y) = ⊥: no effect. A data write makes none either.
            StmtKind::Store { dst: Place::Field { .. }, src: Expr::Null } => fire(NaikAikenRule::EffectBottom),
            StmtKind::Store { dst: Place::Field { .. }, src: Expr::Int(_) } => {}
            StmtKind::Append { array, src } => self.rule_15_effect(&g, array, src),
            StmtKind::If { cond: Cond::Star, then_b, else_b } => g = self.rule_17_if(then_b, else_b, w_set, &g)?,
            StmtKind::While { label: Some(w), cond: Cond::Star, body } => g = self.rule_18_while(s, w, body, w_set, g)?,
            StmtKind::Sync { body, .. } => {
                fire(NaikAikenRule::Sync);
                g = self.block(body, w_set, g)?;
            }
            StmtKind::Fork { dst: None, target: ForkTarget::Block { this, body } } => self.fork(this.as_deref(), body, w_set, &g)?,
            _ => return Err(TypingError::Unsupported { line: s.line.0, stmt: race_oracles::lang::print::stmt_to_string(s) }),
        }
        Ok(g)
    }

    /// Rule (15), `x.f = y` (and `x[+] = y`): K = {Γ(x) |>= Γ(y)} when both are non-⊥; the
    /// field is dropped.
    fn rule_15_effect(&mut self, g: &AbsEnv, x: &str, y: &str) {
        if let (Some(a), Some(b)) = (g.get(x), g.get(y)) {
            fire(NaikAikenRule::Effect);
            self.effects.insert((a.clone(), b.clone()));
        } else {
            fire(NaikAikenRule::EffectBottom);
        }
    }

    /// Rule (17): both branches from Γ, then Γ1 ⊔ Γ2 (K1 ∪ K2 accumulates in `effects`).
    fn rule_17_if(&mut self, then_b: &Block, else_b: &Block, w_set: &[usize], g: &AbsEnv) -> Result<AbsEnv, TypingError> {
        let a = self.block(then_b, w_set, g.clone())?;
        let b = self.block(else_b, w_set, g.clone())?;
        fire(NaikAikenRule::IfJoin);
        Ok(self.lattice.env(&a, &b))
    }

    /// Rule (18) with Sub (A1 \[C\]): Kleene iteration from Γ_entry to the loop invariant I;
    /// the body runs under W ∪ {w} from I^{w+}; Γ after the loop is I.
    fn rule_18_while(&mut self, s: &Stmt, w: &str, body: &Block, w_set: &[usize], entry: AbsEnv) -> Result<AbsEnv, TypingError> {
        let wi = self.labels.loop_index(w).ok_or_else(|| TypingError::LoopNotNumbered { line: s.line.0, label: w.to_string() })?;
        let mut inner = w_set.to_vec();
        inner.push(wi);
        let mut inv = entry;
        for pass in 0..MAX_PASSES {
            let out = self.block(body, &inner, self.lattice.loopback(&inv, wi))?;
            let next = self.lattice.env(&inv, &out);
            if next == inv {
                if pass > 0 {
                    fire(NaikAikenRule::LoopWidens);
                }
                self.record(s, &inv)?;
                return Ok(inv);
            }
            inv = next;
        }
        Err(TypingError::NoFixpoint { line: s.line.0, label: w.to_string(), passes: MAX_PASSES })
    }

    /// `fork { s }` / `fork(x) { s }` (§4.1 \[C\]): the child body is typed under the fork's
    /// W from Γ at the fork (its counters are frozen copies), with `self ↦ Γ(x)`; its K is
    /// added and Γ after the fork is unchanged.
    fn fork(&mut self, this: Option<&str>, body: &Block, w_set: &[usize], g: &AbsEnv) -> Result<(), TypingError> {
        let mut child = g.clone();
        if let Some(x) = this {
            fire(NaikAikenRule::ForkSelf);
            match g.get(x) {
                Some(t) => child.insert("self".to_string(), t.clone()),
                None => child.remove("self"),
            };
        }
        self.block(body, w_set, child).map(|_| ())
    }
}

/// Rule (11), `x = null`: Γ[x ↦ ⊥].
fn rule_11_null(g: &mut AbsEnv, x: &str) {
    fire(NaikAikenRule::Null);
    g.remove(x);
}

/// Rule (13), `x = y`: Γ[x ↦ Γ(y)].
fn rule_13_copy(g: &mut AbsEnv, x: &str, y: &str) {
    fire(NaikAikenRule::Copy);
    match g.get(y).cloned() {
        Some(t) => g.insert(x.to_string(), t),
        None => g.remove(x),
    };
}
