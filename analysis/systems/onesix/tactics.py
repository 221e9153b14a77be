"""2K's duel as a game (RULES.md section 8).  Under the IN economy (the default) it is the game of per-moment
decisions of :mod:`analysis.systems.onesix.moments`.  Under the old fixed order (``in_economy = false``), which
has no IN to decide with, each fighter picks once at the start of the duel one of the fixed scripts its policy
fields express (RULES.md section 5: ``parry`` always or never).

The scripts' game is the matrix game of the scripts, both sides choosing at
once, so its equilibrium may be a mix of scripts.  Each pair of scripts leads to the exact
duel of :func:`~analysis.systems.onesix.duel.duel` with those policies, laid out
as a chain the game's solver can walk:

- a line of round states ``R_1 .. R_K`` (``K`` the last round of the duel's
  rounds distribution): from ``R_k`` the fight ends with the duel's
  P(first out in round k), else goes on to ``R_k+1``;
- an end goes through one distributor to the duel's final pairs, in the duel's
  proportions, so each final pair (hence P(A wins), P(B wins), P(both out) and
  every level) is the duel's;
- what the duel's rounds distribution cut (``rounds_tail``) goes on from
  ``R_K`` to a tail state that ends each round with a fixed chance, chosen so
  that the mean rounds are the duel's exact mean; the stalemate goes to a state
  that never ends, and the truncated mass is missing from ``R_K``'s row as it
  is from the duel's chain.

The marginals (final pairs, rounds up to ``K``, the mean rounds, stalemate and
truncation) are the duel's; the joint law of rounds and outcome is not (nothing
here reads it).  Held to both fighters' own policies the game is the duel.

>>> a = Fighter(weapon_ps=5, weapon_class="wound", defense_rating=7)
>>> dg = tactics(Rules(in_economy=False), a, a.replace(reflexes=16))
>>> dg.decisions[0].name, dg.decisions[0].actions, dg.policies["a"]
('parry', ('always', 'never'), {'parry': ('always', 'never')})
>>> sol = dg.solution(dg.game.book("a"), dg.game.book("b"))
>>> abs(sol.p_a_wins - duel(Rules(in_economy=False), a, a.replace(reflexes=16)).solution.p_a_wins) < 1e-12
True
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from analysis.base.params import Bool, Choice, DicelabError
from analysis.engine.markov import Solution
from analysis.systems.onesix import moments
from analysis.systems.onesix.duel import duel, duel_states
from analysis.systems.onesix.rules import Fighter, Rules, track

if TYPE_CHECKING:
    from analysis.engine.decisions import DecisionGame

MODEL = ("scripts chosen once per duel (the fixed order has no IN to decide with: RULES.md section 5's policies as "
         "a matrix game; its equilibrium may mix them)")
"""What this game models, echoed in every output of it (``DecisionGame.model``)."""


GROUP_ONLY = ("target",)
"""Policy fields that act only in group fights (RULES.md section 7), inert in a duel: not scripts of its game."""


def scripts_of(f: Fighter) -> list[dict[str, Any]]:
    """Every script ``f``'s policy fields express (each field's values, the default first), one dict each.

    >>> scripts_of(Fighter(parry="never"))
    [{'parry': 'always'}, {'parry': 'never'}]
    """
    values = {}
    for name, spec in type(f).specs("policy").items():
        if name in GROUP_ONLY:
            continue
        if not isinstance(spec, (Choice, Bool)):
            raise DicelabError(f"onesix policy field {name}: only choices and switches can be scripts")
        options = spec.choices if isinstance(spec, Choice) else (False, True)
        default = type(f).defaults()[name]
        values[name] = (default, *(v for v in options if v != default))
    return [dict(zip(values, combo)) for combo in itertools.product(*values.values())]


def _label(script: Mapping[str, Any]) -> str:
    """An action's label: the value of a lone policy field, else ``field=value,...``."""
    if len(script) == 1:
        return str(next(iter(script.values())))
    return ",".join(f"{k}={v}" for k, v in script.items())


def _own(f: Fighter, scripts: list[dict[str, Any]]) -> int:
    """The index of the script ``f`` plays by its policies."""
    return next(k for k, s in enumerate(scripts) if all(getattr(f, n) == v for n, v in s.items()))


def _pair_chain(s: Solution, ends: Mapping[tuple[int, int], int], first: int) -> list[list[list[tuple[float, int]]]]:
    """The states of one script pair's chain (see the module docstring), numbered from ``first``: ``R_1 .. R_K``,
    the distributor, then the tail and the stalemate where the duel has them; each a list of options (one here)
    of ``(probability, next state)``.  The distributor is ``first + K``."""
    top = max(s.rounds, default=1)
    dist = first + top
    p_end = float(sum(s.ends.values()))
    rounds = [s.rounds.get(k, 0.0) for k in range(1, top + 1)]
    cut = max(p_end - sum(rounds), 0.0)
    extra = [(q, dist + 1 + k) for k, q in enumerate(q for q in (cut, s.p_stalemate) if q > 0)]
    states = []
    alive = 1.0
    for k, m in enumerate(rounds):
        row = [(m / alive, dist)] if m > 0 else []
        row += [((alive - m) / alive, first + k + 1)] if k + 1 < top else [(q / alive, t) for q, t in extra]
        states.append([row])
        alive -= m
    states.append([[(p / p_end, ends[pair]) for pair, p in s.ends.items() if p > 0]])
    if cut > 0:
        stay = _tail_stay(s, rounds, cut, p_end)
        states.append([[(stay, dist + 1), (1.0 - stay, dist)] if stay > 0 else [(1.0, dist)]])
    if s.p_stalemate > 0:
        states.append([[(1.0, len(states) + first)]])
    return states


def _tail_stay(s: Solution, rounds: list[float], cut: float, p_end: float) -> float:
    """The tail state's chance of going on a round, so that the mean rounds are the duel's: the tail enters at
    round ``K + 1`` and lasts ``stay / (1 - stay)`` more rounds on average (0 when nothing is cut, or when the
    exact mean leaves the tail no room: then the mean is the one of the tail ending at once)."""
    if cut <= 0 or s.mean_rounds is None:
        return 0.0
    known = sum((k + 1) * m for k, m in enumerate(rounds))
    more = (s.mean_rounds * p_end - known) / cut - (len(rounds) + 1)
    return more / (1.0 + more) if more > 0 else 0.0


def tactics(rules: Rules, a: Fighter, b: Fighter) -> DecisionGame:
    """Under the IN economy, the game of per-moment decisions (:func:`analysis.systems.onesix.moments.tactics`);
    under the fixed order, the matrix game of both fighters' scripts (see the module docstring): ``game.book_a``
    and ``book_b`` are the fighters' own scripts, ``scripts`` plays any values of their policy fields, one exact
    duel solved per pair of scripts (the caller checks the budget first: :func:`tactics_states`)."""
    if rules.in_economy:
        return moments.tactics(rules, a, b)
    from analysis.engine.decisions import Decision, DecisionGame  # numba loads only for a game
    from analysis.engine.game import Game

    sa, sb = scripts_of(a), scripts_of(b)
    solved = [duel(rules, a.replace(**x), b.replace(**y)).solution for x in sa for y in sb]  # row-major, as options
    pairs = sorted({pair for s in solved for pair in s.ends})
    ta, tb = track(rules, a), track(rules, b)
    ends = {pair: 1 + k for k, pair in enumerate(pairs)}
    options: list[list[list[tuple[float, int]]]] = [[] for _ in range(1 + len(pairs))]
    starts = []
    for s in solved:
        starts.append(len(options))
        options += _pair_chain(s, ends, len(options))
    options[0] = [[(1.0, first)] for first in starts]
    n = len(options)
    na, nb = np.ones(n, dtype=np.int64), np.ones(n, dtype=np.int64)
    na[0], nb[0] = len(sa), len(sb)
    na[1:1 + len(pairs)] = nb[1:1 + len(pairs)] = 0
    round_start = np.ones(n, dtype=bool)
    round_start[0] = False
    for first, s in zip(starts, solved):
        round_start[first + max(s.rounds, default=1)] = False  # the distributor is inside a round
    book_a, book_b = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    book_a[0], book_b[0] = _own(a, sa), _own(b, sb)
    game = Game.build(options, na, nb, np.zeros(n), round_start, book_a, book_b)

    def scripts(side: str, policy: Mapping[str, Any]) -> np.ndarray:
        own, listed = (a, sa) if side == "a" else (b, sb)
        picks = (book_a if side == "a" else book_b).copy()
        picks[0] = _own(own.replace(**policy), listed)
        return replace(game, **{f"book_{side}": picks}).book(side)

    decisions = tuple(Decision(_name(sa), side, tuple(_label(s) for s in listed), ())
                      for side, listed in (("a", sa), ("b", sb)))
    policies = {side: {name: tuple(dict.fromkeys(s[name] for s in listed)) for name in listed[0]}
                for side, listed in (("a", sa), ("b", sb))}
    start = np.zeros(1, dtype=np.int64)
    return DecisionGame(game, np.array(pairs, dtype=np.int64).reshape(-1, 2), ta, tb, decisions, (start, start),
                        (np.zeros((1, 0), dtype=np.int64),) * 2, scripts, policies, MODEL)


def _name(scripts: list[dict[str, Any]]) -> str:
    """The decision's name: the lone policy field, else ``script``."""
    return next(iter(scripts[0])) if len(scripts[0]) == 1 else "script"


def tactics_states(rules: Rules, a: Fighter, b: Fighter) -> int:
    """The largest of the script pairs' duels, in chain states (they are solved one after the other, so the peak
    memory is one duel's; the game itself is a few states per round).

    >>> tactics_states(Rules(), Fighter(), Fighter()) >= duel_states(Rules(), Fighter(), Fighter())
    True
    """
    if rules.in_economy:
        return moments.tactics_states(rules, a, b)
    return max(duel_states(rules, a.replace(**x), b.replace(**y)) for x in scripts_of(a) for y in scripts_of(b))
