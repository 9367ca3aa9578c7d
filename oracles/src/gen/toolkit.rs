//! The generator toolkit: what every byte-driven generator of [`super`] is built from, kept in
//! one place so that the generators agree on what a byte means.
//!
//! Every generator follows one template: swarm knobs from a header of bytes
//! ([`split_header`], [`chance`]), then the program from the rest through a [`Bytes`] reader
//! (a byte 0, and the end of the input, mean "stop adding"), written as `.race` text with a
//! few combinators ([`one`], [`sync`], [`if_star`]) and parsed back ([`parse_generated`]).
//! Its [`super::grammar::Grammar`] classifier names the productions a program uses
//! ([`keep_listed`]). [`swarm_input!`] and [`swarm_strategy`] give the generator's cargo-fuzz,
//! quickcheck and proptest forms.
//!
//! Invariant: each function here reads exactly the bytes its documentation says, in that
//! order, so that the same bytes keep giving the same programs (campaigns are replayed from
//! their seed, and golden counts and snapshots depend on it).

use std::collections::BTreeSet;

use proptest::prelude::*;

use super::grammar::Grammar;
use crate::lang::{parse, Program, Relax};

/// Whether byte `b` falls in the first `pct` percent of the byte range: the swarm knobs'
/// coin (`chance(b, 100)` always holds, `chance(b, 0)` never).
pub fn chance(b: u8, pct: u32) -> bool {
    u32::from(b) * 100 < pct * 256
}

/// A swarm header of `N` bytes (zeros past the end of the input) and the bytes after it.
pub fn split_header<const N: usize>(bytes: &[u8]) -> ([u8; N], &[u8]) {
    let mut h = [0u8; N];
    for (d, s) in h.iter_mut().zip(bytes) {
        *d = *s;
    }
    (h, bytes.get(N..).unwrap_or(&[]))
}

/// The byte reader of the byte-driven generators: a byte 0, and the end of the input,
/// mean "stop adding" (`arbitrary` hands out zeros when its input runs out).
pub struct Bytes<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Bytes<'a> {
    /// A reader at the start of `b`.
    pub fn new(b: &'a [u8]) -> Bytes<'a> {
        Bytes { b, i: 0 }
    }

    /// The next byte; 0 once the input is exhausted.
    pub fn next(&mut self) -> u8 {
        let v = self.b.get(self.i).copied().unwrap_or(0);
        self.i += 1;
        v
    }

    /// One byte, as an index below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        usize::from(self.next()) % n.max(1)
    }

    /// One byte, as a coin that comes up `true` in `pct` percent of the byte range.
    pub fn coin(&mut self, pct: u32) -> bool {
        chance(self.next(), pct)
    }

    /// One byte, as a small constant for a data write: 1, 2 or 3.
    pub fn value(&mut self) -> usize {
        1 + self.below(3)
    }

    /// Whether every byte of the input has been read.
    pub fn exhausted(&self) -> bool {
        self.i >= self.b.len()
    }
}

/// Parses the text a generator wrote. Generators write only forms they know to be valid, so
/// a failure is the generator's bug, not the user's: it panics with the generator's name,
/// the parse error and the text.
///
/// # Panics
/// If `text` does not parse ("racefuzz internal bug: the `generator` generator wrote an
/// unparsable program").
pub fn parse_generated(generator: &str, text: &str) -> Program {
    parse(text).unwrap_or_else(|e| panic!("racefuzz internal bug: the {generator} generator wrote an unparsable program ({e}):\n{text}"))
}

/// Keeps the production names of `u` that `g` lists: a classifier's last step, so that a
/// name it computes for its own bookkeeping never reaches [`super::grammar::Coverage`].
pub fn keep_listed(g: &Grammar, u: &mut BTreeSet<&'static str>) {
    u.retain(|n| g.productions.iter().any(|q| q.name == *n));
}

/// One statement as a block's text.
pub fn one(x: impl Into<String>) -> Vec<String> {
    vec![x.into()]
}

/// `sync(l) { body }`.
pub fn sync(l: &str, body: &[String]) -> String {
    format!("sync({l}) {{ {} }}", body.join("; "))
}

/// `if * { a } else { b }`.
pub fn if_star(a: &[String], b: &[String]) -> String {
    format!("if * {{ {} }} else {{ {} }}", a.join("; "), b.join("; "))
}

/// The proptest form of a swarm generator (`swarm_ldrf`, `swarm_naikaiken`): byte strings
/// up to 88 long, knobs from their header, as campaigns draw them.
pub fn swarm_strategy(generate: fn(&[u8], Relax) -> Program, relax: Relax) -> impl Strategy<Value = Program> {
    proptest::collection::vec(any::<u8>(), 0..88).prop_map(move |b| generate(&b, relax))
}

/// Defines a swarm generator's input type for cargo fuzz (`arbitrary`) and quickcheck: the
/// bytes and the program the generator builds from them without relaxations. Its `Debug`
/// prints the program as text, which is what a person wants to see in a fuzz crash, and
/// quickcheck shrinks it through its bytes.
macro_rules! swarm_input {
    ($(#[$doc:meta])* $name:ident, $generate:path) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            /// The bytes.
            pub bytes: Vec<u8>,
            /// The program built from them.
            pub program: crate::lang::Program,
        }

        impl $name {
            /// Builds the input for `bytes`.
            pub fn new(bytes: Vec<u8>) -> $name {
                let program = $generate(&bytes, crate::lang::Relax::default());
                $name { bytes, program }
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", crate::lang::print(&self.program))
            }
        }

        impl<'a> arbitrary::Arbitrary<'a> for $name {
            fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
                let n = u.len();
                Ok($name::new(u.bytes(n)?.to_vec()))
            }
        }

        impl quickcheck::Arbitrary for $name {
            fn arbitrary(g: &mut quickcheck::Gen) -> Self {
                $name::new(<Vec<u8> as quickcheck::Arbitrary>::arbitrary(g))
            }

            fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
                Box::new(quickcheck::Arbitrary::shrink(&self.bytes).map($name::new))
            }
        }
    };
}

/// Pseudo-random bytes (xorshift), with a zero byte now and then as a stop: the byte-driven
/// generators' tests draw their inputs from it.
#[cfg(test)]
pub(crate) fn test_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Checks what every byte-driven generator promises for `n` inputs of [`test_bytes`]
/// (lengths 8 to 87): each program validates (relaxed by `relax`), prints and parses back to
/// itself, and comes out the same from the same bytes. Returns the programs, for the
/// caller's own checks.
#[cfg(test)]
pub(crate) fn assert_well_formed(name: &str, generate: fn(&[u8], Relax) -> Program, relax: Relax, n: u64) -> Vec<Program> {
    use crate::lang::{print, validate_relaxed};
    let mut out = vec![];
    for seed in 0..n {
        let b = test_bytes(seed, 8 + (seed % 80) as usize);
        let p = generate(&b, relax);
        validate_relaxed(&p, relax).unwrap_or_else(|e| panic!("{name}: {e}\n{}", print(&p)));
        assert_eq!(parse(&print(&p)).map(|q| q.without_lines()).ok(), Some(p.without_lines()), "{name}: round trip:\n{}", print(&p));
        assert_eq!(generate(&b, relax), p, "{name}: not deterministic");
        out.push(p);
    }
    let empty = generate(&[], relax);
    validate_relaxed(&empty, relax).unwrap_or_else(|e| panic!("{name}, empty input: {e}\n{}", print(&empty)));
    assert_eq!(out.len() as u64, n, "{name}: every input was checked");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chance_covers_its_share_of_the_bytes() {
        for pct in [0u32, 1, 25, 50, 85, 100] {
            let hits = (0..=255u8).filter(|b| chance(*b, pct)).count();
            // ceil(pct · 256 / 100) bytes: the share, rounded up to whole bytes.
            assert_eq!(hits as u32, (pct * 256).div_ceil(100), "{pct}%");
        }
    }

    #[test]
    fn bytes_read_zeros_past_the_end() {
        let mut b = Bytes::new(&[7, 200]);
        assert_eq!((b.next(), b.exhausted()), (7, false));
        assert_eq!((b.below(3), b.exhausted()), (2, true));
        assert_eq!((b.next(), b.value(), b.coin(1), b.below(0)), (0, 1, true, 0));
        let (h, rest) = split_header::<3>(&[1, 2]);
        assert_eq!((h, rest), ([1, 2, 0], &[][..]));
    }
}
