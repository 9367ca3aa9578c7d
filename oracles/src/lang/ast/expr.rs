//! The expressions and heap places of the `.race` IR.
//!
//! Invariant (established by the parser, relied on by the machine): expressions are
//! access-free except call actuals, which may be RacerDX paths (evaluated without an access
//! event, as `push(ē)` is no access in docs/spec/racerdx.md Def. 3.6); a [`Place`] is read or
//! written only by a whole statement.

/// A heap location designator: `x.f1.….fn` (n ≥ 1) or `x[e]`.
// Variant fields are named after the concrete syntax the variant's doc shows.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    /// `base.f1.….fn`: prefixes are dereferenced without an access event (Def. 3.1/3.6).
    Field { base: String, fields: Vec<String> },
    /// `base[index]`
    Index { base: String, index: Expr },
}

/// Access-free expressions (plus paths as call actuals).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Expr {
    /// An integer literal.
    Int(i64),
    /// `true` / `false`
    Bool(bool),
    /// `null`
    Null,
    /// A variable.
    Var(String),
    /// A path, only as a call actual (RacerDX).
    Path(Box<Place>),
    /// `!e` / `-e`
    Unary(UnOp, Box<Expr>),
    /// `e op e`
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnOp {
    /// `!`
    Not,
    /// `-`
    Neg,
}

/// Binary operators, loosest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `%`
    Rem,
}

impl BinOp {
    /// Concrete syntax.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "||",
            BinOp::And => "&&",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Rem => "%",
        }
    }

    /// Binding strength; larger binds tighter.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
            BinOp::Add | BinOp::Sub => 4,
            BinOp::Mul | BinOp::Rem => 5,
        }
    }
}

impl Expr {
    /// Calls `f` on every variable the expression reads.
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        match self {
            Expr::Int(_) | Expr::Bool(_) | Expr::Null => {}
            Expr::Var(v) => f(v),
            Expr::Path(p) => p.for_each_var(f),
            Expr::Unary(_, e) => e.for_each_var(f),
            Expr::Binary(_, a, b) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
        }
    }
}

impl Place {
    /// The root variable.
    pub fn base(&self) -> &str {
        match self {
            Place::Field { base, .. } | Place::Index { base, .. } => base,
        }
    }

    /// Calls `f` on every variable the place reads (its root and index).
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        f(self.base());
        if let Place::Index { index, .. } = self {
            index.for_each_var(f);
        }
    }
}
