//! The disjoint reachability analysis DR_K (Fig. 9 eq. 2, as docs/spec/naik_aiken.md §2.4 and A3
//! read the OCR): `h ∈ DR_K(H)` iff for every pair of effects (τ̄1 |>= τ̄3), (τ̄2 |>= τ̄4) of K⁺
//! (the same one twice included) with τ̄3 ~ τ̄4 and both targets possibly h:
//! 1. τ̄1.ĥ ≠ ⊤ and τ̄2.ĥ ≠ ⊤; and
//! 2. if τ̄1.ĥ, τ̄2.ĥ ∈ H, then (a) τ̄1 = τ̄2, (b) τ̄1 < ⊤, and (c) at every w where τ̄1 has 1,
//!    τ̄3 and τ̄4 have 1.
//!
//! Soundness (Thm 4.4) rests on stamp uniqueness (§1.3): two distinct H-objects of one type
//! τ̄1 < ⊤ differ at some 1-position, and (c) passes that difference on to their targets.
//! The seeded bug `na-dr-over-k` runs the same test over K instead of K⁺.

use std::collections::BTreeSet;

use race_oracles::theorems::must_not_alias::{AbsEffect, AbsSite, Corr};
use race_oracles::theorems::rules::fire;

use super::types::{compatible, may_be, precise};
use super::NaikAikenRule;

/// `h ∈ DR(H)` over the effect set `effects` (K⁺ for the real analysis).
pub fn disjointly_reachable(effects: &BTreeSet<AbsEffect>, h: &str, sites: &BTreeSet<String>) -> bool {
    let into_h: Vec<&AbsEffect> = effects.iter().filter(|(_, t)| may_be(&t.site, h)).collect();
    let in_h = |s: &AbsSite| matches!(s, AbsSite::Site(x) if sites.contains(x));
    for (t1, t3) in &into_h {
        for (t2, t4) in &into_h {
            if !compatible(t3, t4) {
                continue;
            }
            if t1.site == AbsSite::Top || t2.site == AbsSite::Top {
                fire(NaikAikenRule::DrFailsTopSource);
                return false; // condition 1
            }
            if in_h(&t1.site) && in_h(&t2.site) {
                let correlated = t1.pi.iter().enumerate().all(|(w, c)| *c != Corr::One || (t3.pi[w] == Corr::One && t4.pi[w] == Corr::One));
                // The first condition that fails is the case (the order of eq. 2).
                let failed = if t1 != t2 {
                    Some(NaikAikenRule::DrFailsTypes)
                } else if !precise(t1) {
                    Some(NaikAikenRule::DrFailsImprecise)
                } else if !correlated {
                    Some(NaikAikenRule::DrFailsCorrelation)
                } else {
                    None
                };
                if let Some(case) = failed {
                    fire(case);
                    return false; // condition 2 (a), (b), (c)
                }
            }
        }
    }
    fire(if into_h.is_empty() { NaikAikenRule::DrVacuous } else { NaikAikenRule::DrHolds });
    true
}

/// Every fact `h ∈ DR(H)` for each site h and each H of one or two sites, over `effects`.
pub fn facts(effects: &BTreeSet<AbsEffect>, sites: &[String]) -> BTreeSet<(String, BTreeSet<String>)> {
    let mut hs: Vec<BTreeSet<String>> = vec![];
    for (i, a) in sites.iter().enumerate() {
        hs.push([a.clone()].into());
        for b in &sites[i + 1..] {
            hs.push([a.clone(), b.clone()].into());
        }
    }
    let mut out = BTreeSet::new();
    for h in sites {
        for big_h in &hs {
            if disjointly_reachable(effects, h, big_h) {
                out.insert((h.clone(), big_h.clone()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::types::tests::t;
    use super::*;

    fn set(s: &[&str]) -> BTreeSet<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn example_2_1_and_the_container_pattern() {
        let k: BTreeSet<AbsEffect> = [(t("1", "h1"), t("1", "h2"))].into();
        assert!(disjointly_reachable(&k, "h2", &set(&["h1"])));
        // R2: ⟨(1,0),h1⟩ |>= ⟨(1,1),h2⟩.
        let k: BTreeSet<AbsEffect> = [(t("10", "h1"), t("11", "h2"))].into();
        assert!(disjointly_reachable(&k, "h2", &set(&["h1"])));
    }

    #[test]
    fn each_condition_can_fail() {
        // R3's parent pointers: (c) fails (h2 is 1 at w2, h1 is 0).
        let k: BTreeSet<AbsEffect> = [(t("11", "h2"), t("10", "h1"))].into();
        assert!(!disjointly_reachable(&k, "h1", &set(&["h2"])));
        // A ⊤ source: 1 fails for every H.
        let k: BTreeSet<AbsEffect> = [(t("T", "T"), t("1", "h3"))].into();
        assert!(!disjointly_reachable(&k, "h3", &set(&["h9"])));
        // Two H-sources of different types: (a) fails.
        let k: BTreeSet<AbsEffect> = [(t("1", "h1"), t("1", "h3")), (t("1", "h2"), t("1", "h3"))].into();
        assert!(!disjointly_reachable(&k, "h3", &set(&["h1", "h2"])));
        assert!(disjointly_reachable(&k, "h3", &set(&["h1"])));
        // A source with ⊤ in its loop vector: (b) fails.
        let k: BTreeSet<AbsEffect> = [(t("T", "h1"), t("1", "h3"))].into();
        assert!(!disjointly_reachable(&k, "h3", &set(&["h1"])));
        // No effect into h: vacuously disjoint.
        assert!(disjointly_reachable(&BTreeSet::new(), "h3", &set(&["h1"])));
    }

    #[test]
    fn facts_cover_singletons_and_pairs() {
        let k: BTreeSet<AbsEffect> = [(t("1", "h1"), t("1", "h2"))].into();
        let f = facts(&k, &["h1".into(), "h2".into()]);
        assert!(f.contains(&("h2".to_string(), set(&["h1"]))));
        assert!(f.contains(&("h2".to_string(), set(&["h1", "h2"]))));
        assert_eq!(f.len(), 6);
    }
}
