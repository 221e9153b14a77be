"""Benchmark: exact duels between every archetype pairing of every system.

Prints, per system, the median and largest time over all pairings: ``cold`` is
the first solve of a pairing (its exchange tables not yet cached), ``warm`` the
best of ``--repeat`` further solves; and the largest pairing's state count.

    python benchmarks/bench_duels.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from analysis.fighters import archetypes, load_fighter
from analysis.system import all_systems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    ns = parser.parse_args()
    print(f"{'system':<8} {'pairs':>5} {'cold median':>11} {'cold max':>9} {'warm median':>11} {'warm max':>9}"
          f" {'largest pairing (states)':>36} {'its cold ms':>11}")
    for system in all_systems():
        rules = system.rules()
        names = list(archetypes(system.id))
        fighters = {n: load_fighter(system, n) for n in names}
        cold, warm, states = {}, {}, {}
        for a in names:
            for b in names:
                t = time.perf_counter()
                res = system.duel(rules, fighters[a], fighters[b])
                cold[a, b] = time.perf_counter() - t
                best = float("inf")
                for _ in range(ns.repeat):
                    t = time.perf_counter()
                    system.duel(rules, fighters[a], fighters[b])
                    best = min(best, time.perf_counter() - t)
                warm[a, b], states[a, b] = best, res.solution.states
        big = max(states, key=states.get)

        def ms(values) -> str:
            return f"{statistics.median(values) * 1e3:>11.1f} {max(values) * 1e3:>9.1f}"

        print(f"{system.id:<8} {len(cold):>5} {ms(cold.values())} {ms(warm.values())}"
              f" {f'{big[0]} vs {big[1]} ({states[big]})':>36} {cold[big] * 1e3:>11.1f}")


if __name__ == "__main__":
    main()
