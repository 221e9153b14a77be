"""ТУН: Monte Carlo duels played by a solved strategy (RULES.md section 8).

The kernel plays the duel as the decision game of
:mod:`analysis.systems.tun.game` does, moment by moment: at the stand
before the fight, each turn, posture, aim, last word and the winner's
finishing attacks it computes what the decider knows (the game's
features, made canonical the same way: what cannot change what follows is
zeroed) and draws the action from the side's policy table
(:func:`analysis.engine.decisions.policy_tables`), packed into arrays
(:func:`sims.policy.pack_tables`).  Attacks roll the fighter's dice against the limits the
game uses (packed by :func:`analysis.systems.tun.game.plan`).  Counts are
laid out as every duel's (:mod:`sims.results`).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from numba import njit

from analysis.engine.decisions import PolicyTable
from analysis.systems import tun as rules_mod
from analysis.systems.tun import game as game_mod
from analysis.systems.tun import walk as w
from sims.policy import _choose, pack_tables
from sims.results import DUEL_SIZE, MAX_ROUNDS, _tally
from sims.tun_rolls import R_CRITS, R_DEATH_MULTIPLE, R_LE, _level, _outcome, dice_table, pack_rules

KINDS = ("turn", "posture", "aim", "stand", "finish_posture", "finish_aim")
"""The decisions of :mod:`analysis.systems.tun.game`, by the index the kernel draws them with."""
NF = len(game_mod.FEATURES) + 1
"""The features a kernel computes: :data:`analysis.systems.tun.game.FEATURES`, then ``moving now``."""
F_OWN_T, F_OPP_T, F_OWN_DIS, F_OWN_IMM, F_OWN_STUN, F_OPP_DIS, F_OPP_IMM, F_OPP_STUN, F_OWN_DEF, F_OWN_MOV, \
    F_OPP_DEF, F_OPP_MOV, F_MOMENT, F_ACTIONS, F_COMING, F_FIRST, F_TMV = range(NF)
D_LO, D_HI, D_BONUS = range(3)
MOMENT = np.array([game_mod.MOMENTS.get(ph, -1) for ph in range(w.NPH)], dtype=np.int64)
""":data:`analysis.systems.tun.game.MOMENTS` by phase."""


@njit(cache=True, nogil=True)
def _features(feats: np.ndarray, x: int, ph: int, c: np.ndarray, red: int, first: int, tmv: int, side: np.ndarray,
              rl: np.ndarray) -> None:
    """The game's features of side ``x`` at phase ``ph`` (an aiming phase: its posture phase plus one) from the
    duel's state ``c[side, component]`` (``w.T`` .. ``w.MOV``), made canonical as the game's states are."""
    base = ph - 1 if (ph == w.PH_AIM_L or ph == w.PH_AIM_F or ph == w.PH_AIM_FD or ph == w.PH_AIM_LD
                      or ph == w.PH_AIM_FC or ph == w.PH_AIM_LS) else ph
    flags = w.FLAGS[ph]
    o = 1 - x
    n = rl[w.R_N]
    for k in range(NF):
        feats[k] = 0
    feats[F_OWN_T], feats[F_OPP_T] = c[x, w.T], c[o, w.T]
    feats[F_OWN_DIS], feats[F_OWN_IMM], feats[F_OWN_STUN] = c[x, w.DIS], c[x, w.IMM], c[x, w.STUN]
    feats[F_OPP_DIS], feats[F_OPP_IMM], feats[F_OPP_STUN] = c[o, w.DIS], c[o, w.IMM], c[o, w.STUN]
    own_nodef, own_mov = c[x, w.NODEF], c[x, w.MOV] if side[x, w.S_RMOV] > 1 else 0
    if flags[3] >= 0:
        own_nodef, own_mov = 0, 0
    feats[F_OWN_DEF], feats[F_OWN_MOV] = 1 - own_nodef, own_mov
    feats[F_OPP_DEF], feats[F_OPP_MOV] = 1 - c[o, w.NODEF], c[o, w.MOV] if side[o, w.S_RMOV] > 1 else 0
    feats[F_MOMENT] = MOMENT[base]
    leads = base == w.PH_TURN_L or base == w.PH_POST_L or base == w.PH_POST_LD or base == w.PH_POST_LS
    if base == w.PH_POST_FD:
        feats[F_ACTIONS] = 1
    elif base == w.PH_POST_FC:
        feats[F_ACTIONS] = n - 1
    elif base == w.PH_LW_F or base == w.PH_LW_L:
        feats[F_ACTIONS] = rl[w.R_LW_ACTIONS]
    elif leads:
        feats[F_ACTIONS] = n - rl[w.R_COST] * red * flags[1]
    else:
        feats[F_ACTIONS] = n
    if base == w.PH_TURN_L or base == w.PH_POST_L:
        feats[F_COMING] = n
    elif base == w.PH_TURN_FD or base == w.PH_POST_FD:
        feats[F_COMING] = n - rl[w.R_COST] * red
    elif base == w.PH_POST_LD:
        feats[F_COMING] = n - 1
    feats[F_FIRST] = first * flags[0]
    feats[F_TMV] = tmv * flags[2]


@njit(cache=True, nogil=True)
def _stand(lead: int, c: np.ndarray, feats: np.ndarray, tabs: tuple, ctx: tuple, rng: np.random.Generator) -> None:
    """Both fighters take their stand before the fight, each knowing who leads, neither the other's stand."""
    meta, codes, lo_shape, probs = tabs
    side, post, rl = ctx[0], ctx[1], ctx[9]
    picks = np.zeros(2, dtype=np.int64)
    for x in range(2):
        _features(feats, x, w.PH_INIT, c, 0, 1, 0, side, rl)
        feats[F_MOMENT] += x != lead
        picks[x] = _choose(x, 3, feats, meta, codes, lo_shape, probs, rng)
    for x in range(2):
        c[x, w.NODEF], c[x, w.MOV] = post[x, picks[x], 0], post[x, picks[x], 1]


@njit(cache=True, nogil=True)
def _finishing(x: int, c: np.ndarray, feats: np.ndarray, tabs: tuple, ctx: tuple,
               rng: np.random.Generator) -> tuple[int, int]:
    """The winner ``x``'s moving and aim for its finishing attacks, from what the game's finishing states keep
    (both traumas, its disarmed and immobilised)."""
    meta, codes, lo_shape, probs = tabs
    side, post, rl = ctx[0], ctx[1], ctx[9]
    kept = np.zeros_like(c)
    kept[x, w.T], kept[x, w.DIS], kept[x, w.IMM] = c[x, w.T], c[x, w.DIS], c[x, w.IMM]
    kept[1 - x, w.T] = c[1 - x, w.T]
    _features(feats, x, w.PH_POST_FIN, kept, 0, 0, 0, side, rl)
    mv = post[x, _choose(x, 4, feats, meta, codes, lo_shape, probs, rng), 1]
    aim = 0
    if side[x, w.S_AIMS] != 0 and c[x, w.DIS] == 0:
        _features(feats, x, w.PH_AIM_FIN, kept, 0, 0, mv, side, rl)
        aim = _choose(x, 5, feats, meta, codes, lo_shape, probs, rng)
    return mv, aim


@njit(cache=True, nogil=True)
def _attack(x: int, mode: int, aim: int, tmv: int, c: np.ndarray, limit: np.ndarray, weapon: np.ndarray,
            reach: np.ndarray, dice: np.ndarray, sizes: np.ndarray, dk: np.ndarray, pr: np.ndarray,
            side: np.ndarray, rl: np.ndarray, aimkind: np.ndarray, rng: np.random.Generator) -> bool:
    """One action of ``x`` (changes ``c``): lost if stunned, nothing out of reach, else an attack; whether it
    attacked."""
    y = 1 - x
    if c[x, w.STUN] > 0:
        c[x, w.STUN] -= 1
        return False
    dis = c[x, w.DIS]
    if reach[x, dis] == 0:
        return False
    mv = tmv if (c[x, w.IMM] == 0 and mode == w.NORMAL_MODE) else 0
    a = aim if dis == 0 else 0
    tm = c[y, w.MOV] if (side[y, w.S_RMOV] > 1 and c[y, w.IMM] == 0) else 0
    lim = limit[x, dis, mv, a, mode, c[y, w.NODEF], tm]
    v = dice[x, int(rng.random() * sizes[x])]
    ok, e, _, _ = _outcome(v, lim, dk[x, D_LO], dk[x, D_HI], dk[x, D_BONUS], pr[R_LE], pr[R_CRITS])
    if ok:
        c[y, w.T] = min(c[y, w.T] + e * weapon[x, dis, 0] + weapon[x, dis, 1], side[y, w.S_CAP])
        kind = aimkind[a]
        if kind != w.K_NONE and (rl[w.R_ALWAYS] != 0 or c[y, w.T] < side[y, w.S_VOL]):
            if kind == w.K_DISARM and side[y, w.S_RDIS] > 1:
                c[y, w.DIS] = 1
            elif kind == w.K_IMMOBILISE and side[y, w.S_RIMM] > 1:
                c[y, w.IMM] = 1
            elif kind == w.K_STUN and side[y, w.S_RSTUN] > 1:
                c[y, w.STUN] = rl[w.R_STUN]
    return True


@njit(cache=True, nogil=True)
def _stretch(x: int, ph: int, k: int, c: np.ndarray, red: int, first: int, feats: np.ndarray,
             tabs: tuple, ctx: tuple, rng: np.random.Generator) -> None:
    """Mover ``x``'s stretch begun at posture phase ``ph``: its posture, its aim (a ranged weapon in hand), then
    ``k`` actions while the other is up."""
    meta, codes, lo_shape, probs = tabs
    side, post, limit, weapon, reach, dice, sizes, dk, pr, rl, aimkind, helpless = ctx
    if k <= 0:
        return
    _features(feats, x, ph, c, red, first, 0, side, rl)
    j = _choose(x, 1, feats, meta, codes, lo_shape, probs, rng)
    c[x, w.NODEF] = post[x, j, 0]
    c[x, w.MOV] = post[x, j, 1]
    tmv = post[x, j, 1]
    aim = 0
    if side[x, w.S_AIMS] != 0 and c[x, w.DIS] == 0:
        _features(feats, x, ph + 1, c, red, first, tmv, side, rl)
        aim = _choose(x, 2, feats, meta, codes, lo_shape, probs, rng)
    y = 1 - x
    for _ in range(k):
        if c[y, w.T] >= side[y, w.S_VOL]:
            break
        _attack(x, w.NORMAL_MODE, aim, tmv, c, limit, weapon, reach, dice, sizes, dk, pr, side, rl, aimkind, rng)


@njit(cache=True, nogil=True)
def _last_word(y: int, ph: int, c: np.ndarray, feats: np.ndarray, tabs: tuple, ctx: tuple,
               rng: np.random.Generator) -> None:
    """Fighter ``y``, out before its turn, speaks its last word (if the rules give it one)."""
    meta, codes, lo_shape, probs = tabs
    side, post, limit, weapon, reach, dice, sizes, dk, pr, rl, aimkind, helpless = ctx
    x = 1 - y
    if rl[w.R_LW] == 0 or (rl[w.R_LW_DYING] == 0 and c[y, w.T] >= side[y, w.S_CAP]):
        return
    aim = 0
    if side[y, w.S_AIMS] != 0 and c[y, w.DIS] == 0:
        _features(feats, y, ph, c, 0, 0, 0, side, rl)
        aim = _choose(y, 2, feats, meta, codes, lo_shape, probs, rng)
    for _ in range(rl[w.R_LW_ACTIONS]):
        if c[x, w.T] >= side[x, w.S_VOL]:
            break
        if _attack(y, w.LAST_WORD_MODE, aim, 0, c, limit, weapon, reach, dice, sizes, dk, pr, side, rl, aimkind,
                   rng):
            c[y, w.T] = min(c[y, w.T] + rl[w.R_LW_TRAUMA], side[y, w.S_CAP])


@njit(cache=True, nogil=True)
def _duels(tabs: tuple, ctx: tuple, p_a_first: float, finish_attacks: int, n: int,
           rng: np.random.Generator) -> np.ndarray:
    """n duels played by the policy tables ``tabs``; counts laid out as in :mod:`sims.results`."""
    side, post, limit, weapon, reach, dice, sizes, dk, pr, rl, aimkind, helpless = ctx
    meta, codes, lo_shape, probs = tabs
    out = np.zeros(DUEL_SIZE, dtype=np.int64)
    c = np.zeros((2, 6), dtype=np.int64)
    feats = np.zeros(NF, dtype=np.int64)
    nn = rl[w.R_N]
    for _ in range(n):
        lead = 0 if rng.random() < p_a_first else 1
        red, first = 0, 1
        c[:, :] = 0
        _stand(lead, c, feats, tabs, ctx, rng)
        rounds = 0
        while True:
            rounds += 1
            if rounds > MAX_ROUNDS:
                break
            L, F = lead, 1 - lead
            nl = nn - rl[w.R_COST] * red
            _features(feats, L, w.PH_TURN_L, c, red, first, 0, side, rl)
            act = _choose(L, 0, feats, meta, codes, lo_shape, probs, rng)
            next_lead, next_red = L, 0
            if act == 1:
                _features(feats, F, w.PH_TURN_FD, c, red, first, 0, side, rl)
                if _choose(F, 0, feats, meta, codes, lo_shape, probs, rng) == 2:
                    _stretch(L, w.PH_POST_LS, nl, c, red, first, feats, tabs, ctx, rng)
                    next_lead, next_red = F, 1
                else:
                    _stretch(F, w.PH_POST_FD, 1, c, red, first, feats, tabs, ctx, rng)
                    if c[L, w.T] >= side[L, w.S_VOL]:
                        _last_word(L, w.PH_LW_L, c, feats, tabs, ctx, rng)
                    else:
                        _stretch(L, w.PH_POST_LD, nl, c, red, first, feats, tabs, ctx, rng)
                        if c[F, w.T] < side[F, w.S_VOL]:
                            _stretch(F, w.PH_POST_FC, nn - 1, c, red, first, feats, tabs, ctx, rng)
            else:
                _stretch(L, w.PH_POST_L, nl, c, red, first, feats, tabs, ctx, rng)
                if c[F, w.T] >= side[F, w.S_VOL]:
                    _last_word(F, w.PH_LW_F, c, feats, tabs, ctx, rng)
                else:
                    _features(feats, F, w.PH_TURN_F, c, red, first, 0, side, rl)
                    if _choose(F, 0, feats, meta, codes, lo_shape, probs, rng) == 2:
                        next_lead, next_red = F, 1
                    else:
                        _stretch(F, w.PH_POST_F, nn, c, red, first, feats, tabs, ctx, rng)
            if c[0, w.T] >= side[0, w.S_VOL] or c[1, w.T] >= side[1, w.S_VOL]:
                break
            lead, red, first = next_lead, next_red, 0
        finish = -1
        dm = pr[R_DEATH_MULTIPLE]
        a_out, b_out = c[0, w.T] >= side[0, w.S_VOL], c[1, w.T] >= side[1, w.S_VOL]
        if rounds <= MAX_ROUNDS and rl[w.R_FINISH] != 0 and a_out != b_out:
            v = 0 if a_out else 1
            x = 1 - v
            finish = 0
            dis, imm = c[x, w.DIS], c[x, w.IMM]
            mv, aim = 0, 0
            if c[v, w.T] < side[v, w.S_CAP]:
                mv, aim = _finishing(x, c, feats, tabs, ctx, rng)
            while finish < finish_attacks and c[v, w.T] < side[v, w.S_CAP]:
                finish += 1
                if reach[x, dis] == 0:
                    continue
                roll = dice[x, int(rng.random() * sizes[x])]
                ok, e, _, _ = _outcome(roll, helpless[x, dis, imm, mv, aim], dk[x, D_LO], dk[x, D_HI], dk[x, D_BONUS],
                                       pr[R_LE], pr[R_CRITS])
                if ok:
                    c[v, w.T] = min(c[v, w.T] + e * weapon[x, dis, 0] + weapon[x, dis, 1], side[v, w.S_CAP])
        _tally(out, rounds, _level(c[0, w.T], side[0, w.S_VOL], dm), _level(c[1, w.T], side[1, w.S_VOL], dm), finish)
    return out


def policy_call(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter,
                tables: Sequence[PolicyTable]) -> Callable[[int, np.random.Generator], np.ndarray]:
    """Duels of ``a`` and ``b`` played by the solved strategy ``tables`` (every decision of both sides, e.g.
    ``policy_tables(dg, eq.a_strategy, eq.b_strategy)`` of ``SYSTEM.tactics(rules, a, b)``), for
    :func:`sims.engine.run_chunks`."""
    rules_mod.check_reach(rules, {"A": a, "B": b})
    p = game_mod.plan(rules, a, b)
    tabs = pack_tables(tables, KINDS, NF, game_mod.FEATURES + ("moving now",))
    fighters = (a, b)
    tables_ = [dice_table(f.dice) for f in fighters]
    sizes = np.array([t.size for t in tables_], dtype=np.int64)
    dice = np.zeros((2, sizes.max()), dtype=np.int64)
    dk = np.zeros((2, 3), dtype=np.int64)
    for x, (f, t) in enumerate(zip(fighters, tables_)):
        dice[x, :t.size] = t
        dk[x] = (t.min(), t.max(), rules_mod.crit_bonus(rules, f.dice))
    pr = pack_rules(rules)
    ctx = (p.side, p.post, p.limit, p.weapon, p.reach, dice, sizes, dk, pr, p.rl, p.aimkind, p.helpless)
    p_a, finish_attacks = float(p.p_first[0]), rules.finish_attacks
    return lambda n, rng: _duels(tabs, ctx, p_a, finish_attacks, n, rng)
