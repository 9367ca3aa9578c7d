//! The type lattice of Naik & Aiken (POPL'07) §3 as docs/spec/naik_aiken.md §2.1 reconstructs it:
//! î ∈ {0, 1, ⊤}, types τ̄ = ⟨Π, ĥ⟩, environments Γ (a variable left out is ⊥).
//!
//! - Join (Def. 3.1): pointwise; ⊥ is absorbed; unequal loop entries or unequal sites become
//!   ⊤ (0 and 1 are incomparable).
//! - Loopback Γ^{w+} (Def. 3.2): position w goes from 1 to ⊤ in every type, so values carried
//!   over from an earlier iteration of w lose their same-iteration correlation.
//! - Compatibility τ̄a ~ τ̄b (Def. 4.2): "they may denote the same object": sites equal or
//!   one ⊤, and every loop entry equal or one ⊤.
//!
//! Two seeded bugs live here: `na-join-keeps-one` (join(1, 0) = 1) and
//! `na-loopback-keeps-one` (Γ^{w+} = Γ).

use race_oracles::theorems::must_not_alias::{AbsEnv, AbsSite, AbsType, Corr};
use race_oracles::theorems::rules::fire;

use super::{NaikAikenBug, NaikAikenRule};

/// The lattice operations, with the seeded bug they may carry.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lattice {
    /// The seeded bug (only the join and loopback bugs change anything here).
    pub bug: Option<NaikAikenBug>,
}

impl Lattice {
    /// î1 ⊔ î2 (Def. 3.1): equal entries stay, anything else is ⊤ (under
    /// `na-join-keeps-one`, 1 ⊔ 0 = 1).
    pub fn corr(self, a: Corr, b: Corr) -> Corr {
        match (a, b) {
            _ if a == b => a,
            (Corr::One, Corr::Zero) | (Corr::Zero, Corr::One) if self.bug == Some(NaikAikenBug::JoinKeepsOne) => Corr::One,
            _ => Corr::Top,
        }
    }

    /// τ̄1 ⊔ τ̄2, pointwise (Def. 3.1).
    pub fn ty(self, a: &AbsType, b: &AbsType) -> AbsType {
        let pi: Vec<Corr> = a.pi.iter().zip(&b.pi).map(|(x, y)| self.corr(*x, *y)).collect();
        let site = if a.site == b.site { a.site.clone() } else { AbsSite::Top };
        // Equal types join to themselves; unequal ones lose an entry or the site to ⊤.
        if a != b {
            fire(NaikAikenRule::JoinTop);
        }
        AbsType { pi, site }
    }

    /// Γ1 ⊔ Γ2: ⊥ (a missing variable) is absorbed.
    pub fn env(self, a: &AbsEnv, b: &AbsEnv) -> AbsEnv {
        let mut out = a.clone();
        for (x, t) in b {
            let joined = match a.get(x) {
                Some(s) => self.ty(s, t),
                None => t.clone(),
            };
            out.insert(x.clone(), joined);
        }
        out
    }

    /// Γ^{w+} (Def. 3.2): every 1 at position `w` becomes ⊤ (unchanged under
    /// `na-loopback-keeps-one`).
    pub fn loopback(self, g: &AbsEnv, w: usize) -> AbsEnv {
        if self.bug == Some(NaikAikenBug::LoopbackKeepsOne) {
            return g.clone();
        }
        g.iter()
            .map(|(x, t)| {
                let mut t = t.clone();
                if let Some(c @ Corr::One) = t.pi.get_mut(w) {
                    fire(NaikAikenRule::Loopback);
                    *c = Corr::Top;
                }
                (x.clone(), t)
            })
            .collect()
    }
}

/// The type of `new h` under the loops `w_set` (rule 12 with Π = λw.1): 1 at the enclosing
/// loops, 0 elsewhere.
pub fn fresh(n_loops: usize, w_set: &[usize], h: &str) -> AbsType {
    let pi = (0..n_loops).map(|w| if w_set.contains(&w) { Corr::One } else { Corr::Zero }).collect();
    AbsType { pi, site: AbsSite::Site(h.to_string()) }
}

/// ⟨λw.⊤, ⊤⟩: what a heap read yields (rule 14: the heap is never trusted).
pub fn top(n_loops: usize) -> AbsType {
    AbsType { pi: vec![Corr::Top; n_loops], site: AbsSite::Top }
}

/// τ̄a ~ τ̄b (Def. 4.2): they may denote the same object.
pub fn compatible(a: &AbsType, b: &AbsType) -> bool {
    let site = a.site == b.site || a.site == AbsSite::Top || b.site == AbsSite::Top;
    site && a.pi.iter().zip(&b.pi).all(|(x, y)| x == y || *x == Corr::Top || *y == Corr::Top)
}

/// τ̄ < ⊤ (Def. 4.2): neither the site nor any loop entry is ⊤.
pub fn precise(t: &AbsType) -> bool {
    t.site != AbsSite::Top && t.pi.iter().all(|c| *c != Corr::Top)
}

/// Whether `ĥ` may be `h` (ĥ ∈ {h, ⊤}).
pub fn may_be(site: &AbsSite, h: &str) -> bool {
    match site {
        AbsSite::Site(s) => s == h,
        AbsSite::Top => true,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// `t("10", "h1")` is ⟨(1,0), h1⟩; `T` in either place is ⊤.
    pub fn t(pi: &str, h: &str) -> AbsType {
        let pi = pi
            .chars()
            .map(|c| match c {
                '0' => Corr::Zero,
                '1' => Corr::One,
                _ => Corr::Top,
            })
            .collect();
        AbsType { pi, site: if h == "T" { AbsSite::Top } else { AbsSite::Site(h.into()) } }
    }

    #[test]
    fn join_is_pointwise_and_absorbs_bottom() {
        let l = Lattice::default();
        assert_eq!(l.ty(&t("10", "h1"), &t("11", "h1")), t("1T", "h1"));
        assert_eq!(l.ty(&t("10", "h1"), &t("10", "h2")), t("10", "T"));
        assert_eq!(l.ty(&t("0T", "h1"), &t("01", "h1")), t("0T", "h1"));
        let a: AbsEnv = [("x".to_string(), t("1", "h1"))].into();
        let b: AbsEnv = [("y".to_string(), t("0", "h2"))].into();
        let j = l.env(&a, &b);
        assert_eq!((j["x"].clone(), j["y"].clone()), (t("1", "h1"), t("0", "h2")));
        let bug = Lattice { bug: Some(NaikAikenBug::JoinKeepsOne) };
        assert_eq!(bug.corr(Corr::One, Corr::Zero), Corr::One);
        assert_eq!(bug.corr(Corr::Zero, Corr::One), Corr::One);
        assert_eq!(l.corr(Corr::One, Corr::Zero), Corr::Top);
    }

    #[test]
    fn loopback_demotes_only_its_position() {
        let g: AbsEnv = [("x".to_string(), t("11", "h1")), ("y".to_string(), t("01", "h2"))].into();
        let back = Lattice::default().loopback(&g, 1);
        assert_eq!((back["x"].clone(), back["y"].clone()), (t("1T", "h1"), t("0T", "h2")));
        assert_eq!(Lattice { bug: Some(NaikAikenBug::LoopbackKeepsOne) }.loopback(&g, 1), g);
    }

    #[test]
    fn compatibility_and_precision() {
        assert!(compatible(&t("1T", "h1"), &t("10", "T")));
        assert!(!compatible(&t("10", "h1"), &t("11", "h1")));
        assert!(!compatible(&t("1", "h1"), &t("1", "h2")));
        assert!(precise(&t("10", "h1")) && !precise(&t("1T", "h1")) && !precise(&t("10", "T")));
    }
}
