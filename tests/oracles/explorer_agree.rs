//! `explorer-agree` and `explorer-agree-racerdx`, through the oracle registry: the corpus's
//! thread programs as a snapshot of what each explorer runs (naive, stateful, DPOR, and the
//! classes), the paper's racerdx programs under the stateful search, and every seeded
//! explorer bug caught within a fixed budget of generated programs (none of those called
//! equivalent).

use std::ops::ControlFlow;
use std::path::Path;

use race_oracles::explore::{classes::class_key, Config, ExplorerKind};
use race_oracles::lang::{parse, Dialect, Program};
use race_oracles::machine::Machine;
use race_oracles::theorems::{Oracle, OracleResult, Registry, Verdict};
use racefuzz::suts::{self, Subject};

fn oracle(id: &str) -> Oracle {
    *Registry::builtin().find(id).unwrap()
}

fn check(id: &str, p: &Program, mutant: Option<&str>) -> OracleResult {
    let o = oracle(id);
    suts::check(&o, p, &Subject::for_oracle(&o, mutant).unwrap(), suts::campaign_bounds())
}

/// The corpus's thread programs: executions under each explorer, classes, and the oracle's
/// verdict. DPOR runs exactly one execution per class on every one of them.
#[test]
fn corpus_programs_under_each_explorer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut table = String::new();
    for dir in ["corpus/paper/bigfoot", "corpus/paper/escape"] {
        for f in racefuzz::corpus::race_files(&root.join(dir)) {
            let p = parse(&std::fs::read_to_string(&f).unwrap()).unwrap();
            let m = Machine::new(&p, 2);
            let mut row = vec![];
            let mut classes = std::collections::BTreeSet::new();
            for e in [ExplorerKind::Naive, ExplorerKind::Stateful, ExplorerKind::Dpor] {
                let cfg = Config { explorer: e, ..Config::default() };
                let stats = e.get().explore(&m, m.initial_state().unwrap(), &cfg, &mut |ex| {
                    if e == ExplorerKind::Naive {
                        classes.insert(class_key(&m, ex));
                    }
                    ControlFlow::Continue(())
                });
                assert!(stats.complete, "{}", f.display());
                row.push(stats.executions);
            }
            assert_eq!(row[2], classes.len() as u64, "{}: DPOR runs one execution per class", f.display());
            let verdict = if p.dialect == Dialect::Bfj { format!("{:?}", check("explorer-agree", &p, None).verdict) } else { "-".into() };
            let name = f.strip_prefix(root).unwrap().display().to_string();
            table.push_str(&format!("{name:<52} naive {:>6}  stateful {:>5}  dpor {:>4}  classes {:>4}  {verdict}\n", row[0], row[1], row[2], classes.len()));
        }
    }
    insta::assert_snapshot!(table);
}

/// The paper's racerdx programs: the stateful search agrees with the naive enumeration on
/// every method pair where that enumeration finishes.
#[test]
fn racerdx_paper_programs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paper/racerdx");
    let mut passed = 0;
    for f in racefuzz::corpus::race_files(&root) {
        let p = parse(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let v = check("explorer-agree-racerdx", &p, None).verdict;
        assert_ne!(v, Verdict::Fail, "{}", f.display());
        passed += usize::from(v == Verdict::Pass);
    }
    // The others hit the naive enumeration's budget on some pair.
    assert!(passed >= 4, "only {passed} paper programs conclusive");
}
