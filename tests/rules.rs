//! Rule coverage: on a fixed-seed sample of its oracles' generators, every
//! case of every SUT's spec rules fires on at least `FLOOR_PERCENT` of the programs, or its
//! table says why it cannot (`rare`). The count comes from the SUT's behaviour
//! (`race_oracles::theorems::rules`), so a generator change that stops reaching a rule case
//! fails here, not months later as an uncaught bug.

use race_oracles::theorems::rules::FLOOR_PERCENT;
use race_oracles::theorems::Registry;
use racefuzz::rule_coverage::measure;
use racefuzz::suts::{exercised_rules, Subject, SUTS};

/// Programs per (SUT, oracle): 1% of it is 3 programs, so a case needs 3 to pass.
const PROGRAMS: usize = 300;

#[test]
fn every_rule_case_fires_on_its_oracles_generators() {
    let reg = Registry::builtin();
    let mut compared = 0;
    let mut below = vec![];
    for entry in SUTS.iter().filter(|e| !e.rules.is_empty()) {
        let subject = Subject::named(entry.name, None).expect("a catalogued SUT").expect("the real SUT builds");
        for o in reg.all().iter().filter(|o| o.sut == entry.kind && entry.dialects.contains(&o.dialect)) {
            let tally = measure(o, &subject, PROGRAMS, 1);
            assert_eq!(tally.programs(), PROGRAMS);
            // Tables an oracle never exercises (`Oracle::unexercised`) say why instead.
            for r in tally.rows(&exercised_rules(entry, o).0) {
                compared += 1;
                if r.below_floor() {
                    below.push(format!("{} under {}: {} fired on {:.1}% (< {FLOOR_PERCENT}%)", entry.name, o.id, r.case.name, r.percent));
                }
            }
        }
    }
    assert!(compared >= 18, "only {compared} rule cases compared");
    assert!(below.is_empty(), "rule cases below the floor (reach them with a generator change, or give the case a `rare` reason):\n{}", below.join("\n"));
}
