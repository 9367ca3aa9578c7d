//! One description of the system under test: what every command, campaign, finding file and
//! cargo-fuzz target says when it names the SUT an oracle judges.
//!
//! A [`SutSpec`] is read from three places and written to one:
//! - the command line (`--sut`, `--mutant`, `--detector-cmd` and its flags: the CLI's flag
//!   group builds it with [`SutSpec::catalogued`], [`SutSpec::detector`], [`SutSpec::analysis`]);
//! - the environment of a cargo-fuzz target ([`SutSpec::from_env`]);
//! - a finding's header (the `finding_header` module, through [`SutSpec::from_header`]),
//!   which [`SutSpec::header`] writes.
//!
//! Reading back what [`SutSpec::header`] wrote gives the same spec (tested), so that
//! `racefuzz shrink FILE` judges a finding's program against the SUT that found it.
//! `suts::Subject::new`, in the module above this one, is the one place a spec becomes a
//! runnable SUT.
//!
//! A catalogued SUT is named `NAME` or `NAME@VERSION` ([`SutName`]): real detectors come in
//! versions (`tsan@clang-19`, `loom@0.7.3`); a SUT without versions refuses one.

use std::time::Duration;

use race_oracles::theorems::Claim;

use crate::external;

/// A SUT's name on the command line and in headers: `NAME` or `NAME@VERSION`.
///
/// Invariant: `name` is not empty and holds no `@`; `version`, if any, is not empty.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SutName {
    /// The catalogue's name (`tsan`).
    pub name: String,
    /// Which version (`clang-19`), if one is named.
    pub version: Option<String>,
}

impl std::str::FromStr for SutName {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<SutName, SpecError> {
        let bad = || SpecError::BadName(s.to_string());
        let (name, version) = match s.split_once('@') {
            Some((n, v)) => (n, Some(v)),
            None => (s, None),
        };
        if name.is_empty() || version.is_some_and(|v| v.is_empty() || v.contains('@')) {
            return Err(bad());
        }
        Ok(SutName { name: name.to_string(), version: version.map(str::to_string) })
    }
}

impl std::fmt::Display for SutName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.version {
            Some(v) => write!(f, "{}@{v}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// An external race detector (`--detector-cmd`), as given: [`DetectorSpec::factory`] makes
/// it runnable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DetectorSpec {
    /// The command; per trace, `{}` is the trace file's path.
    pub command: String,
    /// One long-lived process speaking JSON Lines.
    pub persistent: bool,
    /// A command per program, on a folder of its traces (`--batch`).
    pub batch: bool,
    /// How a report line looks (per trace), a glob with one `{loc}`.
    pub report_pattern: Option<String>,
    /// The time the process may take on one trace.
    pub timeout: Duration,
    /// What it claims about every trace.
    pub claim: Claim,
    /// `--all-traces`: run it on every interleaving, not one trace per Mazurkiewicz class
    /// (an external detector pays a process or a request per trace).
    pub all_traces: bool,
}

/// An external static race analysis (`--analysis-cmd`), as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisSpec {
    /// The command; per program, `{}` is the program file's path.
    pub command: String,
    /// One long-lived process speaking JSON Lines.
    pub persistent: bool,
    /// The time the process may take on one program.
    pub timeout: Duration,
}

/// The SUT an oracle judges, as named by a person or a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SutSpec {
    /// A SUT of racefuzz's catalogue (`suts::SUTS`): the one named, or the oracle's
    /// own when `sut` is `None`, with the mutants of `mutant` (`a+b` combines them) applied.
    Catalogued {
        /// `--sut`.
        sut: Option<SutName>,
        /// `--mutant`.
        mutant: Option<String>,
        /// `--claim`: what a detector is held to instead of its own claim (a real
        /// detector's is `locations`; ThreadSanitizer, Helgrind and Go name both accesses of
        /// a report, so `pairs` applies to them too). `None`: its own.
        claim: Option<Claim>,
        /// `--all-traces`: a detector that asks for one trace per Mazurkiewicz class (a
        /// real one) runs on every interleaving instead.
        all_traces: bool,
    },
    /// A race detector in another process.
    Detector(DetectorSpec),
    /// A static race analysis in another process.
    Analysis(AnalysisSpec),
}

impl Default for SutSpec {
    /// The oracle's own SUT, unmutated.
    fn default() -> SutSpec {
        SutSpec::Catalogued { sut: None, mutant: None, claim: None, all_traces: false }
    }
}

/// The header value of "no mutant", which older findings and regressions write.
const NO_MUTANT: &str = "none";

/// Why a SUT cannot be described as given. Each message names the flag, the variable or
/// the header line at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// A SUT name that is not `NAME` or `NAME@VERSION`.
    #[error("`{0}` is not a SUT name (NAME or NAME@VERSION)")]
    BadName(String),
    /// `--sut` or `--mutant` beside an external SUT.
    #[error("{0} is the SUT; it takes no --sut or --mutant")]
    FlagsBesideExternal(&'static str),
    /// An external SUT's command could not be run as given.
    #[error(transparent)]
    External(#[from] external::ConfigError),
    /// Both environment variables of an external SUT.
    #[error("RACEFUZZ_DETECTOR_CMD and RACEFUZZ_ANALYSIS_CMD name two SUTs; set one")]
    TwoExternalVars,
    /// A mutant or SUT variable beside an external SUT's variable.
    #[error("{0} is the SUT; unset RACEFUZZ_MUTANT and RACEFUZZ_SUT")]
    VarsBesideExternal(&'static str),
    /// An environment variable of a cargo-fuzz target that does not parse.
    #[error("{var}: {why}")]
    Var {
        /// The variable.
        var: &'static str,
        /// What is wrong with its value.
        why: Box<SpecError>,
    },
    /// A number of seconds that is not one.
    #[error("`{0}` is not a number of seconds")]
    Seconds(String),
    /// A claim racefuzz does not know.
    #[error("`{0}` is not a claim (one of {all})", all = Claim::ALL.map(Claim::name).join(", "))]
    Claim(String),
    /// A finding's header that names an external SUT but not its command.
    #[error("names the SUT `{sut}` but no {key}: pass --{key}")]
    NoCommand {
        /// The SUT it names.
        sut: &'static str,
        /// The header key (and flag) of the command.
        key: &'static str,
    },
    /// A finding's claim racefuzz does not know.
    #[error("the finding's claim `{0}` is not one racefuzz knows")]
    HeaderClaim(String),
    /// A finding's `traces` line other than `all`.
    #[error("the finding's `traces: {0}` is not `all`")]
    HeaderTraces(String),
}

impl SutSpec {
    /// The catalogue's SUT `sut` (`None`: the oracle's own) with `mutant` (`None` or `none`:
    /// unmutated).
    ///
    /// # Errors
    /// [`SpecError::BadName`].
    pub fn catalogued(sut: Option<&str>, mutant: Option<&str>) -> Result<SutSpec, SpecError> {
        let sut = sut.map(str::parse).transpose()?;
        let mutant = mutant.filter(|m| !m.is_empty() && *m != NO_MUTANT).map(str::to_string);
        Ok(SutSpec::Catalogued { sut, mutant, claim: None, all_traces: false })
    }

    /// The same spec, a catalogued SUT held to `claim` where one is given (an external
    /// detector carries its own, [`DetectorSpec::claim`]).
    pub fn claiming(self, claim: Option<Claim>) -> SutSpec {
        match self {
            SutSpec::Catalogued { sut, mutant, claim: own, all_traces } => SutSpec::Catalogued { sut, mutant, claim: claim.or(own), all_traces },
            other => other,
        }
    }

    /// The same spec, a detector run on every interleaving when `all` (`--all-traces`);
    /// a spec that already asks for them keeps asking.
    pub fn all_traces(self, all: bool) -> SutSpec {
        match self {
            SutSpec::Catalogued { sut, mutant, claim, all_traces } => SutSpec::Catalogued { sut, mutant, claim, all_traces: all_traces || all },
            SutSpec::Detector(d) => SutSpec::Detector(DetectorSpec { all_traces: d.all_traces || all, ..d }),
            other @ SutSpec::Analysis(_) => other,
        }
    }

    /// Whether a detector runs on every interleaving (`--all-traces`).
    pub fn wants_all_traces(&self) -> bool {
        match self {
            SutSpec::Catalogued { all_traces, .. } => *all_traces,
            SutSpec::Detector(d) => d.all_traces,
            SutSpec::Analysis(_) => false,
        }
    }

    /// An external detector; checked as [`DetectorSpec::factory`] checks it, so that a bad
    /// command is refused before anything runs.
    ///
    /// # Errors
    /// [`SpecError::External`].
    pub fn detector(d: DetectorSpec) -> Result<SutSpec, SpecError> {
        d.check()?;
        Ok(SutSpec::Detector(d))
    }

    /// An external static analysis, checked likewise.
    ///
    /// # Errors
    /// [`SpecError::External`].
    pub fn analysis(a: AnalysisSpec) -> Result<SutSpec, SpecError> {
        a.check()?;
        Ok(SutSpec::Analysis(a))
    }

    /// The SUT of a cargo-fuzz target, from its environment (`var` looks a variable up;
    /// empty counts as unset): `RACEFUZZ_DETECTOR_CMD` or `RACEFUZZ_ANALYSIS_CMD` (with
    /// `RACEFUZZ_DETECTOR_PERSISTENT=1`, `RACEFUZZ_DETECTOR_BATCH=1`, `RACEFUZZ_DETECTOR_TIMEOUT` in seconds,
    /// `RACEFUZZ_REPORT_PATTERN`, `RACEFUZZ_CLAIM`, as the flags of `--detector-cmd`), else
    /// `RACEFUZZ_SUT` and `RACEFUZZ_MUTANT` (as `--sut` and `--mutant`); with either,
    /// `RACEFUZZ_ALL_TRACES=1` as `--all-traces`.
    ///
    /// # Errors
    /// [`SpecError`], naming the variable.
    pub fn from_env(var: &dyn Fn(&str) -> Option<String>) -> Result<SutSpec, SpecError> {
        let var = |name: &str| var(name).filter(|v| !v.is_empty());
        let at = |var: &'static str| move |e: SpecError| SpecError::Var { var, why: Box::new(e) };
        let catalogued = var("RACEFUZZ_SUT").is_some() || var("RACEFUZZ_MUTANT").is_some();
        let external = match (var("RACEFUZZ_DETECTOR_CMD"), var("RACEFUZZ_ANALYSIS_CMD")) {
            (Some(_), Some(_)) => return Err(SpecError::TwoExternalVars),
            (Some(cmd), None) => Some(("RACEFUZZ_DETECTOR_CMD", cmd, true)),
            (None, Some(cmd)) => Some(("RACEFUZZ_ANALYSIS_CMD", cmd, false)),
            (None, None) => None,
        };
        let claim = match var("RACEFUZZ_CLAIM") {
            Some(c) => Some(Claim::parse(&c).ok_or_else(|| SpecError::Var { var: "RACEFUZZ_CLAIM", why: Box::new(SpecError::Claim(c.clone())) })?),
            None => None,
        };
        let all_traces = var("RACEFUZZ_ALL_TRACES").is_some_and(|v| v == "1");
        let Some((name, command, detector)) = external else {
            return Ok(SutSpec::catalogued(var("RACEFUZZ_SUT").as_deref(), var("RACEFUZZ_MUTANT").as_deref()).map_err(at("RACEFUZZ_SUT"))?.claiming(claim).all_traces(all_traces));
        };
        if catalogued {
            return Err(SpecError::VarsBesideExternal(name));
        }
        let persistent = var("RACEFUZZ_DETECTOR_PERSISTENT").is_some_and(|v| v == "1");
        let batch = var("RACEFUZZ_DETECTOR_BATCH").is_some_and(|v| v == "1");
        let timeout = match var("RACEFUZZ_DETECTOR_TIMEOUT") {
            Some(t) => Duration::from_secs(t.parse().map_err(|_| SpecError::Var { var: "RACEFUZZ_DETECTOR_TIMEOUT", why: Box::new(SpecError::Seconds(t.clone())) })?),
            None => external::DEFAULT_TIMEOUT,
        };
        if !detector {
            return SutSpec::analysis(AnalysisSpec { command, persistent, timeout }).map_err(at(name));
        }
        let claim = claim.unwrap_or_default();
        SutSpec::detector(DetectorSpec { command, persistent, batch, report_pattern: var("RACEFUZZ_REPORT_PATTERN"), timeout, claim, all_traces }).map_err(at(name))
    }

    /// The spec a finding's header lines give (`key` looks a `// key: value` line up); the
    /// inverse of [`SutSpec::header`]. An external SUT runs with
    /// [`external::DEFAULT_TIMEOUT`], which headers do not record.
    ///
    /// # Errors
    /// [`SpecError`]: a header naming an external SUT without its command, or with a claim
    /// or command racefuzz cannot use.
    pub fn from_header(key: &dyn Fn(&str) -> Option<String>) -> Result<SutSpec, SpecError> {
        let sut = key("sut");
        let persistent = |mode: &str| key(mode).as_deref() == Some("persistent");
        let claim = match key("claim") {
            Some(c) => Some(Claim::parse(&c).ok_or(SpecError::HeaderClaim(c))?),
            None => None,
        };
        let all_traces = match key("traces") {
            Some(t) if t == "all" => true,
            Some(t) => return Err(SpecError::HeaderTraces(t)),
            None => false,
        };
        match sut.as_deref() {
            Some(EXTERNAL_DETECTOR) => {
                let command = key("detector-cmd").ok_or(SpecError::NoCommand { sut: EXTERNAL_DETECTOR, key: "detector-cmd" })?;
                let claim = claim.unwrap_or_default();
                let d = DetectorSpec {
                    command,
                    persistent: persistent("detector-mode"),
                    batch: key("detector-mode").as_deref() == Some("batch"),
                    report_pattern: key("report-pattern"),
                    timeout: external::DEFAULT_TIMEOUT,
                    claim,
                    all_traces,
                };
                SutSpec::detector(d)
            }
            Some(EXTERNAL_ANALYSIS) => {
                let command = key("analysis-cmd").ok_or(SpecError::NoCommand { sut: EXTERNAL_ANALYSIS, key: "analysis-cmd" })?;
                SutSpec::analysis(AnalysisSpec { command, persistent: persistent("analysis-mode"), timeout: external::DEFAULT_TIMEOUT })
            }
            _ => Ok(SutSpec::catalogued(sut.as_deref(), key("mutant").as_deref())?.claiming(claim).all_traces(all_traces)),
        }
    }

    /// The header lines that name this SUT (read back by [`SutSpec::from_header`]): `sut`
    /// when one is named, an external SUT's command and how it runs, then `mutant` (`none`
    /// for none, as every finding has written).
    pub fn header(&self) -> String {
        match self {
            SutSpec::Catalogued { sut, mutant, claim, all_traces } => {
                let sut = sut.as_ref().map(|n| format!("// sut: {n}\n")).unwrap_or_default();
                let claim = claim.map(|c| format!("// claim: {}\n", c.name())).unwrap_or_default();
                format!("{sut}{claim}{}// mutant: {}\n", traces_line(*all_traces), mutant.as_deref().unwrap_or(NO_MUTANT))
            }
            SutSpec::Detector(d) => {
                let mode = match (d.persistent, d.batch) {
                    (true, _) => "persistent",
                    (false, true) => "batch",
                    (false, false) => "per-trace",
                };
                let pattern = d.report_pattern.as_ref().filter(|_| !d.persistent).map(|p| format!("// report-pattern: {p}\n")).unwrap_or_default();
                let traces = traces_line(d.all_traces);
                format!(
                    "// sut: {EXTERNAL_DETECTOR}\n// detector-cmd: {}\n// detector-mode: {mode}\n{pattern}// claim: {}\n{traces}// mutant: {NO_MUTANT}\n",
                    d.command,
                    d.claim.name()
                )
            }
            SutSpec::Analysis(a) => {
                let mode = if a.persistent { "persistent" } else { "per-program" };
                format!("// sut: {EXTERNAL_ANALYSIS}\n// analysis-cmd: {}\n// analysis-mode: {mode}\n// mutant: {NO_MUTANT}\n", a.command)
            }
        }
    }

    /// The catalogued SUT named (`--sut`), if one is.
    pub fn catalogued_sut(&self) -> Option<&SutName> {
        match self {
            SutSpec::Catalogued { sut, .. } => sut.as_ref(),
            SutSpec::Detector(_) | SutSpec::Analysis(_) => None,
        }
    }

    /// The SUT named, if one is (an external SUT names itself).
    pub fn sut_name(&self) -> Option<String> {
        match self {
            SutSpec::Catalogued { sut, .. } => sut.as_ref().map(SutName::to_string),
            SutSpec::Detector(_) => Some(EXTERNAL_DETECTOR.to_string()),
            SutSpec::Analysis(_) => Some(EXTERNAL_ANALYSIS.to_string()),
        }
    }

    /// The same spec without a claim or `--all-traces` of its own: the detector as it judges
    /// itself.
    pub fn as_built(self) -> SutSpec {
        match self {
            SutSpec::Catalogued { sut, mutant, .. } => SutSpec::Catalogued { sut, mutant, claim: None, all_traces: false },
            other => other,
        }
    }

    /// The claim a catalogued detector is held to instead of its own, if one is named.
    pub fn claim(&self) -> Option<Claim> {
        match self {
            SutSpec::Catalogued { claim, .. } => *claim,
            _ => None,
        }
    }

    /// The mutant, if any.
    pub fn mutant(&self) -> Option<&str> {
        match self {
            SutSpec::Catalogued { mutant, .. } => mutant.as_deref(),
            _ => None,
        }
    }

    /// Whether this SUT lives in another process.
    pub fn is_external(&self) -> bool {
        !matches!(self, SutSpec::Catalogued { .. })
    }

    /// This spec with `flags` laid over it: external flags replace it; otherwise `--sut` and
    /// `--mutant`, where given, replace what it names (`racefuzz shrink FILE --mutant M`).
    pub fn overridden_by(self, flags: SutSpec) -> SutSpec {
        match (self, flags) {
            (_, external @ (SutSpec::Detector(_) | SutSpec::Analysis(_))) => external,
            (SutSpec::Catalogued { sut, mutant, claim, all_traces }, SutSpec::Catalogued { sut: s, mutant: m, claim: c, all_traces: a }) => {
                SutSpec::Catalogued { sut: s.or(sut), mutant: m.or(mutant), claim: c.or(claim), all_traces: a || all_traces }
            }
            (external, SutSpec::Catalogued { sut: None, mutant: None, claim: None, all_traces }) => external.all_traces(all_traces),
            (_, flags) => flags,
        }
    }
}

/// The header line of `--all-traces` (none without it, as findings have always had).
fn traces_line(all: bool) -> &'static str {
    if all {
        "// traces: all\n"
    } else {
        ""
    }
}

/// The name an external detector has in finding headers (`// sut: external`).
pub const EXTERNAL_DETECTOR: &str = "external";
/// The name an external static analysis has in finding headers.
pub const EXTERNAL_ANALYSIS: &str = "external-analysis";

impl DetectorSpec {
    /// The detector, ready to run.
    ///
    /// # Errors
    /// [`external::ConfigError`]: a per-trace or batch command without `{}`, a bad report
    /// pattern, `--batch` beside `--persistent`.
    pub fn factory(&self) -> Result<external::ExternalFactory, external::ConfigError> {
        Ok(external::factory(&self.command, self.persistent, self.batch, self.report_pattern.as_deref(), self.timeout)?.claiming(self.claim).all_traces(self.all_traces))
    }

    /// What [`DetectorSpec::factory`] would refuse, without starting anything.
    fn check(&self) -> Result<(), external::ConfigError> {
        if self.batch && self.persistent {
            return Err(external::ConfigError::BatchAndPersistent);
        }
        external::detector_pattern(&self.command, self.persistent, self.report_pattern.as_deref()).map(drop)
    }
}

impl AnalysisSpec {
    /// The analysis, ready to run.
    ///
    /// # Errors
    /// [`external::ConfigError::NoProgramFile`].
    pub fn analysis(&self) -> Result<external::ExternalAnalysis, external::ConfigError> {
        external::ExternalAnalysis::new(&self.command, self.persistent, self.timeout)
    }

    fn check(&self) -> Result<(), external::ConfigError> {
        external::ExternalAnalysis::check(&self.command, self.persistent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Result<SutSpec, String> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        SutSpec::from_env(&|k| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())).map_err(|e| e.to_string())
    }

    fn read_back(s: &SutSpec) -> SutSpec {
        let text = s.header();
        SutSpec::from_header(&|k| crate::corpus::header(&text, k).map(str::to_string)).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    /// Every kind of spec, as each source can give it.
    fn every_kind() -> Vec<SutSpec> {
        let d = |persistent, report_pattern: Option<&str>, claim| DetectorSpec {
            command: if persistent { "hb --serve".into() } else { "hb {} | grep race".into() },
            persistent,
            batch: !persistent && report_pattern.is_none(),
            report_pattern: report_pattern.map(str::to_string),
            timeout: external::DEFAULT_TIMEOUT,
            claim,
            all_traces: !persistent,
        };
        let mut out = vec![
            SutSpec::default(),
            SutSpec::catalogued(Some("per-access"), None).unwrap(),
            SutSpec::catalogued(None, Some("ft-no-join-edge+ft-same-epoch-skip")).unwrap(),
            SutSpec::catalogued(Some("tsan@clang-19"), None).unwrap(),
            SutSpec::catalogued(Some("loom@0.7.3"), Some("m")).unwrap(),
            SutSpec::analysis(AnalysisSpec { command: "naive {}".into(), persistent: false, timeout: external::DEFAULT_TIMEOUT }).unwrap(),
            SutSpec::analysis(AnalysisSpec { command: "naive --serve".into(), persistent: true, timeout: external::DEFAULT_TIMEOUT }).unwrap(),
        ];
        for c in Claim::ALL {
            out.push(SutSpec::catalogued(Some("helgrind"), None).unwrap().claiming(Some(c)));
            out.push(SutSpec::catalogued(Some("drd"), None).unwrap().claiming(Some(c)).all_traces(true));
            out.push(SutSpec::detector(d(false, None, c)).unwrap());
            out.push(SutSpec::detector(d(false, Some("*race at {loc}*"), c)).unwrap());
            out.push(SutSpec::detector(d(true, None, c)).unwrap());
        }
        out
    }

    #[test]
    fn a_header_reads_back_as_the_spec_that_wrote_it() {
        let all = every_kind();
        assert!(all.len() > 15);
        for s in &all {
            assert_eq!(&read_back(s), s, "{}", s.header());
        }
    }

    #[test]
    fn the_header_lines_are_those_findings_have_always_had() {
        assert_eq!(SutSpec::default().header(), "// mutant: none\n");
        assert_eq!(SutSpec::catalogued(Some("per-access"), Some("pa-write-checked-as-read")).unwrap().header(), "// sut: per-access\n// mutant: pa-write-checked-as-read\n");
        let d = DetectorSpec {
            command: "hb {}".into(),
            persistent: false,
            batch: false,
            report_pattern: Some("*{loc}*".into()),
            timeout: Duration::from_secs(3),
            claim: Claim::Events,
            all_traces: false,
        };
        assert_eq!(
            SutSpec::detector(d).unwrap().header(),
            "// sut: external\n// detector-cmd: hb {}\n// detector-mode: per-trace\n// report-pattern: *{loc}*\n// claim: events\n// mutant: none\n"
        );
    }

    #[test]
    fn names_carry_an_optional_version() {
        let n: SutName = "tsan@gcc-12".parse().unwrap();
        assert_eq!((n.name.as_str(), n.version.as_deref(), n.to_string().as_str()), ("tsan", Some("gcc-12"), "tsan@gcc-12"));
        for bad in ["", "@1", "tsan@", "a@b@c"] {
            assert_eq!(bad.parse::<SutName>(), Err(SpecError::BadName(bad.into())), "{bad}");
        }
    }

    #[test]
    fn the_environment_names_one_sut_and_says_which_variable_is_wrong() {
        assert_eq!(env(&[]), Ok(SutSpec::default()));
        assert_eq!(env(&[("RACEFUZZ_MUTANT", "")]), Ok(SutSpec::default()));
        assert_eq!(env(&[("RACEFUZZ_SUT", "per-access"), ("RACEFUZZ_MUTANT", "m")]), Ok(SutSpec::catalogued(Some("per-access"), Some("m")).unwrap()));
        assert_eq!(env(&[("RACEFUZZ_DETECTOR_CMD", "hb {}"), ("RACEFUZZ_CLAIM", "first-race")]).map(|s| s.header().contains("// claim: first-race")), Ok(true));
        assert_eq!(
            env(&[("RACEFUZZ_DETECTOR_CMD", "hb {}"), ("RACEFUZZ_CLAIM", "all")]),
            Err("RACEFUZZ_CLAIM: `all` is not a claim (one of locations, events, first-race, no-false-alarm, no-missed-race, pairs)".into())
        );
        assert_eq!(env(&[("RACEFUZZ_DETECTOR_CMD", "hb {}"), ("RACEFUZZ_MUTANT", "m")]), Err("RACEFUZZ_DETECTOR_CMD is the SUT; unset RACEFUZZ_MUTANT and RACEFUZZ_SUT".into()));
        assert_eq!(
            env(&[("RACEFUZZ_DETECTOR_CMD", "a {}"), ("RACEFUZZ_ANALYSIS_CMD", "b {}")]),
            Err("RACEFUZZ_DETECTOR_CMD and RACEFUZZ_ANALYSIS_CMD name two SUTs; set one".into())
        );
        assert!(env(&[("RACEFUZZ_DETECTOR_CMD", "hb")]).is_err_and(|e| e.starts_with("RACEFUZZ_DETECTOR_CMD: --detector-cmd `hb` has no `{}`")));
        assert!(env(&[("RACEFUZZ_ANALYSIS_CMD", "naive")]).is_err_and(|e| e.starts_with("RACEFUZZ_ANALYSIS_CMD: --analysis-cmd `naive` has no `{}`")));
        assert_eq!(env(&[("RACEFUZZ_ANALYSIS_CMD", "n {}"), ("RACEFUZZ_DETECTOR_TIMEOUT", "3s")]), Err("RACEFUZZ_DETECTOR_TIMEOUT: `3s` is not a number of seconds".into()));
        assert_eq!(env(&[("RACEFUZZ_SUT", "tsan@")]), Err("RACEFUZZ_SUT: `tsan@` is not a SUT name (NAME or NAME@VERSION)".into()));
        let pairs = SutSpec::catalogued(Some("tsan@gcc-12"), None).unwrap().claiming(Some(Claim::Pairs));
        assert_eq!(env(&[("RACEFUZZ_SUT", "tsan@gcc-12"), ("RACEFUZZ_CLAIM", "pairs")]), Ok(pairs.clone()));
        assert_eq!(pairs.header(), "// sut: tsan@gcc-12\n// claim: pairs\n// mutant: none\n");
        let all = env(&[("RACEFUZZ_SUT", "tsan@gcc-12"), ("RACEFUZZ_ALL_TRACES", "1")]).unwrap();
        assert_eq!(all.header(), "// sut: tsan@gcc-12\n// traces: all\n// mutant: none\n");
    }

    #[test]
    fn flags_override_a_findings_header() {
        let found = SutSpec::catalogued(Some("per-access"), Some("m")).unwrap();
        assert_eq!(found.clone().overridden_by(SutSpec::default()), found);
        assert_eq!(found.clone().overridden_by(SutSpec::catalogued(None, Some("n")).unwrap()), SutSpec::catalogued(Some("per-access"), Some("n")).unwrap());
        let claimed = |c| SutSpec::catalogued(Some("per-access"), Some("m")).unwrap().claiming(Some(c));
        assert_eq!(claimed(Claim::Events).overridden_by(SutSpec::default()), claimed(Claim::Events), "a finding's claim stays");
        assert_eq!(claimed(Claim::Events).overridden_by(SutSpec::default().claiming(Some(Claim::Pairs))), claimed(Claim::Pairs), "--claim replaces it");
        assert!(claimed(Claim::Events).overridden_by(SutSpec::default().all_traces(true)).wants_all_traces(), "--all-traces adds to it");
        assert!(claimed(Claim::Events).all_traces(true).overridden_by(SutSpec::default()).wants_all_traces(), "a finding's --all-traces stays");
        let a = SutSpec::analysis(AnalysisSpec { command: "n {}".into(), persistent: false, timeout: external::DEFAULT_TIMEOUT }).unwrap();
        assert_eq!(found.overridden_by(a.clone()), a);
        assert_eq!(a.clone().overridden_by(SutSpec::default()), a);
    }

    #[test]
    fn a_header_without_the_external_command_says_which_flag_to_pass() {
        let e = SutSpec::from_header(&|k| (k == "sut").then(|| "external".to_string())).unwrap_err();
        assert_eq!(e.to_string(), "names the SUT `external` but no detector-cmd: pass --detector-cmd");
    }
}
