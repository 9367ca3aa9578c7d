//! The forms aimed at where real detectors are bounded (`racefuzz score --generator
//! limits`): each writes, in place of one fork, a shape that one limit a tool documents makes
//! hard, on the location `o.g` the other thread also accesses. Which shapes a program's
//! traces then reach is measured on the traces themselves (`race::limits`), not assumed
//! from the syntax.
//!
//! | form | the limit it aims at |
//! |---|---|
//! | reader chain | a bounded history per location (ThreadSanitizer: 4 shadow cells per 8 bytes): 4 to 8 readers joined before a write |
//! | crowd | many accesses per word: 4 to 6 threads write one location under a lock, joined before an access |
//! | fork chain | fork and join chains: threads forked by forked threads, 2 or 3 deep, each accessing the location |
//! | many readers | reads by many threads: 3 to 5 concurrent readers, then a write before they are joined |
//! | reuse after join | a location accessed by threads forked one after another was joined (a thread slot freed and reused) |

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use super::Builder;
use crate::explore::{Config, ExplorerKind};
use crate::lang::Program;
use crate::machine::Machine;
use crate::race::limits::{limits, Limit};

/// Which limit forms a program's forks write ([`super::ThreadKnobs::limits`]); none in the
/// thread generators but the detector limits' ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitForms {
    /// Chains of forked readers joined before a write (long histories).
    pub reader_chains: bool,
    /// Threads writing one location under a lock, joined before an access.
    pub crowds: bool,
    /// Forks inside forked threads.
    pub fork_chains: bool,
    /// Concurrent readers, then a write.
    pub many_readers: bool,
    /// Threads accessing a location, forked one after another's join.
    pub reuse_after_join: bool,
    /// Whether the path and publication draws write a limit form too while the program has
    /// none (4 draws in 13 rather than 1): the limits generator's programs are for the
    /// forms, and paths and publication change no detector's bounded state. Measured with `racefuzz
    /// gen limits --stats --count 300`: fork chains in 5.7% of the programs' traces with 1
    /// draw in 13, 17% this way (17.7 statements per program, 2.3% of the explorations cut
    /// by the campaign bounds), and in every such draw, not only the first, 19.7% for 2.4
    /// times the CPU time and 7% cut.
    pub frequent: bool,
}

/// One of [`LimitForms`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    ReaderChain,
    Crowd,
    ForkChain,
    ManyReaders,
    ReuseAfterJoin,
}

impl LimitForms {
    /// No form (every generator but the detector limits' ones).
    pub const NONE: LimitForms = LimitForms { reader_chains: false, crowds: false, fork_chains: false, many_readers: false, reuse_after_join: false, frequent: false };

    /// The forms of the bits of `b` (bit 0 reader chains, … bit 4 reuse after join), at
    /// least one (with no bit set, the one `b >> 5` names), [`LimitForms::frequent`].
    pub fn from_bits(b: u8) -> LimitForms {
        let b = if b & 0x1f == 0 { 1 << ((b >> 5) % 5) } else { b };
        let bit = |i: u32| b & (1 << i) != 0;
        LimitForms { reader_chains: bit(0), crowds: bit(1), fork_chains: bit(2), many_readers: bit(3), reuse_after_join: bit(4), frequent: true }
    }

    /// Whether any form is on.
    pub fn any(self) -> bool {
        self.enabled().next().is_some()
    }

    fn enabled(self) -> impl Iterator<Item = Form> {
        let on = [
            (self.reader_chains, Form::ReaderChain),
            (self.crowds, Form::Crowd),
            (self.fork_chains, Form::ForkChain),
            (self.many_readers, Form::ManyReaders),
            (self.reuse_after_join, Form::ReuseAfterJoin),
        ];
        on.into_iter().filter(|&(on, _)| on).map(|(_, f)| f)
    }
}

impl Builder<'_, '_> {
    /// Writes one limit form on `o.fld`, chosen among the knobs' by `b` (the byte that chose
    /// a fork: with one form on, no byte more is read, so the histories generator's programs
    /// stay what they were).
    pub(super) fn limit_form(&mut self, o: &str, fld: &str, b: u8) -> String {
        let forms: Vec<Form> = self.k.limits.enabled().collect();
        let form = forms[usize::from(b) % forms.len()];
        let loc = format!("{o}.{fld}");
        match form {
            Form::ReaderChain => {
                let readers = 4 + self.src.below(5);
                self.budget = self.budget.saturating_sub(2);
                let hs = self.fresh_handles(readers);
                let forks: Vec<String> = hs.iter().map(|h| format!("{h} = fork {{ r = {loc} }}")).collect();
                format!("{}; {}; {loc} = {}", forks.join("; "), joins(&hs), self.src.below(3))
            }
            Form::Crowd => {
                let writers = 4 + self.src.below(3);
                self.budget = self.budget.saturating_sub(2);
                let hs = self.fresh_handles(writers);
                // A child that takes a lock its parent holds would deadlock at the join.
                let lock = self.held.is_empty() && self.k.locks > 0;
                let body = |v: usize| if lock { format!("acq(m0); {loc} = {v}; rel(m0)") } else { format!("r = {loc}") };
                let forks: Vec<String> = hs.iter().enumerate().map(|(i, h)| format!("{h} = fork {{ {} }}", body(i % 3))).collect();
                let after = if self.src.next().is_multiple_of(2) { format!("r = {loc}") } else { format!("{loc} = {}", self.src.below(3)) };
                format!("{}; {}; {after}", forks.join("; "), joins(&hs))
            }
            Form::ForkChain => {
                let depth = 2 + self.src.below(2);
                self.budget = self.budget.saturating_sub(2);
                let hs = self.fresh_handles(depth);
                let mut inner = String::new();
                for h in hs.iter().rev() {
                    let access = self.access(&loc);
                    inner = if inner.is_empty() { format!("{h} = fork {{ {access} }}; join({h})") } else { format!("{h} = fork {{ {access}; {inner} }}; join({h})") };
                }
                format!("{inner}; {}", self.access(&loc))
            }
            Form::ManyReaders => {
                let readers = 3 + self.src.below(3);
                self.budget = self.budget.saturating_sub(2);
                let hs = self.fresh_handles(readers);
                let forks: Vec<String> = hs.iter().map(|h| format!("{h} = fork {{ r = {loc} }}")).collect();
                format!("{}; {loc} = {}; {}", forks.join("; "), self.src.below(3), joins(&hs))
            }
            Form::ReuseAfterJoin => {
                let threads = 2 + self.src.below(3);
                self.budget = self.budget.saturating_sub(2);
                let hs = self.fresh_handles(threads);
                let steps: Vec<String> = hs.iter().map(|h| format!("{h} = fork {{ {} }}; join({h})", self.access(&loc))).collect();
                steps.join("; ")
            }
        }
    }

    /// `n` fresh fork handles.
    fn fresh_handles(&mut self, n: usize) -> Vec<String> {
        let first = self.fresh + 1;
        self.fresh += n;
        (first..=self.fresh).map(|h| format!("h{h}")).collect()
    }

    /// A read or a write of `loc`.
    fn access(&mut self, loc: &str) -> String {
        let b = self.src.next();
        if b.is_multiple_of(2) {
            format!("r = {loc}")
        } else {
            format!("{loc} = {}", b % 3)
        }
    }
}

fn joins(hs: &[String]) -> String {
    hs.iter().map(|h| format!("join({h})")).collect::<Vec<_>>().join("; ")
}

/// The detector-limit shapes (`race::limits`) that the traces of `p` reach, one trace per
/// Mazurkiewicz class as a scorecard with `--classes` sees them (DPOR, `cfg`'s other
/// bounds), and whether the exploration was complete: a cut one may have missed shapes.
pub fn reached(p: &Program, cfg: &Config) -> (BTreeSet<Limit>, bool) {
    let cfg = Config { explorer: ExplorerKind::Dpor, ..*cfg };
    let m = Machine::new(p, cfg.loop_bound);
    let Ok(start) = m.initial_state() else { return (BTreeSet::new(), false) };
    let mut out = BTreeSet::new();
    let stats = cfg.explorer.get().explore(&m, start, &cfg, &mut |ex| {
        out.extend(limits(ex.trace));
        ControlFlow::Continue(())
    });
    (out, stats.complete)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::threads::swarm_limits;
    use crate::lang::{print, Relax};

    fn bytes(seed: u32) -> Vec<u8> {
        (0..64u32).map(|i| (seed.wrapping_mul(2_654_435_761).wrapping_add(i * 40_503) >> 11) as u8).collect()
    }

    /// Every limit shape is reached by the traces of at least 5% of the limits generator's
    /// programs (one trace per class), every program validates, and at most a tenth of the explorations are cut:
    /// counted, so a generator that stopped writing a form fails.
    #[test]
    fn the_limits_generator_reaches_every_shape() {
        let n = 60u32;
        let mut counts: std::collections::BTreeMap<Limit, u32> = Limit::ALL.iter().map(|&l| (l, 0)).collect();
        let mut incomplete = 0;
        for seed in 0..n {
            let p = swarm_limits(&bytes(seed), Relax::default());
            crate::lang::validate(&p).unwrap_or_else(|e| panic!("{e}\n{}", print(&p)));
            let (shapes, complete) = reached(&p, &Config { max_executions: 20_000, ..Config::default() });
            incomplete += u32::from(!complete);
            for s in shapes {
                *counts.entry(s).or_default() += 1;
            }
        }
        eprintln!("{counts:?}, {incomplete} incomplete");
        let low: Vec<_> = counts.iter().filter(|&(_, &c)| c * 20 < n).collect();
        assert!(low.is_empty(), "shapes below 5% of {n} programs: {low:?}");
        assert!(incomplete * 10 <= n, "{incomplete} of {n} explorations cut");
    }

    /// The classifier can fail: hand-written programs reach exactly the shapes they are
    /// made of, and a plain race none.
    #[test]
    fn hand_written_programs_reach_their_shapes() {
        use Limit::*;
        let cfg = Config::default();
        let shapes = |threads: &str| {
            let p = crate::lang::parse(&format!("dialect bfj2\nclass C {{ fields g }}\ninit {{ o = new C }}\n{threads}")).unwrap();
            reached(&p, &cfg).0.into_iter().collect::<Vec<_>>()
        };
        assert_eq!(shapes("thread { r = o.g }\nthread { o.g = 1 }\n"), vec![]);
        let readers: String = (1..=5).map(|h| format!("h{h} = fork {{ r = o.g }}; ")).collect();
        let joins: String = (1..=5).map(|h| format!("join(h{h}); ")).collect();
        assert_eq!(shapes(&format!("thread {{ r = o.g }}\nthread {{ {readers}{joins}o.g = 1 }}\n")), vec![RaceBehindHistory, CrowdedLocation, ConcurrentReaders]);
        assert_eq!(shapes("thread { h1 = fork { r = o.g }; h2 = fork { r = o.g }; o.g = 1; join(h1); join(h2) }\nthread { skip }\n"), vec![WriteAfterSharedReads]);
        assert_eq!(shapes("thread { h1 = fork { h2 = fork { o.g = 1 }; join(h2) }; join(h1); r = o.g }\nthread { skip }\n"), vec![ForkChain, JoinChain]);
        assert_eq!(shapes("thread { h1 = fork { o.g = 1 }; join(h1); h2 = fork { o.g = 2 }; join(h2) }\nthread { skip }\n"), vec![ReuseAfterJoin]);
    }
}
