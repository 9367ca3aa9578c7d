//! The thread generator's knobs (size budgets and forms drawn per program,
//! swarm testing) and their draw from a program's header bytes.

use super::super::toolkit::chance;
use super::limits::LimitForms;

/// Knobs of the thread-program generator.
#[derive(Clone, Copy, Debug)]
pub struct ThreadKnobs {
    /// Threads (2–4).
    pub threads: usize,
    /// Statements in all threads together, counting nested ones.
    pub stmts: usize,
    /// Locks (0–2).
    pub locks: usize,
    /// Whether `if *`, `while *` and data conditions appear.
    pub control: bool,
    /// Whether paths through the link field appear.
    pub paths: bool,
    /// Whether fresh objects are published into the link field.
    pub publish: bool,
    /// Integer fields the accesses use (1 or 2: `g`, then `h`) and objects they go to (1
    /// or 2: `o1`, then `o2`); with one of each, every plain access hits the same location,
    /// so races and the synchronization that orders them meet more often (the detector
    /// oracles' generator, [`super::swarm_detectors`]).
    pub fields: usize,
    /// See `fields`.
    pub objects: usize,
    /// Whether `h = fork { C }` and `join(h)` appear (tier-2 BFJ, docs/spec/bigfoot.md A2).
    pub forks: bool,
    /// Choice-heavy (with `control`): the program is made of plain accesses to two fields
    /// of one object, two thirds of them followed by an `if *` or `while *` whose branch
    /// opens with an access to the other field, even when the statement budget is spent
    /// (see [`ThreadKnobs::swarm`]): the choices after shared accesses where DPOR's wakeup
    /// sequences are hardest.
    pub choices: bool,
    /// Half of the fork draws write the shared-reads idiom instead (with `forks`; the
    /// detector knobs only): `h = fork { r = o.g }; r = o.g; join(h); o.g = k`, two
    /// concurrent reads then a write ordered after both, FastTrack's WRITE on a shared read
    /// vector clock that it resets to `⊥e` (docs/spec/bigfoot.md §1.6 WRITE line 4).
    pub shared_reads: bool,
    /// Every fork draw outside a loop writes one of these forms instead (with `forks`; the
    /// detector limits' knobs only, [`super::swarm_histories`] and [`super::swarm_limits`]):
    /// shapes aimed at where a detector's state is bounded, such as a chain of 4 to 8
    /// readers joined before a write, whose history outgrows ThreadSanitizer's 4 shadow
    /// cells per 8 bytes (`super::limits`).
    pub limits: LimitForms,
    /// Whether a `while *` body may hold another `while *` (in choice-heavy programs, an
    /// `if *` takes its place). A nested loop multiplies its body's events by the loop
    /// bound twice: 2% of explorer-agree's programs took 39% of its time, and 1% of
    /// fasttrack-precise's 44% of its time.
    pub nested_loops: bool,
    /// Whether a `while *` body may fork (each iteration a new thread).
    pub loop_forks: bool,
}

impl Default for ThreadKnobs {
    fn default() -> ThreadKnobs {
        ThreadKnobs {
            threads: 2,
            stmts: 8,
            locks: 2,
            control: true,
            paths: true,
            publish: true,
            fields: 2,
            objects: 2,
            forks: true,
            choices: false,
            shared_reads: false,
            limits: LimitForms::NONE,
            nested_loops: true,
            loop_forks: true,
        }
    }
}

/// Bytes [`super::swarm`] reads for its knobs before the program.
pub const SWARM_HEADER: usize = 5;

impl ThreadKnobs {
    /// Swarm knobs: 3 threads in a quarter of the programs and 4 in a twelfth, 3–9
    /// statements in all (at most 7 with 3 threads, 6 with 4), 1–2 locks in 85% of
    /// programs, control flow in 70% (choice-heavy in 20% of those, 40% with three
    /// threads, none with four; no loop inside a loop), paths in 70%, publication in 50%, fork/join in 30%,
    /// one integer field in a quarter and one object in a quarter (fewer locations: more
    /// dependences, hence more races for the explorers to reverse).
    ///
    /// Choice-heavy programs have no locks, paths, publication or forks, one object with
    /// two fields, and one statement less in their budget (their choices come on top of
    /// it): the family of (`tests/regress/dpor_choice_after_access.race`), where a
    /// thread between two others accesses what the one before it accesses and then
    /// chooses, with an access in one alternative to what the one after it accesses.
    /// Written from the whole form set, that shape came up in about 1 of 20,000 programs of
    /// the CI hunt's sizes (a middle thread's share of the budget rarely held an access, a
    /// choice and an access, and the three accesses rarely met on two locations); written
    /// this way, in about 3 of 100, and the mutant `dpor-weak-initial-by-choices` fails
    /// on about 1 in 75 programs (first at 29–68 with hunt seeds 1, 2, 3 and 13), for
    /// about as many statements per program as before (5.69 against 5.62).
    pub fn swarm(h: [u8; SWARM_HEADER]) -> ThreadKnobs {
        let k = Self::swarm_all_forms(h);
        if !k.choices {
            return k;
        }
        ThreadKnobs { stmts: k.stmts - 1, locks: 0, paths: false, publish: false, forks: false, objects: 1, fields: 2, ..k }
    }

    /// [`ThreadKnobs::swarm`] before a choice-heavy program gives up its other forms (the
    /// detector knobs start from these).
    pub(super) fn swarm_all_forms(h: [u8; SWARM_HEADER]) -> ThreadKnobs {
        let (threads, max) = match h[0] % 12 {
            0 => (4, 6),
            1..=3 => (3, 7),
            _ => (2, 9),
        };
        ThreadKnobs {
            threads,
            stmts: 3 + usize::from(h[1]) % (max - 2),
            locks: if chance(h[2], 85) { 1 + usize::from(h[2] % 2) } else { 0 },
            control: chance(h[3], 70),
            paths: chance(h[3].rotate_left(3), 70),
            publish: chance(h[1].rotate_left(4), 50),
            fields: if h[4].rotate_left(3) & 3 == 0 { 1 } else { 2 },
            objects: if h[4].rotate_left(5) & 3 == 0 { 1 } else { 2 },
            forks: chance(h[4], 30),
            // Never with four threads: 1.5% of the programs took a fifth of explorer-agree's
            // time, and that regression's shape needs three.
            choices: threads < 4 && chance(h[3], 70) && chance(h[3].rotate_left(6), if threads == 3 { 40 } else { 20 }),
            shared_reads: false,
            limits: LimitForms::NONE,
            nested_loops: false,
            loop_forks: true,
        }
    }
}
