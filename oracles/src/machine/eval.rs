//! Expression evaluation and place resolution: access-free expressions over locals, RacerDX
//! path actuals, the address a heap access names (Def. 3.1: dereferencing a path's prefix is
//! no access) and the addresses of a BFJ `check` (E-CHKFIELD, E-CHKINDEX) (docs/spec/racerdx.md
//! §2.2, docs/spec/bigfoot.md §2.3). Faults (null dereference, overflow, remainder by zero, a
//! range too long) are [`Disabled::Fault`] values, never panics.

use super::*;
use crate::lang::*;

/// The most elements one `check` range may name (arrays are at most 1024 long too).
pub(super) const MAX_CHECK_RANGE: i64 = 1024;

/// A field's id; the program can name at most 65,536 distinct fields.
pub(super) fn field_id(m: &Machine<'_>, f: &str) -> Step<FieldId> {
    m.field(f).ok_or_else(|| Disabled::Fault(format!("field `{f}`: more than 65,536 distinct field names")))
}

/// A binary operator applied to two values; overflow and a zero divisor are faults.
pub(super) fn binary(op: BinOp, x: Value, y: Value) -> Step<Value> {
    use Value::*;
    let overflow = || Disabled::Fault("integer overflow".into());
    Ok(match (op, x, y) {
        (BinOp::Eq, a, b) => Bool(a == b),
        (BinOp::Ne, a, b) => Bool(a != b),
        (BinOp::And, Bool(a), Bool(b)) => Bool(a && b),
        (BinOp::Or, Bool(a), Bool(b)) => Bool(a || b),
        (BinOp::Lt, Int(a), Int(b)) => Bool(a < b),
        (BinOp::Le, Int(a), Int(b)) => Bool(a <= b),
        (BinOp::Gt, Int(a), Int(b)) => Bool(a > b),
        (BinOp::Ge, Int(a), Int(b)) => Bool(a >= b),
        (BinOp::Add, Int(a), Int(b)) => Int(a.checked_add(b).ok_or_else(overflow)?),
        (BinOp::Sub, Int(a), Int(b)) => Int(a.checked_sub(b).ok_or_else(overflow)?),
        (BinOp::Mul, Int(a), Int(b)) => Int(a.checked_mul(b).ok_or_else(overflow)?),
        (BinOp::Rem, Int(_), Int(0)) => return fault("remainder by zero"),
        (BinOp::Rem, Int(a), Int(b)) => Int(a.checked_rem_euclid(b).ok_or_else(overflow)?),
        (op, a, b) => return fault(format!("`{}` applied to {} and {}", op.symbol(), show_value(a), show_value(b))),
    })
}

impl<'p> State<'p> {
    /// Evaluates an access-free expression over `t`'s locals.
    pub(super) fn eval(&self, t: ThreadId, e: &Expr) -> Step<Value> {
        Ok(match e {
            Expr::Int(i) => Value::Int(*i),
            Expr::Bool(b) => Value::Bool(*b),
            Expr::Null => Value::Null,
            Expr::Var(x) => self.local(t, x)?,
            Expr::Path(_) => return fault("racefuzz internal bug: path in an expression"),
            Expr::Unary(op, a) => match (op, self.eval(t, a)?) {
                (UnOp::Not, Value::Bool(b)) => Value::Bool(!b),
                (UnOp::Neg, Value::Int(i)) => Value::Int(i.checked_neg().ok_or(Disabled::Fault("integer overflow".into()))?),
                (_, v) => return fault(format!("operator applied to {v:?}")),
            },
            Expr::Binary(op, a, b) => {
                let (x, y) = (self.eval(t, a)?, self.eval(t, b)?);
                binary(*op, x, y)?
            }
        })
    }

    /// The object in local `x`; anything else (`null` first of all) is a fault.
    pub(super) fn obj_of(&self, t: ThreadId, x: &str) -> Step<ObjId> {
        match self.local(t, x)? {
            Value::Obj(o) => Ok(o),
            v => fault(format!("`{x}` is {}, not an object", show_value(v))),
        }
    }
}

impl<'p> Machine<'p> {
    /// A call actual: an expression, or a path whose value is read without an access event
    /// (`push(ē)` is no access in Def. 3.6).
    pub(super) fn eval_arg(&self, st: &State<'p>, t: ThreadId, e: &Expr) -> Step<Value> {
        match e {
            Expr::Path(p) => {
                let a = self.resolve(st, t, p)?;
                self.read(st, t, a)
            }
            e => st.eval(t, e),
        }
    }

    /// The address a place designates; dereferencing the prefix `x.f1…f(n-1)` reads cells
    /// without access events (Def. 3.1).
    pub(super) fn resolve(&self, st: &State<'p>, t: ThreadId, p: &Place) -> Step<Addr> {
        match p {
            Place::Index { base, index } => {
                let o = st.obj_of(t, base)?;
                match st.eval(t, index)? {
                    Value::Int(i) => Ok(Addr::Index(o, i)),
                    v => fault(format!("index {v:?} is not an integer")),
                }
            }
            Place::Field { base, fields } => {
                let mut o = st.obj_of(t, base)?;
                let (last, prefix) = fields.split_last().expect("racefuzz internal bug: empty path");
                for f in prefix {
                    let a = Addr::Field(o, field_id(self, f)?);
                    o = match self.read(st, t, a)? {
                        Value::Obj(n) => n,
                        v => return fault(format!("path prefix `.{f}` is {}, not an object", show_value(v))),
                    };
                }
                Ok(Addr::Field(o, field_id(self, last)?))
            }
        }
    }

    /// The addresses a `check` names, in order (E-CHKFIELD, E-CHKINDEX).
    pub(super) fn check_addrs(&self, st: &State<'p>, t: ThreadId, items: &[CheckItem]) -> Step<Vec<(AccessKind, Addr)>> {
        let mut out = vec![];
        for it in items {
            match &it.target {
                CheckTarget::Fields { base, fields } => {
                    let o = st.obj_of(t, base)?;
                    for f in fields {
                        out.push((it.kind, Addr::Field(o, field_id(self, f)?)));
                    }
                }
                CheckTarget::Range { base, lo, hi, stride } => {
                    let o = st.obj_of(t, base)?;
                    let int = |e: &Expr| match st.eval(t, e)? {
                        Value::Int(i) => Ok(i),
                        v => fault(format!("range bound {v:?} is not an integer")),
                    };
                    let lo = int(lo)?;
                    let hi = match hi {
                        Some(h) => int(h)?,
                        None => lo.saturating_add(1),
                    };
                    let k = stride.unwrap_or(1).max(1);
                    if hi.saturating_sub(lo) / k > MAX_CHECK_RANGE {
                        return fault(format!("check range {lo}..{hi} names more than {MAX_CHECK_RANGE} elements"));
                    }
                    let mut i = lo;
                    while i < hi {
                        out.push((it.kind, Addr::Index(o, i)));
                        i = i.saturating_add(k);
                    }
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    /// The first `n` steps of the only thread of `src`.
    fn steps(src: &str, n: usize) -> Vec<Step<Option<EventKind>>> {
        let p = parse(src).unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        (0..n).map(|_| m.step(&mut st, thread_id(0), 0)).collect()
    }

    fn f(msg: &str) -> Step<Option<EventKind>> {
        Err(Disabled::Fault(msg.into()))
    }

    #[test]
    fn arithmetic_and_comparisons() {
        use Value::Int;
        assert_eq!(binary(BinOp::Add, Int(2), Int(3)), Ok(Int(5)));
        assert_eq!(binary(BinOp::Mul, Int(-4), Int(3)), Ok(Int(-12)));
        assert_eq!(binary(BinOp::Rem, Int(-7), Int(3)), Ok(Int(2)), "`%` is Euclidean");
        assert_eq!(binary(BinOp::Le, Int(3), Int(3)), Ok(Value::Bool(true)));
        assert_eq!(binary(BinOp::Eq, Value::Null, Value::Obj(ObjId(0))), Ok(Value::Bool(false)));
        let p = parse("dialect bfj\nthread { x = -(2 + 3) * 4 % 7; b = !(x == 1) && true }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        m.step(&mut st, thread_id(0), 0).unwrap();
        m.step(&mut st, thread_id(0), 0).unwrap();
        assert_eq!(st.threads[0].final_locals, Some(vec![("x", Some(Int(1))), ("b", Some(Value::Bool(false)))]));
    }

    #[test]
    fn overflow_remainder_by_zero_and_type_errors_are_faults_not_panics() {
        use Value::Int;
        let overflow = Err(Disabled::Fault("integer overflow".into()));
        assert_eq!(binary(BinOp::Add, Int(i64::MAX), Int(1)), overflow);
        assert_eq!(binary(BinOp::Rem, Int(i64::MIN), Int(-1)), overflow);
        assert_eq!(binary(BinOp::Rem, Int(1), Int(0)), Err(Disabled::Fault("remainder by zero".into())));
        assert_eq!(binary(BinOp::Add, Int(1), Value::Bool(true)), Err(Disabled::Fault("`+` applied to 1 and true".into())));
        let r = steps("dialect bfj\nthread { x = -9223372036854775807 - 1; y = -x }\n", 2);
        assert_eq!(r, [Ok(None), f("integer overflow")]);
    }

    #[test]
    fn places_resolve_to_addresses() {
        let r = steps("dialect bfj\ninit { o = new; a = new_array 4 }\nthread { o.f = 1; i = 2; a[i] = 3; t = a[i] }\n", 4);
        let write = |a| Ok(Some(EventKind::Access(AccessKind::Write, a)));
        assert_eq!(r[0], write(Addr::Field(ObjId(0), FieldId(0))));
        assert_eq!(r[2], write(Addr::Index(ObjId(1), 2)));
        assert_eq!(r[3], Ok(Some(EventKind::Access(AccessKind::Read, Addr::Index(ObjId(1), 2)))));
    }

    #[test]
    fn null_dereference_bounds_and_paths_are_faults() {
        assert_eq!(steps("dialect bfj\ninit { n = null }\nthread { t = n.f }\n", 1), [f("`n` is null, not an object")]);
        assert_eq!(steps("dialect bfj\ninit { a = new_array 2 }\nthread { a[5] = 1 }\n", 1), [f("index 5 out of bounds of a (length 2)")]);
        assert_eq!(steps("dialect bfj\ninit { o = new }\nthread { t = o.f.g }\n", 1), [f("path prefix `.f` is 0, not an object")]);
        assert_eq!(steps("dialect bfj\ninit { o = new }\nthread { t = o[0] }\n", 1), [f("o is not an array")]);
    }

    #[test]
    fn check_ranges_name_each_element_and_are_bounded() {
        let r = steps("dialect bfj\ninit { a = new_array 8 }\nthread { check(W: a[1..6:2]) }\n", 3);
        let ev = |i| Ok(Some(EventKind::Check(AccessKind::Write, Addr::Index(ObjId(0), i))));
        assert_eq!(r, [ev(1), ev(3), ev(5)]);
        let r = steps("dialect bfj\ninit { a = new_array 8 }\nthread { check(R: a[0..2000]) }\n", 1);
        assert_eq!(r, [f("check range 0..2000 names more than 1024 elements")]);
    }
}
