//! The 128-bit state key of every visited set: XXH3-128 (the `xxhash-rust` crate, a
//! published non-cryptographic hash with full 128-bit output and a public test suite) over
//! a value's `Hash` stream.
//!
//! A visited set holds keys, not states, so two different states share a key only on a
//! collision, which over the at most millions of states of one search has probability below
//! 2⁻⁸⁰ for a hash whose outputs behave as uniform (XXH3-128 passes SMHasher's collision and
//! avalanche tests). Keys only deduplicate: no count depends on their values, only on their
//! equality, so the golden counts of `tests/explore.rs` are the check that replacing the
//! hash changed nothing.
//!
//! The stream is written once into a buffer (reused across calls) and hashed in one call.
//! This replaced two SipHash-1-3 runs over the same buffer, which were a third of
//! naik-aiken-sound's instructions (measured with callgrind, 300 programs).
//!
//! A leaf module: it uses nothing from the crate.

use std::hash::{Hash, Hasher};

thread_local! {
    /// The scratch buffer of this thread's keys, so that keying allocates nothing once it
    /// has grown to the largest stream.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The key of a value's `Hash` stream.
pub fn of<T: Hash + ?Sized>(x: &T) -> u128 {
    of_stream(|h| x.hash(h))
}

/// The key of whatever `feed` writes (for values hashed by a custom walk rather than their
/// `Hash` impl). A `feed` that itself computes a key gets a buffer of its own.
pub fn of_stream(feed: impl FnOnce(&mut Bytes)) -> u128 {
    SCRATCH.with(|scratch| {
        let mut borrowed = scratch.try_borrow_mut();
        let mut bytes = Bytes(borrowed.as_deref_mut().map(std::mem::take).unwrap_or_default());
        bytes.0.clear();
        feed(&mut bytes);
        let key = xxhash_rust::xxh3::xxh3_128(&bytes.0);
        if let Ok(buf) = borrowed.as_deref_mut() {
            *buf = bytes.0;
        }
        key
    })
}

/// A `Hasher` that keeps the bytes written to it (its `finish` is unused).
#[derive(Debug)]
pub struct Bytes(Vec<u8>);

impl Hasher for Bytes {
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    fn finish(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct values get distinct keys, equal values equal keys, on a family of small,
    /// structured values (the shape of states: short vectors of small numbers, names), and
    /// the scratch buffer is cleared between calls.
    #[test]
    fn keys_separate_small_structured_values() {
        let mut seen = std::collections::HashMap::new();
        let mut n = 0;
        for len in 0..4usize {
            for code in 0..6u32.pow(len as u32) {
                let v: Vec<u32> = (0..len).map(|i| code / 6u32.pow(i as u32) % 6).collect();
                for name in ["", "x@T1", "x@T2", "l1"] {
                    let value = (v.clone(), name);
                    let k = of(&value);
                    assert_eq!(k, of(&value));
                    if let Some(other) = seen.insert(k, value.clone()) {
                        panic!("{other:?} and {value:?} share a key");
                    }
                    n += 1;
                }
            }
        }
        assert_eq!(n, 4 * (1 + 6 + 36 + 216));
    }

    /// A key computed while another is being fed uses a buffer of its own, and neither
    /// disturbs the other.
    #[test]
    fn a_key_inside_a_feed_is_the_same_key() {
        let alone = (of(&[1u8, 2, 3]), of(&"inner"));
        let mut inner = 0;
        let outer = of_stream(|h| {
            inner = of(&"inner");
            [1u8, 2, 3].hash(h);
        });
        assert_eq!((outer, inner), alone);
    }
}
