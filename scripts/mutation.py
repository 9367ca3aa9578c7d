#!/usr/bin/env python3
"""Mutation testing of the systems under test: the runs and the report.

What: lists cargo-mutants' mutants of `src/analyses/**`, judges each one by the campaigns of
the SUT families that run its file (scripts/sut_families.py: a section's families; each its
own oracles on its own SUT, a fixed seed and a fixed program budget per oracle), and reports
per SUT the mutants caught, missed, unviable (they do not build) and timed out, the missed
ones annotated equivalent (with a one-line argument) apart, and the mutation score.

How: called by `scripts/mutation`, which checks the tools first; run that, not this.
Subcommands:
    mutation.py run    --work DIR --programs N --seed S --lanes L [--section S]... [--re RE]... [--missed] [--smoke]
    mutation.py report --results FILE --notes FILE [--out FILE]
`run` copies the working tree (tracked and untracked files, not ignored ones) into one
scratch tree per lane, DIR/lane-K/tree, where cargo-mutants mutates in place (the source tree
is never touched), and runs `cargo mutants` once per section, its mutants split among the
lanes (`--shard K/L`), each mutant built with the `mutants` profile (Cargo.toml) and judged by
`cargo test --test mutation_campaign` (tests/mutation_campaign.rs), which runs the campaigns
it is given in RACEFUZZ_MUTATION_CAMPAIGNS. Every mutant's outcome goes to DIR/results.json,
keyed by its name; a later run with the same budget and seed replaces the outcomes of the
mutants it ran and keeps the others', so that after a generator change the missed mutants
can be judged again (`--missed`) without the hours of a whole run. results.json also lists
every mutant, so that `report`, which reads it and the notes file, needs no cargo-mutants
(docs/mutation.json is the committed copy behind docs/mutation.md).

Notes file (docs/mutation-notes.txt): for a mutant, its name as cargo-mutants lists it on
one line, then indented lines `equivalent: WHY` (a missed mutant no campaign can catch: the
mutated code behaves the same, is unreachable by construction, or breaks a property no oracle
claims), `caught by: CHANGE` (the generator change that made the campaign catch it) or
`shape: PROGRAM` (a missed mutant no generator draws the program for yet: the shape it
needs, shown beside it in the report). `#` starts a comment. A note on a mutant that is no longer listed, or `equivalent` on a caught
one, is reported as stale.

Output is deterministic: no times, no absolute paths; the same outcomes give the same report
byte for byte.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# The families and the sections, one per SUT (scripts/sut_families.py, shared with
# scripts/sut-coverage).
from sut_families import FAMILIES, SECTIONS

ROOT = Path(__file__).resolve().parent.parent
MEASURED = "src/analyses/"
# cargo-mutants' exit codes that still mean every mutant was judged: 0 all caught, 2 some
# missed, 3 some timed out (mutants.rs, "Exit codes").
JUDGED = {0, 2, 3}
OUTCOMES = ["caught", "missed", "timeout", "unviable"]
# The mutants `run --smoke` judges (CI runs it, so that the runner cannot rot), each with the
# outcome it must have: two the campaigns catch, one equivalent (docs/mutation-notes.txt).
# Names without line and column, which move with every edit of the file.
SMOKE = [
    (r"^src/analyses/fasttrack\.rs:\d+:\d+: replace <= with > in Epoch::below$", "caught"),
    (r"^src/analyses/ldrf/interval\.rs:\d+:\d+: replace Intervals::top -> Itv with Default::default\(\)$", "caught"),
    (r"^src/analyses/per_access\.rs:\d+:\d+: replace <impl CheckPlacer for PerAccess>::name -> String with String::new\(\)$", "missed"),
]


def die(msg):
    print(f"mutation: {msg}", file=sys.stderr)
    sys.exit(2)


def slug(title):
    """A section's short name: the words of its heading before the first punctuation."""
    return re.sub(r"[^a-z0-9]+", "-", re.split(r"[(:]", title)[0].strip().lower()).strip("-")


def section_of(path):
    """The section whose files hold `path`, or None."""
    for title, fams, paths in SECTIONS:
        if any(path == p or (p.endswith("/") and path.startswith(p)) for p in paths):
            return title, fams, paths
    return None


def campaigns(fams, programs, seed, baselines):
    """Each family's campaign for tests/mutation_campaign.rs: its `racefuzz fuzz` arguments
    (the test adds --stop-after 1, --jobs 1, --json and --out) and each oracle's count of
    inconclusive verdicts on the unmutated code."""
    by_name = {f: (sut, oracles) for f, sut, oracles in FAMILIES}
    return [{"args": [*by_name[f][1], "--sut", by_name[f][0], "--max-programs", str(programs), "--seed", str(seed)], "inconclusive": baselines[f]} for f in fams]


def baseline(tree, fams, programs, seed):
    """family -> {oracle: inconclusive verdicts} of each family's campaign on the unmutated
    build of `tree` (a lane's copy, before any mutant)."""
    p = subprocess.run(["cargo", "build", "--profile", "mutants", "--bin", "racefuzz"], cwd=tree, capture_output=True, text=True)
    if p.returncode != 0:
        die(f"the unmutated tree does not build:\n{p.stderr}")
    out = {}
    for f in fams:
        args = campaigns([f], programs, seed, {f: {}})[0]["args"]
        found = tree / "target" / "mutation-baseline"
        shutil.rmtree(found, ignore_errors=True)
        p = subprocess.run([str(tree / "target" / "mutants" / "racefuzz"), "fuzz", *args, "--jobs", "1", "--json", "--out", str(found)], capture_output=True, text=True)
        if p.returncode != 0:
            die(f"the {f} campaign fails on the unmutated code (exit {p.returncode}): fix that first\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
        out[f] = {row["oracle"]: row["inconclusive"] for row in json.loads(p.stdout)["per_oracle"]}
        print(f"mutation: baseline {f}: " + ", ".join(f"{o} {n} inconclusive" for o, n in sorted(out[f].items())), file=sys.stderr, flush=True)
    return out


def list_mutants():
    """cargo-mutants' mutants of src/analyses/**, each with its section."""
    p = subprocess.run(["cargo", "mutants", "--list", "--json", "--file", f"{MEASURED}**"], cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        die(f"cargo mutants --list failed:\n{p.stderr}")
    out = []
    for m in json.loads(p.stdout):
        sec = section_of(m["file"])
        if sec is None:
            die(f"{m['file']} is in no section of scripts/sut_families.py (add it)")
        fn = m.get("function") or {}
        out.append({"name": m["name"], "file": m["file"], "function": fn.get("function_name", "(no function)"), "section": slug(sec[0])})
    return out


def tree_files():
    """The working tree's files: tracked and untracked, not ignored, that exist."""
    p = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, check=True)
    return sorted({f for f in p.stdout.decode().split("\0") if f and (ROOT / f).is_file()})


def sync(tree, files):
    """Make `tree` hold exactly `files` of the source tree (its target/ aside), copying only
    what changed, so that its incremental build stays warm."""
    tree.mkdir(parents=True, exist_ok=True)
    wanted = set(files)
    for f in files:
        src, dst = ROOT / f, tree / f
        data = src.read_bytes()
        if not dst.is_file() or dst.read_bytes() != data:
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(data)
            shutil.copymode(src, dst)
    for dst in tree.rglob("*"):
        rel = dst.relative_to(tree).as_posix()
        if dst.is_file() and not rel.startswith(("target/", "mutants.out")) and rel not in wanted:
            dst.unlink()


def exact(name):
    """A regex (Rust's regex crate) matching exactly `name`."""
    return "^" + re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", name) + "$"


def read_outcomes(out_dir):
    """name -> (outcome, programs, by) from a cargo-mutants output folder, finished or not
    (its caught.txt, missed.txt, timeout.txt and unviable.txt grow one line per mutant
    judged). For a caught mutant, programs is what its failing campaign checked up to and
    including the first failure (tests/mutation_campaign.rs prints it), and by is
    "inconclusive" when no campaign failed but one's inconclusive verdicts changed."""
    outs = out_dir / "mutants.out"
    res = {}
    for outcome in OUTCOMES:
        path = outs / f"{outcome}.txt"
        for name in path.read_text().splitlines() if path.exists() else []:
            res[name] = (outcome, None, None)
    for log in sorted((outs / "log").glob("*.log")) if (outs / "log").is_dir() else []:
        text = log.read_text(errors="replace")
        m = re.search(r"^\*\*\* (.+)$", text, re.M)
        if m and res.get(m.group(1), ("",))[0] == "caught":
            counts = re.findall(r"^mutation_campaign: (\d+) programs checked", text, re.M)
            by = "inconclusive" if "mutation_campaign: caught by inconclusive verdicts" in text else None
            res[m.group(1)] = ("caught", int(counts[-1]) if counts and by is None else None, by)
    return res


def code_key(files):
    """A hash of what decides a mutant's outcome: the crates' sources, the campaign test, the
    manifests and the families' table (not the docs or the other scripts)."""
    h = hashlib.sha256()
    for f in files:
        if f.startswith(("src/", "oracles/")) or f in ("Cargo.toml", "Cargo.lock", "tests/mutation_campaign.rs", "scripts/sut_families.py"):
            h.update(f.encode() + b"\0" + (ROOT / f).read_bytes() + b"\0")
    return h.hexdigest()[:12]


def sample(mutants, k):
    """At most `k` mutants per function (per file for code outside one), the first in the
    order of their names' SHA-256: deterministic, and every function is represented."""
    groups = {}
    for m in mutants:
        groups.setdefault((m["file"], m["function"]), []).append(m)
    keep = {m["name"] for g in groups.values() for m in sorted(g, key=lambda m: hashlib.sha256(m["name"].encode()).hexdigest())[:k]}
    return [m for m in mutants if m["name"] in keep]


def shard(work, lane, lanes, title, fams, paths, res, args):
    """One lane's share of one section: cargo mutants in the lane's tree."""
    tree = work / f"lane-{lane}" / "tree"
    out = work / f"lane-{lane}" / slug(title)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    # The code the outcomes belong to, so that an interrupted run's are kept (salvage).
    (out / "code").write_text(args.key + "\n")
    files = [a for p in paths for a in ("--file", p + "**" if p.endswith("/") else p)]
    cmd = ["cargo", "mutants", "--in-place", "--dir", str(tree), "--no-shuffle", "--no-times", "--colors", "never",
           "--profile", "mutants", "--cargo-arg=--test=mutation_campaign", "--minimum-test-timeout", "120",
           "--shard", f"{lane}/{lanes}", "--output", str(out), *files, *[a for r in res for a in ("--re", r)]]
    env = dict(os.environ, RACEFUZZ_MUTATION_CAMPAIGNS=json.dumps(campaigns(fams, args.programs, args.seed, args.baselines)))
    with open(out / "cargo-mutants.log", "w") as log:
        code = subprocess.run(cmd, env=env, stdout=log, stderr=subprocess.STDOUT).returncode
    judged = read_outcomes(out)
    if code not in JUDGED:
        die(f"cargo mutants failed (exit {code}) on {slug(title)}, lane {lane}: see {out / 'cargo-mutants.log'}")
    return judged


def record(outcome, programs, by, key, commit):
    """A mutant's entry of results.json."""
    extra = {"programs": programs} if programs is not None else {}
    return {"outcome": outcome, "code": key, "commit": commit, **extra, **({"by": by} if by else {})}


def salvage(work, key, commit, known, results):
    """Keep the outcomes of an interrupted run on the same code (the lanes' output folders)."""
    for code in sorted(work.glob("lane-*/*/code")):
        if code.read_text().strip() != key:
            continue
        for name, (outcome, programs, by) in read_outcomes(code.parent).items():
            if name in known and results["mutants"].get(name, {}).get("code") != key:
                results["mutants"][name] = record(outcome, programs, by, key, commit)


def run(args):
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    mutants = list_mutants()
    results_path = work / "results.json"
    results = json.loads(results_path.read_text()) if results_path.exists() else {"programs": args.programs, "seed": args.seed, "mutants": {}}
    if (results["programs"], results["seed"]) != (args.programs, args.seed):
        die(f"{results_path} holds outcomes at --programs {results['programs']} --seed {results['seed']}: give the same, or remove it for a fresh run")
    known = {m["name"] for m in mutants}
    # Outcomes of mutants no longer listed (the code moved) would be counted for nothing.
    results["mutants"] = {n: r for n, r in results["mutants"].items() if n in known}
    # The report reads the list from here, so that it renders without cargo-mutants.
    results["listed"] = {m["name"]: {k: m[k] for k in ("file", "function", "section")} for m in mutants}
    only = set(args.section or [])
    unknown = only - {slug(t) for t, _, _ in SECTIONS}
    if unknown:
        die(f"no section {', '.join(sorted(unknown))} (sections: {', '.join(slug(t) for t, _, _ in SECTIONS)})")
    chosen = [m for m in mutants if (not only or m["section"] in only)]
    if args.re:
        pats = [re.compile(r) for r in args.re]
        chosen = [m for m in chosen if any(p.search(m["name"]) for p in pats)]
    expect = {}
    if args.smoke:
        chosen = []
        for pat, want in SMOKE:
            hits = [m for m in mutants if re.search(pat, m["name"])]
            if len(hits) != 1:
                die(f"--smoke: {len(hits)} mutants match {pat}, not one (update SMOKE in scripts/mutation.py)")
            chosen += hits
            expect[hits[0]["name"]] = want
    if args.sample:
        chosen = sample(chosen, args.sample)
    files = tree_files()
    args.key = code_key(files)
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    salvage(work, args.key, commit, known, results)
    if args.missed:
        chosen = [m for m in chosen if results["mutants"].get(m["name"], {}).get("outcome") in (None, "missed")]
    if not (args.again or args.smoke):
        # What this code was judged on already (an interrupted run resumes).
        chosen = [m for m in chosen if results["mutants"].get(m["name"], {}).get("code") != args.key]
    results_path.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    if not chosen:
        print("mutation: every mutant chosen is judged on this code already (--again judges them again)", file=sys.stderr)
        return
    lanes = max(1, min(args.lanes, len(chosen)))
    for lane in range(lanes):
        sync(work / f"lane-{lane}" / "tree", files)
    fams = sorted({f for title, fs, _ in SECTIONS if any(m["section"] == slug(title) for m in chosen) for f in fs})
    cached = results.setdefault("baselines", {})
    if cached.get("code") != args.key or not set(fams) <= set(cached.get("families", {})):
        have = cached.get("families", {}) if cached.get("code") == args.key else {}
        have.update(baseline(work / "lane-0" / "tree", [f for f in fams if f not in have], args.programs, args.seed))
        results["baselines"] = {"code": args.key, "families": have}
    args.baselines = results["baselines"]["families"]
    for title, fams, paths in SECTIONS:
        names = [m["name"] for m in chosen if m["section"] == slug(title)]
        if not names:
            continue
        # Exact names, unless every mutant of the section runs (a shorter command line).
        everything = len(names) == sum(1 for m in mutants if m["section"] == slug(title))
        res = [] if everything else [exact(n) for n in names]
        k = max(1, min(lanes, len(names)))
        print(f"mutation: {slug(title)}: {len(names)} mutant(s) on {k} lane(s), judged by {', '.join(fams)}", file=sys.stderr, flush=True)
        with ThreadPoolExecutor(k) as pool:
            parts = list(pool.map(lambda lane: shard(work, lane, k, title, fams, paths, res, args), range(k)))
        judged = {n: o for part in parts for n, o in part.items()}
        missing = sorted(set(names) - set(judged))
        if missing:
            die(f"{slug(title)}: cargo-mutants judged no outcome for {len(missing)} mutant(s), e.g. {missing[0]}")
        for n in names:
            results["mutants"][n] = record(*judged[n], args.key, commit)
        counts = {o: sum(1 for n in names if judged[n][0] == o) for o in OUTCOMES}
        print(f"mutation: {slug(title)}: " + ", ".join(f"{v} {o}" for o, v in counts.items()), file=sys.stderr, flush=True)
        results_path.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    if args.smoke:
        wrong = [(n, want, results["mutants"][n]["outcome"]) for n, want in sorted(expect.items()) if results["mutants"][n]["outcome"] != want]
        for name, want, got in wrong:
            print(f"mutation: --smoke: `{name}` was {got}, not {want}", file=sys.stderr)
        if wrong:
            sys.exit(1)
        print(f"mutation: --smoke: the {len(SMOKE)} mutants were judged as predicted", file=sys.stderr)


# ---------------------------------------------------------------- the report


def read_notes(path):
    """name -> {"equivalent": why}, {"caught by": change} or {"shape": the program a missed
    mutant needs}, and the line of each note."""
    notes, lines, name = {}, {}, None
    if not path or not Path(path).exists():
        return notes, lines
    for k, raw in enumerate(Path(path).read_text().splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if not raw[0].isspace():
            name = raw.strip()
            notes.setdefault(name, {})
            lines[name] = k
            continue
        m = re.match(r"\s+(equivalent|caught by|shape):\s*(\S.*)$", raw)
        if name is None or not m:
            die(f"{path}:{k}: expected an indented `equivalent: WHY`, `caught by: CHANGE` or `shape: PROGRAM` under a mutant's name")
        notes[name][m.group(1)] = m.group(2)
    return notes, lines


def report(args):
    results_path = Path(args.results)
    if not results_path.exists():
        die(f"{results_path} is missing: run the mutants first")
    results = json.loads(results_path.read_text())
    mutants = [{"name": n, **m} for n, m in sorted(results["listed"].items())]
    notes, note_lines = read_notes(args.notes)
    judged = results["mutants"]
    lines = []
    w = lines.append
    w("# Mutation testing of the systems under test")
    w("")
    w("<!-- Generated by scripts/mutation (scripts/mutation.py report); do not edit by hand: edit")
    w(f"     {args.notes} and rerun `scripts/mutation --report-only --out docs/mutation.md`. -->")
    w("")
    w(
        f"Every mutant cargo-mutants makes of `{MEASURED}**` is judged by the campaigns of the families whose SUT runs its "
        f"file: their own oracles on their own SUT, seed {results['seed']}, {results['programs']:,} programs per oracle, stopped "
        "at the first failure (tests/mutation_campaign.rs). A mutant is *caught* when a campaign fails, *missed* when every "
        "campaign passes, *unviable* when it does not build, *timed out* when a campaign outruns cargo-mutants' timeout "
        "(counted as caught: a SUT that hangs is found by the campaign). *Equivalent* mutants are missed ones no campaign "
        f"can catch, each with its argument ({args.notes}). Score: (caught + timed out) / (mutants − unviable − equivalent − not run)."
    )
    w("")
    trees = sorted({(r["commit"], r["code"]) for r in judged.values()})
    w("Outcomes judged on: " + (", ".join(f"`{c}` (code `{k}`, {sum(1 for r in judged.values() if r['code'] == k)} mutants)" for c, k in trees) or "nothing yet") + ".")
    w("")
    w("| SUT | families | mutants | caught | missed | timed out | unviable | equivalent | not run | score |")
    w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    detail = []
    stale = []
    names = {m["name"] for m in mutants}
    for n in sorted(set(notes) - names):
        stale.append(f"`{n}` (line {note_lines[n]}): no such mutant")
    total = {k: 0 for k in ["mutants", "caught", "missed", "timeout", "unviable", "equivalent", "not run"]}
    for title, fams, _paths in SECTIONS:
        ms = sorted((m for m in mutants if m["section"] == slug(title)), key=lambda m: m["name"])
        if not ms:
            continue
        c = {k: 0 for k in total}
        c["mutants"] = len(ms)
        missed, equivalent, caught_by = [], [], []
        for m in ms:
            o = judged.get(m["name"], {}).get("outcome")
            note = notes.get(m["name"], {})
            if o is None:
                c["not run"] += 1
            elif o == "missed" and "equivalent" in note:
                c["equivalent"] += 1
                equivalent.append((m, note["equivalent"]))
            else:
                c[o] += 1
                if o == "missed":
                    missed.append(m)
            if "equivalent" in note and o not in (None, "missed"):
                stale.append(f"`{m['name']}` (line {note_lines[m['name']]}): noted equivalent, but {o}")
            if "shape" in note and o in ("caught", "timeout"):
                stale.append(f"`{m['name']}` (line {note_lines[m['name']]}): noted with the shape it needs, but {o}")
            if "caught by" in note:
                if o in ("caught", "timeout"):
                    caught_by.append((m, note["caught by"]))
                elif o is not None:
                    stale.append(f"`{m['name']}` (line {note_lines[m['name']]}): noted caught by a change, but {o}")
        for k in total:
            total[k] += c[k]
        w(f"| {title} | {', '.join(fams)} | {c['mutants']} | {c['caught']} | {c['missed']} | {c['timeout']} | {c['unviable']} | {c['equivalent']} | {c['not run']} | {score(c)} |")
        detail.append((title, missed, equivalent, caught_by))
    w(f"| **all** | | {total['mutants']} | {total['caught']} | {total['missed']} | {total['timeout']} | {total['unviable']} | {total['equivalent']} | {total['not run']} | {score(total)} |")
    w("")
    # The budget's margin: how many programs the caught mutants' failing campaigns checked.
    w("Caught mutants by the programs their failing campaign checked up to the first failure (over the campaign's "
      "oracles, which take turns), those caught by a changed count of inconclusive verdicts instead, and those whose "
      "count was not recorded (judged before the runner printed it):")
    w("")
    w("| SUT | caught | ≤ 10 | ≤ 100 | ≤ 1,000 | more | most | by inconclusive verdicts | not recorded |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for title, _fams, _paths in SECTIONS:
        rs = [judged[m["name"]] for m in mutants if m["section"] == slug(title) and judged.get(m["name"], {}).get("outcome") == "caught"]
        ps = sorted(r["programs"] for r in rs if "programs" in r)
        by = sum(1 for r in rs if r.get("by") == "inconclusive")
        if rs:
            b = [sum(1 for p in ps if p <= k) for k in (10, 100, 1000)]
            w(f"| {title} | {len(rs)} | {b[0]} | {b[1] - b[0]} | {b[2] - b[1]} | {len(ps) - b[2]} | {f'{ps[-1]:,}' if ps else '–'} | {by} | {len(rs) - len(ps) - by} |")
    w("")
    for title, missed, equivalent, caught_by in detail:
        if not (missed or equivalent or caught_by):
            continue
        w(f"## {title}")
        w("")
        if missed:
            w("Missed (a question for the generators):")
            w("")
            for m in missed:
                shape = notes.get(m["name"], {}).get("shape")
                w(f"- `{m['name']}`" + (f": needs {shape}" if shape else ""))
            w("")
        for heading, notes_of in (("Caught after a change:", caught_by), ("Equivalent:", equivalent)):
            if notes_of:
                w(heading)
                w("")
                for m, why in notes_of:
                    w(f"- `{m['name']}`: {why}")
                w("")
    if stale:
        w("## Stale notes")
        w("")
        for s in sorted(stale):
            w(f"- {s}")
        w("")
    text = "\n".join(lines)
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)


def score(c):
    live = c["mutants"] - c["unviable"] - c["equivalent"] - c["not run"]
    return f"{100 * (c['caught'] + c['timeout']) / live:.1f}%" if live else "–"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--work", required=True)
    r.add_argument("--programs", type=int, required=True)
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--lanes", type=int, default=2)
    r.add_argument("--section", action="append")
    r.add_argument("--re", action="append")
    r.add_argument("--missed", action="store_true")
    r.add_argument("--smoke", action="store_true")
    r.add_argument("--sample", type=int)
    r.add_argument("--again", action="store_true")
    p = sub.add_parser("report")
    p.add_argument("--results", required=True)
    p.add_argument("--notes", required=True)
    p.add_argument("--out")
    args = ap.parse_args()
    run(args) if args.cmd == "run" else report(args)


if __name__ == "__main__":
    main()
