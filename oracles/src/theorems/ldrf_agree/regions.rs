//! C5 of `ldrf-agree` (docs/spec/ldrf.md §3 R-DRF, §6.3 C5): C1-C4 and C7 with E-RDRF, for every
//! partition of the shared variables (and the declared one) under which the program is
//! region-race-free, where every copy gives a region's variables one version.

use std::collections::BTreeSet;

use super::judge::{Judge, Relevant};
use super::{first_violation, unknown};
use crate::explore::Config;
use crate::ldrf::cart::{cart, Mix};
use crate::ldrf::cfg::{complete, Cfg, Var};
use crate::ldrf::local::{Ldrf, LdrfBug, Sync};
use crate::ldrf::standard::{region_races, Reach};
use crate::theorems::result::{Item, ItemStatus};

/// Every partition of `vars` into blocks, the all-singletons one excluded (that is L-DRF),
/// as complete partitions of the program's variables; `None` when there are too many
/// (more than five shared variables: Bell(6) = 203).
fn coarsenings(cfg: &Cfg, vars: &[Var]) -> Option<Vec<Vec<Vec<Var>>>> {
    if vars.len() > 5 {
        return None;
    }
    let mut all: Vec<Vec<Vec<Var>>> = vec![vec![]];
    for &x in vars {
        let mut next = vec![];
        for p in all {
            for i in 0..p.len() {
                let mut q = p.clone();
                q[i].push(x);
                next.push(q);
            }
            let mut q = p;
            q.push(vec![x]);
            next.push(q);
        }
        all = next;
    }
    Some(all.into_iter().filter(|p| p.iter().any(|b| b.len() > 1)).map(|p| complete(p, cfg.vars.len())).collect())
}

/// C5: C1-C4 with E-RDRF, and the region form of Lemma 6, for every partition of the shared
/// variables (and the declared one) under which the program is region-race-free (spec §3,
/// §6.3 C5).
pub(super) fn c5(cfg: &Cfg, std: &Reach, rel: &Relevant, bug: Option<LdrfBug>, bounds: &Config) -> Result<Item, String> {
    // Err: why C5 does not apply to this program (no item: nothing was judged).
    let subject = "C5 R-DRF agrees for every region-race-free partition (Thms 7, 8 for R-DRF; regions share versions)";
    let Some(mut partitions) = coarsenings(cfg, &cfg.shared_vars()) else {
        return Ok(Item {
            subject: subject.into(),
            status: ItemStatus::Unknown,
            explanation: vec!["more than five shared variables: the partitions are not enumerated".into()],
            witness: None,
        });
    };
    // The declared partition too, which may group private variables with shared ones.
    let normal = |q: &[Vec<Var>]| -> Vec<Vec<Var>> {
        let mut q: Vec<Vec<Var>> = q.iter().map(|r| r.iter().copied().collect::<BTreeSet<Var>>().into_iter().collect()).collect();
        q.sort();
        q
    };
    if cfg.regions.iter().any(|r| r.len() > 1) && !partitions.iter().any(|q| normal(q) == normal(&cfg.regions)) {
        partitions.push(cfg.regions.clone());
    }
    let mut judged = vec![];
    for partition in partitions.iter().filter(|q| region_races(cfg, std, q).is_empty()) {
        let engine = Ldrf::new(cfg, Sync::Full).with_bug(bug).with_regions(partition);
        let local = engine.reach(bounds);
        if let Some(cut) = local.cut {
            return Ok(unknown(subject, &cut));
        }
        let regions = cfg.partition_name(partition).unwrap_or_default();
        let j = Judge { cfg, engine: &engine, std, rel, local: &local, partition: Some(partition) };
        let region_mix = cart(cfg, &Sync::Full, &Mix::Region(partition.clone()), bounds.max_states);
        if let Some(cut) = region_mix.cut {
            return Ok(unknown(subject, &cut));
        }
        let mut judged_items = j.c1_to_c4("");
        judged_items.push(j.c7(&region_mix, "C7 Thm 10 for R-DRF: every copy and buffer is in ⟦P⟧× with the region mix"));
        if let Some(bad) = first_violation(subject, &format!("with regions {regions} (region-race-free)"), judged_items) {
            return Ok(bad);
        }
        judged.push(format!("{regions} ({} R-DRF states)", local.states.len()));
    }
    if judged.is_empty() {
        return Err("C5 not judged: no partition coarser than singletons is region-race-free".into());
    }
    let explanation = format!("holds for {} partition(s): {}", judged.len(), judged.join("; "));
    Ok(Item { subject: subject.into(), status: ItemStatus::Holds, explanation: vec![explanation], witness: None })
}
