//! Atomic operations and fences (docs/spec/atomics.md §1): C11/C++11 atomics on fields, with
//! memory orders written in full.
//!
//! Atomicity belongs to the *access*, not to the location (spec §0 (decision 1), §1.3 \[C\]): the same
//! field may be read and written plainly elsewhere. The syntax is spec §1.1's, exactly
//! (outside tools read and write it):
//!
//! | statement | event (`machine::AtomicKind`) |
//! |---|---|
//! | `r = x.f.load(o)` | atomic load |
//! | `x.f.store(v, o)` | atomic store |
//! | `r = x.f.fetch_add(v, o)`, `r = x.f.xchg(v, o)` (the old value) | atomic RMW |
//! | `ok = x.f.cas(e, v, os, of)` (strong only) | RMW with `os`, or a failed CAS (a load with `of`) |
//! | `fence(o)` | fence |
//!
//! `consume` is parsed as `acquire` and printed as `acquire` (spec §1.2 \[C\]); [`Order`]
//! has no consume. Which orders each operation accepts (spec §1.2) is the dialect
//! validator's business ([`Atomic::invalid_order`]), so that a wrong order is an error
//! naming its line and the rule, not a syntax error.

use std::fmt;

use super::{Expr, Place};

/// A memory order (docs/spec/atomics.md §1.2), in the enum order of C++
/// (`relaxed < consume < acquire < release < acq_rel < seq_cst`, consume folded into acquire):
/// the derived `Ord` is that order, which the CAS rule "failure ≤ success" compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// `relaxed`: no synchronization (spec §2.3, `[intro.races]/3`).
    Relaxed,
    /// `acquire` (also what `consume` is read as).
    Acquire,
    /// `release`
    Release,
    /// `acq_rel`
    AcqRel,
    /// `seq_cst`
    SeqCst,
}

impl Order {
    /// Every order, in the enum order.
    pub const ALL: [Order; 5] = [Order::Relaxed, Order::Acquire, Order::Release, Order::AcqRel, Order::SeqCst];

    /// The keyword, as printed.
    pub fn name(self) -> &'static str {
        match self {
            Order::Relaxed => "relaxed",
            Order::Acquire => "acquire",
            Order::Release => "release",
            Order::AcqRel => "acq_rel",
            Order::SeqCst => "seq_cst",
        }
    }

    /// Parses an order keyword; `consume` is `acquire` (spec §1.2 \[C\]).
    pub fn from_name(s: &str) -> Option<Order> {
        match s {
            "consume" => Some(Order::Acquire),
            _ => Order::ALL.into_iter().find(|o| o.name() == s),
        }
    }

    /// Whether the order acquires: acquire, acq_rel or seq_cst (spec §4.2).
    pub fn acquires(self) -> bool {
        matches!(self, Order::Acquire | Order::AcqRel | Order::SeqCst)
    }

    /// Whether the order releases: release, acq_rel or seq_cst (spec §4.2).
    pub fn releases(self) -> bool {
        matches!(self, Order::Release | Order::AcqRel | Order::SeqCst)
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A read-modify-write operation that returns the old value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmwOp {
    /// `fetch_add(v, o)`: stores old + v.
    FetchAdd,
    /// `xchg(v, o)`: stores v.
    Xchg,
}

impl RmwOp {
    /// The method name, as printed.
    pub fn name(self) -> &'static str {
        match self {
            RmwOp::FetchAdd => "fetch_add",
            RmwOp::Xchg => "xchg",
        }
    }
}

/// The operations a statement `x.f.OP(..)` may name, with how many values come before the
/// orders: `(name, values, orders)`.
pub const ATOMIC_METHODS: [(&str, usize, usize); 5] = [("load", 0, 1), ("store", 1, 1), ("fetch_add", 1, 1), ("xchg", 1, 1), ("cas", 2, 2)];

/// An atomic statement (docs/spec/atomics.md §1.1). The place is a field path `x.f…`
/// (prefixes are dereferenced without an access event, as for plain accesses).
// Variant fields are named after the concrete syntax the variant's doc shows.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Atomic {
    /// `dst = place.load(order)`
    Load { dst: String, place: Place, order: Order },
    /// `place.store(val, order)`
    Store { place: Place, val: Expr, order: Order },
    /// `dst = place.fetch_add(val, order)` / `dst = place.xchg(val, order)`
    Rmw { dst: String, op: RmwOp, place: Place, val: Expr, order: Order },
    /// `dst = place.cas(expected, new, success, failure)`: a strong compare-exchange; `dst`
    /// is `true` when it stored.
    Cas { dst: String, place: Place, expected: Expr, new: Expr, success: Order, failure: Order },
    /// `fence(order)`
    Fence(Order),
}

/// A violated rule of docs/spec/atomics.md §1.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderRule {
    /// An order the operation does not accept (the ✗ cells of the valid-order table).
    Invalid {
        /// The operation (`load`, `store`, `cas (failure order)`, `fence`).
        op: &'static str,
        /// The order given.
        order: Order,
    },
    /// A CAS whose failure order is stronger than its success order (spec §1.2 \[C\]).
    CasFailureAboveSuccess {
        /// The success order.
        success: Order,
        /// The failure order.
        failure: Order,
    },
}

impl fmt::Display for OrderRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OrderRule::Invalid { op: "fence", order: Order::Relaxed } => f.write_str("`fence(relaxed)` has no effect and is rejected (spec/atomics.md §1.2: Rust panics on it)"),
            OrderRule::Invalid { op, order } => write!(f, "{op} does not accept order `{order}` (spec/atomics.md §1.2, the standard's Expects clause)"),
            OrderRule::CasFailureAboveSuccess { success, failure } => {
                write!(f, "`cas` failure order `{failure}` is stronger than its success order `{success}`; the failure order must be ≤ the success order (spec/atomics.md §1.2)")
            }
        }
    }
}

impl Atomic {
    /// The accessed place (`None` for a fence).
    pub fn place(&self) -> Option<&Place> {
        match self {
            Atomic::Load { place, .. } | Atomic::Store { place, .. } | Atomic::Rmw { place, .. } | Atomic::Cas { place, .. } => Some(place),
            Atomic::Fence(_) => None,
        }
    }

    /// The local variable the statement assigns, if any.
    pub fn assigned(&self) -> Option<&str> {
        match self {
            Atomic::Load { dst, .. } | Atomic::Rmw { dst, .. } | Atomic::Cas { dst, .. } => Some(dst),
            Atomic::Store { .. } | Atomic::Fence(_) => None,
        }
    }

    /// The expressions the statement evaluates (the values it stores or compares).
    pub fn operands(&self) -> Vec<&Expr> {
        match self {
            Atomic::Store { val, .. } | Atomic::Rmw { val, .. } => vec![val],
            Atomic::Cas { expected, new, .. } => vec![expected, new],
            Atomic::Load { .. } | Atomic::Fence(_) => vec![],
        }
    }

    /// Every order the statement names.
    pub fn orders(&self) -> Vec<Order> {
        match *self {
            Atomic::Load { order, .. } | Atomic::Store { order, .. } | Atomic::Rmw { order, .. } | Atomic::Fence(order) => vec![order],
            Atomic::Cas { success, failure, .. } => vec![success, failure],
        }
    }

    /// The first rule of docs/spec/atomics.md §1.2 the statement breaks, if any.
    pub fn invalid_order(&self) -> Option<OrderRule> {
        let bad = |op: &'static str, order: Order, ok: bool| (!ok).then_some(OrderRule::Invalid { op, order });
        // Orders that only read: no release half.
        let read_only = |o: Order| !matches!(o, Order::Release | Order::AcqRel);
        match *self {
            Atomic::Load { order, .. } => bad("load", order, read_only(order)),
            Atomic::Store { order, .. } => bad("store", order, matches!(order, Order::Relaxed | Order::Release | Order::SeqCst)),
            Atomic::Rmw { .. } => None,
            Atomic::Cas { success, failure, .. } => {
                bad("cas (failure order)", failure, read_only(failure)).or_else(|| (failure > success).then_some(OrderRule::CasFailureAboveSuccess { success, failure }))
            }
            Atomic::Fence(order) => bad("fence", order, order != Order::Relaxed),
        }
    }
}

/// `strengthen(p)` of docs/spec/atomics.md §6.3: what a tool whose atomics are all
/// sequentially consistent (Go's `sync/atomic`) can run of a program with atomics. Every
/// order becomes `seq_cst` (both orders of a CAS) and every fence becomes `skip`.
///
/// Why dropping fences keeps the happens-before of the strengthened program [D, spec §6.3]:
/// once every access both acquires and releases, each fence edge of §2.3 is already implied
/// by the accesses' own synchronizes-with. A fence becomes `skip`, not nothing, so that lines,
/// blocks and the program's shape stay as they were: a `skip` is a step with no event.
impl super::Program {
    /// The program strengthened (see above); itself when it has no atomics.
    pub fn strengthened(&self) -> super::Program {
        fn block(b: &mut super::Block) {
            for s in b.iter_mut() {
                if let super::StmtKind::Atomic(a) = &mut s.kind {
                    match a {
                        Atomic::Fence(_) => s.kind = super::StmtKind::Skip,
                        Atomic::Load { order, .. } | Atomic::Store { order, .. } | Atomic::Rmw { order, .. } => *order = Order::SeqCst,
                        Atomic::Cas { success, failure, .. } => (*success, *failure) = (Order::SeqCst, Order::SeqCst),
                    }
                }
                for sub in s.kind.sub_blocks_mut() {
                    block(sub);
                }
            }
        }
        let mut p = self.clone();
        p.methods.iter_mut().chain(p.classes.iter_mut().flat_map(|c| c.methods.iter_mut())).for_each(|m| block(&mut m.body));
        p.init.iter_mut().chain(p.threads.iter_mut()).for_each(block);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_parse_with_consume_as_acquire_and_compare_in_enum_order() {
        assert_eq!(Order::from_name("consume"), Some(Order::Acquire));
        for o in Order::ALL {
            assert_eq!(Order::from_name(o.name()), Some(o));
        }
        assert_eq!(Order::from_name("rlx"), None);
        assert!(Order::Relaxed < Order::Acquire && Order::Acquire < Order::Release && Order::AcqRel < Order::SeqCst);
        let acq: Vec<bool> = Order::ALL.iter().map(|o| o.acquires()).collect();
        let rel: Vec<bool> = Order::ALL.iter().map(|o| o.releases()).collect();
        assert_eq!((acq, rel), (vec![false, true, false, true, true], vec![false, false, true, true, true]));
    }

    /// The valid-order table of spec §1.2, cell by cell (consume is acquire).
    #[test]
    fn the_valid_order_table() {
        let p = || Place::Field { base: "x".into(), fields: vec!["f".into()] };
        let ok = |a: Atomic| a.invalid_order().is_none();
        let load: Vec<bool> = Order::ALL.iter().map(|&order| ok(Atomic::Load { dst: "r".into(), place: p(), order })).collect();
        let store: Vec<bool> = Order::ALL.iter().map(|&order| ok(Atomic::Store { place: p(), val: Expr::Int(1), order })).collect();
        let rmw: Vec<bool> = Order::ALL.iter().map(|&order| ok(Atomic::Rmw { dst: "r".into(), op: RmwOp::Xchg, place: p(), val: Expr::Int(1), order })).collect();
        let cas = |success, failure| Atomic::Cas { dst: "r".into(), place: p(), expected: Expr::Int(0), new: Expr::Int(1), success, failure };
        let fail: Vec<bool> = Order::ALL.iter().map(|&o| ok(cas(Order::SeqCst, o))).collect();
        let fence: Vec<bool> = Order::ALL.iter().map(|&o| ok(Atomic::Fence(o))).collect();
        //                 relaxed acquire release acq_rel seq_cst
        assert_eq!(load, [true, true, false, false, true]);
        assert_eq!(store, [true, false, true, false, true]);
        assert_eq!(rmw, [true, true, true, true, true]);
        assert_eq!(fail, [true, true, false, false, true]);
        assert_eq!(fence, [false, true, true, true, true]);
        // failure ≤ success.
        assert!(ok(cas(Order::Release, Order::Acquire)) && ok(cas(Order::Acquire, Order::Relaxed)) && !ok(cas(Order::Relaxed, Order::Acquire)));
        assert_eq!(cas(Order::Acquire, Order::SeqCst).invalid_order(), Some(OrderRule::CasFailureAboveSuccess { success: Order::Acquire, failure: Order::SeqCst }));
    }

    #[test]
    fn strengthening_makes_every_order_seq_cst_and_every_fence_a_skip() {
        let src = "dialect bfj\nclass C {\n  fields f, g\n}\ninit {\n  o = new C\n}\nthread {\n  o.g = 1\n  fence(release)\n  o.f.store(1, relaxed)\n}\nthread {\n  t = o.f.load(relaxed)\n  if t == 1 {\n    fence(acquire)\n    r = o.g\n  }\n  ok = o.f.cas(0, 2, acq_rel, acquire)\n  x = o.f.fetch_add(1, release)\n}\n";
        let p = crate::lang::parse(src).unwrap();
        let s = p.strengthened();
        assert!(!p.race_freedom_is_exact() && s.race_freedom_is_exact());
        assert_eq!(s.atomics().len(), 4, "fences are gone, the four accesses stay");
        let printed = crate::lang::print(&s);
        assert!(printed.contains("skip") && !printed.contains("fence") && !printed.contains("relaxed") && printed.contains("o.f.cas(0, 2, seq_cst, seq_cst)"), "{printed}");
        assert_eq!(s.strengthened(), s, "strengthening is idempotent");
        assert_eq!(s.threads[1].len(), p.threads[1].len(), "lines and blocks keep their shape");
    }
}
