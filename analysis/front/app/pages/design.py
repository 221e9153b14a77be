"""Design: search fighter parameters for the duel nearest a wished mean rounds, P(death) and P(A wins).

The search is :func:`analysis.tools.design.design`; the page times one duel first to estimate the whole search (the
progress bar's scale) and refuses a search estimated above :data:`BUDGET` seconds, naming the command line instead.

>>> res = compute({"system": "kurs", "a": "maximus", "b": "tiberius", "vary": "a.weapon=0..2", "rounds": "3",
...                "lethality": "0.3"})
>>> res.settings, len(res.best) > 0
(3, True)
"""

from __future__ import annotations

import math
import time
from typing import Any, Mapping

import pandas as pd
from dash import dcc, html

from analysis.base.params import DicelabError
from analysis.engine.results import house_rules_echo
from analysis.fights.budget import exact_duel
from analysis.front.app import views
from analysis.front.app.controls import fid, fighter_panel, rules_panel, section, system_select
from analysis.front.app.jobs import report_estimate
from analysis.front.app.model import command, fighter_of, rules_of, system_of, typed
from analysis.front.app.text import number, t
from analysis.tools.design import design, parse_vary

KEYS = ("lang", "system", "vary", "rounds", "lethality", "pwin", "top", "a", "b", "r.", "a.", "b.")
DEFAULTS = {"rounds": "4", "lethality": "0.3", "pwin": "", "top": "5"}
CASTS = {"rounds": float, "lethality": float, "pwin": float, "top": int}
BUDGET = 300.0
"""The longest search the app starts, in estimated seconds (``dicelab design`` runs longer ones)."""
CLOSE = 1.0
"""A best setting farther than this (in distance units) does not come close to the wish."""


def default_vary(system: Any) -> str:
    """A small first search: A's first combat skill over 0..4."""
    return f"a.{system.combat_skills[0]}=0..4"


def box(key: str, value: str, default: str, title: str) -> html.Div:
    """A text field read when the designer presses Enter or leaves it (each change starts a search)."""
    return html.Div([html.Label(title), dcc.Input(id=fid(key, default), type="text", value=value, debounce=True,
                                                  className="input", spellCheck=False)], className="field")


def controls(state: Mapping[str, str], lang: str) -> list[Any]:
    system = system_of(state)
    vary = default_vary(system)
    wish = [box("vary", state.get("vary", vary), vary, t(lang, "vary")),
            *(box(k, state.get(k, DEFAULTS[k]), DEFAULTS[k], t(lang, label)) for k, label in
              (("rounds", "wish_rounds"), ("lethality", "wish_lethality"), ("pwin", "wish_pwin"), ("top", "top")))]
    return [system_select("system", state, lang), section(t(lang, "design"), wish),
            fighter_panel(system, state, "a", lang), fighter_panel(system, state, "b", lang),
            *rules_panel(system, state, "r", lang, ("variant", "option", "constant"))]


def wish(state: Mapping[str, str]) -> dict[str, Any]:
    """The search's inputs as the library takes them (numbers as typed, so it names a bad one)."""
    return {k: typed(state.get(k, DEFAULTS[k]) or None, CASTS[k]) for k in DEFAULTS}


def compute(state: Mapping[str, str]) -> Any:
    system = system_of(state)
    rules, a, b = rules_of(system, state), fighter_of(system, state, "a"), fighter_of(system, state, "b")
    vary = state.get("vary", default_vary(system))
    settings = math.prod(v.hi - v.lo + 1 for v in parse_vary(vary))
    start = time.perf_counter()
    exact_duel(system, rules, a, b)
    seconds = settings * (time.perf_counter() - start)
    report_estimate(seconds)
    if seconds > BUDGET:
        raise DicelabError(f"design: {settings:,} settings take about {seconds:,.0f} s here; allowed: at most "
                           f"{BUDGET:.0f} s (narrow the ranges, or run it on the command line: dicelab design)")
    w = wish(state)
    return design(system, rules, a, b, vary, w["rounds"], w["lethality"], w["pwin"],
                  w["top"] if w["top"] is not None else 5, workers=1)


def view(res: Any, state: Mapping[str, str], lang: str) -> tuple[list[Any], dict[str, pd.DataFrame]]:
    rows = [{t(lang, "setting"): ", ".join(f"{k}={v}" for k, v in p.setting.items()),
             t(lang, "mean_rounds"): p.figures.mean_rounds, t(lang, "p_death"): p.figures.p_death,
             t(lang, "p_a_wins"): p.figures.p_a_wins, t(lang, "p_b_wins"): p.figures.p_b_wins,
             t(lang, "distance"): p.distance} for p in res.best]
    table = pd.DataFrame(rows)
    best = res.best[0]
    body: list[Any] = [html.H3(f"{t(lang, 'design')}: {res.a['name']} (A) vs {res.b['name']} (B), "
                               f"{res.settings} {t(lang, 'settings')} ({', '.join(res.vary)})")]
    if best.distance > CLOSE:
        body.append(views.note(t(lang, "nothing_close", d=best.distance), "note nothing-close"))
    body.append(views.cards([
        views.card(lang, "best", t(lang, "setting"), None, shown=", ".join(f"{k}={v}" for k, v in best.setting.items())),
        views.card(lang, "best_rounds", t(lang, "mean_rounds"), best.figures.mean_rounds,
                   shown=number(lang, best.figures.mean_rounds, 3)),
        views.card(lang, "best_p_death", t(lang, "p_death"), best.figures.p_death),
        views.card(lang, "best_p_a_wins", t(lang, "p_a_wins"), best.figures.p_a_wins),
        views.card(lang, "best_distance", t(lang, "distance"), best.distance, shown=number(lang, best.distance, 3)),
    ]))
    body.append(views.table("design", table, lang, t(lang, "design")))
    body.append(html.Div(res.distance, className="why"))
    if res.skipped:
        body.append(views.note(f"{t(lang, 'skipped')} {len(res.skipped)}: {res.skipped[0]}"))
    w = {k: v for k, v in ((k, state.get(k, DEFAULTS[k])) for k in DEFAULTS) if v}
    extra = {"vary": state.get("vary", default_vary(system_of(state))), **{k.replace("pwin", "p-win"): v
                                                                          for k, v in w.items()}}
    body.append(views.echo(lang, res.system, res.variants, house_rules_echo(res.system, res.variants),
                           command("design", state, extra), assumptions=res.assumptions))
    return body, {"design": table}
