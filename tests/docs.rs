//! The docs live in the repository: every citation of a specification (`spec/NAME.md §N`,
//! written `docs/spec/NAME.md` in comments and docs; user-facing strings such as an oracle's
//! `spec` field say `spec/NAME.md`, relative to `docs/`) names a file of `docs/spec/` and a
//! section heading that file has; nothing points outside the clone (`../shared`, seed files)
//! or to an issue tracker that is not in it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The text files a reader follows citations from: sources, tests, benches, examples, the
/// fuzz targets, scripts and the docs (the specs included: they cite each other).
fn cited_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if p.is_dir() {
                if name != "target" && name != "corpus" && name != "artifacts" && !name.starts_with('.') {
                    walk(&p, out);
                }
            } else if ["rs", "md", "py", "txt", "toml"].iter().any(|x| name.ends_with(&format!(".{x}"))) || name == "sut-coverage" {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![root.join("README.md"), root.join(".ci/run")];
    for d in ["src", "oracles/src", "tests", "benches", "examples", "fuzz", "scripts", "docs"] {
        walk(&root.join(d), &mut out);
    }
    out.sort();
    out
}

/// The section numbers of a spec: the leading number of each heading (`## 4.`, `### 4.5 …`,
/// `### §4.5`) and its named items (`### A16 …`).
fn sections(spec: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in spec.lines().filter(|l| l.starts_with('#')) {
        let title = line.trim_start_matches('#').trim().trim_start_matches('§').trim();
        let number: String = title.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '.').collect();
        let number = number.trim_end_matches('.');
        if number.chars().any(|c| c.is_ascii_digit()) {
            out.insert(number.to_string());
        }
    }
    out
}

/// Every `spec/NAME.md` resolves to `docs/spec/NAME.md`, and every `spec/NAME.md §N` (also
/// after a comma) to a heading numbered N there.
#[test]
fn every_spec_citation_resolves_inside_the_repo() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = (0, 0);
    let mut broken = vec![];
    for f in cited_files() {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        let rel = f.strip_prefix(root).unwrap_or(&f).display().to_string();
        for (n, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find("spec/") {
                let after = &rest[at + 5..];
                rest = after;
                let name: String = after.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
                let Some(tail) = after[name.len()..].strip_prefix(".md") else { continue };
                if name.is_empty() {
                    continue;
                }
                let Ok(spec) = std::fs::read_to_string(root.join("docs/spec").join(format!("{name}.md"))) else {
                    broken.push(format!("{rel}:{}: spec/{name}.md is not in docs/spec/", n + 1));
                    continue;
                };
                checked.0 += 1;
                let tail = tail.trim_start_matches(',').trim_start();
                if let Some(sec) = tail.strip_prefix('§') {
                    let sec: String = sec.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '.').collect();
                    let sec = sec.trim_end_matches('.');
                    checked.1 += 1;
                    if !sections(&spec).contains(sec) {
                        broken.push(format!("{rel}:{}: spec/{name}.md has no section §{sec}", n + 1));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "citations that do not resolve:\n{}", broken.join("\n"));
    // Vacuity: the code cites the specs hundreds of times, most with a section.
    assert!(checked.0 > 300 && checked.1 > 200, "only {checked:?} citations (files, sections) found: is the scan broken?");
}

/// Nothing points outside the clone: no `../shared` path, no seed file of the papers' dumps
/// (`docs/references.md` gives the papers), no tracker issue number.
#[test]
fn no_citation_points_outside_the_repo() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut outside = vec![];
    let mut scanned = 0;
    for f in cited_files() {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        let rel = f.strip_prefix(root).unwrap_or(&f).display().to_string();
        if rel == "tests/docs.rs" {
            continue;
        }
        scanned += 1;
        for (n, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            let issue = lower.match_indices("issue ").any(|(i, _)| lower[i + 6..].starts_with(|c: char| c.is_ascii_digit()));
            if line.contains("../shared") || line.contains("shared/seeds") || line.contains("shared/spec") || issue {
                outside.push(format!("{rel}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(scanned > 100, "only {scanned} files scanned");
    assert!(outside.is_empty(), "references outside the repository:\n{}", outside.join("\n"));
}
