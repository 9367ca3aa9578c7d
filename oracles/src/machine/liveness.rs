//! Dead loads (the lazy initial heap made racerdx pair searches explode). A load
//! `x = π` whose destination is dead afterwards (no path reads x before it is assigned
//! again, or the method ends) observes nothing of the value it reads. In a lazy initial heap
//! (docs/spec/racerdx.md §2.4, Def. 3.6's existential initial state), such a load need not fix
//! the cell's initial value: the value stays undetermined until someone observes it, which
//! is exactly what lazy initialization already does for cells nobody has read. The access
//! itself (its address, its event, its part in Def. 3.6) is unchanged.
//!
//! So skipping the choice preserves every Def. 3.6 race, as a pair of (thread, kind, site)
//! sides; it changes the dead local's value (to `null`) and may change which objects the
//! lazy heap creates, hence their names. A [`Machine`] skips dead loads only when asked
//! ([`Machine::skipping_dead_loads`]); `racerdx-tp`'s fallback search does, and
//! `tests/explore.rs` checks the race sides against the plain machine.
//!
//! The analysis is the textbook backward liveness over the racerdx statement forms, with a
//! fixpoint for `while *`. It is computed for racerdx programs only (elsewhere it finds no
//! dead load), and conservatively: a statement it does not know keeps everything live.

use std::collections::{BTreeSet, HashSet};

use crate::lang::{Block, Dialect, Program, Stmt, StmtKind};

/// The addresses of the load statements of `p` whose destination is dead afterwards.
pub(super) fn dead_loads(p: &Program) -> HashSet<usize> {
    let mut dead = HashSet::new();
    if p.dialect != Dialect::RacerDx {
        return dead;
    }
    for m in &p.methods {
        // Collect per method, and keep nothing of a method with a statement the analysis
        // does not know (outside racerdx).
        let mut mine = HashSet::new();
        if live_before(&m.body, BTreeSet::new(), &mut Some(&mut mine)).is_ok() {
            dead.extend(mine);
        }
    }
    dead
}

/// Whether `s` is one of `dead`.
pub(super) fn is_dead(dead: &HashSet<usize>, s: &Stmt) -> bool {
    dead.contains(&(std::ptr::from_ref(s) as usize))
}

type Live<'a> = BTreeSet<&'a str>;

/// A statement the analysis does not know.
struct Unknown;

/// The variables live before `b`, given those live after it; records dead loads into
/// `dead` when given (the last pass of each loop fixpoint).
fn live_before<'a>(b: &'a Block, mut live: Live<'a>, dead: &mut Option<&mut HashSet<usize>>) -> Result<Live<'a>, Unknown> {
    for s in b.iter().rev() {
        match &s.kind {
            StmtKind::Load { dst, src } => {
                if !live.contains(dst.as_str()) {
                    if let Some(d) = dead.as_deref_mut() {
                        d.insert(std::ptr::from_ref(s) as usize);
                    }
                }
                live.remove(dst.as_str());
                src.for_each_var(&mut |v| {
                    live.insert(v);
                });
            }
            StmtKind::Store { dst, src } => {
                dst.for_each_var(&mut |v| {
                    live.insert(v);
                });
                src.for_each_var(&mut |v| {
                    live.insert(v);
                });
            }
            StmtKind::Assign { dst, src } => {
                live.remove(dst.as_str());
                src.for_each_var(&mut |v| {
                    live.insert(v);
                });
            }
            StmtKind::New { dst, .. } => {
                live.remove(dst.as_str());
            }
            StmtKind::Call { dst: None, recv: None, args, .. } => args.iter().for_each(|a| {
                a.for_each_var(&mut |v| {
                    live.insert(v);
                });
            }),
            StmtKind::If { then_b, else_b, .. } => {
                let a = live_before(then_b, live.clone(), dead)?;
                let b2 = live_before(else_b, live, dead)?;
                live = a.union(&b2).copied().collect();
            }
            StmtKind::While { body, .. } => {
                // lfp L. after ∪ before(body, L); marks only in the last pass.
                let mut l = live.clone();
                loop {
                    let next: Live<'a> = live.union(&live_before(body, l.clone(), &mut None)?).copied().collect();
                    if next == l {
                        break;
                    }
                    l = next;
                }
                live_before(body, l.clone(), dead)?;
                live = l;
            }
            StmtKind::Skip | StmtKind::Lock | StmtKind::Unlock => {}
            _ => return Err(Unknown),
        }
    }
    Ok(live)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{parse, walk_block};

    fn dead_lines(src: &str) -> Vec<u32> {
        let p = parse(src).unwrap();
        let dead = dead_loads(&p);
        let mut out = vec![];
        for m in &p.methods {
            walk_block(&m.body, &mut |s| {
                if is_dead(&dead, s) {
                    out.push(s.line.0);
                }
            });
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn loads_whose_value_nobody_reads() {
        // Line 3: overwritten before use; 4: read by the store; 6: read by the call;
        // 8: never read again.
        let src = "dialect racerdx\nmethod m(arg1) {\n  x = arg1.f\n  x = arg1.g\n  arg1.h = x\n  y = arg1.f\n  m2(y)\n  z = arg1.f\n}\nmethod m2(arg1) { skip }\n";
        assert_eq!(dead_lines(src), [3, 8]);
        // In a loop, a value read by the next iteration is live.
        let src = "dialect racerdx\nmethod m(arg1) {\n  x = new\n  while * {\n    arg1.f = x\n    x = arg1.g\n  }\n}\n";
        assert_eq!(dead_lines(src), Vec::<u32>::new());
        // Live on one branch is live.
        let src = "dialect racerdx\nmethod m(arg1) {\n  x = arg1.f\n  if * { arg1.g = x } else { skip }\n}\n";
        assert_eq!(dead_lines(src), Vec::<u32>::new());
        // Not racerdx: nothing is dead.
        assert!(dead_loads(&parse("dialect bfj\ninit { o = new }\nthread { x = o.f }\n").unwrap()).is_empty());
    }
}
