"""House rules: ruleset files that change the book's numbers, one TOML table per system.

A file such as ``examples/house_rules/gritty_2k.toml``::

    [onesix]
    success_threshold = 14

holds any ruleset field of each system it names (constants, variants and
duel options; ``dicelab systems`` lists them with their book values).  On the
command line ``--rules FILE`` reads it and ``--variant NAME=VALUE`` overrides
it; every result echoes the constants that differ from the book under
``house_rules``.

>>> from analysis.systems import get_system
>>> rules = ruleset(get_system("onesix"), {"onesix": {"explode_depth": 2}}, {"excess_over": "defense"})
>>> rules.explode_depth, rules.excess_over
(2, 'defense')
"""

from __future__ import annotations

import os
from typing import Any, Mapping

from analysis.base.files import load_toml
from analysis.base.params import DicelabError
from analysis.engine.system import System
from analysis.systems import SYSTEM_IDS, get_system

RulesFile = Mapping[str, Mapping[str, Any]]


def parse_rules(data: Mapping[str, Any], source: str) -> dict[str, dict[str, Any]]:
    """Check a parsed rules mapping: system tables only, each holding ruleset fields with allowed values.

    >>> parse_rules({"dnd": {"die": 20}}, "house.toml")
    Traceback (most recent call last):
    ...
    analysis.base.params.DicelabError: house.toml: [dnd] is not allowed; allowed: a table per system, one of tristat, onesix, tun, kurs
    """
    if not data:
        raise DicelabError(f"{source}: no system table; allowed: one or more of [{'], ['.join(SYSTEM_IDS)}]")
    out: dict[str, dict[str, Any]] = {}
    for sid, table in data.items():
        if sid not in SYSTEM_IDS:
            raise DicelabError(f"{source}: [{sid}] is not allowed; allowed: a table per system, one of "
                               f"{', '.join(SYSTEM_IDS)}")
        if not isinstance(table, Mapping):
            raise DicelabError(f"{source}: {sid} = {table!r} is not allowed; allowed: a table [{sid}] of rule fields")
        if not table:
            raise DicelabError(f"{source}: [{sid}] is empty; allowed: at least one rule field")
        system = get_system(sid)
        specs = system.Rules.specs()
        for name, value in table.items():
            if name not in specs:
                names = ", ".join(specs)
                raise DicelabError(f"{source}: [{sid}] {name} = {value!r} is not allowed; allowed: a ruleset field "
                                   f"among {names}")
        try:
            system.Rules.from_text(dict(table))
        except DicelabError as err:
            raise DicelabError(f"{source}: [{sid}] {err}") from None
        out[sid] = dict(table)
    return out


def load_rules(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """A house rules file, read and checked (one line naming the path and the problem on any error)."""
    return parse_rules(load_toml(path, "rules file"), f"rules file {str(path)!r}")


def ruleset(system: System, house: RulesFile | None = None, overrides: Mapping[str, Any] | None = None) -> Any:
    """The system's ruleset: the book, then its table of ``house``, then ``overrides`` (``--variant``)."""
    values = dict((house or {}).get(system.id, {}))
    values.update(overrides or {})
    return system.Rules.from_text(values)
