//! Runtime values (docs/spec/racerdx.md §2.1 `nil` and locations; docs/spec/bigfoot.md §2.2 values;
//! docs/spec/escape_capsule.md §2.2) and the reasons a thread cannot step ([`Disabled`]): a
//! step's result is a [`Step`], and a fault is a value, never a panic.

use super::*;

/// A runtime value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
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

/// The result of a rule: a value, or why the thread cannot step.
pub(super) type Step<T> = Result<T, Disabled>;

/// A [`Disabled::Fault`] with `msg`.
pub(super) fn fault<T>(msg: impl Into<String>) -> Step<T> {
    Err(Disabled::Fault(msg.into()))
}

/// A value as the messages of faults show it.
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
    fn values_show_as_in_fault_messages() {
        assert_eq!(show_value(Value::Null), "null");
        assert_eq!(show_value(Value::Int(-7)), "-7");
        assert_eq!(show_value(Value::Bool(true)), "true");
        assert_eq!(show_value(Value::Obj(ObjId(2))), "object #2");
        assert_eq!(show_value(Value::Thread(ThreadId(1))), "thread handle #1");
    }

    #[test]
    fn fault_builds_a_fault() {
        assert_eq!(fault::<()>("no"), Err(Disabled::Fault("no".into())));
    }
}
