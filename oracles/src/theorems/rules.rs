//! Rule coverage: which cases of a system under test's rules fire on a program.
//!
//! Grammar coverage ([`crate::gen::grammar`]) says which productions a generated program
//! *uses*; it cannot say whether the analysis under test ever took a given case of its own
//! rules (FastTrack's READ on a shared read vector clock, BigFoot's loop rule with a weakened
//! invariant, a filter's "escaped" decision). Campaigns found that bugs live exactly in such
//! unreached cases, so each SUT declares the cases of its spec section as a typed table
//! ([`rule_cases!`](crate::rule_cases!)) and calls [`fire`] where a case is taken. The count therefore comes from
//! the SUT's behaviour on the program, not from its syntax.
//!
//! Recording is off unless a caller asks for it with [`record`] (`racefuzz gen ORACLE
//! --stats`, `racefuzz fuzz --rules` or `--report`, the rule-coverage tests): [`fire`] then
//! costs one relaxed atomic load, so other campaigns pay nothing measurable (a recording
//! one paid about 2% more CPU time in 26,000 programs). Recording is per thread: a SUT that runs on the calling
//! thread is observed, which holds for every SUT (none spawns threads).
//!
//! A case that cannot reach the floor of [`FLOOR_PERCENT`] of generated programs carries its
//! reason in the table (`rare "…"`), so the report says why instead of flagging it.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The share of generated programs in which every case of a SUT's rules should fire.
pub const FLOOR_PERCENT: f64 = 1.0;

/// One case of one rule of a SUT's spec section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Case {
    /// Its name in the report (`READ shared, same epoch`).
    pub name: &'static str,
    /// Where the spec states it (`bigfoot.md §1.6 READ`).
    pub spec: &'static str,
    /// Why the generator cannot make it fire in [`FLOOR_PERCENT`] of programs, if it cannot.
    pub rare: Option<&'static str>,
}

/// The rule cases of one SUT, in the order of its spec section.
#[derive(Debug)]
pub struct Rules {
    /// The SUT, as the report names it.
    pub sut: &'static str,
    /// The spec section the cases come from.
    pub spec: &'static str,
    /// The cases; a [`RuleCase`] value indexes this slice.
    pub cases: &'static [Case],
}

/// A typed case of one [`Rules`] table (made by [`rule_cases!`](crate::rule_cases!)).
pub trait RuleCase: Copy {
    /// The table the case belongs to.
    fn rules() -> &'static Rules;
    /// Its index in [`Rules::cases`].
    fn index(self) -> usize;
}

/// Declares a SUT's rule cases: a `#[repr(u16)]` enum with one variant per case and the
/// [`Rules`] table describing them, in one place so that the two cannot drift apart.
///
/// ```
/// race_oracles::rule_cases! {
///     /// Toy rules.
///     pub enum ToyRule in TOY_RULES = "Toy", "toy.md §1" {
///         /// The first case.
///         First => "first case", "§1.1";
///         /// A case the generator seldom reaches.
///         Second => "second case", "§1.2", rare "needs three locks";
///     }
/// }
/// assert_eq!(TOY_RULES.cases[ToyRule::Second as usize].rare, Some("needs three locks"));
/// ```
#[macro_export]
macro_rules! rule_cases {
    ($(#[$meta:meta])* $vis:vis enum $Enum:ident in $TABLE:ident = $sut:literal, $spec:literal {
        $( $(#[$vmeta:meta])* $Variant:ident => $name:literal, $cspec:literal $(, rare $why:literal)? ; )*
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u16)]
        $vis enum $Enum { $( $(#[$vmeta])* $Variant, )* }

        #[doc = concat!("The rule cases of ", $sut, " (", $spec, "), indexed by [`", stringify!($Enum), "`].")]
        $vis static $TABLE: $crate::theorems::rules::Rules = $crate::theorems::rules::Rules {
            sut: $sut,
            spec: $spec,
            cases: &[ $( $crate::theorems::rules::Case { name: $name, spec: $cspec, rare: $crate::rule_cases!(@rare $($why)?) }, )* ],
        };

        impl $crate::theorems::rules::RuleCase for $Enum {
            fn rules() -> &'static $crate::theorems::rules::Rules {
                &$TABLE
            }
            fn index(self) -> usize {
                self as usize
            }
        }
    };
    (@rare) => { None };
    (@rare $why:literal) => { Some($why) };
}

/// How many threads are recording: [`fire`]'s fast path when none is.
static RECORDING: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static FIRED: RefCell<Option<Fired>> = const { RefCell::new(None) };
}

/// The cases that fired during one [`record`]ed run, by table and index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fired(BTreeSet<(&'static str, usize)>);

impl Fired {
    /// Whether `case` fired.
    pub fn contains<C: RuleCase>(&self, case: C) -> bool {
        self.0.contains(&(C::rules().sut, case.index()))
    }

    /// Whether no case fired.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Whether some thread is inside [`record`]: a SUT whose case needs work to decide (more
/// than the comparison its rule already makes) does that work only then, so that campaigns
/// keep paying nothing for rule coverage.
#[inline]
pub fn recording() -> bool {
    RECORDING.load(Ordering::Relaxed) > 0
}

/// Notes that the SUT took `case`; a no-op unless this thread is inside [`record`].
#[inline]
pub fn fire<C: RuleCase>(case: C) {
    if RECORDING.load(Ordering::Relaxed) == 0 {
        return;
    }
    FIRED.with(|f| {
        if let Some(fired) = f.borrow_mut().as_mut() {
            fired.0.insert((C::rules().sut, case.index()));
        }
    });
}

/// Ends a recording even when the recorded code panics.
struct Recording(Option<Fired>);

impl Drop for Recording {
    fn drop(&mut self) {
        FIRED.with(|f| *f.borrow_mut() = self.0.take());
        RECORDING.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Runs `run` and returns its result with the cases that fired on this thread meanwhile.
/// Recordings nest: an inner one sees only its own cases, and the outer one resumes after.
pub fn record<T>(run: impl FnOnce() -> T) -> (T, Fired) {
    RECORDING.fetch_add(1, Ordering::Relaxed);
    let outer = Recording(FIRED.with(|f| f.borrow_mut().replace(Fired::default())));
    let value = run();
    let fired = FIRED.with(|f| f.borrow_mut().take()).unwrap_or_default();
    drop(outer);
    (value, fired)
}

/// One row of a rule-coverage report.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The SUT.
    pub sut: &'static str,
    /// The case.
    pub case: Case,
    /// Programs in which it fired.
    pub programs: usize,
    /// Their share of all programs, in percent.
    pub percent: f64,
}

impl Row {
    /// Below the floor and not justified as rare.
    pub fn below_floor(&self) -> bool {
        below_floor(self.percent, self.case.rare.is_some())
    }
}

/// The share, in percent, of `programs` in `of` (0 when there are none).
pub fn percent(programs: u64, of: u64) -> f64 {
    100.0 * programs as f64 / of.max(1) as f64
}

/// Whether a case that fired in `percent` of the programs is below the floor and not
/// justified as `rare`: the one test of [`Row::below_floor`] and of counts added up
/// elsewhere (`racefuzz merge`).
pub fn below_floor(percent: f64, rare: bool) -> bool {
    percent < FLOOR_PERCENT && !rare
}

/// Per-case program counts over many recorded runs, one run per program.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    programs: usize,
    hits: BTreeMap<(&'static str, usize), usize>,
}

impl Tally {
    /// Adds one program's fired cases.
    pub fn add(&mut self, fired: &Fired) {
        self.programs += 1;
        for key in &fired.0 {
            *self.hits.entry(*key).or_default() += 1;
        }
    }

    /// Programs added.
    pub fn programs(&self) -> usize {
        self.programs
    }

    /// One row per case of each table, in table order.
    pub fn rows(&self, tables: &[&'static Rules]) -> Vec<Row> {
        let n = self.programs as u64;
        tables
            .iter()
            .flat_map(|t| {
                t.cases.iter().enumerate().map(|(i, case)| {
                    let programs = self.hits.get(&(t.sut, i)).copied().unwrap_or(0);
                    Row { sut: t.sut, case: *case, programs, percent: percent(programs as u64, n) }
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::rule_cases! {
        /// Test rules.
        enum Toy in TOY = "Toy", "toy §1" {
            /// A.
            A => "a", "§1";
            /// B.
            B => "b", "§2", rare "seldom";
        }
    }

    #[test]
    fn fire_counts_only_inside_a_recording_and_recordings_nest() {
        fire(Toy::A);
        let ((), outer) = record(|| {
            fire(Toy::A);
            let ((), inner) = record(|| fire(Toy::B));
            assert!(inner.contains(Toy::B) && !inner.contains(Toy::A));
        });
        assert!(outer.contains(Toy::A) && !outer.contains(Toy::B), "{outer:?}");
        let ((), none) = record(|| {});
        assert!(none.is_empty());
    }

    #[test]
    fn a_panic_inside_a_recording_ends_it() {
        let r = std::panic::catch_unwind(|| record(|| panic!("boom")));
        assert!(r.is_err());
        assert!(FIRED.with(|f| f.borrow().is_none()));
    }

    #[test]
    fn rows_give_shares_and_flag_only_unjustified_cases_below_the_floor() {
        let mut t = Tally::default();
        for i in 0..200 {
            let ((), f) = record(|| {
                if i < 3 {
                    fire(Toy::A);
                }
            });
            t.add(&f);
        }
        let rows = t.rows(&[&TOY]);
        assert_eq!((rows[0].programs, rows[0].percent), (3, 1.5));
        assert!(!rows[0].below_floor());
        assert_eq!(rows[1].programs, 0);
        assert!(!rows[1].below_floor(), "B is justified as rare");
    }
}
