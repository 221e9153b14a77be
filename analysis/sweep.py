"""Batch sweeps: a TOML config expanded into cases, computed resumably and in parallel into one tidy table.

``[sweep]`` names the computation; a ``[systems.<id>]`` block per system (or
several: an array of tables ``[[systems.<id>]]``) names the values to sweep.
Any value is one value, a list of values, or an inclusive integer range
written as a table ``{from = A, to = B}`` (optional ``step = S``).  A block's
cases are the cartesian product of its values; the sweep's cases are the
blocks' cases one after the other, numbered from 0:

>>> print(EXAMPLE, end="")
[sweep]
kind = "check"             # check | exchange | duel
method = "exact"           # exact | monte_carlo (then n = 100000, seed = 1)
<BLANKLINE>
[systems.tristat]
variants = { die = [6, 8] }
check = { target = { from = 2, to = 12 } }
>>> sweep = expand(parse_config(tomllib.loads(EXAMPLE), "example.toml"))
>>> len(sweep.cases), sweep.inputs[0]["variant_die"], sweep.inputs[-1]["check_target"]
(22, 6, 12)

:func:`run_sweep` computes the cases missing from the journal next to the
output (``OUT.journal/``), in this process, in local worker processes or on a
Dask cluster, then writes the table atomically.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib
import importlib.util
import io
import itertools
import json
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
import tomllib
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence, TextIO

import numpy as np

from . import __version__
from .combat import describe_fighter
from .fighters import archetype, archetypes, load_fighter
from .params import Choice, DicelabError, Int, ParamError, Spec, Validated
from .system import SYSTEM_IDS, System, get_system
from .files import write_atomic

KINDS = ("check", "exchange", "duel")
METHODS = ("exact", "monte_carlo")
MODELS = ("full", "exact")
FORMATS = ("parquet", "csv")
PROGRESS = ("bar", "lines", "quiet")
MAX_CASES = 1_000_000
MAX_N = 10**10
BATCH = {"check": 256, "exchange": 64, "duel": 4}
"""Most cases per batch of exact work (Monte Carlo: one case per batch): a kill loses at most the batches in flight."""
SYNC_EVERY = 1.0
"""Seconds between fsyncs of the journal: every batch is written at once (a killed sweep keeps it); the disk
has it within this time (a power cut loses at most this much)."""
RANGE_HINT = "; a list of such values or a range {from = A, to = B, step = S} sweeps them"
ECHOED = frozenset({"system", "model", "method", "variants", "params", "a", "b", "attacker", "defender", "options",
                    "n", "seed"})
"""Keys of a result's ``to_dict()`` that echo the inputs: the case's own input columns hold them."""
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


class CaseFailed(DicelabError):
    """A case raised while computing; the finished cases stay in the journal."""


class Interrupted(DicelabError):
    """Ctrl-C or SIGTERM ended a sweep; the journal keeps every finished case."""

    def __init__(self, journal: Path, done: int, total: int, signum: int):
        self.exit_code = 128 + signum
        super().__init__(f"interrupted: {done:,} of {total:,} cases are kept in {journal}/; "
                         "run the same command again to resume")


def _show(value: Any) -> str:
    """A config value as TOML shows it (``true``, ``"veteran"``, ``[1, 2]``)."""
    return json.dumps(value, ensure_ascii=False, default=str)


def _bad(source: str, key: str, value: Any, allowed: str) -> ConfigError:
    return ConfigError(f"{source}: {key} = {_show(value)} is not allowed; allowed: {allowed}")


def _unknown(source: str, key: str, allowed: Iterable[str]) -> ConfigError:
    return ConfigError(f"{source}: {key} is not a known key; allowed: {', '.join(allowed)}")


def _missing(source: str, key: str, allowed: str) -> ConfigError:
    return ConfigError(f"{source}: {key} is missing; allowed: {allowed}")


# ------------------------------------------------------------------ config
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

    def __post_init__(self) -> None:
        for name in ("kind", "method"):
            SWEEP_SPECS[name].validate(name, getattr(self, name))
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
        if self.kind == "check" and self.model is not None:
            raise ParamError("model", self.model, 'nothing with kind = "check" (it chooses the duel model)')
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
    ``systems.tristat[1]`` in an array of blocks) and its axes; ``check``/``a``/``b``/``options`` are ``None``
    when the kind has none."""

    system: str
    key: str
    variants: Axes
    check: Axes | None = None
    a: Axes | None = None
    b: Axes | None = None
    options: Axes | None = None

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
    source = str(path)
    if not path.is_file():
        raise ConfigError(f"config = {source!r} does not exist")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ConfigError(f"{source}: not valid TOML: {err}") from None
    return parse_config(data, source, path.parent)


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
        if isinstance(body, list) and body:
            blocks += [_block(sid, part, f"systems.{sid}[{i}]", method, source, base_dir)
                       for i, part in enumerate(body)]
        else:
            blocks.append(_block(sid, body, f"systems.{sid}", method, source, base_dir))
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
    """Whether ``sims/<id>.py`` exists and simulates this kind (``check_call``, ``duel_call``)."""
    if importlib.util.find_spec(f"sims.{system_id}") is None:
        return False
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
    if not isinstance(body, dict):
        raise _bad(source, key, body, "a table (or an array of tables) of variants and "
                   + ("check" if method.kind == "check" else "a, b"))
    parts = ("variants", "check") if method.kind == "check" else ("variants", "a", "b")
    options = method.method == "monte_carlo" and method.kind == "duel"
    _known(body, key, parts + (("options",) if options else ()), source)
    grid = {"variants": _axes(body.get("variants", {}), f"{key}.variants", system.Rules.specs(), source)}
    if method.kind == "check":
        grid["check"] = _axes(body.get("check", {}), f"{key}.check", system.CheckArgs.specs(), source)
    else:
        for side in ("a", "b"):
            fighter = _table(body, side, source, "a fighter table: archetype = NAME or file = PATH, and parameters",
                             f"{key}.")
            grid[side] = _fighter_axes(fighter, f"{key}.{side}", system, source, base_dir)
    if options:
        specs = importlib.import_module(f"sims.{sid}").Options.specs()
        grid["options"] = _axes(body.get("options", {}), f"{key}.options", specs, source)
    return Block(sid, key, **grid)


def _axes(raw: Any, key: str, specs: Mapping[str, Spec], source: str) -> Axes:
    if not isinstance(raw, dict):
        raise _bad(source, key, raw, "a table of " + (", ".join(specs) or "nothing: there are no settings"))
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
    analysis.sweep.ConfigError: c.toml: armor = "0..6" is not allowed; allowed: an integer in 0..10; a list of such values or a range {from = A, to = B, step = S} sweeps them
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
    for item in items:
        value = _valid(spec, item, key, source, RANGE_HINT)
        if value in seen:
            raise _bad(source, key, raw, f"distinct values ({_show(item)} comes twice)")
        seen.add(value)
        values.append(value)
    return tuple(values)


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


# --------------------------------------------------------------- expansion
@dataclass(frozen=True)
class Case:
    """One computation: its number in the sweep, the system, the ruleset and what is checked or fought."""

    index: int
    system: str
    rules: Any
    args: Any = None
    a: Any = None
    b: Any = None
    options: Any = None


@dataclass(frozen=True)
class Sweep:
    """A config expanded: every case, its input columns (with ``case_id``) and the config's fingerprint."""

    config: SweepConfig
    cases: tuple[Case, ...]
    inputs: tuple[dict[str, Any], ...]
    fingerprint: str

    @property
    def method(self) -> Method:
        return self.config.method


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
    """Every case of the config in order, with its input columns, its id and the config's fingerprint.

    Rulesets, check parameters and fighters are built (and cross-checked) here, once per distinct value,
    so a config that cannot run fails before anything is written.
    """
    method, source = config.method, config.source
    cases: list[Case] = []
    inputs: list[dict[str, Any]] = []
    digest = hashlib.sha256(json.dumps(asdict(method), sort_keys=True).encode())
    head = {"system": "", "kind": method.kind, "method": method.method}
    if method.method == "monte_carlo":
        head.update(n=method.n, seed=method.seed)
        if method.kind == "duel":
            head["model"] = method.model
    for block in config.blocks:
        system, key = get_system(block.system), block.key
        head["system"] = block.system
        rules = _build(lambda p: system.Rules(**p), block.variants, f"{key}.variants", source)
        args = _build(lambda p: system.CheckArgs(**p), block.check, f"{key}.check", source)
        side_a = _build(lambda p: _fighter(system, p, "a", config.base_dir), block.a, f"{key}.a", source)
        side_b = _build(lambda p: _fighter(system, p, "b", config.base_dir), block.b, f"{key}.b", source)
        opts = _build(lambda p: _options(block.system, method.model, p), block.options, f"{key}.options", source)
        cache: dict[tuple[Any, ...], dict[str, Any]] = {}
        for r, c, a, b, o in itertools.product(rules, args, side_a, side_b, opts):
            row = {"case": len(cases), "case_id": "", **head, **_cached(cache, ("variant", r), lambda: r.to_dict())}
            if c is not None:
                row.update(_cached(cache, ("check", c), lambda: c.to_dict()))
            for side, f in (("a", a), ("b", b)):
                if f is not None:
                    row.update(_cached(cache, (side, r, f, f.name), lambda: _describe(f, r, f"{key}.{side}", source)))
            if o is not None:
                row.update(_cached(cache, ("option", o), lambda: o.to_dict()))
            text = json.dumps({k: v for k, v in row.items() if k not in ("case", "case_id")}, sort_keys=True,
                              ensure_ascii=False)
            row["case_id"] = hashlib.sha256(text.encode()).hexdigest()[:16]
            digest.update(text.encode())
            cases.append(Case(len(cases), block.system, r, c, a, b, o))
            inputs.append(row)
    return Sweep(config, tuple(cases), tuple(inputs), digest.hexdigest())


def _build(make: Any, axes: Axes | None, key: str, source: str) -> list[Any]:
    if axes is None:
        return [None]
    try:
        return [make(p) for p in points(axes)]
    except DicelabError as err:
        raise ConfigError(f"{source}: {key}: {err}") from None


def _cached(cache: dict[tuple[Any, ...], dict[str, Any]], key: tuple[Any, ...], make: Any) -> dict[str, Any]:
    if key not in cache:
        cache[key] = columns(key[0], make())
    return cache[key]


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


def _describe(fighter: Any, rules: Any, key: str, source: str) -> dict[str, Any]:
    try:
        return describe_fighter(fighter, rules)
    except DicelabError as err:
        raise ConfigError(f"{source}: {key}: {err}") from None


def _options(system_id: str, model: str | None, point: Mapping[str, Any]) -> Validated:
    from sims.api import options_for

    return options_for(system_id, model or "full", point)


# ----------------------------------------------------------------- compute
def outputs(result: Mapping[str, Any]) -> dict[str, Any]:
    """A result's ``to_dict()`` as scalar columns: ``ci_x`` pairs split into ``ci_x_low``/``ci_x_high``,
    other lists and mappings as JSON text, the echoed inputs left out (the case's columns hold them).

    >>> outputs({"system": "tristat", "p": 0.5, "ci_p": [0.4, 0.6], "distribution": {"1": 0.5}})
    {'p': 0.5, 'ci_p_low': 0.4, 'ci_p_high': 0.6, 'distribution': '{"1": 0.5}'}
    """
    out: dict[str, Any] = {}
    for name, value in result.items():
        if name in ECHOED:
            continue
        if name.startswith("ci_") and isinstance(value, (list, tuple)) and len(value) == 2:
            out[f"{name}_low"], out[f"{name}_high"] = (float(v) for v in value)
        elif isinstance(value, (dict, list, tuple)):
            out[name] = json.dumps(value, ensure_ascii=False, default=_jsonable)
        else:
            out[name] = _jsonable(value) if isinstance(value, np.generic) else value
    return out


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def case_seed(seed: int, index: int) -> np.random.SeedSequence:
    """Case ``index``'s Monte Carlo seed: the ``index``-th child of the config's seed, whoever runs it.

    >>> case_seed(1, 3).spawn_key == np.random.SeedSequence(1).spawn(4)[3].spawn_key
    True
    """
    return np.random.SeedSequence(seed, spawn_key=(index,))


def compute(method: Method, case: Case) -> dict[str, Any]:
    """One case's output columns."""
    system = get_system(case.system)
    if method.method == "exact":
        if method.kind == "check":
            result = system.check(case.rules, case.args)
        else:
            result = getattr(system, method.kind)(case.rules, case.a, case.b)
    else:
        from sims.api import simulate_check, simulate_duel

        seed = case_seed(method.seed or 0, case.index)
        if method.kind == "check":
            result = simulate_check(case.system, case.rules, case.args, method.n, seed=seed, workers=1)
        else:
            result = simulate_duel(case.system, case.rules, case.a, case.b, method.n, seed=seed,
                                   model=method.model or "full", options=case.options, workers=1)
    return outputs(result.to_dict())


def run_batch(method: Method, cases: Sequence[Case]) -> list[tuple[int, dict[str, Any]]]:
    """``(index, output columns)`` of each case; runs here, in a worker process or on a Dask worker."""
    done = []
    for case in cases:
        try:
            done.append((case.index, compute(method, case)))
        except DicelabError as err:
            raise CaseFailed(f"case {case.index} ({case.system}): {err}") from None
        except Exception as err:
            raise CaseFailed(f"case {case.index} ({case.system}) failed: {type(err).__name__}: {err}") from err
    return done


def batches(cases: Sequence[Case], method: Method, slots: int) -> list[list[Case]]:
    """Cases cut into batches: about eight per worker slot, at most :data:`BATCH` (Monte Carlo: one case)."""
    cap = 1 if method.method == "monte_carlo" else BATCH[method.kind]
    size = max(1, min(cap, math.ceil(len(cases) / (8 * slots))))
    return [list(cases[i:i + size]) for i in range(0, len(cases), size)]


# ----------------------------------------------------------------- journal
def journal_path(out: str | os.PathLike[str]) -> Path:
    """The journal directory of an output file: ``OUT.journal``."""
    return Path(f"{out}.journal")


class Journal:
    """``OUT.journal/``: ``meta.json`` (fingerprint, version, case count) and ``rows.jsonl``, one JSON line per
    finished case, appended batch by batch and fsync'd every :data:`SYNC_EVERY` seconds and on close.  A
    partial last line (a kill mid-write) is cut off on open; a journal of another config or dicelab version
    is refused.  One sweep at a time holds its lock."""

    def __init__(self, out: str | os.PathLike[str], sweep: Sweep):
        self.dir = journal_path(out)
        self.sweep = sweep
        meta = {"fingerprint": sweep.fingerprint, "dicelab_version": __version__, "cases": len(sweep.cases),
                "config": sweep.config.source}
        self.dir.mkdir(parents=True, exist_ok=True)
        meta_file = self.dir / "meta.json"
        if meta_file.is_file():
            self._compatible(meta_file, meta)
        else:
            write_atomic(meta_file, json.dumps(meta, indent=2) + "\n")
        self._fh = open(self.dir / "rows.jsonl", "a+b")
        try:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._fh.close()
            raise DicelabError(f"{self.dir}/ is in use by another sweep; wait for it, or choose another --out") \
                from None
        try:
            self.rows = self._read()
        except DicelabError:
            self._fh.close()
            raise
        self._synced = time.monotonic()

    def _compatible(self, meta_file: Path, meta: dict[str, Any]) -> None:
        try:
            old = json.loads(meta_file.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise DicelabError(f"{meta_file} is damaged; delete {self.dir}/ to start over") from None
        fix = f"delete {self.dir}/ to start over, or choose another --out"
        if old.get("fingerprint") != meta["fingerprint"]:
            raise ConfigError(f"{meta['config']}: the config changed since {self.dir}/ was started "
                              f"(from {old.get('config')}); its rows would mix with the new ones: {fix}")
        if old.get("dicelab_version") != meta["dicelab_version"]:
            raise DicelabError(f"{self.dir}/ was written by dicelab {old.get('dicelab_version')}, this is "
                               f"{__version__}: {fix}")

    def _read(self) -> dict[int, dict[str, Any]]:
        self._fh.seek(0)
        data = self._fh.read()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            self._fh.truncate(end)
            os.fsync(self._fh.fileno())
        rows: dict[int, dict[str, Any]] = {}
        inputs = self.sweep.inputs
        for number, line in enumerate(data[:end].splitlines(), 1):
            try:
                row = json.loads(line)
                index = row["case"]
                ok = isinstance(index, int) and 0 <= index < len(inputs) and row["case_id"] == inputs[index]["case_id"]
            except (ValueError, KeyError, TypeError):
                ok = False
            if not ok:
                raise DicelabError(f"{self.dir}/rows.jsonl: line {number} is damaged or not of this sweep; "
                                   f"delete {self.dir}/ to start over")
            rows.setdefault(index, row)
        return rows

    def append(self, rows: Sequence[dict[str, Any]]) -> None:
        """Add finished rows (rows already journaled are skipped), written through to the file at once."""
        fresh = [r for r in rows if r["case"] not in self.rows]
        self._fh.write(b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in fresh))
        self._fh.flush()
        if time.monotonic() - self._synced >= SYNC_EVERY:
            self.sync()
        for r in fresh:
            self.rows[r["case"]] = r

    def sync(self) -> None:
        """Force the journal to disk."""
        os.fsync(self._fh.fileno())
        self._synced = time.monotonic()

    def close(self) -> None:
        self.sync()
        self._fh.close()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# ---------------------------------------------------------------- runners
def _ignore_sigint() -> None:
    """Pool workers leave Ctrl-C to the parent, which terminates them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalRunner:
    """Batches in this process (one worker) or in a pool of ``workers`` spawned processes."""

    def __init__(self, workers: int | None = None):
        from sims.engine import default_workers

        workers = default_workers() if workers is None else workers
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise DicelabError(f"workers = {workers!r} is not allowed; allowed: an integer >= 1")
        self.slots = workers

    def __enter__(self) -> "LocalRunner":
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    def run(self, method: Method, jobs: list[list[Case]]) -> Iterator[list[tuple[int, dict[str, Any]]]]:
        if self.slots == 1 or len(jobs) <= 1:
            for job in jobs:
                yield run_batch(method, job)
            return
        before = set(multiprocessing.active_children())
        pool = ProcessPoolExecutor(min(self.slots, len(jobs)), mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_ignore_sigint)
        finished = False
        try:
            for future in as_completed([pool.submit(run_batch, method, job) for job in jobs]):
                yield future.result()
            finished = True
        except BrokenProcessPool:
            raise DicelabError("the worker processes died or could not start (a script that runs a sweep needs "
                               "an `if __name__ == \"__main__\":` guard); try --workers 1") from None
        finally:
            pool.shutdown(wait=finished, cancel_futures=True)
            if not finished:
                for process in set(multiprocessing.active_children()) - before:
                    process.terminate()


class DaskRunner:
    """Batches as tasks on a Dask distributed cluster (``dask.distributed.Client(address)``)."""

    def __init__(self, address: str):
        self.address = address
        self.slots = 1

    def __enter__(self) -> "DaskRunner":
        from dask.distributed import Client

        try:
            self.client = Client(self.address, timeout="10s", set_as_default=False)
        except (OSError, TimeoutError, ValueError) as err:
            raise DicelabError(f"scheduler = {self.address!r} cannot be reached ({err}); allowed: the address of a "
                               "running Dask scheduler, e.g. tcp://host:8786") from None
        self.slots = max(1, sum(self.client.nthreads().values()))
        return self

    def __exit__(self, *exc: Any) -> None:
        self.client.close()

    def run(self, method: Method, jobs: list[list[Case]]) -> Iterator[list[tuple[int, dict[str, Any]]]]:
        from dask.distributed import as_completed as dask_completed

        futures = [self.client.submit(run_batch, method, job, pure=False) for job in jobs]
        try:
            for future in dask_completed(futures, loop=self.client.loop):
                yield future.result()
        finally:
            self.client.cancel(futures)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so both end a sweep the same way."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise _Terminated()


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# ---------------------------------------------------------------- progress
def _duration(seconds: float) -> str:
    """``H:MM:SS``, or ``?`` when unknown.

    >>> _duration(3725.4), _duration(float("nan"))
    ('1:02:05', '?')
    """
    return str(timedelta(seconds=round(seconds))) if math.isfinite(seconds) else "?"


class Progress:
    """Progress on ``stream``: a tqdm bar (``bar``), a plain line every ``every`` seconds (``lines``), or nothing."""

    def __init__(self, mode: str, total: int, done: int, stream: TextIO | None = None, every: float = 10.0):
        self.mode = Choice(PROGRESS).validate("progress", mode)
        self.stream = stream if stream is not None else sys.stderr
        self.total, self.first, self.done, self.every = total, done, done, every
        self.start = self.last = time.monotonic()
        self.bar = None
        if self.mode == "bar":
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=done, unit="case", desc="sweep", file=self.stream,
                            dynamic_ncols=True, smoothing=0.1)

    def note(self, text: str) -> None:
        """A one-off line (not in quiet mode)."""
        if self.bar is not None:
            self.bar.write(f"sweep: {text}", file=self.stream)
        elif self.mode == "lines":
            print(f"sweep: {text}", file=self.stream, flush=True)

    def update(self, count: int) -> None:
        self.done += count
        if self.bar is not None:
            self.bar.update(count)
        elif self.mode == "lines" and (time.monotonic() - self.last >= self.every or self.done == self.total):
            elapsed = time.monotonic() - self.start
            rate = (self.done - self.first) / elapsed if elapsed > 0 else float("nan")
            eta = (self.total - self.done) / rate if rate > 0 else float("nan")
            print(f"sweep: {self.done:,}/{self.total:,} cases ({100 * self.done / self.total:.1f}%), "
                  f"{rate:,.1f} cases/s, ETA {_duration(eta)}", file=self.stream, flush=True)
            self.last = time.monotonic()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# -------------------------------------------------------------------- run
def table(sweep: Sweep, rows: Iterable[Mapping[str, Any]]) -> Any:
    """The tidy table: one row per case in case order; the input columns, the outputs, ``dicelab_version``."""
    import pandas as pd

    ordered = sorted(rows, key=lambda r: r["case"])
    inputs = dict.fromkeys(k for row in sweep.inputs for k in row)
    results = dict.fromkeys(k for row in ordered for k in row if k not in inputs and k != "dicelab_version")
    return pd.DataFrame(ordered, columns=[*inputs, *results, "dicelab_version"])


def write_table(df: Any, out: str | os.PathLike[str], fmt: str) -> Path:
    """Write the table as Parquet or CSV, atomically."""
    fmt = Choice(FORMATS).validate("format", fmt)
    if fmt == "csv":
        data: str | bytes = df.to_csv(index=False)
    else:
        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        data = buf.getvalue()
    try:
        return write_atomic(out, data)
    except OSError as err:
        raise DicelabError(f"out = {str(out)!r} cannot be written: {err}") from None


def open_journal(out: str | os.PathLike[str], sweep: Sweep) -> Journal:
    """The journal of ``out`` for this sweep, an unwritable place as a one-line error."""
    try:
        return Journal(out, sweep)
    except OSError as err:
        raise DicelabError(f"out = {str(out)!r}: its journal cannot be written: {err}") from None


@dataclass(frozen=True)
class SweepSummary:
    """What a finished sweep did."""

    out: Path
    rows: int
    computed: int
    resumed: int
    seconds: float


def run_sweep(config: str | os.PathLike[str] | SweepConfig, out: str | os.PathLike[str], fmt: str | None = None,
              workers: int | None = None, scheduler: str | None = None, progress: str = "quiet",
              every: float = 10.0, stream: TextIO | None = None) -> SweepSummary:
    """Run the cases of ``config`` missing from ``OUT.journal/`` and write the whole table to ``out``.

    ``fmt``: ``parquet`` or ``csv`` (default: ``csv`` for a ``.csv`` name, else ``parquet``); ``workers``
    local processes (default: all cores) or ``scheduler`` a Dask scheduler address.  Raises
    :class:`Interrupted` on Ctrl-C/SIGTERM with every finished case journaled.
    """
    start = time.perf_counter()
    out = Path(out)
    fmt = Choice(FORMATS).validate("format", fmt or ("csv" if out.suffix.lower() == ".csv" else "parquet"))
    sweep = expand(config if isinstance(config, SweepConfig) else load_config(config))
    runner = DaskRunner(scheduler) if scheduler else LocalRunner(workers)
    with _sigterm_interrupts(), runner, open_journal(out, sweep) as journal:
        todo = [c for c in sweep.cases if c.index not in journal.rows]
        resumed = len(sweep.cases) - len(todo)
        bar = Progress(progress, len(sweep.cases), resumed, stream, every)
        where = f"Dask at {scheduler}" if scheduler else f"{runner.slots} worker{'s' * (runner.slots > 1)}"
        bar.note(f"{len(todo):,} of {len(sweep.cases):,} cases to compute ({resumed:,} in {journal.dir}/), {where}")
        try:
            jobs = batches(todo, sweep.method, runner.slots)
            with closing(runner.run(sweep.method, jobs)) as parts:
                for part in parts:
                    journal.append([{**sweep.inputs[i], **cols, "dicelab_version": __version__} for i, cols in part])
                    bar.update(len(part))
        except KeyboardInterrupt as exc:
            signum = signal.SIGTERM if isinstance(exc, _Terminated) else signal.SIGINT
            raise Interrupted(journal.dir, len(journal.rows), len(sweep.cases), signum) from None
        except CaseFailed as err:
            raise CaseFailed(f"{err}; the {len(journal.rows):,} finished cases are kept in {journal.dir}/") from None
        finally:
            bar.close()
        df = table(sweep, journal.rows.values())
        write_table(df, out, fmt)
    return SweepSummary(out, len(df), len(todo), resumed, time.perf_counter() - start)
