//! Detector limits: the shapes of one trace where a detector with bounded state, or one
//! that takes a shortcut its documentation names, is put to the test. A generator aimed at
//! them (`gen::threads::swarm_limits`) is measured by which of these its programs' traces
//! reach (`racefuzz gen limits --stats`), since a form written in the program does not make
//! the shape happen on the traces a detector sees: the other thread's access must fall
//! before the crowd, the readers must overlap.
//!
//! Each shape is a plain predicate on the trace and its happens-before ([`Hb`]), stated in
//! the doc of its [`Limit`].

use std::collections::{BTreeMap, BTreeSet};

use super::hb::{data_races, Hb, Race};
use crate::machine::{Event, EventKind, ThreadId};

/// How many accesses of a location by other threads a bounded history keeps before it
/// loses one: ThreadSanitizer's 4 shadow cells per 8 bytes (`kShadowCnt`).
pub const SHADOW_CELLS: usize = 4;

/// A shape of a trace that a documented limit of a detector is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Limit {
    /// A race whose two accesses have at least [`SHADOW_CELLS`] accesses of the location by
    /// threads other than the earlier access's between them: a bounded history can have
    /// dropped the earlier one ([`between`]).
    RaceBehindHistory,
    /// A location accessed by more than [`SHADOW_CELLS`] threads in the trace.
    CrowdedLocation,
    /// A location read by at least three threads whose reads are pairwise unordered (a read
    /// set no single epoch holds: FastTrack's read-shared state).
    ConcurrentReaders,
    /// A write racing with reads of at least two threads.
    WriteAfterSharedReads,
    /// A thread forked by a thread that was itself forked, which accesses a location.
    ForkChain,
    /// A join of a thread that itself joined a thread that accessed a location:
    /// happens-before carried through two joins.
    JoinChain,
    /// A thread that accesses a location, forked after another thread that accessed it was
    /// joined (its slot free for reuse).
    ReuseAfterJoin,
}

impl Limit {
    /// Every shape, in report order.
    pub const ALL: [Limit; 7] =
        [Limit::RaceBehindHistory, Limit::CrowdedLocation, Limit::ConcurrentReaders, Limit::WriteAfterSharedReads, Limit::ForkChain, Limit::JoinChain, Limit::ReuseAfterJoin];

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Limit::RaceBehindHistory => "race behind 4 accesses",
            Limit::CrowdedLocation => "location of 5+ threads",
            Limit::ConcurrentReaders => "3+ concurrent readers",
            Limit::WriteAfterSharedReads => "write racing 2+ readers",
            Limit::ForkChain => "fork chain",
            Limit::JoinChain => "join chain",
            Limit::ReuseAfterJoin => "reuse after join",
        }
    }

    /// The limit it is about, and where the tool documents it.
    pub fn why(self) -> &'static str {
        match self {
            Limit::RaceBehindHistory | Limit::CrowdedLocation => "ThreadSanitizer's 4 shadow cells per 8 bytes (ThreadSanitizerAlgorithm, \"Shadow State\")",
            Limit::ConcurrentReaders | Limit::WriteAfterSharedReads => "a read set no single epoch holds (FastTrack's read-shared state; TSan's cells)",
            Limit::ForkChain | Limit::JoinChain => "happens-before carried through threads that fork or join others",
            Limit::ReuseAfterJoin => "thread slots reused after a join (TSan's thread registry; Helgrind's thread segments)",
        }
    }
}

/// How many accesses of `r`'s location by threads other than its earlier access's lie
/// between its two accesses.
pub fn between(trace: &[Event], r: &Race) -> usize {
    let first = &trace[r.first.0 as usize];
    trace[r.first.0 as usize + 1..r.second.0 as usize].iter().filter(|e| e.thread != first.thread && e.mem_access().is_some_and(|a| a.addr == r.addr)).count()
}

/// The shapes `trace` has.
pub fn limits(trace: &[Event]) -> BTreeSet<Limit> {
    let mut out = BTreeSet::new();
    let races = data_races(trace);
    if races.iter().any(|r| between(trace, r) >= SHADOW_CELLS) {
        out.insert(Limit::RaceBehindHistory);
    }
    let mut threads: BTreeMap<_, BTreeSet<ThreadId>> = BTreeMap::new();
    let mut reads: BTreeMap<_, Vec<usize>> = BTreeMap::new();
    for (i, e) in trace.iter().enumerate() {
        if let Some(a) = e.mem_access() {
            threads.entry(a.addr).or_default().insert(e.thread);
            if !a.write {
                reads.entry(a.addr).or_default().push(i);
            }
        }
    }
    if threads.values().any(|ts| ts.len() > SHADOW_CELLS) {
        out.insert(Limit::CrowdedLocation);
    }
    let hb = Hb::new(trace);
    let unordered = |i: usize, j: usize| trace[i].thread != trace[j].thread && !hb.ordered(i.min(j), i.max(j));
    if reads.values().any(|rs| {
        rs.iter().enumerate().any(|(x, &i)| rs[x + 1..].iter().enumerate().any(|(y, &j)| unordered(i, j) && rs[x + 2 + y..].iter().any(|&k| unordered(i, k) && unordered(j, k))))
    }) {
        out.insert(Limit::ConcurrentReaders);
    }
    let mut read_racers: BTreeMap<usize, BTreeSet<ThreadId>> = BTreeMap::new();
    for r in &races {
        let (i, j) = (r.first.0 as usize, r.second.0 as usize);
        for (w, other) in [(i, j), (j, i)] {
            if trace[w].mem_access().is_some_and(|a| a.write) && trace[other].mem_access().is_some_and(|a| !a.write) {
                read_racers.entry(w).or_default().insert(trace[other].thread);
            }
        }
    }
    if read_racers.values().any(|ts| ts.len() >= 2) {
        out.insert(Limit::WriteAfterSharedReads);
    }
    out.extend(fork_join_shapes(trace));
    out
}

/// The fork chain, join chain and reuse-after-join shapes.
fn fork_join_shapes(trace: &[Event]) -> BTreeSet<Limit> {
    let mut out = BTreeSet::new();
    let mut parent: BTreeMap<ThreadId, ThreadId> = BTreeMap::new();
    let mut joined_by: BTreeMap<ThreadId, Vec<ThreadId>> = BTreeMap::new();
    let mut accessed: BTreeMap<ThreadId, BTreeSet<_>> = BTreeMap::new();
    // Locations of threads joined so far: a thread forked after that accesses one of them
    // reuses it.
    let mut freed = BTreeSet::new();
    let mut born_after: BTreeMap<ThreadId, BTreeSet<_>> = BTreeMap::new();
    for e in trace {
        match e.kind {
            EventKind::Fork(c) => {
                parent.insert(c, e.thread);
                born_after.insert(c, freed.clone());
            }
            EventKind::Join(c) => {
                freed.extend(accessed.get(&c).into_iter().flatten().copied());
                let inner: Vec<ThreadId> = joined_by.get(&c).cloned().unwrap_or_default();
                let chained = inner.iter().any(|g| accessed.get(g).is_some_and(|locs| !locs.is_empty()));
                if chained {
                    out.insert(Limit::JoinChain);
                }
                joined_by.entry(e.thread).or_default().push(c);
            }
            _ => {}
        }
        if let Some(a) = e.mem_access() {
            accessed.entry(e.thread).or_default().insert(a.addr);
            if parent.get(&e.thread).is_some_and(|p| parent.contains_key(p)) {
                out.insert(Limit::ForkChain);
            }
            if born_after.get(&e.thread).is_some_and(|f| f.contains(&a.addr)) {
                out.insert(Limit::ReuseAfterJoin);
            }
        }
    }
    out
}
