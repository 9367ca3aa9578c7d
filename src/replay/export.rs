//! A thread program's traces as a C11 program that replays them: what ThreadSanitizer,
//! Helgrind and DRD run (see the module docs of [`super`] for the turn-taking scheme and
//! why it replays events rather than translating statements).
//!
//! The program has one small function per `.race` line and kind of event
//! (`line12_w(long *p)`: the write of line 12), so that a report's stack names the line;
//! objects and arrays are heap blocks of `long`s (one per field or cell: separate memory
//! locations, as TSan sees them); each object has its own recursive mutex (its lock:
//! `acq`, `rel`, `sync`), and `lock`/`unlock` use one more. The trace comes as the first
//! argument ([`encode`]), so one compiled binary replays every trace of its program; a
//! reproducer ([`reproducer`]) carries its witness as the default.
//!
//! Atomics and fences (docs/spec/atomics.md §6.1) are `<stdatomic.h>` operations on the same
//! `long` cells, cast to `_Atomic long *` (a `_Static_assert` checks that size and alignment
//! match), so a plain access of an atomic cell stays plain. Each order is a constant at its
//! call (a compiler treats an order it cannot see as `seq_cst`). The trace's event kinds
//! fix each operation: a load, a store, an RMW (`fetch_add`: the machine's event does not
//! tell `fetch_add`, `xchg` and a successful CAS apart, §1.1, and ThreadSanitizer and
//! Valgrind's tools handle an RMW and a successful CAS of the same order alike), a failed
//! CAS (`atomic_compare_exchange_strong_explicit` with both orders and an expected value no
//! write ever stores) and a fence. Every write, plain or atomic, stores a value of its own
//! (`k + 1` for event `k`; cells start at 0), so an atomic read's result names the write it
//! read: [`encode`] works out the result each atomic operation must return, and the replay
//! exits with [`DIVERGED`] when one returns another. This deviates from §6.1's "replay the
//! trace's values": the written value only has to make the reads-from relation checkable,
//! which is all happens-before depends on (§2.1), and distinct values check it exactly where
//! equal values of two writes would not (plain writes carry no value outside the dialects
//! that record them).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use race_oracles::lang::Order;
use race_oracles::lang::{walk_block, AccessKind, Program};
use race_oracles::machine::{Addr, AtomicKind, Event, EventKind, LockId, ThreadId};

/// Why a trace has no C form.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// An array cell below 0 (the machine faults first; kept as a value all the same).
    #[error("event {0} accesses a negative array index")]
    NegativeIndex(usize),
}

/// The exit status of a replay whose atomic operation returned another value than the
/// trace says (docs/spec/atomics.md §6.1): the replay is not the trace, so whatever the tool
/// said about it is no answer (`super::ReplayError::Diverged`, an inconclusive verdict).
pub const DIVERGED: i32 = 3;

/// A memory order as the replay's trace argument carries it: C's `memory_order` number.
fn order_code(o: Order) -> u8 {
    match o {
        Order::Relaxed => 0,
        Order::Acquire => 2,
        Order::Release => 3,
        Order::AcqRel => 4,
        Order::SeqCst => 5,
    }
}

/// The `.race` lines that hold a statement, each with its source text (`*/` defused, for a
/// comment of either language).
pub(super) fn statement_lines(p: &Program, source: &str) -> BTreeMap<u32, String> {
    let mut lines = BTreeSet::new();
    let mut add = |b: &[race_oracles::lang::Stmt]| {
        walk_block(b, &mut |s| {
            lines.insert(s.line.0);
        })
    };
    p.all_methods().for_each(|(_, m)| add(&m.body));
    p.init.iter().for_each(|b| add(b));
    p.threads.iter().for_each(|b| add(b));
    let text: Vec<&str> = source.lines().collect();
    lines.into_iter().map(|l| (l, text.get(l as usize - 1).map_or(String::new(), |t| t.trim().replace("*/", "* /")))).collect()
}

/// The C program for `p` (its source text `source`, named `file` in comments), replaying
/// the trace of its first argument, or `default_trace` without one.
pub fn c_program(p: &Program, source: &str, file: &str, default_trace: Option<&str>) -> String {
    c_program_of_lines(&statement_lines(p, source), file, default_trace)
}

/// The C replay of every program whose statements are on lines 1 to
/// [`super::UNIVERSAL_LINES`]: one function per line and kind of event for each of them,
/// so one binary per tool replays the traces of all such programs (a server then serves
/// them all, [`super::serve`]).
pub fn c_universal() -> String {
    c_program_of_lines(&super::universal_lines(), &format!("any program of at most {} lines", super::UNIVERSAL_LINES), None)
}

/// The C replay with one function per line of `lines` and kind of event.
fn c_program_of_lines(lines: &BTreeMap<u32, String>, file: &str, default_trace: Option<&str>) -> String {
    let mut c = String::new();
    let _ = writeln!(c, "/* Generated by racefuzz from {file}: replays one trace of it, event by event, in the trace's");
    c.push_str(" * order. Build: cc -std=c11 -fsanitize=thread -O1 -g -pthread THIS.c -o replay\n");
    c.push_str(" * Run: ./replay [TRACE]   (TRACE: `racefuzz export c FILE --schedule S --trace-arg`)\n");
    c.push_str(" * Or under Valgrind: cc -std=c11 -O1 -g -pthread -DRACEFUZZ_HELGRIND (or -DRACEFUZZ_DRD) THIS.c -o replay\n");
    c.push_str(" *   && valgrind --tool=helgrind (or drd) ./replay [TRACE]\n");
    c.push_str(" * Threads take turns on a seq_cst counter inside ThreadSanitizer's ignore-sync region, so it\n");
    c.push_str(" * sees the trace's own happens-before (locks, fork, join, atomics) and no more. */\n");
    c.push_str(PRELUDE);
    c.push_str(ATOMICS);
    for (l, text) in lines {
        let _ = writeln!(c, "\n/* line {l}: {text} */");
        let _ = writeln!(c, "static void line{l}_r(long *p) {{ sink = *p; }}");
        let _ = writeln!(c, "static void line{l}_w(long *p, long v) {{ *p = v; }}");
        let _ = writeln!(c, "static void line{l}_x(long k, const struct event *e) {{ atomic_op(k, e); }}");
        let _ = writeln!(c, "static void line{l}_acq(pthread_mutex_t *m) {{ pthread_mutex_lock(m); }}");
        let _ = writeln!(c, "static void line{l}_rel(pthread_mutex_t *m) {{ pthread_mutex_unlock(m); }}");
    }
    c.push_str("\n/* One event of the trace on the thread that makes it. */\nstatic void perform(long k, const struct event *e) {\n  switch (e->line) {\n");
    for l in lines.keys() {
        let _ = writeln!(
            c,
            "  case {l}: switch (e->op) {{ case 'r': line{l}_r(cell(e)); return; case 'w': line{l}_w(cell(e), k + 1); return; case 'a': line{l}_acq(mutex(e)); return; case 'l': line{l}_rel(mutex(e)); return; case 'L': case 'S': case 'X': case 'C': case 'F': line{l}_x(k, e); return; }} break;"
        );
    }
    c.push_str("  }\n  other(k, e);\n}\n");
    let default = default_trace.map_or_else(|| "0".to_string(), |t| format!("{t:?}"));
    let _ = write!(c, "{}", MAIN.replace("DEFAULT_TRACE", &default));
    c
}

/// The trace as the C program's argument: the number of threads, then one item per event,
/// `thread.op.line.a.b` (`op`: `r`/`w` an access of cell `b` of object `a`; `a`/`l` an
/// acquire or release of object `a`'s lock, or of the global lock when `a` is -1; `f`/`j`
/// a fork or join of thread `a`; `n` an event with no C form: a check, a capsule entry or
/// exit), separated by spaces. An atomic event's item has three fields more, `.o.f.v`
/// (docs/spec/atomics.md §6.1): `L`, `S`, `X`, `C` an atomic load, store, RMW or failed CAS
/// of cell `b` of object `a` with order `o` (C's `memory_order` number; a failed CAS's
/// success order `o` and failure order `f`, 0 otherwise), `v` the value it must read (the
/// value of the write it reads: `k + 1` for event `k`, 0 for a cell's initial value; 0 for
/// a store); `F` a fence of order `o` (`a`, `b`, `f`, `v` are 0).
///
/// # Errors
/// An access to a negative array index.
pub fn encode(trace: &[Event]) -> Result<String, ExportError> {
    let threads = trace.iter().map(|e| e.thread.0 + 1).chain(trace.iter().filter_map(|e| if let EventKind::Fork(t) = e.kind { Some(t.0 + 1) } else { None })).max().unwrap_or(0);
    let mut out = threads.to_string();
    // Each cell's value in the replay: what its last write stored (`k + 1`), 0 before one.
    let mut values: BTreeMap<(i64, i64), i64> = BTreeMap::new();
    for (i, e) in trace.iter().enumerate() {
        let cell = |a: Addr| match a {
            Addr::Field(o, f) => Ok((i64::from(o.0), i64::from(f.0))),
            Addr::Index(_, x) if x < 0 => Err(ExportError::NegativeIndex(i)),
            Addr::Index(o, x) => Ok((i64::from(o.0), x)),
        };
        let lock = |l: LockId| match l {
            LockId::Global => -1,
            LockId::Obj(o) => i64::from(o.0),
        };
        let written = i64::try_from(i).unwrap_or(i64::MAX - 1) + 1;
        let (op, a, b, atomic) = match e.kind {
            EventKind::Access(k, x) => {
                let (o, c) = cell(x)?;
                if k == AccessKind::Write {
                    values.insert((o, c), written);
                }
                (if k == AccessKind::Write { 'w' } else { 'r' }, o, c, None)
            }
            EventKind::Atomic(k, x) => {
                let (o, c) = cell(x)?;
                let read = values.get(&(o, c)).copied().unwrap_or(0);
                if k.writes() {
                    values.insert((o, c), written);
                }
                let (op, orders, read) = match k {
                    AtomicKind::Load(order) => ('L', (order_code(order), 0), read),
                    AtomicKind::Store(order) => ('S', (order_code(order), 0), 0),
                    AtomicKind::Rmw(order) => ('X', (order_code(order), 0), read),
                    AtomicKind::CasFailed { success, failure } => ('C', (order_code(success), order_code(failure)), read),
                };
                (op, o, c, Some((orders, read)))
            }
            EventKind::Fence(order) => ('F', 0, 0, Some(((order_code(order), 0), 0))),
            EventKind::Acquire(l) => ('a', lock(l), 0, None),
            EventKind::Release(l) => ('l', lock(l), 0, None),
            EventKind::Fork(t) => ('f', i64::from(t.0), 0, None),
            EventKind::Join(t) => ('j', i64::from(t.0), 0, None),
            EventKind::Check(..) | EventKind::Enter(_) | EventKind::Exit(_) => ('n', 0, 0, None),
        };
        let _ = write!(out, " {}.{op}.{}.{a}.{b}", e.thread.0, e.line);
        if let Some(((o, f), v)) = atomic {
            let _ = write!(out, ".{o}.{f}.{v}");
        }
    }
    Ok(out)
}

/// The threads of a trace in the order the C program creates them, which is the order
/// ThreadSanitizer numbers them (`T1`, `T2`, …; `T0` is `main`): the threads no event
/// forks, by number (`main` starts them), then each forked thread at its fork.
pub fn creation_order(trace: &[Event]) -> Vec<ThreadId> {
    let forked: Vec<ThreadId> = trace.iter().filter_map(|e| if let EventKind::Fork(t) = e.kind { Some(t) } else { None }).collect();
    let mut top: Vec<ThreadId> = trace.iter().map(|e| e.thread).filter(|t| !forked.contains(t)).collect::<BTreeSet<_>>().into_iter().collect();
    top.extend(forked);
    top
}

/// The C program for `p` with the trace of one witness as its default argument, and a
/// comment that lists the witness's events, marking the racing ones (`events[i]` is the
/// description of event `i`, which names it).
///
/// # Errors
/// An access to a negative array index.
pub fn reproducer(p: &Program, source: &str, file: &str, schedule: &str, trace: &[Event], events: &[String], racing: &BTreeSet<usize>) -> Result<String, ExportError> {
    let arg = encode(trace)?;
    let mut head = format!("/* The execution of schedule {schedule} of {file}, event by event (>> marks a racing access):\n");
    for (i, d) in events.iter().enumerate() {
        let mark = if racing.contains(&i) { ">>" } else { "  " };
        let _ = writeln!(head, " * {mark} {d}");
    }
    head.push_str(" */\n");
    Ok(format!("{head}{}", c_program(p, source, file, Some(&arg))))
}

/// Everything but the per-line functions, the dispatch and `main`.
const PRELUDE: &str = r#"
#define _GNU_SOURCE /* recursive mutexes, strdup, gettid and _Fork under -std=c11 */
/* gcc 11 and later warn (-Wtsan) that ThreadSanitizer does not support atomic_thread_fence, on
   every replay, fences or not (the fence code is in every one). A fence is what a test of TSan
   may be about (docs/spec/atomics.md §5.1), not a mistake; clang has no such warning. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wtsan"
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* A server's fork. glibc's _Fork (2.34) skips the atfork handlers: ThreadSanitizer's touch
 * every page of its stack depot in parent and child (4 ms a fork), and with one thread in
 * the parent there is no lock they need to take. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#define racefuzz_fork _Fork
#else
#define racefuzz_fork fork
#endif

/* Valgrind's Helgrind and DRD do not model C11 atomics, so the turn counter and the thread
 * handles would be races of their own: built with -DRACEFUZZ_HELGRIND or -DRACEFUZZ_DRD,
 * the replay hides them with the tool's client request, which adds no happens-before. */
#if defined(RACEFUZZ_HELGRIND)
#include <valgrind/helgrind.h>
#elif defined(RACEFUZZ_DRD)
#include <valgrind/drd.h>
#else
#define ANNOTATE_BENIGN_RACE_SIZED(addr, size, why) ((void)0)
#endif

struct event { int thread; char op; int line; long a, b; int o, f; long v; }; /* o, f, v: atomics only */

static struct event *events;   /* the trace, written before any thread starts */
static long nevents;
static long **objects;         /* object a: its fields or cells, one long each */
static pthread_mutex_t **locks; /* object a's lock */
static pthread_mutex_t *global_lock;
static long nobjects;
static _Atomic unsigned long *handles; /* pthread_t of each thread, 0 until it is started */
static pid_t *tids;             /* each thread's system id, written by the thread */
static atomic_long turn = -1;  /* the index of the event whose turn it is; -1 while main starts the threads */
static _Thread_local volatile long sink; /* a read's value goes here: one per thread, so no race of its own */

static long *cell(const struct event *e) { return &objects[e->a][e->b]; }
static pthread_mutex_t *mutex(const struct event *e) { return e->a < 0 ? global_lock : locks[e->a]; }

/* ThreadSanitizer's ignore-sync region (exported by libtsan; weak, so null without it):
 * synchronization inside it adds no happens-before. */
void AnnotateIgnoreSyncBegin(const char *file, int line) __attribute__((weak));
void AnnotateIgnoreSyncEnd(const char *file, int line) __attribute__((weak));
static void ignore_sync_begin(void) { if (AnnotateIgnoreSyncBegin) AnnotateIgnoreSyncBegin(__FILE__, __LINE__); }
static void ignore_sync_end(void) { if (AnnotateIgnoreSyncEnd) AnnotateIgnoreSyncEnd(__FILE__, __LINE__); }

/* Waits for event k's turn. The counter is seq_cst, so the replay is the trace's SC
 * interleaving on any hardware, and ThreadSanitizer ignores it (its ignore-sync region):
 * no happens-before of its own (docs/spec/atomics.md §6.1). The signal fences keep the
 * compiler from moving the event across the wait. */
static int free_run; /* RACEFUZZ_FREE_RUN set: no turns, the threads run as the OS schedules them */
static void wait_turn(long k) {
  if (free_run) return;
  ignore_sync_begin();
  while (atomic_load_explicit(&turn, memory_order_seq_cst) != k) sched_yield();
  ignore_sync_end();
  atomic_signal_fence(memory_order_seq_cst);
}
static void next_turn(long k) {
  atomic_signal_fence(memory_order_seq_cst);
  ignore_sync_begin();
  atomic_store_explicit(&turn, k + 1, memory_order_seq_cst);
  ignore_sync_end();
}

static void *run(void *arg);
static void atomic_op(long k, const struct event *e);

/* Threads get 256 KiB stacks, not the default 8 MiB: ThreadSanitizer clears the shadow of a
 * thread's whole stack when it starts and ends, which with 8 MiB halves the throughput of
 * a trace with eight threads. A replay's thread needs a few frames. */
static pthread_attr_t small_stack;
static void start(long t) {
  pthread_t h;
  if (pthread_create(&h, &small_stack, run, (void *)t) != 0) { perror("pthread_create"); exit(2); }
  atomic_store_explicit(&handles[t], (unsigned long)h, memory_order_relaxed);
}

/* Forks and joins, events with no C form (a check, a capsule entry or exit), and events on
 * a line with no statement of its own. */
static void other(long k, const struct event *e) {
  if (e->op == 'r') sink = *cell(e);
  if (e->op == 'w') *cell(e) = k + 1;
  if (e->op == 'L' || e->op == 'S' || e->op == 'X' || e->op == 'C' || e->op == 'F') atomic_op(k, e);
  if (e->op == 'a') pthread_mutex_lock(mutex(e));
  if (e->op == 'l') pthread_mutex_unlock(mutex(e));
  if (e->op == 'f') start(e->a);
  if (e->op == 'j') {
    unsigned long h;
    while (!(h = atomic_load_explicit(&handles[e->a], memory_order_relaxed))) sched_yield(); /* free runs only */
    pthread_join((pthread_t)h, NULL);
  }
}
"#;

/// The atomic operations (docs/spec/atomics.md §6.1; see the module docs): each order a
/// constant at its call, the result checked against the trace's.
const ATOMICS: &str = r#"
/* Atomics (docs/spec/atomics.md §6.1): a cell stays a long, accessed as an _Atomic long. */
_Static_assert(sizeof(_Atomic long) == sizeof(long) && _Alignof(_Atomic long) == _Alignof(long), "racefuzz: an atomic long is laid out as a long");
#define AT(p) ((_Atomic long *)(p))
#define RACEFUZZ_DIVERGED 3

static void bad_order(const struct event *e) {
  fprintf(stderr, "bad memory order %d/%d for `%c` on line %d\n", e->o, e->f, e->op, e->line);
  exit(2);
}

/* Each order is a constant at its call: a compiler treats an order it cannot see as seq_cst. */
#define LOAD(mo) return atomic_load_explicit(AT(p), mo)
static long a_load(long *p, const struct event *e) {
  switch (e->o) { case 0: LOAD(memory_order_relaxed); case 2: LOAD(memory_order_acquire); case 5: LOAD(memory_order_seq_cst); }
  bad_order(e);
  return 0;
}
#define STORE(mo) atomic_store_explicit(AT(p), v, mo); return
static void a_store(long *p, long v, const struct event *e) {
  switch (e->o) { case 0: STORE(memory_order_relaxed); case 3: STORE(memory_order_release); case 5: STORE(memory_order_seq_cst); }
  bad_order(e);
}
#define RMW(mo) return atomic_fetch_add_explicit(AT(p), v, mo)
static long a_rmw(long *p, long v, const struct event *e) {
  switch (e->o) {
  case 0: RMW(memory_order_relaxed); case 2: RMW(memory_order_acquire); case 3: RMW(memory_order_release);
  case 4: RMW(memory_order_acq_rel); case 5: RMW(memory_order_seq_cst);
  }
  bad_order(e);
  return 0;
}
/* The pairs the language accepts: the failure order no stronger than the success order. */
#define CAS(s, f) return atomic_compare_exchange_strong_explicit(AT(p), expected, v, s, f)
static int a_cas(long *p, long *expected, long v, const struct event *e) {
  switch (e->o * 8 + e->f) {
  case 0 * 8 + 0: CAS(memory_order_relaxed, memory_order_relaxed);
  case 2 * 8 + 0: CAS(memory_order_acquire, memory_order_relaxed);
  case 2 * 8 + 2: CAS(memory_order_acquire, memory_order_acquire);
  case 3 * 8 + 0: CAS(memory_order_release, memory_order_relaxed);
  case 3 * 8 + 2: CAS(memory_order_release, memory_order_acquire);
  case 4 * 8 + 0: CAS(memory_order_acq_rel, memory_order_relaxed);
  case 4 * 8 + 2: CAS(memory_order_acq_rel, memory_order_acquire);
  case 5 * 8 + 0: CAS(memory_order_seq_cst, memory_order_relaxed);
  case 5 * 8 + 2: CAS(memory_order_seq_cst, memory_order_acquire);
  case 5 * 8 + 5: CAS(memory_order_seq_cst, memory_order_seq_cst);
  }
  bad_order(e);
  return 0;
}
#define FENCE(mo) atomic_thread_fence(mo); return
static void a_fence(const struct event *e) {
  switch (e->o) { case 2: FENCE(memory_order_acquire); case 3: FENCE(memory_order_release); case 4: FENCE(memory_order_acq_rel); case 5: FENCE(memory_order_seq_cst); }
  bad_order(e);
}

/* The replay is not the trace: an atomic read returned another write's value. */
static void diverged(long k, const struct event *e, long got) {
  fprintf(stderr, "racefuzz-diverged: event %ld (`%c` on line %d) read %ld, the trace says %ld\n", k, e->op, e->line, got, e->v);
  fflush(stderr);
  _exit(RACEFUZZ_DIVERGED);
}

/* Atomic event k: a write stores k + 1 (a value of its own; cells start at 0), a read must
 * return the value of the write the trace says it reads (e->v). A failed CAS expects -1,
 * which no write stores. */
__attribute__((noinline)) static void atomic_op(long k, const struct event *e) {
  long got = e->v;
  switch (e->op) {
  case 'L': got = a_load(cell(e), e); break;
  case 'S': a_store(cell(e), k + 1, e); break;
  case 'X': got = a_rmw(cell(e), k + 1 - e->v, e); break;
  case 'C': {
    long expected = -1;
    if (a_cas(cell(e), &expected, k + 1, e)) got = -1;
    else got = expected;
    break;
  }
  case 'F': a_fence(e); break;
  }
  if (got != e->v) diverged(k, e, got);
}
"#;

/// `run`, the trace parser, the server and `main` (`DEFAULT_TRACE` is replaced).
const MAIN: &str = r#"
static void *run(void *arg) {
  long me = (long)arg;
  tids[me] = gettid();
  for (long k = 0; k < nevents; k++) {
    if (events[k].thread != me) continue;
    wait_turn(k);
    perform(k, &events[k]);
    next_turn(k);
  }
  return NULL;
}

static const char *default_trace = DEFAULT_TRACE;

/* One trace, from a fresh state: its objects, locks and threads are its own (a server
 * replays many in one process; nothing is freed, so no address is reused). */
static int replay(const char *text) {
  nevents = 0;
  nobjects = 0;
  atomic_store_explicit(&turn, -1, memory_order_relaxed);
  char *s = strdup(text), *save = NULL;
  char *first = strtok_r(s, " ", &save);
  if (!first) { fprintf(stderr, "empty trace\n"); return 2; }
  long threads = atol(first);
  events = calloc(strlen(text) / 2 + 1, sizeof *events);
  long cells[4096] = {0};
  for (char *item; (item = strtok_r(NULL, " ", &save));) {
    struct event *e = &events[nevents++];
    int fields = sscanf(item, "%d.%c.%d.%ld.%ld.%d.%d.%ld", &e->thread, &e->op, &e->line, &e->a, &e->b, &e->o, &e->f, &e->v);
    int atomic = strchr("LSXCF", e->op) != NULL;
    if (fields != (atomic ? 8 : 5) || e->thread < 0 || e->thread >= threads || e->a >= 4096 || e->b >= 1 << 20) {
      fprintf(stderr, "bad trace item `%s`\n", item);
      return 2;
    }
    int access = e->op == 'r' || e->op == 'w' || (atomic && e->op != 'F');
    if ((access || e->op == 'a' || e->op == 'l') && e->a >= 0) {
      if (e->a + 1 > nobjects) nobjects = e->a + 1;
      if (access && e->b + 1 > cells[e->a]) cells[e->a] = e->b + 1;
    }
  }
  objects = calloc(nobjects + 1, sizeof *objects);
  locks = calloc(nobjects + 1, sizeof *locks);
  pthread_mutexattr_t recursive;
  pthread_mutexattr_init(&recursive);
  pthread_mutexattr_settype(&recursive, PTHREAD_MUTEX_RECURSIVE);
  global_lock = malloc(sizeof(pthread_mutex_t));
  pthread_mutex_init(global_lock, &recursive);
  for (long o = 0; o < nobjects; o++) {
    objects[o] = calloc(cells[o] + 1, sizeof(long));
    locks[o] = malloc(sizeof(pthread_mutex_t));
    pthread_mutex_init(locks[o], &recursive);
    /* Where each object lives, to name a report's address. */
    printf("racefuzz-object %ld %p %ld\n", o, (void *)objects[o], cells[o]);
  }
  fflush(stdout);
  handles = calloc(threads + 1, sizeof *handles);
  tids = calloc(threads + 1, sizeof *tids);
  ANNOTATE_BENIGN_RACE_SIZED(handles, (threads + 1) * sizeof *handles, "racefuzz: thread handles");
  ANNOTATE_BENIGN_RACE_SIZED(&turn, sizeof turn, "racefuzz: turn-taking");
  char *forked = calloc(threads + 1, 1), *seen = calloc(threads + 1, 1), *joined = calloc(threads + 1, 1);
  for (long k = 0; k < nevents; k++) {
    seen[events[k].thread] = 1;
    if (events[k].op == 'f') forked[events[k].a] = 1;
    if (events[k].op == 'j') joined[events[k].a] = 1;
  }
  /* Every thread main starts exists before the first event, so that ThreadSanitizer numbers
   * them in this order (T1, T2, ...), and forked ones after them in the trace's order. */
  for (long t = 0; t < threads; t++)
    if (seen[t] && !forked[t]) start(t);
  atomic_store_explicit(&turn, 0, memory_order_relaxed);
  while (!free_run && atomic_load_explicit(&turn, memory_order_relaxed) != nevents) sched_yield();
  /* The threads no event joins: the top-level ones first (main started them), then the
   * forked ones, once their parent has started them. */
  for (int pass = 0; pass < 2; pass++)
    for (long t = 0; t < threads; t++)
      if ((seen[t] || forked[t]) && !joined[t] && forked[t] == pass) {
        unsigned long h;
        while (!(h = atomic_load_explicit(&handles[t], memory_order_relaxed))) sched_yield();
        pthread_join((pthread_t)h, NULL);
      }
  /* Each thread's place in the creation order and system id (every thread is joined, so its
   * write is ordered before this read): how a report names a thread when the tool's own
   * numbers went on from earlier traces (a server that replays many in one process). */
  long *rank = calloc(threads + 1, sizeof *rank), created = 0;
  for (long t = 0; t < threads; t++)
    if (seen[t] && !forked[t]) rank[t] = created++;
  for (long k = 0; k < nevents; k++)
    if (events[k].op == 'f') rank[events[k].a] = created++;
  for (long t = 0; t < threads; t++)
    if (tids[t]) printf("racefuzz-thread %ld %ld\n", rank[t], (long)tids[t]);
  fflush(stdout);
  return 0;
}

/* `replay --serve fork` or `--serve inline`: one trace per line of standard input, each
 * followed by `racefuzz-done STATUS` (a wait status) on standard error, where everything
 * else goes too. `fork` replays each trace in a child, forked while this process has one
 * thread (so the tool's start-up is paid once and every trace starts from the same state);
 * `inline` replays them one after another in this process. */
static int serve(const char *mode) {
  int inline_ = strcmp(mode, "inline") == 0;
  if (!inline_ && strcmp(mode, "fork") != 0) { fprintf(stderr, "unknown mode `%s`\n", mode); return 2; }
  dup2(2, 1);
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    char *nl = len ? memchr(buf, '\n', len) : NULL;
    if (!nl) {
      if (len + 1 >= cap) buf = realloc(buf, cap *= 2);
      /* read(2), not stdio: a child's exit flushes stdio streams, which would move the
       * offset of a shared input file. */
      ssize_t n = read(0, buf + len, cap - len - 1);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return 0;
      len += (size_t)n;
      continue;
    }
    *nl = 0;
    int status = 0;
    fflush(stdout);
    fflush(stderr);
    if (inline_) {
      status = replay(buf) << 8;
    } else {
      pid_t pid = racefuzz_fork();
      if (pid < 0) { perror("fork"); return 2; }
      if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, 0);
        exit(replay(buf));
      }
      while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) { perror("waitpid"); return 2; }
    }
    fprintf(stderr, "racefuzz-done %d\n", status);
    fflush(stderr);
    len -= (size_t)(nl + 1 - buf);
    memmove(buf, nl + 1, len);
  }
}

int main(int argc, char **argv) {
  free_run = getenv("RACEFUZZ_FREE_RUN") != NULL;
  pthread_attr_init(&small_stack);
  pthread_attr_setstacksize(&small_stack, 256 * 1024);
  if (argc > 2 && strcmp(argv[1], "--serve") == 0) return serve(argv[2]);
  const char *text = argc > 1 ? argv[1] : default_trace;
  if (!text) { fprintf(stderr, "usage: %s TRACE | --serve fork|inline\n", argv[0]); return 2; }
  return replay(text);
}
"#;

#[cfg(test)]
mod tests {
    use race_oracles::machine::{EventIdx, FieldId, ObjId};

    use super::*;

    /// docs/spec/atomics.md §6.1: each atomic event carries its orders and the value it must
    /// read, the value its write stored (`k + 1` for event `k`, 0 for the initial value),
    /// plain writes included; a fence only its order.
    #[test]
    fn atomic_events_carry_their_orders_and_the_value_they_must_read() {
        let f = Addr::Field(ObjId(0), FieldId(1));
        let kinds = [
            (0, EventKind::Atomic(AtomicKind::Store(Order::Release), f)),
            (1, EventKind::Atomic(AtomicKind::Load(Order::Acquire), f)),
            (1, EventKind::Atomic(AtomicKind::Rmw(Order::AcqRel), f)),
            (0, EventKind::Atomic(AtomicKind::CasFailed { success: Order::SeqCst, failure: Order::Acquire }, f)),
            (0, EventKind::Fence(Order::SeqCst)),
            (1, EventKind::Access(AccessKind::Write, f)),
            (0, EventKind::Atomic(AtomicKind::Load(Order::Relaxed), f)),
        ];
        let trace: Vec<Event> = kinds.iter().enumerate().map(|(i, &(t, k))| Event::plain(EventIdx(i as u32), ThreadId(t), 7, k)).collect();
        assert_eq!(encode(&trace), Ok("2 0.S.7.0.1.3.0.0 1.L.7.0.1.2.0.1 1.X.7.0.1.4.0.1 0.C.7.0.1.5.2.3 0.F.7.0.0.5.0.0 1.w.7.0.1 0.L.7.0.1.0.0.6".to_string()));
    }
}
