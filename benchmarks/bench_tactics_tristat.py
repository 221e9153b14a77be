"""Benchmark: the Tri-Stat duel's decision game against the plain exact duel, every archetype pairing.

Per ordered pairing: the plain duel (``tristat.duel``) and the equilibrium (building the game with
``tristat.tactics`` and solving it with ``engine.game.solve``), each the best of ``--repeat`` runs with the
system's caches cleared before each (so the attack kernels are computed every time, as for a new pairing);
then the ratio.  Also the whole ``fights.tactics.analyse`` (book, best response, equilibrium, worths, dominated
scripts, simple rule) and the game's states.  Times are CPU seconds of this process (``time.process_time``),
steadier than wall time on a shared machine; the compiled kernels are loaded (or compiled) before timing.

    python benchmarks/bench_tactics_tristat.py [--repeat 3] [--rules initiative_once=true]
"""

from __future__ import annotations

import argparse
import statistics
import time

from analysis.engine.game import solve
from analysis.fights.fighters import archetypes, load_fighter
from analysis.fights.tactics import analyse
from analysis.systems import get_system, tristat


def clear() -> None:
    tristat.track.cache_clear()
    tristat.attack_outcomes.cache_clear()


def best(repeat: int, job) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        clear()
        t = time.process_time()
        out = job()
        times.append(time.process_time() - t)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rules", default="", help="ruleset fields, name=value,...")
    args = parser.parse_args()
    system = get_system("tristat")
    rules = system.Rules.from_text(dict(kv.split("=") for kv in args.rules.split(",") if kv))
    names = sorted(archetypes("tristat"))
    fighters = {n: load_fighter(system, n) for n in names}
    small = tristat.Fighter(health=10)
    analyse(tristat.tactics(rules, small, small))  # load the compiled kernels
    print(f"{'A':<14}{'B':<14}{'duel ms':>9}{'eq ms':>9}{'ratio':>7}{'analyse ms':>12}{'states':>9}")
    ratios = []
    for a in names:
        for b in names:
            fa, fb = fighters[a], fighters[b]
            t_duel, _ = best(args.repeat, lambda: system.duel(rules, fa, fb))

            def equilibrium():
                dg = tristat.tactics(rules, fa, fb).with_objective("wins")
                return dg, solve(dg.game)

            t_eq, (dg, _) = best(args.repeat, equilibrium)
            t_all, _ = best(1, lambda: analyse(tristat.tactics(rules, fa, fb)))
            ratios.append(t_eq / t_duel)
            print(f"{a:<14}{b:<14}{t_duel * 1e3:>9.1f}{t_eq * 1e3:>9.1f}{t_eq / t_duel:>7.2f}{t_all * 1e3:>12.0f}"
                  f"{dg.game.n:>9,}")
    print(f"ratio equilibrium / duel over {len(ratios)} pairings: median {statistics.median(ratios):.2f}, "
          f"max {max(ratios):.2f}")


if __name__ == "__main__":
    main()
