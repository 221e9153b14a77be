"""How big and how long: estimates of an exact duel's memory and of a batch of duels' time, made before any
chain is built, and the guards that refuse what is past a budget.

An exact duel's size is its chain's states: the system's own estimate
(``System.duel_states``), or the product of the two fighters' track lengths
when the system has none.  Memory and time grow with it at a rate measured
per system by ``benchmarks/bench_memory.py --calibrate`` (:data:`COSTS`).

Limits: a duel's peak memory at most :data:`MAX_MEMORY_GB` (the environment
variable ``DICELAB_MAX_MEMORY`` or an option such as ``--max-memory`` raises
it); a balance tool's duels at most :data:`BUDGET_SECONDS` (``--budget``).

>>> from analysis.system import get_system
>>> from analysis.fighters import load_fighter
>>> tri = get_system("tristat")
>>> vet = load_fighter(tri, "veteran")
>>> duel_states(tri, tri.rules(), vet, vet) > 0
True
>>> check_duel(tri, tri.rules(), vet, vet)
"""

from __future__ import annotations

import importlib
import inspect
import math
import os
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from .params import DicelabError, ParamError
from .system import System

GB = 1 << 30
MAX_MEMORY_GB = 1.0
"""The default ceiling on an exact duel's estimated peak memory (the process's, interpreter included)."""
MEMORY_ENV = "DICELAB_MAX_MEMORY"
BUDGET_SECONDS = 60.0
"""The default ceiling on the estimated time of a balance tool's duels (design, variants, equiv over fights)."""
BASE_BYTES = 70 * (1 << 20)
"""A process that has solved one small duel (Python, numpy, scipy and the library)."""


@dataclass(frozen=True)
class Cost:
    """What one chain state costs a system's exact duel: peak bytes, and seconds (plus a fixed cost per duel)."""

    bytes_per_state: float
    seconds_per_state: float
    seconds_per_duel: float


COSTS = {
    "tristat": Cost(bytes_per_state=3680.0, seconds_per_state=2.1e-05, seconds_per_duel=0.001),
    "onesix": Cost(bytes_per_state=2260.0, seconds_per_state=1.5e-05, seconds_per_duel=0.001),
    "tun": Cost(bytes_per_state=12680.0, seconds_per_state=4.2e-05, seconds_per_duel=0.001),
    "kurs": Cost(bytes_per_state=2120.0, seconds_per_state=1.6e-05, seconds_per_duel=0.001),
}
"""Calibrated on the lab's 2-core machine by ``python benchmarks/bench_memory.py calibrate`` (a line above every
measured duel: the steepest rise between neighbouring sizes; CPU seconds, so a busy machine does not inflate
them); the states are those :func:`duel_states` counts."""
DEFAULT_COST = Cost(*(max(getattr(c, f) for c in COSTS.values()) for f in ("bytes_per_state", "seconds_per_state",
                                                                          "seconds_per_duel")))
"""A system not calibrated yet: the dearest rates measured."""


def cost(system: System) -> Cost:
    """The calibrated rates of ``system`` (the dearest known for a new one)."""
    return COSTS.get(system.id, DEFAULT_COST)


def duel_states(system: System, rules: Any, a: Any, b: Any) -> int:
    """The exact duel's chain states: the system's ``duel_states`` hook, else the product of the two fighters'
    track lengths (``track(rules, fighter)`` of the system module, whatever of the two it takes)."""
    if system.duel_states is not None:
        return int(system.duel_states(rules, a, b))
    track = getattr(importlib.import_module(f"analysis.systems.{system.id}"), "track", None)
    if track is None:
        raise DicelabError(f"{system.id}: no estimate of a duel's size (neither duel_states nor track)")
    names = list(inspect.signature(track).parameters)
    return math.prod(len(track(*(rules if name == "rules" else f for name in names))) for f in (a, b))


def duel_bytes(system: System, rules: Any, a: Any, b: Any) -> float:
    """The estimated peak memory of the process solving this duel."""
    return BASE_BYTES + cost(system).bytes_per_state * duel_states(system, rules, a, b)


def max_memory(limit_gb: float | None = None) -> float:
    """The memory ceiling in bytes: ``limit_gb``, else ``DICELAB_MAX_MEMORY`` (GB), else :data:`MAX_MEMORY_GB`."""
    if limit_gb is None:
        text = os.environ.get(MEMORY_ENV, "").strip()
        if not text:
            return MAX_MEMORY_GB * GB
        try:
            limit_gb = float(text)
        except ValueError:
            raise ParamError(MEMORY_ENV, text, "a number of GB > 0") from None
        return check_positive(MEMORY_ENV, limit_gb, "a number of GB > 0") * GB
    return check_positive("max_memory", limit_gb, "a number of GB > 0") * GB


def check_positive(name: str, value: Any, allowed: str) -> float:
    """A finite number > 0 (``inf`` and ``nan`` are refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ParamError(name, value, allowed)
    return float(value)


def check_duel(system: System, rules: Any, a: Any, b: Any, limit_gb: float | None = None,
               option: str = f"{MEMORY_ENV}=GB") -> None:
    """Refuse, before it starts, an exact duel whose estimated peak memory is past the ceiling; the message gives
    the estimate and the ``option`` that allows it."""
    need, limit = duel_bytes(system, rules, a, b), max_memory(limit_gb)
    if need > limit:
        states = duel_states(system, rules, a, b)
        raise DicelabError(f"{system.id} duel too large: about {need / GB:.1f} GB ({states:,} chain states); allowed: "
                           f"at most {limit / GB:g} GB; {option.replace('GB', f'{math.ceil(need / GB)}')} allows it, "
                           "or the Monte Carlo `sim` runs it in flat memory")


def duels_seconds(system: System, jobs: Iterable[tuple[Any, Any, Any]]) -> float:
    """The estimated one-process time of exact duels ``(rules, a, b)``."""
    c = cost(system)
    return sum(c.seconds_per_duel + c.seconds_per_state * duel_states(system, *job) for job in jobs)


def check_budget(what: str, seconds: float, workers: int, budget: float | None = None,
                 option: str = "--budget SECONDS") -> float:
    """The estimated wall time of ``seconds`` of work on ``workers`` processes, or a one-line refusal naming the
    estimate and the ``option`` that allows it when past ``budget`` (default :data:`BUDGET_SECONDS`)."""
    budget = BUDGET_SECONDS if budget is None else check_positive("budget", budget, "a number of seconds > 0")
    wall = seconds / max(1, workers)
    if wall > budget:
        raise DicelabError(f"{what}: about {human(wall)} of exact duels (estimated); allowed: at most "
                           f"{human(budget)}; {option.replace('SECONDS', str(math.ceil(wall * 1.5)))} allows it")
    return wall


def largest(system: System, jobs: Sequence[tuple[Any, Any, Any]]) -> tuple[Any, Any, Any] | None:
    """The job with the most chain states (the one the memory ceiling must admit)."""
    return max(jobs, key=lambda job: duel_states(system, *job), default=None)


def human(seconds: float) -> str:
    """A duration as a designer reads it.

    >>> human(0.01), human(2.46), human(42), human(5400), human(9000)
    ('0.01 s', '2.5 s', '42 s', '90 min', '2.5 h')
    """
    if seconds < 10:
        return f"{seconds:.2g} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
