"""What one case computes, as output columns, and the batches cases travel in (to a worker process or a Dask
worker and back)."""

from __future__ import annotations

import json
import math
from typing import Any, Iterable, Iterator, Mapping, Sequence, TypeVar

import numpy as np

from analysis.base.params import DicelabError
from analysis.engine.results import strict
from analysis.fights.budget import exact_group
from analysis.fights.play import played_duel
from analysis.front.sweep.config import Method
from analysis.front.sweep.expand import Case
from analysis.systems import get_system

BATCH = {"check": 256, "exchange": 64, "duel": 4, "group": 1}
"""Most cases per batch of exact work (Monte Carlo: one case per batch): a kill loses at most the batches in flight."""
ECHOED = frozenset({"system", "model", "method", "variants", "params", "a", "b", "attacker", "defender", "options",
                    "n", "seed", "side_a", "side_b"})
"""Keys of a result's ``to_dict()`` that echo the inputs: the case's own input columns hold them."""


T = TypeVar("T")


class CaseFailed(DicelabError):
    """A case raised while computing; the finished cases stay in the journal."""


def outputs(result: Mapping[str, Any]) -> dict[str, Any]:
    """A result's ``to_dict()`` as scalar columns in strict JSON: ``ci_x`` pairs split into ``ci_x_low``/
    ``ci_x_high``, other lists and mappings as JSON text, NaN and infinities as ``None`` (an empty cell), the
    echoed inputs left out (the case's columns hold them).

    >>> outputs({"system": "tristat", "p": 0.5, "ci_p": [0.4, 0.6], "distribution": {"1": 0.5}, "m": float("nan")})
    {'p': 0.5, 'ci_p_low': 0.4, 'ci_p_high': 0.6, 'distribution': '{"1": 0.5}', 'm': None}
    """
    out: dict[str, Any] = {}
    for name, value in result.items():
        if name in ECHOED:
            continue
        if name.startswith("ci_") and isinstance(value, (list, tuple)) and len(value) == 2:
            out[f"{name}_low"], out[f"{name}_high"] = strict(list(value))
        elif isinstance(value, (dict, list, tuple)):
            out[name] = _json_text(value)
        else:
            out[name] = strict(value)
    return out


def _json_text(value: Any) -> str:
    """Strict JSON text of a nested value (NaN and infinities as ``null``), quick when there are none."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, default=_plain)
    except ValueError:
        return json.dumps(strict(value), ensure_ascii=False, allow_nan=False, default=_plain)


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def case_seed(seed: int, case_id: str) -> np.random.SeedSequence:
    """A Monte Carlo case's seed: a child of the config's seed keyed by the case's id (a hash of its inputs), so
    a case draws the same numbers wherever it sits in the grid and whoever runs it.

    >>> case_seed(1, "00000000000000ff").spawn_key
    (255,)
    """
    return np.random.SeedSequence(seed, spawn_key=(int(case_id, 16),))


def compute(method: Method, case: Case) -> dict[str, Any]:
    """One case's output columns."""
    system = get_system(case.system)
    if method.method == "exact":
        if method.kind == "check":
            result = system.check(case.rules, case.args)
        elif method.play != "book":
            result = played_duel(system, case.rules, case.a, case.b, method.play)
        elif method.kind == "group":
            result = exact_group(system, case.rules, case.a, case.b)
        else:
            result = getattr(system, method.kind)(case.rules, case.a, case.b)
    else:
        from sims.api import simulate_check, simulate_duel, simulate_group

        seed = case_seed(method.seed or 0, case.case_id)
        if method.kind == "check":
            result = simulate_check(case.system, case.rules, case.args, method.n, seed=seed, workers=1)
        elif method.kind == "group":
            result = simulate_group(case.system, case.rules, case.a, case.b, method.n, seed=seed, workers=1)
        else:
            result = simulate_duel(case.system, case.rules, case.a, case.b, method.n, seed=seed,
                                   model=method.model or "full", options=case.options, workers=1)
    return outputs(result.to_dict())


def warm(method: Method, cases: Iterable[Case]) -> None:
    """Compile (or load from numba's cache) the Monte Carlo kernels the cases use, here, once, before workers
    start: one trial of the first case of each system."""
    if method.method != "monte_carlo":
        return
    seen: set[str] = set()
    for case in cases:
        if case.system not in seen:
            seen.add(case.system)
            compute(Method(method.kind, method.method, 1, 0, method.model), case)


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


def batch_size(count: int, method: Method, slots: int) -> int:
    """Cases per batch: about eight batches per worker slot, at most :data:`BATCH` (Monte Carlo: one case)."""
    cap = 1 if method.method == "monte_carlo" else BATCH[method.kind]
    return max(1, min(cap, math.ceil(count / (8 * slots))))


def batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Items (cases, table rows) cut into lists of ``size``, lazily.

    >>> list(batches(range(5), 2))
    [[0, 1], [2, 3], [4]]
    """
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
