//! Generator coverage (issue 8, `race_oracles::gen::grammar`): at its default swarm
//! settings, every registered oracle's generator uses each production of its dialect's
//! grammar in at least `FLOOR_PERCENT`% of programs. Programs are drawn exactly as
//! campaigns draw them (`campaign::generate`), from a fixed seed.

use race_oracles::gen::grammar::{Coverage, FLOOR_PERCENT};
use race_oracles::lang::validate;
use race_oracles::theorems::Registry;
use racefuzz::campaign;
use racefuzz::suts::Subject;
use rand::rngs::StdRng;
use rand::SeedableRng;

const PROGRAMS: usize = 3_000;

#[test]
fn every_production_is_generated_above_the_floor() {
    for o in Registry::builtin().all() {
        let subject = Subject::for_oracle(o, None).unwrap();
        let mut rng = StdRng::seed_from_u64(8);
        let mut cov = Coverage::new(o.grammar);
        for _ in 0..PROGRAMS {
            let p = campaign::generate(o, &subject, &mut rng);
            validate(&p).unwrap_or_else(|e| panic!("{}: the generator wrote a program outside its dialect: {e}", o.id));
            cov.add(o.grammar, &p);
        }
        assert_eq!(cov.programs, PROGRAMS);
        assert!(!cov.counts.is_empty(), "{}: an empty grammar covers nothing", o.id);
        let low: Vec<String> = cov.below_floor().iter().map(|(p, pct)| format!("{} ({}) at {pct:.2}%", p.name, p.rule)).collect();
        assert!(low.is_empty(), "{}: productions below {FLOOR_PERCENT}% of {PROGRAMS} programs:\n  {}", o.id, low.join("\n  "));
    }
}
