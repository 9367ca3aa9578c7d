//! Loops over the array (spec §4.5 \[LOOP\], §4.7; §9.3 Ex. 2 and 8): an induction
//! variable from a constant start, stepping by 1 or 2, exiting at a constant bound, so
//! every loop terminates by construction; every index it accesses is computed here from
//! the induction variable's values, so every one stays in `0..4`.

use super::builder::Builder;

/// Where a loop tests its exit. Each shape is a different fixed point of anticipation at
/// the loop head (§4.7): the exit test first makes `A_in` the meet of the exit's and the
/// body's, from `⊤`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `loop { B; i = i + k; if i >= n break }` (the BFJ form).
    DoWhile,
    /// `while i < n { B; i = i + k }`.
    While,
    /// `loop { if i >= n break; B; i = i + k }`.
    ExitFirst,
    /// `loop { A; i = i + k; if i >= n break; B }`: the access before the test, the rest of
    /// the body after it.
    ExitMiddle,
    /// `loop { if i >= n break; B; i = i + k; if i >= n break }`: two exits (a `while`
    /// rewritten as spec A7 does), whose meet loses the body's accesses, so the second
    /// `break` owes checks of its own (\[LOOP\], A8).
    TwoExits,
}

/// An index over the induction variable `i`: its text and its value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Index {
    /// `a[i]`
    Plain,
    /// `a[i + 1]`
    Plus1,
    /// `a[i - 1]`
    Minus1,
    /// `a[2 * i]`
    Twice,
    /// `a[3 - i]`
    Reversed,
    /// `a[-i + 3]` (a negation, `Lin::of`'s unary case)
    Negated,
    /// `a[i % 4]`, not linear: checked right after the access.
    Modulo,
}

impl Index {
    /// A form drawn from `x < 15` with the richer forms on: `a[i]`, `a[i + 1]` and `a[i - 1]`
    /// (the ones with a range invariant, §4.7) in two thirds of the loops, since the range
    /// coalescing of §5.1 lives there.
    fn weighted(x: usize) -> Index {
        match x {
            0..=5 => Index::Plain,
            6 | 7 => Index::Plus1,
            8 | 9 => Index::Minus1,
            10 | 11 => Index::Twice,
            12 => Index::Reversed,
            13 => Index::Negated,
            _ => Index::Modulo,
        }
    }

    fn text(self, i: &str) -> String {
        self.spelled(i, None)
    }

    /// The text, or with `alt` another spelling of the same value, whose linear form
    /// `Lin::of` reaches by another rule (spec §4.7): the constant factor on the right
    /// (`i * 2`), a zero factor (`0 * i`), and a non-linear operand inside `+`, `-`, `*` or a
    /// negation (`i % 4 + 0`, `0 + i % 4`, `i % 4 - 0`, `i % 4 * 1`, `-(i % 4) + 3`,
    /// `3 - i % 4`), which makes the whole index non-linear (checked right after the access).
    fn spelled(self, i: &str, alt: Option<usize>) -> String {
        match (self, alt) {
            (Index::Twice, Some(_)) => return format!("{i} * 2"),
            (Index::Plus1, Some(_)) => return format!("{i} + 1 + 0 * {i}"),
            (Index::Reversed, Some(_)) => return format!("3 - {i} % 4"),
            (Index::Negated, Some(_)) => return format!("-({i} % 4) + 3"),
            (Index::Modulo, Some(k)) => return [format!("{i} % 4 + 0"), format!("0 + {i} % 4"), format!("{i} % 4 - 0"), format!("{i} % 4 * 1")][k % 4].clone(),
            _ => {}
        }
        match self {
            Index::Plain => i.to_string(),
            Index::Plus1 => format!("{i} + 1"),
            Index::Minus1 => format!("{i} - 1"),
            Index::Twice => format!("2 * {i}"),
            Index::Reversed => format!("3 - {i}"),
            Index::Negated => format!("-{i} + 3"),
            Index::Modulo => format!("{i} % 4"),
        }
    }

    fn value(self, v: usize) -> Option<usize> {
        match self {
            Index::Plain | Index::Modulo => Some(v),
            Index::Plus1 => Some(v + 1),
            Index::Minus1 => v.checked_sub(1),
            Index::Twice => Some(2 * v),
            Index::Reversed | Index::Negated => 3usize.checked_sub(v),
        }
    }
}

impl Builder<'_, '_> {
    /// `i = s; loop { BODY; i = i + k; if i >= n break }` or another [`Shape`], with an
    /// access to the array first in the body (the induction range of spec §4.7); with a
    /// lock free and room for two iterations, that access is a critical section, so the
    /// loop's back edge meets a release and an acquire (the invariant must be weakened: a
    /// kill inside the loop, spec §4.5 [LOOP]). With the richer forms, the index may be an
    /// expression over `i` or go through the variable `j`, the increment may rename `i`
    /// first (`i2 <- i; i = i2 + k`, §4.6), the start may go through `j`, the array may be
    /// accessed through an alias assigned before the loop or in its body, and the body may
    /// hold another loop. `times` is the iterations of the enclosing loops.
    pub(super) fn array_loop(&mut self, depth: usize, times: usize, b: u8, out: &mut Vec<String>) {
        let rich = self.k.forms;
        let step = 1 + usize::from(self.src.next() % 2);
        let shape = match (rich, self.src.next() % 6) {
            (true, 0) => Shape::ExitFirst,
            (true, 1) => Shape::ExitMiddle,
            (true, 2) => Shape::TwoExits,
            // The rarer shapes favour two exits (the checks at a second exit, A8).
            (true, 3) if self.k.rare => Shape::TwoExits,
            _ if b.is_multiple_of(2) => Shape::DoWhile,
            _ => Shape::While,
        };
        let lock = if self.ops >= 6 * times { self.lock() } else { None };
        // Visible operations of the access per iteration (acq, access, rel when locked).
        let cost = if lock.is_some() { 3 } else { 1 };
        let max_iters = (self.ops / (times * (cost + 1))).clamp(1, 4);
        let iters = if lock.is_some() { 2 + self.src.below(max_iters.saturating_sub(1)) } else { 1 + self.src.below(max_iters) };
        let flags = if rich { self.src.next() } else { 0 };
        let index = if rich { Index::weighted(self.src.below(15)) } else { Index::Plain };
        // With the rarer shapes: a loop over pairs, `a[i]` and `a[i + 1]` with step 2 (its
        // strided range invariant holds: the pair extends the range by a whole stride, §4.7
        // [C]); an offset `w` whose value the meet of an `if *` does not know, `a[i ± w]`
        // (a bound over two free variables), agreed either way (`if * { w = x } else { x = w }`:
        // each side defines one by the other, §4.2 meet).
        let pairs = self.k.rare && step == 2 && index == Index::Plain && lock.is_none();
        let window = self.k.rare && matches!(index, Index::Plus1 | Index::Minus1) && self.src.next().is_multiple_of(2);
        // `a[i - 1]` starts at 1; the values `i` takes stop where the index would leave 0..4.
        let start = usize::from(index == Index::Minus1 || (rich && self.src.next().is_multiple_of(4)));
        let fits = |v: usize| v < 4 && index.value(v).is_some_and(|x| x < 4) && (!pairs || v + 1 < 4);
        assert!(fits(start), "racefuzz internal bug: the bfj generator's index {} leaves 0..4 at i = {start}", index.text("i"));
        let iters = (0..iters).take_while(|j| fits(start + j * step)).count();
        let n = start + iters * step;
        let (i, r) = (self.name("i"), self.name("r"));
        // A plain sweep of `a` without a lock is what a later thread may repeat (`build`):
        // two threads sweeping one array race on its compressed group (spec §5.3.1 [D]).
        if index == Index::Plain && lock.is_none() && self.echo.is_none() && iters > 1 {
            let e = self.name("e");
            self.echo = Some((format!("{e} = {start}; loop {{ a[{e}] = 1; {e} = {e} + {step}; if {e} >= {n} break }}"), iters));
        }
        let mut pre = vec![];
        let mut body = vec![];
        let spelled = if window {
            let (w, x) = (self.name("w"), self.name("w"));
            pre.push(format!("{w} = 0; {x} = 1; if * {{ {w} = {x} }} else {{ {x} = {w} }}"));
            Some(if index == Index::Plus1 { format!("{i} + {w}") } else { format!("{i} - {w}") })
        } else {
            None
        };
        // The array through an alias: assigned before the loop (a quarter), or in its body
        // (an eighth: a loop that assigns its array has no range invariant over it).
        let array = match flags % 8 {
            1 | 2 => {
                let x = self.name("b");
                pre.push(format!("{x} = a"));
                x
            }
            3 => {
                let x = self.name("b");
                body.push(format!("{x} = a"));
                x
            }
            _ => "a".to_string(),
        };
        // The index through `j`, which the constant accesses reuse (a quarter: the range
        // invariant is only for an index linear in `i` itself).
        // Another spelling of the index (an eighth of the loops: the flags' last bit), chosen
        // by values drawn already, so that the other programs stay as they were.
        let spelled = spelled.unwrap_or_else(|| index.spelled(&i, (flags & 128 != 0).then_some(iters + step + start)));
        let at = if rich && (flags >> 3) % 4 == 0 {
            body.push(format!("j = {spelled}"));
            "j".to_string()
        } else {
            spelled
        };
        let write = self.src.next().is_multiple_of(2);
        let access = if write { format!("{array}[{at}] = {}", self.src.below(4)) } else { format!("{r} = {array}[{at}]") };
        let access = match (pairs, write) {
            (false, _) => access,
            (true, true) => format!("{access}; {array}[{at} + 1] = {}", self.src.below(4)),
            (true, false) => format!("{access}; {} = {array}[{at} + 1]", self.name("r")),
        };
        body.push(match lock {
            Some(l) if b.is_multiple_of(3) => format!("sync(m{l}) {{ {access} }}"),
            Some(l) => format!("acq(m{l}); {access}; rel(m{l})"),
            None => access,
        });
        self.ops = self.ops.saturating_sub(times * iters * (cost + usize::from(pairs)));
        // The start through `j` (an induction base the body may assign).
        if flags & 32 != 0 {
            pre.push(format!("j = {start}; {i} = j"));
        } else {
            pre.push(format!("{i} = {start}"));
        }
        let increment = if flags & 64 != 0 {
            let old = self.name("p");
            format!("{old} <- {i}; {i} = {old} + {step}")
        } else {
            format!("{i} = {i} + {step}")
        };
        let mut rest = vec![];
        self.block(depth + 1, times * iters, &mut rest);
        let text = match shape {
            Shape::DoWhile => format!("loop {{ {}; {increment}; if {i} >= {n} break }}", [body, rest].concat().join("; ")),
            Shape::While => format!("while {i} < {n} {{ {}; {increment} }}", [body, rest].concat().join("; ")),
            Shape::ExitFirst => format!("loop {{ if {i} >= {n} break; {}; {increment} }}", [body, rest].concat().join("; ")),
            Shape::TwoExits => format!("loop {{ if {i} >= {n} break; {}; {increment}; if {i} >= {n} break }}", [body, rest].concat().join("; ")),
            Shape::ExitMiddle => {
                let rest = if rest.is_empty() { String::new() } else { format!("; {}", rest.join("; ")) };
                format!("loop {{ {}; {increment}; if {i} >= {n} break{rest} }}", body.join("; "))
            }
        };
        pre.push(text);
        // The induction variable reassigned after the loop (a quarter of the richer loops,
        // chosen by a value drawn already, so that the other programs stay as they were):
        // the ranges the loop still owes checks for mention `i`, so the assignment must
        // rename them to a shadow first (§4.6) rather than leave `a[0..i]` to mean
        // `a[0..0]`; a range's mention of `i` through its upper end alone went untested
        // (docs/mutation.md).
        if rich && self.k.reassign && b % 8 >= 6 {
            pre.push(format!("{i} = 0"));
        }
        out.push(pre.join("; "));
    }
}
