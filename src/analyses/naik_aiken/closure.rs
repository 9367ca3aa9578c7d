//! K⁺, the closure of the abstract effects (Def. 4.2, docs/spec/naik_aiken.md §2.3): K¹ = K, and
//! from (τ̄1 |>= τ̄2) ∈ Kⁿ and (τ̄3 |>= τ̄4) ∈ K with τ̄2 ~ τ̄3 follows (τ̄1 |>= τ̄5) ∈ Kⁿ⁺¹,
//! where τ̄5 has τ̄4's site and τ̄4's loop entries, except that a correlation 1–1 between τ̄1
//! and τ̄4 at w survives only if the middle link is 1–1 at w too (else ⊤). The lattice is
//! finite, so K⁺ = ⋃ₙ Kⁿ is computed as a fixpoint.

use std::collections::BTreeSet;

use race_oracles::theorems::must_not_alias::{AbsEffect, AbsType, Corr};
use race_oracles::theorems::rules::fire;

use super::types::compatible;
use super::NaikAikenRule;

/// K⁺ (Def. 4.2); `half_link` is the seeded bug `na-chain-half-link`.
pub fn closure(k: &BTreeSet<AbsEffect>, half_link: bool) -> BTreeSet<AbsEffect> {
    let mut all = k.clone();
    let mut frontier: Vec<AbsEffect> = k.iter().cloned().collect();
    while let Some((t1, t2)) = frontier.pop() {
        for (t3, t4) in k {
            if compatible(&t2, t3) {
                fire(NaikAikenRule::Chain);
                let e = (t1.clone(), compose(&t1, &t2, t3, t4, half_link));
                if all.insert(e.clone()) {
                    frontier.push(e);
                }
            }
        }
    }
    all
}

/// τ̄5 of the correlation rule: τ̄4's site; at w, ⊤ if τ̄1 and τ̄4 are 1 but the middle link
/// τ̄2, τ̄3 is not 1–1, else τ̄4's entry.
fn compose(t1: &AbsType, t2: &AbsType, t3: &AbsType, t4: &AbsType, half_link: bool) -> AbsType {
    let pi = (0..t4.pi.len())
        .map(|w| {
            let one = |t: &AbsType| t.pi.get(w) == Some(&Corr::One);
            let middle = if half_link { one(t2) || one(t3) } else { one(t2) && one(t3) };
            if one(t1) && one(t4) && !middle {
                fire(NaikAikenRule::ChainDropsOne);
                Corr::Top
            } else {
                if one(t1) && one(t4) {
                    fire(NaikAikenRule::ChainKeepsOne);
                }
                t4.pi[w]
            }
        })
        .collect();
    AbsType { pi, site: t4.site.clone() }
}

#[cfg(test)]
mod tests {
    use super::super::types::tests::t;
    use super::*;

    #[test]
    fn closure_chains_and_keeps_correlation_through_one_one_links() {
        // R4: h1 |>= h2 |>= h3 gives h1 |>= h3 with h3's entries.
        let k: BTreeSet<AbsEffect> = [(t("00", "h1"), t("10", "h2")), (t("10", "h2"), t("10", "h3"))].into();
        let plus = closure(&k, false);
        assert_eq!(plus.len(), 3);
        assert!(plus.contains(&(t("00", "h1"), t("10", "h3"))));
    }

    #[test]
    fn correlation_dies_when_the_middle_link_is_not_one_one() {
        // ⟨1,a⟩ |>= ⟨0,b⟩ and ⟨0,b⟩ |>= ⟨1,c⟩: a and c are both 1, the middle is 0–0, so ⊤.
        let k: BTreeSet<AbsEffect> = [(t("1", "a"), t("0", "b")), (t("0", "b"), t("1", "c"))].into();
        assert!(closure(&k, false).contains(&(t("1", "a"), t("T", "c"))));
        // A 1–1 chain keeps it.
        let k: BTreeSet<AbsEffect> = [(t("1", "a"), t("1", "b")), (t("1", "b"), t("1", "c"))].into();
        assert!(closure(&k, false).contains(&(t("1", "a"), t("1", "c"))));
    }

    #[test]
    fn closure_follows_compatible_not_equal_links_and_terminates_on_cycles() {
        // R7's list: h2 |>= h3 (f) and h2 |>= ⟨T,h2⟩ (next).
        let k: BTreeSet<AbsEffect> = [(t("1", "h2"), t("1", "h3")), (t("1", "h2"), t("T", "h2"))].into();
        let plus = closure(&k, false);
        assert!(plus.contains(&(t("1", "h2"), t("T", "h3"))), "{plus:?}");
    }
}
