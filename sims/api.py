"""The Monte Carlo API: simulated checks and duels for every system.

Each system's kernels live in ``sims/<id>.py``, which exposes ``Options`` (a
validated dataclass of boolean switches for the rules the exact chain leaves
out, all on by default), ``check_call``, ``CHECK_EXTRAS`` and ``duel_call``, and optionally
``duel_extra(rules, a, b, counts, n)``: system-specific fields of a simulated duel.

>>> from analysis.systems import get_system
>>> s = get_system("tristat")
>>> r = simulate_check("tristat", s.rules(), s.args(target=7), n=20_000, seed=1)
>>> r.p_success.agrees(7 / 12)
True
"""

from __future__ import annotations

import dataclasses
import importlib
from types import ModuleType
from typing import Any, Mapping, Sequence

import numpy as np

from analysis.base.params import Choice, DicelabError, Validated
from analysis.engine.combat import describe_fighter
from analysis.systems import get_system
from sims.engine import Seed, Stopped, run_chunks
from sims.groups import SimGroupResult, sides_echo
from sims.results import SimCheckResult, SimDuelResult

MODELS = ("exact", "full")


def sim_module(system_id: str) -> ModuleType:
    """The kernels module of a system."""
    get_system(system_id)
    return importlib.import_module(f"sims.{system_id}")


def _kernels_with(system_id: str, call: str, part: str) -> ModuleType | None:
    """The module defining ``call`` for ``system_id``: its kernels module, else ``sims/<id>_<part>.py``, else
    None."""
    module = sim_module(system_id)
    if hasattr(module, call):
        return module
    try:
        return importlib.import_module(f"sims.{system_id}_{part}")
    except ModuleNotFoundError:
        return None


def group_module(system_id: str) -> ModuleType | None:
    """The module whose ``group_call`` simulates ``system_id``'s group fights: its kernels module, else
    ``sims/<id>_groups.py`` (a group kernel built on the duel's), else None (not simulated yet)."""
    return _kernels_with(system_id, "group_call", "groups")


def policy_module(system_id: str) -> ModuleType | None:
    """The module whose ``policy_call`` plays ``system_id``'s duels by a solved strategy: its kernels module, else
    ``sims/<id>_tactics.py`` (a kernel built on the duel's), else None (not simulated yet)."""
    return _kernels_with(system_id, "policy_call", "tactics")


def options_for(system_id: str, model: str, options: Mapping[str, Any] | Validated | None = None) -> Validated:
    """The rule switches for a model: all off for ``exact``, the defaults (on) for ``full``, then ``options``."""
    model = Choice(MODELS).validate("model", model)
    cls = sim_module(system_id).Options
    if isinstance(options, cls):
        return options
    base = cls() if model == "full" else cls(**{f.name: False for f in dataclasses.fields(cls) if f.name in cls.specs()})
    return cls.from_text(dict(options or {}), base=base)


def simulate_check(system_id: str, rules: Any, args: Any, n: int, seed: Seed = None,
                   workers: int | None = None, progress: Any = None) -> SimCheckResult:
    """``n`` simulated checks of one system; P(success) with SE and CI, the outcome histogram.

    Ctrl-C returns the trials finished so far, marked ``interrupted`` (see :func:`sims.engine.run_chunks`).
    """
    module, system = sim_module(system_id), get_system(system_id)
    counts, done = _run(module.check_call(rules, args), n, seed, workers, progress)
    return SimCheckResult(system_id, rules.to_dict(), args.to_dict(), system.check(rules, args).outcome, done,
                          _seed_echo(seed), counts, module.CHECK_EXTRAS, n_requested=int(n))


def check_policy_play(system_id: str) -> None:
    """Refuse, before anything is solved, a duel played by a solved strategy that ``system_id``'s simulator cannot
    play (neither its kernels module nor ``sims/<id>_tactics.py`` has a ``policy_call``)."""
    if policy_module(system_id) is None:
        raise DicelabError(f"{system_id}: duels played by a solved strategy are not simulated yet (RULES.md section "
                           f"8); allowed: --play book, or the exact duel: dicelab duel {system_id} --play ...")


def simulate_duel(system_id: str, rules: Any, a: Any, b: Any, n: int, seed: Seed = None, model: str = "full",
                  options: Mapping[str, Any] | Validated | None = None, workers: int | None = None,
                  progress: Any = None, policy: Sequence[Any] | None = None) -> SimDuelResult:
    """``n`` simulated duels under the ``full`` rules (or the ``exact`` chain's model); Ctrl-C returns the trials
    finished so far, marked ``interrupted``.  ``policy``: the decisions played by a solved strategy instead of the
    fighters' policies (:func:`analysis.engine.decisions.policy_tables` of the system's decision game; the
    system's kernels module provides ``policy_call(rules, a, b, tables)``)."""
    module = sim_module(system_id)
    opts = options_for(system_id, model, options)
    if policy is not None:
        check_policy_play(system_id)
    call = module.duel_call(rules, a, b, model, opts) if policy is None else \
        policy_module(system_id).policy_call(rules, a, b, policy)
    counts, done = _run(call, n, seed, workers, progress)
    extra = module.duel_extra(rules, a, b, counts, done) if hasattr(module, "duel_extra") else {}
    if policy is not None:
        extra = {**extra, "policy": sorted({f"{t.decision} ({t.side})" for t in policy})}
    return SimDuelResult(system_id, model, rules.to_dict(), opts.to_dict(), describe_fighter(a, rules),
                         describe_fighter(b, rules), done, _seed_echo(seed), counts, extra, n_requested=int(n))


def simulate_group(system_id: str, rules: Any, side_a: Sequence[Any], side_b: Sequence[Any], n: int,
                   seed: Seed = None, workers: int | None = None, progress: Any = None) -> SimGroupResult:
    """``n`` simulated group fights (RULES.md section 7) of the sides ``side_a`` and ``side_b`` (sequences of
    fighters); :func:`group_module` provides ``group_call(rules, side_a, side_b)``.  Ctrl-C returns the trials
    finished so far, marked ``interrupted``."""
    module = group_module(system_id)
    if module is None:
        raise DicelabError(f"{system_id}: group fights are not simulated yet (RULES.md section 7)")
    counts, done = _run(module.group_call(rules, list(side_a), list(side_b)), n, seed, workers, progress)
    return SimGroupResult(system_id, rules.to_dict(), sides_echo(side_a, rules), sides_echo(side_b, rules), done,
                          _seed_echo(seed), counts, n_requested=int(n))


def _run(call: Any, n: int, seed: Seed, workers: int | None, progress: Any) -> tuple[np.ndarray, int]:
    """(counts, trials done): all ``n``, or the chunks finished before Ctrl-C."""
    try:
        return run_chunks(call, n, seed, workers, progress=progress), int(n)
    except Stopped as stop:
        return stop.counts, stop.n


def _seed_echo(seed: Seed) -> Any:
    """The seed as echoed in results: an int as is, a SeedSequence by its entropy and spawn key."""
    if isinstance(seed, np.random.SeedSequence):
        return {"entropy": seed.entropy, "spawn_key": list(seed.spawn_key)}
    return seed if isinstance(seed, int) or seed is None else "generator"
