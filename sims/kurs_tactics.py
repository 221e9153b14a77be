"""К.У.Р.С.: Monte Carlo duels played by a solved strategy (RULES.md section 8).

The kernel plays the duel as the decision game of :mod:`analysis.systems.kurs.tactics` does, moment by moment:
at each turn the mover's stance, once the rolls are known a luck token of the side whose check fails by
1..luck_bonus, once a hit is known the defender's effort dodge, and the winner's finishing stance; at each it
computes what the decider knows (the game's features, in their order) and draws the action from the side's policy
table (:func:`analysis.engine.decisions.policy_tables`), packed by :func:`sims.policy.pack_tables`.  Rolls are uniform draws
from the equally likely dK sums (:func:`sims.kurs.dk_table`); the damage rule and the box track are tabulated from
the ruleset (:func:`pack_tracks`).  Counts are laid out as every duel's (:mod:`sims.results`).

:func:`simulate` runs it; ``sims.kurs`` (being reworked elsewhere) does not route ``simulate_duel(...,
policy=...)`` here yet.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from numba import njit

from analysis.engine.decisions import PolicyTable
from analysis.systems import kurs as rules_mod
from sims.kurs import dk_table
from sims.policy import _choose, pack_tables
from sims.results import DUEL_SIZE, DYING, MAX_ROUNDS, OUT, UP, _tally

KINDS = ("stance", "luck", "dodge", "finish_stance")
NF = 18
"""The longest feature vector (luck)."""
MARGIN = 80
"""Margins are tabulated over -MARGIN..MARGIN (clamped beyond)."""
# Packed rules.
(P_TRADE_FATIGUE_COST, P_TRADE_BONUS, P_TRADE_FATIGUE, P_NO_DEFENSE_BONUS, P_DODGE_FATIGUE, P_LUCK, P_BONUS,
 P_FINISH, P_FINISH_ATTACKS, P_CLAMP, P_CLAMP_ZERO, P_CLAMP_LOW, P_SURPRISE) = range(13)
# Packed fighter: attack skill, defense skill + shield, agility.
F_ATTACK, F_DEFENSE, F_AGILITY = range(3)


def pack_tracks(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(damage[x, margin + MARGIN], marks[f, l, m, h, i, damage, (6 boxes after, level or -1, soaked)],
    pain[f, l, m, h], track): the damage rule of each side's attack and the box track, from the ruleset."""
    fs = (a, b)
    damage = np.zeros((2, 2 * MARGIN + 1), dtype=np.int64)
    for x in range(2):
        for k in range(2 * MARGIN + 1):
            s = rules_mod.settle(rules, fs[x], fs[1 - x], k - MARGIN, False, False)
            damage[x, k] = 0 if s.kind == "miss" else s.damage
    tr = rules.track
    dmax = int(damage.max())
    marks = np.zeros((tr[0] + 1, tr[1] + 1, tr[2] + 1, tr[3] + 1, tr[4] + 1, dmax + 1, 8), dtype=np.int64)
    pain = np.zeros((tr[0] + 1, tr[1] + 1, tr[2] + 1, tr[3] + 1), dtype=np.int64)
    for idx in np.ndindex(*marks.shape[:5]):
        boxes = (*idx, 0)
        pain[idx[:4]] = rules_mod.penalty(rules, boxes)
        for d in range(dmax + 1):
            after, level, soaked = rules_mod.mark(rules, boxes, d)
            marks[idx + (d,)] = (*after, -1 if level is None else level, int(soaked))
    return damage, marks, pain, np.array(tr, dtype=np.int64)


@njit(cache=True, nogil=True)
def _common(feats: np.ndarray, c: np.ndarray, me: int) -> None:
    """Own boxes, tokens and surprise, then the opponent's boxes and tokens (features 0..9)."""
    for i in range(4):
        feats[i] = c[me, i]
        feats[6 + i] = c[1 - me, i]
    feats[4], feats[5], feats[10] = c[me, 6], c[me, 8], c[1 - me, 6]


@njit(cache=True, nogil=True)
def _stance_mod(s: int, c: np.ndarray, x: int, r: np.ndarray, track: np.ndarray, pay: bool) -> tuple[int, int]:
    """(attack modifier, stance held) of side ``x`` declaring ``s``; a trade's fatigue price paid when ``pay``."""
    if s == 3:
        return r[P_NO_DEFENSE_BONUS], 3
    if s == 0:
        return 0, 0
    if r[P_TRADE_FATIGUE_COST]:
        if track[0] - c[x, 0] < r[P_TRADE_FATIGUE]:
            return 0, 0
        if pay:
            c[x, 0] += r[P_TRADE_FATIGUE]
    return (r[P_TRADE_BONUS] if s == 1 else -r[P_TRADE_BONUS]), s


@njit(cache=True, nogil=True)
def _duels(tabs: tuple, ctx: tuple, p_a_first: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """n duels played by the policy tables ``tabs``; counts laid out as in :mod:`sims.results`."""
    meta, codes, lo_shape, probs = tabs
    fs, r, sums, damage, marks, pain, track = ctx
    out = np.zeros(DUEL_SIZE, dtype=np.int64)
    c = np.zeros((2, 9), dtype=np.int64)  # boxes 0..5, tokens, held stance, surprise to come
    feats = np.zeros(NF, dtype=np.int64)
    ns = sums.size
    for _ in range(n):
        c[:, :] = 0
        c[:, 6] = r[P_LUCK]
        c[0, 8] = r[P_SURPRISE] == 1
        c[1, 8] = r[P_SURPRISE] == 2
        opener = 0 if rng.random() < p_a_first else 1
        x = opener
        rounds = 0
        while True:
            if x == opener:
                rounds += 1
                if rounds > MAX_ROUNDS:
                    break
            y = 1 - x
            _common(feats, c, x)
            feats[11], feats[12], feats[13] = c[y, 7], c[y, 8], int(opener == x)
            s = _choose(x, 0, feats, meta, codes, lo_shape, probs, rng)
            mod, held = _stance_mod(s, c, x, r, track, True)
            c[x, 7] = held
            one_sided = c[x, 8] == 1 or c[y, 7] == 3
            c[x, 8] = 0
            m = fs[x, F_ATTACK] + sums[int(rng.random() * ns)] + mod - pain[c[x, 0], c[x, 1], c[x, 2], c[x, 3]]
            if not one_sided:
                rd = sums[int(rng.random() * ns)]
                if r[P_CLAMP]:
                    rd = rd if rd > 0 else (0 if rd >= r[P_CLAMP_ZERO] else r[P_CLAMP_LOW])
                dmod = r[P_TRADE_BONUS] if c[y, 7] == 2 else (-r[P_TRADE_BONUS] if c[y, 7] == 1 else 0)
                m -= fs[y, F_DEFENSE] + rd + dmod - pain[c[y, 0], c[y, 1], c[y, 2], c[y, 3]]
            spent = np.zeros(2, dtype=np.int64)
            while True:
                z = -1
                if -r[P_BONUS] <= m < 0 and c[x, 6] > 0 and spent[x] == 0:
                    z = x
                elif 0 < m <= r[P_BONUS] and c[y, 6] > 0 and spent[y] == 0 and not one_sided:
                    z = y
                if z < 0:
                    break
                _common(feats, c, z)
                feats[11], feats[12], feats[13] = c[1 - z, 8], int(opener == z), int(z == x)
                feats[14], feats[15], feats[16], feats[17] = c[x, 7], abs(m), spent[1 - z], int(one_sided)
                if _choose(z, 1, feats, meta, codes, lo_shape, probs, rng) == 0:
                    break
                c[z, 6] -= 1
                spent[z] = 1
                m += r[P_BONUS] if z == x else -r[P_BONUS]
            d = damage[x, min(max(m, -MARGIN), MARGIN) + MARGIN]
            if d > 0:
                row = marks[c[y, 0], c[y, 1], c[y, 2], c[y, 3], c[y, 4], d]
                if row[6] >= 0:
                    dodge = 0
                    if not one_sided and track[0] - c[y, 0] >= r[P_DODGE_FATIGUE]:
                        _common(feats, c, y)
                        feats[11], feats[12], feats[13], feats[14] = c[x, 7], int(opener == y), row[6], row[7]
                        dodge = _choose(y, 2, feats, meta, codes, lo_shape, probs, rng)
                    if dodge:
                        c[y, 0] += r[P_DODGE_FATIGUE]
                    else:
                        c[y, :6] = row[:6]
            if c[y, 4] > 0 or c[y, 5] > 0:
                break
            x = y
        finish = -1
        level = np.zeros(2, dtype=np.int64)
        for k in range(2):
            level[k] = DYING if c[k, 5] > 0 else (OUT if c[k, 4] > 0 else UP)
        if rounds <= MAX_ROUNDS and r[P_FINISH] and (level[0] == UP) != (level[1] == UP):
            w = 0 if level[0] == UP else 1
            v = 1 - w
            finish = 0
            if level[v] < DYING:
                for i in range(4):
                    feats[i] = c[w, i]
                    feats[5 + i] = c[v, i]
                feats[4] = c[v, 4]
                s = _choose(w, 3, feats, meta, codes, lo_shape, probs, rng)
                saved = c[w, 0]
                mod, _ = _stance_mod(s, c, w, r, track, True)
                pen = pain[c[w, 0], c[w, 1], c[w, 2], c[w, 3]]
                c[w, 0] = saved
                while finish < r[P_FINISH_ATTACKS] and c[v, 5] == 0:
                    finish += 1
                    m = fs[w, F_ATTACK] + sums[int(rng.random() * ns)] + mod - pen
                    d = damage[w, min(max(m, -MARGIN), MARGIN) + MARGIN]
                    if d > 0:
                        row = marks[c[v, 0], c[v, 1], c[v, 2], c[v, 3], c[v, 4], d]
                        c[v, :6] = row[:6]
                level[v] = DYING if c[v, 5] > 0 else OUT
        _tally(out, rounds, level[0], level[1], finish)
    return out


def policy_call(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter,
                tables: Sequence[PolicyTable]) -> Callable[[int, np.random.Generator], np.ndarray]:
    """Duels of ``a`` and ``b`` played by the solved strategy ``tables`` (``policy_tables(dg, ...)`` of
    ``tactics(rules, a, b)``), for :func:`sims.engine.run_chunks`."""
    tabs = pack_tables(tables, KINDS, NF)
    damage, marks, pain, track = pack_tracks(rules, a, b)
    fs = np.array([(f.attack_skill, f.defense_skill + f.shield, f.agility) for f in (a, b)], dtype=np.int64)
    r = np.zeros(13, dtype=np.int64)
    r[[P_TRADE_FATIGUE_COST, P_TRADE_BONUS, P_TRADE_FATIGUE, P_NO_DEFENSE_BONUS, P_DODGE_FATIGUE, P_LUCK, P_BONUS,
       P_FINISH, P_FINISH_ATTACKS, P_CLAMP, P_CLAMP_ZERO, P_CLAMP_LOW, P_SURPRISE]] = (
        rules.trade_cost == "fatigue", rules.trade_bonus, rules.trade_fatigue, rules.no_defense_bonus,
        rules.dodge_fatigue, rules.luck_tokens, rules.luck_bonus, rules.after_out == "finish", rules.finish_attacks,
        rules.defense_clamp, rules.defense_clamp_zero, rules.defense_clamp_low, ("none", "a", "b").index(rules.surprise))
    ctx = (fs, r, dk_table(rules).astype(np.int64), damage, marks, pain, track)
    p_a = float(rules_mod.first_attack(rules, a, b))
    return lambda n, rng: _duels(tabs, ctx, p_a, n, rng)
