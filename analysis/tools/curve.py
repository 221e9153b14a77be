"""One check as its main value varies: the curve the tune, equiv and worth tools search.

*Modifier* means an integer added to the system's main check value
``system.value`` (tristat ``target``, onesix ``rating``, tun ``limit``, kurs
``skill``); P(success) never falls as that value rises, in every system, so
the searches bisect over the value's allowed range.

>>> from analysis.systems import get_system
>>> tri = get_system("tristat")
>>> curve = Curve(tri, tri.rules(), tri.args(target=7))
>>> curve.first(0.75) - curve.base
2
"""

from __future__ import annotations

from typing import Any

from analysis.base.params import DicelabError, Int, ParamError
from analysis.engine.results import assumptions_echo
from analysis.engine.system import System

TOL = 1e-12
"""Probabilities closer than this count as equal (float noise of exact sums)."""


def value_range(system: System) -> tuple[int, int]:
    """The allowed range of the system's main check value."""
    spec = system.CheckArgs.specs()[system.value]
    if not isinstance(spec, Int):
        raise DicelabError(f"{system.id}: the check value {system.value} is not an integer parameter")
    return spec.lo, spec.hi


class Curve:
    """One check as its main value varies over the allowed range (memoised)."""

    def __init__(self, system: System, rules: Any, args: Any):
        self.system, self.rules, self.args = system, rules, args
        self.lo, self.hi = value_range(system)
        self.base = getattr(args, system.value)
        self._results: dict[int, Any] = {}

    def result(self, value: int) -> Any:
        """The :class:`~analysis.engine.results.CheckResult` at this value."""
        if value not in self._results:
            args = self.args.replace(**{self.system.value: value})
            self._results[value] = self.system.check(self.rules, args)
        return self._results[value]

    def __call__(self, value: int) -> float:
        return self.result(value).p_success

    def first(self, p: float) -> int:
        """The smallest value with P(success) >= p (within TOL); ``hi + 1`` when none."""
        lo, hi = self.lo, self.hi + 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self(mid) >= p - TOL:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def last(self, p: float) -> int:
        """The largest value with P(success) <= p (within TOL); ``lo - 1`` when none."""
        lo, hi = self.lo - 1, self.hi
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self(mid) <= p + TOL:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def nearest(self, p: float, anchor: int) -> int:
        """The value whose P(success) is closest to ``p``; ties (flat stretches) go to the value nearest ``anchor``."""
        k = self.first(p)
        levels = [self(v) for v in (k, k - 1) if self.lo <= v <= self.hi]
        best = min(abs(level - p) for level in levels)
        picks = []
        for level in levels:
            if abs(level - p) <= best + TOL:
                lo, hi = self.first(level), self.last(level)
                picks.append(min(max(anchor, lo), hi))
        return min(picks, key=lambda v: (abs(v - anchor), v))


def cases_at(system: System, rules: Any, args: Any) -> list[int]:
    """The main values of the system's table cases at the given dice (tristat die, tun dice mode)."""
    name = system.value
    return [getattr(a, name) for _, r, a in system.table_cases(rules, args)
            if r == rules and a.replace(**{name: getattr(args, name)}) == args]


def check_probability(name: str, p: float, lo_open: bool = False) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not (0 < p <= 1 if lo_open else 0 <= p <= 1):
        raise ParamError(name, p, "a probability in (0, 1]" if lo_open else "a probability in 0..1")
    return float(p)


def show_p(p: float, digits: int = 6) -> str:
    """A probability with at least ``digits`` decimals and as many more as it takes to stay true (never ``1``
    for a P below 1, nor ``0`` for one above 0).

    >>> show_p(0.75), show_p(0.9999999), show_p(1.0), show_p(3e-9)
    ('0.750000', '0.9999999', '1.000000', '0.000000003')
    """
    for places in range(digits, 18):
        shown = f"{p:.{places}f}"
        if (p == 1 or float(shown) != 1) and (p == 0 or float(shown) != 0):
            return shown
    return repr(p)


def echo(system: System, rules: Any, args: Any) -> dict[str, Any]:
    """A check's system, ruleset, parameters and the lab's assumptions it rests on, as the tools echo them."""
    variants = rules.to_dict()
    return {"system": system.id, "variants": variants, "params": args.to_dict(),
            "assumptions": assumptions_echo(system.id, variants)}
