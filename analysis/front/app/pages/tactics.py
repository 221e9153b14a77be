"""Tactics: a duel's decisions solved as a game, as ``dicelab tactics`` solves them: the book's play, A's best
response to it and the equilibrium; each decision's share and worth, the dominated policies and a simple rule.

>>> res = compute({"system": "tristat", "a": "novice", "b": "novice"})
>>> sorted(res.tactics["book"]) == sorted(res.tactics["equilibrium"]), res.tactics["dominated"]
(True, ['stance=total_defence'])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import pandas as pd
from dash import html

from analysis.engine.results import house_rules_echo
from analysis.fights.budget import check_tactics
from analysis.fights.tactics import analyse, require_decisions
from analysis.front.app import views
from analysis.front.app.controls import fighter_panel, rules_panel, system_select
from analysis.front.app.model import command, fighter_of, rules_of, system_of
from analysis.front.app.text import number, t

KEYS = ("lang", "system", "a", "b", "r.", "a.", "b.")
PLAYS = (("book", "play_book"), ("best_response", "play_best"), ("equilibrium", "play_equilibrium"))
"""The three plays in the order shown, with their text keys."""


@dataclass(frozen=True)
class Result:
    system: str
    tactics: Mapping[str, Any]
    variants: Mapping[str, Any]
    a: str
    b: str
    cli: str


def controls(state: Mapping[str, str], lang: str) -> list[Any]:
    system = system_of(state)
    return [system_select("system", state, lang), fighter_panel(system, state, "a", lang),
            fighter_panel(system, state, "b", lang), *rules_panel(system, state, "r", lang, ("variant", "option",
                                                                                           "constant"))]


def compute(state: Mapping[str, str]) -> Result:
    """The decision game of the page's duel, solved (a system without decisions: the CLI's one-line refusal)."""
    system = system_of(state)
    require_decisions(system)
    rules, a, b = rules_of(system, state), fighter_of(system, state, "a"), fighter_of(system, state, "b")
    check_tactics(system, rules, a, b)
    res = analyse(system.tactics(rules, a, b)).to_dict()
    return Result(system.id, res, rules.to_dict(), a.name, b.name, command("tactics", state))


def plays_table(d: Mapping[str, Any], lang: str) -> pd.DataFrame:
    """The value and the duel's figures under each play."""
    names = ("value", "p_a_wins", "p_b_wins", "p_both_out", "mean_rounds")
    return pd.DataFrame([{t(lang, "play"): t(lang, key), **{t(lang, n): d[play][n] for n in names}}
                         for play, key in PLAYS])


def decisions_table(d: Mapping[str, Any], lang: str) -> pd.DataFrame:
    """Each decision point: its side, how often its option is taken at the equilibrium and what it is worth."""
    return pd.DataFrame([{t(lang, "decision"): x["name"] if lang == "en" else f"«{x['name']}»",
                          t(lang, "side"): x["side"].upper(),
                          t(lang, "share_taken"): x["share_taken"], t(lang, "worth"): x["worth"]}
                         for x in d["decisions"]])


def view(res: Result, state: Mapping[str, str], lang: str) -> tuple[list[Any], dict[str, pd.DataFrame]]:
    d = res.tactics
    body: list[Any] = [html.H3(f"{t(lang, 'tactics')}: " + t(lang, "duel_of", a=res.a, b=res.b))]
    body.append(views.cards([views.card(lang, f"p_a_wins_{play}", f"{t(lang, 'p_a_wins')}: {t(lang, key)}",
                                        d[play]["p_a_wins"]) for play, key in PLAYS]))
    gain = d["equilibrium"]["value"] - d["book"]["value"]
    rule = d["simple_rule"] or {}
    body.append(views.cards([
        views.card(lang, "value_equilibrium", t(lang, "game_value"), d["equilibrium"]["value"],
                   shown=number(lang, d["equilibrium"]["value"], 4)),
        views.card(lang, "gain", t(lang, "gain"), gain, shown=number(lang, gain, 4)),
        views.card(lang, "best_gain", t(lang, "best_gain"), d["best_response"]["value"] - d["book"]["value"],
                   shown=number(lang, d["best_response"]["value"] - d["book"]["value"], 4)),
        views.card(lang, "rule_share", t(lang, "rule_share"), rule.get("share_of_gain"),
                   shown=None if rule.get("share_of_gain") is None else number(lang, rule["share_of_gain"], 3)),
    ]))
    body.append(html.Div([html.B(f"{t(lang, 'simple_rule')}: "), html.Code(rule.get("text", ""), id="out-rule")],
                         className="why"))
    dominated = ", ".join(d["dominated"]) or t(lang, "none_dominated")
    body.append(views.note(f"{t(lang, 'dominated')}: {dominated}", "note dominated"))
    plays = plays_table(d, lang)
    fig = views.Figure(t(lang, "tactics"), t(lang, "play"), t(lang, "probability"), lang=lang)
    names = [t(lang, key) for _, key in PLAYS]
    for n in ("p_a_wins", "p_b_wins", "p_both_out"):
        fig.bar(names, [d[play][n] for play, _ in PLAYS], t(lang, n))
    fig.y_range(0.0, 1.0)
    decisions = decisions_table(d, lang)
    body.append(views.row([views.graph(fig, "plays"), views.table("plays", plays, lang, t(lang, "plays"))]))
    body.append(views.table("decisions", decisions, lang, t(lang, "decisions")))
    body.append(html.Div([t(lang, "tactics_model", tol=d["tolerance"]), html.Code(d["decisions_model"])],
                         className="why"))
    body.append(views.echo(lang, res.system, res.variants, house_rules_echo(res.system, res.variants), res.cli))
    return body, {"plays": plays, "decisions": decisions}
