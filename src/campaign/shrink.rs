//! Shrinking a campaign's findings (`fuzz --shrink`): each signature's first program made
//! smaller while it fails in the same way, written next to it.

use std::path::PathBuf;

use race_oracles::gen::shrink::counts;
use race_oracles::lang::{parse, print, Program};
use race_oracles::theorems::{Oracle, Verdict};

use super::{finding_text, write_atomically, CampaignError, Group};
use crate::finding_header::FindingHeader;
use crate::signature::signature;
use crate::suts::{self, Subject};

/// A group's first program shrunk, written next to it as `HASH.shrunk.race`.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// Where it is.
    pub path: PathBuf,
    /// Its statements and methods.
    pub size: (usize, usize),
    /// `stop` ended the shrinking: smaller programs may fail too.
    pub interrupted: bool,
}

/// Why a group's program could not be shrunk.
#[derive(Debug, thiserror::Error)]
pub enum ShrinkError {
    /// The group has no program on disk.
    #[error("no program was written")]
    NothingWritten,
    /// Its file cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The finding.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Its file does not parse (it was edited since it was written).
    #[error("{0}")]
    Parse(String),
    /// The shrunk program's finding could not be made.
    #[error(transparent)]
    Finding(#[from] CampaignError),
    /// The shrunk program could not be written; it is kept here.
    #[error("cannot write {}: {source}; the shrunk program:\n{text}", path.display())]
    Write {
        /// Where it was to go.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
        /// The shrunk finding.
        text: String,
    },
}

/// Shrinks the first program of `g`, keeping its signature (a candidate counts only if it
/// fails in the same way, the signature computed on the printed candidate, whose lines its
/// explanation names), until `max_attempts` oracle runs or `stop`; writes it next to the
/// finding, with the finding's header.
///
/// # Errors
/// [`ShrinkError`]: the finding cannot be read back, or the result cannot be written.
pub fn shrink_group(o: &Oracle, subject: &Subject, g: &Group, max_attempts: usize, stop: &dyn Fn() -> bool) -> Result<Shrunk, ShrinkError> {
    let first = g.written.first().ok_or(ShrinkError::NothingWritten)?;
    let text = std::fs::read_to_string(&first.path).map_err(|source| ShrinkError::Read { path: first.path.clone(), source })?;
    let p = parse(&text).map_err(|e| ShrinkError::Parse(e.render(&first.path.display().to_string())))?;
    let same = |q: &Program| {
        if stop() {
            return false;
        }
        let Ok(q) = parse(&print(q)) else { return false };
        let r = suts::check(o, &q, subject, suts::campaign_bounds());
        r.verdict == Verdict::Fail && signature(&r, &q) == g.signature
    };
    let r = race_oracles::gen::shrink::shrink(&p, subject.relax(), max_attempts, same);
    let interrupted = stop();
    let seed = FindingHeader::parse(&text).ok().and_then(|h| h.seed().map(str::to_string)).unwrap_or_else(|| "?".into());
    let tag = format!("{seed} (shrunk from {})", first.path.display());
    let (text, _, reparsed) = finding_text(o, subject, &tag, &r.program)?;
    let name = first.path.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let path = first.path.with_file_name(format!("{name}.shrunk.race"));
    if let Err(source) = write_atomically(&path, &text) {
        return Err(ShrinkError::Write { path, source, text });
    }
    Ok(Shrunk { path, size: counts(&reparsed), interrupted })
}
