//! The object graph a dynamic escape or capsule analysis rebuilds from the trace alone
//! (docs/spec/escape_capsule.md §2.3 \[REC\]: fields start null and every write is an event with
//! its value, so the writes determine the heap), and the closures both analyses take over
//! it: `reach(v)` (§3.2) and `acc(v)` (§6.3), which differ only in where they stop.

use std::collections::{BTreeMap, HashMap};

use race_oracles::machine::{Addr, ObjId, Value};

/// Each object's fields (and elements) that hold an object, as the trace has written them.
#[derive(Clone, Debug, Default)]
pub struct ObjectGraph {
    edges: HashMap<ObjId, BTreeMap<Addr, ObjId>>,
}

impl ObjectGraph {
    /// The write of `v` into `a` (a non-object value removes the edge).
    pub fn write(&mut self, a: Addr, v: Value) {
        let fields = self.edges.entry(a.obj()).or_default();
        match v {
            Value::Obj(o) => fields.insert(a, o),
            _ => fields.remove(&a),
        };
    }

    /// The objects `o`'s fields hold.
    pub fn successors(&self, o: ObjId) -> impl Iterator<Item = ObjId> + '_ {
        self.edges.get(&o).into_iter().flat_map(|fields| fields.values().copied())
    }

    /// The objects reachable from `v` (`v` itself included, none for a non-object), in
    /// visiting order, neither counting nor traversing an object for which `stop` holds;
    /// only `v` itself unless `transitive` (a seeded bug's non-transitive closure).
    pub fn closure(&self, v: Value, stop: impl Fn(ObjId) -> bool, transitive: bool) -> Vec<ObjId> {
        let Value::Obj(root) = v else { return vec![] };
        let (mut out, mut stack) = (vec![], vec![root]);
        while let Some(o) = stack.pop() {
            if stop(o) || out.contains(&o) {
                continue;
            }
            out.push(o);
            if transitive {
                stack.extend(self.successors(o));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use race_oracles::machine::FieldId;

    use super::*;

    #[test]
    fn closures_follow_written_edges_and_stop_where_asked() {
        let (f, g) = (FieldId(0), FieldId(1));
        let mut h = ObjectGraph::default();
        h.write(Addr::Field(ObjId(0), f), Value::Obj(ObjId(1)));
        h.write(Addr::Field(ObjId(1), g), Value::Obj(ObjId(2)));
        h.write(Addr::Field(ObjId(2), f), Value::Obj(ObjId(0)));
        assert_eq!(h.closure(Value::Obj(ObjId(0)), |_| false, true), [ObjId(0), ObjId(1), ObjId(2)]);
        assert_eq!(h.closure(Value::Obj(ObjId(0)), |o| o == ObjId(1), true), [ObjId(0)]);
        assert_eq!(h.closure(Value::Obj(ObjId(0)), |_| false, false), [ObjId(0)]);
        assert_eq!(h.closure(Value::Null, |_| false, true), []);
        // Overwriting a field with a non-object cuts the edge.
        h.write(Addr::Field(ObjId(0), f), Value::Int(3));
        assert_eq!(h.closure(Value::Obj(ObjId(0)), |_| false, true), [ObjId(0)]);
    }
}
