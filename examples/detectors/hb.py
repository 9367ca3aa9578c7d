#!/usr/bin/env python3
"""A happens-before race detector over STD traces, written as a racefuzz user would write one.

Each trace is one event per line, `thread|op(decor)|loc` (op: r, w, acq, rel, fork, join).
Vector clocks (DJIT+, with per-thread last-access epochs): an access completes a race when
some earlier conflicting access by another thread is not ordered before it by program
order, release->acquire on one lock, fork or join. Every such access is reported, so the
detector claims exactly the racy events (and so exactly the racy locations).

    python3 hb.py TRACE.std       one trace: prints `Race detected at event N : EVENT` per race
    python3 hb.py --persistent    racefuzz's JSON Lines protocol on stdin/stdout (version 1)
    python3 hb.py --batch DIR     every DIR/*.std, each one's races after `==> FILE <==`
"""
import json
import os
import sys


def races(lines):
    """The loc of every event of the trace that completes a happens-before race."""
    clocks = {}  # thread -> {thread: int}
    locks = {}  # lock -> clock at its last release
    reads, writes = {}, {}  # var -> {thread: epoch of its last read/write}
    found = []

    def clock(t):
        return clocks.setdefault(t, {t: 1})

    def join_into(c, other):
        for u, n in other.items():
            if c.get(u, 0) < n:
                c[u] = n

    def unordered(last, t, c):
        return any(u != t and n > c.get(u, 0) for u, n in last.items())

    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            t, op_decor, loc = line.split("|")
            op, decor = op_decor[:-1].split("(")
            loc = int(loc)
        except ValueError:
            raise SystemExit(f"line {n}: not an STD event: {line!r}")
        c = clock(t)
        if op in ("r", "w"):
            racy = unordered(writes.get(decor, {}), t, c)
            if op == "w":
                racy = racy or unordered(reads.get(decor, {}), t, c)
            if racy:
                found.append((loc, line))
            (reads if op == "r" else writes).setdefault(decor, {})[t] = c[t]
        elif op == "acq":
            join_into(c, locks.get(decor, {}))
        elif op == "rel":
            locks[decor] = dict(c)
            c[t] += 1
        elif op == "fork":
            join_into(clock(decor), c)
            c[t] += 1
        elif op == "join":
            join_into(c, clock(decor))
        else:
            raise SystemExit(f"line {n}: unknown operation {op!r}")
    return found


def report(path):
    with open(path) as f:
        for loc, line in races(f):
            print(f"Race detected at event {loc} : {line}")


def main():
    if sys.argv[1:] == ["--persistent"]:
        for request in sys.stdin:
            r = json.loads(request)
            locs = [loc for loc, _ in races(r["std"].splitlines())]
            print(json.dumps({"version": 1, "id": r["id"], "races": locs}), flush=True)
    elif len(sys.argv) == 3 and sys.argv[1] == "--batch":
        for name in sorted(n for n in os.listdir(sys.argv[2]) if n.endswith(".std")):
            print(f"==> {name} <==")
            report(os.path.join(sys.argv[2], name))
    elif len(sys.argv) == 2:
        report(sys.argv[1])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
