"""Compile the numba kernels once, before the test workers start (``make test`` runs it first).

On a fresh clone numba's cache is empty, and every pytest-xdist worker would
compile the same kernels itself, each paying the whole cost (minutes of CPU).
This runs each system's kernel families once -- the exact duel, the Monte Carlo
duel (both models), check and group fight, the exact group chain and the
decision game with a simulator playing its solved policy -- in parallel
processes, one system per task; the workers then load every kernel from the
cache.  It checks nothing: the tests do.

    python -m tests.warm [SYSTEM ...]
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor


def warm(system_id: str) -> tuple[str, float]:
    """Run one system's kernel families on small inputs; (the system, CPU seconds it took)."""
    from analysis.base.params import DicelabError
    from analysis.fights.budget import exact_duel, exact_group
    from analysis.fights.fighters import load_fighter
    from analysis.fights.play import played_duel, played_tables
    from analysis.systems import get_system
    from sims.api import policy_module, simulate_check, simulate_duel, simulate_group

    start = time.process_time()
    system = get_system(system_id)
    rules = system.rules()
    a, b = load_fighter(system, "trained_armed"), load_fighter(system, "novice_armed")
    exact_duel(system, rules, a, b)
    exact_duel(system, rules.replace(after_out="finish"), a, b)
    for model in ("full", "exact"):
        simulate_duel(system_id, rules, a, b, 500, seed=1, model=model, workers=1)
    simulate_check(system_id, rules, system.args(), 500, seed=1, workers=1)
    if system.group is not None:
        simulate_group(system_id, rules, [a], [b, b], 500, seed=1, workers=1)
        try:
            exact_group(system, rules, [a], [b, b])
        except DicelabError:  # refused past the memory budget (2K's IN economy): nothing to compile
            pass
    if system.tactics is not None:
        played_duel(system, rules, a, b, "equilibrium")
        if policy_module(system_id) is not None:
            tables = played_tables(system, rules, a, b, "equilibrium")
            simulate_duel(system_id, rules, a, b, 500, seed=1, workers=1, policy=tables)
    return system_id, time.process_time() - start


def main(argv: list[str]) -> int:
    from analysis.systems import SYSTEM_IDS

    os.environ["DICELAB_CACHE"] = "off"  # a chain kept on disk would leave its kernels uncompiled here
    systems = argv or list(SYSTEM_IDS)
    begin = time.perf_counter()
    with ProcessPoolExecutor(max_workers=min(len(systems), os.cpu_count() or 1)) as pool:
        for sid, cpu in pool.map(warm, systems):
            print(f"warm: {sid} kernels ready ({cpu:.0f} s CPU)", flush=True)
    print(f"warm: every kernel compiled or loaded in {time.perf_counter() - begin:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
