//! A `naikaiken` program compiled for the instrumented semantics: variables, fields, sites
//! and loops become small indices, statements become [`Instr`]s at their points
//! ([`crate::lang::labels`]), and blocks become lists of points. Nothing here has meaning
//! of its own; it only makes states small and hashable.

use crate::lang::labels::{Labels, PointId};
use crate::lang::*;

/// A variable, a field, a site or a loop: an index into one of the [`Code`]'s tables. The
/// `naikaiken` dialect's **size** rule bounds each table below 2¹⁶ names and rejects a larger
/// program with exit 2, so [`Ix::new`] fails only on an internal bug (and says so).
/// It hashes, orders and prints (`{:?}`) as its number does, so state keys and findings are
/// those of a plain integer.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Ix(u16);

impl Ix {
    /// The `n`th name of a table. Panics (an internal bug) past the size rule.
    pub fn new(n: usize) -> Ix {
        Ix::try_from(n).unwrap_or_else(|_| panic!("racefuzz internal bug: a table of more than {} names passed the naikaiken validator (its size rule)", 1 << 16))
    }

    /// Its position in the table it indexes.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl TryFrom<usize> for Ix {
    type Error = std::num::TryFromIntError;

    fn try_from(n: usize) -> Result<Ix, Self::Error> {
        u16::try_from(n).map(Ix)
    }
}

impl std::fmt::Debug for Ix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

/// What a store writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// A variable's value (a pointer store, which is an effect when it is an object).
    Var(Ix),
    /// `null`.
    Null,
    /// An integer (a data write: no effect).
    Int(i64),
}

/// One statement.
// Variant fields are named after the concrete syntax the variant's doc shows.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Instr {
    /// `skip`
    Skip,
    /// `x = null`
    Null(Ix),
    /// `x = y`
    Copy(Ix, Ix),
    /// `x = new @h` (rule 2 of Fig. 5).
    New(Ix, Ix),
    /// A path access: `x = y.f…` (`dst`), `y.f… = src` (`write`), or `read y.f…`. One
    /// access per field (spec §4.1).
    Path { dst: Option<Ix>, base: Ix, fields: Vec<Ix>, write: Option<Src> },
    /// `x[+] = y`
    Append(Ix, Ix),
    /// `x = y[*]`
    Pick(Ix, Ix),
    /// `if * { then } else { else }`: two blocks.
    If(u32, u32),
    /// `while @w * { body }`: the loop's index and its body.
    While(Ix, u32),
    /// `sync(x) { body }`
    Sync(Ix, u32),
    /// `fork { body }` / `fork(x) { body }`
    Fork(Option<Ix>, u32),
}

/// The compiled program.
#[derive(Clone, Debug)]
pub struct Code {
    /// The statement at each point.
    pub instrs: Vec<Instr>,
    /// Each block's points, in order; block 0 is the main thread.
    pub blocks: Vec<Vec<PointId>>,
    /// Variable names; `self` is one of them.
    pub vars: Vec<String>,
    /// Field names.
    pub fields: Vec<String>,
    /// Site labels ([`Labels::sites`] order).
    pub sites: Vec<String>,
    /// Loop labels ([`Labels::loops`] order).
    pub loops: Vec<String>,
    /// The loops enclosing each point (the `W` of the rules), as a mask over loop indices.
    pub enclosing: Vec<Vec<bool>>,
    /// The source line of each point.
    pub lines: Vec<Line>,
    /// The index of `self` in `vars`.
    pub self_var: Ix,
}

/// Tables being built.
struct Builder<'a, 'p> {
    labels: &'a Labels<'p>,
    code: Code,
}

impl Builder<'_, '_> {
    fn name(table: &mut Vec<String>, n: &str) -> Ix {
        match table.iter().position(|x| x == n) {
            Some(i) => Ix::new(i),
            None => {
                table.push(n.to_string());
                Ix::new(table.len() - 1)
            }
        }
    }

    fn var(&mut self, n: &str) -> Ix {
        Self::name(&mut self.code.vars, n)
    }

    fn block(&mut self, b: &[Stmt]) -> u32 {
        // OK since a block is the body of a statement (two for an `if`) or the main thread,
        // and the size rule admits at most 2¹⁴ statements.
        let at = self.code.blocks.len();
        let id = u32::try_from(at).unwrap_or(u32::MAX);
        self.code.blocks.push(vec![]);
        let mut pts = vec![];
        for s in b {
            let Some(p) = self.labels.point_of(s) else { continue };
            let instr = self.instr(&s.kind);
            self.code.instrs[p.index()] = instr;
            pts.push(p);
        }
        self.code.blocks[at] = pts;
        id
    }

    fn instr(&mut self, k: &StmtKind) -> Instr {
        match k {
            StmtKind::Assign { dst, src: Expr::Var(y) } => Instr::Copy(self.var(dst), self.var(y)),
            StmtKind::Assign { dst, .. } => Instr::Null(self.var(dst)),
            StmtKind::New { dst, site, .. } => {
                let h = site.as_deref().and_then(|h| self.code.sites.iter().position(|s| s == h)).map_or(Ix::default(), Ix::new);
                Instr::New(self.var(dst), h)
            }
            StmtKind::Load { dst, src: Place::Field { base, fields } } => self.path(Some(dst), base, fields, None),
            StmtKind::Read(Place::Field { base, fields }) => self.path(None, base, fields, None),
            StmtKind::Store { dst: Place::Field { base, fields }, src } => {
                let src = match src {
                    Expr::Var(y) => Src::Var(self.var(y)),
                    Expr::Int(k) => Src::Int(*k),
                    _ => Src::Null,
                };
                self.path(None, base, fields, Some(src))
            }
            StmtKind::Append { array, src } => Instr::Append(self.var(array), self.var(src)),
            StmtKind::Pick { dst, array } => Instr::Pick(self.var(dst), self.var(array)),
            StmtKind::If { then_b, else_b, .. } => {
                let t = self.block(then_b);
                Instr::If(t, self.block(else_b))
            }
            StmtKind::While { label, body, .. } => {
                let w = label.as_deref().and_then(|w| self.labels.loop_index(w)).map_or(Ix::default(), Ix::new);
                Instr::While(w, self.block(body))
            }
            StmtKind::Sync { lock, body } => {
                let l = self.var(lock);
                Instr::Sync(l, self.block(body))
            }
            StmtKind::Fork { target: ForkTarget::Block { this, body }, .. } => {
                let this = this.as_deref().map(|x| self.var(x));
                Instr::Fork(this, self.block(body))
            }
            // The validator admits nothing else; a statement outside the dialect does nothing.
            _ => Instr::Skip,
        }
    }

    fn path(&mut self, dst: Option<&str>, base: &str, fields: &[String], write: Option<Src>) -> Instr {
        let dst = dst.map(|d| self.var(d));
        let base = self.var(base);
        let fields = fields.iter().map(|f| Self::name(&mut self.code.fields, f)).collect();
        Instr::Path { dst, base, fields, write }
    }
}

impl Code {
    /// Compiles the main thread of a `naikaiken` program (validated: its **size** rule
    /// bounds every index).
    pub fn of(p: &Program, labels: &Labels<'_>) -> Code {
        let n = labels.points.len();
        let enclosing = labels
            .points
            .iter()
            .map(|pt| {
                let mut m = vec![false; labels.loops.len()];
                pt.loops.iter().for_each(|&w| m[w] = true);
                m
            })
            .collect();
        let code = Code {
            instrs: vec![Instr::Skip; n],
            blocks: vec![],
            vars: vec!["self".into()],
            fields: vec![],
            sites: labels.sites.clone(),
            loops: labels.loops.clone(),
            enclosing,
            lines: labels.points.iter().map(|pt| pt.stmt.line).collect(),
            self_var: Ix::default(),
        };
        let mut b = Builder { labels, code };
        if let Some(main) = p.threads.first() {
            b.block(main);
        }
        b.code
    }

    /// The statement at position `pc` of block `block`, if the block has one there.
    pub fn at(&self, block: u32, pc: u32) -> Option<PointId> {
        // OK since `usize` has at least 32 bits (asserted at `PointId::index`).
        self.blocks[block as usize].get(pc as usize).copied()
    }

    /// The statement at a point.
    pub fn instr(&self, p: PointId) -> &Instr {
        &self.instrs[p.index()]
    }
}
