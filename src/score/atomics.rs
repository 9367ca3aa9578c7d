//! A small generator of programs with atomics and fences for the scorecard
//! (`racefuzz score --generator atomics`), the shapes of the litmus corpus
//! (docs/spec/atomics.md §8) with their parts drawn at random: two or three threads, each a
//! plain access of `o.d` (or none), then one to three atomic operations on `o.f` and `o.g`
//! or fences, then another plain access of `o.d` (or none). Orders are drawn among the
//! valid ones (§1.2), so every program is judged. Fences are a quarter of the atomic
//! statements. Message passing through a flag, through
//! fences, through release sequences and through CAS all come out of it, which is what the
//! real detectors' documented limitations are about (§4.4, §5).
//!
//! Deliberately one function ([`generate`]), which a swarm generator of atomic programs
//! can replace.

use race_oracles::lang::{parse, Program, Relax};

/// A cursor over the generator's bytes: each draw takes the next byte (0 past the end).
struct Draw<'a>(std::slice::Iter<'a, u8>);

impl Draw<'_> {
    /// A number below `n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        usize::from(self.0.next().copied().unwrap_or(0)) % n
    }

    /// One of `xs` (not empty).
    fn pick<'x>(&mut self, xs: &[&'x str]) -> &'x str {
        xs[self.below(xs.len())]
    }
}

const LOAD: [&str; 3] = ["relaxed", "acquire", "seq_cst"];
const STORE: [&str; 3] = ["relaxed", "release", "seq_cst"];
const RMW: [&str; 5] = ["relaxed", "acquire", "release", "acq_rel", "seq_cst"];
const FENCE: [&str; 4] = ["acquire", "release", "acq_rel", "seq_cst"];

/// The failure orders valid with a CAS's success order `s` (no stronger, §1.2 \[C\]).
fn failures(s: &str) -> &'static [&'static str] {
    match s {
        "relaxed" | "release" => &["relaxed"],
        "seq_cst" => &["relaxed", "acquire", "seq_cst"],
        _ => &["relaxed", "acquire"],
    }
}

/// One atomic statement or fence, its destination variable numbered `n`.
fn atomic(d: &mut Draw<'_>, n: usize) -> String {
    let cell = d.pick(&["f", "f", "f", "g"]);
    let v = d.below(2) + 1;
    match d.below(8) {
        0 | 1 => format!("r{n} = o.{cell}.load({})", d.pick(&LOAD)),
        2 | 3 => format!("o.{cell}.store({v}, {})", d.pick(&STORE)),
        4 => format!("r{n} = o.{cell}.{}({v}, {})", d.pick(&["fetch_add", "xchg"]), d.pick(&RMW)),
        5 => {
            let s = d.pick(&RMW);
            let f = d.pick(failures(s));
            format!("r{n} = o.{cell}.cas({}, {v}, {s}, {f})", d.below(2))
        }
        _ => format!("fence({})", d.pick(&FENCE)),
    }
}

/// A program with atomics drawn from `bytes` (see the module docs); `relax` is unused: the
/// programs are valid `bfj2`.
pub fn generate(bytes: &[u8], _relax: Relax) -> Program {
    let mut d = Draw(bytes.iter());
    let mut text = String::from("dialect bfj2\nclass C { fields d, f, g }\ninit { o = new C }\n");
    let mut n = 0;
    // Two threads three times in four; a write of `o.d` first and a read last are likelier
    // than the other way round (message passing).
    for _ in 0..2 + d.below(4) / 3 {
        let mut body = vec![];
        let plain = |d: &mut Draw<'_>, n: usize, first: bool| match (d.below(4), first) {
            (0 | 1, true) | (2, false) => Some("o.d = 1".to_string()),
            (2, true) | (0 | 1, false) => Some(format!("t{n} = o.d")),
            _ => None,
        };
        body.extend(plain(&mut d, n, true));
        for _ in 0..1 + d.below(3) {
            n += 1;
            body.push(atomic(&mut d, n));
        }
        n += 1;
        body.extend(plain(&mut d, n, false));
        text.push_str("thread {\n");
        for s in body {
            text.push_str(&format!("  {s}\n"));
        }
        text.push_str("}\n");
    }
    // OK since every statement above is valid bfj2 with valid orders (tested below).
    parse(&text).unwrap_or_else(|e| panic!("racefuzz internal bug: the atomics generator wrote an invalid program ({e}):\n{text}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every program parses and has atomics, and the shapes that matter come out: a fence,
    /// a CAS, a plain access on both sides of another thread's atomics.
    #[test]
    fn programs_parse_and_cover_the_shapes() {
        let (mut fences, mut cas, mut programs) = (0, 0, 0);
        let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(7);
        for _ in 0..200 {
            let p = crate::campaign::generate_with(generate, Relax::default(), &mut rng);
            let text = race_oracles::lang::print(&p);
            assert!(p.has_atomics(), "{text}");
            fences += usize::from(text.contains("fence("));
            cas += usize::from(text.contains(".cas("));
            programs += 1;
        }
        assert!(programs == 200 && fences > 20 && cas > 20, "{fences} fences, {cas} CAS in {programs} programs");
    }
}
