//! The semantic domains of Fig. 4 (docs/spec/naik_aiken.md §1.2), with threads (§4.1, §4.2):
//! objects carry their time stamp ⟨π, h⟩, every thread its own loop vector π, and the state
//! the effect set C, which never shrinks.

use std::sync::Arc;

use super::code::{Code, Instr, Ix};
use crate::lang::labels::PointId;
use crate::machine::CowVec;

/// How a thread's loop counters behave (spec §4.1 \[D/C\], ingredient (ii)): what the
/// instrumented semantics runs the program under when it judges the analysis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Counters {
    /// Every thread has its own π; a child starts from a frozen copy of its parent's.
    #[default]
    PerThread,
    /// One π for the whole program, which every thread increments: R10's broken semantics,
    /// under which stamps stop being unique.
    Shared,
}

/// An object, by creation order in one execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjId(pub u32);

// `ObjId::index` widens a `u32` to a `usize`: lossless on every target this crate builds for.
const _: () = assert!(usize::BITS >= 32);

impl ObjId {
    /// Its position in [`State::objs`].
    pub fn index(self) -> usize {
        // OK since `usize` has at least 32 bits (asserted above).
        self.0 as usize
    }
}

/// A value: ⊥ (null), an object, or the integer a data write stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Val {
    /// ⊥
    Null,
    /// ō
    Obj(ObjId),
    /// An integer (data fields only).
    Int(i64),
}

/// ō = ⟨π, h⟩: the allocating thread's loop counters, masked to the loops enclosing the
/// site (rule 2 of Fig. 5), and the site.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Stamp {
    /// π(w) for each loop (0 for loops not enclosing the site).
    pub pi: Vec<u32>,
    /// The site, an index into [`Code::sites`].
    pub site: Ix,
}

/// A heap object.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Object {
    /// Its stamp.
    pub stamp: Stamp,
    /// σ(ō, f) for each field of [`Code::fields`] (⊥ until written).
    pub fields: Vec<Val>,
    /// What `x[+] = y` stored in it, sorted, without repeats (elements are collapsed).
    pub elems: Vec<Val>,
    /// The thread holding its lock and the reentrancy depth.
    pub owner: Option<(u32, u32)>,
    /// Whether a `fork(x)` has started it (starting it again blocks, spec §4.1).
    pub started: bool,
}

/// What a thread does once its innermost running part is done.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cont {
    /// The statements of a block, from `pc` on.
    Seq {
        /// The block.
        block: u32,
        /// The next statement's position in it.
        pc: u32,
    },
    /// A loop's head, after `iters` iterations of this entry.
    Loop {
        /// The `while` statement.
        point: PointId,
        /// Iterations of this entry so far (bounded by the loop bound).
        iters: u32,
    },
    /// The release at the end of a `sync` body.
    Release(ObjId),
}

/// One thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Thread {
    /// `T1` for the main thread, `T1.2` for its second fork, and so on.
    pub name: Arc<str>,
    /// ρ, by variable index; ⊥ until assigned.
    pub env: Vec<Val>,
    /// π: how many iterations each loop has started in this thread (spec §4.1 \[D/C\]: a
    /// child starts from a frozen copy of its parent's). Unused under [`Counters::Shared`].
    pub pi: Vec<u32>,
    /// Continuations, innermost last; empty once the thread is done.
    pub conts: Vec<Cont>,
    /// Within a path access: the object the next position dereferences, and the position.
    pub walk: Option<(Val, u8)>,
    /// Forks made so far (names the next child).
    pub forks: u32,
}

/// A whole state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// σ: the objects, by [`ObjId`].
    pub objs: CowVec<Object>,
    /// The threads, in creation order.
    pub threads: CowVec<Thread>,
    /// C: every (ō1, ō2) such that a field or container of ō1 was assigned ō2 (rule 5),
    /// sorted, without repeats.
    pub effects: Vec<(ObjId, ObjId)>,
    /// The one π of [`Counters::Shared`] (`None`: every thread has its own).
    pub shared_pi: Option<Vec<u32>>,
}

/// The next thing a thread does, as the explorer and the judges see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// A statement (or, for a `while`, its head).
    At(PointId),
    /// The release at the end of a `sync`.
    Release(ObjId),
    /// Nothing: the thread is done.
    Done,
}

impl State {
    /// The initial state: the main thread at the first statement, an empty heap, C = ∅.
    pub fn initial(code: &Code, counters: Counters) -> State {
        let main =
            Thread { name: "T1".into(), env: vec![Val::Null; code.vars.len()], pi: vec![0; code.loops.len()], conts: vec![Cont::Seq { block: 0, pc: 0 }], walk: None, forks: 0 };
        let mut st = State { objs: CowVec::default(), threads: vec![main].into(), effects: vec![], shared_pi: (counters == Counters::Shared).then(|| vec![0; code.loops.len()]) };
        st.settle(code, 0);
        st
    }

    /// What thread `t` does next.
    pub fn next(&self, code: &Code, t: usize) -> Next {
        match self.threads[t].conts.last() {
            None => Next::Done,
            Some(Cont::Seq { block, pc }) => code.at(*block, *pc).map_or(Next::Done, Next::At),
            Some(Cont::Loop { point, .. }) => Next::At(*point),
            Some(Cont::Release(o)) => Next::Release(*o),
        }
    }

    /// The loop vector thread `t` allocates with.
    pub fn pi(&self, t: usize) -> &[u32] {
        self.shared_pi.as_deref().unwrap_or(&self.threads[t].pi)
    }

    /// The value of a variable in thread `t`.
    pub fn var(&self, t: usize, x: Ix) -> Val {
        self.threads[t].env.get(x.index()).copied().unwrap_or(Val::Null)
    }

    /// Pops finished blocks and turns a `while` reached in a block into its head, so that
    /// [`State::next`] names the thread's next action. A thread with no continuation left
    /// is done.
    pub(super) fn settle(&mut self, code: &Code, t: usize) {
        let th = &mut self.threads[t];
        while let Some(Cont::Seq { block, pc }) = th.conts.last().cloned() {
            match code.at(block, pc) {
                None => {
                    th.conts.pop();
                }
                Some(p) if matches!(code.instr(p), Instr::While(..)) => {
                    if let Some(Cont::Seq { pc, .. }) = th.conts.last_mut() {
                        *pc += 1;
                    }
                    th.conts.push(Cont::Loop { point: p, iters: 0 });
                    break;
                }
                Some(_) => break,
            }
        }
    }

    /// An object's readable name: its site and loop vector (`h2(1,0)`), which is unique
    /// when stamps are (spec §1.3), with `#n` added when another object shares its stamp.
    pub fn obj_name(&self, code: &Code, o: ObjId) -> String {
        let Some(obj) = self.objs.get(o.index()) else { return format!("#{}", o.0) };
        let pi: Vec<String> = obj.stamp.pi.iter().map(u32::to_string).collect();
        let site = code.sites.get(obj.stamp.site.index()).map_or("?", String::as_str);
        let name = if pi.is_empty() { site.to_string() } else { format!("{site}({})", pi.join(",")) };
        if self.objs.iter().filter(|x| x.stamp == obj.stamp).count() > 1 {
            format!("{name}#{}", o.0)
        } else {
            name
        }
    }
}
