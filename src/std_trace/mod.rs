//! Traces in the STD text format, for race detectors outside racefuzz.
//!
//! STD is the trace format of RAPID, the race-prediction tool of Mathur, Kini and
//! Viswanathan (<https://github.com/umangm/rapid>), which the research implementations of
//! HB, FastTrack-style epochs, SHB, WCP, SyncP and LockSet detectors read: one event per
//! line, `thread|op(decor)|loc`, e.g. `T0|w(V12)|4`; no header, no values. racefuzz writes
//! the traces of its explorations in it ([`write()`]) and reads them back strictly ([`read`]),
//! so that a trace from another tool can be judged by the ground truth's race definition
//! ([`races_of`], through `race_oracles::race`).
//!
//! # The format racefuzz writes
//! - **thread**: `T0`, `T1`, …: the rank of the thread's racefuzz name (`T1`, `T1.1`, `T2`)
//!   among every thread of the [`NameTable`], in natural order (so `T1` is `T0`).
//! - **op** and **decor**: `r(V)` and `w(V)` read and write variable `V`; `acq(L)` and
//!   `rel(L)` acquire and release lock `L`; `fork(T)` and `join(T)` name the child thread.
//!   Variables are `V1`, `V2`, …, the rank of the address's name (`p.x`, `a[2]`,
//!   `r1@T1.f`) in natural order; locks `L1`, `L2`, …, likewise (the lock object's name, or
//!   `lock` for RacerDX's global lock). Reentrant acquires and releases are written as they
//!   happen, one line each.
//! - **loc**: the event's index in racefuzz's trace plus one, so that a reported `loc` names
//!   exactly one event. Events STD has no form for are left out and their numbers skipped:
//!   BigFoot's `check` and CapJava's capsule `enter`/`exit`. Neither adds a
//!   happens-before edge (docs/spec/bigfoot.md §1.2, docs/spec/escape_capsule.md §1.2), so
//!   the trace without them has the same races.
//!
//! Names are stable across the traces of one [`NameTable`]: it is built from every trace
//! that will be written with it ([`NameTableBuilder`]), and numbers by name, never by first
//! appearance, so `V3` is the same address in every trace written with one table. Tables
//! built from different sets of traces may number differently; compare their traces by
//! name (the table's JSON, [`NameTable::json`]).
//!
//! # The format racefuzz reads
//! The same grammar, with any names: a name is a non-empty run of characters other than
//! `|`, `(`, `)` and white space. `loc` is a non-negative integer (any number: other tools
//! write source locations, not indices). Empty lines are skipped. Everything else is an
//! error naming the line ([`ReadError`]): a missing field, an unknown op, `begin`/`end`
//! (RAPID's transaction markers, for atomicity checkers: racefuzz has no transactions),
//! and traces no execution could produce, whose happens-before the vector clocks of
//! `race_oracles::clock` would get wrong: a lock acquired while another thread holds it or
//! released by a thread that does not hold it, a thread forked after it has run or joined
//! before it has stopped, a thread forking or joining itself.

use std::cmp::Ordering;

use race_oracles::machine::{Addr, Event};
use race_oracles::race::{data_races, first_race};

mod read;
mod write;

pub use read::{read, ReadError, ReadTrace};
pub use write::{details, lines, write, EventDetail, NameTableBuilder, NotInTable};

/// An STD operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// `r(V)`
    R,
    /// `w(V)`
    W,
    /// `acq(L)`
    Acq,
    /// `rel(L)`
    Rel,
    /// `fork(T)`
    Fork,
    /// `join(T)`
    Join,
}

impl Op {
    /// The op as STD writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Op::R => "r",
            Op::W => "w",
            Op::Acq => "acq",
            Op::Rel => "rel",
            Op::Fork => "fork",
            Op::Join => "join",
        }
    }
}

/// The STD names of one program's threads, variables and locks: `T{k}` is `threads[k]`,
/// `V{i}` is `variables[i - 1]`, `L{i}` is `locks[i - 1]`.
///
/// Invariant: each list is sorted in natural order ([`natural_cmp`]) without duplicates,
/// so a name's number depends only on the set of names, never on a trace's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameTable {
    threads: Vec<String>,
    variables: Vec<String>,
    locks: Vec<String>,
}

impl NameTable {
    /// The table of these names (sorted and deduplicated here).
    pub fn new(threads: Vec<String>, variables: Vec<String>, locks: Vec<String>) -> NameTable {
        let sorted = |mut v: Vec<String>| {
            v.sort_by(|a, b| natural_cmp(a, b));
            v.dedup();
            v
        };
        NameTable { threads: sorted(threads), variables: sorted(variables), locks: sorted(locks) }
    }

    /// The STD name of the thread racefuzz calls `name` (`T1` → `T0`).
    pub fn thread(&self, name: &str) -> Option<String> {
        rank(&self.threads, name).map(|k| format!("T{k}"))
    }

    /// The STD name of the address racefuzz calls `name` (`p.x` → `V2`).
    pub fn variable(&self, name: &str) -> Option<String> {
        rank(&self.variables, name).map(|i| format!("V{}", i + 1))
    }

    /// The STD name of the lock racefuzz calls `name` (`m` → `L1`).
    pub fn lock(&self, name: &str) -> Option<String> {
        rank(&self.locks, name).map(|i| format!("L{}", i + 1))
    }

    /// The racefuzz name of an STD variable (`V2` → `p.x`).
    pub fn variable_name(&self, std: &str) -> Option<&str> {
        let i: usize = std.strip_prefix('V')?.parse().ok()?;
        self.variables.get(i.checked_sub(1)?).map(String::as_str)
    }

    /// How many threads, variables and locks the table names.
    pub fn sizes(&self) -> (usize, usize, usize) {
        (self.threads.len(), self.variables.len(), self.locks.len())
    }

    /// The table as JSON: `{"threads": [{"std": "T0", "name": "T1"}, …], "variables": …,
    /// "locks": …}` (docs/json/trace.schema.json, `names`).
    pub fn json(&self) -> serde_json::Value {
        let entries = |v: &[String], std: &dyn Fn(usize) -> String| v.iter().enumerate().map(|(i, n)| serde_json::json!({ "std": std(i), "name": n })).collect::<Vec<_>>();
        serde_json::json!({
            "threads": entries(&self.threads, &|k| format!("T{k}")),
            "variables": entries(&self.variables, &|i| format!("V{}", i + 1)),
            "locks": entries(&self.locks, &|i| format!("L{}", i + 1)),
        })
    }

    /// Reads the JSON of [`NameTable::json`] back.
    ///
    /// # Errors
    /// [`BadNames`]: the first entry that is missing, out of order or misnumbered.
    pub fn from_json(v: &serde_json::Value) -> Result<NameTable, BadNames> {
        let list = |key: &'static str, std: &dyn Fn(usize) -> String| -> Result<Vec<String>, BadNames> {
            let items = v.get(key).and_then(serde_json::Value::as_array).ok_or(BadNames::NoList(key))?;
            items
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let (s, n) = (e.get("std").and_then(serde_json::Value::as_str), e.get("name").and_then(serde_json::Value::as_str));
                    match (s, n) {
                        (Some(s), Some(n)) if s == std(i) => Ok(n.to_string()),
                        _ => Err(BadNames::Entry { key, n: i + 1, std: std(i) }),
                    }
                })
                .collect()
        };
        let t = NameTable::new(list("threads", &|k| format!("T{k}"))?, list("variables", &|i| format!("V{}", i + 1))?, list("locks", &|i| format!("L{}", i + 1))?);
        let back = t.json();
        if ["threads", "variables", "locks"].iter().any(|k| back.get(k) != v.get(k)) {
            return Err(BadNames::Order);
        }
        Ok(t)
    }
}

/// A `names.json` that is not one racefuzz writes ([`NameTable::json`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadNames {
    /// A list is missing.
    #[error("no `{0}` list")]
    NoList(&'static str),
    /// An entry is not `{"std": …, "name": …}` with the expected STD name.
    #[error("`{key}` entry {n}: expected {{\"std\": \"{std}\", \"name\": …}}")]
    Entry {
        /// The list.
        key: &'static str,
        /// The entry (1-based).
        n: usize,
        /// The STD name it should have.
        std: String,
    },
    /// The names are out of order or repeated.
    #[error("the names are not in natural order without duplicates, as racefuzz writes them")]
    Order,
}

fn rank(sorted: &[String], name: &str) -> Option<usize> {
    sorted.binary_search_by(|probe| natural_cmp(probe, name)).ok()
}

/// Natural order: runs of digits compare as numbers (`a[2]` < `a[10]`, `T2` < `T10`), the
/// rest as text; names equal that way compare as plain strings, so the order is total.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    chunks(a).cmp(chunks(b)).then_with(|| a.cmp(b))
}

/// A name cut into runs of digits (as numbers: length without leading zeros, then digits)
/// and runs of other characters.
fn chunks(s: &str) -> impl Iterator<Item = (u8, usize, &str)> + '_ {
    let mut rest = s;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let digits = first.is_ascii_digit();
        let end = rest.find(|c: char| c.is_ascii_digit() != digits).unwrap_or(rest.len());
        let (run, tail) = rest.split_at(end);
        rest = tail;
        Some(if digits {
            let n = run.trim_start_matches('0');
            (0, n.len(), n)
        } else {
            (1, 0, run)
        })
    })
}

/// An access that completes a happens-before race with earlier accesses: the unit of the
/// "racy events" claim (`loc`s as the trace numbers them).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RacyEvent {
    /// The access's `loc`.
    pub loc: u64,
    /// The variable (STD name).
    pub variable: String,
    /// Every earlier access it races with, ascending.
    pub partners: Vec<u64>,
}

/// The happens-before races of one trace, as the ground truth defines them
/// (`race_oracles::race::data_races`, docs/spec/escape_capsule.md §1.3, §1.5), by STD names.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TraceRaces {
    /// The racy variables (some race on them), in natural order.
    pub variables: Vec<String>,
    /// Every access that completes a race with an earlier one, in trace order.
    pub events: Vec<RacyEvent>,
    /// The first race: the racy event with the smallest position (`j*`) and its partners.
    pub first_race: Option<RacyEvent>,
}

/// The races of `trace`. `loc` gives an event's `loc` from its [`Event::idx`]; `variable` an
/// address's STD name.
pub fn races_of(trace: &[Event], loc: &dyn Fn(u32) -> u64, variable: &dyn Fn(Addr) -> String) -> TraceRaces {
    let races = data_races(trace);
    let mut events: Vec<RacyEvent> = vec![];
    // `data_races` is sorted by (second, first): one racy event per run of equal seconds.
    for r in &races {
        match events.last_mut() {
            Some(e) if e.loc == loc(r.second.0) => e.partners.push(loc(r.first.0)),
            _ => events.push(RacyEvent { loc: loc(r.second.0), variable: variable(r.addr), partners: vec![loc(r.first.0)] }),
        }
    }
    for e in &mut events {
        e.partners.sort_unstable();
        e.partners.dedup();
    }
    let mut variables: Vec<String> = races.iter().map(|r| variable(r.addr)).collect();
    variables.sort_by(|a, b| natural_cmp(a, b));
    variables.dedup();
    let first_race = first_race(&races).map(|f| {
        let mut partners: Vec<u64> = f.partners.iter().map(|p| loc(p.0)).collect();
        partners.sort_unstable();
        RacyEvent { loc: loc(f.second.0), variable: variable(f.addr), partners }
    });
    TraceRaces { variables, events, first_race }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order_reads_numbers_as_numbers() {
        let mut v = vec!["a[10]", "a[2]", "T10", "T2", "T1.1", "T1", "b.f", "a[02]"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["T1", "T1.1", "T2", "T10", "a[02]", "a[2]", "a[10]", "b.f"]);
    }

    #[test]
    fn table_numbers_by_name_and_round_trips_through_json() {
        let t = NameTable::new(vec!["T2".into(), "T1".into(), "T1.1".into()], vec!["p.y".into(), "p.x".into(), "p.x".into()], vec!["lock".into(), "m".into()]);
        assert_eq!((t.thread("T1").as_deref(), t.thread("T1.1").as_deref(), t.thread("T2").as_deref()), (Some("T0"), Some("T1"), Some("T2")));
        assert_eq!((t.variable("p.x").as_deref(), t.variable("p.y").as_deref(), t.variable("q.x")), (Some("V1"), Some("V2"), None));
        assert_eq!(t.lock("m").as_deref(), Some("L2"));
        assert_eq!(t.variable_name("V2"), Some("p.y"));
        assert_eq!((t.variable_name("V0"), t.variable_name("V3"), t.variable_name("L1")), (None, None, None));
        assert_eq!(NameTable::from_json(&t.json()), Ok(t.clone()));
        let mut j = t.json();
        j["variables"][0]["std"] = "V2".into();
        assert!(NameTable::from_json(&j).unwrap_err().to_string().contains("`variables` entry 1"));
        let mut j = t.json();
        j["locks"] = serde_json::json!([{"std": "L1", "name": "m"}, {"std": "L2", "name": "lock"}]);
        assert!(NameTable::from_json(&j).unwrap_err().to_string().contains("natural order"));
    }
}
