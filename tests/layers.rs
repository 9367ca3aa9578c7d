//! The layering of `racefuzz`'s `src/`, as `oracles/tests/layers.rs` is the ground truth's:
//! its top-level modules form a DAG, bottom to top, and a module may use only the modules
//! [`ALLOWED`] lists for it, all of them below it (the same scanner, included by path:
//! `crate::m`, each item of a `use crate::{a, b::c}` group, a `super::` path that climbs out
//! of the module, comments and doc links included). The point is that a SUT never depends
//! on what judges or lists it: the SUTs (`analyses`) name only the seeded-bug row
//! (`seeded`), the catalogue of their bugs (`mutants`) only those two, and the SUT
//! catalogue (`suts`) sits above both, below every campaign and command.
//!
//! Inside `cli/`, no subcommand module imports another: what they share lives in
//! `cli/shared`, which imports no subcommand. `cli/mod.rs` (the clap tree and its dispatch)
//! names them all.

#[path = "../oracles/tests/layering/mod.rs"]
pub mod layering;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use layering::{crate_edges, ident, rust_files};

/// Each top-level module of `src/`, bottom to top, with the modules it may use. Every module
/// it names comes earlier in the list (checked), so the allowed edges form a DAG. A new
/// top-level module gets its line here; until it does, `every_module_has_a_layer` fails.
///
/// The leaves are formats and plain values (a `.race` header, a duration, a summary); then
/// processes outside (external SUTs, TSan); then how a SUT is named and a finding headed;
/// then the systems under test and their seeded bugs, the catalogue that builds them; then
/// what runs them (campaigns, merges, scores) and draws them; the command line on top.
const ALLOWED: &[(&str, &[&str])] = &[
    ("seeded", &[]),
    ("corpus", &[]),
    ("duration", &[]),
    ("scratch", &[]),
    ("signature", &[]),
    ("std_trace", &[]),
    ("render", &[]),
    ("summary", &[]),
    ("external", &["scratch", "std_trace"]),
    ("replay", &["external", "scratch"]),
    ("tsan", &["replay", "seeded"]),
    ("valgrind", &["replay"]),
    ("go_race", &["external", "replay"]),
    ("loom", &["external"]),
    ("miri", &["external", "seeded"]),
    ("real", &["go_race", "replay", "loom", "miri", "scratch"]),
    ("sut_spec", &["corpus", "external"]),
    ("finding_header", &["corpus", "external", "signature", "sut_spec"]),
    ("analyses", &["seeded"]),
    ("mutants", &["seeded", "analyses", "miri", "tsan"]),
    ("suts", &["seeded", "analyses", "external", "go_race", "loom", "miri", "mutants", "real", "replay", "sut_spec", "tsan", "valgrind"]),
    ("picture", &["render", "summary"]),
    ("regression", &["corpus", "finding_header", "sut_spec"]),
    ("campaign", &["finding_header", "picture", "render", "signature", "summary", "sut_spec", "suts"]),
    ("merge", &["finding_header", "signature", "summary", "suts"]),
    ("rule_coverage", &["campaign", "suts"]),
    ("score", &["campaign", "suts"]),
    (
        "cli",
        &[
            "seeded",
            "corpus",
            "duration",
            "scratch",
            "signature",
            "std_trace",
            "render",
            "summary",
            "external",
            "replay",
            "tsan",
            "valgrind",
            "loom",
            "real",
            "sut_spec",
            "finding_header",
            "analyses",
            "mutants",
            "suts",
            "picture",
            "regression",
            "campaign",
            "merge",
            "rule_coverage",
            "score",
        ],
    ),
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn allowed_edges_point_down() {
    layering::assert_points_down(ALLOWED);
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
    // The scan must see the crate: 75 files, 165 mentions and 57 distinct edges when this was written.
    let distinct: BTreeSet<(&str, &str)> = edges.iter().map(|e| (e.from.as_str(), e.to.as_str())).collect();
    assert!(files >= 60, "scanned only {files} files");
    assert!(edges.len() >= 120 && distinct.len() >= 40, "found only {} mentions, {} edges", edges.len(), distinct.len());
    let bad = layering::not_allowed(&edges, ALLOWED, &mut |_| false);
    assert!(bad.is_empty(), "edges not in ALLOWED:\n{}", bad.join("\n"));
}

/// The modules directly under `src/cli/` (a file `x.rs` or a folder `x/`), but `mod.rs`.
fn cli_children(cli: &Path) -> BTreeSet<String> {
    std::fs::read_dir(cli).unwrap().flatten().map(|e| e.file_name().to_string_lossy().trim_end_matches(".rs").to_string()).filter(|n| n != "mod").collect()
}

/// Inside `cli/`, a subcommand module (`*_cmd`) names no other subcommand module, and
/// `shared` names none: what two subcommands share lives in `shared`.
#[test]
fn no_subcommand_imports_another() {
    let cli = repo().join("src/cli");
    let children = cli_children(&cli);
    let commands: Vec<&String> = children.iter().filter(|c| c.ends_with("_cmd")).collect();
    assert!(commands.len() >= 10 && children.contains("shared"), "src/cli has {children:?}");
    let mut files = vec![];
    rust_files(&cli, &mut files);
    let mut bad = vec![];
    let mut scanned = 0;
    for f in &files {
        let rel = f.strip_prefix(&cli).unwrap().to_string_lossy().replace('\\', "/");
        let own = ident(&rel).to_string();
        if rel == "mod.rs" {
            continue;
        }
        assert!(own == "shared" || own.ends_with("_cmd"), "src/cli/{rel}: a module of cli/ is a subcommand (`*_cmd`) or `shared`");
        scanned += 1;
        let src = std::fs::read_to_string(f).unwrap();
        for (n, line) in src.lines().enumerate() {
            for c in commands.iter().filter(|c| ***c != own) {
                if line.contains(&format!("{c}::")) {
                    bad.push(format!("src/cli/{rel}:{}: {own} names {c}", n + 1));
                }
            }
        }
    }
    assert!(scanned >= 15, "scanned only {scanned} files of src/cli");
    assert!(bad.is_empty(), "subcommands that import another (move what they share to cli/shared):\n{}", bad.join("\n"));
}

/// No file of `src/` is over 600 lines unless its module doc says it is one concept
/// (`//! One concept, …`): a file that grows past it is split by concept, one per file.
#[test]
fn no_src_file_is_over_600_lines_unless_it_is_one_concept() {
    const MAX_LINES: usize = 600;
    let mut files = vec![];
    rust_files(&repo().join("src"), &mut files);
    assert!(files.len() >= 60, "found only {} files", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let src = std::fs::read_to_string(f).unwrap();
            let n = src.lines().count();
            let said = src.lines().take_while(|l| l.starts_with("//!")).any(|l| l.starts_with("//! One concept,"));
            (n > MAX_LINES && !said).then(|| format!("{}: {n} lines", f.strip_prefix(repo()).unwrap_or(f).display()))
        })
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines whose module doc does not say `//! One concept, …`:\n{}", long.join("\n"));
}
