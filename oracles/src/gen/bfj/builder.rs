//! Statements of a thread, within a budget of visible operations: accesses, critical
//! sections, conditions, calls, allocation. Loops are in [`super::loops`].

use super::knobs::BfjKnobs;
use crate::gen::toolkit::Bytes;

pub(super) const OBJECTS: [&str; 2] = ["o1", "o2"];
pub(super) const FIELDS: [&str; 2] = ["f", "g"];

pub(super) struct Builder<'a, 'b> {
    pub(super) src: &'a mut Bytes<'b>,
    pub(super) k: BfjKnobs,
    /// Visible operations left for the thread being written.
    pub(super) ops: usize,
    /// Fresh-name counter.
    pub(super) fresh: usize,
    /// Locks held, innermost last.
    pub(super) held: Vec<usize>,
    /// Whether the paired fields [`PAIR`] are used (declared and initialized only then).
    pub(super) pair: bool,
    /// The first paired-field access, literal pair or plain array sweep, as writes, with its
    /// visible operations: a later thread may begin with it (see `build`), racing on a proxy
    /// group or a compressed array group.
    pub(super) echo: Option<(String, usize)>,
}

/// Two fields that only [`Builder::field_pair`] accesses, always together: every check of
/// one is a check of the other, a symmetric proxy group (spec §5.2).
pub(super) const PAIR: [&str; 2] = ["h", "k"];

impl Builder<'_, '_> {
    pub(super) fn name(&mut self, base: &str) -> String {
        self.fresh += 1;
        format!("{base}{}", self.fresh)
    }

    pub(super) fn lock(&mut self) -> Option<usize> {
        let free: Vec<usize> = (0..self.k.locks).filter(|l| !self.held.contains(l)).collect();
        (!free.is_empty()).then(|| free[self.src.below(free.len())])
    }

    /// Appends statements costing at most `self.ops` visible operations, times `times`
    /// (the iterations of the enclosing loops).
    pub(super) fn block(&mut self, depth: usize, times: usize, out: &mut Vec<String>) {
        while self.ops >= times {
            let b = self.src.next();
            if b == 0 {
                return;
            }
            let o = OBJECTS[self.src.below(self.k.objects)];
            let f = FIELDS[self.src.below(self.k.fields)];
            let v = self.src.below(4);
            let cost = |n: usize| n * times;
            match b % 14 {
                0 | 1 => {
                    let r = self.name("r");
                    out.push(format!("{r} = {o}.{f}"));
                    self.ops -= cost(1);
                    // A condition on the loaded value (spec §10.2: data-dependent control).
                    if self.k.control && depth < 2 && b % 2 == 1 {
                        let (mut a, mut e) = (vec![], vec![]);
                        self.block(depth + 1, times, &mut a);
                        self.block(depth + 1, times, &mut e);
                        out.push(format!("if {r} > 0 {{ {} }} else {{ {} }}", a.join("; "), e.join("; ")));
                    }
                }
                2 | 3 if self.k.forms && (b / 14) % 5 == 4 && self.ops >= cost(2) => self.field_pair(o, v, times, out),
                2 | 3 if (b / 14) % 5 == 3 && self.ops >= cost(4) && depth < 2 && self.k.locks > self.held.len() => {
                    if let Some(l) = self.lock() {
                        self.read_then_write_after(l, b, o, f, v, times, out);
                    }
                }
                // With the rarer shapes, sometimes through an alias: designators equal under H,
                // one check for both (spec §5.1).
                2 | 3 if self.k.rare && (b / 14) % 5 == 1 => {
                    let p = self.name("p");
                    out.push(format!("{p} = {o}; {p}.{f} = {v}"));
                    self.ops -= cost(1);
                }
                2 | 3 => {
                    out.push(format!("{o}.{f} = {v}"));
                    self.ops -= cost(1);
                }
                4 | 5 if self.k.arrays => self.array_access(b.is_multiple_of(2), o, f, v, times, out),
                // A nested loop only where its iterations times the enclosing ones fit.
                6 | 7 if self.k.arrays && depth < 2 && (times == 1 || self.k.forms) && self.ops >= 2 * times => self.array_loop(depth, times, b, out),
                8 | 9 if self.k.locks > 0 && depth < 2 => {
                    let Some(l) = self.lock() else { continue };
                    if self.ops < cost(2) {
                        return;
                    }
                    // Sometimes two sections in a row on one lock: accesses on both sides
                    // of a release-acquire pair (spec §9.2 row 7).
                    let sections = if (b / 14).is_multiple_of(3) && self.ops >= cost(5) { 2 } else { 1 };
                    if sections == 1 && (b / 14) % 3 == 1 && self.ops >= cost(4) {
                        self.read_then_write_after(l, b, o, f, v, times, out);
                        continue;
                    }
                    for _ in 0..sections {
                        self.ops = self.ops.saturating_sub(cost(if sections == 2 { 3 } else { 2 }));
                        self.held.push(l);
                        // Both sections of a pair touch one location first.
                        let mut body = if sections == 2 { vec![format!("{o}.{f} = {v}")] } else { vec![] };
                        self.block(depth + 1, times, &mut body);
                        self.held.pop();
                        if b.is_multiple_of(2) {
                            out.push(format!("acq(m{l}); {}rel(m{l})", body.iter().map(|s| format!("{s}; ")).collect::<String>()));
                        } else {
                            out.push(format!("sync(m{l}) {{ {} }}", body.join("; ")));
                        }
                    }
                }
                10 if self.k.control && depth < 2 => {
                    let (mut a, mut e) = (vec![], vec![]);
                    self.block(depth + 1, times, &mut a);
                    self.block(depth + 1, times, &mut e);
                    out.push(format!("if * {{ {} }} else {{ {} }}", a.join("; "), e.join("; ")));
                }
                11 | 12 if self.k.calls => self.call(b, o, v, times, out),
                13 if self.k.forms && (b / 14).is_multiple_of(4) => {
                    // A thread-local object or array ([NEW]): its accesses never race, and
                    // its variable's earlier mentions are dropped from `A` (spec §4.5).
                    let x = self.name("n");
                    if self.k.rare && self.ops >= cost(2) {
                        self.reuse(&x, b, f, v, times, out);
                        continue;
                    }
                    // b is 13, 69, 125, 181 or 237 here (all odd): its 56s choose.
                    if (b / 56).is_multiple_of(2) {
                        out.push(format!("{x} = new C; {x}.{f} = {v}"));
                    } else {
                        out.push(format!("{x} = new_array 2; {x}[{}] = {v}", v % 2));
                    }
                    self.ops -= cost(1);
                }
                13 if self.k.calls => self.call(b, o, v, times, out),
                _ => out.push("skip".into()),
            }
        }
    }

    /// One access to `a` outside loops: through the index variable `j` (reassigned from
    /// one access to the next, §4.6), or with the richer forms a literal index (two
    /// literals that are not adjacent coalesce into a strided range, §5.1) or an index
    /// computed from a loaded value, `a[r % 4]`, which is not linear and is checked right
    /// after its access.
    fn array_access(&mut self, write: bool, o: &str, f: &str, v: usize, times: usize, out: &mut Vec<String>) {
        let form = if self.k.forms { self.src.next() % 4 } else { 3 };
        // With the rarer shapes, the second access of a pair sometimes goes through an
        // alias `b = a`: two designators equal under H, coalesced into one check (§5.1).
        let mut array = "a".to_string();
        let (pre, index, cost) = match form {
            0 if v < 2 && self.ops >= 2 * times => {
                let first = if write { format!("a[{v}] = {}; ", self.src.below(4)) } else { format!("{} = a[{v}]; ", self.name("r")) };
                let draw = self.src.next();
                let first = if self.k.rare && draw >= 128 && draw % 4 != 3 {
                    array = self.name("b");
                    format!("{first}{array} = a; ")
                } else {
                    first
                };
                match draw % 4 {
                    // Two literals two apart: their union is the strided range `a[v..v+3:2]` (§5.1).
                    0 | 1 => {
                        self.echo.get_or_insert_with(|| (format!("a[{v}] = 1; a[{}] = 1", v + 2), 2));
                        (first, (v + 2).to_string(), 2)
                    }
                    // The same element again through `j = v` (§4.2: `{z[i]◁, i = j} ⊢ z[j]◁`):
                    // one path inside the other, coalesced into one (§5.1).
                    2 => (format!("{first}j = {v}; "), "j".to_string(), 2),
                    _ => (String::new(), v.to_string(), 1),
                }
            }
            0 => (String::new(), v.to_string(), 1),
            1 if self.ops >= 2 * times => {
                let r = self.name("r");
                // Other spellings of the same non-linear index: `Lin::of` fails on its
                // right operand under `+` and under `*` (spec §4.7).
                let index = match self.k.rare.then(|| self.src.next() % 3) {
                    Some(1) => format!("0 + {r} % 4"),
                    Some(2) => format!("1 * ({r} % 4)"),
                    _ => format!("{r} % 4"),
                };
                (format!("{r} = {o}.{f}; "), index, 2)
            }
            // `j * j` is `j` for j < 2, and not linear: two variables multiplied.
            _ if self.k.rare && v < 2 && self.src.next().is_multiple_of(2) => (format!("j = {v}; "), "j * j".to_string(), 1),
            _ => (format!("j = {v}; "), "j".to_string(), 1),
        };
        if write {
            out.push(format!("{pre}{array}[{index}] = {}", self.src.below(4)));
        } else {
            let r = self.name("r");
            out.push(format!("{pre}{r} = {array}[{index}]"));
        }
        self.ops = self.ops.saturating_sub(cost * times);
    }

    /// An opening of the first thread with the rarer shapes: the paired fields, two
    /// literals two apart, one element twice (the second time through `j`), maybe through
    /// an alias, or a plain sweep, which a later thread repeats (see `build`): races on a
    /// proxy group and on a compressed array group (§5.2 \[D\], §5.3.1 \[D\]), and the
    /// coalescing of §5.1 (strided, inside, designators equal).
    pub(super) fn opening(&mut self, out: &mut Vec<String>) {
        let draw = self.src.next();
        if (!self.k.arrays || draw.is_multiple_of(3)) && self.ops >= 2 {
            let o = OBJECTS[self.src.below(self.k.objects)];
            self.field_pair(o, usize::from(draw % 4), 1, out);
            return;
        }
        if !self.k.arrays {
            return;
        }
        let write = draw.is_multiple_of(2);
        let v = usize::from(draw / 2 % 2);
        if self.k.forms && draw % 8 < 6 && self.ops >= 2 {
            let array = if draw >= 128 {
                let b = self.name("b");
                out.push(format!("{b} = a"));
                b
            } else {
                "a".to_string()
            };
            let second = if draw % 8 < 4 { (v + 2).to_string() } else { "j".to_string() };
            if second == "j" {
                out.push(format!("j = {v}"));
            }
            for (arr, at) in [("a".to_string(), v.to_string()), (array, second)] {
                out.push(if write { format!("{arr}[{at}] = {}", self.src.below(4)) } else { format!("{} = {arr}[{at}]", self.name("r")) });
            }
            self.echo.get_or_insert_with(|| (format!("a[{v}] = 1; a[{}] = 1", if draw % 8 < 4 { v + 2 } else { v }), 2));
            self.ops -= 2;
        } else if self.ops >= 2 {
            let n = 2 + self.src.below(self.ops.min(4) - 1);
            let (i, e) = (self.name("i"), self.name("e"));
            let access = if write { format!("a[{i}] = {}", self.src.below(4)) } else { format!("{} = a[{i}]", self.name("r")) };
            out.push(format!("{i} = 0; loop {{ {access}; {i} = {i} + 1; if {i} >= {n} break }}"));
            self.echo.get_or_insert_with(|| (format!("{e} = 0; loop {{ a[{e}] = 1; {e} = {e} + 1; if {e} >= {n} break }}"), n));
            self.ops -= n;
        }
    }

    /// A section that reads a location, and a write of it right after the release: the
    /// write is anticipated through the release, so the read inside is checked by the
    /// write's check after it (spec §4.5 \[REL\], §4.5.1: `p◊W ⊢ p◊R`).
    #[allow(clippy::too_many_arguments)]
    fn read_then_write_after(&mut self, l: usize, b: u8, o: &str, f: &str, v: usize, times: usize, out: &mut Vec<String>) {
        self.ops = self.ops.saturating_sub(4 * times);
        let r = self.name("r");
        let section = if b.is_multiple_of(2) { format!("acq(m{l}); {r} = {o}.{f}; rel(m{l})") } else { format!("sync(m{l}) {{ {r} = {o}.{f} }}") };
        out.push(format!("{section}; {o}.{f} = {v}"));
    }

    /// Both paired fields of one object, written or read together (see [`PAIR`]).
    fn field_pair(&mut self, o: &str, v: usize, times: usize, out: &mut Vec<String>) {
        self.pair = true;
        self.echo.get_or_insert_with(|| (format!("{o}.{} = 1; {o}.{} = 1", PAIR[0], PAIR[1]), 2));
        if self.src.next().is_multiple_of(2) {
            out.push(format!("{o}.{} = {v}; {o}.{} = {v}", PAIR[0], PAIR[1]));
        } else {
            let (r1, r2) = (self.name("r"), self.name("r"));
            out.push(format!("{r1} = {o}.{}; {r2} = {o}.{}", PAIR[0], PAIR[1]));
        }
        self.ops = self.ops.saturating_sub(2 * times);
    }

    /// A thread-local variable reused for a second allocation, maybe with an alias of the
    /// first: the first object's access is owed past the reassignment, on its shadow name
    /// (spec §4.6), and its check names the alias, else the shadow.
    fn reuse(&mut self, x: &str, b: u8, f: &str, v: usize, times: usize, out: &mut Vec<String>) {
        let alias = if self.src.next().is_multiple_of(2) { format!("{} = {x}; ", self.name("y")) } else { String::new() };
        let u = (v + 1) % 4;
        if (b / 56).is_multiple_of(2) {
            out.push(format!("{x} = new C; {x}.{f} = {v}; {alias}{x} = new C; {x}.{f} = {u}"));
        } else {
            out.push(format!("{x} = new_array 2; {x}[{}] = {v}; {alias}{x} = new_array 2; {x}[{}] = {u}", v % 2, u % 2));
        }
        self.ops = self.ops.saturating_sub(2 * times);
    }

    fn call(&mut self, b: u8, o: &str, v: usize, times: usize, out: &mut Vec<String>) {
        let r = self.name("r");
        match (b / 14) % 4 {
            0 if v.is_multiple_of(2) => {
                // Through a caller when chains are on: the callee's kill sets are the
                // callee's callees' (none here).
                let m = if self.k.chains && b.is_multiple_of(3) { "putVia" } else { "put" };
                out.push(format!("c = {v}; {r} = {o}.{m}(c)"));
                self.ops = self.ops.saturating_sub(times);
            }
            0 => {
                // A callee with an early return: its checks must precede each return.
                out.push(format!("c = {v}; {r} = {o}.early(c)"));
                self.ops = self.ops.saturating_sub(2 * times);
            }
            1 if self.k.arrays => {
                out.push(format!("j = {v}; {r} = {o}.store(a, j)"));
                self.ops = self.ops.saturating_sub(times);
            }
            n => {
                let Some(l) = self.lock() else { return };
                if self.k.rare && n == 3 && self.ops >= 2 * times && self.src.next().is_multiple_of(2) {
                    // A synchronized getter: nothing is owed at its return (spec §4.5 [STMT]).
                    out.push(format!("{r} = {o}.get(m{l})"));
                    self.ops -= 2 * times;
                } else if self.k.chains && b.is_multiple_of(3) && self.ops >= 2 * times {
                    // A callee whose only synchronization is a `sync` block.
                    out.push(format!("{r} = {o}.guarded(m{l})"));
                    self.ops -= 2 * times;
                } else if n == 2 && self.ops >= 3 * times {
                    // Acquire-only and release-only callees, balanced within the thread.
                    let mid = if self.src.next().is_multiple_of(2) { format!("{o}.f = {v}") } else { format!("r = {o}.f") };
                    out.push(format!("{r} = {o}.acquireIt(m{l}); {mid}; {r} = {o}.releaseIt(m{l})"));
                    self.ops -= 3 * times;
                } else if self.ops >= 4 * times {
                    // With chains on, sometimes through a caller that synchronizes only
                    // through its callee (transitive kill sets, \[CALL\]).
                    let m = if self.k.chains && b % 3 == 1 { "bumpVia" } else { "bump" };
                    out.push(format!("{r} = {o}.{m}(m{l})"));
                    self.ops -= 4 * times;
                }
            }
        }
    }
}
