"""Benchmark: Monte Carlo speed, measured in one run.

1. The Tri-Stat duel kernel (veteran vs trained, d6) against
   (a) a vectorised pure-numpy implementation of the same duel and
   (b) the bare cost of drawing the same dice inside numba;
2. duels/s and checks/s per system, on one core and on all cores;
3. compile time (first call, ``cache=True`` disabled in a fresh process) apart
   from run time.

    python benchmarks/bench_sims.py [--n 1000000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from numba import njit

from analysis.fights.fighters import load_fighter
from analysis.systems import SYSTEM_IDS, get_system
from sims.api import sim_module, simulate_check, simulate_duel
from sims.dice import outcome_table
from sims.engine import default_workers
from sims.tristat import F_CRIT, F_DEF, F_HEALTH, F_HIT, F_SIZE, P_FIGHTER, P_HIGH, P_LOW, T_PLAIN, pack

PAIRS = {"tristat": ("veteran", "trained"), "onesix": ("daisy", "poacher"), "tun": ("red", "blue"),
         "kurs": ("maximus", "tiberius")}
CHECKS = {"tristat": {"target": 7}, "onesix": {"rating": 9}, "tun": {"limit": 13}, "kurs": {"skill": 2}}


def numpy_duel(p: np.ndarray, table: np.ndarray, acv: tuple[int, int], n: int,
               rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """The same Tri-Stat duel (default variants) vectorised over n fights, from the same packed parameters
    and damage table as the kernel; returns (winner codes, uniforms the kernel would draw for these rolls)."""
    low, high = int(p[P_LOW]), int(p[P_HIGH])
    die = high // low
    a, b = p[P_FIGHTER:P_FIGHTER + F_SIZE], p[P_FIGHTER + F_SIZE:]
    drawn = 0

    def roll(size: int) -> np.ndarray:
        nonlocal drawn
        drawn += size
        return rng.integers(1, die + 1, size=size) + rng.integers(1, die + 1, size=size)

    def attack(att: np.ndarray, dfn: np.ndarray, damage: np.ndarray, size: int) -> np.ndarray:
        dmg = np.zeros(size, dtype=np.int64)
        t = roll(size)
        crit = t == low
        ok = ~crit & (t != high) & (t <= att[F_HIT])
        idx = np.flatnonzero(ok)
        d = roll(idx.size)
        hit = idx[~((d == low) | ((d <= dfn[F_DEF]) & (d != high)))]
        dmg[hit] = damage[roll(hit.size)]
        dmg[crit] = att[F_CRIT]
        return dmg

    taken_a = np.zeros(n, dtype=np.int64)
    taken_b = np.zeros(n, dtype=np.int64)
    result = np.full(n, -1, dtype=np.int64)
    live = np.arange(n)
    while live.size:
        ia, ib = roll(live.size) + acv[0], roll(live.size) + acv[1]
        drawn -= live.size  # the kernel rolls both initiatives with one uniform
        for mask, order in ((ia > ib, "a"), (ia < ib, "b"), (ia == ib, "s")):
            ids = live[mask]
            if order == "s":
                db_, da_ = attack(a, b, table[0], ids.size), attack(b, a, table[1], ids.size)
                taken_b[ids] += db_
                taken_a[ids] += da_
                continue
            att, dfn, dmg, back, hurt, other = ((a, b, table[0], table[1], taken_b, taken_a) if order == "a"
                                                else (b, a, table[1], table[0], taken_a, taken_b))
            hurt[ids] += attack(att, dfn, dmg, ids.size)
            up = ids[hurt[ids] <= dfn[F_HEALTH]]
            other[up] += attack(dfn, att, back, up.size)
        a_out, b_out = taken_a[live] > a[F_HEALTH], taken_b[live] > b[F_HEALTH]
        done = a_out | b_out
        result[live[done]] = np.where(a_out[done] & b_out[done], 2, np.where(b_out[done], 0, 1))
        live = live[~done]
    return result, drawn


@njit(cache=True, nogil=True)
def _bare_rolls(count: int, two: np.ndarray, rng: np.random.Generator) -> int:
    """The floor: ``count`` draws the way the kernel makes them (one uniform, one table lookup), nothing else."""
    s = 0
    for _ in range(count):
        s += two[int(rng.random() * two.size)]
    return s


def best_of(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def compile_time() -> float:
    """First-call time of the Tri-Stat duel kernel in a fresh process with an empty numba cache."""
    code = ("import time\n"
            "t=time.perf_counter()\n"
            "from analysis.fights.fighters import load_fighter; from analysis.systems import get_system\n"
            "from sims.api import simulate_duel; s=get_system('tristat')\n"
            "simulate_duel('tristat', s.rules(), load_fighter(s,'veteran'), load_fighter(s,'trained'), 10, seed=1)\n"
            "print(time.perf_counter()-t)")
    with tempfile.TemporaryDirectory() as cache:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "NUMBA_CACHE_DIR": cache})
    return float(out.stdout.strip() or "nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    ns = parser.parse_args()
    n, cores = ns.n, default_workers()
    s = get_system("tristat")
    rules = s.rules()
    a, b = load_fighter(s, "veteran"), load_fighter(s, "trained")
    params, tables = pack(rules, a, b)

    print(f"# Monte Carlo benchmark, n = {n:,}, {cores} cores")
    print(f"compile (fresh process, no cache): {compile_time():.2f} s")
    simulate_duel("tristat", rules, a, b, 1000, seed=0, workers=1)  # warm (cached compile)
    t_numba = best_of(lambda: simulate_duel("tristat", rules, a, b, n, seed=1, workers=1))
    n_np = max(n // 5, 10_000)
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    _, drawn = numpy_duel(params, tables[T_PLAIN], (a.stats(rules)[0], b.stats(rules)[0]), n_np, rng)
    t_numpy = (time.perf_counter() - t0) * n / n_np
    rolls_per_duel = drawn / n_np
    count = int(rolls_per_duel * n)
    two = outcome_table(range(1, 7), 2)
    _bare_rolls(10, two, np.random.default_rng(0))
    t_bare = best_of(lambda: _bare_rolls(count, two, np.random.default_rng(2)))
    print(f"tristat duel, one core: numba {n / t_numba:,.0f} duels/s; numpy {n / t_numpy:,.0f} duels/s "
          f"(numba is {t_numpy / t_numba:.1f}x faster); bare draws ({rolls_per_duel:.1f} per duel) {t_bare:.3f} s "
          f"for {n:,} duels -> the kernel at {t_numba / t_bare:.2f}x the random-number bound")
    print(f"{'system':<8} {'duels/s 1 core':>15} {'duels/s all':>13} {'checks/s 1 core':>16} {'checks/s all':>14}")
    for sid in SYSTEM_IDS:
        try:
            sim_module(sid)
        except ModuleNotFoundError:
            continue
        system = get_system(sid)
        r = system.rules()
        fa, fb = (load_fighter(system, x) for x in PAIRS[sid])
        args = system.args(**CHECKS[sid])
        simulate_duel(sid, r, fa, fb, 1000, seed=0)
        simulate_check(sid, r, args, 1000, seed=0)
        d1 = best_of(lambda: simulate_duel(sid, r, fa, fb, n // 4, seed=1, workers=1), 2)
        d2 = best_of(lambda: simulate_duel(sid, r, fa, fb, n // 4, seed=1, workers=cores), 2)
        c1 = best_of(lambda: simulate_check(sid, r, args, n * 4, seed=1, workers=1), 2)
        c2 = best_of(lambda: simulate_check(sid, r, args, n * 4, seed=1, workers=cores), 2)
        print(f"{sid:<8} {n / 4 / d1:>15,.0f} {n / 4 / d2:>13,.0f} {4 * n / c1:>16,.0f} {4 * n / c2:>14,.0f}")


if __name__ == "__main__":
    main()
