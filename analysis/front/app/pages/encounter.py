"""Encounter: how many of B make a fair fight against side A, as ``dicelab encounter`` answers it: P(side A wins)
over 1 .. max copies of B, each count exact where the group chain fits the budget, else Monte Carlo with its
interval; sides written as on the command line (``2*trained_armed,veteran``).

>>> res = compute({"system": "tun", "sa": "trained_armed", "sb": "novice_armed", "max": "2"})
>>> [pt.method for pt in res.encounter.curve], res.encounter.fair_count
(['exact', 'exact'], None)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import pandas as pd
from dash import dcc, html

from analysis.engine.results import house_rules_echo
from analysis.fights.sides import parse_side
from analysis.front.app import views
from analysis.front.app.controls import fid, rules_panel, section, system_select
from analysis.front.app.model import command, rules_of, system_of, typed
from analysis.front.app.state import on_screen
from analysis.front.app.text import number, t
from analysis.tools.encounter import Encounter, encounter

KEYS = ("lang", "system", "sa", "sb", "p", "max", "n", "seed", "r.")
DEFAULTS = {"sa": "trained_armed", "sb": "novice_armed", "p": "0.5", "max": "5", "n": "20000", "seed": "1"}
CASTS = {"p": float, "max": int, "n": int, "seed": int}


@dataclass(frozen=True)
class Result:
    system: str
    encounter: Encounter
    cli: str


def box(key: str, state: Mapping[str, str], title: str, lang: str) -> html.Div:
    """A text field read on Enter or when it loses focus."""
    value = state.get(key, DEFAULTS[key])
    return html.Div([html.Label(title), dcc.Input(id=fid(key, DEFAULTS[key]), type="text", debounce=True,
                                                  value=on_screen(lang, key, value), className="input",
                                                  spellCheck=False)], className="field")


def controls(state: Mapping[str, str], lang: str) -> list[Any]:
    system = system_of(state)
    fields = [box("sa", state, t(lang, "side_a"), lang), box("sb", state, t(lang, "unit_b"), lang),
              box("p", state, t(lang, "fair_p"), lang), box("max", state, t(lang, "max_count"), lang),
              box("n", state, t(lang, "n"), lang), box("seed", state, t(lang, "seed"), lang)]
    return [system_select("system", state, lang), section(t(lang, "encounter"), fields),
            *rules_panel(system, state, "r", lang, ("variant", "option", "constant"))]


def compute(state: Mapping[str, str]) -> Result:
    """The encounter curve (the library's ``encounter``; a bad side or number: its one-line message)."""
    system = system_of(state)
    rules = rules_of(system, state)
    side_a = parse_side(system, state.get("sa", DEFAULTS["sa"]), "side A")
    unit_b = parse_side(system, state.get("sb", DEFAULTS["sb"]), "side B")
    w = {k: typed(state.get(k, DEFAULTS[k]), CASTS[k], k == "p") for k in CASTS}
    res = encounter(system, rules, side_a, unit_b, p=w["p"], max_count=w["max"], n=w["n"], seed=w["seed"],
                    workers=1)
    extra = {"a": state.get("sa", DEFAULTS["sa"]), "b": state.get("sb", DEFAULTS["sb"]),
             **{k: str(state.get(k, DEFAULTS[k])) for k in ("p", "max", "n", "seed")}}
    return Result(system.id, res, command("encounter", state, extra))


def view(res: Result, state: Mapping[str, str], lang: str) -> tuple[list[Any], dict[str, pd.DataFrame]]:
    e = res.encounter
    a = ", ".join(f["name"] for f in e.side_a)
    b = ", ".join(f["name"] for f in e.unit_b)
    fair = e.fair_count
    body: list[Any] = [html.H3(f"{t(lang, 'encounter')}: " + t(lang, "encounter_of", a=a, b=b)),
                       views.cards([views.card(lang, "fair_count", t(lang, "fair_count", p=number(lang, e.p, 2)),
                                               fair, shown=str(fair) if fair is not None else "—"),
                                    views.card(lang, "p_a_wins_1", f"{t(lang, 'p_a_wins')}: 1 × B",
                                               e.curve[0].p_a_wins)])]
    if fair is None:
        body.append(views.note(t(lang, "no_fair", p=number(lang, e.p, 2), max=e.curve[-1].count)))
    table = pd.DataFrame([{t(lang, "count"): pt.count, t(lang, "p_a_wins"): pt.p_a_wins,
                           t(lang, "p_b_wins"): pt.p_b_wins, t(lang, "method"): t(lang, pt.method),
                           t(lang, "col_se"): pt.se_p_a_wins} for pt in e.curve])
    fig = views.Figure(t(lang, "encounter"), t(lang, "count"), t(lang, "p_a_wins"), lang=lang)
    fig.line([pt.count for pt in e.curve], [pt.p_a_wins for pt in e.curve], t(lang, "p_a_wins"))
    fig.integer_x()
    fig.y_range(0.0, 1.0)
    body.append(views.row([views.graph(fig, "encounter"), views.table("encounter", table, lang,
                                                                       t(lang, "encounter"))]))
    body.append(views.echo(lang, res.system, e.variants, house_rules_echo(res.system, e.variants), res.cli,
                           assumptions=e.assumptions))
    return body, {"encounter": table}
