//! The variables an expression or a condition of the graphs mentions.

use race_oracles::ldrf::cfg::{BExpr, IExpr, Ix};

/// Appends the variables of `e`.
pub fn int_vars(e: &IExpr, out: &mut Vec<Ix>) {
    match e {
        IExpr::Int(_) => {}
        IExpr::Var(x) => out.push(*x),
        IExpr::Neg(a) => int_vars(a, out),
        IExpr::Bin(_, a, b) => {
            int_vars(a, out);
            int_vars(b, out);
        }
    }
}

/// Appends the variables of `b`.
pub fn bool_vars(b: &BExpr, out: &mut Vec<Ix>) {
    match b {
        BExpr::Const(_) => {}
        BExpr::Not(a) => bool_vars(a, out),
        BExpr::Logic(_, a, c) => {
            bool_vars(a, out);
            bool_vars(c, out);
        }
        BExpr::Cmp(_, a, c) => {
            int_vars(a, out);
            int_vars(c, out);
        }
    }
}
