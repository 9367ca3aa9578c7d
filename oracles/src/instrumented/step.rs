//! The rules of Fig. 5 (docs/spec/naik_aiken.md §1.3) as small steps of one thread, with the
//! threads, locks, data writes and containers of §4.1:
//! - `x = new @h` stamps the object with the thread's π masked to the loops enclosing the
//!   site (rule 2); entering a loop iteration increments π(w) *before* the body (rule 10);
//! - `x.f = y` and `x[+] = y` add ō1 |> ō2 to C when y holds an object (rule 5);
//! - a path access makes one step per field (each is a race event, §4.1);
//! - dereferencing ⊥ (or an integer), `sync` on ⊥, and picking from an empty container have
//!   no rule: the thread is stuck (A15: a racy state reached before still counts);
//! - `sync` is reentrant and blocks while another thread holds the lock; `fork(x)` of an
//!   object already started blocks;
//! - a child thread starts with copies of its parent's ρ and π (§4.1 \[D/C\]: its parent's
//!   counters are frozen for it; its own loops are not the parent's, since labels are unique).

use std::sync::Arc;

use super::code::{Code, Instr, Ix, Src};
use super::state::*;
use crate::lang::labels::{unordered, AccessLabel, PointId};
use crate::lang::AccessKind;

/// One heap access a thread is about to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The static access.
    pub label: AccessLabel,
    /// The object.
    pub obj: ObjId,
    /// The field, an index into [`Code::fields`].
    pub field: Ix,
    /// Read or write.
    pub kind: AccessKind,
}

impl State {
    /// The heap access thread `t` makes next, if its next step is one (and not stuck).
    pub fn next_access(&self, code: &Code, t: usize) -> Option<Access> {
        let Next::At(p) = self.next(code, t) else { return None };
        let Instr::Path { base, fields, write, .. } = code.instr(p) else { return None };
        let (cur, pos) = self.threads[t].walk.unwrap_or((self.var(t, *base), 0));
        let Val::Obj(obj) = cur else { return None };
        let last = usize::from(pos) + 1 == fields.len();
        let kind = if last && write.is_some() { AccessKind::Write } else { AccessKind::Read };
        Some(Access { label: AccessLabel { point: p, pos }, obj, field: fields[usize::from(pos)], kind })
    }

    /// The concrete races of this state (spec §4.2): two distinct threads whose next
    /// accesses are to one (object, field), at least one a write; each as its pair of
    /// labels, the smaller first.
    pub fn races(&self, code: &Code) -> Vec<(AccessLabel, AccessLabel)> {
        self.racing_accesses(code).into_iter().map(|(a, b)| unordered((a.label, b.label))).collect()
    }

    /// The races of [`State::races`] as the two accesses themselves (objects and fields).
    pub fn racing_accesses(&self, code: &Code) -> Vec<(Access, Access)> {
        let next: Vec<Access> = (0..self.threads.len()).filter_map(|t| self.next_access(code, t)).collect();
        let mut out = vec![];
        for (i, a) in next.iter().enumerate() {
            for b in &next[i + 1..] {
                if a.obj == b.obj && a.field == b.field && (a.kind == AccessKind::Write || b.kind == AccessKind::Write) {
                    out.push((*a, *b));
                }
            }
        }
        out
    }

    /// Whether thread `t`'s next step touches nothing another thread can see (so the
    /// explorer may run it alone): a local assignment, an allocation, a branch or a loop head.
    pub fn next_is_local(&self, code: &Code, t: usize) -> bool {
        match self.next(code, t) {
            Next::At(p) => matches!(code.instr(p), Instr::Skip | Instr::Null(_) | Instr::Copy(..) | Instr::New(..) | Instr::If(..) | Instr::While(..)),
            _ => false,
        }
    }

    /// Every state thread `t` can step to, with the choice that leads there (a branch, a
    /// loop head's exit (0) or next iteration (1), a picked element). Empty when the thread
    /// is done, blocked or stuck.
    pub fn successors(&self, code: &Code, t: usize, loop_bound: u32) -> Vec<(u32, State)> {
        let th = &self.threads[t];
        match th.conts.last() {
            None => vec![],
            Some(Cont::Release(o)) => {
                let mut s = self.clone();
                let obj = &mut s.objs[o.index()];
                obj.owner = match obj.owner {
                    Some((h, d)) if d > 1 => Some((h, d - 1)),
                    _ => None,
                };
                s.threads[t].conts.pop();
                s.settle(code, t);
                vec![(0, s)]
            }
            Some(Cont::Loop { point, iters }) => {
                let (point, iters) = (*point, *iters);
                let Instr::While(w, body) = code.instr(point) else { return vec![] };
                let mut out = vec![];
                let mut exit = self.clone();
                exit.threads[t].conts.pop();
                exit.settle(code, t);
                out.push((0, exit));
                if iters < loop_bound {
                    let mut it = self.clone();
                    let w = w.index();
                    match &mut it.shared_pi {
                        Some(pi) => pi[w] += 1,
                        None => it.threads[t].pi[w] += 1,
                    }
                    let ts = &mut it.threads[t];
                    ts.conts.pop();
                    ts.conts.push(Cont::Loop { point, iters: iters + 1 });
                    ts.conts.push(Cont::Seq { block: *body, pc: 0 });
                    it.settle(code, t);
                    out.push((1, it));
                }
                out
            }
            Some(Cont::Seq { block, pc }) => match code.at(*block, *pc) {
                Some(p) => self.exec(code, t, p),
                None => vec![],
            },
        }
    }

    /// Moves thread `t` past its current statement (after a step that finished it).
    fn advance(&mut self, code: &Code, t: usize) {
        if let Some(Cont::Seq { pc, .. }) = self.threads[t].conts.last_mut() {
            *pc += 1;
        }
        self.settle(code, t);
    }

    fn set(&mut self, t: usize, x: Ix, v: Val) {
        self.threads[t].env[x.index()] = v;
    }

    fn add_effect(&mut self, from: Val, to: Val) {
        if let (Val::Obj(a), Val::Obj(b)) = (from, to) {
            if let Err(i) = self.effects.binary_search(&(a, b)) {
                self.effects.insert(i, (a, b));
            }
        }
    }

    fn exec(&self, code: &Code, t: usize, p: PointId) -> Vec<(u32, State)> {
        let mut s = self.clone();
        match code.instr(p) {
            Instr::Skip => {}
            Instr::Null(x) => s.set(t, *x, Val::Null),
            Instr::Copy(x, y) => s.set(t, *x, self.var(t, *y)),
            Instr::New(x, h) => {
                let mask = &code.enclosing[p.index()];
                let pi = self.pi(t).iter().zip(mask).map(|(&n, &inside)| if inside { n } else { 0 }).collect();
                let id = ObjId(index(s.objs.len()));
                s.objs.push(Object { stamp: Stamp { pi, site: *h }, fields: vec![Val::Null; code.fields.len()], elems: vec![], owner: None, started: false });
                s.set(t, *x, Val::Obj(id));
            }
            Instr::Path { dst, fields, write, .. } => {
                let Some(a) = self.next_access(code, t) else { return vec![] };
                let (o, f) = (a.obj.index(), a.field.index());
                let pos = usize::from(a.label.pos);
                if pos + 1 < fields.len() {
                    s.threads[t].walk = Some((self.objs[o].fields[f], a.label.pos + 1));
                    return vec![(0, s)];
                }
                s.threads[t].walk = None;
                match write {
                    Some(src) => {
                        let v = match src {
                            Src::Var(y) => self.var(t, *y),
                            Src::Null => Val::Null,
                            Src::Int(k) => Val::Int(*k),
                        };
                        s.objs[o].fields[f] = v;
                        s.add_effect(Val::Obj(a.obj), v);
                    }
                    None => {
                        if let Some(x) = dst {
                            s.set(t, *x, self.objs[o].fields[f]);
                        }
                    }
                }
            }
            Instr::Append(x, y) => {
                let Val::Obj(o) = self.var(t, *x) else { return vec![] };
                let v = self.var(t, *y);
                let elems = &mut s.objs[o.index()].elems;
                if let Err(i) = elems.binary_search(&v) {
                    elems.insert(i, v);
                }
                s.add_effect(Val::Obj(o), v);
            }
            Instr::Pick(x, y) => {
                let Val::Obj(o) = self.var(t, *y) else { return vec![] };
                let elems = &self.objs[o.index()].elems;
                return elems
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let mut s = self.clone();
                        s.set(t, *x, *v);
                        s.advance(code, t);
                        (index(i), s)
                    })
                    .collect();
            }
            Instr::If(a, b) => {
                return [(0, *a), (1, *b)]
                    .into_iter()
                    .map(|(c, blk)| {
                        let mut s = self.clone();
                        s.advance_into(code, t, blk);
                        (c, s)
                    })
                    .collect();
            }
            Instr::Sync(x, body) => {
                let Val::Obj(o) = self.var(t, *x) else { return vec![] };
                let me = index(t);
                let obj = &mut s.objs[o.index()];
                obj.owner = match obj.owner {
                    None => Some((me, 1)),
                    Some((h, d)) if h == me => Some((h, d + 1)),
                    Some(_) => return vec![],
                };
                if let Some(Cont::Seq { pc, .. }) = s.threads[t].conts.last_mut() {
                    *pc += 1;
                }
                s.threads[t].conts.push(Cont::Release(o));
                s.threads[t].conts.push(Cont::Seq { block: *body, pc: 0 });
                s.settle(code, t);
                return vec![(0, s)];
            }
            Instr::Fork(this, body) => {
                let mut env = self.threads[t].env.clone();
                if let Some(x) = this {
                    let Val::Obj(o) = self.var(t, *x) else { return vec![] };
                    if self.objs[o.index()].started {
                        return vec![];
                    }
                    s.objs[o.index()].started = true;
                    env[code.self_var.index()] = Val::Obj(o);
                }
                s.threads[t].forks += 1;
                let name: Arc<str> = format!("{}.{}", self.threads[t].name, s.threads[t].forks).into();
                let child = Thread { name, env, pi: self.threads[t].pi.clone(), conts: vec![Cont::Seq { block: *body, pc: 0 }], walk: None, forks: 0 };
                s.threads.push(child);
                let c = s.threads.len() - 1;
                s.settle(code, c);
            }
            // Reached through `settle`'s loop heads only.
            Instr::While(..) => return vec![],
        }
        s.advance(code, t);
        vec![(0, s)]
    }

    /// Moves past an `if` into one of its blocks.
    fn advance_into(&mut self, code: &Code, t: usize, blk: u32) {
        if let Some(Cont::Seq { pc, .. }) = self.threads[t].conts.last_mut() {
            *pc += 1;
        }
        self.threads[t].conts.push(Cont::Seq { block: blk, pc: 0 });
        self.settle(code, t);
    }
}

/// A count of things the steps of one path created (threads, objects, a container's
/// elements), as a `u32`. OK since each step creates at most one, and a path of 2³² steps
/// (the search stops at `Config::max_steps`, itself a `u32`) does not fit in memory.
fn index(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
