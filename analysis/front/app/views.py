"""Pieces of a results area: numbers, tables with their CSV, plotly figures, messages and the rules echo.

A number on screen carries its full-precision value in ``data-value`` and a
stable id (``out-NAME``), so a test (or a curious designer) reads exactly what
the library returned.

>>> card("en", "p_success", "P(success)", 0.5).children[1].children
'0.500000'
"""

from __future__ import annotations

import math
from html import escape
from typing import Any, Mapping, Sequence

import pandas as pd
from dash import dcc, html

from analysis.front.app.text import number, percent, system_name, t
from analysis.present.tables import assumed_pairs, pairs

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
    """A DataFrame on screen (``formats``: column -> ``p`` (probability) or ``pct``), with its CSV button.

    The table is HTML text in one component: a table of Dash components costs ~40 µs a cell to build.
    """
    formats = formats or {}

    def cell(col: str, v: Any) -> str:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return "—"
        if formats.get(col) == "pct":
            return percent(lang, float(v))
        if formats.get(col) == "p" or isinstance(v, float):
            return number(lang, float(v))
        return str(v)

    columns = [str(c) for c in df.columns]
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{escape(cell(c, v))}</td>" for c, v in zip(columns, row)) + "</tr>"
                   for row in df.head(max_rows).astype(object).values.tolist())
    more = [html.Div(f"… {len(df) - max_rows} more rows in the CSV", className="why")] if len(df) > max_rows else []
    return html.Div([
        html.Div([html.H4(title), html.Button(t(lang, "download"), id={"type": "csv", "name": name}, className="csv")],
                 className="table-head"),
        dcc.Markdown(f'<table id="table-{escape(name)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>',
                     dangerously_allow_html=True, className="scroll"),
        *more,
    ], className="table-box")


def row(children: list[Any]) -> html.Div:
    """Children side by side (stacked on a narrow screen)."""
    return html.Div(children, className="row")


def graph(fig: "Figure", name: str) -> dcc.Graph:
    return dcc.Graph(figure=fig, config=GRAPH_CONFIG, id=f"fig-{name}", className="graph")


COLORS = ["#4c6ef5", "#e8590c", "#2b8a3e", "#ae3ec9", "#1098ad", "#f08c00"]
AXIS = {"gridcolor": "#eef0f3", "zeroline": False, "linecolor": "#c9ced8", "automargin": True}


class Figure(dict):
    """A plotly figure as plain data (building ``plotly.graph_objects`` costs ~40 ms a figure; this costs none).

    >>> fig = Figure("t", "x", "y").bar([1, 2], [0.5, 0.5])
    >>> fig["data"][0]["type"], fig["layout"]["xaxis"]["title"]["text"]
    ('bar', 'x')
    """

    def __init__(self, title: str, x: str, y: str, height: int = 320):
        super().__init__(data=[], layout={
            "title": {"text": title, "font": {"size": 15}}, "height": height, "hovermode": "closest",
            "xaxis": {**AXIS, "title": {"text": x}}, "yaxis": {**AXIS, "title": {"text": y}},
            "plot_bgcolor": "white", "paper_bgcolor": "white", "colorway": COLORS, "bargap": 0.15,
            "margin": {"l": 60, "r": 20, "t": 50, "b": 50}, "legend": {"orientation": "h", "y": -0.25},
            "font": {"family": "system-ui, sans-serif", "size": 12}, "shapes": [], "annotations": []})

    def _add(self, trace: dict[str, Any], x: Sequence[Any], y: Sequence[Any], name: str | None) -> "Figure":
        trace.update(x=[_plain(v) for v in x], y=[_plain(v) for v in y], hovertemplate="%{x}: %{y:.6f}<extra></extra>")
        if name is not None:
            trace["name"] = name
        self["data"].append(trace)
        return self

    def bar(self, x: Sequence[Any], y: Sequence[Any], name: str | None = None) -> "Figure":
        return self._add({"type": "bar"}, x, y, name)

    def line(self, x: Sequence[Any], y: Sequence[Any], name: str | None = None, step: bool = False) -> "Figure":
        return self._add({"type": "scatter", "mode": "lines+markers", "line": {"shape": "hv" if step else "linear"}},
                         x, y, name)

    def vline(self, x: Any, label: str) -> "Figure":
        """A dotted vertical marker at ``x``."""
        self["layout"]["shapes"].append({"type": "line", "x0": x, "x1": x, "y0": 0, "y1": 1, "yref": "paper",
                                         "line": {"dash": "dot", "color": "#1d2330", "width": 1}})
        self["layout"]["annotations"].append({"x": x, "y": 1, "yref": "paper", "text": label, "showarrow": False,
                                              "xanchor": "left", "yanchor": "bottom"})
        return self

    def integer_x(self) -> "Figure":
        """Integer ticks on the x axis (rounds, damage, values)."""
        self["layout"]["xaxis"]["tickformat"] = "d"
        return self


def _plain(v: Any) -> Any:
    """numpy scalars as Python ones (JSON)."""
    return v.item() if hasattr(v, "item") else v


def error(message: str, lang: str, where: str = "error") -> html.Div:
    """A one-line message in place of a result (the library's words); ``where`` names its element
    (``error`` in the results, ``controls-error`` beside the controls)."""
    return html.Div([html.B(f"{t(lang, 'error')}: "), html.Span(message, id=f"{where}-text")], className="error",
                    id=where, role="alert")


def note(message: str, cls: str = "note") -> html.Div:
    return html.Div(message, className=cls)


def echo(lang: str, system: str, variants: Mapping[str, Any], house: Mapping[str, Any], cli: str,
         model: str = "", assumptions: Mapping[str, Any] | None = None) -> html.Div:
    """What made a result: the model, every variant, the house rules, the lab's assumptions it rests on (when
    there are any; each one's reason on hover), and the same on the command line."""
    lines = [html.Div([html.B(f"{t(lang, 'made_by')}: "), f"{system_name(lang, system)}{' · ' + model if model else ''} · ",
                       html.Code(pairs(variants))]),
             html.Div([html.B(f"{t(lang, 'house_rules')}: "), html.Code(pairs(house)) if house else t(lang, "none")],
                      id="house-rules")]
    if assumptions:
        lines.append(assumed(lang, assumptions))
    lines.append(html.Div(html.Code(cli, id="cli"), className="cli"))
    return html.Div(lines, className="echo")


def assumed(lang: str, assumptions: Mapping[str, Any], name: str = "assumptions") -> html.Div:
    """The lab's assumptions a result rests on, one line (``id`` = ``name``), each reason on hover."""
    reasons = "; ".join(f"{k}: {v['reason']}" for k, v in assumptions.items())
    return html.Div([html.B(f"{t(lang, 'assumptions')}: "), html.Code(assumed_pairs(assumptions))], id=name,
                    title=reasons)
