"""2K's exact duels, every number of them, for checking that a change to the solver leaves them as they were.

``save FILE`` solves every ordered archetype pairing under the default rules, then three pairings under each of a
list of variants and house rules (one under ``gear_faults``: an armed pairing's chain takes gigabytes), and
pickles every field of each solution (P(A wins), P(B wins), P(both out), the levels, the rounds distribution and
its tail, the mean rounds, the final pairs, the truncation, the states);
``compare OLD NEW`` prints the largest absolute difference over all of them (states apart: a faster solver may
follow other states) and exits 1 past ``--tol`` (1e-12).

    python benchmarks/onesix_numbers.py save /tmp/before.pkl
    python benchmarks/onesix_numbers.py compare /tmp/before.pkl /tmp/after.pkl
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys
import time
from typing import Any

from analysis.fights.fighters import archetypes, load_fighter
from analysis.systems import get_system

VARIANTS = ({"in_die": "d6"}, {"in_die": "one_zero"}, {"in_carry": False}, {"in_penalty": "roll"},
            {"in_loss": "stack"}, {"parry_window": None}, {"simultaneous_parry": True}, {"armor_wear": True},
            {"excess_over": "defense"}, {"in_explode_depth": 2}, {"explode_depth": 1}, {"extra_die_ones": "count"},
            {"after_out": "finish"}, {"carry_floor": -6}, {"track_length": 4}, {"in_economy": False})
"""The variants and house rules solved besides the defaults, for three pairings each."""
GEAR = ({"gear_faults": True}, {"gear_faults": True, "after_out": "finish"})
"""Solved for one unarmed pairing."""


def save(path: str) -> None:
    system = get_system("onesix")
    names = list(archetypes("onesix"))
    fighters = {n: load_fighter(system, n) for n in names}
    cases = [({}, a, b) for a in names for b in names]
    picked = [(names[0], names[-1]), (names[3], names[5]), ("trained_armed", "trained_armed")]
    cases += [(v, a, b) for v in VARIANTS for a, b in picked] + [(v, "novice", "poacher") for v in GEAR]
    out = []
    t = time.process_time()
    for variant, a, b in cases:
        sol = system.duel(system.rules(**variant), fighters[a], fighters[b]).solution
        out.append(((variant, a, b), {k: getattr(sol, k) for k in sol.__dataclass_fields__}))
        print(f"{len(out)}/{len(cases)}", end="\r", file=sys.stderr, flush=True)
    with open(path, "wb") as fh:
        pickle.dump(out, fh)
    print(f"{len(out)} duels in {time.process_time() - t:.1f} CPU s -> {path}")


def _diff(x: Any, y: Any, path: tuple, worst: list) -> None:
    """The largest absolute difference of two results, walked field by field (a missing entry counts as 0)."""
    if isinstance(x, dict) or isinstance(y, dict):
        for k in set(x or {}) | set(y or {}):
            _diff((x or {}).get(k, 0.0), (y or {}).get(k, 0.0), path + (k,), worst)
    elif isinstance(x, (tuple, list)):
        n = max(len(x), len(y))
        for i in range(n):
            _diff(x[i] if i < len(x) else 0.0, y[i] if i < len(y) else 0.0, path + (i,), worst)
    elif x is None or y is None:
        if x is not y:
            worst[:] = [math.inf, path]
    elif not isinstance(x, str) and abs(float(x) - float(y)) > worst[0]:
        worst[:] = [abs(float(x) - float(y)), path]


def compare(old: str, new: str, tol: float) -> bool:
    with open(old, "rb") as fh_old, open(new, "rb") as fh_new:
        a, b = pickle.load(fh_old), pickle.load(fh_new)
    if [case for case, _ in a] != [case for case, _ in b]:
        print("the files hold different duels")
        return False
    worst: list = [0.0, ()]
    for (case, x), (_, y) in zip(a, b):
        _diff({k: v for k, v in x.items() if k != "states"}, {k: v for k, v in y.items() if k != "states"},
              (case,), worst)
    states = [(x["states"], y["states"]) for (_, x), (_, y) in zip(a, b)]
    print(f"{len(a)} duels: max abs difference {worst[0]:.3g}" + (f" at {worst[1]}" if worst[0] else "")
          + f"; states changed in {sum(s != t for s, t in states)}")
    return worst[0] <= tol


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("save").add_argument("file")
    cmp = sub.add_parser("compare")
    cmp.add_argument("old")
    cmp.add_argument("new")
    cmp.add_argument("--tol", type=float, default=1e-12)
    ns = parser.parse_args()
    if ns.command == "save":
        save(ns.file)
    elif not compare(ns.old, ns.new, ns.tol):
        sys.exit(1)


if __name__ == "__main__":
    main()
