//! A static race analysis in another process, behind the [`StaticRaceAnalysis`] seam: the
//! oracles that judge reports (`racerdx-tp`, `racerdx-reports`) judge it as they judge
//! RacerDX.
//!
//! The analysis is given the program as `.race` text, printed canonically (one statement
//! per line), and answers with one JSON object (the book's "A static analyzer";
//! `docs/json/analysis.schema.json`):
//!
//! ```json
//! {"version":1,"reports":[{"sides":[
//!   {"method":"qwop","kind":"w","path":"arg1.x.g.f","level":0,"sites":[[3,15]]},
//!   {"method":"gwap","kind":"r","path":"arg1.x.g.f","level":1,"lines":[7]}]}]}
//! ```
//!
//! A side names the method run by its thread, the access's kind (`r`, `w`), its access
//! path (rooted at one of the method's formals), its abstract lock level, and where the
//! access is: `lines`, access statements in the method's own body, and `sites`, chains of
//! call lines from the method's body down to an access line (`[3,15]`: the call at line 3
//! reaches the access at line 15). Lines are those of the text the analysis was given; they
//! are mapped back to the program's own lines here.
//!
//! An answer that does not parse, or names a method the program does not have, a path not
//! rooted at a formal, a line that is no access (or a call line that is no call) of the
//! method, is an [`AnalysisFailure`] that says what is wrong, as is a crash or a timeout.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use race_oracles::lang::{parse, print, walk_block, AccessKind, Place, Program, Stmt, StmtKind};
use race_oracles::theorems::{AccessPath, AnalysisFailure, RaceReport, ReportSide, StaticRaceAnalysis};

use super::process::{run_on_file, Failure, Persistent, PROTOCOL_VERSION};
use crate::scratch::Scratch;

/// How the analysis process is run.
#[derive(Clone)]
enum Mode {
    /// A command per program, on a file.
    PerProgram { timeout: Duration, scratch: Arc<Scratch> },
    /// One process for every program (shared by the campaign's workers, one request at a time).
    Persistent(Arc<Mutex<Persistent>>),
}

/// The SUT `racefuzz check|fuzz|shrink --analysis-cmd` judges.
#[derive(Clone)]
pub struct ExternalAnalysis {
    /// The command line, for messages.
    pub command: String,
    mode: Mode,
}

impl std::fmt::Debug for ExternalAnalysis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = if matches!(self.mode, Mode::Persistent(_)) { "persistent" } else { "per program" };
        write!(f, "ExternalAnalysis({:?}, {mode})", self.command)
    }
}

/// Numbers the program files of per-program mode (one counter for the process, so that no
/// two workers write the same file).
static PROGRAM_FILES: AtomicU64 = AtomicU64::new(0);

impl ExternalAnalysis {
    /// The analysis `command`: `persistent` (JSON Lines), or per program (then `command`
    /// must hold `{}`, the path of the program's file). Per-program files go to a scratch
    /// folder under the system's temporary directory.
    ///
    /// # Errors
    /// [`super::ConfigError::NoProgramFile`]: a per-program command without `{}`.
    pub fn new(command: &str, persistent: bool, timeout: Duration) -> Result<Self, super::ConfigError> {
        ExternalAnalysis::check(command, persistent)?;
        let mode = if persistent {
            Mode::Persistent(Arc::new(Mutex::new(Persistent::new(command, timeout))))
        } else {
            Mode::PerProgram { timeout, scratch: Arc::new(Scratch::named("analysis")) }
        };
        Ok(ExternalAnalysis { command: command.to_string(), mode })
    }

    /// Whether the analysis `command` can be run as given, without starting it: per program,
    /// it must hold `{}`.
    ///
    /// # Errors
    /// [`super::ConfigError::NoProgramFile`].
    pub fn check(command: &str, persistent: bool) -> Result<(), super::ConfigError> {
        if !persistent && !command.contains("{}") {
            return Err(super::ConfigError::NoProgramFile(command.to_string()));
        }
        Ok(())
    }

    /// The process's answer for the program text `text`.
    fn answer(&self, text: &str) -> Result<Answer, Failure> {
        match &self.mode {
            Mode::PerProgram { timeout, scratch } => {
                let n = PROGRAM_FILES.fetch_add(1, Ordering::Relaxed);
                let out = run_on_file(&self.command, *timeout, &scratch.path().join(format!("program-{}-{n}.race", std::process::id())), text)?;
                let garbage = |why: String| Failure::Garbage { line: out.trim().chars().take(2_000).collect(), why };
                let answer: Answer = serde_json::from_str(out.trim()).map_err(|e| garbage(e.to_string()))?;
                if answer.version != PROTOCOL_VERSION {
                    return Err(garbage(format!("protocol version {} (racefuzz speaks {PROTOCOL_VERSION})", answer.version)));
                }
                Ok(answer)
            }
            Mode::Persistent(p) => {
                let mut p = p.lock().map_err(|_| Failure::Spawn { command: self.command.clone(), why: "racefuzz internal bug: a worker panicked holding the analysis".into() })?;
                p.ask(|id| Request { version: PROTOCOL_VERSION, id, program: text })
            }
        }
    }
}

/// One request of the persistent protocol: a program.
#[derive(serde::Serialize)]
struct Request<'a> {
    version: u32,
    id: u64,
    /// The `.race` text, as a per-program file holds it.
    program: &'a str,
}

/// The analysis's answer (per program: the whole output; persistent: one line, with `id`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Answer {
    version: u32,
    #[serde(default)]
    #[allow(dead_code)] // checked by `Persistent::ask`
    id: Option<u64>,
    reports: Vec<WireReport>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireReport {
    sides: [WireSide; 2],
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireSide {
    method: String,
    kind: String,
    path: String,
    level: u32,
    #[serde(default)]
    lines: Vec<u32>,
    #[serde(default)]
    sites: Vec<Vec<u32>>,
}

impl StaticRaceAnalysis for ExternalAnalysis {
    fn name(&self) -> String {
        format!("`{}`", self.command)
    }

    fn reports(&self, p: &Program) -> Result<Vec<RaceReport>, AnalysisFailure> {
        let text = print(p);
        let shown = parse(&text).map_err(|e| AnalysisFailure(format!("racefuzz internal bug: a printed program does not parse back: {e}")))?;
        let lines = LineMap::new(p, &shown)?;
        let answer = self.answer(&text).map_err(|f| AnalysisFailure(f.to_string()))?;
        let mut out = BTreeSet::new();
        for (i, r) in answer.reports.iter().enumerate() {
            let [a, b] = &r.sides;
            let side = |s: &WireSide| reported_side(&shown, &lines, s).map_err(|why| AnalysisFailure(format!("report {} (of {}): {why}", i + 1, answer.reports.len())));
            out.insert(RaceReport { sides: [side(a)?, side(b)?] });
        }
        Ok(out.into_iter().collect())
    }
}

/// The lines of the printed program (the text the analysis saw) mapped to the lines of the
/// program the oracle judges: the printer writes one statement per line, and the two
/// programs have the same statements in the same order.
struct LineMap(BTreeMap<u32, u32>);

impl LineMap {
    fn new(p: &Program, shown: &Program) -> Result<LineMap, AnalysisFailure> {
        if p.without_lines() != shown.without_lines() {
            return Err(AnalysisFailure("racefuzz internal bug: the printed program differs from the program".into()));
        }
        // The same statements in the same order: their lines pair up.
        let lines = |q: &Program| {
            let mut v: Vec<u32> = vec![];
            for m in &q.methods {
                walk_block(&m.body, &mut |s: &Stmt| v.push(s.line.0));
            }
            v
        };
        Ok(LineMap(lines(shown).into_iter().zip(lines(p)).collect()))
    }
}

/// One side of a report, checked against the program the analysis saw (`shown`), with its
/// lines mapped back to the judged program's.
fn reported_side(shown: &Program, lines: &LineMap, s: &WireSide) -> Result<ReportSide, String> {
    let Some(m) = shown.method(&s.method) else {
        return Err(format!("no method `{}` (the program's: {})", s.method, shown.methods.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ")));
    };
    let kind = match s.kind.as_str() {
        "r" => AccessKind::Read,
        "w" => AccessKind::Write,
        k => return Err(format!("kind `{k}` is neither `r` nor `w`")),
    };
    let mut parts = s.path.split('.');
    let root = parts.next().unwrap_or_default();
    let fields: Vec<String> = parts.map(str::to_string).collect();
    if !m.params.iter().any(|x| x == root) || fields.is_empty() || fields.iter().any(String::is_empty) {
        return Err(format!("path `{}` is not `formal.field…` of {} (formals: {})", s.path, m.name, m.params.join(", ")));
    }
    let chains: Vec<&[u32]> = s.lines.iter().map(std::slice::from_ref).chain(s.sites.iter().map(Vec::as_slice)).collect();
    if chains.is_empty() {
        return Err(format!("{}'s side has no `lines` and no `sites`", m.name));
    }
    let mut sites = BTreeSet::new();
    for chain in chains {
        check_site(shown, &m.name, chain)?;
        sites.insert(chain.iter().map(|l| lines.0.get(l).copied().ok_or_else(|| format!("line {l} holds no statement of a method"))).collect::<Result<Vec<u32>, String>>()?);
    }
    Ok(ReportSide { method: m.name.clone(), kind, path: AccessPath { root: root.to_string(), fields }, level: s.level, sites })
}

/// Whether `chain` (call lines, then an access line) is a site of `method` in `p`: each call
/// line holds a call in the body of the method reached so far, and the last line an access
/// (a load or a store of a field path) in the body of a method reached.
fn check_site(p: &Program, method: &str, chain: &[u32]) -> Result<(), String> {
    let Some((access, calls)) = chain.split_last() else { return Err("an empty site".into()) };
    let mut reached: BTreeSet<&str> = BTreeSet::from([method]);
    let at = |ms: &BTreeSet<&str>, line: u32| {
        let mut found: Vec<&StmtKind> = vec![];
        for m in ms.iter().filter_map(|m| p.method(m)) {
            walk_block(&m.body, &mut |s: &Stmt| {
                if s.line.0 == line {
                    found.push(&s.kind);
                }
            });
        }
        found
    };
    for &line in calls {
        let callees: BTreeSet<&str> = at(&reached, line)
            .into_iter()
            .filter_map(|k| match k {
                StmtKind::Call { method, .. } => Some(method.as_str()),
                _ => None,
            })
            .collect();
        if callees.is_empty() {
            return Err(format!("site {chain:?}: line {line} is no call in {}", reached.into_iter().collect::<Vec<_>>().join(", ")));
        }
        reached = callees;
    }
    let accesses = at(&reached, *access).into_iter().filter(|k| matches!(k, StmtKind::Load { src: Place::Field { .. }, .. } | StmtKind::Store { dst: Place::Field { .. }, .. }));
    if accesses.count() == 0 {
        return Err(format!("site {chain:?}: line {access} is no access in {}", reached.into_iter().collect::<Vec<_>>().join(", ")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIG1: &str = "dialect racerdx\nmethod zap(arg1) { lock; t = arg1.dee; unlock }\nmethod zup(arg1) { y = new; arg1.dee = y }\n";

    fn answer_with(answer: &str) -> Result<Vec<RaceReport>, AnalysisFailure> {
        let a = ExternalAnalysis::new(&format!("cat <<'EOF' # {{}}\n{answer}\nEOF"), false, Duration::from_secs(5)).expect("has {}");
        a.reports(&parse(FIG1).expect("parses"))
    }

    #[test]
    fn reports_map_back_to_the_programs_own_lines() {
        // Printed, zap's load is on line 4 and zup's store on line 9 (one statement per line).
        let printed = print(&parse(FIG1).expect("parses"));
        assert_eq!(printed.lines().nth(3), Some("  t = arg1.dee"), "{printed}");
        assert_eq!(printed.lines().nth(8), Some("  arg1.dee = y"), "{printed}");
        let r = answer_with(r#"{"version":1,"reports":[{"sides":[{"method":"zap","kind":"r","path":"arg1.dee","level":1,"lines":[4]},{"method":"zup","kind":"w","path":"arg1.dee","level":0,"sites":[[9]]}]}]}"#)
            .expect("a good answer");
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].to_string(), "zap: R arg1.dee at lock level 1 (line 2)  ∥  zup: W arg1.dee at lock level 0 (line 3)");
    }

    /// Statements in blocks map back too: the nested statements' lines differ between the
    /// file and the printed text, which must not make them differ as statements.
    #[test]
    fn nested_statements_map_back() {
        let p = parse("dialect racerdx\nmethod m(arg1) { if * { x = new; arg1.f = x } }\n").expect("parses");
        assert_eq!(print(&p).lines().nth(4), Some("    arg1.f = x"));
        let answer = r#"{"version":1,"reports":[{"sides":[{"method":"m","kind":"w","path":"arg1.f","level":0,"lines":[5]},{"method":"m","kind":"w","path":"arg1.f","level":0,"lines":[5]}]}]}"#;
        let a = ExternalAnalysis::new(&format!("cat <<'EOF' # {{}}\n{answer}\nEOF"), false, Duration::from_secs(5)).expect("has {}");
        let r = a.reports(&p).expect("a good answer");
        assert_eq!(r.iter().map(ToString::to_string).collect::<Vec<_>>(), ["m: W arg1.f at lock level 0 (line 2)  ∥  m: W arg1.f at lock level 0 (line 2)"]);
    }

    #[test]
    fn an_answer_that_names_what_is_not_there_is_a_failure() {
        let side = |m: &str, k: &str, path: &str, lines: &str| format!(r#"{{"method":"{m}","kind":"{k}","path":"{path}","level":0,{lines}}}"#);
        let ok = side("zup", "w", "arg1.dee", r#""lines":[9]"#);
        let cases = [
            (side("zep", "w", "arg1.dee", r#""lines":[9]"#), "no method `zep` (the program's: zap, zup)"),
            (side("zup", "x", "arg1.dee", r#""lines":[9]"#), "kind `x` is neither `r` nor `w`"),
            (side("zup", "w", "y.dee", r#""lines":[9]"#), "path `y.dee` is not `formal.field…` of zup (formals: arg1)"),
            (side("zup", "w", "arg1.dee", r#""lines":[8]"#), "site [8]: line 8 is no access in zup"),
            (side("zup", "w", "arg1.dee", r#""sites":[[9,9]]"#), "site [9, 9]: line 9 is no call in zup"),
            (side("zup", "w", "arg1.dee", r#""lines":[]"#), "zup's side has no `lines` and no `sites`"),
        ];
        for (bad, why) in cases {
            let e = answer_with(&format!(r#"{{"version":1,"reports":[{{"sides":[{ok},{bad}]}}]}}"#)).expect_err(why);
            assert_eq!(e.0, format!("report 1 (of 1): {why}"));
        }
        assert!(answer_with("hello").expect_err("garbage").0.starts_with("output that does not parse"));
        assert!(answer_with(r#"{"version":2,"reports":[]}"#).expect_err("version").0.contains("protocol version 2"));
        assert_eq!(answer_with(r#"{"version":1,"reports":[]}"#), Ok(vec![]));
    }
}
