//! The batch form of an external detector (`--batch`): a command run once per program on
//! a folder of its traces, for a tool that pays a process start per run.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::process::{run_command, substitute, Failure, Pattern};
use crate::scratch::Scratch;

/// A command run once per program on a folder holding one STD file per trace
/// (`trace-0001.std`, …), for a detector that pays a process start per run (a JVM's): its
/// output gives each file's reports after a line `==> trace-0001.std <==` (the header
/// `head` and `tail` print before each of several files; a path before the name is
/// ignored), each read with the report pattern. Lines before the first header are not
/// read.
#[derive(Clone, Debug)]
pub struct Batch {
    /// The command line, with `{}` where the folder's path goes.
    pub command: String,
    /// How reports are read from its output.
    pub pattern: Pattern,
    /// The time one trace may take: a run on n traces may take n times it.
    pub timeout: Duration,
    /// Where the folders are written (a scratch folder, never the source tree; removed
    /// with the last clone).
    pub scratch: Arc<Scratch>,
}

/// Numbers the folders of [`Batch::run`]: one counter for the process.
static BATCHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Batch {
    /// Writes `traces` (STD texts) as `trace-0001.std`, … into a fresh folder, runs the
    /// command on it once, and returns each trace's reported locations, in order. A run
    /// that fails is the failure of every trace; a trace without a section is a
    /// [`Failure::Garbage`] of its own. The folder is removed after a successful run and
    /// kept after a failed one, to look at.
    pub fn run(&self, traces: &[String]) -> Vec<Result<Vec<u64>, Failure>> {
        let n = BATCHES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = self.scratch.path().join(format!("batch-{}-{n}", std::process::id()));
        let name = |i: usize| format!("trace-{:04}.std", i + 1);
        let written = std::fs::create_dir_all(&dir).and_then(|()| traces.iter().enumerate().try_for_each(|(i, t)| std::fs::write(dir.join(name(i)), t)));
        if let Err(e) = written {
            let f = Failure::Spawn { command: self.command.clone(), why: format!("cannot write the trace folder {}: {e}", dir.display()) };
            return vec![Err(f); traces.len()];
        }
        let timeout = self.timeout.saturating_mul(u32::try_from(traces.len().max(1)).unwrap_or(u32::MAX));
        let out = match run_command(&substitute(&self.command, &dir), timeout) {
            Ok(out) => out,
            Err(f) => return vec![Err(f); traces.len()],
        };
        let mut sections: BTreeMap<String, Vec<u64>> = BTreeMap::new();
        let mut current: Option<String> = None;
        for line in out.lines() {
            if let Some(path) = line.strip_prefix("==> ").and_then(|l| l.strip_suffix(" <==")) {
                let file = Path::new(path).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
                sections.entry(file.clone()).or_default();
                current = Some(file);
            } else if let (Some(file), Some(loc)) = (&current, self.pattern.loc(line)) {
                sections.entry(file.clone()).or_default().push(loc);
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        (0..traces.len())
            .map(|i| {
                sections
                    .remove(&name(i))
                    .ok_or_else(|| Failure::Garbage { line: String::new(), why: format!("no `==> {} <==` section for this trace in its batch's output", name(i)) })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_reads_each_traces_section_and_a_failure_is_every_traces() {
        let batch = |command: &str| Batch { command: command.into(), pattern: Pattern::std_event(), timeout: Duration::from_secs(5), scratch: Arc::new(Scratch::named("batch")) };
        let traces = ["T0|w(V1)|1\nT1|r(V1)|2\n".to_string(), "T0|r(V1)|1\n".to_string()];
        // `head -v` heads each file with its path: every event is echoed, so reported.
        assert_eq!(batch("head -v -n 100 {}/*.std").run(&traces), vec![Ok(vec![1, 2]), Ok(vec![1])]);
        // Only the first trace's section: the second has no answer.
        let one = batch("head -v -n 100 {}/trace-0001.std").run(&traces);
        assert_eq!(one[0], Ok(vec![1, 2]));
        assert!(matches!(&one[1], Err(Failure::Garbage { why, .. }) if why.contains("no `==> trace-0002.std <==` section")), "{one:?}");
        let crashed = batch("exit 3 # {}").run(&traces);
        assert!(crashed.len() == 2 && crashed.iter().all(|r| matches!(r, Err(Failure::Crash { .. }))), "{crashed:?}");
    }
}
