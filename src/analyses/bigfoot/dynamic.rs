//! DynamicBF, BigFoot's run-time checker (docs/spec/bigfoot.md §7, reference pseudo-code §7.2):
//! FastTrack's operations (§1.6) run on the `check` events of a placed program, with static
//! field compression through shadow proxies (§5.2) and dynamic array compression with
//! per-thread footprints (§5.3, §5.3.1). It runs on checks only: heap accesses are ignored.
//!
//! One concept, DynamicBF's run-time checker (over 600 lines: its operations, the two
//! compressions and their unit tests).
//!
//! - **Clocks**: FastTrack's thread and lock vector clocks and its READ/WRITE rules, reused
//!   from [`crate::analyses::fasttrack`] (one copy of the rules).
//! - **Fields** (§7.1): one shadow per (object, proxy group). A field check runs READ or
//!   WRITE on its group's shadow at once. Proxy groups come from every check item of the
//!   program ([`DynamicBfFactory::for_program`]): "x proxies y" iff every check item that
//!   contains y with kind κ also contains x with kind ≥ κ (§5.2 \[C\], A19); groups are the
//!   symmetric classes. BFJ is untyped, so the relation is computed per field *name* over
//!   all items of all classes and bases (coarser than per class, never unsound: a field
//!   that is checked alone anywhere stays a singleton). Within one item every field has
//!   the item's kind, so for items the relation is "every item with y also has x".
//!   **Invariant** of a symmetric group: every item that contains one member contains all
//!   of them, with the same kind, so the check events of its members are identical but
//!   for the field; only the representative's event performs the group's one shadow
//!   operation and the others are skipped. A race on a group's shadow is reported on
//!   every field of the group of that object (exact, §5.2 \[D\]: check races on the members
//!   coincide).
//! - **Arrays** (§5.3): an array check only adds its index to the thread's footprint for
//!   the array (index → kind, W dominates R). A thread's footprints are committed just
//!   *before* its next synchronization event (acquire, release, fork, join; §7.1, moving a
//!   check later within its synchronization-free span is exact), and whatever is still
//!   pending at the end of the trace is committed by [`DynamicDetector::finish`]. A race
//!   found at a commit is reported on the synchronization event (or at the end) and names
//!   the indices of the group whose operation found it.
//! - **Array compression** (§5.3.1): per array, a partition of its indices into groups with
//!   one shadow each. The detector does not know array lengths, so the partition is a set
//!   of explicit groups plus the implicit *remainder*, every index not yet split off
//!   (initially all of them: the coarse representation). A commit of footprint F refines
//!   the partition until every group is disjoint from F or inside F with one kind,
//!   *copying* the parent's shadow into each part, then performs one FastTrack operation
//!   per group inside F. So after `a[0..n]`, `a[0..n/2]` and `a[1]`, the groups are the
//!   whole, then two halves, then single elements. Groups are never merged back (the
//!   fine-grained fallback is the limit). **Exactness invariant**: every index of a group
//!   has had the same sequence of shadow operations (the remainder none at all), so each
//!   per-element FastTrack state would be the group's, and the set of racy indices is
//!   the fine-grained one.
//! - **Check ratio** (§7.2): [`DynamicDetector::shadow_operations`] counts one per field
//!   group operation and one per array group operation at commit.
//!
//! Seeded bugs ([`DynamicBfBug`]) are the DynamicBF rows of spec §9.4.
//!
//! Independence from the ground truth (docs/design.md): the clocks are FastTrack's own.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use race_oracles::lang::{walk_block, AccessKind, CheckTarget, Program, StmtKind};
use race_oracles::machine::{Addr, Event, EventIdx, EventKind, FieldId, ObjId, ThreadId};
use race_oracles::rule_cases;
use race_oracles::theorems::rules::fire;
use race_oracles::theorems::{DetectorFactory, DetectorReport, DynamicDetector, Reported};

use crate::analyses::fasttrack::{Clocks, Race, Shadow};

rule_cases! {
    /// The run-time cases of DynamicBF (docs/spec/bigfoot.md §7, with the field proxies of §5.2
    /// and the array footprints and compression of §5.3): how a check reaches a shadow,
    /// when a footprint is committed, how the partition is refined, and each race it
    /// reports by location kind and FastTrack race kind. FastTrack's own rule cases are
    /// counted in its table (`FtRule`).
    pub enum DynamicBfRule in DYNAMIC_BF_RULES = "DynamicBF", "bigfoot.md §7" {
        /// A field in no proxy group: READ/WRITE on its own shadow.
        FieldOwn => "field check on its own shadow", "§7.1 Fields";
        /// The representative of a proxy group: one operation for the group.
        FieldProxyRep => "field check on a proxy group's shadow (representative)", "§5.2, §7.2";
        /// A member its representative proxies: no operation of its own.
        FieldProxySkipped => "field check skipped: its proxy operates", "§5.2, §7.2";
        /// A symmetric proxy group of two or more fields is formed.
        ProxyGroup => "proxy group formed (symmetric proxies)", "§5.2";
        /// `x` proxies `y` but not back: kept in separate groups.
        ProxyOneWay => "one-way proxy kept apart", "§5.2 footnote 2";
        /// An array check only adds to the thread's footprint.
        ArrayFootprint => "array check added to the footprint", "§5.3, §7.1 Arrays";
        /// A footprint holds a read and a write of one index: the write dominates.
        FootprintDominates => "footprint: W dominates R on one index", "§5.3.1";
        /// A footprint committed just before an acquire.
        CommitAcq => "footprint committed before an acquire", "§7.1, §7.2";
        /// A footprint committed just before a release.
        CommitRel => "footprint committed before a release", "§7.1, §7.2";
        /// A footprint still pending at the end of the trace is committed.
        CommitEnd => "footprint committed at the end of the trace", "§7.1 [C]";
        /// Footprint indices split off the coarse remainder.
        RefineFresh => "partition: indices split off the coarse remainder", "§5.3.1";
        /// An explicit group split, each part with a copy of its shadow.
        RefineSplit => "partition: group split, shadow copied", "§5.3.1 Refinement";
        /// One operation for a group of several indices.
        GroupCompressed => "array operation on a group of several indices", "§5.3 Adaptive representation";
        /// One operation for a one-index group.
        GroupSingle => "array operation on a one-index group", "§5.3";
        /// A field (group) race, write after write.
        FieldRaceWW => "field race write-write", "§7.2, §1.6 WRITE";
        /// A field (group) race, read after write.
        FieldRaceWR => "field race write-read", "§7.2, §1.6 READ";
        /// A field (group) race, write after read.
        FieldRaceRW => "field race read-write", "§7.2, §1.6 WRITE";
        /// A race on a proxy group's shadow, reported on every member.
        ProxyRace => "race on a proxy group, reported on its members", "§5.2 [D]";
        /// An array race found at a commit, write after write.
        ArrayRaceWW => "array race write-write at a commit", "§7.2, §1.6 WRITE";
        /// An array race found at a commit, read after write.
        ArrayRaceWR => "array race write-read at a commit", "§7.2, §1.6 READ";
        /// An array race found at a commit, write after read.
        ArrayRaceRW => "array race read-write at a commit", "§7.2, §1.6 WRITE";
        /// A race on a group of several indices, reported on each of them.
        CompressedRace => "race on a compressed array group", "§5.3.1 [D]";
        /// An array race found by the commit before a synchronization event.
        RaceAtSyncCommit => "array race found committing before a sync", "§7.1 [D]";
        /// An array race found by the commit at the end of the trace.
        RaceAtEndCommit => "array race found committing at the end", "§7.1 [C]";
    }
}

/// Seeded bugs of DynamicBF, each a mistake of docs/spec/bigfoot.md §9.4 with its predicted
/// symptom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DynamicBfBug {
    /// A thread's footprints are committed *after* its synchronization event's clock
    /// update instead of before: missed races after an acquire (the commit sees the
    /// acquired clock), false alarms after a release (the commit uses the ticked clock,
    /// which the released lock clock does not cover).
    FootprintCommittedAfterSync,
    /// Proxy groups are the classes of the one-way proxy relation (x proxies y puts them
    /// in one group) instead of its symmetric part: a race on x is also reported on y,
    /// which did not race (address precision lost, spec §5.2 footnote 2): a false alarm.
    AsymmetricProxy,
    /// Refinement gives a group split off an existing group an empty shadow instead of a
    /// copy of the parent's (spec §5.3.1): earlier operations are forgotten, a missed race.
    RefineWithoutCopy,
    /// Footprints still pending at the end of the trace are dropped instead of committed
    /// (no commit at thread exit, spec §7.1 \[C\]): a missed race.
    NoCommitAtEnd,
    /// A race on a compressed index group (several indices, one shadow) is reported on the
    /// group's first index only instead of on each member (spec §5.3.1 \[D\]): the other
    /// racy indices are missed.
    GroupRaceOnFirstIndex,
}

/// Makes DynamicBF detectors. [`DetectorFactory::for_program`] computes the program's field
/// proxy groups once; [`DetectorFactory::fresh`] on this factory itself knows no program
/// and gives every field its own shadow (no field compression).
#[derive(Clone, Copy, Debug, Default)]
pub struct DynamicBfFactory {
    /// The seeded bug.
    pub bug: Option<DynamicBfBug>,
}

impl DetectorFactory for DynamicBfFactory {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        Box::new(DynamicBf::new(self.bug, Rc::new(Proxies::default())))
    }

    fn for_program(&self, p: &Program) -> Box<dyn DetectorFactory + '_> {
        Box::new(ProgramFactory { bug: self.bug, proxies: Rc::new(Proxies::of(p, self.bug == Some(DynamicBfBug::AsymmetricProxy))) })
    }
}

/// [`DynamicBfFactory`] for one program: its proxy groups, shared by every fresh detector.
struct ProgramFactory {
    bug: Option<DynamicBfBug>,
    proxies: Rc<Proxies>,
}

impl DetectorFactory for ProgramFactory {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        Box::new(DynamicBf::new(self.bug, Rc::clone(&self.proxies)))
    }

    fn for_program(&self, p: &Program) -> Box<dyn DetectorFactory + '_> {
        Box::new(ProgramFactory { bug: self.bug, proxies: Rc::new(Proxies::of(p, self.bug == Some(DynamicBfBug::AsymmetricProxy))) })
    }
}

/// The field proxy groups of a program (spec §5.2), by interned field id (the position in
/// [`Program::field_names`] of the same program, which is how the machine interns them, so
/// ids match the events').
#[derive(Clone, Debug, Default)]
struct Proxies {
    /// Each grouped field's group: its representative, whether its own check events are
    /// skipped (the representative's event of the same item does the operation), and the
    /// members. A field not here is a group of its own.
    of: HashMap<FieldId, (FieldId, bool, Rc<[FieldId]>)>,
    /// The names of the checked fields by id, for explanations.
    names: HashMap<FieldId, String>,
}

/// `R < W`: the order of kinds in "x proxies y".
fn rank(k: AccessKind) -> u8 {
    match k {
        AccessKind::Read => 0,
        AccessKind::Write => 1,
    }
}

impl Proxies {
    /// The proxy groups of `p`'s check items in its threads and methods: the symmetric
    /// classes of "x proxies y", or with `asymmetric` (the seeded bug) the classes of the
    /// one-way relation's undirected closure. A group's representative is the member that
    /// proxies the most members (the smallest id among ties); a member's events are
    /// skipped exactly when the representative proxies it, so that every item containing
    /// the member has the representative, which performs the operation. In a symmetric
    /// group that is every member but the representative.
    fn of(p: &Program, asymmetric: bool) -> Proxies {
        let table = p.field_names();
        let field = |name: &str| table.iter().position(|f| f == name).and_then(|i| u16::try_from(i).ok()).map(FieldId);
        let mut items: Vec<BTreeMap<FieldId, u8>> = vec![];
        let mut names = HashMap::new();
        for b in p.threads.iter().chain(p.all_methods().map(|(_, m)| &m.body)) {
            walk_block(b, &mut |s| {
                if let StmtKind::Check(cs) = &s.kind {
                    for c in cs {
                        if let CheckTarget::Fields { fields, .. } = &c.target {
                            let mut item = BTreeMap::new();
                            for name in fields {
                                if let Some(f) = field(name) {
                                    item.insert(f, rank(c.kind));
                                    names.insert(f, name.clone());
                                }
                            }
                            items.push(item);
                        }
                    }
                }
            });
        }
        let fields: BTreeSet<FieldId> = items.iter().flat_map(|i| i.keys().copied()).collect();
        let fields: Vec<FieldId> = fields.into_iter().collect();
        // x proxies y: every item with y (kind κ) has x with kind ≥ κ.
        let proxies = |x: FieldId, y: FieldId| items.iter().all(|i| i.get(&y).is_none_or(|&k| i.get(&x).is_some_and(|&kx| kx >= k)));
        // Classes by union-find over the chosen relation.
        let mut parent: Vec<usize> = (0..fields.len()).collect();
        fn root(parent: &mut [usize], i: usize) -> usize {
            let mut r = i;
            while parent[r] != r {
                r = parent[r];
            }
            parent[i] = r;
            r
        }
        for (i, &x) in fields.iter().enumerate() {
            for (j, &y) in fields.iter().enumerate().skip(i + 1) {
                let (xy, yx) = (proxies(x, y), proxies(y, x));
                if xy != yx {
                    fire(DynamicBfRule::ProxyOneWay);
                }
                let joined = if asymmetric { xy || yx } else { xy && yx };
                if joined {
                    let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
        let mut classes: BTreeMap<usize, Vec<FieldId>> = BTreeMap::new();
        for (i, &f) in fields.iter().enumerate() {
            let r = root(&mut parent, i);
            classes.entry(r).or_default().push(f);
        }
        let mut of = HashMap::new();
        for members in classes.into_values().filter(|c| c.len() > 1) {
            fire(DynamicBfRule::ProxyGroup);
            // `max_by_key` keeps the last maximum: iterate in reverse for the smallest id.
            let rep = members.iter().rev().copied().max_by_key(|&x| members.iter().filter(|&&y| proxies(x, y)).count()).unwrap_or(members[0]);
            let shared: Rc<[FieldId]> = members.clone().into();
            for &f in &members {
                of.insert(f, (rep, f != rep && proxies(rep, f), Rc::clone(&shared)));
            }
        }
        Proxies { of, names }
    }

    fn name(&self, f: FieldId) -> String {
        self.names.get(&f).cloned().unwrap_or_else(|| format!("#{}", f.0))
    }
}

/// One pending array check in a thread's footprint.
#[derive(Clone, Copy, Debug)]
struct Pending {
    array: ObjId,
    index: i64,
    kind: AccessKind,
    event: EventIdx,
}

/// One group of an array's partition: its indices and their one shadow.
#[derive(Clone, Debug)]
struct Group {
    members: BTreeSet<i64>,
    shadow: Shadow,
}

/// An array's partition (see the module docs): explicit groups, and the implicit
/// remainder (every index in no explicit group), which has had no operation, so its
/// shadow is the initial one.
#[derive(Clone, Debug, Default)]
struct Partition {
    groups: Vec<Group>,
    /// The explicit group of each split-off index.
    group_of: BTreeMap<i64, usize>,
}

impl Partition {
    /// Refines the partition for footprint `fp` (sorted by index, one entry per index):
    /// afterwards every group is disjoint from `fp` or inside it with one kind. Each part
    /// split off a group starts with a copy of the group's shadow (an empty one with
    /// `no_copy`, the seeded bug); the remainder's parts start empty, which is its copy.
    fn refine(&mut self, fp: &[Pending], no_copy: bool) {
        let kind_of: BTreeMap<i64, AccessKind> = fp.iter().map(|p| (p.index, p.kind)).collect();
        let touched: BTreeSet<usize> = fp.iter().filter_map(|p| self.group_of.get(&p.index).copied()).collect();
        for g in touched {
            let (mut rest, mut writes, mut reads) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
            for &i in &self.groups[g].members {
                match kind_of.get(&i) {
                    None => rest.insert(i),
                    Some(AccessKind::Write) => writes.insert(i),
                    Some(AccessKind::Read) => reads.insert(i),
                };
            }
            let mut parts = [rest, writes, reads].into_iter().filter(|s| !s.is_empty());
            // The group keeps the first part (with its own shadow); the others split off.
            if let Some(first) = parts.next() {
                self.groups[g].members = first;
            }
            for part in parts {
                fire(DynamicBfRule::RefineSplit);
                let shadow = if no_copy { Shadow::default() } else { self.groups[g].shadow.clone() };
                self.add(part, shadow);
            }
        }
        let fresh = |k: AccessKind| fp.iter().filter(|p| p.kind == k && !self.group_of.contains_key(&p.index)).map(|p| p.index).collect::<BTreeSet<_>>();
        for part in [fresh(AccessKind::Write), fresh(AccessKind::Read)] {
            if !part.is_empty() {
                fire(DynamicBfRule::RefineFresh);
                self.add(part, Shadow::default());
            }
        }
    }

    fn add(&mut self, members: BTreeSet<i64>, shadow: Shadow) {
        let g = self.groups.len();
        for &i in &members {
            self.group_of.insert(i, g);
        }
        self.groups.push(Group { members, shadow });
    }
}

/// Why a reported event (or the end of the trace) was reported.
#[derive(Clone, Debug, Default)]
struct Found {
    reasons: Vec<String>,
    partners: Vec<EventIdx>,
    locations: Vec<Addr>,
}

/// The DynamicBF detector over one trace (see the module docs).
#[derive(Debug)]
pub struct DynamicBf {
    bug: Option<DynamicBfBug>,
    proxies: Rc<Proxies>,
    clocks: Clocks,
    /// Field shadows by (object, group representative).
    fields: HashMap<(ObjId, FieldId), Shadow>,
    arrays: HashMap<ObjId, Partition>,
    /// Each thread's pending array checks, in event order (buffers kept across commits).
    footprints: BTreeMap<ThreadId, Vec<Pending>>,
    reports: HashMap<EventIdx, Found>,
    operations: u64,
    /// One past the last event consumed: where a report at `finish` is filed.
    end: u32,
}

impl DynamicBf {
    fn new(bug: Option<DynamicBfBug>, proxies: Rc<Proxies>) -> DynamicBf {
        DynamicBf {
            bug,
            proxies,
            clocks: Clocks::default(),
            fields: HashMap::new(),
            arrays: HashMap::new(),
            footprints: BTreeMap::new(),
            reports: HashMap::new(),
            operations: 0,
            end: 0,
        }
    }

    /// A field check: FastTrack's operation on the shadow of (object, proxy group) now.
    fn field(&mut self, t: ThreadId, kind: AccessKind, o: ObjId, f: FieldId, at: EventIdx) -> bool {
        let (rep, skip, members) = match self.proxies.of.get(&f) {
            Some((rep, skip, members)) => (*rep, *skip, Some(Rc::clone(members))),
            None => (f, false, None),
        };
        fire(match (&members, skip) {
            (None, _) => DynamicBfRule::FieldOwn,
            (Some(_), false) => DynamicBfRule::FieldProxyRep,
            (Some(_), true) => DynamicBfRule::FieldProxySkipped,
        });
        if skip {
            return false;
        }
        self.operations += 1;
        let before = self.clocks.epoch(t, at);
        let s = self.fields.entry((o, rep)).or_default();
        let Some((race, partners)) = self.clocks.access(s, kind, t, at, None) else { return false };
        fire(match race {
            "write-write" => DynamicBfRule::FieldRaceWW,
            "write-read" => DynamicBfRule::FieldRaceWR,
            _ => DynamicBfRule::FieldRaceRW,
        });
        let members: Vec<FieldId> = members.map_or_else(|| vec![f], |m| m.to_vec());
        if members.len() > 1 {
            fire(DynamicBfRule::ProxyRace);
        }
        let names: Vec<String> = members.iter().map(|&m| self.proxies.name(m)).collect();
        let what = if members.len() > 1 {
            format!("the shadow of proxy group {} of object #{}", names.join("/"), o.0)
        } else {
            format!("the shadow of field {} of object #{}", names.join("/"), o.0)
        };
        let found = self.reports.entry(at).or_default();
        found.reasons.push(format!("DynamicBF: {race} race on {what}, by T{} at epoch {} (the earlier access's epoch is not ⪯ the thread's clock)", t.0, before.text()));
        found.partners.extend(partners);
        found.locations.extend(members.iter().map(|&m| Addr::Field(o, m)));
        true
    }

    /// Commits thread `t`'s footprints (spec §5.3.1): refine each array's partition, then
    /// one FastTrack operation per group inside the footprint. Races are filed at `at`
    /// (the synchronization event, or the end of the trace), described as `when`.
    fn commit(&mut self, t: ThreadId, at: EventIdx, sync: Option<EventKind>, when: &dyn Fn() -> String) -> bool {
        let Some(fp) = self.footprints.get_mut(&t) else { return false };
        if fp.is_empty() {
            return false;
        }
        fire(match sync {
            Some(EventKind::Acquire(_)) => DynamicBfRule::CommitAcq,
            // A release (fork and join are release- and acquire-like, but BFJ has neither).
            Some(_) => DynamicBfRule::CommitRel,
            None => DynamicBfRule::CommitEnd,
        });
        let mut pending = std::mem::take(fp);
        // One entry per (array, index): the dominating kind (W over R), the latest event.
        pending.sort_by_key(|p| (p.array, p.index));
        pending.dedup_by(|later, kept| {
            let same = later.array == kept.array && later.index == kept.index;
            if same {
                if later.kind != kept.kind {
                    fire(DynamicBfRule::FootprintDominates);
                }
                kept.kind = if rank(later.kind) > rank(kept.kind) { later.kind } else { kept.kind };
                kept.event = kept.event.max(later.event);
            }
            same
        });
        let no_copy = self.bug == Some(DynamicBfBug::RefineWithoutCopy);
        let mut reported = false;
        for fp in pending.chunk_by(|a, b| a.array == b.array) {
            let a = fp[0].array;
            let part = self.arrays.entry(a).or_default();
            part.refine(fp, no_copy);
            // Each touched group is now inside the footprint with one kind: one operation.
            let mut ops: BTreeMap<usize, (AccessKind, EventIdx)> = BTreeMap::new();
            for p in fp {
                if let Some(&g) = part.group_of.get(&p.index) {
                    let e = ops.entry(g).or_insert((p.kind, p.event));
                    e.1 = e.1.max(p.event);
                }
            }
            for (g, (kind, event)) in ops {
                self.operations += 1;
                let before = self.clocks.epoch(t, event);
                let group = &mut part.groups[g];
                fire(if group.members.len() > 1 { DynamicBfRule::GroupCompressed } else { DynamicBfRule::GroupSingle });
                let Some((race, partners)): Option<Race> = self.clocks.access(&mut group.shadow, kind, t, event, None) else { continue };
                reported = true;
                fire(match race {
                    "write-write" => DynamicBfRule::ArrayRaceWW,
                    "write-read" => DynamicBfRule::ArrayRaceWR,
                    _ => DynamicBfRule::ArrayRaceRW,
                });
                fire(if sync.is_some() { DynamicBfRule::RaceAtSyncCommit } else { DynamicBfRule::RaceAtEndCommit });
                if group.members.len() > 1 {
                    fire(DynamicBfRule::CompressedRace);
                }
                let indices: Vec<String> = group.members.iter().map(i64::to_string).collect();
                let found = self.reports.entry(at).or_default();
                found.reasons.push(format!(
                    "DynamicBF: {race} race on the shadow of index group {{{}}} of array #{}, committed from T{}'s footprint {} at epoch {} (the earlier access's epoch is not ⪯ the thread's clock)",
                    indices.join(", "),
                    a.0,
                    t.0,
                    when(),
                    before.text()
                ));
                found.partners.extend(partners);
                let first_only = self.bug == Some(DynamicBfBug::GroupRaceOnFirstIndex);
                found.locations.extend(group.members.iter().take(if first_only { 1 } else { usize::MAX }).map(|&i| Addr::Index(a, i)));
            }
        }
        // Hand the buffer back, emptied, so that the next footprint does not allocate.
        pending.clear();
        if let Some(fp) = self.footprints.get_mut(&t) {
            if fp.is_empty() {
                *fp = pending;
            }
        }
        reported
    }
}

impl DynamicDetector for DynamicBf {
    fn on_event(&mut self, e: &Event) -> Result<(), Reported> {
        self.end = e.idx.0.saturating_add(1);
        let t = e.thread;
        let race = match e.kind {
            // Runs on checks only; capsule entries and exits add no happens-before edge.
            EventKind::Access(..) | EventKind::Enter(_) | EventKind::Exit(_) => false,
            // Atomics (docs/spec/atomics.md): not modelled here yet; `suts::check` refuses programs
            // with atomics before any trace of theirs reaches this detector.
            EventKind::Atomic(..) | EventKind::Fence(_) => false,
            EventKind::Check(k, Addr::Field(o, f)) => self.field(t, k, o, f, e.idx),
            EventKind::Check(kind, Addr::Index(array, index)) => {
                fire(DynamicBfRule::ArrayFootprint);
                self.footprints.entry(t).or_default().push(Pending { array, index, kind, event: e.idx });
                false
            }
            EventKind::Acquire(_) | EventKind::Release(_) | EventKind::Fork(_) | EventKind::Join(_) => {
                let after = self.bug == Some(DynamicBfBug::FootprintCommittedAfterSync);
                if after {
                    self.clocks.sync(t, e.kind, None);
                }
                let when = || if after { format!("after its {:?} (event {})", e.kind, e.idx.0) } else { format!("before its {:?} (event {})", e.kind, e.idx.0) };
                // A joined thread has exited: its footprints are committed first (with its
                // final clock), then the joiner's.
                let mut race = false;
                if let EventKind::Join(u) = e.kind {
                    race |= self.commit(u, e.idx, Some(e.kind), &when);
                }
                race |= self.commit(t, e.idx, Some(e.kind), &when);
                if !after {
                    self.clocks.sync(t, e.kind, None);
                }
                race
            }
        };
        if race {
            Err(Reported)
        } else {
            Ok(())
        }
    }

    fn finish(&mut self) -> Result<(), Reported> {
        if self.bug == Some(DynamicBfBug::NoCommitAtEnd) {
            self.footprints.clear();
            return Ok(());
        }
        let at = EventIdx(self.end);
        let threads: Vec<ThreadId> = self.footprints.keys().copied().collect();
        let mut race = false;
        for t in threads {
            race |= self.commit(t, at, None, &|| "at the end of the trace".to_string());
        }
        if race {
            Err(Reported)
        } else {
            Ok(())
        }
    }

    fn name(&self) -> String {
        "DynamicBF".into()
    }

    fn shadow_operations(&self) -> Option<u64> {
        Some(self.operations)
    }

    fn explain(&self, _trace: &[Event], at: EventIdx) -> DetectorReport {
        match self.reports.get(&at) {
            Some(f) => DetectorReport { at, partners: f.partners.clone(), reason: f.reasons.join("; "), locations: f.locations.clone() },
            None => DetectorReport { at, partners: vec![], reason: "DynamicBF reported nothing here".into(), locations: vec![] },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use race_oracles::lang::parse;
    use race_oracles::machine::LockId;
    use race_oracles::theorems::detector::reported_locations;

    use super::*;
    use crate::analyses::fasttrack::FastTrackFactory;

    const A: ObjId = ObjId(0);
    const M: LockId = LockId::Obj(ObjId(1));

    fn ev(i: usize, t: u32, kind: EventKind) -> Event {
        Event::plain(EventIdx(i as u32), ThreadId(t), 1, kind)
    }

    fn trace(kinds: &[(u32, EventKind)]) -> Vec<Event> {
        kinds.iter().enumerate().map(|(i, &(t, k))| ev(i, t, k)).collect()
    }

    fn chk(k: AccessKind, i: i64) -> EventKind {
        EventKind::Check(k, Addr::Index(A, i))
    }

    /// The locations `factory`'s detector reports on the trace (through the seam, finish
    /// included).
    fn locations(factory: &dyn DetectorFactory, kinds: &[(u32, EventKind)]) -> BTreeSet<String> {
        reported_locations(factory, &trace(kinds), &|a| format!("{a:?}")).expect("DynamicBF answers every trace").locations.into_keys().collect()
    }

    fn names(addrs: &[Addr]) -> BTreeSet<String> {
        addrs.iter().map(|a| format!("{a:?}")).collect()
    }

    const W: AccessKind = AccessKind::Write;
    const R: AccessKind = AccessKind::Read;

    #[test]
    fn an_array_race_is_found_at_commit_and_reported_on_its_index() {
        // T0 writes a[1] and releases; T1 reads a[1] and a[2] without acquiring: a race on
        // a[1] only, found when T1's footprint is committed at the end of the trace.
        let kinds = [(0, chk(W, 1)), (0, EventKind::Release(M)), (1, chk(R, 1)), (1, chk(R, 2))];
        let mut d = DynamicBf::new(None, Rc::default());
        let t = trace(&kinds);
        assert!(t.iter().all(|e| d.on_event(e).is_ok()), "array checks only fill the footprint");
        assert_eq!(d.finish(), Err(Reported));
        let r = d.explain(&t, EventIdx(4));
        assert_eq!(r.locations, vec![Addr::Index(A, 1)]);
        assert_eq!(r.partners, vec![EventIdx(0)]);
        assert!(r.reason.contains("write-read race on the shadow of index group {1} of array #0"), "{}", r.reason);
        // Ordered by the lock: no race; the commit before T1's release finds nothing either.
        let ordered = [(0, chk(W, 1)), (0, EventKind::Release(M)), (1, EventKind::Acquire(M)), (1, chk(R, 1)), (1, EventKind::Release(M))];
        assert!(locations(&DynamicBfFactory::default(), &ordered).is_empty());
        // Committed at T1's release instead: the report is on the release event.
        let at_sync = [(0, chk(W, 1)), (0, EventKind::Release(M)), (1, chk(R, 1)), (1, EventKind::Release(M))];
        let mut d = DynamicBf::new(None, Rc::default());
        let got: Vec<bool> = trace(&at_sync).iter().map(|e| d.on_event(e).is_err()).collect();
        assert_eq!(got, [false, false, false, true]);
        assert_eq!(d.explain(&trace(&at_sync), EventIdx(3)).locations, vec![Addr::Index(A, 1)]);
    }

    /// The groups of array `A`'s partition, by their indices.
    fn groups(d: &DynamicBf) -> BTreeSet<Vec<i64>> {
        d.arrays.get(&A).map(|p| p.groups.iter().map(|g| g.members.iter().copied().collect()).collect()).unwrap_or_default()
    }

    #[test]
    fn compression_goes_coarse_then_half_then_element_with_fine_grained_verdicts() {
        let set = |gs: &[&[i64]]| gs.iter().map(|g| g.to_vec()).collect::<BTreeSet<_>>();
        let kinds = [
            // T0 writes all of a[0..4]: one coarse group, one operation.
            (0, chk(W, 0)),
            (0, chk(W, 1)),
            (0, chk(W, 2)),
            (0, chk(W, 3)),
            (0, EventKind::Release(M)),
            // T1, after T0, writes a[0..2]: two halves, one operation on the first.
            (1, EventKind::Acquire(M)),
            (1, chk(W, 0)),
            (1, chk(W, 1)),
            (1, EventKind::Release(M)),
            // T2, unordered, reads a[1]: elements; races with T1's write of a[1] only.
            (2, chk(R, 1)),
        ];
        let t = trace(&kinds);
        let mut d = DynamicBf::new(None, Rc::default());
        let mut shapes = vec![];
        for e in &t {
            let _ = d.on_event(e);
            if matches!(e.kind, EventKind::Release(_)) {
                shapes.push(groups(&d));
            }
        }
        assert_eq!(d.finish(), Err(Reported));
        shapes.push(groups(&d));
        assert_eq!(shapes, [set(&[&[0, 1, 2, 3]]), set(&[&[2, 3], &[0, 1]]), set(&[&[2, 3], &[0], &[1]])]);
        assert_eq!(d.shadow_operations(), Some(3), "one operation per group, against 7 fine-grained");
        assert_eq!(d.explain(&t, EventIdx(10)).locations, vec![Addr::Index(A, 1)]);
        // The same verdicts as fine-grained, immediate checking (FastTrack on each check).
        let fine = FastTrackFactory { bug: None, on_checks: true };
        assert_eq!(locations(&DynamicBfFactory::default(), &kinds), locations(&fine, &kinds));
        assert_eq!(locations(&fine, &kinds), names(&[Addr::Index(A, 1)]));
        // A split that does not copy the parent's shadow forgets T0's and T1's writes.
        let no_copy = DynamicBfFactory { bug: Some(DynamicBfBug::RefineWithoutCopy) };
        let unordered = [(0, chk(W, 0)), (0, chk(W, 1)), (1, chk(W, 0))];
        assert_eq!(locations(&DynamicBfFactory::default(), &unordered), names(&[Addr::Index(A, 0)]));
        assert!(locations(&no_copy, &unordered).is_empty());
        // Footprints dropped at the end: the race is missed.
        let no_end = DynamicBfFactory { bug: Some(DynamicBfBug::NoCommitAtEnd) };
        assert!(locations(&no_end, &unordered).is_empty());
    }

    /// Every random trace of array and field checks and lock operations by three threads:
    /// DynamicBF reports the locations fine-grained immediate checking reports (spec §9.1 O7
    /// and O8), and each seeded bug that changes verdicts on arrays is seen to.
    #[test]
    fn random_traces_agree_with_fine_grained_immediate_checking() {
        let fine = FastTrackFactory { bug: None, on_checks: true };
        let bugs = [DynamicBfBug::FootprintCommittedAfterSync, DynamicBfBug::RefineWithoutCopy, DynamicBfBug::NoCommitAtEnd];
        let mut differ = [0u32; 3];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut racy = 0;
        for _ in 0..3000 {
            let len = 4 + next(12) as usize;
            let kinds: Vec<(u32, EventKind)> = (0..len)
                .map(|_| {
                    let t = next(3) as u32;
                    let k = if next(2) == 0 { R } else { W };
                    let m = LockId::Obj(ObjId(1 + next(2) as u32));
                    let kind = match next(8) {
                        0 => EventKind::Acquire(m),
                        1 => EventKind::Release(m),
                        2 => EventKind::Check(k, Addr::Field(ObjId(3), FieldId(0))),
                        _ => chk(k, next(4) as i64),
                    };
                    (t, kind)
                })
                .collect();
            let expected = locations(&fine, &kinds);
            racy += u32::from(!expected.is_empty());
            assert_eq!(locations(&DynamicBfFactory::default(), &kinds), expected, "{kinds:?}");
            for (n, bug) in bugs.iter().enumerate() {
                differ[n] += u32::from(locations(&DynamicBfFactory { bug: Some(*bug) }, &kinds) != expected);
            }
        }
        assert!(racy > 300, "only {racy} racy traces");
        assert!(differ.iter().all(|&n| n > 0), "a seeded bug never changed a verdict: {differ:?}");
    }

    const TWO_ITEMS: &str = "dialect bfj\nclass P { fields x, y }\ninit { p = new P }\nthread { check(W: p.x/y) }\nthread { check(W: p.x/y) }\n";
    const ONE_WAY: &str = "dialect bfj\nclass P { fields x, y }\ninit { p = new P }\nthread { check(W: p.x/y) }\nthread { check(W: p.x) }\n";

    #[test]
    fn a_symmetric_proxy_group_shares_one_shadow_and_an_asymmetric_one_loses_precision() {
        let p = parse(TWO_ITEMS).unwrap();
        // Fields are interned in sorted order.
        let (x, y) = (FieldId(0), FieldId(1));
        assert_eq!(p.field_names(), ["x", "y"]);
        let o = ObjId(0);
        let (fx, fy) = (|k| EventKind::Check(k, Addr::Field(o, x)), |k| EventKind::Check(k, Addr::Field(o, y)));
        // x and y are in the same items: one group, one shadow, the y events skipped.
        let factory = DynamicBfFactory::default();
        let per_program = factory.for_program(&p);
        let kinds = [(0, fx(W)), (0, fy(W)), (1, fx(W)), (1, fy(W))];
        let t = trace(&kinds);
        let mut d = per_program.fresh();
        let got: Vec<bool> = t.iter().map(|e| d.on_event(e).is_err()).collect();
        assert_eq!(got, [false, false, true, false]);
        assert_eq!(d.shadow_operations(), Some(2));
        let r = d.explain(&t, EventIdx(2));
        assert_eq!(r.locations, vec![Addr::Field(o, x), Addr::Field(o, y)]);
        assert!(r.reason.contains("proxy group x/y of object #0"), "{}", r.reason);
        // Without the program's facts every field is its own group: the same locations.
        assert_eq!(locations(&factory, &kinds), locations(per_program.as_ref(), &kinds));

        // x proxies y but not the other way round: x races alone.
        let p = parse(ONE_WAY).unwrap();
        let kinds = [(0, fx(W)), (0, fy(W)), (1, fx(W))];
        assert_eq!(locations(DynamicBfFactory::default().for_program(&p).as_ref(), &kinds), names(&[Addr::Field(o, x)]));
        // Grouped through the one-way relation, y is reported too: a false alarm.
        let asymmetric = DynamicBfFactory { bug: Some(DynamicBfBug::AsymmetricProxy) };
        assert_eq!(locations(asymmetric.for_program(&p).as_ref(), &kinds), names(&[Addr::Field(o, x), Addr::Field(o, y)]));
    }

    #[test]
    fn a_footprint_committed_after_the_sync_misses_a_race_and_raises_a_false_one() {
        let after = DynamicBfFactory { bug: Some(DynamicBfBug::FootprintCommittedAfterSync) };
        // T1's unordered write of a[0] is committed before its acquire: a race. After it,
        // the commit sees T0's release through the acquired clock: missed. (T0's write is
        // committed at an acquire of another lock, which changes no clock, so that T0's
        // own commit is right even with the bug.)
        let n = LockId::Obj(ObjId(2));
        let acquire = [(0, chk(W, 0)), (0, EventKind::Acquire(n)), (0, EventKind::Release(M)), (1, chk(W, 0)), (1, EventKind::Acquire(M))];
        assert_eq!(locations(&DynamicBfFactory::default(), &acquire), names(&[Addr::Index(A, 0)]));
        assert!(locations(&after, &acquire).is_empty());
        // T0's write, committed after its release, carries the ticked clock, which T1's
        // acquire does not see: a false alarm on an ordered write.
        let release = [(0, chk(W, 0)), (0, EventKind::Release(M)), (1, EventKind::Acquire(M)), (1, chk(W, 0))];
        assert!(locations(&DynamicBfFactory::default(), &release).is_empty());
        assert_eq!(locations(&after, &release), names(&[Addr::Index(A, 0)]));
    }
}
