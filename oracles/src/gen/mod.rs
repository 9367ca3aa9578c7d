//! Program generators for property tests and campaigns (shrinkable), one per dialect, and the
//! shrinker.
//!
//! Every byte-driven generator follows one template, built from the toolkit (`toolkit`:
//! the byte reader, `chance`, swarm headers, text combinators, the parse of the written
//! text, the fuzz/quickcheck/proptest forms): swarm knobs from a header, then the program,
//! then a [`grammar::Grammar`] classifier that says which productions a program uses.
//!
//! - [`any_program`]: any syntactically valid program, for the printer/parser round trip.
//!   It need not satisfy a dialect.
//! - [`racerdx`]: programs valid for the racerdx dialect (A1–A6, ANF, balanced locking, no
//!   recursion), built from a byte string so that proptest, `arbitrary` (cargo fuzz) and
//!   quickcheck drive the same generator; `tests/lang.rs` checks that every one validates.
//! - [`bfj`]: BFJ programs in A-normal form for `bigfoot-precise` (arrays, induction-variable
//!   loops, calls of every kill-set class), from bytes.
//! - [`threads`]: BFJ thread programs for the explorers and the dynamic detectors.
//! - [`java`]: SimpleJava and CapJava programs for the escape and capsule oracles.
//! - [`naikaiken`]: Naik-Aiken programs (idioms of spec §6 and free programs).
//! - [`ldrf`]: L-DRF programs (idioms of spec §8 and free programs).
//! - [`shrink`]: the shrinker and its contract (`tests/gen.rs` checks it for every
//!   registered oracle's generator).
//! - [`threads_program`]: small BFJ thread programs with per-object locks, ints and
//!   deterministic loops, for explorer cross-checks.
//! - [`independent_threads`]: straight-line threads of independent accesses, whose
//!   interleaving count has a closed form.

use proptest::prelude::*;

#[macro_use]
mod toolkit;

pub mod bfj;
pub mod grammar;
pub mod java;
pub mod ldrf;
pub mod naikaiken;
pub mod racerdx;
pub mod shrink;
pub mod threads;

pub use racerdx::{racerdx_program, RacerDxInput, RacerDxKnobs};

pub use toolkit::swarm_strategy;

#[cfg(test)]
pub(crate) use toolkit::test_bytes;

use crate::lang::*;

fn stmt(kind: StmtKind) -> Stmt {
    Stmt { kind, line: Line(0) }
}

fn name(pool: &'static [&'static str]) -> impl Strategy<Value = String> {
    proptest::sample::select(pool).prop_map(str::to_string)
}

const VARS: &[&str] = &["a", "b", "x", "t", "arg1", "this", "i'"];
const FIELDS: &[&str] = &["f", "g", "h"];

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![(-3i64..5).prop_map(Expr::Int), any::<bool>().prop_map(Expr::Bool), Just(Expr::Null), name(VARS).prop_map(Expr::Var),];
    leaf.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            (proptest::sample::select(&[UnOp::Not, UnOp::Neg][..]), inner.clone()).prop_map(|(o, e)| Expr::Unary(o, Box::new(e))),
            (
                proptest::sample::select(
                    &[BinOp::Or, BinOp::And, BinOp::Eq, BinOp::Ne, BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge, BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Rem][..]
                ),
                inner.clone(),
                inner
            )
                .prop_map(|(o, a, b)| Expr::Binary(o, Box::new(a), Box::new(b))),
        ]
    })
}

fn place() -> impl Strategy<Value = Place> {
    prop_oneof![
        (name(VARS), proptest::collection::vec(name(FIELDS), 1..4)).prop_map(|(base, fields)| Place::Field { base, fields }),
        (name(VARS), expr()).prop_map(|(base, index)| Place::Index { base, index }),
    ]
}

fn arg() -> impl Strategy<Value = Expr> {
    prop_oneof![expr(), place().prop_map(|p| Expr::Path(Box::new(p)))]
}

fn cond() -> impl Strategy<Value = Cond> {
    prop_oneof![Just(Cond::Star), expr().prop_map(Cond::Expr)]
}

/// Any atomic statement (docs/spec/atomics.md §1.1), valid orders or not: validity is the
/// dialect's business, syntax is the parser's.
fn atomic() -> impl Strategy<Value = Atomic> {
    let order = || proptest::sample::select(&Order::ALL[..]);
    let field = || (name(VARS), proptest::collection::vec(name(FIELDS), 1..3)).prop_map(|(base, fields)| Place::Field { base, fields });
    let op = proptest::sample::select(&[RmwOp::FetchAdd, RmwOp::Xchg][..]);
    prop_oneof![
        (name(VARS), field(), order()).prop_map(|(dst, place, order)| Atomic::Load { dst, place, order }),
        (field(), expr(), order()).prop_map(|(place, val, order)| Atomic::Store { place, val, order }),
        (name(VARS), op, field(), expr(), order()).prop_map(|(dst, op, place, val, order)| Atomic::Rmw { dst, op, place, val, order }),
        (name(VARS), field(), expr(), expr(), order(), order()).prop_map(|(dst, place, expected, new, success, failure)| Atomic::Cas {
            dst,
            place,
            expected,
            new,
            success,
            failure
        }),
        order().prop_map(Atomic::Fence),
    ]
}

fn check_item() -> impl Strategy<Value = CheckItem> {
    let kind = proptest::sample::select(&[AccessKind::Read, AccessKind::Write][..]);
    let target = prop_oneof![
        (name(VARS), proptest::collection::vec(name(FIELDS), 1..4)).prop_map(|(base, fields)| CheckTarget::Fields { base, fields }),
        (name(VARS), expr(), proptest::option::of(expr()), proptest::option::of(1i64..3)).prop_map(|(base, lo, hi, stride)| CheckTarget::Range {
            stride: hi.as_ref().and(stride),
            base,
            lo,
            hi
        }),
    ];
    (kind, target).prop_map(|(kind, target)| CheckItem { kind, target })
}

fn simple_stmt(in_loop: bool) -> BoxedStrategy<Stmt> {
    let opt = |s: BoxedStrategy<String>| proptest::option::of(s);
    let mut choices: Vec<BoxedStrategy<StmtKind>> = vec![
        Just(StmtKind::Skip).boxed(),
        (name(VARS), expr()).prop_map(|(dst, src)| StmtKind::Assign { dst, src }).boxed(),
        (name(VARS), name(VARS)).prop_map(|(dst, src)| StmtKind::Rename { dst, src }).boxed(),
        (name(VARS), opt(name(&["C", "D"]).boxed()), opt(name(&["h1", "h2"]).boxed())).prop_map(|(dst, class, site)| StmtKind::New { dst, class, site }).boxed(),
        (name(VARS), expr()).prop_map(|(dst, len)| StmtKind::NewArray { dst, len }).boxed(),
        (name(VARS), place()).prop_map(|(dst, src)| StmtKind::Load { dst, src }).boxed(),
        (place(), expr()).prop_map(|(dst, src)| StmtKind::Store { dst, src }).boxed(),
        Just(StmtKind::Lock).boxed(),
        Just(StmtKind::Unlock).boxed(),
        name(VARS).prop_map(StmtKind::Acq).boxed(),
        name(VARS).prop_map(StmtKind::Rel).boxed(),
        name(VARS).prop_map(StmtKind::Join).boxed(),
        (opt(name(VARS).boxed()), opt(name(VARS).boxed()), name(&["m", "run"]), proptest::collection::vec(arg(), 0..3))
            .prop_map(|(dst, recv, method, args)| StmtKind::Call { dst, recv, method, args })
            .boxed(),
        proptest::option::of(expr()).prop_map(StmtKind::Return).boxed(),
        (opt(name(VARS).boxed()), opt(name(VARS).boxed()), name(&["m", "run"]), proptest::collection::vec(expr(), 0..2))
            .prop_map(|(dst, recv, method, args)| StmtKind::Fork { dst, target: ForkTarget::Call { recv, method, args } })
            .boxed(),
        proptest::collection::vec(check_item(), 1..4).prop_map(StmtKind::Check).boxed(),
        expr().prop_map(StmtKind::Assume).boxed(),
        expr().prop_map(StmtKind::Assert).boxed(),
        atomic().prop_map(StmtKind::Atomic).boxed(),
    ];
    if in_loop {
        choices.push(Just(StmtKind::Break).boxed());
    }
    proptest::strategy::Union::new(choices).prop_map(stmt).boxed()
}

fn block(depth: u32, in_loop: bool) -> BoxedStrategy<Block> {
    if depth == 0 {
        return proptest::collection::vec(simple_stmt(in_loop), 0..4).boxed();
    }
    let compound = prop_oneof![
        4 => simple_stmt(in_loop),
        1 => (name(VARS), block(depth - 1, in_loop)).prop_map(|(lock, body)| stmt(StmtKind::Sync { lock, body })),
        1 => (cond(), block(depth - 1, in_loop), block(depth - 1, in_loop)).prop_map(|(cond, then_b, else_b)| stmt(StmtKind::If { cond, then_b, else_b })),
        1 => (proptest::option::of(name(&["w1"])), cond(), block(depth - 1, true)).prop_map(|(label, cond, body)| stmt(StmtKind::While { label, cond, body })),
        1 => (proptest::option::of(name(&["w2"])), block(depth - 1, true)).prop_map(|(label, body)| stmt(StmtKind::Loop { label, body })),
        1 => (proptest::option::of(name(VARS)), proptest::option::of(name(VARS)), block(depth - 1, false))
            .prop_map(|(dst, this, body)| stmt(StmtKind::Fork { dst, target: ForkTarget::Block { this, body } })),
    ];
    proptest::collection::vec(compound, 0..4).boxed()
}

fn method(names: &'static [&'static str]) -> impl Strategy<Value = Method> {
    (name(names), proptest::sample::subsequence(&["arg1", "p", "q"][..], 0..3), block(2, false)).prop_map(|(name, params, body)| Method {
        name,
        params: params.into_iter().map(str::to_string).collect(),
        body,
        line: Line(0),
    })
}

/// Any syntactically valid program (any dialect line; not necessarily dialect-valid).
pub fn any_program() -> impl Strategy<Value = Program> {
    let class = (any::<bool>(), proptest::sample::subsequence(FIELDS, 0..3), proptest::option::of(method(&["run"])));
    (
        proptest::sample::select(&Dialect::ALL[..]),
        proptest::option::of(class),
        proptest::option::of(method(&["m"])),
        proptest::option::of(block(1, false)),
        proptest::collection::vec(block(2, false), 0..3),
    )
        .prop_map(|(dialect, class, m, init, threads)| Program {
            dialect,
            classes: class
                .into_iter()
                .map(|(capsule, fields, m)| Class {
                    name: "C".into(),
                    capsule,
                    fields: fields.into_iter().map(str::to_string).collect(),
                    methods: m.into_iter().collect(),
                    line: Line(0),
                })
                .collect(),
            methods: m.into_iter().collect(),
            init,
            threads,
            regions: vec![],
        })
}

/// Small BFJ programs: 2 threads over shared objects `o1`, `o2` (fields f, g) and lock `m`;
/// accesses, locked blocks, int conditions on loaded values, and counted loops.
pub fn threads_program() -> impl Strategy<Value = Program> {
    #[derive(Clone, Debug)]
    enum T {
        Read(&'static str, &'static str),
        Write(&'static str, &'static str, i64),
        Locked(Vec<T>),
        IfPos(Vec<T>),
        Count(u8, Vec<T>),
    }
    fn items(depth: u32) -> BoxedStrategy<Vec<T>> {
        let obj = || proptest::sample::select(&["o1", "o2"][..]);
        let fld = || proptest::sample::select(&["f", "g"][..]);
        let leaf = prop_oneof![(obj(), fld()).prop_map(|(o, f)| T::Read(o, f)), (obj(), fld(), 0i64..3).prop_map(|(o, f, v)| T::Write(o, f, v))];
        if depth == 0 {
            return proptest::collection::vec(leaf, 0..3).boxed();
        }
        let item = prop_oneof![
            4 => leaf,
            1 => items(depth - 1).prop_map(T::Locked),
            1 => items(depth - 1).prop_map(T::IfPos),
            1 => (1u8..3, items(depth - 1)).prop_map(|(n, b)| T::Count(n, b)),
        ];
        proptest::collection::vec(item, 0..3).boxed()
    }
    fn write(ts: &[T], out: &mut Vec<Stmt>, loops: &mut u32) {
        for t in ts {
            match t {
                T::Read(o, f) => out.push(stmt(StmtKind::Load { dst: "r".into(), src: Place::Field { base: o.to_string(), fields: vec![f.to_string()] } })),
                T::Write(o, f, v) => out.push(stmt(StmtKind::Store { dst: Place::Field { base: o.to_string(), fields: vec![f.to_string()] }, src: Expr::Int(*v) })),
                T::Locked(b) => {
                    out.push(stmt(StmtKind::Acq("m".into())));
                    write(b, out, loops);
                    out.push(stmt(StmtKind::Rel("m".into())));
                }
                T::IfPos(b) => {
                    let mut x = vec![];
                    write(b, &mut x, loops);
                    let c = Expr::Binary(BinOp::Gt, Box::new(Expr::Var("r".into())), Box::new(Expr::Int(0)));
                    out.push(stmt(StmtKind::If { cond: Cond::Expr(c), then_b: x, else_b: vec![] }));
                }
                T::Count(n, b) => {
                    *loops += 1;
                    let i = format!("i{loops}");
                    out.push(stmt(StmtKind::Assign { dst: i.clone(), src: Expr::Int(0) }));
                    let mut body = vec![];
                    write(b, &mut body, loops);
                    body.push(stmt(StmtKind::Assign { dst: i.clone(), src: Expr::Binary(BinOp::Add, Box::new(Expr::Var(i.clone())), Box::new(Expr::Int(1))) }));
                    let exit = Expr::Binary(BinOp::Ge, Box::new(Expr::Var(i)), Box::new(Expr::Int(i64::from(*n))));
                    body.push(stmt(StmtKind::If { cond: Cond::Expr(exit), then_b: vec![stmt(StmtKind::Break)], else_b: vec![] }));
                    out.push(stmt(StmtKind::Loop { label: None, body }));
                }
            }
        }
    }
    proptest::collection::vec(items(1), 2).prop_map(|ts| {
        let threads = ts
            .iter()
            .map(|t| {
                let mut out = vec![stmt(StmtKind::Assign { dst: "r".into(), src: Expr::Int(0) })];
                write(t, &mut out, &mut 0);
                out
            })
            .collect();
        let new = |x: &str| stmt(StmtKind::New { dst: x.into(), class: Some("Obj".into()), site: None });
        Program {
            dialect: Dialect::Bfj,
            classes: vec![Class { name: "Obj".into(), capsule: false, fields: vec!["f".into(), "g".into()], methods: vec![], line: Line(0) }],
            methods: vec![],
            init: Some(vec![new("o1"), new("o2"), new("m")]),
            threads,
            regions: vec![],
        }
    })
}

/// `threads` BFJ threads, each writing `n` fields of its own object: every pair of steps is
/// independent, so there are `(threads·n)! / (n!)^threads` interleavings.
pub fn independent_threads(threads: usize, n: usize) -> Program {
    let fields: Vec<String> = (0..n).map(|k| format!("f{k}")).collect();
    let init = (0..threads).map(|t| stmt(StmtKind::New { dst: format!("o{t}"), class: Some("Obj".into()), site: None })).collect();
    let bodies = (0..threads)
        .map(|t| fields.iter().map(|f| stmt(StmtKind::Store { dst: Place::Field { base: format!("o{t}"), fields: vec![f.clone()] }, src: Expr::Int(1) })).collect())
        .collect();
    Program {
        dialect: Dialect::Bfj,
        classes: vec![Class { name: "Obj".into(), capsule: false, fields, methods: vec![], line: Line(0) }],
        methods: vec![],
        init: Some(init),
        threads: bodies,
        regions: vec![],
    }
}
