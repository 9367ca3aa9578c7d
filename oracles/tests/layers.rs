//! The layering of `race-oracles`: its top-level modules form a DAG, bottom to top
//!
//! `lang` → `clock`, `fingerprint` → `machine` → `race` → `explore` → `reach` →
//! `instrumented`, `ldrf` → `truth` → `gen` → `theorems`
//!
//! and a module may use only the modules [`ALLOWED`] lists for it, all of them below it. The
//! point is the design's "the explorer knows no oracle": the ground truth a theorem is judged
//! by cannot depend on the theorem, and the trusted base (the machine, the clocks, the naive
//! explorer) depends on nothing clever.
//!
//! An edge is any mention of another top-level module in a file under `oracles/src/<top>/`:
//! `crate::m`, each item of a `use crate::{a, b::c}` group, and a `super::` path that climbs
//! out of `<top>`. Comments and doc links count (a doc link to a module above is a promise
//! about it, and `cargo doc` resolves it as a dependency); prose without a path does not.
//! Doc tests are compiled as external crates (`race_oracles::…`) and do not count.
//!
//! Code under `#[cfg(test)] mod … { }` may also use the modules of [`TEST_ONLY`]: the
//! engines' generator-driven tests draw programs from `gen` and use items private to the
//! engine (moving them up would widen those items' visibility for tests only). Test code is
//! not part of any module's interface, so the layering of the library is unaffected.

mod layering;

use std::collections::BTreeSet;
use std::path::PathBuf;

use layering::{crate_edges, edges_of};

/// The repository root.
fn repo() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Each top-level module, bottom to top, with the modules it may use. Every module it names
/// comes earlier in the list (checked), so the allowed edges form a DAG. A new top-level
/// module gets its line here; until it does, `every_module_has_a_layer` fails.
const ALLOWED: &[(&str, &[&str])] = &[
    ("lang", &[]),
    ("clock", &[]),
    ("fingerprint", &[]),
    ("machine", &["lang", "clock", "fingerprint"]),
    ("race", &["lang", "clock", "machine"]),
    ("explore", &["lang", "clock", "fingerprint", "machine", "race"]),
    ("reach", &["fingerprint", "explore"]),
    ("instrumented", &["lang", "clock", "fingerprint", "machine", "race", "explore", "reach"]),
    ("ldrf", &["lang", "clock", "fingerprint", "machine", "race", "explore", "reach"]),
    ("truth", &["lang", "clock", "machine", "race", "explore", "instrumented", "ldrf"]),
    ("gen", &["lang", "clock", "machine", "race", "explore", "instrumented", "ldrf", "truth"]),
    ("theorems", &["lang", "clock", "fingerprint", "machine", "race", "explore", "reach", "instrumented", "ldrf", "truth", "gen"]),
];

/// Upward edges from test code only (see the module docs).
const TEST_ONLY: &[(&str, &str)] = &[("ldrf", "gen")];

#[test]
fn allowed_edges_point_down() {
    layering::assert_points_down(ALLOWED);
}

#[test]
fn every_module_has_a_layer() {
    let (modules, _, _) = crate_edges(&repo(), "oracles/src");
    let layered: BTreeSet<String> = ALLOWED.iter().map(|(m, _)| m.to_string()).collect();
    assert_eq!(modules, layered, "every top-level module of race-oracles has its place in ALLOWED (and no other)");
}

#[test]
fn modules_use_only_the_layers_below() {
    let (_, files, edges) = crate_edges(&repo(), "oracles/src");
    // The scan must see the crate: 139 files and 24 distinct edges when this was written.
    let distinct: BTreeSet<(&str, &str)> = edges.iter().map(|e| (e.from.as_str(), e.to.as_str())).collect();
    assert!(files >= 100, "scanned only {files} files");
    assert!(edges.len() >= 300 && distinct.len() >= 20, "found only {} mentions, {} edges", edges.len(), distinct.len());
    let mut used_exceptions: BTreeSet<&(&str, &str)> = BTreeSet::new();
    let bad = layering::not_allowed(&edges, ALLOWED, &mut |e| {
        let pair = (e.from.as_str(), e.to.as_str());
        let excused = TEST_ONLY.iter().find(|p| e.test && **p == pair);
        used_exceptions.extend(excused);
        excused.is_some()
    });
    assert!(bad.is_empty(), "edges not in ALLOWED:\n{}", bad.join("\n"));
    for pair in TEST_ONLY {
        assert!(used_exceptions.contains(pair), "{} -> {} no longer occurs: delete it from TEST_ONLY", pair.0, pair.1);
    }
}

/// The scanner itself: every form of mention it claims to find, and what it must skip.
#[test]
fn the_scanner_finds_each_form() {
    let modules: BTreeSet<String> = ["lang", "machine", "race", "explore", "theorems"].map(String::from).into();
    let src = "\
//! See [`crate::theorems::Oracle`].
use crate::{
    lang::Program,
    machine::{State, ThreadId},
};
use super::sibling;
fn f() -> racecrate::race::X { $crate::race::y() }
#[cfg(test)]
mod tests {
    use super::super::super::explore::Config;
    use super::*;
}
";
    let got: Vec<(String, usize, bool)> = edges_of("oracles/src", "gen", "gen/x.rs", src, &modules).into_iter().map(|e| (e.to, e.line, e.test)).collect();
    let want = [("theorems", 1, false), ("lang", 3, false), ("machine", 4, false), ("race", 7, false), ("explore", 10, true)];
    assert_eq!(got, want.map(|(m, l, t)| (m.to_string(), l, t)));
}
