//! Writing: racefuzz's traces (events with the [`Names`] of their execution) as STD lines,
//! through a [`NameTable`] built from every trace written with it.

use race_oracles::explore::Names;
use race_oracles::lang::AccessKind;
use race_oracles::machine::{Event, EventKind};

use super::{NameTable, Op};

/// Collects the names of every trace that will be written with one table.
#[derive(Clone, Debug, Default)]
pub struct NameTableBuilder {
    threads: std::collections::BTreeSet<String>,
    variables: std::collections::BTreeSet<String>,
    locks: std::collections::BTreeSet<String>,
}

impl NameTableBuilder {
    /// Adds the names `trace` uses (every thread of `names`, including those with no event
    /// STD writes).
    pub fn add(&mut self, trace: &[Event], names: &Names) {
        self.threads.extend(names.threads.iter().cloned());
        for e in trace {
            self.threads.insert(names.thread(e.thread));
            match e.kind {
                EventKind::Access(_, a) => {
                    self.variables.insert(names.addr(a));
                }
                EventKind::Acquire(l) | EventKind::Release(l) => {
                    self.locks.insert(names.lock(l));
                }
                EventKind::Fork(t) | EventKind::Join(t) => {
                    self.threads.insert(names.thread(t));
                }
                EventKind::Check(..) | EventKind::Enter(_) | EventKind::Exit(_) => {}
                // STD has no atomics: `racefuzz trace` refuses programs with them.
                EventKind::Atomic(..) | EventKind::Fence(_) => {}
            }
        }
    }

    /// The table.
    pub fn build(self) -> NameTable {
        NameTable::new(self.threads.into_iter().collect(), self.variables.into_iter().collect(), self.locks.into_iter().collect())
    }
}

/// A name the table does not know: the table was built from other traces (a caller's bug).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("racefuzz internal bug: the STD name table has no {what} `{name}` (was it built from every trace written with it?)")]
pub struct NotInTable {
    /// `thread`, `variable` or `lock`.
    pub what: &'static str,
    /// The racefuzz name.
    pub name: String,
}

/// One STD line and what it stands for: the unit of the JSON traces and of the `loc`
/// tables `racefuzz trace --out` writes.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EventDetail {
    /// The event's index plus one.
    pub loc: u64,
    /// STD thread (`T0`).
    pub thread: String,
    /// The op.
    pub op: Op,
    /// STD variable, lock or child thread (`V1`, `L1`, `T2`).
    pub decor: String,
    /// The source line of the statement that made it.
    pub line: u32,
    /// The thread's racefuzz name (`T1`).
    pub thread_name: String,
    /// The racefuzz name of what it touches (`p.x`, `m`, `T1.1`).
    pub on: String,
    /// The text of the source line (a line may hold several statements), if the source
    /// was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
}

/// The STD lines of `trace`, with what each stands for; `source` is the program's text, for
/// [`EventDetail::statement`]. Check and capsule events are left out (module docs).
///
/// # Errors
/// [`NotInTable`] when `table` was not built from this trace.
pub fn details(trace: &[Event], names: &Names, table: &NameTable, source: Option<&str>) -> Result<Vec<EventDetail>, NotInTable> {
    let missing = |what: &'static str, name: &str| NotInTable { what, name: name.to_string() };
    let thread = |n: &str| table.thread(n).ok_or_else(|| missing("thread", n));
    let lines: Vec<&str> = source.map(|s| s.lines().collect()).unwrap_or_default();
    let mut out = Vec::with_capacity(trace.len());
    for e in trace {
        let (op, on) = match e.kind {
            EventKind::Access(AccessKind::Read, a) => (Op::R, names.addr(a)),
            EventKind::Access(AccessKind::Write, a) => (Op::W, names.addr(a)),
            EventKind::Acquire(l) => (Op::Acq, names.lock(l)),
            EventKind::Release(l) => (Op::Rel, names.lock(l)),
            EventKind::Fork(t) => (Op::Fork, names.thread(t)),
            EventKind::Join(t) => (Op::Join, names.thread(t)),
            EventKind::Check(..) | EventKind::Enter(_) | EventKind::Exit(_) => continue,
            // STD has no atomics: `racefuzz trace` refuses programs with them.
            EventKind::Atomic(..) | EventKind::Fence(_) => continue,
        };
        let decor = match op {
            Op::R | Op::W => table.variable(&on).ok_or_else(|| missing("variable", &on))?,
            Op::Acq | Op::Rel => table.lock(&on).ok_or_else(|| missing("lock", &on))?,
            Op::Fork | Op::Join => thread(&on)?,
        };
        let thread_name = names.thread(e.thread);
        let statement = source.map(|_| e.line.checked_sub(1).and_then(|i| lines.get(i as usize)).map_or("", |l| l.trim()).to_string());
        out.push(EventDetail { loc: u64::from(e.idx.0) + 1, thread: thread(&thread_name)?, op, decor, line: e.line, thread_name, on, statement });
    }
    Ok(out)
}

/// `trace` as STD text: one `thread|op(decor)|loc` line per event, each ending in a newline.
///
/// # Errors
/// [`NotInTable`] when `table` was not built from this trace.
pub fn write(trace: &[Event], names: &Names, table: &NameTable) -> Result<String, NotInTable> {
    Ok(lines(&details(trace, names, table, None)?))
}

/// The STD text of lines already named.
pub fn lines(details: &[EventDetail]) -> String {
    details.iter().map(|d| format!("{}|{}({})|{}\n", d.thread, d.op.as_str(), d.decor, d.loc)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use race_oracles::machine::{Addr, EventIdx, FieldId, LockId, ObjId, ThreadId};

    fn ev(i: u32, t: u32, kind: EventKind) -> Event {
        Event::plain(EventIdx(i), ThreadId(t), 10 + i, kind)
    }

    /// Two executions of one program that number objects and threads differently: the
    /// table names them alike.
    #[test]
    fn names_are_stable_across_executions_and_checks_are_skipped() {
        let names = |objects: &[&str], threads: &[&str]| Names {
            objects: objects.iter().map(|s| s.to_string()).collect(),
            fields: vec!["f".into(), "g".into()],
            threads: threads.iter().map(|s| s.to_string()).collect(),
        };
        let a = names(&["m", "x@T1", "a"], &["T1", "T2", "T1.1"]);
        let b = names(&["m", "a", "x@T1"], &["T1", "T2", "T1.1"]);
        let w = |o| EventKind::Access(AccessKind::Write, Addr::Field(ObjId(o), FieldId(1)));
        let first = vec![
            ev(0, 0, EventKind::Acquire(LockId::Obj(ObjId(0)))),
            ev(1, 0, w(1)),
            ev(2, 0, EventKind::Check(AccessKind::Write, Addr::Field(ObjId(1), FieldId(1)))),
            ev(3, 0, EventKind::Release(LockId::Obj(ObjId(0)))),
            ev(4, 0, EventKind::Fork(ThreadId(2))),
            ev(5, 1, EventKind::Access(AccessKind::Read, Addr::Index(ObjId(2), 10))),
            ev(6, 1, EventKind::Acquire(LockId::Global)),
        ];
        let second = vec![ev(0, 1, EventKind::Access(AccessKind::Read, Addr::Index(ObjId(1), 2))), ev(1, 0, w(2))];
        let mut builder = NameTableBuilder::default();
        builder.add(&first, &a);
        builder.add(&second, &b);
        let table = builder.build();
        assert_eq!(table.sizes(), (3, 3, 2));
        // a[2] < a[10] < x@T1.g; locks: `lock` < `m`; threads T1 < T1.1 < T2.
        assert_eq!(write(&first, &a, &table).unwrap(), "T0|acq(L2)|1\nT0|w(V3)|2\nT0|rel(L2)|4\nT0|fork(T1)|5\nT2|r(V2)|6\nT2|acq(L1)|7\n");
        assert_eq!(write(&second, &b, &table).unwrap(), "T2|r(V1)|1\nT0|w(V3)|2\n");
        let d = details(&first, &a, &table, Some("l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n  l11  \n")).unwrap();
        assert_eq!((d[1].on.as_str(), d[1].thread_name.as_str(), d[1].line, d[1].statement.as_deref()), ("x@T1.g", "T1", 11, Some("l11")));
        assert_eq!(d[2].statement.as_deref(), Some(""), "line 13 is past the source's end");
        // Round trip, on `first` (race-free: each variable has one thread) and on `racy`,
        // where T2 writes x@T1.g under m after T0's unlocked write: a race.
        let racy = vec![ev(0, 0, w(1)), ev(1, 1, EventKind::Acquire(LockId::Obj(ObjId(0)))), ev(2, 1, w(1)), ev(3, 1, EventKind::Release(LockId::Obj(ObjId(0))))];
        for t in [&first, &racy] {
            let expected = super::super::races_of(t, &|i| u64::from(i) + 1, &|x| table.variable(&a.addr(x)).unwrap());
            let back = super::super::read(&write(t, &a, &table).unwrap()).unwrap();
            assert_eq!(super::super::races_of(&back.events, &|i| back.loc(i), &|x| back.variable(x)), expected);
        }
        let one = super::super::RacyEvent { loc: 3, variable: "V3".into(), partners: vec![1] };
        assert_eq!(super::super::races_of(&racy, &|i| u64::from(i) + 1, &|x| table.variable(&a.addr(x)).unwrap()).first_race, Some(one));
        let mut small = NameTableBuilder::default();
        small.add(&second, &b);
        assert_eq!(write(&first, &a, &small.build()), Err(NotInTable { what: "lock", name: "m".into() }));
    }
}
