//! The racerdx generator: programs in the racerdx dialect (spec/racerdx.md §1.2 A1–A6, ANF,
//! balanced locking, no recursion; §7 items 15–16), built deterministically from bytes.
//!
//! One builder, three drivers: proptest ([`racerdx_program`], shrinking the bytes), cargo
//! fuzz ([`RacerDxInput`]'s `arbitrary::Arbitrary`) and quickcheck (its
//! `quickcheck::Arbitrary`). A byte 0, and the end of the input, mean "stop adding": `arbitrary`
//! hands out zeros when its input runs out, so a short input is a small program, never a
//! long run of the same statement.
//!
//! Shapes: each method has formals `arg1..argN`; statements are loads `t = argI.p`, ANF stores
//! `v = new; argI.p = v`, destabilizing `argI = new`, balanced `lock … unlock` blocks (nested
//! up to a knob), `if * … else …`, `while * …`, and calls to *earlier* methods with formals
//! or paths as actuals (so the call graph is acyclic, A5). The `unmatched_unlock` knob emits
//! a stray `unlock` (outside A2, for the `unlock-clamp-unbalanced` mutant).

use proptest::prelude::*;

use crate::lang::*;

/// Knobs of the racerdx generator.
#[derive(Clone, Copy, Debug)]
pub struct RacerDxKnobs {
    /// Methods: exactly this many (a body is empty when the input has run out).
    pub max_methods: usize,
    /// Statements per method body, counting nested ones (0..=max).
    pub max_stmts: usize,
    /// Fields per path (1..=max).
    pub max_path: usize,
    /// Distinct field names (1..=4).
    pub fields: usize,
    /// Formals per method (1..=max).
    pub max_formals: usize,
    /// Nesting depth of `lock` blocks.
    pub max_lock_nesting: usize,
    /// Nesting depth of `if`/`while`.
    pub max_control_nesting: usize,
    /// Whether methods call earlier methods.
    pub calls: bool,
    /// Whether a stray `unlock` may appear (outside A2).
    pub unmatched_unlock: bool,
}

impl Default for RacerDxKnobs {
    fn default() -> RacerDxKnobs {
        RacerDxKnobs { max_methods: 3, max_stmts: 8, max_path: 2, fields: 2, max_formals: 2, max_lock_nesting: 2, max_control_nesting: 2, calls: true, unmatched_unlock: false }
    }
}

const FIELD_NAMES: [&str; 4] = ["f", "g", "h", "k"];

struct Bytes<'a> {
    b: &'a [u8],
    i: usize,
}

impl Bytes<'_> {
    /// The next byte; 0 once the input is exhausted.
    fn next(&mut self) -> u8 {
        let v = self.b.get(self.i).copied().unwrap_or(0);
        self.i += 1;
        v
    }

    fn below(&mut self, n: usize) -> usize {
        usize::from(self.next()) % n.max(1)
    }

    fn exhausted(&self) -> bool {
        self.i >= self.b.len()
    }
}

struct Builder<'a, 'b> {
    src: &'a mut Bytes<'b>,
    k: RacerDxKnobs,
    formals: usize,
    me: usize,
    params: Vec<usize>,
    budget: usize,
}

fn stmt(kind: StmtKind) -> Stmt {
    Stmt { kind, line: Line(0) }
}

impl Builder<'_, '_> {
    fn formal(&mut self) -> String {
        format!("arg{}", self.src.below(self.formals) + 1)
    }

    fn path(&mut self) -> Vec<String> {
        let n = self.src.below(self.k.max_path) + 1;
        (0..n).map(|_| FIELD_NAMES[self.src.below(self.k.fields.clamp(1, 4))].to_string()).collect()
    }

    fn store(&mut self, out: &mut Block) {
        let (base, fields) = (self.formal(), self.path());
        out.push(stmt(StmtKind::New { dst: "v".into(), class: None, site: None }));
        out.push(stmt(StmtKind::Store { dst: Place::Field { base, fields }, src: Expr::Var("v".into()) }));
    }

    /// A nested block: at most 1–3 statements (drawn), so that statements follow it.
    fn nested(&mut self, locks: usize, control: usize) -> Block {
        let len = self.src.below(3) + 1;
        self.block_of(locks, control, len)
    }

    fn block(&mut self, locks: usize, control: usize) -> Block {
        self.block_of(locks, control, usize::MAX)
    }

    fn block_of(&mut self, locks: usize, control: usize, max_len: usize) -> Block {
        let mut out = vec![];
        let mut len = 0;
        while self.budget > 0 && len < max_len && !self.src.exhausted() {
            len += 1;
            let c = self.src.next();
            if c == 0 {
                break;
            }
            self.budget -= 1;
            // Ten-way choice; an option that is unavailable here (nesting at its limit, no
            // earlier method to call) falls back to an access, so that no statement kind is
            // over-represented by fallbacks.
            match c % 10 {
                4 | 5 => self.store(&mut out),
                6 | 7 if locks < self.k.max_lock_nesting => {
                    out.push(stmt(StmtKind::Lock));
                    out.extend(self.nested(locks + 1, control));
                    out.push(stmt(StmtKind::Unlock));
                }
                8 if control < self.k.max_control_nesting => {
                    if c % 20 < 10 {
                        let then_b = self.nested(locks, control + 1);
                        let else_b = self.nested(locks, control + 1);
                        out.push(stmt(StmtKind::If { cond: Cond::Star, then_b, else_b }));
                    } else {
                        let body = self.nested(locks, control + 1);
                        out.push(stmt(StmtKind::While { label: None, cond: Cond::Star, body }));
                    }
                }
                9 if self.k.calls && self.me > 0 && c % 20 < 10 => {
                    let callee = self.src.below(self.me);
                    let args = (0..self.params[callee])
                        .map(|_| {
                            let base = self.formal();
                            if self.src.next().is_multiple_of(2) {
                                Expr::Var(base)
                            } else {
                                Expr::Path(Box::new(Place::Field { base, fields: self.path() }))
                            }
                        })
                        .collect();
                    out.push(stmt(StmtKind::Call { dst: None, recv: None, method: format!("m{}", callee + 1), args }));
                }
                9 if self.k.unmatched_unlock && locks == 0 && c % 20 < 10 => out.push(stmt(StmtKind::Unlock)),
                9 => {
                    let x = self.formal();
                    out.push(stmt(StmtKind::New { dst: x, class: None, site: None }));
                }
                _ => {
                    let (base, fields) = (self.formal(), self.path());
                    out.push(stmt(StmtKind::Load { dst: "t".into(), src: Place::Field { base, fields } }));
                }
            }
        }
        out
    }
}

/// Builds a racerdx program from `bytes` (deterministic; a prefix gives a smaller program).
pub fn build(bytes: &[u8], k: RacerDxKnobs) -> Program {
    let mut src = Bytes { b: bytes, i: 0 };
    let n = k.max_methods.max(1);
    let mut methods: Vec<Method> = vec![];
    let mut params = vec![];
    for me in 0..n {
        let formals = src.below(k.max_formals.max(1)) + 1;
        let mut b = Builder { src: &mut src, k, formals, me, params: params.clone(), budget: k.max_stmts };
        let body = b.block(0, 0);
        params.push(formals);
        methods.push(Method { name: format!("m{}", me + 1), params: (1..=formals).map(|i| format!("arg{i}")).collect(), body, line: Line(0) });
    }
    // Give every statement a distinct line, as if printed, so that reports name lines.
    let text = print(&Program { dialect: Dialect::RacerDx, classes: vec![], methods, init: None, threads: vec![] });
    parse(&text).expect("racefuzz internal bug: the racerdx generator printed an unparsable program")
}

/// Bytes [`swarm`] reads for its knobs before the program.
pub const SWARM_HEADER: usize = 8;

impl RacerDxKnobs {
    /// Swarm knobs (each feature on or off, each size drawn anew) from eight bytes, with
    /// the distributions the campaigns have used since issue 4: 1–3 methods, 1–8
    /// statements, paths of 1–2 fields, 1–3 fields, 1–2 formals, locks in 85% of programs
    /// (nesting 1–2), control flow in 75% (nesting 1–2), calls in 70%.
    pub fn swarm(h: [u8; SWARM_HEADER], relax: Relax) -> RacerDxKnobs {
        let pick = |b: u8, lo: usize, hi: usize| lo + usize::from(b) % (hi - lo + 1);
        let chance = |b: u8, pct: u32| u32::from(b) * 100 < pct * 256;
        RacerDxKnobs {
            max_methods: pick(h[0], 1, 3),
            max_stmts: pick(h[1], 1, 8),
            max_path: pick(h[2], 1, 2),
            fields: pick(h[3], 1, 3),
            max_formals: pick(h[4], 1, 2),
            max_lock_nesting: if chance(h[5], 85) { pick(h[5] >> 4, 1, 2) } else { 0 },
            max_control_nesting: if chance(h[6], 75) { pick(h[6] >> 4, 1, 2) } else { 0 },
            calls: chance(h[7], 70),
            unmatched_unlock: relax.balanced_locking,
        }
    }
}

/// The registry's generator for racerdx oracles: swarm knobs from the first
/// [`SWARM_HEADER`] bytes (zeros past the end), then [`build`] from the rest. A stray
/// `unlock` appears only when `relax` lifts balanced locking.
pub fn swarm(bytes: &[u8], relax: Relax) -> Program {
    let mut h = [0u8; SWARM_HEADER];
    for (d, s) in h.iter_mut().zip(bytes) {
        *d = *s;
    }
    build(bytes.get(SWARM_HEADER..).unwrap_or(&[]), RacerDxKnobs::swarm(h, relax))
}

/// The proptest strategy: bytes, shrunk by proptest, built into a program.
pub fn racerdx_program(k: RacerDxKnobs) -> impl Strategy<Value = Program> {
    proptest::collection::vec(any::<u8>(), 0..160).prop_map(move |b| build(&b, k))
}

/// A generated racerdx program with the bytes it came from (for cargo fuzz and quickcheck).
#[derive(Clone)]
pub struct RacerDxInput {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// The program built from them with the default knobs.
    pub program: Program,
}

impl RacerDxInput {
    /// Builds the input for `bytes`.
    pub fn new(bytes: Vec<u8>) -> RacerDxInput {
        let program = build(&bytes, RacerDxKnobs::default());
        RacerDxInput { bytes, program }
    }
}

impl std::fmt::Debug for RacerDxInput {
    // Print the program as text: that is what a person wants to see in a fuzz crash.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", print(&self.program))
    }
}

impl<'a> arbitrary::Arbitrary<'a> for RacerDxInput {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        let n = u.len();
        Ok(RacerDxInput::new(u.bytes(n)?.to_vec()))
    }
}

impl quickcheck::Arbitrary for RacerDxInput {
    fn arbitrary(g: &mut quickcheck::Gen) -> Self {
        RacerDxInput::new(<Vec<u8> as quickcheck::Arbitrary>::arbitrary(g))
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        Box::new(quickcheck::Arbitrary::shrink(&self.bytes).map(RacerDxInput::new))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_means_stop() {
        let p = build(&[], RacerDxKnobs::default());
        assert_eq!(p.methods.len(), 3);
        assert!(p.methods.iter().all(|m| m.body.is_empty()));
        let p = build(&[0, 1, 1, 1, 1, 0], RacerDxKnobs::default());
        assert_eq!(p.methods[0].body.len(), 1);
    }
}
