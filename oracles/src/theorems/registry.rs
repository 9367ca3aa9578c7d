//! The oracle registry: one [`Oracle`] per published theorem, in the order campaigns run
//! them. `racefuzz check`, `fuzz`, `shrink`, `gen`, the cargo-fuzz targets, the benches and
//! the tests all go through it, so that an oracle is added by writing one module (its
//! `pub const ORACLE: Oracle` and its check) and one line in [`Registry::builtin`].
//!
//! The registry knows no implementation: mutants and their predictions live with the SUTs
//! (the SUT crate's `mutants` module), keyed by oracle id.

use super::oracle::Oracle;

/// A set of oracles, in the order campaigns run them.
#[derive(Clone, Debug)]
pub struct Registry {
    oracles: Vec<Oracle>,
}

impl Registry {
    /// The built-in oracles. Adding one: write its module with a `pub const ORACLE` and
    /// add it here.
    pub fn builtin() -> Registry {
        Registry {
            oracles: vec![
                super::racerdx_tp::ORACLE,
                super::racerdx_complete::ORACLE,
                super::racerdx_reports::ORACLE,
                super::explorer_agree::ORACLE,
                super::explorer_agree::ATOMICS,
                super::explorer_agree::RACERDX,
                super::fasttrack_precise::ORACLE,
                super::fasttrack_precise::ATOMICS,
                super::bigfoot_precise::ORACLE,
                super::escape_trace_precise::ORACLE,
                super::escape_trace_precise::ADDRESS_PRECISE,
                super::escape_trace_precise::ELIDED_RACE_FREE,
                super::lock_elision::ORACLE,
                super::capsule_first_race::ORACLE,
                super::capsule_first_race::OPERATIONAL,
                super::naik_aiken_sound::ORACLE,
                super::naik_aiken_sound::UNLIKELY,
                super::ldrf_agree::ORACLE,
                super::ldrf_agree::RACY,
                super::ldrf_sound::ORACLE,
                super::ldrf_sound::NAIVE,
                super::ldrf_sound::REGION_RACY,
                super::ldrf_sound::EVERYWHERE,
                super::whole_program::ORACLE,
                super::whole_program::ATOMICS,
            ],
        }
    }

    /// This registry with one more oracle (for users' own oracles and for tests).
    ///
    /// # Panics
    /// If the id is taken: two oracles with one id would make findings ambiguous.
    #[must_use]
    pub fn with(mut self, o: Oracle) -> Registry {
        assert!(self.find(o.id).is_none(), "oracle id `{}` registered twice", o.id);
        self.oracles.push(o);
        self
    }

    /// Every oracle.
    pub fn all(&self) -> &[Oracle] {
        &self.oracles
    }

    /// Looks an oracle up by id.
    pub fn find(&self, id: &str) -> Option<&Oracle> {
        self.oracles.iter().find(|o| o.id == id)
    }

    /// The ids, for messages.
    pub fn ids(&self) -> Vec<&'static str> {
        self.oracles.iter().map(|o| o.id).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Relax;
    use crate::theorems::{Reads, SutKind};

    #[test]
    fn ids_are_unique_and_generators_fit_their_dialect() {
        let r = Registry::builtin();
        let mut ids = r.ids();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), r.all().len());
        for o in r.all() {
            for seed in 0u8..20 {
                let bytes: Vec<u8> = (0u8..40).map(|i| seed.wrapping_mul(31).wrapping_add(i.wrapping_mul(7))).collect();
                let p = o.program(&bytes, Relax::default());
                assert_eq!(p.dialect, o.dialect, "{}", o.id);
                assert!(o.unmet(&p, Relax::default()).is_none(), "{}", o.id);
                crate::lang::validate(&p).unwrap_or_else(|e| panic!("{}: {e}", o.id));
            }
        }
    }

    /// The facts the SUT crate reads off the oracles hold together: at most one scorecard
    /// oracle per kind, an operational variant is a registered oracle of the same kind and
    /// dialect that names itself, and only a static analysis has summaries to read.
    #[test]
    fn facts_on_oracles_hold_together() {
        let r = Registry::builtin();
        for kind in SutKind::ALL {
            let scorecards: Vec<&str> = r.all().iter().filter(|o| o.scorecard && o.sut == *kind).map(|o| o.id).collect();
            assert!(scorecards.len() <= 1, "{kind:?}: scorecard oracles {scorecards:?}");
        }
        for o in r.all() {
            if let Some(id) = o.operational {
                let v = r.find(id).unwrap_or_else(|| panic!("{}: operational variant {id} is not registered", o.id));
                assert_eq!((v.sut, v.dialect, v.operational), (o.sut, o.dialect, Some(id)), "{}", o.id);
            }
            assert!(o.reads == Reads::Answers || o.sut == SutKind::StaticRaceAnalysis, "{}", o.id);
        }
    }
}
