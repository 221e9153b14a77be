"""ТУН: numba kernels for checks, single attacks and duels.

The simulator plays the exact chain's rules of :mod:`analysis.systems.tun`, so
``Options`` has no switch and the ``full`` and ``exact`` models are the same:
the order fixed at the first round, each round's events (turns of
``actions_per_turn`` actions, delay, initiative skip, the last word) packed
from :func:`analysis.systems.tun.schedule`, the aimed-shot effects (a fighter
disarmed, immobilised, or stunned with actions pending) and after the first
out, with ``after_out = "finish"``, the winner's attacks on the helpless loser.
Every roll (3d6, 1d20 or 1d6x3) is one uniform drawn from the table of its
equally likely outcomes; a duel kernel first turns each fighter's table into
the Body trauma of every roll for each pair of effect states and each attack
mode (ordinary, last word, on a helpless target), then draws from that.
Limits and rule constants come packed from the ruleset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
from numba import njit

from analysis.systems import tun as rules_mod
from sims import tun_groups, tun_tactics
from sims.dice import _sample, _unowned
from sims.options import SimOptions
from sims.results import (
    CHECK_SIZE,
    CRITICAL,
    DUEL_SIZE,
    FUMBLE,
    HIST,
    HIST_OFFSET,
    MAX_ROUNDS,
    SUCCESS,
    _tally,
)
from sims.tun_rolls import (
    R_CRITS,
    R_DEATH_MULTIPLE,
    R_DYING_LAST_WORD,
    R_EFFECT_ON_OUT,
    R_FINISH,
    R_FINISH_ATTACKS,
    R_FINISH_LEVEL,
    R_LAST_WORD_ACTIONS,
    R_LAST_WORD_TRAUMA,
    R_LE,
    _level,
    _outcome,
    dice_table,
    pack_rules,
)

# Packed attack (one attacker, one defender, one mode): limit, weapon n and b, the minimum and maximum of the
# attacker's dice and their critical bonus.
F_LIMIT, F_N, F_B, F_LO, F_HI, F_BONUS = range(6)
# Events of a round (from the exact engine's schedule): kind, side (0 = A, 1 = B), actions.
E_KIND, E_SIDE, E_ACTIONS = range(3)
ATTACKS, LAST_WORD = range(2)
# Attack modes, in the order of ``rules_mod.MODES``: an ordinary action, a last word, on a helpless target.
M_NORMAL, M_LAST_WORD, M_HELPLESS = range(3)
# Single-attack count layout: misses, hits, critical hits, the defender out, dying, sum and sum of squares of trauma.
X_MISS, X_HIT, X_CRITICAL, X_OUT, X_DYING, X_SUM, X_SQUARES = range(7)
EXCHANGE_SIZE = 7
# Rows of an attack table, one column per equally likely roll: Body trauma (0 on a miss), hit, critical.
T_TRAUMA, T_HIT, T_CRITICAL = range(3)
# Per side and effect state: its attacks reach the other; the effect state its hits set on the other (-1: none);
# it is the side whose effect is a stun (its state: the actions it will lose).
FX_REACH, FX_INFLICT, FX_STUN = range(3)
FX_SIZE = 3

CHECK_EXTRAS = ("p_critical", "p_fumble", "")


@dataclass(frozen=True)
class Options(SimOptions):
    """ТУН has no rule the exact chain leaves out: nothing to switch."""

    where = "tun simulation options"


def pack_attack(rules: rules_mod.Rules, att: rules_mod.Fighter, dfn: rules_mod.Fighter,
                mode: str = rules_mod.NORMAL) -> np.ndarray:
    """``att`` attacking ``dfn`` in ``mode``: the limit with every penalty, the weapon, the dice's crit figures."""
    table = dice_table(att.dice)
    return np.array([rules_mod.attack_limit(rules, att, dfn, mode), att.weapon_n, att.weapon_b, table.min(),
                     table.max(), rules_mod.crit_bonus(rules, att.dice)], dtype=np.int64)


def pack_schedule(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter) -> tuple[np.ndarray, np.ndarray]:
    """(events[first side, round kind, event, E_*], event counts[first side, round kind]); a shorter schedule
    repeats its last round kind."""
    rounds = {first: rules_mod.schedule(rules, a, b, first) for first in "ab"}
    kinds = max(len(r) for r in rounds.values())
    width = max(len(ev) for r in rounds.values() for ev in r)
    events = np.zeros((2, kinds, width, 3), dtype=np.int64)
    counts = np.zeros((2, kinds), dtype=np.int64)
    for f, first in enumerate("ab"):
        for k in range(kinds):
            evs = rounds[first][min(k, len(rounds[first]) - 1)]
            counts[f, k] = len(evs)
            for e, (kind, side, n) in enumerate(evs):
                events[f, k, e] = (ATTACKS if kind == "attacks" else LAST_WORD, "ab".index(side), n)
    return events, counts


@njit(cache=True, nogil=True)
def _attack_table(f: np.ndarray, table: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Each equally likely roll of packed attack ``f`` as a column: (Body trauma, 0 on a miss; hit; critical)."""
    out = np.zeros((3, table.size), dtype=np.int64)
    for k in range(table.size):
        success, e, crit, _ = _outcome(table[k], f[F_LIMIT], f[F_LO], f[F_HI], f[F_BONUS], r[R_LE], r[R_CRITS])
        if success:
            out[T_TRAUMA, k] = e * f[F_N] + f[F_B]
            out[T_HIT, k] = 1
            out[T_CRITICAL, k] = crit
    return out


@njit(cache=True, nogil=True)
def _act(h: np.ndarray, hit: np.ndarray, sizes: np.ndarray, fx: np.ndarray, vol: np.ndarray, r: np.ndarray,
         t: np.ndarray, e: np.ndarray, side: int, mode: int, rng: np.random.Generator) -> bool:
    """One action of ``side`` on the trauma and effect pairs ``t``, ``e`` (changed in place): a stunned fighter
    loses it, one out of reach does nothing, any other attacks; whether it attacked."""
    other = 1 - side
    if fx[side, 0, FX_STUN] != 0 and e[side] > 0:
        e[side] -= 1
        return False
    own, theirs = e[side], e[other]
    if fx[side, own, FX_REACH] == 0:
        return False
    k = int(rng.random() * sizes[side])
    t[other] += h[side, own, theirs, mode, k]
    value = fx[side, own, FX_INFLICT]
    if hit[side, own, theirs, mode, k] != 0 and value >= 0 and (r[R_EFFECT_ON_OUT] != 0 or t[other] < vol[other]):
        e[other] = value
    return True


@njit(cache=True, nogil=True)
def _play_round(h: np.ndarray, hit: np.ndarray, sizes: np.ndarray, fx: np.ndarray, vol: np.ndarray,
                events: np.ndarray, n_events: int, r: np.ndarray, t: np.ndarray, e: np.ndarray,
                rng: np.random.Generator) -> None:
    """One round's events on the trauma and effect pairs ``t``, ``e`` (changed in place)."""
    for ev in range(n_events):
        side = events[ev, E_SIDE]
        other = 1 - side
        if events[ev, E_KIND] == ATTACKS:
            for _ in range(events[ev, E_ACTIONS]):
                if t[side] >= vol[side] or t[other] >= vol[other]:
                    break
                _act(h, hit, sizes, fx, vol, r, t, e, side, M_NORMAL, rng)
        elif (t[side] >= vol[side] and t[other] < vol[other]
              and (r[R_DYING_LAST_WORD] != 0 or t[side] <= r[R_DEATH_MULTIPLE] * vol[side])):
            for _ in range(r[R_LAST_WORD_ACTIONS]):
                if t[other] >= vol[other]:
                    break
                if _act(h, hit, sizes, fx, vol, r, t, e, side, M_LAST_WORD, rng):
                    t[side] += r[R_LAST_WORD_TRAUMA]


@njit(cache=True, nogil=True)
def _duel(packs: np.ndarray, fx: np.ndarray, dice: np.ndarray, sizes: np.ndarray, vol: np.ndarray,
          events: np.ndarray, n_events: np.ndarray, r: np.ndarray, p_a_first: float, n: int,
          rng: np.random.Generator) -> np.ndarray:
    """n duels; counts laid out as in :mod:`sims.results`.  ``packs[side, own state, other's state, mode]``: packed
    attacks (modes: ordinary, last word, helpless); ``fx[side, own state]``: ``FX_*`` (see :func:`pack_effects`);
    ``p_a_first``: P(A leads the order) (a d6 roll-off re-rolled on ties is a fair coin)."""
    packs, fx, dice, sizes, vol = _unowned(packs), _unowned(fx), _unowned(dice), _unowned(sizes), _unowned(vol)
    events, n_events, r, rng = _unowned(events), _unowned(n_events), _unowned(r), _unowned(rng)  # no counts
    out = np.zeros(DUEL_SIZE, dtype=np.int64)
    states, modes = packs.shape[1], packs.shape[3]
    h = np.zeros((2, states, states, modes, dice.shape[1]), dtype=np.int64)
    hit = np.zeros_like(h)
    for s in range(2):
        for own in range(states):
            for theirs in range(states):
                for m in range(modes):
                    table = _attack_table(packs[s, own, theirs, m], dice[s, :sizes[s]], r)
                    h[s, own, theirs, m, :sizes[s]] = table[T_TRAUMA] * fx[s, own, FX_REACH]
                    hit[s, own, theirs, m, :sizes[s]] = table[T_HIT] * fx[s, own, FX_REACH]
    kinds = events.shape[1]
    dm = r[R_DEATH_MULTIPLE]
    t = np.zeros(2, dtype=np.int64)
    e = np.zeros(2, dtype=np.int64)
    for _ in range(n):
        first = 0 if p_a_first >= 1.0 else 1 if p_a_first <= 0.0 else (0 if rng.random() < p_a_first else 1)
        t[:] = 0
        e[:] = 0
        rounds = 0
        while True:
            rounds += 1
            if rounds > MAX_ROUNDS:
                break
            k = min(rounds, kinds) - 1
            _play_round(h, hit, sizes, fx, vol, events[first, k], n_events[first, k], r, t, e, rng)
            if t[0] >= vol[0] or t[1] >= vol[1]:
                break
        finish = -1
        a_out, b_out = t[0] >= vol[0], t[1] >= vol[1]
        if rounds <= MAX_ROUNDS and r[R_FINISH] != 0 and a_out != b_out:
            victim = 0 if a_out else 1
            w = 1 - victim
            finish = 0
            while finish < r[R_FINISH_ATTACKS] and _level(t[victim], vol[victim], dm) < r[R_FINISH_LEVEL]:
                t[victim] += h[w, e[w], e[victim], M_HELPLESS, int(rng.random() * sizes[w])]
                finish += 1
        _tally(out, rounds, _level(t[0], vol[0], dm), _level(t[1], vol[1], dm), finish)
    return out


@njit(cache=True, nogil=True)
def _exchange(f: np.ndarray, table: np.ndarray, volume: int, r: np.ndarray, n: int,
              rng: np.random.Generator) -> np.ndarray:
    """n attacks on an unhurt defender of this Body volume; counts laid out as ``X_*``."""
    out = np.zeros(EXCHANGE_SIZE, dtype=np.int64)
    t = _attack_table(f, table, r)
    for _ in range(n):
        k = int(rng.random() * table.size)
        if not t[T_HIT, k]:
            out[X_MISS] += 1
            continue
        d = t[T_TRAUMA, k]
        out[X_HIT] += 1
        out[X_CRITICAL] += t[T_CRITICAL, k]
        out[X_OUT] += d >= volume
        out[X_DYING] += d > r[R_DEATH_MULTIPLE] * volume
        out[X_SUM] += d
        out[X_SQUARES] += d * d
    return out


@njit(cache=True, nogil=True)
def _check(limit: int, table: np.ndarray, lo: int, hi: int, bonus: int, le: int, crits: int, n: int,
           rng: np.random.Generator) -> np.ndarray:
    """n rolls against a limit: successes, critical successes and failures, effectiveness histogram."""
    out = np.zeros(CHECK_SIZE, dtype=np.int64)
    for _ in range(n):
        success, e, crit, fumble = _outcome(_sample(table, rng), limit, lo, hi, bonus, le, crits)
        out[SUCCESS] += success
        out[CRITICAL] += crit
        out[FUMBLE] += fumble
        out[HIST + HIST_OFFSET + e] += 1
    return out


def check_call(rules: rules_mod.Rules, args: rules_mod.CheckArgs) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The check kernel bound to a ruleset, a limit and a dice mode."""
    table = dice_table(args.dice)
    lo, hi, bonus = int(table.min()), int(table.max()), rules_mod.crit_bonus(rules, args.dice)
    le, crits, limit = int(rules.success_rule == "le"), int(rules.crits), args.limit
    return lambda n, rng: _check(limit, table, lo, hi, bonus, le, crits, n, rng)


def pack_effects(rules: rules_mod.Rules, a: rules_mod.Fighter,
                 b: rules_mod.Fighter) -> tuple[np.ndarray, np.ndarray]:
    """(packs[side, own state, other's state, mode], fx[side, own state, FX_*]): every attack as the two fighters'
    effect states make it, and for each side and state whether it reaches, the effect state its hits set on the
    other (-1: none) and whether it is the stunnable side.  A side has one state (0) unless the other's aimed hits
    can change how it fights (:func:`analysis.systems.tun.effect_of`)."""
    sides = ((a, b), (b, a))
    kinds = [rules_mod.effect_of(rules, f, o) for f, o in sides]
    counts = [len(set(rules_mod.duel_track(rules, f, o).classes)) for f, o in sides]
    packs = np.zeros((2, max(counts), max(counts), len(rules_mod.MODES), F_BONUS + 1), dtype=np.int64)
    fx = np.zeros((2, max(counts), FX_SIZE), dtype=np.int64)
    for s, (att, dfn) in enumerate(sides):
        for own in range(counts[s]):
            me = rules_mod.acting(att, kinds[s], own)
            fx[s, own] = (rules_mod.in_reach(rules, me), -1, kinds[s] == "stun")
            if kinds[1 - s] and me.aim != "none":
                fx[s, own, FX_INFLICT] = rules.stun_actions if kinds[1 - s] == "stun" else 1
            for theirs in range(counts[1 - s]):
                you = rules_mod.acting(dfn, kinds[1 - s], theirs)
                for m, mode in enumerate(rules_mod.MODES):
                    packs[s, own, theirs, m] = pack_attack(rules, me, you, mode)
    return packs, fx


def duel_call(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter, model: str,
              options: Options) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The duel kernel bound to a ruleset and two fighters (both models play the same rules)."""
    rules_mod.check_reach(rules, {"A": a, "B": b})
    tables = (dice_table(a.dice), dice_table(b.dice))
    sizes = np.array([t.size for t in tables], dtype=np.int64)
    dice = np.zeros((2, sizes.max()), dtype=np.int64)
    for s, t in enumerate(tables):
        dice[s, :t.size] = t
    packs, fx = pack_effects(rules, a, b)
    events, counts = pack_schedule(rules, a, b)
    vol = np.array([a.volume, b.volume], dtype=np.int64)
    pr, p_a_first = pack_rules(rules), rules_mod.first_mover(rules, a, b)[0]
    return lambda n, rng: _duel(packs, fx, dice, sizes, vol, events, counts, pr, p_a_first, n, rng)


def exchange_call(rules: rules_mod.Rules, att: rules_mod.Fighter,
                  dfn: rules_mod.Fighter) -> Callable[[int, np.random.Generator], np.ndarray]:
    """One attack of ``att`` on an unhurt ``dfn``, for :func:`sims.engine.run_chunks` (counts as ``X_*``)."""
    rules_mod.check_reach(rules, {"the attacker": att})
    pf, pr, table = pack_attack(rules, att, dfn), pack_rules(rules), dice_table(att.dice)
    return lambda n, rng: _exchange(pf, table, dfn.volume, pr, n, rng)


def policy_call(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter,
                tables: Sequence[Any]) -> Callable[[int, np.random.Generator], np.ndarray]:
    """Duels played by a solved strategy's policy tables (:func:`sims.tun_tactics.policy_call`)."""
    return tun_tactics.policy_call(rules, a, b, tables)


def group_call(rules: rules_mod.Rules, side_a: Sequence[rules_mod.Fighter],
               side_b: Sequence[rules_mod.Fighter]) -> Callable[[int, np.random.Generator], np.ndarray]:
    """Group fights of the two sides (:func:`sims.tun_groups.group_call`, for :func:`sims.api.simulate_group`)."""
    return tun_groups.group_call(rules, side_a, side_b)
