"""The SUT families and the files each one runs: the tables `scripts/sut-coverage` (coverage of
`src/analyses/**` by each family's campaign) and `scripts/mutation` (mutants of those files,
judged by the campaigns of the families that run them) both read.

A family is one campaign: its own oracles (oracles/src/theorems/registry.rs gives the oracles,
src/suts.rs which SUT each one judges) on its SUT (src/suts.rs's name, passed as --sut). A
section is a SUT's files with the families whose SUT runs them.
"""

# The SUT families: (family, SUT, oracles). Negative controls are left out: they judge the
# same code as the family's positive oracle, expected to fail.
FAMILIES = [
    ("fasttrack", "fasttrack", ["fasttrack-precise", "fasttrack-precise-atomics"]),
    ("bigfoot", "bigfoot", ["bigfoot-precise"]),
    ("per-access", "per-access", ["bigfoot-precise"]),
    ("escape", "escape", ["escape-trace-precise"]),
    ("capsule", "capsule", ["capsule-first-race", "capsule-first-race-operational"]),
    ("naik-aiken", "naikaiken", ["naik-aiken-sound"]),
    ("ldrf-analyses", "ldrf-analyses", ["ldrf-sound"]),
    ("racerdx", "racerdx", ["racerdx-tp", "racerdx-complete", "racerdx-reports"]),
]

# Sections of the reports, one per SUT: a heading, the families whose runs are credited
# (scripts/mutation: whose campaigns judge a mutant of the files), the files (a
# path, or a folder ending in `/`, relative to the repository root). Every file of
# src/analyses/** that the binary contains code of must be in exactly one section. A file is
# credited with the families whose SUT runs it: FastTrack's with the per-access family's too,
# whose SUT is the per-access placer and FastTrack on its checks (src/suts.rs), and with
# BigFoot's and the capsule filter's, whose DynamicBF and capsule clocks are FastTrack's
# `Clocks` (bigfoot/dynamic.rs, capsule.rs).
SECTIONS = [
    ("FastTrack (fasttrack-precise, fasttrack-precise-atomics; on checks: the per-access SUT; its clocks: DynamicBF, capsules)", ["fasttrack", "per-access", "bigfoot", "capsule"], ["src/analyses/fasttrack.rs", "src/analyses/fasttrack/"]),
    ("BigFoot: placement, contexts, DynamicBF", ["bigfoot"], ["src/analyses/bigfoot/"]),
    ("Per-access placer (bigfoot-precise --sut per-access)", ["per-access"], ["src/analyses/per_access.rs"]),
    ("Escape filter", ["escape"], ["src/analyses/escape.rs"]),
    ("Capsule filter", ["capsule"], ["src/analyses/capsule.rs"]),
    ("Object graph (shared by the escape and capsule filters)", ["escape", "capsule"], ["src/analyses/object_graph.rs"]),
    ("Naik-Aiken", ["naik-aiken"], ["src/analyses/naik_aiken/"]),
    ("L-DRF sync-CFG analyses", ["ldrf-analyses"], ["src/analyses/ldrf/"]),
    ("RacerDX", ["racerdx"], ["src/analyses/racerdx.rs"]),
]

