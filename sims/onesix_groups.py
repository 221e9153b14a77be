"""2K: Monte Carlo group fights, N against M (RULES.md section 7), in the rules of
:mod:`analysis.systems.onesix.groups`.

``group_timing = "economy"`` (the default) plays the duel's IN economy with
every fighter: each round every fighter able to act rolls IN = reflexes + 1K -
penalty + carry; while one of them has IN >= 4, those with the highest IN act
at once (each picks its target by its ``target`` policy from the state of that
moment, pays 6 IN, and the attacks land one after another in listed order,
every test reading the penalties of that moment); a defender parries (3 IN) by
its policy if it has the IN and the attack is in time (its IN at most
``parry_window`` below the attacker's: each parry lowers its IN, so a second
attack of the same moment usually finds it too late), never a simultaneous
attack unless ``simultaneous_parry``; a hit lowers the victim's IN by the
penalty's rise and the lost actions, gear faults break weapons, leftovers carry.
One against one this is :func:`sims.onesix._duel` draw for draw.

``"order"`` and ``"average"``: each round every able fighter gets a key (IN =
reflexes + 1K - penalty, or reflexes + 3 - penalty), and the fighters act in
descending key, equal keys at once; each makes one attack (its penalty at its
moment) and parries at most once a round (the first attack on it, by its
policy, never a simultaneous one unless ``simultaneous_parry``); a hit that
costs an action (stopping effect, pain shock) takes the attack of a fighter who
has not acted yet this round.  No IN is spent and no weapon breaks (as in the
duel's fixed order).

The fight ends when a side has nobody able to act; under ``after_out =
"finish"`` the first able winner in listed order then makes the duel's
unopposed finishing attacks on each helpless loser in listed order.  Counts are
laid out by :func:`sims.groups.layout`.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from numba import njit

from analysis.base.params import ParamError
from analysis.systems.onesix import rules as rules_mod
from analysis.systems.onesix import steps
from analysis.systems.onesix.steps import P_AMIN, P_COST, P_IMMEDIATE, P_PARRY, P_SIMPARRY, P_WINDOW, _carry, _land
from sims.groups import _tally_group, layout
from sims.onesix import F_AVERAGE, F_PARRIES, F_REFLEXES, F_ATTACK, F_PERSONALITY, F_MAXWEAR, F_TRAINING, R_FINISH, \
    R_GEAR, _finish, _level, _one_k, _strike, pack_fighters, pack_rules
from sims.results import MAX_ROUNDS, UP

F_SIDE, F_TARGET = 14, 15
"""Columns appended to :func:`sims.onesix.pack_fighters`' row: the fighter's side (0 A, 1 B) and target policy."""
WEAKEST, RANDOM, STRONGEST, SPREAD = range(4)
ECONOMY, ORDER, AVERAGE = range(3)
NOBODY = -(1 << 40)
"""The key of a fighter out of the fight (below every IN)."""


@njit(cache=True, nogil=True)
def _penalty(cond: np.ndarray, i: int) -> int:
    return max(cond[i, 0], cond[i, 1])


@njit(cache=True, nogil=True)
def _able(fp: np.ndarray, cond: np.ndarray, side: int, pr: np.ndarray) -> bool:
    """Whether ``side`` has a fighter able to act."""
    for i in range(fp.shape[0]):
        if fp[i, F_SIDE] == side and _level(cond[i], pr) == UP:
            return True
    return False


@njit(cache=True, nogil=True)
def _target(i: int, fp: np.ndarray, cond: np.ndarray, counts: np.ndarray, pr: np.ndarray,
            rng: np.random.Generator) -> int:
    """Whom fighter ``i`` attacks among the able enemies (-1: none), by its target policy, ties by listed order."""
    best, able = -1, 0
    policy = fp[i, F_TARGET]
    for j in range(fp.shape[0]):
        if fp[j, F_SIDE] == fp[i, F_SIDE] or _level(cond[j], pr) != UP:
            continue
        able += 1
        if policy == RANDOM:
            if rng.random() * able < 1.0:
                best = j
            continue
        if best < 0:
            best = j
        elif policy == WEAKEST:
            pj, pb = _penalty(cond, j), _penalty(cond, best)
            if pj > pb or (pj == pb and cond[j, 0] > cond[best, 0]):
                best = j
        elif policy == STRONGEST and fp[j, F_ATTACK] > fp[best, F_ATTACK]:
            best = j
        elif policy == SPREAD and counts[j] < counts[best]:
            best = j
    return best


@njit(cache=True, nogil=True)
def _blow(att: np.ndarray, pen_a: int, dfn: np.ndarray, pen_d: int, cond: np.ndarray, d: int, parry: bool,
          armed: bool, test: bool, r: np.ndarray, pr: np.ndarray, rng: np.random.Generator) -> tuple[int, bool, bool]:
    """One attack (penalties of the moment ``pen_a``, ``pen_d``) on fighter ``d`` (its condition updated in place):
    the IN it loses at once, whether the hit cost it an action, whether the attacker's weapon broke."""
    levels, cls, step, broke = _strike(att, pen_a, dfn, pen_d, cond[d, 2], parry, armed, test, r, rng)
    if levels < 0 or (levels == 0 and step == 0):
        return 0, False, broke
    w, s = cond[d, 0], cond[d, 1]
    w2, s2, k2, drop = _land(w, s, cond[d, 2], levels, cls, step, dfn[F_TRAINING], dfn[F_PERSONALITY],
                             dfn[F_MAXWEAR], pr)
    cond[d, 0], cond[d, 1], cond[d, 2] = w2, s2, k2
    rise = max(w2, s2) - max(w, s) if pr[P_IMMEDIATE] else 0
    return drop, drop > rise, broke


@njit(cache=True, nogil=True)
def _economy_round(fp: np.ndarray, cond: np.ndarray, inn: np.ndarray, carry: np.ndarray, arms: np.ndarray,
                   counts: np.ndarray, acting: np.ndarray, tgt: np.ndarray, pens: np.ndarray, r: np.ndarray,
                   pr: np.ndarray, rng: np.random.Generator) -> None:
    """One 6-second round of the IN economy for every fighter (in place); it stops when a side has nobody able."""
    nf = fp.shape[0]
    counts[:] = 0
    for i in range(nf):
        if _level(cond[i], pr) == UP:
            inn[i] = fp[i, F_REFLEXES] - _penalty(cond, i) + carry[i] + _one_k(r, rng)
    test = r[R_GEAR] != 0
    while True:
        top = NOBODY
        for i in range(nf):
            if _level(cond[i], pr) == UP and inn[i] > top:
                top = inn[i]
        if top < pr[P_AMIN]:
            break
        for i in range(nf):
            acting[i] = _level(cond[i], pr) == UP and inn[i] == top
            pens[i] = _penalty(cond, i)
        for i in range(nf):
            if acting[i]:
                tgt[i] = _target(i, fp, cond, counts, pr, rng)
                counts[tgt[i]] += 1
                inn[i] -= pr[P_COST]
        for i in range(nf):
            if not acting[i]:
                continue
            d = tgt[i]
            if acting[d]:
                parry = pr[P_SIMPARRY] != 0 and fp[d, F_PARRIES] != 0 and inn[d] >= pr[P_PARRY]
            else:
                parry = fp[d, F_PARRIES] != 0 and inn[d] >= pr[P_PARRY] and top - inn[d] <= pr[P_WINDOW]
            inn[d] -= pr[P_PARRY] * parry
            drop, _, broke = _blow(fp[i], pens[i], fp[d], pens[d], cond, d, parry, arms[i] != 0, test, r, pr, rng)
            inn[d] -= drop
            arms[i] = arms[i] and not broke
        if not (_able(fp, cond, 0, pr) and _able(fp, cond, 1, pr)):
            return
    for i in range(nf):
        carry[i] = _carry(inn[i], pr)


@njit(cache=True, nogil=True)
def _order_round(fp: np.ndarray, cond: np.ndarray, average: bool, counts: np.ndarray, acting: np.ndarray,
                 tgt: np.ndarray, pens: np.ndarray, key: np.ndarray, place: np.ndarray, order: np.ndarray,
                 lost: np.ndarray,
                 parried: np.ndarray, r: np.ndarray, pr: np.ndarray, rng: np.random.Generator) -> None:
    """One round under ``group_timing = order`` (or ``average``): every able fighter attacks once in descending key,
    equal keys at once (in place); it stops when a side has nobody able."""
    nf = fp.shape[0]
    counts[:] = 0
    lost[:] = 0
    parried[:] = 0
    for i in range(nf):
        pens[i] = _penalty(cond, i)
        acting[i] = False
        if _level(cond[i], pr) != UP:
            key[i] = NOBODY
        elif average:
            key[i] = fp[i, F_AVERAGE] - _penalty(cond, i)
        else:
            key[i] = fp[i, F_REFLEXES] - _penalty(cond, i) + _one_k(r, rng)
    for i in range(nf):  # the place of each in descending key, equal keys in listed order (a counting sort)
        p = 0
        for j in range(nf):
            if key[j] > key[i] or (key[j] == key[i] and j < i):
                p += 1
        place[i] = p
        order[p] = i
    p = 0
    while p < nf and key[order[p]] > NOBODY:
        q = p
        while q < nf and key[order[q]] == key[order[p]]:
            q += 1
        for k in range(p, q):
            i = order[k]
            acting[i] = _level(cond[i], pr) == UP and lost[i] == 0
            if acting[i]:
                tgt[i] = _target(i, fp, cond, counts, pr, rng)
                counts[tgt[i]] += 1
        down = False
        for k in range(p, q):
            i = order[k]
            if not acting[i]:
                continue
            d = tgt[i]
            parry = fp[d, F_PARRIES] != 0 and parried[d] == 0 and (not acting[d] or pr[P_SIMPARRY] != 0)
            parried[d] = parried[d] or parry
            was_up = _level(cond[d], pr) == UP
            _, lose, _ = _blow(fp[i], pens[i], fp[d], pens[d], cond, d, parry, True, False, r, pr, rng)
            down = down or (was_up and _level(cond[d], pr) != UP)
            if lose and place[d] >= q:
                lost[d] = 1
        for k in range(p, q):  # the penalties of the next moment; this one's actors are done
            i = order[k]
            if acting[i]:
                pens[tgt[i]] = _penalty(cond, tgt[i])
                acting[i] = False
        if down and not (_able(fp, cond, 0, pr) and _able(fp, cond, 1, pr)):
            return
        p = q


@njit(cache=True, nogil=True)
def _fights(fp: np.ndarray, r: np.ndarray, pr: np.ndarray, timing: int, lay: np.ndarray, n: int,
            rng: np.random.Generator) -> np.ndarray:
    """n group fights; counts laid out by :func:`sims.groups.layout`."""
    nf = fp.shape[0]
    out = np.zeros(lay[5] + MAX_ROUNDS + 1, dtype=np.int64)
    cond = np.zeros((nf, 3), dtype=np.int64)
    inn = np.zeros(nf, dtype=np.int64)
    carry = np.zeros(nf, dtype=np.int64)
    arms = np.ones(nf, dtype=np.int64)
    counts = np.zeros(nf, dtype=np.int64)
    acting = np.zeros(nf, dtype=np.bool_)
    tgt = np.zeros(nf, dtype=np.int64)
    pens = np.zeros(nf, dtype=np.int64)
    key = np.zeros(nf, dtype=np.int64)
    place = np.zeros(nf, dtype=np.int64)
    order = np.zeros(nf, dtype=np.int64)
    lost = np.zeros(nf, dtype=np.int64)
    parried = np.zeros(nf, dtype=np.bool_)
    levels = np.zeros(nf, dtype=np.int64)
    for _ in range(n):
        cond[:] = 0
        carry[:] = 0
        arms[:] = 1
        rounds = 0
        while True:
            rounds += 1
            if rounds > MAX_ROUNDS:
                break
            if timing == ECONOMY:
                _economy_round(fp, cond, inn, carry, arms, counts, acting, tgt, pens, r, pr, rng)
            else:
                _order_round(fp, cond, timing == AVERAGE, counts, acting, tgt, pens, key, place, order, lost, parried,
                             r, pr, rng)
            if not (_able(fp, cond, 0, pr) and _able(fp, cond, 1, pr)):
                break
        able_a, able_b = _able(fp, cond, 0, pr), _able(fp, cond, 1, pr)
        if r[R_FINISH] and rounds <= MAX_ROUNDS and able_a != able_b:
            w = 0
            while _level(cond[w], pr) != UP:
                w += 1
            for v in range(nf):
                if fp[v, F_SIDE] != fp[w, F_SIDE]:
                    _finish(fp[w], _penalty(cond, w), arms[w] != 0, fp[v], cond[v], r, pr, rng)
        for i in range(nf):
            levels[i] = _level(cond[i], pr)
        _tally_group(out, lay, rounds, levels)
    return out


def pack(rules: rules_mod.Rules, side_a: Sequence[rules_mod.Fighter],
         side_b: Sequence[rules_mod.Fighter]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(fp, r, pr): every fighter's row (:func:`sims.onesix.pack_fighters` with its side and target policy), the
    test rules and the step rules."""
    fighters = tuple(side_a) + tuple(side_b)
    rows = [np.concatenate((pack_fighters(rules, f, f)[0], [int(i >= len(side_a)), rules_mod.TARGETS.index(f.target)]))
            for i, f in enumerate(fighters)]
    return (np.array(rows, dtype=np.int64), pack_rules(rules),
            steps.pack_rules(rules, fighters[0], fighters[-1]))


def check_timing(rules: rules_mod.Rules) -> None:
    """Refuse ``in_economy = false`` under ``group_timing = economy``: the fixed order is a duel's simplification;
    a group fight's own orders are ``group_timing = order`` and ``average``."""
    if not rules.in_economy and rules.group_timing == "economy":
        raise ParamError("in_economy", "false", "true in a group fight under group_timing = economy (the fixed order "
                         "is a duel's simplification; for a group: group_timing = order or average)")


def group_call(rules: rules_mod.Rules, side_a: Sequence[rules_mod.Fighter],
               side_b: Sequence[rules_mod.Fighter]) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The group kernel bound to a ruleset and two sides (for :func:`sims.api.simulate_group`)."""
    if not side_a or not side_b:
        raise ParamError("sides", f"{len(side_a)} and {len(side_b)} fighters", "at least one fighter a side")
    check_timing(rules)
    fp, r, pr = pack(rules, side_a, side_b)
    timing = rules_mod.GROUP_TIMINGS.index(rules.group_timing)
    lay = layout(len(side_a), len(side_b)).packed()
    return lambda n, rng: _fights(fp, r, pr, timing, lay, n, rng)
