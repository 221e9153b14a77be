"""Where Russian output slips into English: every string a page, a figure or the report shows, walked from the
rendered objects themselves (not from a list of known strings), and the English words left in them.

An identifier a designer types may stand beside its Russian name: in code, as ``name=value``, in parentheses
``(draw)`` or in quotes «draw»; file names, archetype names (the data's own names), the systems' Latin names and the language
chooser's "English" are names, not words to translate.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any, Iterator

from analysis.fights.fighters import archetypes
from analysis.systems import SYSTEM_IDS, all_systems

NAMES = ({n for s in SYSTEM_IDS for n in archetypes(s)} | {w for s in all_systems() for w in re.findall(r"[A-Za-z]+", s.title)}
         | {"dicelab", "CSV", "ln", "English"})


def english_words(text: str) -> list[str]:
    """The English words of ``text`` once the identifiers and names it may show are set aside.

    >>> english_words("ничья (draw); die=8; veteran (A) против trained_armed (B)")
    []
    >>> english_words("damage taken 10")
    ['damage', 'taken']
    """
    text = re.sub(r"<[^>]+>", " ", text)
    text = re.sub(r"[\w.]+=[^\s,;)]*", " ", text)
    text = re.sub(r"\((?:[a-z_0-9-]+(?:, )?)+\)|«[a-z_0-9.]+»", " ", text)
    text = re.sub(r"\S+\.(?:md|toml|csv|json)\b", " ", text)
    return [w for w in re.findall(r"[A-Za-z][A-Za-z_]+", text) if w not in NAMES]


def component_texts(node: Any) -> Iterator[str]:
    """Every string a Dash component tree shows: text, tooltips, placeholders, dropdown labels, tables, figures
    (``Code`` elements left out: identifiers and command lines)."""
    if node is None or isinstance(node, (int, float)):
        return
    if isinstance(node, str):
        yield node
        return
    if isinstance(node, (list, tuple)):
        for child in node:
            yield from component_texts(child)
        return
    if isinstance(node, dict):
        yield from figure_texts(node.get("data", []), node.get("layout", {}))
        return
    kind = type(node).__name__
    if kind == "Code":
        return
    props = node.to_plotly_json()["props"]
    for key in ("title", "placeholder"):
        if isinstance(props.get(key), str):
            yield props[key]
    if kind == "Markdown":
        yield from html_texts(props.get("children", ""))
        return
    if kind == "Dropdown":
        yield from (str(o.get("label", "")) for o in props.get("options", []))
    if kind == "Graph":
        yield from component_texts(dict(props.get("figure") or {}))
        return
    yield from component_texts(props.get("children"))


def figure_texts(data: list[dict], layout: dict) -> Iterator[str]:
    """The strings of a plotly figure: titles, axis titles, annotations, trace names, hover texts, category names."""
    def title(x: Any) -> str:
        return x.get("text", "") if isinstance(x, dict) else str(x or "")

    yield title(layout.get("title"))
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            yield title(axis.get("title"))
    yield from (a.get("text", "") for a in layout.get("annotations", []))
    for trace in data:
        yield str(trace.get("name", "") or "")
        yield from (str(h) for h in (trace.get("hovertext") or []))
        yield from (t for t in (trace.get("text") or []) if isinstance(t, str))
        for axis in ("x", "y"):
            yield from (v for v in (trace.get(axis) or []) if isinstance(v, str))


def html_texts(page: str) -> Iterator[str]:
    """The visible strings of an HTML page (scripts, styles and ``<code>`` left out) and of its plotly figures."""
    for m in re.finditer(r'Plotly\.newPlot\(\s*"[^"]+",\s*(\[.*?\]),\s*(\{.*?\}),\s*\{"displaylogo"', page, re.S):
        yield from figure_texts(json.loads(m.group(1)), json.loads(m.group(2)))
    body = re.sub(r"<(script|style|code)\b.*?</\1>", " ", page, flags=re.S)
    yield from (html.unescape(t) for t in re.split(r"<[^>]+>", body) if t.strip())
