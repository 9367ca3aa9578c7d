//! C6 of `ldrf-agree` (docs/spec/ldrf.md Remark 9, §6.3 C6): C1-C4 and C7 with the
//! synchronizes-with relation G restricted to the pairs E-STD observes, instead of every
//! release → acquire pair of the sync-CFG.

use super::judge::{Judge, Relevant};
use super::{first_violation, unknown};
use crate::explore::Config;
use crate::ldrf::cart::{cart, Mix};
use crate::ldrf::cfg::Cfg;
use crate::ldrf::local::{Ldrf, LdrfBug, Sync};
use crate::ldrf::standard::{observed_sw, Reach};
use crate::theorems::result::{Item, ItemStatus};

/// C6: Remark 9: C1-C4 with G restricted to the synchronizes-with pairs E-STD observes, and
/// Thm 10 for that G (E-CART with the same refined sync-CFG).
pub(super) fn c6(cfg: &Cfg, std: &Reach, rel: &Relevant, bug: Option<LdrfBug>, bounds: &Config) -> Item {
    let subject = "C6 Remark 9: C1-C4 and C7 with G refined to the observed synchronizes-with pairs";
    let (pairs, cut) = observed_sw(cfg, bounds);
    if let Some(cut) = cut {
        return unknown(subject, &cut);
    }
    let shown: Vec<String> = pairs.iter().map(|&(r, a)| format!("{}→{}", cfg.node_name(r), cfg.node_name(a))).collect();
    let sync = Sync::Pairs(pairs);
    let engine = Ldrf::new(cfg, sync.clone()).with_bug(bug);
    let local = engine.reach(bounds);
    if let Some(cut) = local.cut {
        return unknown(subject, &cut);
    }
    let refined = cart(cfg, &sync, &Mix::Var, bounds.max_states);
    if let Some(cut) = refined.cut {
        return unknown(subject, &cut);
    }
    let j = Judge { cfg, engine: &engine, std, rel, local: &local, partition: None };
    let pairs = if shown.is_empty() { "∅".to_string() } else { shown.join(" ") };
    let mut judged = j.c1_to_c4("");
    judged.push(j.c7(&refined, "C7 Thm 10 with the refined G: every copy and buffer is in ⟦P⟧× (var mix)"));
    if let Some(bad) = first_violation(subject, &format!("with G = the observed pairs {pairs}"), judged) {
        return bad;
    }
    Item { subject: subject.into(), status: ItemStatus::Holds, explanation: vec![format!("holds with G = {pairs} ({} L-DRF states)", local.states.len())], witness: None }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::ldrf::cfg::Node;
    use crate::ldrf::standard::reach;
    use crate::theorems::ldrf_agree::MODULUS;

    fn fig1() -> Cfg {
        let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/paper/ldrf/fig1_sync_cfg.race")).expect("the corpus file");
        Cfg::of(&crate::lang::parse(&src).expect("parses"), MODULUS)
    }

    /// C6's mutation control (spec §6.3 C6, A15): on Fig. 1, G refined to the observed pairs
    /// keeps C1-C4; dropping the real pair 7→10 keeps C2 (χ) but breaks C3 at line 11,
    /// where t2 then sees only (0, 0).
    #[test]
    fn dropping_an_observed_sw_pair_breaks_c3_not_c2() {
        let cfg = fig1();
        let b = Config::default();
        let std = reach(&cfg, &b);
        let (pairs, cut) = observed_sw(&cfg, &b);
        assert!(cut.is_none());
        let names: Vec<String> = pairs.iter().map(|&(r, a)| format!("{}→{}", cfg.node_name(r), cfg.node_name(a))).collect();
        assert_eq!(names, ["t1@end→t2@16", "t2@end→t1@6"], "spec §8 R1: observed 7→10 and 13→1");
        let judge = |pairs: BTreeSet<(Node, Node)>| {
            let engine = Ldrf::new(&cfg, Sync::Pairs(pairs));
            let local = engine.reach(&b);
            let j = Judge { cfg: &cfg, engine: &engine, std: &std, rel: &Relevant::of(&cfg, &std), local: &local, partition: None };
            j.c1_to_c4("").into_iter().map(|i| i.status).collect::<Vec<_>>()
        };
        assert!(judge(pairs.clone()).iter().all(|&s| s == ItemStatus::Holds));
        let t1_end = pairs.iter().find(|&&(r, _)| cfg.owner[r.index()] == 0).copied().expect("7→10");
        let dropped: BTreeSet<_> = pairs.into_iter().filter(|&p| p != t1_end).collect();
        assert_eq!(judge(dropped), [ItemStatus::Holds, ItemStatus::Holds, ItemStatus::Violated, ItemStatus::Violated]);
    }
}
