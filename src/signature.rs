//! The signature of a failure: a short string that is the same for failures that are
//! likely the same bug, so that a campaign keeps a few programs per bug and counts the rest.
//!
//! A signature is `ORACLE [KINDS] @ STATEMENTS: PROPERTIES`:
//! - KINDS: the kinds of mismatch the explanations name. Every oracle names them in
//!   capitals (`FALSE POSITIVE`, `MISSING`, `ILLEGITIMATE`); these words are taken as they
//!   are, since the items carry no other structure for them;
//! - STATEMENTS: the kinds of the statements at the lines each violated item points at:
//!   every line its subject cites (a report's two accesses), the first line its explanation
//!   cites (the first mismatch, not every line of its trace), or, when it cites none, its
//!   witness's racing events; e.g. `rel` or `load,store`;
//! - PROPERTIES: what the violated items are: a property's name as the subject says it
//!   (`precise checks on every terminated trace`, `T2`); for an item about parts of the
//!   program (a report, a method pair), what its subject says after the parts (`final
//!   states` of `m1 ∥ m3: final states`), or else the oracle's item kind (`report`): the
//!   parts are the program's, and the statements above already say what they are.
//!
//! The signature is computed on the program the result was computed on (the lines must be
//! its lines); it depends on nothing else, so it is deterministic.

use std::collections::{BTreeMap, BTreeSet};

use race_oracles::lang::{mentioned_vars, walk_block, Block, Program, Stmt, StmtKind};
use race_oracles::theorems::{ItemStatus, OracleResult};

/// The longest signature (longer ones are cut, with `…`).
pub const MAX_LEN: usize = 200;

/// The signature of `r`, a result computed on `p` (see the module docs).
pub fn signature(r: &OracleResult, p: &Program) -> String {
    let names = declared_names(p);
    let kinds_at = kinds_by_line(p);
    let violated: Vec<_> = r.items.iter().filter(|i| i.status == ItemStatus::Violated).collect();
    let props: BTreeSet<String> = violated.iter().map(|i| property(&i.subject, &names, r.item_kind)).collect();
    let mut tags = BTreeSet::new();
    let mut lines = BTreeSet::new();
    for i in &violated {
        for l in &i.explanation {
            tags.extend(capital_runs(l));
        }
        let mut cited: Vec<u32> = cited_lines(&i.subject);
        cited.extend(i.explanation.iter().find_map(|l| cited_lines(l).first().copied()));
        // A witness marks every race of its execution, which need not be the mismatch
        // (a check placed wrongly on a racy trace): its lines count only when the item
        // itself cites none.
        if cited.is_empty() {
            if let Some(w) = &i.witness {
                cited.extend(w.events.iter().filter(|e| e.racing).map(|e| e.line));
            }
        }
        lines.extend(cited);
    }
    let stmts: BTreeSet<&str> = lines.iter().filter_map(|l| kinds_at.get(l)).flatten().copied().collect();
    let mut s = r.oracle.to_string();
    if !tags.is_empty() {
        s.push_str(&format!(" [{}]", tags.into_iter().collect::<Vec<_>>().join(", ")));
    }
    if !stmts.is_empty() {
        s.push_str(&format!(" @ {}", stmts.into_iter().collect::<Vec<_>>().join(",")));
    }
    s.push_str(&format!(": {}", props.into_iter().collect::<Vec<_>>().join(" + ")));
    if s.chars().count() > MAX_LEN {
        s = s.chars().take(MAX_LEN - 1).collect::<String>() + "…";
    }
    s
}

/// A statement kind's name, as the dialects spell the statement.
pub fn kind_name(k: &StmtKind) -> &'static str {
    match k {
        StmtKind::Skip => "skip",
        StmtKind::Assign { .. } => "assign",
        StmtKind::Rename { .. } => "rename",
        StmtKind::New { .. } => "new",
        StmtKind::NewArray { .. } => "new-array",
        StmtKind::Load { .. } => "load",
        StmtKind::Read(_) => "read",
        StmtKind::Append { .. } => "append",
        StmtKind::Pick { .. } => "pick",
        StmtKind::Nondet { .. } => "nondet",
        StmtKind::Store { .. } => "store",
        StmtKind::Lock => "lock",
        StmtKind::Unlock => "unlock",
        StmtKind::Acq(_) => "acq",
        StmtKind::Rel(_) => "rel",
        StmtKind::Sync { .. } => "sync",
        StmtKind::If { .. } => "if",
        StmtKind::While { .. } => "while",
        StmtKind::Loop { .. } => "loop",
        StmtKind::Break => "break",
        StmtKind::Call { .. } => "call",
        StmtKind::Return(_) => "return",
        StmtKind::Fork { .. } => "fork",
        StmtKind::Join(_) => "join",
        StmtKind::Check(_) => "check",
        StmtKind::Assume(_) => "assume",
        StmtKind::Assert(_) => "assert",
        StmtKind::Atomic(a) => match a {
            race_oracles::lang::Atomic::Load { .. } => "atomic-load",
            race_oracles::lang::Atomic::Store { .. } => "atomic-store",
            race_oracles::lang::Atomic::Rmw { .. } => "atomic-rmw",
            race_oracles::lang::Atomic::Cas { .. } => "cas",
            race_oracles::lang::Atomic::Fence(_) => "fence",
        },
    }
}

fn bodies(p: &Program) -> impl Iterator<Item = &Block> {
    p.all_methods().map(|(_, m)| &m.body).chain(p.init.iter()).chain(p.threads.iter())
}

fn kinds_by_line(p: &Program) -> BTreeMap<u32, BTreeSet<&'static str>> {
    let mut at: BTreeMap<u32, BTreeSet<&'static str>> = BTreeMap::new();
    for b in bodies(p) {
        walk_block(b, &mut |s: &Stmt| {
            at.entry(s.line.0).or_default().insert(kind_name(&s.kind));
        });
    }
    at
}

/// Every name the program declares or assigns: classes, fields, methods, parameters,
/// variables, locks.
fn declared_names(p: &Program) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = BTreeSet::new();
    for c in &p.classes {
        names.insert(c.name.clone());
        names.extend(c.fields.iter().cloned());
    }
    for (_, m) in p.all_methods() {
        names.insert(m.name.clone());
        names.extend(m.params.iter().cloned());
    }
    for b in bodies(p) {
        names.extend(mentioned_vars(b).into_iter().map(str::to_string));
        walk_block(b, &mut |s: &Stmt| match &s.kind {
            StmtKind::Acq(l) | StmtKind::Rel(l) | StmtKind::Sync { lock: l, .. } => {
                names.insert(l.clone());
            }
            _ => {}
        });
    }
    names
}

/// What a violated item is (see the module docs): its subject with the program's names
/// abstracted, or the part after its last `: ` when that part names none of the program's
/// parts, or else `item_kind`.
fn property(subject: &str, names: &BTreeSet<String>, item_kind: &str) -> String {
    let s = abstract_names(subject, names);
    let own = |t: &str| !t.contains('_') && !t.contains('#');
    if own(&s) {
        return s;
    }
    match s.rsplit_once(": ") {
        Some((_, tail)) if own(tail) => tail.to_string(),
        _ => item_kind.to_string(),
    }
}

/// `text` with the program's names (and any lower-case name with a digit: `o2`, `l1`, the
/// heap's objects) as `_`, numbers as `#`, and an access path through them (`_.f`, `_[#]`)
/// as one `_`. A one-letter name is a name only in a path (`a` is also an English word);
/// `T2` and `C8` are the specs' property names and stay.
fn abstract_names(text: &str, names: &BTreeSet<String>) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String, next: Option<char>| {
        if word.is_empty() {
            return;
        }
        let in_path = matches!(next, Some('.' | '['));
        if word.chars().all(|c| c.is_ascii_digit()) {
            out.push('#');
        } else if ((word.chars().count() > 1 || in_path) && names.contains(word.as_str())) || (word.starts_with(char::is_lowercase) && word.chars().any(|c| c.is_ascii_digit())) {
            out.push('_');
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out, Some(c));
            out.push(c);
        }
    }
    flush(&mut word, &mut out, None);
    collapse_paths(&out)
}

/// `_.f.g`, `_[#]`, `_[_]`: one `_`.
fn collapse_paths(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        out.push(chars[i]);
        if chars[i] == '_' {
            loop {
                match chars.get(i + 1) {
                    Some('.') if chars.get(i + 2).is_some_and(|c| c.is_alphanumeric() || *c == '_') => {
                        i += 2;
                        while chars.get(i + 1).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
                            i += 1;
                        }
                    }
                    Some('[') => match chars[i + 1..].iter().position(|c| *c == ']') {
                        Some(k) => i += k + 1,
                        None => break,
                    },
                    _ => break,
                }
            }
        }
        i += 1;
    }
    out
}

/// The runs of capitalised words in `line` (`FALSE POSITIVE`): words of three capitals or
/// more, separated by spaces only, a run being at least four letters.
fn capital_runs(line: &str) -> Vec<String> {
    let mut runs = vec![];
    let mut run: Vec<&str> = vec![];
    for raw in line.split_whitespace() {
        let core = raw.trim_matches(|c: char| !c.is_alphanumeric());
        if core.len() >= 3 && core.chars().all(|c| c.is_ascii_uppercase()) {
            run.push(core);
            // Punctuation after the word ends the run: `FALSE POSITIVE:`.
            if core.len() == raw.len() {
                continue;
            }
        }
        push_run(&mut runs, &mut run);
    }
    push_run(&mut runs, &mut run);
    runs
}

fn push_run(runs: &mut Vec<String>, run: &mut Vec<&str>) {
    let joined = run.join(" ");
    if joined.len() >= 4 {
        runs.push(joined);
    }
    run.clear();
}

/// The numbers after `line ` in `text`.
fn cited_lines(text: &str) -> Vec<u32> {
    text.match_indices("line ").filter_map(|(i, m)| text[i + m.len()..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use race_oracles::theorems::Item;

    #[test]
    fn names_and_numbers_are_abstracted() {
        let names: BTreeSet<String> = ["zap", "f", "x", "a"].into_iter().map(String::from).collect();
        assert_eq!(abstract_names("m1 ∥ m2: final states", &names), "_ ∥ _: final states");
        assert_eq!(abstract_names("zap: W x.f.f at lock level 1 (line 14)", &names), "_: W _ at lock level # (line #)");
        assert_eq!(abstract_names("no check race without a data race on o1.f or a[2].g", &names), "no check race without a data race on _ or _");
        assert_eq!(abstract_names("BigFoot + DynamicBF: racy locations of every trace", &names), "BigFoot + DynamicBF: racy locations of every trace");
        assert_eq!(property("m1 ∥ m3: final states", &names, "property"), "final states");
        assert_eq!(property("m1 ∥ m3", &names, "method pair"), "method pair");
        assert_eq!(property("T2", &names, "property"), "T2");
    }

    #[test]
    fn capital_runs_are_the_mismatch_kinds() {
        assert_eq!(capital_runs("FALSE POSITIVE: no execution races"), ["FALSE POSITIVE"]);
        assert_eq!(capital_runs("ILLEGITIMATE check: check(W: o2.f) at line 64 (T1)"), ["ILLEGITIMATE"]);
        assert_eq!(capital_runs("MISSING 2 class(es); naive 8, DPOR 2"), ["MISSING", "DPOR"]);
        assert!(capital_runs("trace 1 (schedule 1,2): W R T1 BFJ").is_empty());
    }

    #[test]
    fn same_bug_same_signature_and_lines_name_statements() {
        let src = |m: &str| format!("dialect racerdx\nmethod {m}(a) {{\n  a.f = 1\n  lock\n  unlock\n}}\n");
        let (p, q) = (race_oracles::lang::parse(&src("m1")).unwrap(), race_oracles::lang::parse(&src("zz")).unwrap());
        let item = |m: &str| Item {
            subject: format!("{m}: W a.f at lock level 0 (line 3)  ∥  {m}: W a.f at lock level 0 (line 3)"),
            status: ItemStatus::Violated,
            explanation: vec!["FALSE POSITIVE: no execution has the race".into()],
            witness: None,
        };
        let r = |m: &str| OracleResult::from_items("racerdx-tp", "RacerDX".into(), "report", vec![item(m)], None);
        let a = signature(&r("m1"), &p);
        assert_eq!(a, signature(&r("zz"), &q));
        assert_eq!(a, "racerdx-tp [FALSE POSITIVE] @ store: report");
    }
}
