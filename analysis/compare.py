"""Cross-system comparisons of checks: success curves aligned at the 50% point.

>>> df = success_curves()
>>> sorted(df["system"].unique())
['kurs', 'onesix', 'tristat', 'tun']
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from .system import all_systems
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
