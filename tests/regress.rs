//! Every shrunk counterexample under `tests/regress/` (written by `racefuzz shrink
//! --into-test NAME --root-cause "…"`): its oracle still gives the verdict its header
//! records, and the oracle's explanation, computed on the file itself (so its lines are
//! the file's lines), is an insta snapshot, recorded and reviewed with `cargo insta`.

use std::path::Path;

use race_oracles::lang::{parse, validate_relaxed};
use race_oracles::theorems::{Registry, Verdict};
use racefuzz::corpus::header;
use racefuzz::finding_header::{FindingHeader, Kind};
use racefuzz::suts::{self, Subject};

#[test]
fn regressions_keep_their_verdicts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regress");
    let files = racefuzz::corpus::race_files(&dir);
    assert!(!files.is_empty(), "tests/regress is empty");
    let reg = Registry::builtin();
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        let h = FindingHeader::parse(&src).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(matches!(&h.kind, Kind::Regression { name: n, .. } if *n == name), "{name}: no `// regression: {name}` header");
        let o = h.oracle.as_deref().and_then(|id| reg.find(id)).unwrap_or_else(|| panic!("{name}: no `// oracle:` header naming a registered oracle"));
        let expected = header(&src, "verdict").and_then(Verdict::from_name).unwrap_or_else(|| panic!("{name}: no `// verdict:` header"));
        let cause = header(&src, "root cause").unwrap_or_default();
        assert!(cause.len() > 10 && !cause.contains("edit to explain"), "{name}: the `// root cause:` header must explain the failure in one line");
        let p = parse(&src).unwrap_or_else(|e| panic!("{}", e.render(&f.display().to_string())));
        let s = Subject::new(o, &h.sut).unwrap_or_else(|e| panic!("{name}: {e}"));
        validate_relaxed(&p, s.relax()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = suts::check(o, &p, &s, suts::campaign_bounds());
        let text = racefuzz::render::result_brief(&r);
        assert_eq!(r.verdict, expected, "{name}:\n{text}");
        insta::assert_snapshot!(name, text);
    }
}
