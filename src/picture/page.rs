//! The witness page: a self-contained HTML page around an SVG drawing of the witness (the
//! lanes, the happens-before edges as arrows, the racing accesses highlighted and joined by
//! a dashed line), with the schedule (`racefuzz replay --schedule`), the program with the
//! lines of the racing accesses marked, for a failing oracle the verdict with the ground
//! truth's and the SUT's sides (the item's explanation), and, when the oracle judged a SUT
//! on this execution, a panel of what the SUT did ([`race_oracles::explore::SutView`]). No
//! script, no network: a page is one file that any browser shows as it is.

use std::collections::BTreeSet;
use std::fmt::Write;

use race_oracles::explore::{Witness, WitnessEvent};
use race_oracles::machine::EventKind;

use super::{access_name, edges, esc, label, lanes, race_pairs};
use crate::render::witness_line;

/// A lane's width, and its box's (the rest is the gap the edges cross); a row's height, and
/// the lanes' top margin.
const LANE: usize = 270;
const BOX: usize = 200;
const ROW: usize = 30;
const TOP: usize = 36;

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

/// A list joined by `sep` (`, ` for locations, `; ` for events, whose text has spaces),
/// `none` if empty.
fn list(items: &[String], sep: &str) -> String {
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
            let _ = writeln!(s, "<tr class=\"{class}{bad}\"><th>{what}</th><td>{}</td></tr>", list(&items, ", "));
        }
        let events: Vec<String> = d.reported_events.iter().map(|&i| event_item(w, i)).collect();
        let _ = writeln!(s, "<tr class=\"reported-events\"><th>reported when these events came</th><td>{}</td></tr>\n</table>", list(&events, "; "));
    }
    if let Some(f) = &view.filter {
        let _ = writeln!(s, "<h3>Filter: {}</h3>\n<table class=\"filter\">", esc(&f.name));
        let elided: Vec<String> = f.elided.iter().map(|&i| event_item(w, i)).collect();
        let violations: Vec<String> = f.violations.iter().map(|&i| event_item(w, i)).collect();
        let _ = writeln!(s, "<tr class=\"elided\"><th>elided (the detector never saw them)</th><td>{}</td></tr>", list(&elided, "; "));
        let _ = writeln!(s, "<tr class=\"violations\"><th>capsule violations (kept, reported)</th><td>{}</td></tr>", list(&violations, "; "));
        s.push_str("<tr><th>kept</th><td>every other event</td></tr>\n</table>\n");
    }
    if !view.checks.is_empty() {
        s.push_str("<h3>Checks of the placed program</h3>\n<table class=\"checks\">\n<tr><th>check</th><th>covers</th></tr>\n");
        for c in &view.checks {
            let covers: Vec<String> = c.covers.iter().map(|&i| event_item(w, i)).collect();
            let _ = writeln!(s, "<tr class=\"check\"><td>{}</td><td>{}</td></tr>", esc(&event_item(w, c.check)), list(&covers, "; "));
        }
        let covered: BTreeSet<_> = view.checks.iter().flat_map(|c| c.covers.iter().copied()).collect();
        let uncovered: Vec<String> =
            w.events.iter().filter(|e| matches!(e.kind, EventKind::Access(..))).filter_map(|e| e.index).filter(|i| !covered.contains(i)).map(|i| event_item(w, i)).collect();
        let _ = writeln!(
            s,
            "<tr class=\"uncovered{}\"><th>accesses no check covers</th><td>{}</td></tr>\n</table>",
            if uncovered.is_empty() { "" } else { " differs" },
            list(&uncovered, "; ")
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
