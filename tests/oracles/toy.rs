//! A toy oracle, added the way every oracle is: one module (this one: its `ORACLE` entry and
//! its check) and one registry entry (`Registry::builtin().with(ORACLE)`). The test then
//! runs it through the same campaign, dispatch and rendering as the built-in oracles.

use std::sync::atomic::{AtomicBool, Ordering};

use race_oracles::lang::{Dialect, Program};
use race_oracles::theorems::{Budget, Item, ItemStatus, Oracle, OracleResult, Registry, Sut, SutKind};
use racefuzz::campaign::{self, Counters, Settings};

/// Every report's access paths are rooted at a formal of the reporting method.
pub const ORACLE: Oracle = Oracle {
    id: "toy-reports-name-formals",
    claim: "every report's paths are rooted at a formal of its method",
    spec: "spec/racerdx.md §3.4 (reports are over formals: the fml filter)",
    dialect: Dialect::RacerDx,
    sut: SutKind::StaticRaceAnalysis,
    item_kind: "report",
    negative_control: false,
    generate: race_oracles::gen::racerdx::swarm,
    grammar: &race_oracles::gen::racerdx::GRAMMAR,
    check,
};

fn check(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    let Sut::Static(a) = sut else { return ORACLE.wrong_sut(sut) };
    if let Some(note) = ORACLE.unmet(p, b.relax) {
        return OracleResult::inconclusive(ORACLE.id, a.name(), ORACLE.item_kind, note);
    }
    let items = a
        .reports(p)
        .into_iter()
        .map(|r| {
            let rooted = r.sides.iter().all(|s| p.method(&s.method).is_some_and(|m| m.params.contains(&s.path.root)));
            let status = if rooted { ItemStatus::Holds } else { ItemStatus::Violated };
            Item { subject: r.to_string(), status, explanation: vec![], witness: None }
        })
        .collect();
    OracleResult::from_items(ORACLE.id, a.name(), ORACLE.item_kind, items, None)
}

#[test]
fn a_toy_oracle_is_one_module_and_one_registry_entry() {
    let reg = Registry::builtin().with(ORACLE);
    let o = *reg.find(ORACLE.id).unwrap();
    let out = std::env::temp_dir().join(format!("racefuzz-toy-{}", std::process::id()));
    let s = Settings {
        oracles: vec![o],
        deadline: std::time::Instant::now() + std::time::Duration::from_secs(3600),
        seed: 3,
        jobs: 1,
        mutant: None,
        sut: None,
        out: out.clone(),
        max_programs: Some(300),
    };
    let counters = Counters::new(1);
    let found = campaign::run(&s, &counters, &AtomicBool::new(false), |_| {}).unwrap();
    assert!(found.is_empty());
    let [pass, fail, inconclusive] = counters.verdicts[0].each_ref().map(|c| c.load(Ordering::Relaxed));
    assert_eq!((pass, fail, inconclusive), (300, 0, 0));
    assert!(counters.judged[0].load(Ordering::Relaxed) > 50, "vacuous: the toy judged too few reports");
    let _ = std::fs::remove_dir_all(out);
}
