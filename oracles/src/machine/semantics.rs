//! The per-dialect semantic parameters: what `new` and `new_array` store (docs/spec/racerdx.md
//! §2.2 self-loops; docs/spec/bigfoot.md A25/§9.3 zeros; docs/spec/escape_capsule.md §2.2 `null`) and
//! whether capsule entries obey CapJava's `capFree` (docs/spec/escape_capsule.md §7.4).
//!
//! This is the only place in the machine that looks at the [`Dialect`]: the rules ask
//! [`Semantics`], never the dialect. Statement forms that exist in one dialect only (the
//! global `lock`, `check`, capsules) need no parameter: the validator keeps them out of the
//! others.

use super::*;
use crate::lang::Dialect;

/// What `new` stores in a fresh object's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldInit {
    /// Every field points to the object itself (RacerDX, docs/spec/racerdx.md §2.2).
    SelfLoop,
    /// `null` (SimpleJava, CapJava).
    Null,
    /// `0` (BFJ, docs/spec/bigfoot.md A25/§9.3).
    Zero,
}

/// The dialect's semantic parameters.
#[derive(Clone, Copy, Debug)]
pub struct Semantics {
    /// What `new` initializes fields to.
    pub field_init: FieldInit,
    /// Whether capsule entries obey `capFree` (CapJava, docs/spec/escape_capsule.md §7.4), which
    /// makes the state carry happens-before.
    pub cap_free: bool,
    /// Whether traces record allocations (`EventKind::New`) and the values events move
    /// ([`super::Moved`]): what a dynamic escape or capsule analysis needs (SimpleJava,
    /// CapJava; docs/spec/escape_capsule.md §2.3 \[REC\] "allocation event").
    pub values: bool,
    /// CapJava's operational mode (spec A14(b)): a capsule violation is taken and marked on
    /// its event ([`super::Violation`]) instead of disabling the step. Off unless asked for
    /// ([`super::Machine::operational`]).
    pub operational: bool,
}

impl Semantics {
    /// The parameters of `d`'s paper.
    pub fn of(d: Dialect) -> Semantics {
        let field_init = match d {
            Dialect::RacerDx => FieldInit::SelfLoop,
            Dialect::Bfj | Dialect::Bfj2 => FieldInit::Zero,
            Dialect::SimpleJava | Dialect::CapJava | Dialect::NaikAiken | Dialect::Ldrf => FieldInit::Null,
        };
        let java = matches!(d, Dialect::SimpleJava | Dialect::CapJava);
        Semantics { field_init, cap_free: d == Dialect::CapJava, values: java, operational: false }
    }

    /// The value `new` stores in every field of the fresh object `id`.
    pub(super) fn new_field(&self, id: ObjId) -> Value {
        match self.field_init {
            FieldInit::SelfLoop => Value::Obj(id),
            FieldInit::Null => Value::Null,
            FieldInit::Zero => Value::Int(0),
        }
    }

    /// The value `new_array` stores in every element: `null` where fields start at `null`,
    /// otherwise 0 (RacerDX has no arrays; the validator rejects them).
    pub(super) fn new_elem(&self) -> Value {
        match self.field_init {
            FieldInit::Null => Value::Null,
            FieldInit::SelfLoop | FieldInit::Zero => Value::Int(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_dialect_has_its_papers_parameters() {
        let sem = Semantics::of;
        assert_eq!(sem(Dialect::RacerDx).field_init, FieldInit::SelfLoop);
        assert_eq!(sem(Dialect::Bfj).field_init, FieldInit::Zero);
        assert_eq!(sem(Dialect::SimpleJava).field_init, FieldInit::Null);
        assert_eq!(sem(Dialect::CapJava).field_init, FieldInit::Null);
        let cap_free: Vec<bool> = Dialect::ALL.iter().map(|d| sem(*d).cap_free).collect();
        assert_eq!(cap_free, Dialect::ALL.iter().map(|d| *d == Dialect::CapJava).collect::<Vec<_>>());
    }

    #[test]
    fn initial_field_and_element_values() {
        let o = ObjId(3);
        assert_eq!(Semantics::of(Dialect::RacerDx).new_field(o), Value::Obj(o));
        assert_eq!(Semantics::of(Dialect::Bfj).new_field(o), Value::Int(0));
        assert_eq!(Semantics::of(Dialect::SimpleJava).new_field(o), Value::Null);
        assert_eq!(Semantics::of(Dialect::Bfj).new_elem(), Value::Int(0));
        assert_eq!(Semantics::of(Dialect::CapJava).new_elem(), Value::Null);
    }
}
