//! Text rendering of ground truth for people: per-thread columns with the racing pair
//! marked (design.md, principle 7). `--json` carries the same data.

use std::fmt::Write;

use race_oracles::explore::{Config, Run, Stats, Witness};

/// The bounds line printed with every result.
pub fn bounds(cfg: &Config, racerdx: bool) -> String {
    let mut s = format!("bounds: loop bound K={} (nondeterministic loops), max {} executions, max {} steps per execution", cfg.loop_bound, cfg.max_executions, cfg.max_steps);
    s.push_str(if cfg.eager_local { ", local steps run eagerly" } else { ", every step interleaved" });
    if racerdx {
        let _ = write!(s, ", initial heaps with ≤ {} objects (every aliasing of formals and reached fields)", cfg.heap_bound);
    }
    s
}

/// `12 executions (10 terminated, 2 deadlocked)`.
pub fn stats(s: &Stats) -> String {
    let mut parts = vec![format!("{} terminated", s.terminated)];
    for (n, what) in [(s.stuck, "stuck"), (s.deadlocked, "deadlocked"), (s.infeasible, "infeasible"), (s.truncated, "truncated")] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    let mut out = format!("{} executions ({})", s.executions, parts.join(", "));
    if !s.complete {
        out.push_str(" — INCOMPLETE: a budget was hit; raise --max-executions or --max-steps");
    }
    out
}

/// One run: its counts, the verdict, problems, and the witness.
pub fn run(r: &Run) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", r.setup, stats(&r.executions));
    if r.racy {
        let _ = writeln!(out, "  RACE on {}", r.racy_addresses.join(", "));
    } else {
        let _ = writeln!(out, "  no race");
    }
    if r.hb_racy_addresses != r.racy_addresses {
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

/// A witness as per-thread columns; `>>` marks the racing accesses.
pub fn witness(w: &Witness) -> String {
    let threads = &w.threads;
    let mut out = String::new();
    let _ = writeln!(out, "  witness: race on {} by {}", w.address, w.definition);
    let _ = writeln!(out, "  schedule: {}", if w.schedule.is_empty() { "(initial state)" } else { &w.schedule });
    if !w.initial_heap.is_empty() {
        let _ = writeln!(out, "  initial heap: {}", w.initial_heap.join(", "));
    }
    let ncols = threads.len().max(w.events.iter().map(|e| e.thread + 1).max().unwrap_or(0));
    let cell = |e: &race_oracles::explore::WitnessEvent| format!("{} (line {})", e.text, e.line);
    let mut width = vec![0usize; ncols];
    for (i, t) in threads.iter().enumerate() {
        width[i] = t.chars().count();
    }
    for e in &w.events {
        width[e.thread] = width[e.thread].max(cell(e).chars().count());
    }
    let mut header = String::from("       ");
    for (i, wd) in width.iter().enumerate() {
        let name = threads.get(i).cloned().unwrap_or_else(|| format!("thread {}", i + 1));
        let _ = write!(header, "| {name:<wd$} ");
    }
    let _ = writeln!(out, "  {}", header.trim_end());
    for e in &w.events {
        let mark = if e.racing { ">>" } else { "  " };
        let idx = e.index.map_or_else(|| "·".to_string(), |i| i.to_string());
        let mut row = format!("{mark} {idx:>3} ");
        for (i, wd) in width.iter().enumerate() {
            let text = if i == e.thread { cell(e) } else { String::new() };
            let _ = write!(row, "| {text:<wd$} ");
        }
        let _ = writeln!(out, "  {}", row.trim_end());
    }
    if w.events.iter().any(|e| e.index.is_none()) {
        let _ = writeln!(out, "  (rows marked · are the next steps of both threads, enabled in the same state)");
    }
    out
}
