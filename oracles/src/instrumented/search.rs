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

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::ops::ControlFlow;

use super::code::{Code, Instr, Src};
use super::state::*;
use crate::explore::Config;
use crate::lang::AccessKind;
use crate::theorems::must_not_alias::Counters;

/// One step of a path: the thread (by position) and its choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Step {
    /// The thread's position in [`State::threads`].
    pub thread: u16,
    /// The choice ([`State::successors`]).
    pub choice: u8,
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

/// A 128-bit hash of a state (two independent 64-bit hashes): the visited set's key. The
/// state's `Hash` stream is written once into a buffer, then each hash takes the buffer in
/// one write: the same two hashes of the same bytes, without walking the state twice
/// through SipHash's many small writes (half of naik-aiken-sound's time). `buf` is scratch
/// space, reused across calls.
fn key(s: &State, buf: &mut Vec<u8>) -> u128 {
    buf.clear();
    let mut bytes = Bytes(std::mem::take(buf));
    s.hash(&mut bytes);
    let (mut a, mut b) = (DefaultHasher::new(), DefaultHasher::new());
    0xa5u8.hash(&mut a);
    0x5au8.hash(&mut b);
    a.write(&bytes.0);
    b.write(&bytes.0);
    *buf = bytes.0;
    (u128::from(a.finish()) << 64) | u128::from(b.finish())
}

/// A `Hasher` that keeps the bytes written to it (its `finish` is unused).
struct Bytes(Vec<u8>);

impl Hasher for Bytes {
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    fn finish(&self) -> u64 {
        0
    }
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

/// Visits every reachable state once, depth first. A visitor that breaks stops the search
/// (`cut` says so).
pub fn search(code: &Code, counters: Counters, cfg: &Config, visit: &mut Visit<'_>) -> Coverage {
    let mut cov = Coverage::default();
    let mut seen = HashSet::new();
    let init = State::initial(code, counters);
    let mut buf = vec![];
    seen.insert(key(&init, &mut buf));
    let mut path: Vec<Step> = vec![];
    // Each frame: the successors of the state at that depth still to explore.
    let mut stack: Vec<std::vec::IntoIter<(Step, State)>> = vec![];
    let mut current = Some(init);
    loop {
        if let Some(s) = current.take() {
            let succ: Vec<(Step, State)> = scheduled(code, &s, cfg.eager_local)
                .into_iter()
                .flat_map(|t| s.successors(code, t, cfg.loop_bound).into_iter().map(move |(c, n)| (Step { thread: u16::try_from(t).unwrap_or(u16::MAX), choice: c }, n)))
                .collect();
            cov.states += 1;
            let is_final = succ.is_empty();
            cov.finals += u64::from(is_final);
            if visit(&s, &path, is_final).is_break() {
                cov.cut = Some("the check stopped the search".into());
                return cov;
            }
            if cov.states >= cfg.max_states {
                cov.cut = Some(format!("the search hit its budget of {} states (raise --max-states)", cfg.max_states));
                return cov;
            }
            if path.len() >= cfg.max_steps as usize {
                cov.cut = Some(format!("a path reached {} steps (raise --max-steps)", cfg.max_steps));
                return cov;
            }
            if cfg.deadline.is_some_and(|d| std::time::Instant::now() > d) {
                cov.cut = Some("the campaign's deadline passed during the check".into());
                return cov;
            }
            stack.push(succ.into_iter());
            continue;
        }
        let Some(top) = stack.last_mut() else { return cov };
        match top.next() {
            Some((step, s)) => {
                if seen.insert(key(&s, &mut buf)) {
                    path.push(step);
                    current = Some(s);
                }
            }
            None => {
                stack.pop();
                path.pop();
            }
        }
    }
}

/// The state a path leads to, with one readable line per step (`T1.1 line 7: write
/// h2(1).g`). `None` if the path does not fit the program (a step no thread can take).
pub fn replay(code: &Code, counters: Counters, loop_bound: u32, path: &[Step]) -> Option<(State, Vec<String>)> {
    let mut s = State::initial(code, counters);
    let mut lines = vec![];
    for step in path {
        let t = usize::from(step.thread);
        let line = describe(code, &s, t, step.choice);
        let next = s.successors(code, t, loop_bound).into_iter().find(|(c, _)| *c == step.choice)?.1;
        lines.push(line);
        s = next;
    }
    Some((s, lines))
}

/// One step, before it is taken.
fn describe(code: &Code, s: &State, t: usize, choice: u8) -> String {
    let who = &s.threads[t].name;
    let p = match s.next(code, t) {
        Next::At(p) => p,
        Next::Release(o) => return format!("{who}: release {}", s.obj_name(code, o)),
        Next::Done => return format!("{who}: (done)"),
    };
    let line = code.lines[p.0 as usize].0;
    let var = |x: u16| code.vars.get(usize::from(x)).map_or("?", String::as_str);
    let what = match code.instr(p) {
        Instr::While(w, _) => {
            let l = code.loops.get(usize::from(*w)).map_or("?", String::as_str);
            if choice == 0 {
                format!("leave loop @{l}")
            } else {
                format!("iterate loop @{l}")
            }
        }
        Instr::If(..) => format!("take the {} branch", if choice == 0 { "then" } else { "else" }),
        Instr::New(x, h) => format!("{} = new @{}", var(*x), code.sites.get(usize::from(*h)).map_or("?", String::as_str)),
        Instr::Path { write, .. } => match s.next_access(code, t) {
            Some(a) => {
                let f = code.fields.get(usize::from(a.field)).map_or("?", String::as_str);
                let verb = if a.kind == AccessKind::Write { "write" } else { "read" };
                let v = match (a.kind, write) {
                    (AccessKind::Write, Some(Src::Var(y))) => format!(" := {}", val(code, s, s.var(t, *y))),
                    (AccessKind::Write, Some(Src::Int(k))) => format!(" := {k}"),
                    (AccessKind::Write, _) => " := null".into(),
                    (AccessKind::Read, _) => format!(" (= {})", val(code, s, s.objs[a.obj.0 as usize].fields[usize::from(a.field)])),
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
