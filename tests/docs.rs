//! The docs live in the repository: every citation of a specification (`spec/NAME.md §N`,
//! written `docs/spec/NAME.md` in comments and docs; user-facing strings such as an oracle's
//! `spec` field say `spec/NAME.md`, relative to `docs/`) names a file of `docs/spec/` and a
//! section heading that file has; nothing points outside the clone (`../shared`, seed files)
//! or to an issue tracker that is not in it.
//!
//! The book (`docs/book/`, an mdBook) holds together without mdbook: `SUMMARY.md` lists
//! every chapter exactly once, every relative link of the README and the book (to a chapter,
//! a heading of one, an image, a file of the repository) resolves, and the command-line
//! reference (`docs/book/src/reference/cli.md`) is what clap prints now
//! (`RACEFUZZ_BLESS=1` rewrites it). `tests/readme.rs` runs the book's commands.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The text files a reader follows citations from: sources, tests, benches, examples, the
/// fuzz targets, scripts and the docs (the specs and the book's chapters included; not the
/// book mdbook builds into `docs/book/book/`).
fn cited_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if p.is_dir() {
                if name != "target" && name != "corpus" && name != "artifacts" && !name.starts_with('.') && !p.ends_with("docs/book/book") {
                    walk(&p, out);
                }
            } else if ["rs", "md", "py", "txt", "toml"].iter().any(|x| name.ends_with(&format!(".{x}"))) || name == "sut-coverage" || name == "mutation" {
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

/// The book's source folder.
fn book_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/book/src")
}

/// Every `.md` file under `dir`, recursively, sorted by path.
fn markdown_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The chapters `SUMMARY.md` links to, in its order, as written (relative to `src/`).
fn summary_links() -> Vec<String> {
    let summary = std::fs::read_to_string(book_src().join("SUMMARY.md")).expect("docs/book/src/SUMMARY.md");
    links(&summary).into_iter().map(|(_, target)| target).collect()
}

/// The book's chapters in reading order: those `SUMMARY.md` lists, then any it does not
/// (by path; [`summary_lists_every_chapter_exactly_once`] fails on those). What
/// `tests/readme.rs` runs, after the README.
pub fn chapters_in_order() -> Vec<PathBuf> {
    let src = book_src();
    let mut out: Vec<PathBuf> = vec![];
    for l in summary_links() {
        let p = src.join(&l);
        if !out.contains(&p) {
            out.push(p);
        }
    }
    for p in markdown_under(&src) {
        if !out.contains(&p) && p.file_name().is_some_and(|n| n != "SUMMARY.md") {
            out.push(p);
        }
    }
    out
}

/// `text` with fenced code blocks and inline code spans blanked out (newlines kept, so line
/// numbers stay), for finding links and headings in the prose only.
fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fenced = false;
    for line in text.split_inclusive('\n') {
        if line.starts_with("```") {
            fenced = !fenced;
            out.push('\n');
        } else if fenced {
            out.extend(line.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
        } else {
            out.push_str(line);
        }
    }
    // Code spans may wrap onto the next line; pair the backticks over the whole text.
    let mut blanked = String::with_capacity(out.len());
    let mut in_code = false;
    for c in out.chars() {
        if c == '`' {
            in_code = !in_code;
            blanked.push(' ');
        } else if in_code && c != '\n' {
            blanked.push(' ');
        } else {
            blanked.push(c);
        }
    }
    blanked
}

/// The targets of the inline links and images of `text`'s prose (`[text](target)`,
/// `![alt](target)`), each with its 1-based line.
fn links(text: &str) -> Vec<(usize, String)> {
    let prose = prose(text);
    let mut out = vec![];
    for (at, _) in prose.match_indices("](") {
        let rest = &prose[at + 2..];
        let Some(end) = rest.find(')') else { continue };
        let target = rest[..end].trim();
        if target.is_empty() || target.contains(char::is_whitespace) {
            continue;
        }
        out.push((prose[..at].matches('\n').count() + 1, target.to_string()));
    }
    out
}

/// The anchors of a Markdown file's headings, as GitHub and mdBook make them: the heading's
/// text, lowercased, with spaces as `-`, only letters, digits, `-` and `_` kept, and `-1`,
/// `-2`, … after a repeated one.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let id: String = title
            .trim()
            .trim_end_matches('#')
            .trim()
            .chars()
            .filter_map(|c| match c {
                c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c.to_lowercase().next().unwrap_or(c)),
                c if c.is_whitespace() => Some('-'),
                _ => None,
            })
            .collect();
        let n = seen.entry(id.clone()).or_insert(0);
        out.insert(if *n == 0 { id.clone() } else { format!("{id}-{n}") });
        *n += 1;
    }
    out
}

/// `path` with `.` and `..` folded, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// `SUMMARY.md` lists every chapter of `docs/book/src/` exactly once, and every file it
/// lists exists: mdBook would silently leave an unlisted chapter out of the book.
#[test]
fn summary_lists_every_chapter_exactly_once() {
    let src = book_src();
    let listed = summary_links();
    let mut problems = vec![];
    let mut once = BTreeSet::new();
    for l in &listed {
        if !once.insert(l.clone()) {
            problems.push(format!("SUMMARY.md lists {l} more than once"));
        }
        if !src.join(l).is_file() {
            problems.push(format!("SUMMARY.md lists {l}, which does not exist"));
        }
    }
    let files = markdown_under(&src);
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap().display().to_string();
        if rel != "SUMMARY.md" && !once.contains(&rel) {
            problems.push(format!("docs/book/src/{rel} is not in SUMMARY.md"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Vacuity: the book has its parts' chapters, and the scan sees them.
    assert!(listed.len() >= 30 && files.len() == listed.len() + 1, "{} chapters listed, {} files found", listed.len(), files.len());
}

/// Every relative link of the README and the book resolves: a chapter, a heading of a
/// chapter (`chapter.md#anchor`, `#anchor`), an image, a folder or file of the repository.
/// Links to the web are not followed.
#[test]
fn every_relative_link_of_the_readme_and_the_book_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    files.extend(markdown_under(&book_src()));
    let mut broken = vec![];
    let mut checked = (0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let rel = f.strip_prefix(root).unwrap().display().to_string();
        for (line, target) in links(&text) {
            if target.starts_with("http://") || target.starts_with("https://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let resolved = if path.is_empty() { f.clone() } else { normalize(&f.parent().unwrap().join(path)) };
            checked.0 += 1;
            if !resolved.starts_with(root) || !resolved.exists() {
                broken.push(format!("{rel}:{line}: {target} is not a file of the repository"));
                continue;
            }
            if !anchor.is_empty() {
                checked.1 += 1;
                let is_md = resolved.extension().is_some_and(|x| x == "md");
                if !is_md || !anchors(&std::fs::read_to_string(&resolved).unwrap()).contains(anchor) {
                    broken.push(format!("{rel}:{line}: {target}: no heading with the anchor #{anchor}"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "links that do not resolve:\n{}", broken.join("\n"));
    // Vacuity: the book links its chapters to each other, to the specs and to the schemas.
    assert!(checked.0 > 150 && checked.1 > 10, "only {checked:?} links (all, with an anchor) found: is the scan broken?");
}

#[test]
fn anchors_and_links_are_read_as_github_and_mdbook_read_them() {
    let a = anchors("# The `.race` language\n## A campaign's page\n```\n# not a heading\n```\n## Notes\n## Notes\n#nope\n");
    assert_eq!(a, ["a-campaigns-page", "notes", "notes-1", "the-race-language"].map(String::from).into_iter().collect());
    let l = links("see [a](x.md) and `[b](code.md)`,\n![img](../img/p.png) [c\nd](y.md#h)\n```\n[e](block.md)\n```\n[web](https://example.org)\n");
    assert_eq!(l, [(1, "x.md"), (2, "../img/p.png"), (3, "y.md#h"), (7, "https://example.org")].map(|(n, s)| (n, s.to_string())));
}

/// The generated command-line reference: every subcommand's long help (`racefuzz help
/// COMMAND` with a fixed width and no environment values), root first, then by name.
fn cli_reference() -> String {
    fn quiet(cmd: clap::Command) -> clap::Command {
        cmd.mut_args(|a| a.hide_env_values(true)).mut_subcommands(quiet)
    }
    fn walk(cmd: &clap::Command, path: &str, out: &mut Vec<(String, String)>) {
        let help = cmd.clone().term_width(100).render_long_help().to_string();
        out.push((path.to_string(), help));
        let mut subs: Vec<&clap::Command> = cmd.get_subcommands().filter(|s| s.get_name() != "help").collect();
        subs.sort_by_key(|s| s.get_name());
        for s in subs {
            walk(s, &format!("{path} {}", s.get_name()), out);
        }
    }
    let mut root = quiet(racefuzz::cli::command().bin_name("racefuzz"));
    root.build();
    let mut sections = vec![];
    walk(&root, "racefuzz", &mut sections);
    let mut text = String::from(
        "# Command line\n\n<!-- Generated by tests/docs.rs from src/cli/mod.rs; do not edit. RACEFUZZ_BLESS=1 cargo test --test integration docs:: rewrites it. -->\n\n\
         What `racefuzz COMMAND --help` prints for every subcommand, generated from racefuzz's\n\
         command-line definition (`src/cli/mod.rs`) at a width of 100 columns; `[env: NAME]` names\n\
         the environment variable that sets a flag. The [exit codes](../getting-started/exit-codes.md)\n\
         are those of every subcommand.\n\n",
    );
    let names: Vec<String> = sections.iter().skip(1).map(|(p, _)| format!("[`{}`](#{})", &p["racefuzz ".len()..], p.replace(' ', "-"))).collect();
    text.push_str(&format!("Subcommands: {}.\n", names.join(", ")));
    for (path, help) in &sections {
        let help: Vec<&str> = help.trim_end().lines().map(str::trim_end).collect();
        text.push_str(&format!("\n## {path}\n\n```text\n{}\n```\n", help.join("\n")));
    }
    text
}

/// `docs/book/src/reference/cli.md` is what clap prints now; `RACEFUZZ_BLESS=1` rewrites it.
#[test]
fn the_cli_reference_is_generated_from_clap() {
    let path = book_src().join("reference/cli.md");
    let now = cli_reference();
    // Vacuity: every subcommand is there, each with its usage line.
    for c in ["explore", "replay", "corpus", "analyze", "check", "fuzz", "shrink", "merge", "score", "mutants", "trace", "races", "gen", "bench-mutants", "export"] {
        assert!(now.contains(&format!("\n## racefuzz {c}\n")) && now.contains(&format!("Usage: racefuzz {c}")), "the reference lacks `racefuzz {c}`");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != now {
        if std::env::var_os("RACEFUZZ_BLESS").is_some() {
            std::fs::write(&path, &now).unwrap();
        } else {
            panic!("{} is not what clap prints now; run RACEFUZZ_BLESS=1 cargo test --test integration docs:: and review the diff", path.display());
        }
    }
}
