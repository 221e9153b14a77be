"""Absorbing Markov chains over two fighters' condition tracks.

Each fighter has a :class:`Track`: the list of its possible conditions, each
with a status (up, out, dead) and a *class* (what of the condition matters to
the fighter's own actions, e.g. its wound penalty).  An attack of X on Y is a
*kernel*: a sparse row-stochastic matrix over Y's track, one per class of X.
:func:`attack`, :func:`simultaneous` and ordinary matrix products build one
round of a duel over the joint space ``A x B`` (index ``a * len(B) + b``);
:func:`solve` turns the round matrix into the duel's absorption probabilities
and the distribution of rounds, with scipy's sparse LU.

Row-vector convention: a distribution ``v`` moves as ``v @ M``, so "A attacks,
then B attacks" is ``attack(A on B) @ attack(B on A)``.

>>> t = Track(labels=("fine", "out"), status=(UP, OUT))
>>> k = kernel(t, lambda i: [(0.5, 0), (0.5, 1)])
>>> m = attack(t, t, {0: k}, attacker="a") @ attack(t, t, {0: k}, attacker="b")
>>> sol = solve(m, t, t, start=(0, 0))
>>> round(sol.p_a_wins, 6), round(sol.p_b_wins, 6)
(0.666667, 0.333333)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterable, Mapping, Sequence

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

UP, OUT, DEAD = 0, 1, 2
STATUS_NAMES = ("up", "out", "dead")
ROUNDS_TOL = 1e-12
MAX_ROUNDS = 100_000


@dataclass(frozen=True)
class Track:
    """One fighter's condition space.

    ``classes[i]`` is the class of condition ``i`` as an attacker (0 when the
    system has no penalties); it is ignored for conditions that are not up.
    """

    labels: tuple[Hashable, ...]
    status: tuple[int, ...]
    classes: tuple[int, ...] = ()
    index: Mapping[Hashable, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.status) != len(self.labels):
            raise ValueError("one status per condition")
        if not self.classes:
            object.__setattr__(self, "classes", (0,) * len(self.labels))
        object.__setattr__(self, "index", {label: i for i, label in enumerate(self.labels)})

    def __len__(self) -> int:
        return len(self.labels)

    @property
    def up(self) -> np.ndarray:
        """Boolean mask of conditions in which the fighter still acts."""
        return np.asarray(self.status) == UP

    def mask(self, cls: int) -> sp.csr_matrix:
        """Diagonal selector of the up conditions of one class."""
        sel = (np.asarray(self.classes) == cls) & self.up
        return sp.diags(sel.astype(float), format="csr")


def kernel(track: Track, branches: Callable[[int], Iterable[tuple[float, int]]]) -> sp.csr_matrix:
    """A sparse row-stochastic matrix over ``track``: row ``i`` from ``branches(i)``.

    Rows of conditions that are not up are the identity (nothing happens to a
    fighter already out).
    """
    rows, cols, vals = [], [], []
    for i in range(len(track)):
        if track.status[i] != UP:
            rows.append(i), cols.append(i), vals.append(1.0)
            continue
        for p, j in branches(i):
            if p > 0:
                rows.append(i), cols.append(j), vals.append(p)
    n = len(track)
    return sp.csr_matrix((vals, (rows, cols)), shape=(n, n))


def _both_up(a: Track, b: Track) -> np.ndarray:
    return np.kron(a.up, b.up).astype(bool)


def _only_when_both_up(m: sp.spmatrix, a: Track, b: Track) -> sp.csr_matrix:
    live = _both_up(a, b).astype(float)
    return (sp.diags(live) @ m + sp.diags(1.0 - live)).tocsr()


def attack(a: Track, b: Track, kernels: Mapping[int, sp.spmatrix], attacker: str) -> sp.csr_matrix:
    """One attack over the joint space, while both fighters are up.

    ``kernels[c]`` is the kernel over the defender's track when the attacker's
    condition is of class ``c``.
    """
    if attacker == "a":
        m = sum(sp.kron(a.mask(c), k) for c, k in kernels.items())
    else:
        m = sum(sp.kron(k, b.mask(c)) for c, k in kernels.items())
    return _only_when_both_up(m, a, b)


def simultaneous(a: Track, b: Track, on_a: Mapping[int, sp.spmatrix], on_b: Mapping[int, sp.spmatrix]) -> sp.csr_matrix:
    """Both attack at once from the same start: ``on_a[c]`` is B's attack (class c) on A, ``on_b[c]`` A's on B.

    A's attack is applied first over the joint space; on the rows where B was
    of class ``c`` at the start, B's class-``c`` attack then moves A's side:
    both attacks read the fighters' conditions before either lands.
    """
    a_hits = attack(a, b, on_b, "a")
    ones_a = np.ones(len(a))
    m = sum(sp.diags(np.kron(ones_a, b.mask(c).diagonal())) @ a_hits @ sp.kron(k, sp.identity(len(b)))
            for c, k in on_a.items())
    return _only_when_both_up(m, a, b)


def mixture(parts: Sequence[tuple[float, sp.spmatrix]]) -> sp.csr_matrix:
    """``sum(w * M)`` of round matrices (e.g. over initiative orders)."""
    return sum(w * m for w, m in parts if w > 0).tocsr()


@dataclass(frozen=True)
class Solution:
    """What :func:`solve` finds: outcome probabilities and the rounds distribution."""

    p_a_wins: float
    p_b_wins: float
    p_both_out: float
    p_a_dead: float
    p_b_dead: float
    p_stalemate: float
    rounds: dict[int, float]
    mean_rounds: float
    rounds_tail: float
    states: int
    final: dict[tuple[str, str], float]

    @property
    def median_rounds(self) -> int:
        """The smallest r with P(rounds <= r) >= 1/2 among fights that end."""
        total = sum(self.rounds.values())
        acc = 0.0
        for r in sorted(self.rounds):
            acc += self.rounds[r]
            if acc >= total / 2 - 1e-12:
                return r
        return max(self.rounds, default=0)


def solve(m: sp.spmatrix, a: Track, b: Track, start: tuple[int, int] | Mapping[tuple[int, int], float],
          permc_spec: str = "NATURAL") -> Solution:
    """Absorption probabilities, mean and distribution of rounds of a duel.

    ``m`` is the round matrix over the joint space; ``start`` a pair of
    condition indices or a distribution over pairs.  Joint states where a
    fighter is not up absorb.  Transient states from which no fighter can ever
    go out (neither can hurt the other) absorb as a stalemate.  Conditions
    only worsen in every system, so with tracks listed from fresh to worst
    ``I - Q`` is triangular and the LU's natural column order has no fill-in
    (``permc_spec`` is passed to :func:`scipy.sparse.linalg.splu`).
    """
    m = sp.csr_matrix(m)
    nb = len(b)
    init = {start: 1.0} if isinstance(start, tuple) else dict(start)
    x0_full = np.zeros(m.shape[0])
    for (i, j), w in init.items():
        x0_full[i * nb + j] += w
    live = _both_up(a, b)
    edges = (m != 0).tocsr()
    reach = np.flatnonzero(_closure(edges.T.tocsr(), x0_full > 0))
    trans = reach[live[reach]]
    absorb = reach[~live[reach]]
    ends = np.zeros(m.shape[0], dtype=bool)
    ends[absorb] = True
    can_end = _closure(edges, ends)[trans]
    stuck = trans[~can_end]
    trans = trans[can_end]
    rows = m[trans]
    q = rows[:, trans].tocsc()
    r = rows[:, absorb].tocsr()
    x0 = x0_full[trans]
    status_a = np.asarray(a.status)[absorb // nb]
    status_b = np.asarray(b.status)[absorb % nb]
    p_stalemate = float(x0_full[stuck].sum())
    if trans.size:
        lu = splu((sp.identity(trans.size, format="csc") - q).T.tocsc(), permc_spec=permc_spec)
        visits = lu.solve(x0)
        absorbed = visits @ r + x0_full[absorb]
        p_stalemate += float(visits @ np.asarray(rows[:, stuck].sum(axis=1)).ravel())
        rounds, tail = _rounds(q, r, x0)
        mean = float(visits.sum()) if p_stalemate == 0 else float(sum(k * v for k, v in rounds.items()) / max(sum(rounds.values()), 1e-300))
    else:
        absorbed, rounds, tail, mean = x0_full[absorb], {}, 0.0, 0.0
    final: dict[tuple[str, str], float] = {}
    for sa, sb, p in zip(status_a, status_b, absorbed):
        key = (STATUS_NAMES[sa], STATUS_NAMES[sb])
        final[key] = final.get(key, 0.0) + float(p)
    a_up, b_up = status_a == UP, status_b == UP
    return Solution(
        p_a_wins=float(absorbed[a_up & ~b_up].sum()),
        p_b_wins=float(absorbed[b_up & ~a_up].sum()),
        p_both_out=float(absorbed[~a_up & ~b_up].sum()),
        p_a_dead=float(absorbed[status_a == DEAD].sum()),
        p_b_dead=float(absorbed[status_b == DEAD].sum()),
        p_stalemate=p_stalemate,
        rounds=rounds,
        mean_rounds=mean,
        rounds_tail=tail,
        states=int(reach.size),
        final=final,
    )


def mix_solutions(parts: Sequence[tuple[float, Solution]]) -> Solution:
    """The solution of a duel whose first move is a random choice among chains."""
    parts = [(w, s) for w, s in parts if w > 0]
    rounds: dict[int, float] = {}
    final: dict[tuple[str, str], float] = {}
    for w, s in parts:
        for k, v in s.rounds.items():
            rounds[k] = rounds.get(k, 0.0) + w * v
        for k, v in s.final.items():
            final[k] = final.get(k, 0.0) + w * v

    def wsum(attr: str) -> float:
        return float(sum(w * getattr(s, attr) for w, s in parts))

    return Solution(
        p_a_wins=wsum("p_a_wins"), p_b_wins=wsum("p_b_wins"), p_both_out=wsum("p_both_out"),
        p_a_dead=wsum("p_a_dead"), p_b_dead=wsum("p_b_dead"), p_stalemate=wsum("p_stalemate"),
        rounds=dict(sorted(rounds.items())), mean_rounds=wsum("mean_rounds"), rounds_tail=wsum("rounds_tail"),
        states=int(sum(s.states for _, s in parts)), final=final,
    )


def _closure(graph: sp.csr_matrix, seed: np.ndarray) -> np.ndarray:
    """Mask of the states reachable from ``seed`` along ``graph`` (``graph[i, j] != 0``: an edge j -> i).

    Counts run in floats: a state may have hundreds of predecessors.
    """
    seen = seed.copy()
    while True:
        nxt = seen | ((graph @ seen.astype(np.float64)) > 0)
        if (nxt == seen).all():
            return seen
        seen = nxt


def _rounds(q: sp.csc_matrix, r: sp.csr_matrix, x0: np.ndarray) -> tuple[dict[int, float], float]:
    """P(the fight ends in round t), until the mass still fighting is below ROUNDS_TOL."""
    qt = q.T.tocsr()
    ends = np.asarray(r.sum(axis=1)).ravel()
    v = x0.copy()
    out: dict[int, float] = {}
    for t in range(1, MAX_ROUNDS + 1):
        p = float(np.sum(v * ends))
        if p > 0:
            out[t] = p
        v = qt @ v
        if v.sum() < ROUNDS_TOL:
            break
    return out, float(v.sum())
