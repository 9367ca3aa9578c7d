//! The canonical printer: one statement per line, two-space indentation, sections in a fixed
//! order (dialect, regions, classes, methods, init, threads). `parse(print(p)) == p` is a property test
//! (`tests/lang.rs`); snapshots and shrunk counterexamples are printed with it so that they stay
//! stable under reformatting.

use std::fmt::Write;

use super::ast::*;

/// `p` with each statement's line the one it has in `print(p)`: the program a finding file
/// holds and `racefuzz check` reads back. Generators build statements without lines (line
/// 0) or with their own text's; a SUT that keys anything by line (an access site, a
/// per-site cache) must see a generated program as it will see the file, or a campaign
/// would judge a program no file reproduces.
///
/// # Panics
/// If the printed text does not parse: the printer's bug ("racefuzz internal bug").
pub fn as_printed(p: &Program) -> Program {
    let text = print(p);
    super::parse(&text).unwrap_or_else(|e| panic!("racefuzz internal bug: a printed program does not parse back ({e}):\n{text}"))
}

/// Prints `p` canonically.
pub fn print(p: &Program) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "dialect {}", p.dialect);
    for r in &p.regions {
        let _ = writeln!(out, "regions {{ {} }}", r.join(", "));
    }
    for c in &p.classes {
        let cap = if c.capsule { "capsule " } else { "" };
        let _ = writeln!(out, "{cap}class {} {{", c.name);
        if !c.fields.is_empty() {
            let _ = writeln!(out, "  fields {}", c.fields.join(", "));
        }
        for m in &c.methods {
            method(&mut out, m, 1);
        }
        out.push_str("}\n");
    }
    for m in &p.methods {
        method(&mut out, m, 0);
    }
    if let Some(init) = &p.init {
        out.push_str("init ");
        block(&mut out, init, 0);
        out.push('\n');
    }
    for t in &p.threads {
        out.push_str("thread ");
        block(&mut out, t, 0);
        out.push('\n');
    }
    out
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn method(out: &mut String, m: &Method, depth: usize) {
    indent(out, depth);
    let _ = write!(out, "method {}({}) ", m.name, m.params.join(", "));
    block(out, &m.body, depth);
    out.push('\n');
}

fn block(out: &mut String, b: &Block, depth: usize) {
    if b.is_empty() {
        out.push_str("{ }");
        return;
    }
    out.push_str("{\n");
    for s in b {
        indent(out, depth + 1);
        stmt(out, s, depth + 1);
        out.push('\n');
    }
    indent(out, depth);
    out.push('}');
}

/// Prints one statement on one line (compound statements span several).
pub fn stmt_to_string(s: &Stmt) -> String {
    let mut out = String::new();
    stmt(&mut out, s, 0);
    out
}

fn stmt(out: &mut String, s: &Stmt, depth: usize) {
    match &s.kind {
        StmtKind::Skip => out.push_str("skip"),
        StmtKind::Assign { dst, src } => {
            let _ = write!(out, "{dst} = {}", expr(src));
        }
        StmtKind::Rename { dst, src } => {
            let _ = write!(out, "{dst} <- {src}");
        }
        StmtKind::New { dst, class, site } => {
            let _ = write!(out, "{dst} = new");
            if let Some(c) = class {
                let _ = write!(out, " {c}");
            }
            if let Some(h) = site {
                let _ = write!(out, " @{h}");
            }
        }
        StmtKind::NewArray { dst, len } => {
            let _ = write!(out, "{dst} = new_array {}", expr(len));
        }
        StmtKind::Load { dst, src } => {
            let _ = write!(out, "{dst} = {}", place(src));
        }
        StmtKind::Store { dst, src } => {
            let _ = write!(out, "{} = {}", place(dst), expr(src));
        }
        StmtKind::Read(p) => {
            let _ = write!(out, "read {}", place(p));
        }
        StmtKind::Append { array, src } => {
            let _ = write!(out, "{array}[+] = {src}");
        }
        StmtKind::Pick { dst, array } => {
            let _ = write!(out, "{dst} = {array}[*]");
        }
        StmtKind::Nondet { dst, lo, hi } => {
            let _ = write!(out, "{dst} = nondet{{{lo}..{hi}}}");
        }
        StmtKind::Lock => out.push_str("lock"),
        StmtKind::Unlock => out.push_str("unlock"),
        StmtKind::Acq(x) => {
            let _ = write!(out, "acq({x})");
        }
        StmtKind::Rel(x) => {
            let _ = write!(out, "rel({x})");
        }
        StmtKind::Join(x) => {
            let _ = write!(out, "join({x})");
        }
        StmtKind::Sync { lock, body } => {
            let _ = write!(out, "sync({lock}) ");
            block(out, body, depth);
        }
        StmtKind::If { cond: c, then_b, else_b } => {
            let _ = write!(out, "if {} ", cond(c));
            block(out, then_b, depth);
            if !else_b.is_empty() {
                out.push_str(" else ");
                block(out, else_b, depth);
            }
        }
        StmtKind::While { label, cond: c, body } => {
            out.push_str("while ");
            if let Some(l) = label {
                let _ = write!(out, "@{l} ");
            }
            let _ = write!(out, "{} ", cond(c));
            block(out, body, depth);
        }
        StmtKind::Loop { label, body } => {
            out.push_str("loop ");
            if let Some(l) = label {
                let _ = write!(out, "@{l} ");
            }
            block(out, body, depth);
        }
        StmtKind::Break => out.push_str("break"),
        StmtKind::Call { dst, recv, method, args } => {
            if let Some(d) = dst {
                let _ = write!(out, "{d} = ");
            }
            out.push_str(&call(recv.as_deref(), method, args));
        }
        StmtKind::Return(e) => {
            out.push_str("return");
            if let Some(e) = e {
                let _ = write!(out, " {}", expr(e));
            }
        }
        StmtKind::Fork { dst, target } => {
            if let Some(d) = dst {
                let _ = write!(out, "{d} = ");
            }
            out.push_str("fork ");
            match target {
                ForkTarget::Call { recv, method, args } => out.push_str(&call(recv.as_deref(), method, args)),
                ForkTarget::Block { this, body } => {
                    if let Some(x) = this {
                        let _ = write!(out, "({x}) ");
                    }
                    block(out, body, depth);
                }
            }
        }
        StmtKind::Check(items) => {
            out.push_str("check(");
            let mut last: Option<AccessKind> = None;
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                if last != Some(it.kind) {
                    let _ = write!(out, "{}: ", it.kind.letter());
                    last = Some(it.kind);
                }
                out.push_str(&check_target(&it.target));
            }
            out.push(')');
        }
        StmtKind::Assume(e) => {
            let _ = write!(out, "assume {}", expr(e));
        }
        StmtKind::Assert(e) => {
            let _ = write!(out, "assert {}", expr(e));
        }
        StmtKind::Atomic(a) => out.push_str(&atomic(a)),
    }
}

/// Prints an atomic statement in the syntax of docs/spec/atomics.md §1.1 (`consume` was read
/// as `acquire` and prints so).
pub fn atomic(a: &Atomic) -> String {
    match a {
        Atomic::Load { dst, place: p, order } => format!("{dst} = {}.load({order})", place(p)),
        Atomic::Store { place: p, val, order } => format!("{}.store({}, {order})", place(p), expr(val)),
        Atomic::Rmw { dst, op, place: p, val, order } => format!("{dst} = {}.{}({}, {order})", place(p), op.name(), expr(val)),
        Atomic::Cas { dst, place: p, expected, new, success, failure } => format!("{dst} = {}.cas({}, {}, {success}, {failure})", place(p), expr(expected), expr(new)),
        Atomic::Fence(order) => format!("fence({order})"),
    }
}

fn call(recv: Option<&str>, method: &str, args: &[Expr]) -> String {
    let args: Vec<String> = args.iter().map(expr).collect();
    match recv {
        Some(r) => format!("{r}.{method}({})", args.join(", ")),
        None => format!("{method}({})", args.join(", ")),
    }
}

fn cond(c: &Cond) -> String {
    match c {
        Cond::Star => "*".into(),
        Cond::Expr(e) => expr(e),
    }
}

/// Prints a place (`x.f.g`, `x[i]`).
pub fn place(p: &Place) -> String {
    match p {
        Place::Field { base, fields } => format!("{base}.{}", fields.join(".")),
        Place::Index { base, index } => format!("{base}[{}]", expr(index)),
    }
}

/// Prints a check path (`x.f/g`, `a[0..i:2]`).
pub fn check_target(t: &CheckTarget) -> String {
    match t {
        CheckTarget::Fields { base, fields } => format!("{base}.{}", fields.join("/")),
        CheckTarget::Range { base, lo, hi, stride } => {
            let mut s = format!("{base}[{}", expr(lo));
            if let Some(hi) = hi {
                let _ = write!(s, "..{}", expr(hi));
            }
            if let Some(k) = stride {
                let _ = write!(s, ":{k}");
            }
            s.push(']');
            s
        }
    }
}

/// Prints an expression; every binary or unary operand that is itself compound is parenthesized.
pub fn expr(e: &Expr) -> String {
    match e {
        Expr::Int(v) if *v < 0 => format!("-{}", v.unsigned_abs()),
        Expr::Int(v) => v.to_string(),
        Expr::Bool(b) => b.to_string(),
        Expr::Null => "null".into(),
        Expr::Var(v) => v.clone(),
        Expr::Path(p) => place(p),
        Expr::Unary(op, a) => {
            let sym = match op {
                UnOp::Not => "!",
                UnOp::Neg => "-",
            };
            if unary_operand_parens(*op, a) {
                format!("{sym}({})", expr(a))
            } else {
                format!("{sym}{}", expr(a))
            }
        }
        Expr::Binary(op, a, b) => format!("{} {} {}", operand(a), op.symbol(), operand(b)),
    }
}

fn operand(e: &Expr) -> String {
    if operand_parens(e) {
        format!("({})", expr(e))
    } else {
        expr(e)
    }
}

/// Whether [`expr`] parenthesizes `e` as an operand: compound expressions and negative
/// literals. The parser uses this to bound the nesting of what it prints.
pub(crate) fn operand_parens(e: &Expr) -> bool {
    matches!(e, Expr::Binary(..) | Expr::Unary(..)) || matches!(e, Expr::Int(v) if *v < 0)
}

/// Whether [`expr`] parenthesizes the operand `e` of unary `op`: as for binary operands, and
/// a literal after `-` (`-(5)`, since `-5` is a literal itself).
pub(crate) fn unary_operand_parens(op: UnOp, e: &Expr) -> bool {
    operand_parens(e) || (op == UnOp::Neg && matches!(e, Expr::Int(_)))
}
