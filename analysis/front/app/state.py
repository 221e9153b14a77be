"""The app's state as a URL query string: the whole view in a link a designer can send.

A state is a flat mapping of text keys to text values, exactly what a user
typed (the library parses and validates it, so a bad value in a link gets the
same message as on the command line).  Dotted keys group a setup's fields:

- ``r.NAME`` a ruleset field (variant, house-rule constant, duel option), ``c.NAME`` a check parameter;
- ``a`` / ``b`` the archetype of fighter A / B, ``a.NAME`` / ``b.NAME`` a parameter changed from it;
- ``o.NAME`` a Monte Carlo option; ``to`` / ``tr.NAME`` / ``tc.NAME`` the target system of ``equiv``;
- the second setup of the Compare page: ``system2``, ``r2.NAME``, ``a2``, ``b2``, ``a2.NAME``, ``b2.NAME``.

Values equal to their default are left out, so links stay short; the encoding
is canonical (plain keys first, then dotted keys, each sorted).

>>> s = decode("?system=kurs&c.skill=2&lang=ru")
>>> s
{'system': 'kurs', 'c.skill': '2', 'lang': 'ru'}
>>> encode(s)
'?lang=ru&system=kurs&c.skill=2'
>>> group(s, "c")
{'skill': '2'}
"""

from __future__ import annotations

import re
from typing import Mapping
from urllib.parse import parse_qsl, urlencode

from analysis.base.params import DicelabError

PAGES = ("checks", "tune", "duel", "compare", "design", "tactics", "encounter")
"""The app's pages, in the order of the navigation bar; the first is the home page."""
LANGS = ("en", "ru")
MAX_QUERY = 8192
"""The longest query string read (characters): a view has a few dozen short fields."""

DEPENDENTS: Mapping[str, tuple[str, ...]] = {
    "system": ("r.", "c.", "a", "b", "a.", "b.", "o.", "vary", "r2.", "a2", "b2", "a2.", "b2."),
    "mode": ("system2", "r2.", "a2", "b2", "a2.", "b2."),
    "a": ("a.",),
    "b": ("b.",),
    "to": ("tr.", "tc."),
    "system2": ("r2.", "a2", "b2", "a2.", "b2."),
    "a2": ("a2.",),
    "b2": ("b2.",),
}
"""Changing a key on the left makes the keys on the right meaningless (a prefix ends with a dot): they are dropped."""
STRUCTURAL = ("lang", "method", *DEPENDENTS)
DECIMALS = ("p", "rounds", "lethality", "pwin")
"""Keys typed as decimal numbers: Russian writes them with a decimal comma on screen, the link with a point."""
_COMMA = re.compile(r"\s*[-+]?\d*,\d+\s*%?\s*")
_POINT = re.compile(r"\s*[-+]?\d*\.\d+\s*%?\s*")


def from_screen(lang: str, key: str, value: str | None) -> str | None:
    """A typed value as the link keeps it: a Russian decimal comma becomes a point (``0,75`` -> ``0.75``).

    >>> from_screen("ru", "p", "0,75"), from_screen("en", "p", "0,75"), from_screen("ru", "r.dk_faces", "-1,1")
    ('0.75', '0,75', '-1,1')
    """
    if lang == "ru" and key in DECIMALS and value is not None and _COMMA.fullmatch(value):
        return value.replace(",", ".")
    return value


def on_screen(lang: str, key: str, value: str) -> str:
    """A link's value as a control shows it: a decimal comma in Russian.

    >>> on_screen("ru", "p", "0.75"), on_screen("en", "p", "0.75")
    ('0,75', '0.75')
    """
    return value.replace(".", ",") if lang == "ru" and key in DECIMALS and _POINT.fullmatch(value) else value
"""Keys that change which controls a page shows (so the controls are drawn again when one changes)."""


def decode(search: str | None) -> dict[str, str]:
    """The state in a query string (with or without its ``?``); a key given twice keeps its last value.

    >>> decode("r.die=8&r.die=10")
    {'r.die': '10'}
    """
    text = (search or "").lstrip("?")
    if len(text) > MAX_QUERY:
        raise DicelabError(f"the link's query is {len(text):,} characters; allowed: at most {MAX_QUERY:,}")
    return {key: value for key, value in parse_qsl(text, keep_blank_values=False)}


def order(key: str) -> tuple[bool, str]:
    """Sort key of the canonical encoding: plain keys first, then dotted ones, each alphabetically."""
    return ("." in key, key)


def encode(state: Mapping[str, str]) -> str:
    """The canonical query string of a state (``""`` for the empty state); empty values are left out.

    >>> encode({"b.armor": "2", "a": "veteran", "x": ""})
    '?a=veteran&b.armor=2'
    """
    items = sorted(((k, v) for k, v in state.items() if v not in ("", None)), key=lambda kv: order(kv[0]))
    return "?" + urlencode(items) if items else ""


def group(state: Mapping[str, str], prefix: str) -> dict[str, str]:
    """The fields of one group (``r``, ``c``, ``a``...) without their prefix.

    >>> group({"a": "veteran", "a.body": "5", "ab.x": "1"}, "a")
    {'body': '5'}
    """
    head = prefix + "."
    return {k[len(head):]: v for k, v in state.items() if k.startswith(head)}


def dependents(key: str, state: Mapping[str, str]) -> list[str]:
    """The keys of ``state`` that :data:`DEPENDENTS` drops when ``key`` changes.

    >>> dependents("a", {"a": "x", "a.body": "5", "b.body": "4"})
    ['a.body']
    """
    prefixes = DEPENDENTS.get(key, ())
    return [k for k in state if any(k.startswith(p) if p.endswith(".") else k == p for p in prefixes)]


def update(state: Mapping[str, str], values: Mapping[str, str | None], defaults: Mapping[str, str],
           changed: str | None = None) -> dict[str, str]:
    """``state`` with the controls' ``values``: a value equal to its default (or empty) is removed; when the
    control ``changed`` is one of :data:`DEPENDENTS`, the keys it makes meaningless go first.

    >>> update({"system": "tun", "c.limit": "12"}, {"system": "kurs"}, {"system": "tristat"}, changed="system")
    {'system': 'kurs'}
    >>> update({"c.limit": "12"}, {"c.limit": "13", "c.dice": "1d20"}, {"c.limit": "13", "c.dice": "3d6"})
    {'c.dice': '1d20'}
    """
    out = dict(state)
    if changed is not None and changed in values and values[changed] != state.get(changed, defaults.get(changed)):
        for key in dependents(changed, out):
            out.pop(key)
    for key, value in values.items():
        if changed is not None and key != changed and key in dependents(changed, {key: ""}):
            continue
        text = "" if value is None else str(value).strip()
        if text == "" or text == defaults.get(key):
            out.pop(key, None)
        else:
            out[key] = text
    return out


def structure(page: str, state: Mapping[str, str]) -> str:
    """What decides a page's controls: the page and the :data:`STRUCTURAL` keys.

    >>> structure("duel", {"system": "kurs", "a.body": "3"})
    'duel?system=kurs'
    """
    return page + encode({k: state[k] for k in STRUCTURAL if k in state})


def page_of(pathname: str | None) -> str:
    """The page a path names (an unknown path shows the home page).

    >>> page_of("/duel"), page_of("/"), page_of("/nowhere")
    ('duel', 'checks', 'checks')
    """
    name = (pathname or "/").strip("/").split("/")[-1]
    return name if name in PAGES else PAGES[0]
