//! The BFJ generator of `bigfoot-precise` (docs/spec/bigfoot.md
//! §10.2 "BFJ-mini"): small programs in A-normal form that exercise every rule of BigFoot's
//! check placement (§4.5) and every rule-coverage counter the spec lists: field and array
//! reads and writes, critical sections (`acq`/`rel` and `sync`, on two locks), `if *` and
//! conditions on loaded values, loops with an induction variable over the array
//! (`i = 0; loop { …a[i]…; i = i + k; if i >= n break }`, k ∈ {1, 2}, §9.3 Ex. 2 and 8)
//! with the exit test last, first or in the middle, `while` loops, nested loops, linear
//! and non-linear index expressions (`a[i + 1]`, `a[2 * i]`, `a[3 - i]`, `a[r % 4]`,
//! literals, and other spellings of the same values: `a[i * 2]`, `a[i % 4 + 0]`,
//! `a[-(i % 4) + 3]`), reassigned index variables and renamings (§4.6), aliases of the array,
//! allocation in threads, and calls to methods that do not synchronize, that acquire and
//! release, that only acquire or only release, or that synchronize through a callee or a
//! `sync` block (the kill-set classes of \[CALL\], §9.3 Ex. 5 and 6).
//!
//! Built deterministically from bytes like [`super::threads`] ([`swarm_bfj`] for the
//! registry, hence for cargo fuzz's `arbitrary` bytes and quickcheck's; [`bfj_program`] with
//! fixed knobs for proptest): swarm knobs from a header ([`knobs`]), then the program; a
//! byte 0 or the end of the input means "stop adding". Every program validates as BFJ and
//! never faults: fields and array elements hold integers from `init` on, indices stay in
//! `0..4`, loops terminate by construction, a lock is never taken twice, and an
//! acquire-only callee is always followed by its release-only partner in the same thread.
//! Sizes keep the exhaustive enumeration of the *placed* program small (at most five
//! visible operations per thread, counting loop iterations, or eight in one long thread
//! beside a short one), since the oracle checks every interleaving.
//!
//! Out of reach on purpose: paths longer than one field, and a `break` or a `return`
//! inside a `sync`. BigFoot's placer declines them (the oracle's result would be
//! inconclusive); programs that need them are outside BFJ-mini.
//!
//! For rule coverage (BigFoot's §4–5 and DynamicBF's §7 cases): a read in
//! a critical section written right after its release (\[REL\] anticipation, §4.5.1), two
//! literals two apart or one element twice (§5.1 strided and inside coalescing), loops with
//! two exits (A7, A8), two fields `h`, `k` only ever accessed together (a symmetric proxy
//! group, §5.2), and a later thread that begins by repeating, as writes, an earlier one's
//! paired fields, literal pair or array sweep, then, with a lock, a critical section that
//! the first thread also ends with (races on a proxy group and on a compressed array group,
//! found at a commit before a synchronization, §5.2 \[D\], §5.3.1 \[D\], §7.1).
//!
//! With the rarer shapes (the `rare` knob, half of the two-thread programs: paths
//! of the placer and rule cases the rest reaches seldom): other spellings of a non-linear
//! index (`0 + r % 4`, `1 * (r % 4)`, `j * j`), accesses through aliases (`p = o; p.f = k`,
//! `b = a; b[k]`: designators equal under H, §5.1), a local reused for a second allocation
//! (an owed access on a shadow designator, §4.6), a synchronized getter (a `return` that owes
//! nothing), loops over pairs (`a[i]; a[i + 1]; i = i + 2`: a strided invariant, §4.7 \[C\]),
//! an offset agreed either way in an `if *` (`a[i + w]`: a bound of two free variables, and a
//! meet whose two sides define each by the other), more loops with two exits, and a first
//! thread that opens with paired fields, a literal pair or a sweep for the second to repeat.
//!
//! Parts: [`knobs`] (swarm), `builder` (statements within a budget), `loops` (loops and
//! their index forms), `grammar` (the productions and their classifier).

mod builder;
mod grammar;
pub mod knobs;
mod loops;

use builder::Builder;
pub use grammar::GRAMMAR_BFJ;
pub use knobs::{BfjKnobs, SWARM_HEADER};

use super::toolkit::{parse_generated, split_header, Bytes};
use crate::lang::*;

/// The methods of class `C`, declared when calls are on (a declared method's checks count
/// in the whole-program proxy analysis of spec §5.2 even if it is never called, so
/// programs without calls declare none and can form proxy groups).
const METHODS: &str = "  method put(x) { this.f = x }
  method early(x) { this.f = x; if x > 1 { return 0 }; this.g = x }
  method bump(l) { acq(l); t = this.g; u = t + 1; this.g = u; rel(l) }
  method store(q, j) { q[j] = 1 }
  method acquireIt(l) { acq(l) }
  method releaseIt(l) { rel(l) }
";

/// The methods that call methods, and one whose only synchronization is a `sync` block,
/// declared with chains on: the kill sets of \[CALL\] are transitive (spec §4.5). None
/// has a check of its own, so declaring them leaves the proxy groups of §5.2 as they were.
const CHAINS: &str = "  method putVia(x) { r = this.put(x) }
  method bumpVia(l) { r = this.bump(l) }
  method guarded(l) { sync(l) { skip } }
";

/// A synchronized getter, declared with calls and the rarer shapes on: its `return` owes
/// nothing, the critical section checked its read (spec §4.5 [STMT]).
const GETTER: &str = "  method get(l) { sync(l) { t = this.g }; return t }
";

/// Builds a BFJ program from `bytes` with knobs `k` (deterministic).
pub fn build(bytes: &[u8], k: BfjKnobs) -> Program {
    let mut src = Bytes::new(bytes);
    let mut b = Builder { src: &mut src, k, ops: 0, fresh: 0, held: vec![], pair: false, echo: None };
    let mut threads = vec![];
    let mut handoff = false;
    for t in 0..k.threads.clamp(2, 3) {
        let mut body = vec![];
        b.ops = if t == 0 { k.ops.max(k.lead) } else { k.ops };
        // A later thread may begin by writing what an earlier one's paired fields, literal
        // pair or array sweep touched (spec §5.2 [D], §5.3.1 [D]: a race on a proxy group's or a compressed
        // array group's one shadow), with a lock then a critical section, whose acquire
        // commits its footprint (§7.1); the first thread then ends with one too, so that in
        // some order its footprint is committed first and the race is found at the later
        // thread's commit before its acquire (§7.1 [D]: committing after it misses it).
        // With the rarer shapes, a later thread of a two-thread program gets the room to
        // repeat them (the race cases of §5.2 and §5.3.1 are otherwise thin).
        let rare = t > 0 && k.rare && k.threads == 2 && k.lead == 0;
        if let Some((_, cost)) = b.echo.as_ref().filter(|_| rare) {
            b.ops = b.ops.max(cost + 2);
        }
        if let Some((echo, cost)) = b.echo.clone().filter(|(_, cost)| t > 0 && b.ops >= cost + 2) {
            let first = b.src.next();
            if !first.is_multiple_of(3) {
                body.push(echo);
                b.ops -= cost;
                if k.locks > 0 && b.ops >= 2 {
                    body.push("sync(m0) { skip }".to_string());
                    b.ops -= 2;
                    handoff = true;
                }
                // Nothing after it: these programs' interleavings are many.
                b.ops = 0;
            }
        }
        // A long thread opens with its loop in half of the programs: while the budget is
        // whole, the loop can hold a critical section for two iterations.
        if t == 0 && k.lead > 0 && k.arrays {
            let first = b.src.next();
            if first.is_multiple_of(2) {
                b.array_loop(0, 1, first / 2, &mut body);
            }
        }
        // With the rarer shapes, the first thread of a third of the two-thread programs
        // opens with a shape that the second repeats.
        if t == 0 && k.rare && k.lead == 0 && b.src.next().is_multiple_of(3) {
            b.opening(&mut body);
            b.ops = b.ops.min(2);
        }
        b.block(0, 1, &mut body);
        threads.push(body);
    }
    if handoff {
        threads[0].push("sync(m0) { skip }".to_string());
    }
    let locks: String = (0..k.locks).map(|l| format!("; m{l} = new C")).collect();
    let methods = match (k.calls, k.chains) {
        (true, true) => format!("{METHODS}{CHAINS}"),
        (true, false) => METHODS.to_string(),
        _ => String::new(),
    };
    let methods = if k.calls && k.rare { format!("{methods}{GETTER}") } else { methods };
    // The paired fields exist only in programs that use them (the other programs as before).
    let (pair, pair_init) = if b.pair {
        let [h, k] = builder::PAIR;
        (format!(", {h}, {k}"), format!("; o1.{h} = 0; o1.{k} = 0; o2.{h} = 0; o2.{k} = 0"))
    } else {
        (String::new(), String::new())
    };
    let mut text = format!(
        "dialect bfj\nclass C {{\n  fields f, g{pair}\n{methods}}}\ninit {{ o1 = new C; o2 = new C; o1.f = 0; o1.g = 0; o2.f = 0; o2.g = 0{pair_init}; a = new_array 4; a[0] = 0; a[1] = 0; a[2] = 0; a[3] = 0{locks} }}\n"
    );
    for body in threads {
        text.push_str(&format!("thread {{ {} }}\n", body.join("; ")));
    }
    parse_generated("bfj", &text)
}

/// The proptest form: programs with knobs `k` from proptest's byte vectors (shrinkable).
pub fn bfj_program(k: BfjKnobs) -> impl proptest::strategy::Strategy<Value = Program> {
    use proptest::prelude::*;
    proptest::collection::vec(any::<u8>(), 0..64).prop_map(move |b| build(&b, k))
}

/// The registry's generator for `bigfoot-precise`: knobs from the first [`SWARM_HEADER`]
/// bytes, then [`build`] from the rest.
pub fn swarm_bfj(bytes: &[u8], _relax: Relax) -> Program {
    let (h, rest) = split_header::<SWARM_HEADER>(bytes);
    build(rest, BfjKnobs::swarm(h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{Config, Explorer, Naive, Outcome};
    use crate::machine::Machine;

    fn bytes(seed: u32, len: u32) -> Vec<u8> {
        (0..len).map(|i| (seed.wrapping_mul(2_654_435_761).wrapping_add(i.wrapping_mul(40_503)) >> 11) as u8).collect()
    }

    /// Every program validates, and no execution of a sample faults or gets stuck: each one
    /// terminates (or deadlocks on lock order).
    #[test]
    fn programs_validate_and_never_fault() {
        let mut checked = 0;
        for seed in 0..400u32 {
            let p = swarm_bfj(&bytes(seed, 48), Relax::default());
            validate(&p).unwrap_or_else(|e| panic!("{e}\n{}", print(&p)));
            if seed % 4 != 0 {
                continue;
            }
            let cfg = Config { max_executions: 5_000, ..Config::default() };
            let m = Machine::new(&p, cfg.loop_bound);
            Naive.explore(&m, m.initial_state().unwrap(), &cfg, &mut |ex| {
                assert!(matches!(ex.outcome, Outcome::Terminated | Outcome::Deadlock { .. }), "{:?}\n{}", ex.outcome, print(&p));
                checked += 1;
                std::ops::ControlFlow::Continue(())
            });
        }
        assert!(checked > 1000, "only {checked} executions checked");
        for seed in 0..400u32 {
            let p = swarm_bfj(&bytes(seed, 48), Relax::default());
            assert_eq!(parse(&print(&p)).unwrap().without_lines(), p.without_lines(), "round trip:\n{}", print(&p));
        }
        assert!(build(&[], BfjKnobs::default()).threads.iter().all(Vec::is_empty));
    }
}
