//! A catalogued detector judged otherwise than it asks: `--claim` and `--all-traces` beside
//! `--sut` ([`crate::sut_spec::SutSpec::Catalogued`]).

use race_oracles::lang::Program;
use race_oracles::machine::Event;
use race_oracles::theorems::{Claim, DetectorFactory, DynamicDetector, Sut, Traces};

use super::Implementation;

/// A detector judged otherwise than it asks (`--claim` or `--all-traces` beside `--sut`): it
/// runs as the detector it wraps, and says `claim` and `traces` where they are given.
///
/// Invariant: `inner` lends itself as a [`Sut::Detector`] ([`Subject::new`] checks it before
/// making one).
pub(super) struct Judged {
    pub(super) inner: Box<dyn Implementation>,
    pub(super) claim: Option<Claim>,
    pub(super) traces: Option<Traces>,
}

impl Judged {
    fn detector(&self) -> &dyn DetectorFactory {
        match self.inner.sut() {
            Sut::Detector(f) => f,
            _ => unreachable!("Subject::new wraps detectors only"),
        }
    }
}

impl Implementation for Judged {
    fn sut(&self) -> Sut<'_> {
        Sut::Detector(self)
    }
}

impl DetectorFactory for Judged {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        self.detector().fresh()
    }

    fn for_program(&self, p: &Program) -> Box<dyn DetectorFactory + '_> {
        Box::new(JudgedFor { inner: self.detector().for_program(p), claim: self.claim, traces: self.traces })
    }

    fn claim(&self) -> Claim {
        self.claim.unwrap_or_else(|| self.detector().claim())
    }

    fn traces(&self) -> Traces {
        self.traces.unwrap_or_else(|| self.detector().traces())
    }
}

/// [`Judged`] for one program.
struct JudgedFor<'a> {
    inner: Box<dyn DetectorFactory + 'a>,
    claim: Option<Claim>,
    traces: Option<Traces>,
}

impl DetectorFactory for JudgedFor<'_> {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        self.inner.fresh()
    }

    fn for_program(&self, p: &Program) -> Box<dyn DetectorFactory + '_> {
        Box::new(JudgedFor { inner: self.inner.for_program(p), claim: self.claim, traces: self.traces })
    }

    fn claim(&self) -> Claim {
        self.claim.unwrap_or_else(|| self.inner.claim())
    }

    fn traces(&self) -> Traces {
        self.traces.unwrap_or_else(|| self.inner.traces())
    }

    fn batches(&self) -> bool {
        self.inner.batches()
    }

    fn prepare(&self, traces: &[Vec<Event>]) {
        self.inner.prepare(traces);
    }
}
