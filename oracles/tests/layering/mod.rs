//! The scanner behind the layering tests of both crates (`oracles/tests/layers.rs`, and
//! `tests/layers.rs` of racefuzz, which includes this file by path): every mention of one
//! top-level module of a crate in the files of another.
//!
//! An edge is any mention of another top-level module in a file under `<root>/<top>/`:
//! `crate::m`, each item of a `use crate::{a, b::c}` group, and a `super::` path that climbs
//! out of `<top>`. Comments and doc links count (a doc link to a module above is a promise
//! about it, and `cargo doc` resolves it as a dependency); prose without a path does not.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One mention of module `to` from module `from`, at `file:line`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The module that mentions.
    pub from: String,
    /// The module mentioned.
    pub to: String,
    /// The file, relative to the repository root.
    pub file: String,
    /// Its line (1-based).
    pub line: usize,
    /// Whether the line is test code (`#[cfg(test)] mod … { }`).
    pub test: bool,
}

pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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
pub fn ident(s: &str) -> &str {
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
/// the crate root `root` (`explore/naive.rs` below `oracles/src`) in top-level module `top`.
pub fn edges_of(root: &str, top: &str, rel: &str, src: &str, modules: &BTreeSet<String>) -> Vec<Edge> {
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
        .map(|(line, m)| Edge { from: top.into(), to: m.into(), file: format!("{root}/{rel}"), line: line + 1, test: scopes[line].1 })
        .collect()
}

/// The top-level modules (`pub mod` in lib.rs) of the crate whose sources are `root` (a
/// path from the repository root, `oracles/src`), the number of files scanned, and every
/// edge between them.
pub fn crate_edges(repo: &Path, root: &str) -> (BTreeSet<String>, usize, Vec<Edge>) {
    let src = repo.join(root);
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let modules: BTreeSet<String> = lib.lines().filter_map(|l| l.strip_prefix("pub mod ")).map(|m| m.trim_end_matches(';').to_string()).collect();
    let mut files = vec![];
    rust_files(&src, &mut files);
    let mut edges = vec![];
    let mut scanned = 0;
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        let top = ident(&rel).to_string();
        if rel == "lib.rs" || rel == "main.rs" {
            continue;
        }
        assert!(modules.contains(&top), "{root}/{rel}: `{top}` is not a `pub mod` of lib.rs");
        scanned += 1;
        edges.extend(edges_of(root, &top, &rel, &std::fs::read_to_string(f).unwrap(), &modules));
    }
    (modules, scanned, edges)
}

/// Every module `allowed` names for another comes earlier in the list, and none is listed
/// twice: the allowed edges form a DAG.
pub fn assert_points_down(allowed: &[(&str, &[&str])]) {
    let mut below: BTreeSet<&str> = BTreeSet::new();
    for (m, uses) in allowed {
        for u in *uses {
            assert!(below.contains(u), "ALLOWED: {m} uses {u}, which is not listed before it");
        }
        assert!(below.insert(m), "ALLOWED: {m} is listed twice");
    }
}

/// The edges `allowed` does not list, as `file:line: from -> to` lines; `exception` may
/// excuse one (it returns whether it does).
pub fn not_allowed(edges: &[Edge], allowed: &[(&str, &[&str])], exception: &mut dyn FnMut(&Edge) -> bool) -> Vec<String> {
    let allowed: BTreeMap<&str, &[&str]> = allowed.iter().copied().collect();
    edges
        .iter()
        .filter(|e| !allowed.get(e.from.as_str()).is_some_and(|u| u.contains(&e.to.as_str())) && !exception(e))
        .map(|e| format!("{}:{}: {} -> {}{}", e.file, e.line, e.from, e.to, if e.test { " (test)" } else { "" }))
        .collect()
}
