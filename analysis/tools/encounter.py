"""How many of B make a fair fight against A: the smallest count of B whose P(side A wins) falls below ``p``.

The curve runs over counts 1 .. ``max_count`` of side B's unit (one fighter,
or with mixed sides the whole side B as given) against side A.  Each point is
exact where the group chain fits the memory budget
(:func:`~analysis.fights.budget.check_group`; one against one is the duel),
else Monte Carlo (``simulate_group``, ``n`` fights, with SE and CI): the
point says which.  Monte Carlo points take child streams of one
``SeedSequence(seed)``, so the same seed gives the same curve.

>>> from analysis.systems import get_system
>>> from analysis.fights.fighters import load_fighter
>>> tun = get_system("tun")
>>> e = encounter(tun, tun.rules(), [load_fighter(tun, "trained_armed")], [load_fighter(tun, "novice_armed")],
...               max_count=2)
>>> [pt.method for pt in e.curve], e.fair_count, e.reason
(['exact', 'exact'], None, 'P(side A wins) stays at or above 0.5 up to 2')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from analysis.base.params import DicelabError, Float, Int
from analysis.engine.combat import describe_fighter
from analysis.engine.assumptions import COMBATS
from analysis.engine.results import fight_assumptions, strict
from analysis.engine.system import System
from analysis.fights.budget import check_group, exact_duel, exact_group

MAX_COUNT = 50
"""The largest count of B an encounter searches."""


@dataclass(frozen=True)
class Point:
    """One count of B: P(side A wins), P(side B wins), how it was computed (``exact`` or ``monte_carlo`` with
    ``n`` and SE/CI of P(side A wins))."""

    count: int
    p_a_wins: float
    p_b_wins: float
    method: str
    n: int | None = None
    se_p_a_wins: float | None = None
    ci_p_a_wins: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"count": self.count, "p_a_wins": self.p_a_wins, "p_b_wins": self.p_b_wins,
                               "method": self.method}
        if self.method == "monte_carlo":
            out.update(n=self.n, se_p_a_wins=self.se_p_a_wins, ci_p_a_wins=list(self.ci_p_a_wins or ()))
        return out


@dataclass(frozen=True)
class Encounter:
    """The curve over counts and the fair count (``None`` with ``reason`` when none up to ``max_count``)."""

    system: str
    variants: dict[str, Any]
    side_a: tuple[dict[str, Any], ...]
    unit_b: tuple[dict[str, Any], ...]
    p: float
    max_count: int
    curve: tuple[Point, ...]
    fair_count: int | None
    reason: str | None
    seed: Any = None
    interrupted: bool = False
    assumptions: dict[str, Any] = field(default_factory=dict)

    @property
    def method(self) -> str:
        """``exact``, ``monte_carlo`` or ``mixed`` over the curve."""
        kinds = {pt.method for pt in self.curve}
        return kinds.pop() if len(kinds) == 1 else "mixed"

    def to_dict(self) -> dict[str, Any]:
        return strict({"system": self.system, "variants": dict(self.variants), "assumptions": dict(self.assumptions),
                       "side_a": list(self.side_a), "side_b_unit": list(self.unit_b), "p": self.p,
                       "max": self.max_count, "fair_count": self.fair_count, "fair_count_reason": self.reason,
                       "method": self.method, "curve": [pt.to_dict() for pt in self.curve], "seed": self.seed,
                       "interrupted": self.interrupted})


def point(system: System, rules: Any, side_a: Sequence[Any], side_b: Sequence[Any], count: int, n: int,
          seed: Any, workers: int | None = None, exact_max: int | None = None) -> Point:
    """P(side A wins) of ``side_a`` against ``side_b``: exact when the budget admits it (and the fight has at most
    ``exact_max`` fighters, when given), else Monte Carlo."""
    if len(side_a) == 1 and len(side_b) == 1:
        s = exact_duel(system, rules, side_a[0], side_b[0]).solution
        return Point(count, s.p_a_wins, s.p_b_wins, "exact")
    if system.group is not None and (exact_max is None or len(side_a) + len(side_b) <= exact_max):
        try:
            check_group(system, rules, side_a, side_b)
        except DicelabError:
            pass
        else:
            s = exact_group(system, rules, side_a, side_b).solution
            return Point(count, s.p_a_wins, s.p_b_wins, "exact")
    from sims.api import simulate_group

    res = simulate_group(system.id, rules, side_a, side_b, n, seed=seed, workers=workers)
    a = res.p_a_wins
    return Point(count, a.value, res.p_b_wins.value, "monte_carlo", res.n, a.se, tuple(a.ci))


def encounter(system: System, rules: Any, side_a: Sequence[Any], unit_b: Sequence[Any], p: float = 0.5,
              max_count: int = 8, n: int = 20_000, seed: Any = None, workers: int | None = None,
              progress: Callable[[int], Any] | None = None, until_fair: bool = False,
              exact_max: int | None = None) -> Encounter:
    """The curve of P(side A wins) over 1 .. ``max_count`` copies of ``unit_b`` and the smallest count where it
    falls below ``p`` (see the module docstring); ``progress(total)`` makes a progress bar over the counts;
    ``until_fair`` ends the curve at the fair count; ``exact_max`` (see :func:`point`) caps the exact fights."""
    p = Float(0, 1, open_lo=True, open_hi=True).validate("p", p)
    max_count = Int(1, MAX_COUNT).validate("max", max_count)
    streams = np.random.SeedSequence(seed).spawn(max_count)
    bar = progress(max_count) if progress is not None else None
    curve: list[Point] = []
    interrupted = False
    try:
        for k in range(1, max_count + 1):
            pt = point(system, rules, side_a, list(unit_b) * k, k, n, streams[k - 1], workers, exact_max)
            curve.append(pt)
            if bar is not None:
                bar.update(1)
            if pt.n is not None and pt.n < n:
                interrupted = True
                break
            if until_fair and pt.p_a_wins < p:
                break
    finally:
        if bar is not None:
            bar.close()
    fair = next((pt.count for pt in curve if pt.p_a_wins < p), None)
    reason = None if fair is not None else f"P(side A wins) stays at or above {p:g} up to {curve[-1].count}"
    return Encounter(system.id, rules.to_dict(), tuple(describe_fighter(f, rules) for f in side_a),
                     tuple(describe_fighter(f, rules) for f in unit_b), p, max_count, tuple(curve), fair, reason,
                     seed, interrupted, fight_assumptions(system.id, rules.to_dict(),
                                       [describe_fighter(f, rules) for f in side_a],
                                       [describe_fighter(f, rules) for f in unit_b], COMBATS))
