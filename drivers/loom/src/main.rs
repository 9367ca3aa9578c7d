//! racefuzz's loom driver: runs one `.race` program inside `loom`'s model checker and prints
//! one line saying whether loom found a causality violation (a data race).
//!
//! Instantiated by racefuzz (`src/loom/mod.rs`) once per loom version, into racefuzz's cache,
//! with `src/shim.rs` chosen for that version's API; built once, run once per program:
//!
//! ```text
//! racefuzz-loom-0_7_3 [--loop-bound K] [--preemption-bound P] [--max-branches B]
//!                     [--cells N] [--locks N] [--max-choices N] [--atomics N]
//!                     [--max-steps N] [FILE]
//! ```
//!
//! It reads the program from FILE, or standard input without one, and prints exactly one
//! line on standard output, tab-separated, then exits with status 0:
//!
//! | line | meaning |
//! |---|---|
//! | `racefuzz-loom race ADDR LINE DETAIL` | loom reported a causality violation on ADDR at the program's LINE, in an execution that was SC up to the report (every atomic read returned the newest store): a race of an SC execution |
//! | `racefuzz-loom race-non-sc ADDR LINE DETAIL` | the same, after an atomic read returned an older store (or may have): a possible non-SC race (`atomics.rs`) |
//! | `racefuzz-loom no-race EXECUTIONS RUNS` | loom explored every execution of every choice assignment: no violation |
//! | `racefuzz-loom beyond WHY` | the program is beyond loom's bounds or the driver's: no answer |
//! | `racefuzz-loom bad-input WHY` | the program does not parse, validate or start |
//! | `racefuzz-loom crash WHY` | a panic that is not loom's report (exit status 3) |
//!
//! # Design: no second semantics
//! The driver parses the program with the ground truth's own parser, and every loom thread
//! steps the ground truth's own [`Machine`] for the machine thread it stands for, on one
//! [`State`] shared by all of them in an `Rc<RefCell<_>>`: loom knows nothing of a `RefCell`,
//! so sharing the state adds no happens-before that loom could see. Loom sees only the
//! effects of the events, each performed through loom:
//! - an access of a field or an array cell → `with` (read) or `with_mut` (write) of one
//!   loom cell per address;
//! - `acq`/`sync` → `lock` of one loom `Mutex` per lock, *before* the machine's acquire step,
//!   so that loom, not the machine, does the waiting; `rel` → the machine's release step,
//!   *then* the guard's drop. Hence whenever the machine says a thread holds a lock, loom
//!   does too, and a thread holding a lock in loom never finds the machine's lock taken by
//!   another (reentrancy is counted here, `Held::depth`);
//! - `fork` → `loom::thread::spawn` of a thread that steps the new machine thread;
//! - `join(h)` → the loom `JoinHandle`'s `join` *before* the machine's join step
//!   ([`Machine::next_join`] names the target before it finishes);
//! - an atomic statement or a fence → the loom atomic operation with the program's orders,
//!   *before* the machine's step, whose read then takes loom's value; a plain read of an
//!   atomically used cell → `unsync_load`; a plain write to one is refused (`atomics.rs`
//!   says which cells are atomic, and how a run is labelled SC or not).
//!
//! Why this is the whole-program claim "a causality violation iff a data race" (for programs
//! without atomics; with them, `atomics.rs` says what each answer means): up to the
//! first race of an execution every read that is an event sees the write that
//! happens-before it, so the execution is fixed by the order of its synchronizations and
//! of its reads that are not events (below), which loom enumerates (its
//! DPOR is complete without a preemption bound); and loom checks every pair of cell
//! accesses with vector clocks, so a race is reported in any execution that performs both
//! accesses, whichever comes first. Machine steps between two loom operations run without a
//! switch, in an order consistent with loom's happens-before, so every read the machine
//! makes is one the program can make.
//!
//! # What loom cannot express, and what the driver does instead
//! - Reads without an event: the language does not count a path's prefix (`o.f` of
//!   `o.f.g`) or a path actual as an access (Def. 3.1/3.6), so such a read may race with a
//!   write without a race, and the value it reads decides which cell the step accesses. loom
//!   switches threads only at its own operations and cell accesses are none, so it would
//!   never try such a read before and after the write. For a program with such reads
//!   ([`Program::reads_silently`]), every step that makes one, and every write, first does
//!   a relaxed `fetch_add` on one loom atomic (relaxed: no happens-before, in any version's
//!   `Synchronize`); loom's DPOR then orders those steps every way, and since nothing
//!   switches between that operation and the machine's step, loom's order of them is the
//!   machine's. One atomic rather than one per address: a step reads several prefixes, and
//!   a switch between two of its operations would let loom's order and the machine's part.
//!   The cost is more executions for such programs only.
//! - Creating a loom cell counts as a write by its creator (loom's `cell::State::new`), so
//!   cells are not made when an object is allocated: a pool of `--cells` cells (and of
//!   `--locks` mutexes) is made by the main loom thread before it starts any other, which
//!   happens-before everything, as `init` does; addresses take the next cell on first use.
//! - Nondeterministic choices (`if *`, `while *`): loom has no choice operation, so the
//!   driver enumerates them outside loom. A run of the model fixes, per thread name, the
//!   alternatives of its choice points (past the end, the first); each choice point a run
//!   reaches past its prefix adds the assignment that takes the other alternative there.
//!   Every execution's per-thread choice sequences are reached this way, and loom explores
//!   every interleaving under each; at most `--max-choices` assignments.
//! - A thread that cannot step by itself any more (a fault, a failed `assume`, a lock it
//!   holds itself in a non-reentrant dialect) stops, keeping its locks (its guards are
//!   forgotten), as it would in the ground truth.
//! - Beyond bounds (`beyond`), never a `no-race`: more threads than the version's loom
//!   allows, more addresses or locks than the pools, more choice assignments or machine
//!   steps than allowed, loom's own branch limit, a deadlock (loom stops exploring at the
//!   first deadlocked execution), a preemption bound (loom's search is then incomplete),
//!   and dialects outside the machine's `init`/`thread` programs (racerdx's undetermined
//!   heaps, capsules, naikaiken, ldrf).
//!
//! Every report leaves through the panic hook or [`say`], which exits at once: after a
//! causality violation nothing loom does matters, and unwinding through loom's coroutines
//! could only add noise (a panic while panicking aborts).

/// Generated per version from `shim.rs.in`.
mod shim;
mod atomics;

use std::cell::{Cell as StdCell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{Read, Write};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};

use race_oracles::lang::{self, AccessKind, Dialect, Program};
use race_oracles::machine::{Addr, Disabled, EventKind, LockId, Machine, State, Status, ThreadId};

/// The first field of the driver's one line.
const TAG: &str = "racefuzz-loom";

/// Limits, from the command line.
#[derive(Debug)]
struct Options {
    /// The machine's bound on iterations of a `while *` (the ground truth's `loop_bound`).
    loop_bound: u32,
    /// loom's preemption bound; `Some` makes a clean run inconclusive.
    preemption_bound: Option<usize>,
    /// loom's limit on branches per execution.
    max_branches: usize,
    /// Cells made per execution (distinct addresses the program may touch).
    cells: usize,
    /// Mutexes made per execution (distinct locks).
    locks: usize,
    /// Choice assignments explored at most.
    max_choices: usize,
    /// Spare atomics made per execution, for atomic cells of objects that threads allocate.
    atomics: usize,
    /// Machine steps per execution at most (a loop that never synchronizes would spin
    /// forever: loom switches threads only at its own operations).
    max_steps: u64,
    /// The program's file; standard input without one.
    file: Option<String>,
}

/// Per thread name, the alternatives its choice points take, in order.
type Choices = BTreeMap<String, Vec<u8>>;

/// One access as the race report names it.
#[derive(Clone, Debug)]
struct Access {
    thread: String,
    kind: &'static str,
    line: u32,
    addr: String,
}

/// The access being performed through loom, for the panic hook.
static CURRENT: StdMutex<Option<Access>> = StdMutex::new(None);
/// This execution's earlier accesses per address (the other side of a reported race).
static HISTORY: StdMutex<Vec<Access>> = StdMutex::new(Vec::new());
/// Choice assignments this run of the model reached and did not explore (thread name,
/// the choices it takes up to and including the other alternative).
static FRONTIER: StdMutex<BTreeSet<(String, Vec<u8>)>> = StdMutex::new(BTreeSet::new());
/// Executions loom ran, over all assignments.
static EXECUTIONS: AtomicU64 = AtomicU64::new(0);

/// Prints the driver's one line and exits (status 0, or 3 for a crash).
fn say(kind: &str, fields: &[&str]) -> ! {
    let clean: Vec<String> = fields.iter().map(|f| f.replace(['\t', '\n', '\r'], " ")).collect();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{TAG}\t{kind}\t{}", clean.join("\t"));
    let _ = out.flush();
    std::process::exit(if kind == "crash" { 3 } else { 0 })
}

fn beyond(why: &str) -> ! {
    say("beyond", &[why])
}

fn main() {
    let opts: &'static Options = Box::leak(Box::new(options().unwrap_or_else(|e| say("bad-input", &[&e]))));
    let src = read_program(opts).unwrap_or_else(|e| say("bad-input", &[&e]));
    let p = lang::parse(&src).unwrap_or_else(|e| say("bad-input", &[&e.to_string()]));
    lang::validate(&p).unwrap_or_else(|e| say("bad-input", &[&e.to_string()]));
    match p.dialect {
        Dialect::Bfj | Dialect::Bfj2 | Dialect::SimpleJava => {}
        d => beyond(&format!("dialect {}: the driver runs init/thread programs of bfj, bfj2 and simplejava", d.name())),
    }
    if let Some(why) = p.has_atomics().then(|| atomics::refusal(&p)).flatten() {
        beyond(&why);
    }
    if p.threads.len() > shim::MAX_THREADS {
        beyond(&format!("{} threads; loom {} runs at most {}", p.threads.len(), shim::VERSION, shim::MAX_THREADS));
    }
    if let Err(e) = Machine::new(&p, opts.loop_bound).initial_state() {
        say("bad-input", &[&e.to_string()]);
    }
    let p: &'static Program = Box::leak(Box::new(p));
    std::panic::set_hook(Box::new(hook));
    explore_choices(p, opts);
    if let Some(b) = opts.preemption_bound {
        beyond(&format!("no violation within preemption bound {b}, but a bounded search is incomplete"));
    }
    let runs = EXECUTIONS.load(Ordering::Relaxed).to_string();
    let assignments = ASSIGNMENTS.load(Ordering::Relaxed).to_string();
    say("no-race", &[&runs, &assignments])
}

/// Choice assignments run through loom.
static ASSIGNMENTS: AtomicU64 = AtomicU64::new(0);

/// Runs the model once per choice assignment, depth first from "every first alternative".
fn explore_choices(p: &'static Program, opts: &'static Options) {
    let mut todo = vec![Choices::new()];
    let mut seen: BTreeSet<Choices> = todo.iter().cloned().collect();
    while let Some(c) = todo.pop() {
        if ASSIGNMENTS.fetch_add(1, Ordering::Relaxed) as usize >= opts.max_choices {
            beyond(&format!("more than {} assignments of nondeterministic choices (--max-choices)", opts.max_choices));
        }
        lock(&FRONTIER).clear();
        let c = Arc::new(c);
        let run = c.clone();
        shim::check(opts.preemption_bound, opts.max_branches, move || execution(p, opts, &run));
        let frontier = std::mem::take(&mut *lock(&FRONTIER));
        for (name, seq) in frontier {
            let mut d = (*c).clone();
            d.insert(name, seq);
            if seen.insert(d.clone()) {
                todo.push(d);
            }
        }
    }
}

/// A std mutex's guard, whatever a panic elsewhere left in it.
fn lock<T>(m: &StdMutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What every loom thread of one execution shares (one execution of the model).
struct Shared {
    m: Machine<'static>,
    st: RefCell<State<'static>>,
    cells: Vec<shim::Cell>,
    cell_of: RefCell<HashMap<Addr, usize>>,
    locks: Vec<shim::Mutex>,
    lock_of: RefCell<HashMap<LockId, usize>>,
    handles: RefCell<HashMap<ThreadId, shim::Handle>>,
    /// loom threads started, the main one included.
    threads: StdCell<usize>,
    /// For a program whose steps read the heap without an event ([`Program::reads_silently`]):
    /// one loom atomic that every such step and every write touches (a relaxed
    /// `fetch_add`, which adds no happens-before) just before the machine takes it.
    heap: Option<shim::Atomic>,
    /// For a program with atomics: its atomic cells (`atomics.rs`).
    atomics: Option<atomics::Atomics>,
    steps: StdCell<u64>,
    choices: Arc<Choices>,
    opts: &'static Options,
}

impl Shared {
    fn cell(&self, a: Addr) -> &shim::Cell {
        let mut of = self.cell_of.borrow_mut();
        let n = of.len();
        let i = *of.entry(a).or_insert(n);
        self.cells.get(i).unwrap_or_else(|| beyond(&format!("more than {} memory locations (--cells)", self.opts.cells)))
    }

    fn mutex(&self, l: LockId) -> &shim::Mutex {
        let mut of = self.lock_of.borrow_mut();
        let n = of.len();
        let i = *of.entry(l).or_insert(n);
        self.locks.get(i).unwrap_or_else(|| beyond(&format!("more than {} locks (--locks)", self.opts.locks)))
    }

    fn thread_name(&self, t: ThreadId) -> String {
        self.st.borrow().threads.get(t.0 as usize).map(|th| th.name.to_string()).unwrap_or_default()
    }
}

/// One execution of the model: the pools, the initial threads (the main loom thread runs
/// the first), every thread to its end.
fn execution(p: &'static Program, opts: &'static Options, choices: &Arc<Choices>) {
    EXECUTIONS.fetch_add(1, Ordering::Relaxed);
    lock(&HISTORY).clear();
    lock(&atomics::PENDING).clear();
    atomics::NON_SC.store(false, Ordering::Relaxed);
    let m = Machine::new(p, opts.loop_bound);
    // OK since main checked that the initial state builds, and the machine is deterministic.
    let st = m.initial_state().unwrap_or_else(|e| say("crash", &[&format!("racefuzz internal bug: the initial state failed late: {e}")]));
    let n = st.threads.len();
    // Made here, by the main loom thread before it starts any other, like the pools below.
    let atomics = p.has_atomics().then(|| atomics::Atomics::new(&m, p, &st, opts.atomics));
    let sh = Rc::new(Shared {
        m,
        st: RefCell::new(st),
        cells: (0..opts.cells).map(|_| shim::new_cell()).collect(),
        cell_of: RefCell::default(),
        locks: (0..opts.locks).map(|_| shim::new_mutex()).collect(),
        lock_of: RefCell::default(),
        handles: RefCell::default(),
        threads: StdCell::new(1),
        heap: p.reads_silently().then(shim::new_atomic),
        atomics,
        steps: StdCell::new(0),
        choices: choices.clone(),
        opts,
    });
    for i in 1..n {
        spawn(&sh, ThreadId(i as u32));
    }
    if n > 0 {
        run_thread(sh, ThreadId(0));
    }
}

/// Starts a loom thread for machine thread `u`.
fn spawn(sh: &Rc<Shared>, u: ThreadId) {
    let n = sh.threads.get() + 1;
    if n > shim::MAX_THREADS {
        beyond(&format!("more than {} threads, loom {}'s limit (the main thread included)", shim::MAX_THREADS, shim::VERSION));
    }
    sh.threads.set(n);
    let mine = sh.clone();
    let h = shim::spawn(move || run_thread(mine, u));
    sh.handles.borrow_mut().insert(u, h);
}

/// A lock this thread holds in loom.
struct Held<'a> {
    lock: LockId,
    /// Acquires the machine took on it (0 between loom's lock and the machine's acquire).
    depth: u32,
    guard: shim::Guard<'a>,
}

/// Steps machine thread `t` to its end, performing each event's effect through loom.
fn run_thread(sh: Rc<Shared>, t: ThreadId) {
    let name = sh.thread_name(t);
    let mut held: Vec<Held<'_>> = vec![];
    let prefix = sh.choices.get(&name).cloned().unwrap_or_default();
    let mut taken: Vec<u8> = vec![];
    loop {
        // What loom must do before the machine may step: no RefCell borrow is held across a
        // loom operation (loom switches threads there, and the next one borrows).
        let (done, sync, join, line, alts) = {
            let st = sh.st.borrow();
            let done = st.threads.get(t.0 as usize).is_none_or(|th| th.status == Status::Done);
            (done, sh.m.next_sync(&st, t), sh.m.next_join(&st, t), sh.m.next_line(&st, t).unwrap_or(0), sh.m.alternatives(&st, t))
        };
        if done {
            return;
        }
        if let Some(EventKind::Acquire(l)) = sync {
            if !held.iter().any(|h| h.lock == l) {
                let guard = shim::lock(sh.mutex(l));
                held.push(Held { lock: l, depth: 0, guard });
            }
        }
        if let Some(u) = join {
            let h = sh.handles.borrow_mut().remove(&u);
            if let Some(h) = h {
                shim::join(h);
            }
        }
        let alt = if alts.len() > 1 { choose(&name, &prefix, &mut taken, alts) } else { alts[0] };
        let steps = sh.steps.get() + 1;
        if steps > sh.opts.max_steps {
            beyond(&format!("an execution of more than {} steps (--max-steps): a loop that never synchronizes?", sh.opts.max_steps));
        }
        sh.steps.set(steps);
        if let Some(heap) = &sh.heap {
            if reads_silently_or_writes(&sh, t, alt) {
                shim::touch(heap);
            }
        }
        let performed = sh.atomics.as_ref().and_then(|at| atomics::perform(&sh, at, t, &name, line).map(|d| (at, d)));
        let r = match &performed {
            Some((at, done)) => atomics::step(&sh, at, done, t, alt),
            None => sh.m.step(&mut sh.st.borrow_mut(), t, alt),
        };
        match r {
            Ok(None) => {}
            Ok(Some(ev)) => effect(&sh, &name, line, ev, &mut held),
            Err(Disabled::NeedChoice(_)) => beyond("an undetermined initial heap (racerdx)"),
            // Stuck for good (a fault, a failed assume, a non-reentrant lock it holds
            // itself): the thread stops and keeps its locks, as in the ground truth.
            Err(_) => {
                for h in held.drain(..) {
                    std::mem::forget(h.guard);
                }
                return;
            }
        }
    }
}

/// Whether thread `t`'s next step (with `alt`) writes the heap or reads it without an
/// event (a path's prefix, a path actual): found by taking the step on a copy of the state.
fn reads_silently_or_writes(sh: &Shared, t: ThreadId, alt: u8) -> bool {
    let mut probe = sh.st.borrow().clone();
    let (r, reads) = sh.m.step_reading(&mut probe, t, alt);
    match r {
        Ok(Some(EventKind::Access(AccessKind::Write, _))) => true,
        Ok(Some(EventKind::Access(AccessKind::Read, a))) => reads.iter().any(|&b| b != a),
        _ => !reads.is_empty(),
    }
}

/// The alternative a choice point takes: the assignment's, or the first one, recording the
/// assignment that takes the second one here.
fn choose(name: &str, prefix: &[u8], taken: &mut Vec<u8>, alts: &[u8]) -> u8 {
    let alt = match prefix.get(taken.len()) {
        Some(&a) if alts.contains(&a) => a,
        _ => {
            for &other in &alts[1..] {
                let mut seq = taken.clone();
                seq.push(other);
                lock(&FRONTIER).insert((name.to_string(), seq));
            }
            alts[0]
        }
    };
    taken.push(alt);
    alt
}

/// Performs the effect of event `ev` of thread `name` through loom (after the machine's step).
fn effect<'a>(sh: &'a Rc<Shared>, name: &str, line: u32, ev: EventKind, held: &mut Vec<Held<'a>>) {
    match ev {
        EventKind::Access(kind, a) => {
            let addr = sh.st.borrow().addr_name(&sh.m, a);
            let access = Access { thread: name.to_string(), kind: if kind == AccessKind::Read { "read" } else { "write" }, line, addr };
            // Set only around operations that cannot switch threads (see `atomics::PENDING`).
            *lock(&CURRENT) = Some(access.clone());
            match (kind, sh.atomics.as_ref().filter(|at| at.is_atomic(a))) {
                (AccessKind::Read, Some(at)) => {
                    let now = atomics_value(sh, a);
                    shim::unsync_load(at.get(a, now));
                }
                // `atomics::refusal` refused the program before it ran.
                (AccessKind::Write, Some(_)) => say("crash", &["racefuzz internal bug: a plain write to an atomic cell ran"]),
                (AccessKind::Read, None) => shim::read(sh.cell(a)),
                (AccessKind::Write, None) => shim::write(sh.cell(a)),
            }
            *lock(&CURRENT) = None;
            record(access);
        }
        EventKind::Acquire(l) => {
            if let Some(h) = held.iter_mut().find(|h| h.lock == l) {
                h.depth += 1;
            }
        }
        EventKind::Release(l) => {
            if let Some(i) = held.iter().position(|h| h.lock == l) {
                held[i].depth = held[i].depth.saturating_sub(1);
                if held[i].depth == 0 {
                    drop(held.remove(i));
                }
            }
        }
        EventKind::Fork(u) => spawn(sh, u),
        // The join itself happened in loom before the step; checks, capsule enters and
        // exits have no effect loom could see.
        EventKind::Join(_) | EventKind::Check(..) | EventKind::Enter(_) | EventKind::Exit(_) => {}
        // Performed through loom before the machine's step (`atomics::perform`).
        EventKind::Atomic(..) | EventKind::Fence(_) => {}
    }
}

/// The machine's value of cell `a` now.
fn atomics_value(sh: &Shared, a: Addr) -> Option<race_oracles::machine::Value> {
    let st = sh.st.borrow();
    let Addr::Field(o, f) = a else { return None };
    match st.objects.get(o.0 as usize)?.fields.get(f.0 as usize)? {
        race_oracles::machine::Cell::Val(v) => Some(*v),
        _ => None,
    }
}

/// Adds a finished access to this execution's history (the other side of a later report).
fn record(access: Access) {
    let mut history = lock(&HISTORY);
    history.retain(|h| !(h.addr == access.addr && h.thread == access.thread && h.kind == access.kind));
    history.push(access);
}

/// Whether an access of that kind writes (`write`, `atomic write`, `atomic read-write`).
fn writes(kind: &str) -> bool {
    kind.ends_with("write")
}

/// Classifies a panic: loom's causality violation is the race report; its branch limit,
/// thread limit and deadlock are bounds; anything else is a crash.
fn hook(info: &std::panic::PanicHookInfo<'_>) {
    let msg = info.payload().downcast_ref::<String>().cloned().or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
    let first = msg.trim().lines().next().unwrap_or("").trim().to_string();
    // loom 0.2.0-0.2.2 report a violation with a bare `assert!` in their cell:
    // `cell=VersionVec { .. }; thread=VersionVec { .. }`.
    let in_cell_rs = info.location().is_some_and(|l| l.file().ends_with("cell.rs"));
    if msg.contains("Causality violation") || (first.starts_with("cell=") && in_cell_rs) {
        // After a read of a store that is not the newest, the execution is not (or may not
        // be) an SC one: a possible non-SC race (`atomics.rs`).
        let kind = if atomics::NON_SC.load(Ordering::Relaxed) { "race-non-sc" } else { "race" };
        let history = lock(&HISTORY).clone();
        let conflicts = |c: &Access, h: &Access| h.addr == c.addr && h.thread != c.thread && (writes(h.kind) || writes(c.kind));
        // A plain access cannot switch threads, so CURRENT is the access loom stopped at;
        // without one, loom stopped inside an atomic operation, one of those in flight.
        let current = lock(&CURRENT).clone().or_else(|| {
            let pending = lock(&atomics::PENDING).clone();
            pending.iter().find(|c| history.iter().any(|h| conflicts(c, h))).or(pending.first()).cloned()
        });
        let Some(c) = current else { say(kind, &["?", "0", &first]) };
        let others: Vec<String> = history.iter().filter(|h| conflicts(&c, h)).map(|h| format!("{} {} at line {}", h.thread, h.kind, h.line)).collect();
        let against = if others.is_empty() { String::new() } else { format!(" against {}", others.join(", ")) };
        let detail = format!("{}: {} {} at line {}{against} (loom: {first})", c.addr, c.thread, c.kind, c.line);
        say(kind, &[&c.addr, &c.line.to_string(), &detail]);
    }
    // loom 0.2 asserts `branches.len() < max_branches` with the message `actual = N`.
    let in_path_rs = info.location().is_some_and(|l| l.file().ends_with("path.rs"));
    if msg.contains("maximum number of branches") || (first.starts_with("actual = ") && in_path_rs) {
        beyond(&format!("loom's branch limit ({first})"));
    }
    if msg.contains("deadlock") {
        beyond("a deadlock: loom stops exploring at the first deadlocked execution");
    }
    if msg.contains("max()") || msg.contains("MAX_THREADS") || msg.contains("max_threads") {
        beyond(&format!("loom's thread limit ({first})"));
    }
    let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
    say("crash", &[&format!("{first}{at}")])
}

fn options() -> Result<Options, String> {
    let mut o = Options { loop_bound: 2, preemption_bound: None, max_branches: 10_000, cells: 64, locks: 8, max_choices: 256, atomics: 8, max_steps: 100_000, file: None };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = |what: &str| -> Result<u64, String> { args.next().and_then(|v| v.parse().ok()).ok_or_else(|| format!("{what} needs a number")) };
        match a.as_str() {
            "--loop-bound" => o.loop_bound = u32::try_from(num(&a)?).map_err(|e| e.to_string())?,
            "--preemption-bound" => o.preemption_bound = Some(num(&a)? as usize),
            "--max-branches" => o.max_branches = num(&a)? as usize,
            "--cells" => o.cells = num(&a)? as usize,
            "--locks" => o.locks = num(&a)? as usize,
            "--max-choices" => o.max_choices = num(&a)? as usize,
            "--atomics" => o.atomics = num(&a)? as usize,
            "--max-steps" => o.max_steps = num(&a)?,
            f if !f.starts_with("--") && o.file.is_none() => o.file = Some(f.to_string()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(o)
}

fn read_program(o: &Options) -> Result<String, String> {
    match &o.file {
        Some(f) => std::fs::read_to_string(f).map_err(|e| format!("{f}: {e}")),
        None => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map_err(|e| format!("standard input: {e}"))?;
            Ok(s)
        }
    }
}
