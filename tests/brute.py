"""Independent brute-force enumerations in exact fractions.

Nothing here imports the lab: every rule is re-implemented from RULES.md by
walking every physical die roll, so that the tests compare two independent
computations.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction
from functools import lru_cache
from typing import Iterable

Pmf = dict[int, Fraction]


def enumerate_dice(faces: Iterable[int], n: int) -> Iterable[tuple[tuple[int, ...], Fraction]]:
    """Every ordered roll of ``n`` dice with these faces, with its probability."""
    faces = list(faces)
    p = Fraction(1, len(faces) ** n)
    for roll in itertools.product(faces, repeat=n):
        yield roll, p


def pmf_of(outcomes: Iterable[tuple[int, Fraction]]) -> Pmf:
    out: Pmf = defaultdict(Fraction)
    for value, p in outcomes:
        out[value] += p
    return dict(out)


# --------------------------------------------------------------------- tristat
def tristat_check(die: int, target: int) -> tuple[Fraction, Pmf, Fraction, Fraction]:
    """(P(success), margin pmf, P(natural 2), P(natural 2X)) over all 2dX rolls."""
    success = Fraction(0)
    crit = fumble = Fraction(0)
    margins = []
    for (a, b), p in enumerate_dice(range(1, die + 1), 2):
        total = a + b
        ok = total == 2 or (total <= target and total != 2 * die)
        success += p if ok else 0
        crit += p if total == 2 else 0
        fumble += p if total == 2 * die else 0
        margins.append((target - total, p))
    return success, pmf_of(margins), crit, fumble


# ---------------------------------------------------------------------- onesix
def onesix_chain(depth_left: int | None, first: bool, ones_count: bool, cut: int = 26) -> Pmf:
    """One die under the rule of 1 and 6, by walking the chain of extra dice.

    ``depth_left`` extra dice may still be rolled (None: unlimited, walked
    ``cut`` levels deep, leaving (1/6)**cut unresolved).
    """
    out: Pmf = defaultdict(Fraction)
    for face in range(1, 7):
        p = Fraction(1, 6)
        value = 0 if face == 1 and (first or not ones_count) else face
        if face == 6 and (depth_left is None or depth_left > 0):
            if depth_left is None and cut == 0:
                continue  # unresolved mass
            nxt = onesix_chain(None if depth_left is None else depth_left - 1, False, ones_count, cut - 1)
            for v, q in nxt.items():
                out[value + v] += p * q
        else:
            out[value] += p
    return dict(out)


def convolve(a: Pmf, b: Pmf) -> Pmf:
    out: Pmf = defaultdict(Fraction)
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] += p * q
    return dict(out)


@lru_cache(maxsize=None)
def onesix_2k(depth: int | None = None, ones_count: bool = False) -> Pmf:
    die = onesix_chain(depth, True, ones_count)
    return convolve(die, die)


def onesix_check(rating: int, mod: int = 0, skilled: bool = True, **kw) -> tuple[Fraction, Pmf, Fraction]:
    """(P(RT >= 15), success-level pmf, P(RT < 6))."""
    two_k = onesix_2k(**kw)
    levels = []
    success = fumble = Fraction(0)
    for k, p in two_k.items():
        rt = rating + mod + k
        u = 0
        if rt >= 15:
            success += p
            u = 1 + (rt - 15) // 3
            if not skilled:
                u = min(u, 1)
        fumble += p if rt < 6 else 0
        levels.append((u, p))
    return success, pmf_of(levels), fumble


# ------------------------------------------------------------------------- tun
def tun_rolls(dice: str) -> list[tuple[int, Fraction]]:
    if dice == "3d6":
        return [(sum(r), p) for r, p in enumerate_dice(range(1, 7), 3)]
    if dice == "1d20":
        return [(r[0], p) for r, p in enumerate_dice(range(1, 21), 1)]
    return [(3 * r[0], p) for r, p in enumerate_dice(range(1, 7), 1)]


TUN_CRIT = {"3d6": (3, 18, 6), "1d20": (1, 20, 2), "1d6x3": (3, 18, 3)}


def tun_outcome(dice: str, limit: int, roll: int, le: bool, crits: bool) -> tuple[bool, int]:
    lo, hi, bonus = TUN_CRIT[dice]
    ok = roll <= limit if le else roll < limit
    e = limit - roll
    if crits and roll == lo:
        return True, max(e, 0) + bonus
    if crits and roll == hi:
        return False, e
    return ok, e


def tun_check(dice: str, limit: int, le: bool = False, crits: bool = False) -> tuple[Fraction, Pmf]:
    success = Fraction(0)
    es = []
    for roll, p in tun_rolls(dice):
        ok, e = tun_outcome(dice, limit, roll, le, crits)
        success += p if ok else 0
        es.append((e, p))
    return success, pmf_of(es)


# ------------------------------------------------------------------------ kurs
KURS_FACES = {"default": (-2, -1, 0, 0, 1, 2), "fudge": (-1, 0, 1), "d5": (-2, -1, 0, 1, 2)}


def kurs_check(skill: int, difficulty: int = 0, faces=KURS_FACES["default"], luck: int = 0) -> tuple[Fraction, Pmf, Fraction]:
    """(P(total >= difficulty), margin pmf, P(total == difficulty))."""
    margins = []
    for roll, p in enumerate_dice(faces, 3):
        m = sum(roll) + skill - difficulty
        if luck > 0 and -3 <= m <= -1:
            m += 3
        margins.append((m, p))
    pmf = pmf_of(margins)
    return sum((p for m, p in pmf.items() if m >= 0), Fraction(0)), pmf, pmf.get(0, Fraction(0))


# -------------------------------------------------------------------- contests
def contest(a: list[tuple[Fraction, tuple]], b: list[tuple[Fraction, tuple]]) -> tuple[Fraction, Fraction, Fraction]:
    """(P(A's key > B's), P(equal), P(less)) over independent outcome lists of (p, key)."""
    win = tie = lose = Fraction(0)
    for pa, ka in a:
        for pb, kb in b:
            if ka > kb:
                win += pa * pb
            elif ka == kb:
                tie += pa * pb
            else:
                lose += pa * pb
    return win, tie, lose


def close(a: float, b: Fraction | float, tol: float = 1e-12) -> bool:
    return abs(float(a) - float(b)) <= tol


def pmf_close(dist_dict: dict, pmf: Pmf, tol: float = 1e-12) -> bool:
    keys = set(int(k) for k in dist_dict) | set(pmf)
    got = {int(k): v for k, v in dist_dict.items()}
    return all(abs(got.get(k, 0.0) - float(pmf.get(k, 0))) <= tol for k in keys)

