//! Expression evaluation and place resolution: locals, access-free expressions, RacerDX path
//! actuals, the addresses a heap access or a BFJ `check` names, and the cell it reads
//! (spec/racerdx.md §2.2, spec/bigfoot.md §2.3). Faults (null dereference, overflow, a
//! range too long) are [`Disabled::Fault`] values, never panics.

use super::*;
use crate::lang::*;

impl<'p> State<'p> {
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

    /// A call actual: an expression, or a path whose value is read without an access event
    /// (`push(ē)` is no access in Def. 3.6).
    pub(super) fn eval_arg(&self, m: &Machine<'p>, t: ThreadId, e: &Expr) -> Step<Value> {
        match e {
            Expr::Path(p) => {
                let a = self.resolve(m, t, p)?;
                self.check_cell(m, t, a)
            }
            e => self.eval(t, e),
        }
    }

    pub(super) fn obj_of(&self, t: ThreadId, x: &str) -> Step<ObjId> {
        match self.local(t, x)? {
            Value::Obj(o) => Ok(o),
            v => fault(format!("`{x}` is {}, not an object", show_value(v))),
        }
    }

    /// The address a place designates; dereferencing the prefix `x.f1…f(n-1)` reads cells
    /// without access events (Def. 3.1).
    pub(super) fn resolve(&self, m: &Machine<'p>, t: ThreadId, p: &Place) -> Step<Addr> {
        match p {
            Place::Index { base, index } => {
                let o = self.obj_of(t, base)?;
                match self.eval(t, index)? {
                    Value::Int(i) => Ok(Addr::Index(o, i)),
                    v => fault(format!("index {v:?} is not an integer")),
                }
            }
            Place::Field { base, fields } => {
                let mut o = self.obj_of(t, base)?;
                let (last, prefix) = fields.split_last().expect("racefuzz internal bug: empty path");
                for f in prefix {
                    let a = Addr::Field(o, field_id(m, f)?);
                    o = match self.check_cell(m, t, a)? {
                        Value::Obj(n) => n,
                        v => return fault(format!("path prefix `.{f}` is {}, not an object", show_value(v))),
                    };
                }
                Ok(Addr::Field(o, field_id(m, last)?))
            }
        }
    }

    /// Reads `a` for thread `t` after checking that the access is allowed: the cell exists,
    /// and a capsule's fields are touched only from inside it (CAPREAD/CAPWRITE).
    pub(super) fn check_cell(&self, m: &Machine<'p>, t: ThreadId, a: Addr) -> Step<Value> {
        let o = &self.objects[idx(a.obj())];
        if m.is_capsule(self, a.obj()) && self.executor(t) != Some(a.obj()) {
            return fault(format!("capsule violation: field of capsule {} accessed from outside it", o.name));
        }
        match a {
            Addr::Field(_, f) => match o.fields.get(f.0 as usize).copied().unwrap_or(Cell::Absent) {
                Cell::Val(v) => Ok(v),
                Cell::Lazy => Err(Disabled::NeedChoice(LazyRef::Cell(a.obj(), f))),
                Cell::Absent => fault(format!("{} has no field `{}`", o.name, m.fields[f.0 as usize])),
            },
            Addr::Index(_, i) => match &o.elems {
                Some(es) => {
                    usize::try_from(i).ok().and_then(|i| es.get(i).copied()).ok_or_else(|| Disabled::Fault(format!("index {i} out of bounds of {} (length {})", o.name, es.len())))
                }
                None => fault(format!("{} is not an array", o.name)),
            },
        }
    }

    pub(super) fn write(&mut self, a: Addr, v: Value) {
        let o = &mut self.objects[idx(a.obj())];
        match a {
            Addr::Field(_, f) => o.fields[f.0 as usize] = Cell::Val(v),
            Addr::Index(_, i) => {
                if let Some(slot) = o.elems.as_mut().and_then(|es| usize::try_from(i).ok().and_then(|i| es.get_mut(i))) {
                    *slot = v;
                }
            }
        }
    }

    /// The addresses a `check` names, in order (E-CHKFIELD, E-CHKINDEX).
    pub(super) fn check_addrs(&self, m: &Machine<'p>, t: ThreadId, items: &[CheckItem]) -> Step<Vec<(AccessKind, Addr)>> {
        let mut out = vec![];
        for it in items {
            match &it.target {
                CheckTarget::Fields { base, fields } => {
                    let o = self.obj_of(t, base)?;
                    for f in fields {
                        out.push((it.kind, Addr::Field(o, field_id(m, f)?)));
                    }
                }
                CheckTarget::Range { base, lo, hi, stride } => {
                    let o = self.obj_of(t, base)?;
                    let int = |e: &Expr| match self.eval(t, e)? {
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

    fn steps(src: &str) -> Vec<Step<Option<EventKind>>> {
        let p = parse(src).unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        (0..6).map(|_| m.step(&mut st, thread_id(0), 0)).take_while(|r| !matches!(r, Err(Disabled::Fault(w)) if w.contains("finished"))).collect()
    }

    #[test]
    fn places_resolve_to_addresses_and_null_faults() {
        let r = steps("dialect bfj\ninit { o = new; a = new_array 4 }\nthread { o.f = 1; i = 2; a[i] = 3; t = a[i] }\n");
        assert!(matches!(r[0], Ok(Some(EventKind::Access(AccessKind::Write, Addr::Field(_, _))))), "{r:?}");
        assert!(matches!(r[2], Ok(Some(EventKind::Access(AccessKind::Write, Addr::Index(_, 2))))), "{r:?}");
        assert!(matches!(r[3], Ok(Some(EventKind::Access(AccessKind::Read, Addr::Index(_, 2))))), "{r:?}");
        let r = steps("dialect bfj\ninit { n = null }\nthread { t = n.f }\n");
        assert!(matches!(&r[0], Err(Disabled::Fault(w)) if w.contains("null")), "{r:?}");
    }

    #[test]
    fn out_of_bounds_and_overflow_are_faults() {
        let r = steps("dialect bfj\ninit { a = new_array 2 }\nthread { a[5] = 1 }\n");
        assert!(matches!(r[0], Err(Disabled::Fault(_))), "{r:?}");
        let r = steps("dialect bfj\nthread { x = 9223372036854775807; y = x + 1 }\n");
        assert!(matches!(r[1], Err(Disabled::Fault(_))), "{r:?}");
    }
}
