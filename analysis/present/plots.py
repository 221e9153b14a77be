"""The lab's figures as :class:`~analysis.present.chart.Chart` values, in English or Russian.

Every function takes a table of :mod:`analysis.tools.compare` or :mod:`analysis.fights.lethality`, a language and
the caption that names the model and rules behind the table, and returns a chart: ``.png()`` for a
rulebook, ``.plotly()`` for hover, and a notebook shows it by itself.  Nothing here imports
matplotlib's pyplot or chooses a backend.

>>> from analysis.tools.compare import success_curves as curves
>>> c = success_curves(curves())
>>> c.panels[0].ylabel, len(c.panels[0].traces)
('P(success)', 4)
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis.present.chart import Chart, Panel, Trace, data_range
from analysis.present.i18n import dice, label, number, percent, system_name
from analysis.systems import SYSTEM_IDS

COLORS = dict(zip(SYSTEM_IDS, ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728")))
TITLES = {
    "en": {
        "success_curves": "Success curves aligned at each system's 50% point",
        "success_absolute": "Success curves in each system's own terms",
        "worth": "What one more point buys",
        "swing": "How swingy a check is: points from a long shot to a near-certainty",
        "outcome_distributions": "Outcome distribution of the standard check (nearest the 50% point)",
        "dice_families": "How the die size moves Tri-Stat and the dice mode moves TUN",
        "skill_gap": "P(A wins) against the skill gap",
        "rounds": "Rounds to the first incapacitation",
        "lethality": "How lethal a fight is: deaths against the finishing attacks allowed",
        "damage": "Hits and attacks to take the defender out",
        "variant_effects": "What each rule reading moves (signed, one scale per measure)",
        "policy_effects": "What each tactical option does for the fighter who takes it",
        "crowd": "One fighter against a crowd",
        "lanchester": "Lanchester's exponent k: how strength grows with numbers",
        "played_well": "The book's play against both sides playing well",
    },
    "ru": {
        "success_curves": "Кривые успеха, совмещённые в точке 50%",
        "success_absolute": "Кривые успеха в терминах каждой системы",
        "worth": "Что даёт ещё одно очко",
        "swing": "Насколько случаен бросок: сколько очков от почти безнадёжной проверки до почти верной",
        "outcome_distributions": "Распределение результата стандартной проверки (около 50%)",
        "dice_families": "Как размер кубика меняет Tri-Stat, а режим кубиков — ТУН",
        "skill_gap": "P(победы A) от разницы в навыках",
        "rounds": "Раунд первого вывода из строя",
        "lethality": "Смертельность боя в зависимости от числа добивающих ударов",
        "damage": "Сколько ударов и атак выводят защитника из строя",
        "variant_effects": "Что меняет каждое прочтение правил (со знаком, одна шкала на величину)",
        "policy_effects": "Что даёт каждый тактический приём тому, кто его выбрал",
        "crowd": "Один боец против толпы",
        "lanchester": "Показатель Ланчестера k: как сила растёт с численностью",
        "played_well": "Игра по книге против лучшей игры обеих сторон",
    },
}
WORDS = {
    "en": {"hits_panel": "damaging hits (attacks that changed B's condition)", "attacks_panel": "every attack of A",
           "no_policies": "no tactical option (policy) is open to these fighters",
           "swing_hover": "{name}: {n} points of {value}, from {p_lo} at {lo} to {p_hi} at {hi}",
           "refused": "refused", "n_a": "n/a",
           "no_level": "not defined for {names}: the system has no {level} level"},
    "ru": {"hits_panel": "ранящие удары (атаки, изменившие состояние B)", "attacks_panel": "все атаки A",
           "no_policies": "этим бойцам не доступен ни один тактический приём",
           "swing_hover": "{name}: {n} очка «{value}», от {p_lo} при {lo} до {p_hi} при {hi}",
           "refused": "отказ", "n_a": "неприменимо",
           "no_level": "не определено для {names}: у системы нет уровня «{level}»"},
}
LEVEL_NAMES = {"en": {"dying": "dying", "dead": "dead"}, "ru": {"dying": "при смерти", "dead": "гибель"}}


def _systems(df: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    return [(s, df[df["system"] == s]) for s in SYSTEM_IDS if (df["system"] == s).any()]


def _line(part: pd.DataFrame, x: str, y: str, system: str, lang: str, name: str = "", scale: float = 1.0,
          hover_x: str = "") -> Trace:
    xs, ys = tuple(part[x]), tuple(None if pd.isna(v) else v * scale for v in part[y])
    hover = tuple(f"{name or system_name(lang, system)}<br>{hover_x or x} = {_num(lang, a)}: "
                  f"{'—' if b is None else _num(lang, b)}" for a, b in zip(xs, ys))
    return Trace(xs, ys, name or system_name(lang, system), color=COLORS.get(system), hover=hover)


def _num(lang: str, v: Any) -> str:
    if isinstance(v, (int,)) or (isinstance(v, float) and v.is_integer() and abs(v) >= 1):
        return str(int(v))
    return number(lang, float(v), 3)


def success_curves(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """P(success) of :func:`analysis.tools.compare.success_curves` on shared axes, aligned at the 50% point."""
    traces = tuple(_line(part, "modifier", "p_success", s, lang, f"{system_name(lang, s)} ({dice(lang, part['dice'].iloc[0])})",
                         hover_x=label(lang, "modifier")) for s, part in _systems(df))
    panel = Panel(traces, xlabel=label(lang, "modifier"), ylabel=label(lang, "p_success"), y_range=(-0.02, 1.02),
                  hlines=(0.5,), vlines=(0.0,))
    return Chart("success_curves", TITLES[lang]["success_curves"], (panel,), caption=caption, row_height=4.6, lang=lang)


def success_absolute(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """The same curves against each system's own value (target, rating, limit, skill), one panel each."""
    panels = tuple(Panel((_line(part, "value", "p_success", s, lang, hover_x=label(lang, "value", s)),),
                         title=system_name(lang, s), xlabel=label(lang, "value", s), ylabel=label(lang, "p_success"),
                         x_integer=True, y_range=(-0.02, 1.02)) for s, part in _systems(df))
    return Chart("success_absolute", TITLES[lang]["success_absolute"], panels, cols=2, caption=caption, lang=lang)


def worth(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """Percentage points of P(success) bought by +1, against the modifier from the 50% point."""
    traces = tuple(_line(part.dropna(subset=["delta_p"]), "modifier", "delta_p", s, lang, scale=100.0,
                         hover_x=label(lang, "modifier")) for s, part in _systems(df))
    panel = Panel(traces, xlabel=label(lang, "modifier"), ylabel=label(lang, "delta_p"), vlines=(0.0,))
    return Chart("worth", TITLES[lang]["worth"], (panel,), caption=caption, row_height=4.6, lang=lang)


def swing(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """How many points of each system's own value take a check from a long shot (10%) to a near-certainty (90%),
    from :func:`analysis.tools.compare.swing_table`: one bar per system."""
    names = tuple(system_name(lang, s) for s, _ in _systems(df))
    traces = []
    for s, part in _systems(df):
        row = part.iloc[0]
        hover = WORDS[lang]["swing_hover"].format(
            name=system_name(lang, s), value=label(lang, "value", s), lo=number(lang, row["value_low"], 1),
            hi=number(lang, row["value_high"], 1), n=number(lang, row["points"], 1), p_lo=percent(lang, row["p_low"]),
            p_hi=percent(lang, row["p_high"]))
        traces.append(Trace((float(row["points"]),), (system_name(lang, s),), system_name(lang, s), kind="hbar",
                            color=COLORS[s], hover=(hover,)))
    panel = Panel(tuple(traces), xlabel=label(lang, "swing_points"), categories=names,
                  x_range=data_range((Panel(tuple(traces)),), "x", zero=True))
    return Chart("swing", TITLES[lang]["swing"], (panel,), caption=caption, row_height=3.0, lang=lang)


def outcome_distributions(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """The outcome distribution of each system's standard check, one panel each."""
    panels = []
    for s, part in _systems(df):
        value = part["value"].iloc[0]
        name = f"{system_name(lang, s)}: {label(lang, 'value', s)} = {value}"
        hover = tuple(f"{label(lang, 'outcome', s)} {r}: {percent(lang, p)}" for r, p in zip(part["result"], part["p"]))
        trace = Trace(tuple(part["result"]), tuple(part["p"]), system_name(lang, s), kind="bar", color=COLORS[s],
                      hover=hover)
        panels.append(Panel((trace,), title=name, xlabel=label(lang, "outcome", s), ylabel=label(lang, "probability"),
                            x_integer=True))
    return Chart("outcome_distributions", TITLES[lang]["outcome_distributions"], tuple(panels), cols=2, caption=caption, lang=lang)


def dice_families(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """Tri-Stat's curve for every die and ТУН's for every dice mode."""
    panels = []
    for s, part in _systems(df):
        traces = tuple(Trace(tuple(c["value"]), tuple(c["p_success"]), dice(lang, mode),
                             hover=tuple(f"{dice(lang, mode)}, {label(lang, 'value', s)} {v}: {percent(lang, p)}"
                                         for v, p in zip(c["value"], c["p_success"])))
                       for mode, c in part.groupby("dice", sort=False))
        panels.append(Panel(traces, title=system_name(lang, s), xlabel=label(lang, "value", s),
                            ylabel=label(lang, "p_success"), x_integer=True, y_range=(-0.02, 1.02)))
    return Chart("dice_families", TITLES[lang]["dice_families"], tuple(panels), cols=2, caption=caption, lang=lang)


def skill_gap(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """P(A wins) against the hit edge (a common currency) and against the gap in each system's points."""
    left = tuple(_line(part, "hit_edge", "p_a_wins", s, lang, hover_x=label(lang, "hit_edge")) for s, part in _systems(df))
    right = tuple(_line(part, "gap", "p_a_wins", s, lang, hover_x=label(lang, "skill_gap")) for s, part in _systems(df))
    panels = (Panel(left, xlabel=label(lang, "hit_edge"), ylabel=label(lang, "p_win"), y_range=(0.0, 1.02)),
              Panel(right, xlabel=label(lang, "skill_gap"), ylabel=label(lang, "p_win"), x_integer=True,
                    y_range=(0.0, 1.02)))
    return Chart("skill_gap", TITLES[lang]["skill_gap"], panels, cols=2, caption=caption, lang=lang)


def rounds(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """P(the first fighter goes out in round r) for each system's pairing (rounds past 0.01% left out)."""
    traces = tuple(_line(part[part["p"] >= 1e-4], "round", "p", s, lang, hover_x=label(lang, "rounds"))
                   for s, part in _systems(df))
    panel = Panel(traces, xlabel=label(lang, "rounds"), ylabel=label(lang, "probability"), x_integer=True)
    return Chart("rounds", TITLES[lang]["rounds"], (panel,), caption=caption, row_height=4.6, lang=lang)


def lethality(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """P(at least one fighter killed) against the finishing attacks allowed (0: the deciding blow alone, up to the
    setup's ``finish_attacks``), from :func:`analysis.fights.lethality.finishing`; beside it, how often the deciding
    blow itself leaves the loser at the killed level, per decided fight."""
    defined = [(s, part) for s, part in _systems(df) if part["p_killed"].notna().all()]
    missing = [s for s, part in _systems(df) if part["p_killed"].isna().any()]
    lethal = df["lethal_at"].iloc[0] if len(df) else "dying"
    note = WORDS[lang]["no_level"].format(names=", ".join(system_name(lang, s) for s in missing),
                                          level=LEVEL_NAMES[lang][lethal]) if missing else ""
    curve = tuple(_line(part, "finish_attacks", "p_killed", s, lang, hover_x=label(lang, "finish_attacks"))
                  for s, part in defined)
    left = Panel(curve, xlabel=label(lang, "finish_attacks"), ylabel=label(lang, f"p_killed_{lethal}"),
                 x_integer=True, y_range=(-0.02, 1.02), note=note)
    names = tuple(system_name(lang, s) for s, _ in defined)
    bars = tuple(Trace((float(part["p_deciding_blow"].iloc[0]),), (system_name(lang, s),), system_name(lang, s),
                       kind="hbar", color=COLORS[s],
                       hover=(f"{system_name(lang, s)}: {percent(lang, float(part['p_deciding_blow'].iloc[0]))}",))
                 for s, part in defined)
    right = Panel(bars, title=label(lang, f"deciding_blow_{lethal}"), xlabel=label(lang, "probability"),
                  categories=names, x_range=(0.0, 1.02), vlines=(0.0,))
    return Chart("lethality", TITLES[lang]["lethality"], (left, right), cols=2, caption=caption, row_height=4.6, lang=lang)


def damage(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """P(B is out after at most k damaging hits / k attacks of A), from :func:`analysis.fights.lethality.hits_to_out`."""
    panels = []
    for measure in ("hits", "attacks"):
        part = df[(df["measure"] == measure)]
        traces = tuple(_line(p[p["p_out"].shift(1, fill_value=0.0) < 0.999], "k", "p_out", s, lang,
                             hover_x=label(lang, measure)) for s, p in _systems(part))
        panels.append(Panel(traces, title=WORDS[lang][f"{measure}_panel"], xlabel=label(lang, measure),
                            ylabel=label(lang, "p_out_by"), x_integer=True, y_range=(-0.02, 1.02), hlines=(0.5,)))
    return Chart("damage", TITLES[lang]["damage"], tuple(panels), cols=2, caption=caption, lang=lang)


NOISE = 1e-12
"""An effect smaller than this is float noise of exact sums: drawn, and labelled, as 0."""


def _effect_panels(df: pd.DataFrame, lang: str, row: str, measures: tuple[tuple[str, str, float], ...],
                   cols: int = 2, not_applicable: pd.Series | None = None) -> tuple[Panel, ...]:
    """One horizontal-bar panel per measure, every row of ``df`` a category (in ``df``'s order), laid out ``cols``
    to a row (the names beside the first of each row); a row without a bar says why: ``0``, refused (the rules
    refused the duel) or n/a (``not_applicable``: the measure does not apply to the row)."""
    names = tuple(f"{label(lang, 'short', s)}: {r}" for s, r in zip(df["system"], df[row]))
    panels = []
    for i, (column, title, scale) in enumerate(measures):
        traces, marks = [], []
        for s, part in _systems(df):
            values = tuple(None if pd.isna(v) else (0.0 if abs(v) < NOISE else v * scale) for v in part[column])
            cats = tuple(f"{label(lang, 'short', s)}: {r}" for r in part[row])
            hover = tuple(f"{c}<br>{title}: {'—' if v is None else number(lang, v, 3)}" for c, v in zip(cats, values))
            traces.append(Trace(values, cats, system_name(lang, s), kind="hbar", color=COLORS[s], hover=hover))
            skip = not_applicable.loc[part.index] if i == 0 and not_applicable is not None else [False] * len(part)
            marks += [(c, WORDS[lang]["n_a"] if na else WORDS[lang]["refused"] if v is None else "0")
                      for c, v, na in zip(cats, values, skip) if na or v is None or v == 0.0]
        rng = data_range((Panel(tuple(traces)),), "x", zero=True)
        panels.append(Panel(tuple(traces), title=title, categories=names, category_labels=i % cols == 0,
                            vlines=(0.0,), x_range=rng, marks=tuple(marks)))
    return tuple(panels)


def variant_effects(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """Signed effects of every rule variant: the check table's largest ΔP(success) and the matched duel's
    ΔP(A wins), ΔP(killed) and Δ mean rounds; one scale per measure shared by every system; rows in the
    table's order."""
    pp = ", пп" if lang == "ru" else ", pp"
    measures = (("check_shift", label(lang, "check_shift") + pp, 100.0),
                ("d_p_a_wins", label(lang, "d_p_a_wins") + pp, 100.0),
                ("d_p_killed", label(lang, "d_p_killed") + pp, 100.0),
                ("d_mean_rounds", label(lang, "d_mean_rounds"), 1.0))
    panels = _effect_panels(df, lang, "variant", measures, not_applicable=~df["check_applies"].astype(bool))
    return Chart("variant_effects", TITLES[lang]["variant_effects"], panels, cols=2, caption=caption,
                 row_height=max(4.0, 0.26 * len(df)), lang=lang)


def policy_effects(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """Signed effects of each tactical option against the plain fighter: ΔP(A wins), ΔP(A killed),
    ΔP(B killed) and Δ mean rounds (A takes the option, B stays plain)."""
    words = {"en": ("ΔP(A wins), pp", "ΔP(A killed), pp", "ΔP(B killed), pp", "Δ mean rounds"),
             "ru": ("ΔP(победы A), пп", "ΔP(гибели A), пп", "ΔP(гибели B), пп", "Δ среднего числа раундов")}[lang]
    measures = tuple(zip(("d_p_a_wins", "d_p_a_killed", "d_p_b_killed", "d_mean_rounds"), words,
                         (100.0, 100.0, 100.0, 1.0)))
    open_ = df[df["d_p_a_wins"].notna()]
    if open_.empty:
        panels = (Panel((), note=WORDS[lang]["no_policies"]),)
    else:
        panels = _effect_panels(open_.reset_index(drop=True), lang, "option", measures)
    return Chart("policy_effects", TITLES[lang]["policy_effects"], panels, cols=min(2, len(panels)), caption=caption,
                 row_height=max(3.0, 0.3 * len(open_)), lang=lang)


GROUP_WORDS = {
    "en": {"count": "count of B (novice_armed) against one A (trained_armed)", "p_a": "P(side A wins)",
           "k": "k (strength ∝ count^k)", "k_hover": "{name}: k = {k} (95% interval {lo} to {hi}); size pairs: {pairs}",
           "p_hover": "{name}, {count} against one: {p} ({method})", "exact": "exact", "monte_carlo": "Monte Carlo"},
    "ru": {"count": "число B (novice_armed) против одного A (trained_armed)", "p_a": "P(победы стороны A)",
           "k": "k (сила ∝ численность^k)",
           "k_hover": "{name}: k = {k} (95%-интервал от {lo} до {hi}); пары численностей: {pairs}",
           "p_hover": "{name}, {count} против одного: {p} ({method})", "exact": "точно",
           "monte_carlo": "Монте-Карло"},
}


def crowd(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """P(one ``trained_armed`` wins) against the count of ``novice_armed`` facing it, one line per system with group
    fights (:func:`analysis.tools.crowds.crowd`); each point's hover says whether it is exact or Monte Carlo."""
    w = GROUP_WORDS[lang]
    traces = tuple(Trace(tuple(part["count"]), tuple(part["p_a_wins"]), system_name(lang, s), color=COLORS[s],
                         hover=tuple(w["p_hover"].format(name=system_name(lang, s), count=c, p=percent(lang, p),
                                                         method=w[m])
                                     for c, p, m in zip(part["count"], part["p_a_wins"], part["method"])))
                   for s, part in _systems(df))
    panel = Panel(traces, xlabel=w["count"], ylabel=w["p_a"], x_integer=True, y_range=(-0.02, 1.02), hlines=(0.5,))
    return Chart("crowd", TITLES[lang]["crowd"], (panel,), caption=caption, row_height=4.6, lang=lang)


def lanchester(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """Lanchester's exponent k of each system with group fights (:func:`analysis.tools.crowds.exponents`), against
    the linear (k = 1) and square (k = 2) laws."""
    w = GROUP_WORDS[lang]
    names = tuple(system_name(lang, s) for s, _ in _systems(df))
    bars = tuple(Trace((float(part["k"].iloc[0]),), (system_name(lang, s),), system_name(lang, s), kind="hbar",
                       color=COLORS[s],
                       hover=(w["k_hover"].format(name=system_name(lang, s), k=number(lang, part["k"].iloc[0], 2),
                                                  lo=number(lang, part["k_lo"].iloc[0], 2),
                                                  hi=number(lang, part["k_hi"].iloc[0], 2),
                                                  pairs=part["k_pairs"].iloc[0]),))
                 for s, part in _systems(df))
    top = max([2.5] + [float(v) for v in df["k_hi"]]) * 1.1 if len(df) else 3.0
    panel = Panel(bars, xlabel=w["k"], categories=names, x_range=(0.0, top), vlines=(1.0, 2.0))
    return Chart("lanchester", TITLES[lang]["lanchester"], (panel,), caption=caption, row_height=3.0, lang=lang)


PLAY_WORDS = {"en": {"book": "by the book", "equilibrium": "played well (equilibrium)"},
              "ru": {"book": "по книге", "equilibrium": "лучшая игра (равновесие)"}}


def played_well(df: pd.DataFrame, lang: str = "en", caption: str = "") -> Chart:
    """P(A wins) and mean rounds against A's skill gap, by the book (dashed) and with both sides playing the
    equilibrium (solid), one colour per system with decisions (:func:`analysis.tools.played.tables`)."""
    panels = []
    for y, ylabel, rng in (("p_a_wins", label(lang, "p_win"), (0.0, 1.02)), ("mean_rounds", label(lang, "mean_rounds"),
                                                                            None)):
        traces = []
        for s, part in _systems(df):
            for play, rows in part.groupby("play", sort=False):
                name = f"{system_name(lang, s)}, {PLAY_WORDS[lang][play]}"
                line = _line(rows, "gap", y, s, lang, name=name, hover_x=label(lang, "skill_gap"))
                traces.append(Trace(line.x, line.y, name, color=line.color, dash=play == "book", hover=line.hover))
        panels.append(Panel(tuple(traces), xlabel=label(lang, "skill_gap"), ylabel=ylabel, x_integer=True,
                            y_range=rng))
    return Chart("played_well", TITLES[lang]["played_well"], tuple(panels), cols=2, caption=caption, lang=lang)


CHARTS = {f.__name__: f for f in (success_curves, success_absolute, worth, swing, outcome_distributions,
                                    dice_families, skill_gap, rounds, lethality, damage, variant_effects,
                                    policy_effects, crowd, lanchester, played_well)}
"""Every figure by name."""
