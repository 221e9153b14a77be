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
import tempfile
import sys
import time

import numpy as np
from numba import njit

from analysis.fighters import load_fighter
from analysis.system import SYSTEM_IDS, get_system
from sims.api import sim_module, simulate_check, simulate_duel
from sims.engine import default_workers
from sims.tristat import (F_AB, F_ACV, F_ARMOR, F_BLOCK, F_DB, F_DCV, F_HEALTH, F_WEAPON, R_B50, R_B75, R_B100,
                          R_DIE, pack_fighter, pack_rules)

PAIRS = {"tristat": ("veteran", "trained"), "onesix": ("daisy", "poacher"), "tun": ("red", "blue"),
         "kurs": ("maximus", "tiberius")}
CHECKS = {"tristat": {"target": 7}, "onesix": {"rating": 9}, "tun": {"limit": 13}, "kurs": {"skill": 2}}


def numpy_duel(a: np.ndarray, b: np.ndarray, r: np.ndarray, n: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """The same Tri-Stat duel (default variants) vectorised over n fights; returns (winner codes, dice drawn)."""
    die = int(r[R_DIE])
    drawn = 0

    def roll(size: int) -> np.ndarray:
        nonlocal drawn
        drawn += 2 * size
        return rng.integers(1, die + 1, size=size) + rng.integers(1, die + 1, size=size)

    def attack(att: np.ndarray, dfn: np.ndarray, size: int) -> np.ndarray:
        dmg = np.zeros(size, dtype=np.int64)
        t = roll(size)
        crit = t == 2
        ok = ~crit & (t != 2 * die) & (t <= att[F_ACV] + att[F_AB])
        idx = np.flatnonzero(ok)
        d = roll(idx.size)
        target = dfn[F_DCV] + dfn[F_DB] + 2 * dfn[F_BLOCK]
        hit = idx[~((d == 2) | ((d <= target) & (d != 2 * die)))]
        g = roll(hit.size)
        pct = np.where(g <= r[R_B100], 100, np.where(g <= r[R_B75], 75, np.where(g <= r[R_B50], 50, 25)))
        dmg[hit] = np.maximum(0, att[F_WEAPON] * pct // 100 + att[F_ACV] - dfn[F_ARMOR])
        dmg[crit] = max(0, 2 * att[F_WEAPON] + att[F_ACV] - dfn[F_ARMOR])
        return dmg

    taken_a = np.zeros(n, dtype=np.int64)
    taken_b = np.zeros(n, dtype=np.int64)
    result = np.full(n, -1, dtype=np.int64)
    live = np.arange(n)
    while live.size:
        ia, ib = roll(live.size) + a[F_ACV], roll(live.size) + b[F_ACV]
        first_a, first_b, sim = ia > ib, ia < ib, ia == ib
        for mask, order in ((first_a, "a"), (first_b, "b"), (sim, "s")):
            ids = live[mask]
            if order == "s":
                db_, da_ = attack(a, b, ids.size), attack(b, a, ids.size)
                taken_b[ids] += db_
                taken_a[ids] += da_
                continue
            att, dfn, hurt, hurt_other = (a, b, taken_b, taken_a) if order == "a" else (b, a, taken_a, taken_b)
            hurt[ids] += attack(att, dfn, ids.size)
            up = ids[hurt[ids] <= dfn[F_HEALTH]]
            hurt_other[up] += attack(dfn, att, up.size)
        a_out, b_out = taken_a[live] > a[F_HEALTH], taken_b[live] > b[F_HEALTH]
        done = a_out | b_out
        result[live[done]] = np.where(a_out[done] & b_out[done], 2, np.where(b_out[done], 0, 1))
        live = live[~done]
    return result, drawn


@njit(cache=True, nogil=True)
def _bare_dice(count: int, die: int, rng: np.random.Generator) -> int:
    """The floor: draw ``count`` dice the way the kernels do, nothing else."""
    s = 0
    for _ in range(count):
        s += int(rng.random() * die) + 1
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
            "from analysis.fighters import load_fighter; from analysis.system import get_system\n"
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
    pa, pb, pr = pack_fighter(rules, a), pack_fighter(rules, b), pack_rules(rules)

    print(f"# Monte Carlo benchmark, n = {n:,}, {cores} cores")
    print(f"compile (fresh process, no cache): {compile_time():.2f} s")
    simulate_duel("tristat", rules, a, b, 1000, seed=0, workers=1)  # warm (cached compile)
    t_numba = best_of(lambda: simulate_duel("tristat", rules, a, b, n, seed=1, workers=1))
    n_np = max(n // 10, 10_000)
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    _, drawn = numpy_duel(pa, pb, pr, n_np, rng)
    t_numpy = (time.perf_counter() - t0) * n / n_np
    dice_per_duel = drawn / n_np
    count = int(dice_per_duel * n)
    _bare_dice(10, 6, np.random.default_rng(0))
    t_bare = best_of(lambda: _bare_dice(count, 6, np.random.default_rng(2)))
    print(f"tristat duel, one core: numba {n / t_numba:,.0f} duels/s; numpy {n / t_numpy:,.0f} duels/s "
          f"(numba is {t_numpy / t_numba:.1f}x faster); bare dice ({dice_per_duel:.1f} dice/duel) {t_bare:.3f} s "
          f"-> kernel at {t_numba / t_bare:.2f}x the random-number bound")
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
