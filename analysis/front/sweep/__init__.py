"""Batch sweeps: a TOML config expanded into cases, computed resumably and in parallel into one tidy table.

``[sweep]`` names the computation; a ``[systems.<id>]`` block per system (or
several: an array of tables ``[[systems.<id>]]``) names the values to sweep.
Any value is one value, a list of values, or an inclusive integer range
written as a table ``{from = A, to = B}`` (optional ``step = S``).  A block's
cases are the cartesian product of its values; the sweep's cases are the
blocks' cases one after the other, numbered from 0:

>>> print(EXAMPLE, end="")
[sweep]
kind = "check"             # check | exchange | duel
method = "exact"           # exact | monte_carlo (then n = 100000, seed = 1)
<BLANKLINE>
[systems.tristat]
variants = { die = [6, 8] }
check = { target = { from = 2, to = 12 } }
>>> import tomllib
>>> sweep = expand(parse_config(tomllib.loads(EXAMPLE), "example.toml"))
>>> len(sweep), next(sweep.rows())["variant_die"]
(22, 6)

:func:`run_sweep` computes the cases missing from the journal next to the
output (``OUT.journal/``), in this process, in local worker processes or on a
Dask cluster, then writes the table from the journal, a row group at a time.

The package, one reason to change per module: :mod:`.config` (reading and
checking a config), :mod:`.expand` (cases and their ids), :mod:`.work` (what a
case computes), :mod:`.journal` (finished cases on disk), :mod:`.runners`
(where batches run), :mod:`.output` (the table), :mod:`.run` (the whole run);
progress is :mod:`analysis.base.progress`.
"""

from analysis.front.sweep.config import (
           EXAMPLE,
           KINDS,
           METHODS,
           Block,
           ConfigError,
           Method,
           SweepConfig,
           load_config,
           parse_config,
           points,
           sweep_values,
)
from analysis.front.sweep.expand import Case, Sweep, columns, expand
from analysis.front.sweep.journal import Journal, journal_path
from analysis.front.sweep.output import FORMATS
from analysis.front.sweep.run import Interrupted, SweepSummary, run_sweep, write_table
from analysis.front.sweep.runners import DaskRunner, LocalRunner
from analysis.front.sweep.work import CaseFailed, case_seed, compute, outputs, run_batch

__all__ = ["EXAMPLE", "FORMATS", "KINDS", "METHODS", "Block", "Case", "CaseFailed", "ConfigError", "DaskRunner",
           "Interrupted", "Journal", "LocalRunner", "Method", "Sweep", "SweepConfig", "SweepSummary", "case_seed",
           "columns", "compute", "expand", "journal_path", "load_config", "outputs", "parse_config", "points",
           "run_batch", "run_sweep", "sweep_values", "write_table"]
