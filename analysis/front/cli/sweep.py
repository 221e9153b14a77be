"""``dicelab sweep``: a TOML config of cases into one tidy Parquet/CSV table, resumable and parallel."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from analysis.base.files import check_output_path
from analysis.base.progress import auto_mode
from analysis.front.cli import command, emit, number
from analysis.front.sweep import EXAMPLE, FORMATS, Interrupted, run_sweep
from analysis.front.sweep.runners import check_scheduler

CONFIG_HELP = """
Config (TOML): [sweep] names the computation; a [systems.<id>] block per system
(or several: [[systems.<id>]]) names what to sweep.  Any value is one value, a
list, or an inclusive range {from = A, to = B, step = S}; a block's cases are
the product of its values.

""" + "\n".join(f"  {line}" if line else "" for line in EXAMPLE.splitlines()) + """

Blocks hold `rules` (house rules: "house.toml" relative to the config, or an
inline table), `variants` (any ruleset field: variants and constants), `check`
(check parameters; kind = "check"), `a` and `b` (fighters; kind = "exchange" or
"duel": archetype = NAME or file = PATH, plus parameters) and, for Monte Carlo
duels, `options`.  Finished cases go to OUT.journal/, keyed by their inputs: an
interrupted sweep resumes when run again, a widened grid reuses what it holds;
the journal is removed once the table is written.  More: examples/sweeps/."""


def register(sub: Any) -> None:
    p = command(sub, "sweep", "Run a batch of cases from a TOML config into one tidy table (resumable, parallel).",
                "dicelab sweep examples/sweeps/armor_weapon_clamp.toml --out results.parquet --workers 4", run)
    p.epilog = f"{p.epilog}\n{CONFIG_HELP}"
    p.add_argument("config", metavar="CONFIG.toml", help="the sweep config")
    p.add_argument("--out", required=True, metavar="PATH", help="output table; its journal goes to PATH.journal/")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="parquet (default) or csv (the default for an --out ending in .csv)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=number(int), default=None, metavar="N",
                       help="local processes (default: all cores; at most 2 per core)")
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask distributed cluster, e.g. tcp://host:8786")
    p.add_argument("--max-memory", type=number(float), metavar="GB",
                   help="exact duels: refuse the sweep when a duel's estimated peak memory is past this (default 1 GB; "
                        "each worker solves one duel at a time)")
    p.add_argument("--keep-journal", action="store_true",
                   help="keep OUT.journal/ after the table is written (a later, wider grid reuses its cases)")
    p.add_argument("--quiet", action="store_true", help="no progress output")


def run(ns: argparse.Namespace) -> int:
    check_output_path(ns.out)
    if ns.scheduler is not None:
        check_scheduler(ns.scheduler)
    try:
        done = run_sweep(ns.config, ns.out, fmt=ns.format, workers=ns.workers, scheduler=ns.scheduler,
                         progress=auto_mode(ns.quiet), keep_journal=ns.keep_journal, max_memory=ns.max_memory)
    except Interrupted as err:
        print(f"dicelab sweep: {err}", file=sys.stderr)
        return err.exit_code
    if not ns.quiet:
        emit(f"wrote {done.rows:,} rows to {done.out} ({done.computed:,} computed, {done.resumed:,} from the journal) "
             f"in {done.seconds:.1f} s\n")
    return 0
