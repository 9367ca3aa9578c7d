//! Valgrind's two race detectors, Helgrind and DRD, as systems under test: a
//! [`ReplayTool`] over the C replay of each trace (`crate::replay`), built without a
//! sanitizer and run under `valgrind --tool=helgrind` or `--tool=drd`, whose XML report
//! ([`parse`]) is read back as events of the trace.
//!
//! Neither tool models C11 atomics, so the replay's turn counter and thread handles would
//! be races of their own: the replay hides them with the tool's client request
//! (`ANNOTATE_BENIGN_RACE_SIZED`, compiled in by `-DRACEFUZZ_HELGRIND` or `-DRACEFUZZ_DRD`),
//! which adds no happens-before, so each tool sees the trace's locks, forks and joins and
//! nothing more. Helgrind names both accesses of a race (the pairs claim can hold it to
//! them); DRD names the later access and only the *segment* of the other thread, so a DRD
//! report has no earlier access. Both number threads from 1 for `main`.
//!
//! Documented limits (Valgrind user manual, §7.5 and §8.2.9): Helgrind reports on the
//! first race per address pair of stacks it has not reported before (`--history-level`
//! decides how much of the earlier access it remembers; racefuzz runs the default, full);
//! DRD reports conflicting accesses per segment.

use std::path::Path;
use std::process::Command;

use race_oracles::lang::AccessKind;

use crate::replay::{Access, Compiler, Output, ReplayError, ReplayTool, Report};

/// Which Valgrind tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// `--tool=helgrind`.
    Helgrind,
    /// `--tool=drd`.
    Drd,
}

/// A Valgrind tool over the replay: the compiler (`$CC`, default `cc`) and the tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Valgrind {
    /// Helgrind or DRD.
    pub tool: Tool,
    /// The C compiler.
    pub cc: String,
}

impl Valgrind {
    /// The tool, with the compiler of `$CC` (default `cc`).
    pub fn new(tool: Tool) -> Valgrind {
        Valgrind { tool, cc: crate::replay::cc() }
    }

    /// `helgrind` or `drd`, as `--tool=` takes it.
    pub fn tool_name(&self) -> &'static str {
        match self.tool {
            Tool::Helgrind => "helgrind",
            Tool::Drd => "drd",
        }
    }
}

impl ReplayTool for Valgrind {
    fn name(&self) -> String {
        match self.tool {
            Tool::Helgrind => "Helgrind".into(),
            Tool::Drd => "DRD".into(),
        }
    }

    /// No: a replay of its own per program. In the universal replay gcc does not inline the
    /// 1,024 line functions into `perform`, and DRD then names an access by its caller's
    /// call site (`perform`), not `line12_w`, losing the line that tells apart two accesses
    /// of one thread to one cell (measured: DRD's event precision fell from 1.000 to 0.786
    /// on the book's 8 programs). A program's own replay inlines them, and Valgrind's
    /// inline frames name the line.
    fn universal(&self) -> bool {
        false
    }

    fn compiler(&self) -> Compiler {
        let define = match self.tool {
            Tool::Helgrind => "-DRACEFUZZ_HELGRIND",
            Tool::Drd => "-DRACEFUZZ_DRD",
        };
        Compiler::c(self.cc.clone(), &["-std=c11", "-O1", "-g", "-pthread", define])
    }

    fn command(&self, binary: &Path, arg: &str) -> Command {
        let mut c = Command::new("valgrind");
        // The XML goes to standard error, the tool's own log nowhere: the replay prints its
        // objects on standard output and nothing on standard error unless it fails, which
        // its exit status says.
        c.arg(format!("--tool={}", self.tool_name())).args(["--xml=yes", "--xml-fd=2", "--log-file=/dev/null", "--error-limit=no"]).arg(binary).arg(arg);
        c
    }

    /// `fork`: Valgrind's start-up (0.6 s) is paid once; each trace runs in a child, whose
    /// XML (its errors and closing tags, without the preamble the server wrote) goes to the
    /// same descriptor, before the server's `racefuzz-done` line.
    fn server(&self, binary: &Path) -> Option<Command> {
        let mut c = self.command(binary, "--serve");
        c.arg("fork");
        Some(c)
    }

    fn reports(&self, out: &Output) -> Result<Vec<Report>, ReplayError> {
        parse(&out.stderr)
    }
}

/// The race reports of Valgrind's XML output (protocol 4), in order: Helgrind's `Race`
/// errors and DRD's `ConflictingAccess` errors; every other kind (lock order, misuse of the
/// pthreads API) is about something else.
///
/// # Errors
/// [`ReplayError::Parse`] when the XML does not parse or a race error lacks its access.
pub fn parse(xml: &str) -> Result<Vec<Report>, ReplayError> {
    // Valgrind writes the XML document after whatever the program wrote to the same
    // descriptor; the replay writes nothing there, but a stray line must not hide a report.
    // A forked child of a replay server writes the rest of a document without its preamble
    // (`crate::replay::serve`): its errors and `</valgrindoutput>`.
    let no_xml = || ReplayError::Parse(format!("no Valgrind XML in its output: `{}`", xml.trim()));
    let doc_text = match xml.find("<?xml") {
        Some(start) => std::borrow::Cow::Borrowed(&xml[start..]),
        None if xml.contains("</valgrindoutput>") => std::borrow::Cow::Owned(format!("<valgrindoutput>{}", &xml[xml.find('<').ok_or_else(no_xml)?..])),
        None => return Err(no_xml()),
    };
    let doc = roxmltree::Document::parse(&doc_text).map_err(|e| ReplayError::Parse(format!("Valgrind's XML does not parse: {e}")))?;
    let mut reports = vec![];
    for e in doc.root_element().children().filter(|n| n.has_tag_name("error")) {
        let report = match text(e, "kind") {
            "Race" => {
                let what = e.children().find(|c| c.has_tag_name("xwhat")).map_or("", |x| text(x, "text"));
                let current = helgrind_access(what, None).ok_or_else(|| ReplayError::Parse(format!("a Helgrind race that does not parse: `{what}`")))?;
                let current = Access { line: first_line(e), ..current };
                let previous = e
                    .children()
                    .filter(|c| c.has_tag_name("xauxwhat"))
                    .map(|x| text(x, "text"))
                    .find(|t| t.starts_with("This conflicts with a previous"))
                    .and_then(|t| helgrind_access(t, Some(current.addr)));
                Report { current, previous }
            }
            "ConflictingAccess" => {
                let what = text(e, "what");
                let current = drd_access(what).ok_or_else(|| ReplayError::Parse(format!("a DRD report that does not parse: `{what}`")))?;
                Report { current: Access { line: first_line(e), ..current }, previous: None }
            }
            _ => continue,
        };
        reports.push(report);
    }
    Ok(reports)
}

/// The `.race` line of the access an error is about: its first stack's innermost replay
/// function (`line12_w`).
fn first_line(error: roxmltree::Node<'_, '_>) -> Option<u32> {
    let stack = error.children().find(|c| c.has_tag_name("stack"))?;
    stack.children().filter(|f| f.has_tag_name("frame")).map(|f| text(f, "fn")).find_map(crate::replay::line_of_function)
}

/// The text of `n`'s first child element `tag` (empty without one).
fn text<'a>(n: roxmltree::Node<'a, '_>, tag: &str) -> &'a str {
    n.children().find(|c| c.has_tag_name(tag)).and_then(|c| c.text()).unwrap_or("")
}

/// Valgrind's thread number (`main` is 1) as the replay's (`None` is `main`).
fn thread(n: &str) -> Option<Option<u32>> {
    let n: u32 = n.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()?;
    Some(n.checked_sub(2))
}

/// `Possible data race during write of size 8 at 0x4A9C048 by thread #3`, or (the earlier
/// access, with the address of the later one) `This conflicts with a previous read of size
/// 8 by thread #2`.
fn helgrind_access(t: &str, addr: Option<u64>) -> Option<Access> {
    let kind = if t.contains(" write of size") { AccessKind::Write } else { AccessKind::Read };
    let addr = match addr {
        Some(a) => a,
        None => u64::from_str_radix(t.split(" at 0x").nth(1)?.split_whitespace().next()?, 16).ok()?,
    };
    Some(Access { kind, addr, thread: thread(t.split("by thread #").nth(1)?)?, line: None, atomic: None })
}

/// `Conflicting store by thread 3 at 0x04a9c048 size 8` (or `load`).
fn drd_access(t: &str) -> Option<Access> {
    let kind = if t.starts_with("Conflicting store") { AccessKind::Write } else { AccessKind::Read };
    let addr = u64::from_str_radix(t.split(" at 0x").nth(1)?.split_whitespace().next()?, 16).ok()?;
    Some(Access { kind, addr, thread: thread(t.split("by thread ").nth(1)?)?, line: None, atomic: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helgrind_and_drd_reports_are_read_from_their_xml() {
        let helgrind = "<?xml version=\"1.0\"?>\n<valgrindoutput><protocolversion>4</protocolversion>\
            <error><unique>0x0</unique><tid>3</tid><kind>Race</kind>\
            <xwhat><text>Possible data race during read of size 8 at 0x4A4A6E0 by thread #3</text><hthreadid>3</hthreadid></xwhat>\
            <stack><frame><fn>line5_r</fn></frame></stack>\
            <xauxwhat><text>This conflicts with a previous write of size 8 by thread #2</text><hthreadid>2</hthreadid></xauxwhat>\
            </error><error><kind>LockOrder</kind><what>lock order violated</what></error></valgrindoutput>";
        let read = Access { kind: AccessKind::Read, addr: 0x4a4a6e0, thread: Some(1), line: Some(5), atomic: None };
        assert_eq!(parse(helgrind), Ok(vec![Report { current: read, previous: Some(Access { kind: AccessKind::Write, thread: Some(0), line: None, ..read }) }]));
        let drd = "stray\n<?xml version=\"1.0\"?>\n<valgrindoutput><error><tid>3</tid><kind>ConflictingAccess</kind>\
            <what>Conflicting store by thread 1 at 0x04a6b650 size 8</what>\
            <stack><frame><fn>store</fn></frame><frame><fn>line10_w</fn></frame></stack></error></valgrindoutput>";
        assert_eq!(parse(drd), Ok(vec![Report { current: Access { kind: AccessKind::Write, addr: 0x4a6b650, thread: None, line: Some(10), atomic: None }, previous: None }]));
        assert!(matches!(parse("no xml"), Err(ReplayError::Parse(_))));
        assert!(matches!(parse("<?xml version=\"1.0\"?><valgrindoutput><error><kind>Race</kind></error></valgrindoutput>"), Err(ReplayError::Parse(_))));
    }
}
