"""Tri-Stat dX: numba kernels for checks and duels, and a duel played from a solved game's policy tables.

The exact chain of :mod:`analysis.systems.tristat` already plays Tri-Stat's
whole duel (initiative every round, simultaneous attacks on equal
initiative, blocks and their objects, total defence, the shock stand-in,
finishing), so the ``full`` and ``exact`` models run the same rules here; the
simulator checks the chain and scales to sweeps.  Every number comes packed
from the ruleset: damage tables from the exact engine's own rule, targets and
thresholds from its constants.  :func:`duel_call` with ``policy`` (the
:class:`~analysis.engine.decisions.PolicyTable` of each decision of
:func:`analysis.systems.tristat.tactics`) plays every stance and block from
the tables, knowing what the game's decider knows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from numba import njit

from analysis.systems import tristat as rules_mod
from analysis.base.params import DicelabError
from sims.dice import _sample, _unowned, outcome_table
from sims.groups import _tally_group, layout
from sims.options import SimOptions
from sims.results import (
    CHECK_SIZE,
    CRITICAL,
    DUEL_SIZE,
    DYING,
    FUMBLE,
    HIST,
    HIST_OFFSET,
    MAX_ROUNDS,
    OUT,
    SUCCESS,
    UNFINISHED,
    UP,
    _fields,
    _tally,
    proportion,
)

# Packed duel: the ruleset's scalars, then per fighter (A then B) one row.
P_LOW, P_HIGH, P_ONCE, P_SHOCK, P_FINISH, P_FINISH_ATTACKS, P_ROUNDS, P_TURTLE, P_A_FIRST, P_TIE, P_PAIRS = range(11)
P_FIGHTER = 11
# A fighter's row: attack target, defense target (plain and blocking), health, damage taken at dying, Body, shock
# value, critical damage it deals (after the other's armour), whether it blocks the other's attacks, and whether
# its object can break (absorbing blocks).
F_HIT, F_DEF, F_BLOCK_DEF, F_HEALTH, F_DYING, F_BODY, F_SHOCK, F_CRIT, F_BLOCKS, F_OBJECT = range(10)
# ... and for decisions: its defense targets (dodge, block) in the normal stance and in total defence, whether it can
# block the other's attacks at all, whether its object's state is kept, its book's total defence and block.
F_DEF_N, F_BLOCK_N, F_DEF_TD, F_BLOCK_TD, F_CAN_BLOCK, F_OBJECT_STATE, F_BOOK_TD, F_BOOK_BLOCK = range(10, 18)
F_SIZE = 18
# Damage tables, [kind, attacker, roll total]: the plain hit (after armour), the blocked hit (after the object's
# armour and armour) and whether the blocked hit destroys the object.
T_PLAIN, T_BLOCKED, T_BREAKS = range(3)


@dataclass(frozen=True)
class Options(SimOptions):
    """Tri-Stat has no rule the exact chain leaves out: nothing to switch."""

    where = "tristat simulation options"


def _fighter_row(rules: rules_mod.Rules, f: rules_mod.Fighter, other: rules_mod.Fighter) -> list[int]:
    health = f.stats(rules)[2]
    can = rules_mod.can_block(other, f)
    return [rules_mod.attack_target(rules, f), rules_mod.defense_target(rules, f, False),
            rules_mod.defense_target(rules, f, True), health, rules_mod.dying_at(rules, health), f.body,
            health // rules.shock_divisor, rules_mod.hit_damage(rules, f, other, None),
            rules_mod.blocks(other, f), rules_mod.keeps_object(rules, other, f)] + [
        rules_mod.defense_target(rules, f, block, stance) for stance in rules_mod.STANCES for block in (False, True)] + [
        can, can and rules.block_rule == "absorb", f.stance == "total_defence", f.block]


def pack(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter) -> tuple[np.ndarray, np.ndarray]:
    """(scalars, damage tables) for the kernel; ``tables[T_PLAIN, 0, t]`` is A's damage to B on a damage roll of
    t, ``[T_PLAIN, 1, t]`` B's to A (see ``T_*``).

    Damage comes from :func:`analysis.systems.tristat.hit_damage`, the exact engine's own rule.
    """
    turtle = {"a": 0, "b": 1, None: -1}[rules_mod.total_defence_side(a, b)]
    params = [rules.natural_low, rules.natural_high, rules.initiative_once, rules.shock_rule,
              rules.after_out == "finish", rules.finish_attacks, rules.total_defence_rounds, turtle,
              *initiative_counts(rules, a, b)]
    params += _fighter_row(rules, a, b) + _fighter_row(rules, b, a)
    tables = np.zeros((3, 2, rules.natural_high + 1), dtype=np.int64)
    for side, (att, dfn) in enumerate(((a, b), (b, a))):
        for t in range(rules.natural_low, rules.natural_high + 1):
            tables[T_PLAIN, side, t] = rules_mod.hit_damage(rules, att, dfn, t)
            tables[T_BLOCKED, side, t] = rules_mod.hit_damage(rules, att, dfn, t, True)
            tables[T_BREAKS, side, t] = rules_mod.object_breaks(rules, att, dfn, t)
    return np.array(params, dtype=np.int64), tables


def initiative_counts(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter) -> tuple[int, int, int]:
    """(pairs of rolls where A's initiative is higher, pairs where they are equal, all pairs): one uniform over
    the pairs rolls both initiatives (2dX + acv each) exactly."""
    values, counts = np.unique(_rolls(rules), return_counts=True)
    diff = np.subtract.outer(values + a.stats(rules)[0], values + b.stats(rules)[0])
    weight = np.outer(counts, counts)
    return int(weight[diff > 0].sum()), int(weight[diff == 0].sum()), int(weight.sum())


@njit(cache=True, nogil=True, inline="always")
def _order(p: np.ndarray, u: float) -> int:
    """1: A acts first, 0: simultaneous, -1: B first, from one uniform (see :func:`initiative_counts`)."""
    k = int(u * p[P_PAIRS])
    return 1 if k < p[P_A_FIRST] else 0 if k < p[P_A_FIRST] + p[P_TIE] else -1


@njit(cache=True, nogil=True, inline="always")
def _succeeds(total: int, target: int, low: int, high: int) -> bool:
    return total == low or (total <= target and total != high)


@njit(cache=True, nogil=True)
def _duel(p: np.ndarray, tables: np.ndarray, rolls: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n duels; counts laid out as in :mod:`sims.results` (a fight against total defence that reaches its round
    cap with the defender up counts as unfinished); ``rolls`` is the table of equally likely roll totals.

    The attacks are written out in the loop (no helper calls: passing arrays and the
    Generator to a function costs more than the dice here).
    """
    out = np.zeros(DUEL_SIZE, dtype=np.int64)
    low, high, once, shock_rule = p[P_LOW], p[P_HIGH], p[P_ONCE], p[P_SHOCK]
    finish, finish_attacks, turtle = p[P_FINISH], p[P_FINISH_ATTACKS], p[P_TURTLE]
    limit = p[P_ROUNDS] if turtle >= 0 else MAX_ROUNDS
    f = p[P_FIGHTER:].reshape(2, F_SIZE)
    taken = np.zeros(2, dtype=np.int64)
    down = np.zeros(2, dtype=np.bool_)
    intact = np.zeros(2, dtype=np.bool_)
    size = rolls.size
    for _ in range(n):
        taken[:] = 0
        down[:] = False
        intact[:] = True
        order = 0
        if turtle >= 0:
            order = 1 if turtle == 1 else -1
        elif once:
            order = _order(p, rng.random())
        rounds = 0
        while rounds < limit:
            rounds += 1
            if turtle < 0 and not once:
                order = _order(p, rng.random())
            lead = 0 if order >= 0 else 1
            for slot in range(2):
                att = lead if slot == 0 else 1 - lead
                dfn = 1 - att
                if slot == 1 and (turtle >= 0 or (order != 0 and down[att])):
                    break
                a = rolls[int(rng.random() * size)]
                if a == low:
                    damage = f[att, F_CRIT]
                elif a == high or a > f[att, F_HIT]:
                    continue
                else:
                    blocking = f[dfn, F_BLOCKS] == 1 and intact[dfn]
                    d = rolls[int(rng.random() * size)]
                    if _succeeds(d, f[dfn, F_BLOCK_DEF] if blocking else f[dfn, F_DEF], low, high):
                        if not (blocking and f[dfn, F_OBJECT] == 1):
                            continue
                        t = rolls[int(rng.random() * size)]
                        damage = tables[T_BLOCKED, att, t]
                        if tables[T_BREAKS, att, t] == 1:
                            intact[dfn] = False
                    else:
                        damage = tables[T_PLAIN, att, rolls[int(rng.random() * size)]]
                taken[dfn] += damage
                if taken[dfn] > f[dfn, F_HEALTH]:
                    down[dfn] = True
                elif shock_rule and damage > f[dfn, F_SHOCK]:
                    if not _succeeds(rolls[int(rng.random() * size)], f[dfn, F_BODY], low, high):
                        down[dfn] = True
            if down[0] or down[1]:
                break
        if not (down[0] or down[1]):
            _tally(out, MAX_ROUNDS + 1, UP, UP, -1)
            continue
        spent = -1
        if finish and down[0] != down[1]:
            victim = 0 if down[0] else 1
            att = 1 - victim
            spent = 0
            while taken[victim] < f[victim, F_DYING] and spent < finish_attacks:
                spent += 1
                a = rolls[int(rng.random() * size)]
                if a == low:
                    taken[victim] += f[att, F_CRIT]
                elif a != high and a <= f[att, F_HIT]:
                    taken[victim] += tables[T_PLAIN, att, rolls[int(rng.random() * size)]]
        _tally(out, rounds,
               (DYING if taken[0] >= f[0, F_DYING] else OUT) if down[0] else UP,
               (DYING if taken[1] >= f[1, F_DYING] else OUT) if down[1] else UP, spent)
    return out


# Policy tables for :func:`_play`: one row per decision slot (A's stance, B's stance, A's block, B's block).
SLOT_STANCE, SLOT_BLOCK = 0, 2
MAX_FEATURES = 8
Q_ON, Q_COUNT, Q_OFFSET, Q_CODES = 0, 1, 2, 3
Q_LO, Q_SHAPE = Q_CODES + MAX_FEATURES, Q_CODES + 2 * MAX_FEATURES
Q_SIZE = Q_CODES + 3 * MAX_FEATURES
FEATURE_CODES = {"own damage taken": 0, "opponent damage taken": 1, "order (1 first, 0 together, -1 second)": 2,
                 "defensive rounds so far": 3, "own object intact": 4, "opponent object intact": 5}
"""What each feature of :mod:`analysis.systems.tristat.tactics` is, as the kernel computes it (code 6: own attack)."""
OWN_ATTACK = 6


def pack_policy(tables: Any) -> tuple[np.ndarray, np.ndarray]:
    """The policy tables of a Tri-Stat decision game as arrays for :func:`_play`: ``(rows, probabilities)``."""
    from analysis.systems.tristat.tactics import OWN_ATTACK as OWN_ATTACK_NAME

    codes = dict(FEATURE_CODES, **{OWN_ATTACK_NAME: OWN_ATTACK})
    rows = np.zeros((4, Q_SIZE), dtype=np.int64)
    probs = []
    offset = 0
    for t in tables:
        if t.decision not in ("stance", "block") or len(t.features) > MAX_FEATURES:
            raise DicelabError(f"policy: decision {t.decision!r} is not a Tri-Stat decision (allowed: the tables of "
                               "tristat tactics: stance, block)")
        slot = (SLOT_STANCE if t.decision == "stance" else SLOT_BLOCK) + (0 if t.side == "a" else 1)
        row = rows[slot]
        row[Q_ON], row[Q_COUNT], row[Q_OFFSET] = 1, len(t.features), offset
        for k, name in enumerate(t.features):
            if name not in codes:
                raise DicelabError(f"policy: feature {name!r} of {t.decision} is not one the simulator knows")
            row[Q_CODES + k], row[Q_LO + k], row[Q_SHAPE + k] = codes[name], t.lo[k], t.shape[k]
        probs.append(np.asarray(t.probs, dtype=float).reshape(-1, 2))
        offset += probs[-1].shape[0]
    return rows, (np.concatenate(probs) if probs else np.zeros((0, 2)))


@njit(cache=True, nogil=True)
def _decide(rows: np.ndarray, probs: np.ndarray, slot: int, values: np.ndarray, book: int,
            rng: np.random.Generator) -> int:
    """The action (0 plain, 1 the option) at a decision: drawn from its table at the decider's features, or the
    book's when there is no table or no such cell."""
    row = rows[slot]
    if row[Q_ON] == 0:
        return book
    cell = 0
    for k in range(row[Q_COUNT]):
        v = values[row[Q_CODES + k]] - row[Q_LO + k]
        if v < 0 or v >= row[Q_SHAPE + k]:
            return book
        cell = cell * row[Q_SHAPE + k] + v
    q = probs[row[Q_OFFSET] + cell, 1]
    if q != q:
        return book
    return 1 if rng.random() < q else 0


@njit(cache=True, nogil=True)
def _roll(rolls: np.ndarray, rng: np.random.Generator) -> int:
    return rolls[int(rng.random() * rolls.size)]


@njit(cache=True, nogil=True)
def _values(out: np.ndarray, f: np.ndarray, taken: np.ndarray, intact: np.ndarray, x: int, seen: int, c: int,
            own: int) -> np.ndarray:
    """Fighter ``x``'s features: damage taken (own, the opponent's), the order as it sees it, the defensive rounds,
    the objects, its own attack this round (``OWN_ATTACK``'s codes)."""
    y = 1 - x
    out[0], out[1], out[2], out[3] = taken[x], taken[y], seen, c
    out[4] = 1 if f[x, F_OBJECT_STATE] == 1 and intact[x] else 0
    out[5] = 1 if f[y, F_OBJECT_STATE] == 1 and intact[y] else 0
    out[6] = own
    return out


@njit(cache=True, nogil=True)
def _play(p: np.ndarray, tables: np.ndarray, rolls: np.ndarray, rows: np.ndarray, probs: np.ndarray, n: int,
          rng: np.random.Generator) -> np.ndarray:
    """n duels with every decision of the game played from the policy tables (missing ones by the book): each
    round the order, both stances at once, the attacks; a defender hit (not critically) that can block decides
    block or dodge (with equal initiative once both attack rolls are known).  With a fighter in total defence by
    its policy the fight ends after ``P_ROUNDS`` defensive rounds (unfinished), as the game does."""
    out = np.zeros(DUEL_SIZE, dtype=np.int64)
    low, high, once, shock_rule = p[P_LOW], p[P_HIGH], p[P_ONCE], p[P_SHOCK]
    finish, finish_attacks, capped, cap = p[P_FINISH], p[P_FINISH_ATTACKS], p[P_TURTLE] >= 0, p[P_ROUNDS]
    f = p[P_FIGHTER:].reshape(2, F_SIZE)
    taken = np.zeros(2, dtype=np.int64)
    down = np.zeros(2, dtype=np.bool_)
    intact = np.zeros(2, dtype=np.bool_)
    td = np.zeros(2, dtype=np.int64)
    code = np.zeros(2, dtype=np.int64)
    mode = np.zeros(2, dtype=np.int64)
    vals = np.zeros(7, dtype=np.int64)
    for _ in range(n):
        taken[:] = 0
        down[:] = False
        intact[:] = True
        order = _order(p, rng.random()) if once else 0
        rounds, c, stalled = 0, 0, False
        while rounds < MAX_ROUNDS:
            rounds += 1
            if not once:
                order = _order(p, rng.random())
            for x in range(2):
                seen = order if x == 0 else -order
                td[x] = _decide(rows, probs, SLOT_STANCE + x, _values(vals, f, taken, intact, x, seen, c, 0),
                                f[x, F_BOOK_TD], rng)
            attackers = 2 - td[0] - td[1]
            for x in range(2):  # the attack rolls: 0 miss, 1 hit, 2 critical (none for a fighter in total defence)
                r = _roll(rolls, rng)
                code[x] = -1 if td[x] == 1 else 2 if r == low else 0 if r == high or r > f[x, F_HIT] else 1
            together = attackers == 2 and order == 0
            for y in range(2):  # with equal initiative both defenders decide once both rolls are known
                x = 1 - y
                mode[y] = 0
                if together and code[x] == 1 and f[y, F_CAN_BLOCK] == 1 and (f[y, F_OBJECT_STATE] == 0 or intact[y]):
                    mode[y] = _decide(rows, probs, SLOT_BLOCK + y, _values(vals, f, taken, intact, y, 0, c,
                                                                           2 + code[y]), f[y, F_BOOK_BLOCK], rng)
            lead = 0 if order >= 0 else 1
            dealt0, dealt1 = 0, 0
            for step in range(2):
                x = lead if step == 0 else 1 - lead
                y = 1 - x
                if td[x] == 1 or code[x] <= 0 or (not together and (down[x] or down[y])):
                    continue
                if code[x] == 2:
                    damage = f[x, F_CRIT]
                else:
                    if not together and f[y, F_CAN_BLOCK] == 1 and (f[y, F_OBJECT_STATE] == 0 or intact[y]):
                        own = 0 if td[y] == 1 else (-1 if step == 0 else 1)
                        seen = 0 if td[y] == 1 and not once else (order if y == 0 else -order)
                        mode[y] = _decide(rows, probs, SLOT_BLOCK + y, _values(vals, f, taken, intact, y, seen, c, own),
                                          f[y, F_BOOK_BLOCK], rng)
                    elif not together:
                        mode[y] = 0
                    target = f[y, (F_BLOCK_TD if mode[y] else F_DEF_TD) if td[y] else (F_BLOCK_N if mode[y] else F_DEF_N)]
                    if _succeeds(_roll(rolls, rng), target, low, high):
                        if not (mode[y] == 1 and f[y, F_OBJECT_STATE] == 1):  # stopped, unless the object absorbs
                            continue
                        t = _roll(rolls, rng)
                        damage = tables[T_BLOCKED, x, t]
                        if tables[T_BREAKS, x, t] == 1:
                            intact[y] = False
                    else:
                        damage = tables[T_PLAIN, x, _roll(rolls, rng)]
                if together:
                    if y == 1:
                        dealt1 += damage
                    else:
                        dealt0 += damage
                else:
                    taken[y] += damage
                    _struck(f, taken, down, y, damage, shock_rule, rolls, low, high, rng)
            if together:
                for y, damage in ((0, dealt0), (1, dealt1)):
                    if code[1 - y] > 0:
                        taken[y] += damage
                        _struck(f, taken, down, y, damage, shock_rule, rolls, low, high, rng)
            if down[0] or down[1]:
                break
            if capped and attackers < 2:
                c += 1
                if c >= cap:
                    stalled = True
                    break
        if stalled or not (down[0] or down[1]):
            _tally(out, MAX_ROUNDS + 1, UP, UP, -1)
            continue
        spent = -1
        if finish and down[0] != down[1]:
            victim = 0 if down[0] else 1
            att = 1 - victim
            spent = 0
            while taken[victim] < f[victim, F_DYING] and spent < finish_attacks:
                spent += 1
                a = _roll(rolls, rng)
                if a == low:
                    taken[victim] += f[att, F_CRIT]
                elif a != high and a <= f[att, F_HIT]:
                    taken[victim] += tables[T_PLAIN, att, _roll(rolls, rng)]
        _tally(out, rounds,
               (DYING if taken[0] >= f[0, F_DYING] else OUT) if down[0] else UP,
               (DYING if taken[1] >= f[1, F_DYING] else OUT) if down[1] else UP, spent)
    return out


@njit(cache=True, nogil=True)
def _struck(f: np.ndarray, taken: np.ndarray, down: np.ndarray, y: int, damage: int, shock_rule: int,
            rolls: np.ndarray, low: int, high: int, rng: np.random.Generator) -> None:
    """Fighter ``y`` took ``damage`` (already added): out past its health, or by the shock stand-in's Body check."""
    if taken[y] > f[y, F_HEALTH]:
        down[y] = True
    elif shock_rule and damage > f[y, F_SHOCK] and not _succeeds(_roll(rolls, rng), f[y, F_BODY], low, high):
        down[y] = True


@njit(cache=True, nogil=True)
def _check(low: int, high: int, target: int, rolls: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n checks against a target: successes, naturals low and high, margin histogram."""
    out = np.zeros(CHECK_SIZE, dtype=np.int64)
    for _ in range(n):
        t = _sample(rolls, rng)
        out[SUCCESS] += _succeeds(t, target, low, high)
        out[CRITICAL] += t == low
        out[FUMBLE] += t == high
        out[HIST + HIST_OFFSET + target - t] += 1
    return out


def _rolls(rules: rules_mod.Rules) -> np.ndarray:
    return outcome_table(range(1, rules.die + 1), rules.dice_count)


def check_call(rules: rules_mod.Rules, args: rules_mod.CheckArgs) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The check kernel bound to a ruleset and target."""
    low, high, target, rolls = rules.natural_low, rules.natural_high, args.target, _rolls(rules)
    return lambda n, rng: _check(low, high, target, rolls, n, rng)


CHECK_EXTRAS = ("p_critical", "p_fumble", "")


def duel_call(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter, model: str,
              options: Options) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The duel kernel bound to a ruleset and two fighters (both models play the same rules); the fighters are
    validated against the ruleset's limits here, as by the exact engine."""
    params, tables, rolls = _bound(rules, a, b)
    return lambda n, rng: _duel(params, tables, rolls, n, rng)


def policy_call(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter,
                policy: Any) -> Callable[[int, np.random.Generator], np.ndarray]:
    """Duels played by a solved strategy: the policy tables of the pair's decision game
    (:func:`analysis.engine.decisions.policy_tables`), every decision played from them."""
    params, tables, rolls = _bound(rules, a, b)
    rows, probs = pack_policy(policy)
    return lambda n, rng: _play(params, tables, rolls, rows, probs, n, rng)


def _bound(rules: rules_mod.Rules, a: rules_mod.Fighter,
           b: rules_mod.Fighter) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rules_mod.validate(rules, a, b)
    rules_mod.total_defence_side(a, b)
    params, tables = pack(rules, a, b)
    return params, tables, _rolls(rules)


def duel_extra(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter, counts: np.ndarray,
               n: int) -> dict[str, Any]:
    """The Tri-Stat fields of a simulated duel: the warnings (stat limits, slips) and, against total defence,
    P(still up)."""
    out: dict[str, Any] = {"warnings": rules_mod.warnings(rules, a, b)}
    side = rules_mod.total_defence_side(a, b)
    if side:
        out["total_defence"] = side
        out["rounds_cap"] = rules.total_defence_rounds
        out.update(_fields("p_still_up", proportion(int(counts[UNFINISHED]), n)))
    return out


# ------------------------------------------------------------------ group fights (RULES.md section 7)
# Per type of fighter: its attack target (and strength), defense targets (dodge, block; its own stance), health,
# damage at dying, Body, shock value, total defence, attacks per action, target policy, acv (initiative).
Y_HIT, Y_DEF, Y_BLOCK_DEF, Y_HEALTH, Y_DYING, Y_BODY, Y_SHOCK, Y_TD, Y_ATTACKS, Y_POLICY, Y_ACV = range(11)
# Per pair of types (attacker, defender): its critical damage, whether the defender blocks it and whether the block
# absorbs (the object's state kept).
R_CRIT, R_BLOCKS, R_ABSORB = range(3)
# Scalars: naturals, initiative once, the shock stand-in, finishing, the cap of defensive rounds, the extra defense
# penalty.
(S_LOW, S_HIGH, S_ONCE, S_SHOCK, S_FINISH, S_FINISH_ATTACKS, S_CAPPED, S_CAP, S_PENALTY) = range(9)
WEAKEST, RANDOM, STRONGEST, SPREAD = range(4)


def pack_group(rules: rules_mod.Rules, side_a: list[rules_mod.Fighter],
               side_b: list[rules_mod.Fighter]) -> tuple[np.ndarray, ...]:
    """The arrays of :func:`_group`: scalars, per-type and per-pair rows, damage tables ``[kind, attacker type,
    defender type, roll]`` (``T_*``), each slot's type (the exact engine's layout: side A's distinct fighters in the
    order first listed, identical ones together, then side B's) and each listed fighter's type.
    Every number comes from the exact engine's rules."""
    from analysis.systems.tristat.groups import layout

    types, slot_type = layout(side_a, side_b)
    k = len(types)
    policy = {name: i for i, name in enumerate(rules_mod.TARGETS)}
    rows = []
    for f, _, _ in types:
        health = f.stats(rules)[2]
        rows.append([rules_mod.attack_target(rules, f), rules_mod.defense_target(rules, f, False),
                     rules_mod.defense_target(rules, f, True), health, rules_mod.dying_at(rules, health), f.body,
                     health // rules.shock_divisor, f.stance == "total_defence", 1 + f.extra_attacks,
                     policy[f.target], f.stats(rules)[0]])
    pair = np.zeros((k, k, 3), dtype=np.int64)
    tables = np.zeros((3, k, k, rules.natural_high + 1), dtype=np.int64)
    for a, (att, side_att, _) in enumerate(types):
        for d, (dfn, side_dfn, _) in enumerate(types):
            if side_att == side_dfn:
                continue
            pair[a, d] = [rules_mod.hit_damage(rules, att, dfn, None), rules_mod.blocks(att, dfn),
                          rules_mod.keeps_object(rules, att, dfn)]
            for t in range(rules.natural_low, rules.natural_high + 1):
                tables[T_PLAIN, a, d, t] = rules_mod.hit_damage(rules, att, dfn, t)
                tables[T_BLOCKED, a, d, t] = rules_mod.hit_damage(rules, att, dfn, t, True)
                tables[T_BREAKS, a, d, t] = rules_mod.object_breaks(rules, att, dfn, t)
    scalars = np.array([rules.natural_low, rules.natural_high, rules.initiative_once, rules.shock_rule,
                        rules.after_out == "finish", rules.finish_attacks,
                        any(f.stance == "total_defence" for f in side_a + side_b), rules.total_defence_rounds,
                        rules.extra_defense_penalty], dtype=np.int64)
    listed = [next(i for i, (g, s, _) in enumerate(types) if g == f and s == side)
              for side, fighters in enumerate((side_a, side_b)) for f in fighters]
    return (scalars, np.array(rows, dtype=np.int64), pair, tables, np.asarray(slot_type, dtype=np.int64),
            np.array(listed, dtype=np.int64))


NO_TARGET = 1 << 62


@njit(cache=True, nogil=True, inline="always")
def _rekey(keys: np.ndarray, e: int, fs: np.ndarray, slot_type: np.ndarray, work: np.ndarray, top: int, span: int,
           health_size: int) -> None:
    """Slot ``e``'s place in the order of each target policy but random (``keys[policy, e]``, least first; a fighter
    down: ``NO_TARGET``): first the policy's own key (Health left, minus the attack target, attacks taken this round),
    then Health left (below ``health_size``), then the kind of fighter listed first, its object intact, the one acting
    first this round (initiative at most ``top``, above ``top - span``)."""
    if work[W_DOWN, e] == 1:
        keys[WEAKEST, e], keys[STRONGEST, e], keys[SPREAD, e] = NO_TARGET, NO_TARGET, NO_TARGET
        return
    left = fs[e, Y_HEALTH] - work[W_TAKEN, e]
    tie_size = 2 * (slot_type[-1] + 1) * span
    rest = left * tie_size + (2 * slot_type[e] + 1 - work[W_INTACT, e]) * span + top - work[W_INIT, e]
    scale = health_size * tie_size
    keys[WEAKEST, e] = left * scale + rest
    keys[STRONGEST, e] = -fs[e, Y_HIT] * scale + rest
    keys[SPREAD, e] = work[W_HITS, e] * scale + rest


@njit(cache=True, nogil=True, inline="always")
def _pick(policy: int, lo: int, hi: int, able: int, keys: np.ndarray, down: np.ndarray,
          rng: np.random.Generator) -> int:
    """The enemy among slots ``lo..hi-1`` (``able`` of them up) that an attacker with this target policy attacks
    (ties as the exact engine's: least Health left, the kind of fighter listed first, its object intact, the one
    acting first this round, the first slot; see :func:`_rekey`); -1 when none."""
    if policy == RANDOM:
        if able > 0:
            pick = int(rng.random() * able)
            for e in range(lo, hi):
                if down[e] == 0:
                    if pick == 0:
                        return e
                    pick -= 1
        return -1
    best, least = -1, NO_TARGET
    for e in range(lo, hi):
        if keys[policy, e] < least:
            best, least = e, keys[policy, e]
    return best


# Rows of the group kernel's work array, one column per slot: damage taken, down, object intact, initiative, defense
# rolls and attacks taken this round, damage, a broken object and a failed shock check of the current wave, the
# slots attacked in the wave, the slots up at the round's start in order of play, final levels (sorted worst first
# within a type), each listed fighter's level and the slot it takes it from; then a row per target policy (random's
# unused): the slot's place in its order (:func:`_rekey`).
(W_TAKEN, W_DOWN, W_INTACT, W_INIT, W_DEFS, W_HITS, W_DMG, W_BRK, W_KNK, W_STRUCK, W_ORDER, W_LEVELS, W_ROWS, W_PLACE,
 W_KEYS) = range(15)
W_SIZE = W_KEYS + 4


@njit(cache=True, nogil=True)
def _group(sc: np.ndarray, ty: np.ndarray, pair: np.ndarray, tables: np.ndarray, slot_type: np.ndarray,
           listed: np.ndarray, lay: np.ndarray, rolls: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n group fights, counted as :mod:`sims.groups` lays them out.  Each round every able fighter rolls initiative (2dX + acv; once for the fight
    under ``S_ONCE``); moments in descending initiative, ties together; in a moment, waves of the w-th attacks,
    targets picked from the wave's start and damage landing together; each defense roll after the first in a
    round at a cumulative penalty."""
    out = np.zeros(lay[5] + MAX_ROUNDS + 1, dtype=np.int64)
    base = sc[S_LOW] + ty[:, Y_ACV].min()
    by_init = np.zeros(sc[S_HIGH] + ty[:, Y_ACV].max() - base + 1, dtype=np.int64)
    _groups(out, np.zeros((W_SIZE, slot_type.size), dtype=np.int64), by_init, base, ty[slot_type], sc, pair, tables,
            slot_type, listed, lay, rolls, n, rng)
    return out


@njit(cache=True, nogil=True)
def _groups(out: np.ndarray, work: np.ndarray, by_init: np.ndarray, base: int, fs: np.ndarray, sc: np.ndarray,
            pair: np.ndarray, tables: np.ndarray, slot_type: np.ndarray, listed: np.ndarray, lay: np.ndarray,
            rolls: np.ndarray, n: int, rng: np.random.Generator) -> None:
    """:func:`_group`'s loop, adding to ``out``, on unowned views of its arrays (:func:`sims.dice._unowned`): side A's
    slots first (``lay[0]`` of them); ``fs``: each slot's row of its type; ``work``: the rows ``W_*``, zero;
    ``by_init``: zero, one cell per initiative from ``base`` up, to sort by."""
    out, work, by_init, fs, sc = _unowned(out), _unowned(work), _unowned(by_init), _unowned(fs), _unowned(sc)
    pair, tables = _unowned(pair), _unowned(tables)
    slot_type, listed, lay, rolls, rng = _unowned(slot_type), _unowned(listed), _unowned(lay), _unowned(rolls), \
        _unowned(rng)
    m, na, size = slot_type.size, lay[0], rolls.size
    low, high, once, shock_rule, penalty = sc[S_LOW], sc[S_HIGH], sc[S_ONCE], sc[S_SHOCK], sc[S_PENALTY]
    capped = sc[S_CAPPED] == 1
    taken, down, intact, init, defs, hits = work[W_TAKEN], work[W_DOWN], work[W_INTACT], work[W_INIT], work[W_DEFS], \
        work[W_HITS]
    dmg, brk, knk, struck, order = work[W_DMG], work[W_BRK], work[W_KNK], work[W_STRUCK], work[W_ORDER]
    levels, rows, place, keys = work[W_LEVELS], work[W_ROWS], work[W_PLACE], work[W_KEYS:]
    span, top, health_size = by_init.size, base + by_init.size - 1, 1
    for e in range(m):
        health_size = max(health_size, fs[e, Y_HEALTH] + 1)
    for k in range(m):  # identical fighters (one type, adjacent slots) take their type's levels worst first
        place[k] = 0
        while slot_type[place[k]] != listed[k]:
            place[k] += 1
        for j in range(k):
            place[k] += listed[j] == listed[k]
    for _ in range(n):
        for e in range(m):
            taken[e], down[e], intact[e] = 0, 0, 1
        able_a, able_b = na, m - na
        if once:
            for e in range(m):
                init[e] = rolls[int(rng.random() * size)] + fs[e, Y_ACV]
        rounds, c, over = 0, 0, False
        while not over:
            if rounds >= MAX_ROUNDS:
                break
            rounds += 1
            defensive = False
            if capped:  # a side up with nobody attacking: a defensive round
                att_a, att_b = 0, 0
                for e in range(m):
                    if down[e] == 0 and fs[e, Y_TD] == 0:
                        if e < na:
                            att_a += 1
                        else:
                            att_b += 1
                defensive = (able_a > 0 and att_a == 0) or (able_b > 0 and att_b == 0)
            for e in range(m):
                if not once:
                    init[e] = rolls[int(rng.random() * size)] + fs[e, Y_ACV]
                defs[e], hits[e] = 0, 0
                _rekey(keys, e, fs, slot_type, work, top, span, health_size)
                if down[e] == 0:
                    by_init[init[e] - base] += 1
            count = 0  # order: the able slots by descending initiative, ties in slot order (a counting sort)
            for v in range(span - 1, -1, -1):
                count, by_init[v] = count + by_init[v], count
            for e in range(m):
                if down[e] == 0:
                    order[by_init[init[e] - base]] = e
                    by_init[init[e] - base] += 1
            by_init[:] = 0
            k = 0
            while k < count and not over:
                j = k + 1
                while j < count and init[order[j]] == init[order[k]]:
                    j += 1
                waves = 0
                for q in range(k, j):
                    if down[order[q]] == 0 and fs[order[q], Y_TD] == 0:
                        waves = max(waves, fs[order[q], Y_ATTACKS])
                for w in range(waves):
                    struck_n = 0
                    for q in range(k, j):
                        a = order[q]
                        if down[a] == 1 or fs[a, Y_TD] == 1 or fs[a, Y_ATTACKS] <= w:
                            continue
                        lo, hi, able = (na, m, able_b) if a < na else (0, na, able_a)
                        e = _pick(fs[a, Y_POLICY], lo, hi, able, keys, down, rng)
                        if e < 0:
                            continue
                        hits[e] += 1
                        _rekey(keys, e, fs, slot_type, work, top, span, health_size)
                        struck[struck_n] = e
                        struck_n += 1
                        t_a, t_e = slot_type[a], slot_type[e]
                        r = rolls[int(rng.random() * size)]
                        if r == low:
                            damage = pair[t_a, t_e, R_CRIT]
                        elif r == high or r > fs[a, Y_HIT]:
                            continue
                        else:
                            blocking = pair[t_a, t_e, R_BLOCKS] == 1 and intact[e] == 1
                            target = fs[e, Y_BLOCK_DEF if blocking else Y_DEF] - penalty * defs[e]
                            defs[e] += 1
                            if _succeeds(rolls[int(rng.random() * size)], target, low, high):
                                if not (blocking and pair[t_a, t_e, R_ABSORB] == 1):
                                    continue
                                g = rolls[int(rng.random() * size)]
                                damage = tables[T_BLOCKED, t_a, t_e, g]
                                if tables[T_BREAKS, t_a, t_e, g] == 1:
                                    brk[e] = 1
                            else:
                                damage = tables[T_PLAIN, t_a, t_e, rolls[int(rng.random() * size)]]
                        dmg[e] += damage
                        if shock_rule and damage > fs[e, Y_SHOCK] and not _succeeds(
                                rolls[int(rng.random() * size)], fs[e, Y_BODY], low, high):
                            knk[e] = 1
                    for q in range(struck_n):  # the wave's damage lands together (a slot struck twice: once)
                        e = struck[q]
                        if down[e] == 1:
                            continue
                        taken[e] += dmg[e]
                        if brk[e] == 1:
                            intact[e] = 0
                        if taken[e] > fs[e, Y_HEALTH] or knk[e] == 1:
                            down[e] = 1
                            if e < na:
                                able_a -= 1
                            else:
                                able_b -= 1
                        _rekey(keys, e, fs, slot_type, work, top, span, health_size)
                        dmg[e], brk[e], knk[e] = 0, 0, 0
                    if able_a == 0 or able_b == 0:
                        over = True
                        break
                k = j
            if not over and defensive:
                c += 1
                if c >= sc[S_CAP]:
                    break
        if over and sc[S_FINISH] and (able_a > 0) != (able_b > 0):
            lo, hi = (0, na) if able_a > 0 else (na, m)
            hitter = lo
            while down[hitter] == 1:
                hitter += 1
            for e in range(m):
                if lo <= e < hi:
                    continue
                t_a, t_e = slot_type[hitter], slot_type[e]
                k = 0
                while taken[e] < fs[e, Y_DYING] and k < sc[S_FINISH_ATTACKS]:
                    k += 1
                    r = rolls[int(rng.random() * size)]
                    if r == low:
                        taken[e] += pair[t_a, t_e, R_CRIT]
                    elif r != high and r <= fs[hitter, Y_HIT]:
                        taken[e] += tables[T_PLAIN, t_a, t_e, rolls[int(rng.random() * size)]]
        for e in range(m):  # the levels, sorted worst first within each type's slots
            lv = (DYING if taken[e] >= fs[e, Y_DYING] else OUT) if down[e] == 1 else UP
            q = e
            while q > 0 and slot_type[q - 1] == slot_type[e] and levels[q - 1] < lv:
                levels[q] = levels[q - 1]
                q -= 1
            levels[q] = lv
        if not over:
            rounds = MAX_ROUNDS + 1
        for k in range(m):
            rows[k] = levels[place[k]]
        _tally_group(out, lay, rounds, rows)


def group_call(rules: rules_mod.Rules, side_a: list[rules_mod.Fighter],
               side_b: list[rules_mod.Fighter]) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The group kernel bound to a ruleset and two sides (lists of fighters), counted as :mod:`sims.groups` lays
    them out; the fighters are validated as by the exact engine."""
    from analysis.systems.tristat.groups import check_sides

    check_sides(rules, side_a, side_b)
    sc, ty, pair, tables, slot_type, listed = pack_group(rules, side_a, side_b)
    lay = layout(len(side_a), len(side_b)).packed()
    rolls = _rolls(rules)
    return lambda n, rng: _group(sc, ty, pair, tables, slot_type, listed, lay, rolls, n, rng)
