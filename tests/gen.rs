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

/// The Naik-Aiken generator (no registered oracle yet; `naik-aiken-sound` will use it):
/// programs drawn as campaigns draw them validate, with and without `Relax::sync_reassign`,
/// round-trip through the printer, stay within the spec's sizes (§4.4), and use every
/// production above the floor.
#[test]
fn naikaiken_programs_are_valid_small_and_cover_the_grammar() {
    use race_oracles::gen::naikaiken::{shape, swarm_naikaiken, GRAMMAR_NAIKAIKEN, MAX_STMTS, MAX_THREADS};
    use race_oracles::lang::{parse, print, validate_relaxed, Relax};
    let reassign = Relax { sync_reassign: true, ..Relax::default() };
    for relax in [Relax::default(), reassign] {
        let mut rng = StdRng::seed_from_u64(8);
        let mut cov = Coverage::new(&GRAMMAR_NAIKAIKEN);
        let mut reassigned = 0;
        for _ in 0..PROGRAMS {
            let p = campaign::generate_with(swarm_naikaiken, relax, &mut rng);
            validate_relaxed(&p, relax).unwrap_or_else(|e| panic!("naikaiken: the generator wrote a program outside its dialect: {e}\n{}", print(&p)));
            if relax == Relax::default() {
                validate(&p).unwrap();
            }
            assert_eq!(parse(&print(&p)).unwrap().without_lines(), p.without_lines(), "round trip:\n{}", print(&p));
            let sh = shape(&p);
            assert!(sh.stmts <= MAX_STMTS && sh.threads <= MAX_THREADS, "{sh:?}:\n{}", print(&p));
            reassigned += usize::from(sh.sync_reassign);
            cov.add(&GRAMMAR_NAIKAIKEN, &p);
        }
        if relax == Relax::default() {
            assert_eq!(reassigned, 0);
            let low: Vec<String> = cov.below_floor().iter().map(|(p, pct)| format!("{} ({}) at {pct:.2}%", p.name, p.rule)).collect();
            assert!(low.is_empty(), "naikaiken: productions below {FLOOR_PERCENT}% of {PROGRAMS} programs:\n  {}", low.join("\n  "));
        } else {
            // The "reassigned lock still held" mutation test needs such programs, but not many.
            assert!((PROGRAMS / 100..PROGRAMS / 4).contains(&reassigned), "{reassigned} programs reassign a sync variable");
        }
    }
}
