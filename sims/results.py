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

# Duel count layout.
A_WINS, B_WINS, BOTH_OUT, UNFINISHED, A_DEAD, B_DEAD = range(6)
ROUNDS = 6
MAX_ROUNDS = 2000
DUEL_SIZE = ROUNDS + MAX_ROUNDS + 1

# Check count layout: successes, criticals, fumbles, one system extra, then the outcome histogram.
SUCCESS, CRITICAL, FUMBLE, EXTRA = range(4)
HIST = 4
HIST_OFFSET = 256
CHECK_SIZE = HIST + 2 * HIST_OFFSET


@njit(cache=True, nogil=True)
def _tally(out: np.ndarray, rounds: int, a_out: bool, b_out: bool, a_dead: bool, b_dead: bool) -> None:
    """Record one duel in a duel count array (``rounds > MAX_ROUNDS``: it never finished)."""
    if rounds > MAX_ROUNDS:
        out[UNFINISHED] += 1
        return
    out[ROUNDS + rounds] += 1
    if a_out and b_out:
        out[BOTH_OUT] += 1
    elif b_out:
        out[A_WINS] += 1
    else:
        out[B_WINS] += 1
    out[A_DEAD] += a_dead
    out[B_DEAD] += b_dead


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


def mean_of_histogram(values: np.ndarray, counts: np.ndarray) -> Estimate:
    """The mean of a histogram with its SE and a normal 95% interval.

    >>> mean_of_histogram(np.array([1, 3]), np.array([1, 1])).value
    2.0
    """
    n = int(counts.sum())
    if n == 0:
        return Estimate(float("nan"), float("nan"), (float("nan"), float("nan")), 0)
    mean = float(np.dot(values, counts) / n)
    var = float(np.dot((values - mean) ** 2, counts) / max(n - 1, 1))
    se = math.sqrt(var / n)
    return Estimate(mean, se, (mean - Z95 * se, mean + Z95 * se), n)


def _fields(name: str, e: Estimate) -> dict[str, Any]:
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
    def p_a_dead(self) -> Estimate:
        return self.estimate(A_DEAD)

    @property
    def p_b_dead(self) -> Estimate:
        return self.estimate(B_DEAD)

    @property
    def rounds_histogram(self) -> np.ndarray:
        return self.counts[ROUNDS:]

    @property
    def mean_rounds(self) -> Estimate:
        """Mean rounds over the fights that ended within the round cap."""
        hist = self.rounds_histogram
        return mean_of_histogram(np.arange(hist.size), hist)

    @property
    def median_rounds(self) -> int:
        hist = self.rounds_histogram
        cum = np.cumsum(hist)
        return int(np.searchsorted(cum, cum[-1] / 2))

    def to_dict(self) -> dict[str, Any]:
        hist = self.rounds_histogram
        out: dict[str, Any] = {"system": self.system, "model": self.model, "method": "monte_carlo",
                               "variants": dict(self.variants), "options": dict(self.options),
                               "a": dict(self.a), "b": dict(self.b), "n": self.n, "seed": self.seed}
        for name in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dead", "p_b_dead", "p_unfinished"):
            out.update(_fields(name, getattr(self, name)))
        out["rounds"] = {str(r): int(c) / self.n for r, c in enumerate(hist) if c}
        out.update(_fields("mean_rounds", self.mean_rounds))
        out["median_rounds"] = self.median_rounds
        out["max_rounds"] = MAX_ROUNDS
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per outcome: estimate, SE and interval."""
        rows = []
        for name in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dead", "p_b_dead", "p_unfinished", "mean_rounds"):
            e = getattr(self, name)
            rows.append({"quantity": name, "estimate": e.value, "se": e.se, "ci_low": e.ci[0], "ci_high": e.ci[1], "n": e.n})
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
        out: dict[str, Any] = {"system": self.system, "method": "monte_carlo", "variants": dict(self.variants),
                               "params": dict(self.params), "n": self.n, "seed": self.seed, "outcome": self.outcome}
        out.update(_fields("p_success", self.p_success))
        for name, index in zip(self.extras, (CRITICAL, FUMBLE, EXTRA)):
            if name:
                out.update(_fields(name, self.probability(index)))
        hist = self.counts[HIST:]
        values = np.arange(hist.size) - HIST_OFFSET
        out.update(_fields("mean", mean_of_histogram(values, hist)))
        out["distribution"] = {str(k): v for k, v in self.distribution.items()}
        return out
