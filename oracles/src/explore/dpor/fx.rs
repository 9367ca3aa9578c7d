//! A fast hasher for DPOR's in-memory tables (the race detection's per-resource tables, the
//! interned names of threads and objects). Their keys are small ids and the program's own
//! names, so no adversary chooses them, and nothing iterates over those tables, so their
//! order never shows: the standard SipHash bought nothing there and cost a fifth of the
//! search. The multiply-rotate step is the one rustc's `FxHasher` uses.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A hash map with [`Fx`] hashing.
pub(super) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// Multiply-rotate hashing of machine words (see the module docs).
#[derive(Clone, Copy, Default)]
pub(super) struct Fx(u64);

impl Fx {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, x: u8) {
        self.add(u64::from(x));
    }

    fn write_u16(&mut self, x: u16) {
        self.add(u64::from(x));
    }

    fn write_u32(&mut self, x: u32) {
        self.add(u64::from(x));
    }

    fn write_u64(&mut self, x: u64) {
        self.add(x);
    }

    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_with_fx_hashing_finds_what_it_holds() {
        let mut m: FxMap<(u32, i64), usize> = FxMap::default();
        for i in 0..1000 {
            m.insert((i % 7, i64::from(i) - 500), i as usize);
        }
        assert_eq!(m.len(), 1000);
        assert!((0..1000).all(|i| m.get(&(i % 7, i64::from(i) - 500)) == Some(&(i as usize))));
        let (mut a, mut b) = (Fx::default(), Fx::default());
        a.write(b"T1");
        b.write(b"T2");
        assert_ne!(a.finish(), b.finish());
    }
}
