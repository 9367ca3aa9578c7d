//! `fasttrack-precise`, through the oracle registry: FastTrack's racy locations on a small
//! program whose lock-ordered and unordered accesses meet (a snapshot of the oracle's text,
//! for the real detector and a seeded bug), and every seeded FastTrack bug judged as the
//! spec predicts within a fixed budget of generated programs. (The real detector on
//! generated programs: `racerdx::real_analysis_passes_generated_programs`, which runs
//! every registered oracle.)

use race_oracles::lang::parse;
use race_oracles::theorems::{Registry, Verdict};
use racefuzz::render;
use racefuzz::suts::{self, Subject};

/// Both threads write `o.f` inside `m` (ordered) and touch `o.g` after it (a race); the
/// book's FastTrack chapter runs the same file.
const ORDERED_AND_NOT: &str = include_str!("../../examples/walkthrough/ordered_and_not.race");

#[test]
fn locked_writes_are_ordered_and_the_unlocked_pair_races() {
    let o = *Registry::builtin().find("fasttrack-precise").unwrap();
    let p = parse(ORDERED_AND_NOT).unwrap();
    let mut text = String::new();
    for mutant in [None, Some("ft-acquire-no-join"), Some("ft-release-no-tick")] {
        let r = suts::check(&o, &p, &Subject::for_oracle(&o, mutant).unwrap(), suts::campaign_bounds());
        assert_eq!(r.verdict, if mutant.is_none() { Verdict::Pass } else { Verdict::Fail });
        text.push_str(&render::result_full(&r, "ordered_and_not.race"));
        text.push('\n');
    }
    insta::assert_snapshot!(text);
}
