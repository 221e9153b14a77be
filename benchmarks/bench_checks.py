"""Benchmark: the full check tables of all four systems against icepool.

Computes, for every check-related variant combination, every die / dice mode
and every target of each system, the success probability and the outcome
distribution — once with dicelab's exact engine and once with icepool — in the
same run, and prints both times and their ratio.

    python benchmarks/bench_checks.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import itertools
import time
from typing import Callable

import icepool

from analysis.present.tables import success_table
from analysis.systems import get_system, kurs, onesix, tristat, tun

VARIANTS = {
    "tristat": [{}],  # the die is a table dimension; contest_tie does not touch a check
    "onesix": [dict(extra_die_ones=o, explode_depth=d) for o, d in itertools.product(("zero", "count"), (None, 0, 1, 3))],
    "tun": [dict(success_rule=r, crits=c) for r, c in itertools.product(("lt", "le"), (False, True))],
    "kurs": [dict(dk_faces=f, luck_tokens=t) for f, t in itertools.product(kurs.DK_PRESETS.values(), (0, 1))],
}
ICEPOOL_DEPTH = 22  # (1/6)**22 ~ 3e-18: the same truncation as dicelab's default tolerance


def clear_caches() -> None:
    for fn in (onesix.die, onesix.two_k, tun.roll, kurs.roll):
        fn.cache_clear()


def dicelab_tables() -> list[float]:
    clear_caches()
    out: list[float] = []
    for sid, variant_list in VARIANTS.items():
        system = get_system(sid)
        for variants in variant_list:
            out.extend(success_table(system, system.rules(**variants), system.args())["p_success"])
    return out


def icepool_tables() -> list[float]:
    out: list[float] = []
    for die in tristat.DICE:
        roll = 2 @ icepool.d(die)
        for target in range(2, 2 * die + 1):
            ok = roll.map(lambda r: r == 2 or (r <= target and r != 2 * die))
            out.append(float(ok.probability(True)))
            (target - roll).probabilities()
    for variants in VARIANTS["onesix"]:
        depth = variants["explode_depth"]
        extra_faces = [1, 2, 3, 4, 5, 6] if variants["extra_die_ones"] == "count" else [0, 2, 3, 4, 5, 6]
        if depth == 0:
            die = icepool.Die([0, 2, 3, 4, 5, 6])
        else:
            extra = icepool.Die(extra_faces).explode([6], depth=ICEPOOL_DEPTH if depth is None else depth - 1)
            die = icepool.Die([icepool.Die([0, 2, 3, 4, 5]), 6 + extra], times=[5, 1])
        two_k = die + die
        for rating in range(0, 16):
            rt = two_k + rating
            out.append(float((rt >= 15).probability(True)))
            rt.map(lambda v: 1 + (v - 15) // 3 if v >= 15 else 0).probabilities()
    d6 = icepool.d6
    rolls = {"3d6": 3 @ d6, "1d20": icepool.d20, "1d6x3": d6 * 3}
    bonus = {"3d6": 6, "1d20": 2, "1d6x3": 3}
    for variants in VARIANTS["tun"]:
        le, crits = variants["success_rule"] == "le", variants["crits"]
        for dice, roll in rolls.items():
            lo, hi = roll.min_outcome(), roll.max_outcome()
            for limit in range(lo, hi + 2):
                def resolve(r: int, limit: int = limit) -> tuple[bool, int]:
                    if crits and r == lo:
                        return True, max(limit - r, 0) + bonus[dice]
                    if crits and r == hi:
                        return False, limit - r
                    return (r <= limit if le else r < limit), limit - r
                outcome = roll.map(resolve)
                out.append(float(outcome.marginals[0].probability(True)))
                outcome.marginals[1].probabilities()
    for variants in VARIANTS["kurs"]:
        roll = 3 @ icepool.Die(list(variants["dk_faces"]))
        luck = variants["luck_tokens"] > 0
        lo = -roll.max_outcome() - 1
        hi = -roll.min_outcome() + 3 * luck
        for skill in range(lo, hi + 1):
            margin = (roll + skill).map(lambda m: m + 3 if luck and -3 <= m < 0 else m)
            out.append(float((margin >= 0).probability(True)))
            margin.probabilities()
    return out


def timed(fn: Callable[[], list[float]], repeat: int) -> tuple[float, list[float]]:
    best = float("inf")
    values: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        values = fn()
        best = min(best, time.perf_counter() - start)
    return best, values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    ns = parser.parse_args()
    ours, n_ours = timed(dicelab_tables, ns.repeat)
    theirs, n_theirs = timed(icepool_tables, max(1, ns.repeat // 2))
    if len(n_ours) != len(n_theirs):
        raise SystemExit(f"case counts differ: {len(n_ours)} vs {len(n_theirs)}")
    worst = max(abs(a - b) for a, b in zip(n_ours, n_theirs))
    print(f"dicelab full tables: {len(n_ours)} cases in {ours * 1000:.1f} ms (best of {ns.repeat})")
    print(f"icepool same cases:  {len(n_theirs)} cases in {theirs * 1000:.1f} ms (icepool {icepool.__version__})")
    print(f"ratio icepool / dicelab: {theirs / ours:.1f}x; largest |P(success) difference|: {worst:.2e}")


if __name__ == "__main__":
    main()
