#!/usr/bin/env python3
"""Coverage of the systems under test by a fixed-seed campaign: the runs and the report.

What: runs one `racefuzz fuzz` campaign per SUT family (its own oracles on its own SUT, a
fixed seed and a fixed program budget per oracle), then one mutant hunt per seeded bug of that
SUT (the same campaign with `--mutant`, a smaller budget), with an instrumented racefuzz, keeps
each family's profile data apart (the hunts' in `<family>+mutants`), and reports, per file of
`src/analyses/**`, region and line coverage credited to the runs of the families whose SUT
runs the file only, the campaign's regions and those only the hunts reach apart; then those
regions and every uncovered region with its function and source line, marked "justified"
(with the reason from the justification file) or "not reached".

How: called by `scripts/sut-coverage`, which checks the tools and builds the instrumented
binary first; run that, not this. Subcommands:
    sut-coverage.py run    --bin BIN --work DIR --programs N --mutant-programs M --seed S [--family F]...
    sut-coverage.py report --bin BIN --work DIR --justified FILE [--out FILE]
`run` writes DIR/<family>/*.profraw, DIR/<family>/campaign.txt and DIR/meta.json; `report`
reads them (so a report can be regenerated after editing justifications, without a rerun).

How long: `run` is about 40 ms per program budget unit on one core (10,000 programs per
oracle: about 7 minutes); `report` takes a few seconds.

Justification file: one line per justification, `KEY REASON`, where KEY is
`path:LINE:COL` (one region), `path:LINE` or `path:FIRST-LAST` (the uncovered regions that
start on those lines), `path:FUNCTION` (every uncovered region of that function, as the
report names it: `Type::method`, `function::{closure}`) or `path:*` (the whole file); the
most specific key wins. `#` starts a comment. A key that matches nothing uncovered is listed
as stale, so that a justification does not outlive the code it was written for.

Output is deterministic: no times, no absolute paths; the same code and budget give the
same report byte for byte.
"""

import argparse
import functools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

# The families and the sections of the report (scripts/sut_families.py, shared with
# scripts/mutation).
from sut_families import FAMILIES, SECTIONS

# Families whose SUT has rule-coverage probes that run only while rule coverage is recorded
# (theorems::rules::recording: deciding the case costs more than the SUT's own step). Their run
# adds the rule-coverage measurement the project keeps, `racefuzz gen ORACLE --stats` over the
# as many programs of the oracle's generator as the campaign, same seed, credited to the campaign.
PROBED = {"bigfoot", "fasttrack", "ldrf-analyses"}

# The folder of a family's mutant hunts' profile data, next to its campaign's.
HUNTS = "{}+mutants"

ROOT = Path(__file__).resolve().parent.parent
MEASURED = "src/analyses/"


def die(msg):
    print(f"sut-coverage: {msg}", file=sys.stderr)
    sys.exit(2)


def llvm_tool(name):
    """The llvm tool of the active toolchain (rustup component llvm-tools)."""
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout.strip()
    host = re.search(r"^host: (\S+)$", subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout, re.M).group(1)
    path = Path(sysroot) / "lib" / "rustlib" / host / "bin" / name
    if not path.exists():
        die(f"{path} is missing: rustup component add llvm-tools")
    return str(path)


# ---------------------------------------------------------------- the campaign runs


def campaign_cmd(oracles, sut, mutant, programs, seed, out):
    # --time is a safety net only: the program budget ends the campaign long before it, so
    # that the programs, and so the coverage, depend on the seed alone.
    m = ["--mutant", mutant] if mutant else []
    return ["fuzz", *oracles, "--sut", sut, *m, "--max-programs", str(programs), "--seed", str(seed), "--time", "3h", "--jobs", "1", "--out", str(out)]


def mutants_of(bin_path, work):
    """The seeded bugs by SUT name, in catalogue order: [(name, [oracles it is predicted for])]."""
    # The binary is instrumented: its profile goes to the work folder (no family's), not to
    # the current directory.
    env = dict(os.environ, LLVM_PROFILE_FILE=str(work / "catalogue-%p.profraw"))
    p = subprocess.run([bin_path, "mutants", "--json"], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        die(f"racefuzz mutants --json failed:\n{p.stderr}")
    out = {}
    for m in json.loads(p.stdout)["mutants"]:
        out.setdefault(m["sut"], []).append((m["name"], [o for o, _ in m["predicted"]]))
    return out


def parse_campaign(text):
    """The per-oracle rows of a campaign's summary: oracle -> (checked, pass, fail, inconclusive)."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s", line)
        if m:
            rows[m.group(1)] = tuple(int(m.group(i)) for i in range(2, 6))
    return rows


def campaign(bin_path, d, name, oracles, sut, mutant, programs, seed):
    """One campaign with its profile data in `d`: its summary rows and exit code."""
    cmd = [bin_path, *campaign_cmd(oracles, sut, mutant, programs, seed, d / "found")]
    env = dict(os.environ, LLVM_PROFILE_FILE=str(d / "%p-%m.profraw"))
    print(f"sut-coverage: {name}: racefuzz {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    (d / f"campaign{'-' + mutant if mutant else ''}.txt").write_text(p.stdout + p.stderr)
    # 0: no counterexample; 1: counterexamples found (kept in d/found, reported below).
    if p.returncode not in (0, 1):
        die(f"the {name} campaign failed with exit code {p.returncode}:\n{p.stdout}{p.stderr}")
    rows = parse_campaign(p.stdout)
    for o in oracles:
        if o not in rows:
            die(f"the {name} campaign printed no row for {o}:\n{p.stdout}")
        if rows[o][0] != programs:
            die(f"{o} checked {rows[o][0]} programs, not {programs} (did the time limit cut it?)")
    last = [l for l in p.stdout.splitlines() if "programs in" in l]
    print(f"sut-coverage: {name}: {last[0] if last else 'done'}", file=sys.stderr, flush=True)
    return {o: rows[o] for o in oracles}, p.returncode


def rule_stats(bin_path, d, name, oracles, programs, seed):
    """`racefuzz gen ORACLE --stats` for each oracle, its profile data in `d`."""
    env = dict(os.environ, LLVM_PROFILE_FILE=str(d / "%p-%m.profraw"))
    for o in oracles:
        cmd = [bin_path, "gen", o, "--count", str(programs), "--seed", str(seed), "--stats"]
        print(f"sut-coverage: {name}: racefuzz {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        (d / f"rules-{o}.txt").write_text(p.stdout + p.stderr)
        if p.returncode != 0:
            die(f"the {name} rule-coverage run failed with exit code {p.returncode}:\n{p.stdout}{p.stderr}")


def run(args):
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    mutants = mutants_of(args.bin, work)
    meta = {"programs": args.programs, "mutant_programs": args.mutant_programs, "seed": args.seed, "families": {}}
    only = set(args.family or [])
    unknown = only - {f for f, _, _ in FAMILIES}
    if unknown:
        die(f"no family {', '.join(sorted(unknown))} (families: {', '.join(f for f, _, _ in FAMILIES)})")
    old = json.loads((work / "meta.json").read_text()) if only and (work / "meta.json").exists() else None
    if old is not None and (old.get("programs"), old.get("mutant_programs"), old.get("seed")) != (args.programs, args.mutant_programs, args.seed):
        die("--family reruns some families of the last run: give it the same --programs, --mutant-programs and --seed")
    for family, sut, oracles in FAMILIES:
        if only and family not in only:
            if old is None or family not in old["families"]:
                die(f"--family: no earlier run of {family} to keep; run every family first")
            meta["families"][family] = old["families"][family]
            continue
        d = work / family
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir()
        rows, code = campaign(args.bin, d, family, oracles, sut, None, args.programs, args.seed)
        meta["families"][family] = {"oracles": oracles, "sut": sut, "rows": rows, "exit": code, "hunts": []}
        if family in PROBED:
            rule_stats(args.bin, d, family, oracles, args.programs, args.seed)
        h = work / HUNTS.format(family)
        shutil.rmtree(h, ignore_errors=True)
        h.mkdir()
        for name, predicted in mutants.get(sut, []) if args.mutant_programs else []:
            # The oracles the mutant is predicted for, among the family's; else all of them.
            hunted = [o for o in oracles if o in predicted] or oracles
            rows, code = campaign(args.bin, h, f"{family} {name}", hunted, sut, name, args.mutant_programs, args.seed)
            meta["families"][family]["hunts"].append({"mutant": name, "oracles": hunted, "rows": rows, "caught": code == 1})
    (work / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")


# ---------------------------------------------------------------- coverage data


_EXPORTS = {}


def export(bin_path, work, families):
    """llvm-cov's JSON export for the merged profiles of `families` (once per set)."""
    key = tuple(families)
    if key not in _EXPORTS:
        _EXPORTS[key] = _export(bin_path, work, families)
    return _EXPORTS[key]


def _export(bin_path, work, families):
    raws = sorted(str(p) for f in families for p in (work / f).glob("*.profraw"))
    if not any((work / f).glob("*.profraw") for f in families if "+" not in f):
        die(f"no profile data for {families} in {work}: run the campaigns first")
    profdata = work / ("+".join(families) + ".profdata")
    subprocess.run([llvm_tool("llvm-profdata"), "merge", "-sparse", "-o", str(profdata), *raws], check=True)
    out = subprocess.run([llvm_tool("llvm-cov"), "export", "-format=text", f"-instr-profile={profdata}", bin_path], capture_output=True, text=True, check=True).stdout
    return json.loads(out)["data"][0]


@functools.lru_cache(maxsize=None)
def rel(path):
    """`path` relative to the repository root, or None outside it."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return None


class SourceFile:
    """A source file's lines and the names of the functions in it."""

    def __init__(self, path):
        self.lines = (ROOT / path).read_text().split("\n")
        self.named = []  # (start, end, name) of each named function's span

    def line(self, n):
        return self.lines[n - 1] if 0 < n <= len(self.lines) else ""

    def fn_name(self, line, col):
        """`Type::name` for a function whose coverage starts at line:col, or None (a closure,
        derived or macro code)."""
        m = re.match(r"\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+\"[^\"]*\"\s+)?fn\s+(\w+)", self.line(line)[col - 1 :])
        if not m:
            return None
        indent = len(self.line(line)) - len(self.line(line).lstrip())
        for k in range(line - 1, 0, -1):
            text = self.line(k)
            ind = len(text) - len(text.lstrip())
            if text.strip() and ind < indent:
                im = re.match(r"\s*impl\b(?:<[^{]*?>)?\s+(?:.*?\bfor\s+)?(?:[\w:]*::)?(\w+)", text)
                tm = re.match(r"\s*(?:pub(?:\([^)]*\))?\s+)?trait\s+(\w+)", text)
                if im or tm:
                    return f"{(im or tm).group(1)}::{m.group(1)}"
                if ind == 0:
                    break
        return m.group(1)

    def function_at(self, line, col):
        """The innermost named function containing line:col."""
        inside = [(s, e, n) for s, e, n in self.named if s <= (line, col) <= e]
        return min(inside, key=lambda t: (t[1][0] - t[0][0], t[1][1] - t[0][1]))[2] if inside else None


def measure(data, files):
    """Per file: llvm-cov's region and line summary, and the regions never run with the
    function each one is in. Regions of the instantiations of one generic function are
    merged (a region is reached when any instantiation runs it), as llvm-cov's summary does."""
    out = {}
    for f in data["files"]:
        path = rel(f["filename"])
        if path in files:
            out[path] = {"regions": f["summary"]["regions"], "lines": f["summary"]["lines"], "uncovered": []}
    sources = {path: SourceFile(path) for path in out}
    counts = {path: {} for path in out}  # (l, c, le, ce) -> (max count, function record start)
    for fn in data["functions"]:
        for ls, cs, le, ce, n, fid, _efid, kind in fn["regions"]:
            path = rel(fn["filenames"][fid])
            if path not in out or kind != 0:  # code regions only, as llvm-cov counts them
                continue
            key = (ls, cs, le, ce)
            start = tuple(fn["regions"][0][:2])
            prev = counts[path].get(key, (0, start))
            counts[path][key] = (max(prev[0], n), prev[1])
        r0 = fn["regions"][0]
        path = rel(fn["filenames"][r0[5]])
        if path in out:
            src = sources[path]
            name = src.fn_name(r0[0], r0[1])
            if name:
                end = max((r[2], r[3]) for r in fn["regions"] if r[5] == r0[5])
                span = ((r0[0], r0[1]), end, name)
                if span not in src.named:
                    src.named.append(span)
    for path, regions in counts.items():
        src = sources[path]
        for (ls, cs, le, ce), (n, start) in sorted(regions.items()):
            if n:
                continue
            name = src.fn_name(*start)
            if name is None:  # a closure, or code a macro or derive generated
                outer = src.function_at(*start)
                name = f"{outer}::{{closure}}" if outer else f"<code at line {start[0]}>"
            out[path]["uncovered"].append({"line": ls, "col": cs, "end": [le, ce], "function": name, "source": src.line(ls).strip()})
        summary = out[path]["regions"]
        if summary["count"] - summary["covered"] != len(out[path]["uncovered"]):
            print(f"sut-coverage: warning: {path}: llvm-cov counts {summary['count'] - summary['covered']} uncovered regions, the listing {len(out[path]['uncovered'])}", file=sys.stderr)
    return out


# ---------------------------------------------------------------- justifications


def read_justified(path):
    """KEY -> reason, in file order."""
    justified = {}
    if not path or not Path(path).exists():
        return justified
    for k, raw in enumerate(Path(path).read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 1)
        if len(parts) < 2 or ":" not in parts[0]:
            die(f"{path}:{k}: expected `KEY REASON` with KEY path:LINE:COL, path:LINE, path:FIRST-LAST, path:FUNCTION or path:*")
        justified[parts[0]] = parts[1]
    return justified


def justify(path, u, justified, used):
    """The reason of the most specific key that names region `u` of `path`, if any."""
    line = u["line"]
    ranges = [k for k in justified if k.startswith(path + ":") and re.fullmatch(r"\d+-\d+", k[len(path) + 1 :])]
    inside = [k for k in ranges if int(k[len(path) + 1 :].split("-")[0]) <= line <= int(k.split("-")[-1])]
    # A function's key covers its closures too (`f::{closure}`, `f::{closure}::{closure}`).
    fns = [u["function"]] + [u["function"][: m.start()] for m in re.finditer(r"::\{closure\}", u["function"])][::-1]
    for key in (f"{path}:{line}:{u['col']}", f"{path}:{line}", *inside, *(f"{path}:{f}" for f in fns), f"{path}:*"):
        if key in justified:
            used.add(key)
            return justified[key]
    return None


# ---------------------------------------------------------------- the report


def pct(covered, count):
    return f"{100.0 * covered / count:.1f}%" if count else "n/a"


def code(text, width=100):
    text = text if len(text) <= width else text[: width - 1] + "…"
    return "`` " + text.replace("`", "'") + " ``" if "`" in text else f"`{text}`"


def report(args):
    work = Path(args.work)
    meta_path = work / "meta.json"
    if not meta_path.exists():
        die(f"{meta_path} is missing: run the campaigns first")
    meta = json.loads(meta_path.read_text())
    justified = read_justified(args.justified)
    used = set()
    assigned = {}
    sections = []
    for title, fams, paths in SECTIONS:
        data = export(args.bin, work, fams)
        present = sorted({rel(f["filename"]) for f in data["files"]} - {None})
        files = [p for p in present if any(p == q or (q.endswith("/") and p.startswith(q)) for q in paths)]
        for p in files:
            if p in assigned:
                die(f"{p} is in two sections: {assigned[p]} and {title}")
            assigned[p] = title
        # The campaign's coverage, and the campaign's with the mutant hunts'.
        alone = measure(data, set(files))
        both = measure(export(args.bin, work, fams + [HUNTS.format(f) for f in fams]), set(files))
        for path, m in both.items():
            still = {(u["line"], u["col"], tuple(u["end"])) for u in m["uncovered"]}
            m["campaign"] = alone[path]["regions"]["covered"]
            m["hunted"] = [u for u in alone[path]["uncovered"] if (u["line"], u["col"], tuple(u["end"])) not in still]
        sections.append((title, fams, both))
        unmapped = [p for p in present if p.startswith(MEASURED) and not any(p == q or (q.endswith("/") and p.startswith(q)) for _, _, qs in SECTIONS for q in qs)]
        if unmapped:
            die(f"files of {MEASURED} in no section of SECTIONS (add them): {', '.join(unmapped)}")

    out = []
    w = out.append
    keys = ("rc", "rh", "rn", "lc", "ln", "just", "open")
    total = dict.fromkeys(keys, 0)
    rows = []
    for title, fams, files in sections:
        s = dict.fromkeys(keys, 0)
        for path, m in files.items():
            s["rc"] += m["campaign"]
            s["rh"] += len(m["hunted"])
            s["rn"] += m["regions"]["count"]
            s["lc"] += m["lines"]["covered"]
            s["ln"] += m["lines"]["count"]
            for u in m["uncovered"]:
                u["why"] = justify(path, u, justified, used)
                s["just" if u["why"] else "open"] += 1
            # A region the hunts reach keeps its justification (the mutant it needs), shown.
            for u in m["hunted"]:
                u["why"] = justify(path, u, justified, used)
        rows.append((title, fams, s))
        for k in total:
            total[k] += s[k]

    mp = meta.get("mutant_programs", 0)
    w("# Coverage of the systems under test by the fixed campaign")
    w("")
    w(f"Generated by `scripts/sut-coverage --programs {meta['programs']} --mutant-programs {mp} --out docs/coverage.md` (seed {meta['seed']}); do not edit by hand.")
    w("Justifications live in `docs/coverage-justified.txt` and are merged in when the report is regenerated.")
    w("")
    w(f"Each SUT family runs its own oracles on its own SUT in one campaign, `racefuzz fuzz ORACLES --sut SUT --max-programs {meta['programs']} --seed {meta['seed']} --jobs 1`,")
    w(f"then one mutant hunt per seeded bug of that SUT (`src/mutants.rs`), `racefuzz fuzz ORACLES --sut SUT --mutant NAME --max-programs {mp} --seed {meta['seed']} --jobs 1`")
    w("over the oracles the mutant is predicted for, with an instrumented release build and its own profile data.")
    w(f"A family whose SUT has rule-coverage probes that run only while recording ({', '.join(sorted(PROBED))}) also runs `racefuzz gen ORACLE")
    w(f"--count {meta['programs']} --seed {meta['seed']} --stats`, credited to its campaign.")
    w("A file is credited only with the runs of the families whose SUT runs it (scripts/sut_families.py; FastTrack's with the")
    w("per-access family's, whose SUT is the per-access placer and FastTrack on its checks, and BigFoot's and the capsule filter's,")
    w("which run FastTrack's clocks). Unit tests do not count.")
    w("A region is llvm-cov's code region, counted once however many generic instantiations it has.")
    w("")
    w("Counting rule: a region is *reached* when the campaign on the real SUT runs it (column \"by the campaign\"), or when only a")
    w("mutant hunt of the same fixed campaign does (column \"by mutant hunts only\": code that runs only under a seeded bug, such as")
    w("the mutant's own branch); both count towards the target, and are shown apart. An unreached region is *justified* (with its")
    w("reason) or *not reached* (a generator change should reach it).")
    w("")
    w("| section | by the campaign | by mutant hunts only | regions reached | lines reached | justified | not reached |")
    w("|---|---|---|---|---|---|---|")
    for title, _fams, s in rows:
        r = s["rc"] + s["rh"]
        w(f"| {title.split(' (')[0]} | {s['rc']} ({pct(s['rc'], s['rn'])}) | {s['rh']} | {r}/{s['rn']} ({pct(r, s['rn'])}) | {s['lc']}/{s['ln']} ({pct(s['lc'], s['ln'])}) | {s['just']} | {s['open']} |")
    t = total
    r = t["rc"] + t["rh"]
    w(f"| **total `{MEASURED}**`** | **{t['rc']} ({pct(t['rc'], t['rn'])})** | **{t['rh']}** | **{r}/{t['rn']} ({pct(r, t['rn'])})** | **{t['lc']}/{t['ln']} ({pct(t['lc'], t['ln'])})** | **{t['just']}** | **{t['open']}** |")
    w("")
    w(f"Regions reached or justified: {r + t['just']}/{t['rn']} ({pct(r + t['just'], t['rn'])}). Lines reached count the mutant hunts too.")
    w("")
    for (title, fams, files), (_, _, s) in zip(sections, rows):
        w(f"## {title}")
        w("")
        for f in fams:
            fm = meta["families"][f]
            w(f"`racefuzz {' '.join(campaign_cmd(fm['oracles'], fm['sut'], None, meta['programs'], meta['seed'], '.')[:-2])}`")
            w("")
            w("| oracle | checked | pass | fail | inconclusive |")
            w("|---|---|---|---|---|")
            for o in fm["oracles"]:
                c, p, fl, i = fm["rows"][o]
                w(f"| {o} | {c} | {p} | {fl} | {i} |")
            w("")
            if fm["hunts"]:
                w(f"Mutant hunts of `{fm['sut']}` ({mp} programs per oracle each):")
                w("")
                w("| mutant | oracles | failed programs |")
                w("|---|---|---|")
                for hnt in fm["hunts"]:
                    w(f"| {hnt['mutant']} | {', '.join(hnt['oracles'])} | {sum(hnt['rows'][o][2] for o in hnt['oracles'])} |")
                w("")
        w("| file | by the campaign | by mutant hunts only | regions reached | % | lines | % |")
        w("|---|---|---|---|---|---|---|")
        for path in sorted(files):
            m = files[path]
            rg, l = m["regions"], m["lines"]
            w(f"| `{path}` | {m['campaign']} | {len(m['hunted'])} | {rg['covered']}/{rg['count']} | {pct(rg['covered'], rg['count'])} | {l['covered']}/{l['count']} | {pct(l['covered'], l['count'])} |")
        if len(files) > 1:
            r = s["rc"] + s["rh"]
            w(f"| total | {s['rc']} | {s['rh']} | {r}/{s['rn']} | {pct(r, s['rn'])} | {s['lc']}/{s['ln']} | {pct(s['lc'], s['ln'])} |")
        w("")
        for heading, key, status_of in (
            (f"Reached by mutant hunts only ({s['rh']}):", "hunted", lambda u: f"reached by a mutant hunt{'; ' + u['why'] if u['why'] else ''}"),
            (f"Uncovered regions ({s['open']} not reached, {s['just']} justified):", "uncovered", lambda u: f"justified: {u['why']}" if u["why"] else "not reached"),
        ):
            unc = [(path, u) for path in sorted(files) for u in files[path][key]]
            if not unc:
                if key == "uncovered":
                    w("Every region reached.")
                    w("")
                continue
            w(heading)
            w("")
            # Regions that start at the same place (a call and its `?`, nested expressions) are
            # one line of the listing, with their number.
            shown = {}
            for path, u in unc:
                shown.setdefault((path, u["line"], u["col"]), []).append(u)
            for (path, line, col), us in shown.items():
                u = us[0]
                many = f" ({len(us)} regions)" if len(us) > 1 else ""
                w(f"- `{path}:{line}:{col}` in `{u['function']}`{many}: {code(u['source'])} ({status_of(u)})")
            w("")
    stale = [k for k in justified if k not in used]
    if stale:
        w("## Stale justifications")
        w("")
        w("These lines of `docs/coverage-justified.txt` match no uncovered region (the code moved or is reached now):")
        w("")
        for k in stale:
            w(f"- `{k}` {justified[k]}")
        w("")
    text = "\n".join(out)
    if args.out:
        Path(args.out).write_text(text)
        print(f"sut-coverage: wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    r = t["rc"] + t["rh"]
    print(f"sut-coverage: {MEASURED}: regions reached {r}/{t['rn']} ({pct(r, t['rn'])}; by the campaign {t['rc']}, by mutant hunts only {t['rh']}), lines {t['lc']}/{t['ln']} ({pct(t['lc'], t['ln'])}); uncovered: {t['just']} justified, {t['open']} not reached", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--bin", required=True)
    r.add_argument("--work", required=True)
    r.add_argument("--programs", type=int, required=True)
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--mutant-programs", type=int, required=True)
    r.add_argument("--family", action="append", help="rerun this family only, keeping the others' last runs")
    p = sub.add_parser("report")
    p.add_argument("--bin", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--justified")
    p.add_argument("--out")
    args = ap.parse_args()
    run(args) if args.cmd == "run" else report(args)


if __name__ == "__main__":
    main()
