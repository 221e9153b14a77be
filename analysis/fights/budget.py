"""How big and how long: estimates of an exact duel's memory and of a batch of duels' time, made before any
chain is built, and the guards that refuse what is past a budget.

An exact duel's size is its chain's states: the system's own estimate
(``System.duel_states``), or the product of the two fighters' track lengths
when the system has none.  Memory and time grow with it at a rate measured
per system by ``benchmarks/bench_memory.py calibrate`` (:data:`COSTS`).

Limits: a duel's peak memory at most :data:`MAX_MEMORY_GB` (the environment
variable ``DICELAB_MAX_MEMORY`` or an option such as ``--max-memory`` raises
it); a balance tool's duels at most :data:`BUDGET_SECONDS` (``--budget``).

>>> from analysis.systems import get_system
>>> from analysis.fights.fighters import load_fighter
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
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from analysis.base import interrupt
from analysis.base.params import DicelabError, ParamError
from analysis.engine.system import System

GB = 1 << 30
MAX_MEMORY_GB = 1.0
"""The default ceiling on an exact duel's estimated peak memory (the process's, interpreter included)."""
MEMORY_ENV = "DICELAB_MAX_MEMORY"
BUDGET_SECONDS = 60.0
"""The default ceiling on the estimated time of a balance tool's duels (design, variants, equiv over fights)."""
MARGIN = 1.05
"""Estimates are raised by this factor over the measured duels (their peaks vary a little from run to run)."""
MB = 1 << 20


@dataclass(frozen=True)
class Cost:
    """A system's measured exact duels: ``(chain states, peak MB of the process, CPU seconds)``, smallest first.

    A duel's cost is interpolated between them; below the smallest, memory is
    the smallest's and time shrinks in proportion; past the largest, both grow
    along the steepest rise measured, so a larger duel is never underestimated.

    >>> c = Cost(((1000, 70.0, 0.01), (11000, 170.0, 0.11)))
    >>> [round(v / MARGIN, 6) for v in (c.bytes(6000) / MB, c.seconds(21000), c.seconds(500), c.bytes(500) / MB)]
    [120.0, 0.21, 0.005, 70.0]
    """

    points: tuple[tuple[int, float, float], ...]

    def bytes(self, states: int) -> float:
        """The estimated peak memory (bytes) of a duel of ``states`` chain states."""
        return MARGIN * MB * _along([(x, mb) for x, mb, _ in self.points], states, flat_below=True)

    def seconds(self, states: int) -> float:
        """The estimated CPU seconds of a duel of ``states`` chain states."""
        return MARGIN * _along([(x, t) for x, _, t in self.points], states, flat_below=False)


def _along(points: list[tuple[int, float]], x: float, flat_below: bool) -> float:
    """``y`` at ``x`` on the measured ``points``: interpolated, flat or proportional below, extrapolated along the
    steepest rise above."""
    (x0, y0), (xn, yn) = points[0], points[-1]
    if x <= x0:
        return y0 if flat_below else y0 * x / x0
    if x >= xn:
        rise = max([(y2 - y1) / (x2 - x1) for (x1, y1), (x2, y2) in zip(points, points[1:])] + [yn / xn])
        return yn + rise * (x - xn)
    return float(np.interp(x, [p[0] for p in points], [p[1] for p in points]))


COSTS = {
    "tristat": Cost(((6561, 70, 0.0278), (25921, 93, 0.101), (78961, 162, 0.341), (160801, 271, 0.885),
                     (361201, 525, 2.29))),
    "onesix": Cost(((202800, 273, 0.137), (428652, 273, 0.377), (559872, 274, 0.41), (762048, 316, 0.822),
                    (1221132, 435, 2.54), (1825200, 646, 5.6), (4627692, 1118, 6.6), (8957952, 1702, 15.1),
                    (19324332, 3391, 30.4))),
    "tun": Cost(((2888, 62, 0.0134), (5000, 65, 0.0419), (7688, 74, 0.0686), (10952, 97, 0.148))),
    "kurs": Cost(((29282, 72, 0.054), (116162, 140, 0.486), (260642, 289, 1.1), (462722, 526, 2.96),
                  (722402, 854, 5.39), (1039682, 1309, 6.87))),
}
"""Measured on the lab's 2-core machine by ``python benchmarks/bench_memory.py calibrate`` (CPU seconds, so a
busy machine does not inflate them); the states are those :func:`duel_states` counts.  2K's points past 1.3 million
states and its armor-wear rungs were measured on a busier day: their CPU seconds are scaled by 0.55, the ratio
of the rungs measured on both days (4, 6, 8 and 10 levels)."""


TACTICS_COSTS = {
    "tun": Cost(((4525, 120, 1.0), (1258769, 2000, 60.0))),
    "kurs": Cost(((763441, 690, 74.0), (8557561, 1800, 600.0))),
}
"""The decision game (RULES.md section 8) built and analysed (book, best response, equilibrium, each decision's
worth, the dominated scripts) against ``System.tactics_states``: ``python benchmarks/bench_tun_games.py
calibrate``.  К.У.Р.С. (the book's track, whatever the fighters): novice against novice_armed analysed (270,181
real states), trained_armed mirrored with one luck token each built and solved (1,408,753 real states; its
analysis is priced by the steepest rise)."""
GROUP_COSTS = {
    "tun": Cost(((1352, 80, 0.5), (2765954, 1000, 600.0))),
    "kurs": Cost(((119074, 133, 1.24), (97519970, 207, 3.37))),
    "onesix": Cost(((111168, 128, 1.93), (4723200, 145, 10.5), (5313600, 157, 13.8))),
}
"""The exact group chain (RULES.md section 7) against ``System.group_states``: ``python
benchmarks/bench_tun_games.py calibrate`` (ТУН); К.У.Р.С.: trained_armed against one and two novice_armed
(4,867 and 27,523 real states; its estimate is a loose upper bound, so the points are the estimates); 2K:
``python benchmarks/bench_onesix_groups.py exact`` under ``group_timing = order``, trained_armed against two and
three novice_armed and two against two (2,149, 17,555 and 24,405 real states; the points are the estimates)."""


def duel_cost(system: System, states: int, what: str) -> float:
    """``bytes`` or ``seconds`` of a duel of ``states`` chain states of ``system`` (a system not measured yet: the
    dearest of those measured)."""
    if system.id in COSTS:
        return getattr(COSTS[system.id], what)(states)
    return max(getattr(c, what)(states) for c in COSTS.values())


def duel_states(system: System, rules: Any, a: Any, b: Any) -> int:
    """The exact duel's chain states: the system's ``duel_states`` hook, else the product of the two fighters'
    track lengths (``track(rules, fighter)`` of the system module, whatever of the two it takes).  A cancel point:
    estimating many duels stops at a cancel (:func:`analysis.base.interrupt.check`)."""
    interrupt.check()
    if system.duel_states is not None:
        return int(system.duel_states(rules, a, b))
    track = getattr(importlib.import_module(f"analysis.systems.{system.id}"), "track", None)
    if track is None:
        raise DicelabError(f"{system.id}: no estimate of a duel's size (neither duel_states nor track)")
    names = list(inspect.signature(track).parameters)
    return math.prod(len(track(*(rules if name == "rules" else f for name in names))) for f in (a, b))


def duel_bytes(system: System, rules: Any, a: Any, b: Any) -> float:
    """The estimated peak memory of the process solving this duel."""
    return duel_cost(system, duel_states(system, rules, a, b), "bytes")


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


@dataclass(frozen=True)
class Limits:
    """The ceilings a front end computes under and how its refusals say to go past them: ``memory_gb`` (``None``:
    :func:`max_memory`'s default), ``budget`` seconds (``None``: :data:`BUDGET_SECONDS`), and the ways past each,
    where ``GB`` and ``SECONDS`` become the amount needed.  The command line's are the defaults; the app computes
    under its own (:func:`limited`)."""

    memory_gb: float | None = None
    budget: float | None = None
    past_memory: str = "--max-memory GB allows it, or the Monte Carlo `sim` runs it in flat memory"
    past_budget: str = "--budget SECONDS allows it"


_limits: ContextVar[Limits] = ContextVar("dicelab_limits", default=Limits())


def limits() -> Limits:
    """The limits the running computation is under."""
    return _limits.get()


@contextmanager
def limited(under: Limits) -> Iterator[Limits]:
    """Run the block under ``under`` (a thread's computations: the app's jobs)."""
    token = _limits.set(under)
    try:
        yield under
    finally:
        _limits.reset(token)


def check_duel(system: System, rules: Any, a: Any, b: Any, limit_gb: float | None = None,
               option: str | None = None) -> None:
    """Refuse, before it starts, an exact duel whose estimated peak memory is past the ceiling (``limit_gb``, else
    the current :class:`Limits`'); the message gives the estimate and the ``option`` (``--max-memory GB``) or
    the way past it the current limits name."""
    now = limits()
    need, limit = duel_bytes(system, rules, a, b), max_memory(limit_gb if limit_gb is not None else now.memory_gb)
    if need > limit:
        states = duel_states(system, rules, a, b)
        past = (f"{option} allows it, or the Monte Carlo `sim` runs it in flat memory" if option is not None
                else now.past_memory)
        raise DicelabError(f"{system.id} duel too large: about {need / GB:.1f} GB ({states:,} chain states); allowed: "
                           f"at most {limit / GB:g} GB; {past.replace('GB', f'{math.ceil(need / GB)}')}")


def exact_duel(system: System, rules: Any, a: Any, b: Any, limit_gb: float | None = None,
               option: str | None = None) -> Any:
    """The exact duel (``system.duel``), refused before it starts past the memory ceiling (:func:`check_duel`):
    the one way the tools and front ends solve a duel, so the command line and the app cannot drift apart.

    >>> from analysis.systems import get_system
    >>> from analysis.fights.fighters import load_fighter
    >>> kurs = get_system("kurs")
    >>> a = load_fighter(kurs, "maximus")
    >>> exact_duel(kurs, kurs.rules(), a, a).solution.p_a_wins == kurs.duel(kurs.rules(), a, a).solution.p_a_wins
    True
    """
    check_duel(system, rules, a, b, limit_gb, option)
    return system.duel(rules, a, b)


def check_tactics(system: System, rules: Any, a: Any, b: Any, limit_gb: float | None = None,
                  option: str = f"{MEMORY_ENV}=GB") -> None:
    """Refuse, before it starts, a decision game (``System.tactics``) whose estimated peak memory is past the
    ceiling, as :func:`check_duel` does for duels (a system without its own estimate: the duel's)."""
    states = (system.tactics_states(rules, a, b) if system.tactics_states is not None
              else duel_states(system, rules, a, b))
    cost = TACTICS_COSTS.get(system.id)
    need = cost.bytes(states) if cost is not None else duel_cost(system, states, "bytes")
    _refuse(f"{system.id} decision game", need, states, max_memory(limit_gb), option,
            "or play the fighters' policies (dicelab duel, dicelab sim)")


def check_group(system: System, rules: Any, side_a: Sequence[Any], side_b: Sequence[Any],
                limit_gb: float | None = None, option: str = f"{MEMORY_ENV}=GB") -> None:
    """Refuse, before it starts, an exact group fight (``System.group``) whose estimated peak memory is past the
    ceiling (one against one is the duel's guard)."""
    if len(side_a) == 1 and len(side_b) == 1:
        check_duel(system, rules, side_a[0], side_b[0], limit_gb, option)
        return
    if system.group_states is None:
        raise DicelabError(f"{system.id}: exact group fights are not modelled yet (RULES.md section 7); allowed: "
                           "Monte Carlo (simulate_group)")
    states = int(system.group_states(rules, side_a, side_b))
    cost = GROUP_COSTS.get(system.id)
    need = cost.bytes(states) if cost is not None else max(c.bytes(states) for c in GROUP_COSTS.values())
    _refuse(f"{system.id} group fight", need, states, max_memory(limit_gb), option,
            "or the Monte Carlo dicelab sim runs it in flat memory")


def exact_group(system: System, rules: Any, side_a: Sequence[Any], side_b: Sequence[Any],
                limit_gb: float | None = None, option: str = f"{MEMORY_ENV}=GB") -> Any:
    """The exact group fight (``system.group``), refused before it starts past the memory ceiling
    (:func:`check_group`) or when the system has no exact group fights: the one way front ends solve one."""
    if system.group is None:
        raise DicelabError(f"{system.id}: exact group fights are not modelled yet (RULES.md section 7); allowed: one "
                           "against one, or the Monte Carlo dicelab sim")
    check_group(system, rules, side_a, side_b, limit_gb, option)
    return system.group(rules, list(side_a), list(side_b))


def _refuse(what: str, need: float, states: int, limit: float, option: str, instead: str) -> None:
    if need > limit:
        raise DicelabError(f"{what} too large: about {need / GB:.1f} GB ({states:,} states estimated); allowed: at "
                           f"most {limit / GB:g} GB; {option.replace('GB', f'{math.ceil(need / GB)}')} allows it, "
                           f"{instead}")


def check_states(system: System, states: int, what: str, limit_gb: float | None = None,
                 option: str = f"{MEMORY_ENV}=GB") -> None:
    """Refuse, before it starts, an exact computation of ``states`` (in the unit of ``System.duel_states``: a
    decision game's ``tactics_states``, a group fight's ``group_states``) whose estimated peak memory is past the
    ceiling; ``what`` names it in the message.

    >>> from analysis.systems import get_system
    >>> check_states(get_system("tristat"), 10**9, "tristat decision game", limit_gb=1.0)
    Traceback (most recent call last):
    ...
    analysis.base.params.DicelabError: tristat decision game too large: about 1.5e+03 GB (1,000,000,000 states); allowed: at most 1 GB; DICELAB_MAX_MEMORY=1491 allows it, or the Monte Carlo `sim` runs it in flat memory
    """
    need, limit = duel_cost(system, states, "bytes"), max_memory(limit_gb)
    if need > limit:
        raise DicelabError(f"{what} too large: about {need / GB:.2g} GB ({states:,} states); allowed: at most "
                           f"{limit / GB:g} GB; {option.replace('GB', f'{math.ceil(need / GB)}')} allows it, "
                           "or the Monte Carlo `sim` runs it in flat memory")


def duels_seconds(system: System, jobs: Iterable[tuple[Any, Any, Any]]) -> float:
    """The estimated one-process time of exact duels ``(rules, a, b)``."""
    return sum(duel_cost(system, duel_states(system, *job), "seconds") for job in jobs)


def check_budget(what: str, seconds: float, workers: int, budget: float | None = None) -> float:
    """The estimated wall time of ``seconds`` of work on ``workers`` processes, or a one-line refusal naming the
    estimate and the way past it when past ``budget`` (default: the current :class:`Limits`', else
    :data:`BUDGET_SECONDS`)."""
    now = limits()
    budget = budget if budget is not None else now.budget
    budget = BUDGET_SECONDS if budget is None else check_positive("budget", budget, "a number of seconds > 0")
    wall = seconds / max(1, workers)
    if wall > budget:
        raise DicelabError(f"{what}: about {human(wall)} of exact duels (estimated); allowed: at most "
                           f"{human(budget)}; {now.past_budget.replace('SECONDS', str(math.ceil(wall * 1.5)))}")
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
