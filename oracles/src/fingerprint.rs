//! The 128-bit state key of every visited set: two independent 64-bit SipHash runs (std's
//! `DefaultHasher` with the prefixes `0xa5` and `0x5a`) over one `Hash` stream.
//!
//! A visited set holds keys, not states, so two different states share a key only on a
//! collision, which over the at most millions of states of one search has probability below
//! 2⁻⁸⁰. Keys only deduplicate: no count depends on their values, only on their equality.
//!
//! The stream is written once into a buffer, then each hasher takes the buffer in one
//! write: SipHash is a streaming hash (the result depends on the bytes written, not on how
//! they were split into writes), so this gives the same key as feeding the value into both
//! hashers directly, without walking it twice through SipHash's many small writes (half of
//! naik-aiken-sound's time, measured). The test below checks the equality.
//!
//! A leaf module: it uses nothing from the crate.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// Computes keys, reusing one scratch buffer across calls.
#[derive(Debug, Default)]
pub struct Fingerprinter {
    buf: Vec<u8>,
}

impl Fingerprinter {
    /// The key of a value's `Hash` stream.
    pub fn of<T: Hash + ?Sized>(&mut self, x: &T) -> u128 {
        self.of_stream(|h| x.hash(h))
    }

    /// The key of whatever `feed` writes (for values hashed by a custom walk rather than
    /// their `Hash` impl).
    pub fn of_stream(&mut self, feed: impl FnOnce(&mut Bytes)) -> u128 {
        let mut bytes = Bytes(std::mem::take(&mut self.buf));
        bytes.0.clear();
        feed(&mut bytes);
        let (mut a, mut b) = (DefaultHasher::new(), DefaultHasher::new());
        0xa5u8.hash(&mut a);
        0x5au8.hash(&mut b);
        a.write(&bytes.0);
        b.write(&bytes.0);
        self.buf = bytes.0;
        (u128::from(a.finish()) << 64) | u128::from(b.finish())
    }
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

    /// The key of two hashers fed directly (the stateful explorer's primitive).
    fn direct<T: Hash>(x: &T) -> u128 {
        let (mut a, mut b) = (DefaultHasher::new(), DefaultHasher::new());
        0xa5u8.hash(&mut a);
        0x5au8.hash(&mut b);
        x.hash(&mut a);
        x.hash(&mut b);
        (u128::from(a.finish()) << 64) | u128::from(b.finish())
    }

    #[test]
    fn buffered_keys_equal_direct_keys() {
        let mut f = Fingerprinter::default();
        let values: Vec<(Vec<u32>, String, Option<u8>, i64)> =
            vec![(vec![], String::new(), None, 0), (vec![1, 2, 3], "x@T1".into(), Some(7), -5), (vec![0; 40], "a".repeat(300), Some(0), i64::MAX)];
        for v in &values {
            assert_eq!(f.of(v), direct(v));
        }
        assert_ne!(f.of(&values[0]), f.of(&values[1]));
        // The scratch buffer is cleared between calls.
        assert_eq!(f.of(&values[2]), f.of(&values[2]));
    }
}
