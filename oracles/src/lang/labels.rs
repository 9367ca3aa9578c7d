//! The static labels of a `naikaiken` program (docs/spec/naik_aiken.md §4.2, A16): statement
//! *points*, loops and allocation sites in source order, and the *access labels* that races
//! are reported on, one per heap access a statement makes.
//!
//! The analysis under test and the instrumented semantics both number the program through
//! this module, so a pair the analysis prunes and a race the enumeration finds name the same
//! labels.
//!
//! - A point is a statement, numbered in preorder over the main thread's body (fork bodies
//!   included, in place). Its loops (`W` of Fig. 5/8) are the labelled loops that enclose it
//!   lexically, outermost first; a fork body inside a loop is inside that loop.
//! - A path access `x.f1….fn` makes n accesses (spec §4.1): position i < n−1 reads `f(i+1)`
//!   of the object the prefix denotes, and the last position reads or writes `fn`. So
//!   `x.f.g = 1` is a read of `f` (position 0) then a write of `g` (position 1), and `y = x.f`
//!   is one read. Container statements (`x[+] = y`, `x = y[*]`) are no race targets (§4.1
//!   \[C\]) and have no access label.

use std::collections::HashMap;
use std::fmt;

use super::ast::*;

/// A statement's number: its position in preorder over the main thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct PointId(pub u32);

// `PointId::index` widens a `u32` to a `usize`: lossless on every target this crate builds for.
const _: () = assert!(usize::BITS >= 32);

impl PointId {
    /// Its position in the tables indexed by statement ([`Labels::points`]).
    pub fn index(self) -> usize {
        // OK since `usize` has at least 32 bits (asserted above).
        self.0 as usize
    }
}

/// One heap access a statement makes: the statement and the position along its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct AccessLabel {
    /// The statement.
    pub point: PointId,
    /// The position along its path (0 for `x.f`).
    pub pos: u8,
}

/// An unordered pair of accesses in its one representation: the smaller label first.
pub fn unordered((a, b): (AccessLabel, AccessLabel)) -> (AccessLabel, AccessLabel) {
    (a.min(b), a.max(b))
}

/// A statement with what the analyses need to know about where it stands.
#[derive(Clone, Debug)]
pub struct Point<'p> {
    /// The statement.
    pub stmt: &'p Stmt,
    /// The loops enclosing it, as indices into [`Labels::loops`], outermost first.
    pub loops: Vec<usize>,
    /// The forks whose bodies enclose it, innermost last (empty: the main thread's code).
    pub forks: Vec<PointId>,
    /// The `sync` statements enclosing it within its thread's code, outermost first.
    pub syncs: Vec<PointId>,
}

/// A static heap access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticAccess {
    /// Its label.
    pub label: AccessLabel,
    /// Read or write.
    pub kind: AccessKind,
    /// The root variable of the path.
    pub base: String,
    /// The fields dereferenced before this access (the *base* path's fields; empty for `x.f`).
    pub prefix: Vec<String>,
    /// The field accessed.
    pub field: String,
    /// The statement's line.
    pub line: Line,
}

impl fmt::Display for StaticAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = if self.kind == AccessKind::Write { "write" } else { "read" };
        write!(f, "{verb} {}", self.base)?;
        for p in &self.prefix {
            write!(f, ".{p}")?;
        }
        write!(f, ".{} (line {})", self.field, self.line.0)
    }
}

/// The labels of one program.
#[derive(Clone, Debug)]
pub struct Labels<'p> {
    /// Every statement, by [`PointId`].
    pub points: Vec<Point<'p>>,
    /// Loop labels, in source order (a loop vector is indexed by these).
    pub loops: Vec<String>,
    /// Allocation-site labels, in source order.
    pub sites: Vec<String>,
    /// Every static access, by point then position.
    pub accesses: Vec<StaticAccess>,
    by_addr: HashMap<*const Stmt, PointId>,
}

impl<'p> Labels<'p> {
    /// Numbers the main thread of `p` (the `naikaiken` dialect has one; other threads are ignored).
    pub fn of(p: &'p Program) -> Labels<'p> {
        let mut l = Labels { points: vec![], loops: vec![], sites: vec![], accesses: vec![], by_addr: HashMap::new() };
        if let Some(main) = p.threads.first() {
            l.walk(main, &Ctx::default());
        }
        l
    }

    fn walk(&mut self, b: &'p [Stmt], ctx: &Ctx) {
        for s in b {
            // OK since the naikaiken dialect admits at most 2¹⁴ statements (its size rule).
            let id = PointId(u32::try_from(self.points.len()).unwrap_or(u32::MAX));
            self.by_addr.insert(std::ptr::from_ref(s), id);
            self.points.push(Point { stmt: s, loops: ctx.loops.clone(), forks: ctx.forks.clone(), syncs: ctx.syncs.clone() });
            self.add_accesses(id, s);
            let mut inner = ctx.clone();
            match &s.kind {
                StmtKind::New { site: Some(h), .. } => self.sites.push(h.clone()),
                StmtKind::While { label, .. } => {
                    inner.loops.push(self.loops.len());
                    self.loops.push(label.clone().unwrap_or_default());
                }
                StmtKind::Sync { .. } => inner.syncs.push(id),
                StmtKind::Fork { .. } => {
                    inner.forks.push(id);
                    inner.syncs.clear();
                }
                _ => {}
            }
            for sub in s.kind.sub_blocks() {
                self.walk(sub, &inner);
            }
        }
    }

    fn add_accesses(&mut self, id: PointId, s: &Stmt) {
        let (place, write) = match &s.kind {
            StmtKind::Load { src, .. } | StmtKind::Read(src) => (src, false),
            StmtKind::Store { dst, .. } => (dst, true),
            _ => return,
        };
        let Place::Field { base, fields } = place else { return };
        for (i, f) in fields.iter().enumerate() {
            let last = i + 1 == fields.len();
            let kind = if last && write { AccessKind::Write } else { AccessKind::Read };
            // OK since the naikaiken dialect admits paths of at most 255 fields (its size rule).
            let label = AccessLabel { point: id, pos: u8::try_from(i).unwrap_or(u8::MAX) };
            self.accesses.push(StaticAccess { label, kind, base: base.clone(), prefix: fields[..i].to_vec(), field: f.clone(), line: s.line });
        }
    }

    /// The point of a statement of this program (`None` for a statement of another one).
    pub fn point_of(&self, s: &Stmt) -> Option<PointId> {
        self.by_addr.get(&std::ptr::from_ref(s)).copied()
    }

    /// A point's data.
    pub fn point(&self, id: PointId) -> &Point<'p> {
        &self.points[id.0 as usize]
    }

    /// A static access by label.
    pub fn access(&self, l: AccessLabel) -> Option<&StaticAccess> {
        self.accesses.iter().find(|a| a.label == l)
    }

    /// The index of a loop label.
    pub fn loop_index(&self, w: &str) -> Option<usize> {
        self.loops.iter().position(|x| x == w)
    }

    /// Every unordered pair of static accesses to one field with at least one write, the
    /// same access twice included (A16: a label run by two threads), sorted.
    pub fn conflicting_pairs(&self) -> Vec<(AccessLabel, AccessLabel)> {
        let mut out = vec![];
        for (i, a) in self.accesses.iter().enumerate() {
            for b in &self.accesses[i..] {
                if a.field == b.field && (a.kind == AccessKind::Write || b.kind == AccessKind::Write) {
                    out.push((a.label, b.label));
                }
            }
        }
        out
    }
}

/// Where a statement stands: the parts of a [`Point`] its nested statements inherit.
#[derive(Clone, Default)]
struct Ctx {
    loops: Vec<usize>,
    forks: Vec<PointId>,
    syncs: Vec<PointId>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    #[test]
    fn points_loops_sites_and_accesses_in_source_order() {
        let p = parse("dialect naikaiken\nthread {\na = new @h1\nwhile @w1 * { t = new @h2; a[+] = t }\nwhile @w2 * {\nx = a[*]\nfork { sync(x) { x.f.g = 1 } }\n}\n}\n").unwrap();
        let l = Labels::of(&p);
        assert_eq!((l.loops.clone(), l.sites.clone()), (vec!["w1".to_string(), "w2".into()], vec!["h1".to_string(), "h2".into()]));
        assert_eq!(l.points.len(), 9);
        let store = l.points.iter().position(|pt| matches!(pt.stmt.kind, StmtKind::Store { .. })).unwrap();
        let pt = &l.points[store];
        assert_eq!((pt.loops.clone(), pt.forks.clone(), pt.syncs.clone()), (vec![1], vec![PointId(6)], vec![PointId(7)]));
        let acc: Vec<String> = l.accesses.iter().map(ToString::to_string).collect();
        assert_eq!(acc, ["read x.f (line 7)", "write x.f.g (line 7)"]);
        assert_eq!(l.conflicting_pairs(), vec![(l.accesses[1].label, l.accesses[1].label)]);
        assert_eq!(l.point_of(pt.stmt), Some(PointId(u32::try_from(store).unwrap())));
    }
}
