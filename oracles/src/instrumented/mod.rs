//! The instrumented semantics of Naik and Aiken ([Naik-Aiken 2007] Figs. 4–5; docs/spec/naik_aiken.md §1,
//! §4.1–4.2) for threaded `naikaiken` programs: the ground truth their analysis is judged
//! against (`theorems::naik_aiken_sound`).
//!
//! - [`code`]: the program compiled to indices (points from [`crate::lang::labels`]);
//! - [`state`]: the domains: stamped objects, per-thread loop vectors, the effect set C;
//! - [`step`]: the rules, one small step of one thread at a time, and the next access of a
//!   thread (a concrete race is two threads whose next accesses conflict, §4.2);
//! - [`mod@search`]: exhaustive stateful search over schedules and choices (a model of
//!   [`crate::reach`]), and replay;
//! - [`disjoint_reachability`]: C⁺ and DR_C(H), the disjoint reachability of Fig. 9.
//!
//! This is separate from the `machine` the other dialects run on: the machine has no loop
//! vectors, stamps or effects, and Naik-Aiken's races are a property of states (two
//! enabled conflicting accesses), not of traces.

pub mod code;
pub mod disjoint_reachability;
pub mod search;
pub mod state;
pub mod step;

pub use code::Code;
pub use search::{replay, search, Coverage, Step};
pub use state::{Counters, Next, ObjId, State, Val};
pub use step::Access;

use std::collections::BTreeSet;

use crate::explore::Config;
use crate::lang::labels::{AccessLabel, Labels};
use crate::lang::Program;

/// The ground truth of a `naikaiken` program as the corpus and `gen --stats` read it: one
/// run over every reachable state (per-thread counters), racy if some state has a concrete
/// race, with the racy addresses named by stamp (`h3(1,0).g`). Final states with every
/// thread done count as terminated, the others as stuck (a thread blocked, or stuck on ⊥).
pub fn ground_truth(p: &Program, cfg: &Config) -> crate::explore::Run {
    let labels = Labels::of(p);
    let code = Code::of(p, &labels);
    let mut addrs = BTreeSet::new();
    let mut stats = crate::explore::Stats { complete: true, ..Default::default() };
    let cov = search(&code, Counters::PerThread, cfg, &mut |s, _, is_final| {
        for (a, _) in s.racing_accesses(&code) {
            addrs.insert(format!("{}.{}", s.obj_name(&code, a.obj), code.fields[a.field.index()]));
        }
        if is_final {
            stats.executions += 1;
            if (0..s.threads.len()).all(|t| s.next(&code, t) == Next::Done) {
                stats.terminated += 1;
            } else {
                stats.stuck += 1;
            }
        }
        std::ops::ControlFlow::Continue(())
    });
    stats.states = cov.states;
    stats.complete = cov.cut.is_none();
    let racy_addresses: Vec<String> = addrs.into_iter().collect();
    crate::explore::Run {
        setup: "threads".into(),
        threads: vec!["T1".into()],
        executions: stats,
        racy: !racy_addresses.is_empty(),
        // The naikaiken dialect has no atomics: race freedom over interleavings is exact.
        verdict: crate::explore::RaceVerdict::of(!racy_addresses.is_empty(), stats.complete, true),
        hb_racy_addresses: racy_addresses.clone(),
        racy_addresses,
        classes: None,
        problems: cov.cut.into_iter().collect(),
        final_states: None,
        witness: None,
    }
}

/// Every label pair that races in some reachable state of `p` (spec §4.2), and what the
/// search covered: the ground truth of the precision figure P.
pub fn races(p: &Program, counters: Counters, cfg: &Config) -> (BTreeSet<(AccessLabel, AccessLabel)>, Coverage) {
    let labels = Labels::of(p);
    let code = Code::of(p, &labels);
    let mut out = BTreeSet::new();
    let cov = search(&code, counters, cfg, &mut |s, _, _| {
        out.extend(s.races(&code));
        std::ops::ControlFlow::Continue(())
    });
    (out, cov)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::ops::ControlFlow;

    use super::*;
    use crate::explore::Config;
    use crate::lang::labels::Labels;
    use crate::lang::parse;

    /// Every race label pair (as lines) and every final state's objects' names, over the
    /// whole search.
    fn run(src: &str, counters: Counters) -> (BTreeSet<(u32, u32)>, BTreeSet<String>, Coverage) {
        let p = parse(&format!("dialect naikaiken\nthread {{\n{src}\n}}\n")).unwrap();
        crate::lang::validate(&p).unwrap();
        let labels = Labels::of(&p);
        let code = Code::of(&p, &labels);
        let (mut races, mut objs) = (BTreeSet::new(), BTreeSet::new());
        let cov = search(&code, counters, &Config::default(), &mut |s, _, fin| {
            for (a, b) in s.races(&code) {
                races.insert((code.lines[a.point.index()].0, code.lines[b.point.index()].0));
            }
            if fin {
                objs.extend((0..s.objs.len()).map(|o| s.obj_name(&code, ObjId(u32::try_from(o).unwrap()))));
            }
            ControlFlow::Continue(())
        });
        (races, objs, cov)
    }

    #[test]
    fn example_2_1_stamps_and_effects() {
        let p = parse("dialect naikaiken\nthread {\nwhile @w1 * { x = new @h1; y = new @h2; x.f = y }\n}\n").unwrap();
        let labels = Labels::of(&p);
        let code = Code::of(&p, &labels);
        let mut effects = BTreeSet::new();
        search(&code, Counters::PerThread, &Config::default(), &mut |s, _, _| {
            effects.extend(s.effects.iter().map(|(a, b)| (s.obj_name(&code, *a), s.obj_name(&code, *b))));
            ControlFlow::Continue(())
        });
        let want: BTreeSet<(String, String)> = [("h1(1)", "h2(1)"), ("h1(2)", "h2(2)")].iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        assert_eq!(effects, want);
    }

    #[test]
    fn fig_1_races_only_without_the_lock() {
        let fill = "a = new @h1\nwhile @w1 * { t = new @h2; a[+] = t; u = new @h3; t.f = u }\n";
        let (races, _, cov) = run(&format!("{fill}while @w2 * {{ x = a[*]; fork {{ x.f.g = 1 }} }}"), Counters::PerThread);
        assert_eq!((races, cov.cut), (BTreeSet::from([(5, 5)]), None));
        let (races, _, _) = run(&format!("{fill}while @w2 * {{ x = a[*]; fork {{ sync(x) {{ x.f.g = 1 }} }} }}"), Counters::PerThread);
        assert!(races.is_empty(), "{races:?}");
    }

    #[test]
    fn r10_a_shared_counter_repeats_stamps() {
        let src = "while @w1 * { x = new @h1; fork { y = new @h2; x.f = y } }";
        let (_, objs, _) = run(src, Counters::PerThread);
        assert!(objs.iter().all(|o| !o.contains('#')), "{objs:?}");
        let (_, objs, _) = run(src, Counters::Shared);
        assert!(objs.iter().any(|o| o.contains('#')), "two children allocate one stamp: {objs:?}");
    }

    /// The search honours `Config::deadline`: one already passed cuts it after the first
    /// state, and the ground truth is incomplete.
    #[test]
    fn a_passed_deadline_cuts_the_search() {
        let p = parse("dialect naikaiken\nthread {\nx = new @h\nfork { x.g = 2 }\nread x.g\n}\n").unwrap();
        let past = Config { deadline: std::time::Instant::now().checked_sub(std::time::Duration::from_secs(1)), ..Config::default() };
        assert!(past.deadline.is_some());
        let (_, cov) = races(&p, Counters::PerThread, &past);
        assert_eq!((cov.states, cov.cut.as_deref()), (1, Some("the campaign's deadline passed during the check")));
        let run = ground_truth(&p, &past);
        assert!(!run.executions.complete && !run.problems.is_empty());
    }

    #[test]
    fn stuck_threads_and_reentrant_locks() {
        let (races, _, cov) = run("x = new @h\nsync(x) { sync(x) { x.g = 1 } }\nfork { sync(x) { x.g = 2 } }\nread n.f", Counters::PerThread);
        assert!(races.is_empty());
        assert_eq!(cov.cut, None);
        let (races, _, _) = run("x = new @h\nfork { x.g = 2 }\nread x.g", Counters::PerThread);
        assert_eq!(races, BTreeSet::from([(4, 5)]));
    }
}
