//! The BFJ generator's knobs, drawn per program from a swarm header (swarm testing: a
//! feature switched off in some programs lets the others grow there).

use crate::gen::toolkit::chance;

/// Knobs of the BFJ generator.
#[derive(Clone, Copy, Debug)]
pub struct BfjKnobs {
    /// Threads (2 or 3).
    pub threads: usize,
    /// Visible operations (accesses, acquires, releases) per thread, about.
    pub ops: usize,
    /// The first thread's budget when it is larger than `ops` (0: the same): one long
    /// thread beside short ones keeps the interleavings few while the long one has room for
    /// a loop that synchronizes in every iteration.
    pub lead: usize,
    /// Locks (0–2).
    pub locks: usize,
    /// Whether the array and loops over it appear.
    pub arrays: bool,
    /// Whether calls appear.
    pub calls: bool,
    /// Whether `if` appears.
    pub control: bool,
    /// Fields used (1–2: `f`, then `g`) and objects (1–2: `o1`, then `o2`).
    pub fields: usize,
    /// See `fields`.
    pub objects: usize,
    /// Whether the richer forms appear: index expressions other than a variable (`a[i + 1]`,
    /// `a[2 * i]`, `a[3 - i]`, `a[r % 4]`, literals), loops with the exit test first or in
    /// the middle, renamings, aliases of the array, nested loops, allocation in threads.
    pub forms: bool,
    /// Whether methods that call methods (and one with a `sync`) are declared, when calls
    /// are on: the transitive kill sets of \[CALL\] (spec §4.5).
    pub chains: bool,
    /// Whether the rarer shapes appear (for the placer's paths and rule cases that
    /// the other forms reach too seldom): other spellings of a non-linear index
    /// (`0 + r % 4`, `1 * (r % 4)`, `j * j`), a second access through an alias, a local
    /// variable reused for a second allocation, a synchronized getter, an offset agreed in
    /// an `if *` either way (`if * { w = x } else { x = w }`; `a[i + w]`), loops over pairs
    /// (`a[i]; a[i + 1]; i = i + 2`), and a later thread that repeats an earlier one's
    /// accesses more often.
    pub rare: bool,
    /// Whether a quarter of the richer array loops reassign their induction variable after
    /// the loop (its owed ranges renamed to a shadow first, spec §4.6); on in every program
    /// the swarm draws, a knob so that `cargo bench --bench campaign` can measure the
    /// generator without it.
    pub reassign: bool,
}

impl Default for BfjKnobs {
    fn default() -> BfjKnobs {
        BfjKnobs { threads: 2, ops: 5, lead: 0, locks: 1, arrays: true, calls: true, control: true, fields: 2, objects: 1, forms: true, chains: true, rare: false, reassign: true }
    }
}

/// Bytes [`super::swarm_bfj`] reads for its knobs before the program.
pub const SWARM_HEADER: usize = 4;

impl BfjKnobs {
    /// Swarm knobs: 3 threads in a sixth of the programs (1–3 operations each), else 2–5
    /// operations per thread, or in a quarter of the two-thread programs one thread of 7–8
    /// operations beside one of 1–2 (room for a loop around a critical section to iterate
    /// twice, spec §4.5 \[LOOP\] with a kill in the body); locks in 80%, arrays in 70%, calls
    /// in 50% (with chains of calls in half of those), `if` in 60%, the richer forms in
    /// 60%, one field or object in half of the programs each, the rarer shapes in half of the two-thread programs.
    pub fn swarm(h: [u8; SWARM_HEADER]) -> BfjKnobs {
        let threads = if h[0].is_multiple_of(6) { 3 } else { 2 };
        let lead = threads == 2 && h[1].rotate_left(2) & 3 == 0;
        BfjKnobs {
            threads,
            ops: match (threads, lead) {
                (3, _) => 1 + usize::from(h[1]) % 3,
                (_, true) => 1 + usize::from(h[1]) % 2,
                _ => 2 + usize::from(h[1]) % 4,
            },
            lead: if lead { 7 + usize::from(h[3] >> 7) } else { 0 },
            locks: if chance(h[2], 80) { 1 + usize::from(h[2] % 2) } else { 0 },
            arrays: chance(h[3], 70),
            calls: chance(h[3].rotate_left(3), 50),
            control: chance(h[1].rotate_left(4), 60),
            fields: 1 + usize::from(h[0].rotate_left(2) & 1),
            objects: 1 + usize::from(h[2].rotate_left(5) & 1),
            forms: chance(h[0].rotate_left(5), 60),
            chains: (h[2] >> 4) & 1 == 1,
            rare: threads == 2 && (h[0] ^ h[3].rotate_left(3)) & 8 != 0,
            reassign: true,
        }
    }
}
