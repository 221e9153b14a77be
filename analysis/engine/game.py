"""Two-player zero-sum stochastic games over an explicit graph of states, and the chain a pair of strategies makes.

A :class:`Game` lists states ``0..n-1``.  At state ``s`` side A picks one of
``na[s]`` actions and side B one of ``nb[s]`` *at the same moment* (1 = no
choice), and the pair ``(i, j)`` is option ``opt[s] + i * nb[s] + j``: a
distribution over next states (edges ``edge[o] .. edge[o + 1]``).  A state
with no choice for either side is a chance node; one where only A (or B)
chooses is a max (min) node, a decision taken one after the other; one where
both choose holds a matrix game, whose equilibrium may be mixed.  A state
with no option ends the fight, paying A ``payoff[s]`` (B gets its negative).

:func:`solve` finds the value of every state and an optimal strategy of each
side: value iteration over the graph's strongly connected components, sinks
first (a fight's conditions only worsen, so a component is one block of
conditions and its few loops), sweeping each component (its states against
the order of a round: :attr:`Game.components`) until no value moves
by more than the tolerance (when the sweeps shrink the change by a steady
ratio, state by state, as a round that changes nothing makes them, the
values jump to the series' limit: :data:`STEADY`); matrix games are solved exactly by support
enumeration.  A side can be held to a fixed strategy (its book policy, or
its play when the other side best-responds), which makes the same routine
compute a best response or simply the value of fixed play.  :func:`evaluate`
gives a pair of strategies' absorption probabilities and rounds, and
:func:`visits` each state's visits (both through :mod:`analysis.engine.flow`).

Strategies are flat arrays over each side's actions, state by state
(``Game.a_offsets``): a probability per action, one-hot for pure play.

>>> # A chooses at state 0: a sure win (state 1) or a coin toss between win and loss.
>>> g = Game.build([[[(1.0, 1)], [(0.5, 1), (0.5, 2)]], [], []], na=[2, 0, 0], nb=[1, 0, 0],
...                payoff=[0.0, 1.0, -1.0])
>>> sol = solve(g)
>>> float(sol.values[0]), sol.a_strategy[:2].tolist()
(1.0, [1.0, 0.0])
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Sequence

import numpy as np
from numba import njit

from analysis.engine.flow import ROUNDS_WORK, can_end, cut_order, flow, round_graph, sweep_rounds, values_of
from analysis.engine.markov import MAX_ROUNDS, ROUNDS_TOL, Absorption

TOL = 1e-13
"""A component's sweeps stop when no value moved by more than this."""
MAX_SWEEPS = 1_000_000
"""... or after this many sweeps of one component (what moved last is reported as ``residual``)."""
TIE = 1e-12
"""Actions whose values differ by less than this are tied; the tie goes to the lowest index (the book's action)."""
STEADY = 1e-3
"""A component whose sweeps shrink the change by a steady ratio (two ratios within this share of each other, and
every state's change that ratio times its change before, within this share of the largest change) jumps to the
limit of that geometric series (Aitken's extrapolation); sweeps go on until no value moves by more than the
tolerance, so the jump only saves sweeps where a fight's rounds often change nothing.  A change steady only in its
largest value (states taking turns to move, as in a loop of two rounds) is no such series: it never jumps."""


@dataclass(frozen=True)
class Game:
    """An explicit two-player zero-sum stochastic game (see the module docstring for the layout).

    ``round_start[s]``: entering ``s`` begins a new round (rounds are counted by these visits);
    ``book_a[s]`` / ``book_b[s]``: the action each side's book policy takes at ``s``.
    """

    na: np.ndarray
    nb: np.ndarray
    opt: np.ndarray
    edge: np.ndarray
    to: np.ndarray
    p: np.ndarray
    payoff: np.ndarray
    round_start: np.ndarray
    book_a: np.ndarray
    book_b: np.ndarray
    start: int = 0

    @property
    def n(self) -> int:
        return int(self.na.size)

    @cached_property
    def ends(self) -> np.ndarray:
        """Mask of the states that end the fight (made once per game, like the offsets: every play reads them)."""
        return (self.na * self.nb) == 0

    @cached_property
    def a_offsets(self) -> np.ndarray:
        """Where each state's actions of A start in a strategy array (``n + 1`` entries)."""
        return np.concatenate([[0], np.cumsum(np.where(self.ends, 0, self.na))]).astype(np.int64)

    @cached_property
    def b_offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(np.where(self.ends, 0, self.nb))]).astype(np.int64)

    @cached_property
    def components(self) -> tuple[np.ndarray, np.ndarray]:
        """The graph's strongly connected components, sinks first (:func:`_components`), found once per game: a
        strategy only removes edges, so these blocks order every play's solve.  Inside a component the states run
        against the order of a round (:func:`~analysis.engine.flow.cut_order` over every option's ways, when the
        states inside a round never loop), so one sweep of the solve carries the values through a whole round."""
        order, ptr = _components(self.n, self.opt, self.edge, self.to, self.na * self.nb)
        rank, ok = self.ranked
        if ok:
            comp = np.repeat(np.arange(ptr.size - 1), np.diff(ptr))
            order = order[np.lexsort((-rank[order], comp))]
        return order, ptr

    @cached_property
    def ranked(self) -> tuple[np.ndarray, bool]:
        """:func:`~analysis.engine.flow.cut_order` over every option's ways: when the states inside a round never
        loop (True), this rank orders every play's rounds too (a play only drops ways), so no play ranks its own."""
        return cut_order(self.edge[self.opt], self.to, self.p, self.round_start.astype(bool), self.ends)

    @cached_property
    def play_members(self) -> tuple[np.ndarray, np.ndarray]:
        """The components sources first, each in the order of :attr:`ranked` (:meth:`_Play.members` of every
        play that uses that rank)."""
        order, ptr = self.components
        return _members(order, ptr, self.ranked[0])

    def paying(self, payoff: np.ndarray) -> "Game":
        """The same game paying ``payoff`` at its ends; what depends only on its graph (the ends, the offsets,
        :attr:`components`, :attr:`ranked`) is carried over as found, not found again.

        >>> g = Game.build([[[(1.0, 1)]], []], [1, 0], [1, 0], [0.0, 1.0])
        >>> blocks = g.components
        >>> paid = g.paying(np.array([0.0, -1.0]))
        >>> paid.payoff.tolist(), paid.components is blocks
        ([0.0, -1.0], True)
        """
        new = replace(self, payoff=np.asarray(payoff, dtype=np.float64))
        for name in ("ends", "a_offsets", "b_offsets", "components", "ranked", "play_members"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name]
        return new

    def merged(self) -> "Game":
        """The same game with each option's ways into one state merged into one way (the same chances, fewer
        ways for every solve and pass to follow).

        >>> g = Game.build([[[(0.25, 1), (0.5, 2), (0.25, 1)]], [], []], [1, 0, 0], [1, 0, 0], [0.0, 1.0, -1.0])
        >>> m = g.merged()
        >>> m.to.tolist(), m.p.tolist(), m.edge.tolist()
        ([1, 2], [0.5, 0.5], [0, 2])
        """
        edge, to, p = _merge_ways(self.edge, self.to, self.p, self.n)
        return replace(self, edge=edge, to=to, p=p)

    def book(self, side: str) -> np.ndarray:
        """The one-hot strategy of ``side``'s book policy."""
        return _one_hot(self.a_offsets if side == "a" else self.b_offsets, self.book_a if side == "a" else self.book_b)

    @classmethod
    def build(cls, options: Sequence[Sequence[Sequence[tuple[float, int]]]], na: Sequence[int], nb: Sequence[int],
              payoff: Sequence[float], round_start: Sequence[bool] | None = None, book_a: Sequence[int] | None = None,
              book_b: Sequence[int] | None = None, start: int = 0) -> "Game":
        """A game from Python lists: ``options[s]`` lists state ``s``'s ``na[s] * nb[s]`` options in the order
        ``i * nb[s] + j``, each a list of ``(probability, next state)``; an end state has no options."""
        n = len(na)
        opt, edge, to, p = [0], [0], [], []
        for s in range(n):
            count = na[s] * nb[s]
            if len(options[s]) != count:
                raise ValueError(f"state {s}: {len(options[s])} options for {na[s]} x {nb[s]} actions")
            for o in options[s]:
                for q, t in o:
                    to.append(t), p.append(q)
                edge.append(len(to))
            opt.append(len(edge) - 1)
        zeros = np.zeros(n, dtype=np.int64)
        return cls(np.asarray(na, dtype=np.int64), np.asarray(nb, dtype=np.int64), np.asarray(opt, dtype=np.int64),
                   np.asarray(edge, dtype=np.int64), np.asarray(to, dtype=np.int64), np.asarray(p, dtype=float),
                   np.asarray(payoff, dtype=float),
                   np.asarray(round_start if round_start is not None else np.zeros(n), dtype=bool),
                   np.asarray(book_a, dtype=np.int64) if book_a is not None else zeros,
                   np.asarray(book_b, dtype=np.int64) if book_b is not None else zeros, start)


@dataclass(frozen=True)
class GameSolution:
    """The value of every state, each side's strategy, and how far the value iteration got."""

    values: np.ndarray
    a_strategy: np.ndarray
    b_strategy: np.ndarray
    residual: float
    sweeps: int
    tolerance: float = TOL


def _one_hot(offsets: np.ndarray, picks: np.ndarray) -> np.ndarray:
    out = np.zeros(int(offsets[-1]))
    has = offsets[1:] > offsets[:-1]
    out[offsets[:-1][has] + picks[has]] = 1.0
    return out


def solve(game: Game, a_fixed: np.ndarray | None = None, b_fixed: np.ndarray | None = None,
          fixed_a_states: np.ndarray | None = None, fixed_b_states: np.ndarray | None = None,
          tol: float = TOL) -> GameSolution:
    """The game's value and optimal strategies; ``a_fixed`` (a strategy array) holds A to it at every state, or
    only at ``fixed_a_states`` (a mask) when given; likewise B.  With both held everywhere it is the value of
    that play; with one held, the other's best response.

    >>> g = Game.build([[[(1.0, 1)], [(1.0, 2)], [(1.0, 2)], [(1.0, 1)]], [], []], na=[2, 0, 0], nb=[2, 0, 0],
    ...                payoff=[0.0, 1.0, -1.0])   # matching pennies
    >>> sol = solve(g)
    >>> round(float(sol.values[0]), 12), sol.a_strategy.tolist(), sol.b_strategy.tolist()
    (0.0, [0.5, 0.5], [0.5, 0.5])
    """
    n = game.n
    aoff, boff = game.a_offsets, game.b_offsets
    fa = np.zeros(n, dtype=np.bool_) if a_fixed is None else (
        np.ones(n, dtype=np.bool_) if fixed_a_states is None else np.asarray(fixed_a_states, dtype=np.bool_))
    fb = np.zeros(n, dtype=np.bool_) if b_fixed is None else (
        np.ones(n, dtype=np.bool_) if fixed_b_states is None else np.asarray(fixed_b_states, dtype=np.bool_))
    wa = np.asarray(a_fixed, dtype=float).copy() if a_fixed is not None else np.zeros(int(aoff[-1]))
    wb = np.asarray(b_fixed, dtype=float).copy() if b_fixed is not None else np.zeros(int(boff[-1]))
    if a_fixed is not None and b_fixed is not None and fixed_a_states is None and fixed_b_states is None:
        play = _Play.of(game, wa, wb, strict=False)
        if play is not None:  # a fixed play: its values solved directly (analysis.engine.flow)
            return GameSolution(play.values(game.payoff), wa, wb, 0.0, 0, tol)
    order, comp_ptr = game.components
    values = np.zeros(n)
    residual, sweeps = _solve(game.na, game.nb, game.opt, game.edge, game.to, game.p, game.payoff, fa, fb, wa, wb,
                              aoff, boff, order, comp_ptr, tol, MAX_SWEEPS, values)
    return GameSolution(values, wa, wb, float(residual), int(sweeps), tol)


def evaluate(game: Game, a_strategy: np.ndarray, b_strategy: np.ndarray, rounds: bool = True) -> Absorption:
    """Where the play ends (mass per end state, in the order of ``np.flatnonzero(game.ends)``), its rounds and
    what never ends (:mod:`analysis.engine.flow`: the states inside a round must not loop among themselves).
    With ``rounds`` false the rounds distribution stops after round 1 (the rest is its tail; the mean rounds
    come from the flow all the same), which saves one pass over the play per round.

    >>> g = Game.build([[[(0.5, 0), (0.5, 1)]], []], [1, 0], [1, 0], [0.0, 1.0], round_start=[True, False])
    >>> got = evaluate(g, g.book("a"), g.book("b"))
    >>> got.absorbed.tolist(), got.mean_rounds, got.rounds[2]
    ([1.0], 2.0, 0.25)
    """
    play = _Play.of(game, a_strategy, b_strategy)
    visits, stalemate, lost, h = play.flow(want_h=True)
    ends = np.flatnonzero(game.ends)
    b0, *graph = round_graph(play.sedge, game.to, play.q, play.starts, game.ends, play.live, play.rank, game.start)
    absorbed = visits[ends]
    ahead = int(not game.round_start[game.start])  # what ends before the first round begins is no round
    per_round = sweep_rounds(*graph, b0, float(absorbed.sum()), ROUNDS_TOL, ROUNDS_WORK,
                             (MAX_ROUNDS if rounds else 1) + ahead, 0.0) if b0 >= 0 else np.zeros(0)
    before = float(per_round[:ahead].sum())
    per = {t: float(p) for t, p in enumerate(per_round[ahead:], 1) if p > 0}
    p_end = float(absorbed.sum()) - before
    tail = max(p_end - sum(per.values()), 0.0)
    starts = play.starts & play.live & ~game.ends
    mean = None
    if p_end > 0:
        mean = float(visits[starts] @ h[starts]) / p_end
    return Absorption(absorbed, float(stalemate), float(max(lost, 0.0)), mean, per, float(tail))


@dataclass(frozen=True)
class _Play:
    """A fixed play as the arrays :mod:`analysis.engine.flow` reads: each state's ways (``sedge``: where they
    start; ``q``: their probability under the strategies), the round starts, the states that can still end and
    the rank order with its components."""

    game: Game
    sedge: np.ndarray
    q: np.ndarray
    starts: np.ndarray
    live: np.ndarray
    rank: np.ndarray

    @classmethod
    def of(cls, game: Game, a_strategy: np.ndarray, b_strategy: np.ndarray, strict: bool = True) -> "_Play | None":
        """The play's arrays; when the states inside a round loop among themselves, an error (``strict``) or
        None."""
        q = _way_weights(game.opt, game.edge, game.p, game.nb, game.a_offsets, game.b_offsets,
                         np.asarray(a_strategy, dtype=np.float64), np.asarray(b_strategy, dtype=np.float64))
        sedge = game.edge[game.opt]
        starts = game.round_start.astype(bool)
        rank, ok = game.ranked
        if not ok:
            rank, ok = cut_order(sedge, game.to, q, starts, game.ends)
        if not ok:
            if not strict:
                return None
            raise ValueError("the states inside a round loop among themselves: mark a round start on the loop")
        return cls(game, sedge, q, starts, can_end(sedge, game.to, q, game.ends), rank)

    def members(self) -> tuple[np.ndarray, np.ndarray]:
        """The game's components sources first, each in rank order, and where each starts."""
        if self.rank is self.game.ranked[0]:
            return self.game.play_members
        order, ptr = self.game.components
        return _members(order, ptr, self.rank)

    def flow(self, want_h: bool = False) -> tuple[np.ndarray, float, float, np.ndarray]:
        """:func:`~analysis.engine.flow.flow` over the game's components, each in rank order."""
        g = self.game
        return flow(self.sedge, g.to, self.q, self.starts, g.ends, self.live, *self.members(), g.start, want_h)

    def values(self, at_end: np.ndarray) -> np.ndarray:
        """The play's value at every state when an end pays ``at_end`` (:func:`~analysis.engine.flow.values_of`)."""
        g = self.game
        return values_of(self.sedge, g.to, self.q, self.starts, g.ends, self.live, *self.members(),
                         np.asarray(at_end, dtype=np.float64))


def visits(game: Game, a_strategy: np.ndarray, b_strategy: np.ndarray) -> np.ndarray:
    """Each state's expected number of visits in the play ``(a_strategy, b_strategy)`` from the start (what
    never ends is not counted: a state from which no end can be reached gets the mass that enters it, once).

    >>> g = Game.build([[[(0.5, 0), (0.5, 1)]], []], [1, 0], [1, 0], [0.0, 1.0], round_start=[True, False])
    >>> visits(g, g.book("a"), g.book("b")).tolist()
    [2.0, 1.0]
    >>> stuck = Game.build([[[(0.5, 1), (0.5, 2)]], [[(1.0, 1)]], []], [1, 1, 0], [1, 1, 0], [0.0, 0.0, 1.0],
    ...                    round_start=[True, True, False])
    >>> visits(stuck, stuck.book("a"), stuck.book("b")).tolist()
    [1.0, 0.5, 0.5]
    """
    return _Play.of(game, a_strategy, b_strategy).flow()[0]


# ------------------------------------------------------------------ compiled parts
@njit(cache=True)
def _way_weights(opt: np.ndarray, edge: np.ndarray, p: np.ndarray, nb: np.ndarray, a_off: np.ndarray,
                 b_off: np.ndarray, a_strategy: np.ndarray, b_strategy: np.ndarray) -> np.ndarray:
    """Each way's probability under the strategies: its chance times the weight of its option (A's action ``i``
    times B's ``j`` for option ``opt[s] + i * nb[s] + j``)."""
    q = np.empty(p.size)
    for s in range(opt.size - 1):
        for o in range(opt[s], opt[s + 1]):
            i, j = divmod(o - opt[s], nb[s])
            w = a_strategy[a_off[s] + i] * b_strategy[b_off[s] + j]
            for e in range(edge[o], edge[o + 1]):
                q[e] = p[e] * w
    return q


@njit(cache=True)
def _members(order: np.ndarray, ptr: np.ndarray, rank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The components of ``order`` (``ptr``: where each starts, sinks first) sources first, each in ``rank``
    order (states ranked -1 first, as they come), and where each starts: a bucket pass, no sort."""
    n_comp = ptr.size - 1
    comp = np.empty(rank.size, dtype=np.int64)
    out_ptr = np.zeros(n_comp + 1, dtype=np.int64)
    for c in range(n_comp):
        out_ptr[c + 1] = out_ptr[c] + ptr[n_comp - c] - ptr[n_comp - c - 1]
        for k in range(ptr[c], ptr[c + 1]):
            comp[order[k]] = n_comp - 1 - c
    fill = out_ptr[:-1].copy()
    out = np.empty(order.size, dtype=np.int64)
    by_rank = np.full(rank.size, -1, dtype=np.int64)
    for k in range(order.size):
        s = order[k]
        if rank[s] < 0:
            out[fill[comp[s]]] = s
            fill[comp[s]] += 1
        else:
            by_rank[rank[s]] = s
    for r in range(rank.size):
        s = by_rank[r]
        if s >= 0:
            out[fill[comp[s]]] = s
            fill[comp[s]] += 1
    return out, out_ptr


@njit(cache=True)
def _merge_ways(edge: np.ndarray, to: np.ndarray, p: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each option's ways into the same state summed into the first of them (:meth:`Game.merged`)."""
    at = np.full(n, -1, dtype=np.int64)
    new_edge = np.zeros(edge.size, dtype=np.int64)
    new_to = np.empty(to.size, dtype=np.int64)
    new_p = np.empty(p.size)
    j = 0
    for o in range(edge.size - 1):
        lo = j
        for e in range(edge[o], edge[o + 1]):
            t = to[e]
            if at[t] >= lo:  # this option already has a way into t
                new_p[at[t]] += p[e]
            else:
                at[t], new_to[j], new_p[j] = j, t, p[e]
                j += 1
        new_edge[o + 1] = j
    return new_edge, new_to[:j].copy(), new_p[:j].copy()


@njit(cache=True)
def _components(n: int, opt: np.ndarray, edge: np.ndarray, to: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Strongly connected components (Tarjan, iterative), in reverse topological order: sinks first.

    Returns the states component by component and where each component starts."""
    index = -np.ones(n, dtype=np.int64)
    low = np.zeros(n, dtype=np.int64)
    on = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    call_v = np.empty(n, dtype=np.int64)
    call_e = np.empty(n, dtype=np.int64)
    counter = 0
    top = 0
    n_out = 0
    n_comp = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        depth = 0
        call_v[0] = root
        call_e[0] = edge[opt[root]]
        index[root] = low[root] = counter
        counter += 1
        stack[top] = root
        top += 1
        on[root] = True
        while depth >= 0:
            v = call_v[depth]
            last = edge[opt[v] + counts[v]] if counts[v] > 0 else edge[opt[v]]
            e = call_e[depth]
            if e < last:
                call_e[depth] = e + 1
                w = to[e]
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack[top] = w
                    top += 1
                    on[w] = True
                    depth += 1
                    call_v[depth] = w
                    call_e[depth] = edge[opt[w]]
                elif on[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            if low[v] == index[v]:
                while True:
                    top -= 1
                    w = stack[top]
                    on[w] = False
                    order[n_out] = w
                    n_out += 1
                    if w == v:
                        break
                n_comp += 1
                ptr[n_comp] = n_out
            depth -= 1
            if depth >= 0:
                u = call_v[depth]
                if low[v] < low[u]:
                    low[u] = low[v]
    return order, ptr[: n_comp + 1]


@njit(cache=True)
def _matrix_game(q: np.ndarray, m: int, k: int, x: np.ndarray, y: np.ndarray) -> float:
    """The value of the zero-sum matrix game ``q[:m, :k]`` (A maximises over rows), its optimal mixed strategies
    in ``x`` and ``y``: a saddle point if there is one, else support enumeration (exact for small games)."""
    best_row, lower = 0, -np.inf
    for i in range(m):
        worst = np.inf
        for j in range(k):
            worst = min(worst, q[i, j])
        if worst > lower + TIE:
            lower, best_row = worst, i
    best_col, upper = 0, np.inf
    for j in range(k):
        most = -np.inf
        for i in range(m):
            most = max(most, q[i, j])
        if most < upper - TIE:
            upper, best_col = most, j
    x[:m] = 0.0
    y[:k] = 0.0
    if upper - lower <= TIE:
        x[best_row] = 1.0
        y[best_col] = 1.0
        return lower
    for size in range(2, min(m, k) + 1):
        rows = np.arange(size)
        while True:
            cols = np.arange(size)
            while True:
                a = np.zeros((size + 1, size + 1))
                rhs = np.zeros(size + 1)
                for r in range(size):  # A's mix makes every B column in the support pay v
                    for c in range(size):
                        a[c, r] = q[rows[r], cols[c]]
                    a[size, r] = 1.0
                for c in range(size):
                    a[c, size] = -1.0
                rhs[size] = 1.0
                b = np.zeros((size + 1, size + 1))
                for c in range(size):
                    for r in range(size):
                        b[r, c] = q[rows[r], cols[c]]
                    b[size, c] = 1.0
                for r in range(size):
                    b[r, size] = -1.0
                if abs(np.linalg.det(a)) > 1e-14 and abs(np.linalg.det(b)) > 1e-14:
                    sx = np.linalg.solve(a, rhs)
                    sy = np.linalg.solve(b, rhs)
                    v = sx[size]
                    ok = True
                    for r in range(size):
                        ok = ok and sx[r] >= -1e-12 and sy[r] >= -1e-12
                    if ok:
                        for i in range(m):  # no row outside the support pays A more against y
                            pay = 0.0
                            for c in range(size):
                                pay += q[i, cols[c]] * sy[c]
                            ok = ok and pay <= v + 1e-12
                        for j in range(k):  # no column outside pays A less against x
                            pay = 0.0
                            for r in range(size):
                                pay += q[rows[r], j] * sx[r]
                            ok = ok and pay >= v - 1e-12
                    if ok:
                        for r in range(size):
                            x[rows[r]] = max(sx[r], 0.0)
                            y[cols[r]] = max(sy[r], 0.0)
                        return v
                if not _next_subset(cols, k):
                    break
            if not _next_subset(rows, m):
                break
    x[best_row] = 1.0  # unreachable for a finite game (a solution always exists); fall back to maximin
    y[best_col] = 1.0
    return lower


@njit(cache=True)
def _next_subset(idx: np.ndarray, n: int) -> bool:
    """Advance ``idx`` (sorted indices) to the next subset of ``range(n)`` of its size; False when done."""
    size = idx.size
    i = size - 1
    while i >= 0 and idx[i] == n - size + i:
        i -= 1
    if i < 0:
        return False
    idx[i] += 1
    for j in range(i + 1, size):
        idx[j] = idx[j - 1] + 1
    return True


@njit(cache=True)
def _pick(values: np.ndarray, count: int, sign: float) -> int:
    """The index of the best of ``values[:count]`` for a side maximising ``sign * value``; ties to the lowest."""
    pick = 0
    for i in range(1, count):
        if sign * (values[i] - values[pick]) > TIE:
            pick = i
    return pick


@njit(cache=True)
def _state_value(s: int, na: np.ndarray, nb: np.ndarray, opt: np.ndarray, edge: np.ndarray, to: np.ndarray,
                 p: np.ndarray, values: np.ndarray, fa: np.ndarray, fb: np.ndarray, wa: np.ndarray, wb: np.ndarray,
                 aoff: np.ndarray, boff: np.ndarray, q: np.ndarray, x: np.ndarray, y: np.ndarray,
                 record: bool) -> float:
    """The value of state ``s`` from its successors' values; with ``record``, the free sides' strategies there.

    An action a held side never takes (weight 0) is not valued: its entries stay 0, and they only meet that 0.  A
    side choosing alone takes the exact best value (so the sweeps contract); the :data:`TIE` rule only names the
    action recorded (values within ``TIE`` of the best go to the lowest index), so near-ties cannot make the
    sweeps swing by ``TIE`` for ever."""
    m, k = na[s], nb[s]
    a0, b0 = aoff[s], boff[s]
    held_cols = fb[s] and (fa[s] or m > 1)  # B's weights are read (B does not pick at s)
    for i in range(m):
        unused_row = fa[s] and wa[a0 + i] == 0.0
        for j in range(k):
            q[i, j] = 0.0
            if unused_row or (held_cols and wb[b0 + j] == 0.0):
                continue
            o = opt[s] + i * k + j
            acc = 0.0
            for e in range(edge[o], edge[o + 1]):
                acc += p[e] * values[to[e]]
            q[i, j] = acc
    if fa[s] and fb[s]:
        v = 0.0
        for i in range(m):
            for j in range(k):
                v += wa[a0 + i] * wb[b0 + j] * q[i, j]
        return v
    if fa[s] or m == 1:  # B chooses against A's fixed mix (or A's only action)
        for j in range(k):
            y[j] = 0.0
            for i in range(m):
                y[j] += (wa[a0 + i] if fa[s] else 1.0) * q[i, j]
        v = y[0]
        for j in range(1, k):
            v = min(v, y[j])
        if record:
            pick = _pick(y, k, -1.0)
            for j in range(k):
                wb[b0 + j] = 1.0 if j == pick else 0.0
            if not fa[s]:
                wa[a0] = 1.0
        return v
    if fb[s] or k == 1:  # A chooses against B's fixed mix (or B's only action)
        for i in range(m):
            x[i] = 0.0
            for j in range(k):
                x[i] += (wb[b0 + j] if fb[s] else 1.0) * q[i, j]
        v = x[0]
        for i in range(1, m):
            v = max(v, x[i])
        if record:
            pick = _pick(x, m, 1.0)
            for i in range(m):
                wa[a0 + i] = 1.0 if i == pick else 0.0
            if not fb[s]:
                wb[b0] = 1.0
        return v
    v = _matrix_game(q, m, k, x, y)
    if record:
        for i in range(m):
            wa[a0 + i] = x[i]
        for j in range(k):
            wb[b0 + j] = y[j]
    return v


@njit(cache=True)
def _solve(na: np.ndarray, nb: np.ndarray, opt: np.ndarray, edge: np.ndarray, to: np.ndarray, p: np.ndarray,
           payoff: np.ndarray, fa: np.ndarray, fb: np.ndarray, wa: np.ndarray, wb: np.ndarray, aoff: np.ndarray,
           boff: np.ndarray, order: np.ndarray, ptr: np.ndarray, tol: float, max_sweeps: int,
           values: np.ndarray) -> tuple[float, int]:
    """Value iteration component by component, sinks first; then each free side's strategy at the values."""
    size = 1
    for s in range(na.size):
        size = max(size, na[s], nb[s])
    q = np.zeros((size, size))
    x = np.zeros(size)
    y = np.zeros(size)
    delta = np.zeros(na.size)
    before = np.zeros(na.size)
    residual, total = 0.0, 0
    for c in range(ptr.size - 1):
        lo, hi = ptr[c], ptr[c + 1]
        looped = hi - lo > 1
        if not looped:  # a single state loops only through itself
            s = order[lo]
            if na[s] * nb[s] > 0:
                for o in range(opt[s], opt[s] + na[s] * nb[s]):
                    for e in range(edge[o], edge[o + 1]):
                        looped = looped or to[e] == s
        sweeps = 0
        last, ratio_before = 0.0, -1.0
        while True:
            moved = 0.0
            for t in range(lo, hi):
                s = order[t]
                count = na[s] * nb[s]
                if count == 1:  # a chance node: its one option's ways
                    v = 0.0
                    for e in range(edge[opt[s]], edge[opt[s] + 1]):
                        v += p[e] * values[to[e]]
                elif count == 0:
                    v = payoff[s]
                else:
                    v = _state_value(s, na, nb, opt, edge, to, p, values, fa, fb, wa, wb, aoff, boff, q, x, y, False)
                delta[t] = v - values[s]
                moved = max(moved, abs(v - values[s]))
                values[s] = v
            sweeps += 1
            if not looped or moved <= tol or sweeps >= max_sweeps:
                break
            ratio = moved / last if last > 0 else -1.0
            steady = 0.0 < ratio < 1.0 and abs(ratio - ratio_before) <= STEADY * ratio
            for t in range(lo, hi):
                steady = steady and abs(delta[t] - ratio * before[t]) <= STEADY * moved
                before[t] = delta[t]
            if steady:
                for t in range(lo, hi):
                    values[order[t]] += ratio / (1.0 - ratio) * delta[t]
                last, ratio_before = 0.0, -1.0
            else:
                last, ratio_before = moved, ratio
        residual = max(residual, moved if looped else 0.0)
        total += sweeps
    for s in range(na.size):
        if na[s] * nb[s] > 0 and not (fa[s] and fb[s]):
            _state_value(s, na, nb, opt, edge, to, p, values, fa, fb, wa, wb, aoff, boff, q, x, y, True)
    return residual, total
