"""From a page's state to the library's objects, by the command line's own path (so the messages are its own).

A ruleset is ``ruleset(system, None, fields)`` as ``--variant NAME=VALUE``
makes it; check parameters ``CheckArgs.from_text`` as ``--NAME VALUE``; a
fighter ``load_fighter(system, "archetype=NAME,k=v")`` as ``--a ...``.  Numbers
the library validates itself (a wished probability, n) are handed over as the command line reads them.

>>> s = {"system": "tun", "c.limit": "12", "r.crits": "true"}
>>> system = system_of(s)
>>> rules_of(system, s).crits, args_of(system, s).limit
(True, 12)
>>> fighter_spec(system, {"a": "red", "a.body": "11"}, "a")
'archetype=red,body=11'
>>> command("check", {"system": "tun", "c.limit": "12", "r.crits": "true"})
'dicelab check tun --limit 12 --variant crits=true'
"""

from __future__ import annotations

import shlex
from typing import Any, Mapping

from analysis.base.params import parse_probability, plain_number
from analysis.engine.system import System
from analysis.fights.fighters import load_fighter
from analysis.front.app.controls import default_archetype
from analysis.front.app.state import group
from analysis.systems import SYSTEM_IDS, get_system
from analysis.tools.house_rules import ruleset


def system_of(state: Mapping[str, str], key: str = "system") -> System:
    """The system a state names (the first system by default)."""
    return get_system(state.get(key, SYSTEM_IDS[0]))


def rules_of(system: System, state: Mapping[str, str], prefix: str = "r") -> Any:
    """The ruleset: the book with the state's fields over it (a loaded rules file is already among them)."""
    return ruleset(system, None, group(state, prefix))


def args_of(system: System, state: Mapping[str, str], prefix: str = "c") -> Any:
    """The check parameters."""
    return system.CheckArgs.from_text(group(state, prefix))


def fighter_spec(system: System, state: Mapping[str, str], side: str) -> str:
    """The fighter as ``--a``/``--b`` takes it: the archetype's name, or ``archetype=NAME,k=v,...``."""
    name = state.get(side, default_archetype(system, side))
    changed = group(state, side)
    if not changed:
        return name
    return ",".join([f"archetype={name}", *(f"{k}={v}" for k, v in changed.items())])


def fighter_of(system: System, state: Mapping[str, str], side: str) -> Any:
    """Fighter ``side`` (``a``, ``b``, ``a2``, ``b2``), named in messages as the command line names it (``--a``)."""
    return load_fighter(system, fighter_spec(system, state, side), f"--{side[0]}")


def typed(value: str | None, cast: type = int, percent: bool = False) -> Any:
    """A number as the command line reads it (``--p`` a float, ``--n`` an int; a probability also as ``75%``), or
    the text itself when it is not a plain one (``0_5``), so the library names what was typed.

    >>> typed("2", float), typed("3"), typed("0.75"), typed("abc", float), typed(None), typed("75%", float, True)
    (2.0, 3, '0.75', 'abc', None, 0.75)
    >>> typed("0_5", float)
    '0_5'
    """
    if value is None:
        return None
    try:
        return parse_probability(value) if percent else plain_number(value, cast)
    except ValueError:
        return value


COMMANDS = {"checks": "check", "tune": "tune", "duel": "duel", "design": "design", "tactics": "tactics"}


def command(name: str, state: Mapping[str, str], extra: Mapping[str, str] | None = None) -> str:
    """The same computation on the command line (``name`` is a ``dicelab`` command)."""
    system = system_of(state)
    words = ["dicelab", name, system.id]
    if name in ("check", "tune"):
        for k, v in group(state, "c").items():
            words += [f"--{k.replace('_', '-')}", v]
    if name in ("duel", "sim", "design", "tactics"):
        words += ["--a", fighter_spec(system, state, "a"), "--b", fighter_spec(system, state, "b")]
    for k, v in (extra or {}).items():
        words += [f"--{k}", v]
    for k, v in group(state, "r").items():
        words += ["--variant", f"{k}={v}"]
    if name == "sim":
        for k, v in group(state, "o").items():
            words += ["--option", f"{k}={v}"]
    return shlex.join(words)


def as_first(state: Mapping[str, str], names: Mapping[str, str]) -> dict[str, str]:
    """A second setup's keys under the first setup's names, so it is read like the first.

    >>> as_first({"r.die": "6", "r2.die": "8", "a": "x"}, {"r2": "r"})
    {'a': 'x', 'r.die': '8'}
    """
    def renamed(key: str) -> str | None:
        for src, dst in names.items():
            if key == src or key.startswith(src + "."):
                return dst + key[len(src):]
        return None

    firsts = set(names.values())
    out = {k: v for k, v in state.items() if renamed(k) is None and k.split(".")[0] not in firsts}
    out.update({renamed(k): v for k, v in state.items() if renamed(k) is not None})  # type: ignore[misc]
    return out
