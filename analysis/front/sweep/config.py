"""Sweep configs: the TOML file read and checked, every problem one line naming the file, the key and what is
allowed, before anything runs.

``[sweep]`` names the computation; a ``[systems.<id>]`` block per system (or
several: an array of tables ``[[systems.<id>]]``) names the values to sweep.
Any value is one value, a list of values, or an inclusive integer range
written as a table ``{from = A, to = B}`` (optional ``step = S``).  A block may
start from house rules: ``rules = "house.toml"`` (relative to the config) or an
inline table ``[systems.<id>.rules]``; its ``variants`` sweep any ruleset field
over them, rule constants included.
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import json
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from analysis.base.files import load_toml
from analysis.base.params import Choice, DicelabError, Int, ParamError, Spec
from analysis.engine.system import System
from analysis.fights.fighters import archetypes
from analysis.fights.tactics import PLAYS
from analysis.systems import SYSTEM_IDS, get_system
from analysis.tools.house_rules import load_rules, parse_rules

KINDS = ("check", "exchange", "duel", "group")
METHODS = ("exact", "monte_carlo")
MODELS = ("full", "exact")
MAX_CASES = 1_000_000
MAX_N = 10**10
RANGE_HINT = "; a list of such values or a range {from = A, to = B, step = S} sweeps them"
EXAMPLE = """\
[sweep]
kind = "check"             # check | exchange | duel
method = "exact"           # exact | monte_carlo (then n = 100000, seed = 1)

[systems.tristat]
variants = { die = [6, 8] }
check = { target = { from = 2, to = 12 } }
"""


class ConfigError(DicelabError):
    """A config that cannot run: the message names the file, the key and what is allowed."""


def _show(value: Any) -> str:
    """A config value as TOML shows it (``true``, ``"veteran"``, ``[1, 2]``)."""
    return json.dumps(value, ensure_ascii=False, default=str)


def _bad(source: str, key: str, value: Any, allowed: str) -> ConfigError:
    return ConfigError(f"{source}: {key} = {_show(value)} is not allowed; allowed: {allowed}")


def _unknown(source: str, key: str, allowed: Iterable[str]) -> ConfigError:
    return ConfigError(f"{source}: {key} is not a known key; allowed: {', '.join(allowed)}")


def _missing(source: str, key: str, allowed: str) -> ConfigError:
    return ConfigError(f"{source}: {key} is missing; allowed: {allowed}")


@dataclass(frozen=True)
class Text(Spec):
    """A non-empty string (fighter names)."""

    allowed: str = "a non-empty string"

    def validate(self, name: str, value: Any) -> Any:
        if not isinstance(value, str) or not value.strip():
            raise ParamError(name, value, self.allowed)
        return value.strip()


@dataclass(frozen=True)
class FighterFile(Spec):
    """A ``.toml``/``.json`` fighter file, relative to the config's directory."""

    base: Path = Path(".")

    @property
    def allowed(self) -> str:  # type: ignore[override]
        return f"an existing .toml or .json fighter file (relative to {self.base})"

    def validate(self, name: str, value: Any) -> Any:
        if not isinstance(value, str) or Path(value).suffix.lower() not in (".toml", ".json") \
                or not (self.base / value).is_file():
            raise ParamError(name, value, self.allowed)
        return value


SWEEP_SPECS: dict[str, Spec] = {
    "kind": Choice(KINDS),
    "method": Choice(METHODS),
    "n": Int(1, MAX_N),
    "seed": Int(0, 2**63 - 1),
    "model": Choice(MODELS),
    "play": Choice(PLAYS),
}


@dataclass(frozen=True)
class Method:
    """What every case of a sweep computes: the kind, exact or Monte Carlo, and the Monte Carlo settings.

    >>> Method("duel", "monte_carlo", n=1000, seed=1).model
    'full'
    """

    kind: str
    method: str = "exact"
    n: int | None = None
    seed: int | None = None
    model: str | None = None
    play: str = "book"
    """How both sides play an exact duel (``book``, ``best``, ``equilibrium``: the decision game)."""

    def __post_init__(self) -> None:
        for name in ("kind", "method", "play"):
            SWEEP_SPECS[name].validate(name, getattr(self, name))
        if self.play != "book" and (self.kind != "duel" or self.method != "exact"):
            raise ParamError("play", self.play, 'book unless kind = "duel" and method = "exact" (decisions are '
                                                'solved on the exact duel)')
        if self.method == "exact":
            for name in ("n", "seed", "model"):
                if getattr(self, name) is not None:
                    raise ParamError(name, getattr(self, name), 'nothing with method = "exact" (a Monte Carlo setting)')
            return
        if self.kind == "exchange":
            raise ParamError("method", self.method, 'exact for kind = "exchange" (Monte Carlo covers checks and duels)')
        for name in ("n", "seed"):
            spec = SWEEP_SPECS[name]
            if getattr(self, name) is None:
                raise ParamError(name, None, f"{spec.allowed} (method = \"monte_carlo\" needs it)")
            spec.validate(name, getattr(self, name))
        if self.kind in ("check", "group") and self.model is not None:
            raise ParamError("model", self.model, f'nothing with kind = "{self.kind}" (it chooses the duel model)')
        if self.kind == "duel":
            object.__setattr__(self, "model", SWEEP_SPECS["model"].validate("model", self.model or "full"))


Axes = tuple[tuple[str, tuple[Any, ...]], ...]
"""A block's named value lists; the block sweeps their product."""


def points(axes: Axes) -> Iterator[dict[str, Any]]:
    """Every combination of the axes' values, the last axis varying fastest.

    >>> list(points((("x", (1, 2)), ("y", ("a", "b")))))
    [{'x': 1, 'y': 'a'}, {'x': 1, 'y': 'b'}, {'x': 2, 'y': 'a'}, {'x': 2, 'y': 'b'}]
    """
    names = [name for name, _ in axes]
    for combo in itertools.product(*(values for _, values in axes)):
        yield dict(zip(names, combo))


@dataclass(frozen=True)
class Block:
    """One block of a sweep: a system, the key naming it in messages (``systems.tristat``, or
    ``systems.tristat[1]`` in an array of blocks), the ruleset fields its house rules set (``rules``) and its
    axes; ``check``/``a``/``b``/``options`` are ``None`` when the kind has none."""

    system: str
    key: str
    variants: Axes
    check: Axes | None = None
    a: Axes | None = None
    b: Axes | None = None
    options: Axes | None = None
    rules: Mapping[str, Any] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """How many cases the block expands to."""
        grids = [g for g in (self.variants, self.check, self.a, self.b, self.options) if g is not None]
        return math.prod(len(values) for axes in grids for _, values in axes)


@dataclass(frozen=True)
class SweepConfig:
    """A validated config: where it came from, the method and one block per system."""

    source: str
    base_dir: Path
    method: Method
    blocks: tuple[Block, ...]

    @property
    def size(self) -> int:
        return sum(b.size for b in self.blocks)


def load_config(path: str | os.PathLike[str]) -> SweepConfig:
    """Read and validate a sweep config; every problem is a :class:`ConfigError` naming the file and key."""
    path = Path(path)
    try:
        data = load_toml(path, "config")
    except DicelabError as err:
        raise ConfigError(str(err)) from None
    return parse_config(data, str(path), path.parent)


def parse_config(data: Mapping[str, Any], source: str, base_dir: Path | None = None) -> SweepConfig:
    """Validate parsed TOML: keys, types, ranges, systems, variants, archetypes and files."""
    base_dir = base_dir if base_dir is not None else Path(".")
    _known(data, "", ("sweep", "systems"), source)
    method = _method(_table(data, "sweep", source, "a [sweep] table with kind = ..."), source)
    systems = _table(data, "systems", source, "[systems.<id>] tables, <id> among " + ", ".join(SYSTEM_IDS))
    if not systems:
        raise _missing(source, "systems.<id>", "at least one of " + ", ".join(SYSTEM_IDS))
    blocks = []
    for sid, body in systems.items():
        if sid not in SYSTEM_IDS:
            raise _unknown(source, f"systems.{sid}", SYSTEM_IDS)
        if isinstance(body, list):
            if not body:
                raise _bad(source, f"systems.{sid}", body, "a table, or a non-empty array of tables")
            blocks += [_block(sid, part, f"systems.{sid}[{i}]", method, source, base_dir)
                       for i, part in enumerate(body)]
        else:
            blocks.append(_block(sid, body, f"systems.{sid}", method, source, base_dir))
    for i, block in enumerate(blocks):
        same = next((b for b in blocks[:i] if replace(b, key="") == replace(block, key="")), None)
        if same is not None:
            raise ConfigError(f"{source}: {block.key} repeats {same.key}; allowed: each block once (the same cases "
                              "twice would be two rows of one case)")
    config = SweepConfig(source, base_dir, method, tuple(blocks))
    if config.size > MAX_CASES:
        raise ConfigError(f"{source}: the sweep has {config.size:,} cases; allowed: at most {MAX_CASES:,} per config")
    return config


def _table(parent: Mapping[str, Any], key: str, source: str, allowed: str, prefix: str = "") -> dict[str, Any]:
    full = f"{prefix}{key}"
    if key not in parent:
        raise _missing(source, full, allowed)
    value = parent[key]
    if not isinstance(value, dict):
        raise _bad(source, full, value, allowed)
    return value


def _known(table: Mapping[str, Any], key: str, allowed: Sequence[str], source: str) -> None:
    for name in table:
        if name not in allowed:
            raise _unknown(source, f"{key}.{name}" if key else name, allowed)


def _valid(spec: Spec, value: Any, key: str, source: str, hint: str = "") -> Any:
    """A value checked by its spec; text goes through ``spec.parse`` (``explode_depth = "none"``)."""
    name = key.rsplit(".", 1)[-1]
    try:
        return spec.parse(name, value) if isinstance(value, str) else spec.validate(name, value)
    except ParamError as err:
        raise _bad(source, key, value, err.allowed + hint) from None


def _method(table: dict[str, Any], source: str) -> Method:
    _known(table, "sweep", tuple(SWEEP_SPECS), source)
    if "kind" not in table:
        raise _missing(source, "sweep.kind", SWEEP_SPECS["kind"].allowed)
    values = {name: _valid(SWEEP_SPECS[name], value, f"sweep.{name}", source) for name, value in table.items()}
    try:
        return Method(**values)
    except ParamError as err:
        if err.value is None:
            raise _missing(source, f"sweep.{err.name}", err.allowed) from None
        raise _bad(source, f"sweep.{err.name}", err.value, err.allowed) from None


def _has_simulator(system_id: str, kind: str) -> bool:
    """Whether ``sims/<id>.py`` exists and simulates this kind (``check_call``, ``duel_call``; groups: see
    :func:`sims.api.group_module`)."""
    if importlib.util.find_spec(f"sims.{system_id}") is None:
        return False
    if kind == "group":
        from sims.api import group_module

        return group_module(system_id) is not None
    return hasattr(importlib.import_module(f"sims.{system_id}"), f"{kind}_call")


def _available(system: System, method: Method) -> bool:
    if method.method == "monte_carlo":
        return _has_simulator(system.id, method.kind)
    return method.kind == "check" or getattr(system, method.kind) is not None


def _block(sid: str, body: Any, key: str, method: Method, source: str, base_dir: Path) -> Block:
    system = get_system(sid)
    if not _available(system, method):
        able = [s for s in SYSTEM_IDS if _available(get_system(s), method)]
        what = f'method = "{method.method}" for kind = "{method.kind}"'
        raise ConfigError(f"{source}: {key}: {what} is not available for {sid} yet; allowed: "
                          + (f"systems {', '.join(able)}" if able else "another kind or method"))
    what = "check" if method.kind == "check" else "a, b"
    if not isinstance(body, dict):
        raise _bad(source, key, body, f"a table (or an array of tables) of rules, variants and {what}")
    if not body:
        raise ConfigError(f"{source}: {key} is empty; allowed: a block naming what to sweep (rules, variants, "
                          f"{what}); an empty block is refused rather than read as one default case")
    parts = ("rules", "variants", "check") if method.kind == "check" else ("rules", "variants", "a", "b")
    options = method.method == "monte_carlo" and method.kind == "duel"
    _known(body, key, parts + (("options",) if options else ()), source)
    rules = _rules(body["rules"], f"{key}.rules", system, source, base_dir) if "rules" in body else {}
    grid: dict[str, Any] = {"variants": _axes(body.get("variants", {}), f"{key}.variants", system.Rules.specs(),
                                              source, "variants" in body)}
    inline = isinstance(body.get("rules"), dict)
    for name, _ in grid["variants"]:
        if inline and name in rules:
            raise ConfigError(f"{source}: {key}: {name} is set twice, in rules ({_show(rules[name])}) and in "
                              f"variants; allowed: one of them")
    if method.kind == "check":
        grid["check"] = _axes(body.get("check", {}), f"{key}.check", system.CheckArgs.specs(), source,
                              "check" in body)
    else:
        for side in ("a", "b"):
            allowed = ('a side table: side = "3*trained_armed,veteran" (or a list of sides to sweep)'
                       if method.kind == "group" else "a fighter table: archetype = NAME or file = PATH, and parameters")
            fighter = _table(body, side, source, allowed, f"{key}.")
            if not fighter:
                raise _bad(source, f"{key}.{side}", fighter, f"{allowed}; an empty table is refused rather than read "
                           "as a default fighter")
            grid[side] = (_axes(fighter, f"{key}.{side}", {"side": Text()}, source) if method.kind == "group"
                          else _fighter_axes(fighter, f"{key}.{side}", system, source, base_dir))
    if options:
        specs = importlib.import_module(f"sims.{sid}").Options.specs()
        grid["options"] = _axes(body.get("options", {}), f"{key}.options", specs, source, "options" in body)
    return Block(sid, key, rules=rules, **grid)


def _rules(raw: Any, key: str, system: System, source: str, base_dir: Path) -> dict[str, Any]:
    """The ruleset fields of a block's house rules: a rules file (relative to the config) that holds a table for
    the block's system, or an inline table of that system's fields."""
    if isinstance(raw, str):
        if not raw.strip():
            raise _bad(source, key, raw, "a rules file (TOML, relative to the config) or an inline table")
        try:
            tables = load_rules(base_dir / raw)
        except DicelabError as err:
            raise ConfigError(f"{source}: {key}: {err}") from None
        if system.id not in tables:
            raise ConfigError(f"{source}: {key} = {_show(raw)} has no [{system.id}] table; allowed: a rules file "
                              f"with a [{system.id}] table (it holds {', '.join(f'[{s}]' for s in tables)})")
        return tables[system.id]
    if isinstance(raw, dict):
        try:
            return parse_rules({system.id: raw}, f"{source}: {key}")[system.id]
        except DicelabError as err:
            raise ConfigError(str(err)) from None
    raise _bad(source, key, raw, "a rules file (TOML, relative to the config) or an inline table of ruleset fields")


def _axes(raw: Any, key: str, specs: Mapping[str, Spec], source: str, given: bool = True) -> Axes:
    """The axes of a table the config gives (``given``: an empty one is refused rather than read as nothing)."""
    if not isinstance(raw, dict) or given and not raw:
        raise _bad(source, key, raw, "a table of " + (", ".join(specs) or "nothing: there are no settings")
                   + ("; an empty table is refused (leave the key out for the defaults)" if specs else ""))
    _known(raw, key, tuple(specs), source)
    return tuple((name, sweep_values(value, specs[name], f"{key}.{name}", source)) for name, value in raw.items())


def _fighter_axes(raw: dict[str, Any], key: str, system: System, source: str, base_dir: Path) -> Axes:
    specs: dict[str, Spec] = {"archetype": Choice(tuple(archetypes(system.id))), "file": FighterFile(base_dir),
                              "name": Text(), **system.Fighter.specs()}
    _known(raw, key, tuple(specs), source)
    if "archetype" in raw and "file" in raw:
        raise ConfigError(f"{source}: {key}: archetype and file are both given; allowed: one of them, or neither")
    return tuple((name, sweep_values(value, specs[name], f"{key}.{name}", source)) for name, value in raw.items())


def sweep_values(raw: Any, spec: Spec, key: str, source: str) -> tuple[Any, ...]:
    """The values one key sweeps: one value, a list, or an inclusive range table, each checked by ``spec``.

    >>> sweep_values({"from": 0, "to": 6, "step": 2}, Int(0, 10), "armor", "c.toml")
    (0, 2, 4, 6)
    >>> sweep_values("0..6", Int(0, 10), "armor", "c.toml")
    Traceback (most recent call last):
    ...
    analysis.front.sweep.config.ConfigError: c.toml: armor = "0..6" is not allowed; allowed: an integer in 0..10; a list of such values or a range {from = A, to = B, step = S} sweeps them
    """
    if isinstance(raw, dict):
        items: Sequence[Any] = _range(raw, key, source)
    elif isinstance(raw, list):
        if not raw:
            raise _bad(source, key, raw, "a value, a non-empty list of values or a range {from = A, to = B}")
        items = raw
    else:
        items = [raw]
    values, seen = [], set()
    if isinstance(raw, list) and raw and not any(isinstance(item, (list, dict)) for item in raw) \
            and _accepts(spec, raw) and not all(_accepts(spec, item) for item in raw):
        raise _bad(source, key, raw, f"{spec.allowed}; a list means 'sweep these': for one list value write "
                                     f"[{_show(raw)}]")
    for item in items:
        value = _valid(spec, item, key, source, RANGE_HINT)
        if value in seen:
            raise _bad(source, key, raw, f"distinct values ({_show(item)} comes twice)")
        seen.add(value)
        values.append(value)
    return tuple(values)


def _accepts(spec: Spec, value: Any) -> bool:
    try:
        spec.validate("value", value)
    except (ParamError, TypeError):
        return False
    return True


def _range(raw: dict[str, Any], key: str, source: str) -> range:
    allowed = "a range {from = A, to = B, step = S} of integers with A <= B and S >= 1 (step optional)"
    ints = all(isinstance(raw.get(k, 1), int) and not isinstance(raw.get(k, 1), bool) for k in ("from", "to", "step"))
    if set(raw) - {"from", "to", "step"} or not {"from", "to"} <= set(raw) or not ints \
            or raw["from"] > raw["to"] or raw.get("step", 1) < 1:
        raise _bad(source, key, raw, allowed)
    values = range(raw["from"], raw["to"] + 1, raw.get("step", 1))
    if len(values) > MAX_CASES:
        raise _bad(source, key, raw, f"at most {MAX_CASES:,} values")
    return values


