//! The summary of one run, the ground truth a person reads: how executions ended, whether
//! any races, on which addresses, and one witness. Every engine fills it in (`truth` runs the
//! machine's programs through an [`super::Explorer`]; `instrumented` and `ldrf` have their
//! own semantics), so it lives here, below them all.

use super::{Stats, Witness};

/// The ground truth of one run (one set of threads from one family of initial states).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Run {
    /// `threads`, or `m1 ∥ m2` for a racerdx pair.
    pub setup: String,
    /// Thread names with what they run, in column order.
    pub threads: Vec<String>,
    /// Execution counts and completeness.
    pub executions: Stats,
    /// Whether some execution races (Def. 3.6 for racerdx, happens-before otherwise).
    pub racy: bool,
    /// Every address some execution races on, sorted.
    pub racy_addresses: Vec<String>,
    /// The happens-before racy addresses (equal to `racy_addresses` outside racerdx). Only
    /// races found on visited prefixes when the explorer does not preserve traces
    /// (`classes` is then `None`).
    pub hb_racy_addresses: Vec<String>,
    /// Mazurkiewicz classes among the executions ([`super::classes`]); `None` when the
    /// explorer does not preserve traces.
    pub classes: Option<u64>,
    /// Distinct stuck/deadlock descriptions, sorted.
    pub problems: Vec<String>,
    /// Every distinct final state, sorted, as [`super::classes::final_state`] writes it (how
    /// the execution ended, each object's cells, each thread's status; every explorer
    /// preserves them, [`super::Property::Outcomes`]). `None` unless asked for
    /// (`truth::ground_truth_with_final_states`), and for the semantics that do not report
    /// them: Naik-Aiken's instrumented semantics and L-DRF's standard semantics.
    pub final_states: Option<Vec<String>>,
    /// One racing execution, the first in exploration order.
    pub witness: Option<Witness>,
}
