"""Fighters from archetype names, TOML/JSON files or inline ``key=value`` pairs.

Every system keeps its ready fighters in ``analysis/data/archetypes/<id>.toml``:
one table per archetype with the parameters of RULES.md, a ``note`` saying
where the numbers come from, and optionally ``archetype = "..."`` to start from
another entry.

>>> from analysis.system import get_system
>>> f = load_fighter(get_system("tristat"), "body=5,mind=4,soul=4,weapon_damage=10")
>>> f.body, f.weapon_damage
(5, 10)
"""

from __future__ import annotations

import json
import tomllib
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any, Mapping

from .files import read_user_file
from .params import DicelabError, parse_pairs
from .system import System

META_KEYS = ("name", "note", "archetype")


@lru_cache(maxsize=None)
def archetypes(system_id: str) -> dict[str, dict[str, Any]]:
    """The archetype table of a system: name -> raw entry (parameters, note)."""
    path = files("analysis").joinpath(f"data/archetypes/{system_id}.toml")
    if not path.is_file():
        return {}
    return tomllib.loads(path.read_text(encoding="utf-8"))


def build_fighter(system: System, entry: Mapping[str, Any], where: str) -> Any:
    """A fighter from a mapping of parameters (text or values) plus the meta keys."""
    entry = dict(entry)
    base_name = entry.pop("archetype", None)
    name = entry.pop("name", None)
    note = entry.pop("note", "")
    base = None
    if base_name is not None:
        base = archetype(system, str(base_name))
        name = name or base.name
    try:
        fighter = system.Fighter.from_text(entry, base=base)
    except DicelabError as err:
        raise DicelabError(f"{where}: {err}") from None
    return fighter.replace_meta(name=str(name or where), note=str(note or getattr(base, "note", "")))


def archetype(system: System, name: str) -> Any:
    """A ready fighter by archetype name."""
    table = archetypes(system.id)
    if name not in table:
        raise DicelabError(f"{system.id} archetype = {name!r} is not allowed; allowed: one of {', '.join(table)}")
    return build_fighter(system, {"name": name, **table[name]}, f"{system.id} archetype {name!r}")


def load_fighter(system: System, spec: str) -> Any:
    """A fighter from an archetype name, a ``.toml``/``.json`` file, or ``key=value,...``."""
    spec = spec.strip()
    if "=" in spec:
        return build_fighter(system, parse_pairs(spec, "fighter"), "inline fighter")
    path = Path(spec)
    if path.suffix.lower() in (".toml", ".json"):
        text = read_user_file(path, "fighter file")
        try:
            data = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
        except (tomllib.TOMLDecodeError, json.JSONDecodeError) as err:
            raise DicelabError(f"fighter file {spec!r}: not valid {path.suffix[1:].upper()}: {err}") from None
        if not isinstance(data, dict):
            raise DicelabError(f"fighter file {spec!r}: expected a table of parameters")
        data.setdefault("name", path.stem)
        return build_fighter(system, data, f"fighter file {spec!r}")
    return archetype(system, spec)
