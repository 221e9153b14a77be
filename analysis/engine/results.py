"""Result objects of exact computations: checks and opposed checks.

Every result echoes the system, the full variant set and the parameters that
made it, and turns into JSON with :meth:`to_dict`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from analysis.engine.assumptions import Use, listed, merged
from analysis.engine.dist import Dist
from analysis.engine.registry import house_rules_of, registered


def house_rules_echo(system_id: str, variants: Mapping[str, Any]) -> dict[str, Any]:
    """The rule constants of a result's ruleset that differ from the book (``house_rules`` in every output)."""
    return house_rules_of(system_id, variants)


def assumptions_echo(system_id: str, variants: Mapping[str, Any],
                     fighters: Mapping[str, Mapping[str, Any]] | None = None, kind: str = "check") -> dict[str, Any]:
    """The lab's assumptions a result rests on (``assumptions`` in every output): those of its system that apply to
    its ruleset, its fighters by role and what it computes (:class:`~analysis.engine.assumptions.Use`).

    >>> from analysis.systems import get_system
    >>> list(assumptions_echo("kurs", get_system("kurs").rules().to_dict()))
    ['dk_faces']
    """
    return listed(registered(system_id).assumptions, Use(variants, fighters or {}, kind))


def fight_assumptions(system_id: str, variants: Mapping[str, Any], side_a: Sequence[Mapping[str, Any]],
                      side_b: Sequence[Mapping[str, Any]], sizes: Iterable[str] = ()) -> dict[str, Any]:
    """The assumptions a fight of two sides rests on (each fighter as results echo it): a duel's when each side is
    one fighter, else a group fight's; ``sizes`` adds the other kinds a figure also plays (a curve over counts
    from one against one: ``("duel", "group")``).

    >>> from analysis.systems import get_system
    >>> six = get_system("onesix").rules(group_timing="order").to_dict()
    >>> list(fight_assumptions("onesix", six, [{}], [{}])), list(fight_assumptions("onesix", six, [{}], [{}, {}]))
    (['carry_floor'], [])
    """
    everyone = {f"{side}{i}": f for side, fs in (("a", side_a), ("b", side_b)) for i, f in enumerate(fs)}
    kinds = {"group" if len(side_a) > 1 or len(side_b) > 1 else "duel", *sizes}
    return merged([assumptions_echo(system_id, variants, everyone, kind) for kind in sorted(kinds)])


def strict(obj: Any) -> Any:
    """Strict JSON: numpy values as Python ones, and every NaN or infinity as ``None`` (the caller says why).

    >>> strict({"x": float("nan"), "y": [np.float64(1.5), np.inf]})
    {'x': None, 'y': [1.5, None]}
    """
    if isinstance(obj, np.ndarray):
        obj = obj.tolist()
    elif isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float):
        return obj if np.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: strict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [strict(v) for v in obj]
    return obj


def dist_to_json(dist: Dist) -> dict[str, float]:
    """A distribution as ``{"value": probability}`` with string keys (JSON objects)."""
    return {str(k): v for k, v in dist.to_dict().items()}


@dataclass(frozen=True)
class CheckResult:
    """One check, exactly: P(success), the outcome distribution and flags.

    ``outcome`` names the system's own measure held in ``distribution``
    (tristat ``margin``, onesix ``success_level``, tun ``effectiveness``,
    kurs ``margin``).  ``extra`` holds system-specific probabilities such as
    kurs ``p_complication`` or onesix ``p_equipment_fault``.
    """

    system: str
    variants: Mapping[str, Any]
    params: Mapping[str, Any]
    p_success: float
    outcome: str
    distribution: Dist
    p_critical: float | None = None
    p_fumble: float | None = None
    extra: Mapping[str, float] = field(default_factory=dict)

    @property
    def residual(self) -> float:
        """Truncation bound: probability mass not represented."""
        return self.distribution.residual

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "system": self.system,
            "variants": dict(self.variants),
            "house_rules": house_rules_echo(self.system, self.variants),
            "assumptions": assumptions_echo(self.system, self.variants),
            "params": dict(self.params),
            "p_success": self.p_success,
            "outcome": self.outcome,
            "distribution": dist_to_json(self.distribution),
            "mean": self.distribution.mean(),
            "std": self.distribution.std(),
        }
        if self.p_critical is not None:
            out["p_critical"] = self.p_critical
        if self.p_fumble is not None:
            out["p_fumble"] = self.p_fumble
        out.update(self.extra)
        out["residual"] = self.residual
        return out


@dataclass(frozen=True)
class OpposedResult:
    """An opposed check between sides A and B.

    ``margin`` is the distribution of A's score minus B's (the system's own
    measure); ``tie_rule`` says how the system settles equal results.
    """

    system: str
    variants: Mapping[str, Any]
    a: Mapping[str, Any]
    b: Mapping[str, Any]
    p_a_wins: float
    p_b_wins: float
    p_tie: float
    margin: Dist
    tie_rule: str
    extra: Mapping[str, Any] = field(default_factory=dict)
    """System-specific figures (2K: P(win and succeed), each side's success levels; luck tokens spent...)."""

    def to_dict(self) -> dict[str, Any]:
        return strict({
            "system": self.system,
            "variants": dict(self.variants),
            "house_rules": house_rules_echo(self.system, self.variants),
            "assumptions": assumptions_echo(self.system, self.variants, kind="opposed"),
            "a": dict(self.a),
            "b": dict(self.b),
            "p_a_wins": self.p_a_wins,
            "p_b_wins": self.p_b_wins,
            "p_tie": self.p_tie,
            "tie_rule": self.tie_rule,
            "margin": dist_to_json(self.margin),
            "residual": self.margin.residual,
            **self.extra,
        })


@dataclass(frozen=True)
class Outcomes:
    """A check's elementary outcomes: probability, contest key and score.

    ``key`` orders outcomes for a contest (higher wins); ``score`` is the
    system's measure whose difference is the opposed margin.
    """

    p: NDArray[np.float64]
    key: NDArray[np.int64]
    score: NDArray[np.int64]
    residual: float = 0.0

    def against(self, other: "Outcomes") -> tuple[float, float, float, Dist]:
        """(P(self wins), P(tie), P(other wins), distribution of score difference)."""
        joint = np.outer(self.p, other.p)
        diff = np.sign(self.key[:, None] - other.key[None, :])
        win = float(joint[diff > 0].sum())
        tie = float(joint[diff == 0].sum())
        lose = float(joint[diff < 0].sum())
        values = (self.score[:, None] - other.score[None, :]).ravel()
        residual = self.residual + other.residual - self.residual * other.residual
        return win, tie, lose, Dist._from_arrays(values, joint.ravel(), residual)
