//! Rendering for people, in one place: ground truth runs, witnesses as per-thread columns
//! with the racing pair marked (docs/design.md, principle 7), and oracle results. The ground
//! truth crate hands over data (structured witnesses, [`OracleResult`]); only this module
//! turns it into text. `--json` carries the same data ([`result_json`], [`witness_json`]).

use std::fmt::Write;

use race_oracles::explore::{Choice, Config, Names, RaceDefinition, Run, Stats, Witness, WitnessEvent};
use race_oracles::machine::{EventKind, LockId};
use race_oracles::theorems::{ItemStatus, OracleResult, Verdict};

/// The bounds line printed with every result.
pub fn bounds(cfg: &Config, racerdx: bool) -> String {
    let mut s = format!("bounds: loop bound K={} (nondeterministic loops), max {} executions, max {} steps per execution", cfg.loop_bound, cfg.max_executions, cfg.max_steps);
    s.push_str(if cfg.eager_local { ", local steps run eagerly" } else { ", every step interleaved" });
    let _ = write!(s, ", {} explorer", cfg.explorer.name());
    if cfg.explorer == race_oracles::explore::ExplorerKind::Stateful {
        let _ = write!(s, " (max {} states)", cfg.max_states);
    }
    if racerdx {
        let _ = write!(s, ", initial heaps with ≤ {} objects (every aliasing of formals and reached fields)", cfg.heap_bound);
    }
    s
}

/// `12 executions (10 terminated, 2 deadlocked), 5 class(es)`, then a warning if incomplete.
pub fn stats(s: &Stats, classes: Option<u64>) -> String {
    let mut parts = vec![format!("{} terminated", s.terminated)];
    for (n, what) in [(s.stuck, "stuck"), (s.deadlocked, "deadlocked"), (s.infeasible, "infeasible"), (s.truncated, "truncated")] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    if s.merged > 0 {
        parts.push(format!("{} merged into explored states", s.merged));
    }
    let mut out = format!("{} executions ({})", s.executions, parts.join(", "));
    if s.states > 0 {
        let _ = write!(out, ", {} distinct states", s.states);
    }
    if let Some(c) = classes {
        let _ = write!(out, ", {c} class(es)");
    }
    if !s.complete {
        // A stateful search (it counts states) can also stop at its state budget.
        let states = if s.states > 0 { "--max-states, " } else { "" };
        let _ = write!(out, " — INCOMPLETE: a budget was hit; raise {states}--max-executions or --max-steps");
    }
    out
}

/// One run: its counts, the verdict, problems, and the witness.
pub fn run(r: &Run) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", r.setup, stats(&r.executions, r.classes));
    if r.racy {
        let _ = writeln!(out, "  RACE on {}", r.racy_addresses.join(", "));
    } else if r.verdict == race_oracles::explore::RaceVerdict::ScExecutionsOnly {
        // docs/spec/atomics.md §3.4: never "no race" when orders weaker than seq_cst are present.
        let _ = writeln!(out, "  no race over SC executions: {} (the program has atomics or fences weaker than seq_cst, whose non-SC executions are not enumerated)", r.verdict);
    } else {
        let _ = writeln!(out, "  no race");
    }
    // Without classes the explorer cut traces short: happens-before races are partial.
    if r.classes.is_some() && r.hb_racy_addresses != r.racy_addresses {
        let _ = writeln!(out, "  happens-before races on: {}", if r.hb_racy_addresses.is_empty() { "none".into() } else { r.hb_racy_addresses.join(", ") });
    }
    for p in &r.problems {
        let _ = writeln!(out, "  {p}");
    }
    if let Some(w) = &r.witness {
        out.push_str(&witness(w));
    }
    out
}

/// What an event does, in words (`W b.f`, `acq m`, `fork T2`).
pub fn event_text(names: &Names, k: EventKind) -> String {
    match k {
        EventKind::Access(kind, a) => format!("{} {}", kind.letter(), names.addr(a)),
        EventKind::Acquire(LockId::Global) => "lock".into(),
        EventKind::Release(LockId::Global) => "unlock".into(),
        EventKind::Acquire(l) => format!("acq {}", names.lock(l)),
        EventKind::Release(l) => format!("rel {}", names.lock(l)),
        EventKind::Fork(u) => format!("fork {}", names.thread(u)),
        EventKind::Join(u) => format!("join {}", names.thread(u)),
        EventKind::Check(kind, a) => format!("check {} {}", kind.letter(), names.addr(a)),
        EventKind::Enter(k) => format!("enter {}", names.object(k)),
        EventKind::Exit(k) => format!("exit {}", names.object(k)),
        EventKind::Atomic(kind, a) => format!("atomic {} {}", kind.describe(), names.addr(a)),
        EventKind::Fence(o) => format!("fence({o})"),
    }
}

/// How a witness names its race definition.
pub fn definition_text(d: RaceDefinition) -> &'static str {
    match d {
        RaceDefinition::HappensBeforeFirstRace => "happens-before (first race)",
        RaceDefinition::HappensBefore => "happens-before",
        RaceDefinition::Def36 => "Def. 3.6 (both accesses enabled in the same state)",
        RaceDefinition::Def36FromLemmaB7 => "Def. 3.6 from the Lemma B.7 state",
        RaceDefinition::Def36BySearch => "Def. 3.6, found by search",
    }
}

/// A witness as per-thread columns; `>>` marks the racing accesses.
pub fn witness(w: &Witness) -> String {
    format!("  {}\n{}", witness_line(w), witness_rows(w))
}

/// The first line of a witness: the race it shows, or that its execution has none (an
/// oracle's counterexample trace need not race: a detector's false alarm on it).
pub fn witness_line(w: &Witness) -> String {
    match w.address {
        Some(_) => format!("witness: race on {} by {}", w.address_name(), definition_text(w.definition)),
        None => "witness: an execution with no data race".into(),
    }
}

/// A witness without its first line: schedule, initial heap and the columns.
pub fn witness_rows(w: &Witness) -> String {
    let threads = &w.threads;
    let mut out = String::new();
    let schedule = w.schedule.to_string();
    let _ = writeln!(out, "  schedule: {}", if schedule.is_empty() { "(initial state)" } else { &schedule });
    if !w.initial_heap.is_empty() {
        let _ = writeln!(out, "  initial heap: {}", w.initial_heap.join(", "));
    }
    let col = |e: &WitnessEvent| e.thread.0 as usize;
    let ncols = threads.len().max(w.events.iter().map(|e| col(e) + 1).max().unwrap_or(0));
    let cell = |e: &WitnessEvent| format!("{} (line {})", event_text(&w.names, e.kind), e.line);
    let mut width = vec![0usize; ncols];
    for (i, t) in threads.iter().enumerate() {
        width[i] = t.chars().count();
    }
    for e in &w.events {
        width[col(e)] = width[col(e)].max(cell(e).chars().count());
    }
    let mut header = String::from("       ");
    for (i, wd) in width.iter().enumerate() {
        let name = threads.get(i).cloned().unwrap_or_else(|| format!("thread {}", i + 1));
        let _ = write!(header, "| {name:<wd$} ");
    }
    let _ = writeln!(out, "  {}", header.trim_end());
    for e in &w.events {
        let mark = if e.racing { ">>" } else { "  " };
        let idx = e.index.map_or_else(|| "·".to_string(), |i| i.0.to_string());
        let mut row = format!("{mark} {idx:>3} ");
        for (i, wd) in width.iter().enumerate() {
            let text = if i == col(e) { cell(e) } else { String::new() };
            let _ = write!(row, "| {text:<wd$} ");
        }
        let _ = writeln!(out, "  {}", row.trim_end());
    }
    if w.events.iter().any(|e| e.index.is_none()) {
        let _ = writeln!(out, "  (rows marked · are the next steps of both threads, enabled in the same state)");
    }
    out
}

/// A witness for machines: the structured data, plus each event's text and the address's
/// name, so that a consumer need not resolve ids.
pub fn witness_json(w: &Witness) -> serde_json::Value {
    let events: Vec<serde_json::Value> = w
        .events
        .iter()
        .map(|e| serde_json::json!({ "index": e.index.map(|i| i.0), "thread": e.thread.0, "line": e.line, "text": event_text(&w.names, e.kind), "racing": e.racing, "kind": e.kind }))
        .collect();
    let mut out = serde_json::json!({
        "schedule": w.schedule.to_string(),
        "choices": w.schedule.0.iter().map(choice_json).collect::<Vec<_>>(),
        "threads": w.threads,
        "initial_heap": w.initial_heap,
        "events": events,
        "address": w.address.map(|_| w.address_name()),
        "definition": w.definition,
        "names": w.names,
    });
    if let Some(view) = &w.sut {
        out["sut"] = serde_json::json!(view);
    }
    out
}

/// One choice of a schedule as data: `{"thread": 2, "alt": 0}` (1-based, as in the schedule
/// text) or `{"heap": 1}`.
fn choice_json(c: &Choice) -> serde_json::Value {
    match c {
        Choice::Step { thread, alt } => serde_json::json!({ "thread": thread.0 + 1, "alt": alt }),
        Choice::Heap(k) => serde_json::json!({ "heap": k }),
    }
}

/// `PASS`, `FAIL`, `INCONCLUSIVE`.
pub fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "PASS",
        Verdict::Fail => "FAIL",
        Verdict::Inconclusive => "INCONCLUSIVE",
    }
}

/// An oracle result for a person at a terminal (`racefuzz check`): every item with its
/// explanation and its witness drawn in columns, then the context of a failure.
pub fn result_full(r: &OracleResult, program: &str) -> String {
    let mut out = format!("{} on {program} with {}: {} ({} {}(s))\n", r.oracle, r.sut, verdict_text(r.verdict), r.items.len(), r.item_kind);
    if let Some(n) = &r.note {
        let _ = writeln!(out, "  {n}");
    }
    for (i, item) in r.items.iter().enumerate() {
        let _ = writeln!(out, "\n{} {}: {}", r.item_kind, i + 1, item.subject);
        for l in &item.explanation {
            let _ = writeln!(out, "  {l}");
        }
        if let Some(w) = &item.witness {
            out.push_str(&witness(w));
        }
    }
    if r.verdict == Verdict::Fail && !r.context.is_empty() {
        out.push_str("\ncontext:\n");
        for l in &r.context {
            let _ = writeln!(out, "  {l}");
        }
    }
    out
}

/// An oracle result in brief (a finding's header, a regression snapshot, `shrink`): every
/// item with its explanation, witnesses as schedules only.
pub fn result_brief(r: &OracleResult) -> String {
    let mut out = format!("{} with {}: {}\n", r.oracle, r.sut, r.verdict);
    if let Some(n) = &r.note {
        let _ = writeln!(out, "{n}");
    }
    for item in &r.items {
        let mark = match item.status {
            ItemStatus::Holds => "",
            ItemStatus::Violated => " [violated]",
            ItemStatus::Unknown => " [unknown]",
        };
        let _ = writeln!(out, "{}{mark}", item.subject);
        for l in &item.explanation {
            let _ = writeln!(out, "  {l}");
        }
        if let Some(w) = &item.witness {
            let _ = writeln!(out, "  {}; schedule {}", witness_line(w), w.schedule);
        }
    }
    if r.verdict == Verdict::Fail {
        for l in &r.context {
            let _ = writeln!(out, "{l}");
        }
    }
    out
}

/// An oracle result for machines.
pub fn result_json(r: &OracleResult, program: &str) -> serde_json::Value {
    let items: Vec<serde_json::Value> = r
        .items
        .iter()
        .map(|i| serde_json::json!({ "subject": i.subject, "status": i.status, "explanation": i.explanation, "witness": i.witness.as_ref().map(witness_json) }))
        .collect();
    serde_json::json!({
        "oracle": r.oracle, "program": program, "sut": r.sut, "verdict": r.verdict, "item_kind": r.item_kind,
        "items": items, "note": r.note, "context": r.context,
    })
}

/// An access filter on one execution (`racefuzz analyze escape|capsule`): one row per event
/// (its decision, the event, the filter's reason; `*` marks α's first race), then the
/// accesses elided, the first races and racy locations of α and β, and the detector's
/// first report on β.
pub fn filter_table(t: &race_oracles::theorems::trace_precision::FilterTable) -> String {
    use std::fmt::Write as _;
    let mut out = format!("execution: schedule {}\n", t.schedule);
    for r in &t.rows {
        let mark = if r.first_race { "*" } else { " " };
        let violation = r.violation.as_ref().map(|v| format!(" [violation: {v}]")).unwrap_or_default();
        let _ = writeln!(out, "{mark} {:<9} {}{violation}\n              {}", format!("{:?}", r.decision).to_lowercase(), r.event, r.why);
    }
    let share = if t.accesses.0 == 0 { 0.0 } else { 100.0 * t.accesses.1 as f64 / t.accesses.0 as f64 };
    let _ = writeln!(out, "{} access(es), {} elided ({share:.0}%); * = part of α's first race", t.accesses.0, t.accesses.1);
    let none = || "none".to_string();
    let locs = |l: &[String]| if l.is_empty() { none() } else { l.join(", ") };
    let _ = writeln!(out, "α races on {}; first race: {}", locs(&t.racy.0), t.first_race.clone().unwrap_or_else(none));
    let _ = writeln!(out, "β races on {}; first race: {}", locs(&t.racy.1), t.first_race_beta.clone().unwrap_or_else(none));
    let _ = writeln!(out, "{} on β first reports: {}", t.detector, t.detector_first.clone().unwrap_or_else(none));
    out
}

/// Naik-Aiken's results on one program (`racefuzz analyze naikaiken`): loops and sites, Γ
/// before each point (line, statement, environment), K, K⁺, the DR_K facts, then every
/// conflicting pair with its verdict (`pruned by STAGE: why` or `reported`; `unlikely`
/// marks PLDI'06's filter).
pub fn naik_aiken(labels: &race_oracles::lang::labels::Labels<'_>, t: &race_oracles::theorems::Typing) -> String {
    use race_oracles::theorems::must_not_alias::AbsEnv;
    let mut out = String::new();
    let _ = writeln!(out, "loops: {}", if labels.loops.is_empty() { "none".into() } else { labels.loops.join(", ") });
    let _ = writeln!(out, "sites: {}", if labels.sites.is_empty() { "none".into() } else { labels.sites.join(", ") });
    let env = |g: &AbsEnv| {
        let vars: Vec<String> = g.iter().map(|(x, ty)| format!("{x} ↦ {ty}")).collect();
        format!("[{}]", vars.join(", "))
    };
    out.push_str("Γ before each point:\n");
    for (i, p) in labels.points.iter().enumerate() {
        let text = race_oracles::lang::print::stmt_to_string(p.stmt);
        let head = text.lines().next().unwrap_or_default();
        let g = t.envs.get(i).map(env).unwrap_or_else(|| "(none)".into());
        let _ = writeln!(out, "  p{i:<3} line {:<3} {head}\n         {g}", p.stmt.line.0);
    }
    for (name, set) in [("K", &t.effects), ("K⁺", &t.closure)] {
        let _ = writeln!(out, "{name} ({}):", set.len());
        for (a, b) in set {
            let _ = writeln!(out, "  {a} |>= {b}");
        }
    }
    let _ = writeln!(out, "DR_K facts ({}):", t.disjoint.len());
    for (h, big_h) in &t.disjoint {
        let _ = writeln!(out, "  {h} ∈ DR_K({{{}}})", big_h.iter().cloned().collect::<Vec<_>>().join(", "));
    }
    let pairs = labels.conflicting_pairs();
    let _ = writeln!(out, "pairs ({}, {} pruned, {} reported):", pairs.len(), t.pruned.len(), pairs.len().saturating_sub(t.pruned.len()));
    for (a, b) in pairs {
        let side = |l| labels.access(l).map_or_else(|| "?".to_string(), ToString::to_string);
        let verdict = match t.pruned.iter().find(|p| p.pair == (a, b)) {
            Some(p) => format!("pruned by {}: {}", p.stage.name(), p.why),
            None => "reported".into(),
        };
        let unlikely = if t.unlikely.contains(&(a, b)) { " [unlikely]" } else { "" };
        let _ = writeln!(out, "  {} ∥ {}: {verdict}{unlikely}", side(a), side(b));
    }
    out
}

/// The sync-CFG analyses' facts on one program (`racefuzz analyze ldrf`): per location
/// with relevant variables, in location order, each domain's claim projected to Acc(n);
/// then each domain's proved asserts. Names shared by two locations get `#2`, `#3`.
pub fn sync_cfg_facts(cfg: &race_oracles::ldrf::cfg::Cfg, facts: &[race_oracles::theorems::Facts]) -> String {
    let mut out = String::new();
    for (n, name) in sync_cfg_locations(cfg) {
        let vars = cfg.relevant(n);
        let names: Vec<&str> = vars.iter().map(|&x| cfg.vars[x.index()].as_str()).collect();
        let claims: Vec<String> = facts.iter().map(|f| format!("{} {}", f.domain, f.show(cfg, n, &vars))).collect();
        let _ = writeln!(out, "{name} ({}): {}", names.join(", "), claims.join(" · "));
    }
    let _ = writeln!(out, "proved asserts:");
    for f in facts {
        let lines: Vec<String> = f.proved.iter().map(|&e| format!("line {} ({})", cfg.edge(e).line.0, cfg.edge(e).text)).collect();
        let _ = writeln!(out, "  {}: {}", f.domain, if lines.is_empty() { "none".to_string() } else { lines.join(", ") });
    }
    out
}

/// The locations with relevant variables, in order, with unique readable names.
pub fn sync_cfg_locations(cfg: &race_oracles::ldrf::cfg::Cfg) -> Vec<(race_oracles::ldrf::cfg::Node, String)> {
    let mut seen: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    let mut out = vec![];
    for n in 0..cfg.owner.len() {
        let Ok(n) = race_oracles::ldrf::cfg::Node::try_from(n) else { break };
        if cfg.relevant(n).is_empty() {
            continue;
        }
        let name = cfg.node_name(n);
        let k = seen.entry(name.clone()).or_default();
        *k += 1;
        out.push((n, if *k == 1 { name } else { format!("{name}#{k}") }));
    }
    out
}

/// A rule-coverage report (`racefuzz gen --stats`): per SUT, each case of its rules with the
/// share of programs on which it fired; a case below the floor is flagged unless its table
/// says why it is rare.
pub fn rule_coverage(rows: &[race_oracles::theorems::rules::Row], tables: &[&race_oracles::theorems::rules::Rules]) -> String {
    use race_oracles::theorems::rules::FLOOR_PERCENT;
    let mut s = String::new();
    if tables.is_empty() {
        s.push_str("rule coverage: this SUT declares no rule cases\n");
        return s;
    }
    let _ = writeln!(s, "rule coverage: programs on which each case of the SUT's rules fired, counted from its behaviour (floor {FLOOR_PERCENT}%)");
    for t in tables {
        let _ = writeln!(s, "  {} ({})", t.sut, t.spec);
        let width = t.cases.iter().map(|c| c.name.chars().count()).max().unwrap_or(0);
        for r in rows.iter().filter(|r| r.sut == t.sut) {
            let flag = match r.case.rare {
                _ if r.percent >= FLOOR_PERCENT => String::new(),
                Some(why) => format!("  rare: {why}"),
                None => "  BELOW FLOOR".into(),
            };
            let _ = writeln!(s, "    {:<width$} {:>5.1}%  {}{flag}", r.case.name, r.percent, r.case.spec);
        }
    }
    let below = rows.iter().filter(|r| r.below_floor()).count();
    if below > 0 {
        let _ = writeln!(s, "{below} case(s) below the floor without a reason");
    }
    s
}
