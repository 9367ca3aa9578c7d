//! A scoreboard: several detectors' scorecards side by side over the same programs and
//! traces (`racefuzz score --sut A --sut B …`), then every distinct deviation of each, as a
//! signature (detector, mistake, granularity, category) with its smallest program shrunk
//! and its class ([`super::limitations`]: a documented limitation with its citation, or a
//! suspected bug).
//!
//! Invariant: every card was scored on the same corpus (the same generator, seed, program
//! count and trace choice), so the rows compare; [`Board::new`] refuses cards that were
//! not.

use super::limitations::{classify, Class};
use super::{decimal, Counts, Deviation, Scorecard};

/// One detector's row and its deviations.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Entry {
    /// The SUT as named (`tsan@gcc-12`).
    pub sut: String,
    /// Its scorecard.
    pub card: Scorecard,
    /// Its deviations, each classified, sorted by signature.
    pub deviations: Vec<Classified>,
}

/// A deviation with its class.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Classified {
    /// `SUT mistake (granularity): category`.
    pub signature: String,
    /// The deviation.
    #[serde(flatten)]
    pub deviation: Deviation,
    /// What it is.
    pub class: Class,
}

/// Several detectors' scorecards over one corpus.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Board {
    /// The generator, seed, program count and trace choice every card shares.
    pub generator: &'static str,
    /// The corpus's seed.
    pub seed: u64,
    /// Programs.
    pub programs: u64,
    /// One trace per Mazurkiewicz class.
    pub classes: bool,
    /// The most traces explored per program.
    pub max_traces: u64,
    /// Programs whose exploration was cut at `max_traces` (the same for every card).
    pub cut_programs: u64,
    /// Whether the programs were strengthened (`super::Corpus::strengthened`).
    pub strengthened: bool,
    /// One entry per detector, in the order named.
    pub entries: Vec<Entry>,
}

/// Cards that do not share a corpus.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{first} and {other} were scored on different corpora ({why}); a board compares detectors on the same programs")]
pub struct MixedCorpora {
    first: String,
    other: String,
    why: String,
}

impl Board {
    /// The board of `scored`: (SUT name, card, deviations), in order.
    ///
    /// # Errors
    /// [`MixedCorpora`] when two cards were scored on different corpora.
    pub fn new(scored: Vec<(String, Scorecard, Vec<Deviation>)>) -> Result<Board, MixedCorpora> {
        let Some((first, c0, _)) = scored.first() else {
            return Ok(Board { generator: "", seed: 0, programs: 0, classes: false, max_traces: 0, cut_programs: 0, strengthened: false, entries: vec![] });
        };
        let (generator, seed, programs, classes, max_traces, cut_programs, strengthened) =
            (c0.generator, c0.seed, c0.programs, c0.classes, c0.max_traces, c0.cut_programs, c0.strengthened);
        for (name, c, _) in &scored {
            let why = if c.generator != generator {
                format!("generators {generator} and {}", c.generator)
            } else if (c.seed, c.programs, c.classes, c.max_traces) != (seed, programs, classes, max_traces) {
                "seed, program count, trace choice or cap on traces".to_string()
            } else if c.strengthened != strengthened {
                "programs strengthened for one only: docs/spec/atomics.md §6.3".to_string()
            } else {
                continue;
            };
            return Err(MixedCorpora { first: first.clone(), other: name.clone(), why });
        }
        let entries = scored
            .into_iter()
            .map(|(sut, card, deviations)| {
                let mut deviations: Vec<Classified> = deviations
                    .into_iter()
                    .map(|d| Classified { signature: format!("{sut} {} ({}): {}", d.mistake, d.granularity.name(), d.example.category), class: classify(&sut, &d), deviation: d })
                    .collect();
                deviations.sort_by(|a, b| a.signature.cmp(&b.signature));
                Entry { sut, card, deviations }
            })
            .collect();
        Ok(Board { generator, seed, programs, classes, max_traces, cut_programs, strengthened, entries })
    }
}

/// `precision recall F1` of `c`, or dashes.
fn prf(c: Option<Counts>) -> String {
    c.map_or_else(|| format!("{:>5} {:>5} {:>5}", "-", "-", "-"), |c| format!("{:>5} {:>5} {:>5}", decimal(c.precision()), decimal(c.recall()), decimal(c.f1())))
}

impl std::fmt::Display for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let traces = if self.classes { "one trace per Mazurkiewicz class" } else { "every interleaving" };
        writeln!(
            f,
            "{} detector(s) on {} programs of {}'s generator, seed {}{}, {traces}",
            self.entries.len(),
            self.programs,
            self.generator,
            self.seed,
            super::strengthened(self.strengthened)
        )?;
        if self.cut_programs > 0 {
            writeln!(f, "{} program(s) cut at {} traces (counted per trace, not per program)", self.cut_programs, self.max_traces)?;
        }
        writeln!(f)?;
        let w = self.entries.iter().map(|e| e.sut.len()).max().unwrap_or(0).max(8);
        writeln!(f, "{:w$}  {:<13} {:>7} {:>9}  {:^17}  {:^17}    event P R F1", "detector", "claim", "traces", "no answer", "program P R F1", "location P R F1")?;
        for e in &self.entries {
            let c = &e.card;
            writeln!(f, "{:w$}  {:<13} {:>7} {:>9}  {}  {}  {}", e.sut, c.claim, c.traces, c.failed_traces, prf(Some(c.program)), prf(c.location), prf(c.event))?;
        }
        let all: Vec<&Classified> = self.entries.iter().flat_map(|e| &e.deviations).collect();
        writeln!(f)?;
        if all.is_empty() {
            return writeln!(f, "no deviation: every detector agrees with the ground truth at every granularity");
        }
        let bugs = all.iter().filter(|d| d.class == Class::SuspectedBug).count();
        let known = all.iter().filter(|d| matches!(d.class, Class::KnownBug { .. })).count();
        // Known bugs are named only where there are some: most boards have none.
        let known_text = if known > 0 { format!(", {known} known bug(s)") } else { String::new() };
        writeln!(f, "{} distinct deviation(s), {} documented{known_text}, {bugs} suspected bug(s):", all.len(), all.len() - bugs - known)?;
        for d in all {
            let x = &d.deviation.example;
            writeln!(f)?;
            writeln!(f, "{} (in {} program(s))", d.signature, x.programs)?;
            writeln!(f, "  {}", d.class)?;
            writeln!(f, "  smallest: program {}, shrunk; on schedule {}: {}", x.program, x.schedule, x.at)?;
            for l in x.shrunk.lines() {
                writeln!(f, "    {l}")?;
            }
        }
        Ok(())
    }
}
