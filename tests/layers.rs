//! The layering of `racefuzz`, as `oracles/tests/layers.rs` keeps the ground truth's: its
//! top-level modules form a DAG, bottom to top
//!
//! the leaves (`seeded`, `corpus`, `signature`, `render`, `std_trace`, `duration`,
//! `summary`) → `analyses` → `mutants` → `external` → `tsan`, `sut_spec` → `suts` →
//! `picture`, `finding_header` → `regression`, `campaign`, `merge` → `rule_coverage`,
//! `score` → `cli`
//!
//! and a module may use only the modules [`ALLOWED`] lists for it, all of them below it. The
//! point is that a SUT never depends on what judges or lists it: the SUTs (`analyses`) name
//! only the seeded-bug row (`seeded`), the catalogue of their bugs (`mutants`) only those
//! two, and the SUT catalogue (`suts`) sits above both, below every campaign and command.
//!
//! An edge is what the shared scanner (`oracles/tests/layering`) finds: `crate::m`, each item
//! of a `use crate::{a, b::c}` group, and a `super::` path that climbs out of the module,
//! comments and doc links included. Test code counts like any other.

#[path = "../oracles/tests/layering/mod.rs"]
mod layering;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use layering::crate_edges;

/// The repository root.
fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Each top-level module, bottom to top, with the modules it may use. Every module it names
/// comes earlier in the list (checked), so the allowed edges form a DAG. A new top-level
/// module gets its line here; until it does, `every_module_has_a_layer` fails.
const ALLOWED: &[(&str, &[&str])] = &[
    ("seeded", &[]),
    ("corpus", &[]),
    ("signature", &[]),
    ("render", &[]),
    ("std_trace", &[]),
    ("duration", &[]),
    ("summary", &[]),
    ("analyses", &["seeded"]),
    ("mutants", &["seeded", "analyses"]),
    ("external", &["std_trace"]),
    ("tsan", &["external"]),
    // `corpus` in its tests only.
    ("sut_spec", &["corpus", "external"]),
    ("suts", &["seeded", "analyses", "mutants", "external", "tsan", "sut_spec"]),
    ("picture", &["render", "summary"]),
    // `external` in its tests only.
    ("finding_header", &["corpus", "signature", "external", "sut_spec"]),
    ("regression", &["corpus", "finding_header", "sut_spec"]),
    ("campaign", &["signature", "render", "summary", "sut_spec", "suts", "picture", "finding_header"]),
    ("merge", &["signature", "summary", "suts", "finding_header"]),
    ("rule_coverage", &["suts", "campaign"]),
    ("score", &["suts", "campaign"]),
    (
        "cli",
        &[
            "seeded",
            "corpus",
            "signature",
            "render",
            "std_trace",
            "duration",
            "summary",
            "analyses",
            "mutants",
            "external",
            "tsan",
            "sut_spec",
            "suts",
            "picture",
            "finding_header",
            "regression",
            "campaign",
            "merge",
            "rule_coverage",
            "score",
        ],
    ),
];

#[test]
fn allowed_edges_point_down() {
    let mut below: BTreeSet<&str> = BTreeSet::new();
    for (m, uses) in ALLOWED {
        for u in *uses {
            assert!(below.contains(u), "ALLOWED: {m} uses {u}, which is not listed before it");
        }
        below.insert(m);
    }
}

#[test]
fn every_module_has_a_layer() {
    let (modules, _, _) = crate_edges(&repo(), "src");
    let layered: BTreeSet<String> = ALLOWED.iter().map(|(m, _)| m.to_string()).collect();
    assert_eq!(modules, layered, "every top-level module of racefuzz has its place in ALLOWED (and no other)");
}

#[test]
fn modules_use_only_the_layers_below() {
    let (_, files, edges) = crate_edges(&repo(), "src");
    // The scan must see the crate: 76 files and 57 distinct edges when this was written.
    let distinct: BTreeSet<(&str, &str)> = edges.iter().map(|e| (e.from.as_str(), e.to.as_str())).collect();
    assert!(files >= 60, "scanned only {files} files");
    assert!(edges.len() >= 150 && distinct.len() >= 40, "found only {} mentions, {} edges", edges.len(), distinct.len());
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let bad: Vec<String> = edges
        .iter()
        .filter(|e| !allowed.get(e.from.as_str()).is_some_and(|u| u.contains(&e.to.as_str())))
        .map(|e| format!("{}:{}: {} -> {}{}", e.file, e.line, e.from, e.to, if e.test { " (test)" } else { "" }))
        .collect();
    assert!(bad.is_empty(), "edges not in ALLOWED:\n{}", bad.join("\n"));
}
