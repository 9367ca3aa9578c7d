//! Parsing atomic operations and fences (docs/spec/atomics.md §1.1): `[r =] x.f….op(values,
//! orders)` once the field path is read, and memory orders written in full.

use super::*;
use crate::lang::lexer::Tok;
use crate::lang::print;

impl Parser<'_> {
    /// An atomic operation `[dst =] x.f….op(values, orders)` (docs/spec/atomics.md §1.1),
    /// at the `(`: `path` is the field path with the operation's name as its last field.
    pub(super) fn atomic(&mut self, dst: Option<String>, path: Place) -> PResult<StmtKind> {
        let Place::Field { base, mut fields } = path else {
            return self.err(ParseErrorKind::Form, "atomic operations apply to a field path (`x.f.load(o)`), not to an array element");
        };
        let op = fields.pop().unwrap_or_default();
        let Some(&(op, n_vals, n_orders)) = ATOMIC_METHODS.iter().find(|(m, ..)| *m == op) else {
            return self.err(ParseErrorKind::Form, &format!("`.{op}(..)` on a field: the atomic operations are load, store, fetch_add, xchg and cas (spec/atomics.md §1.1)"));
        };
        if fields.is_empty() {
            return self.err(ParseErrorKind::Form, &format!("`{base}.{op}(..)`: an atomic operation applies to a field (`{base}.f.{op}(..)`)"));
        }
        let place = Place::Field { base, fields };
        self.expect_punct("(")?;
        let mut vals = vec![];
        for _ in 0..n_vals {
            vals.push(self.expr()?);
            self.expect_punct(",")?;
        }
        let mut orders = vec![self.order()?];
        for _ in 1..n_orders {
            self.expect_punct(",")?;
            orders.push(self.order()?);
        }
        self.expect_punct(")")?;
        let (mut vals, order) = (vals.into_iter(), orders[0]);
        let mut val = || vals.next().unwrap_or(Expr::Null);
        let atomic = match (op, dst) {
            ("store", None) => Atomic::Store { place, val: val(), order },
            ("store", Some(d)) => return self.err(ParseErrorKind::Form, &format!("`store` returns nothing; write `{}.store(v, o)` without `{d} =`", print::place(&place))),
            (_, None) => return self.err(ParseErrorKind::Form, &format!("`{op}` returns a value; write `r = {}.{op}(..)`", print::place(&place))),
            ("load", Some(dst)) => Atomic::Load { dst, place, order },
            ("fetch_add", Some(dst)) => Atomic::Rmw { dst, op: RmwOp::FetchAdd, place, val: val(), order },
            ("xchg", Some(dst)) => Atomic::Rmw { dst, op: RmwOp::Xchg, place, val: val(), order },
            (_, Some(dst)) => Atomic::Cas { dst, place, expected: val(), new: val(), success: order, failure: orders[1] },
        };
        Ok(StmtKind::Atomic(atomic))
    }

    /// A memory order written in full (`consume` reads as `acquire`).
    pub(super) fn order(&mut self) -> PResult<Order> {
        if let Tok::Ident(w) = self.peek() {
            if let Some(o) = Order::from_name(w) {
                self.bump();
                return Ok(o);
            }
        }
        self.expected("a memory order (`relaxed`, `consume`, `acquire`, `release`, `acq_rel` or `seq_cst`)")
    }
}
