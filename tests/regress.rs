//! Every shrunk counterexample under `tests/regress/` (written by `racefuzz shrink
//! --into-test NAME`): its oracle still gives the verdict its header records, and the
//! explanation is a snapshot.

use std::path::Path;

use race_oracles::lang::{parse, validate_relaxed};
use race_oracles::theorems::Verdict;
use racefuzz::campaign::{check, OracleId};
use racefuzz::corpus::header;

#[test]
fn regressions_keep_their_verdicts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regress");
    let files = racefuzz::corpus::race_files(&dir);
    assert!(!files.is_empty(), "tests/regress is empty");
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        let oracle = header(&src, "oracle").and_then(OracleId::from_name).unwrap_or_else(|| panic!("{name}: no `// oracle:` header"));
        let mutant = header(&src, "mutant").filter(|m| *m != "none");
        let expected = header(&src, "verdict").and_then(Verdict::from_name).unwrap_or_else(|| panic!("{name}: no `// verdict:` header"));
        let p = parse(&src).unwrap_or_else(|e| panic!("{}", e.render(&f.display().to_string())));
        let relax = racefuzz::mutants::racerdx(mutant).unwrap_or_else(|| panic!("{name}: unknown mutant")).1;
        validate_relaxed(&p, relax).unwrap_or_else(|e| panic!("{name}: {e}"));
        let c = check(oracle, &p, mutant);
        assert_eq!(c.verdict, expected, "{name}:\n{}", c.text);
        insta::assert_snapshot!(name, c.text);
    }
}
