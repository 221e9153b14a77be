"""Duel: two fighters, exact by default (an absorbing Markov chain), Monte Carlo on request with its interval.

>>> res = compute({"system": "kurs", "a": "maximus", "b": "tiberius"})
>>> from analysis.fights.fighters import load_fighter
>>> from analysis import get_system
>>> kurs = get_system("kurs")
>>> res.duel["p_a_wins"] == kurs.duel(kurs.rules(), load_fighter(kurs, "maximus"),
...                                   load_fighter(kurs, "tiberius")).to_dict()["p_a_wins"]
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import pandas as pd
from dash import html

from analysis.base.params import ParamError
from analysis.engine.combat import LEVELS
from analysis.fights.budget import exact_duel
from analysis.front.app import views
from analysis.front.app.controls import fields, fighter_panel, rules_panel, section, select, system_select
from analysis.front.app.model import command, fighter_of, rules_of, system_of, typed
from analysis.front.app.state import group
from analysis.front.app.text import number, t

KEYS = ("lang", "system", "method", "n", "seed", "model", "a", "b", "r.", "a.", "b.", "o.")
METHODS = ("exact", "mc")
MODELS = ("full", "exact")
DEFAULT_N, DEFAULT_SEED = "100000", "1"
MAX_N = 10_000_000
"""The largest simulation the app runs (about half a minute for the slowest system); the CLI takes more."""


@dataclass(frozen=True)
class Result:
    system: str
    duel: Mapping[str, Any]
    exchanges: tuple[Any, Any]
    cli: str


def mc_panel(system_id: str, state: Mapping[str, str], lang: str) -> list[Any]:
    """n, seed, model and the simulator's rule switches."""
    from dash import dcc

    from analysis.front.app.controls import fid
    from sims.api import sim_module

    def box(key: str, default: str) -> html.Div:
        return html.Div([html.Label(t(lang, key)), dcc.Input(id=fid(key, default), type="text", debounce=True,
                                                             value=state.get(key, default), className="input")],
                        className="field")

    options = sim_module(system_id).Options
    children = [box("n", DEFAULT_N), box("seed", DEFAULT_SEED),
                select("model", [(m, m) for m in MODELS], state.get("model", MODELS[0]), MODELS[0], t(lang, "model")),
                *fields("o", options.describe(), options.specs(), state, options.defaults(), lang, system_id)]
    return [section(t(lang, "mc_options"), children)]


def controls(state: Mapping[str, str], lang: str) -> list[Any]:
    system = system_of(state)
    method = state.get("method", METHODS[0])
    methods = [("exact", t(lang, "exact")), ("mc", t(lang, "mc"))]
    out = [system_select("system", state, lang), select("method", methods, method, METHODS[0], t(lang, "method"))]
    if method == "mc":
        out += mc_panel(system.id, state, lang)
    return [*out, fighter_panel(system, state, "a", lang), fighter_panel(system, state, "b", lang),
            *rules_panel(system, state, "r", lang, ("variant", "option", "constant"))]


def compute(state: Mapping[str, str]) -> Result:
    system = system_of(state)
    rules, a, b = rules_of(system, state), fighter_of(system, state, "a"), fighter_of(system, state, "b")
    exchanges = (system.exchange(rules, a, b), system.exchange(rules, b, a))
    if state.get("method", METHODS[0]) != "mc":
        return Result(system.id, exact_duel(system, rules, a, b).to_dict(), exchanges, command("duel", state))
    from sims.api import simulate_duel
    from sims.engine import check_n

    n = check_n(typed(state.get("n", DEFAULT_N)))
    if n > MAX_N:
        raise ParamError("n", n, f"at most {MAX_N:,} here (dicelab sim takes more)")
    seed = typed(state.get("seed", DEFAULT_SEED))
    model = state.get("model", MODELS[0])
    res = simulate_duel(system.id, rules, a, b, n, seed=seed, model=model, options=group(state, "o"))
    extra = {"n": str(n), "seed": str(seed), "model": model}
    return Result(system.id, res.to_dict(), exchanges, command("sim", state, extra))


def outcome_cards(d: Mapping[str, Any], lang: str) -> list[Any]:
    """P(A wins), P(B wins), P(both out), P(never ends) / P(unfinished) (P(ends at the round cap) when the system
    stops the fight there), each with its interval under Monte Carlo."""
    names = ["p_a_wins", "p_b_wins", "p_both_out", "p_stalemate" if "p_stalemate" in d else "p_unfinished"]
    capped = {names[-1]: t(lang, "p_capped", cap=d["rounds_cap"])} if "rounds_cap" in d else {}
    return [views.card(lang, n, capped.get(n) or t(lang, n), d.get(n), d.get(f"ci_{n}")) for n in names]


def level_cards(d: Mapping[str, Any], side: str, lang: str) -> list[Any]:
    """A fighter's P(out), P(dying), P(dead) and P(killed): ``not defined`` with the reason where the system lacks it."""
    out = []
    for level in (*LEVELS, "killed"):
        name = f"p_{side}_{level}"
        title = f"{side.upper()}: P({t(lang, level)})" + (f" = {d['lethal_at']}" if level == "killed" else "")
        out.append(views.card(lang, name, title, d.get(name), d.get(f"ci_{name}"), why=d["null_reasons"].get(name)))
    return out


def exchange_view(ex: Any, tag: str, lang: str) -> tuple[list[Any], pd.DataFrame]:
    """One attack: its kinds, its damage distribution, and the defender's condition after it on their track."""
    att, dfn = ex.attacker["name"], ex.defender["name"]
    derived = ex.defender.get("derived") or {}
    track = ", ".join(f"{k} {v}" for k, v in derived.items())
    kinds = [views.card(lang, f"{tag}_{k}", t(lang, k), getattr(ex, k)) for k in
             ("p_miss", "p_defended", "p_graze", "p_hit", "p_critical") if k != "p_graze" or ex.p_graze]
    dmg = ex.damage.to_dict()
    fig = views.Figure(f"{att} {t(lang, 'attacks')} {dfn}: {t(lang, 'damage')}", t(lang, "damage"),
                       t(lang, "probability"))
    fig.bar(list(dmg), list(dmg.values()))
    fig.integer_x()
    after = ex.condition_after
    fig2 = views.Figure(f"{t(lang, 'condition_after')}" + (f" ({track})" if track else ""), t(lang, "defender_track"),
                        t(lang, "probability"))
    fig2.bar([str(k) for k in after], list(after.values()))
    table = pd.DataFrame({t(lang, "damage"): list(dmg), t(lang, "probability"): list(dmg.values())})
    return [html.H4(f"{t(lang, 'exchange')}: {att} → {dfn}"), views.cards(kinds),
            views.row([views.graph(fig, f"damage-{tag}"), views.graph(fig2, f"after-{tag}")])], table


def view(res: Result, state: Mapping[str, str], lang: str) -> tuple[list[Any], dict[str, pd.DataFrame]]:
    d = res.duel
    mc = d.get("method") == "monte_carlo"
    title = t(lang, "duel_of", a=d["a"]["name"], b=d["b"]["name"])
    method = f"{t(lang, 'mc')} (n = {d['n']:,})" if mc else t(lang, "exact")
    body: list[Any] = [html.H3(f"{title} · {method}"),
                       views.cards(outcome_cards(d, lang)), html.H4(t(lang, "outcomes")),
                       views.cards(level_cards(d, "a", lang)), views.cards(level_cards(d, "b", lang))]
    rounds = {int(k): v for k, v in d["rounds"].items()}
    fig = views.Figure(t(lang, "rounds"), t(lang, "round"), t(lang, "probability"))
    fig.bar(list(rounds), list(rounds.values()))
    fig.integer_x()
    mean = d.get("mean_rounds")
    stats = [views.card(lang, "mean_rounds", t(lang, "mean_rounds"), mean, d.get("ci_mean_rounds"),
                        shown=number(lang, mean, 3) if mean is not None else None),
             views.card(lang, "median_rounds", t(lang, "median_rounds"), d.get("median_rounds"),
                        shown=str(d["median_rounds"]) if d.get("median_rounds") is not None else None)]
    rounds_table = pd.DataFrame({t(lang, "round"): list(rounds), t(lang, "probability"): list(rounds.values())})
    body += [views.cards(stats)] + ([views.note(d["rounds_note"])] if d.get("rounds_note") else [])
    body += [views.note(w) for w in d.get("warnings", ())]
    body.append(views.row([views.graph(fig, "rounds"), views.table("rounds", rounds_table, lang, t(lang, "rounds"))]))
    tables = {"outcomes": outcomes_table(d), "rounds": rounds_table}
    for ex, tag in zip(res.exchanges, ("ab", "ba")):
        parts, table = exchange_view(ex, tag, lang)
        body += parts
        tables[f"damage_{tag}"] = table
    body.append(views.table("outcomes", tables["outcomes"], lang, t(lang, "outcomes")))
    model = d.get("model", "exact") + (f", n = {d['n']}, seed = {d['seed']}" if mc else "")
    body.append(views.echo(lang, res.system, d["variants"], d["house_rules"], res.cli, model, d["assumptions"]))
    return body, tables


def outcomes_table(d: Mapping[str, Any]) -> pd.DataFrame:
    """Every outcome probability of the duel (with SE and interval under Monte Carlo; empty where undefined)."""
    names = ["p_a_wins", "p_b_wins", "p_both_out", "p_stalemate", "p_unfinished",
             *(f"p_{s}_{lv}" for s in "ab" for lv in (*LEVELS, "killed")), "mean_rounds"]
    rows = []
    for n in (n for n in names if n in d):
        ci = d.get(f"ci_{n}") or (None, None)
        rows.append({"quantity": n, "value": d[n], "se": d.get(f"se_{n}"), "ci_low": ci[0], "ci_high": ci[1],
                     "note": d.get("null_reasons", {}).get(n, "")})
    return pd.DataFrame(rows)
