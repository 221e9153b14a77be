"""Tactics played well: a duel's decisions (RULES.md section 8) solved as a game, against the book's scripts.

:func:`analyse` takes a system's :class:`~analysis.engine.decisions.DecisionGame` and
plays it three ways: **book** (both sides by their fighters' policies), **best
response** (A plays the best reply to B's book play) and **equilibrium** (both
play well: the game's value).  For each decision it reports how often the
option is taken under equilibrium play (``share_taken``: the visit-weighted
share of its moments where the decider takes anything but the plain action,
``actions[0]``) and what it is worth (the value the side loses when forbidden
it: held to the plain action there, the rest still played well); which fixed
scripts are dominated; and a **simple rule**, a depth-2 tree over what the
decider knows, fitted to A's equilibrium play, with the share of the
equilibrium's gain over the book script it keeps against an opponent who
plays well (fitted to the decision worth the most to A; a decision taken
knowing nothing, such as a script chosen once per duel, is its action).  The
result echoes the game's model of decisions (``decisions_model``).  ``decide``
limits the solved decisions to those named; every other decision stays at each
fighter's policy.

Values are in the objective's units: under ``wins``, P(A wins) - P(B wins).
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from analysis.base.params import DicelabError, ParamError
from analysis.engine.decisions import OBJECTIVES, PER_MOMENT, DecisionGame
from analysis.engine.game import TOL, GameSolution, solve, visits
from analysis.engine.markov import Solution

PLAYS = ("book", "best", "equilibrium")
"""The ways a duel can be played: the fighters' scripts, A's best response to B's script, both playing well."""
EPS = 1e-9
"""Value differences smaller than this are ties (a script is dominated only by a margin above it)."""


@dataclass(frozen=True)
class Play:
    """One way of playing the duel: its value and the duel's figures."""

    value: float
    solution: Solution

    def to_dict(self) -> dict[str, Any]:
        s = self.solution
        return {"value": self.value, "p_a_wins": s.p_a_wins, "p_b_wins": s.p_b_wins, "p_both_out": s.p_both_out,
                "p_stalemate": s.p_stalemate, "mean_rounds": s.mean_rounds}


@dataclass(frozen=True)
class DecisionWorth:
    """A decision under equilibrium play: how often its option is taken and what it is worth to its side."""

    name: str
    side: str
    share_taken: float | None
    worth: float
    actions: Mapping[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "side": self.side, "share_taken": self.share_taken, "worth": self.worth,
                "actions": dict(self.actions)}


@dataclass(frozen=True)
class SimpleRule:
    """A depth-2 tree over what the decider knows, fitted to its equilibrium play, and what it keeps."""

    side: str
    decision: str
    text: str
    agreement: float
    share_of_gain: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"side": self.side, "decision": self.decision, "text": self.text, "agreement": self.agreement,
                "share_of_gain": self.share_of_gain}


class PolicyRows(Sequence[dict[str, Any]]):
    """The equilibrium's strategy at every decision state (:func:`policy_rows`), made when first read: the
    report and the app never read them, and a large game has hundreds of thousands.

    >>> rows = PolicyRows(lambda: iter([{"decision": "parry"}]))
    >>> len(rows), rows[0]["decision"], rows == [{"decision": "parry"}]
    (1, 'parry', True)
    """

    def __init__(self, make: Callable[[], Iterable[dict[str, Any]]]) -> None:
        self._make = make

    @cached_property
    def _rows(self) -> tuple[dict[str, Any], ...]:
        return tuple(self._make())

    def __getitem__(self, i: Any) -> Any:
        return self._rows[i]

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self._rows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self._rows == tuple(other)

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Tactics:
    """What :func:`analyse` finds (``policy``: the equilibrium's strategy at every decision state)."""

    objective: str
    decide: tuple[str, ...]
    book: Play
    best_response: Play
    equilibrium: Play
    decisions: tuple[DecisionWorth, ...]
    dominated: Mapping[str, tuple[str, ...]]
    simple_rule: SimpleRule | None
    residual: float
    policy: Sequence[dict[str, Any]]
    tolerance: float = TOL
    model: str = PER_MOMENT

    def to_dict(self) -> dict[str, Any]:
        names = sorted({n for side in self.dominated.values() for n in side})
        return {"objective": self.objective, "decisions_model": self.model, "decide": list(self.decide),
                "book": self.book.to_dict(),
                "best_response": self.best_response.to_dict(), "equilibrium": self.equilibrium.to_dict(),
                "decisions": [d.to_dict() for d in self.decisions], "dominated": names,
                "dominated_by_side": {k: list(v) for k, v in self.dominated.items()},
                "simple_rule": self.simple_rule.to_dict() if self.simple_rule else None,
                "tolerance": self.tolerance, "residual": self.residual}


def analyse(dg: DecisionGame, decide: Iterable[str] | None = None, objective: str = "wins",
            rounds: bool = False) -> Tactics:
    """Book, best response and equilibrium play of ``dg``, each decision's share and worth, the dominated
    scripts and A's simple rule (see the module docstring); ``rounds``: the equilibrium's figures with its whole
    rounds distribution, as :func:`played` gives them (the others stop after round 1)."""
    names = decided(dg, decide)
    dg = _objective(dg, objective)
    g = dg.game
    book_a = g.book("a")
    free_a, free_b = _mask(dg, "a", names), _mask(dg, "b", names)
    book, best, eq = (_solve(dg, play, names) for play in PLAYS)
    plays = [_play(dg, sol, rounds=rounds and sol is eq) for sol in (book, best, eq)]
    seen = visits(g, eq.a_strategy, eq.b_strategy)
    worths = tuple(_worth(dg, eq, seen, d, free_a, free_b) for d, dec in enumerate(dg.decisions) if dec.name in names)
    worth_a = {w.name: w.worth for w in worths if w.side == "a"}
    rule = _simple_rule(dg, eq, seen, free_a, free_b, names, book_a, worth_a)
    return Tactics(objective, names, *plays, worths, dominated(dg, objective), rule,
                   max(book.residual, best.residual, eq.residual), PolicyRows(lambda: policy_rows(dg, eq, seen)),
                   model=dg.model)


def decided(dg: DecisionGame, decide: Iterable[str] | None = None) -> tuple[str, ...]:
    """The decisions solved: those named in ``decide`` (every one when ``None``); an unknown name is one line
    listing the allowed names."""
    known = sorted({d.name for d in dg.decisions})
    names = tuple(known if decide is None else decide)
    for name in names:
        if name not in known:
            raise ParamError("decide", name, "one of " + ", ".join(known) if known else "none: no decisions here")
    return names


def _objective(dg: DecisionGame, objective: str) -> DecisionGame:
    if objective not in OBJECTIVES:
        raise ParamError("objective", objective, "one of " + ", ".join(OBJECTIVES))
    return dg.with_objective(objective)


def _solve(dg: DecisionGame, play: str, names: Sequence[str]) -> GameSolution:
    """Both sides' strategies under ``play`` (``dg`` already pays its objective): ``book`` holds both to their
    policies, ``best`` frees A's decisions ``names`` against B's book, ``equilibrium`` frees both sides'."""
    g = dg.game
    book_a, book_b = g.book("a"), g.book("b")
    if play == "book":
        return solve(g, a_fixed=book_a, b_fixed=book_b)
    free_a = _mask(dg, "a", names)
    if play == "best":
        return solve(g, a_fixed=book_a, fixed_a_states=~free_a, b_fixed=book_b)
    return solve(g, a_fixed=book_a, fixed_a_states=~free_a, b_fixed=book_b, fixed_b_states=~_mask(dg, "b", names))


def played(dg: DecisionGame, play: str = "book", decide: Iterable[str] | None = None,
           objective: str = "wins") -> tuple[Play, GameSolution]:
    """One way of playing the duel (``play``, one of :data:`PLAYS`): its :class:`Play` and both strategies (for
    :func:`~analysis.engine.decisions.policy_tables`).  ``analyse(dg).equilibrium`` has the figures of
    ``played(dg, "equilibrium")[0]``, which adds the rounds distribution."""
    if play not in PLAYS:
        raise ParamError("play", play, "one of " + ", ".join(PLAYS))
    dg = _objective(dg, objective)
    sol = _solve(dg, play, decided(dg, decide))
    return _play(dg, sol), sol


def _mask(dg: DecisionGame, side: str, names: Sequence[str]) -> np.ndarray:
    """The states where ``side`` takes one of the decisions ``names``."""
    mask = np.zeros(dg.game.n, dtype=bool)
    for dec, states in zip(dg.decisions, dg.states):
        if dec.side == side and dec.name in names:
            mask[states] = True
    return mask


def _play(dg: DecisionGame, sol: GameSolution, rounds: bool = True) -> Play:
    """The play's value and figures (``rounds`` false: no rounds distribution past round 1, which
    :meth:`Play.to_dict` does not show)."""
    return Play(float(sol.values[dg.game.start]), dg.solution(sol.a_strategy, sol.b_strategy, rounds))


def _strategy_rows(dg: DecisionGame, d: int, strategy: np.ndarray) -> np.ndarray:
    """The decider's action probabilities at each state of decision ``d`` (one row per state)."""
    g, dec = dg.game, dg.decisions[d]
    offsets = g.a_offsets if dec.side == "a" else g.b_offsets
    start = offsets[dg.states[d]]
    return strategy[start[:, None] + np.arange(len(dec.actions))[None, :]]


def _worth(dg: DecisionGame, eq: GameSolution, seen: np.ndarray, d: int, free_a: np.ndarray,
           free_b: np.ndarray) -> DecisionWorth:
    dec, states = dg.decisions[d], dg.states[d]
    g = dg.game
    own = eq.a_strategy if dec.side == "a" else eq.b_strategy
    rows = _strategy_rows(dg, d, own)
    w = seen[states]
    total = float(w.sum())
    shares = {label: float(w @ rows[:, k]) / total for k, label in enumerate(dec.actions)} if total > 0 else {}
    taken = 1.0 - shares[dec.actions[0]] if total > 0 else None
    sol = forbidden(dg, eq, d, free_a, free_b)
    worth = float(eq.values[g.start] - sol.values[g.start]) * (1.0 if dec.side == "a" else -1.0)
    return DecisionWorth(dec.name, dec.side, taken, worth, shares)


def forbidden(dg: DecisionGame, eq: GameSolution, d: int, free_a: np.ndarray, free_b: np.ndarray) -> GameSolution:
    """The game solved again with decision ``d`` held to its plain action (the first) at every one of its states,
    every other free decision (``free_a``, ``free_b``: the states where each side decides) played anew."""
    dec, states, g = dg.decisions[d], dg.states[d], dg.game
    own = eq.a_strategy if dec.side == "a" else eq.b_strategy
    plain = own.copy()
    offsets = g.a_offsets if dec.side == "a" else g.b_offsets
    plain[offsets[states][:, None] + np.arange(len(dec.actions))[None, :]] = 0.0
    plain[offsets[states]] = 1.0
    held = np.zeros(g.n, dtype=bool)
    held[states] = True
    if dec.side == "a":
        return solve(g, a_fixed=np.where(_spread(g.a_offsets, held), plain, g.book("a")),
                     fixed_a_states=held | ~free_a, b_fixed=g.book("b"), fixed_b_states=~free_b)
    return solve(g, a_fixed=g.book("a"), fixed_a_states=~free_a,
                 b_fixed=np.where(_spread(g.b_offsets, held), plain, g.book("b")), fixed_b_states=held | ~free_b)


def _spread(offsets: np.ndarray, states: np.ndarray) -> np.ndarray:
    """A per-action mask from a per-state mask."""
    return np.repeat(states, np.diff(offsets))


def dominated(dg: DecisionGame, objective: str = "wins") -> dict[str, tuple[str, ...]]:
    """Per side, the fixed scripts (``field=value``) another value of the same field does at least as well as
    against every script of the opponent, and better against one."""
    if dg.scripts is None or not dg.policies:
        return {}
    dg = dg.with_objective(objective)
    g = dg.game
    out: dict[str, tuple[str, ...]] = {}
    made: dict[tuple[str, tuple[tuple[str, Any], ...]], tuple[np.ndarray, bytes]] = {}
    values: dict[tuple[bytes, bytes], float] = {}

    def script(side: str, policy: Mapping[str, Any]) -> tuple[np.ndarray, bytes]:
        """The script's strategy and a digest of it (two policies may make the same play)."""
        key = (side, tuple(policy.items()))
        if key not in made:
            strategy = dg.scripts(side, policy)
            made[key] = strategy, hashlib.blake2b(strategy.tobytes(), digest_size=16).digest()
        return made[key]

    def value(side: str, own: Mapping[str, Any], theirs: Mapping[str, Any]) -> float:
        """The value of the play of two scripts, each pair of plays solved once."""
        (x, kx), (y, ky) = script(side, own), script("b" if side == "a" else "a", theirs)
        (a, ka), (b, kb) = ((x, kx), (y, ky)) if side == "a" else ((y, ky), (x, kx))
        if (ka, kb) not in values:
            values[(ka, kb)] = float(solve(g, a_fixed=a, b_fixed=b).values[g.start])
        return values[(ka, kb)]

    for side, other in (("a", "b"), ("b", "a")):
        fields = dg.policies.get(side, {})
        theirs = [dict(zip(dg.policies.get(other, {}), combo))
                  for combo in itertools.product(*dg.policies.get(other, {}).values())] or [{}]
        found = []
        for name, options in fields.items():
            table = np.array([[value(side, {name: v}, t) for t in theirs] for v in options])
            sign = 1.0 if side == "a" else -1.0
            for i, v in enumerate(options):
                for j in range(len(options)):
                    if j != i and (sign * (table[j] - table[i]) >= -EPS).all() and (sign * (table[j] - table[i]) > EPS).any():
                        found.append(f"{name}={_text(v)}")
                        break
        out[side] = tuple(found)
    return out


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def policy_rows(dg: DecisionGame, sol: GameSolution, seen: np.ndarray) -> Iterable[dict[str, Any]]:
    """The strategy at every decision state: decision, side, features, each action's probability, visits."""
    for d, dec in enumerate(dg.decisions):
        own = sol.a_strategy if dec.side == "a" else sol.b_strategy
        rows = _strategy_rows(dg, d, own)
        for k, s in enumerate(dg.states[d]):
            yield {"decision": dec.name, "side": dec.side, "state": int(s),
                   **{f: int(x) for f, x in zip(dec.features, dg.features[d][k])},
                   **{f"p_{a}": float(rows[k, j]) for j, a in enumerate(dec.actions)}, "visits": float(seen[s])}


def _simple_rule(dg: DecisionGame, eq: GameSolution, seen: np.ndarray, free_a: np.ndarray, free_b: np.ndarray,
                 names: Sequence[str], book_a: np.ndarray, worth: Mapping[str, float]) -> SimpleRule | None:
    """A depth-2 tree for A's solved decision worth the most (ties: the most visited), and its share of the
    equilibrium's gain."""
    candidates = [d for d, dec in enumerate(dg.decisions) if dec.side == "a" and dec.name in names
                  and seen[dg.states[d]].sum() > 0]
    if not candidates:
        return None
    d = max(candidates, key=lambda k: (round(worth.get(dg.decisions[k].name, 0.0), 9), float(seen[dg.states[k]].sum())))
    dec, states, feats = dg.decisions[d], dg.states[d], dg.features[d]
    choice = np.argmax(_strategy_rows(dg, d, eq.a_strategy), axis=1)
    w = seen[states]
    tree = _fit(feats, choice, w, depth=2)[0]
    picks = _apply(tree, feats)
    g = dg.game
    rule = eq.a_strategy.copy()
    offsets = g.a_offsets[states]
    rule[offsets[:, None] + np.arange(len(dec.actions))[None, :]] = 0.0
    rule[offsets + picks] = 1.0
    fixed = np.zeros(g.n, dtype=bool)
    fixed[states] = True
    versus = dict(b_fixed=g.book("b"), fixed_b_states=~free_b)
    v_rule = solve(g, a_fixed=np.where(_spread(g.a_offsets, fixed), rule, book_a), fixed_a_states=fixed | ~free_a,
                   **versus).values[g.start]
    book_states = fixed.copy()
    v_book = solve(g, a_fixed=book_a, fixed_a_states=book_states | ~free_a, **versus).values[g.start]
    v_eq = eq.values[g.start]
    gain = v_eq - v_book
    share = float((v_rule - v_book) / gain) if abs(gain) > EPS else None
    agreement = float(w @ (picks == choice) / w.sum())
    said = _describe(tree, dec.features, dec.actions) if dec.features else dec.actions[tree[1]]  # a script: its name
    return SimpleRule("a", dec.name, f"{dec.name}: {said}", agreement, share)


def _fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, depth: int) -> tuple[Any, float]:
    """A weighted classification tree of depth ``depth`` (at most 2) over integer features: ``("leaf", action)`` or
    ``("split", feature, threshold, below, at_or_above)``, and the weight agreeing with it.  Splits are tried
    feature by feature at each value the states there take but the least, rising, and one replaces the best so far
    only when it agrees with more than :data:`EPS` more weight.  Every split's weights are read off cumulative
    tables of weight by feature values and action (:func:`_tables`): no split is applied to the states to score it.

    >>> _fit(np.array([[1], [2], [3]]), np.array([0, 1, 1]), np.array([1.0, 2.0, 3.0]), 1)
    (('split', 0, 2, ('leaf', 0), ('leaf', 1)), 6.0)
    """
    x = np.asarray(x, dtype=np.int64).reshape(len(y), -1)
    y = np.asarray(y, dtype=np.int64)
    actions = int(y.max()) + 1 if len(y) else 1
    weight = np.zeros((x.shape[0], actions + 1))  # each action's weight, then the state itself (a count)
    weight[np.arange(len(y)), y] = w
    weight[:, actions] = 1.0
    total = weight.sum(axis=0)
    best = _leaf(total)
    if depth == 0 or x.shape[1] == 0:
        return best
    values = [np.unique(x[:, f]) for f in range(x.shape[1])]
    cum = _tables(x, weight, values)
    for f, vf in enumerate(values):
        for i in range(1, vf.size):  # below the split: the values vf[:i]
            below = cum[f][f][i - 1, i - 1]
            halves = ((_split(f, i, below, cum, values, True), _split(f, i, total - below, cum, values, False))
                      if depth > 1 else (_leaf(below), _leaf(total - below)))
            score = halves[0][1] + halves[1][1]
            if score > best[1] + EPS:
                best = (("split", f, int(vf[i]), halves[0][0], halves[1][0]), score)
    return best


def _leaf(total: np.ndarray) -> tuple[Any, float]:
    """The leaf of states whose weights (each action's, then their count) are ``total``, and its weight."""
    k = int(np.argmax(total[:-1]))
    return ("leaf", k), float(total[k])


def _tables(x: np.ndarray, weight: np.ndarray, values: list[np.ndarray]) -> list[list[np.ndarray]]:
    """``cum[f][g][i, j]``: the weights (:func:`_fit`) of the states whose feature ``f`` is at most
    ``values[f][i]`` and feature ``g`` at most ``values[g][j]``."""
    idx = [np.searchsorted(v, x[:, f]) for f, v in enumerate(values)]
    out = []
    for f, vf in enumerate(values):
        row = []
        for g, vg in enumerate(values):
            cell = idx[f] * vg.size + idx[g]
            h = np.stack([np.bincount(cell, weights=weight[:, k], minlength=vf.size * vg.size)
                          for k in range(weight.shape[1])], axis=-1).reshape(vf.size, vg.size, weight.shape[1])
            row.append(h.cumsum(axis=0).cumsum(axis=1))
        out.append(row)
    return out


def _split(f: int, i: int, total: np.ndarray, cum: list[list[np.ndarray]], values: list[np.ndarray],
           below: bool) -> tuple[Any, float]:
    """The best depth-1 tree of the states on one side of the split of feature ``f`` at ``values[f][i]``
    (``below`` it, or at or above it), whose weights are ``total``."""
    best = _leaf(total)
    for g, vg in enumerate(values):
        c = cum[f][g]
        side = c[i - 1] if below else c[-1] - c[i - 1]  # [j]: the side's states with feature g at most vg[j]
        for j in range(1, vg.size):
            lo = side[j - 1]
            if lo[-1] <= 0 or side[j][-1] - lo[-1] <= 0:  # no state below vg[j], or none at it: not a split here
                continue
            low, high = _leaf(lo), _leaf(total - lo)
            if low[1] + high[1] > best[1] + EPS:
                best = (("split", g, int(vg[j]), low[0], high[0]), low[1] + high[1])
    return best


def _apply(tree: Any, x: np.ndarray) -> np.ndarray:
    if tree[0] == "leaf":
        return np.full(x.shape[0], tree[1], dtype=int)
    _, f, t, below, above = tree
    out = np.empty(x.shape[0], dtype=int)
    lo = x[:, f] < t
    out[lo], out[~lo] = _apply(below, x[lo]), _apply(above, x[~lo])
    return out


def _describe(tree: Any, features: Sequence[str], actions: Sequence[str]) -> str:
    """The tree in words: "parry when own IN >= 7, else no parry"."""
    if tree[0] == "leaf":
        return f"always {actions[tree[1]]}"
    _, f, t, below, above = tree
    if below[0] == "leaf" and above[0] == "leaf":
        if below[1] == above[1]:
            return f"always {actions[below[1]]}"
        return f"{actions[above[1]]} when {features[f]} >= {t}, else {actions[below[1]]}"
    return (f"when {features[f]} >= {t}: {_describe(above, features, actions)}; "
            f"otherwise: {_describe(below, features, actions)}")


def require_decisions(system: Any) -> None:
    """Refuse a system that does not model decisions yet, naming what it can do instead."""
    if getattr(system, "tactics", None) is None:
        raise DicelabError(f"{system.id}: decisions are not modelled yet (RULES.md section 8); its duels play the "
                           "fighters' policies: dicelab variants ranks them")
