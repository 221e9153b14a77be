"""Plotting functions: they take the lab's result tables and return matplotlib figures."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

LABELS = {
    "en": {
        "curves_title": "Success curves aligned at each system's 50% point",
        "modifier": "modifier relative to the 50% point",
        "p_success": "P(success)",
    },
    "ru": {
        "curves_title": "Кривые успеха, совмещённые в точке 50%",
        "modifier": "модификатор относительно точки 50%",
        "p_success": "P(успеха)",
    },
}


def success_curves(df: pd.DataFrame, lang: str = "en", x: str = "modifier") -> Figure:
    """P(success) curves of :func:`analysis.compare.success_curves` on shared axes.

    >>> from analysis.compare import success_curves as curves
    >>> fig = success_curves(curves())
    >>> fig.axes[0].get_ylabel()
    'P(success)'
    """
    text = LABELS[lang]
    fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
    for curve, part in df.groupby("curve", sort=False):
        ax.plot(part[x], part["p_success"], marker="o", ms=3, label=curve)
    ax.axhline(0.5, color="grey", lw=0.6, ls=":")
    ax.axvline(0, color="grey", lw=0.6, ls=":")
    ax.set_title(text["curves_title"])
    ax.set_xlabel(text["modifier"] if x == "modifier" else x)
    ax.set_ylabel(text["p_success"])
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    return fig
