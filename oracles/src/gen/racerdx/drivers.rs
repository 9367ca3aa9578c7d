//! The racerdx generator's drivers (docs/spec/racerdx.md §7 item 15): proptest
//! ([`racerdx_program`], shrinking the bytes), cargo fuzz ([`RacerDxInput`]'s
//! `arbitrary::Arbitrary`) and quickcheck (its `quickcheck::Arbitrary`), all through
//! [`build`] with fixed knobs.

use proptest::prelude::*;

use super::builder::build;
use super::knobs::RacerDxKnobs;
use crate::lang::*;

/// The proptest strategy: bytes, shrunk by proptest, built into a program.
pub fn racerdx_program(k: RacerDxKnobs) -> impl Strategy<Value = Program> {
    proptest::collection::vec(any::<u8>(), 0..160).prop_map(move |b| build(&b, k))
}

/// A generated racerdx program with the bytes it came from (for cargo fuzz and quickcheck).
#[derive(Clone)]
pub struct RacerDxInput {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// The program built from them with the default knobs.
    pub program: Program,
}

impl RacerDxInput {
    /// Builds the input for `bytes`.
    pub fn new(bytes: Vec<u8>) -> RacerDxInput {
        let program = build(&bytes, RacerDxKnobs::default());
        RacerDxInput { bytes, program }
    }
}

impl std::fmt::Debug for RacerDxInput {
    // Print the program as text: that is what a person wants to see in a fuzz crash.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", print(&self.program))
    }
}

impl<'a> arbitrary::Arbitrary<'a> for RacerDxInput {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        let n = u.len();
        Ok(RacerDxInput::new(u.bytes(n)?.to_vec()))
    }
}

impl quickcheck::Arbitrary for RacerDxInput {
    fn arbitrary(g: &mut quickcheck::Gen) -> Self {
        RacerDxInput::new(<Vec<u8> as quickcheck::Arbitrary>::arbitrary(g))
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        Box::new(quickcheck::Arbitrary::shrink(&self.bytes).map(RacerDxInput::new))
    }
}
