"""Monte Carlo results: every figure with n, a standard error and a 95% interval.

Kernels return flat count arrays laid out as below; this module turns them
into :class:`Estimate` values and result objects shaped like the exact ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd
from numba import njit

Z95 = 1.959963984540054

# Duel count layout: who went out, the fighters' final levels (dying counts dying or dead), the finishing
# phase (fights with one side out; sum and sum of squares of its attacks), then the rounds histogram.
A_WINS, B_WINS, BOTH_OUT, UNFINISHED, A_DYING, B_DYING, A_DEAD, B_DEAD, FINISHES, FINISH_SUM, FINISH_SQUARES = range(11)
ROUNDS = 11
MAX_ROUNDS = 2000
DUEL_SIZE = ROUNDS + MAX_ROUNDS + 1
UP, OUT, DYING, DEAD = 0, 1, 2, 3
"""Levels as the kernels report them (the exact engine's statuses, :mod:`analysis.engine.markov`)."""

# Check count layout: successes, criticals, fumbles, one system extra, then the outcome histogram.
SUCCESS, CRITICAL, FUMBLE, EXTRA = range(4)
HIST = 4
HIST_OFFSET = 256
CHECK_SIZE = HIST + 2 * HIST_OFFSET


@njit(cache=True, nogil=True)
def _tally(out: np.ndarray, rounds: int, level_a: int, level_b: int, finish: int) -> None:
    """Record one duel: ``rounds`` to the first out (``> MAX_ROUNDS``: it never ended), the fighters' final
    levels (``UP``..``DEAD``; a level of the first out decides the winner), and ``finish``, the attacks on a
    helpless fighter after it (-1: no finishing phase)."""
    if rounds > MAX_ROUNDS:
        out[UNFINISHED] += 1
        return
    out[ROUNDS + rounds] += 1
    if level_a > UP and level_b > UP:
        out[BOTH_OUT] += 1
    elif level_b > UP:
        out[A_WINS] += 1
    else:
        out[B_WINS] += 1
    out[A_DYING] += level_a >= DYING
    out[B_DYING] += level_b >= DYING
    out[A_DEAD] += level_a == DEAD
    out[B_DEAD] += level_b == DEAD
    if finish >= 0:
        out[FINISHES] += 1
        out[FINISH_SUM] += finish
        out[FINISH_SQUARES] += finish * finish


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate with its standard error and 95% confidence interval."""

    value: float
    se: float
    ci: tuple[float, float]
    n: int

    def agrees(self, exact: float, k: float = 4.0) -> bool:
        """Within ``k`` standard errors of an exact value (one count's width when se is 0)."""
        return abs(self.value - exact) <= k * max(self.se, 1.0 / self.n)


def proportion(k: int, n: int) -> Estimate:
    """A proportion ``k / n`` with the binomial SE and the Wilson score interval.

    >>> e = proportion(50, 100)
    >>> round(e.se, 3), tuple(round(x, 3) for x in e.ci)
    (0.05, (0.404, 0.596))
    """
    p = k / n
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    return Estimate(p, math.sqrt(p * (1 - p) / n), (max(0.0, centre - half), min(1.0, centre + half)), n)


def mean_of_histogram(values: np.ndarray, counts: np.ndarray) -> Estimate | None:
    """The mean of a histogram with its SE and a normal 95% interval (``None`` for an empty one).

    >>> mean_of_histogram(np.array([1, 3]), np.array([1, 1])).value
    2.0
    """
    n = int(counts.sum())
    if n == 0:
        return None
    mean = float(np.dot(values, counts) / n)
    var = float(np.dot((values - mean) ** 2, counts) / max(n - 1, 1))
    return _mean_estimate(mean, var, n)


def mean_of_sums(total: int, squares: int, n: int) -> Estimate | None:
    """The mean of ``n`` values from their sum and sum of squares (``None`` when n is 0).

    >>> mean_of_sums(4, 10, 2).value
    2.0
    """
    if n == 0:
        return None
    mean = total / n
    var = max(squares - n * mean * mean, 0.0) / max(n - 1, 1)
    return _mean_estimate(mean, var, n)


def _mean_estimate(mean: float, var: float, n: int) -> Estimate:
    se = math.sqrt(var / n)
    return Estimate(mean, se, (mean - Z95 * se, mean + Z95 * se), n)


def _run_fields(n: int, requested: int | None) -> dict[str, Any]:
    """``interrupted`` and ``n_requested``: a run Ctrl-C stopped reports the trials it finished as ``n``."""
    requested = n if requested is None else requested
    return {"interrupted": n < requested, "n_requested": requested}


def _fields(name: str, e: Estimate | None) -> dict[str, Any]:
    if e is None:
        return {name: None, f"se_{name}": None, f"ci_{name}": None}
    return {name: e.value, f"se_{name}": e.se, f"ci_{name}": list(e.ci)}


@dataclass(frozen=True)
class SimDuelResult:
    """A simulated duel: the exact duel's fields, each with SE and CI, plus n and the seed."""

    system: str
    model: str
    variants: Mapping[str, Any]
    options: Mapping[str, Any]
    a: Mapping[str, Any]
    b: Mapping[str, Any]
    n: int
    seed: Any
    counts: np.ndarray = field(repr=False)
    extra: Mapping[str, Any] = field(default_factory=dict)
    """System-specific fields (Tri-Stat: the stat-limit warnings, P(still up) against total defence...)."""
    n_requested: int | None = None
    """The trials asked for; more than ``n`` when Ctrl-C stopped the run (``interrupted``)."""

    @property
    def interrupted(self) -> bool:
        return self.n_requested is not None and self.n < self.n_requested

    def estimate(self, index: int) -> Estimate:
        return proportion(int(self.counts[index]), self.n)

    @property
    def p_a_wins(self) -> Estimate:
        return self.estimate(A_WINS)

    @property
    def p_b_wins(self) -> Estimate:
        return self.estimate(B_WINS)

    @property
    def p_both_out(self) -> Estimate:
        return self.estimate(BOTH_OUT)

    @property
    def p_unfinished(self) -> Estimate:
        return self.estimate(UNFINISHED)

    @property
    def p_a_out(self) -> Estimate:
        return proportion(int(self.counts[B_WINS] + self.counts[BOTH_OUT]), self.n)

    @property
    def p_b_out(self) -> Estimate:
        return proportion(int(self.counts[A_WINS] + self.counts[BOTH_OUT]), self.n)

    @property
    def p_a_dying(self) -> Estimate:
        return self.estimate(A_DYING)

    @property
    def p_b_dying(self) -> Estimate:
        return self.estimate(B_DYING)

    @property
    def p_a_dead(self) -> Estimate:
        return self.estimate(A_DEAD)

    @property
    def p_b_dead(self) -> Estimate:
        return self.estimate(B_DEAD)

    @property
    def mean_finish_attacks(self) -> Estimate | None:
        """Mean attacks on a helpless fighter, over the fights with a finishing phase (``None``: none)."""
        c = self.counts
        return mean_of_sums(int(c[FINISH_SUM]), int(c[FINISH_SQUARES]), int(c[FINISHES]))

    @property
    def rounds_histogram(self) -> np.ndarray:
        return self.counts[ROUNDS:]

    @property
    def mean_rounds(self) -> Estimate | None:
        """Mean rounds over the fights that ended within the round cap (``None``: none did)."""
        hist = self.rounds_histogram
        return mean_of_histogram(np.arange(hist.size), hist)

    @property
    def median_rounds(self) -> int | None:
        """The median of the rounds of the fights that ended (``None``: none did)."""
        hist = self.rounds_histogram
        cum = np.cumsum(hist)
        return int(np.searchsorted(cum, cum[-1] / 2)) if cum[-1] else None

    @property
    def rounds_cap(self) -> int | None:
        """The round at which the system stops a fight (``extra["rounds_cap"]``: Tri-Stat's total defence), the
        fights still going then counted as unfinished; ``None``: fights run to :data:`MAX_ROUNDS`."""
        return self.extra.get("rounds_cap")

    @property
    def rounds_note(self) -> str:
        """Fights that did not end within :data:`MAX_ROUNDS` rounds, or that stopped at the system's round cap,
        in words (empty when every fight ended with someone out).

        >>> c = np.zeros(DUEL_SIZE, dtype=np.int64); c[UNFINISHED] = 1; c[ROUNDS + 3] = 49
        >>> SimDuelResult("tristat", "full", {}, {}, {}, {}, 50, 1, c).rounds_note
        '1 fight in 50 never ends; rounds are over the fights that end (simulated up to 2,000 rounds)'
        >>> SimDuelResult("tristat", "full", {}, {}, {}, {}, 50, 1, c, {"rounds_cap": 10}).rounds_note
        '1 fight in 50 ends at the 10-round cap with nobody out; rounds are over the fights where someone goes out'
        """
        from analysis.engine.combat import never_ends_note

        note = never_ends_note(int(self.counts[UNFINISHED]) / self.n, self.rounds_cap)
        return f"{note} (simulated up to {MAX_ROUNDS:,} rounds)" if note and self.rounds_cap is None else note

    def killed(self, lethal_at: str) -> tuple[Estimate, Estimate]:
        """(P(A ends at ``lethal_at``), P(B ends there))."""
        if lethal_at == "dead":
            return self.p_a_dead, self.p_b_dead
        return self.p_a_dying, self.p_b_dying

    def to_dict(self) -> dict[str, Any]:
        from analysis.engine.combat import LEVELS, conditional_on, duel_assumptions, level_fields
        from analysis.engine.results import house_rules_echo, strict

        hist = self.rounds_histogram
        out: dict[str, Any] = {"system": self.system, "model": self.model, "method": "monte_carlo",
                               "variants": dict(self.variants),
                               "house_rules": house_rules_echo(self.system, self.variants),
                               "assumptions": duel_assumptions(self.system, self.variants, self.a, self.b),
                               "options": dict(self.options), "a": dict(self.a), "b": dict(self.b), "n": self.n,
                               "seed": self.seed, **_run_fields(self.n, self.n_requested)}
        for name in ("p_a_wins", "p_b_wins", "p_both_out", "p_unfinished"):
            out.update(_fields(name, getattr(self, name)))
        estimates = {f"p_{x}_{lv}": getattr(self, f"p_{x}_{lv}") for x in "ab" for lv in LEVELS}
        levels = level_fields(self.system, self.variants, estimates)
        for name, value in levels.items():
            if isinstance(value, Estimate) or (value is None and name.startswith("p_")):
                out.update(_fields(name, value))
            else:
                out[name] = value
        if self.variants.get("after_out") == "finish":
            out.update(_fields("mean_finish_attacks", self.mean_finish_attacks))
        else:
            out["mean_finish_attacks"] = None
        out["rounds"] = {str(r): int(c) / self.n for r, c in enumerate(hist) if c}
        out.update(_fields("mean_rounds", self.mean_rounds))
        out["median_rounds"] = self.median_rounds
        out["never_ends"] = int(hist.sum()) == 0 and self.rounds_cap is None
        out["rounds_conditional"] = int(self.counts[UNFINISHED]) > 0
        out["rounds_note"] = self.rounds_note
        finishing = self.variants.get("after_out") == "finish"
        out["conditional_on"] = conditional_on(int(self.counts[UNFINISHED]) / self.n,
                                               int(self.counts[FINISHES]) / self.n if finishing else None,
                                               self.rounds_cap, MAX_ROUNDS)
        out["max_rounds"] = MAX_ROUNDS
        out.update(self.extra)
        return strict(out)

    def to_frame(self) -> pd.DataFrame:
        """One row per outcome: estimate, SE and interval (levels the system lacks are left out)."""
        data = self.to_dict()
        rows = []
        for name in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_out", "p_b_out", "p_a_dying", "p_b_dying",
                     "p_a_dead", "p_b_dead", "p_a_killed", "p_b_killed", "p_unfinished", "mean_finish_attacks",
                     "mean_rounds"):
            if data.get(name) is None:
                continue
            lo, hi = data[f"ci_{name}"]
            rows.append({"quantity": name, "estimate": data[name], "se": data[f"se_{name}"], "ci_low": lo,
                         "ci_high": hi, "n": self.n})
        return pd.DataFrame(rows)


@dataclass(frozen=True)
class SimCheckResult:
    """A simulated check: P(success) and the outcome histogram with SEs."""

    system: str
    variants: Mapping[str, Any]
    params: Mapping[str, Any]
    outcome: str
    n: int
    seed: Any
    counts: np.ndarray = field(repr=False)
    extras: tuple[str, ...] = ()
    n_requested: int | None = None
    """The trials asked for; more than ``n`` when Ctrl-C stopped the run (``interrupted``)."""

    @property
    def interrupted(self) -> bool:
        return self.n_requested is not None and self.n < self.n_requested

    @property
    def p_success(self) -> Estimate:
        return proportion(int(self.counts[SUCCESS]), self.n)

    def probability(self, index: int) -> Estimate:
        return proportion(int(self.counts[index]), self.n)

    @property
    def distribution(self) -> dict[int, float]:
        hist = self.counts[HIST:]
        return {int(v) - HIST_OFFSET: int(c) / self.n for v, c in enumerate(hist) if c}

    def to_dict(self) -> dict[str, Any]:
        from analysis.engine.results import assumptions_echo, house_rules_echo, strict

        out: dict[str, Any] = {"system": self.system, "method": "monte_carlo", "variants": dict(self.variants),
                               "house_rules": house_rules_echo(self.system, self.variants),
                               "assumptions": assumptions_echo(self.system, self.variants),
                               "params": dict(self.params), "n": self.n, "seed": self.seed,
                               **_run_fields(self.n, self.n_requested), "outcome": self.outcome}
        out.update(_fields("p_success", self.p_success))
        for name, index in zip(self.extras, (CRITICAL, FUMBLE, EXTRA)):
            if name:
                out.update(_fields(name, self.probability(index)))
        hist = self.counts[HIST:]
        values = np.arange(hist.size) - HIST_OFFSET
        out.update(_fields("mean", mean_of_histogram(values, hist)))
        out["distribution"] = {str(k): v for k, v in self.distribution.items()}
        return strict(out)
