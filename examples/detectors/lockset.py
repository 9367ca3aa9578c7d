#!/usr/bin/env python3
"""An Eraser-style LockSet detector over STD traces: the kind of detector racefuzz is for.

Each variable's candidate set is the set of locks held at every access to it; a variable
goes virgin -> exclusive (one thread) -> shared (read by a second thread) -> shared-modified
(written while shared), and an access that leaves a shared-modified variable with no
candidate lock is reported. LockSet knows nothing of fork and join, so it reports accesses
that fork or join orders: false alarms by the happens-before definition of a race.

    python3 lockset.py TRACE.std     one trace: `Race detected at event N : EVENT` per report
    python3 lockset.py --persistent  racefuzz's JSON Lines protocol on stdin/stdout (version 1)
"""
import json
import sys


def races(lines):
    held = {}  # thread -> set of locks it holds
    state = {}  # var -> ("exclusive", thread) | ("shared", None) | ("modified", None)
    candidates = {}  # var -> set of locks
    found = []
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
        locks = held.setdefault(t, set())
        if op == "acq":
            locks.add(decor)
        elif op == "rel":
            locks.discard(decor)
        elif op in ("r", "w"):
            s = state.get(decor)
            if s is None:
                state[decor] = ("exclusive", t)
                continue
            if s[0] == "exclusive":
                if s[1] == t:
                    continue
                candidates[decor] = set(locks)
                state[decor] = ("modified" if op == "w" else "shared", None)
            else:
                candidates[decor] &= locks
                if op == "w":
                    state[decor] = ("modified", None)
            if state[decor][0] == "modified" and not candidates[decor]:
                found.append((loc, line))
    return found


def main():
    if sys.argv[1:] == ["--persistent"]:
        for request in sys.stdin:
            r = json.loads(request)
            locs = [loc for loc, _ in races(r["std"].splitlines())]
            print(json.dumps({"version": 1, "id": r["id"], "races": locs}), flush=True)
    elif len(sys.argv) == 2:
        with open(sys.argv[1]) as f:
            for loc, line in races(f):
                print(f"Race detected at event {loc} : {line}")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
