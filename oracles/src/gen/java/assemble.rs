//! Assembling a SimpleJava or CapJava program (docs/spec/escape_capsule.md §2.1, §7.1): the main
//! thread builds the shared objects the bodies use (a holder `p`, a lock `l`, a given object
//! `o`, a capsule `k`), hands them to the workers through their fields (or a capsule
//! thread's `bind(..)`), forks them and runs its own operations; then the classes, with only
//! the methods some body calls.

use std::collections::BTreeSet;

use super::knobs::Setting;
use super::workers::{field_of, Builder, Ctx};
use crate::gen::toolkit::{parse_generated, Bytes};
use crate::lang::Program;

/// The plain methods of `Ref`, declared when some body calls them.
const REF_METHODS: [(&str, &str); 2] = [("set", "method set(v) { this.f = v }"), ("get", "method get() { y = this.f; return y }")];

/// The methods of the capsule class `K`, declared when some body calls them.
const K_METHODS: [(&str, &str); 7] = [
    ("setup", "method setup() { r = new Ref; this.o = r; this.n = 0; return null }"),
    ("inc", "method inc() { n = this.n; this.n = n }"),
    ("touch", "method touch() { x = this.o; if x != null { x.g = 1 } }"),
    ("getO", "method getO() { x = this.o; return x }"),
    ("put", "method put(r) { this.o = r; return null }"),
    ("setv", "method setv(v) { this.v = v }"),
    ("copyFrom", "method copyFrom(c) { v = c.v; this.v = v }"),
];

/// A program of the setting `s` from `bytes`: the workers' bodies first (they decide which
/// shared objects the main thread builds), then the main thread and the classes.
pub(super) fn build(bytes: &[u8], s: Setting) -> Program {
    let mut src = Bytes::new(bytes);
    let mut b = Builder { src: &mut src, s, fresh: 0, k_methods: BTreeSet::new(), ref_calls: BTreeSet::new() };
    let workers = s.workers.clamp(1, 3);
    // A violation in the main thread leaves the workers less room.
    let s = Setting { ops: if s.cap && s.violation >= 2 { s.ops.min(2) } else { s.ops }, main_ops: if s.cap && s.violation >= 2 { 0 } else { s.main_ops }, ..s };
    b.s = s;
    // Workers first (they decide which shared objects the main thread builds).
    let mut bodies = vec![];
    let mut capsule_worker = vec![];
    let mut total = 0;
    for _ in 0..workers {
        let capsule = s.cap && b.src.below(100) < s.capsule_threads as usize;
        // Room for Fig. 4.1's writer or reader; a capsule thread's enter and exit.
        let ops = if s.cap {
            // Room for fetching `k` and `l`; a capsule thread's enter and exit come on top.
            if capsule {
                s.ops.saturating_sub(1).max(1)
            } else {
                s.ops + 3
            }
        } else {
            s.ops + usize::from(s.sync_fresh && workers < 3)
        };
        let mut c = Ctx { main: false, capsule, ops, fetched: BTreeSet::new(), locked: false };
        let mut out = vec![];
        b.body(&mut c, &mut out);
        total += ops - c.ops + if capsule { 2 } else { 0 };
        bodies.push((out, c.fetched));
        capsule_worker.push(capsule);
    }
    // The main thread after its forks: a small budget, none if the workers are busy.
    let main_ops = if total + s.main_ops <= 6 { s.main_ops } else { 0 };
    let mut m = Ctx { main: true, capsule: false, ops: main_ops, fetched: BTreeSet::new(), locked: false };
    let mut post = vec![];
    if s.given && main_ops > 0 && b.src.next() % 2 == 1 {
        // M-E2: the main thread writes the object it gave away.
        m.ops -= 1;
        m.fetched.insert("o");
        let v = b.val();
        post.push(format!("o.f = {v}"));
    }
    b.body(&mut m, &mut post);
    if s.cap {
        match s.violation {
            2 => {
                b.k_methods.insert("copyFrom");
                b.k_methods.insert("setv");
                m.fetched.extend(["k", "l"]);
                post.push("sync(l) { k.copyFrom(k2) }".into());
            }
            3 => {
                m.fetched.insert("k");
                post.push("y = k.n".into());
            }
            _ => {}
        }
    }
    let mut used: BTreeSet<&str> = m.fetched.clone();
    for (_, f) in &bodies {
        used.extend(f.iter().copied());
    }
    // The main thread: shared objects, workers, forks, then its own operations.
    let mut main = vec![];
    if used.contains("p") {
        main.push("p = new H".to_string());
    }
    if used.contains("l") {
        main.push("l = new L".into());
    }
    if used.contains("o") {
        main.push("o = new Ref".into());
    }
    if used.contains("k") {
        main.push("k = new K".into());
        if s.setup {
            b.k_methods.insert("setup");
            main.push("k.setup()".into());
        }
    }
    if s.cap && s.violation == 2 {
        main.push("k2 = new K; k2.setv(1)".into());
    }
    let arg = |v: &str| if used.contains(v) { v.to_string() } else { "null".into() };
    for (i, (_, f)) in bodies.iter().enumerate() {
        let w = format!("w{}", i + 1);
        main.push(format!("{w} = new W{}", i + 1));
        if capsule_worker[i] {
            main.push(format!("{w}.bind({}, {}, {}, {})", arg("p"), arg("l"), arg("o"), arg("k")));
        } else {
            for v in f {
                main.push(format!("{w}.{} = {v}", field_of(v)));
            }
        }
    }
    for i in 0..bodies.len() {
        main.push(format!("fork w{}", i + 1));
    }
    main.extend(post);
    // The classes.
    let mut text = format!("dialect {}\n", if s.cap { "capjava" } else { "simplejava" });
    if used.contains("p") {
        text.push_str("class H { fields o }\n");
    }
    if used.contains("l") {
        text.push_str("class L { }\n");
    }
    let ref_methods: Vec<&str> = REF_METHODS.iter().filter(|(n, _)| b.ref_calls.contains(n)).map(|(_, t)| *t).collect();
    text.push_str(&format!("class Ref {{\n  fields f, g\n{}}}\n", ref_methods.iter().map(|m| format!("  {m}\n")).collect::<String>()));
    if used.contains("k") {
        let ms: String = K_METHODS.iter().filter(|(n, _)| b.k_methods.contains(n)).map(|(_, t)| format!("  {t}\n")).collect();
        text.push_str(&format!("capsule class K {{\n  fields n, o, v\n{ms}}}\n"));
    }
    for (i, (body, f)) in bodies.iter().enumerate() {
        let run = if body.is_empty() { "skip".to_string() } else { body.join("; ") };
        if capsule_worker[i] {
            text.push_str(&format!(
                "capsule class W{} {{\n  fields p, l, x, k, n\n  method bind(p, l, x, k) {{ this.p = p; this.l = l; this.x = x; this.k = k; return null }}\n  method run() {{ {run} }}\n}}\n",
                i + 1
            ));
        } else {
            let fields: Vec<&str> = f.iter().map(|v| field_of(v)).collect();
            let fields = if fields.is_empty() { String::new() } else { format!("  fields {}\n", fields.join(", ")) };
            text.push_str(&format!("class W{} {{\n{fields}  method run() {{ {run} }}\n}}\n", i + 1));
        }
    }
    text.push_str(&format!("thread {{ {} }}\n", main.join("; ")));
    // The builder writes only forms it knows to be valid; a failure is its bug.
    parse_generated("java", &text)
}
