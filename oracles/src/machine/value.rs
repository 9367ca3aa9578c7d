//! Values, heap cells and objects, the per-dialect semantic parameters ([`Semantics`]), and
//! the arithmetic of expressions (spec/racerdx.md §2.2; spec/bigfoot.md §2.3, §9.3 A25;
//! spec/escape_capsule.md §2.2). Every dialect difference the machine knows is a field of
//! [`Semantics`].

use super::*;
use crate::lang::*;

/// A runtime value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// `null` / RacerDX's `nil`.
    Null,
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// An object or array.
    Obj(ObjId),
    /// A thread handle returned by `fork`.
    Thread(ThreadId),
}

/// What `new` stores in a fresh object's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldInit {
    /// Every field points to the object itself (RacerDX, spec/racerdx.md §2.2).
    SelfLoop,
    /// `null` (SimpleJava, CapJava).
    Null,
    /// `0` (BFJ, spec/bigfoot.md A25/§9.3).
    Zero,
}

/// The dialect's semantic parameters.
#[derive(Clone, Copy, Debug)]
pub struct Semantics {
    /// What `new` initializes fields to.
    pub field_init: FieldInit,
    /// Whether capsule entries obey `capFree` (CapJava, spec/escape_capsule.md §7.4), which
    /// makes the state carry happens-before.
    pub cap_free: bool,
}

impl Semantics {
    /// The parameters of `d`'s paper.
    pub fn of(d: Dialect) -> Semantics {
        let field_init = match d {
            Dialect::RacerDx => FieldInit::SelfLoop,
            Dialect::Bfj => FieldInit::Zero,
            Dialect::SimpleJava | Dialect::CapJava => FieldInit::Null,
        };
        Semantics { field_init, cap_free: d == Dialect::CapJava }
    }
}

/// A cell of an object: absent (the class has no such field), undetermined (lazy initial
/// heap), or a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Not a field of this object.
    Absent,
    /// Part of the initial heap, not yet fixed.
    Lazy,
    /// A value.
    Val(Value),
}

/// A heap object.
#[derive(Clone, Debug)]
pub struct Object {
    /// Display name, stable across executions (`b`, `y@T1`, `l1`).
    pub name: String,
    /// Index into `Program::classes`, if allocated with a class.
    pub class: Option<usize>,
    /// Field cells, indexed by [`FieldId`] (records), empty for arrays.
    pub fields: Vec<Cell>,
    /// Elements (arrays only).
    pub elems: Option<Vec<Value>>,
    /// Holder of the object's lock.
    pub lock_owner: Option<ThreadId>,
    /// The thread inside this capsule, if any.
    pub capsule_holder: Option<ThreadId>,
    /// Part of the initial heap given by the caller (not allocated by the program).
    pub initial: bool,
}

/// Where the lazy initial heap is undetermined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LazyRef {
    /// A field of an initial object.
    Cell(ObjId, FieldId),
    /// A formal of a thread's initial frame.
    Local(ThreadId, usize),
}

/// Why a thread cannot take a step now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Disabled {
    /// Waiting (lock held, join target running, capsule occupied); may become enabled.
    Blocked(String),
    /// No rule applies (null dereference, unlock at depth 0, capsule violation, failed assert).
    Fault(String),
    /// `assume` of a false condition: the execution is infeasible.
    Infeasible,
    /// A lazy initial-heap value must be chosen first.
    NeedChoice(LazyRef),
}

pub(super) type Step<T> = Result<T, Disabled>;

pub(super) fn fault<T>(msg: impl Into<String>) -> Step<T> {
    Err(Disabled::Fault(msg.into()))
}

/// The most elements one `check` range may name (arrays are at most 1024 long too).
pub(super) const MAX_CHECK_RANGE: i64 = 1024;

/// A field's id; the program can name at most 65,536 distinct fields.
pub(super) fn field_id(m: &Machine<'_>, f: &str) -> Step<FieldId> {
    m.field(f).ok_or_else(|| Disabled::Fault(format!("field `{f}`: more than 65,536 distinct field names")))
}

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

pub(super) fn show_value(v: Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Obj(o) => format!("object #{}", o.0),
        Value::Thread(t) => format!("thread handle #{}", t.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semantics_per_dialect() {
        assert_eq!(Semantics::of(Dialect::RacerDx).field_init, FieldInit::SelfLoop);
        assert_eq!(Semantics::of(Dialect::Bfj).field_init, FieldInit::Zero);
        assert_eq!(Semantics::of(Dialect::SimpleJava).field_init, FieldInit::Null);
        assert!(Semantics::of(Dialect::CapJava).cap_free && !Semantics::of(Dialect::SimpleJava).cap_free);
    }

    #[test]
    fn arithmetic_faults_instead_of_panicking() {
        assert_eq!(binary(BinOp::Add, Value::Int(2), Value::Int(3)), Ok(Value::Int(5)));
        assert!(matches!(binary(BinOp::Add, Value::Int(i64::MAX), Value::Int(1)), Err(Disabled::Fault(_))));
        assert!(matches!(binary(BinOp::Rem, Value::Int(i64::MIN), Value::Int(-1)), Err(Disabled::Fault(_))));
        assert!(matches!(binary(BinOp::Rem, Value::Int(1), Value::Int(0)), Err(Disabled::Fault(_))));
    }
}
