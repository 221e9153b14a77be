"""Exact duels for the balance tools: their figures, a designer's distance between them, and solving many at once.

*Distances* between duel figures are measured in designer units: one unit is
ten percentage points of a probability (P(A wins), P(killed)) or a factor 1.5
in mean rounds (``|ln(r / r')| / ln 1.5``), and the terms add in quadrature::

    distance = sqrt(sum((dp / 0.10) ** 2) + (ln(rounds / wished) / ln 1.5) ** 2)

*P(killed)* of a duel is P(at least one fighter killed): the fight ends with
someone at the ruleset's ``lethal_at`` level or worse (the tools once used
P(A killed) + P(B killed), the expected number of deaths, under the name
``p_death``: it could pass 1 when both fall in the same round).

Tools over fights (``design``, ``variants`` with fighters, ``equiv`` of a
fight) estimate their duels' time before starting (:mod:`analysis.fights.budget`)
and refuse past a budget of about a minute (``budget`` seconds allows more);
a duel past the memory ceiling is skipped with a note.

>>> round(figure_distance([(0.5, 0.6)], (4.0, 6.0)), 6)
1.414214
"""

from __future__ import annotations

import dataclasses
import math
import signal
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from analysis.base import interrupt
from analysis.base.params import DicelabError
from analysis.base.pool import check_workers, cores, fork_or_spawn, process_pool, stop_now
from analysis.engine.system import System
from analysis.fights import budget as cost
from analysis.fights.play import check_play, played_duel
from analysis.fights.tactics import require_decisions

P_UNIT = 0.10
"""One distance unit of a probability: ten percentage points."""
ROUNDS_UNIT = math.log(1.5)
"""One distance unit of mean rounds: a factor 1.5."""
MIN_JOBS_PER_WORKER = 8
MIN_SECONDS_PER_WORKER = 1.0
"""By default a process is started for every few quick duels, or for every second of estimated work (2K's duels
take 0.2-1 s each, so a handful of them already pays for a second process)."""
GAME_FACTOR = 7.0
"""A duel played through its decision game (``play`` best or equilibrium) against the plain duel, in CPU time, with
a margin: ``benchmarks/bench_play.py`` measured medians 2.5 (Tri-Stat), 2.6 (ТУН), 3.5 (2K) and 5.6 (К.У.Р.С.); the
largest single ratios (up to 9.6, К.У.Р.С.) are duels whose plain chain takes a few tens of milliseconds."""
ESTIMATE_SAMPLE = 256
"""A larger grid's time is estimated from this many of its settings, drawn at random (with a fixed seed)."""


@dataclass(frozen=True)
class DuelFigures:
    """The figures of an exact duel the balance tools compare."""

    p_a_wins: float
    p_b_wins: float
    p_both_out: float
    p_killed: float
    """P(the fight ends with at least one fighter at the ``lethal_at`` level or worse)."""
    mean_rounds: float
    p_stalemate: float
    p_a_killed: float = 0.0
    p_b_killed: float = 0.0

    @classmethod
    def of(cls, result: Any) -> "DuelFigures":
        """The figures of a :class:`~analysis.engine.combat.DuelResult`; P(killed) counts the ruleset's
        ``lethal_at`` level; a fight where nobody goes out (it never ends, or every fight ends at a round cap) has
        infinite mean rounds."""
        s = result.solution
        lethal = result.variants.get("lethal_at", "dying")
        mean = s.mean_rounds if s.mean_rounds is not None else math.inf
        return cls(s.p_a_wins, s.p_b_wins, s.p_both_out, s.p_killed(lethal), mean, s.p_stalemate, *s.killed(lethal))

    def delta(self, base: "DuelFigures") -> dict[str, float]:
        """The change from ``base``: probabilities as differences, mean rounds also as a log ratio (0 when
        neither fight ends, infinite when one of them never does)."""
        endless = math.isinf(self.mean_rounds) and math.isinf(base.mean_rounds)
        if endless:
            log_ratio = 0.0
        elif math.isinf(self.mean_rounds) or math.isinf(base.mean_rounds):
            log_ratio = math.inf if math.isinf(self.mean_rounds) else -math.inf
        else:
            log_ratio = math.log(self.mean_rounds / base.mean_rounds)
        return {"p_a_wins": self.p_a_wins - base.p_a_wins, "p_killed": self.p_killed - base.p_killed,
                "p_a_killed": self.p_a_killed - base.p_a_killed, "p_b_killed": self.p_b_killed - base.p_b_killed,
                "mean_rounds": self.mean_rounds - base.mean_rounds if not endless else 0.0,
                "log_rounds_ratio": log_ratio}

    def to_dict(self) -> dict[str, float]:
        return dataclasses.asdict(self)


def figure_distance(probabilities: Sequence[tuple[float, float]], rounds: tuple[float, float]) -> float:
    """The normalised distance of the module docstring; ``inf`` when a fight never ends.

    >>> round(figure_distance([(0.5, 0.6)], (4.0, 6.0)), 6)
    1.414214
    """
    if min(rounds) <= 0 or not all(math.isfinite(r) for r in rounds):
        return math.inf
    terms = [((x - y) / P_UNIT) ** 2 for x, y in probabilities]
    terms.append((math.log(rounds[0] / rounds[1]) / ROUNDS_UNIT) ** 2)
    return math.sqrt(sum(terms))


def require_duel(system: System) -> None:
    if system.duel is None or system.Fighter is None:
        raise DicelabError(f"{system.id} has no exact duel yet")


def _solve_one(system: System, max_memory: float | None, play: str, read: Callable[[Any], Any],
               job: tuple[Any, Any, Any]) -> Any:
    """One duel's figures as ``play`` says (``read`` from its result), or the message of the error that stopped it
    (a duel past the memory ceiling is not started)."""
    try:
        return read(played_duel(system, *job, play, option=None, limit_gb=max_memory))
    except (DicelabError, NotImplementedError) as err:
        return str(err) or type(err).__name__


def worker_count(workers: int | None, jobs: int, seconds: float = 0.0) -> int:
    """The process count: as asked (at most one per job), or by default the cores, each with a few jobs or a second
    of the ``seconds`` estimated for them all.

    >>> worker_count(None, 4, seconds=0.04), worker_count(3, 10)
    (1, 3)
    """
    if workers is None:
        return max(1, min(cores(), jobs, max(jobs // MIN_JOBS_PER_WORKER, int(seconds / MIN_SECONDS_PER_WORKER))))
    return max(1, min(check_workers(workers, "processes"), jobs))


def estimate_seconds(system: System, jobs: Sequence[tuple[Any, Any, Any]], max_memory: float | None = None,
                     play: str = "book") -> float:
    """The one-process time of the duels ``jobs`` (from :data:`ESTIMATE_SAMPLE` of them spread over the list when
    there are more), :data:`GAME_FACTOR` times it when ``play`` solves the decision game; a duel past the memory
    ceiling counts nothing: it will be skipped."""
    if len(jobs) <= ESTIMATE_SAMPLE:
        sample = list(jobs)
    else:  # a fixed random sample: an even stride could fall in step with the grid
        picks = np.random.default_rng(0).choice(len(jobs), ESTIMATE_SAMPLE, replace=False)
        sample = [jobs[i] for i in sorted(picks)]
    limit = cost.max_memory(max_memory)
    admitted = [job for job in sample if cost.duel_bytes(system, *job) <= limit]
    factor = 1.0 if play == "book" else GAME_FACTOR
    return factor * cost.duels_seconds(system, admitted) * len(jobs) / max(1, len(sample))
Progress = Callable[[int], Any]
"""A progress factory: called with the number of duels, it returns an :class:`analysis.base.progress.Progress`."""


class Unfinished(interrupt.Interrupted):
    """Ctrl-C, SIGTERM or a cancel stopped :func:`solve_duels`: ``done`` holds the first duels' results (of
    ``total``), in order."""

    def __init__(self, done: list[DuelFigures | str], total: int, signum: int = signal.SIGINT):
        super().__init__(signum)
        self.done, self.total = done, total


def solve_duels(system: System, jobs: Sequence[tuple[Any, Any, Any]], workers: int | None = None,
                budget: float | None = None, max_memory: float | None = None, progress: Progress | None = None,
                what: str = "duels", play: str = "book",
                read: Callable[[Any], Any] = DuelFigures.of) -> list[Any]:
    """Exact duels ``(rules, a, b)`` in order, over ``workers`` processes (default: the cores, for many jobs),
    played as ``play`` says (:func:`~analysis.fights.play.played_duel`; a system without decisions refuses any
    play but the book's); each result as ``read`` makes it of the duel's result (a module-level function, sent to
    the processes; default: its :class:`DuelFigures`).

    The duels' time is estimated first and refused past ``budget`` seconds
    (:func:`analysis.fights.budget.check_budget`); a duel past ``max_memory`` GB is
    skipped (its message in place of figures).  Each duel is exact and
    independent, so the results do not depend on the worker count.  Ctrl-C,
    SIGTERM or a cancel raise :class:`Unfinished` with the duels finished.
    """
    if check_play(play) != "book":
        require_decisions(system)
    seconds = estimate_seconds(system, jobs, max_memory, play)
    n = worker_count(workers, len(jobs), seconds)
    wall = cost.check_budget(what, seconds, n, budget)
    bar = progress(len(jobs)) if progress is not None else None
    if bar is not None and wall >= 2:
        bar.note(f"{len(jobs):,} exact duels, about {cost.human(wall)} on {n} process{'es' * (n > 1)}")
    run = partial(_solve_one, system, max_memory, play, read)
    out: list[Any] = []
    try:
        if n == 1:
            for job in jobs:
                interrupt.check()
                out.append(run(job))
                if bar is not None:
                    bar.update(1)
            return out
        pool = process_pool(n, fork_or_spawn())
        try:
            for figures in pool.map(run, jobs, chunksize=max(1, min(16, len(jobs) // (8 * n)))):
                out.append(figures)
                if bar is not None:
                    bar.update(1)
        finally:
            if len(out) == len(jobs):
                pool.shutdown()
            else:
                stop_now(pool)
        return out
    except KeyboardInterrupt as stop:
        raise Unfinished(out, len(jobs), getattr(stop, "signum", signal.SIGINT)) from None
    finally:
        if bar is not None:
            bar.close()


def duel_job(make: Callable[[], tuple[Any, Any, Any]]) -> tuple[Any, Any, Any] | str:
    """A duel job, or why it cannot be made (a value another field does not allow, e.g. an aimed shot in melee)."""
    try:
        return make()
    except DicelabError as err:
        return f"not allowed here: {err}"


UNSOLVED = "not solved: interrupted"
"""What a duel an interrupted search did not reach says."""


def solve_valid(system: System, jobs: Sequence[tuple[Any, Any, Any] | str], *args: Any,
                play: str = "book") -> list[DuelFigures | str]:
    """:func:`solve_duels` over the jobs that could be made; the others keep their reason.  Interrupted: raises
    :class:`Unfinished` whose ``done`` has every job, those not reached :data:`UNSOLVED`."""
    valid = [job for job in jobs if not isinstance(job, str)]
    try:
        solved = iter(solve_duels(system, valid, *args, play=play))
    except Unfinished as stop:
        solved = iter(stop.done)
        stop.done = [job if isinstance(job, str) else next(solved, UNSOLVED) for job in jobs]
        raise
    return [job if isinstance(job, str) else next(solved) for job in jobs]
