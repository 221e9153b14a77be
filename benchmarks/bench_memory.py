"""Benchmark: peak memory where it can grow — Monte Carlo runs, exact duels, a million-case sweep — and the
calibration of the exact duels' cost per chain state (``analysis/fights/budget.py``).

Every measurement runs in a fresh process; its peak RSS is the kernel's
high-water mark (``wait4``), summed over the process and its workers when it
has some (sampled by psutil every 0.1 s).

    python benchmarks/bench_memory.py mc          # sim-check at n = 1e7 and 4e8: RSS must be flat in n
    python benchmarks/bench_memory.py duels       # the largest archetype pairing of each system, the 2K armour-wear case
    python benchmarks/bench_memory.py sweep       # a one-million-case check sweep (must stay under 1 GB)
    python benchmarks/bench_memory.py calibrate   # peak MB and CPU seconds against chain states: paste into COSTS
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import psutil

os.environ["DICELAB_CACHE"] = "off"  # time the solves, never the disk store of solved chains

PYTHON = sys.executable
MB = 1 << 20


def measure(code: str, *argv: str) -> tuple[float, float, str]:
    """(peak RSS in MB of the process tree, wall seconds, stdout) of ``python -c code argv...``."""
    start = time.perf_counter()
    proc = subprocess.Popen([PYTHON, "-c", textwrap.dedent(code), *argv], stdout=subprocess.PIPE, text=True)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            try:
                root = psutil.Process(proc.pid)
                total = sum(p.memory_info().rss for p in [root, *root.children(recursive=True)])
                peak[0] = max(peak[0], total)
            except psutil.Error:
                pass
            time.sleep(0.1)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    watcher.join()
    if proc.returncode:
        raise SystemExit(f"measurement failed ({proc.returncode}): {code}")
    return max(peak[0], usage.ru_maxrss * 1024) / MB, time.perf_counter() - start, out


SIM_CHECK = """
import sys
from analysis.systems import get_system
from sims.api import simulate_check
s = get_system("tristat")
simulate_check("tristat", s.rules(), s.args(target=7), int(float(sys.argv[1])), seed=1)
"""


def mc(ns: argparse.Namespace) -> None:
    measure(SIM_CHECK, "1e5")  # warm the numba cache
    rows = []
    for n in ns.n:
        rss, wall, _ = measure(SIM_CHECK, n)
        rows.append((n, rss, wall))
        print(f"sim-check tristat n = {float(n):.0e}: peak RSS {rss:7.1f} MB, {wall:6.1f} s", flush=True)
    print(f"growth from the smallest to the largest n: {rows[-1][1] - rows[0][1]:+.1f} MB (allowed: < 50 MB)")


DUEL = """
import json, sys, time
from analysis import budget
from analysis.fights.fighters import load_fighter
from analysis.tools.house_rules import ruleset
from analysis.systems import get_system
system = get_system(sys.argv[1])
rules = ruleset(system, None, json.loads(sys.argv[2]))
a, b = (load_fighter(system, x) for x in sys.argv[3:5])
system.duel(system.rules(), system.Fighter(), system.Fighter())  # lazy imports and caches: time the duel alone
start = time.process_time()  # CPU seconds: what the duel costs, whatever else the machine runs
res = system.duel(rules, a, b)
try:
    budget.check_duel(system, rules, a, b, limit_gb=budget.MAX_MEMORY_GB)
    admitted = True
except Exception:
    admitted = False
print(json.dumps({"seconds": time.process_time() - start, "estimate": budget.duel_states(system, rules, a, b),
                  "estimated_mb": budget.duel_bytes(system, rules, a, b) / 2**20, "admitted": admitted}))
"""


def largest_pairings() -> list[tuple[str, dict, str, str]]:
    from analysis.fights import budget
    from analysis.fights.fighters import archetypes, load_fighter
    from analysis.systems import all_systems

    out = []
    for system in all_systems():
        rules = system.rules()
        names = list(archetypes(system.id))
        fighters = {n: load_fighter(system, n) for n in names}
        a, b = max(((x, y) for x in names for y in names),
                   key=lambda p: budget.duel_states(system, rules, fighters[p[0]], fighters[p[1]]))
        out.append((system.id, {}, a, b))
    return out


HEAVY = [("onesix", {"armor_wear": True}, f"archetype=veteran_armed,armor={k}", f"archetype=veteran_armed,armor={k}")
         for k in (3, 8)] + [("kurs", {"luck_tokens": 10}, "trained", "trained")]
"""The heavy 2K armour-wear duel — one the 1 GB ceiling admits (armor 3: its wear jumps to the end at the first
hit, so few conditions are reached) and one it refuses (armor 8: wear by 1 per hit through every level, about
3.3 GB) — and the largest К.У.Р.С. ruleset (ten luck tokens each)."""


def duel_row(case: tuple[str, dict, str, str]) -> dict:
    sid, variants, a, b = case
    rss, wall, out = measure(DUEL, sid, json.dumps(variants), a, b)
    return {"system": sid, "variants": variants, "a": a, "b": b, "peak_mb": rss, **json.loads(out)}


def duels(ns: argparse.Namespace) -> None:
    print("peak RSS of exact duels (solved here whatever the ceiling; 'admitted': under the default 1 GB ceiling)")
    print(f"{'case':<62} {'states':>9} {'estimated MB':>12} {'peak MB':>8} {'CPU s':>8} {'admitted':>8}")
    for case in [*largest_pairings(), *HEAVY]:
        r = duel_row(case)
        label = f"{r['system']} {r['a']} vs {r['b']}" + (f" {r['variants']}" if r["variants"] else "")
        label = label.replace("archetype=", "")
        print(f"{label:<62} {r['estimate']:>9,} {r['estimated_mb']:>12.0f} {r['peak_mb']:>8.0f} {r['seconds']:>8.2f} "
              f"{'yes' if r['admitted'] else 'refused':>8}", flush=True)


LADDERS = {
    "tristat": [({"stat_limits": "warn"}, f"health={k},weapon_damage=5", f"health={k},weapon_damage=5")
                for k in (40, 80, 140, 200, 300)],
    "onesix": [({"track_length": k}, "trained_armed", "trained_armed") for k in (4, 6, 8, 10, 12)]
              + [({"armor_wear": True}, f"archetype=veteran_armed,armor={k}", f"archetype=veteran_armed,armor={k}")
                 for k in (5, 8)],
    "tun": [({}, f"body={k},extra_volume=12,weapon_n=1", f"body={k},extra_volume=12,weapon_n=1") for k in (6, 12, 18, 24)],
    "kurs": [({"luck_tokens": k}, "trained", "trained") for k in (0, 2, 4, 6, 8, 10)],
}


def calibrate(ns: argparse.Namespace) -> None:
    costs = {}
    for sid, ladder in LADDERS.items():
        rows = [duel_row((sid, *case)) for case in ladder]
        for r in rows:
            print(f"  {sid} {r['a']} {r['variants']}: {r['estimate']:,} states, {r['peak_mb']:.0f} MB, "
                  f"{r['seconds']:.3f} CPU s", flush=True)
        costs[sid] = sorted((r["estimate"], round(r["peak_mb"]), float(f"{r['seconds']:.3g}")) for r in rows)
    print("\nCOSTS = {")
    for sid, points in costs.items():
        print(f'    "{sid}": Cost({tuple(points)}),')
    print("}")


SWEEP = """
import sys
from analysis.front.sweep import run_sweep
run_sweep(sys.argv[1], sys.argv[2], workers=int(sys.argv[3]))
"""
MILLION = """
[sweep]
kind = "check"

[systems.kurs]
variants = {{ luck_tokens = {{ from = 0, to = 9 }} }}
check = {{ skill = {{ from = -49, to = 50 }}, difficulty = {{ from = -49, to = 50 }}, mod = {{ from = 0, to = {mods} }} }}
"""


def sweep(ns: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "million.toml"
        config.write_text(MILLION.format(mods=ns.cases // 100_000 - 1), encoding="utf-8")
        for fmt in ns.formats:
            out = Path(tmp) / f"million.{fmt}"
            rss, wall, _ = measure(SWEEP, str(config), str(out), str(ns.workers))
            print(f"{ns.cases:,}-case check sweep to {fmt} on {ns.workers} worker(s): peak RSS {rss:.0f} MB "
                  f"(all processes), {wall:.0f} s, output {out.stat().st_size / MB:.0f} MB", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="part", required=True)
    p = sub.add_parser("mc")
    p.add_argument("--n", nargs="+", default=["1e7", "4e8"])
    p.set_defaults(func=mc)
    sub.add_parser("duels").set_defaults(func=duels)
    p = sub.add_parser("sweep")
    p.add_argument("--cases", type=int, default=1_000_000, help="a multiple of 100,000")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--formats", nargs="+", default=["parquet"])
    p.set_defaults(func=sweep)
    sub.add_parser("calibrate").set_defaults(func=calibrate)
    ns = parser.parse_args()
    ns.func(ns)


if __name__ == "__main__":
    main()
