//! `racefuzz score` (`racefuzz::score`): the scorecard counts what the ground truth says.
//! FastTrack is exact at location granularity (its claim, docs/spec/bigfoot.md §1.6), a
//! detector that flags every access has full recall and imperfect precision, one that flags
//! nothing has no precision and no recall, and each shows its mistakes shrunk.

use race_oracles::lang::{parse, Relax};
use race_oracles::machine::{Event, EventKind};
use race_oracles::theorems::{DynamicDetector, Reported, Sut};
use racefuzz::score::{score, Corpus, Granularity, Scorecard};
use racefuzz::suts::Subject;

use super::cli::racefuzz;

/// Flags every access (`true`) or nothing (`false`).
struct Flags(bool);

impl DynamicDetector for Flags {
    fn on_event(&mut self, e: &Event) -> Result<(), Reported> {
        if self.0 && matches!(e.kind, EventKind::Access(..)) {
            Err(Reported)
        } else {
            Ok(())
        }
    }

    fn name(&self) -> String {
        format!("flags-{}", if self.0 { "every-access" } else { "nothing" })
    }
}

fn card_of(flags: bool, programs: u64) -> Scorecard {
    let factory = move || Box::new(Flags(flags)) as Box<dyn DynamicDetector>;
    score(&|| Sut::Detector(&factory), Relax::default(), Corpus::new(programs, 3), 1, &|| {}).unwrap()
}

#[test]
fn fasttrack_is_exact_at_locations_and_the_card_is_deterministic() {
    let o = race_oracles::theorems::Registry::builtin().find("fasttrack-precise").copied().unwrap();
    let ft = Subject::for_oracle(&o, None).unwrap();
    let card = score(&|| ft.sut(), ft.relax(), Corpus::new(300, 1), 1, &|| {}).unwrap();
    assert_eq!((card.location.unwrap().fp, card.location.unwrap().fn_, card.program.fp, card.program.fn_), (0, 0, 0, 0), "{card}");
    assert_eq!((card.location.unwrap().precision(), card.location.unwrap().recall()), (Some(1.0), Some(1.0)));
    // Not vacuous: racy programs, many racy locations, and every trace read.
    assert!(card.program.tp >= 50 && card.location.unwrap().tp >= 1_000 && card.traces >= 10_000 && card.failed_traces == 0, "{card}");
    assert_eq!((card.false_positive.clone(), card.false_negative.clone()), (None, None));
    // The same seed draws the same corpus, with any number of jobs; another seed another one.
    assert_eq!(score(&|| ft.sut(), ft.relax(), Corpus::new(300, 1), 3, &|| {}).unwrap(), card);
    assert_ne!(score(&|| ft.sut(), ft.relax(), Corpus::new(300, 2), 1, &|| {}).unwrap().traces, card.traces);
}

/// `--max-traces` cuts a program at that many traces: the cut ones are counted per trace and
/// left out of the program row, and the card says how many.
#[test]
fn a_cap_on_traces_cuts_programs_and_the_card_says_so() {
    let o = race_oracles::theorems::Registry::builtin().find("fasttrack-precise").copied().unwrap();
    let ft = Subject::for_oracle(&o, None).unwrap();
    let corpus = Corpus { classes: true, generator: racefuzz::score::Generator::Limits, ..Corpus::new(40, 1) };
    let full = score(&|| ft.sut(), ft.relax(), corpus, 2, &|| {}).unwrap();
    let capped = score(&|| ft.sut(), ft.relax(), Corpus { max_traces: 5, ..corpus }, 2, &|| {}).unwrap();
    assert!(capped.cut_programs > full.cut_programs && capped.traces <= 5 * 40 && capped.traces < full.traces, "{full}\n{capped}");
    assert_eq!(capped.max_traces, 5);
    assert!(capped.program.tp < full.program.tp, "cut programs leave the program row: {full}\n{capped}");
    assert!(capped.to_string().contains(&format!("{} program(s) cut at 5 executions", capped.cut_programs)), "{capped}");
}

#[test]
fn flagging_every_access_has_full_recall_and_shows_a_shrunk_false_alarm() {
    let card = card_of(true, 150);
    for c in [card.program, card.location.unwrap(), card.event.unwrap()] {
        assert_eq!(c.fn_, 0, "{card}");
        assert!(c.tp > 0 && c.fp > 0 && c.precision().is_some_and(|p| p < 1.0), "{card}");
    }
    assert_eq!(card.false_negative, None);
    let fp = card.false_positive.clone().unwrap();
    // The example still shows its category after shrinking: a smallest program with a
    // schedule and a location, small enough to read.
    let p = parse(&fp.shrunk).unwrap();
    assert!(race_oracles::gen::shrink::size(&p) <= 6 && !fp.schedule.is_empty() && !fp.at.is_empty(), "{card}");
    assert!(fp.programs >= 1 && fp.programs <= card.program.fp + card.program.tp, "{card}");
    assert_eq!(card.examples_at, Granularity::Location);
}

#[test]
fn flagging_nothing_has_no_precision_and_no_recall_and_shows_a_shrunk_missed_race() {
    let card = card_of(false, 150);
    assert_eq!((card.location.unwrap().tp, card.location.unwrap().fp, card.location.unwrap().precision(), card.location.unwrap().recall()), (0, 0, None, Some(0.0)), "{card}");
    assert!(card.location.unwrap().fn_ > 0 && card.program.fn_ > 0, "{card}");
    let missed = card.false_negative.clone().unwrap();
    assert!(missed.category.ends_with(" race"), "{card}");
    // A missed race needs two threads and two accesses, and the shrinker gets there.
    let p = parse(&missed.shrunk).unwrap();
    assert!(p.threads.len() == 2 && race_oracles::gen::shrink::size(&p) <= 6, "{card}");
}

#[test]
fn the_command_scores_detectors_only_and_prints_the_card() {
    let (code, out, err) = racefuzz(&["score", "--programs", "20"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("FastTrack (claim: locations) on 20 programs of fasttrack-precise's generator, seed 1\n") && out.contains("\nlocation "), "{out}");
    let (code, _, err) = racefuzz(&["score", "--sut", "racerdx"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "score judges dynamic detectors and model checkers; `racerdx` is neither (those it judges: fasttrack, tsan, helgrind, drd, go-race, miri, loom, bigfoot, per-access)"
        ),
        "{err}"
    );
    let (code, _, err) = racefuzz(&["score", "--mutant", "nope"]);
    assert_eq!(code, 2, "{err}");
    let (code, out, err) = racefuzz(&["score", "--sut", "bigfoot", "--programs", "10"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("event        (none: the detector reports the placed checks, not the accesses)"), "{out}");
}

/// A detector that stops at the first race (Miri's claim, `first-race`; here the reference
/// detector's first report only) is not charged with the races after it as a deviation of
/// its own: they are filed "after the race it stopped at" (docs/spec/atomics.md §5.4), the
/// category Miri's limitation row names.
#[test]
fn a_first_race_detector_is_charged_apart_for_the_races_after_it_stopped() {
    let first = format!("python3 {}/examples/detectors/hb.py {{}} | head -1", env!("CARGO_MANIFEST_DIR"));
    let (code, out, err) = racefuzz(&["score", "--detector-cmd", &first, "--claim", "first-race", "--programs", "30", "--classes"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("no false positive (event)"), "{out}");
    assert!(out.contains("most frequent false negative (event): a write-read race after the race it stopped at"), "{out}");
}

/// `score --sut A --sut B` (and a `--detector-cmd`) puts the detectors side by side on one
/// corpus: FastTrack and the lockset detector of `examples/detectors` (Eraser's). Every
/// distinct deviation is listed with its shrunk program and a class; FastTrack's only ones
/// are the repeat races on a location it already reported (its claim is locations: a
/// documented limitation), and the lockset detector's missed write-read race is a
/// suspected bug (no citation in the table for an external detector). Mixing corpora (a
/// check placer draws other programs) is exit 2.
#[test]
fn a_board_puts_detectors_side_by_side_with_every_deviation_classified() {
    let lockset = format!("python3 {}/examples/detectors/lockset.py {{}}", env!("CARGO_MANIFEST_DIR"));
    let (code, out, err) = racefuzz(&["score", "--sut", "fasttrack", "--detector-cmd", &lockset, "--programs", "6", "--classes", "--json"]);
    assert_eq!(code, 0, "{err}");
    let board: serde_json::Value = serde_json::from_str(&out).unwrap();
    let entries = board["entries"].as_array().unwrap();
    let suts: Vec<&str> = entries.iter().map(|e| e["sut"].as_str().unwrap()).collect();
    assert_eq!(suts, ["fasttrack", "--detector-cmd"]);
    assert_eq!(entries[0]["card"]["traces"], entries[1]["card"]["traces"], "the same traces");
    assert_eq!(entries[0]["card"]["location"]["f1"], 1.0);
    for d in entries[0]["deviations"].as_array().unwrap() {
        assert_eq!(d["class"]["class"], "limitation", "{d}");
        assert!(d["signature"].as_str().unwrap().contains("on a location reported earlier in the trace"), "{d}");
    }
    // Eraser's state machine lets a location written by one thread and then only read by
    // another pass unreported (its Exclusive and Shared states): a missed write-read race.
    let lockset_fn: Vec<&serde_json::Value> =
        entries[1]["deviations"].as_array().unwrap().iter().filter(|d| d["mistake"] == "false negative" && d["granularity"] == "location").collect();
    assert!(lockset_fn.iter().any(|d| d["example"]["category"] == "a write-read race"), "{out}");
    for d in &lockset_fn {
        assert_eq!(d["class"]["class"], "suspected-bug", "{d}");
        assert!(d["example"]["shrunk"].as_str().is_some_and(|s| s.starts_with("dialect bfj2")), "{d}");
    }
    let (code, text, err) = racefuzz(&["score", "--sut", "fasttrack", "--detector-cmd", &lockset, "--programs", "6", "--classes"]);
    assert_eq!(code, 0, "{err}");
    assert!(text.starts_with("2 detector(s) on 6 programs of fasttrack-precise's generator, seed 1, one trace per Mazurkiewicz class"), "{text}");
    assert!(text.contains("suspected bug: no documented limitation matches"), "{text}");
    let (code, _, err) = racefuzz(&["score", "--sut", "fasttrack", "--sut", "per-access", "--programs", "2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("different corpora"), "{err}");
}
