"""Benchmark: ТУН's decisions (RULES.md section 8) and group fights (section 7).

1. ``ratio``: for every archetype pairing, the CPU time of the equilibrium (the decision game built, then solved)
   against the plain exact duel, each the best of ``--repeat`` runs with the duel's caches cleared;
2. ``sims``: group fights of 5 against 5 per CPU second, against the one-on-one duel kernel in the same run;
3. ``calibrate``: peak memory and CPU seconds of the decision game (built, then analysed as the front end does)
   and of the exact group chain against their state estimates (``tactics_states``, ``group_states``): the points
   of ``TACTICS_COSTS`` and ``GROUP_COSTS`` in ``analysis/fights/budget.py``.

    python benchmarks/bench_tun_games.py ratio [--repeat 3]
    python benchmarks/bench_tun_games.py sims [--n 200000]
    python benchmarks/bench_tun_games.py calibrate
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import os
import sys
import time

import numpy as np

from analysis.engine.game import solve
from analysis.fights.fighters import archetypes, load_fighter
from analysis.systems import get_system
from sims.engine import seed_sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_memory import measure  # noqa: E402

SYSTEM = get_system("tun")
CHAIN = importlib.import_module("analysis.systems.tun.chain")
RULES = importlib.import_module("analysis.systems.tun.rules")


def clear_caches() -> None:
    for cached in (CHAIN._action, CHAIN._duel_kernel, RULES._attack_table, RULES.attack_outcomes):
        cached.cache_clear()


def ratio(ns: argparse.Namespace) -> None:
    names = list(archetypes("tun"))
    rules = SYSTEM.rules()
    rows = []
    for a, b in itertools.product(names, names):
        fa, fb = load_fighter(SYSTEM, a), load_fighter(SYSTEM, b)
        solve(SYSTEM.tactics(rules, fa, fb).with_objective().game)
        duel_t, game_t = [], []
        for _ in range(ns.repeat):
            clear_caches()
            t0 = time.process_time()
            SYSTEM.duel(rules, fa, fb)
            t1 = time.process_time()
            clear_caches()
            dg = SYSTEM.tactics(rules, fa, fb).with_objective()
            solve(dg.game)
            t2 = time.process_time()
            duel_t.append(t1 - t0)
            game_t.append(t2 - t1)
        rows.append((a, b, min(duel_t), min(game_t), dg.game.n))
        print(f"{a:>14} {b:>14}: duel {min(duel_t):.3f} s, equilibrium {min(game_t):.3f} s, "
              f"ratio {min(game_t) / min(duel_t):.1f}, {dg.game.n:,} states", flush=True)
    ratios = np.array([g / d for _, _, d, g, _ in rows])
    within = [f"{a}/{b}" for a, b, d, g, _ in rows if g <= 3 * d]
    print(f"\nratio equilibrium / duel over {len(rows)} pairings: median {np.median(ratios):.1f}, "
          f"max {ratios.max():.1f}; within 3x: {len(within)} of {len(rows)}")


def sims(ns: argparse.Namespace) -> None:
    tun = importlib.import_module("sims.tun")
    rules = SYSTEM.rules()
    fa, fb = load_fighter(SYSTEM, "trained_armed"), load_fighter(SYSTEM, "veteran")
    calls = {"duel 1v1": tun.duel_call(rules, fa, fb, "full", tun.Options()),
             "group 1v1": tun.group_call(rules, [fa], [fb]),
             "group 5v5": tun.group_call(rules, [fa] * 5, [load_fighter(SYSTEM, "trained")] * 3 + [fb] * 2)}
    for name, call in calls.items():
        call(1000, np.random.default_rng(1))
        rng = np.random.Generator(np.random.PCG64(seed_sequence(2)))
        t0 = time.process_time()
        call(ns.n, rng)
        t = time.process_time() - t0
        print(f"{name}: {ns.n / t:,.0f} fights per CPU second ({ns.n:,} in {t:.2f} s)", flush=True)


GAME = """
import json, sys, time
from analysis.fights.fighters import load_fighter
from analysis.fights.tactics import analyse
from analysis.systems import get_system
s = get_system("tun")
a, b = load_fighter(s, sys.argv[1]), load_fighter(s, sys.argv[2])
t = time.process_time()
analyse(s.tactics(s.rules(), a, b))
print(json.dumps({"estimate": s.tactics_states(s.rules(), a, b), "seconds": time.process_time() - t}))
"""
GROUP = """
import json, sys, time
from analysis.fights.fighters import load_fighter
from analysis.systems import get_system
s = get_system("tun")
side = lambda text: [load_fighter(s, x) for x in text.split("+")]
a, b = side(sys.argv[1]), side(sys.argv[2])
t = time.process_time()
res = s.group(s.rules(), a, b)
print(json.dumps({"estimate": s.group_states(s.rules(), a, b), "seconds": time.process_time() - t,
                  "states": res.solution.states}))
"""
GAME_LADDER = [("novice", "novice"), ("trained_armed", "trained_armed"), ("master", "master"),
               ("berserker", "berserker"), ("red", "trained_armed"), ("red", "master"), ("red", "red")]
GROUP_LADDER = [("veteran", "trained_armed+trained_armed"), ("master", "novice_armed+novice_armed+novice_armed"),
                ("trained_armed", "novice+novice+novice"), ("trained_armed+novice_armed", "trained+novice")]


def calibrate(ns: argparse.Namespace) -> None:
    for name, code, ladder in (("TACTICS_COSTS", GAME, GAME_LADDER), ("GROUP_COSTS", GROUP, GROUP_LADDER)):
        measure(code, *ladder[0])
        points = []
        for a, b in ladder:
            mb, _, out = measure(code, a, b)
            got = json.loads(out)
            points.append((got["estimate"], round(mb), float(f"{got['seconds']:.3g}")))
            print(f"  {a} against {b}: {got['estimate']:,} estimated states, {mb:.0f} MB, "
                  f"{got['seconds']:.2f} CPU s", flush=True)
        print(f'{name} = {{"tun": Cost({tuple(sorted(points))})}}', flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="part", required=True)
    p = sub.add_parser("ratio")
    p.add_argument("--repeat", type=int, default=3)
    p.set_defaults(func=ratio)
    p = sub.add_parser("sims")
    p.add_argument("--n", type=int, default=200_000)
    p.set_defaults(func=sims)
    sub.add_parser("calibrate").set_defaults(func=calibrate)
    ns = parser.parse_args()
    ns.func(ns)


if __name__ == "__main__":
    main()
