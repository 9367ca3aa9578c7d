//! Reading: STD text into the machine's events, strictly (module docs of [`super`]).
//!
//! Ids are synthetic and follow first appearance: thread `k` is the `k`-th name seen (as a
//! line's thread or a fork/join's child), variable `i` is the address `Addr::Field(ObjId(i),
//! FieldId(0))`, lock `i` is `LockId::Obj(ObjId(variables + i))` (one object per variable
//! and per lock, so no two share an object). Each event's [`Event::idx`] is its position
//! among the events, its [`Event::line`] the STD file's line.

use std::collections::HashMap;

use race_oracles::lang::AccessKind;
use race_oracles::machine::{Addr, Event, EventIdx, EventKind, FieldId, LockId, ObjId, ThreadId};

use super::Op;

/// A trace read from STD text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadTrace {
    /// The events.
    pub events: Vec<Event>,
    /// Each event's `loc`, by position.
    pub locs: Vec<u64>,
    /// Thread names, by [`ThreadId`].
    pub threads: Vec<String>,
    /// Variable names, by the [`ObjId`] of their address.
    pub variables: Vec<String>,
    /// Lock names, by their [`ObjId`] minus the number of variables.
    pub locks: Vec<String>,
}

impl ReadTrace {
    /// The STD name of an address of [`ReadTrace::events`].
    pub fn variable(&self, a: Addr) -> String {
        self.variables.get(a.obj().0 as usize).cloned().unwrap_or_else(|| format!("#{}", a.obj().0))
    }

    /// The `loc` of the event at position `idx`.
    pub fn loc(&self, idx: u32) -> u64 {
        self.locs.get(idx as usize).copied().unwrap_or(u64::MAX)
    }
}

/// A line that is not STD, or a trace no execution could produce.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {what}")]
pub struct ReadError {
    /// 1-based line of the STD text.
    pub line: usize,
    /// What is wrong.
    pub what: String,
}

/// One parsed line, names not yet numbered.
struct Raw<'a> {
    line: usize,
    thread: &'a str,
    op: Op,
    decor: &'a str,
    loc: u64,
}

/// Reads STD text.
///
/// # Errors
/// [`ReadError`] naming the first bad line.
pub fn read(text: &str) -> Result<ReadTrace, ReadError> {
    let raws = text.lines().enumerate().filter(|(_, l)| !l.is_empty()).map(|(i, l)| parse_line(i + 1, l)).collect::<Result<Vec<_>, _>>()?;
    let mut ids = Ids::default();
    for r in &raws {
        ids.thread(r.thread);
        match r.op {
            Op::R | Op::W => ids.variable(r.decor),
            Op::Acq | Op::Rel => ids.lock(r.decor),
            Op::Fork | Op::Join => ids.thread(r.decor),
        };
    }
    let nvars = ids.variables.len();
    let obj = |i: usize| ObjId(u32::try_from(i).unwrap_or(u32::MAX));
    let mut events = Vec::with_capacity(raws.len());
    let mut check = Wellformed::default();
    for (pos, r) in raws.iter().enumerate() {
        let t = ThreadId(u32::try_from(ids.threads[r.thread]).unwrap_or(u32::MAX));
        let kind = match r.op {
            Op::R | Op::W => EventKind::Access(if r.op == Op::R { AccessKind::Read } else { AccessKind::Write }, Addr::Field(obj(ids.variables[r.decor]), FieldId(0))),
            Op::Acq => EventKind::Acquire(LockId::Obj(obj(nvars + ids.locks[r.decor]))),
            Op::Rel => EventKind::Release(LockId::Obj(obj(nvars + ids.locks[r.decor]))),
            Op::Fork => EventKind::Fork(ThreadId(u32::try_from(ids.threads[r.decor]).unwrap_or(u32::MAX))),
            Op::Join => EventKind::Join(ThreadId(u32::try_from(ids.threads[r.decor]).unwrap_or(u32::MAX))),
        };
        check.event(r, t, kind).map_err(|what| ReadError { line: r.line, what })?;
        let idx = EventIdx(u32::try_from(pos).map_err(|_| ReadError { line: r.line, what: "more than 2^32 events".into() })?);
        let line = u32::try_from(r.line).unwrap_or(u32::MAX);
        events.push(Event::plain(idx, t, line, kind));
    }
    Ok(ReadTrace { events, locs: raws.iter().map(|r| r.loc).collect(), threads: ids.names.0, variables: ids.names.1, locks: ids.names.2 })
}

fn parse_line(line: usize, l: &str) -> Result<Raw<'_>, ReadError> {
    let err = |what: String| ReadError { line, what };
    let fields: Vec<&str> = l.split('|').collect();
    let [thread, opd, loc] = fields[..] else {
        return Err(err(format!("expected `thread|op(decor)|loc` (3 fields separated by `|`), found {} field(s) in `{l}`", fields.len())));
    };
    check_name(thread).map_err(|w| err(format!("thread: {w}")))?;
    let (op, rest) = opd.split_once('(').ok_or_else(|| err(format!("expected `op(decor)`, found `{opd}`")))?;
    let decor = rest.strip_suffix(')').ok_or_else(|| err(format!("expected `op(decor)` ending in `)`, found `{opd}`")))?;
    let op = match op {
        "r" => Op::R,
        "w" => Op::W,
        "acq" => Op::Acq,
        "rel" => Op::Rel,
        "fork" => Op::Fork,
        "join" => Op::Join,
        "begin" | "end" => return Err(err(format!("`{op}` (a transaction boundary) is not supported: racefuzz's race definitions have no transactions"))),
        _ => return Err(err(format!("unknown op `{op}` (expected r, w, acq, rel, fork or join)"))),
    };
    check_name(decor).map_err(|w| err(format!("{}: {w}", op.as_str())))?;
    let loc = loc.parse().map_err(|_| err(format!("loc: expected a non-negative integer, found `{loc}`")))?;
    Ok(Raw { line, thread, op, decor, loc })
}

fn check_name(n: &str) -> Result<(), String> {
    match n.chars().find(|&c| c.is_whitespace() || c == '(' || c == ')') {
        _ if n.is_empty() => Err("empty name".into()),
        Some(c) => Err(format!("`{c}` in the name `{n}` (names have no white space or parentheses)")),
        None => Ok(()),
    }
}

/// Numbers by first appearance, per kind.
#[derive(Default)]
struct Ids<'a> {
    threads: HashMap<&'a str, usize>,
    variables: HashMap<&'a str, usize>,
    locks: HashMap<&'a str, usize>,
    names: (Vec<String>, Vec<String>, Vec<String>),
}

impl<'a> Ids<'a> {
    fn thread(&mut self, n: &'a str) {
        intern(&mut self.threads, &mut self.names.0, n);
    }
    fn variable(&mut self, n: &'a str) {
        intern(&mut self.variables, &mut self.names.1, n);
    }
    fn lock(&mut self, n: &'a str) {
        intern(&mut self.locks, &mut self.names.2, n);
    }
}

fn intern<'a>(map: &mut HashMap<&'a str, usize>, names: &mut Vec<String>, n: &'a str) {
    let next = map.len();
    if *map.entry(n).or_insert(next) == next {
        names.push(n.to_string());
    }
}

/// What an execution guarantees and the vector clocks rely on: a lock is held by one
/// thread at a time and released by its holder (a release sets the lock's clock to the
/// releaser's, right only if the releaser acquired after the last release); a child runs
/// after its fork and not after its join (both edges assume it).
#[derive(Default)]
struct Wellformed {
    /// Lock → (holder, depth).
    held: HashMap<LockId, (ThreadId, u32)>,
    /// Threads that have had an event or been forked: the line where.
    started: HashMap<ThreadId, usize>,
    /// Joined threads: the line of the join.
    joined: HashMap<ThreadId, usize>,
}

impl Wellformed {
    fn event(&mut self, r: &Raw<'_>, t: ThreadId, kind: EventKind) -> Result<(), String> {
        if let Some(j) = self.joined.get(&t) {
            return Err(format!("{} has an event after it was joined (line {j})", r.thread));
        }
        self.started.entry(t).or_insert(r.line);
        match kind {
            EventKind::Acquire(l) => match self.held.get_mut(&l) {
                Some((h, d)) if *h == t => *d += 1,
                Some(_) => return Err(format!("{} acquires {} while another thread holds it", r.thread, r.decor)),
                None => {
                    self.held.insert(l, (t, 1));
                }
            },
            EventKind::Release(l) => match self.held.get_mut(&l) {
                Some((h, d)) if *h == t => {
                    *d -= 1;
                    if *d == 0 {
                        self.held.remove(&l);
                    }
                }
                _ => return Err(format!("{} releases {}, which it does not hold", r.thread, r.decor)),
            },
            EventKind::Fork(u) | EventKind::Join(u) if u == t => return Err(format!("{} {}s itself", r.thread, r.op.as_str())),
            EventKind::Fork(u) => {
                if let Some(s) = self.started.insert(u, r.line) {
                    return Err(format!("{} forks {}, which already ran or was forked (line {s})", r.thread, r.decor));
                }
            }
            EventKind::Join(u) => {
                if let Some(j) = self.joined.insert(u, r.line) {
                    return Err(format!("{} joins {}, which was joined already (line {j})", r.thread, r.decor));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_names_and_numbers_by_first_appearance() {
        let text = "T1|fork(T0)|4\n\nT0|w(x)|9\nT1|acq(m)|5\nT1|acq(m)|5\nT1|rel(m)|7\nT1|rel(m)|7\nT1|join(T0)|8\nT1|r(x)|6\n";
        let t = read(text).unwrap();
        assert_eq!((t.threads.clone(), t.variables.clone(), t.locks.clone()), (vec!["T1".into(), "T0".into()], vec!["x".to_string()], vec!["m".to_string()]));
        assert_eq!(t.locs, [4, 9, 5, 5, 7, 7, 8, 6]);
        assert_eq!(t.events[1], Event::plain(EventIdx(1), ThreadId(1), 3, EventKind::Access(AccessKind::Write, Addr::Field(ObjId(0), FieldId(0)))));
        assert_eq!(t.events[2].kind, EventKind::Acquire(LockId::Obj(ObjId(1))), "locks come after the variables");
        // The join orders T0's write before T1's read: no race; without it, a race.
        let r = super::super::races_of(&t.events, &|i| t.loc(i), &|a| t.variable(a));
        assert_eq!(r, super::super::TraceRaces::default());
        let t = read(&text.replace("T1|join(T0)|8\n", "")).unwrap();
        let r = super::super::races_of(&t.events, &|i| t.loc(i), &|a| t.variable(a));
        let racy = super::super::RacyEvent { loc: 6, variable: "x".into(), partners: vec![9] };
        assert_eq!(r, super::super::TraceRaces { variables: vec!["x".into()], events: vec![racy.clone()], first_race: Some(racy) });
    }

    #[test]
    fn errors_name_the_line_and_what_is_wrong() {
        let cases: &[(&str, usize, &str)] = &[
            ("T0|w(V1)|1\nT0|w(V1)\n", 2, "3 fields"),
            ("T0|w(V1)|1|2\n", 1, "4 field(s)"),
            ("T0|wV1|1\n", 1, "expected `op(decor)`"),
            ("T0|w(V1|1\n", 1, "ending in `)`"),
            ("T0|x(V1)|1\n", 1, "unknown op `x`"),
            ("T0|r(V1)|1\nT0|begin(T0)|2\n", 2, "`begin` (a transaction boundary) is not supported"),
            ("T0|end(T0)|2\n", 1, "`end`"),
            ("T0|w()|1\n", 1, "w: empty name"),
            ("|w(V1)|1\n", 1, "thread: empty name"),
            ("T 0|w(V1)|1\n", 1, "thread: ` `"),
            ("T0|w(V(1))|1\n", 1, "`(` in the name"),
            ("T0|w(V1)|-1\n", 1, "loc: expected a non-negative integer, found `-1`"),
            ("T0|w(V1)| 1\n", 1, "found ` 1`"),
            ("T0|acq(L1)|1\nT1|acq(L1)|2\n", 2, "T1 acquires L1 while another thread holds it"),
            ("T0|rel(L1)|1\n", 1, "T0 releases L1, which it does not hold"),
            ("T0|acq(L1)|1\nT1|rel(L1)|2\n", 2, "which it does not hold"),
            ("T0|fork(T0)|1\n", 1, "T0 forks itself"),
            ("T1|w(V1)|1\nT0|fork(T1)|2\n", 2, "already ran or was forked (line 1)"),
            ("T0|join(T1)|1\nT1|w(V1)|2\n", 2, "T1 has an event after it was joined (line 1)"),
            ("T0|join(T1)|1\nT0|join(T1)|2\n", 2, "joined already (line 1)"),
        ];
        for (text, line, what) in cases {
            let e = read(text).expect_err(text);
            assert_eq!(e.line, *line, "{text}: {e}");
            assert!(e.to_string().starts_with(&format!("line {line}: ")) && e.what.contains(what), "{text}: {e}");
        }
        assert_eq!(read("").map(|t| t.events.len()), Ok(0));
    }
}
