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

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

/// One mention of module `to` from module `from`, at `file:line`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Edge {
    from: String,
    to: String,
    file: String,
    line: usize,
    test: bool,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier at the start of `s`.
fn ident(s: &str) -> &str {
    &s[..s.find(|c: char| !is_ident(c)).unwrap_or(s.len())]
}

/// The first identifier of each top-level item of the group that `s` opens (`s` starts just
/// after `{`), with the line offset of each item, e.g. `a::X, b::{c, d}}` gives `a` and `b`.
fn group_heads(s: &str) -> Vec<(&str, usize)> {
    let (mut depth, mut start, mut items) = (0usize, 0, vec![]);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(start..i);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(start..i);
                start = i + 1;
            }
            _ => {}
        }
    }
    items
        .into_iter()
        .filter_map(|r| {
            let item = &s[r.clone()];
            let t = item.trim_start();
            let at = r.start + (item.len() - t.len());
            (!t.is_empty()).then(|| (ident(t), s[..at].matches('\n').count()))
        })
        .collect()
}

/// The module path depth of each line of a file whose own path below the crate root has
/// `depth` components, counting inline `mod name {` blocks, and whether the line is inside
/// a `#[cfg(test)]` module. rustfmt closes a block at the indentation that opened it.
fn scopes(src: &str, depth: usize) -> Vec<(usize, bool)> {
    let mut stack: Vec<(usize, bool)> = vec![]; // (indentation, test) of open inline modules
    let mut cfg_test = false;
    let mut out = vec![];
    for line in src.lines() {
        let indent = line.len() - line.trim_start().len();
        let t = line.trim();
        out.push((depth + stack.len(), stack.iter().any(|s| s.1)));
        let opens_mod = t.ends_with('{') && (t.starts_with("mod ") || t.starts_with("pub mod ") || t.starts_with("pub(crate) mod ") || t.starts_with("pub(super) mod "));
        if opens_mod {
            stack.push((indent, cfg_test));
            out.last_mut().unwrap().1 |= cfg_test;
        } else if t == "}" && stack.last().is_some_and(|s| s.0 == indent) {
            stack.pop();
        }
        if !t.is_empty() {
            cfg_test = t == "#[cfg(test)]";
        }
    }
    out
}

/// Every mention of a module of `modules` other than `top` in `src`, a file at `rel` below
/// the crate root (`explore/naive.rs`) in top-level module `top`.
fn edges_of(top: &str, rel: &str, src: &str, modules: &BTreeSet<String>) -> Vec<Edge> {
    let parts: Vec<&str> = rel.split('/').collect();
    let depth = parts.len() - usize::from(parts.last().is_some_and(|f| *f == "mod.rs"));
    let scopes = scopes(src, depth);
    let line_of = |at: usize| src[..at].matches('\n').count();
    let mut found: Vec<(usize, &str)> = vec![];
    let bytes = src.as_bytes();
    for (at, _) in src.match_indices("crate::") {
        if at > 0 && is_ident(bytes[at - 1] as char) {
            continue;
        }
        let rest = &src[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            found.extend(group_heads(group).into_iter().map(|(m, l)| (line_of(at) + l, m)));
        } else {
            found.push((line_of(at), ident(rest)));
        }
    }
    for (at, _) in src.match_indices("super::") {
        if (at >= 2 && &bytes[at - 2..at] == b"::") || (at > 0 && is_ident(bytes[at - 1] as char)) {
            continue; // not the start of a chain
        }
        let mut rest = &src[at..];
        let mut n = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            (rest, n) = (r, n + 1);
        }
        let line = line_of(at);
        if n < scopes[line].0 {
            continue; // stays inside `top`
        }
        if let Some(group) = rest.strip_prefix('{') {
            found.extend(group_heads(group).into_iter().map(|(m, l)| (line + l, m)));
        } else {
            found.push((line, ident(rest)));
        }
    }
    found
        .into_iter()
        .filter(|(_, m)| *m != top && modules.contains(*m))
        .map(|(line, m)| Edge { from: top.into(), to: m.into(), file: format!("oracles/src/{rel}"), line: line + 1, test: scopes[line].1 })
        .collect()
}

/// The top-level modules (`pub mod` in lib.rs) and every edge between them.
fn crate_edges() -> (BTreeSet<String>, usize, Vec<Edge>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let modules: BTreeSet<String> = lib.lines().filter_map(|l| l.strip_prefix("pub mod ")).map(|m| m.trim_end_matches(';').to_string()).collect();
    let mut files = vec![];
    rust_files(&src, &mut files);
    let mut edges = vec![];
    let mut scanned = 0;
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        let top = ident(&rel).to_string();
        if rel == "lib.rs" {
            continue;
        }
        assert!(modules.contains(&top), "oracles/src/{rel}: `{top}` is not a `pub mod` of lib.rs");
        scanned += 1;
        edges.extend(edges_of(&top, &rel, &std::fs::read_to_string(f).unwrap(), &modules));
    }
    (modules, scanned, edges)
}

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
    let (modules, _, _) = crate_edges();
    let layered: BTreeSet<String> = ALLOWED.iter().map(|(m, _)| m.to_string()).collect();
    assert_eq!(modules, layered, "every top-level module of race-oracles has its place in ALLOWED (and no other)");
}

#[test]
fn modules_use_only_the_layers_below() {
    let (_, files, edges) = crate_edges();
    // The scan must see the crate: 139 files and 24 distinct edges when this was written.
    let distinct: BTreeSet<(&str, &str)> = edges.iter().map(|e| (e.from.as_str(), e.to.as_str())).collect();
    assert!(files >= 100, "scanned only {files} files");
    assert!(edges.len() >= 300 && distinct.len() >= 20, "found only {} mentions, {} edges", edges.len(), distinct.len());
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut bad = vec![];
    let mut used_exceptions = BTreeSet::new();
    for e in &edges {
        let pair = (e.from.as_str(), e.to.as_str());
        if allowed.get(pair.0).is_some_and(|u| u.contains(&pair.1)) {
            continue;
        }
        if e.test && TEST_ONLY.contains(&pair) {
            used_exceptions.insert(pair);
            continue;
        }
        bad.push(format!("{}:{}: {} -> {}{}", e.file, e.line, e.from, e.to, if e.test { " (test)" } else { "" }));
    }
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
    let got: Vec<(String, usize, bool)> = edges_of("gen", "gen/x.rs", src, &modules).into_iter().map(|e| (e.to, e.line, e.test)).collect();
    let want = [("theorems", 1, false), ("lang", 3, false), ("machine", 4, false), ("race", 7, false), ("explore", 10, true)];
    assert_eq!(got, want.map(|(m, l, t)| (m.to_string(), l, t)));
}
