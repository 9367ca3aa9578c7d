//! The analysis contexts `H • A` of BigFoot's check placement (docs/spec/bigfoot.md §4.1) and
//! their entailment (§4.2, §10.3), decided symbolically and soundly.
//!
//! One concept, the contexts and their entailment (over 600 lines: the symbolic decision
//! procedure and its unit tests).
//!
//! - A [`History`] `H` holds boolean facts (here: equalities `x = e` with `e` linear, recorded
//!   by assignments to fresh variables, §4.6), past accesses `p◁` and past checks `p✓`, each
//!   with a kind (§4.5.1: `W ⊢ R`).
//! - An [`Anticipated`] set `A` holds `p◊`; `⊤` ("anything") is the start of the greatest
//!   fixed point at loop heads (§4.7) and the value after a point no run reaches.
//! - Paths are `x.f` and strided ranges `x[lo..hi:k]` with linear bounds ([`Lin`]); an access
//!   `x[e]` is the singleton `x[e..e+1:1]`.
//!
//! **Entailment** (`H ⊢ p◁`, `H ⊢ p✓`, `H • A ⊢ p◊`) puts every integer expression in a
//! canonical form by substituting `H`'s equalities (they are acyclic: a variable is fresh
//! when it is defined). Two forms compare only when their difference is a constant, or a
//! constant plus a form known to be non-negative: an index that was accessed (a singleton
//! `x[e]◁` or `x[e]✓`), since the machine faults on a negative index before the access
//! happens. A range is entailed when a chain of entries covers it from its lower bound past
//! its upper bound (each entry starting at or below where the previous one ended); an empty
//! range (`hi − lo` a constant ≤ 0) is entailed vacuously (§4.2). Strided entries join a
//! chain only when aligned with the query by a constant. This is *sound* for every value of
//! the variables, where the spec's "BFJ-mini" enumeration is sound for a finite domain only;
//! it is incomplete (e.g. a stride-2 range extended by a symbolic singleton), and an
//! incomplete entailment only adds checks (§10.1 A15).

use std::collections::{BTreeMap, BTreeSet};

use race_oracles::lang::{AccessKind, BinOp, Expr, UnOp};
use race_oracles::theorems::rules::fire;

use super::placement::BigFootRule;

/// A linear integer form `Σ cᵥ·v + k` (no zero coefficients).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lin {
    /// Coefficients by variable.
    pub terms: BTreeMap<String, i64>,
    /// The constant.
    pub k: i64,
}

impl Lin {
    /// The constant `k`.
    pub fn constant(k: i64) -> Lin {
        Lin { terms: BTreeMap::new(), k }
    }

    /// The variable `v`.
    pub fn var(v: &str) -> Lin {
        Lin { terms: BTreeMap::from([(v.to_string(), 1)]), k: 0 }
    }

    /// The linear form of `e`; `None` if `e` is not linear (or overflows).
    pub fn of(e: &Expr) -> Option<Lin> {
        match e {
            Expr::Int(k) => Some(Lin::constant(*k)),
            Expr::Var(v) => Some(Lin::var(v)),
            Expr::Unary(UnOp::Neg, a) => Lin::of(a)?.scale(-1),
            Expr::Binary(BinOp::Add, a, b) => Lin::of(a)?.plus(&Lin::of(b)?, 1),
            Expr::Binary(BinOp::Sub, a, b) => Lin::of(a)?.plus(&Lin::of(b)?, -1),
            Expr::Binary(BinOp::Mul, a, b) => {
                let (a, b) = (Lin::of(a)?, Lin::of(b)?);
                match (a.as_const(), b.as_const()) {
                    (Some(c), _) => b.scale(c),
                    (_, Some(c)) => a.scale(c),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `self + sign·o`.
    pub fn plus(&self, o: &Lin, sign: i64) -> Option<Lin> {
        let mut r = self.clone();
        for (v, c) in &o.terms {
            let e = r.terms.entry(v.clone()).or_insert(0);
            *e = e.checked_add(c.checked_mul(sign)?)?;
            if *e == 0 {
                r.terms.remove(v);
            }
        }
        r.k = r.k.checked_add(o.k.checked_mul(sign)?)?;
        Some(r)
    }

    /// `self + k`.
    pub fn offset(&self, k: i64) -> Option<Lin> {
        self.plus(&Lin::constant(k), 1)
    }

    /// `c·self`.
    pub fn scale(&self, c: i64) -> Option<Lin> {
        if c == 0 {
            return Some(Lin::constant(0));
        }
        let mut terms = BTreeMap::new();
        for (v, x) in &self.terms {
            terms.insert(v.clone(), x.checked_mul(c)?);
        }
        Some(Lin { terms, k: self.k.checked_mul(c)? })
    }

    /// The constant, if the form has no variable.
    pub fn as_const(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.k)
    }

    /// Whether `v` occurs.
    pub fn mentions(&self, v: &str) -> bool {
        self.terms.contains_key(v)
    }

    /// `self[v := by]`; `None` on overflow.
    pub fn subst(&self, v: &str, by: &Lin) -> Option<Lin> {
        match self.terms.get(v) {
            None => Some(self.clone()),
            Some(&c) => {
                let mut rest = self.clone();
                rest.terms.remove(v);
                rest.plus(&by.scale(c)?, 1)
            }
        }
    }

    /// Renames variable `from` to `to` (`to` must not occur).
    pub fn rename(&mut self, from: &str, to: &str) {
        if let Some(c) = self.terms.remove(from) {
            *self.terms.entry(to.to_string()).or_insert(0) += c;
        }
    }

    /// The form as an expression (`i + 1`, `2 * n - 3`, `0`).
    pub fn to_expr(&self) -> Expr {
        let mut e: Option<Expr> = None;
        for (v, &c) in &self.terms {
            let term = if c.abs() == 1 { Expr::Var(v.clone()) } else { Expr::Binary(BinOp::Mul, Box::new(Expr::Int(c.abs())), Box::new(Expr::Var(v.clone()))) };
            e = Some(match (e, c < 0) {
                (None, false) => term,
                (None, true) => Expr::Unary(UnOp::Neg, Box::new(term)),
                (Some(a), neg) => Expr::Binary(if neg { BinOp::Sub } else { BinOp::Add }, Box::new(a), Box::new(term)),
            });
        }
        match (e, self.k) {
            (None, k) => Expr::Int(k),
            (Some(a), 0) => a,
            (Some(a), k) => Expr::Binary(if k < 0 { BinOp::Sub } else { BinOp::Add }, Box::new(a), Box::new(Expr::Int(k.abs()))),
        }
    }
}

/// A path of the analysis: `x.f`, or the strided range `x[lo..hi:stride]` (stride ≥ 1).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Path {
    /// `base.field`
    Field {
        /// The designator (a variable).
        base: String,
        /// The field.
        field: String,
    },
    /// `base[lo..hi:stride]`: `{lo + j·stride | lo ≤ lo + j·stride < hi}`.
    Range {
        /// The designator (a variable).
        base: String,
        /// Inclusive lower bound.
        lo: Lin,
        /// Exclusive upper bound.
        hi: Lin,
        /// The stride.
        stride: i64,
    },
}

impl Path {
    /// The singleton `base[e]`.
    pub fn index(base: &str, e: Lin) -> Option<Path> {
        Some(Path::Range { base: base.to_string(), hi: e.offset(1)?, lo: e, stride: 1 })
    }

    /// The designator.
    pub fn base(&self) -> &str {
        match self {
            Path::Field { base, .. } | Path::Range { base, .. } => base,
        }
    }

    /// Whether variable `v` occurs.
    pub fn mentions(&self, v: &str) -> bool {
        match self {
            Path::Field { base, .. } => base == v,
            Path::Range { base, lo, hi, .. } => base == v || lo.mentions(v) || hi.mentions(v),
        }
    }

    /// Calls `f` on every variable of the path.
    pub fn for_each_var(&self, f: &mut impl FnMut(&str)) {
        f(self.base());
        if let Path::Range { lo, hi, .. } = self {
            lo.terms.keys().chain(hi.terms.keys()).for_each(|v| f(v));
        }
    }

    /// Renames variable `from` to `to`.
    pub fn rename(&mut self, from: &str, to: &str) {
        match self {
            Path::Field { base, .. } => rename_var(base, from, to),
            Path::Range { base, lo, hi, .. } => {
                rename_var(base, from, to);
                lo.rename(from, to);
                hi.rename(from, to);
            }
        }
    }

    /// `self[v := by]` (backward substitution through `v = e`, §4.5 \[ASSIGN\]); `None` when
    /// the result is no path (a designator replaced by a non-variable) or overflows.
    pub fn subst(&self, v: &str, by: &Lin) -> Option<Path> {
        let base = |b: &String| -> Option<String> {
            if b != v {
                return Some(b.clone());
            }
            match (by.terms.iter().next(), by.terms.len(), by.k) {
                (Some((w, 1)), 1, 0) => Some(w.clone()),
                _ => None,
            }
        };
        Some(match self {
            Path::Field { base: b, field } => Path::Field { base: base(b)?, field: field.clone() },
            Path::Range { base: b, lo, hi, stride } => Path::Range { base: base(b)?, lo: lo.subst(v, by)?, hi: hi.subst(v, by)?, stride: *stride },
        })
    }
}

fn rename_var(x: &mut String, from: &str, to: &str) {
    if x == from {
        *x = to.to_string();
    }
}

/// A path with the kind of its access, check or anticipation.
pub type Entry = (Path, AccessKind);

/// A history `H` (spec §4.1): facts, past accesses `p◁`, past checks `p✓`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    /// Equalities `x = e`, acyclic.
    pub defs: BTreeMap<String, Lin>,
    /// Past accesses `p◁`.
    pub acc: BTreeSet<Entry>,
    /// Past checks `p✓`.
    pub chk: BTreeSet<Entry>,
}

/// The anticipated set `A` (spec §4.1), or `⊤`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Anticipated {
    /// Every path (the greatest element; `⊤ ⊓ X = X`).
    Top,
    /// The paths every continuation accesses before its next acquire.
    Set(BTreeSet<Entry>),
}

impl Anticipated {
    /// `∅`.
    pub fn empty() -> Anticipated {
        Anticipated::Set(BTreeSet::new())
    }

    /// `A ∪ {e}`.
    pub fn with(mut self, e: Entry) -> Anticipated {
        if let Anticipated::Set(s) = &mut self {
            s.insert(e);
        }
        self
    }

    /// `A \ x`: drops the paths that mention `x`.
    pub fn without(self, x: &str) -> Anticipated {
        match self {
            Anticipated::Top => Anticipated::Top,
            Anticipated::Set(s) => Anticipated::Set(s.into_iter().filter(|(p, _)| !p.mentions(x)).collect()),
        }
    }

    /// `A[x := e]` (§4.5 \[ASSIGN\]); paths that stop being paths are dropped, and with a
    /// non-linear `e` every path that mentions `x` is.
    pub fn subst(self, x: &str, e: Option<&Lin>) -> Anticipated {
        match (self, e) {
            (Anticipated::Top, _) => Anticipated::Top,
            (a, None) => a.without(x),
            (Anticipated::Set(s), Some(e)) => Anticipated::Set(s.into_iter().filter_map(|(p, k)| Some((p.subst(x, e)?, k))).collect()),
        }
    }

    /// The meet of two anticipated sets: what both anticipate, at the weaker kind. The
    /// comparison is syntactic, which keeps fewer paths than the spec's entailment-based
    /// meet (§4.2) and is sound (fewer anticipations only add checks).
    pub fn meet(self, o: Anticipated) -> Anticipated {
        match (self, o) {
            (Anticipated::Top, x) | (x, Anticipated::Top) => x,
            (Anticipated::Set(a), Anticipated::Set(b)) => {
                let has = |s: &BTreeSet<Entry>, p: &Path, k: AccessKind| s.contains(&(p.clone(), k)) || s.contains(&(p.clone(), AccessKind::Write));
                let mut out: BTreeSet<Entry> = a.iter().filter(|(p, k)| has(&b, p, *k)).cloned().collect();
                out.extend(b.iter().filter(|(p, k)| has(&a, p, *k)).cloned());
                Anticipated::Set(out)
            }
        }
    }
}

impl History {
    /// Whether variable `v` occurs in a fact or a path.
    pub fn mentions(&self, v: &str) -> bool {
        self.defs.iter().any(|(x, e)| x == v || e.mentions(v)) || self.acc.iter().chain(&self.chk).any(|(p, _)| p.mentions(v))
    }

    /// Renames `from` to `to` everywhere (`to` must not occur): the effect of inserting the
    /// renaming `to ← from` (§4.5 \[RENAME\], `H[from := to]`).
    pub fn rename(&mut self, from: &str, to: &str) {
        let defs = std::mem::take(&mut self.defs);
        self.defs = defs
            .into_iter()
            .map(|(mut x, mut e)| {
                rename_var(&mut x, from, to);
                e.rename(from, to);
                (x, e)
            })
            .collect();
        for set in [&mut self.acc, &mut self.chk] {
            *set = std::mem::take(set)
                .into_iter()
                .map(|(mut p, k)| {
                    p.rename(from, to);
                    (p, k)
                })
                .collect();
        }
    }

    /// `e` with every defined variable substituted by its definition, to a fixed point.
    pub fn canon(&self, e: &Lin) -> Lin {
        let mut cur = e.clone();
        // Definitions are acyclic; the bound only guards against an internal slip.
        for _ in 0..64 {
            let Some(v) = cur.terms.keys().find(|v| self.defs.contains_key(*v)).cloned() else { return cur };
            match cur.subst(&v, &self.defs[&v]) {
                Some(next) => cur = next,
                None => return cur,
            }
        }
        cur
    }

    /// Whether two designators name the same object under the facts.
    pub fn same_object(&self, a: &str, b: &str) -> bool {
        a == b || self.canon(&Lin::var(a)) == self.canon(&Lin::var(b))
    }

    /// Whether `x ≤ y` holds for every value of the variables under the facts.
    pub fn le(&self, x: &Lin, y: &Lin) -> bool {
        let Some(d) = self.canon(y).plus(&self.canon(x), -1) else { return false };
        if let Some(c) = d.as_const() {
            return c >= 0;
        }
        self.acc.iter().chain(&self.chk).any(|(p, _)| match p {
            Path::Range { lo, hi, .. } if hi.plus(lo, -1).and_then(|w| w.as_const()) == Some(1) => d.plus(&self.canon(lo), -1).and_then(|r| r.as_const()).is_some_and(|c| c >= 0),
            _ => false,
        })
    }

    /// Whether `x = y` under the facts.
    pub fn eq(&self, x: &Lin, y: &Lin) -> bool {
        self.canon(x) == self.canon(y)
    }

    /// Whether `entries` (under this history's facts) entail `(q, kind)`: a field entry on
    /// the same object, or a chain of ranges covering `q` (see the module docs).
    pub fn covers<'e>(&self, entries: impl IntoIterator<Item = &'e Entry>, q: &Path, kind: AccessKind) -> bool {
        let usable = entries.into_iter().filter(|(_, k)| *k >= kind).map(|(p, _)| p);
        match q {
            Path::Field { base, field } => {
                let mut usable = usable;
                usable.any(|p| matches!(p, Path::Field { base: b, field: f } if f == field && self.same_object(b, base)))
            }
            Path::Range { base, lo, hi, stride } => {
                if self.le(hi, lo) {
                    return true;
                }
                // A singleton's stride is immaterial: it takes each entry's.
                let single = hi.plus(lo, -1).and_then(|w| w.as_const()) == Some(1);
                // The intervals [b, e) each usable entry covers of q's elements.
                let mut spans: Vec<(Lin, Lin)> = vec![];
                for p in usable {
                    let Path::Range { base: b, lo: plo, hi: phi, stride: ps } = p else { continue };
                    if !self.same_object(b, base) {
                        continue;
                    }
                    let offset = self.canon(plo).plus(&self.canon(lo), -1).and_then(|d| d.as_const());
                    let singleton = phi.plus(plo, -1).and_then(|w| w.as_const()) == Some(1);
                    let aligned = |m: i64| offset.is_some_and(|d| d.rem_euclid(m) == 0);
                    let qstride = if single { *ps } else { *stride };
                    if singleton && aligned(*stride) {
                        // The one query element in [s, s + stride) is s itself.
                        if let Some(end) = plo.offset(*stride) {
                            spans.push((plo.clone(), end));
                        }
                    } else if *ps == 1 || (qstride % ps == 0 && aligned(*ps)) {
                        spans.push((plo.clone(), phi.clone()));
                    }
                }
                // Points reachable by a chain from `lo`, with the chain's length; covered once
                // one reaches `hi`.
                let mut reached = vec![(lo.clone(), 0)];
                let mut used = vec![false; spans.len()];
                while let Some((r, links)) = reached.pop() {
                    if self.le(hi, &r) {
                        if links >= 2 {
                            fire(BigFootRule::EntailChain);
                        }
                        return true;
                    }
                    for (i, (b, e)) in spans.iter().enumerate() {
                        if !used[i] && self.le(b, &r) {
                            used[i] = true;
                            reached.push((e.clone(), links + 1));
                        }
                    }
                }
                false
            }
        }
    }

    /// `other` without what this history does not entail (Houdini-style weakening, §4.7).
    pub fn weaken(&self, mut other: History) -> History {
        other.defs.retain(|x, e| self.eq(&Lin::var(x), e));
        other.acc.retain(|(p, k)| self.covers(&self.acc, p, *k));
        other.chk.retain(|(p, k)| self.covers(&self.chk, p, *k));
        other
    }

    /// `Checks(H, H', A)` (spec §4.3 with A5 and A6): the past accesses that are not checked,
    /// not anticipated, and (with `kept`) not kept by `H'` read under this history's facts;
    /// a read owed where the write of the same path is owed is dropped (a write check
    /// covers reads, §3.3).
    pub fn checks(&self, kept: Option<&History>, a: &Anticipated) -> BTreeSet<Entry> {
        // The three reasons not to owe an access, tried in this order (rule coverage names
        // the one that decided).
        let owed: BTreeSet<Entry> = self
            .acc
            .iter()
            .filter(|(p, k)| {
                if kept.is_some_and(|h| self.covers(&h.acc, p, *k)) {
                    fire(BigFootRule::KeptByMeet);
                    return false;
                }
                if self.covers(&self.chk, p, *k) {
                    fire(BigFootRule::ExcusedByCheck);
                    return false;
                }
                match a {
                    Anticipated::Top => false,
                    Anticipated::Set(s) if self.covers(s, p, *k) => {
                        fire(BigFootRule::ExcusedByAnticipation);
                        if *k == AccessKind::Read && !self.covers(s.iter().filter(|(_, ak)| *ak == AccessKind::Read), p, *k) {
                            fire(BigFootRule::ReadByAnticipatedWrite);
                        }
                        false
                    }
                    Anticipated::Set(_) => true,
                }
            })
            .cloned()
            .collect();
        owed.iter()
            .filter(|(p, k)| {
                let under_write = *k == AccessKind::Read && owed.contains(&(p.clone(), AccessKind::Write));
                if under_write {
                    fire(BigFootRule::ReadUnderWrite);
                }
                !under_write
            })
            .cloned()
            .collect()
    }

    /// The meet `H1 ⊓ H2` (spec §4.2): the facts and paths of either that both entail. A
    /// path that mentions a variable one side never mentions is dropped even when that side
    /// entails it vacuously (an empty range): on that side's runs the variable may be unset.
    pub fn meet(&self, o: &History) -> History {
        let mut out = History::default();
        for (x, e) in self.defs.iter().chain(&o.defs) {
            if out.defs.contains_key(x) || !(self.eq(&Lin::var(x), e) && o.eq(&Lin::var(x), e)) {
                continue;
            }
            // Two sides may define x and y by each other; keep the merged facts acyclic.
            if out.canon(e).mentions(x) {
                continue;
            }
            out.defs.insert(x.clone(), e.clone());
        }
        let known = |h: &History, p: &Path| {
            let mut ok = true;
            p.for_each_var(&mut |v| ok &= h.mentions(v));
            ok
        };
        for (mine, theirs, dst) in [(&self.acc, &o.acc, 0), (&self.chk, &o.chk, 1)] {
            for (p, k) in mine.iter().chain(theirs) {
                let both = self.covers(mine, p, *k) && o.covers(theirs, p, *k) && known(self, p) && known(o, p);
                if both {
                    if dst == 0 { &mut out.acc } else { &mut out.chk }.insert((p.clone(), *k));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expr(s: &str) -> Expr {
        let p = race_oracles::lang::parse(&format!("dialect bfj\nthread {{ x = {s} }}\n")).unwrap();
        match &p.threads[0][0].kind {
            race_oracles::lang::StmtKind::Assign { src, .. } => src.clone(),
            k => panic!("{k:?}"),
        }
    }

    fn lin(s: &str) -> Lin {
        Lin::of(&expr(s)).unwrap()
    }

    fn range(b: &str, lo: &str, hi: &str, k: i64) -> Path {
        Path::Range { base: b.into(), lo: lin(lo), hi: lin(hi), stride: k }
    }

    const W: AccessKind = AccessKind::Write;
    const R: AccessKind = AccessKind::Read;

    /// Fig. 3.6(b)'s back edge: `{a[0..i']◁, a[i']◁, i = i'+1} ⊢ a[0..i]◁`, and not one
    /// element more.
    #[test]
    fn a_chain_of_ranges_covers_their_union_and_no_more() {
        let mut h = History::default();
        h.defs.insert("i".into(), lin("j + 1"));
        h.acc.insert((range("a", "0", "j", 1), W));
        h.acc.insert((Path::index("a", lin("j")).unwrap(), W));
        assert!(h.covers(&h.acc, &range("a", "0", "i", 1), W));
        assert!(h.covers(&h.acc, &range("a", "0", "i", 1), R), "a write covers a read");
        assert!(!h.covers(&h.acc, &range("a", "0", "i + 1", 1), W));
        assert!(!h.covers(&h.acc, &range("b", "0", "i", 1), W), "another array");
        assert!(h.covers(&h.acc, &range("a", "i", "j", 1), W), "an empty range is entailed vacuously");
        assert!(h.le(&lin("0"), &lin("j")), "j was accessed as an index, so j ≥ 0");
        assert!(!h.le(&lin("1"), &lin("j")));
        let mut reads = History::default();
        reads.acc.insert((Path::index("a", lin("0")).unwrap(), R));
        assert!(!reads.covers(&reads.acc, &Path::index("a", lin("0")).unwrap(), W), "a read does not entail a write");
    }

    #[test]
    fn strided_ranges_join_a_chain_only_when_aligned() {
        let mut h = History::default();
        h.acc.insert((range("a", "0", "4", 2), W));
        assert!(h.covers(&h.acc, &range("a", "0", "3", 2), W));
        assert!(h.covers(&h.acc, &Path::index("a", lin("2")).unwrap(), W));
        assert!(!h.covers(&h.acc, &Path::index("a", lin("1")).unwrap(), W));
        assert!(!h.covers(&h.acc, &range("a", "0", "4", 1), W));
        h.acc.insert((Path::index("a", lin("4")).unwrap(), W));
        assert!(h.covers(&h.acc, &range("a", "0", "6", 2), W));
    }

    #[test]
    fn checks_owe_unchecked_unanticipated_accesses_and_a_write_covers_a_read() {
        let f = |b: &str| Path::Field { base: b.into(), field: "f".into() };
        let mut h = History::default();
        h.acc.insert((f("b"), R));
        h.acc.insert((f("b"), W));
        h.acc.insert((f("c"), R));
        let none = Anticipated::empty();
        assert_eq!(h.checks(None, &none), BTreeSet::from([(f("b"), W), (f("c"), R)]));
        let ant = Anticipated::empty().with((f("b"), R));
        assert_eq!(h.checks(None, &ant), BTreeSet::from([(f("b"), W), (f("c"), R)]), "an anticipated read does not excuse a write");
        let ant = Anticipated::empty().with((f("b"), W)).with((f("c"), W));
        assert!(h.checks(None, &ant).is_empty());
        h.chk.insert((f("b"), W));
        assert_eq!(h.checks(None, &none), BTreeSet::from([(f("c"), R)]));
        assert!(h.checks(None, &Anticipated::Top).is_empty());
    }

    #[test]
    fn the_meet_keeps_what_both_entail() {
        let f = |b: &str, fld: &str| (Path::Field { base: b.into(), field: fld.into() }, R);
        let mut h1 = History::default();
        h1.acc.extend([f("b", "f"), f("b", "g")]);
        h1.defs.insert("x".into(), lin("1"));
        let mut h2 = History::default();
        h2.acc.insert(f("b", "f"));
        h2.defs.insert("x".into(), lin("2"));
        let m = h1.meet(&h2);
        assert_eq!(m.acc, BTreeSet::from([f("b", "f")]));
        assert!(m.defs.is_empty());
        let mut h3 = History::default();
        h3.defs.insert("y".into(), lin("x"));
        let mut h4 = History::default();
        h4.defs.insert("x".into(), lin("y"));
        let m = h3.meet(&h4);
        assert_eq!(m.defs.len(), 1, "x = y and y = x: one of them, never a cycle");
    }

    #[test]
    fn linear_forms_print_as_expressions() {
        assert_eq!(race_oracles::lang::print::expr(&lin("i - 1 + 2 * j").to_expr()), "(i + (2 * j)) - 1");
        assert_eq!(race_oracles::lang::print::expr(&lin("0 - i").to_expr()), "-i");
        assert_eq!(Lin::of(&expr("i % 4")), None);
    }
}
