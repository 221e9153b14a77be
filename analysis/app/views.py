"""Pieces of a results area: numbers, tables with their CSV, plotly figures, messages and the rules echo.

A number on screen carries its full-precision value in ``data-value`` and a
stable id (``out-NAME``), so a test (or a curious designer) reads exactly what
the library returned.

>>> card("en", "p_success", "P(success)", 0.5).children[1].children
'0.500000'
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import pandas as pd
from dash import dcc, html

from ..tables import pairs
from .text import number, percent, system_name, t

GRAPH_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["lasso2d", "select2d"], "responsive": True}


def card(lang: str, name: str, title: str, value: float | None, ci: Sequence[float] | None = None,
         why: str | None = None, shown: str | None = None) -> html.Div:
    """A headline probability (or mean): 6 decimals and a percentage, its 95% interval, or why it is undefined;
    ``shown`` replaces the number's text (an integer, a signed modifier)."""
    if shown is None:
        shown = number(lang, value) if value is not None else t(lang, "not_defined")
    extra: list[Any] = []
    if value is not None and name.startswith("p_"):
        extra.append(html.Div(percent(lang, value), className="pct"))
    if ci is not None:
        extra.append(html.Div(f"{t(lang, 'ci')}: [{number(lang, ci[0])}, {number(lang, ci[1])}]", className="ci",
                              id=f"ci-{name}"))
    if why:
        extra.append(html.Div(why, className="why", id=f"why-{name}"))
    attrs = {"data-value": repr(value)} if value is not None else {"data-value": "null"}
    return html.Div([html.Div(title, className="card-title"), html.Div(shown, id=f"out-{name}", className="num",
                                                                         **attrs), *extra], className="card")


def cards(items: Sequence[html.Div]) -> html.Div:
    return html.Div(list(items), className="cards")


def table(name: str, df: pd.DataFrame, lang: str, title: str = "", formats: Mapping[str, str] | None = None,
          max_rows: int = 200) -> html.Div:
    """A DataFrame on screen (``formats``: column -> ``p`` (probability) or ``pct``), with its CSV button."""
    formats = formats or {}

    def cell(col: str, v: Any) -> str:
        if v is None or (isinstance(v, float) and pd.isna(v)):
            return "—"
        if formats.get(col) == "p" or (isinstance(v, float) and col not in formats):
            return number(lang, float(v))
        if formats.get(col) == "pct":
            return percent(lang, float(v))
        return str(v)

    head = html.Tr([html.Th(str(c)) for c in df.columns])
    rows = [html.Tr([html.Td(cell(c, v)) for c, v in zip(df.columns, row)]) for row in df.head(max_rows).itertuples(index=False)]
    more = [html.Div(f"… {len(df) - max_rows} more rows in the CSV", className="why")] if len(df) > max_rows else []
    return html.Div([
        html.Div([html.H4(title), html.Button(t(lang, "download"), id={"type": "csv", "name": name}, className="csv")],
                 className="table-head"),
        html.Div(html.Table([html.Thead(head), html.Tbody(rows)], id=f"table-{name}"), className="scroll"),
        *more,
    ], className="table-box")


def row(children: list[Any]) -> html.Div:
    """Children side by side (stacked on a narrow screen)."""
    return html.Div(children, className="row")


def graph(fig: Any, name: str) -> dcc.Graph:
    return dcc.Graph(figure=fig, config=GRAPH_CONFIG, id=f"fig-{name}", className="graph")


def figure(title: str, x: str, y: str) -> Any:
    """An empty plotly figure with the app's look."""
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.update_layout(title=title, xaxis_title=x, yaxis_title=y, template="plotly_white", height=320,
                      margin=dict(l=60, r=20, t=50, b=50), legend=dict(orientation="h", y=-0.25))
    return fig


def integer_axis(fig: Any) -> Any:
    fig.update_xaxes(tickformat="d", dtick=None)
    return fig


def error(message: str, lang: str) -> html.Div:
    """A one-line message in place of a result (the library's words)."""
    return html.Div([html.B(f"{t(lang, 'error')}: "), html.Span(message, id="error-text")], className="error",
                    id="error", role="alert")


def note(message: str, cls: str = "note") -> html.Div:
    return html.Div(message, className=cls)


def echo(lang: str, system: str, variants: Mapping[str, Any], house: Mapping[str, Any], cli: str,
         model: str = "") -> html.Div:
    """What made a result: the model, every variant, the house rules, and the same on the command line."""
    lines = [html.Div([html.B(f"{t(lang, 'made_by')}: "), f"{system_name(lang, system)}{' · ' + model if model else ''} · ",
                       html.Code(pairs(variants))]),
             html.Div([html.B(f"{t(lang, 'house_rules')}: "), html.Code(pairs(house)) if house else t(lang, "none")],
                      id="house-rules"),
             html.Div(html.Code(cli, id="cli"), className="cli")]
    return html.Div(lines, className="echo")
