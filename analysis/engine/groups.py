"""What a group fight reports (RULES.md section 7): sides' wins, survivors able to act, each fighter's levels.

A fight's end is the status of every fighter (``up``, ``out``, ``dying``,
``dead`` as in :mod:`analysis.engine.markov`), side A's then side B's, in the
sides' listed order.  :func:`group_solution` turns the mass absorbed at each
end (an :class:`~analysis.engine.markov.Absorption`) into a
:class:`GroupSolution`: P(side A wins) (someone of A up, nobody of B), P(side
B wins), P(both out), P(never ends), the distribution of survivors able to
act on each side, per fighter P(out / dying / dead or worse), and the rounds.
A one-against-one fight is a duel: its solution holds the duel's numbers.

>>> from analysis.engine.markov import OUT, UP, absorb
>>> import scipy.sparse as sp
>>> got = absorb(sp.csr_matrix((1, 1)), sp.csr_matrix([[0.75, 0.25]]), np.array([1.0]))
>>> ends = np.array([[UP, UP, OUT], [OUT, UP, UP]])   # A: one fighter; B: two
>>> sol = group_solution(got, ends, 1, ("hero",), ("mook", "mook"), states=3)
>>> sol.p_a_wins, sol.p_b_wins, sol.survivors_b
(0.0, 0.25, {0: 0.0, 1: 0.75, 2: 0.25})
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from analysis.engine.markov import DEAD, DYING, OUT, UP, Absorption, Solution
from analysis.engine.results import fight_assumptions, house_rules_echo, strict


@dataclass(frozen=True)
class FighterLevels:
    """One fighter's P(out), P(dying) and P(dead), each "at that level or worse" at the fight's end."""

    side: str
    index: int
    name: str
    p_out: float
    p_dying: float
    p_dead: float

    def to_dict(self) -> dict[str, Any]:
        return {"side": self.side, "index": self.index, "name": self.name, "p_out": self.p_out,
                "p_dying": self.p_dying, "p_dead": self.p_dead}


@dataclass(frozen=True)
class GroupSolution:
    """The outcome of a group fight (see the module docstring); ``survivors_x[k]`` = P(k of side x able to act
    at the end)."""

    p_a_wins: float
    p_b_wins: float
    p_both_out: float
    p_stalemate: float
    survivors_a: dict[int, float]
    survivors_b: dict[int, float]
    fighters: tuple[FighterLevels, ...]
    rounds: dict[int, float]
    mean_rounds: float | None
    rounds_tail: float
    states: int
    truncation: float = 0.0
    final: dict[tuple[int, ...], float] = field(default_factory=dict, repr=False)


def group_solution(got: Absorption, ends: np.ndarray, size_a: int, names_a: Sequence[str], names_b: Sequence[str],
                   states: int) -> GroupSolution:
    """The :class:`GroupSolution` of an absorption whose columns are the ends ``ends`` (one row of statuses per
    end: side A's ``size_a`` fighters, then side B's)."""
    ends = np.asarray(ends)
    mass = np.asarray(got.absorbed, dtype=float)
    up_a = (ends[:, :size_a] == UP).sum(axis=1)
    up_b = (ends[:, size_a:] == UP).sum(axis=1)
    p_a = float(mass[(up_a > 0) & (up_b == 0)].sum())
    p_b = float(mass[(up_b > 0) & (up_a == 0)].sum())
    p_both = float(mass[(up_a == 0) & (up_b == 0)].sum())
    surv_a = {k: float(mass[up_a == k].sum()) for k in range(size_a + 1)}
    surv_b = {k: float(mass[up_b == k].sum()) for k in range(len(names_b) + 1)}
    fighters = []
    for col, (side, i, name) in enumerate([("a", i, n) for i, n in enumerate(names_a)]
                                          + [("b", i, n) for i, n in enumerate(names_b)]):
        s = ends[:, col]
        fighters.append(FighterLevels(side, i, name, float(mass[s >= OUT].sum()), float(mass[s >= DYING].sum()),
                                      float(mass[s == DEAD].sum())))
    final: dict[tuple[int, ...], float] = {}
    for row, p in zip(map(tuple, ends.tolist()), mass.tolist()):
        if p > 0:
            final[row] = final.get(row, 0.0) + p
    return GroupSolution(p_a, p_b, p_both, got.p_stalemate, surv_a, surv_b, tuple(fighters), got.rounds,
                         got.mean_rounds, got.rounds_tail, states, got.truncation, final)


def from_duel(sol: Solution, name_a: str, name_b: str) -> GroupSolution:
    """A duel's :class:`~analysis.engine.markov.Solution` as the :class:`GroupSolution` of one against one (the
    same numbers: a one-on-one group fight is the duel).

    >>> from analysis.engine.markov import from_rounds, Track
    >>> t = Track(labels=("fine", "out"), status=(UP, OUT))
    >>> g = from_duel(from_rounds({(0, 1): 0.75, (1, 0): 0.25}, t, t, {1: 1.0}), "a", "b")
    >>> g.p_a_wins, g.survivors_a, g.fighters[1].p_out
    (0.75, {0: 0.25, 1: 0.75}, 0.75)
    """
    fighters = tuple(FighterLevels(side, 0, name, getattr(sol, f"p_{side}_out"), getattr(sol, f"p_{side}_dying"),
                                   getattr(sol, f"p_{side}_dead")) for side, name in (("a", name_a), ("b", name_b)))
    ends = sol.p_a_wins + sol.p_b_wins + sol.p_both_out
    return GroupSolution(sol.p_a_wins, sol.p_b_wins, sol.p_both_out, sol.p_stalemate,
                         {0: ends - sol.p_a_wins, 1: sol.p_a_wins}, {0: ends - sol.p_b_wins, 1: sol.p_b_wins},
                         fighters, dict(sol.rounds), sol.mean_rounds, sol.rounds_tail, sol.states, sol.truncation)


def number_copies(perm: Sequence[int], kinds: Sequence[Any]) -> tuple[int, ...]:
    """An order of play ``perm`` (fighter indices) with the copies of each kind (``kinds[i]``: e.g. side and
    fighter) put in listed order along their places, so exchangeable fighters give one order.

    >>> number_copies((2, 0, 1), ["x", "y", "x"])   # fighters 0 and 2 alike: the first to act is 0
    (0, 2, 1)
    """
    out = list(perm)
    for kind in {kinds[i] for i in perm}:
        places = [k for k, i in enumerate(perm) if kinds[i] == kind]
        for k, i in zip(places, sorted(perm[k] for k in places)):
            out[k] = i
    return tuple(out)


def strike_helpless(dist: Mapping[tuple, float], v: int, kernel: np.ndarray, index: Mapping[Any, int],
                    labels: Sequence[Any]) -> dict[tuple, float]:
    """A distribution over every fighter's condition after fighter ``v`` takes ``kernel`` (its track's rows to
    columns: the finishing attacks on a helpless fighter); ``index`` and ``labels`` map its conditions to rows.

    >>> strike_helpless({("up", 0): 1.0}, 1, np.array([[0.5, 0.5], [0.0, 1.0]]), {0: 0, 1: 1}, [0, 1])
    {('up', 0): 0.5, ('up', 1): 0.5}
    """
    out: dict[tuple, float] = {}
    for c, p in dist.items():
        row = kernel[index[c[v]]]
        for to in np.flatnonzero(row):
            c2 = c[:v] + (labels[to],) + c[v + 1:]
            out[c2] = out.get(c2, 0.0) + p * float(row[to])
    return out


def final_levels(dist: Mapping[tuple, float], level: Callable[[int, Any], int]) -> dict[tuple, float]:
    """The fight's end states ``("end", levels)`` from a distribution over every fighter's condition, where
    ``level(i, condition)`` is fighter ``i``'s level (:data:`~analysis.engine.markov.UP` ...).

    >>> final_levels({(0, 3): 0.25, (1, 3): 0.75}, lambda i, c: UP if c < 2 else OUT)
    {('end', (0, 1)): 1.0}
    """
    out: dict[tuple, float] = {}
    for c, p in dist.items():
        key = ("end", tuple(level(i, x) for i, x in enumerate(c)))
        out[key] = out.get(key, 0.0) + p
    return out


@dataclass(frozen=True)
class GroupResult:
    """An exact group fight as every output shows it: the system, its ruleset, both sides (each fighter as
    :func:`~analysis.engine.combat.describe_fighter` echoes it), the order of play in words, the
    :class:`GroupSolution` (``states``: the chain's; ``truncation``: what a truncated roll lost, 0 when nothing
    was) and system-specific fields (``extra``: warnings, notes...)."""

    system: str
    variants: Mapping[str, Any]
    side_a: tuple[Mapping[str, Any], ...]
    side_b: tuple[Mapping[str, Any], ...]
    order: str
    solution: GroupSolution
    model: str = "exact"
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        s = self.solution
        out: dict[str, Any] = {
            "system": self.system, "model": self.model, "variants": dict(self.variants),
            "house_rules": house_rules_echo(self.system, self.variants),
            "assumptions": fight_assumptions(self.system, self.variants, self.side_a, self.side_b),
            "side_a": [dict(f) for f in self.side_a], "side_b": [dict(f) for f in self.side_b],
            "order": self.order, "p_a_wins": s.p_a_wins, "p_b_wins": s.p_b_wins,
            "p_both_out": s.p_both_out, "p_stalemate": s.p_stalemate,
            "survivors_a": {str(k): v for k, v in s.survivors_a.items()},
            "survivors_b": {str(k): v for k, v in s.survivors_b.items()},
            "fighters": [f.to_dict() for f in s.fighters], "mean_rounds": s.mean_rounds,
            "rounds": {str(k): v for k, v in s.rounds.items()}, "rounds_tail": s.rounds_tail,
            "truncation": s.truncation, "states": s.states}
        out.update(self.extra)
        return strict(out)
