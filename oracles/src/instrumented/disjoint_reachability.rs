//! Concrete reachability (docs/spec/naik_aiken.md §1.4): C⁺, the non-reflexive transitive
//! closure of one state's effects (Def. 4.1), and the disjoint reachability property
//! DR_C(H) (Fig. 9 eq. 1): every h-object is reachable by one or more dereferences from at
//! most one object allocated at a site in H. Objects are compared as objects, not as
//! stamps, so that a semantics whose stamps collide (R10) is judged by what really happens.

use std::collections::BTreeSet;

use super::code::Ix;
use super::state::{ObjId, State};

/// C⁺ of a state, as (source, target) pairs, sorted.
pub fn closure(s: &State) -> BTreeSet<(ObjId, ObjId)> {
    let mut out: BTreeSet<(ObjId, ObjId)> = s.effects.iter().copied().collect();
    loop {
        let mut added = vec![];
        for &(a, b) in &out {
            for &(c, d) in &s.effects {
                if b == c && !out.contains(&(a, d)) {
                    added.push((a, d));
                }
            }
        }
        if added.is_empty() {
            return out;
        }
        out.extend(added);
    }
}

/// A counterexample to h ∈ DR_C(H): an h-object reachable from two distinct H-objects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedTarget {
    /// The two H-objects.
    pub sources: (ObjId, ObjId),
    /// The h-object both reach.
    pub target: ObjId,
}

/// Whether h ∈ DR_C(H) in `s`, given its closure; the first counterexample if not.
pub fn disjoint(s: &State, plus: &BTreeSet<(ObjId, ObjId)>, h: Ix, sites: &BTreeSet<Ix>) -> Result<(), SharedTarget> {
    let site = |o: ObjId| s.objs[o.index()].stamp.site;
    let mut first: Vec<Option<ObjId>> = vec![None; s.objs.len()];
    for &(a, b) in plus {
        if site(b) != h || !sites.contains(&site(a)) {
            continue;
        }
        match first[b.index()] {
            None => first[b.index()] = Some(a),
            Some(x) if x != a => return Err(SharedTarget { sources: (x, a), target: b }),
            Some(_) => {}
        }
    }
    Ok(())
}
