"""Compare: two setups side by side — two rule sets, two pairings, or two systems matched as the report matches them.

Two systems are matched the way the report does it (:mod:`analysis.tools.compare`, :mod:`analysis.fights.lethality`): checks
aligned at each system's 50% point, and each system's ``trained_armed`` fighter against itself with A's combat
skills raised by a gap.

>>> res = compute({"system": "tun", "r2.success_rule": "le"})
>>> res.mode, res.duels[0]["p_a_wins"] != res.duels[1]["p_a_wins"]
('variants', True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import pandas as pd
from dash import html

from analysis.base.params import DicelabError
from analysis.engine.combat import describe_fighter, rests_on
from analysis.fights.budget import exact_duel
from analysis.fights.lethality import GAPS, duel_rules, skill_gap
from analysis.fights.setup import Setup
from analysis.front.app import views
from analysis.front.app.controls import check_panel, fighter_panel, rules_panel, section, select, system_select
from analysis.front.app.model import args_of, as_first, command, fighter_of, rules_of, system_of
from analysis.front.app.text import field_label, system_name, t
from analysis.tools.compare import success_curves
from analysis.tools.worth import worth

KEYS = ("lang", "mode", "system", "system2", "a", "b", "a2", "b2", "r.", "r2.", "c.", "a.", "b.", "a2.", "b2.")
MODES = ("variants", "fighters", "systems")
DEFAULT_SYSTEM2 = "kurs"
DUEL_FIELDS = ("p_a_wins", "p_b_wins", "p_both_out", "p_stalemate", "p_a_out", "p_b_out", "p_a_killed",
               "p_b_killed", "mean_rounds", "median_rounds", "states")


@dataclass(frozen=True)
class Result:
    mode: str
    systems: tuple[str, str]
    duels: tuple[Mapping[str, Any], Mapping[str, Any]] = ({}, {})
    curves: tuple[Any, Any] | None = None
    aligned: pd.DataFrame | None = None
    gaps: pd.DataFrame | None = None
    cli: tuple[str, str] = ("", "")
    assumed: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Two systems: the lab's assumptions each one's checks and matched duels rest on."""


def mode_of(state: Mapping[str, str]) -> str:
    mode = state.get("mode", MODES[0])
    return mode if mode in MODES else MODES[0]


def controls(state: Mapping[str, str], lang: str) -> list[Any]:
    mode = mode_of(state)
    system = system_of(state)
    out: list[Any] = [select("mode", [(m, t(lang, f"mode_{m}")) for m in MODES], mode, MODES[0], t(lang, "mode"))]
    if mode == "systems":
        second = system_of(state, "system2") if "system2" in state else system_of({"system": DEFAULT_SYSTEM2})
        return [*out, section(t(lang, "setup1"), [system_select("system", state, lang)]),
                *rules_panel(system, state, "r", lang, ("variant", "option", "constant")),
                section(t(lang, "setup2"), [system_select("system2", state, lang, DEFAULT_SYSTEM2)]),
                *rules_panel(second, state, "r2", lang, ("variant", "option", "constant"))]
    out.append(system_select("system", state, lang))
    if mode == "variants":
        return [*out, check_panel(system, state, "c", lang), fighter_panel(system, state, "a", lang),
                fighter_panel(system, state, "b", lang),
                html.H3(t(lang, "setup1")), *rules_panel(system, state, "r", lang, ("variant", "option", "constant")),
                html.H3(t(lang, "setup2")), *rules_panel(system, state, "r2", lang, ("variant", "option", "constant"))]
    return [*out, *rules_panel(system, state, "r", lang, ("variant", "option", "constant")),
            html.H3(t(lang, "setup1")), fighter_panel(system, state, "a", lang), fighter_panel(system, state, "b", lang),
            html.H3(t(lang, "setup2")), fighter_panel(system, state, "a2", lang), fighter_panel(system, state, "b2", lang)]


def setups(state: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """Both setups, each as a state read like a single one (the second's keys renamed to the first's)."""
    mode = mode_of(state)
    if mode == "systems":
        return dict(state), as_first({"system2": DEFAULT_SYSTEM2, **state}, {"system2": "system", "r2": "r"})
    return dict(state), as_first(state, {"r2": "r"} if mode == "variants" else {"a2": "a", "b2": "b"})


def labelled(i: int, fn: Any) -> Any:
    """A setup's result; the second's messages say which setup they are about."""
    try:
        return fn()
    except DicelabError as err:
        if i == 1:
            raise
        raise DicelabError(f"setup 2: {err}") from None


def compute(state: Mapping[str, str]) -> Result:
    mode = mode_of(state)
    pair = setups(state)
    systems = [labelled(i, lambda s=s: system_of(s)) for i, s in enumerate(pair, 1)]
    rules = [labelled(i, lambda s=s, y=y: rules_of(y, s)) for i, (s, y) in enumerate(zip(pair, systems), 1)]
    ids = (systems[0].id, systems[1].id)
    if mode == "systems":
        by_system = dict(zip(ids, rules)) if ids[0] != ids[1] else {ids[0]: rules[0]}
        setup = Setup.build(rules=by_system)
        aligned = success_curves(setup)
        gaps = pd.concat([skill_gap(s, setup, gaps=GAPS) for s in by_system], ignore_index=True)
        assumed = {s: rests_on(s, duel_rules(r).to_dict(), *(describe_fighter(f, r) for f in setup.fighters(s)))
                   for s, r in by_system.items()}
        return Result(mode, ids, aligned=aligned[aligned["system"].isin(ids)], gaps=gaps, assumed=assumed)
    system = systems[0]
    duels = tuple(labelled(i, lambda s=s, r=r: exact_duel(system, r, fighter_of(system, s, "a"),
                                                           fighter_of(system, s, "b")).to_dict())
                  for i, (s, r) in enumerate(zip(pair, rules), 1))
    curves = None
    if mode == "variants":
        args = args_of(system, state)
        curves = (worth(system, rules[0], args), worth(system, rules[1], args))
    return Result(mode, ids, duels, curves, cli=(command("duel", pair[0]), command("duel", pair[1])))


def side_by_side(duels: tuple[Mapping[str, Any], Mapping[str, Any]], lang: str) -> pd.DataFrame:
    """The duel figures of both setups and their difference (``None`` where a level is not defined)."""
    rows = []
    for name in DUEL_FIELDS:
        x, y = duels[0].get(name), duels[1].get(name)
        diff = y - x if isinstance(x, (int, float)) and isinstance(y, (int, float)) else None
        rows.append({"quantity": name, t(lang, "setup1"): x, t(lang, "setup2"): y, t(lang, "difference"): diff})
    return pd.DataFrame(rows, dtype=object)  # counts stay integers beside the probabilities


def view(res: Result, state: Mapping[str, str], lang: str) -> tuple[list[Any], dict[str, pd.DataFrame]]:
    if res.mode == "systems":
        return systems_view(res, lang)
    d1, d2 = res.duels
    body: list[Any] = [html.H3(f"{t(lang, 'matched_duel')}: {t(lang, 'mode_' + res.mode)}")]
    for i, d in enumerate(res.duels, 1):
        body.append(html.Div([html.B(f"{t(lang, f'setup{i}')}: "),
                              t(lang, "duel_of", a=d["a"]["name"], b=d["b"]["name"])]))
    body.append(views.cards([views.card(lang, f"p_a_wins_{i}", f"{t(lang, 'p_a_wins')} · {t(lang, f'setup{i}')}",
                                        d["p_a_wins"]) for i, d in enumerate(res.duels, 1)]))
    table = side_by_side(res.duels, lang)
    fig = views.Figure(t(lang, "rounds"), t(lang, "round"), t(lang, "probability"))
    for i, d in enumerate(res.duels, 1):
        rounds = {int(k): v for k, v in d["rounds"].items()}
        fig.bar(list(rounds), list(rounds.values()), t(lang, f"setup{i}"))
    fig.integer_x()
    body.append(views.row([views.table("duel", table, lang, t(lang, "matched_duel")), views.graph(fig, "rounds")]))
    tables = {"duel": table}
    if res.curves is not None:
        w1, w2 = res.curves
        value = field_label(lang, w1.value_name, res.systems[0])
        c1, c2 = (pd.DataFrame([dict(r) for r in w.rows]).set_index("value")["p_success"] for w in res.curves)
        curve = pd.DataFrame({value: c1.index, t(lang, "setup1"): c1.values,
                              t(lang, "setup2"): c2.reindex(c1.index).values})
        curve[t(lang, "difference")] = curve[t(lang, "setup2")] - curve[t(lang, "setup1")]
        fig2 = views.Figure(t(lang, "check_table"), value, t(lang, "p_success"))
        for i in (1, 2):
            fig2.line(curve[value], curve[t(lang, f"setup{i}")], t(lang, f"setup{i}"))
        fig2.integer_x()
        body.append(views.row([views.graph(fig2, "checks"), views.table("checks", curve, lang, t(lang, "check_table"))]))
        tables["checks"] = curve
    for i, (d, cli) in enumerate(zip(res.duels, res.cli), 1):
        body += [html.H4(t(lang, f"setup{i}")),
                 views.echo(lang, res.systems[0], d["variants"], d["house_rules"], cli, assumptions=d["assumptions"])]
    return body, tables


def systems_view(res: Result, lang: str) -> tuple[list[Any], dict[str, pd.DataFrame]]:
    """Two systems: success curves on the modifier from each one's 50% point; P(A wins) against a skill gap."""
    fig = views.Figure(t(lang, "curve"), t(lang, "fifty"), t(lang, "p_success"))
    for sid, part in res.aligned.groupby("system", sort=False):
        fig.line(part["modifier"], part["p_success"], system_name(lang, sid))
    fig2 = views.Figure(t(lang, "skill_gap"), t(lang, "gap"), t(lang, "p_a_wins"))
    for sid, part in res.gaps.groupby("system", sort=False):
        fig2.line(part["gap"], part["p_a_wins"], system_name(lang, sid))
    fig2.integer_x()
    gaps = res.gaps[["system", "gap", "hit_edge", "p_a_wins", "p_b_wins", "p_death", "p_incap", "mean_rounds"]]
    aligned = res.aligned[["system", "value", "p_success", "modifier"]]
    cards = [views.card(lang, f"p_a_wins_{sid}", f"{system_name(lang, sid)}: {t(lang, 'p_a_wins')} (gap 0)",
                        float(part["p_a_wins"].iloc[0])) for sid, part in res.gaps.groupby("system", sort=False)]
    body = [html.H3(" · ".join(system_name(lang, s) for s in dict.fromkeys(res.systems))), views.cards(cards),
            views.row([views.graph(fig, "aligned"), views.graph(fig2, "gaps")]),
            views.row([views.table("gaps", gaps, lang, t(lang, "skill_gap")),
                       views.table("aligned", aligned, lang, t(lang, "curve"))])]
    body += [html.Div([html.B(f"{system_name(lang, sid)} · "), views.assumed(lang, a, f"assumptions-{sid}")],
                      className="echo") for sid, a in res.assumed.items() if a]
    return body, {"gaps": gaps, "aligned": aligned}
