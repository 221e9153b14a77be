"""Monte Carlo group fights (RULES.md section 7): the count layout every system's group kernel fills, and the result.

A kernel for ``na`` fighters on side A and ``nb`` on side B writes one flat
count array per chunk, laid out by :func:`layout`: who won, the survivors
able to act on each side, each fighter's final level (out, dying, dead:
each "or worse"), then the rounds histogram.  :func:`_tally_group` records
one fight.  :class:`SimGroupResult` turns the counts into estimates with n,
SE and a 95% interval, shaped like the exact group result.

>>> lay = layout(1, 2)
>>> lay.survivors_a, lay.survivors_b, lay.fighters, lay.rounds, lay.size
(4, 6, 9, 18, 2019)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
from numba import njit

from sims.results import DEAD, DYING, MAX_ROUNDS, OUT, UP, Estimate, _fields, _run_fields, mean_of_histogram, proportion

G_A_WINS, G_B_WINS, G_BOTH_OUT, G_UNFINISHED = range(4)


@dataclass(frozen=True)
class Layout:
    """Where each part of a group fight's counts starts (see :func:`layout`)."""

    na: int
    nb: int
    survivors_a: int
    survivors_b: int
    fighters: int
    rounds: int
    size: int

    def packed(self) -> np.ndarray:
        """The offsets for a kernel: ``[na, nb, survivors_a, survivors_b, fighters, rounds]``."""
        return np.array([self.na, self.nb, self.survivors_a, self.survivors_b, self.fighters, self.rounds],
                        dtype=np.int64)


def layout(na: int, nb: int) -> Layout:
    """The count layout of a fight of ``na`` against ``nb``: four outcome counts, the survivors of A
    (``na + 1`` bins) and of B, three levels per fighter (A's first), the rounds histogram."""
    sa = 4
    sb = sa + na + 1
    fighters = sb + nb + 1
    rounds = fighters + 3 * (na + nb)
    return Layout(na, nb, sa, sb, fighters, rounds, rounds + MAX_ROUNDS + 1)


@njit(cache=True, nogil=True)
def _tally_group(out: np.ndarray, lay: np.ndarray, rounds: int, levels: np.ndarray) -> None:
    """Record one fight: ``rounds`` played (``> MAX_ROUNDS``: it never ended) and every fighter's final level
    (``levels[:na]`` side A's, then side B's; ``UP``..``DEAD``)."""
    na, nb = lay[0], lay[1]
    if rounds > MAX_ROUNDS:
        out[G_UNFINISHED] += 1
        return
    up_a, up_b = 0, 0
    for k in range(na + nb):
        lv = levels[k]
        if lv == UP:
            if k < na:
                up_a += 1
            else:
                up_b += 1
        base = lay[4] + 3 * k
        out[base] += lv >= OUT
        out[base + 1] += lv >= DYING
        out[base + 2] += lv == DEAD
    if up_a > 0 and up_b == 0:
        out[G_A_WINS] += 1
    elif up_b > 0 and up_a == 0:
        out[G_B_WINS] += 1
    elif up_a == 0 and up_b == 0:
        out[G_BOTH_OUT] += 1
    out[lay[2] + up_a] += 1
    out[lay[3] + up_b] += 1
    out[lay[5] + rounds] += 1


@dataclass(frozen=True)
class SimGroupResult:
    """A simulated group fight: the exact group result's fields, each with SE and CI, plus n and the seed."""

    system: str
    variants: Mapping[str, Any]
    side_a: tuple[Mapping[str, Any], ...]
    side_b: tuple[Mapping[str, Any], ...]
    n: int
    seed: Any
    counts: np.ndarray
    n_requested: int | None = None

    @property
    def layout(self) -> Layout:
        return layout(len(self.side_a), len(self.side_b))

    def estimate(self, index: int) -> Estimate:
        return proportion(int(self.counts[index]), self.n)

    @property
    def p_a_wins(self) -> Estimate:
        return self.estimate(G_A_WINS)

    @property
    def p_b_wins(self) -> Estimate:
        return self.estimate(G_B_WINS)

    @property
    def p_both_out(self) -> Estimate:
        return self.estimate(G_BOTH_OUT)

    @property
    def p_unfinished(self) -> Estimate:
        return self.estimate(G_UNFINISHED)

    def survivors(self, side: str) -> dict[int, Estimate]:
        """P(k fighters of ``side`` able to act at the end), k = 0 .. the side's size."""
        lay = self.layout
        start, size = (lay.survivors_a, lay.na) if side == "a" else (lay.survivors_b, lay.nb)
        return {k: self.estimate(start + k) for k in range(size + 1)}

    def fighter(self, k: int) -> dict[str, Estimate]:
        """Fighter ``k`` (side A's first, then B's): P(out), P(dying), P(dead), each "or worse"."""
        base = self.layout.fighters + 3 * k
        return {"p_out": self.estimate(base), "p_dying": self.estimate(base + 1), "p_dead": self.estimate(base + 2)}

    @property
    def mean_rounds(self) -> Estimate | None:
        hist = self.counts[self.layout.rounds:]
        return mean_of_histogram(np.arange(hist.size), hist)

    def to_dict(self) -> dict[str, Any]:
        from analysis.engine.results import house_rules_echo, strict

        out: dict[str, Any] = {"system": self.system, "method": "monte_carlo", "variants": dict(self.variants),
                               "house_rules": house_rules_echo(self.system, self.variants),
                               "side_a": [dict(f) for f in self.side_a], "side_b": [dict(f) for f in self.side_b],
                               "n": self.n, "seed": self.seed, **_run_fields(self.n, self.n_requested)}
        for name in ("p_a_wins", "p_b_wins", "p_both_out", "p_unfinished"):
            out.update(_fields(name, getattr(self, name)))
        for side in "ab":
            out[f"survivors_{side}"] = {str(k): e.value for k, e in self.survivors(side).items()}
            out[f"se_survivors_{side}"] = {str(k): e.se for k, e in self.survivors(side).items()}
        fighters = []
        for k, f in enumerate(list(self.side_a) + list(self.side_b)):
            side, index = ("a", k) if k < len(self.side_a) else ("b", k - len(self.side_a))
            row: dict[str, Any] = {"side": side, "index": index, "name": f.get("name", "")}
            for name, e in self.fighter(k).items():
                row.update(_fields(name, e))
            fighters.append(row)
        out["fighters"] = fighters
        hist = self.counts[self.layout.rounds:]
        out["rounds"] = {str(r): int(c) / self.n for r, c in enumerate(hist) if c}
        out.update(_fields("mean_rounds", self.mean_rounds))
        out["max_rounds"] = MAX_ROUNDS
        return strict(out)


def sides_echo(fighters: Sequence[Any], rules: Any) -> tuple[dict[str, Any], ...]:
    """Each fighter of a side as results echo it."""
    from analysis.engine.combat import describe_fighter

    return tuple(describe_fighter(f, rules) for f in fighters)
