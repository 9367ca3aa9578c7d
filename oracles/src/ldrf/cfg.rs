//! An `ldrf` program as the paper's control-flow graphs (docs/spec/ldrf.md §1.1): per thread,
//! locations (nodes) and instructions (edges) `⟨n, cmd, n'⟩`. Statements compile in order,
//! one edge each; `if c` is the assume pair `assume c` / `assume !c` and `while c` the same
//! at its head, with a skip edge from the body's end back to the head (Fig. 4's `10 → 6`).
//! Only assume edges branch, and every assignment, acquire and release has one source and
//! one target, as §1.1 requires. Values live in the mod-K world (§6.2): every engine
//! evaluates through [`Cfg::eval`] and [`Cfg::holds`].

pub use super::index::{Edge, Lock, Node, Var};
use crate::lang::*;

/// An integer expression over variable indices.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IExpr {
    /// A constant.
    Int(i64),
    /// A variable.
    Var(Var),
    /// `-e`
    Neg(Box<IExpr>),
    /// `e op e` for `+ - * %`.
    Bin(BinOp, Box<IExpr>, Box<IExpr>),
}

/// A condition.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BExpr {
    /// `true` / `false`
    Const(bool),
    /// `!b`
    Not(Box<BExpr>),
    /// `b && b`, `b || b`
    Logic(BinOp, Box<BExpr>, Box<BExpr>),
    /// A comparison of two integers.
    Cmp(BinOp, IExpr, IExpr),
}

/// What an instruction does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cmd {
    /// `x := e`
    Assign(Var, IExpr),
    /// `x := nondet{lo..hi}`
    Nondet(Var, i64, i64),
    /// `assume b` (no access: it reads private variables only)
    Assume(BExpr),
    /// `assert b`: a non-blocking read of vars(b) that may record a failure (A1)
    Assert(BExpr),
    /// `acquire(m)`
    Acquire(Lock),
    /// `release(m)`
    Release(Lock),
    /// `skip` (also the edges that join branches and close loops)
    Skip,
}

/// An instruction: one labelled edge `⟨n, cmd, n'⟩` of a thread's graph (§1.1). Its
/// index in [`Cfg::edges`] is an [`Edge`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    /// Source location.
    pub src: Node,
    /// The command.
    pub cmd: Cmd,
    /// Target location.
    pub dst: Node,
    /// The statement's line.
    pub line: Line,
    /// What it does, as source text (`x = x + 1`, `assume !(p != 1)`, `skip`).
    pub text: String,
}

/// The program's graphs.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// Variable names.
    pub vars: Vec<String>,
    /// Lock names.
    pub locks: Vec<String>,
    /// Each thread's entry location.
    pub entries: Vec<Node>,
    /// The thread owning each location.
    pub owner: Vec<usize>,
    /// Every instruction, indexed by [`Edge`].
    pub edges: Vec<Instr>,
    /// The instructions leaving each location.
    pub out: Vec<Vec<Edge>>,
    /// K: values are taken mod K (§6.2).
    pub modulus: i64,
    /// The declared region partition (§3): every variable in exactly one region, the
    /// declared ones first, then a singleton for each undeclared variable.
    pub regions: Vec<Vec<Var>>,
}

struct Builder {
    cfg: Cfg,
    thread: usize,
}

/// The index of `name` in `names`, appended if new.
fn intern(names: &mut Vec<String>, name: &str) -> usize {
    names.iter().position(|x| x == name).unwrap_or_else(|| {
        names.push(name.to_string());
        names.len() - 1
    })
}

impl Builder {
    fn node(&mut self) -> Node {
        self.cfg.owner.push(self.thread);
        self.cfg.out.push(vec![]);
        Node::new(self.cfg.owner.len() - 1)
    }

    fn edge(&mut self, src: Node, cmd: Cmd, dst: Node, line: Line, text: String) {
        self.cfg.push(Instr { src, cmd, dst, line, text });
    }

    fn var(&mut self, v: &str) -> Var {
        Var::new(intern(&mut self.cfg.vars, v))
    }

    fn lock(&mut self, m: &str) -> Lock {
        Lock::new(intern(&mut self.cfg.locks, m))
    }

    fn int(&mut self, e: &Expr) -> IExpr {
        match e {
            Expr::Int(k) => IExpr::Int(*k),
            Expr::Var(v) => IExpr::Var(self.var(v)),
            Expr::Unary(UnOp::Neg, a) => IExpr::Neg(Box::new(self.int(a))),
            Expr::Binary(op, a, b) => {
                let (a, b) = (self.int(a), self.int(b));
                IExpr::Bin(*op, Box::new(a), Box::new(b))
            }
            // The validator admits nothing else.
            _ => IExpr::Int(0),
        }
    }

    fn cond(&mut self, e: &Expr) -> BExpr {
        match e {
            Expr::Bool(b) => BExpr::Const(*b),
            Expr::Unary(UnOp::Not, a) => BExpr::Not(Box::new(self.cond(a))),
            Expr::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let (a, b) = (self.cond(a), self.cond(b));
                BExpr::Logic(*op, Box::new(a), Box::new(b))
            }
            Expr::Binary(op, a, b) => {
                let (a, b) = (self.int(a), self.int(b));
                BExpr::Cmp(*op, a, b)
            }
            _ => BExpr::Const(true),
        }
    }

    fn block(&mut self, b: &[Stmt], mut cur: Node) -> Node {
        for s in b {
            cur = self.stmt(s, cur);
        }
        cur
    }

    fn stmt(&mut self, s: &Stmt, n: Node) -> Node {
        let simple = match &s.kind {
            StmtKind::Assign { dst, src } => {
                let x = self.var(dst);
                Some(Cmd::Assign(x, self.int(src)))
            }
            StmtKind::Nondet { dst, lo, hi } => Some(Cmd::Nondet(self.var(dst), *lo, *hi)),
            StmtKind::Assume(e) => Some(Cmd::Assume(self.cond(e))),
            StmtKind::Assert(e) => Some(Cmd::Assert(self.cond(e))),
            StmtKind::Acq(m) => Some(Cmd::Acquire(self.lock(m))),
            StmtKind::Rel(m) => Some(Cmd::Release(self.lock(m))),
            StmtKind::If { .. } | StmtKind::While { .. } => None,
            _ => Some(Cmd::Skip),
        };
        if let Some(cmd) = simple {
            let next = self.node();
            self.edge(n, cmd, next, s.line, crate::lang::print::stmt_to_string(s));
            return next;
        }
        let (c, then_b, else_b, is_loop) = match &s.kind {
            StmtKind::If { cond, then_b, else_b } => (cond, then_b.as_slice(), else_b.as_slice(), false),
            StmtKind::While { cond, body, .. } => (cond, body.as_slice(), &[][..], true),
            _ => unreachable!("racefuzz internal bug: only if and while reach here"),
        };
        let text = match c {
            Cond::Star => "*".to_string(),
            Cond::Expr(e) => crate::lang::print::expr(e),
        };
        let c = match c {
            Cond::Star => BExpr::Const(true),
            Cond::Expr(e) => self.cond(e),
        };
        let (a, b) = (self.node(), self.node());
        self.edge(n, Cmd::Assume(c.clone()), a, s.line, format!("assume {text}"));
        self.edge(n, Cmd::Assume(BExpr::Not(Box::new(c))), b, s.line, format!("assume !({text})"));
        let ea = self.block(then_b, a);
        if is_loop {
            self.edge(ea, Cmd::Skip, n, s.line, "skip (back to the loop head)".into());
            return b;
        }
        let eb = self.block(else_b, b);
        let join = self.node();
        self.edge(ea, Cmd::Skip, join, s.line, "skip (end of branch)".into());
        self.edge(eb, Cmd::Skip, join, s.line, "skip (end of branch)".into());
        join
    }
}

impl Cfg {
    /// The graphs of an `ldrf` program (validated: its **size** rule bounds every index),
    /// with values mod `modulus`.
    pub fn of(p: &Program, modulus: i64) -> Cfg {
        let cfg = Cfg { vars: vec![], locks: vec![], entries: vec![], owner: vec![], edges: vec![], out: vec![], modulus: modulus.max(1), regions: vec![] };
        let mut b = Builder { cfg, thread: 0 };
        for (t, body) in p.threads.iter().enumerate() {
            b.thread = t;
            let entry = b.node();
            b.cfg.entries.push(entry);
            b.block(body, entry);
        }
        let declared: Vec<Vec<Var>> = p.regions.iter().map(|r| r.iter().map(|v| b.var(v)).collect()).collect();
        b.cfg.regions = complete(declared, b.cfg.vars.len());
        b.cfg
    }

    /// The instruction `e`.
    pub fn edge(&self, e: Edge) -> &Instr {
        &self.edges[e.index()]
    }

    /// Every instruction's index, in order.
    pub fn edge_ids(&self) -> impl Iterator<Item = Edge> {
        (0..self.edges.len()).map(Edge::new)
    }

    /// Appends `instr`, leaving its source, and returns its index.
    pub(super) fn push(&mut self, instr: Instr) -> Edge {
        let e = Edge::new(self.edges.len());
        self.out[instr.src.index()].push(e);
        self.edges.push(instr);
        e
    }

    /// The region of each variable under `partition` (by index into it).
    pub fn region_of(&self, partition: &[Vec<Var>]) -> Vec<usize> {
        let mut out = vec![0; self.vars.len()];
        for (r, vars) in partition.iter().enumerate() {
            for &x in vars {
                out[x.index()] = r;
            }
        }
        out
    }

    /// The variables two threads mention (the rest are private temps), sorted.
    pub fn shared_vars(&self) -> Vec<Var> {
        let mut by: Vec<std::collections::BTreeSet<usize>> = vec![Default::default(); self.vars.len()];
        for e in &self.edges {
            let (r, w) = self.accesses(e);
            for x in r.into_iter().chain(w) {
                by[x.index()].insert(self.owner[e.src.index()]);
            }
        }
        (0..self.vars.len()).filter(|&x| by[x].len() > 1).map(Var::new).collect()
    }

    /// A partition's readable name: its regions of two or more variables (`{x, y} {z, w}`);
    /// `None` when every region is a singleton.
    pub fn partition_name(&self, partition: &[Vec<Var>]) -> Option<String> {
        let named: Vec<String> = partition.iter().filter(|r| r.len() > 1).map(|r| self.region_name(r)).collect();
        (!named.is_empty()).then(|| named.join(" "))
    }

    /// A region's readable name: `{x, y}`.
    pub fn region_name(&self, vars: &[Var]) -> String {
        let names: Vec<&str> = vars.iter().map(|&x| self.vars[x.index()].as_str()).collect();
        format!("{{{}}}", names.join(", "))
    }

    /// `⟦e⟧φ` mod K.
    pub fn eval(&self, e: &IExpr, env: &dyn Fn(Var) -> i64) -> i64 {
        let k = self.modulus;
        match e {
            IExpr::Int(c) => c.rem_euclid(k),
            IExpr::Var(x) => env(*x),
            IExpr::Neg(a) => (-self.eval(a, env)).rem_euclid(k),
            IExpr::Bin(op, a, b) => {
                let (a, b) = (self.eval(a, env), self.eval(b, env));
                match op {
                    BinOp::Add => (a + b).rem_euclid(k),
                    BinOp::Sub => (a - b).rem_euclid(k),
                    BinOp::Mul => (a * b).rem_euclid(k),
                    BinOp::Rem if b != 0 => a.rem_euclid(b),
                    _ => 0,
                }
            }
        }
    }

    /// `⟦b⟧φ`.
    pub fn holds(&self, b: &BExpr, env: &dyn Fn(Var) -> i64) -> bool {
        match b {
            BExpr::Const(c) => *c,
            BExpr::Not(a) => !self.holds(a, env),
            BExpr::Logic(BinOp::And, a, c) => self.holds(a, env) && self.holds(c, env),
            BExpr::Logic(_, a, c) => self.holds(a, env) || self.holds(c, env),
            BExpr::Cmp(op, a, c) => {
                let (a, c) = (self.eval(a, env), self.eval(c, env));
                match op {
                    BinOp::Eq => a == c,
                    BinOp::Ne => a != c,
                    BinOp::Lt => a < c,
                    BinOp::Le => a <= c,
                    BinOp::Gt => a > c,
                    _ => a >= c,
                }
            }
        }
    }

    /// The values `x := nondet{lo..hi}` may store, mod K, sorted, without repeats.
    pub fn nondet(&self, lo: i64, hi: i64) -> Vec<i64> {
        let mut v: Vec<i64> = (lo..=hi.min(lo + self.modulus - 1)).map(|c| c.rem_euclid(self.modulus)).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The variables an instruction reads and the one it writes (§1.1 accesses; an assume
    /// has none, an assert reads).
    pub fn accesses(&self, e: &Instr) -> (Vec<Var>, Option<Var>) {
        let mut reads = vec![];
        match &e.cmd {
            Cmd::Assign(x, a) => {
                int_vars(a, &mut reads);
                return (reads, Some(*x));
            }
            Cmd::Nondet(x, ..) => return (reads, Some(*x)),
            Cmd::Assert(b) => bool_vars(b, &mut reads),
            _ => {}
        }
        (reads, None)
    }

    /// Acc(n) (spec §6.3 C3): the variables the instructions leaving `n` read or write, and
    /// those their assumes mention; sorted.
    pub fn relevant(&self, n: Node) -> Vec<Var> {
        let mut out = vec![];
        for &i in &self.out[n.index()] {
            let e = self.edge(i);
            let (r, w) = self.accesses(e);
            out.extend(r);
            out.extend(w);
            if let Cmd::Assume(b) = &e.cmd {
                bool_vars(b, &mut out);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The post-release points of lock `m` (targets of its release edges), sorted.
    pub fn release_points(&self, m: Lock) -> Vec<Node> {
        let mut v: Vec<Node> = self.edges.iter().filter(|e| e.cmd == Cmd::Release(m)).map(|e| e.dst).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Every post-release point, sorted: the buffers of L-DRF.
    pub fn all_release_points(&self) -> Vec<Node> {
        let mut v: Vec<Node> = self.edges.iter().filter(|e| matches!(e.cmd, Cmd::Release(_))).map(|e| e.dst).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// A location's readable name: its thread and the line of the instruction leaving it
    /// (`t2@11`), or `t2@end`.
    pub fn node_name(&self, n: Node) -> String {
        let t = self.owner[n.index()] + 1;
        match self.out[n.index()].first() {
            Some(&i) => format!("t{t}@{}", self.edge(i).line.0),
            None => format!("t{t}@end"),
        }
    }
}

/// `declared` completed to a partition of `0..vars` with singletons, in order.
pub fn complete(mut declared: Vec<Vec<Var>>, vars: usize) -> Vec<Vec<Var>> {
    for x in 0..vars {
        if !declared.iter().flatten().any(|&y| y.index() == x) {
            declared.push(vec![Var::new(x)]);
        }
    }
    declared
}

/// Appends the variables of `e`.
pub fn int_vars(e: &IExpr, out: &mut Vec<Var>) {
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
pub fn bool_vars(b: &BExpr, out: &mut Vec<Var>) {
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
