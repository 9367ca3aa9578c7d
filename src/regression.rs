//! Regression tests made of shrunk counterexamples (`racefuzz shrink --into-test NAME
//! --root-cause "…"`): a `.race` file under `tests/regress/` whose header
//! ([`FindingHeader`], kind [`Kind::Regression`]) names the oracle, the SUT, the mutant, the
//! verdict and the root cause. `tests/regress.rs` replays each one and snapshots the
//! oracle's explanation through insta, computed on the file itself, so the lines it names
//! are the file's lines.

use std::path::{Path, PathBuf};

use race_oracles::lang::{parse, print, Program};

use crate::finding_header::{FindingHeader, Kind};
use crate::sut_spec::SutSpec;

/// Where regressions live, relative to the repository root (the working directory of
/// `racefuzz shrink --into-test`).
pub const DIR: &str = "tests/regress";

/// Why a regression cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum RegressionError {
    /// A test name that is not one.
    #[error("--into-test NAME must be letters, digits, `_` or `-`")]
    BadName,
    /// No root cause, or one of several lines.
    #[error("--into-test needs --root-cause \"…\": one line saying why the SUT fails here")]
    NoRootCause,
    /// The name is taken (by the program or by its snapshot).
    #[error("--into-test {name}: {} already exists; choose another NAME, or pass --force to replace the regression (its snapshot then differs, for review)", taken.display())]
    Taken {
        /// The name.
        name: String,
        /// The file that has it.
        taken: PathBuf,
    },
    /// An external SUT, whose regressions belong to its own tests.
    #[error("--into-test keeps regressions of racefuzz's own SUTs; keep an external SUT's shrunk program in its own tests")]
    External,
    /// The file could not be written.
    #[error("cannot write the test: {0}")]
    Io(#[from] std::io::Error),
}

/// The insta snapshot `tests/regress.rs` records for the regression `name`.
fn snapshot_of(name: &str) -> PathBuf {
    Path::new("tests/snapshots").join(format!("integration__regress__{name}.snap"))
}

/// Checks a regression's name and root cause before any work (a taken name costs no
/// wait), unless `force` lets it replace one.
///
/// # Errors
/// [`RegressionError`]: a bad name, no root cause, a name taken.
pub fn check_name(dir: &Path, name: &str, cause: Option<&str>, force: bool) -> Result<(), RegressionError> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(RegressionError::BadName);
    }
    match cause.map(str::trim) {
        Some(c) if !c.is_empty() && !c.contains('\n') => {}
        _ => return Err(RegressionError::NoRootCause),
    }
    let race = dir.join(format!("{name}.race"));
    if let Some(taken) = [race, snapshot_of(name)].into_iter().find(|p| p.exists()).filter(|_| !force) {
        return Err(RegressionError::Taken { name: name.to_string(), taken });
    }
    Ok(())
}

/// What makes two regressions of one program the same test: oracle, SUT and mutant.
pub fn key(oracle: &str, sut: &SutSpec) -> String {
    let name = sut.sut_name().map(|n| format!(", SUT {n}")).unwrap_or_default();
    format!("oracle {oracle}{name}, mutant {}", sut.mutant().unwrap_or("none"))
}

/// The regressions under `dir` whose program prints as `p` does, with their keys, sorted by
/// path (a file that does not parse, or whose header does not, is not one).
pub fn same_as(dir: &Path, p: &Program) -> Vec<(PathBuf, String)> {
    let want = print(p);
    crate::corpus::race_files(dir)
        .into_iter()
        .filter_map(|f| {
            let src = std::fs::read_to_string(&f).ok()?;
            let q = parse(&src).ok()?;
            let h = FindingHeader::parse(&src).ok()?;
            (print(&q) == want).then(|| (f, key(h.oracle.as_deref().unwrap_or("?"), &h.sut)))
        })
        .collect()
}

/// Writes the regression `name` of `oracle` on `sut`: the header, then the program.
///
/// # Errors
/// [`RegressionError::External`] for an external SUT; I/O errors.
pub fn write(dir: &Path, name: &str, cause: &str, oracle: &str, sut: &SutSpec, p: &Program) -> Result<PathBuf, RegressionError> {
    if sut.is_external() {
        return Err(RegressionError::External);
    }
    std::fs::create_dir_all(dir)?;
    let header = FindingHeader { kind: Kind::Regression { name: name.to_string(), root_cause: cause.trim().to_string() }, oracle: Some(oracle.to_string()), sut: sut.clone() };
    let race = dir.join(format!("{name}.race"));
    std::fs::write(&race, format!("{}{}", header.print(), print(p)))?;
    Ok(race)
}
