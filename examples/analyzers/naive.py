#!/usr/bin/env python3
"""A naive RacerD-style static race analysis over racerdx programs: the kind of analysis
racefuzz --analysis-cmd is for.

Each method's accesses are the field paths rooted at its formals that it loads
(`x = arg1.f.g`) or stores (`arg1.f = y`) in its own body, with the lock level counted in
text order (`lock` +1, `unlock` -1). Two accesses of two methods (a method with itself
included) are reported when their field sequences are equal, one of them writes, and
their levels add up to at most 1. It follows no call and ignores a formal assigned a new
object (`arg1 = new`): it misses races behind calls and reports races on objects no other
thread can reach, false alarms by the True Positives Theorem.

    python3 naive.py PROGRAM.race   one program: {"version":1,"reports":[...]} on stdout
    python3 naive.py --persistent   racefuzz's JSON Lines protocol on stdin/stdout (version 1)

It reads the canonical text racefuzz gives it: one statement per line.
"""
import json
import re
import sys

METHOD = re.compile(r"^method (\w+)\((.*)\) \{$")
LOAD = re.compile(r"^\w+ = ((\w+)((?:\.\w+)+))$")
STORE = re.compile(r"^((\w+)((?:\.\w+)+)) = \w+$")


def accesses(text):
    """method -> [(kind, path, fields, level, line)]"""
    out, method, formals, level = {}, None, [], 0
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        m = METHOD.match(s)
        if m:
            method, formals, level = m[1], [f.strip() for f in m[2].split(",") if f.strip()], 0
            out[method] = []
        elif line == "}":
            method = None
        elif method is not None:
            level = max(0, level + {"lock": 1, "unlock": -1}.get(s, 0))
            for kind, rx in (("r", LOAD), ("w", STORE)):
                a = rx.match(s)
                if a and a[2] in formals:
                    out[method].append((kind, a[1], a[3], level, n))
    return out


def reports(text):
    acc, out = accesses(text), []
    methods = sorted(acc)
    for i, m1 in enumerate(methods):
        for m2 in methods[i:]:
            for x, (k1, p1, f1, l1, n1) in enumerate(acc[m1]):
                for k2, p2, f2, l2, n2 in acc[m2][x if m1 == m2 else 0:]:
                    if f1 == f2 and "w" in (k1, k2) and l1 + l2 <= 1:
                        side = lambda m, k, p, l, n: {"method": m, "kind": k, "path": p, "level": l, "lines": [n]}
                        out.append({"sides": [side(m1, k1, p1, l1, n1), side(m2, k2, p2, l2, n2)]})
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["--persistent"]:
        for line in sys.stdin:
            req = json.loads(line)
            print(json.dumps({"version": 1, "id": req["id"], "reports": reports(req["program"])}), flush=True)
    elif len(sys.argv) == 2:
        with open(sys.argv[1]) as f:
            print(json.dumps({"version": 1, "reports": reports(f.read())}))
    else:
        sys.exit(__doc__)
