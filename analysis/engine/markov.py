"""Absorbing Markov chains over two fighters' condition tracks.

Each fighter has a :class:`Track`: the list of its possible conditions, each
with a status (up, out, dying, dead) and a *class* (what of the condition
matters to the fighter's own actions, e.g. its wound penalty).  An attack of X
on Y is a *kernel*: a sparse row-stochastic matrix over Y's track, one per
class of X.  :func:`attack`, :func:`simultaneous` and ordinary matrix products
build one round of a duel over the joint space ``A x B`` (index
``a * len(B) + b``); :func:`solve` turns the round matrix into the duel's
absorption probabilities and the distribution of rounds, with scipy's sparse
LU.  A system whose round is not a product of attacks (2K's IN economy) builds
the transient and absorbing blocks itself and calls :func:`solve_chain`.

Statuses are ordered: ``up < out < dying < dead``, and a fighter's condition
only ever moves to a worse or equal one.  After the first fighter is out,
:func:`finish` plays the other's attacks on the helpless one (``after_out =
"finish"``, RULES.md section 5).

Row-vector convention: a distribution ``v`` moves as ``v @ M``, so "A attacks,
then B attacks" is ``attack(A on B) @ attack(B on A)``.

>>> t = Track(labels=("fine", "out"), status=(UP, OUT))
>>> k = kernel(t, lambda i: [(0.5, 0), (0.5, 1)])
>>> m = attack(t, t, {0: k}, attacker="a") @ attack(t, t, {0: k}, attacker="b")
>>> sol = solve(m, t, t, start=(0, 0))
>>> round(sol.p_a_wins, 6), round(sol.p_b_wins, 6), sol.median_rounds
(0.666667, 0.333333, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Hashable, Iterable, Mapping, Sequence

import numpy as np

from analysis.base.lazy import sp, splu

UP, OUT, DYING, DEAD = 0, 1, 2, 3
STATUS_NAMES = ("up", "out", "dying", "dead")
LETHAL = {"dying": DYING, "dead": DEAD}
ROUNDS_TOL = 1e-12
MAX_ROUNDS = 100_000
ROUNDS_WORK = 4e8
"""Budget (matrix non-zeros x rounds) of the rounds distribution; past it the tail is reported, not iterated."""


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

    @property
    def deepest(self) -> int:
        """The worst status this track can reach."""
        return max(self.status)

    def mask(self, cls: int) -> sp.csr_matrix:
        """Diagonal selector of the up conditions of one class."""
        sel = (np.asarray(self.classes) == cls) & self.up
        return sp.diags(sel.astype(float), format="csr")


def kernel(track: Track, branches: Callable[[int], Iterable[tuple[float, int]]],
           acts_on: Callable[[int], bool] | None = None) -> sp.csr_matrix:
    """A sparse (sub)stochastic matrix over ``track``: row ``i`` from ``branches(i)``.

    Rows of conditions where ``acts_on(i)`` is false are the identity; by default
    those are the conditions that are not up (nothing happens to a fighter
    already out).  :func:`finish` passes its own ``acts_on``.
    """
    acts = acts_on or (lambda i: track.status[i] == UP)
    rows, cols, vals = [], [], []
    for i in range(len(track)):
        if not acts(i):
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
    own = a if attacker == "a" else b
    return attack_moves(a, b, [(own.mask(c), k) for c, k in kernels.items()], attacker)


def attack_moves(a: Track, b: Track, moves: Sequence[tuple[sp.spmatrix, sp.spmatrix]], attacker: str) -> sp.csr_matrix:
    """One attack that may change the attacker too, over the joint space, while both fighters are up.

    Each ``(own, kernel)`` pair moves the attacker by ``own`` (a matrix over its
    track: its class mask times what its turn does to it, e.g. a luck token or
    a fatigue box spent) and the defender by ``kernel``; the pairs are summed.
    :func:`attack` is the case ``own = mask(c)``.
    """
    if attacker == "a":
        m = sum(sp.kron(own, k) for own, k in moves)
    else:
        m = sum(sp.kron(k, own) for own, k in moves)
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
    """What :func:`solve` finds: outcome probabilities and the rounds distribution.

    ``p_x_out`` / ``p_x_dying`` / ``p_x_dead`` are the probabilities that
    fighter x ends the fight at that level or a worse one (``dead`` only dead),
    after :func:`finish` when it was applied.  ``ends`` maps each final pair of
    condition indices ``(a, b)`` to its probability.  ``mean_rounds`` counts
    the rounds of the fights that end (``None`` if none ends);
    ``rounds_tail`` is the mass of those not yet ended when the rounds
    distribution was cut.  ``truncation`` bounds the probability lost to a
    truncated unbounded roll (0 when nothing was truncated).
    ``finish_attacks`` is the mean number of attacks on a helpless fighter
    among the fights that end with exactly one side out (``None`` when the
    duel stopped at the first out).  ``killed_by_attacks[k]`` is P(at least one
    fighter at the ``lethal_at`` level or worse when at most ``k`` finishing
    attacks are allowed), k = 0 (the deciding blow alone) .. the attacks
    :func:`finish` played (empty when it was not applied).
    """

    p_a_wins: float
    p_b_wins: float
    p_both_out: float
    p_stalemate: float
    p_a_out: float
    p_b_out: float
    p_a_dying: float
    p_b_dying: float
    p_a_dead: float
    p_b_dead: float
    rounds: dict[int, float]
    mean_rounds: float | None
    rounds_tail: float
    states: int
    final: dict[tuple[str, str], float]
    ends: dict[tuple[int, int], float] = field(default_factory=dict, repr=False)
    truncation: float = 0.0
    finish_attacks: float | None = None
    killed_by_attacks: tuple[float, ...] = ()

    @property
    def p_ends(self) -> float:
        """P(the fight ends): every outcome but a stalemate."""
        return self.p_a_wins + self.p_b_wins + self.p_both_out

    def rounds_quantile(self, q: float) -> int | None:
        """The smallest r with P(rounds <= r | the fight ends) >= q, or ``None`` when it lies in the cut tail."""
        total = self.p_ends
        if total <= 0:
            return None
        acc = 0.0
        for r in sorted(self.rounds):
            acc += self.rounds[r]
            if acc >= q * total - 1e-12:
                return r
        return None

    @property
    def median_rounds(self) -> int | None:
        """The median of the rounds among fights that end (``None``: never ends, or beyond the cut)."""
        return self.rounds_quantile(0.5)

    @property
    def rounds_cut(self) -> int:
        """The last round the rounds distribution reaches."""
        return max(self.rounds, default=0)

    def killed(self, lethal_at: str) -> tuple[float, float]:
        """(P(A ends at ``lethal_at``), P(B ends there)); ``lethal_at`` is ``dying`` or ``dead``."""
        if lethal_at == "dead":
            return self.p_a_dead, self.p_b_dead
        return self.p_a_dying, self.p_b_dying

    def p_killed(self, lethal_at: str) -> float:
        """P(the fight ends with at least one fighter at ``lethal_at`` or worse): never above 1, unlike the sum of
        :meth:`killed` when both can fall in the same round."""
        worst = LETHAL[lethal_at]
        return float(sum(p for pair, p in self.final.items() if max(STATUS_NAMES.index(x) for x in pair) >= worst))


def _levels(ends: Mapping[tuple[int, int], float], a: Track, b: Track) -> dict[str, float]:
    """P(each fighter at each level or worse), the winner counts and the status pairs, from final pairs."""
    out = dict.fromkeys(("p_a_wins", "p_b_wins", "p_both_out", "p_a_out", "p_b_out", "p_a_dying", "p_b_dying",
                         "p_a_dead", "p_b_dead"), 0.0)
    final: dict[tuple[str, str], float] = {}
    for (i, j), p in ends.items():
        sa, sb = a.status[i], b.status[j]
        key = (STATUS_NAMES[sa], STATUS_NAMES[sb])
        final[key] = final.get(key, 0.0) + p
        for side, s in (("a", sa), ("b", sb)):
            out[f"p_{side}_out"] += p * (s >= OUT)
            out[f"p_{side}_dying"] += p * (s >= DYING)
            out[f"p_{side}_dead"] += p * (s == DEAD)
    for key, p in final.items():
        name = "p_both_out" if "up" not in key else "p_a_wins" if key[0] == "up" else "p_b_wins"
        out[name] += p
    out["final"] = final
    return out


def solve(m: sp.spmatrix, a: Track, b: Track, start: tuple[int, int] | Mapping[tuple[int, int], float]) -> Solution:
    """Absorption probabilities, mean and distribution of rounds of a duel.

    ``m`` is the round matrix over the joint space; ``start`` a pair of
    condition indices or a distribution over pairs.  Joint states where a
    fighter is not up absorb.  Conditions only worsen in every system, so with
    tracks listed from fresh to worst ``I - Q`` is triangular and the LU's
    natural column order has no fill-in.
    """
    return solve_rounds([m], a, b, start)


def solve_rounds(ms: Sequence[sp.spmatrix], a: Track, b: Track,
                 start: tuple[int, int] | Mapping[tuple[int, int], float]) -> Solution:
    """:func:`solve` for a duel whose first rounds differ: round ``t`` plays ``ms[t - 1]``, the last one repeating.

    The chain runs over (round kind, A, B), each kind moving to the next; the
    blocks keep ``I - Q`` triangular.  Final pairs are merged over the kinds.

    >>> t = Track(labels=("fine", "out"), status=(UP, OUT))
    >>> hit = attack(t, t, {0: kernel(t, lambda i: [(1.0, 1)])}, attacker="a")
    >>> idle = sp.identity(4, format="csr")
    >>> solve_rounds([idle, idle, hit], t, t, (0, 0)).rounds
    {3: 1.0}
    """
    k = len(ms)
    n, nb = len(a) * len(b), len(b)
    big = sum(sp.kron(sp.csr_matrix(([1.0], ([p], [min(p + 1, k - 1)])), shape=(k, k)), m) for p, m in enumerate(ms))
    big = sp.csr_matrix(big)
    init = {start: 1.0} if isinstance(start, tuple) else dict(start)
    x0_full = np.zeros(k * n)
    for (i, j), w in init.items():
        x0_full[i * nb + j] += w
    live = np.tile(_both_up(a, b), k)
    reach = np.flatnonzero(_closure((big != 0).T.tocsr(), x0_full > 0))
    trans, absorb = reach[live[reach]], reach[~live[reach]]
    rows = big[trans]
    joint = absorb % n
    ends = np.stack([joint // nb, joint % nb], axis=1)
    return solve_chain(rows[:, trans], rows[:, absorb], x0_full[trans], ends, a, b,
                       x0_end=x0_full[absorb], states=int(reach.size))


@dataclass(frozen=True)
class Absorption:
    """Where an absorbing chain's mass ends (``absorbed``, per absorbing column, ``x0_end`` included), what loops
    forever (``p_stalemate``), what a truncated roll lost (``truncation``), and its rounds: ``rounds[t]`` the mass
    absorbed in round ``t``, ``mean_rounds`` over the mass that ends (``None`` when none ends), ``rounds_tail``
    what the rounds distribution did not reach."""

    absorbed: np.ndarray
    p_stalemate: float
    truncation: float
    mean_rounds: float | None
    rounds: dict[int, float]
    rounds_tail: float


def absorb(q: sp.spmatrix, r: sp.spmatrix, x0: np.ndarray, x0_end: np.ndarray | None = None) -> Absorption:
    """The absorbing chain ``[q r]`` (one round per step) started from ``x0`` over the transient states and
    ``x0_end`` over the absorbing ones.  Rows of ``[q r]`` may sum to less than 1: the missing mass (a truncated
    roll) is ``truncation``.  Transient states from which nothing can be absorbed are a stalemate.

    >>> a = absorb(sp.csr_matrix([[0.5]]), sp.csr_matrix([[0.25, 0.25]]), np.array([1.0]))
    >>> a.absorbed.tolist(), a.mean_rounds
    ([0.5, 0.5], 2.0)
    """
    q, r = sp.csr_matrix(q), sp.csr_matrix(r)
    x0_end = np.zeros(r.shape[1]) if x0_end is None else x0_end
    ending = np.asarray(r.sum(axis=1)).ravel() > 0
    can_end = _closure((q != 0).tocsr(), ending)
    keep = np.flatnonzero(can_end)
    stuck = np.flatnonzero(~can_end)
    qk = q[keep][:, keep].tocsc()
    rk = r[keep]
    x = x0[keep]
    lost_rows = 1.0 - np.asarray(q[keep].sum(axis=1)).ravel() - np.asarray(rk.sum(axis=1)).ravel()
    to_stuck = np.asarray(q[keep][:, stuck].sum(axis=1)).ravel()
    p_stalemate = float(x0[stuck].sum())
    absorbed = x0_end.astype(float).copy()
    mean: float | None = None
    truncation = 0.0
    rounds: dict[int, float] = {}
    tail = 0.0
    if keep.size:
        lu = splu((sp.identity(keep.size, format="csc") - qk).T.tocsc(), permc_spec="NATURAL")
        visits = lu.solve(x)
        absorbed += visits @ rk
        p_stalemate += float(visits @ to_stuck)
        truncation = float(max(visits @ np.maximum(lost_rows, 0.0), 0.0))
        p_end = float(absorbed.sum() - x0_end.sum())
        if p_stalemate <= 0 and truncation <= 1e-15:
            mean = float(visits.sum()) if p_end > 0 else None
        elif p_end > 0:
            h = splu((sp.identity(keep.size, format="csc") - qk).tocsc(), permc_spec="NATURAL").solve(
                np.asarray(rk.sum(axis=1)).ravel())
            mean = float(visits @ h) / p_end
        rounds, tail = _rounds(qk, rk, x)
    return Absorption(absorbed, p_stalemate, truncation, mean, rounds, tail)


def solve_chain(q: sp.spmatrix, r: sp.spmatrix, x0: np.ndarray, ends: np.ndarray, a: Track, b: Track,
                x0_end: np.ndarray | None = None, states: int | None = None) -> Solution:
    """The duel of an explicit chain: ``q`` moves one round among the transient states (both up), ``r`` from
    them into the final pairs ``ends[k] = (a condition, b condition)``; ``x0`` starts over the transient states
    (``x0_end`` over the ends); see :func:`absorb`.
    """
    got = absorb(q, r, x0, x0_end)
    return solution_of(got, ends, a, b, int(states if states is not None else q.shape[0] + r.shape[1]))


def solution_of(got: Absorption, ends: np.ndarray, a: Track, b: Track, states: int) -> Solution:
    """The duel's :class:`Solution` from an :class:`Absorption` whose columns are the final pairs ``ends``."""
    pairs: dict[tuple[int, int], float] = {}
    for (i, j), p in zip(np.asarray(ends).tolist(), got.absorbed.tolist()):
        if p > 0:
            pairs[(i, j)] = pairs.get((i, j), 0.0) + p
    return Solution(**_levels(pairs, a, b), p_stalemate=got.p_stalemate, rounds=got.rounds, mean_rounds=got.mean_rounds,
                    rounds_tail=got.rounds_tail, states=states, ends=pairs, truncation=got.truncation)


def from_rounds(ends: Mapping[tuple[int, int], float], a: Track, b: Track, rounds: Mapping[int, float],
                p_stalemate: float = 0.0, truncation: float = 0.0, states: int = 0,
                rounds_tail: float = 0.0) -> Solution:
    """The solution of a duel computed round by round (a system that iterates its own round operator):
    the final pairs, P(first out in round t), and what was lost or cut.

    >>> t = Track(labels=("fine", "out"), status=(UP, OUT))
    >>> s = from_rounds({(0, 1): 0.5, (1, 0): 0.5}, t, t, {1: 0.75, 2: 0.25})
    >>> s.p_a_wins, s.mean_rounds
    (0.5, 1.25)
    """
    p_end = float(sum(rounds.values()))
    mean = float(sum(t * p for t, p in rounds.items()) / p_end) if p_end > 0 else None
    return Solution(**_levels(ends, a, b), p_stalemate=p_stalemate, rounds=dict(sorted(rounds.items())),
                    mean_rounds=mean, rounds_tail=rounds_tail, states=states, ends=dict(ends), truncation=truncation)


def mix_solutions(parts: Sequence[tuple[float, Solution]], a: Track, b: Track) -> Solution:
    """The solution of a duel whose first move is a random choice among chains."""
    parts = [(w, s) for w, s in parts if w > 0]
    rounds: dict[int, float] = {}
    ends: dict[tuple[int, int], float] = {}
    for w, s in parts:
        for k, v in s.rounds.items():
            rounds[k] = rounds.get(k, 0.0) + w * v
        for k, v in s.ends.items():
            ends[k] = ends.get(k, 0.0) + w * v

    def wsum(attr: str) -> float:
        return float(sum(w * getattr(s, attr) for w, s in parts))

    p_end = sum(w * s.p_ends for w, s in parts)
    mean = None
    if p_end > 0:
        mean = float(sum(w * s.p_ends * s.mean_rounds for w, s in parts if s.mean_rounds is not None) / p_end)
    return Solution(**_levels(ends, a, b), p_stalemate=wsum("p_stalemate"), rounds=dict(sorted(rounds.items())),
                    mean_rounds=mean, rounds_tail=wsum("rounds_tail"), states=int(sum(s.states for _, s in parts)),
                    ends=ends, truncation=wsum("truncation"))


def finish(sol: Solution, a: Track, b: Track, on_a: Mapping[int, sp.spmatrix], on_b: Mapping[int, sp.spmatrix],
           lethal_at: str, attacks: int,
           parts: Sequence[tuple[Mapping[tuple[int, int], float], Mapping[int, sp.spmatrix],
                                 Mapping[int, sp.spmatrix]]] = ()) -> Solution:
    """``after_out = "finish"``: where exactly one fighter is out, the other keeps attacking it.

    ``on_b[c]`` is one attack of A (class ``c``, its condition when B went
    out) on a helpless B, over B's whole track (:func:`helpless_kernel`);
    ``on_a`` likewise.  The attacks go on until the victim reaches
    ``lethal_at`` (or the deepest status its track has) or ``attacks`` more
    are made.  The levels and final pairs of the result are the ones after
    finishing; ``finish_attacks`` is the mean number of those attacks among
    the fights that end with exactly one side out.  ``parts`` splits the
    final pairs by how the sides strike then (2K: a weapon broken in the
    fight), each part ``(ends, on_a, on_b)`` with its own kernels; by default
    ``sol.ends`` with ``on_a`` and ``on_b``.
    """
    ends: dict[tuple[int, int], float] = {}
    groups: dict[tuple[int, str, int, int], np.ndarray] = {}
    parts = list(parts) or [(sol.ends, on_a, on_b)]
    p_one_out = 0.0
    for part_no, (part, _, _) in enumerate(parts):
        for (i, j), p in part.items():
            a_up, b_up = a.status[i] == UP, b.status[j] == UP
            if a_up == b_up:
                ends[(i, j)] = ends.get((i, j), 0.0) + p
                continue
            victim, keep, track = ("b", i, b) if a_up else ("a", j, a)
            cls = (a if a_up else b).classes[keep]
            vec = groups.setdefault((part_no, victim, keep, cls), np.zeros(len(track)))
            vec[j if a_up else i] += p
            p_one_out += p
    spent = 0.0
    lethal = LETHAL[lethal_at]
    killed = np.full(attacks + 1, sum(p for (i, j), p in ends.items() if max(a.status[i], b.status[j]) >= lethal),
                     dtype=float)
    for (part_no, victim, keep, cls), vec in groups.items():
        track = b if victim == "b" else a
        k = parts[part_no][2 if victim == "b" else 1][cls]
        target = min(lethal, track.deepest)
        done = np.asarray(track.status) >= target
        hit = np.asarray(track.status) >= lethal
        kt = sp.csr_matrix(k).T.tocsr()
        killed[0] += vec[hit].sum()
        for n in range(1, attacks + 1):
            going = vec[~done].sum()
            if going > 0:
                spent += going
                moving = np.where(done, 0.0, vec)
                vec = np.where(done, vec, 0.0) + kt @ moving
            killed[n] += vec[hit].sum()
        for idx in np.flatnonzero(vec > 0):
            pair = (keep, int(idx)) if victim == "b" else (int(idx), keep)
            ends[pair] = ends.get(pair, 0.0) + float(vec[idx])
    levels = _levels(ends, a, b)
    levels = {k: v for k, v in levels.items() if k not in ("p_a_wins", "p_b_wins", "p_both_out")}
    return replace(sol, **levels, ends=ends, finish_attacks=spent / p_one_out if p_one_out > 0 else 0.0,
                   killed_by_attacks=tuple(float(x) for x in killed))


def helpless_kernel(track: Track, branches: Callable[[int], Iterable[tuple[float, int]]],
                    lethal_at: str) -> sp.csr_matrix:
    """One attack on a helpless fighter over its whole ``track``: rows from ``branches(i)`` for the conditions
    below ``lethal_at`` (or the track's deepest status) that are not up, the identity elsewhere."""
    target = min(LETHAL[lethal_at], track.deepest)
    return kernel(track, branches, acts_on=lambda i: UP < track.status[i] < target)


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
    """P(the fight ends in round t), until the mass still fighting is below ROUNDS_TOL, or the work budget
    (:data:`ROUNDS_WORK`) or :data:`MAX_ROUNDS` is spent; the mass left is the tail."""
    qt = q.T.tocsr()
    ends = np.asarray(r.sum(axis=1)).ravel()
    v = x0.copy()
    out: dict[int, float] = {}
    limit = int(min(MAX_ROUNDS, max(1000, ROUNDS_WORK / max(qt.nnz, 1))))
    for t in range(1, limit + 1):
        p = float(np.sum(v * ends))
        if p > 0:
            out[t] = p
        v = qt @ v
        if v.sum() < ROUNDS_TOL:
            break
    return out, float(v.sum())
