"""Benchmark: what the sweep machinery costs, and how a Monte Carlo sweep scales.

1. A 10,000-case exact-check sweep (K.U.R.S. skill x difficulty, 100 x 100),
   run end to end in this process (config, expansion, journal, Parquet),
   against the bare loop of ``SYSTEM.check`` over the same cases: per-case
   overhead and the ratio.
2. A Monte Carlo duel sweep (Tri-Stat) on 1 and 2 worker processes: the
   speed-up, and the fixed cost of starting the worker pool.

    python benchmarks/bench_sweep.py [--mc-cases 16] [--mc-n 400000]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from analysis.front.sweep import expand, load_config, run_sweep
from analysis.systems import get_system
from sims.engine import default_workers

CHECKS = """
[sweep]
kind = "check"

[systems.kurs]
check = { skill = { from = -50, to = 49 }, difficulty = { from = -50, to = 49 } }
"""

DUELS = """
[sweep]
kind = "duel"
method = "monte_carlo"
n = {n}
seed = 1

[systems.tristat]
a = {{ archetype = ["trained_armed", "veteran"] }}
b = {{ archetype = "veteran", armor = {{ from = 0, to = {top} }} }}
"""


def best_of(fn, repeat: int = 3) -> tuple[float, float]:
    """Best wall-clock and best CPU seconds (this process) of ``repeat`` calls."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall, cpu = min(wall, time.perf_counter() - t), min(cpu, time.process_time() - c)
    return wall, cpu


def sweep_once(config: Path, workers: int) -> None:
    """A whole sweep into a fresh output (no journal to resume from)."""
    with tempfile.TemporaryDirectory() as tmp:
        run_sweep(config, Path(tmp) / "out.parquet", workers=workers)


def contention() -> str:
    """The machine's load: other processes make wall-clock timings (and scaling) noisy."""
    text = f"load average {os.getloadavg()[0]:.1f}"
    pressure = Path("/proc/pressure/cpu")
    if pressure.exists():
        text += ", CPU pressure " + pressure.read_text().split()[1].replace("avg10=", "") + "% (10 s)"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mc-cases", type=int, default=16, help="Monte Carlo cases (even; default 16)")
    parser.add_argument("--mc-n", type=int, default=400_000, help="duels per Monte Carlo case (default 400000)")
    ns = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "checks.toml"
        config.write_text(CHECKS, encoding="utf-8")
        cases = list(expand(load_config(config)).cases())
        kurs = get_system("kurs")
        n = len(cases)
        print(f"# {default_workers()} cores; {contention()}")
        rows = [("bare SYSTEM.check loop", best_of(lambda: [kurs.check(c.rules, c.args) for c in cases])),
                ("  + result.to_dict()", best_of(lambda: [kurs.check(c.rules, c.args).to_dict() for c in cases])),
                ("config + expansion", best_of(lambda: expand(load_config(config)))),
                ("whole sweep (journal, parquet)", best_of(lambda: sweep_once(config, workers=1)))]
        print(f"# sweep overhead: {n:,}-case exact-check sweep (kurs skill x difficulty), one process")
        print(f"{'':32} {'wall s':>8} {'us/case':>8} {'CPU s':>8} {'us/case':>8}")
        for name, (wall, cpu) in rows:
            print(f"{name:32} {wall:8.3f} {wall / n * 1e6:8.1f} {cpu:8.3f} {cpu / n * 1e6:8.1f}")
        (bare, bare_cpu), (dicts, dicts_cpu), _, (whole, whole_cpu) = (t for _, t in rows)
        for label, (b, c) in (("the bare check", (bare, bare_cpu)), ("check + to_dict", (dicts, dicts_cpu))):
            print(f"overhead over {label}: wall {(whole - b) / n * 1e6:.1f} us/case ({whole / b:.2f}x), "
                  f"CPU {(whole_cpu - c) / n * 1e6:.1f} us/case ({whole_cpu / c:.2f}x)")

        top = ns.mc_cases // 2 - 1
        mc = Path(tmp) / "duels.toml"
        mc.write_text(DUELS.format(n=ns.mc_n, top=top), encoding="utf-8")
        tiny = Path(tmp) / "tiny.toml"
        tiny.write_text(DUELS.format(n=10, top=0), encoding="utf-8")
        startup = best_of(lambda: sweep_once(tiny, workers=2), 2)[0]
        one = two = float("inf")
        for _ in range(2):  # interleaved, so a change in the machine's load hits both
            one = min(one, best_of(lambda: sweep_once(mc, workers=1), 1)[0])
            two = min(two, best_of(lambda: sweep_once(mc, workers=2), 1)[0])
        duels = 2 * (top + 1) * ns.mc_n
        print(f"\n# Monte Carlo scaling: {2 * (top + 1)} tristat duel cases x n = {ns.mc_n:,}; {contention()}")
        print(f"1 worker   {one:7.2f} s  {duels / one:12,.0f} duels/s")
        print(f"2 workers  {two:7.2f} s  {duels / two:12,.0f} duels/s  speed-up {one / two:.2f}x")
        print(f"2-worker pool start-up (a 2-case sweep of n = 10): {startup:.2f} s, included above; "
              f"without it the speed-up is {one / max(two - startup, 1e-9):.2f}x")


if __name__ == "__main__":
    main()
