"""Running a sweep: the cases missing from the journal computed where the runner says, each batch journaled as
it finishes, then the whole table written from the journal, and the journal removed."""

from __future__ import annotations

import json
import math
import os
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np

from analysis.base import __version__
from analysis.base.files import check_output_path
from analysis.base.interrupt import signals
from analysis.base.params import DicelabError
from analysis.base.progress import Progress
from analysis.engine.assumptions import declared
from analysis.fights.budget import check_duel, check_group
from analysis.front.sweep.config import SweepConfig, load_config
from analysis.front.sweep.expand import Sweep, expand
from analysis.front.sweep.journal import Journal, journal_path
from analysis.front.sweep.output import column_kind, output_format, write_rows
from analysis.front.sweep.runners import DaskRunner, LocalRunner
from analysis.front.sweep.work import CaseFailed, batch_size, batches, warm
from analysis.systems import get_system

ASSUMPTIONS_KEY = "dicelab.assumptions"
"""The Parquet metadata key of ``{system: {assumption: {"reason", "plausible"}}}``."""


class Interrupted(DicelabError):
    """Ctrl-C or SIGTERM ended a sweep; the journal keeps every finished case (exit code 130 either way)."""

    exit_code = 130

    def __init__(self, journal: Path, done: int, total: int):
        super().__init__(f"interrupted: {done:,} of {total:,} cases are kept in {journal}/; "
                         "run the same command again to resume")


@dataclass(frozen=True)
class SweepSummary:
    """What a finished sweep did."""

    out: Path
    rows: int
    computed: int
    resumed: int
    seconds: float


def open_journal(out: str | os.PathLike[str], sweep: Sweep) -> Journal:
    """The journal of ``out`` for this sweep, an unwritable place as a one-line error."""
    try:
        return Journal(out, sweep.ids, sweep.config.source)
    except OSError as err:
        raise DicelabError(f"out = {str(out)!r}: its journal cannot be written: {err}") from None


def _todo(sweep: Sweep, journal: Journal) -> np.ndarray:
    """A mask of the cases to compute: not in the journal, and the first of any identical cases."""
    first = np.zeros(len(sweep), dtype=bool)
    first[np.unique(sweep.ids, return_index=True)[1]] = True
    return first & ~journal.done()


def check_memory(sweep: Sweep, max_memory: float | None = None) -> None:
    """Every exact duel or group fight of the sweep under the memory ceiling (:func:`analysis.fights.budget.check_duel`,
    ``check_group``), or a refusal naming the first that is not, before anything is written."""
    if sweep.method.method != "exact" or sweep.method.kind not in ("duel", "group"):
        return
    check = check_duel if sweep.method.kind == "duel" else check_group
    for case in sweep.cases():
        try:
            check(get_system(case.system), case.rules, case.a, case.b, limit_gb=max_memory, option="--max-memory GB")
        except DicelabError as err:
            raise DicelabError(f"{sweep.config.source}: case {case.index} ({case.system}): {err}") from None


def write_table(sweep: Sweep, journal: Journal, out: str | os.PathLike[str], fmt: str) -> int:
    """The tidy table, streamed from the journal: one row per case in case order; the input columns, the outputs
    (``assumptions``: the lab's assumptions each case rests on, JSON text), ``dicelab_version``.  Parquet's metadata
    holds what each assumption of the sweep's systems is (:data:`ASSUMPTIONS_KEY`)."""
    inputs = sweep.input_columns
    names = inputs + [n for n in journal.columns.names if n not in inputs] + ["dicelab_version"]
    types = {**journal.columns.types, **sweep.input_types(), "dicelab_version": {str}}
    rows = ({**row, **result} for row, result in zip(sweep.rows(), journal.rows(range(len(sweep)))))
    systems = dict.fromkeys(grid.system for grid in sweep.grids)
    meta = {ASSUMPTIONS_KEY: json.dumps({sid: declared(get_system(sid).assumptions) for sid in systems},
                                        ensure_ascii=False)}
    return write_rows(out, fmt, names, {n: column_kind(types.get(n, set())) for n in names}, rows, meta)


def run_sweep(config: str | os.PathLike[str] | SweepConfig, out: str | os.PathLike[str], fmt: str | None = None,
              workers: int | None = None, scheduler: str | None = None, progress: str = "quiet",
              every: float = 10.0, stream: TextIO | None = None, keep_journal: bool = False,
              max_memory: float | None = None) -> SweepSummary:
    """Run the cases of ``config`` missing from ``OUT.journal/`` and write the whole table to ``out``.

    ``fmt``: ``parquet`` or ``csv`` (default: ``csv`` for a ``.csv`` name, else
    ``parquet``); ``workers`` local processes (default: all cores) or
    ``scheduler`` a Dask scheduler address.  The output path, the format, the
    config and every exact duel's estimated memory (at most ``max_memory`` GB
    each, default 1) are checked before anything is written.  The journal is removed
    once the table is written (``keep_journal`` keeps it).  Raises
    :class:`Interrupted` on Ctrl-C/SIGTERM with every finished case journaled.
    """
    start = time.perf_counter()
    check_output_path(out, "out")
    fmt = output_format(out, fmt)
    sweep = expand(config if isinstance(config, SweepConfig) else load_config(config))
    check_memory(sweep, max_memory)
    runner = DaskRunner(scheduler) if scheduler else LocalRunner(workers)
    try:
        with signals(), runner, open_journal(out, sweep) as journal:
            todo = _todo(sweep, journal)
            count, total, kept = int(todo.sum()), len(sweep), int(journal.done().sum())
            bar = Progress(progress, total, total - count, unit="case", desc="sweep", stream=stream, every=every)
            where = f"Dask at {scheduler}" if scheduler else f"{runner.slots} worker{'s' * (runner.slots > 1)}"
            bar.note(f"{count:,} of {total:,} cases to compute ({kept:,} in {journal.dir}/), {where}")
            try:
                if not scheduler and count:
                    _warm(sweep, bar)
                cases = (case for case in sweep.cases() if todo[case.index])
                size = batch_size(count, sweep.method, runner.slots)
                with closing(runner.run(sweep.method, batches(cases, size), math.ceil(count / size))) as parts:
                    for part in parts:
                        journal.append([{"case_id": f"{int(sweep.ids[i]):016x}", "dicelab_version": __version__, **cols}
                                        for i, cols in part])
                        bar.update(len(part))
                bar.note(f"writing {total:,} rows to {out}")
                rows = write_table(sweep, journal, out, fmt)
            except KeyboardInterrupt:
                raise Interrupted(journal.dir, int(journal.done().sum()), total) from None
            except CaseFailed as err:
                kept = int(journal.done().sum())
                raise CaseFailed(f"{err}; the {kept:,} finished cases are kept in {journal.dir}/") from None
            finally:
                bar.close()
            if not keep_journal:
                journal.remove()
    except KeyboardInterrupt:
        where = journal_path(out)
        if not where.exists():
            raise
        raise Interrupted(where, _lines(where), len(sweep)) from None
    return SweepSummary(Path(out), rows, count, kept, time.perf_counter() - start)


def _lines(where: Path) -> int:
    """The finished cases a journal holds, counted without opening it (an interruption that landed while the
    journal was being opened or closed)."""
    rows = where / "rows.jsonl"
    return rows.read_bytes().count(b"\n") if rows.exists() else 0


def _warm(sweep: Sweep, bar: Progress) -> None:
    """Monte Carlo kernels compiled here, once, before workers start (one line says so when the cache is cold)."""
    if sweep.method.method == "monte_carlo":
        from sims.engine import announce_compiling

        announce_compiling(bar.note)
        warm(sweep.method, sweep.first_cases())
