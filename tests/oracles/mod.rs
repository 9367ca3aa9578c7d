//! One module per oracle (or family), mirroring `oracles/src/theorems/`, and a toy oracle that shows
//! how one is added.

mod explorer_agree;
mod fasttrack;
mod racerdx;
mod toy;

use proptest::test_runner::{RngAlgorithm, TestRng};
use race_oracles::lang::Program;
use race_oracles::theorems::{Registry, Verdict};
use racefuzz::suts::{self, Subject};

/// The first program of the oracle's generator on which it fails for `mutant`, and how many
/// programs that took: program i is built from `min_len + i % spread` bytes of a ChaCha
/// stream seeded with `seed` (fixed, so a hunt is reproducible and its count a snapshot).
fn hunt(mutant: &str, id: &str, budget: usize, seed: u8, min_len: usize, spread: usize) -> Option<(usize, Program)> {
    use proptest::prelude::Rng;
    let o = *Registry::builtin().find(id).unwrap();
    let s = Subject::for_oracle(&o, Some(mutant)).unwrap();
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]);
    (1..=budget).find_map(|i| {
        let mut bytes = vec![0u8; min_len + i % spread];
        rng.fill_bytes(&mut bytes);
        let p = (o.generate)(&bytes, s.relax());
        (suts::check(&o, &p, &s, suts::campaign_bounds()).verdict == Verdict::Fail).then_some((i, p))
    })
}
