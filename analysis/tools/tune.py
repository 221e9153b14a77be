"""Tune a check: the smallest modifier that brings P(success) to a wished value, and the table of them.

>>> from analysis.systems import get_system
>>> tri = get_system("tristat")
>>> tune(tri, tri.rules(), tri.args(target=7), 0.75).modifier
2
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from analysis.base.params import DicelabError
from analysis.engine.results import assumptions_echo
from analysis.engine.system import System
from analysis.tools.curve import Curve, check_probability, show_p

TARGETS = tuple(round(0.05 * k, 2) for k in range(1, 20))
"""The target probabilities of :func:`tune_table`: 5%, 10%, ..., 95%."""


@dataclass(frozen=True)
class TuneResult:
    """The smallest modifier that brings a check to P(success) >= p."""

    system: str
    variants: Mapping[str, Any]
    params: Mapping[str, Any]
    value_name: str
    p: float
    modifier: int
    value: int
    p_at_modifier: float
    p_below: float | None
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "variants": dict(self.variants), "params": dict(self.params),
                "assumptions": assumptions_echo(self.system, self.variants), "notes": list(self.notes)}


def tune(system: System, rules: Any, args: Any, p: float) -> TuneResult:
    """The smallest modifier to ``system.value`` giving P(success) >= p.

    Raises :class:`DicelabError` naming the ceiling when no allowed value reaches p.

    >>> from analysis.systems import get_system
    >>> kurs = get_system("kurs")
    >>> r = tune(kurs, kurs.rules(), kurs.args(skill=0), 0.9)
    >>> r.modifier, round(r.p_at_modifier, 4), round(r.p_below, 4)
    (3, 0.9398, 0.8657)
    """
    return _tune_on(Curve(system, rules, args), check_probability("p", p, lo_open=True))


def _tune_on(curve: Curve, p: float) -> TuneResult:
    system, name = curve.system, curve.system.value
    value = curve.first(p)
    if value > curve.hi:
        ceiling = curve(curve.hi)
        at = curve.first(ceiling)
        raise DicelabError(
            f"no modifier brings this {system.id} check to P(success) >= {p!r}: the ceiling is P = {show_p(ceiling)}, "
            f"first reached at modifier {at - curve.base:+d} ({name} {at}; {name} is allowed up to {curve.hi})")
    notes = ()
    if value == curve.lo:
        notes = (f"every allowed modifier reaches it: P(success) is {show_p(curve(value))} even at the lowest {name} "
                 f"({value})",)
    return TuneResult(
        system=system.id, variants=curve.rules.to_dict(), params=curve.args.to_dict(), value_name=name, p=p,
        modifier=value - curve.base, value=value, p_at_modifier=curve(value),
        p_below=curve(value - 1) if value > curve.lo else None, notes=notes)


@dataclass(frozen=True)
class TuneTable:
    """For each target probability 5% ... 95%, the modifier needed (``None``: out of reach)."""

    system: str
    variants: Mapping[str, Any]
    params: Mapping[str, Any]
    value_name: str
    rows: tuple[Mapping[str, Any], ...]
    ceiling: float
    floor: float

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, "variants": dict(self.variants), "params": dict(self.params),
                "assumptions": assumptions_echo(self.system, self.variants),
                "value_name": self.value_name, "ceiling": self.ceiling, "floor": self.floor,
                "rows": [dict(r) for r in self.rows]}


def tune_table(system: System, rules: Any, args: Any) -> TuneTable:
    """:func:`tune` at every probability of ``TARGETS``; ``at_floor`` marks targets every modifier reaches.

    >>> from analysis.systems import get_system
    >>> tri = get_system("tristat")
    >>> t = tune_table(tri, tri.rules(), tri.args(target=7))
    >>> [(r["p"], r["modifier"]) for r in t.rows][-2:]
    [(0.9, 3), (0.95, 4)]
    """
    curve = Curve(system, rules, args)
    rows = []
    for p in TARGETS:
        try:
            res = _tune_on(curve, p)
            rows.append({"p": p, "modifier": res.modifier, "value": res.value, "p_at_modifier": res.p_at_modifier,
                         "at_floor": bool(res.notes)})
        except DicelabError:
            rows.append({"p": p, "modifier": None, "value": None, "p_at_modifier": None, "at_floor": False})
    return TuneTable(system.id, rules.to_dict(), args.to_dict(), system.value, tuple(rows),
                     ceiling=curve(curve.hi), floor=curve(curve.lo))
