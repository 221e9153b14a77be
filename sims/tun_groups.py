"""ТУН: Monte Carlo group fights, N against M (RULES.md section 7), in the rules of
:mod:`analysis.systems.tun.groups`.

Each fight draws its order (the keys, ties by a roll-off; copies of one
fighter on one side numbered by their place), builds the turns of round 1, 2
and later (:func:`_round_events`: initiative skips, delays), and plays them:
every action attacks the attacker's target (``target`` policy) among the able
enemies, a fighter put out before its turn speaks its last word right after
the turn that put it out, the fight ends when a side has nobody able, then the
first able winner finishes each helpless loser under ``after_out =
"finish"``.  Counts are laid out by :func:`sims.groups.layout`.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from numba import njit

from analysis.base.params import ParamError
from analysis.systems import tun as rules_mod
from analysis.systems.tun import groups as group_mod
from sims.groups import _tally_group, layout
from sims.results import DYING, MAX_ROUNDS, OUT, UP
from sims.tun_rolls import R_CRITS, R_LE, _outcome, dice_table, pack_rules

P_SIDE, P_VOL, P_CAP, P_STRENGTH, P_TARGET, P_TURN, P_KIND, P_SIZE, P_LO, P_HI, P_BONUS = range(11)
NP = 11
"""Per fighter: side, volume, dying index, Body + attack feature, target policy, turn policy, kind (side and
fighter: copies share it), dice faces, their minimum and maximum, the critical bonus."""
WEAKEST, RANDOM, STRONGEST, SPREAD = range(4)
ACT, DELAY, SKIP = range(3)
G_N, G_COST, G_LW, G_LW_DYING, G_LW_ACTIONS, G_LW_TRAUMA, G_STUN, G_ALWAYS, G_FINISH, G_FINISH_ATTACKS = range(10)
NORMAL_MODE, LAST_WORD_MODE, HELPLESS_MODE = range(3)
K_NONE, K_DISARM, K_IMMOBILISE, K_STUN = range(4)
MODES = (rules_mod.NORMAL, rules_mod.LAST_WORD, rules_mod.HELPLESS)


@njit(cache=True, nogil=True)
def _round_events(order: np.ndarray, actions: np.ndarray, delays: np.ndarray, ev_f: np.ndarray,
                  ev_k: np.ndarray) -> int:
    """The turns of one round (as :func:`analysis.systems.tun.groups.round_events`) into ``ev_f``/``ev_k``; their
    count.  A delaying fighter waits for the first action of the next in order: the waits form chains, each
    played as its first fighter's first action, the next one's, ..., the last one's whole turn, then the rest of
    each turn back up the chain."""
    n = order.size
    waiter = -np.ones(n, dtype=np.int64)
    waits = np.zeros(n, dtype=np.bool_)
    chain = np.empty(n, dtype=np.int64)
    m = 0
    for place in range(n):
        f = order[place]
        if delays[f] and place < n - 1 and actions[f] > 0:
            waiter[order[place + 1]] = f
            waits[f] = True
    for sweep in range(2):
        for place in range(n):
            f = order[place]
            if waits[f]:
                continue
            if sweep == 0:
                if actions[f] == 0:
                    ev_f[m], ev_k[m] = f, 0
                    m += 1
                    continue
                length, x = 0, f
            else:
                if actions[f] != 0 or waiter[f] < 0:
                    continue
                length, x = 0, waiter[f]
            while x >= 0:
                chain[length] = x
                length += 1
                x = waiter[x]
            for c in range(length - 1):
                ev_f[m], ev_k[m] = chain[c], 1
                m += 1
            ev_f[m], ev_k[m] = chain[length - 1], actions[chain[length - 1]]
            m += 1
            for c in range(length - 2, -1, -1):
                if actions[chain[c]] > 1:
                    ev_f[m], ev_k[m] = chain[c], actions[chain[c]] - 1
                    m += 1
    return m


@njit(cache=True, nogil=True)
def _schedule(order: np.ndarray, fp: np.ndarray, g: np.ndarray, ev_f: np.ndarray, ev_k: np.ndarray,
              n_ev: np.ndarray, first: np.ndarray) -> int:
    """Rounds 1, 2 and later of ``order`` into ``ev_f[kind]``, ``ev_k[kind]``, ``n_ev[kind]`` and each fighter's
    first turn ``first[kind, fighter]``; the number of kinds (1 when nobody skips)."""
    n = order.size
    nn = g[G_N]
    delays = np.zeros(n, dtype=np.bool_)
    skips = np.zeros(n, dtype=np.bool_)
    for place in range(n):
        f = order[place]
        delays[f] = fp[f, P_TURN] == DELAY
        skips[f] = fp[f, P_TURN] == SKIP and place > 0
    actions = np.full(n, nn, dtype=np.int64)
    if not skips.any():
        n_ev[0] = _round_events(order, actions, delays, ev_f[0], ev_k[0])
        kinds = 1
    else:
        for f in range(n):
            actions[f] = 0 if skips[f] else nn
        n_ev[0] = _round_events(order, actions, delays, ev_f[0], ev_k[0])
        later = np.empty(n, dtype=np.int64)
        k = 0
        for place in range(n):
            if skips[order[place]]:
                later[k] = order[place]
                k += 1
        for place in range(n):
            if not skips[order[place]]:
                later[k] = order[place]
                k += 1
        for f in range(n):
            actions[f] = nn - g[G_COST] if skips[f] else nn
        n_ev[1] = _round_events(later, actions, delays, ev_f[1], ev_k[1])
        actions[:] = nn
        n_ev[2] = _round_events(later, actions, delays, ev_f[2], ev_k[2])
        kinds = 3
    for kind in range(kinds):
        for e in range(n_ev[kind] - 1, -1, -1):
            first[kind, ev_f[kind, e]] = e
    return kinds


@njit(cache=True, nogil=True)
def _target(i: int, t: np.ndarray, counts: np.ndarray, fp: np.ndarray, rng: np.random.Generator) -> int:
    """Whom fighter ``i`` attacks among the able enemies (-1: none), by its target policy, ties by listed order."""
    n = t.size
    best, able = -1, 0
    policy = fp[i, P_TARGET]
    for j in range(n):
        if fp[j, P_SIDE] == fp[i, P_SIDE] or t[j] >= fp[j, P_VOL]:
            continue
        able += 1
        if policy == RANDOM:
            if rng.random() * able < 1.0:
                best = j
            continue
        if best < 0:
            best = j
        elif policy == WEAKEST and fp[j, P_VOL] - t[j] < fp[best, P_VOL] - t[best]:
            best = j
        elif policy == STRONGEST and fp[j, P_STRENGTH] > fp[best, P_STRENGTH]:
            best = j
        elif policy == SPREAD and counts[j] < counts[best]:
            best = j
    return best


@njit(cache=True, nogil=True)
def _action(i: int, mode: int, t: np.ndarray, dis: np.ndarray, imm: np.ndarray, stun: np.ndarray,
            counts: np.ndarray, fp: np.ndarray, limit: np.ndarray, weapon: np.ndarray, reach: np.ndarray,
            sets: np.ndarray, dice: np.ndarray, pr: np.ndarray, g: np.ndarray, rng: np.random.Generator) -> int:
    """One action of fighter ``i``: the enemy it put out (-1: none; -2: it had no able enemy).  A stunned fighter
    loses it, one out of reach does nothing, a last word costs its trauma."""
    j = _target(i, t, counts, fp, rng)
    if j < 0:
        return -2
    if stun[i] > 0:
        stun[i] -= 1
        return -1
    if reach[i, dis[i]] == 0:
        return -1
    counts[j] += 1
    if mode == LAST_WORD_MODE:
        t[i] = min(t[i] + g[G_LW_TRAUMA], fp[i, P_CAP])
    v = dice[i, int(rng.random() * fp[i, P_SIZE])]
    ok, e, _, _ = _outcome(v, limit[i, j, dis[i], imm[i], imm[j], mode], fp[i, P_LO], fp[i, P_HI], fp[i, P_BONUS],
                           pr[R_LE], pr[R_CRITS])
    if not ok:
        return -1
    was_up = t[j] < fp[j, P_VOL]
    t[j] = min(t[j] + e * weapon[i, dis[i], 0] + weapon[i, dis[i], 1], fp[j, P_CAP])
    kind = sets[i, j]
    if kind != K_NONE and (g[G_ALWAYS] != 0 or t[j] < fp[j, P_VOL]):
        if kind == K_DISARM:
            dis[j] = 1
        elif kind == K_IMMOBILISE:
            imm[j] = 1
        else:
            stun[j] = g[G_STUN]
    return j if was_up and t[j] >= fp[j, P_VOL] else -1


@njit(cache=True, nogil=True)
def _fights(fp: np.ndarray, keys: np.ndarray, limit: np.ndarray, weapon: np.ndarray, reach: np.ndarray,
            sets: np.ndarray, dice: np.ndarray, pr: np.ndarray, g: np.ndarray, lay: np.ndarray, n: int,
            rng: np.random.Generator) -> np.ndarray:
    """n group fights; counts laid out by :func:`sims.groups.layout`.  ``keys[i]``: fighter ``i``'s order key
    (higher first; equal: a roll-off)."""
    nf = fp.shape[0]
    out = np.zeros(lay[5] + MAX_ROUNDS + 1, dtype=np.int64)
    t = np.zeros(nf, dtype=np.int64)
    dis = np.zeros(nf, dtype=np.int64)
    imm = np.zeros(nf, dtype=np.int64)
    stun = np.zeros(nf, dtype=np.int64)
    counts = np.zeros(nf, dtype=np.int64)
    levels = np.zeros(nf, dtype=np.int64)
    roll = np.zeros(nf)
    slots = 4 * nf + 2
    ev_f = np.zeros((3, slots), dtype=np.int64)
    ev_k = np.zeros((3, slots), dtype=np.int64)
    n_ev = np.zeros(3, dtype=np.int64)
    first = np.zeros((3, nf), dtype=np.int64)
    place = np.zeros(nf, dtype=np.int64)
    queue = np.zeros(nf, dtype=np.int64)
    for _ in range(n):
        for i in range(nf):
            roll[i] = rng.random()
        order = np.argsort(-(keys + roll * 0.5))
        _number(order, fp)
        for p in range(nf):
            place[order[p]] = p
        kinds = _schedule(order, fp, g, ev_f, ev_k, n_ev, first)
        t[:] = 0
        dis[:] = 0
        imm[:] = 0
        stun[:] = 0
        rounds, kind, over = 0, 0, False
        able_a, able_b = True, True
        while not over:
            rounds += 1
            if rounds > MAX_ROUNDS:
                break
            counts[:] = 0
            for e in range(n_ev[kind]):
                f, k = ev_f[kind, e], ev_k[kind, e]
                pending = 0
                for _ in range(k):
                    if t[f] >= fp[f, P_VOL]:
                        break
                    down = _action(f, NORMAL_MODE, t, dis, imm, stun, counts, fp, limit, weapon, reach, sets, dice,
                                   pr, g, rng)
                    if down == -2:
                        break
                    if down >= 0 and first[kind, down] > e:
                        queue[pending] = down
                        pending += 1
                while pending > 0:
                    best = 0
                    for q in range(1, pending):
                        if place[queue[q]] < place[queue[best]]:
                            best = q
                    y = queue[best]
                    pending -= 1
                    queue[best] = queue[pending]
                    if g[G_LW] == 0 or (g[G_LW_DYING] == 0 and t[y] >= fp[y, P_CAP]):
                        continue
                    for _ in range(g[G_LW_ACTIONS]):
                        down = _action(y, LAST_WORD_MODE, t, dis, imm, stun, counts, fp, limit, weapon, reach, sets,
                                       dice, pr, g, rng)
                        if down == -2:
                            break
                        if down >= 0 and first[kind, down] > e:
                            queue[pending] = down
                            pending += 1
                able_a, able_b = False, False
                for i in range(nf):
                    if t[i] < fp[i, P_VOL]:
                        if fp[i, P_SIDE] == 0:
                            able_a = True
                        else:
                            able_b = True
                if not (able_a and able_b):
                    over = True
                    break
            kind = min(kind + 1, kinds - 1)
        if over and g[G_FINISH] != 0 and able_a != able_b:
            w = -1
            for p in range(nf):
                if t[order[p]] < fp[order[p], P_VOL]:
                    w = order[p]
                    break
            for v in range(nf):
                if t[v] < fp[v, P_VOL] or fp[v, P_SIDE] == fp[w, P_SIDE]:
                    continue
                for _ in range(g[G_FINISH_ATTACKS]):
                    if t[v] >= fp[v, P_CAP]:
                        break
                    if reach[w, dis[w]] == 0:
                        continue
                    roll_v = dice[w, int(rng.random() * fp[w, P_SIZE])]
                    ok, e, _, _ = _outcome(roll_v, limit[w, v, dis[w], imm[w], 0, HELPLESS_MODE], fp[w, P_LO],
                                           fp[w, P_HI], fp[w, P_BONUS], pr[R_LE], pr[R_CRITS])
                    if ok:
                        t[v] = min(t[v] + e * weapon[w, dis[w], 0] + weapon[w, dis[w], 1], fp[v, P_CAP])
        for i in range(nf):
            levels[i] = UP if t[i] < fp[i, P_VOL] else DYING if t[i] >= fp[i, P_CAP] else OUT
        _tally_group(out, lay, rounds, levels)
    return out


@njit(cache=True, nogil=True)
def _number(order: np.ndarray, fp: np.ndarray) -> None:
    """Copies of one fighter on one side put in listed order along their places (in place)."""
    nf = order.size
    for p in range(nf):
        kind = fp[order[p], P_KIND]
        smallest = p
        for q in range(p + 1, nf):
            if fp[order[q], P_KIND] == kind and order[q] < order[smallest]:
                smallest = q
        if smallest != p:
            order[p], order[smallest] = order[smallest], order[p]


def pack(rules: rules_mod.Rules, side_a: Sequence[rules_mod.Fighter],
         side_b: Sequence[rules_mod.Fighter]) -> tuple[np.ndarray, ...]:
    """(fp, keys, limit, weapon, reach, sets, dice, g): the fight packed for :func:`_fights` (limits for every
    attacker, target, the attacker's disarmed and immobilised, the target's immobilised, and the mode)."""
    fighters = tuple(side_a) + tuple(side_b)
    sides = [0] * len(side_a) + [1] * len(side_b)
    nf = len(fighters)
    kinds: dict[tuple, int] = {}
    fp = np.zeros((nf, NP), dtype=np.int64)
    tables = [dice_table(f.dice) for f in fighters]
    dice = np.zeros((nf, max(t.size for t in tables)), dtype=np.int64)
    for i, (f, table) in enumerate(zip(fighters, tables)):
        kind = kinds.setdefault((sides[i], f), len(kinds))
        fp[i] = (sides[i], f.volume, rules.death_multiple * f.volume + 1, f.body + f.attack_feature,
                 rules_mod.TARGETS.index(f.target), rules_mod.TURN_POLICIES.index(f.turn_policy), kind, table.size,
                 table.min(), table.max(), rules_mod.crit_bonus(rules, f.dice))
        dice[i, :table.size] = table
    keys = np.zeros(nf)
    ranked = sorted({group_mod.order_keys(rules, f) for f in fighters})
    for i, f in enumerate(fighters):
        keys[i] = ranked.index(group_mod.order_keys(rules, f))
    limit = np.zeros((nf, nf, 2, 2, 2, 3), dtype=np.int64)
    weapon = np.zeros((nf, 2, 2), dtype=np.int64)
    reach = np.zeros((nf, 2), dtype=np.int64)
    sets = np.zeros((nf, nf), dtype=np.int64)
    effect = {None: K_NONE, "disarm": K_DISARM, "immobilise": K_IMMOBILISE, "stun": K_STUN}
    for i, f in enumerate(fighters):
        for dis in range(2):
            armed = rules_mod.acting(f, "disarm", dis)
            weapon[i, dis] = (armed.weapon_n, armed.weapon_b)
            reach[i, dis] = rules_mod.in_reach(rules, armed)
            for imm in range(2):
                me = rules_mod.acting(armed, "immobilise", imm)
                for j, o in enumerate(fighters):
                    if sides[j] == sides[i]:
                        continue
                    for imm_o in range(2):
                        you = rules_mod.acting(o, "immobilise", imm_o)
                        for m, mode in enumerate(MODES):
                            limit[i, j, dis, imm, imm_o, m] = rules_mod.attack_limit(rules, me, you, mode)
        for j, o in enumerate(fighters):
            if sides[j] != sides[i]:
                sets[i, j] = effect[rules_mod.effect_of(rules, o, f)]
    g = np.array([rules.actions_per_turn, rules.initiative_skip_cost, rules.last_word, rules.dying_last_word,
                  rules.last_word_actions, rules.last_word_trauma, rules.stun_actions, rules.aim_effects == "always",
                  rules.after_out == "finish", rules.finish_attacks], dtype=np.int64)
    return fp, keys, limit, weapon, reach, sets, dice, g


def group_call(rules: rules_mod.Rules, side_a: Sequence[rules_mod.Fighter],
               side_b: Sequence[rules_mod.Fighter]) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The group kernel bound to a ruleset and two sides (for :func:`sims.api.simulate_group`)."""
    fighters = tuple(side_a) + tuple(side_b)
    if not side_a or not side_b:
        raise ParamError("sides", f"{len(side_a)} and {len(side_b)} fighters", "at least one fighter a side")
    rules_mod.check_reach(rules, {f"fighter {i + 1} ({f.name})": f for i, f in enumerate(fighters)})
    fp, keys, limit, weapon, reach, sets, dice, g = pack(rules, side_a, side_b)
    pr = pack_rules(rules)
    lay = layout(len(side_a), len(side_b)).packed()
    return lambda n, rng: _fights(fp, keys, limit, weapon, reach, sets, dice, pr, g, lay, n, rng)
