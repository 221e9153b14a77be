"""A duel as a game of decisions: the game graph a system builds, what each decision is, and the duel it plays.

A system that models decisions (RULES.md section 8) builds a :class:`DecisionGame`:
the :class:`~analysis.engine.game.Game` over its chain's states at decision
granularity, whose end states are final pairs of conditions of both fighters'
tracks; each choosing state names its :class:`Decision` (who decides, the
actions, what the decider knows) and the values of what it knows (its
*features*), so a solved strategy reads as a table ("parry when your IN >= 7").
The book's play is the game with both sides held to their policies, and must
give the duel's own numbers.

Objectives (RULES.md section 8): ``wins`` (default) values an end at
P(A wins) - P(B wins), i.e. +1 when only A is up, -1 when only B is, 0 when
both are out; ``survive`` values it at -1 when A ends dying or worse (A plays
to survive, B to kill it).

>>> from analysis.engine.markov import OUT, UP, Track
>>> t = Track(labels=("fine", "out"), status=(UP, OUT))
>>> payoffs(np.array([[0, 1], [1, 0], [1, 1]]), t, t, "wins").tolist()
[1.0, -1.0, 0.0]
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

import numpy as np

from analysis.engine.game import Game, evaluate
from analysis.engine.markov import DYING, UP, Solution, Track, solution_of

OBJECTIVES = ("wins", "survive")
PER_MOMENT = "per moment: each decision taken when the rules give it, knowing what they let the decider know then"
"""The model of decisions of RULES.md section 8 (:attr:`DecisionGame.model` unless a system says otherwise)."""


@dataclass(frozen=True)
class Decision:
    """One kind of decision of RULES.md section 8: its name (``parry``, ``stance``...), the side taking it,
    the actions (labels, in the order of the game's actions) and the names of the features the decider knows."""

    name: str
    side: str
    actions: tuple[str, ...]
    features: tuple[str, ...]


@dataclass(frozen=True)
class DecisionGame:
    """A duel's game: ``game`` (its ``payoff`` is set by :meth:`with_objective`; ``book_a``/``book_b`` are the
    fighters' own policies), its final pairs ``ends`` (one row ``(a condition, b condition)`` per end state, in
    state order) over the tracks ``a`` and ``b``; the decisions, and for each decision ``d`` its states
    ``states[d]`` with their feature values ``features[d]`` (one row per state, one column per
    ``decisions[d].features``).

    ``scripts(side, policy)`` is the strategy of a fixed script: ``side``'s fighter with the policy fields
    ``policy`` (a mapping of field to value, the rest as the fighter has them); ``policies[side]`` lists the
    policy fields the game expresses and their values (the scripts :func:`analysis.fights.tactics.dominated`
    compares).  ``model`` says in plain words which model of decisions the game is (echoed in every output).
    """

    game: Game
    ends: np.ndarray
    a: Track
    b: Track
    decisions: tuple[Decision, ...]
    states: tuple[np.ndarray, ...]
    features: tuple[np.ndarray, ...]
    scripts: Callable[[str, Mapping[str, Any]], np.ndarray] | None = None
    policies: Mapping[str, Mapping[str, tuple[Any, ...]]] = field(default_factory=dict)
    model: str = PER_MOMENT

    def with_objective(self, objective: str = "wins") -> "DecisionGame":
        """The same game paying at its ends what ``objective`` values."""
        payoff = np.zeros(self.game.n)
        payoff[self.game.ends] = payoffs(self.ends, self.a, self.b, objective)
        return replace(self, game=self.game.paying(payoff))

    def solution(self, a_strategy: np.ndarray, b_strategy: np.ndarray, rounds: bool = True) -> Solution:
        """The duel's :class:`~analysis.engine.markov.Solution` when A and B play these strategies (``rounds``
        false: its rounds distribution only to round 1, see :func:`~analysis.engine.game.evaluate`)."""
        got = evaluate(self.game, a_strategy, b_strategy, rounds)
        return solution_of(got, self.ends, self.a, self.b, self.game.n)


def payoffs(ends: np.ndarray, a: Track, b: Track, objective: str) -> np.ndarray:
    """A's payoff at each final pair under ``objective`` (see the module docstring)."""
    sa = np.asarray(a.status)[ends[:, 0]]
    sb = np.asarray(b.status)[ends[:, 1]]
    if objective == "survive":
        return -(sa >= DYING).astype(float)
    return (sa == UP).astype(float) - (sb == UP).astype(float)


@dataclass(frozen=True)
class PolicyTable:
    """One side's strategy for one decision as a dense table over what the decider knows (for a simulator):
    feature ``f`` runs over ``lo[f] .. lo[f] + shape[f] - 1``; ``probs[cell]`` holds each action's probability
    at that cell (row-major over the features), ``NaN`` where no state of the game has those features."""

    decision: str
    side: str
    actions: tuple[str, ...]
    features: tuple[str, ...]
    lo: np.ndarray
    shape: np.ndarray
    probs: np.ndarray

    def cell(self, values: np.ndarray) -> int:
        """The row of ``probs`` for the feature values ``values``."""
        return int(np.ravel_multi_index(tuple(np.asarray(values) - self.lo), tuple(self.shape)))


def policy_tables(dg: DecisionGame, a_strategy: np.ndarray, b_strategy: np.ndarray) -> tuple[PolicyTable, ...]:
    """The play ``(a_strategy, b_strategy)`` as one :class:`PolicyTable` per decision.  Two states a decider
    cannot tell apart (the same features) must get the same strategy: otherwise the strategy uses what the
    decider does not know, and this refuses it naming the decision."""
    g = dg.game
    out = []
    for dec, states, feats in zip(dg.decisions, dg.states, dg.features):
        feats = np.asarray(feats, dtype=np.int64).reshape(len(states), len(dec.features))
        lo = feats.min(axis=0) if len(states) else np.zeros(len(dec.features), dtype=np.int64)
        shape = (feats.max(axis=0) - lo + 1) if len(states) else np.ones(len(dec.features), dtype=np.int64)
        offsets = g.a_offsets if dec.side == "a" else g.b_offsets
        strategy = a_strategy if dec.side == "a" else b_strategy
        rows = strategy[offsets[states][:, None] + np.arange(len(dec.actions))[None, :]]
        probs = np.full((int(np.prod(shape)), len(dec.actions)), np.nan)
        cells = (np.ravel_multi_index(tuple((feats - lo).T), tuple(shape)) if len(states) and dec.features
                 else np.zeros(len(states), int))
        for cell, row in zip(cells, rows):
            if not np.isnan(probs[cell, 0]) and np.abs(probs[cell] - row).max() > 1e-9:
                raise ValueError(f"decision {dec.name} ({dec.side}): two states with the same features "
                                 f"{dict(zip(dec.features, np.unravel_index(cell, tuple(shape))))} are played "
                                 "differently: the features miss something the strategy uses")
            probs[cell] = row
        out.append(PolicyTable(dec.name, dec.side, dec.actions, dec.features, lo, shape, probs))
    return tuple(out)
