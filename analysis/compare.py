"""Cross-system comparisons of checks: success curves aligned at the 50% point, the worth of
a point, outcome distributions, criticals, dice sizes and the weight of each rule variant.

>>> df = success_curves()
>>> sorted(df["system"].unique())
['kurs', 'onesix', 'tristat', 'tun']
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from .balance import variants, worth
from .fighters import load_fighter
from .system import System, all_systems, get_system
from .systems.tristat import DICE as TRISTAT_DICE
from .tables import success_table


def fifty_point(values: np.ndarray, p: np.ndarray) -> float:
    """The value where P(success) crosses 1/2, linearly interpolated.

    >>> fifty_point(np.array([1, 2, 3]), np.array([0.2, 0.4, 0.8]))
    2.25
    """
    above = np.flatnonzero(p >= 0.5)
    if above.size == 0 or above[0] == 0:
        raise ValueError("P(success) does not cross 1/2 inside the range")
    i = above[0]
    return float(values[i - 1] + (0.5 - p[i - 1]) / (p[i] - p[i - 1]) * (values[i] - values[i - 1]))


def success_curves(rules: Mapping[str, Any] | None = None, args: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """P(success) against each system's own value and against the modifier from its 50% point.

    One curve per system, at the ruleset's own dice (tristat ``die``, tun
    ``dice`` of the check); columns ``system, curve, value, p_success,
    modifier`` where ``modifier = value - fifty_point``.
    """
    frames = []
    for system in all_systems():
        r = (rules or {}).get(system.id) or system.rules()
        a = (args or {}).get(system.id) or system.args()
        df = success_table(system, r, a)
        mode_col = "dice" if "dice" in df.columns else "mode"
        mode = f"2d{r.die}" if system.id == "tristat" else (a.dice if system.id == "tun" else df[mode_col].iloc[0])
        df = df[df[mode_col] == mode].sort_values(system.value)
        values, p = df[system.value].to_numpy(), df["p_success"].to_numpy()
        centre = fifty_point(values, p)
        frames.append(pd.DataFrame({
            "system": system.id,
            "curve": f"{system.title} ({mode}, {system.value})",
            "value": values,
            "p_success": p,
            "modifier": values - centre,
            "fifty_point": centre,
        }))
    return pd.concat(frames, ignore_index=True)


def standard_args(system: System, rules: Any) -> Any:
    """The check at the value nearest each system's 50% point (the "standard character")."""
    df = success_curves({system.id: rules}).query("system == @system.id")
    centre = df["fifty_point"].iloc[0]
    return system.args(**{system.value: int(round(centre))})


def worth_table(rules: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """What +1 buys (ΔP) and how swingy the outcome is, across each system's range, aligned at the 50% point."""
    frames = []
    curves = success_curves(rules)
    for system in all_systems():
        r = (rules or {}).get(system.id) or system.rules()
        centre = curves.query("system == @system.id")["fifty_point"].iloc[0]
        rows = worth(system, r, system.args()).rows
        df = pd.DataFrame([dict(x) for x in rows])
        df["system"] = system.id
        df["modifier"] = df["value"] - centre
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def outcome_at_fifty(rules: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The outcome distribution (margin, success level, effectiveness) of each system's standard check."""
    frames = []
    for system in all_systems():
        r = (rules or {}).get(system.id) or system.rules()
        args = standard_args(system, r)
        res = system.check(r, args)
        d = {k: v for k, v in res.distribution.to_dict().items() if v >= 1e-6}
        frames.append(pd.DataFrame({"system": system.id, "value": getattr(args, system.value), "outcome": res.outcome,
                                    "result": list(d), "p": list(d.values())}))
    return pd.concat(frames, ignore_index=True)


def crits_and_fumbles(rules: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """P(critical), P(fumble) and the system's other special results at the standard check.

    Tri-Stat for every die; ТУН with its optional criticals switched on.
    """
    rows = []
    for system in all_systems():
        r = (rules or {}).get(system.id) or system.rules()
        if system.id == "tun":
            r = r.replace(crits=True)
        cases = [r.replace(die=d) for d in TRISTAT_DICE] if system.id == "tristat" else [r]
        for rr in cases:
            args = standard_args(system, rr)
            res = system.check(rr, args)
            mode = f"2d{rr.die}" if system.id == "tristat" else getattr(args, "dice", "")
            row = {"system": system.id, "mode": mode, "value": getattr(args, system.value), "p_success": res.p_success,
                   "p_critical": res.p_critical, "p_fumble": res.p_fumble}
            row.update(res.extra)
            rows.append(row)
    return pd.DataFrame(rows)


def dice_families(rules: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Tri-Stat's success curves for every die and ТУН's for every dice mode."""
    frames = []
    for sid in ("tristat", "tun"):
        system = get_system(sid)
        r = (rules or {}).get(sid) or system.rules()
        df = success_table(system, r, system.args())
        frames.append(df.rename(columns={system.value: "value"}))
    return pd.concat(frames, ignore_index=True)


def variant_effects(fighter: str = "trained_armed") -> pd.DataFrame:
    """Every rule variant's effect on each system's check table and on a matched duel (A = B = ``fighter``)."""
    rows = []
    for system in all_systems():
        f = load_fighter(system, fighter)
        report = variants(system, a=f, b=f, workers=1)
        for e in report.effects:
            d = e.duel_delta or {}
            rows.append({"system": system.id, "variant": e.label, "effect": e.effect, "check_max_dp": e.check_max_dp,
                         "check_mean_dp": e.check_mean_dp, "d_p_a_wins": d.get("p_a_wins"),
                         "d_p_death": d.get("p_death"), "d_mean_rounds": d.get("mean_rounds"), "note": e.note})
    return pd.DataFrame(rows)
