//! Exhaustive stateful search over every schedule and every `*` choice (spec §4.2): a
//! depth-first search with a visited set of states, as the stateful explorer of
//! `explore::stateful` does for the machine. A path that reaches a state seen before stops
//! there, so every reachable state is visited once; a state with no successor at all is
//! *final* (every thread done, blocked or stuck).
//!
//! Local steps run eagerly (`Config::eager_local`, the same argument as the machine's): when
//! some thread's next step is local ([`State::next_is_local`]), only the first such thread is
//! scheduled. Local steps commute with every other step, so every state in which no thread
//! stands at a local step is still reached, and with it every enabled pair of accesses
//! (a race) and every final state; each thread still passes every point of its own code, so
//! a per-thread property of states (Fig. 7(c)) is seen at every point.
//!
//! Witnesses are paths: the `(thread, choice)` steps from the initial state
//! ([`replay`] turns one into readable lines).

use std::ops::ControlFlow;

use super::code::{Code, Instr, Ix, Src};
use super::state::*;
use crate::explore::Config;
use crate::lang::AccessKind;
use crate::reach;

/// One step of a path: the thread (by position) and its choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Step {
    /// The thread's position in [`State::threads`].
    pub thread: u32,
    /// The choice ([`State::successors`]).
    pub choice: u32,
}

/// What a search covered.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Coverage {
    /// Distinct states visited.
    pub states: u64,
    /// Final states among them.
    pub finals: u64,
    /// Why the search stopped early (`None`: it covered every state within the loop bound).
    pub cut: Option<String>,
}

/// The threads the explorer schedules in `s`: the first one whose next step is local, or
/// every thread.
fn scheduled(code: &Code, s: &State, eager: bool) -> Vec<usize> {
    if eager {
        if let Some(t) = (0..s.threads.len()).find(|&t| s.next_is_local(code, t)) {
            return vec![t];
        }
    }
    (0..s.threads.len()).collect()
}

/// What a search calls at each state it visits: `visit(state, path, is_final)`.
pub type Visit<'a> = dyn FnMut(&State, &[Step], bool) -> ControlFlow<()> + 'a;

/// The instrumented semantics as a [`crate::reach::Model`]: the scheduled threads' steps.
struct Instrumented<'c, 'v, 'a> {
    code: &'c Code,
    counters: Counters,
    cfg: &'c Config,
    visit: &'v mut Visit<'a>,
}

impl reach::Model for Instrumented<'_, '_, '_> {
    type State = State;
    type Label = Step;

    fn initial(&mut self) -> State {
        State::initial(self.code, self.counters)
    }

    fn successors(&mut self, s: &State, emit: &mut dyn FnMut(Step, State) -> ControlFlow<()>) -> ControlFlow<()> {
        for t in scheduled(self.code, s, self.cfg.eager_local) {
            // OK since each thread but the first was forked by one step of the path, and a
            // path stops at `max_steps` (a u32).
            let thread = u32::try_from(t).unwrap_or(u32::MAX);
            for (choice, n) in s.successors(self.code, t, self.cfg.loop_bound) {
                emit(Step { thread, choice }, n)?;
            }
        }
        ControlFlow::Continue(())
    }

    fn visit(&mut self, s: &State, path: Option<&[Step]>, is_final: bool) -> ControlFlow<()> {
        (self.visit)(s, path.unwrap_or_default(), is_final)
    }
}

/// Visits every reachable state once, depth first ([`reach::Strategy::Depth`]). A visitor
/// that breaks stops the search (`cut` says so).
pub fn search(code: &Code, counters: Counters, cfg: &Config, visit: &mut Visit<'_>) -> Coverage {
    let r = reach::reach(&mut Instrumented { code, counters, cfg, visit }, reach::Strategy::Depth, cfg);
    Coverage { states: r.states, finals: r.finals, cut: r.cut.map(|c| c.explain("the search")) }
}

/// The state a path leads to, with one readable line per step (`T1.1 line 7: write
/// h2(1).g`). `None` if the path does not fit the program (a step no thread can take).
pub fn replay(code: &Code, counters: Counters, loop_bound: u32, path: &[Step]) -> Option<(State, Vec<String>)> {
    let mut s = State::initial(code, counters);
    let mut lines = vec![];
    for step in path {
        // OK since a thread number names an existing thread, and `usize` has at least 32 bits.
        let t = step.thread as usize;
        let line = describe(code, &s, t, step.choice);
        let next = s.successors(code, t, loop_bound).into_iter().find(|(c, _)| *c == step.choice)?.1;
        lines.push(line);
        s = next;
    }
    Some((s, lines))
}

/// One step, before it is taken.
fn describe(code: &Code, s: &State, t: usize, choice: u32) -> String {
    let who = &s.threads[t].name;
    let p = match s.next(code, t) {
        Next::At(p) => p,
        Next::Release(o) => return format!("{who}: release {}", s.obj_name(code, o)),
        Next::Done => return format!("{who}: (done)"),
    };
    let line = code.lines[p.index()].0;
    let var = |x: Ix| code.vars.get(x.index()).map_or("?", String::as_str);
    let what = match code.instr(p) {
        Instr::While(w, _) => {
            let l = code.loops.get(w.index()).map_or("?", String::as_str);
            if choice == 0 {
                format!("leave loop @{l}")
            } else {
                format!("iterate loop @{l}")
            }
        }
        Instr::If(..) => format!("take the {} branch", if choice == 0 { "then" } else { "else" }),
        Instr::New(x, h) => format!("{} = new @{}", var(*x), code.sites.get(h.index()).map_or("?", String::as_str)),
        Instr::Path { write, .. } => match s.next_access(code, t) {
            Some(a) => {
                let f = code.fields.get(a.field.index()).map_or("?", String::as_str);
                let verb = if a.kind == AccessKind::Write { "write" } else { "read" };
                let v = match (a.kind, write) {
                    (AccessKind::Write, Some(Src::Var(y))) => format!(" := {}", val(code, s, s.var(t, *y))),
                    (AccessKind::Write, Some(Src::Int(k))) => format!(" := {k}"),
                    (AccessKind::Write, _) => " := null".into(),
                    (AccessKind::Read, _) => format!(" (= {})", val(code, s, s.objs[a.obj.index()].fields[a.field.index()])),
                };
                format!("{verb} {}.{f}{v}", s.obj_name(code, a.obj))
            }
            None => "stuck access".into(),
        },
        Instr::Sync(x, _) => format!("acquire {} ({})", val(code, s, s.var(t, *x)), var(*x)),
        Instr::Fork(..) => format!("fork {}.{}", who, s.threads[t].forks + 1),
        Instr::Append(x, y) => format!("{}[+] = {}", val(code, s, s.var(t, *x)), val(code, s, s.var(t, *y))),
        Instr::Pick(x, _) => format!("{} = element {choice}", var(*x)),
        Instr::Copy(x, y) => format!("{} = {}", var(*x), var(*y)),
        Instr::Null(x) => format!("{} = null", var(*x)),
        Instr::Skip => "skip".into(),
    };
    format!("{who} line {line}: {what}")
}

/// A value, readably.
pub fn val(code: &Code, s: &State, v: Val) -> String {
    match v {
        Val::Null => "null".into(),
        Val::Int(k) => k.to_string(),
        Val::Obj(o) => s.obj_name(code, o),
    }
}
