"""A config expanded into cases, lazily: every distinct ruleset, check and fighter is built (and cross-checked)
once, up front, so a config that cannot run fails before anything is written; the cases themselves — up to a
million — are made one at a time as the run reaches them.

Each case has an id: a hash of its inputs (system, kind, method and Monte Carlo
settings, ruleset, check, fighters, options), not of its place in the grid,
so a widened or reordered grid finds its finished cases again.

>>> import tomllib
>>> from analysis.front.sweep.config import EXAMPLE, parse_config
>>> sweep = expand(parse_config(tomllib.loads(EXAMPLE), "example.toml"))
>>> rows = list(sweep.rows())
>>> len(sweep), rows[0]["variant_die"], rows[-1]["check_target"]
(22, 6, 12)
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np

from analysis.base.params import DicelabError, Validated
from analysis.engine.combat import describe_fighter
from analysis.engine.system import System
from analysis.fights.fighters import archetype, load_fighter
from analysis.fights.sides import beside, parse_side
from analysis.front.sweep.config import Axes, Block, ConfigError, SweepConfig, points
from analysis.systems import get_system


@dataclass(frozen=True)
class Case:
    """One computation: its place in the sweep, its id (a hash of its inputs), the system, the ruleset and what
    is checked or fought."""

    index: int
    case_id: str
    system: str
    rules: Any
    args: Any = None
    a: Any = None
    b: Any = None
    options: Any = None


@dataclass(frozen=True)
class Part:
    """One built value of a block (a ruleset, a check, a fighter under a ruleset, options): the value, its input
    columns, and their canonical JSON (what the case id hashes)."""

    value: Any
    columns: Mapping[str, Any]
    key: str

    @classmethod
    def of(cls, value: Any, prefix: str, mapping: Mapping[str, Any]) -> "Part":
        cols = columns(prefix, mapping)
        return cls(value, cols, json.dumps(cols, sort_keys=True, ensure_ascii=False, default=str))


NONE = Part(None, {}, "")


@dataclass(frozen=True)
class Grid:
    """A block built: its head columns and parts; fighters' parts per ruleset (their derived values depend on
    it).  The cases are the product rules x checks x A x B x options, the last varying fastest."""

    system: str
    head: Mapping[str, Any]
    rules: tuple[Part, ...]
    checks: tuple[Part, ...]
    a: tuple[tuple[Part, ...], ...]
    b: tuple[tuple[Part, ...], ...]
    options: tuple[Part, ...]

    def __len__(self) -> int:
        return len(self.rules) * len(self.checks) * len(self.a[0]) * len(self.b[0]) * len(self.options)

    def parts(self) -> Iterator[tuple[Part, ...]]:
        """The parts of every case in order: (rules, check, A, B, options)."""
        shape = (len(self.rules), len(self.checks), len(self.a[0]), len(self.b[0]), len(self.options))
        for r, c, x, y, o in itertools.product(*(range(n) for n in shape)):
            yield self.rules[r], self.checks[c], self.a[r][x], self.b[r][y], self.options[o]


def case_id(head_key: str, parts: tuple[Part, ...]) -> str:
    """The id of a case: 16 hex digits of the SHA-256 of its inputs' canonical JSON."""
    text = "\x1f".join([head_key, *(p.key for p in parts)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Sweep:
    """A config expanded: its grids, and the cases, their input rows and ids made on demand, in order."""

    def __init__(self, config: SweepConfig, grids: tuple[Grid, ...]):
        self.config, self.grids = config, grids
        self._head_keys = [json.dumps(g.head, sort_keys=True) for g in grids]

    @property
    def method(self) -> Any:
        return self.config.method

    def __len__(self) -> int:
        return sum(len(g) for g in self.grids)

    def _walk(self) -> Iterator[tuple[int, Grid, str, tuple[Part, ...]]]:
        index = 0
        for grid, head_key in zip(self.grids, self._head_keys):
            for parts in grid.parts():
                yield index, grid, head_key, parts
                index += 1

    def _id(self, index: int) -> str:
        return f"{int(self.ids[index]):016x}"

    def cases(self) -> Iterator[Case]:
        """Every case in order."""
        for index, grid, _, (r, c, a, b, o) in self._walk():
            yield Case(index, self._id(index), grid.system, r.value, c.value, a.value, b.value, o.value)

    def first_cases(self) -> list[Case]:
        """The first case of each block."""
        out, index = [], 0
        for grid, head_key in zip(self.grids, self._head_keys):
            out.append(_case(index, grid, head_key, next(grid.parts())))
            index += len(grid)
        return out

    def rows(self) -> Iterator[dict[str, Any]]:
        """Every case's input columns in order: ``case``, ``case_id``, the head, ``variant_*``, ``check_*``,
        ``a_*``, ``b_*``, ``option_*``."""
        for index, grid, _, parts in self._walk():
            row: dict[str, Any] = {"case": index, "case_id": self._id(index), **grid.head}
            for part in parts:
                row.update(part.columns)
            yield row

    @cached_property
    def ids(self) -> np.ndarray:
        """Every case's id as an unsigned 64-bit integer, in case order (8 bytes a case)."""
        return np.fromiter((int(case_id(k, parts), 16) for _, _, k, parts in self._walk()), dtype=np.uint64,
                           count=len(self))

    @cached_property
    def input_columns(self) -> list[str]:
        """The input columns of every block, in block order (a column a system lacks is empty in its rows)."""
        names = ["case", "case_id"]
        for g in self.grids:
            names += list(g.head)
            for parts in (g.rules, g.checks, *g.a, *g.b, g.options):
                for part in parts:
                    names += list(part.columns)
        return list(dict.fromkeys(names))

    def input_types(self) -> dict[str, set[type]]:
        """The Python types each input column takes."""
        types: dict[str, set[type]] = {"case": {int}, "case_id": {str}}
        for g in self.grids:
            for name, value in g.head.items():
                types.setdefault(name, set()).add(type(value))
            for parts in (g.rules, g.checks, *g.a, *g.b, g.options):
                for part in parts:
                    for name, value in part.columns.items():
                        types.setdefault(name, set()).add(type(value))
        return types


def _case(index: int, grid: Grid, head_key: str, parts: tuple[Part, ...]) -> Case:
    r, c, a, b, o = parts
    return Case(index, case_id(head_key, parts), grid.system, r.value, c.value, a.value, b.value, o.value)


def columns(prefix: str, mapping: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters as scalar columns: ``prefix_name``, nested mappings flattened, lists as ``a,b,c`` text.

    >>> columns("a", {"body": 5, "derived": {"acv": 5}, "faces": [-1, 0, 1]})
    {'a_body': 5, 'a_derived_acv': 5, 'a_faces': '-1,0,1'}
    """
    out: dict[str, Any] = {}
    for name, value in mapping.items():
        if isinstance(value, dict):
            out.update(columns(f"{prefix}_{name}", value))
        elif isinstance(value, (list, tuple)):
            out[f"{prefix}_{name}"] = ",".join(str(v) for v in value)
        else:
            out[f"{prefix}_{name}"] = value.item() if isinstance(value, np.generic) else value
    return out


def expand(config: SweepConfig) -> Sweep:
    """The config's grids: rulesets, check parameters, fighters (described under each ruleset) and options
    built once per distinct value, so a config that cannot run fails here, before anything is written."""
    method = config.method
    head: dict[str, Any] = {"system": "", "kind": method.kind, "method": method.method}
    if method.kind == "duel":
        head["play"] = method.play
    if method.method == "monte_carlo":
        head.update(n=method.n, seed=method.seed)
        if method.kind == "duel":
            head["model"] = method.model
    return Sweep(config, tuple(_grid(block, {**head, "system": block.system}, config) for block in config.blocks))


def _grid(block: Block, head: dict[str, Any], config: SweepConfig) -> Grid:
    system, key, source = get_system(block.system), block.key, config.source
    rules = _build(lambda p: system.Rules.from_text({**block.rules, **p}), block.variants, f"{key}.variants", source)
    checks = _build(lambda p: system.CheckArgs(**p), block.check, f"{key}.check", source)
    options = _build(lambda p: _options(block.system, config.method.model, p), block.options, f"{key}.options",
                     source)
    sides = []
    meets = getattr(importlib.import_module(f"analysis.systems.{system.id}"), "validate", None)
    for side, axes in (("a", block.a), ("b", block.b)):
        if config.method.kind == "group":
            texts = [p["side"] for p in points(axes)] if axes is not None else []
            made = _build(lambda p: parse_side(system, beside(system, p["side"], config.base_dir), f"{key}.{side}"),
                          axes, f"{key}.{side}", source)
            sides.append(tuple(tuple(Part.of(f, side, {"side": text, "fighters": len(f)})
                                     for f, text in zip(made, texts)) for _ in rules))
            continue
        fighters = _build(lambda p: _fighter(system, p, side, config.base_dir), axes, f"{key}.{side}", source)
        sides.append(tuple(tuple(_fighter_part(side, f, r, f"{key}.{side}", source, meets) for f in fighters)
                           for r in rules))
    return Grid(block.system, head, tuple(Part.of(r, "variant", r.to_dict()) for r in rules),
                tuple(NONE if c is None else Part.of(c, "check", c.to_dict()) for c in checks),
                sides[0], sides[1], tuple(NONE if o is None else Part.of(o, "option", o.to_dict()) for o in options))


def _build(make: Any, axes: Axes | None, key: str, source: str) -> list[Any]:
    if axes is None:
        return [None]
    try:
        return [make(p) for p in points(axes)]
    except DicelabError as err:
        raise ConfigError(f"{source}: {key}: {err}") from None


def _fighter(system: System, point: Mapping[str, Any], side: str, base_dir: Path) -> Any:
    params = dict(point)
    kind_name, file, name = params.pop("archetype", None), params.pop("file", None), params.pop("name", None)
    if kind_name is not None:
        base = archetype(system, kind_name)
    elif file is not None:
        base = load_fighter(system, str(base_dir / file))
    else:
        base = system.Fighter()
    fighter = base.replace(**params) if params else base
    return fighter.replace_meta(name=name or kind_name or (Path(file).stem if file else side))


def _fighter_part(side: str, fighter: Any, rules: Any, key: str, source: str, meets: Any = None) -> Part:
    """A fighter under one ruleset, checked where they meet (the system's ``validate(rules, fighter)``, e.g.
    Tri-Stat's stat limits at the die) so that no case fails after others ran."""
    if fighter is None:
        return NONE
    try:
        if meets is not None:
            meets(rules, fighter)
        return Part.of(fighter, side, describe_fighter(fighter, rules))
    except DicelabError as err:
        raise ConfigError(f"{source}: {key}: {err}") from None


def _options(system_id: str, model: str | None, point: Mapping[str, Any]) -> Validated:
    from sims.api import options_for

    return options_for(system_id, model or "full", point)
