//! The header of a finding file (`.racefuzz/found/<oracle>/<hash>.race`) and of a regression
//! test's program (`tests/regress/<name>.race`): `// key: value` comment lines, so that the
//! file stays a `.race` program that `racefuzz check` reads as it is.
//!
//! A finding:
//! ```text
//! // racefuzz finding
//! // oracle: fasttrack-precise
//! // mutant: ft-no-join-edge
//! // seed: 1 job 0 program 17
//! <the program>
//! // verdict: fail
//! //   <the result in brief>
//! // signature: <the failure's signature>
//! ```
//! A regression has `// regression: NAME` first, and `// verdict: fail` and
//! `// root cause: …` where a finding has its seed. Between `oracle` and `mutant` come the
//! lines of the SUT, as [`SutSpec::header`] writes them (`// sut: per-access`, or an
//! external detector's command and mode).
//!
//! [`FindingHeader::parse`] reads what [`FindingHeader::print`] writes (tested), and reads
//! the files of every earlier version: the keys are unchanged.

use crate::sut_spec::{SpecError, SutSpec};

/// The first line of every finding file.
pub const FINDING: &str = "// racefuzz finding";

/// What kind of file the header heads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A campaign's or a fuzz target's finding.
    Finding {
        /// Where the program came from (`1 job 0 program 17`, `cargo-fuzz`, `… (shrunk
        /// from FILE)`).
        seed: Option<String>,
        /// The failure's signature, in the file's trailer (`crate::signature`).
        signature: Option<String>,
    },
    /// A regression test's program (`racefuzz shrink --into-test NAME`).
    Regression {
        /// The test's name.
        name: String,
        /// What was wrong, one line.
        root_cause: String,
    },
    /// A `.race` file that is neither, with header lines written by hand (`// oracle: …`),
    /// or none.
    Other,
}

/// The header of a finding or regression file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FindingHeader {
    /// What kind of file it heads.
    pub kind: Kind,
    /// The oracle the program fails (always there in a file racefuzz wrote).
    pub oracle: Option<String>,
    /// The SUT it fails, with its mutant.
    pub sut: SutSpec,
}

/// Why a header cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// Its SUT lines do not name a SUT racefuzz can build.
    #[error(transparent)]
    Sut(#[from] SpecError),
}

impl FindingHeader {
    /// A campaign's finding of `oracle` on `sut`, from `seed`.
    pub fn finding(oracle: &str, sut: SutSpec, seed: &str) -> FindingHeader {
        FindingHeader { kind: Kind::Finding { seed: Some(seed.to_string()), signature: None }, oracle: Some(oracle.to_string()), sut }
    }

    /// Reads the header of `text`: keys anywhere in the file, the first of each counting.
    ///
    /// # Errors
    /// [`HeaderError`]: SUT lines that name no SUT racefuzz can build.
    pub fn parse(text: &str) -> Result<FindingHeader, HeaderError> {
        let key = |k: &str| crate::corpus::header(text, k).map(str::to_string);
        let kind = if text.lines().next().map(str::trim) == Some(FINDING) {
            Kind::Finding { seed: key("seed"), signature: key("signature") }
        } else if let Some(name) = key("regression") {
            Kind::Regression { name, root_cause: key("root cause").unwrap_or_default() }
        } else {
            Kind::Other
        };
        Ok(FindingHeader { kind, oracle: key("oracle"), sut: SutSpec::from_header(&key)? })
    }

    /// The header lines, each ending in a newline. A finding's signature is not among them:
    /// it follows the program ([`FindingHeader::signature_line`]).
    pub fn print(&self) -> String {
        let oracle = self.oracle.as_ref().map(|o| format!("// oracle: {o}\n")).unwrap_or_default();
        let sut = self.sut.header();
        match &self.kind {
            Kind::Finding { seed, .. } => {
                let seed = seed.as_ref().map(|s| format!("// seed: {s}\n")).unwrap_or_default();
                format!("{FINDING}\n{oracle}{sut}{seed}")
            }
            Kind::Regression { name, root_cause } => format!("// regression: {name}\n{oracle}{sut}// verdict: fail\n// root cause: {root_cause}\n"),
            Kind::Other => format!("{oracle}{sut}"),
        }
    }

    /// The trailer line of a finding's signature.
    pub fn signature_line(signature: &str) -> String {
        format!("// signature: {signature}\n")
    }

    /// Whether it heads a finding file.
    pub fn is_finding(&self) -> bool {
        matches!(self.kind, Kind::Finding { .. })
    }

    /// The seed, for a finding.
    pub fn seed(&self) -> Option<&str> {
        match &self.kind {
            Kind::Finding { seed, .. } => seed.as_deref(),
            _ => None,
        }
    }

    /// The signature, for a finding whose trailer has one.
    pub fn signature(&self) -> Option<&str> {
        match &self.kind {
            Kind::Finding { signature, .. } => signature.as_deref(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sut_spec::{AnalysisSpec, DetectorSpec};

    fn specs() -> Vec<SutSpec> {
        let d = DetectorSpec {
            command: "hb {}".into(),
            persistent: false,
            batch: true,
            report_pattern: Some("*race at {loc}*".into()),
            timeout: crate::external::DEFAULT_TIMEOUT,
            claim: race_oracles::theorems::Claim::FirstRace,
            all_traces: true,
        };
        let a = AnalysisSpec { command: "naive --serve".into(), persistent: true, timeout: crate::external::DEFAULT_TIMEOUT };
        vec![
            SutSpec::default(),
            SutSpec::catalogued(Some("per-access"), Some("pa-write-checked-as-read")).unwrap(),
            SutSpec::catalogued(Some("tsan@gcc-12"), None).unwrap(),
            SutSpec::detector(d).unwrap(),
            SutSpec::analysis(a).unwrap(),
        ]
    }

    #[test]
    fn every_header_reads_back_as_printed() {
        let mut compared = 0;
        for sut in specs() {
            let kinds = [
                Kind::Finding { seed: Some("1 job 0 program 17".into()), signature: None },
                Kind::Regression { name: "ft_join".into(), root_cause: "the join edge was dropped".into() },
            ];
            for kind in kinds {
                let h = FindingHeader { kind, oracle: Some("fasttrack-precise".into()), sut: sut.clone() };
                let text = format!("{}thread T0 {{ }}\n", h.print());
                assert_eq!(FindingHeader::parse(&text), Ok(h.clone()), "{text}");
                compared += 1;
            }
        }
        assert_eq!(compared, 10);
    }

    #[test]
    fn a_finding_prints_as_findings_always_have() {
        let h = FindingHeader::finding("bigfoot-precise", SutSpec::catalogued(Some("per-access"), None).unwrap(), "3 job 1 program 9");
        assert_eq!(h.print(), "// racefuzz finding\n// oracle: bigfoot-precise\n// sut: per-access\n// mutant: none\n// seed: 3 job 1 program 9\n");
        let trailer = format!("{}prog\n// verdict: fail\n{}", h.print(), FindingHeader::signature_line("sig A"));
        let read = FindingHeader::parse(&trailer).unwrap();
        assert_eq!((read.seed(), read.signature(), read.is_finding()), (Some("3 job 1 program 9"), Some("sig A"), true));
    }

    #[test]
    fn a_hand_written_file_has_what_it_says() {
        let h = FindingHeader::parse("// oracle: racerdx-tp\nclass C { }\n").unwrap();
        assert_eq!(h, FindingHeader { kind: Kind::Other, oracle: Some("racerdx-tp".into()), sut: SutSpec::default() });
        assert!(FindingHeader::parse("// sut: external-analysis\n").is_err());
    }
}
