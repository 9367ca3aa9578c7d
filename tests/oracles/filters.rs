//! The access filters' teeth: every seeded bug of the escape and capsule
//! filters (docs/spec/escape_capsule.md §14) is caught by its theorem's oracle within a fixed
//! budget of generated programs, and each negative control (claims the thesis shows false:
//! P-E8 and P-E9 on Fig. 4.2, P-E10 on Fig. 4.1) is rediscovered by the generator from
//! scratch, on the real filter, and shrinks to a witness no larger than the paper's figure.

use std::path::Path;

use race_oracles::gen::shrink::{shrink, size};
use race_oracles::lang::{parse, print};
use race_oracles::theorems::{Registry, Verdict};
use racefuzz::suts::{self, Subject};

/// Each negative control fails on some generated program within 600 (real SUT, fixed
/// seed), and the shrunk witness is no larger than the paper's figure (`shrink::size`).
#[test]
fn negative_controls_are_rediscovered_no_larger_than_the_papers_figures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paper/escape");
    let mut text = String::new();
    for (id, figure) in [
        ("escape-address-precise", "fig4_2_not_address_precise.race"),
        ("escape-elided-race-free", "fig4_2_not_address_precise.race"),
        ("lock-elision-race-free", "fig4_1_lock_elision.race"),
    ] {
        let o = *Registry::builtin().find(id).unwrap();
        assert!(o.negative_control, "{id}");
        let fig = parse(&std::fs::read_to_string(dir.join(figure)).unwrap()).unwrap();
        let s = Subject::for_oracle(&o, None).unwrap();
        let fails = |p: &race_oracles::lang::Program| suts::check(&o, p, &s, suts::campaign_bounds()).verdict == Verdict::Fail;
        assert!(fails(&fig), "{id} holds on its own figure {figure}");
        let (n, found) = super::hunt(None, id, 600, 29, 16, 48).unwrap_or_else(|| panic!("{id}: not rediscovered in 600 programs"));
        let shrunk = shrink(&found, s.relax(), 3000, fails);
        assert!(fails(&shrunk.program), "{id}: the shrunk program passes");
        assert!(size(&shrunk.program) <= size(&fig), "{id}: shrunk to size {} > {figure}'s {}:\n{}", size(&shrunk.program), size(&fig), print(&shrunk.program));
        text.push_str(&format!("// {id}: program {n} of the hunt, shrunk to size {} ({figure}: {})\n{}\n", size(&shrunk.program), size(&fig), print(&shrunk.program)));
    }
    insta::assert_snapshot!(text);
}
