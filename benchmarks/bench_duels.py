"""Benchmark: exact duels between every archetype pairing of every system; for 2K, its IN economy in detail.

Per system: the median and largest time over all ordered pairings: ``cold`` is the first solve of a pairing
(its tables not yet cached), ``warm`` the best of ``--repeat`` further solves; and the largest state count.
2K (``onesix``) caches whole duels, so its ``warm`` is a cache hit: its table adds ``re-solve`` (the cache
cleared) and the first solve in a fresh process (the compiled kernels loaded from numba's cache).  Then, for 2K:
how the state count and time grow with B's reflexes (A at 8) and with the track length, and the Monte Carlo time
needed for the exact answer's accuracy on P(A wins) (1e-4: n = p(1 - p) / 1e-8).  Times are CPU seconds of this
process (``time.process_time``), steadier than wall time on a shared machine.

``--against REV`` times 2K's duels instead under this tree's code and under ``REV``'s (checked out in a temporary
git worktree, its kernels compiled there first), each in its own process, alternately ``--rounds`` times (the
least time of each pairing kept), and prints both and their ratio: the 100 cold solves' median and largest and
the first duel of a fresh process.

    python benchmarks/bench_duels.py [--repeat 3] [--systems onesix] [--mc-n 1000000]
    python benchmarks/bench_duels.py --against HEAD~3 [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from analysis.fights.fighters import archetypes, load_fighter
from analysis.systems import SYSTEM_IDS, get_system

os.environ["DICELAB_CACHE"] = "off"  # time the solves, never the disk store of solved chains


def cpu() -> float:
    return time.process_time()


def ms(values) -> str:
    return f"{statistics.median(values) * 1e3:>9.0f} {max(values) * 1e3:>9.0f}"


def all_pairings(system, repeat: int) -> None:
    from analysis.systems.onesix import solver

    rules = system.rules()
    names = list(archetypes(system.id))
    fighters = {n: load_fighter(system, n) for n in names}
    cold, warm, resolve, states = {}, {}, {}, {}
    for a in names:
        for b in names:
            t = cpu()
            res = system.duel(rules, fighters[a], fighters[b])
            cold[a, b] = cpu() - t
            best = float("inf")
            for _ in range(repeat):
                t = cpu()
                system.duel(rules, fighters[a], fighters[b])
                best = min(best, cpu() - t)
            warm[a, b], states[a, b] = best, res.solution.states
            if system.id == "onesix":
                forget(solver)
                t = cpu()
                system.duel(rules, fighters[a], fighters[b])
                resolve[a, b] = cpu() - t
    big = max(states, key=states.get)
    slow = max(cold, key=cold.get)
    line = f"{system.id:<8} {len(cold):>5} {ms(cold.values())} {ms(warm.values())}"
    line += f" {ms(resolve.values())}" if resolve else f" {'-':>9} {'-':>9}"
    print(line + f"  states median {statistics.median(states.values()):>8.0f} max {states[big]:>8} ({big[0]} vs "
          f"{big[1]}); slowest {slow[0]} vs {slow[1]}")


def forget(solver) -> None:
    """Clear 2K's solved duels (a tree before 0486b98 kept them only by the duel's fields)."""
    getattr(solver, "cache_clear", solver.economy_duel.cache_clear)()


def first_in_process(store: str = "off") -> float:
    """The first 2K duel of a fresh process (imports excluded): numba loads its compiled kernels from the cache;
    ``store``: the disk store of solved chains (``DICELAB_CACHE``), off unless a directory is named."""
    code = ("import time\nfrom analysis.systems import get_system\nfrom analysis.fights.fighters import load_fighter\n"
            "s = get_system('onesix'); a = load_fighter(s, 'trained_armed')\n"
            "t = time.process_time(); s.duel(s.rules(), a, a); print(time.process_time() - t)")
    env = {**os.environ, "DICELAB_CACHE": store}
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                env=env).stdout)


def first_from_store() -> float:
    """The same first duel when an earlier process solved it: read back from the disk store (a fresh one)."""
    with tempfile.TemporaryDirectory() as store:
        first_in_process(store)
        return first_in_process(store)


def onesix_times() -> dict[str, list[float] | float]:
    """2K's cold solve of every ordered archetype pairing (the duel cache cleared) and the first duel of a fresh
    process, in CPU seconds."""
    from analysis.systems.onesix import solver

    first = first_in_process()
    system = get_system("onesix")
    rules = system.rules()
    fighters = {n: load_fighter(system, n) for n in archetypes("onesix")}
    cold = []
    for a in fighters.values():
        for b in fighters.values():
            forget(solver)
            t = cpu()
            system.duel(rules, a, b)
            cold.append(cpu() - t)
    return {"cold": cold, "first": first}


def against(rev: str, rounds: int) -> None:
    """:func:`onesix_times` under this tree and under ``rev`` (a temporary git worktree), alternately."""
    here = Path(__file__).resolve().parents[1]

    def run(root: Path, *args: str) -> str:
        env = dict(os.environ, PYTHONPATH=str(root))
        return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True,
                              check=True).stdout

    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "-C", str(here), "worktree", "add", "--detach", str(old), rev], check=True,
                       capture_output=True)
        try:
            warm = ("from analysis.systems import get_system\nfrom analysis.fights.fighters import load_fighter\n"
                    "s = get_system('onesix'); a = load_fighter(s, 'trained_armed'); s.duel(s.rules(), a, a)")
            run(old, "-c", warm)  # its kernels compiled into its own numba cache first
            times: dict[str, list[dict]] = {"old": [], "new": []}
            for _ in range(rounds):
                for name, root in (("old", old), ("new", here)):
                    times[name].append(json.loads(run(root, str(Path(__file__).resolve()), "--times-json")))
        finally:
            subprocess.run(["git", "-C", str(here), "worktree", "remove", "--force", str(old)], check=True)
    best = {name: {"cold": [min(x) for x in zip(*(r["cold"] for r in runs))], "first": min(r["first"] for r in runs)}
            for name, runs in times.items()}
    print(f"2K cold solves of the {len(best['new']['cold'])} archetype pairings and the first duel of a fresh "
          f"process (ms, CPU; least of {rounds} alternating runs each)")
    print(f"{'':>12} {'median':>8} {'max':>8} {'first':>8}")
    rows = {name: (statistics.median(b["cold"]), max(b["cold"]), b["first"]) for name, b in best.items()}
    for name, label in (("old", rev), ("new", "this tree")):
        print(f"{label:>12} " + " ".join(f"{v * 1e3:>8.0f}" for v in rows[name]))
    print(f"{'new / old':>12} " + " ".join(f"{n / o:>8.2f}" for n, o in zip(rows["new"], rows["old"])))


def onesix_growth(mc_n: int) -> None:
    from analysis.systems.onesix import solver
    from sims.api import simulate_duel

    system = get_system("onesix")
    base = load_fighter(system, "trained_armed")
    print("\n2K, A trained_armed (reflexes 8) against B at reflexes r: states and time of one solve")
    print(f"{'r':>4} {'states':>8} {'ms':>6} {'P(A wins)':>10} {'MC n for 1e-4':>14} {'MC s for 1e-4':>14}")
    rate = None
    for r in range(6, 17, 2):
        b = base.replace(reflexes=r)
        forget(solver)
        t = cpu()
        sol = system.duel(system.rules(), base, b).solution
        took = cpu() - t
        if rate is None:
            t = cpu()
            simulate_duel("onesix", system.rules(), base, b, mc_n, seed=1, workers=1)
            rate = mc_n / (cpu() - t)
        n_mc = sol.p_a_wins * (1 - sol.p_a_wins) / 1e-8
        print(f"{r:>4} {sol.states:>8} {took * 1e3:>6.0f} {sol.p_a_wins:>10.6f} {n_mc:>14.3g} {n_mc / rate:>14.1f}")
    print(f"(Monte Carlo: {rate:,.0f} duels per CPU second on one core)")
    print("\n2K, the trained_armed mirror with a longer track (reserve 3): states and time")
    print(f"{'track':>6} {'states':>8} {'ms':>6}")
    for track in (4, 6, 8, 10):
        forget(solver)
        t = cpu()
        sol = system.duel(system.rules(track_length=track), base, base).solution
        print(f"{track:>6} {sol.states:>8} {(cpu() - t) * 1e3:>6.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--systems", nargs="*", default=list(SYSTEM_IDS))
    parser.add_argument("--mc-n", type=int, default=1_000_000)
    parser.add_argument("--against", metavar="REV", help="time 2K's duels here and at this git revision instead")
    parser.add_argument("--rounds", type=int, default=2, help="--against: alternating runs of each tree")
    parser.add_argument("--times-json", action="store_true", help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.times_json:
        print(json.dumps(onesix_times()))
        return
    if ns.against:
        against(ns.against, ns.rounds)
        return
    if "onesix" in ns.systems:
        print(f"2K: first duel in a fresh process {first_in_process() * 1e3:.0f} ms (kernels from numba's cache), "
              f"{first_from_store() * 1e3:.0f} ms when an earlier run solved it (the disk store)\n")
    print(f"{'system':<8} {'pairs':>5} {'cold med':>9} {'cold max':>9} {'warm med':>9} {'warm max':>9} "
          f"{'re-solve':>9} {'max':>9}  (ms)")
    for sid in ns.systems:
        all_pairings(get_system(sid), ns.repeat)
    if "onesix" in ns.systems:
        onesix_growth(ns.mc_n)


if __name__ == "__main__":
    main()
