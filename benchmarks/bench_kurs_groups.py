"""К.У.Р.С. group Monte Carlo throughput: 5 against 5 fights per CPU second, against the one-on-one duel kernel in the
same run (issue 23 asks for at least 100,000 of 5 against 5).

    PYTHONPATH=. python benchmarks/bench_kurs_groups.py
"""

from __future__ import annotations

import time

import numpy as np

import sims.kurs as kernels
from analysis.systems.kurs import Fighter, Rules


def rate(call, n: int) -> float:
    """Fights per CPU second of a compiled chunk callable."""
    call(100, np.random.default_rng(0))
    start = time.process_time()
    call(n, np.random.default_rng(1))
    return n / (time.process_time() - start)


def main() -> None:
    rules, f, g = Rules(), Fighter(attack_skill=1, weapon=2), Fighter(weapon=3)
    five = rate(kernels.group_call(rules, [f] * 5, [g] * 5), 200_000)
    one = rate(kernels.duel_call(rules, f, g, "full", kernels.Options()), 1_000_000)
    print(f"5v5: {five:,.0f} fights per CPU second; 1v1 duel kernel: {one:,.0f}; ratio {one / five:.1f}")


if __name__ == "__main__":
    main()
