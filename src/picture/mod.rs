//! Witnesses as pictures: a self-contained HTML page with an SVG drawing ([`page`]), the
//! exchange formats of other viewers ([`exchange`]: Graphviz DOT, a ShiViz log, SARIF), and
//! a campaign's own page ([`report`]).
//!
//! Every picture draws the same facts of a witness: one lane per thread, one row per event
//! in trace order with its `.race` line, the happens-before edges that cross threads
//! ([`edges`]; docs/design.md, "happens-before": release → the next acquire of the same lock
//! by another thread, fork → the child's first event, the child's last event → the join;
//! program order is the lane itself), and the racing accesses joined pairwise
//! ([`race_pairs`]).

pub mod exchange;
pub mod page;
pub mod report;

pub use exchange::{dot, sarif, shiviz, SHIVIZ_PARSER};
pub use page::{html, svg, verdict_lines};
pub use report::campaign_report;

use race_oracles::explore::{Witness, WitnessEvent};
use race_oracles::lang::AccessKind;
use race_oracles::machine::EventKind;

use crate::render::event_text;

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

/// `s` as HTML/XML text.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// How many lanes `w` needs: its threads, or more if an event names a later one.
fn lanes(w: &Witness) -> usize {
    w.threads.len().max(w.events.iter().map(|e| e.thread.0 as usize + 1).max().unwrap_or(0))
}

/// An event's text with its line (`W o.g (line 19)`).
fn label(w: &Witness, e: &WitnessEvent) -> String {
    format!("{} (line {})", event_text(&w.names, e.kind), e.line)
}
