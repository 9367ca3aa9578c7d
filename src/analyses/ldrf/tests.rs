//! The analyses on the paper's examples (docs/spec/ldrf.md §8): which asserts each proves, and
//! the facts R5 turns on.

use race_oracles::lang::parse;
use race_oracles::ldrf::cfg::{Cfg, Cmd};

use super::*;

const FIG1: &str = "dialect ldrf\nthread {\nacq(m)\nx = y\nx = x + 1\ny = y + 1\nassert x == y\nrel(m)\n}\nthread {\nz = z + 1\nassert z == 1\nacq(m)\nassert x == y\nrel(m)\n}\n";
const R5: &str = "dialect ldrf\nthread {\nacq(m)\nx = 1\nrel(m)\n}\nthread {\ny = 5\nacq(m)\na = x + y\n}\n";

fn cfg(src: &str) -> Cfg {
    let p = parse(src).unwrap();
    race_oracles::lang::validate(&p).unwrap();
    Cfg::of(&p, 4)
}

fn proved_lines(c: &Cfg, domain: DomainKind) -> Vec<u32> {
    let f = SyncCfg { domain, bug: None }.analyze(c);
    assert_eq!(f.malformed(c), None);
    f.proved.iter().map(|&e| c.edge(e).line.0).collect()
}

/// Spec §8 R1: value-set and intervals prove only `z == 1` (line 12); the region mix with
/// `regions { x, y }` proves all three asserts; without regions it is the value-set.
#[test]
fn fig1_proved_asserts() {
    let c = cfg(FIG1);
    assert_eq!(proved_lines(&c, DomainKind::ValueSet), [12]);
    assert_eq!(proved_lines(&c, DomainKind::Interval), [12]);
    assert_eq!(proved_lines(&c, DomainKind::Region), [12]);
    let c = cfg(&FIG1.replace("dialect ldrf\n", "dialect ldrf\nregions { x, y }\n"));
    assert_eq!(proved_lines(&c, DomainKind::Region), [8, 13, 15]);
}

/// Spec §8 R5 (y = 5 is 1 mod 4): at `a = x + y` the naive union holds (0, 1) and (1, 0),
/// missing the true (1, 1); the value-set holds {0,1} × {0,1}.
#[test]
fn r5_the_naive_union_misses_a_combination() {
    let c = cfg(R5);
    let at = c.edges.iter().find(|e| matches!(e.cmd, Cmd::Assign(_, _)) && e.text == "a = x + y").unwrap().src;
    let vars = c.relevant(at);
    let naive = SyncCfg { domain: DomainKind::Naive, bug: None }.analyze(&c);
    // (x, y, a), by first mention.
    assert!(naive.covers(at, &vars, &[0, 1, 0]) && naive.covers(at, &vars, &[1, 0, 0]));
    assert!(!naive.covers(at, &vars, &[1, 1, 0]));
    let vs = SyncCfg { domain: DomainKind::ValueSet, bug: None }.analyze(&c);
    assert!(vs.covers(at, &vars, &[1, 1, 0]));
    assert_eq!(vs.show(&c, at, &vars), "x∈{0,1} y∈{0,1} a∈{0}");
}

/// Rule coverage (§5.1, §5.2): on R5 the var-mix makes the environment (x, y) = (1, 1) that
/// neither input holds, and the naive union keeps whole environments; Fig. 1 with
/// `regions { x, y }` keeps the `x == y` correlation through the region mix.
#[test]
fn r5_and_fig1_fire_the_mix_cases() {
    use race_oracles::theorems::rules::record;
    use rules::SyncCfgRule as R;
    let c = cfg(R5);
    let (_, vs) = record(|| SyncCfg { domain: DomainKind::ValueSet, bug: None }.analyze(&c));
    assert!(vs.contains(R::MixCombines) && vs.contains(R::AcquireMix) && vs.contains(R::AcquireImports), "{vs:?}");
    assert!(!vs.contains(R::NaiveUnion) && !vs.contains(R::RegionKeeps));
    let (_, naive) = record(|| SyncCfg { domain: DomainKind::Naive, bug: None }.analyze(&c));
    assert!(naive.contains(R::NaiveUnion) && !naive.contains(R::MixCombines), "{naive:?}");
    let c = cfg(&FIG1.replace("dialect ldrf\n", "dialect ldrf\nregions { x, y }\n"));
    let (_, region) = record(|| SyncCfg { domain: DomainKind::Region, bug: None }.analyze(&c));
    assert!(region.contains(R::RegionKeeps) && region.contains(R::AssertProved), "{region:?}");
}
