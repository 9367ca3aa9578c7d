//! `racefuzz score`: a detector's scorecard ([`crate::score`]), or several detectors' side
//! by side ([`crate::score::board`]).

use indicatif::{ProgressBar, ProgressStyle};

use super::shared::{oracle, subject, CliError, DetectorArgs, Exit};
use crate::outln;
use crate::score::board::Board;
use crate::score::{generator_of, score, score_and_deviations, Corpus, Generator};
use crate::sut_spec::SutName;
use crate::suts::{Atomics, Subject, SUTS};

/// Scores the detector that `suts`, `mutant` or `detector` name on `corpus`; several side
/// by side when more than one is named (`--sut` twice, or `--sut` and `--detector-cmd`).
///
/// # Errors
/// A SUT that is no detector, a mutant of another SUT, a bad detector command; on a board,
/// detectors whose generators differ, or a mutant.
pub(super) fn run(suts: &[String], mutant: Option<&str>, detector: &DetectorArgs, corpus: Corpus, jobs: usize, json: bool) -> Result<Exit, CliError> {
    if detector.all_traces {
        return Err(CliError::input("error: score runs every interleaving unless --classes; --all-traces is for check, fuzz and shrink"));
    }
    match suts {
        [] | [_] if !(suts.len() == 1 && detector.is_external()) => one(suts.first().map(String::as_str), mutant, detector, corpus, jobs, json),
        _ => board(suts, mutant, detector, corpus, jobs, json),
    }
}

/// The oracle whose generator fits the SUT `name` (`tsan@clang-19`: a version does not
/// change it).
fn generator_for(name: &str) -> Result<&'static str, CliError> {
    let base = name.parse::<SutName>().map_or_else(|_| name.to_string(), |n| n.name);
    SUTS.iter().find(|e| e.name == base).and_then(|e| generator_of(e.kind)).ok_or_else(|| {
        let fitting: Vec<&str> = SUTS.iter().filter(|e| generator_of(e.kind).is_some()).map(|e| e.name).collect();
        CliError::input(format!("error: score judges dynamic detectors and model checkers; `{name}` is neither (those it judges: {})", fitting.join(", ")))
    })
}

/// Several detectors on the same corpus: the catalogued ones named, then the external one.
fn board(suts: &[String], mutant: Option<&str>, detector: &DetectorArgs, corpus: Corpus, jobs: usize, json: bool) -> Result<Exit, CliError> {
    if mutant.is_some() {
        return Err(CliError::input("error: --mutant scores one detector; name one --sut with it"));
    }
    let mut named: Vec<(String, crate::sut_spec::SutSpec, &'static str)> = vec![];
    for s in suts {
        named.push((s.clone(), super::shared::catalogued(Some(s), None)?.claiming(detector.claim()?), generator_for(s)?));
    }
    if detector.is_external() {
        named.push(("--detector-cmd".into(), detector.spec(None, None)?, generator_for("fasttrack")?));
    }
    let subjects = named.iter().map(|(n, spec, id)| Ok((n.clone(), subject(&oracle(id)?, spec)?))).collect::<Result<Vec<_>, CliError>>()?;
    // Before hours of scoring: a board compares detectors on the same programs.
    let strengthens: Vec<bool> = subjects.iter().map(|(_, s)| strengthened(s, corpus)).collect();
    if let (Some(i), Some(j)) = (strengthens.iter().position(|&x| x), strengthens.iter().position(|&x| !x)) {
        let (go, other) = (&subjects[i].0, &subjects[j].0);
        return Err(CliError::input(format!(
            "error: {go} runs and is judged on strengthen(p), every order seq_cst and fences dropped (docs/spec/atomics.md §6.3), and {other} on the programs themselves; a board compares detectors on the same programs: score {go} on its own"
        )));
    }
    let bar = progress(corpus.programs * subjects.len() as u64);
    let mut scored = vec![];
    for ((name, subject), &strengthened) in subjects.iter().zip(&strengthens) {
        let (card, deviations) = score_and_deviations(&|| subject.sut(), subject.relax(), Corpus { strengthened, ..corpus }, jobs, &|| bar.inc(1), true)
            .map_err(|e| CliError::internal(e.to_string()))?;
        scored.push((name.clone(), card, deviations));
    }
    bar.finish_and_clear();
    let board = Board::new(scored).map_err(|e| CliError::input(format!("error: {e}")))?;
    print(&board, json)
}

/// One detector's scorecard.
fn one(sut: Option<&str>, mutant: Option<&str>, detector: &DetectorArgs, corpus: Corpus, jobs: usize, json: bool) -> Result<Exit, CliError> {
    // The oracle whose SUTs include the one named: it fixes the generator (its dialect).
    let name = sut.or_else(|| mutant.and_then(|m| m.split('+').next()).and_then(crate::mutants::find).map(|m| m.sut)).unwrap_or("fasttrack");
    let id = generator_for(name)?;
    let subject = subject(&oracle(id)?, &detector.spec(sut, mutant)?)?;
    let bar = progress(corpus.programs);
    let corpus = Corpus { strengthened: strengthened(&subject, corpus), ..corpus };
    let mut card = score(&|| subject.sut(), subject.relax(), corpus, jobs, &|| bar.inc(1)).map_err(|e| CliError::internal(e.to_string()))?;
    if let Some(m) = subject.mutant() {
        card.detector = format!("{} (mutant {m})", card.detector);
    }
    bar.finish_and_clear();
    print(&card, json)
}

/// Whether `subject` is scored on strengthened programs: a detector whose atomics are all
/// sequentially consistent (`Atomics::Strengthened`), on the programs with atomics.
fn strengthened(subject: &Subject, corpus: Corpus) -> bool {
    subject.entry().atomics == Atomics::Strengthened && corpus.generator == Generator::Atomics
}

/// A progress bar over `programs` programs.
fn progress(programs: u64) -> ProgressBar {
    let bar = ProgressBar::new(programs);
    bar.set_style(ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} programs").unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> "));
    bar
}

/// Prints a scorecard or a board, as JSON or as text.
fn print(value: &(impl serde::Serialize + std::fmt::Display), json: bool) -> Result<Exit, CliError> {
    if json {
        let text = serde_json::to_string_pretty(value).map_err(CliError::internal)?;
        outln!("{text}");
    } else {
        super::shared::emit(&value.to_string());
    }
    Ok(Exit::Ok)
}
