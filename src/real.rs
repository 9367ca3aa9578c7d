//! The real detectors people run, as racefuzz knows them: each by name and version
//! (`tsan@gcc-12`, `helgrind`), with how to tell whether it is installed here and which
//! version it is, the one command that installs it, and the version CI pins.
//! `racefuzz detectors` prints this table; `suts::Subject::new` refuses a detector that is
//! not installed with that command (exit 2), so a missing tool is never a skipped pass.
//!
//! Adding a real detector is a row of [`DETECTORS`] (its versions, each with a pin and an
//! install line), its tool (a `replay::ReplayTool` for one that runs the C or Go replay, a
//! detector factory of its own for Miri's Rust replay), and one entry in `suts::SUTS`.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

use crate::scratch::Scratch;

/// How a real detector is checked for on this machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Probe {
    /// A C compiler (the version's `program`) that builds, links and runs a program with
    /// `-fsanitize=thread`; the compiler's version.
    Tsan,
    /// `valgrind` with the client-request headers the replay includes (`valgrind/helgrind.h`
    /// and `valgrind/drd.h`) for the C compiler of `$CC`; Valgrind's version.
    Valgrind,
    /// `cargo`, and loom's driver at the version's pin built in racefuzz's cache
    /// (`crate::loom::Loom::driver`: minutes from crates.io the first time, a cargo no-op
    /// after); the loom version.
    Loom,
    /// A `go` command (the version's `program`) that builds a racy program with `-race` in
    /// racefuzz's Go environment (`go_race::environment`) whose run reports the race; Go's
    /// version.
    Go,
    /// `cargo +nightly miri` with its sysroot (built by `cargo miri setup` the first time:
    /// about 40 s); Miri's version (`crate::miri::Miri::probe`).
    Miri,
}

/// One version of a real detector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Version {
    /// What follows `@` in its SUT name (`gcc-12`); empty for the unversioned name.
    pub name: &'static str,
    /// The program it runs (`gcc-12`, `valgrind`); `$CC` for the compiler of that variable
    /// (default `cc`).
    pub program: &'static str,
    /// The version CI runs and the tables in the book were measured with (Debian 12's).
    pub pin: &'static str,
    /// The one command that installs it (Debian's packages).
    pub install: &'static str,
}

/// A real detector: a tool people run, which racefuzz judges as a SUT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RealDetector {
    /// Its SUT name (`tsan`).
    pub name: &'static str,
    /// What it is, in a few words.
    pub what: &'static str,
    /// Its versions; the first, unversioned when its name is empty, is what the bare name
    /// runs.
    pub versions: &'static [Version],
    /// How to check for it.
    pub probe: Probe,
}

/// ThreadSanitizer: gcc's (v2 runtime in gcc 11 and 12) and clang's (v3 from clang 14).
const TSAN: &[Version] = &[
    Version { name: "", program: "$CC", pin: "12.2.0", install: "apt-get install gcc" },
    Version { name: "gcc-11", program: "gcc-11", pin: "11.3.0", install: "apt-get install gcc-11" },
    Version { name: "gcc-12", program: "gcc-12", pin: "12.2.0", install: "apt-get install gcc-12" },
    Version { name: "clang-13", program: "clang-13", pin: "13.0.1", install: "apt-get install clang-13" },
    Version { name: "clang-14", program: "clang-14", pin: "14.0.6", install: "apt-get install clang-14 libclang-rt-14-dev" },
    Version { name: "clang-15", program: "clang-15", pin: "15.0.6", install: "apt-get install clang-15" },
    Version { name: "clang-16", program: "clang-16", pin: "16.0.6", install: "apt-get install clang-16 libclang-rt-16-dev" },
    Version { name: "clang-19", program: "clang-19", pin: "19.1.7", install: "apt-get install clang-19 libclang-rt-19-dev" },
];

/// Valgrind 3.19 (Debian 12), for Helgrind and DRD.
const VALGRIND: &[Version] = &[Version { name: "", program: "valgrind", pin: "3.19.0", install: "apt-get install valgrind" }];

/// How to get loom: a Rust toolchain; each version's driver builds from crates.io on first
/// use (`crate::loom`).
const LOOM_INSTALL: &str = "curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh";

/// The loom versions racefuzz drives, newest first: every one of `crate::loom::VERSIONS`
/// that has a shim (tested), the bare name being the newest.
macro_rules! loom_versions {
    ($newest:literal $(, $v:literal)*) => {
        &[
            Version { name: "", program: "cargo", pin: $newest, install: LOOM_INSTALL },
            Version { name: $newest, program: "cargo", pin: $newest, install: LOOM_INSTALL },
            $(Version { name: $v, program: "cargo", pin: $v, install: LOOM_INSTALL },)*
        ]
    };
}

/// loom, 0.2.0 to 0.7.3 (the pin is the version itself).
const LOOM: &[Version] = loom_versions!(
    "0.7.3", "0.7.2", "0.7.1", "0.7.0", "0.6.1", "0.6.0", "0.5.6", "0.5.5", "0.5.4", "0.5.3", "0.5.2", "0.5.1", "0.5.0", "0.4.1", "0.4.0", "0.3.6", "0.3.5", "0.3.4", "0.3.3",
    "0.3.2", "0.3.1", "0.3.0", "0.2.15", "0.2.14", "0.2.13", "0.2.12", "0.2.11", "0.2.10", "0.2.9", "0.2.8", "0.2.7", "0.2.6", "0.2.5", "0.2.4", "0.2.3", "0.2.2", "0.2.1",
    "0.2.0"
);
/// Go's race detector: the `go` on `PATH`, and Debian 12's Go 1.19 by its own path.
const GO: &[Version] = &[
    Version { name: "", program: "go", pin: "1.19.8", install: "apt-get install golang-go" },
    Version { name: "1.19", program: "/usr/lib/go-1.19/bin/go", pin: "1.19.8", install: "apt-get install golang-1.19-go" },
];

/// Miri, from rustup's nightly toolchain: optional (the component is not on every nightly,
/// and rustup may not answer); the pin is the nightly this project measured with.
const MIRI: &[Version] = &[Version { name: "", program: "cargo", pin: "0.1.0 (e50aa6fba4 2026-05-19)", install: "rustup component add miri rust-src --toolchain nightly" }];

/// Every real detector racefuzz runs, by name.
pub const DETECTORS: &[RealDetector] = &[
    RealDetector { name: "drd", what: "Valgrind's DRD, over the C replay", versions: VALGRIND, probe: Probe::Valgrind },
    RealDetector { name: "go-race", what: "Go's race detector (go build -race), over the Go replay", versions: GO, probe: Probe::Go },
    RealDetector { name: "helgrind", what: "Valgrind's Helgrind, over the C replay", versions: VALGRIND, probe: Probe::Valgrind },
    RealDetector { name: "loom", what: "the loom model checker, whole programs (driver built on first use)", versions: LOOM, probe: Probe::Loom },
    RealDetector { name: "miri", what: "Miri's data-race detector (cargo +nightly miri), over the Rust replay", versions: MIRI, probe: Probe::Miri },
    RealDetector { name: "tsan", what: "ThreadSanitizer (-fsanitize=thread), over the C replay", versions: TSAN, probe: Probe::Tsan },
];

/// Why a real detector cannot run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RealError {
    /// A version racefuzz does not know.
    #[error("{sut} has no version `{given}` (its versions: {known})")]
    UnknownVersion {
        /// The detector.
        sut: &'static str,
        /// The version given.
        given: String,
        /// Its versions.
        known: String,
    },
    /// Not installed here, or installed but broken.
    #[error("{sut} is not installed here: {why}; install it with `{install}`")]
    NotInstalled {
        /// The SUT name with its version.
        sut: String,
        /// What the probe found.
        why: String,
        /// The command that installs it.
        install: &'static str,
    },
}

/// The detector named `name`, if it is a real one.
pub fn find(name: &str) -> Option<&'static RealDetector> {
    DETECTORS.iter().find(|d| d.name == name)
}

impl RealDetector {
    /// The version `given` (`None`: the bare name's).
    ///
    /// # Errors
    /// [`RealError::UnknownVersion`].
    pub fn version(&self, given: Option<&str>) -> Result<&'static Version, RealError> {
        let given = given.unwrap_or("");
        self.versions.iter().find(|v| v.name == given).ok_or_else(|| RealError::UnknownVersion {
            sut: self.name,
            given: given.into(),
            known: self.versions.iter().filter(|v| !v.name.is_empty()).map(|v| v.name).collect::<Vec<_>>().join(", "),
        })
    }

    /// Its SUT name at `v` (`tsan@gcc-12`, `helgrind`).
    pub fn sut_name(&self, v: &Version) -> String {
        if v.name.is_empty() {
            self.name.into()
        } else {
            format!("{}@{}", self.name, v.name)
        }
    }

    /// The installed version at `v`, once per process and version (a probe compiles and
    /// runs a program).
    ///
    /// # Errors
    /// [`RealError::NotInstalled`], with what the probe found and the install command.
    pub fn installed(&self, v: &'static Version) -> Result<String, RealError> {
        static SEEN: OnceLock<Mutex<Probed>> = OnceLock::new();
        let program = program(v);
        let key = (self.probe, program.clone(), v.pin);
        let cached = SEEN.get_or_init(Default::default).lock().ok().and_then(|m| m.get(&key).cloned());
        let found = cached.unwrap_or_else(|| {
            let found = match self.probe {
                Probe::Tsan => probe_tsan(&program),
                Probe::Valgrind => probe_valgrind(),
                Probe::Loom => crate::loom::Loom::new(v.pin).and_then(|l| l.driver()).map(|_| v.pin.to_string()).map_err(|e| e.to_string()),
                Probe::Go => probe_go(&program),
                Probe::Miri => crate::miri::Miri::probe(),
            };
            if let Ok(mut m) = SEEN.get_or_init(Default::default).lock() {
                m.insert(key, found.clone());
            }
            found
        });
        found.map_err(|why| RealError::NotInstalled { sut: self.sut_name(v), why, install: v.install })
    }

    /// [`RealDetector::installed`] where that is cheap; where it would build for minutes (a
    /// loom driver not built yet), what is known without building: `cargo`'s presence, as
    /// the reason it is not ready yet. For listing every version (`racefuzz detectors`).
    ///
    /// # Errors
    /// [`RealError::NotInstalled`].
    pub fn installed_without_building(&self, v: &'static Version) -> Result<String, RealError> {
        if self.probe != Probe::Loom || crate::loom::Loom::new(v.pin).is_ok_and(|l| l.built()) {
            return self.installed(v);
        }
        let why = match output(&std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()), &["--version"], None) {
            Ok(_) => "its driver is not built yet; naming it builds it from crates.io (minutes)".to_string(),
            Err(e) => e,
        };
        Err(RealError::NotInstalled { sut: self.sut_name(v), why, install: v.install })
    }
}

/// What each probe found, by probe, program and pin: a version, or why not.
type Probed = BTreeMap<(Probe, String, &'static str), Result<String, String>>;

/// The program that the real detector `name` runs at `version` (empty: the bare name's;
/// `None` for a detector or version racefuzz does not know): what a SUT's build runs
/// (`tsan@gcc-12` runs `gcc-12`).
pub fn program_of(name: &str, version: &str) -> Option<String> {
    find(name)?.version(Some(version)).ok().map(program)
}

/// The program a version runs, with `$CC` read.
pub fn program(v: &Version) -> String {
    match v.program {
        "$CC" => crate::replay::cc(),
        p => p.into(),
    }
}

/// Runs `program` with `args` (in `dir`, with `env` added): its standard output, or why not.
fn output_env(program: &str, args: &[&str], dir: Option<&Path>, env: &[(String, OsString)]) -> Result<String, String> {
    let mut c = Command::new(program);
    c.args(args).stdin(Stdio::null()).envs(env.iter().map(|(k, v)| (k, v)));
    if let Some(d) = dir {
        c.current_dir(d);
    }
    let out = c.output().map_err(|e| format!("`{program}` cannot run ({e})"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("`{program} {}` failed: {}", args.join(" "), err.lines().next().unwrap_or("").trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Runs `program` with `args` in `dir`: its standard output, or why not.
fn output(program: &str, args: &[&str], dir: Option<&Path>) -> Result<String, String> {
    output_env(program, args, dir, &[])
}

/// `cc`'s version, if it builds, links and runs a ThreadSanitizer program (a runtime that
/// links but cannot start, as an old libtsan on a newer kernel's memory layout, fails here).
fn probe_tsan(cc: &str) -> Result<String, String> {
    let version = output(cc, &["-dumpfullversion"], None).or_else(|_| output(cc, &["-dumpversion"], None))?;
    let scratch = Scratch::new("probe-tsan").map_err(|e| e.to_string())?;
    std::fs::write(scratch.path().join("probe.c"), "int main(void) { return 0; }\n").map_err(|e| e.to_string())?;
    output(cc, &["-fsanitize=thread", "-pthread", "probe.c", "-o", "probe"], Some(scratch.path())).map_err(|e| format!("no ThreadSanitizer: {e}"))?;
    output("./probe", &[], Some(scratch.path())).map_err(|e| format!("its ThreadSanitizer does not run: {e}"))?;
    Ok(version)
}

/// Valgrind's version, if its client-request headers build with `$CC`.
fn probe_valgrind() -> Result<String, String> {
    let version = output("valgrind", &["--version"], None)?;
    let scratch = Scratch::new("probe-valgrind").map_err(|e| e.to_string())?;
    let c = "#include <valgrind/helgrind.h>\n#include <valgrind/valgrind.h>\nint main(void) { return RUNNING_ON_VALGRIND; }\n";
    std::fs::write(scratch.path().join("probe.c"), c).map_err(|e| e.to_string())?;
    let cc = crate::replay::cc();
    output(&cc, &["-c", "probe.c", "-o", "probe.o"], Some(scratch.path())).map_err(|e| format!("no Valgrind headers for `{cc}`: {e}"))?;
    Ok(version.trim_start_matches("valgrind-").to_string())
}

/// `go`'s version (`go version go1.19.8 linux/amd64`: `1.19.8`), if it builds a racy program
/// with `-race` in racefuzz's Go environment, and the program's run reports the race (a Go
/// without the race runtime for this platform, or without the C compiler cgo needs, fails
/// here; the first probe on a machine also builds the race-instrumented standard library
/// into racefuzz's cache).
fn probe_go(go: &str) -> Result<String, String> {
    let version = output(go, &["version"], None)?;
    let version = version.split_whitespace().nth(2).and_then(|v| v.strip_prefix("go")).ok_or_else(|| format!("`{go} version` says `{version}`"))?.to_string();
    let scratch = Scratch::new("probe-go").map_err(|e| e.to_string())?;
    let racy = "package main\n\nvar x int\n\nfunc main() {\n\tdone := make(chan bool)\n\tgo func() { x = 1; done <- true }()\n\tx = 2\n\t<-done\n}\n";
    std::fs::write(scratch.path().join("probe.go"), racy).map_err(|e| e.to_string())?;
    output_env(go, &["build", "-race", "-o", "probe", "probe.go"], Some(scratch.path()), &crate::go_race::environment()).map_err(|e| format!("no race detector: {e}"))?;
    let out = Command::new(scratch.path().join("probe"))
        .env("GORACE", crate::go_race::GORACE)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("its race detector does not run: {e}"))?;
    if !out.status.success() || !String::from_utf8_lossy(&out.stderr).contains("WARNING: DATA RACE") {
        return Err(format!("its race detector does not report a race ({}): {}", out.status, String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("").trim()));
    }
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_named_once_and_sorted_by_detector() {
        let names: Vec<&str> = DETECTORS.iter().map(|d| d.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
        for d in DETECTORS {
            assert!(d.version(None).is_ok(), "{}: the bare name runs a version", d.name);
            assert!(d.versions.iter().all(|v| !v.install.is_empty() && !v.pin.is_empty()), "{}: every version has a pin and an install line", d.name);
        }
        let loom: Vec<&str> = find("loom").unwrap().versions[1..].iter().map(|v| v.pin).collect();
        let driven: Vec<&str> = crate::loom::VERSIONS.iter().filter(|(_, s)| !matches!(s, crate::loom::Support::Unsupported(_))).map(|(v, _)| *v).collect();
        assert_eq!(loom, driven, "loom's versions are those the driver has a shim for");
        assert_eq!(find("loom").unwrap().versions[0].pin, driven[0], "the bare name is the newest");
        let tsan = find("tsan").unwrap();
        assert_eq!(tsan.sut_name(tsan.version(Some("gcc-12")).unwrap()), "tsan@gcc-12");
        assert_eq!(
            tsan.version(Some("gcc-99")).unwrap_err().to_string(),
            "tsan has no version `gcc-99` (its versions: gcc-11, gcc-12, clang-13, clang-14, clang-15, clang-16, clang-19)"
        );
    }

    #[test]
    fn a_missing_program_is_not_installed_with_its_install_line() {
        static V: Version = Version { name: "gcc-0", program: "racefuzz-no-such-compiler", pin: "0", install: "apt-get install nothing" };
        let err = find("tsan").unwrap().installed(&V).unwrap_err().to_string();
        assert!(err.starts_with("tsan@gcc-0 is not installed here: `racefuzz-no-such-compiler` cannot run"), "{err}");
        assert!(err.ends_with("install it with `apt-get install nothing`"), "{err}");
    }
}
