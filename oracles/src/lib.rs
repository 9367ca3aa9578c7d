//! # race-oracles: the ground truth of racefuzz
//!
//! This crate knows no analysis. It defines the `.race` language, its small-step semantics,
//! the exhaustive explorer and the race definitions against which racefuzz judges the
//! analyses it tests (docs/design.md: "the ground truth is boring on purpose").
//!
//! ## Contents, bottom to top
//! A module uses only the modules listed above it (`oracles/tests/layers.rs` checks it).
//! - [`lang`]: the IR, parser (errors with line:col), canonical printer, dialect validators.
//! - [`clock`]: vector clocks and the happens-before rules (a leaf: the machine uses them).
//! - [`fingerprint`]: the 128-bit key of a state in a visited set (a leaf).
//! - [`machine`]: one thread step at a time; events; lazy initial heaps.
//! - [`race`]: vector-clock happens-before, data races, check races, first race, and
//!   RacerDX's Definition 3.6 as a state predicate.
//! - [`explore`]: the [`explore::Explorer`] seam and the naive DFS over every interleaving
//!   and nondeterministic choice; budgets; replayable schedules; structured witnesses; the
//!   summary of a run ([`explore::Run`]).
//! - [`reach`]: the one explicit-state search of the models that do not run on the machine
//!   (visited set, parent pointers, budgets, deadline).
//! - [`instrumented`]: Naik-Aiken's instrumented semantics (stamps, loop vectors, effects)
//!   for `naikaiken` programs, searched by [`reach`].
//! - [`ldrf`]: the L-DRF paper's engines (E-STD, E-LDRF, E-RDRF, E-CART, the
//!   happens-before checks) for `ldrf` programs, searched by [`reach`].
//! - [`truth`]: the ground truth of a whole program, dispatched to its dialect's semantics;
//!   replay of one execution.
//! - [`gen`]: program generators (proptest, `arbitrary`, quickcheck, and the registry's
//!   byte-driven swarm generators) and the shrinker.
//! - [`theorems`]: the oracle registry, the SUT seams (static analyses, dynamic detectors,
//!   check placers), the one result type and the three-valued verdict.
//!
//! ## API themes
//! - Typed ids ([`machine::ThreadId`], [`machine::ObjId`], [`machine::EventIdx`]) across module
//!   boundaries; object ids are per execution, names are stable across executions.
//! - Errors a user can cause are values ([`lang::ParseError`], [`lang::DialectError`],
//!   [`machine::SetupError`], [`explore::ExploreError`]); internal invariants panic with
//!   "racefuzz internal bug".
//! - Every bound is explicit ([`explore::Config`]) and reported; an incomplete search says so.
//! - Adding an oracle is one module under [`theorems`] (its `pub const ORACLE`) and one line
//!   in [`theorems::Registry::builtin`].

pub mod clock;
pub mod explore;
pub mod fingerprint;
pub mod gen;
pub mod instrumented;
pub mod lang;
pub mod ldrf;
pub mod machine;
pub mod race;
pub mod reach;
pub mod theorems;
pub mod truth;
