//! The rule cases of the sync-CFG analyses (docs/spec/ldrf.md §5): one table for
//! the four analyses of [`super::suite`], since they share the §5.1 fixpoint and differ only
//! in the §5.2 domain and mix. A case fires where the analysis decides it (the fixpoint, a
//! domain's transfer function or mix, the assert check), so `racefuzz gen ldrf-sound --stats`
//! counts what the analyses did on a program, not what the program's text contains.
//!
//! Racy programs never reach the analyses (the `ldrf-sound*` oracles stop at the race, A2),
//! so the shares are of all generated programs, the racy ones counting as "no case fired".

use race_oracles::rule_cases;

rule_cases! {
    /// The cases of the sync-CFG fixpoint (docs/spec/ldrf.md §5.1), of the domains' transfer
    /// functions and mixes (§5.2) and of RATCOP's assert check (§5.3).
    pub enum SyncCfgRule in SYNC_CFG_RULES = "L-DRF sync-CFG analyses", "ldrf.md §5" {
        /// `x := e`: a(n') ⊔= ⟦c⟧ a(n).
        Assign => "assign x := e", "§5.1 assign";
        /// `x := nondet{lo..hi}`.
        Nondet => "assign x := nondet", "§5.1 assign";
        /// An assume every environment of a(n) passes.
        AssumeKeeps => "assume keeps a(n)", "§5.1 assume";
        /// An assume that drops some environments but not all: the branch refines.
        AssumeRefines => "assume refines a(n)", "§5.1 assume";
        /// An assume no environment passes: a(n') is not fed (⊥).
        AssumeBlocks => "assume blocks (⊥)", "§5.1 assume";
        /// An assert as a non-blocking read (A1): a(n') ⊔= a(n).
        Assert => "assert passes a(n) on (A1)", "§5.1, §9 A1";
        /// The skip edges that join branches and close loops.
        Skip => "skip", "§5.1";
        /// `release(m)`: a(n') ⊔= a(n); n' doubles as the buffer.
        Release => "release (post-release point = buffer)", "§5.1 release";
        /// `acquire(m)` while no post-release point of m holds anything: mix of a(n) alone.
        AcquireAlone => "acquire, no post-release point reached", "§5.1 acquire";
        /// `acquire(m)` mixing a(n) with at least one reached post-release point of m.
        AcquireMix => "acquire mixes a(n) with buffers", "§5.1 acquire, §9 A4";
        /// The mix at an acquire holds more than a(n): the buffers brought values.
        AcquireImports => "acquire imports values a(n) lacks", "§5.1 acquire";
        /// An acquire reads a post-release point of its own thread (G full: the spurious
        /// release → acquire loops of Remark 11).
        AcquireOwnRelease => "acquire reads its own thread's release", "§5.1 G, §5.2 Remark 11";
        /// A post-release point grows after an acquire of its lock ran: the sync-CFG edge
        /// n̄ → n sends the acquire round again.
        BufferRequeue => "buffer grows, its acquires re-run", "§5.1 sync-CFG edge";
        /// A location reached again on another edge grows by the join.
        JoinMerge => "join at a merge point grows", "§5.1 LFP";
        /// A loop head grows by its back edge (no widening: finite lattice mod K).
        JoinLoopHead => "join at a loop head grows", "§5.1 LFP, §6.2 (a)";
        /// A location stays ⊥ at the fixpoint (dead code, a blocked branch).
        Unreached => "a location stays ⊥", "§5.1 LFP";
        /// The per-variable or region mix holds an environment no input holds: it forgot
        /// a correlation between blocks (why it is sound where the naive union is not).
        MixCombines => "var/region mix makes a new environment", "§5.1 mix, §5.2 mix_R";
        /// The region mix keeps a correlation inside a declared region: a region's tuples
        /// are fewer than the product of its variables' values.
        RegionKeeps => "region mix keeps a correlation in a region", "§5.2 mix_R";
        /// The naive union of whole environments keeps a correlation the var-mix would
        /// forget (the R5 unsoundness when the thread's own snapshot differs).
        NaiveUnion => "naive union keeps whole environments", "§5.2 naive relational";
        /// An assignment reads another block: x's block is recomputed from every
        /// combination of the blocks it touches.
        AssignProduct => "tuple domain: assign over several blocks", "§5.2 value-set/region";
        /// `+ - *` on intervals within one period of K: exact.
        IntervalExact => "interval arithmetic, no wrap", "§5.2 A5, §6.2 (a)";
        /// A result wholly past a boundary of K: shifted by K, exact.
        IntervalShift => "interval wholly wraps, shifted", "§5.2 A5, §6.2 (a)";
        /// A result straddling a boundary of K: ⊤.
        IntervalTop => "interval straddles K, goes to ⊤", "§5.2 A5, §6.2 (a)";
        /// An operator without an interval rule (`/`, `%`): the hull of the concrete results.
        IntervalHull => "interval of other operator (hull)", "§5.2 A5";
        /// An assert whose location's fact implies it.
        AssertProved => "assert proved", "§5.3";
        /// An assert the fact at its location does not imply (RATCOP logs the fact).
        AssertUnproved => "assert not proved", "§5.3";
        /// An assert at a location that stays ⊥: proved vacuously.
        AssertVacuous => "assert proved vacuously (unreached)", "§5.3";
    }
}
