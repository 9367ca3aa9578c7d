//! `racefuzz detectors`: the real detectors racefuzz runs ([`crate::real`]), each with
//! whether it is installed here, its version, the pinned one, and the command that
//! installs it.

use super::shared::{print_json, CliError, Exit};
use crate::outln;
use crate::real::{RealDetector, Version, DETECTORS};
use crate::sut_spec::SutName;

/// One row of the table.
#[derive(Debug, serde::Serialize)]
struct Row {
    /// The SUT name (`tsan@gcc-12`).
    sut: String,
    /// What it is.
    what: &'static str,
    /// Its installed version, if it is installed.
    version: Option<String>,
    /// Why it is not, if it is not.
    missing: Option<String>,
    /// The version CI pins.
    pin: &'static str,
    /// The command that installs it.
    install: &'static str,
}

/// Its row; `build`: whether to build what takes minutes (a loom driver) to tell.
fn row(d: &RealDetector, v: &'static Version, build: bool) -> Row {
    let probed = if build { d.installed(v) } else { d.installed_without_building(v) };
    let (version, missing) = match probed {
        Ok(found) => (Some(found), None),
        Err(crate::real::RealError::NotInstalled { why, .. }) => (None, Some(why)),
        Err(e) => (None, Some(e.to_string())),
    };
    Row { sut: d.sut_name(v), what: d.what, version, missing, pin: v.pin, install: v.install }
}

/// Lists the real detectors (all, or those `names` names, `NAME[@VERSION]`). Listing all
/// builds no loom driver (a version not built yet says so); naming one builds it.
///
/// # Errors
/// A name that is no real detector or version; with names, one that is not installed
/// (exit 2, with its install command).
pub(super) fn run(names: &[String], json: bool) -> Result<Exit, CliError> {
    let rows: Vec<Row> = if names.is_empty() {
        DETECTORS.iter().flat_map(|d| d.versions.iter().map(move |v| row(d, v, false))).collect()
    } else {
        let mut rows = vec![];
        for n in names {
            let name: SutName = n.parse().map_err(|e| CliError::input(format!("error: {e}")))?;
            let known = DETECTORS.iter().map(|d| d.name).collect::<Vec<_>>().join(", ");
            let d = crate::real::find(&name.name).ok_or_else(|| CliError::input(format!("error: `{}` is not a real detector (they are: {known})", name.name)))?;
            let v = d.version(name.version.as_deref()).map_err(|e| CliError::input(format!("error: {e}")))?;
            rows.push(row(d, v, true));
        }
        if let Some(missing) = rows.iter().find(|r| r.missing.is_some()) {
            return Err(CliError::input(format!(
                "error: {} is not installed here: {}; install it with `{}`",
                missing.sut,
                missing.missing.as_deref().unwrap_or(""),
                missing.install
            )));
        }
        rows
    };
    if json {
        print_json(&rows)?;
        return Ok(Exit::Ok);
    }
    let width = rows.iter().map(|r| r.sut.len()).max().unwrap_or(0).max(3);
    outln!("{:width$}  {:9}  {:8}  install", "SUT", "installed", "pin");
    for r in &rows {
        let installed = r.version.as_deref().unwrap_or("no");
        outln!("{:width$}  {installed:9}  {:8}  {}", r.sut, r.pin, r.install);
        if let Some(why) = &r.missing {
            outln!("{:width$}  ({why})", "");
        }
    }
    Ok(Exit::Ok)
}
