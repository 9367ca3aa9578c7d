//! A campaign's summary as data: what `racefuzz fuzz --json` prints and writes into its
//! output folder ([`Run`], docs/json/fuzz.schema.json), what `racefuzz merge` reads back
//! from those folders and writes as its own summary ([`Merged`],
//! docs/json/merge.schema.json), and what a campaign's page draws
//! (`picture::report::campaign_report` takes a [`Summary`], either of the two).
//!
//! Each type serializes its fields in the schema's key order, so a document is the same
//! bytes however it was built. Reading is as strict as the schema on every key a summary
//! file has always had; the keys later versions added are optional (`None` when absent):
//! an oracle's `programs_hash`, `features` and `rules`.
//!
//! The dialect features a campaign counts ([`FEATURES`], [`features`]) live here too: they
//! are the keys of the summary's [`Features`], and both the campaign (which counts them)
//! and the page (which draws them) read them from this module.

use std::path::PathBuf;

use race_oracles::lang::{walk_block, Program, StmtKind};
use serde::{Deserialize, Serialize};

/// Dialect features of a program, for coverage counts, in the order a person reads them
/// (the text summary's line, the page's columns).
pub const FEATURES: [&str; 5] = ["lock", "call", "loop", "branch", "fork"];

/// Which [`FEATURES`] a program uses, over every body it has.
pub fn features(p: &Program) -> [bool; 5] {
    let mut f = [false; 5];
    let bodies = p.methods.iter().map(|m| &m.body).chain(p.classes.iter().flat_map(|c| c.methods.iter().map(|m| &m.body))).chain(p.threads.iter());
    for b in bodies {
        walk_block(b, &mut |s| match s.kind {
            StmtKind::Lock | StmtKind::Acq(_) | StmtKind::Sync { .. } => f[0] = true,
            StmtKind::Call { .. } => f[1] = true,
            StmtKind::While { .. } | StmtKind::Loop { .. } => f[2] = true,
            StmtKind::If { .. } => f[3] = true,
            StmtKind::Fork { .. } => f[4] = true,
            _ => {}
        });
    }
    f
}

/// A campaign's summary: one run's ([`Run`]) or a merge of many ([`Merged`]). Untagged: the
/// document is the variant's own (a run has `seed`, a merge `summaries`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Summary {
    /// `racefuzz fuzz`'s summary.
    Run(Run),
    /// `racefuzz merge`'s summary.
    Merged(Merged),
}

impl Summary {
    /// The finding files it links to (each failure's smallest and shrunk program), to make
    /// absolute for a page that may be opened anywhere.
    pub fn finding_links_mut(&mut self) -> Vec<&mut PathBuf> {
        match self {
            Summary::Run(r) => r.signatures.iter_mut().flat_map(|g| [g.smallest.as_mut(), g.shrunk.as_mut()]).flatten().collect(),
            Summary::Merged(m) => m.signatures.iter_mut().filter_map(|g| g.smallest.as_mut()).collect(),
        }
    }
}

/// One campaign's summary (`racefuzz fuzz --json`; docs/json/fuzz.schema.json), also
/// written into its output folder as `summary.json` (`summary-shard-K-of-N.json` for a
/// shard), where `racefuzz merge` reads it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The oracles the campaign ran.
    pub oracles: Vec<String>,
    /// `--seed`.
    pub seed: u64,
    /// `--jobs`.
    pub jobs: usize,
    /// The seeded bug hunted, if any.
    pub mutant: Option<String>,
    /// The SUT chosen with `--sut`, if any.
    pub sut: Option<String>,
    /// `--time`, in seconds; `None` under `--max-programs` alone.
    pub time_limit_s: Option<u64>,
    /// `--max-programs`: programs per oracle and job.
    pub max_programs: Option<u64>,
    /// The shard of each stream this campaign checked, if not all of it.
    pub shard: Option<Shard>,
    /// Why the campaign ended.
    pub stopped_by: StopReason,
    /// Wall time, in seconds rounded to the millisecond.
    pub elapsed_s: f64,
    /// Programs checked, over every oracle.
    pub programs: u64,
    /// Totals per oracle, in the campaign's order.
    pub per_oracle: Vec<OracleTotals>,
    /// The sum of the distinct failures' counts.
    pub failing_programs: u64,
    /// Finding files written (the first `--keep` per signature, then each smaller one).
    pub written: u64,
    /// The distinct failures, most frequent first within each oracle.
    pub signatures: Vec<Failure>,
}

/// Shard `index` of `count` of each oracle's program stream (program i belongs to shard
/// i mod count), as a summary records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u64,
    /// How many shards the streams are split into.
    pub count: u64,
}

impl Shard {
    /// The whole stream: a run without `--shard`.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };
}

/// Why a campaign ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// Its `--time` ran out (or the default minute).
    Time,
    /// Every job checked its `--max-programs`.
    MaxPrograms,
    /// `--stop-after` distinct failures were found.
    StopAfter,
    /// SIGINT or SIGTERM.
    Signal,
}

impl StopReason {
    /// As the summary writes it: `time`, `max-programs`, `stop-after`, `signal`.
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Time => "time",
            StopReason::MaxPrograms => "max-programs",
            StopReason::StopAfter => "stop-after",
            StopReason::Signal => "signal",
        }
    }
}

/// One oracle's totals, in a run's summary and in a merge's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OracleTotals {
    /// The oracle's id.
    pub oracle: String,
    /// Programs checked: `pass + fail + inconclusive`.
    pub checked: u64,
    /// Programs on which it passed.
    pub pass: u64,
    /// Programs on which it failed.
    pub fail: u64,
    /// Programs on which it could not decide within the bounds.
    pub inconclusive: u64,
    /// Of those, the ones inconclusive by the label `SC executions only` alone (a model
    /// checker's race-freedom on weaker orders, docs/spec/atomics.md §3.4); left out when
    /// there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sc_executions_only: Option<u64>,
    /// The wrapping sum (mod 2^64) of the FNV-1a hashes of the printed programs checked,
    /// 16 hex digits. Always there in a run's summary; `None` in a merge when a summary had
    /// none (an older version).
    pub programs_hash: Option<String>,
    /// Programs checked that use each feature. Always there in a run's summary; `None` in a
    /// summary of an older version, and in a merge that read one.
    pub features: Option<Features>,
    /// With `--rules`: the cases of its SUT's rules and the programs on which each fired.
    pub rules: Option<Rules>,
}

/// Programs that use each of the [`FEATURES`] (fuzz.schema.json `$defs/features`). The
/// fields are in the JSON's key order (alphabetical); [`Features::counts`] gives them in
/// [`FEATURES`]'s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Features {
    /// A `branch` (`if`).
    pub branch: u64,
    /// A `call`.
    pub call: u64,
    /// A `fork`.
    pub fork: u64,
    /// A `lock`: a lock, acquire or sync block.
    pub lock: u64,
    /// A `loop`: `while` or `loop`.
    #[serde(rename = "loop")]
    pub loops: u64,
}

impl Features {
    /// From counts in [`FEATURES`]'s order.
    pub fn from_counts([lock, call, loops, branch, fork]: [u64; 5]) -> Features {
        Features { branch, call, fork, lock, loops }
    }

    /// The counts in [`FEATURES`]'s order.
    pub fn counts(&self) -> [u64; 5] {
        [self.lock, self.call, self.loops, self.branch, self.fork]
    }

    /// Both counts added up, feature by feature.
    #[must_use]
    pub fn plus(self, other: Features) -> Features {
        let (a, b) = (self.counts(), other.counts());
        Features::from_counts(std::array::from_fn(|k| a[k] + b[k]))
    }
}

/// The rule coverage of one oracle's SUT in a campaign (fuzz.schema.json `$defs/rules`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rules {
    /// The SUT whose rules these are (the catalogue's name).
    pub sut: String,
    /// Its mutant: with a mutant the counts are of the mutated code, which fires whatever
    /// cases it takes.
    pub mutant: Option<String>,
    /// Programs recorded (each check is one): the denominator of the percentages.
    pub programs: u64,
    /// The SUT's rule tables that this oracle exercises, in spec order.
    pub tables: Vec<RuleTable>,
    /// Why a table of the SUT is left out (the oracle never runs that part).
    pub not_exercised: Vec<String>,
}

impl Rules {
    /// `SUT fasttrack`, `SUT fasttrack with mutant M`.
    pub fn whose(&self) -> String {
        format!("SUT {}{}", self.sut, self.mutant.as_ref().map(|m| format!(" with mutant {m}")).unwrap_or_default())
    }

    /// `12 of 14 case(s) fired in 300 program(s); below the floor of 1%: A, B`.
    pub fn brief(&self) -> String {
        let cases: Vec<&RuleCase> = self.tables.iter().flat_map(|t| &t.cases).collect();
        if cases.is_empty() {
            return "it declares no rule cases".into();
        }
        let fired = cases.iter().filter(|c| c.programs > 0).count();
        let below: Vec<&str> = cases.iter().filter(|c| c.below_floor).map(|c| c.case.as_str()).collect();
        let below = if below.is_empty() { String::new() } else { format!("; below the floor of {}%: {}", race_oracles::theorems::rules::FLOOR_PERCENT, below.join(", ")) };
        format!("{fired} of {} case(s) fired in {} program(s){below}", cases.len(), self.programs)
    }
}

/// One rule table of a SUT.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleTable {
    /// The table's SUT (`FastTrack`, `DynamicBF`): a SUT may run another's rules.
    pub sut: String,
    /// The spec section the cases come from.
    pub spec: String,
    /// Its cases, in spec order.
    pub cases: Vec<RuleCase>,
}

/// One case of a rule table, with the programs on which it fired.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleCase {
    /// The case's name (`READ shared, same epoch`).
    pub case: String,
    /// Where the spec states it.
    pub spec: String,
    /// Why the generator seldom reaches it, if the table says.
    pub rare: Option<String>,
    /// Programs on whose check it fired.
    pub programs: u64,
    /// Below `theorems::rules::FLOOR_PERCENT` of the programs and not justified as rare.
    pub below_floor: bool,
}

/// A distinct failure of one run: a signature, its count and its files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// `ORACLE [KINDS] @ STATEMENTS: PROPERTY`.
    pub signature: String,
    /// The oracle that failed.
    pub oracle: String,
    /// Failing programs with this signature.
    pub count: u64,
    /// Its finding files.
    pub written: Vec<PathBuf>,
    /// Its smallest finding file.
    pub smallest: Option<PathBuf>,
    /// The statements of the smallest.
    pub smallest_statements: Option<usize>,
    /// With `--shrink`: the shrunk program (`HASH.shrunk.race`).
    pub shrunk: Option<PathBuf>,
    /// The statements of the shrunk program.
    pub shrunk_statements: Option<usize>,
}

/// Campaigns merged (`racefuzz merge --json`, and the file `--out`;
/// docs/json/merge.schema.json).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Merged {
    /// The summary files counted, sorted by path.
    pub summaries: Vec<PathBuf>,
    /// Summary files left out: they checked the same programs as one counted.
    pub duplicate_summaries: Vec<PathBuf>,
    /// Distinct finding files read.
    pub findings: usize,
    /// Finding files left out as duplicates of one read.
    pub duplicate_findings: usize,
    /// Per sharded campaign: the shards read and those missing.
    pub shards: Vec<ShardSet>,
    /// Programs checked, over every summary counted.
    pub programs: u64,
    /// Totals per oracle, in the order the oracles first appear.
    pub per_oracle: Vec<OracleTotals>,
    /// The sum of the distinct failures' counts.
    pub failing_programs: u64,
    /// The distinct failures: by oracle, most frequent first.
    pub signatures: Vec<MergedFailure>,
    /// Findings that no longer fail, summaries whose streams overlap, rule coverage that
    /// could not be added up.
    pub notes: Vec<String>,
}

/// The shards of one campaign (seed, mutant, shard count) that a merge read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardSet {
    /// The campaign's seed.
    pub seed: u64,
    /// Its mutant.
    pub mutant: Option<String>,
    /// Its number of shards.
    pub count: u64,
    /// The shards read, in order.
    pub present: Vec<u64>,
    /// The shards not read, in order.
    pub missing: Vec<u64>,
}

/// A distinct failure of a merge: a signature under one SUT and mutant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MergedFailure {
    /// The signature.
    pub signature: String,
    /// The oracle that failed.
    pub oracle: String,
    /// The mutant it was found under.
    pub mutant: Option<String>,
    /// The SUT it was found on, if chosen.
    pub sut: Option<String>,
    /// Failing programs with this signature (from the summaries; else its finding files).
    pub count: u64,
    /// Its distinct finding files, sorted.
    pub files: Vec<PathBuf>,
    /// Its smallest finding file (statements, then methods).
    pub smallest: Option<PathBuf>,
    /// The statements of the smallest.
    pub smallest_statements: Option<usize>,
}
