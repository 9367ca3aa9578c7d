//! What a thread program costs an enumeration of its interleavings, estimated from its
//! text (measured: explorer-agree's time is heavy-tailed; 2.3% of its programs, those past
//! 2,000 naive executions, took 45% of it). The estimate is the number of interleavings of
//! the threads' shared events, loops run to the bound, times the threads' alternatives:
//! `(Σ e_t)! / Π e_t! · Π a_t`. It is a rough proxy (eager local steps, blocking and
//! lock-order deadlocks are ignored), used only by [`super::swarm`] to keep programs under
//! [`super::MAX_EXECUTIONS`]; no oracle reads it.

use crate::lang::{Block, ForkTarget, Program, StmtKind};

/// The loop bound campaigns explore with (`explore::Config`'s default).
const LOOP_BOUND: u32 = 2;

/// A block's events (at most, over its alternatives) and its alternatives (choice
/// sequences), with the shapes of the threads it forks.
struct Shape {
    events: f64,
    alts: f64,
    forked: Vec<(f64, f64)>,
}

fn block(b: &Block) -> Shape {
    let mut s = Shape { events: 0.0, alts: 1.0, forked: vec![] };
    for st in b {
        match &st.kind {
            StmtKind::Load { .. } | StmtKind::Read(_) | StmtKind::Store { .. } | StmtKind::Acq(_) | StmtKind::Rel(_) | StmtKind::Join(_) => s.events += 1.0,
            StmtKind::Sync { body, .. } => s.then(block(body), 2.0),
            StmtKind::If { then_b, else_b, .. } => {
                let (t, e) = (block(then_b), block(else_b));
                s.events += t.events.max(e.events);
                s.alts *= t.alts + e.alts;
                s.forked.extend(t.forked.into_iter().chain(e.forked));
            }
            StmtKind::While { body, .. } => {
                let b = block(body);
                s.events += f64::from(LOOP_BOUND) * b.events;
                s.alts *= (0..=LOOP_BOUND).map(|i| b.alts.powi(i as i32)).sum::<f64>();
                for _ in 0..LOOP_BOUND {
                    s.forked.extend(b.forked.iter().copied());
                }
            }
            StmtKind::Fork { target: ForkTarget::Block { body, .. }, .. } => {
                let c = block(body);
                s.events += 1.0;
                s.forked.push((c.events, c.alts));
                s.forked.extend(c.forked);
            }
            _ => {}
        }
    }
    s
}

impl Shape {
    /// Appends a nested block run once, with `extra` events of its own (a section's
    /// acquire and release).
    fn then(&mut self, b: Shape, extra: f64) {
        self.events += b.events + extra;
        self.alts *= b.alts;
        self.forked.extend(b.forked);
    }
}

/// `ln(n!)` for a real `n ≥ 0` (a sum: programs are small).
fn ln_fact(n: f64) -> f64 {
    (2..=n.round() as u64).map(|k| (k as f64).ln()).sum()
}

/// The estimated number of executions of `p` (see the module docs).
pub(super) fn executions(p: &Program) -> f64 {
    let mut threads = vec![];
    for t in &p.threads {
        let s = block(t);
        threads.push((s.events, s.alts));
        threads.extend(s.forked);
    }
    let total: f64 = threads.iter().map(|t| t.0).sum();
    let ln = ln_fact(total) + threads.iter().map(|(e, a)| a.ln() - ln_fact(*e)).sum::<f64>();
    ln.exp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    fn estimate(threads: &str) -> f64 {
        executions(&parse(&format!("dialect bfj2\nclass C {{ fields f, g, h }}\ninit {{ o1 = new C }}\n{threads}")).unwrap())
    }

    #[test]
    fn interleavings_times_alternatives() {
        // 4! / (2! 2!) interleavings.
        assert_eq!(estimate("thread { o1.g = 1; r = o1.g }\nthread { o1.h = 1; r = o1.h }\n").round(), 6.0);
        // A loop at bound 2: up to 2 events, 3 alternatives (0, 1 or 2 iterations), so
        // 3! / (2! 1!) interleavings, times 3.
        assert_eq!(estimate("thread { while * { o1.g = 1 } }\nthread { o1.h = 1 }\n").round(), 9.0);
        // A fork's child is a thread of its own: fork, join and the child's access.
        assert_eq!(estimate("thread { h = fork { o1.g = 1 }; join(h) }\nthread { o1.h = 1 }\n").round(), 6.0 * 4.0 / 2.0);
    }
}
