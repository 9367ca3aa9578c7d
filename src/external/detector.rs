//! The external detector behind the [`DynamicDetector`] seam: a whole-trace detector
//! ([`DynamicDetector::whole_trace`]) whose answer comes from a process.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use race_oracles::explore::Names;
use race_oracles::lang::Program;
use race_oracles::machine::{Event, EventIdx, EventKind, Machine};
use race_oracles::theorems::detector::{DetectorFactory, DetectorFailure, DynamicDetector, Reported};
use race_oracles::theorems::{Claim, Traces};

use super::batch::Batch;
use super::process::{Failure, PerTrace, Persistent};
use crate::std_trace::{write, NameTableBuilder};

/// How the process is run.
#[derive(Clone)]
pub enum Mode {
    /// A command per trace, on a file.
    PerTrace(PerTrace),
    /// One process for every trace (shared by the campaign's workers, one request at a time).
    Persistent(Arc<Mutex<Persistent>>),
    /// A command per program, on a folder of its traces; each answer is kept by its
    /// trace's STD text until the trace is judged.
    Batch(Batch, Arc<Mutex<Answers>>),
}

/// A batch's answers, by trace (its STD text).
pub type Answers = BTreeMap<String, Result<Vec<u64>, Failure>>;

/// Makes [`ExternalDetector`]s: the SUT `racefuzz check|fuzz --detector-cmd` judges.
#[derive(Clone)]
pub struct ExternalFactory {
    /// The command line, for messages.
    pub command: String,
    mode: Mode,
    /// Field names of the program, so that distinct fields are distinct STD variables.
    fields: Vec<String>,
    /// What the detector claims about every trace (`--claim`).
    claim: Claim,
    /// Which traces it runs on: one per class unless `--all-traces` (a trace costs a
    /// process or a request).
    traces: Traces,
}

/// Numbers the trace files of per-trace mode: one counter for the process, so that no two
/// detectors (workers, tests) ever write the same file.
static TRACE_FILES: AtomicU64 = AtomicU64::new(0);

impl std::fmt::Debug for ExternalFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = match self.mode {
            Mode::PerTrace(_) => "per trace",
            Mode::Persistent(_) => "persistent",
            Mode::Batch(..) => "batch",
        };
        write!(f, "ExternalFactory({:?}, {mode})", self.command)
    }
}

impl ExternalFactory {
    /// The same detector, claiming `claim` about every trace.
    pub fn claiming(self, claim: Claim) -> Self {
        ExternalFactory { claim, ..self }
    }

    /// The same detector, run on every interleaving when `all` (`--all-traces`).
    pub fn all_traces(self, all: bool) -> Self {
        ExternalFactory { traces: if all { Traces::Every } else { Traces::OnePerClass }, ..self }
    }

    /// A factory for `command` run in `mode`.
    pub fn new(command: &str, mode: Mode) -> Self {
        ExternalFactory { command: command.to_string(), mode, fields: vec![], claim: Claim::default(), traces: Traces::OnePerClass }
    }
}

impl DetectorFactory for ExternalFactory {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        Box::new(ExternalDetector { factory: self.clone() })
    }

    fn for_program(&self, p: &Program) -> Box<dyn DetectorFactory + '_> {
        // A batch's answers belong to one program's traces.
        let mode = match &self.mode {
            Mode::Batch(b, _) => Mode::Batch(b.clone(), Arc::default()),
            other => other.clone(),
        };
        Box::new(ExternalFactory { fields: Machine::new(p, 0).fields, mode, ..self.clone() })
    }

    fn batches(&self) -> bool {
        matches!(self.mode, Mode::Batch(..))
    }

    fn prepare(&self, traces: &[Vec<Event>]) {
        let Mode::Batch(batch, answers) = &self.mode else { return };
        let detector = ExternalDetector { factory: self.clone() };
        // A trace STD cannot write is answered when it is judged (with that error).
        let mut texts: Vec<String> = traces.iter().filter_map(|t| detector.std(t).ok()).collect();
        texts.sort();
        texts.dedup();
        let got = batch.run(&texts);
        if let Ok(mut answers) = answers.lock() {
            answers.extend(texts.into_iter().zip(got));
        }
    }

    fn claim(&self) -> Claim {
        self.claim
    }

    fn traces(&self) -> Traces {
        self.traces
    }
}

/// One trace's detector: the process's answer for it.
pub struct ExternalDetector {
    factory: ExternalFactory,
}

impl ExternalDetector {
    /// The trace's STD text.
    fn std(&self, trace: &[Event]) -> Result<String, DetectorFailure> {
        let names = Names { objects: vec![], fields: self.factory.fields.clone(), threads: vec![] };
        let mut table = NameTableBuilder::default();
        table.add(trace, &names);
        write(trace, &names, &table.build()).map_err(|e| DetectorFailure(e.to_string()))
    }
}

impl DynamicDetector for ExternalDetector {
    fn on_event(&mut self, _: &Event) -> Result<(), Reported> {
        // Never called: the oracles give a whole-trace detector its trace at once.
        Ok(())
    }

    fn name(&self) -> String {
        format!("`{}`", self.factory.command)
    }

    fn whole_trace(&self) -> bool {
        true
    }

    fn on_trace(&mut self, trace: &[Event]) -> Result<Vec<Option<EventIdx>>, DetectorFailure> {
        let std = self.std(trace)?;
        let answer = match &self.factory.mode {
            Mode::PerTrace(cmd) => {
                let n = TRACE_FILES.fetch_add(1, Ordering::Relaxed);
                cmd.run(&format!("trace-{}-{n}.std", std::process::id()), &std)
            }
            Mode::Persistent(p) => match p.lock() {
                Ok(mut p) => p.run(&std),
                Err(_) => Err(Failure::Spawn { command: self.factory.command.clone(), why: "racefuzz internal bug: a worker panicked holding the detector".into() }),
            },
            // A trace the batch did not cover (judged without `prepare`) is a batch of one.
            Mode::Batch(batch, answers) => match answers.lock().ok().and_then(|a| a.get(&std).cloned()) {
                Some(answer) => answer,
                None => {
                    batch.run(std::slice::from_ref(&std)).pop().unwrap_or_else(|| Err(Failure::Garbage { line: String::new(), why: "a batch of one trace gave no answer".into() }))
                }
            },
        };
        let locs = answer.map_err(|f| DetectorFailure(f.to_string()))?;
        // A loc names the event it is one more than the index of, among those STD writes.
        let mut out: Vec<Option<EventIdx>> = vec![];
        for loc in locs {
            let named = trace.iter().find(|e| u64::from(e.idx.0) + 1 == loc && !matches!(e.kind, EventKind::Check(..) | EventKind::Enter(_) | EventKind::Exit(_)));
            let Some(e) = named else {
                return Err(DetectorFailure(
                    Failure::Garbage { line: loc.to_string(), why: format!("loc {loc} names no event of the trace (its locs: 1 to {})", trace.len()) }.to_string(),
                ));
            };
            if !out.contains(&Some(e.idx)) {
                out.push(Some(e.idx));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use race_oracles::lang::AccessKind;
    use race_oracles::machine::{Addr, FieldId, ObjId, ThreadId};
    use race_oracles::theorems::detector::reported;

    use super::*;
    use crate::external::Pattern;

    fn trace() -> Vec<Event> {
        let w = |i: u32, t: u32, f: u16| Event::plain(EventIdx(i), ThreadId(t), 1, EventKind::Access(AccessKind::Write, Addr::Field(ObjId(0), FieldId(f))));
        vec![w(0, 0, 0), w(1, 1, 1), w(2, 1, 0)]
    }

    fn per_trace(command: &str) -> ExternalFactory {
        let scratch = Arc::new(crate::scratch::Scratch::named("external-detector"));
        ExternalFactory::new(command, Mode::PerTrace(PerTrace { command: command.into(), pattern: Pattern::std_event(), timeout: Duration::from_secs(5), scratch }))
    }

    #[test]
    fn distinct_fields_are_distinct_variables_and_locs_map_back_to_events() {
        let f = ExternalFactory { fields: vec!["f".into(), "g".into()], ..per_trace("cat {}") };
        let std = ExternalDetector { factory: f.clone() }.std(&trace()).unwrap();
        assert_eq!(std, "T0|w(V1)|1\nT1|w(V2)|2\nT1|w(V1)|3\n");
        // `cat` echoes every event: each is reported once.
        assert_eq!(reported(&f, &trace()), Ok(vec![Some(EventIdx(0)), Some(EventIdx(1)), Some(EventIdx(2))]));
    }

    #[test]
    fn a_loc_outside_the_trace_is_a_failure() {
        let f = per_trace("echo 'T0|w(V1)|9'");
        let e = reported(&f, &trace()).unwrap_err();
        assert!(e.0.contains("loc 9 names no event of the trace (its locs: 1 to 3)"), "{e}");
    }
}
