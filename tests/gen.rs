//! Generator coverage (`race_oracles::gen::grammar`): at its default swarm
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

/// The shrinker's contract (`race_oracles::gen::shrink`, conventions §12), checked on the
/// programs of every registered oracle's generator, drawn as campaigns draw them, under two
/// properties that need no SUT: "keeps a statement of the kind of the program's last simple
/// statement" and "keeps at least half the size". For each program and property:
/// - a program that does not fail comes back unchanged, after one evaluation;
/// - the result fails, is no larger than the input and validates (with the oracle's
///   relaxations);
/// - it is a local minimum: no candidate edit that is valid, different and no larger fails;
/// - on a budget stop (`max_attempts` 3) the result still fails, is no larger, and says so;
/// - the same input, property and budget give the same result.
///
/// It counts what it checked, and fails if an oracle's sample shrank nothing or a local
/// minimum was checked against no candidate (a vacuous pass).
#[test]
fn the_shrinker_keeps_its_contract_for_every_generator() {
    use race_oracles::gen::shrink::{candidates, shrink, size};
    use race_oracles::lang::{print, validate_relaxed, walk_block, Program, Stmt};
    use std::mem::{discriminant, Discriminant};

    const SAMPLE: usize = 12;
    /// A property, by name: whether a program "fails".
    type Property = (&'static str, Box<dyn Fn(&Program) -> bool>);
    /// The kinds of every statement `q` has, in every body, in order.
    fn kinds(q: &Program) -> Vec<Discriminant<race_oracles::lang::StmtKind>> {
        let mut out = vec![];
        let mut add = |s: &Stmt| {
            if s.kind.sub_blocks().is_empty() {
                out.push(discriminant(&s.kind));
            }
        };
        q.all_methods().for_each(|(_, m)| walk_block(&m.body, &mut add));
        q.init.iter().for_each(|b| walk_block(b, &mut add));
        q.threads.iter().for_each(|b| walk_block(b, &mut add));
        out
    }
    let (mut programs, mut steps, mut compared) = (0usize, 0usize, 0usize);
    for o in Registry::builtin().all() {
        let relax = Subject::for_oracle(o, None).unwrap().relax();
        let mut rng = StdRng::seed_from_u64(12);
        let (mut shrunk_here, mut compared_here) = (0, 0);
        for _ in 0..SAMPLE {
            let p = campaign::generate(o, &Subject::for_oracle(o, None).unwrap(), &mut rng);
            let Some(last) = kinds(&p).last().copied() else { continue };
            let half = size(&p).div_ceil(2);
            let properties: [Property; 2] = [("keeps a statement kind", Box::new(move |q| kinds(q).contains(&last))), ("keeps half the size", Box::new(move |q| size(q) >= half))];
            let passing = shrink(&p, relax, 1_000, |_| false);
            assert!(passing.program == p && passing.attempts == 1 && passing.steps == 0 && !passing.exhausted, "{}: a passing program was changed", o.id);
            for (name, fails) in &properties {
                let what = format!("{} ({name}) on\n{}", o.id, print(&p));
                let r = shrink(&p, relax, 100_000, fails);
                assert!(!r.exhausted, "{what}: the budget ran out");
                assert!(fails(&r.program), "{what}: the result passes");
                assert!(size(&r.program) <= size(&p), "{what}: the result is larger");
                validate_relaxed(&r.program, relax).unwrap_or_else(|e| panic!("{what}: the result is invalid: {e}"));
                for c in candidates(&r.program) {
                    if c != r.program && size(&c) <= size(&r.program) && validate_relaxed(&c, relax).is_ok() {
                        compared_here += 1;
                        assert!(!fails(&c), "{what}: not a local minimum; this candidate fails too:\n{}", print(&c));
                    }
                }
                let again = shrink(&p, relax, 100_000, fails);
                assert_eq!((print(&again.program), again.steps, again.attempts), (print(&r.program), r.steps, r.attempts), "{what}: not deterministic");
                let cut = shrink(&p, relax, 3, fails);
                assert!(fails(&cut.program) && size(&cut.program) <= size(&p), "{what}: a budget stop lost the failure");
                assert_eq!(cut.exhausted, cut.attempts >= 3 && r.attempts > 3, "{what}: a budget stop must say so, and only then");
                steps += r.steps;
                shrunk_here += usize::from(r.steps > 0);
            }
            programs += 1;
        }
        assert!(shrunk_here > 0, "{}: no sampled program shrank (vacuous)", o.id);
        assert!(compared_here > 0, "{}: no local minimum was compared with a candidate (vacuous)", o.id);
        compared += compared_here;
    }
    println!("shrinker contract: {programs} programs, {steps} accepted steps, {compared} candidates compared at the minima");
    assert!(programs >= Registry::builtin().all().len() * SAMPLE * 3 / 4, "only {programs} programs had a statement to keep");
}
