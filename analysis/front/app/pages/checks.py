"""Checks: one exact check, its outcome distribution (exactly / at least / at most) and the success curve.

>>> res = compute({"system": "tristat", "c.target": "7"})
>>> round(res.check.p_success, 6), res.curve.value_name
(0.583333, 'target')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from analysis.engine.results import assumptions_echo, house_rules_echo
from analysis.front.app import views
from analysis.front.app.controls import check_panel, rules_panel, select, system_select
from analysis.front.app.model import args_of, command, rules_of, system_of
from analysis.front.app.text import field_label, outcome_name, system_name, t
from analysis.tools.worth import worth

KEYS = ("lang", "system", "show", "r.", "c.")
SHOWS = ("exactly", "at_least", "at_most")


@dataclass(frozen=True)
class Result:
    system: str
    check: Any
    curve: Any


def controls(state: Mapping[str, str], lang: str) -> list[Any]:
    system = system_of(state)
    shows = [(s, t(lang, s)) for s in SHOWS]
    return [system_select("system", state, lang), check_panel(system, state, "c", lang),
            select("show", shows, state.get("show", SHOWS[0]), SHOWS[0], t(lang, "show")),
            *rules_panel(system, state, "r", lang)]


def compute(state: Mapping[str, str]) -> Result:
    system = system_of(state)
    rules, args = rules_of(system, state), args_of(system, state)
    return Result(system.id, system.check(rules, args), worth(system, rules, args))


def distribution_table(dist: Any) -> pd.DataFrame:
    """value, P(exactly), P(at least), P(at most) over the represented values."""
    d = dist.to_dict()
    values = np.array(list(d), dtype=np.int64)
    return pd.DataFrame({"value": values, "exactly": list(d.values()),
                         "at_least": dist.total() - dist.cdf(values - 1), "at_most": dist.cdf(values)})


def view(res: Result, state: Mapping[str, str], lang: str) -> tuple[list[Any], dict[str, pd.DataFrame]]:
    c, sid = res.check, res.system
    items = [views.card(lang, "p_success", t(lang, "p_success"), c.p_success)]
    if c.p_critical is not None:
        items.append(views.card(lang, "p_critical", t(lang, "p_critical"), c.p_critical))
    if c.p_fumble is not None:
        items.append(views.card(lang, "p_fumble", t(lang, "p_fumble"), c.p_fumble))
    items += [views.card(lang, k, field_label(lang, k, sid), v) for k, v in c.extra.items()]
    if c.residual:
        items.append(views.card(lang, "residual", t(lang, "residual"), c.residual))
    show = state.get("show", SHOWS[0])
    show = show if show in SHOWS else SHOWS[0]
    dist = distribution_table(c.distribution)
    outcome = outcome_name(lang, sid)
    fig = views.Figure(f"{t(lang, 'distribution')}: {outcome} ({t(lang, show)})", outcome, t(lang, "probability"))
    fig.bar(dist["value"], dist[show], t(lang, show))
    fig.integer_x()
    curve = pd.DataFrame([dict(r) for r in res.curve.rows])[["value", "modifier", "p_success", "delta_p"]]
    value_name = field_label(lang, res.curve.value_name, sid)
    fig2 = views.Figure(f"{t(lang, 'curve')}: {system_name(lang, sid)}", value_name, t(lang, "p_success"))
    fig2.line(curve["value"], curve["p_success"], t(lang, "p_success"))
    here = c.params[res.curve.value_name]
    if curve["value"].min() <= here <= curve["value"].max():
        fig2.vline(here, f"{value_name} {here}")
    fig2.integer_x()
    shown_dist = dist.rename(columns={"value": outcome, **{s: t(lang, s) for s in SHOWS}})
    shown_curve = curve.rename(columns={"value": value_name, "modifier": t(lang, "modifier"),
                                        "p_success": t(lang, "p_success"), "delta_p": "ΔP(+1)"})
    body = [
        views.cards(items),
        views.row([views.graph(fig, "distribution"), views.graph(fig2, "curve")]),
        views.row([views.table("distribution", shown_dist, lang, t(lang, "distribution")),
                  views.table("curve", shown_curve, lang, t(lang, "curve"))]),
        views.echo(lang, sid, c.variants, house_rules_echo(sid, c.variants), command("check", state),
                   assumptions=assumptions_echo(sid, c.variants)),
    ]
    return body, {"distribution": shown_dist, "curve": shown_curve}

