"""Benchmark: latency of ``tune`` and ``equiv`` (target < 50 ms per call, after a
warm-up) and a ``design`` search over 1,000 settings (target < 1 minute on two cores),
beside the time it was estimated to take before it started (``analysis/fights/budget.py``).

Every call gets fresh inputs (its own character and probability), so nothing but
the systems' dice caches is warm.  The load average is printed beside the figures:
other work on the machine slows every number here.

    python benchmarks/bench_balance.py [--calls 40] [--workers N] [--skip-design]
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import statistics
import time
from typing import Any, Callable

from analysis.base.pool import cores
from analysis.fights.fighters import load_fighter
from analysis.systems import SYSTEM_IDS, get_system
from analysis.tools.design import design, parse_vary
from analysis.tools.design import setting_fighters as _setting_fighters
from analysis.tools.duels import estimate_seconds
from analysis.tools.equiv import equiv
from analysis.tools.tune import tune

os.environ["DICELAB_CACHE"] = "off"  # time the solves, never the disk store of solved chains

TARGET_MS = 50.0
DESIGN_TARGET_S = 60.0
DESIGN_VARY = "a.weapon_damage=0..24,b.weapon_damage=0..7,b.armor=0..4"  # 25 x 8 x 5 = 1,000 settings


def timed_calls(calls: list[Callable[[], Any]]) -> list[float]:
    """Milliseconds of each call."""
    out = []
    for call in calls:
        start = time.perf_counter()
        call()
        out.append((time.perf_counter() - start) * 1000)
    return out


def tune_calls(system_id: str, n: int) -> list[Callable[[], Any]]:
    system = get_system(system_id)
    rules = system.rules()
    cases = itertools.cycle(range(-3, 4))
    probs = itertools.cycle((0.1, 0.25, 0.5, 0.7, 0.85, 0.9))
    base = getattr(system.args(), system.value)
    return [lambda a=system.args(**{system.value: base + next(cases)}), p=next(probs): tune(system, rules, a, p)
            for _ in range(n)]


def equiv_calls(source_id: str, n: int) -> list[Callable[[], Any]]:
    source = get_system(source_id)
    targets = itertools.cycle([get_system(s) for s in SYSTEM_IDS if s != source_id])
    cases = itertools.cycle(range(-3, 4))
    base = getattr(source.args(), source.value)
    calls = []
    for _ in range(n):
        target, args = next(targets), source.args(**{source.value: base + next(cases)})
        calls.append(lambda t=target, a=args: equiv(source, source.rules(), a, t, t.rules(), t.args()))
    return calls


def cpu_seconds() -> float:
    """User + system CPU time of this process and its finished children (the design workers)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def report(name: str, ms: list[float]) -> bool:
    ok = max(ms) < TARGET_MS
    print(f"  {name:<16} mean {statistics.mean(ms):6.2f} ms  median {statistics.median(ms):6.2f} ms  "
          f"max {max(ms):6.2f} ms  ({len(ms)} calls)  {'ok' if ok else 'OVER ' + str(TARGET_MS) + ' ms'}")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=40, help="timed calls per system and tool")
    parser.add_argument("--workers", type=int, default=None, help="design processes (default: the CPUs)")
    parser.add_argument("--skip-design", action="store_true")
    ns = parser.parse_args()
    print(f"CPUs: {os.cpu_count()}, load average at start: {os.getloadavg()[0]:.2f}")
    ok = True
    for system_id in SYSTEM_IDS:
        timed_calls(tune_calls(system_id, 5) + equiv_calls(system_id, 5))  # warm-up: dice caches, imports
        print(f"{system_id}:")
        ok &= report("tune", timed_calls(tune_calls(system_id, ns.calls)))
        ok &= report("equiv (from it)", timed_calls(equiv_calls(system_id, ns.calls)))
    if not ns.skip_design:
        tri = get_system("tristat")
        a, b = load_fighter(tri, "veteran"), load_fighter(tri, "trained")
        vary = parse_vary(DESIGN_VARY)
        grid = itertools.product(*(range(v.lo, v.hi + 1) for v in vary))
        jobs = [(tri.rules(), *_setting_fighters(a, b, vary, values)) for values in grid]
        workers = ns.workers or cores()
        estimate = estimate_seconds(tri, jobs) / workers
        start, cpu_start = time.perf_counter(), cpu_seconds()
        res = design(tri, tri.rules(), a, b, DESIGN_VARY, rounds=4, lethality=0.05, p_win=0.6, top=3, workers=ns.workers,
                     budget=1e9)
        took, cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
        ok &= took < DESIGN_TARGET_S
        best = res.best[0]
        print(f"design tristat veteran vs trained, {res.settings} settings ({DESIGN_VARY}): {took:.1f} s wall "
              f"({took / res.settings * 1000:.1f} ms per setting), {cpu:.1f} CPU-seconds in all processes  "
              f"{'ok' if took < DESIGN_TARGET_S else 'OVER 60 s'}")
        print(f"  estimated before it started: {estimate:.1f} s on {workers} processes (ratio took/estimate "
              f"{took / estimate:.2f}; the estimate should be an upper bound, ratio <= 1)")
        print(f"  best: {best.setting} distance {best.distance:.3f}, mean rounds {best.figures.mean_rounds:.2f}, "
              f"P(at least one killed) {best.figures.p_killed:.3f}, P(A wins) {best.figures.p_a_wins:.3f}")
    print(f"load average at end: {os.getloadavg()[0]:.2f}; all targets met: {ok}")


if __name__ == "__main__":
    main()
