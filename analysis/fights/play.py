"""A duel played three ways (``--play``): by the book (the fighters' policies), by A's best response to B's book
play, or by both sides' equilibrium strategies (RULES.md section 8).

:func:`played_duel` is the exact duel, played as asked: the book is the duel
itself (:func:`~analysis.fights.budget.exact_duel`); another play solves the
system's decision game (guarded by :func:`~analysis.fights.budget.check_tactics`)
and reports the duel's figures under the solved strategies, its timing text
naming the game's model of decisions.
:func:`played_tables` gives the same strategies as policy tables, for the
simulator (``simulate_duel(..., policy=...)``).

>>> from analysis.systems import get_system
>>> from analysis.fights.fighters import load_fighter
>>> tun = get_system("tun")
>>> a = load_fighter(tun, "trained_armed")
>>> played_duel(tun, tun.rules(), a, a, "book").solution.p_a_wins == tun.duel(tun.rules(), a, a).solution.p_a_wins
True
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Iterable

from analysis.base.params import ParamError
from analysis.engine.decisions import PolicyTable, policy_tables
from analysis.engine.system import System
from analysis.fights.budget import MEMORY_ENV, check_tactics, exact_duel
from analysis.fights.tactics import PLAYS, played, require_decisions

PLAY_STEPS = 3
"""The steps :func:`played_duel` reports to its ``progress``: the duel solved, the decision game built, the game
solved and read (the book takes the first alone)."""


def check_play(play: str) -> str:
    """``play`` if it is one of :data:`~analysis.fights.tactics.PLAYS`, else one line naming them."""
    if play not in PLAYS:
        raise ParamError("play", play, "one of " + ", ".join(PLAYS))
    return play


def _strategies(system: System, rules: Any, a: Any, b: Any, play: str, decide: Iterable[str] | None,
                objective: str, option: str | None, limit_gb: float | None = None,
                progress: Callable[[int], None] | None = None) -> tuple[Any, Any, Any]:
    """The decision game, its :class:`~analysis.fights.tactics.Play` and its solved strategies under ``play``
    (``progress(1)`` once the game is built and once it is solved)."""
    require_decisions(system)
    check_tactics(system, rules, a, b, limit_gb=limit_gb, option=option or f"{MEMORY_ENV}=GB")
    dg = system.tactics(rules, a, b)
    if progress is not None:
        progress(1)
    got = played(dg, play, decide, objective)
    if progress is not None:
        progress(1)
    return (dg, *got)


def played_duel(system: System, rules: Any, a: Any, b: Any, play: str = "book", decide: Iterable[str] | None = None,
                objective: str = "wins", option: str | None = f"{MEMORY_ENV}=GB", limit_gb: float | None = None,
                progress: Callable[[int], None] | None = None) -> Any:
    """The exact duel (a :class:`~analysis.engine.combat.DuelResult`) with both sides playing as ``play`` says:
    the book is the duel itself; otherwise its solution is the decision game's under the solved strategies
    (``limit_gb`` and ``option``: the memory ceiling and the way past it, as for
    :func:`~analysis.fights.budget.exact_duel`; ``progress(1)`` as each of the :data:`PLAY_STEPS` steps ends).

    >>> from analysis.systems import get_system
    >>> from analysis.fights.fighters import load_fighter
    >>> steps = []
    >>> tun = get_system("tun")
    >>> got = played_duel(tun, tun.rules(), load_fighter(tun, "novice"), load_fighter(tun, "novice"), "equilibrium",
    ...                   progress=steps.append)
    >>> len(steps) == PLAY_STEPS
    True
    """
    check_play(play)
    res = exact_duel(system, rules, a, b, limit_gb=limit_gb, option=option)
    if progress is not None:
        progress(1)
    if play == "book":
        return res
    dg, got, _ = _strategies(system, rules, a, b, play, decide, objective, option, limit_gb, progress)
    return replace(res, solution=got.solution,
                   order=f"{res.order}; decisions played ({play}): {dg.model}")


def played_tables(system: System, rules: Any, a: Any, b: Any, play: str, decide: Iterable[str] | None = None,
                  objective: str = "wins", option: str = f"{MEMORY_ENV}=GB") -> tuple[PolicyTable, ...]:
    """Both sides' strategies under ``play`` as policy tables for ``simulate_duel(..., policy=...)``."""
    dg, _, sol = _strategies(system, rules, a, b, check_play(play), decide, objective, option)
    return policy_tables(dg, sol.a_strategy, sol.b_strategy)
