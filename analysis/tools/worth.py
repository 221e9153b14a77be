"""What one more point is worth at each place of a check's range, and how swingy the outcome is there."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from analysis.engine.results import assumptions_echo
from analysis.engine.system import System
from analysis.tools.curve import Curve, cases_at


@dataclass(frozen=True)
class Worth:
    """At each place of the range: P(success), what one more point buys, and the outcome spread."""

    system: str
    variants: Mapping[str, Any]
    params: Mapping[str, Any]
    value_name: str
    outcome: str
    rows: tuple[Mapping[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, "variants": dict(self.variants), "params": dict(self.params),
                "assumptions": assumptions_echo(self.system, self.variants), "value_name": self.value_name,
                "outcome": self.outcome, "rows": [dict(r) for r in self.rows]}


def worth(system: System, rules: Any, args: Any) -> Worth:
    """Rows over the table cases at the given dice: ``value``, ``modifier`` (from the given value),
    ``p_success``, ``delta_p`` = P(value + 1) - P(value), and the mean and std of the outcome measure.

    >>> from analysis.systems import get_system
    >>> tri = get_system("tristat")
    >>> w = worth(tri, tri.rules(), tri.args(target=7))
    >>> max(w.rows, key=lambda r: r["delta_p"])["value"], w.outcome
    (6, 'margin')
    """
    curve = Curve(system, rules, args)
    rows = []
    for v in cases_at(system, rules, args):
        res = curve.result(v)
        rows.append({"value": v, "modifier": v - curve.base, "p_success": res.p_success,
                     "delta_p": curve(v + 1) - res.p_success if v < curve.hi else None,
                     "mean": res.distribution.mean(), "std": res.distribution.std()})
    outcome = curve.result(curve.base).outcome
    return Worth(system.id, rules.to_dict(), args.to_dict(), system.value, outcome, tuple(rows))
