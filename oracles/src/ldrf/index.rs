//! Typed indices of a [`Cfg`](super::cfg::Cfg): a [`Var`], a [`Lock`], a [`Node`]
//! (location) and an [`Edge`] (instruction) are distinct types, so that one cannot index
//! another's table.
//!
//! Each is small so that states stay small (docs/spec/ldrf.md §6.1: the engines are
//! explicit-state). The `ldrf` dialect's **size** rule ([`MAX_VARS`], [`MAX_LOCKS`],
//! [`MAX_STATEMENTS`]) rejects a program whose tables would not fit, with exit 2, before any
//! index is made; so the checked constructors (`new`) fail only on an internal bug, and say
//! so. [`TryFrom<usize>`] is the non-panicking form, for callers that probe a range.
//!
//! An index hashes, orders and prints (`{:?}`, `{}`) exactly as its number does, so state
//! keys, sorted outputs and findings are those of plain integers.

use crate::lang::dialect::ldrf::{MAX_LOCKS, MAX_STATEMENTS, MAX_VARS};

// `index()` widens a `u32` to a `usize`: lossless on every target this crate builds for.
const _: () = assert!(usize::BITS >= 32);

macro_rules! index {
    ($(#[$doc:meta])* $name:ident($int:ty), $what:literal, $limit:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, serde::Serialize)]
        #[serde(transparent)]
        pub struct $name($int);

        impl $name {
            /// The `n`th one. Panics (an internal bug) past the dialect's size rule, which
            /// rejects such a program first.
            pub fn new(n: usize) -> $name {
                $name::try_from(n).unwrap_or_else(|_| panic!("racefuzz internal bug: more than {} {} passed the ldrf validator (its size rule)", $limit, $what))
            }

            /// Its position in the table it indexes.
            pub fn index(self) -> usize {
                // OK since the integer is at most 32 bits and `usize` at least 32 (asserted above).
                self.0 as usize
            }
        }

        impl TryFrom<usize> for $name {
            type Error = std::num::TryFromIntError;

            fn try_from(n: usize) -> Result<$name, Self::Error> {
                <$int>::try_from(n).map($name)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&self.0, f)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

index!(
    /// A variable: an index into [`Cfg::vars`](super::cfg::Cfg::vars). The size rule admits
    /// [`MAX_VARS`], twice that with Remark 13's ghosts (§3), within 16 bits.
    Var(u16),
    "variables",
    2 * MAX_VARS
);

index!(
    /// A lock: an index into [`Cfg::locks`](super::cfg::Cfg::locks) (at most [`MAX_LOCKS`]).
    Lock(u16),
    "locks",
    MAX_LOCKS
);

index!(
    /// A location: an index into [`Cfg::owner`](super::cfg::Cfg::owner) and
    /// [`Cfg::out`](super::cfg::Cfg::out). At most three per statement, of which the size rule
    /// admits [`MAX_STATEMENTS`], plus one per ghost access Remark 13 inserts.
    Node(u32),
    "locations",
    3 * MAX_STATEMENTS
);

index!(
    /// An instruction: an index into [`Cfg::edges`](super::cfg::Cfg::edges) (read through
    /// [`Cfg::edge`](super::cfg::Cfg::edge)). At most four per statement (an `if`: two
    /// assumes and two joining skips), of which the size rule admits [`MAX_STATEMENTS`], plus
    /// one per ghost access Remark 13 inserts.
    Edge(u32),
    "instructions",
    4 * MAX_STATEMENTS
);

#[cfg(test)]
mod tests {
    use super::*;

    /// The limits the size rule guarantees fit, and the first that does not is refused.
    #[test]
    fn the_size_rule_fits_and_overflow_is_refused() {
        assert_eq!(Var::new(2 * MAX_VARS - 1).index(), 2 * MAX_VARS - 1);
        assert_eq!(Lock::new(MAX_LOCKS).index(), MAX_LOCKS);
        assert_eq!(Node::new(3 * MAX_STATEMENTS).index(), 3 * MAX_STATEMENTS);
        assert_eq!(Edge::new(4 * MAX_STATEMENTS).index(), 4 * MAX_STATEMENTS);
        assert!(Var::try_from(1 << 16).is_err() && Lock::try_from(1 << 16).is_err());
        if let Ok(n) = usize::try_from(1u64 << 32) {
            assert!(Node::try_from(n).is_err() && Edge::try_from(n).is_err());
        }
        assert!(std::panic::catch_unwind(|| Var::new(1 << 16)).is_err());
        assert_eq!((format!("{:?}", Node::new(7)), Node::new(7).to_string(), format!("{:?}", vec![Var::new(2)])), ("7".into(), "7".into(), "[2]".into()));
        assert_eq!((format!("{:?}", (Edge::new(3), Edge::new(5))), Edge::new(9).to_string()), ("(3, 5)".into(), "9".into()));
    }
}
