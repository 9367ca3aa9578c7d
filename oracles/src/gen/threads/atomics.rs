//! The atomic thread generator (docs/spec/atomics.md §1, §2, §8): small `bfj2` programs whose
//! threads synchronize through atomics and fences, in the shapes of the litmus tests, for
//! `fasttrack-precise-atomics` and for scorecards of detectors on atomic programs.
//!
//! One object `o` of class `C { fields d, f, l, x, y }`: `d` is the plain datum, `f` the
//! flag, `l` the spinlock word, `x` and `y` atomics for other operations (as in §8). Swarm
//! knobs from a header pick the idioms; each is written with orders drawn from the valid
//! ones (spec §1.2), so every operation × order (a CAS: success × failure) and every pair of
//! fence orders in two threads appears (the grammar [`super::GRAMMAR_ATOMICS`] counts them):
//! - message passing (L1–L5): a writer `o.d = v; [fence]; publish f` and a reader
//!   `read f; [fence]; t = o.d`, a data condition on what it read or not; the publication
//!   and the read are a store or load, or an RMW or CAS;
//! - a flag read by many threads: with three threads, two readers;
//! - a release sequence (L6–L8, L14): with three threads, a third thread's RMW on `f`
//!   (continues it) or its store (cuts it), or the writer's own later store;
//! - plain accesses to the atomically used `f` (spec §1.3, L13);
//! - CAS spinlocks (L11), each thread one attempt, or two (the language has no unbounded
//!   spin): `ok = o.l.cas(0, 1, s, f); if ok { t = o.d; o.d = t + 1; o.l.store(0, u) }`;
//! - other atomic operations on `x` and `y`.
//!
//! Programs stay small (at most 9 events in two threads, 8 in three): every interleaving is
//! enumerated.

use super::super::toolkit::{chance, parse_generated, split_header, Bytes};
use crate::lang::{Order, Program, Relax};

/// Bytes [`swarm_atomics`] reads for its knobs before the program.
pub const ATOMICS_HEADER: usize = 4;

/// Knobs of the atomic generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtomicKnobs {
    /// Threads (2 or 3).
    pub threads: usize,
    /// CAS spinlocks instead of message passing.
    pub spinlock: bool,
    /// Fences on the writer's or the reader's side (or both).
    pub fences: bool,
    /// The writer publishes with an RMW or CAS, the reader reads with one.
    pub rmw: bool,
    /// Plain accesses to the flag `f`.
    pub plain_flag: bool,
    /// Other atomic operations on `x` and `y`.
    pub others: bool,
    /// The reader reads `d` only under a data condition on what it read.
    pub condition: bool,
}

impl AtomicKnobs {
    /// Swarm knobs: three threads in 35% of the programs, spinlocks in 25%, fences in 65% (each side 75%),
    /// RMW publication in 35%, plain accesses to the flag in 30%, other operations in 50%,
    /// data conditions in 30%.
    pub fn swarm(h: [u8; ATOMICS_HEADER]) -> AtomicKnobs {
        AtomicKnobs {
            threads: if chance(h[0], 35) { 3 } else { 2 },
            spinlock: chance(h[1], 25),
            fences: chance(h[1].rotate_left(3), 65),
            rmw: chance(h[2], 35),
            plain_flag: chance(h[2].rotate_left(4), 30),
            others: chance(h[3], 50),
            condition: chance(h[3].rotate_left(5), 30),
        }
    }
}

pub(super) const LOAD: [Order; 3] = [Order::Relaxed, Order::Acquire, Order::SeqCst];
pub(super) const STORE: [Order; 3] = [Order::Relaxed, Order::Release, Order::SeqCst];
const FENCE: [Order; 4] = [Order::Acquire, Order::Release, Order::AcqRel, Order::SeqCst];
/// The valid CAS pairs (success, failure), failure ≤ success (spec §1.2 \[C\]).
pub(super) const CAS: [(Order, Order); 10] = [
    (Order::Relaxed, Order::Relaxed),
    (Order::Acquire, Order::Relaxed),
    (Order::Release, Order::Relaxed),
    (Order::AcqRel, Order::Relaxed),
    (Order::SeqCst, Order::Relaxed),
    (Order::Acquire, Order::Acquire),
    (Order::Release, Order::Acquire),
    (Order::AcqRel, Order::Acquire),
    (Order::SeqCst, Order::Acquire),
    (Order::SeqCst, Order::SeqCst),
];

struct Writer<'a, 'b> {
    src: &'a mut Bytes<'b>,
    k: AtomicKnobs,
    /// Plain accesses to the flag may write it (else they read it; the same bytes are drawn).
    plain_writes: bool,
}

impl Writer<'_, '_> {
    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.src.below(from.len())]
    }

    /// An atomic write of `field`: a store, or (with `rmw`) an RMW or a CAS from 0.
    fn write(&mut self, field: &str, v: usize) -> String {
        match (self.k.rmw, self.src.below(3)) {
            (true, 0) => format!("s = o.{field}.fetch_add({v}, {})", self.pick(&Order::ALL)),
            (true, 1) => format!("s = o.{field}.xchg({v}, {})", self.pick(&Order::ALL)),
            (true, _) => {
                let (s, f) = self.pick(&CAS);
                format!("ok = o.{field}.cas(0, {v}, {s}, {f})")
            }
            (false, _) => format!("o.{field}.store({v}, {})", self.pick(&STORE)),
        }
    }

    /// An atomic read of `field` into `r`: a load, or (with `rmw`) an RMW or a CAS from 1.
    fn read(&mut self, field: &str) -> String {
        match (self.k.rmw, self.src.below(4)) {
            (true, 0) => format!("r = o.{field}.fetch_add(1, {})", self.pick(&Order::ALL)),
            (true, 1) => {
                let (s, f) = self.pick(&CAS);
                format!("r = o.{field}.cas(1, 2, {s}, {f})")
            }
            _ => format!("r = o.{field}.load({})", self.pick(&LOAD)),
        }
    }

    fn fence(&mut self) -> String {
        format!("fence({})", self.pick(&FENCE))
    }

    /// Another atomic operation, on `x` or `y`: any operation, any valid order.
    fn other(&mut self) -> String {
        let field = if self.src.coin(50) { "x" } else { "y" };
        match self.src.below(5) {
            0 => format!("r = o.{field}.load({})", self.pick(&LOAD)),
            1 => format!("o.{field}.store(1, {})", self.pick(&STORE)),
            2 => format!("s = o.{field}.fetch_add(1, {})", self.pick(&Order::ALL)),
            3 => format!("s = o.{field}.xchg(2, {})", self.pick(&Order::ALL)),
            _ => {
                let (s, f) = self.pick(&CAS);
                format!("ok = o.{field}.cas({}, 1, {s}, {f})", self.src.below(2))
            }
        }
    }

    /// The message-passing writer: `o.d = v; [fence]; publish f; [a later store to f]`.
    fn publisher(&mut self) -> Vec<String> {
        let mut out = vec![format!("o.d = {}", self.src.value())];
        if self.k.fences && self.src.coin(75) {
            out.push(self.fence());
        }
        out.push(self.write("f", 1));
        if self.src.coin(20) {
            out.push(format!("o.f.store(2, {})", self.pick(&STORE)));
        }
        out
    }

    /// The message-passing reader: `read f; [fence]; t = o.d`, under a data condition or not.
    fn subscriber(&mut self) -> Vec<String> {
        let mut out = vec![self.read("f")];
        if self.k.fences && self.src.coin(75) {
            out.push(self.fence());
        }
        out.push(if self.k.condition { "if r > 0 { t = o.d }".to_string() } else { "t = o.d".to_string() });
        out
    }

    /// A third thread on the flag's release sequence: an RMW (continues it), an atomic store
    /// (cuts it), or a plain access (cuts it if it writes; races anyway).
    fn meddler(&mut self) -> Vec<String> {
        match self.src.below(if self.k.plain_flag { 4 } else { 3 }) {
            0 => vec![format!("s = o.f.fetch_add(1, {})", self.pick(&Order::ALL))],
            1 => vec![format!("s = o.f.xchg(3, {})", self.pick(&Order::ALL))],
            2 => vec![format!("o.f.store(3, {})", self.pick(&STORE))],
            _ => vec![self.plain_flag_access(3)],
        }
    }

    /// A plain access to the flag: a write of `v` or a read, even odds (a read only, when
    /// plain writes are off).
    fn plain_flag_access(&mut self, v: usize) -> String {
        if self.src.coin(50) && self.plain_writes {
            format!("o.f = {v}")
        } else {
            "t = o.f".to_string()
        }
    }

    /// One spinlock attempt, or two (the second in the first's failure branch).
    fn spinlock(&mut self) -> Vec<String> {
        let (s, f) = self.pick(&CAS);
        let body = format!("t = o.d; o.d = t + 1; o.l.store(0, {})", self.pick(&STORE));
        if self.src.coin(25) {
            let (s2, f2) = self.pick(&CAS);
            vec![format!("ok = o.l.cas(0, 1, {s}, {f})"), format!("if ok {{ {body} }} else {{ ok = o.l.cas(0, 1, {s2}, {f2}); if ok {{ t = o.d }} }}")]
        } else {
            vec![format!("ok = o.l.cas(0, 1, {s}, {f})"), format!("if ok {{ {body} }}")]
        }
    }
}

/// The registry's generator for `fasttrack-precise-atomics`: [`AtomicKnobs::swarm`] from the
/// first [`ATOMICS_HEADER`] bytes, then the idioms from the rest. Public, so that other
/// users (scorecards of detectors on atomic programs) draw the same programs.
pub fn swarm_atomics(bytes: &[u8], _relax: Relax) -> Program {
    draw(bytes, true)
}

/// The generator of `whole-program-exact-atomics`, which judges model checkers:
/// [`swarm_atomics`] with a plain *read* of the flag wherever it draws a plain write (from
/// the same bytes, so the programs are otherwise the same). loom, the model checker judged,
/// has no plain write to an atomic cell (its atomics give `&mut self` access only), so its
/// driver refuses such programs: 231 of 2,000 (11.6%) were inconclusive that way. Plain
/// reads (loom's `unsync_load`) keep the case "plain access to an atomic field".
pub fn swarm_atomics_model_checkers(bytes: &[u8], _relax: Relax) -> Program {
    draw(bytes, false)
}

fn draw(bytes: &[u8], plain_writes: bool) -> Program {
    let (h, rest) = split_header::<ATOMICS_HEADER>(bytes);
    let k = AtomicKnobs::swarm(h);
    let mut src = Bytes::new(rest);
    let mut w = Writer { src: &mut src, k, plain_writes };
    let mut threads: Vec<Vec<String>> = if k.spinlock {
        (0..k.threads.min(2)).map(|_| w.spinlock()).collect()
    } else {
        let mut ts = vec![w.publisher(), w.subscriber()];
        if k.threads == 3 {
            // A flag read by many threads, or a third party on its release sequence.
            ts.push(if w.src.coin(40) { w.subscriber() } else { w.meddler() });
        }
        ts
    };
    if k.plain_flag && !k.spinlock {
        let i = w.src.below(threads.len());
        let plain = w.plain_flag_access(2);
        threads[i].push(plain);
    }
    if k.others {
        // Other operations where the program is short (three threads keep one at most).
        let room = if threads.len() == 3 { 1 } else { 2 };
        for _ in 0..room {
            let i = w.src.below(threads.len());
            let op = w.other();
            threads[i].push(op);
        }
    }
    let mut text = String::from("dialect bfj2\nclass C { fields d, f, l, x, y }\ninit { o = new C }\n");
    for t in threads {
        text.push_str(&format!("thread {{ {} }}\n", t.join("; ")));
    }
    parse_generated("atomics", &text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::toolkit::assert_well_formed;

    #[test]
    fn programs_are_well_formed_and_small() {
        let programs = assert_well_formed("atomics", swarm_atomics, Relax::default(), 400);
        let with_atomics = programs.iter().filter(|p| p.has_atomics()).count();
        assert!(with_atomics >= 390, "only {with_atomics} of 400 have atomics");
    }
}
