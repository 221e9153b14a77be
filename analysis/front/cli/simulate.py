"""Monte Carlo commands: ``sim`` (duels) and ``sim-check`` (checks)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from analysis.base.params import merge_pairs
from analysis.front.cli import (
    DEAD_NOTE,
    add_params_options,
    add_rules_options,
    emit,
    emit_json,
    number,
    params_from,
    per_system,
    rules_from,
)
from analysis.front.cli.combat import FIGHTER_HELP, _warnings, fighters_from
from analysis.present.tables import assumptions_line, pairs
from analysis.systems import get_system

SIM_EXAMPLES = {
    "tristat": "dicelab sim tristat --a veteran --b trained --n 1000000 --seed 1 --json",
    "onesix": "dicelab sim onesix --a daisy --b poacher --n 200000 --seed 1 --model full",
    "tun": "dicelab sim tun --a red --b blue --n 200000 --seed 1 --json",
    "kurs": "dicelab sim kurs --a maximus --b tiberius --n 200000 --seed 1 --model exact",
}
CHECK_EXAMPLES = {
    "tristat": "dicelab sim-check tristat --target 7 --n 1000000 --seed 1",
    "onesix": "dicelab sim-check onesix --rating 9 --n 1000000 --seed 1 --json",
    "tun": "dicelab sim-check tun --limit 13 --dice 1d20 --n 100000 --seed 2",
    "kurs": "dicelab sim-check kurs --skill 2 --n 100000 --seed 3 --json",
}


PROGRESS_DELAY = 2.0
"""Seconds before a run shows its progress (with an ETA) on stderr: quick runs stay silent."""


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=number(int), default=100_000,
                   help="number of trials (default 100000); Ctrl-C stops early and prints the trials finished so far")
    p.add_argument("--seed", type=number(int), default=None, help="seed (same seed, same numbers, any worker count)")
    p.add_argument("--workers", type=number(int), default=None, help="threads (default: all cores; at most 4 per core)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _progress(ns: argparse.Namespace, what: str) -> Any:
    """Progress of the run on stderr, and the one-line notice of a cold kernel cache."""
    from analysis.base.progress import Progress, auto_mode
    from sims.engine import announce_compiling, check_n

    bar = Progress(auto_mode(ns.quiet), total=check_n(ns.n), unit="trial", desc=f"dicelab {what}",
                   delay=PROGRESS_DELAY)
    announce_compiling(lambda text: print(f"dicelab {what}: {text}", file=sys.stderr, flush=True))
    return bar


def _finish(res: Any, what: str) -> int:
    """Exit code 130 and a line on stderr when Ctrl-C stopped the run (the figures printed are over ``res.n``)."""
    if not res.interrupted:
        return 0
    print(f"dicelab {what}: interrupted after {res.n:,} of {res.n_requested:,} trials; the figures are over the "
          f"{res.n:,} finished", file=sys.stderr)
    return 130


def register(sub: Any) -> None:
    def add_sim(p: argparse.ArgumentParser, system: Any) -> None:
        p.add_argument("--a", required=True, metavar="FIGHTER", help=f"side A: {FIGHTER_HELP}")
        p.add_argument("--b", required=True, metavar="FIGHTER", help=f"side B: {FIGHTER_HELP}")
        p.add_argument("--model", choices=("full", "exact"), default="full",
                       help="full (default) or exact: every system's exact chain now plays the rules as written, so both "
                       "models are the same rules (kept for older scripts; the output names it)")
        p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                       help="a simulation-only rule switch; no system has one now (both models play the same rules): "
                       "rule switches are ruleset fields, --variant NAME=VALUE")
        add_rules_options(p, system)
        _add_common(p)

    def add_sim_check(p: argparse.ArgumentParser, system: Any) -> None:
        add_params_options(p, system.CheckArgs)
        add_rules_options(p, system)
        _add_common(p)

    per_system(sub, "sim", "Monte Carlo duels (numba): outcome probabilities with SE and 95% CI",
               SIM_EXAMPLES, run_sim, add_sim, note=DEAD_NOTE)
    per_system(sub, "sim-check", "Monte Carlo checks (numba): P(success) with SE and 95% CI",
               CHECK_EXAMPLES, run_sim_check, add_sim_check)


def run_sim(ns: argparse.Namespace) -> int:
    from sims.api import simulate_duel

    system = get_system(ns.system)
    rules, a, b = fighters_from(ns, system)
    options = merge_pairs(ns.option, "--option")
    bar = _progress(ns, "sim")
    try:
        res = simulate_duel(system.id, rules, a, b, ns.n, seed=ns.seed, model=ns.model, options=options,
                            workers=ns.workers, progress=bar)
    finally:
        bar.close()
    data = res.to_dict()
    if ns.json:
        emit_json(data)
        return _finish(res, "sim")
    emit(f"{system.id} sim ({res.model} model, n={_n(res)}, seed={res.seed}): {res.a['name']} (A) vs {res.b['name']} (B)\n"
         f"  rules: {pairs(res.variants)}\n" + (f"  options: {pairs(res.options)}\n" if res.options else "")
         + assumptions_line(data["assumptions"]))
    emit(res.to_frame().to_string(index=False, float_format=lambda x: f"{x:.6f}") + "\n")
    data = res.to_dict()
    for name in ("mean_finish_attacks", "mean_rounds"):
        if name in data["conditional_on"] and data[name] is not None:
            emit(f"  {name} is over {data['conditional_on'][name]}\n")
    if res.rounds_note:
        emit(f"  {res.rounds_note}\n")
    _warnings(data)
    return _finish(res, "sim")


def _n(res: Any) -> str:
    """``n`` as the header shows it: ``n=N``, or ``N of M (interrupted)``."""
    return f"{res.n} of {res.n_requested} (interrupted)" if res.interrupted else str(res.n)


def run_sim_check(ns: argparse.Namespace) -> int:
    from sims.api import simulate_check

    system = get_system(ns.system)
    rules, args = rules_from(ns, system), params_from(ns, system.CheckArgs)
    bar = _progress(ns, "sim-check")
    try:
        res = simulate_check(system.id, rules, args, ns.n, seed=ns.seed, workers=ns.workers, progress=bar)
    finally:
        bar.close()
    data = res.to_dict()
    if ns.json:
        emit_json(data)
        return _finish(res, "sim-check")
    emit(f"{system.id} sim-check (n={_n(res)}, seed={res.seed}): {pairs(res.params)}\n  rules: {pairs(res.variants)}\n"
         + assumptions_line(data["assumptions"]))
    for key in ("p_success", "p_critical", "p_fumble", "mean"):
        if key in data:
            lo, hi = data[f"ci_{key}"]
            emit(f"  {key:<10} {data[key]:.6f}  se {data[f'se_{key}']:.6f}  95% CI [{lo:.6f}, {hi:.6f}]\n")
    return _finish(res, "sim-check")
