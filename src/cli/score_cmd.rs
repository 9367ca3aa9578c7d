//! `racefuzz score`: a detector's scorecard ([`crate::score`]).

use indicatif::{ProgressBar, ProgressStyle};

use super::shared::{oracle, subject, CliError, DetectorArgs, Exit};
use crate::outln;
use crate::score::{generator_of, score, Corpus};
use crate::sut_spec::SutName;
use crate::suts::SUTS;

/// Scores the detector that `sut`, `mutant` or `detector` name on `corpus`.
///
/// # Errors
/// A SUT that is no detector, a mutant of another SUT, a bad detector command.
pub(super) fn run(sut: Option<&str>, mutant: Option<&str>, detector: &DetectorArgs, corpus: Corpus, jobs: usize, json: bool) -> Result<Exit, CliError> {
    // The oracle whose SUTs include the one named: it fixes the generator (its dialect).
    let name = sut.or_else(|| mutant.and_then(|m| m.split('+').next()).and_then(crate::mutants::find).map(|m| m.sut)).unwrap_or("fasttrack");
    // A real detector's version (`tsan@clang-19`) does not change which generator fits it.
    let base = name.parse::<SutName>().map_or_else(|_| name.to_string(), |n| n.name);
    let Some(id) = SUTS.iter().find(|e| e.name == base).and_then(|e| generator_of(e.kind)) else {
        let fitting: Vec<&str> = SUTS.iter().filter(|e| generator_of(e.kind).is_some()).map(|e| e.name).collect();
        return Err(CliError::input(format!("error: score judges dynamic detectors; `{name}` is not one (detectors: {})", fitting.join(", "))));
    };
    let subject = subject(&oracle(id)?, &detector.spec(sut, mutant)?)?;
    let bar = ProgressBar::new(corpus.programs);
    bar.set_style(ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} programs").unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> "));
    let mut card = score(&|| subject.sut(), subject.relax(), corpus, jobs, &|| bar.inc(1)).map_err(|e| CliError::internal(e.to_string()))?;
    if let Some(m) = subject.mutant() {
        card.detector = format!("{} (mutant {m})", card.detector);
    }
    bar.finish_and_clear();
    if json {
        let text = serde_json::to_string_pretty(&card).map_err(CliError::internal)?;
        outln!("{text}");
    } else {
        super::shared::emit(&card.to_string());
    }
    Ok(Exit::Ok)
}
