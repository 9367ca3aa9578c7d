//! # race-oracles: the ground truth of racefuzz
//!
//! This crate knows no analysis. It defines the `.race` language, its small-step semantics,
//! the exhaustive explorer and the race definitions against which racefuzz judges the
//! analyses it tests (design.md: "the ground truth is boring on purpose").
//!
//! ## Contents
//! - [`lang`]: the IR, parser (errors with line:col), canonical printer, dialect validators.
//! - [`machine`]: one thread step at a time; events; lazy initial heaps.
//! - [`explore`]: naive DFS over every interleaving and nondeterministic choice; budgets;
//!   replayable schedules; RacerDX's Definition 3.6.
//! - [`race`]: vector-clock happens-before, data races, check races, first race.
//! - [`theorems`]: verdicts (oracles come with later issues).
//! - [`gen`]: program generators for property tests.
//!
//! ## API themes
//! - Typed ids ([`machine::ThreadId`], [`machine::ObjId`], [`machine::EventIdx`]) across module
//!   boundaries; object ids are per execution, names are stable across executions.
//! - Errors a user can cause are values ([`lang::ParseError`], [`lang::DialectError`],
//!   [`machine::SetupError`], [`explore::ExploreError`]); internal invariants panic with
//!   "racefuzz internal bug".
//! - Every bound is explicit ([`explore::Config`]) and reported; an incomplete search says so.

pub mod explore;
pub mod gen;
pub mod lang;
pub mod machine;
pub mod race;
pub mod theorems;
