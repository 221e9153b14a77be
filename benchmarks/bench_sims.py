"""Benchmark: Monte Carlo speed, measured in one run.

1. The Tri-Stat duel kernel (veteran vs trained, d6) against a vectorised
   pure-numpy implementation of the same duel;
2. one table per area (duels, checks, group fights): each kernel's trials per
   second on one core (CPU time), its ratio to its bare random-number bound
   (the same count of uniforms drawn inside numba with one table lookup each,
   nothing else), and its scaling: the wall time of one run on one core over
   that on all cores, the best of a few alternating runs of at least 8 chunks
   per core (a run of fewer chunks cannot spread evenly: 100,000 trials are 2
   chunks, at most 1.5x on 2 cores) and of at least a second of one core's work
   (16 M checks take 0.1 s, where starting the pool is not noise);
3. with ``--against REV``: the same kernels of the git revision REV, run from
   a temporary worktree in a subprocess of this run, and the ratio of rates;
4. compile time (first call, ``cache=True`` disabled in a fresh process) apart
   from run time.

    python benchmarks/bench_sims.py [--n 1000000] [--against HEAD~1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from analysis.fights.fighters import load_fighter
from analysis.systems import SYSTEM_IDS, get_system
from sims.api import group_module, sim_module, simulate_duel
from sims.dice import outcome_table
from sims.engine import CHUNK, default_workers, run_chunks
from sims.tristat import F_CRIT, F_DEF, F_HEALTH, F_HIT, F_SIZE, P_FIGHTER, P_HIGH, P_LOW, T_PLAIN, pack

PAIRS = {"tristat": ("veteran", "trained"), "onesix": ("daisy", "poacher"), "tun": ("red", "blue"),
         "kurs": ("maximus", "tiberius")}
CHECKS = {"tristat": {"target": 7}, "onesix": {"rating": 9}, "tun": {"limit": 13}, "kurs": {"skill": 2}}


def numpy_duel(p: np.ndarray, table: np.ndarray, acv: tuple[int, int], n: int,
               rng: np.random.Generator) -> np.ndarray:
    """The same Tri-Stat duel (default variants) vectorised over n fights, from the same packed parameters
    and damage table as the kernel; returns the winner codes."""
    low, high = int(p[P_LOW]), int(p[P_HIGH])
    die = high // low
    a, b = p[P_FIGHTER:P_FIGHTER + F_SIZE], p[P_FIGHTER + F_SIZE:]

    def roll(size: int) -> np.ndarray:
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
    return result


@njit(cache=True, nogil=True)
def _bare_rolls(count: int, two: np.ndarray, rng: np.random.Generator) -> int:
    """The floor: ``count`` draws the way the kernel makes them (one uniform, one table lookup), nothing else."""
    s = 0
    for _ in range(count):
        s += two[int(rng.random() * two.size)]
    return s


def best_of(fn: Callable[[], Any], repeat: int = 3, clock: Callable[[], float] = time.perf_counter) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = clock()
        fn()
        best = min(best, clock() - t)
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


SCALE_SECONDS = 1.0
"""The least one-core work (seconds) a scaling run does."""
GROUPS = "group fights, 5 against 5"
AREAS = {"duels": 1, "checks": 16, GROUPS: 1 / 4}
"""Trials on one core per area, as a multiple of ``--n``."""


def kernels() -> list[tuple[str, str, Callable[[int, np.random.Generator], np.ndarray]]]:
    """(area, system, chunk callable) of every kernel measured: each system's duel, check and group kernels."""
    found = []
    for sid in SYSTEM_IDS:
        try:
            module = sim_module(sid)
        except ModuleNotFoundError:
            continue
        system = get_system(sid)
        rules = system.rules()
        a, b = (load_fighter(system, x) for x in PAIRS[sid])
        found.append(("duels", sid, module.duel_call(rules, a, b, "full", module.Options())))
        found.append(("checks", sid, module.check_call(rules, system.args(**CHECKS[sid]))))
        groups = group_module(sid)
        if groups is not None:
            found.append((GROUPS, sid, groups.group_call(rules, [a] * 5, [b] * 5)))
    return found


def rates(n: int, repeat: int) -> dict[str, tuple[float, float, float]]:
    """Trials per second of every kernel, ``area|system`` -> (one core by CPU time; one core and all cores by wall
    time, on at least 8 chunks per core so that the chunks spread evenly and at least :data:`SCALE_SECONDS` of one
    core's work so that starting the pool is noise, the two runs alternating), the best of ``repeat`` runs each."""
    cores = default_workers()
    found = {}
    for area, sid, call in kernels():
        call(100, np.random.default_rng(0))  # compile, or load the cache
        one = max(int(n * AREAS[area]), CHUNK)
        cpu = best_of(lambda: run_chunks(call, one, seed=1, workers=1), repeat, time.process_time)
        many = max(one, 8 * cores * CHUNK, int(SCALE_SECONDS * one / cpu))
        wall = [float("inf"), float("inf")]
        for _ in range(repeat):
            for k, workers in enumerate((1, cores)):
                wall[k] = min(wall[k], best_of(lambda: run_chunks(call, many, seed=1, workers=workers), 1))
        found[f"{area}|{sid}"] = (one / cpu, many / wall[0], many / wall[1])
    return found


def draws_per_trial(call: Callable[[int, np.random.Generator], np.ndarray], trials: int = 2000) -> float:
    """Uniforms a kernel draws per trial: the position of its generator's next draw in a fresh stream of the same
    seed (nan when the kernel draws anything but ``random()``, or more than 1,000 a trial)."""
    rng = np.random.default_rng(7)
    call(trials, rng)
    after = rng.random()
    hit = np.flatnonzero(np.random.default_rng(7).random(1000 * trials) == after)
    return hit[0] / trials if hit.size else float("nan")


def bound_per_draw() -> float:
    """Seconds per uniform of the bare loop (one draw, one lookup in the 36 sums of 2d6), one core."""
    two = outcome_table(range(1, 7), 2)
    _bare_rolls(10, two, np.random.default_rng(0))
    count = 20_000_000
    return best_of(lambda: _bare_rolls(count, two, np.random.default_rng(2)), 3, time.process_time) / count


def against(rev: str, n: int, repeat: int) -> dict[str, tuple[float, ...]]:
    """:func:`rates` of the library at git revision ``rev``, measured by this script in a subprocess."""
    from against import run_in, worktree

    with worktree(rev) as tree:
        return {k: tuple(v) for k, v in json.loads(run_in(tree, __file__, "--json", "--n", str(n),
                                                              "--repeat", str(repeat))).items()}


def tables(mine: dict[str, tuple[float, ...]], theirs: dict[str, tuple[float, ...]] | None, rev: str | None,
           n: int) -> None:
    """One table per area: rates, scaling, the random-number bound and the ratio to ``rev``."""
    cores, per_draw = default_workers(), bound_per_draw()
    calls = {f"{area}|{sid}": call for area, sid, call in kernels()}
    print(f"bare random numbers: {1e9 * per_draw:.2f} ns per uniform (one core)")
    for area in AREAS:
        one = max(int(n * AREAS[area]), CHUNK)
        print(f"\n## {area}: trials per second; one core {one:,} trials (CPU time); wall time on 1 and on {cores} "
              f"cores of at least {8 * cores * CHUNK:,} trials and {SCALE_SECONDS:g} s of one core's work")
        head = f"{'system':<8} {'1 core':>12} {'draws':>6} {'bound':>12} {'x bound':>8} {'1 core wall':>12} " \
               f"{f'{cores} cores wall':>14} {'scaling':>8}"
        print(head + (f" {'1 core vs ' + rev:>16} {f'{cores} cores vs ' + rev:>16}" if rev else ""))
        for key, (r1, w1, w2) in mine.items():
            if not key.startswith(area + "|"):
                continue
            draws = draws_per_trial(calls[key])
            bound = 1 / (draws * per_draw)
            line = (f"{key.split('|')[1]:<8} {r1:>12,.0f} {draws:>6.1f} {bound:>12,.0f} {bound / r1:>7.2f}x "
                    f"{w1:>12,.0f} {w2:>14,.0f} {w2 / w1:>7.2f}x")
            if theirs is not None and key in theirs:
                line += f" {r1 / theirs[key][0]:>15.2f}x {w2 / theirs[key][-1]:>15.2f}x"
            print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="duels on one core (checks: 16x, groups: 1/4)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure, the best kept")
    parser.add_argument("--against", metavar="REV", help="also measure git revision REV (a temporary worktree)")
    parser.add_argument("--json", action="store_true", help="print only the rates, as JSON (what --against reads)")
    ns = parser.parse_args()
    n = ns.n
    if ns.json:
        print(json.dumps(rates(n, ns.repeat)))
        return
    theirs = against(ns.against, n, ns.repeat) if ns.against else None
    s = get_system("tristat")
    rules = s.rules()
    a, b = load_fighter(s, "veteran"), load_fighter(s, "trained")
    params, tables_ = pack(rules, a, b)
    print(f"# Monte Carlo benchmark, n = {n:,}, {default_workers()} cores")
    print(f"compile (fresh process, no cache): {compile_time():.2f} s")
    simulate_duel("tristat", rules, a, b, 1000, seed=0, workers=1)  # warm (cached compile)
    t_numba = best_of(lambda: simulate_duel("tristat", rules, a, b, n, seed=1, workers=1), 3, time.process_time)
    n_np = max(n // 5, 10_000)
    t0 = time.process_time()
    numpy_duel(params, tables_[T_PLAIN], (a.stats(rules)[0], b.stats(rules)[0]), n_np, np.random.default_rng(1))
    t_numpy = (time.process_time() - t0) * n / n_np
    print(f"tristat duel, one core: numba {n / t_numba:,.0f} duels/s; numpy {n / t_numpy:,.0f} duels/s "
          f"(numba is {t_numpy / t_numba:.1f}x faster)")
    tables(rates(n, ns.repeat), theirs, ns.against, n)
    if ns.against:
        print(f"\n{ns.against} was measured first, in a subprocess of this run; the machine's load may differ "
              f"between the two.")


if __name__ == "__main__":
    main()
