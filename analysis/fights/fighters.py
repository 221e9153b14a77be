"""Fighters from archetype names, TOML/JSON files or inline ``key=value`` pairs.

Every system keeps its ready fighters in ``analysis/data/archetypes/<id>.toml``:
one table per archetype with the parameters of RULES.md, a ``note`` saying
where the numbers come from, and optionally ``archetype = "..."`` to start from
another entry.

>>> from analysis.systems import get_system
>>> f = load_fighter(get_system("tristat"), "body=5,mind=4,soul=4,weapon_damage=10")
>>> f.body, f.weapon_damage
(5, 10)
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any, Mapping

from analysis.base.files import load_data
from analysis.base.params import MAX_NAME, MAX_NOTE, DicelabError, check_text, parse_pairs, shown
from analysis.engine.system import System

META_KEYS = ("name", "note", "archetype")
FIGHTER_ALLOWED = "an archetype name, a .toml/.json file, or name=value pairs"


@lru_cache(maxsize=None)
def archetypes(system_id: str) -> dict[str, dict[str, Any]]:
    """The archetype table of a system: name -> raw entry (parameters, note)."""
    path = files("analysis").joinpath(f"data/archetypes/{system_id}.toml")
    if not path.is_file():
        return {}
    return tomllib.loads(path.read_text(encoding="utf-8"))


def build_fighter(system: System, entry: Mapping[str, Any], where: str, default_name: str | None = None) -> Any:
    """A fighter from a mapping of parameters (text or values) plus the meta keys; a ``name`` or ``note`` given must
    be text (:func:`~analysis.base.params.check_text`); without a name: ``default_name`` (cut to
    :data:`~analysis.base.params.MAX_NAME` characters), else the archetype's, else ``where``."""
    entry = dict(entry)
    base_name = entry.pop("archetype", None)
    name, note = entry.pop("name", None), entry.pop("note", None)
    try:
        if name is not None:
            check_text("name", name, MAX_NAME)
        if note is not None:
            check_text("note", note, MAX_NOTE)
    except DicelabError as err:
        raise DicelabError(f"{where}: {err}") from None
    base = None
    if base_name is not None:
        if not isinstance(base_name, str):
            raise DicelabError(f"{where}: archetype = {shown(base_name)} is not allowed; allowed: an archetype name")
        base = archetype(system, base_name)
    try:
        fighter = system.Fighter.from_text(entry, base=base)
    except DicelabError as err:
        raise DicelabError(f"{where}: {err}") from None
    name = name or (default_name or "")[:MAX_NAME] or (base.name if base is not None else where[:MAX_NAME])
    return fighter.replace_meta(name=name, note=note or getattr(base, "note", ""))


def require_content(system: System, entry: Mapping[str, Any], where: str) -> None:
    """Refuse a fighter the user described that names no parameter and no archetype (empty, or only a name and a
    note): it is never silently an all-default fighter."""
    if not any(key not in ("name", "note") for key in entry):
        given = f" (only {', '.join(entry)})" if entry else ""
        raise DicelabError(f"{where}: names no fighter parameter and no archetype{given}; allowed: at least one "
                           f"parameter ({', '.join(system.Fighter.specs())}) or archetype = NAME")


def archetype(system: System, name: str) -> Any:
    """A ready fighter by archetype name."""
    table = archetypes(system.id)
    if name not in table:
        raise DicelabError(f"{system.id} archetype = {shown(name)} is not allowed; allowed: one of {', '.join(table)}")
    return build_fighter(system, table[name], f"{system.id} archetype {name!r}", default_name=name)


def load_fighter(system: System, spec: str, what: str = "fighter") -> Any:
    """A fighter from an archetype name, a ``.toml``/``.json`` file, or ``key=value,...``; ``what`` names the option
    in messages (``--a``).

    >>> from analysis.systems import get_system
    >>> load_fighter(get_system("tristat"), "", "--a")
    Traceback (most recent call last):
    ...
    analysis.base.params.DicelabError: --a = '' is not allowed; allowed: an archetype name, a .toml/.json file, or name=value pairs
    """
    if not isinstance(spec, str) or not spec.strip():
        raise DicelabError(f"{what} = {shown(spec)} is not allowed; allowed: {FIGHTER_ALLOWED}")
    spec = spec.strip()
    if "=" in spec:
        entry = parse_pairs(spec, what)
        require_content(system, entry, what)
        return build_fighter(system, entry, what, default_name="inline fighter")
    path = Path(spec)
    if path.suffix.lower() in (".toml", ".json"):
        data = load_data(path, "fighter file")
        if not isinstance(data, dict):
            raise DicelabError(f"fighter file {spec!r}: expected a table of parameters, got a {type(data).__name__}")
        where = f"fighter file {spec!r}"
        require_content(system, data, where)
        return build_fighter(system, data, where, default_name=path.stem)
    return archetype(system, spec)
