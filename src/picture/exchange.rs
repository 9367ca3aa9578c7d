//! The exchange formats of a witness, for other viewers: Graphviz DOT, a ShiViz log (events
//! with vector clocks, for space-time viewers) and SARIF 2.1.0 (for code-scanning viewers).
//! `tests/picture.rs` checks each with a consumer: Graphviz, ajv with the OASIS SARIF schema
//! and Microsoft's SARIF multitool, and ShiViz's parser's checks restated.

use std::fmt::Write;

use race_oracles::explore::Witness;

use super::{access_name, edges, label, lanes, race_pairs};

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
