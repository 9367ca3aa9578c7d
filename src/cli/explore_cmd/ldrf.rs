//! `racefuzz explore FILE` on an `ldrf` program: the L-DRF paper's engines
//! (`race_oracles::ldrf`, docs/spec/ldrf.md §6.1) instead of the machine. The default view is
//! E-STD (§1.2): its states, races (§1.3) and failing asserts, and per relevant location the
//! values the standard semantics has there on Acc(n) (the "truth" of §8). `--ldrf` adds the
//! E-LDRF view (§2): per location, the thread copies on Acc(n) with their version ranks
//! (§2.1). `--cart` adds E-CART's size Σ|a(n)| per mix (§5.1, §5.2). Values are taken mod
//! `ldrf_agree::MODULUS` (§6.2).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use race_oracles::explore::Config;
use race_oracles::lang::Program;
use race_oracles::ldrf::cart::{cart, Mix};
use race_oracles::ldrf::cfg::{Cfg, Edge, Node, Var};
use race_oracles::ldrf::local::{Ldrf, LocalReach, LocalState, Sync};
use race_oracles::ldrf::standard::{reach, Reach};
use race_oracles::theorems::ldrf_agree::MODULUS;

use crate::cli::shared::{capped, emit, print_json, CliError, Exit};

/// At most this many tuples are listed per location; the count follows.
const MAX_TUPLES: usize = 16;

/// Values on Acc(n), each with its version rank for E-LDRF's copies.
type Tuple = Vec<(i64, Option<u32>)>;

/// What `explore` shows of an ldrf program.
pub(super) struct View {
    pub json: bool,
    pub ldrf: bool,
    pub cart: bool,
}

/// Runs the engines the view asks for and prints them; exit 3 if a budget cut any search.
pub(super) fn explore(file: &Path, prog: &Program, bounds: &Config, view: &View) -> Result<Exit, CliError> {
    let cfg = Cfg::of(prog, MODULUS);
    let std = reach(&cfg, bounds);
    let local = view.ldrf.then(|| Ldrf::new(&cfg, Sync::Full).reach(bounds));
    let carts = if view.cart { mixes(&cfg).into_iter().map(|m| (m.name(&cfg), cart(&cfg, &Sync::Full, &m, bounds.max_states))).collect() } else { vec![] };
    let complete = std.cut.is_none() && local.as_ref().is_none_or(|l| l.cut.is_none()) && carts.iter().all(|(_, c)| c.cut.is_none());
    let p = Printer { cfg: &cfg };
    if view.json {
        let mut doc = serde_json::json!({
            "program": file.display().to_string(),
            "dialect": prog.dialect,
            "modulus": MODULUS,
            "max_states": bounds.max_states,
            "complete": complete,
            "standard": p.standard_json(&std),
        });
        if let Some(l) = &local {
            doc["ldrf"] = p.local_json(l);
        }
        if view.cart {
            doc["cart"] = carts.iter().map(|(name, c)| serde_json::json!({ "mix": name, "size": c.size(), "cut": c.cut })).collect();
        }
        print_json(&doc)?;
    } else {
        let mut out = format!("{} (dialect {})\n", file.display(), prog.dialect);
        out += &format!("bounds: values mod {MODULUS}, max {} states (--max-states)\n\n", bounds.max_states);
        out += &p.standard(&std);
        if let Some(l) = &local {
            out += "\n";
            out += &p.local(l);
        }
        if view.cart {
            out += "\nE-CART, the cartesian semantics ⟦P⟧× (spec/ldrf.md §5.1), G full: Σ|a(n)| per mix\n";
            for (name, c) in &carts {
                out += &format!("  {name}: {}{}\n", c.size(), c.cut.as_ref().map_or(String::new(), |m| format!(" (INCOMPLETE: {m})")));
            }
        }
        emit(&out);
    }
    Ok(if complete { Exit::Ok } else { Exit::Inconclusive })
}

/// The mixes `--cart` compares: var, the declared regions (when some region is not a
/// singleton), naive.
fn mixes(cfg: &Cfg) -> Vec<Mix> {
    let mut out = vec![Mix::Var];
    if cfg.regions.iter().any(|r| r.len() > 1) {
        out.push(Mix::Region(cfg.regions.clone()));
    }
    out.push(Mix::Naive);
    out
}

struct Printer<'c> {
    cfg: &'c Cfg,
}

impl Printer<'_> {
    fn names(&self, vars: &[Var]) -> Vec<&str> {
        vars.iter().map(|&x| self.cfg.vars[x.index()].as_str()).collect()
    }

    /// `t1 line 6 (x = y)`, for the instruction `e`.
    fn instr(&self, e: Edge) -> String {
        let edge = self.cfg.edge(e);
        format!("t{} line {} ({})", self.cfg.owner[edge.src.index()] + 1, edge.line.0, edge.text)
    }

    /// The instructions leaving `n`, as text (`assume p != 1 | assume !(p != 1)`).
    fn leaving(&self, n: Node) -> String {
        let texts: Vec<&str> = self.cfg.out[n.index()].iter().map(|&e| self.cfg.edge(e).text.as_str()).collect();
        texts.join(" | ")
    }

    /// `y = 0`, `(x, y) ∈ {(0, 0), (1, 1)}`, `x = 1^2`: a set of tuples over `vars`.
    fn tuples(&self, vars: &[Var], set: &BTreeSet<Tuple>) -> String {
        let names = self.names(vars);
        let lhs = if names.len() == 1 { names[0].to_string() } else { format!("({})", names.join(", ")) };
        let value = |&(v, rank): &(i64, Option<u32>)| rank.map_or(v.to_string(), |r| format!("{v}^{r}"));
        let show = |t: &Tuple| if t.len() == 1 { value(&t[0]) } else { format!("({})", t.iter().map(value).collect::<Vec<_>>().join(", ")) };
        let shown: Vec<String> = set.iter().map(show).collect();
        match shown.as_slice() {
            [one] => format!("{lhs} = {one}"),
            _ => format!("{lhs} ∈ {{{}}}", capped(&shown, MAX_TUPLES)),
        }
    }

    /// The locations with a nonempty Acc(n), by thread and line (a loop's head comes before
    /// its body), then the location itself.
    fn relevant_locations(&self) -> Vec<Node> {
        let mut ns: Vec<Node> = (0..self.cfg.owner.len()).map(Node::new).filter(|&n| !self.cfg.relevant(n).is_empty()).collect();
        ns.sort_by_key(|&n| (self.cfg.owner[n.index()], self.cfg.out[n.index()].first().map(|&e| self.cfg.edge(e).line.0), n));
        ns
    }

    /// Per relevant location: its name, what leaves it, and the tuples; locations never
    /// reached say so.
    fn per_location(&self, at: &BTreeMap<Node, BTreeSet<Tuple>>) -> String {
        let ns = self.relevant_locations();
        let width = ns.iter().map(|&n| self.leaving(n).chars().count()).max().unwrap_or(0);
        let mut out = String::new();
        for n in ns {
            let what = match at.get(&n) {
                Some(set) => self.tuples(&self.cfg.relevant(n), set),
                None => "never reached".into(),
            };
            let leaving = self.leaving(n);
            let pad = width - leaving.chars().count();
            out += &format!("  {:<8} {leaving}{}  {what}\n", self.cfg.node_name(n), " ".repeat(pad));
        }
        out
    }

    /// Per location, the standard states there on Acc(n).
    fn truth(&self, std: &Reach) -> BTreeMap<Node, BTreeSet<Tuple>> {
        let mut at: BTreeMap<Node, BTreeSet<Tuple>> = BTreeMap::new();
        for s in std.states.keys() {
            for &n in &s.pc {
                at.entry(n).or_default().insert(self.cfg.relevant(n).iter().map(|&x| (s.env[x.index()], None)).collect());
            }
        }
        at
    }

    /// Per location, the copies of the threads there on Acc(n), with version ranks.
    fn copies(&self, l: &LocalReach) -> BTreeMap<Node, BTreeSet<Tuple>> {
        let mut at: BTreeMap<Node, BTreeSet<Tuple>> = BTreeMap::new();
        for s in l.states.keys() {
            for (t, &n) in s.pc.iter().enumerate() {
                let theta = &s.theta[t];
                at.entry(n).or_default().insert(self.cfg.relevant(n).iter().map(|&x| (theta[x.index()].0, Some(theta[x.index()].1))).collect());
            }
        }
        at
    }

    fn standard(&self, std: &Reach) -> String {
        let mut out = format!("E-STD, the standard semantics (spec/ldrf.md §1.2): {} states, {} final ({} blocked)\n", std.states.len(), std.finals, std.blocked);
        if let Some(cut) = &std.cut {
            out += &format!("INCOMPLETE: {cut}\n");
        }
        if std.races.is_empty() {
            out += "no race\n";
        }
        for &(e1, e2, x) in &std.races {
            out += &format!("RACE on {}: {} and {}\n", self.cfg.vars[x.index()], self.instr(e1), self.instr(e2));
        }
        if std.failed_asserts.is_empty() {
            out += "no assert fails\n";
        }
        for &e in &std.failed_asserts {
            out += &format!("ASSERT FAILS: {}\n", self.instr(e));
        }
        out += "truth per relevant location (the standard states there, on Acc(n)):\n";
        out + &self.per_location(&self.truth(std))
    }

    fn local(&self, l: &LocalReach) -> String {
        let mut out = format!("E-LDRF, the thread-local semantics (spec/ldrf.md §2), G full: {} states\n", l.states.len());
        if let Some(cut) = &l.cut {
            out += &format!("INCOMPLETE: {cut}\n");
        }
        let edges = |v: &[(Edge, LocalState)]| v.iter().map(|(e, _)| *e).collect::<BTreeSet<Edge>>();
        for e in edges(&l.writer_not_max) {
            out += &format!("WRITER NOT AT MAX (§2.1): {}\n", self.instr(e));
        }
        for e in edges(&l.ambiguous_acquires) {
            out += &format!("AMBIGUOUS IMPORT (Lemma 6): {}\n", self.instr(e));
        }
        out += "thread copies per relevant location (Θ(t) on Acc(n), value^version, versions as dense ranks in the state, §2.1):\n";
        out + &self.per_location(&self.copies(l))
    }

    fn locations_json(&self, at: &BTreeMap<Node, BTreeSet<Tuple>>) -> serde_json::Value {
        let mut rows = vec![];
        for n in self.relevant_locations() {
            let Some(set) = at.get(&n) else { continue };
            let line = self.cfg.out[n.index()].first().map(|&e| self.cfg.edge(e).line.0);
            // A value alone, or `[value, version rank]`.
            let values: Vec<Vec<serde_json::Value>> =
                set.iter().map(|t| t.iter().map(|&(v, rank)| rank.map_or(serde_json::json!(v), |r| serde_json::json!([v, r]))).collect()).collect();
            rows.push(serde_json::json!({
                "location": self.cfg.node_name(n), "thread": self.cfg.owner[n.index()] + 1, "line": line,
                "instruction": self.leaving(n), "vars": self.names(&self.cfg.relevant(n)), "values": values,
            }));
        }
        rows.into()
    }

    fn standard_json(&self, std: &Reach) -> serde_json::Value {
        let line = |e: Edge| self.cfg.edge(e).line.0;
        let races: Vec<serde_json::Value> = std.races.iter().map(|&(a, b, x)| serde_json::json!({ "var": self.cfg.vars[x.index()], "lines": [line(a), line(b)] })).collect();
        let asserts: Vec<serde_json::Value> = std.failed_asserts.iter().map(|&e| serde_json::json!({ "line": line(e), "text": self.cfg.edge(e).text })).collect();
        serde_json::json!({
            "states": std.states.len(), "finals": std.finals, "blocked": std.blocked, "cut": std.cut,
            "racy": !std.races.is_empty(), "races": races, "failed_asserts": asserts, "truth": self.locations_json(&self.truth(std)),
        })
    }

    fn local_json(&self, l: &LocalReach) -> serde_json::Value {
        let lines = |v: &[(Edge, LocalState)]| v.iter().map(|(e, _)| self.cfg.edge(*e).line.0).collect::<BTreeSet<_>>();
        serde_json::json!({
            "states": l.states.len(), "cut": l.cut, "writer_not_max": lines(&l.writer_not_max),
            "ambiguous_acquires": lines(&l.ambiguous_acquires), "copies": self.locations_json(&self.copies(l)),
        })
    }
}
