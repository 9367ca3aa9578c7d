//! Corpus conventions: how a `.race` file states its expected ground truth.
//!
//! Header comments (`//` lines anywhere in the file) may carry expectations:
//! - `// expect: race on b.f, p.o` — the run races, on exactly these addresses;
//! - `// expect: no race` — no execution races;
//! - `// expect m1,m2: race on l1.f` / `// expect m1,m2: no race` — one racerdx pair.
//!
//! and the reports RacerDX must make, from the paper's text (docs/spec/racerdx.md §6.1):
//! - `// report m1,m2: f, x.g.f` — RacerDX reports `m1 ∥ m2` on exactly these field
//!   sequences;
//! - `// report: none` — RacerDX reports nothing on this program.
//!
//! A file with `report` lines pins *every* report: a pair it does not name must have none,
//! so a missing report and an extra one both fail (an analysis that drops reports
//! must fail somewhere that does not depend on the generator).
//!
//! `tests/corpus.rs` and `racefuzz corpus` compare them with the explorer and RacerDX.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use race_oracles::lang::Program;
use race_oracles::theorems::StaticRaceAnalysis;

/// The curated corpus, relative to the repository root: the papers' examples and the
/// negative tests. `cargo test` and `racefuzz corpus` read only these; findings of
/// campaigns live elsewhere (`campaign::DEFAULT_OUT`) until a person promotes them.
pub const CURATED: [&str; 2] = ["corpus/paper", "corpus/negative"];

/// One expectation from a header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// `None` for a thread program, `Some((m1, m2))` for a racerdx pair.
    pub pair: Option<(String, String)>,
    /// The expected racy addresses (empty = no race).
    pub racy_addresses: Vec<String>,
    /// The header line, for messages.
    pub line: u32,
}

/// A header line of a `.race` file that does not say what its kind must, or an analysis
/// that gives no reports to compare with them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CorpusError {
    /// A malformed `// expect`, `// report` or `// outside` line.
    #[error("line {line}: {what}")]
    Line {
        /// The line (1-based).
        line: usize,
        /// What is wrong.
        what: String,
    },
    /// The analysis failed on the program.
    #[error("{analysis} gave no reports: {why}")]
    NoReports {
        /// The analysis.
        analysis: String,
        /// Its failure.
        why: String,
    },
}

impl CorpusError {
    fn line(line: usize, what: String) -> CorpusError {
        CorpusError::Line { line, what }
    }
}

/// Reads the expectations of a `.race` source.
///
/// # Errors
/// A message naming the line of a malformed `expect` comment.
pub fn expectations(src: &str) -> Result<Vec<Expectation>, CorpusError> {
    let mut out = vec![];
    for (i, l) in src.lines().enumerate() {
        let Some(rest) = l.trim().strip_prefix("// expect") else { continue };
        // OK since a line number only labels messages (it indexes nothing); past 2³² it saturates.
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let Some((who, what)) = rest.split_once(':') else {
            return Err(CorpusError::line(i + 1, "`// expect` needs a `:`".into()));
        };
        let pair = match who.trim() {
            "" => None,
            p => match p.split_once(',') {
                Some((a, b)) => Some((a.trim().to_string(), b.trim().to_string())),
                None => return Err(CorpusError::line(i + 1, "expected `// expect m1,m2: …`".into())),
            },
        };
        let what = what.trim();
        let racy_addresses = if what == "no race" {
            vec![]
        } else if let Some(addrs) = what.strip_prefix("race on ") {
            let mut v: Vec<String> = split_top_level(addrs).into_iter().map(|a| a.trim().to_string()).filter(|a| !a.is_empty()).collect();
            v.sort();
            v
        } else {
            return Err(CorpusError::line(i + 1, "expected `no race` or `race on ADDR, …`".into()));
        };
        out.push(Expectation { pair, racy_addresses, line });
    }
    Ok(out)
}

/// Splits a list at the commas outside parentheses: a Naik-Aiken address names its object
/// by stamp, `h3(1,0).g`.
fn split_top_level(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (vec![], 0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// The assumptions a file declares it breaks on purpose (`// outside: balanced-locking`):
/// negative tests such as docs/spec/racerdx.md §6.3(b)–(c) are valid only with these relaxed.
///
/// # Errors
/// A message naming an unknown assumption.
pub fn relax(src: &str) -> Result<race_oracles::lang::Relax, CorpusError> {
    let mut r = race_oracles::lang::Relax::default();
    for (i, l) in src.lines().enumerate() {
        if let Some(what) = l.trim().strip_prefix("// outside:") {
            match what.trim() {
                "balanced-locking" => r.balanced_locking = true,
                "sync-reassign" => r.sync_reassign = true,
                other => return Err(CorpusError::line(i + 1, format!("unknown assumption `{other}` (known: balanced-locking, sync-reassign)"))),
            }
        }
    }
    Ok(r)
}

/// Per method pair (sorted by name), the reported field sequences (`f.g`).
pub type PinnedReports = BTreeMap<(String, String), BTreeSet<String>>;

/// Reads the `// report` lines of a `.race` source: per method pair (sorted by name), the
/// expected report field sequences (`f.g`). `None` when the file pins no reports.
///
/// # Errors
/// A message naming the line of a malformed `report` comment.
pub fn report_expectations(src: &str) -> Result<Option<PinnedReports>, CorpusError> {
    let mut out: Option<PinnedReports> = None;
    for (i, l) in src.lines().enumerate() {
        let Some(rest) = l.trim().strip_prefix("// report") else { continue };
        let Some((who, what)) = rest.split_once(':') else {
            return Err(CorpusError::line(i + 1, "`// report` needs a `:`".into()));
        };
        let all = out.get_or_insert_with(BTreeMap::new);
        match (who.trim(), what.trim()) {
            ("", "none") => {}
            ("", _) => return Err(CorpusError::line(i + 1, "expected `// report: none` or `// report m1,m2: FIELDS`".into())),
            (pair, fields) => {
                let Some((a, b)) = pair.split_once(',') else { return Err(CorpusError::line(i + 1, "expected `// report m1,m2: …`".into())) };
                let key = sorted_pair(a.trim(), b.trim());
                let entry = all.entry(key).or_default();
                entry.extend(fields.split(',').map(|f| f.trim().to_string()).filter(|f| !f.is_empty() && f != "none"));
            }
        }
    }
    Ok(out)
}

fn sorted_pair(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// Compares an analysis's reports on `p` with the file's `// report` lines: one message per
/// missing or extra report (empty when they agree, or when the file pins no reports).
///
/// # Errors
/// A malformed `report` line.
pub fn report_mismatches(src: &str, p: &Program, a: &dyn StaticRaceAnalysis) -> Result<Vec<String>, CorpusError> {
    let Some(expected) = report_expectations(src)? else { return Ok(vec![]) };
    let mut actual = PinnedReports::new();
    for r in a.reports(p).map_err(|e| CorpusError::NoReports { analysis: a.name(), why: e.to_string() })? {
        let [s0, s1] = &r.sides;
        actual.entry(sorted_pair(&s0.method, &s1.method)).or_default().insert(s0.path.fields.join("."));
    }
    let mut out = vec![];
    let empty = BTreeSet::new();
    let pairs: BTreeSet<&(String, String)> = expected.keys().chain(actual.keys()).collect();
    for pair in pairs {
        let (e, got) = (expected.get(pair).unwrap_or(&empty), actual.get(pair).unwrap_or(&empty));
        for f in e.difference(got) {
            out.push(format!("{} misses the expected report {} ∥ {} on {f}", a.name(), pair.0, pair.1));
        }
        for f in got.difference(e) {
            out.push(format!("{} reports {} ∥ {} on {f}, which no `// report` line expects", a.name(), pair.0, pair.1));
        }
    }
    Ok(out)
}

/// A header value (`// key: value`) of a `.race` file, if present.
pub fn header<'a>(src: &'a str, key: &str) -> Option<&'a str> {
    src.lines().find_map(|l| l.trim().strip_prefix("//")?.trim().strip_prefix(key)?.strip_prefix(':').map(str::trim))
}

/// Every `.race` file under `dir`, recursively, sorted by path.
pub fn race_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "race") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_headers() {
        let e = expectations("// expect: race on p.o, b.f\n// expect zap,zup: no race\nx").unwrap();
        assert_eq!(e[0].racy_addresses, vec!["b.f", "p.o"]);
        assert_eq!(e[1].pair, Some(("zap".into(), "zup".into())));
        assert!(expectations("// expect: maybe").is_err());
    }

    #[test]
    fn parses_report_lines() {
        assert_eq!(report_expectations("x").unwrap(), None);
        assert_eq!(report_expectations("// report: none").unwrap(), Some(BTreeMap::new()));
        let r = report_expectations("// report zup,zap: dee, x.g.f\n// report zup,zup: dee").unwrap().unwrap();
        assert_eq!(r[&("zap".to_string(), "zup".to_string())], BTreeSet::from(["dee".to_string(), "x.g.f".to_string()]));
        assert!(report_expectations("// report zap: f").is_err());
    }
}
