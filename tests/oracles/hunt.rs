//! The mutant hunts: every seeded bug of every SUT, hunted under each oracle its SUT's table
//! gives a prediction for (`racefuzz::mutants`), on that oracle's generated programs (fixed
//! seed). A mutant predicted to break the theorem must be caught within the row's budget; one
//! predicted equivalent must never be. Each SUT's table of outcomes is a snapshot.
//!
//! One row per SUT. A new SUT with seeded bugs gets one row here; a new oracle over an
//! existing SUT needs none (its predictions in the SUT's table are hunted by that SUT's row).
//! `RACEFUZZ_HUNT=racerdx,fasttrack` runs only the rows of those SUTs.

use race_oracles::lang::print;
use racefuzz::mutants::MUTANTS;
use racefuzz::seeded::Prediction;

/// How many theorem-breaking mutant × oracle pairs a hunt must catch (each one predicted to
/// break must be caught anyway; this floor keeps a row from passing with its table emptied).
#[derive(Clone, Copy, Debug)]
enum Caught {
    Exactly(usize),
    AtLeast(usize),
}

/// One SUT's hunt.
struct Hunt {
    /// The SUT (`racefuzz::suts::SutEntry::name`).
    sut: &'static str,
    /// Programs per mutant × oracle pair.
    budget: usize,
    /// The program stream (`super::hunt`): seed, minimum length and spread of the bytes.
    stream: (u8, usize, usize),
    caught: Caught,
    /// The widths of the name and oracle columns of its snapshot.
    columns: (usize, usize),
    /// Its snapshot, named as when each SUT had its own test.
    snapshot: &'static str,
}

const HUNTS: &[Hunt] = &[
    Hunt { sut: "racerdx", budget: 4000, stream: (11, 16, 48), caught: Caught::AtLeast(20), columns: (30, 17), snapshot: "racerdx__mutants_are_caught_as_predicted" },
    Hunt {
        sut: "explorers",
        budget: 600,
        stream: (13, 8, 40),
        caught: Caught::AtLeast(0),
        columns: (28, 23),
        snapshot: "explorer_agree__explorer_mutants_are_caught_as_predicted",
    },
    // The atomic bugs under fasttrack-precise-atomics (atomic programs), the others under
    // fasttrack-precise.
    Hunt { sut: "fasttrack", budget: 6_000, stream: (13, 8, 40), caught: Caught::AtLeast(12), columns: (31, 25), snapshot: "fasttrack__fasttrack_mutants_are_judged_as_predicted" },
    Hunt { sut: "per-access", budget: 600, stream: (13, 8, 40), caught: Caught::AtLeast(3), columns: (26, 16), snapshot: "bigfoot__per_access_mutants_are_caught_as_predicted" },
    Hunt { sut: "bigfoot", budget: 3000, stream: (17, 16, 48), caught: Caught::AtLeast(10), columns: (33, 16), snapshot: "bigfoot__bigfoot_mutants_are_caught_as_predicted" },
    Hunt { sut: "escape", budget: 8000, stream: (21, 16, 48), caught: Caught::Exactly(7), columns: (29, 21), snapshot: "filters__escape_mutants_are_caught_as_predicted" },
    // Three mutants break both oracles; the four of the violation checks break only the
    // operational one (formal traces have no violation to miss).
    Hunt { sut: "capsule", budget: 1500, stream: (23, 16, 48), caught: Caught::Exactly(10), columns: (30, 31), snapshot: "filters__capsule_mutants_are_caught_as_predicted" },
    Hunt { sut: "naikaiken", budget: 400, stream: (41, 16, 48), caught: Caught::Exactly(7), columns: (24, 19), snapshot: "naik_aiken__naik_aiken_mutants_are_caught_as_predicted" },
    Hunt { sut: "ldrf", budget: 300, stream: (51, 16, 48), caught: Caught::Exactly(5), columns: (26, 10), snapshot: "ldrf__ldrf_mutants_are_caught_as_predicted" },
    Hunt {
        sut: "ldrf-analyses",
        budget: 300,
        stream: (61, 16, 48),
        caught: Caught::Exactly(5),
        columns: (34, 10),
        snapshot: "ldrf_sound__sync_cfg_mutants_are_caught_as_predicted",
    },
    // A seeded bug of the harness around a real detector: it runs ThreadSanitizer.
    Hunt { sut: "tsan", budget: 20, stream: (13, 8, 40), caught: Caught::Exactly(2), columns: (24, 26), snapshot: "tsan__tsan_mutants_are_caught_as_predicted" },
    // The same for Miri (optional: its row skips where Miri is not installed).
    Hunt { sut: "miri", budget: 5, stream: (13, 8, 40), caught: Caught::Exactly(2), columns: (24, 26), snapshot: "miri__miri_mutants_are_caught_as_predicted" },
];

/// What one hunt found: its table (one line per mutant × oracle pair), the predictions it
/// contradicts, and how many theorem-breaking pairs it caught.
struct Outcome {
    table: String,
    wrong: Vec<String>,
    caught: usize,
}

fn run(h: &Hunt) -> Outcome {
    let (seed, min_len, spread) = h.stream;
    let (mut table, mut wrong, mut caught) = (String::new(), vec![], 0);
    for m in MUTANTS.iter().filter(|m| m.sut == h.sut) {
        for (id, predicted) in racefuzz::suts::predictions(m) {
            let found = super::hunt(Some(m.name), id, h.budget, seed, min_len, spread);
            match (predicted, &found) {
                (Prediction::BreaksTheorem, None) => wrong.push(format!("{} not caught by {id} in {} programs", m.name, h.budget)),
                (Prediction::Equivalent, Some((n, p))) => wrong.push(format!("{} predicted equivalent under {id}, but program {n} fails:\n{}", m.name, print(p))),
                (Prediction::BreaksTheorem, Some(_)) => caught += 1,
                _ => {}
            }
            let seen = found.map_or_else(|| format!("not caught in {}", h.budget), |(n, _)| format!("caught at program {n}"));
            table.push_str(&format!("{:<w1$} {:<w2$} {:<15} {seen}\n", m.name, id, predicted.name(), w1 = h.columns.0, w2 = h.columns.1));
        }
    }
    Outcome { table, wrong, caught }
}

/// Every SUT's mutants are caught (or not) as predicted. The rows run in parallel; their
/// results are then checked in table order.
#[test]
fn mutants_are_caught_as_predicted() {
    let only = std::env::var("RACEFUZZ_HUNT").ok();
    let hunts: Vec<&Hunt> = HUNTS
        .iter()
        .filter(|h| only.as_deref().is_none_or(|o| o.split(',').any(|s| s == h.sut)))
        .filter(|h| h.sut != "tsan" || crate::needs::needs("oracles::hunt::mutants_are_caught_as_predicted (its tsan row)", &[crate::needs::Tool::Tsan]))
        .filter(|h| h.sut != "miri" || crate::needs::needs("oracles::hunt::mutants_are_caught_as_predicted (its miri row)", &[crate::needs::Tool::Miri]))
        .collect();
    assert!(!hunts.is_empty(), "RACEFUZZ_HUNT names no SUT of the table");
    let outcomes: Vec<Outcome> = std::thread::scope(|s| hunts.iter().map(|h| s.spawn(move || run(h))).collect::<Vec<_>>().into_iter().map(|t| t.join().unwrap()).collect());
    for (h, o) in hunts.iter().zip(outcomes) {
        assert!(!o.table.is_empty(), "{}: no mutant with a prediction", h.sut);
        assert!(o.wrong.is_empty(), "{}: {}\n\n{}", h.sut, o.wrong.join("\n"), o.table);
        match h.caught {
            Caught::Exactly(n) => assert_eq!(o.caught, n, "{}\n{}", h.sut, o.table),
            Caught::AtLeast(n) => assert!(o.caught >= n, "{}: only {} theorem-breaking pairs caught\n{}", h.sut, o.caught, o.table),
        }
        insta::with_settings!({ prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(format!("integration__oracles__{}", h.snapshot), o.table);
        });
    }
}

/// Every SUT with seeded bugs has its row, and every row a SUT with seeded bugs.
#[test]
fn every_sut_with_mutants_is_hunted() {
    let mut with_mutants: Vec<&str> = MUTANTS.iter().map(|m| m.sut).collect();
    with_mutants.dedup();
    let mut rows: Vec<&str> = HUNTS.iter().map(|h| h.sut).collect();
    with_mutants.sort_unstable();
    rows.sort_unstable();
    assert_eq!(rows, with_mutants);
}
