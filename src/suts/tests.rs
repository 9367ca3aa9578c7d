//! The catalogue's own checks: every oracle has a SUT, every mutant a home, and the SUTs
//! that do not model atomics refuse programs with them.

use race_oracles::theorems::Registry;

use super::*;

/// docs/spec/atomics.md: a SUT that does not model atomics refuses a program with them
/// (inconclusive, naming the assumption), before it runs; FastTrack and the explorers,
/// which model them, judge it.
#[test]
fn suts_without_atomics_refuse_programs_with_them() {
    let p = race_oracles::lang::parse("dialect bfj2\ninit { o = new }\nthread { o.d = 1; o.f.store(1, release) }\nthread { r = o.f.load(acquire); t = o.d }\n").unwrap();
    let reg = Registry::builtin();
    let ft = reg.find("fasttrack-precise").unwrap();
    // An external detector (`--detector-cmd`) is not known to model atomics; its command
    // would fail the check if it ran.
    let cmd = crate::sut_spec::DetectorSpec {
        command: "false {}".into(),
        persistent: false,
        batch: false,
        report_pattern: None,
        timeout: std::time::Duration::from_secs(10),
        claim: race_oracles::theorems::Claim::Locations,
        all_traces: false,
    };
    let external = Subject::new(ft, &SutSpec::detector(cmd).unwrap()).unwrap();
    assert!(!external.entry().atomics.judges());
    let r = check(ft, &p, &external, campaign_bounds());
    assert_eq!(r.verdict, race_oracles::theorems::Verdict::Inconclusive);
    assert!(r.note.as_deref().unwrap_or("").contains("precondition unmet: atomics: "), "{:?}", r.note);
    // FastTrack models them (spec §4.2): judged, and precise.
    let r = check(ft, &p, &Subject::for_oracle(ft, None).unwrap(), campaign_bounds());
    assert_eq!(r.verdict, race_oracles::theorems::Verdict::Pass, "{:?}", r.note);
    let ea = reg.find("explorer-agree").unwrap();
    let r = check(ea, &p, &Subject::for_oracle(ea, None).unwrap(), campaign_bounds());
    assert!(!r.note.as_deref().unwrap_or("").contains("atomics"), "{:?}", r.note);
}

#[test]
fn every_oracle_has_a_sut_and_every_mutant_a_home() {
    for o in Registry::builtin().all() {
        assert!(Subject::for_oracle(o, None).is_ok(), "{}", o.id);
    }
    for m in MUTANTS.iter() {
        let entry = SUTS.iter().find(|e| e.name == m.sut).unwrap_or_else(|| panic!("{}: no SUT {}", m.name, m.sut));
        assert!((entry.build)("", &[m.name]).is_some(), "{}", m.name);
        let mut named: Vec<&str> = vec![];
        for (oracle, said) in m.predicted.named() {
            let o = Registry::builtin().find(oracle).copied();
            assert!(o.is_some_and(|o| judges(&o, m.name) && !o.negative_control), "{}: no oracle {oracle} that judges it and makes predictions", m.name);
            assert_eq!(o.and_then(|o| prediction(&o, m)), said, "{}: {oracle} named twice", m.name);
            assert!(!named.contains(&oracle), "{}: {oracle} named twice", m.name);
            named.push(oracle);
        }
        assert!(!judges_of(m.name).is_empty(), "{}: no oracle judges it", m.name);
    }
    let o = Registry::builtin().find("racerdx-tp").copied().unwrap();
    assert!(matches!(Subject::for_oracle(&o, Some("nope")), Err(SubjectError::UnknownMutant { .. })));
    let foreign = Subject::for_oracle(&o, Some("bf-check-after-acquire")).err();
    assert_eq!(foreign, Some(SubjectError::ForeignMutant { given: "bf-check-after-acquire".into(), owner: "bigfoot", oracle: "racerdx-tp", judges: vec!["bigfoot-precise"] }));
    let bf = Registry::builtin().find("bigfoot-precise").copied().unwrap();
    let on = |sut: Option<&str>, mutant: Option<&str>| Subject::new(&bf, &SutSpec::catalogued(sut, mutant).unwrap());
    assert_eq!(on(Some("per-access"), None).map(|s| s.chosen()).ok(), Some(Some("per-access".into())));
    assert_eq!(on(None, None).map(|s| s.entry().name).ok(), Some("bigfoot"));
    assert!(matches!(on(Some("fasttrack"), None), Err(SubjectError::UnknownSut { .. })));
    assert!(matches!(on(Some("per-access"), Some("bf-check-after-acquire")), Err(SubjectError::UnknownMutant { .. })));
    assert!(matches!(on(Some("per-access@2"), None), Err(SubjectError::NoVersions { sut: "per-access", .. })));
    assert_eq!(Subject::where_it_fits(&bf, &SutSpec::catalogued(Some("fasttrack"), None).unwrap()).map(|s| s.chosen()).ok(), Some(None));
}

/// A rule table an oracle declares it never exercises is a table of a SUT it judges: a
/// misspelt one would leave that table held to the floor.
#[test]
fn unexercised_tables_are_tables_of_the_oracles_suts() {
    for o in Registry::builtin().all() {
        for u in o.unexercised {
            assert!(fitting(o).any(|e| e.rules.iter().any(|t| t.sut == u.table)), "{}: no SUT of it has a rule table `{}`", o.id, u.table);
        }
    }
}
