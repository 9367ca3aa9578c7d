//! The race checks of `ldrf-agree`, which need no race-freedom hypothesis and are judged on
//! racy programs too (docs/spec/ldrf.md §6.3): C10, Remark 13's reduction of region races to
//! ghost data races (with the k = 0 fix) against Def. 12, and C11, simultaneous enabledness
//! against the trace-level happens-before check (Def. 4).

use std::collections::BTreeSet;

use super::unknown;
use crate::explore::Config;
use crate::ldrf::cfg::{complete, Cfg, Edge, Var};
use crate::ldrf::hb::races_stateful;
use crate::ldrf::reduction::{reduce, Reduction};
use crate::ldrf::standard::{reach, region_races, Reach};
use crate::theorems::result::{Item, ItemStatus};

/// The partition C10 reduces: the declared one, or all shared variables in one region when
/// none is declared (the partition with the most region races).
fn c10_partition(cfg: &Cfg) -> Vec<Vec<Var>> {
    if cfg.regions.iter().any(|r| r.len() > 1) {
        return cfg.regions.clone();
    }
    complete(vec![cfg.shared_vars()].into_iter().filter(|r| !r.is_empty()).collect(), cfg.vars.len())
}

/// C10: Remark 13's reduction (with the k = 0 fix) finds exactly Def. 12's region races.
pub(super) fn c10(cfg: &Cfg, std: &Reach, bounds: &Config) -> Item {
    let subject = "C10 Remark 13: region races by reduction to ghost data races = Def. 12 directly";
    let partition = c10_partition(cfg);
    let direct = region_races(cfg, std, &partition);
    let reduced = reduce(cfg, &partition, Reduction::Fixed);
    let r = reach(&reduced.cfg, bounds);
    if let Some(cut) = r.cut {
        return unknown(subject, &cut);
    }
    let via = reduced.region_races(&r.races);
    let regions = cfg.partition_name(&partition).unwrap_or_else(|| "all singletons".into());
    let show = |set: &BTreeSet<(Edge, Edge, usize)>| -> String {
        if set.is_empty() {
            return "none".into();
        }
        set.iter().map(|&(a, b, r)| format!("lines {}/{} on {}", cfg.edge(a).line.0, cfg.edge(b).line.0, cfg.region_name(&partition[r]))).collect::<Vec<_>>().join(", ")
    };
    if direct != via {
        let explanation = vec![
            format!("regions {regions}:"),
            format!("  Def. 12: {}", show(&direct)),
            format!("  reduction: {}", show(&via)),
            format!("  missing: {}; extra: {}", show(&direct.difference(&via).copied().collect()), show(&via.difference(&direct).copied().collect())),
        ];
        return Item { subject: subject.into(), status: ItemStatus::Violated, explanation, witness: None };
    }
    Item { subject: subject.into(), status: ItemStatus::Holds, explanation: vec![format!("holds (regions {regions}: {})", show(&direct))], witness: None }
}

/// C11: E-STD's simultaneous enabledness and the trace-level happens-before check agree on
/// whether the program races, and every simultaneously enabled conflicting pair is a
/// happens-before race (the two run one after the other, unordered).
///
/// Not pair by pair: the spec's proof sketch (§1.3 \[D\]) moves hb-unordered events freely,
/// but a racy read can feed a branch, so an hb race may be between instructions that are
/// never enabled together (t1 `x = 1; y = 1` ∥ t2 spinning on `b = y` and then reading x:
/// the read of x is hb-unordered with `x = 1` yet comes only after t2 has seen `y = 1`).
/// The equivalence holds for the first race of a trace, so the racy verdicts agree.
pub(super) fn c11(cfg: &Cfg, std: &Reach, bounds: &Config) -> Item {
    let subject = "C11 race checks agree: simultaneous enabledness and happens-before (Def. 4) find the same racy programs";
    let (hb, cut) = races_stateful(cfg, bounds);
    if let Some(cut) = cut {
        return unknown(subject, &cut);
    }
    let show = |set: &BTreeSet<(Edge, Edge, Var)>| -> String {
        if set.is_empty() {
            return "none".into();
        }
        set.iter().map(|&(a, b, x)| format!("lines {}/{} on `{}`", cfg.edge(a).line.0, cfg.edge(b).line.0, cfg.vars[x.index()])).collect::<Vec<_>>().join(", ")
    };
    if !std.races.is_subset(&hb) || hb.is_empty() != std.races.is_empty() {
        let explanation = vec![
            format!("simultaneous enabledness: {}", show(&std.races)),
            format!("happens-before: {}", show(&hb)),
            format!("enabled together but hb-ordered: {}", show(&std.races.difference(&hb).copied().collect())),
        ];
        return Item { subject: subject.into(), status: ItemStatus::Violated, explanation, witness: None };
    }
    let mut explanation = vec![format!("holds ({})", show(&std.races))];
    let later: BTreeSet<_> = hb.difference(&std.races).copied().collect();
    if !later.is_empty() {
        explanation.push(format!("happens-before also finds races never enabled together (after a racy read): {}", show(&later)));
    }
    Item { subject: subject.into(), status: ItemStatus::Holds, explanation, witness: None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theorems::ldrf_agree::MODULUS;

    /// R7 through the oracle: C10 on `x := 1 ∥ y := 1` with region {x, y} holds (the fixed
    /// reduction finds the region race); the literal one would not (`reduction`'s tests).
    #[test]
    fn c10_on_r7() {
        let p = crate::lang::parse("dialect ldrf\nregions { x, y }\nthread {\nx = 1\n}\nthread {\ny = 1\n}\n").expect("parses");
        let cfg = Cfg::of(&p, MODULUS);
        let std = reach(&cfg, &Config::default());
        let i = c10(&cfg, &std, &Config::default());
        assert_eq!(i.status, ItemStatus::Holds);
        assert_eq!(i.explanation, ["holds (regions {x, y}: lines 4/7 on {x, y})"]);
    }
}
