"""Benchmark: Tri-Stat group fights (RULES.md section 7).

1. ``sims``: Monte Carlo group fights of 5 against 5 per CPU second, against the one-on-one duel kernel and the
   group kernel at one against one in the same run;
2. ``exact``: CPU seconds and round starts of the exact group chain (1v2, 1v3, 2v2 of archetypes) against
   ``group_states``' estimate.

    python benchmarks/bench_tristat_groups.py sims [--n 200000]
    python benchmarks/bench_tristat_groups.py exact
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from analysis.fights.fighters import load_fighter
from analysis.systems import get_system
from sims.engine import seed_sequence

SYSTEM = get_system("tristat")


def sims(ns: argparse.Namespace) -> None:
    import sims.tristat as kernels

    rules = SYSTEM.rules()
    fa, fb = load_fighter(SYSTEM, "trained_armed"), load_fighter(SYSTEM, "veteran")
    calls = {"duel 1v1": kernels.duel_call(rules, fa, fb, "full", kernels.Options()),
             "group 1v1": kernels.group_call(rules, [fa], [fb]),
             "group 5v5": kernels.group_call(rules, [fa] * 5, [load_fighter(SYSTEM, "novice_armed")] * 3 + [fb] * 2)}
    for name, call in calls.items():
        call(1000, np.random.default_rng(1))
        rng = np.random.Generator(np.random.PCG64(seed_sequence(2)))
        t0 = time.process_time()
        call(ns.n, rng)
        t = time.process_time() - t0
        print(f"{name}: {ns.n / t:,.0f} fights per CPU second ({ns.n:,} in {t:.2f} s)", flush=True)


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
    sub.add_parser("sims").add_argument("--n", type=int, default=200_000)
    sub.add_parser("exact")
    ns = parser.parse_args()
    {"sims": sims, "exact": exact}[ns.what](ns)


if __name__ == "__main__":
    main()
