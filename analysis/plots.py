"""Plotting functions: they take the lab's result tables and return matplotlib figures.

Every function takes the DataFrame produced by :mod:`analysis.compare` or
:mod:`analysis.lethality` and a language (``en`` or ``ru``), and returns a
:class:`~matplotlib.figure.Figure` with a title, axis labels and a legend.

>>> from analysis.compare import success_curves as curves
>>> fig = success_curves(curves())
>>> fig.axes[0].get_ylabel()
'P(success)'
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from .i18n import label  # noqa: E402
from .system import SYSTEM_IDS  # noqa: E402

COLORS = dict(zip(SYSTEM_IDS, ("tab:blue", "tab:orange", "tab:green", "tab:red")))
TITLES = {
    "en": {
        "curves": "Success curves aligned at each system's 50% point",
        "absolute": "Success curves in each system's own terms",
        "worth": "What one more point buys, and how swingy the check is",
        "outcomes": "Outcome distribution of the standard check (nearest the 50% point)",
        "crits": "Special results at the standard check",
        "dice": "How the die size moves Tri-Stat and the dice mode moves TUN",
        "skill_gap": "P(A wins) against the skill gap (matched trained, armed fighters)",
        "rounds": "How long a matched fight lasts",
        "lethality": "How fights end: death against incapacitation",
        "damage": "Damage per exchange (matched fighters, each system's own units)",
        "variants": "How much each rule reading moves checks and duels",
    },
    "ru": {
        "curves": "Кривые успеха, совмещённые в точке 50%",
        "absolute": "Кривые успеха в терминах каждой системы",
        "worth": "Что даёт ещё одно очко и насколько бросок непредсказуем",
        "outcomes": "Распределение результата стандартной проверки (около 50%)",
        "crits": "Особые результаты стандартной проверки",
        "dice": "Как размер кубика меняет Tri-Stat, а режим кубиков — ТУН",
        "skill_gap": "P(победы A) от разницы в навыках (равные обученные бойцы с оружием)",
        "rounds": "Сколько длится равный бой",
        "lethality": "Чем кончается бой: смерть или вывод из строя",
        "damage": "Урон за обмен ударами (равные бойцы, единицы каждой системы)",
        "variants": "Насколько каждое прочтение правил меняет проверки и бои",
    },
}
LEGEND = {
    "en": {"p_critical": "P(critical)", "p_fumble": "P(fumble)", "p_equipment_fault": "P(equipment fault)",
           "p_complication": "P(success with a complication)", "p_death": "death", "p_incap": "incapacitated only",
           "check": "check table: max |ΔP|", "p_a_wins": "duel: |ΔP(A wins)|", "p_death_delta": "duel: |ΔP(death)|",
           "hit_edge": "hit edge: P(A hits) - P(B hits)"},
    "ru": {"p_critical": "P(крит. успеха)", "p_fumble": "P(провала)", "p_equipment_fault": "P(отказа снаряжения)",
           "p_complication": "P(успеха с осложнением)", "p_death": "смерть", "p_incap": "только вывод из строя",
           "check": "таблица проверок: max |ΔP|", "p_a_wins": "бой: |ΔP(победы A)|", "p_death_delta": "бой: |ΔP(смерти)|",
           "hit_edge": "перевес в попаданиях: P(попал A) - P(попал B)"},
}


def _name(lang: str, system: str) -> str:
    return label(lang, "name", system)


def _finish(fig: Figure, lang: str, key: str) -> Figure:
    fig.suptitle(TITLES[lang][key])
    return fig


def success_curves(df: pd.DataFrame, lang: str = "en", x: str = "modifier") -> Figure:
    """P(success) of :func:`analysis.compare.success_curves` on shared axes, aligned at the 50% point."""
    fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
    for system, part in df.groupby("system", sort=False):
        ax.plot(part[x], part["p_success"], marker="o", ms=3, color=COLORS[system], label=_name(lang, system))
    ax.axhline(0.5, color="grey", lw=0.6, ls=":")
    ax.axvline(0, color="grey", lw=0.6, ls=":")
    ax.set_title(TITLES[lang]["curves"])
    ax.set_xlabel(label(lang, "modifier"))
    ax.set_ylabel(label(lang, "p_success"))
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    return fig


def success_absolute(df: pd.DataFrame, lang: str = "en") -> Figure:
    """The same curves against each system's own value (target, rating, limit, skill), one panel each."""
    fig, axes = plt.subplots(2, 2, figsize=(10, 7), layout="constrained", sharey=True)
    for ax, (system, part) in zip(axes.flat, df.groupby("system", sort=False)):
        ax.plot(part["value"], part["p_success"], marker="o", ms=3, color=COLORS[system], label=_name(lang, system))
        ax.set_xlabel(label(lang, "value", system))
        ax.set_ylabel(label(lang, "p_success"))
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    return _finish(fig, lang, "absolute")


def worth(df: pd.DataFrame, lang: str = "en") -> Figure:
    """ΔP(success) bought by +1 and the outcome's spread, against the modifier from the 50% point."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained")
    for system, part in df.groupby("system", sort=False):
        part = part.dropna(subset=["delta_p"])
        left.plot(part["modifier"], part["delta_p"], marker="o", ms=3, color=COLORS[system], label=_name(lang, system))
        right.plot(part["modifier"], part["std"], marker="o", ms=3, color=COLORS[system], label=_name(lang, system))
    left.set_ylabel(label(lang, "delta_p"))
    right.set_ylabel(label(lang, "spread"))
    for ax in (left, right):
        ax.set_xlabel(label(lang, "modifier"))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    return _finish(fig, lang, "worth")


def outcome_distributions(df: pd.DataFrame, lang: str = "en") -> Figure:
    """The outcome distribution of each system's standard check, one panel each."""
    fig, axes = plt.subplots(2, 2, figsize=(10, 7), layout="constrained")
    for ax, (system, part) in zip(axes.flat, df.groupby("system", sort=False)):
        value = part["value"].iloc[0]
        ax.bar(part["result"], part["p"], color=COLORS[system],
               label=f"{_name(lang, system)}: {label(lang, 'value', system)} = {value}")
        ax.set_xlabel(label(lang, "outcome", system))
        ax.set_ylabel(label(lang, "probability"))
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8)
    return _finish(fig, lang, "outcomes")


def crits_and_fumbles(df: pd.DataFrame, lang: str = "en") -> Figure:
    """Grouped bars of P(critical), P(fumble) and the systems' other special results."""
    cols = [c for c in ("p_critical", "p_fumble", "p_equipment_fault", "p_complication") if c in df.columns]
    names = [f"{_name(lang, s)} {m}".strip() for s, m in zip(df["system"], df["mode"])]
    fig, ax = plt.subplots(figsize=(10, 4.5), layout="constrained")
    width = 0.8 / len(cols)
    x = np.arange(len(df))
    for i, col in enumerate(cols):
        ax.bar(x + i * width, df[col].fillna(0.0), width, label=LEGEND[lang][col])
    ax.set_xticks(x + width * (len(cols) - 1) / 2, names, rotation=30, ha="right", fontsize=8)
    ax.set_xlabel(label(lang, "system"))
    ax.set_ylabel(label(lang, "probability"))
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    return _finish(fig, lang, "crits")


def dice_families(df: pd.DataFrame, lang: str = "en") -> Figure:
    """Tri-Stat's curve for every die and ТУН's for every dice mode."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained", sharey=True)
    for ax, system in zip(axes, ("tristat", "tun")):
        part = df[df["system"] == system]
        for mode, curve in part.groupby("dice", sort=False):
            ax.plot(curve["value"], curve["p_success"], marker="o", ms=2, label=mode)
        ax.set_title(_name(lang, system))
        ax.set_xlabel(label(lang, "value", system))
        ax.set_ylabel(label(lang, "p_success"))
        ax.grid(alpha=0.3)
        ax.legend(title=label(lang, "dice"), fontsize=8)
    return _finish(fig, lang, "dice")


def skill_gap(df: pd.DataFrame, lang: str = "en") -> Figure:
    """P(A wins) against the hit edge (a common currency) and against the gap in each system's points."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained", sharey=True)
    for system, part in df.groupby("system", sort=False):
        kw = dict(marker="o", ms=3, color=COLORS[system], label=_name(lang, system))
        left.plot(part["hit_edge"], part["p_a_wins"], **kw)
        right.plot(part["gap"], part["p_a_wins"], **kw)
    left.set_xlabel(LEGEND[lang]["hit_edge"])
    right.set_xlabel(label(lang, "skill_gap"))
    for ax in (left, right):
        ax.set_ylabel(label(lang, "p_win"))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    return _finish(fig, lang, "skill_gap")


def rounds(df: pd.DataFrame, lang: str = "en") -> Figure:
    """P(the fight ends in round r) for each system's matched pairing."""
    fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
    for system, part in df.groupby("system", sort=False):
        part = part[part["p"] >= 1e-4]
        ax.plot(part["round"], part["p"], marker="o", ms=3, color=COLORS[system], label=_name(lang, system))
    ax.set_xlabel(label(lang, "rounds"))
    ax.set_ylabel(label(lang, "probability"))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _finish(fig, lang, "rounds")


def lethality(df: pd.DataFrame, lang: str = "en") -> Figure:
    """Stacked bars: P(death) and P(incapacitation only) at each skill gap, per system."""
    fig, axes = plt.subplots(1, 4, figsize=(13, 4), layout="constrained", sharey=True)
    for ax, (system, part) in zip(axes, df.groupby("system", sort=False)):
        ax.bar(part["gap"], part["p_death"], color="black", label=LEGEND[lang]["p_death"])
        ax.bar(part["gap"], part["p_incap"], bottom=part["p_death"], color=COLORS[system], label=LEGEND[lang]["p_incap"])
        ax.set_title(_name(lang, system))
        ax.set_xlabel(label(lang, "skill_gap"), fontsize=8)
        ax.set_ylim(0, 1.3)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7, loc="upper center")
    axes[0].set_ylabel(label(lang, "probability"))
    return _finish(fig, lang, "lethality")


def damage(df: pd.DataFrame, lang: str = "en") -> Figure:
    """The damage distribution of one attack, one panel per system (its own damage units)."""
    fig, axes = plt.subplots(2, 2, figsize=(10, 7), layout="constrained")
    for ax, (system, part) in zip(axes.flat, df.groupby("system", sort=False)):
        part = part[part["p"] >= 1e-4]
        ax.bar(part["damage"], part["p"], color=COLORS[system], label=_name(lang, system))
        ax.set_xlabel(label(lang, "damage"))
        ax.set_ylabel(label(lang, "probability"))
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8)
    return _finish(fig, lang, "damage")


def variant_effects(df: pd.DataFrame, lang: str = "en") -> Figure:
    """Horizontal bars per system: each variant's max |ΔP| on the check table and |Δ| on a matched duel."""
    fig, axes = plt.subplots(2, 2, figsize=(12, 9), layout="constrained")
    for ax, (system, part) in zip(axes.flat, df.groupby("system", sort=False)):
        part = part.iloc[::-1]
        y = np.arange(len(part))
        ax.barh(y - 0.27, part["check_max_dp"], 0.27, label=LEGEND[lang]["check"])
        ax.barh(y, part["d_p_a_wins"].abs().fillna(0), 0.27, label=LEGEND[lang]["p_a_wins"])
        ax.barh(y + 0.27, part["d_p_death"].abs().fillna(0), 0.27, label=LEGEND[lang]["p_death_delta"])
        ax.set_yticks(y, part["variant"], fontsize=7)
        ax.set_title(_name(lang, system))
        ax.set_xlabel(label(lang, "effect"))
        ax.grid(alpha=0.3, axis="x")
        ax.legend(fontsize=7, loc="lower right")
    return _finish(fig, lang, "variants")
