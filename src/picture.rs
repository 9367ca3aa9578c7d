//! Witnesses as pictures: a self-contained HTML page with an SVG drawing, Graphviz DOT,
//! and the exchange formats of other viewers (a ShiViz log, SARIF).
//!
//! The drawing has one lane per thread and one row per event, in trace order, each event
//! with its `.race` line. The happens-before edges that cross threads are drawn as arrows
//! (docs/design.md, "happens-before": release → the next acquire of the same lock by another
//! thread, fork → the child's first event, the child's last event → the join; program order
//! is the lane itself), and the racing accesses are highlighted and joined by a dashed line
//! (the race). The page adds the schedule (`racefuzz replay --schedule`), the program with
//! the lines of the racing accesses marked, and, for a failing oracle, the verdict with
//! the ground truth's and the SUT's sides (the item's explanation). No script, no network:
//! a page is one file that any browser shows as it is.

use std::collections::BTreeSet;
use std::fmt::Write;

use race_oracles::explore::{Witness, WitnessEvent};
use race_oracles::lang::AccessKind;
use race_oracles::machine::EventKind;

use crate::render::{event_text, witness_line};

/// A happens-before edge between two rows of a witness that crosses threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The earlier row.
    pub from: usize,
    /// The later row.
    pub to: usize,
    /// `rel → acq m`, `fork`, `join`.
    pub label: String,
}

/// The cross-thread happens-before edges of `w`'s rows (see the module docs).
pub fn edges(w: &Witness) -> Vec<Edge> {
    let ev = &w.events;
    let mut out = vec![];
    for (i, e) in ev.iter().enumerate() {
        match e.kind {
            EventKind::Release(l) => {
                let next = ev.iter().enumerate().skip(i + 1).find(|(_, f)| matches!(f.kind, EventKind::Acquire(m) if m == l));
                if let Some((j, f)) = next.filter(|(_, f)| f.thread != e.thread) {
                    out.push(Edge { from: i, to: j, label: format!("{} → {}", event_text(&w.names, e.kind), event_text(&w.names, f.kind)) });
                }
            }
            EventKind::Fork(t) => {
                if let Some(j) = ev.iter().position(|f| f.thread == t) {
                    out.push(Edge { from: i, to: j, label: "fork".into() });
                }
            }
            EventKind::Join(t) => {
                if let Some(j) = ev[..i].iter().rposition(|f| f.thread == t) {
                    out.push(Edge { from: j, to: i, label: "join".into() });
                }
            }
            _ => {}
        }
    }
    out
}

/// A lane's width, and its box's (the rest is the gap the edges cross).
/// The pairs of marked (racing) rows to draw a race between: each marked access with the
/// latest earlier marked access of another thread to the same address, one of the two a
/// write. (The witness marks accesses, not pairs; these are the pairs they make.)
pub fn race_pairs(w: &Witness) -> Vec<(usize, usize)> {
    let access = |e: &WitnessEvent| match e.kind {
        EventKind::Access(k, a) => Some((k, a)),
        _ => None,
    };
    let mut out = vec![];
    for (j, b) in w.events.iter().enumerate().filter(|(_, e)| e.racing) {
        let Some((kb, ab)) = access(b) else { continue };
        let partner = w.events[..j]
            .iter()
            .enumerate()
            .rev()
            .find(|(_, a)| a.racing && a.thread != b.thread && access(a).is_some_and(|(ka, aa)| aa == ab && (ka == AccessKind::Write || kb == AccessKind::Write)));
        out.extend(partner.map(|(i, _)| (i, j)));
    }
    out
}

fn access_name(w: &Witness, i: usize) -> String {
    match w.events[i].kind {
        EventKind::Access(_, a) => w.names.addr(a),
        _ => w.address_name(),
    }
}

const LANE: usize = 270;
const BOX: usize = 200;
const ROW: usize = 30;
const TOP: usize = 36;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn lanes(w: &Witness) -> usize {
    w.threads.len().max(w.events.iter().map(|e| e.thread.0 as usize + 1).max().unwrap_or(0))
}

fn label(w: &Witness, e: &WitnessEvent) -> String {
    format!("{} (line {})", event_text(&w.names, e.kind), e.line)
}

/// What the system under test did with one row's event ([`race_oracles::explore::SutView`]).
#[derive(Default)]
struct Marks {
    /// The detector that reported a race when the event came, if one did.
    reported: Option<String>,
    elided: bool,
    violation: bool,
    check: bool,
}

impl Marks {
    fn of(w: &Witness, e: &WitnessEvent) -> Marks {
        let (Some(view), Some(i)) = (&w.sut, e.index) else { return Marks::default() };
        Marks {
            reported: view.detector.as_ref().filter(|d| d.reported_events.contains(&i)).map(|d| d.name.clone()),
            elided: view.filter.as_ref().is_some_and(|f| f.elided.contains(&i)),
            violation: view.filter.as_ref().is_some_and(|f| f.violations.contains(&i)),
            check: view.checks.iter().any(|c| c.check == i),
        }
    }
}

/// The SVG drawing of `w` (see the module docs). Elements carry classes a test or a style
/// sheet can find: `lane`, `event` (and `racing`, and what the SUT did with it: `elided`,
/// `violation`, `check`, a `reported` flag), `hb`, `race`.
pub fn svg(w: &Witness) -> String {
    let n = lanes(w);
    let (width, height) = (n * LANE + 20, TOP + w.events.len() * ROW + 20);
    let mut s = String::new();
    let _ = writeln!(s, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="12">"#);
    s.push_str(r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#2557a7"/></marker></defs>"##);
    s.push('\n');
    for t in 0..n {
        let x = 10 + t * LANE;
        let name = w.threads.get(t).cloned().unwrap_or_else(|| format!("T{}", t + 1));
        let _ = writeln!(
            s,
            r##"<g class="lane" data-thread="{}"><rect x="{x}" y="4" width="{}" height="{}" fill="#f6f6f6" stroke="#ccc"/><text x="{}" y="24" text-anchor="middle" font-weight="bold">{}</text></g>"##,
            t + 1,
            BOX + 12,
            height - 8,
            x + (BOX + 12) / 2,
            esc(&name)
        );
    }
    // An edge leaves a box at its side facing the other box's lane, so it crosses no text.
    let ends = |a: usize, b: usize| {
        let (ta, tb) = (w.events[a].thread.0 as usize, w.events[b].thread.0 as usize);
        let left = |t: usize| 16 + t * LANE;
        let right = |t: usize| 16 + t * LANE + BOX;
        let (xa, xb) = if ta <= tb { (right(ta), left(tb)) } else { (left(ta), right(tb)) };
        ((xa, TOP + a * ROW + ROW / 2), (xb, TOP + b * ROW + ROW / 2))
    };
    for (i, e) in w.events.iter().enumerate() {
        let x = 16 + e.thread.0 as usize * LANE;
        let y = TOP + i * ROW + 3;
        let marks = Marks::of(w, e);
        let (mut class, mut fill, mut stroke) = if e.racing { ("event racing".to_string(), "#ffd6d6", "#c00") } else { ("event".to_string(), "#ffffff", "#888") };
        if marks.elided {
            class.push_str(" elided");
            (fill, stroke) = ("#e4e4e4", "#999");
        }
        if marks.violation {
            class.push_str(" violation");
            stroke = "#d97706";
        }
        if marks.check {
            class.push_str(" check");
            stroke = "#15803d";
        }
        let dash = if marks.elided { r#" stroke-dasharray="4 3""# } else { "" };
        let idx = e.index.map_or_else(|| "·".to_string(), |k| k.0.to_string());
        let _ = write!(
            s,
            r#"<g class="{class}" data-index="{idx}" data-line="{}"><rect x="{x}" y="{y}" width="{}" height="{}" rx="4" fill="{fill}" stroke="{stroke}"{dash}/><text x="{}" y="{}">{idx}: {}</text>"#,
            e.line,
            BOX,
            ROW - 6,
            x + 6,
            y + 16,
            esc(&label(w, e))
        );
        if let Some(detector) = &marks.reported {
            // A flag beside the box: the detector reported a race when this event came.
            let _ = write!(
                s,
                r##"<g class="reported"><title>reported by {}</title><circle cx="{}" cy="{}" r="7" fill="#7c3aed"/><text x="{}" y="{}" fill="#fff" text-anchor="middle" font-weight="bold">!</text></g>"##,
                esc(detector),
                x + BOX + 11,
                y + 12,
                x + BOX + 11,
                y + 16
            );
        }
        s.push_str("</g>\n");
    }
    for edge in edges(w) {
        let ((x1, y1), (x2, y2)) = ends(edge.from, edge.to);
        let _ = writeln!(
            s,
            r##"<line class="hb" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#2557a7" stroke-width="1.5" marker-end="url(#arrow)"><title>{}</title></line>"##,
            esc(&edge.label)
        );
    }
    for (i, j) in race_pairs(w) {
        let ((x1, y1), (x2, y2)) = ends(i, j);
        let _ = writeln!(
            s,
            r##"<line class="race" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#c00" stroke-width="2" stroke-dasharray="6 4"><title>race on {}</title></line>"##,
            esc(&access_name(w, j))
        );
    }
    s.push_str("</svg>\n");
    s
}

/// A self-contained HTML page for `w`: `title`, the drawing, the schedule, `program` (its
/// text) with the racing lines marked, and `verdict` (an oracle's lines: the SUT's answer
/// beside the ground truth's), if any.
pub fn html(title: &str, w: &Witness, program: &str, verdict: &[String]) -> String {
    let marked: BTreeSet<u32> = w.events.iter().filter(|e| e.racing).map(|e| e.line).collect();
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{t}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; color: #222; }}
pre {{ background: #f6f6f6; padding: .6em; white-space: pre-wrap; }}
.racing-line {{ background: #ffd6d6; }}
.verdict {{ border-left: 4px solid #c00; padding-left: .8em; }}
.legend span {{ margin-right: 1.5em; }}
.sut th {{ text-align: left; font-weight: normal; padding-right: 1em; }}
.sut tr.differs td {{ color: #c00; font-weight: bold; }}
</style>
</head>
<body>
<h1>{t}</h1>
"#,
        t = esc(title)
    );
    if !verdict.is_empty() {
        s.push_str("<section class=\"verdict\" id=\"verdict\">\n<h2>Verdict</h2>\n<pre>");
        for l in verdict {
            let _ = writeln!(s, "{}", esc(l));
        }
        s.push_str("</pre>\n</section>\n");
    }
    s.push_str(&sut_panel(w));
    let schedule = w.schedule.to_string();
    let _ = writeln!(s, "<section id=\"witness\">\n<h2>Witness</h2>\n<p>{}</p>", esc(&witness_line(w).replace("witness: ", "")));
    let _ = writeln!(s, "<p>schedule <code>{}</code> (<code>racefuzz replay FILE --schedule {}</code>)</p>", esc(&schedule), esc(&schedule));
    if !w.initial_heap.is_empty() {
        let _ = writeln!(s, "<p>initial heap: {}</p>", esc(&w.initial_heap.join(", ")));
    }
    s.push_str("<p class=\"legend\"><span>lanes: threads, top to bottom in trace order</span><span style=\"color:#2557a7\">→ happens-before across threads</span><span style=\"color:#c00\">- - the race</span>");
    if let Some(view) = &w.sut {
        if view.detector.as_ref().is_some_and(|d| !d.reported_events.is_empty()) {
            s.push_str("<span style=\"color:#7c3aed\">(!) the detector reported a race here</span>");
        }
        if view.filter.as_ref().is_some_and(|f| !f.elided.is_empty()) {
            s.push_str("<span style=\"color:#777\">dashed grey: elided by the filter</span>");
        }
        if view.filter.as_ref().is_some_and(|f| !f.violations.is_empty()) {
            s.push_str("<span style=\"color:#d97706\">orange: a capsule violation</span>");
        }
        if !view.checks.is_empty() {
            s.push_str("<span style=\"color:#15803d\">green: a check</span>");
        }
    }
    s.push_str("</p>\n");
    s.push_str(&svg(w));
    s.push_str("</section>\n");
    if !program.is_empty() {
        s.push_str("<section id=\"program\">\n<h2>Program</h2>\n<pre>");
        for (i, l) in program.lines().enumerate() {
            let n = i as u32 + 1;
            let text = format!("{n:>3}  {}", esc(l));
            if marked.contains(&n) {
                let _ = writeln!(s, "<span class=\"racing-line\">{text}</span>");
            } else {
                let _ = writeln!(s, "{text}");
            }
        }
        s.push_str("</pre>\n</section>\n");
    }
    s.push_str("</body>\n</html>\n");
    s
}

/// The event of `w` with trace index `i`, for a list: `7: W o.g (line 19) by T2`.
fn event_item(w: &Witness, i: race_oracles::machine::EventIdx) -> String {
    match w.events.iter().find(|e| e.index == Some(i)) {
        Some(e) => format!("{}: {} by {}", i.0, label(w, e), w.threads.get(e.thread.0 as usize).map_or_else(|| format!("T{}", e.thread.0 + 1), |t| t.clone())),
        None => format!("event {} (not in the witness)", i.0),
    }
}

/// A list of locations (`, ` between them) or events (`; `), `none` if empty.
fn list(items: &[String]) -> String {
    let sep = if items.iter().any(|i| i.contains(' ')) { "; " } else { ", " };
    if items.is_empty() {
        "none".into()
    } else {
        esc(&items.join(sep))
    }
}

/// The page's panel on what the system under test did on this execution ([`race_oracles::explore::SutView`]): a
/// detector's reports against the racy locations (what it missed, what it invented), a
/// filter's elided events and violations, a placer's checks with the accesses each covers.
/// Empty when the witness has no SUT's view.
fn sut_panel(w: &Witness) -> String {
    let Some(view) = &w.sut else { return String::new() };
    let mut s = String::from("<section class=\"sut\" id=\"sut\">\n<h2>What the system under test did on this execution</h2>\n");
    if let Some(d) = &view.detector {
        let own = |v: Vec<&str>| v.into_iter().map(str::to_string).collect::<Vec<_>>();
        let _ = writeln!(s, "<h3>Detector: {}</h3>\n<p>held to: {}</p>\n<table class=\"detector\">", esc(&d.name), esc(&d.claim));
        let rows = [
            ("racy", "racy locations (ground truth)", d.racy.clone()),
            ("reported", "reported locations", d.reported.clone()),
            ("missed", "missed (racy, not reported)", own(d.missed())),
            ("invented", "invented (reported, race-free)", own(d.invented())),
        ];
        for (class, what, items) in rows {
            // Whether a difference breaks the claim is the verdict's to say (a first-race
            // claim allows later races to go unreported): here it is only marked.
            let bad = if matches!(class, "missed" | "invented") && !items.is_empty() { " differs" } else { "" };
            let _ = writeln!(s, "<tr class=\"{class}{bad}\"><th>{what}</th><td>{}</td></tr>", list(&items));
        }
        let events: Vec<String> = d.reported_events.iter().map(|&i| event_item(w, i)).collect();
        let _ = writeln!(s, "<tr class=\"reported-events\"><th>reported when these events came</th><td>{}</td></tr>\n</table>", list(&events));
    }
    if let Some(f) = &view.filter {
        let _ = writeln!(s, "<h3>Filter: {}</h3>\n<table class=\"filter\">", esc(&f.name));
        let elided: Vec<String> = f.elided.iter().map(|&i| event_item(w, i)).collect();
        let violations: Vec<String> = f.violations.iter().map(|&i| event_item(w, i)).collect();
        let _ = writeln!(s, "<tr class=\"elided\"><th>elided (the detector never saw them)</th><td>{}</td></tr>", list(&elided));
        let _ = writeln!(s, "<tr class=\"violations\"><th>capsule violations (kept, reported)</th><td>{}</td></tr>", list(&violations));
        s.push_str("<tr><th>kept</th><td>every other event</td></tr>\n</table>\n");
    }
    if !view.checks.is_empty() {
        s.push_str("<h3>Checks of the placed program</h3>\n<table class=\"checks\">\n<tr><th>check</th><th>covers</th></tr>\n");
        for c in &view.checks {
            let covers: Vec<String> = c.covers.iter().map(|&i| event_item(w, i)).collect();
            let _ = writeln!(s, "<tr class=\"check\"><td>{}</td><td>{}</td></tr>", esc(&event_item(w, c.check)), list(&covers));
        }
        let covered: BTreeSet<_> = view.checks.iter().flat_map(|c| c.covers.iter().copied()).collect();
        let uncovered: Vec<String> =
            w.events.iter().filter(|e| matches!(e.kind, EventKind::Access(..))).filter_map(|e| e.index).filter(|i| !covered.contains(i)).map(|i| event_item(w, i)).collect();
        let _ = writeln!(
            s,
            "<tr class=\"uncovered{}\"><th>accesses no check covers</th><td>{}</td></tr>\n</table>",
            if uncovered.is_empty() { "" } else { " differs" },
            list(&uncovered)
        );
    }
    s.push_str("</section>\n");
    s
}

/// The verdict lines a page shows for an oracle's result: the result in brief, every item
/// with its explanation (`render::result_brief`), as a finding's header has it.
pub fn verdict_lines(r: &race_oracles::theorems::OracleResult) -> Vec<String> {
    crate::render::result_brief(r).lines().map(str::to_string).collect()
}

/// `w` in Graphviz DOT: a cluster per thread with its events in program order, the
/// happens-before edges across threads, and the race as a dashed red edge.
pub fn dot(w: &Witness) -> String {
    let mut s = String::from("digraph witness {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    for t in 0..lanes(w) {
        let name = w.threads.get(t).cloned().unwrap_or_else(|| format!("T{}", t + 1));
        let _ = writeln!(s, "  subgraph cluster_{t} {{\n    label=\"{}\";", name.replace('"', "'"));
        let rows: Vec<usize> = w.events.iter().enumerate().filter(|(_, e)| e.thread.0 as usize == t).map(|(i, _)| i).collect();
        for &i in &rows {
            let e = &w.events[i];
            let style = if e.racing { ", style=filled, fillcolor=\"#ffd6d6\", color=\"#cc0000\"" } else { "" };
            let _ = writeln!(s, "    e{i} [label=\"{}\"{style}];", label(w, e).replace('"', "'"));
        }
        for pair in rows.windows(2) {
            let _ = writeln!(s, "    e{} -> e{} [color=gray];", pair[0], pair[1]);
        }
        s.push_str("  }\n");
    }
    for edge in edges(w) {
        let _ = writeln!(s, "  e{} -> e{} [color=\"#2557a7\", label=\"{}\"];", edge.from, edge.to, edge.label.replace('"', "'"));
    }
    for (i, j) in race_pairs(w) {
        let _ = writeln!(s, "  e{i} -> e{j} [style=dashed, color=\"#cc0000\", dir=none, constraint=false, label=\"race\"];");
    }
    s.push_str("}\n");
    s
}

/// ShiViz's default parser (its `js/shiviz.js`): an event's line, then its host and clock.
pub const SHIVIZ_PARSER: &str = r"(?<event>.*)\n(?<host>\S*) (?<clock>{.*})";

/// `w` as a ShiViz log: for each event, a line with the event, then a line
/// `THREAD {"THREAD":n, …}` with its vector clock (happens-before: program order and the
/// cross-thread [`edges`]). The file starts as ShiViz wants an uploaded log to: the parser
/// ([`SHIVIZ_PARSER`], its default, so the log pasted without these lines parses too), then
/// an empty line (one execution, no delimiter).
pub fn shiviz(w: &Witness) -> String {
    let edges = edges(w);
    let name = |t: usize| w.threads.get(t).and_then(|n| n.split_whitespace().next()).map_or_else(|| format!("T{}", t + 1), str::to_string);
    let mut clocks: Vec<std::collections::BTreeMap<String, u64>> = vec![Default::default(); lanes(w)];
    let mut at: Vec<std::collections::BTreeMap<String, u64>> = Vec::with_capacity(w.events.len());
    let mut s = format!("{SHIVIZ_PARSER}\n\n");
    for (i, e) in w.events.iter().enumerate() {
        let t = e.thread.0 as usize;
        for edge in edges.iter().filter(|x| x.to == i) {
            for (k, v) in &at[edge.from] {
                let c = clocks[t].entry(k.clone()).or_insert(0);
                *c = (*c).max(*v);
            }
        }
        *clocks[t].entry(name(t)).or_insert(0) += 1;
        at.push(clocks[t].clone());
        let clock: Vec<String> = clocks[t].iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
        let _ = writeln!(s, "{}{}", label(w, e), if e.racing { " [racing]" } else { "" });
        let _ = writeln!(s, "{} {{{}}}", name(t), clock.join(", "));
    }
    s
}

/// `path` as a URI reference: the bytes a path segment may hold as they are, every other
/// byte percent-encoded (RFC 3986 §2, §3.3), so that a path with a space is still a valid
/// `uri`; a colon too, which in a relative reference's first segment would read as a scheme.
fn uri_of(path: &str) -> String {
    path.bytes().map(|b| if b.is_ascii_alphanumeric() || b"-._~/@!$&'()*+,;=".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
}

/// Where SARIF's `tool.driver.informationUri` points: the manifest's `repository`, else its
/// `homepage`; the manifest names neither today, so the placeholder the JSON schemas' `$id`s
/// use (`racefuzz.invalid`, a reserved name): never a path of the machine that built the
/// binary, so that the output does not depend on where it was built.
fn information_uri() -> String {
    match (env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_HOMEPAGE")) {
        (r, _) if !r.is_empty() => r.to_string(),
        (_, h) if !h.is_empty() => h.to_string(),
        _ => "https://racefuzz.invalid/".to_string(),
    }
}

/// `w` as SARIF 2.1.0 for the program file at `path`: one result per racing pair (the later
/// access, with the earlier as a related location), with one thread flow per thread of
/// the execution, so that code-scanning viewers show the race and each thread's steps.
/// The driver carries racefuzz's version and an `informationUri` (the manifest's repository,
/// else its homepage, else a placeholder), as the SARIF multitool's rule
/// SARIF2005 asks; a path is percent-encoded, and an absolute one is a `file:` URI (rule
/// SARIF1004). tests/picture.rs validates the output with that multitool and with ajv
/// against the OASIS schema.
pub fn sarif(w: &Witness, path: &str) -> serde_json::Value {
    use serde_json::json;
    // A relative reference must not begin with a slash (the multitool's SARIF1004): an
    // absolute path is a `file:` URI.
    let uri = if path.starts_with('/') { format!("file://{}", uri_of(path)) } else { uri_of(path) };
    let uri = uri.as_str();
    let place = |line: u32, text: String| json!({ "physicalLocation": { "artifactLocation": { "uri": uri }, "region": { "startLine": line } }, "message": { "text": text } });
    let flows: Vec<serde_json::Value> = (0..lanes(w))
        .map(|t| {
            let steps: Vec<serde_json::Value> = w.events.iter().filter(|e| e.thread.0 as usize == t).map(|e| json!({ "location": place(e.line, label(w, e)) })).collect();
            json!({ "id": w.threads.get(t).cloned().unwrap_or_else(|| format!("T{}", t + 1)), "locations": steps })
        })
        .collect();
    let results: Vec<serde_json::Value> = race_pairs(w)
        .into_iter()
        .map(|(i, j)| {
            let (a, b) = (&w.events[i], &w.events[j]);
            json!({
                "ruleId": "data-race",
                "level": "error",
                "message": { "text": format!("data race on {}: {} and {} are not ordered by happens-before (schedule {})", access_name(w, j), label(w, b), label(w, a), w.schedule) },
                "locations": [place(b.line, label(w, b))],
                "relatedLocations": [{ "id": 0, "physicalLocation": { "artifactLocation": { "uri": uri }, "region": { "startLine": a.line } }, "message": { "text": label(w, a) } }],
                "codeFlows": [{ "threadFlows": flows }],
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": { "name": "racefuzz", "version": env!("CARGO_PKG_VERSION"), "semanticVersion": env!("CARGO_PKG_VERSION"), "informationUri": information_uri(), "rules": [{ "id": "data-race", "shortDescription": { "text": "Two accesses to one location by different threads, at least one a write, not ordered by happens-before" } }] } },
            "results": results,
        }],
    })
}

/// A campaign's report as one HTML page, from its JSON summary (`racefuzz fuzz --json`,
/// docs/json/fuzz.schema.json): per oracle checked, pass, fail and inconclusive, programs
/// per second, the programs using each feature, the rule coverage of its SUT (each case of
/// its spec rules with the programs on which it fired, marked when never reached or below
/// the floor without a reason, `theorems::rules`), and each distinct failure with its count
/// and links to its smallest finding, the finding's witness page (written beside it) and
/// its shrunk program.
pub fn campaign_report(summary: &serde_json::Value) -> String {
    use race_oracles::theorems::rules::FLOOR_PERCENT;
    fn percent(k: u64, n: u64) -> String {
        format!("{:.1}%", 100.0 * k as f64 / n.max(1) as f64)
    }
    let text = |v: &serde_json::Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    let num = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
    let elapsed = summary["elapsed_s"].as_f64().unwrap_or(0.0);
    let programs = num(&summary["programs"]);
    let rate = if elapsed > 0.0 { format!("{:.0}", programs as f64 / elapsed) } else { "-".into() };
    let mut s = String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>racefuzz campaign</title>\n<style>\nbody { font-family: sans-serif; margin: 1.5em; color: #222; }\ntable { border-collapse: collapse; }\ntd, th { border: 1px solid #ccc; padding: .3em .7em; text-align: right; }\ntd.name, th.name { text-align: left; font-family: monospace; }\ntr.failing td { background: #ffd6d6; }\ntr.never td { background: #ffd6d6; }\ntr.below-floor td { background: #ffedc2; }\ntr.rare td { color: #666; }\ntd.note { text-align: left; }\ncaption { text-align: left; font-weight: bold; padding: .4em 0; }\n</style>\n</head>\n<body>\n<h1>racefuzz campaign</h1>\n");
    if let Some(files) = summary["summaries"].as_array() {
        // A merge (`racefuzz merge`, docs/json/merge.schema.json): its inputs, the shards
        // present and missing, and its notes, instead of one run's settings.
        let _ = writeln!(s, "<p id=\"totals\">{programs} programs, merged from {} summary file(s) and {} finding(s)</p>", files.len(), num(&summary["findings"]));
        for sh in summary["shards"].as_array().into_iter().flatten() {
            let list = |v: &serde_json::Value| v.as_array().into_iter().flatten().map(|k| k.to_string()).collect::<Vec<_>>().join(", ");
            let missing = if sh["missing"].as_array().is_none_or(Vec::is_empty) { "all of them".to_string() } else { format!("missing: {}", list(&sh["missing"])) };
            let mutant = sh["mutant"].as_str().map(|m| format!(", mutant {}", esc(m))).unwrap_or_default();
            let _ = writeln!(s, "<p class=\"shards\">seed {}{mutant}: shard(s) {} of {} ({missing})</p>", text(&sh["seed"]), list(&sh["present"]), text(&sh["count"]));
        }
        for n in summary["notes"].as_array().into_iter().flatten() {
            let _ = writeln!(s, "<p class=\"note\">note: {}</p>", esc(&text(n)));
        }
    } else {
        let _ = writeln!(
            s,
            "<p id=\"totals\">{programs} programs in {elapsed:.1} s ({rate} programs/s), seed {}, {} job(s){}{}; stopped by {}</p>",
            text(&summary["seed"]),
            text(&summary["jobs"]),
            summary["mutant"].as_str().map(|m| format!(", mutant {}", esc(m))).unwrap_or_default(),
            summary["sut"].as_str().map(|m| format!(", SUT {}", esc(m))).unwrap_or_default(),
            esc(&text(&summary["stopped_by"]))
        );
    }
    s.push_str("<table id=\"oracles\">\n<tr><th class=\"name\">oracle</th><th>checked</th><th>pass</th><th>fail</th><th>inconclusive</th></tr>\n");
    for o in summary["per_oracle"].as_array().into_iter().flatten() {
        let failing = num(&o["fail"]) > 0;
        let _ = writeln!(
            s,
            "<tr class=\"oracle{}\"><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            if failing { " failing" } else { "" },
            esc(&text(&o["oracle"])),
            num(&o["checked"]),
            num(&o["pass"]),
            num(&o["fail"]),
            num(&o["inconclusive"])
        );
    }
    s.push_str("</table>\n");
    let per_oracle: Vec<&serde_json::Value> = summary["per_oracle"].as_array().into_iter().flatten().collect();
    // Features: the names of the first oracle's counts, in campaign::FEATURES's order.
    let features: Vec<&str> = crate::campaign::FEATURES.iter().copied().filter(|f| per_oracle.iter().any(|o| o["features"].get(*f).is_some())).collect();
    if !features.is_empty() {
        s.push_str("<h2>Feature coverage</h2>\n<p>Programs of each oracle that use a feature anywhere (a lock, acquire or sync block; a call; a loop; a branch; a fork).</p>\n<table id=\"features\">\n<tr><th class=\"name\">oracle</th>");
        for f in &features {
            let _ = write!(s, "<th>{}</th>", esc(f));
        }
        s.push_str("</tr>\n");
        for o in &per_oracle {
            let _ = write!(s, "<tr class=\"feature\"><td class=\"name\">{}</td>", esc(&text(&o["oracle"])));
            for f in &features {
                let k = num(&o["features"][*f]);
                let _ = write!(s, "<td>{k} ({})</td>", percent(k, num(&o["checked"])));
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</table>\n");
    }
    s.push_str("<h2>Rule coverage</h2>\n");
    if per_oracle.iter().all(|o| o["rules"].is_null()) {
        s.push_str("<p id=\"no-rules\">not recorded (run the campaign with --rules, or --report)</p>\n");
    } else {
        let _ = writeln!(
            s,
            "<p>Per oracle, the cases of its SUT's spec rules and the programs on whose check each fired, counted from the SUT's behaviour. A case that never fired, or fired in fewer than {FLOOR_PERCENT}% of the programs without a reason the rule table gives (rare), is marked.</p>"
        );
    }
    for o in per_oracle.iter().filter(|o| o["rules"].is_object()) {
        let (id, r) = (text(&o["oracle"]), &o["rules"]);
        let n = num(&r["programs"]);
        let mutant = r["mutant"].as_str().map(|m| format!(" with mutant <code>{}</code>", esc(m))).unwrap_or_default();
        let _ = writeln!(
            s,
            "<section class=\"rules\" id=\"rules-{}\">\n<h3><code>{}</code>: rule cases of SUT <code>{}</code>{mutant}, over {n} program(s)</h3>",
            esc(&id),
            esc(&id),
            esc(&text(&r["sut"]))
        );
        let tables: Vec<&serde_json::Value> = r["tables"].as_array().into_iter().flatten().collect();
        if tables.is_empty() {
            s.push_str("<p class=\"note\">this SUT declares no rule cases</p>\n");
        }
        for t in tables {
            let _ = writeln!(
                s,
                "<table class=\"rule-table\">\n<caption>{} ({})</caption>\n<tr><th class=\"name\">case</th><th class=\"name\">spec</th><th>programs</th><th>percent</th><th class=\"note\"></th></tr>",
                esc(&text(&t["sut"])),
                esc(&text(&t["spec"]))
            );
            for c in t["cases"].as_array().into_iter().flatten() {
                let k = num(&c["programs"]);
                let below = c["below_floor"].as_bool() == Some(true);
                let under = (100.0 * k as f64 / n.max(1) as f64) < FLOOR_PERCENT;
                let (class, note) = match c["rare"].as_str() {
                    _ if below && k == 0 => ("never", "never reached".to_string()),
                    _ if below => ("below-floor", format!("below the floor of {FLOOR_PERCENT}%")),
                    Some(why) if under => ("rare", format!("{}rare: {why}", if k == 0 { "never reached; " } else { "" })),
                    _ => ("reached", String::new()),
                };
                let _ = writeln!(
                    s,
                    "<tr class=\"case {class}\"><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{k}</td><td>{}</td><td class=\"note\">{}</td></tr>",
                    esc(&text(&c["case"])),
                    esc(&text(&c["spec"])),
                    percent(k, n),
                    esc(&note)
                );
            }
            s.push_str("</table>\n");
        }
        for note in r["not_exercised"].as_array().into_iter().flatten() {
            let _ = writeln!(s, "<p class=\"note\">{}</p>", esc(&text(note)));
        }
        s.push_str("</section>\n");
    }
    let sigs: Vec<&serde_json::Value> = summary["signatures"].as_array().into_iter().flatten().collect();
    if sigs.is_empty() {
        s.push_str("<p id=\"failures\">no counterexample</p>\n");
    } else {
        let _ = writeln!(s, "<h2>Distinct failures</h2>\n<table id=\"failures\">\n<tr><th>programs</th><th class=\"name\">signature</th><th class=\"name\">smallest</th><th class=\"name\">shrunk</th></tr>");
        for g in sigs {
            let link = |v: &serde_json::Value, what: &str| {
                v.as_str().map_or_else(String::new, |p| {
                    let page = std::path::Path::new(p).with_extension("html");
                    format!("<a class=\"{what}\" href=\"{}\">{}</a> (<a href=\"{}\">witness</a>)", esc(p), esc(p), esc(&page.display().to_string()))
                })
            };
            let _ = writeln!(
                s,
                "<tr class=\"failure\"><td>{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td></tr>",
                num(&g["count"]),
                esc(&text(&g["signature"])),
                link(&g["smallest"], "smallest"),
                g["shrunk"].as_str().map(|p| format!("<a class=\"shrunk\" href=\"{}\">{}</a>", esc(p), esc(p))).unwrap_or_default()
            );
        }
        s.push_str("</table>\n");
    }
    s.push_str("</body>\n</html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_campaign_report_lists_every_oracle_and_links_each_failure() {
        let summary = serde_json::json!({
            "seed": 1, "jobs": 2, "mutant": "ft-release-no-tick", "sut": null, "stopped_by": "max-programs", "elapsed_s": 2.0, "programs": 300,
            "per_oracle": [
                { "oracle": "fasttrack-precise", "checked": 150, "pass": 149, "fail": 1, "inconclusive": 0,
                  "features": { "branch": 75, "call": 0, "fork": 3, "lock": 150, "loop": 30 },
                  "rules": { "sut": "fasttrack", "mutant": "ft-release-no-tick", "programs": 150, "not_exercised": [],
                    "tables": [{ "sut": "FastTrack", "spec": "bigfoot.md §1.6", "cases": [
                        { "case": "READ same epoch", "spec": "§1.6 READ line 1", "rare": null, "programs": 60, "below_floor": false },
                        { "case": "READ shared", "spec": "§1.6 READ line 4", "rare": null, "programs": 1, "below_floor": true },
                        { "case": "FORK", "spec": "§1.6 FORK", "rare": null, "programs": 0, "below_floor": true },
                        { "case": "JOIN", "spec": "§1.6 JOIN", "rare": "needs <a fork>", "programs": 0, "below_floor": false },
                    ] }] } },
                { "oracle": "explorer-agree", "checked": 150, "pass": 150, "fail": 0, "inconclusive": 0,
                  "features": { "branch": 0, "call": 0, "fork": 0, "lock": 0, "loop": 0 },
                  "rules": { "sut": "explorers", "mutant": null, "programs": 150, "tables": [], "not_exercised": ["rule coverage: X not exercised"] } },
            ],
            "signatures": [{ "signature": "fasttrack-precise [MISSED] @ load: racy locations of every trace", "count": 1, "smallest": "/f/a.race", "shrunk": "/f/a.shrunk.race" }],
        });
        let page = campaign_report(&summary);
        assert!(page.contains("300 programs in 2.0 s (150 programs/s), seed 1, 2 job(s), mutant ft-release-no-tick; stopped by max-programs"), "{page}");
        assert_eq!(page.matches("<tr class=\"oracle").count(), 2, "{page}");
        assert_eq!(page.matches("<tr class=\"oracle failing\">").count(), 1, "{page}");
        assert!(
            page.contains("<a class=\"smallest\" href=\"/f/a.race\">/f/a.race</a> (<a href=\"/f/a.html\">witness</a>)") && page.contains("href=\"/f/a.shrunk.race\""),
            "{page}"
        );
        // Features: per oracle, count and share of its checked programs, in FEATURES's order.
        assert!(page.contains("<tr><th class=\"name\">oracle</th><th>lock</th><th>call</th><th>loop</th><th>branch</th><th>fork</th></tr>"), "{page}");
        assert!(
            page.contains("<td class=\"name\">fasttrack-precise</td><td>150 (100.0%)</td><td>0 (0.0%)</td><td>30 (20.0%)</td><td>75 (50.0%)</td><td>3 (2.0%)</td></tr>"),
            "{page}"
        );
        // Rules: which SUT (and mutant) the cases are of, each case's count and share, and
        // the unreached and below-floor cases marked, a rare one with its (escaped) reason.
        assert!(page.contains("rule cases of SUT <code>fasttrack</code> with mutant <code>ft-release-no-tick</code>, over 150 program(s)"), "{page}");
        let rows: Vec<&str> = page.lines().filter(|l| l.starts_with("<tr class=\"case")).collect();
        assert_eq!(
            rows,
            [
                "<tr class=\"case reached\"><td class=\"name\">READ same epoch</td><td class=\"name\">§1.6 READ line 1</td><td>60</td><td>40.0%</td><td class=\"note\"></td></tr>",
                "<tr class=\"case below-floor\"><td class=\"name\">READ shared</td><td class=\"name\">§1.6 READ line 4</td><td>1</td><td>0.7%</td><td class=\"note\">below the floor of 1%</td></tr>",
                "<tr class=\"case never\"><td class=\"name\">FORK</td><td class=\"name\">§1.6 FORK</td><td>0</td><td>0.0%</td><td class=\"note\">never reached</td></tr>",
                "<tr class=\"case rare\"><td class=\"name\">JOIN</td><td class=\"name\">§1.6 JOIN</td><td>0</td><td>0.0%</td><td class=\"note\">never reached; rare: needs &lt;a fork&gt;</td></tr>",
            ],
            "{page}"
        );
        assert!(page.contains("<caption>FastTrack (bigfoot.md §1.6)</caption>"), "{page}");
        assert!(page.contains("rule cases of SUT <code>explorers</code>, over 150 program(s)</h3>\n<p class=\"note\">this SUT declares no rule cases</p>\n<p class=\"note\">rule coverage: X not exercised</p>"), "{page}");
        let bare = campaign_report(&serde_json::json!({ "signatures": [], "per_oracle": [{ "oracle": "o", "rules": null }] }));
        assert!(bare.contains("no counterexample") && bare.contains("<p id=\"no-rules\">not recorded") && !bare.contains("id=\"features\""), "{bare}");
    }
}
