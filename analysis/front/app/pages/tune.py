"""Tune: the modifier that reaches a wished P(success), and a difficulty translated into another system.

>>> res = compute({"system": "tristat", "c.target": "7", "p": "0.75", "to": "kurs"})
>>> res.tune.modifier, res.equiv.value
(2, 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import pandas as pd
from dash import html

from analysis.base.params import DicelabError
from analysis.engine.results import assumptions_echo, house_rules_echo
from analysis.front.app import views
from analysis.front.app.controls import check_panel, rules_panel, section, system_select
from analysis.front.app.model import args_of, command, rules_of, system_of, typed
from analysis.front.app.text import field_label, system_name, t
from analysis.tools.equiv import equiv, equiv_table
from analysis.tools.tune import tune, tune_table

KEYS = ("lang", "system", "p", "to", "r.", "c.", "tr.", "tc.")
DEFAULT_P = "0.75"
DEFAULT_TO = "kurs"


@dataclass(frozen=True)
class Result:
    system: str
    target: str
    tune: Any
    table: Any
    equiv: Any
    equiv_table: Any


def controls(state: Mapping[str, str], lang: str) -> list[Any]:
    from dash import dcc

    from analysis.front.app.controls import fid

    system = system_of(state)
    target = system_of(state, "to") if "to" in state else system_of({"system": DEFAULT_TO})
    wish = html.Div([html.Label(t(lang, "wish_p")),
                     dcc.Input(id=fid("p", DEFAULT_P), type="text", value=state.get("p", DEFAULT_P),
                               inputMode="decimal", className="input")], className="field")
    return [system_select("system", state, lang), check_panel(system, state, "c", lang),
            section(t(lang, "tune_result"), [wish]), *rules_panel(system, state, "r", lang),
            section(t(lang, "equiv"), [system_select("to", state, lang, DEFAULT_TO)]),
            check_panel(target, state, "tc", lang), *rules_panel(target, state, "tr", lang)]


def attempt(fn: Callable[[], Any]) -> Any:
    """A part of the page: its result, or the message saying why there is none."""
    try:
        return fn()
    except DicelabError as err:
        return str(err)


def compute(state: Mapping[str, str]) -> Result:
    system = system_of(state)
    rules, args = rules_of(system, state), args_of(system, state)
    target = system_of(state, "to") if "to" in state else system_of({"system": DEFAULT_TO})
    t_rules, t_args = rules_of(target, state, "tr"), args_of(target, state, "tc")
    p = typed(state.get("p", DEFAULT_P), float)
    return Result(system.id, target.id, attempt(lambda: tune(system, rules, args, p)), tune_table(system, rules, args),
                  equiv(system, rules, args, target, t_rules, t_args),
                  attempt(lambda: equiv_table(system, rules, args, target, t_rules, t_args)))


def view(res: Result, state: Mapping[str, str], lang: str) -> tuple[list[Any], dict[str, pd.DataFrame]]:
    sid, tid = res.system, res.target
    value = field_label(lang, res.table.value_name, sid)
    body: list[Any] = [html.H3(t(lang, "tune_result"))]
    if isinstance(res.tune, str):
        body.append(views.error(res.tune, lang))
    else:
        r = res.tune
        body.append(views.cards([
            views.card(lang, "modifier", t(lang, "modifier"), r.modifier, shown=f"{r.modifier:+d}"),
            views.card(lang, "value", value, r.value, shown=str(r.value)),
            views.card(lang, "p_at_modifier", t(lang, "p_at"), r.p_at_modifier),
            views.card(lang, "p_below", t(lang, "p_below"), r.p_below),
        ]))
        body += [views.note(n) for n in r.notes]
    rows = pd.DataFrame([dict(r) for r in res.table.rows])
    shown_table = pd.DataFrame({t(lang, "p_success") + " ≥": rows["p"], t(lang, "modifier"): rows["modifier"],
                                value: rows["value"], t(lang, "p_at"): rows["p_at_modifier"]})
    shown_table = shown_table.astype(object).where(shown_table.notna(), None)
    fig = views.Figure(t(lang, "tune_table"), t(lang, "p_success"), t(lang, "modifier"))
    fig.line(rows["p"], rows["modifier"], t(lang, "modifier"), step=True)
    e = res.equiv
    to_value = field_label(lang, e.value_name, tid)
    body += [views.row([views.graph(fig, "tune"), views.table("tune", shown_table, lang, t(lang, "tune_table"),
                                                              formats={shown_table.columns[0]: "pct"})]),
             html.H3(f"{t(lang, 'equiv')}: {system_name(lang, sid)} → {system_name(lang, tid)}"),
             views.cards([views.card(lang, "p_from", t(lang, "p_from"), e.p_from),
                          views.card(lang, "equiv_value", f"{system_name(lang, tid)}: {to_value}", e.value,
                                     shown=str(e.value)),
                          views.card(lang, "p_to", t(lang, "p_to"), e.p_to)])]
    tables = {"tune": shown_table}
    if isinstance(res.equiv_table, str):
        body.append(views.error(res.equiv_table, lang))
    else:
        et = pd.DataFrame([dict(r) for r in res.equiv_table.rows])
        shown_equiv = pd.DataFrame({f"{system_name(lang, sid)}: {value}": et["from"], t(lang, "p_from"): et["p_from"],
                                    f"{system_name(lang, tid)}: {to_value}": et["value"], t(lang, "p_to"): et["p_to"]})
        body.append(views.table("equiv", shown_equiv, lang, t(lang, "equiv_table")))
        tables["equiv"] = shown_equiv
    variants = res.table.variants
    body.append(views.echo(lang, sid, variants, house_rules_echo(sid, variants),
                           command("tune", state, {"p": state.get("p", DEFAULT_P)}),
                           assumptions=assumptions_echo(sid, variants)))
    return body, tables
