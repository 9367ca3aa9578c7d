//! The `.race` language: round trip, the design sketches, caret errors, and one test per
//! dialect assumption showing its message.

use proptest::strategy::Strategy;
use race_oracles::gen::{any_program, racerdx_program, RacerDxKnobs};
use race_oracles::lang::{parse, print, validate};

#[test]
fn print_then_parse_round_trips() {
    crate::runner(256)
        .run(&any_program(), |p| {
            let text = print(&p);
            let q = parse(&text).map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}\n--- printed:\n{text}")))?;
            proptest::prop_assert_eq!(p.without_lines(), q.without_lines(), "printed:\n{}", text);
            proptest::prop_assert_eq!(print(&q), text);
            Ok(())
        })
        .unwrap();
}

#[test]
fn racerdx_generator_stays_in_the_dialect() {
    crate::runner(256)
        .run(&racerdx_program(RacerDxKnobs::default()), |p| {
            validate(&p).map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}\n{}", print(&p))))?;
            Ok(())
        })
        .unwrap();
}

#[test]
fn design_sketches_parse_and_validate() {
    let design = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/design.md")).unwrap();
    // The three sketches of docs/design.md, as written there.
    let sketches = [
        "// RacerDX paper, Fig. 1 (Dodo)\ndialect racerdx\nmethod zap(arg1) { lock; t = arg1.dee; unlock }\nmethod zup(arg1) { y = new; arg1.dee = y }\n",
        "// RacerDX: nondeterministic control, the global lock, calls with path actuals; newlines separate too\ndialect racerdx\nmethod helper(arg1, arg2) { v = new; arg1.f = v; t = arg2.g.h }\nmethod caller(arg1) {\n  if * { lock; helper(arg1, arg1.g); unlock } else { skip }\n  while * { x = arg1.g; arg1.h = x }\n}\n",
        "// BFJ: two threads over shared objects built by init\ndialect bfj\nclass Cell { fields f, g }\ninit { b = new Cell; m = new Cell; a = new_array 4 }\nthread { acq(m); t = b.f; rel(m); b.f = t; i = 0; loop { a[i] = t; i = i + 1; if i >= 4 break } }\nthread { acq(m); b.f = m; rel(m) }\n",
    ];
    for s in sketches {
        let body: String = s.lines().skip(1).collect::<Vec<_>>().join("\n");
        assert!(design.contains(&body), "sketch no longer matches docs/design.md:\n{body}");
        let p = parse(s).unwrap_or_else(|e| panic!("{e}"));
        validate(&p).unwrap_or_else(|e| panic!("{e}"));
    }
}

fn parse_error(src: &str) -> String {
    parse(src).expect_err("should not parse").render("input.race")
}

#[test]
fn parse_errors_point_at_the_problem() {
    let cases = [
        ("missing dialect", "method m(arg1) { skip }\n"),
        ("unknown dialect", "dialect java\n"),
        ("access in expression", "dialect bfj\nthread { t = b.f + 1 }\n"),
        ("unclosed block", "dialect racerdx\nmethod m(arg1) { lock; t = arg1.f\n"),
        ("break outside loop", "dialect bfj\nthread { break }\n"),
        ("bad character", "dialect bfj\nthread { x = 1 $ 2 }\n"),
        ("bad stride", "dialect bfj\nthread { check(W: a[0..4:0]) }\n"),
        ("keyword as name", "dialect bfj\nthread { lock = 1 }\n"),
    ];
    let out: String = cases.iter().map(|(name, src)| format!("== {name}\n{}\n", parse_error(src))).collect();
    insta::assert_snapshot!(out);
}

fn dialect_error(src: &str) -> String {
    let p = parse(src).unwrap_or_else(|e| panic!("{e}"));
    validate(&p).expect_err("should violate the dialect").to_string()
}

#[test]
fn each_dialect_assumption_has_a_message() {
    let cases = [
        // racerdx, docs/spec/racerdx.md §1.2
        ("racerdx A1 classes", "dialect racerdx\nclass C { fields f }\nmethod m(arg1) { skip }\n"),
        ("racerdx A1 ints", "dialect racerdx\nmethod m(arg1) { x = 1 }\n"),
        ("racerdx A1 arrays", "dialect racerdx\nmethod m(arg1) { x = new_array 2 }\n"),
        ("racerdx A2 threads", "dialect racerdx\nthread { skip }\n"),
        ("racerdx A2 object locks", "dialect racerdx\nmethod m(arg1) { acq(arg1); rel(arg1) }\n"),
        ("racerdx A2 fork", "dialect racerdx\nmethod m(arg1) { fork m(arg1) }\n"),
        ("racerdx A2 unmatched unlock", "dialect racerdx\nmethod m(arg1) {\n  unlock\n  x = new\n  arg1.f = x\n}\n"),
        ("racerdx A2 unbalanced branch", "dialect racerdx\nmethod m(arg1) {\n  if * { skip } else { lock; lock }\n  unlock\n}\n"),
        ("racerdx A2 lock left held", "dialect racerdx\nmethod m(arg1) { lock }\n"),
        ("racerdx A2 unbalanced callee", "dialect racerdx\nmethod h(arg1) { lock }\nmethod m(arg1) { lock; h(arg1); unlock; unlock }\n"),
        ("racerdx A3 formal names", "dialect racerdx\nmethod m(this) { skip }\n"),
        ("racerdx A3 use before assignment", "dialect racerdx\nmethod m(arg1) { arg1.f = v }\n"),
        ("racerdx A3 stray formal", "dialect racerdx\nmethod c(arg1) {\n  arg2 = new\n}\n"),
        ("racerdx A1 indexed actual", "dialect racerdx\nmethod c(arg1) { skip }\nmethod m(arg1) { c(arg1[0]) }\n"),
        ("racerdx A5 recursion", "dialect racerdx\nmethod m(arg1) { n(arg1) }\nmethod n(arg1) { m(arg1) }\n"),
        ("racerdx A5 return value", "dialect racerdx\nmethod m(arg1) { return arg1 }\n"),
        ("racerdx A6 data-dependent condition", "dialect racerdx\nmethod m(arg1) { if arg1 == arg1 { skip } }\n"),
        ("racerdx ANF", "dialect racerdx\nmethod m(arg1, arg2) { arg1.f = arg2 }\n"),
        // bfj, docs/spec/bigfoot.md §2, §10
        ("bfj global lock", "dialect bfj\nthread { lock; unlock }\n"),
        ("bfj no threads", "dialect bfj\nclass C { fields f }\n"),
        ("bfj A2 fork", "dialect bfj\nmethod m() { skip }\nthread { fork m() }\n"),
        ("bfj path actual", "dialect bfj\nmethod g(x) { skip }\ninit { b = new }\nthread { g(b.f) }\n"),
        ("bfj A9 x = x.f", "dialect bfj\ninit { x = new }\nthread { x = x.f }\n"),
        ("bfj A10 parameter assigned", "dialect bfj\nmethod m(p) { p = 1 }\nthread { m(1) }\n"),
        ("bfj A11 recursion", "dialect bfj\nmethod m() { m() }\nthread { m() }\n"),
        ("bfj A11 duplicate names", "dialect bfj\nclass C { method m() { skip } }\nclass D { method m() { skip } }\nthread { skip }\n"),
        // simplejava / capjava, docs/spec/escape_capsule.md §2, §7
        ("simplejava init", "dialect simplejava\ninit { x = new }\nthread { skip }\n"),
        ("simplejava two threads", "dialect simplejava\nthread { skip }\nthread { skip }\n"),
        ("simplejava arrays", "dialect simplejava\nthread { a = new_array 2 }\n"),
        ("simplejava join", "dialect simplejava\nclass W { method run() { skip } }\nthread { w = new W; h = fork w; join(h) }\n"),
        ("simplejava capsule", "dialect simplejava\ncapsule class K { }\nthread { skip }\n"),
        ("capjava top-level method", "dialect capjava\nmethod m() { skip }\nthread { skip }\n"),
        // every dialect
        ("unknown method", "dialect bfj\nthread { nope() }\n"),
        ("arity", "dialect bfj\nmethod m(a) { skip }\nthread { m() }\n"),
        ("init not straight-line", "dialect bfj\ninit { if * { x = new } }\nthread { skip }\n"),
        ("break out of sync", "dialect bfj\ninit { m = new }\nthread { loop { sync(m) { break } } }\n"),
    ];
    let out: String = cases.iter().map(|(name, src)| format!("{name}: {}\n", dialect_error(src))).collect();
    insta::assert_snapshot!(out);
}

/// No input makes racefuzz panic: arbitrary programs, under every dialect, are either
/// rejected with an error or explored (with small budgets) to a result.
#[test]
fn no_program_panics() {
    use race_oracles::explore::Config;
    use race_oracles::lang::Dialect;
    use race_oracles::truth::ground_truth;
    let cfg = Config { max_executions: 200, max_steps: 200, heap_bound: 2, ..Config::default() };
    let validated = std::cell::Cell::new(0);
    crate::runner(512)
        .run(&any_program(), |mut p| {
            for d in Dialect::ALL {
                p.dialect = d;
                if validate(&p).is_ok() {
                    validated.set(validated.get() + 1);
                    let _ = ground_truth(&p, &cfg, None);
                }
            }
            Ok(())
        })
        .unwrap();
    assert!(validated.get() > 20, "only {} programs validated", validated.get());
}

/// Arbitrary text never makes the parser panic (the cargo-fuzz `parse` target does this at scale).
#[test]
fn arbitrary_text_never_panics() {
    let text = proptest::collection::vec(
        proptest::sample::select(
            &[
                "dialect bfj\n",
                "thread",
                "{",
                "}",
                "(",
                ")",
                "x",
                "=",
                ".f",
                "[",
                "]",
                "1",
                "..",
                ":",
                "check",
                "R:",
                ";",
                "\n",
                "if",
                "*",
                "loop",
                "break",
                "é",
                "-",
                "<-",
                "@",
                "new",
                "method m",
                "class C",
                "fields f",
                ",",
            ][..],
        ),
        0..40,
    )
    .prop_map(|v| v.concat());
    crate::runner(1024)
        .run(&text, |s| {
            if let Ok(p) = parse(&s) {
                let _ = validate(&p);
            }
            Ok(())
        })
        .unwrap();
}

/// The shrinker's contract on generated programs: the result still fails, is no larger, is
/// valid for the dialect, and no single candidate edit makes a smaller failing program.
#[test]
fn shrinker_contract_on_generated_programs() {
    use race_oracles::gen::shrink::{candidates, shrink, size};
    use race_oracles::lang::{walk_block, Place, Program, Relax, StmtKind};
    // A property that many programs fail: some store through a path of length 2.
    fn fails(p: &Program) -> bool {
        let mut hit = false;
        for m in &p.methods {
            walk_block(&m.body, &mut |s| hit |= matches!(&s.kind, StmtKind::Store { dst: Place::Field { fields, .. }, .. } if fields.len() == 2));
        }
        hit
    }
    let shrunk = std::cell::Cell::new(0);
    crate::runner(128)
        .run(&racerdx_program(RacerDxKnobs::default()), |p| {
            if !fails(&p) {
                return Ok(());
            }
            let r = shrink(&p, Relax::default(), 10_000, fails);
            proptest::prop_assert!(fails(&r.program) && !r.exhausted);
            proptest::prop_assert!(size(&r.program) <= size(&p));
            proptest::prop_assert!(validate(&r.program).is_ok());
            for c in candidates(&r.program) {
                if validate(&c).is_ok() && size(&c) < size(&r.program) {
                    proptest::prop_assert!(!fails(&c), "not a local minimum:\n{}", print(&c));
                }
            }
            shrunk.set(shrunk.get() + 1);
            Ok(())
        })
        .unwrap();
    assert!(shrunk.get() > 20, "vacuous: only {} programs shrunk", shrunk.get());
}
