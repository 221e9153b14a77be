"""Benchmark: Tri-Stat group fights (RULES.md section 7).

1. ``sims``: Monte Carlo group fights of 5 against 5 per CPU second, against the one-on-one duel kernel and the
   group kernel at one against one in the same run; with ``--against REV`` the same under ``REV``'s code (a temporary
   git worktree) and this tree's, alternately in fresh processes, the best of ``--rounds`` runs each;
2. ``exact``: CPU seconds and round starts of the exact group chain (1v2, 1v3, 2v2 of archetypes) against
   ``group_states``' estimate.

    python benchmarks/bench_tristat_groups.py sims [--n 200000] [--against f5a5f96 --rounds 3]
    python benchmarks/bench_tristat_groups.py exact
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from analysis.fights.fighters import load_fighter
from analysis.systems import get_system
from sims.engine import seed_sequence

SYSTEM = get_system("tristat")


def rates(n: int) -> dict[str, tuple[float, float]]:
    """Each kernel's (fights per CPU second, CPU seconds) for ``n`` fights."""
    import sims.tristat as kernels

    rules = SYSTEM.rules()
    fa, fb = load_fighter(SYSTEM, "trained_armed"), load_fighter(SYSTEM, "veteran")
    calls = {"duel 1v1": kernels.duel_call(rules, fa, fb, "full", kernels.Options()),
             "group 1v1": kernels.group_call(rules, [fa], [fb]),
             "group 5v5": kernels.group_call(rules, [fa] * 5, [load_fighter(SYSTEM, "novice_armed")] * 3 + [fb] * 2)}
    out = {}
    for name, call in calls.items():
        call(1000, np.random.default_rng(1))
        rng = np.random.Generator(np.random.PCG64(seed_sequence(2)))
        t0 = time.process_time()
        call(n, rng)
        t = time.process_time() - t0
        out[name] = (n / t, t)
    return out


def sims(ns: argparse.Namespace) -> None:
    if ns.json:
        print(json.dumps(rates(ns.n)))
        return
    if not ns.against:
        for name, (rate, t) in rates(ns.n).items():
            print(f"{name}: {rate:,.0f} fights per CPU second ({ns.n:,} in {t:.2f} s)", flush=True)
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from against import ROOT, run_in, worktree

    runs: dict[str, list[dict]] = {"old": [], "new": []}
    with worktree(ns.against) as tree:
        for _ in range(ns.rounds):
            for name, root in (("old", tree), ("new", ROOT)):
                runs[name].append(json.loads(run_in(root, __file__, "sims", "--n", str(ns.n), "--json")))
    print(f"fights per CPU second, the best of {ns.rounds} alternating runs of {ns.n:,} each")
    for kernel in runs["new"][0]:
        old, new = (max(r[kernel][0] for r in runs[name]) for name in ("old", "new"))
        print(f"{kernel}: {ns.against} {old:,.0f}, this tree {new:,.0f}, new / old {new / old:.2f}", flush=True)


LADDER = [(["veteran"], ["trained_armed"] * 2), (["veteran"], ["novice_armed"] * 3),
          (["trained_armed"], ["novice_armed", "trained_armed", "veteran"]),
          (["trained_armed"] * 2, ["veteran"] * 2), (["veteran", "novice_armed"], ["trained_armed"] * 2)]


def exact(ns: argparse.Namespace) -> None:
    rules = SYSTEM.rules()
    SYSTEM.group(rules, [load_fighter(SYSTEM, "novice_armed")], [load_fighter(SYSTEM, "novice_armed")] * 2)
    for a, b in LADDER:
        side_a, side_b = [load_fighter(SYSTEM, x) for x in a], [load_fighter(SYSTEM, x) for x in b]
        t0 = time.process_time()
        res = SYSTEM.group(rules, side_a, side_b)
        t = time.process_time() - t0
        print(f"{'+'.join(a)} v {'+'.join(b)}: {t:.2f} CPU s, {res.solution.states:,} round starts "
              f"(estimate {SYSTEM.group_states(rules, side_a, side_b):,}), P(A wins) {res.solution.p_a_wins:.4f}",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sim = sub.add_parser("sims")
    sim.add_argument("--n", type=int, default=200_000)
    sim.add_argument("--against", metavar="REV", help="also time the kernels of this git revision, alternately")
    sim.add_argument("--rounds", type=int, default=3, help="--against: runs of each tree")
    sim.add_argument("--json", action="store_true", help="print this tree's rates as JSON and stop")
    sub.add_parser("exact")
    ns = parser.parse_args()
    {"sims": sims, "exact": exact}[ns.what](ns)


if __name__ == "__main__":
    main()
