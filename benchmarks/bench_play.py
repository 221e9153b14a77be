"""Benchmark: a duel played through its decision game (``--play equilibrium``) against the plain exact duel.

For every ordered pairing of four archetypes of each system with decisions, the CPU time of
``fights.play.played_duel(..., "equilibrium")`` over that of ``fights.budget.exact_duel`` (measured
in one process, the exact duel first); prints the median and largest ratio per system, and the median seconds of
each.  The balance
tools' time estimate for a non-book play (``tools.duels.GAME_FACTOR``) comes from this table.

    python benchmarks/bench_play.py
"""

from __future__ import annotations

import os
import statistics
import time

from analysis.fights.budget import exact_duel
from analysis.fights.fighters import load_fighter
from analysis.fights.play import played_duel
from analysis.systems import get_system

os.environ["DICELAB_CACHE"] = "off"  # time the solves, never the disk store of solved chains

NAMES = ("novice_armed", "trained_armed", "novice", "trained")


def main() -> None:
    print("system   median  max   (played equilibrium / plain duel, CPU time)   median s: played  plain")
    for sid in ("tristat", "tun", "onesix", "kurs"):
        system = get_system(sid)
        rules = system.rules()
        ratios, secs, plains = [], [], []
        for an in NAMES:
            for bn in NAMES:
                a, b = load_fighter(system, an), load_fighter(system, bn)
                t = time.process_time()
                exact_duel(system, rules, a, b)
                plain = time.process_time() - t
                t = time.process_time()
                played_duel(system, rules, a, b, "equilibrium")
                secs.append(time.process_time() - t)
                plains.append(plain)
                ratios.append(secs[-1] / max(plain, 1e-3))
        print(f"{sid:8} {statistics.median(ratios):6.1f} {max(ratios):5.1f}"
              f"{statistics.median(secs):44.3f} {statistics.median(plains):6.3f}")


if __name__ == "__main__":
    main()
