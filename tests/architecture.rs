//! The crate boundary (docs/design.md): the ground truth never depends on the SUT crate, and the
//! SUTs use the IR and the machine's events, never the ground truth's explorer or race
//! logic (a FastTrack that called the oracle's vector clocks would share its bugs), nor the
//! L-DRF engines (a sync-CFG analysis sees the graphs, never E-STD or E-LDRF).

use std::path::Path;

use crate::layers::layering::rust_files;

#[test]
fn ground_truth_does_not_depend_on_the_sut_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("oracles/Cargo.toml")).unwrap();
    assert!(!manifest.lines().any(|l| l.trim_start().starts_with("racefuzz")), "oracles/Cargo.toml depends on racefuzz");
    let mut files = vec![];
    rust_files(&root.join("oracles/src"), &mut files);
    assert!(files.len() > 20);
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        assert!(!src.contains("racefuzz::"), "{} uses the SUT crate", f.display());
    }
}

#[test]
fn suts_do_not_reach_the_explorer_or_the_race_logic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    rust_files(&root.join("src/analyses"), &mut files);
    assert!(!files.is_empty());
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        for forbidden in [
            "race_oracles::explore",
            "race_oracles::race",
            "race_oracles::clock",
            "race_oracles::machine::Clocks",
            "race_oracles::theorems::racerdx_",
            "race_oracles::machine::Machine",
            "race_oracles::machine::State",
            "race_oracles::ldrf::standard",
            "race_oracles::ldrf::local",
            "race_oracles::ldrf::hb",
            "race_oracles::reach",
        ] {
            assert!(!src.contains(forbidden), "{} uses `{forbidden}`", f.display());
        }
    }
}

/// Every registered oracle has its cargo-fuzz target (`fuzz/fuzz_targets/<id>.rs` with `-`
/// as `_`, declared in `fuzz/Cargo.toml`), whose body is the registry's `fuzz_one`.
#[test]
fn every_oracle_has_a_fuzz_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    for o in race_oracles::theorems::Registry::builtin().all() {
        let name = o.id.replace('-', "_");
        let src = std::fs::read_to_string(root.join(format!("fuzz_targets/{name}.rs"))).unwrap_or_else(|_| panic!("{}: no fuzz/fuzz_targets/{name}.rs", o.id));
        assert!(src.contains(&format!("racefuzz::fuzz_one(\"{}\", data)", o.id)), "{}: the target does not run fuzz_one", o.id);
        assert!(manifest.contains(&format!("name = \"{name}\"")), "{}: fuzz/Cargo.toml does not declare {name}", o.id);
    }
}

/// No source file of the ground truth is over 500 lines: a file that grows
/// past it is split into a directory module by concept, one concept per file.
#[test]
fn no_oracles_file_is_over_500_lines() {
    const MAX_LINES: usize = 500;
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("oracles/src");
    let mut files = vec![];
    rust_files(&src, &mut files);
    assert!(files.len() > 20);
    let mut long: Vec<String> = vec![];
    for f in files {
        let rel = f.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        let lines = std::fs::read_to_string(&f).unwrap().lines().count();
        if lines > MAX_LINES {
            long.push(format!("oracles/src/{rel} ({lines} lines)"));
        }
    }
    long.sort();
    assert!(long.is_empty(), "over {MAX_LINES} lines (split them by concept): {}", long.join(", "));
}

/// Pictures draw what they are given: nothing under src/picture/ names the campaign module.
/// A campaign writes its findings' witness pages through `picture`, so `picture` reading
/// `campaign` would make a cycle; a campaign's page reads its summary (`racefuzz::summary`),
/// which names no campaign either. And the summary and the merge are domain logic the
/// command line calls, never the other way round.
#[test]
fn pictures_do_not_reach_campaigns_nor_the_domain_the_command_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    rust_files(&root.join("src/picture"), &mut files);
    assert!(!files.is_empty());
    files.push(root.join("src/summary.rs"));
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        assert!(!src.contains("campaign::") && !src.contains("`campaign`"), "{} names the campaign module", f.display());
    }
    for f in ["src/summary.rs", "src/merge.rs"] {
        let src = std::fs::read_to_string(root.join(f)).unwrap();
        assert!(!src.contains("cli::") && !src.contains("super::"), "{f} reaches into the command line");
    }
}
