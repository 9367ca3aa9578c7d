//! STD traces (`racefuzz::std_trace`): writing a trace and reading it back keeps its
//! happens-before races, on every trace of every corpus program STD is written for; and
//! the STD text and name table of a paper program, as snapshots.

use std::ops::ControlFlow;
use std::path::Path;

use race_oracles::explore::{Config, Names};
use race_oracles::machine::{Event, EventKind, Machine};
use racefuzz::cli::shared::DIALECTS;
use racefuzz::std_trace::{self, NameTable, NameTableBuilder};

/// Every execution of `path`'s program (the naive explorer, default bounds), with its
/// names; `None` outside the STD dialects, and for programs with atomics (STD has none:
/// `racefuzz trace` refuses them, docs/spec/atomics.md).
fn traces(path: &Path) -> Option<Vec<(Vec<Event>, Names)>> {
    let src = std::fs::read_to_string(path).unwrap();
    // Regressions of other dialects may be invalid on purpose (a dialect's validator is
    // what they pin); a program of an STD dialect must load.
    if !race_oracles::lang::parse(&src).is_ok_and(|p| DIALECTS.contains(&p.dialect) && !p.has_atomics()) {
        return None;
    }
    let (_, prog) = racefuzz::cli::load(path).unwrap_or_else(|e| panic!("{}: {}", path.display(), e.message));
    let cfg = Config::default();
    let m = Machine::new(&prog, cfg.loop_bound);
    let init = m.initial_state().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = vec![];
    let stats = cfg.explorer.get().explore(&m, init, &cfg, &mut |ex| {
        out.push((ex.trace.to_vec(), Names::of(&m, ex.state)));
        ControlFlow::Continue(())
    });
    assert!(stats.complete, "{}: the enumeration was cut", path.display());
    Some(out)
}

fn table(traces: &[(Vec<Event>, Names)]) -> NameTable {
    let mut b = NameTableBuilder::default();
    for (t, n) in traces {
        b.add(t, n);
    }
    b.build()
}

#[test]
fn writing_and_reading_back_keeps_every_race() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = racefuzz::corpus::race_files(&root.join("corpus"));
    files.extend(racefuzz::corpus::race_files(&root.join("tests/regress")));
    let (mut programs, mut compared, mut racy, mut skipped_events) = (0, 0u64, 0u64, 0u64);
    for f in &files {
        let Some(all) = traces(f) else { continue };
        programs += 1;
        let table = table(&all);
        for (trace, names) in &all {
            // The ground truth on the original trace, by STD name.
            let by_name = |a| table.variable(&names.addr(a)).unwrap_or_else(|| panic!("{}: {} not in the table", f.display(), names.addr(a)));
            let expected = std_trace::races_of(trace, &|i| u64::from(i) + 1, &by_name);
            let text = std_trace::write(trace, names, &table).unwrap();
            let back = std_trace::read(&text).unwrap_or_else(|e| panic!("{}: {e} in\n{text}", f.display()));
            let got = std_trace::races_of(&back.events, &|i| back.loc(i), &|a| back.variable(a));
            assert_eq!(got, expected, "{}: races differ after a round trip of\n{text}", f.display());
            // Every event kept is an event read, on the same thread, at its loc.
            let kept: Vec<&Event> = trace.iter().filter(|e| !matches!(e.kind, EventKind::Check(..) | EventKind::Enter(_) | EventKind::Exit(_))).collect();
            assert_eq!(back.locs, kept.iter().map(|e| u64::from(e.idx.0) + 1).collect::<Vec<_>>(), "{}", f.display());
            for (e, r) in kept.iter().zip(&back.events) {
                assert_eq!(table.thread(&names.thread(e.thread)).as_deref(), Some(back.threads[r.thread.0 as usize].as_str()), "{}", f.display());
            }
            skipped_events += (trace.len() - kept.len()) as u64;
            compared += 1;
            racy += u64::from(expected.first_race.is_some());
        }
    }
    eprintln!("STD round trip: {compared} traces of {programs} programs ({racy} racy, {skipped_events} check/capsule events left out)");
    assert!(programs >= 20, "only {programs} programs in the STD dialects");
    assert!(racy >= 1000 && compared - racy >= 100 && skipped_events > 0, "vacuous: {compared} traces, {racy} racy, {skipped_events} events left out");
}

/// Fig. 3.1 of the BigFoot thesis: the STD of its first execution and its name table.
#[test]
fn point_move_std_and_names() {
    let all = traces(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paper/bigfoot/fig3_1_point_move.race")).unwrap();
    let table = table(&all);
    let (trace, names) = &all[0];
    insta::assert_snapshot!("point_move_first_trace_std", std_trace::write(trace, names, &table).unwrap());
    insta::assert_snapshot!("point_move_names", serde_json::to_string_pretty(&table.json()).unwrap());
}
