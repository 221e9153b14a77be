"""2K's clock, the IN economy ("Время в системе", RULES.md section 2): the step rules and the exact duel.

The rules, as the lab reads them (every number is a ruleset constant):

- a round is 6 seconds; each fighter rolls IN = reflexes + 1K - penalty + carry;
- while a fighter has IN >= 4, the one with the highest IN attacks (-6 IN); the
  defender parries (-3 IN, decided before the roll) if its policy says so, it has
  a defense rating and IN >= 3; equal highest IN: both attack (-6 each), then each
  parries if 3 IN are left; both read the conditions before either lands;
- an attack started with 4-5 IN leaves a debt; a hit lowers the victim's IN at
  once by the rise of its penalty (``in_penalty = immediate``) and by 6 for a lost
  action (stopping effect, pain shock; one for both or ``stack``);
- the round ends when nobody has 4 IN; leftover <= 3 carries, more as 3, a debt in
  full down to -20 (``in_carry = false``: only debts).

The pure functions below play one step with the dice given (the resolve path and
the seed's worked example).  :func:`economy_duel` solves the whole duel exactly
over the states (conditions, IN of each side).  Each 1K is rolled *lazily*, one
die face at a time and only when a decision depends on it (a fighter far ahead
keeps "IN = known + a die not yet rolled" while it attacks), which keeps the rule
of 1 and 6's unbounded roll finite.  Conditions only worsen, so the states are
solved block of conditions by block of conditions: inside a block every action
or die face leads to a later state except a round's end, whose few states
(the carries) solve a small linear system.  A state that cannot carry
``PRUNE`` of probability is not followed (what reaches it is ``truncation``).
The distribution of rounds then iterates the rounds over the same states.

>>> from analysis.systems.onesix import Fighter, Rules
>>> side = roll(Rules(), Fighter(reflexes=8), Side(initiative=3), 0)
>>> side.initiative, next_actor(Rules(), side, Side(initiative=14))
(11, 'b')
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Mapping

import numpy as np
from numba import njit

from .. import markov
from ..params import DicelabError
from . import onesix as six

PRUNE = 1e-17
"""A state that cannot carry this much probability is not followed (what reaches it is truncation)."""
ROUNDS_TOL = 1e-12
"""The rounds distribution is iterated until the fights still going weigh less than this..."""
WORK = 1e7
"""... or, once 99.9% of the fights that end have ended, this many edge visits are spent (the rest is
``rounds_tail``; the mean rounds is exact either way)."""
BLOCK_TOL = 1e-14
"""A block's rounds are iterated until what keeps looping in it is below this share of what flowed in..."""
SWEEPS = 200_000
"""... or this many rounds are spent (what is left then never ends: a stalemate)."""
SWEEP_FLOOR = 1e-16
"""Inside a block's rounds, a visit holding less than this share of the block's inflow goes no further (lost)."""
ROUNDS_SKIP = 1e-10
"""The rounds distribution does not follow a state holding less than this share of the fights still going."""
CAPACITY = 1 << 19
"""States the solver first makes room for (doubled as often as needed)."""
REGION = 32
"""Hash slots a block of conditions first gets (doubled whenever it is half full): a block's lookups stay close."""


# ------------------------------------------------------------------ the step rules (pure Python)
@dataclass(frozen=True)
class Struck:
    """What a hit does to its victim: the new condition, the lost actions and the IN lost at once."""

    condition: tuple[int, int, int]
    stopping: bool
    pain: bool
    in_lost: int


def struck(rules: six.Rules, dfn: six.Fighter, condition: tuple[int, int, int], levels: int, cls: int,
           step: int) -> Struck:
    """A hit of ``levels`` of class ``cls`` (armor wear ``step``) on ``dfn`` in ``condition``.

    The penalty's rise comes off IN at once under ``in_penalty = immediate``; a lost action
    (stopping effect: levels > training; pain shock: the hit's track ends above personality)
    costs ``action_lost`` IN, once for both or each under ``in_loss = stack``.

    >>> from analysis.systems.onesix import Fighter, Rules, SHOCK
    >>> struck(Rules(), Fighter(training=3, personality=3), (0, 0, 0), 4, SHOCK, 0)
    Struck(condition=(0, 4, 0), stopping=True, pain=True, in_lost=10)
    """
    w, s, k = condition
    w2, s2 = (int(v) for v in six.mark(w, s, cls, levels, rules))
    w2 = min(w2, rules.death)
    k2 = min(k + step, six.max_wear(rules, dfn))
    stopping = rules.stopping_effect and levels > dfn.training
    pain = rules.pain_shock and levels > 0 and (w2 if cls == six.WOUND else s2) > dfn.personality
    losses = int(stopping) + int(pain) if rules.in_loss == "stack" else int(stopping or pain)
    rise = max(w2, s2) - max(w, s) if rules.in_penalty == "immediate" else 0
    return Struck((w2, s2, k2), stopping, pain, rise + rules.action_lost * losses)


@dataclass(frozen=True)
class Side:
    """One fighter inside a round: its condition and current IN (between rounds: the carry)."""

    condition: tuple[int, int, int] = six.UNHURT
    initiative: int = 0

    @property
    def penalty(self) -> int:
        return max(self.condition[0], self.condition[1])


def roll(rules: six.Rules, f: six.Fighter, side: Side, k: int) -> Side:
    """The round's IN roll: reflexes + 1K - penalty + carry (``k`` = the 1K total)."""
    return replace(side, initiative=f.total_reflexes() + k - side.penalty + side.initiative)


def next_actor(rules: six.Rules, a: Side, b: Side) -> str | None:
    """Who acts now: ``"a"``, ``"b"``, ``"both"`` (equal highest IN) or ``None`` (the round is over)."""
    top = max(a.initiative, b.initiative)
    if top < rules.attack_min_in:
        return None
    if a.initiative == b.initiative:
        return "both"
    return "a" if a.initiative > b.initiative else "b"


def parries(rules: six.Rules, f: six.Fighter, side: Side) -> bool:
    """Whether ``f`` parries now: its policy, a defense rating and the parry's IN left."""
    return f.parries() and side.initiative >= rules.parry_cost


def wait(side: Side, n: int) -> Side:
    """``side`` waits ``n`` IN (scripted scenes only: nobody waits in a duel)."""
    return replace(side, initiative=side.initiative - n)


def end_round(rules: six.Rules, side: Side) -> Side:
    """The carry into the next round: leftover up to the cap, a debt in full down to the floor."""
    cap = rules.carry_cap if rules.in_carry else 0
    return replace(side, initiative=max(min(side.initiative, cap), rules.carry_floor))


def _attack(rules: six.Rules, att: six.Fighter, dfn: six.Fighter, sa: Side, sd: Side, parry: bool,
            rolls: Mapping[str, int], who: str) -> tuple[Side, list[str]]:
    """``att`` attacks ``dfn`` with the test dice ``rolls[who + '_attack']`` (and the defender's
    ``rolls[other + '_defense']`` when it parries an attack that reached the threshold)."""
    other = "b" if who == "a" else "a"
    rt_a = att.attack_rating - sa.penalty + rolls[f"{who}_attack"]
    steps = [f"{who.upper()} attacks: RT {rt_a}"]
    if rt_a < rules.success_threshold:
        return sd, steps + ["miss"]
    base = rules.success_threshold
    if parry:
        rt_d = dfn.defense_rating - sd.penalty + rolls[f"{other}_defense"]
        if rt_d >= rt_a:
            return sd, steps + [f"parried (RT {rt_d})"]
        base = rt_d if rules.excess_over == "defense" else base
    levels, cls, step = (int(v) for v in six.hit_effect(rules, att, dfn, att.weapon_ps + rt_a - base,
                                                        sd.condition[2]))
    effect = struck(rules, dfn, sd.condition, levels, cls, step)
    steps.append(f"hit: {levels} {'Wounds' if cls == six.WOUND else 'Shock'}, IN -{effect.in_lost}")
    return Side(effect.condition, sd.initiative - effect.in_lost), steps


def act(rules: six.Rules, a: six.Fighter, b: six.Fighter, sa: Side, sb: Side,
        rolls: Mapping[str, int]) -> tuple[Side, Side, list[str]]:
    """One action by the order rule with the test dice given (``a_attack``, ``b_defense``, ...).

    >>> from analysis.systems.onesix import Fighter, Rules
    >>> knife = Fighter(attack_rating=9, weapon_ps=5, weapon_class="wound")
    >>> sa, sb, _ = act(Rules(), knife, Fighter(), Side(initiative=10), Side(initiative=4), {"a_attack": 10})
    >>> sa.initiative, sb.condition, sb.initiative
    (4, (2, 0, 0), 2)
    """
    who = next_actor(rules, sa, sb)
    if who is None:
        raise DicelabError("act: nobody has the IN to act; the round is over")
    attack_cost = rules.attack_cost
    if who == "both":
        sa, sb = wait(sa, attack_cost), wait(sb, attack_cost)
        pa, pb = parries(rules, a, sa), parries(rules, b, sb)
        sa, sb = wait(sa, rules.parry_cost * pa), wait(sb, rules.parry_cost * pb)
        new_b, steps_a = _attack(rules, a, b, sa, sb, pb, rolls, "a")
        new_a, steps_b = _attack(rules, b, a, sb, sa, pa, rolls, "b")
        return new_a, new_b, ["equal IN: both attack"] + steps_a + steps_b
    if who == "a":
        pb = parries(rules, b, sb)
        new_b, steps = _attack(rules, a, b, wait(sa, attack_cost), wait(sb, rules.parry_cost * pb), pb, rolls, "a")
        return wait(sa, attack_cost), new_b, steps
    pa = parries(rules, a, sa)
    new_a, steps = _attack(rules, b, a, wait(sb, attack_cost), wait(sa, rules.parry_cost * pa), pa, rolls, "b")
    return new_a, wait(sb, attack_cost), steps


# ------------------------------------------------------------------ packing for the compiled chain
# Packed rules.
(P_COST, P_PARRY, P_LOST, P_AMIN, P_CAP, P_FLOOR, P_IMMEDIATE, P_STACK, P_STOP, P_PAIN, P_TRACK, P_SCAP, P_DEATH,
 P_FIRST, P_UNBOUNDED, P_ONES, P_XLO, P_NX, P_NP) = range(19)
# Packed fighters (one row each).
F_REFL, F_TRAIN, F_PERS, F_MAXWEAR, F_NWEAR, F_PARRIES = range(6)
# State kinds: between rounds (conditions and carries), inside a round, the end of the fight (final conditions).
K_BETWEEN, K_MID, K_END = 0, 1, 2
# A pending die (the part of a 1K not rolled yet): 0 none, 1 a plain d6, 2 a first die and 3 an extra die of an
# unbounded roll (memoryless: after a six the rest is again "a die"), 4 + 2L / 5 + 2L a first / extra die with L
# more extra dice allowed (explode_depth).
D6, FIRST, EXTRA = 1, 2, 3
WOUND = six.WOUND
BIG = 1 << 40


def _first_die(rules: six.Rules) -> tuple[int, int]:
    """The pending die of a fresh IN roll and how many pending kinds the key must hold."""
    if rules.in_die == "d6":
        return D6, 4
    if rules.explode_depth is None:
        return FIRST, 4
    return 4 + 2 * rules.explode_depth, 6 + 2 * rules.explode_depth


def _x_bounds(rules: six.Rules, a: six.Fighter, b: six.Fighter) -> tuple[int, int]:
    """Bounds on a known IN inside a round (the key's range): the deepest debt, the highest lazy roll kept."""
    hits = 2 * rules.track_length + 2
    lo = (rules.carry_floor - rules.track_length - rules.attack_cost - rules.parry_cost
          - hits * (rules.track_length + 2 * rules.action_lost) - 8)
    sixes = 40 if rules.explode_depth is None else rules.explode_depth + 2
    hi = max(a.total_reflexes(), b.total_reflexes()) + rules.carry_cap + 6 * sixes + 8
    return lo, hi


def pack_rules(rules: six.Rules, a: six.Fighter, b: six.Fighter) -> np.ndarray:
    """The ruleset's numbers for the kernels (no rule constant is a literal in compiled code)."""
    first, n_kinds = _first_die(rules)
    lo, hi = _x_bounds(rules, a, b)
    return np.array([rules.attack_cost, rules.parry_cost, rules.action_lost, rules.attack_min_in,
                     rules.carry_cap if rules.in_carry else 0, rules.carry_floor, rules.in_penalty == "immediate",
                     rules.in_loss == "stack", rules.stopping_effect, rules.pain_shock, rules.track_length,
                     rules.shock_cap, rules.death, first, first == FIRST, rules.extra_die_ones == "count", lo,
                     hi - lo + 1, n_kinds], dtype=np.int64)


def pack_fighter(rules: six.Rules, f: six.Fighter) -> np.ndarray:
    wear = six.max_wear(rules, f)
    return np.array([f.total_reflexes(), f.training, f.personality, wear, wear + 1, f.parries()], dtype=np.int64)


def _side_table(rules: six.Rules, att: six.Fighter, dfn: six.Fighter) -> tuple[np.ndarray, ...]:
    """One side's attack tables; levels past the deadly level are merged (they all end the same way)."""
    t = rules.track_length + 1
    top = rules.death + rules.shock_cap + 1
    span = max(rules.wear_step, rules.wear_double_step) + 1
    n_wear = six.max_wear(rules, dfn) + 1
    stay, start, parts = [], [0], []
    for c in range(t):
        for pen_d in range(t):
            for wear in range(n_wear):
                for parry in (False, True):
                    p_miss, p_def, levels, cls, step, p = six._outcomes(rules, att, dfn, c, pen_d, wear,
                                                                        parry and dfn.parries())
                    idle = (levels == 0) & (step == 0)
                    stay.append(p_miss + p_def + float(p[idle].sum()))
                    key = (np.minimum(levels[~idle], top) * 2 + cls[~idle]) * span + step[~idle]
                    uniq, inverse = np.unique(key, return_inverse=True)
                    parts.append((uniq // (2 * span), (uniq // span) % 2, uniq % span,
                                  np.bincount(inverse, weights=p[~idle], minlength=uniq.size)))
                    start.append(start[-1] + uniq.size)
    hits = np.stack([np.concatenate([part[j] for part in parts]) for j in range(3)]).astype(np.int64)
    return np.array(stay), np.array(start, dtype=np.int64), hits, np.concatenate([part[3] for part in parts])


def hit_tables(rules: six.Rules, a: six.Fighter, b: six.Fighter) -> tuple[np.ndarray, ...]:
    """Every attack of either side as tables (side 0: A on B), one combo per (attacker penalty, defender penalty,
    defender armor wear, parried): P(no effect: a miss, a parry, a hit of no levels and no wear) and per hit
    that does something (levels, class, wear step; probability)."""
    sides = [_side_table(rules, a, b), _side_table(rules, b, a)]
    n_combo = max(part[0].size for part in sides)
    n_hit = max(part[3].size for part in sides)
    stay, start = np.zeros((2, n_combo)), np.zeros((2, n_combo + 1), dtype=np.int64)
    hits, p = np.zeros((2, 3, max(n_hit, 1)), dtype=np.int64), np.zeros((2, max(n_hit, 1)))
    for i, (st, sa, h, q) in enumerate(sides):
        stay[i, : st.size], start[i, : sa.size] = st, sa
        hits[i, :, : q.size], p[i, : q.size] = h, q
    return stay, start, hits, p


def states_bound(rules: six.Rules, a: six.Fighter, b: six.Fighter) -> int:
    """An upper estimate of the chain's states, from its shape: blocks of conditions x states in a block.

    A side's up conditions: one track's levels (both tracks against a ballistic weapon) times its armor's wear.
    A block holds at most about 3 x span^2 states, span the IN a side may hold in it: the carries and the debts
    of two attacks and two lost actions past the track (7,400 measured in the largest archetype block, 8,748 here).
    """
    def conditions(f: six.Fighter, attacker: six.Fighter) -> int:
        levels = rules.track_length + 1
        return levels ** (2 if attacker.weapon_class == "ballistic" else 1) * (six.max_wear(rules, f) + 1)

    span = (rules.carry_cap - rules.carry_floor + 1 + 2 * (rules.attack_cost + rules.action_lost)
            + rules.track_length)
    return int(conditions(a, b) * conditions(b, a) * 3 * span * span)


@lru_cache(maxsize=256)
def economy_duel(rules: six.Rules, a: six.Fighter, b: six.Fighter) -> tuple[markov.Solution, str]:
    """The duel under the IN economy, exactly (less a reported truncation): the solution and how it was timed."""
    pr = pack_rules(rules, a, b)
    na, nb = len(six.track(rules, a)), len(six.track(rules, b))
    if 3 * na * nb * int(pr[P_NX]) ** 2 * int(pr[P_NP]) ** 2 >= 2**62:
        raise DicelabError(f"onesix duel: tracks of {na} and {nb} conditions are too large for the exact chain; "
                           "allowed: shorter tracks, less armor wear or a shallower carry floor (or dicelab sim)")
    fs = np.stack([pack_fighter(rules, a), pack_fighter(rules, b)])
    tables = hit_tables(rules, a, b)
    cap = CAPACITY
    while True:
        status, codes, probs, lost, stuck, mean, states, rounds = _solve(
            pr, fs, *tables, na, nb, PRUNE, ROUNDS_TOL, WORK, markov.MAX_ROUNDS, cap, 10 * cap, BLOCK_TOL, SWEEPS,
            ROUNDS_SKIP, SWEEP_FLOOR)
        if status == 0:
            break
        cap *= 2
    ta, tb = six.track(rules, a), six.track(rules, b)
    pairs = {(int(code) // nb, int(code) % nb): float(p) for code, p in zip(codes, probs)}
    p_end = float(probs.sum())
    solution = markov.from_rounds(pairs, ta, tb, {t + 1: float(p) for t, p in enumerate(rounds) if p > 0},
                                  p_stalemate=float(stuck), truncation=float(lost), states=int(states),
                                  rounds_tail=max(p_end - float(rounds.sum()), 0.0))
    if p_end > 0 and stuck == 0:
        solution = replace(solution, mean_rounds=float(mean))
    die = ("1K = one die under the rule of 1 and 6 (1 -> 0, 6 -> 6 + another die)" if rules.in_die == "one_six"
           else "1K = a plain d6")
    order = (f"IN economy (seed «Время в системе»): each 6-second round IN = reflexes + 1K - penalty + carry, {die}; "
             f"while someone has IN >= {rules.attack_min_in} the highest attacks (-{rules.attack_cost}), the defender "
             f"parries (-{rules.parry_cost}) by its policy if it has the IN; equal IN: both attack, then each parries "
             f"if {rules.parry_cost} IN are left; a hit takes the penalty's rise off IN "
             f"({rules.in_penalty}) and {rules.action_lost} IN per lost action (stopping effect, pain shock: "
             f"{rules.in_loss}); leftover carries up to {rules.carry_cap if rules.in_carry else 0}, debts down to "
             f"{rules.carry_floor}")
    return solution, order


# ------------------------------------------------------------------ compiled helpers shared with the simulator
@njit(cache=True, nogil=True)
def _land(w: int, s: int, k: int, lv: int, cls: int, step: int, training: int, personality: int, maxwear: int,
          pr: np.ndarray) -> tuple[int, int, int, int]:
    """A hit on (wounds, shock, wear): the new condition and the IN it costs at once (see :func:`struck`)."""
    w2 = w + lv if cls == WOUND else w
    s2 = s if cls == WOUND else s + lv
    over = max(s2 - pr[P_SCAP], 0)
    w2 = min(w2 + over, pr[P_DEATH])
    s2 -= over
    k2 = min(k + step, maxwear)
    stopping = pr[P_STOP] != 0 and lv > training
    pain = pr[P_PAIN] != 0 and lv > 0 and (w2 if cls == WOUND else s2) > personality
    if pr[P_STACK]:
        losses = int(stopping) + int(pain)
    else:
        losses = int(stopping or pain)
    drop = pr[P_LOST] * losses
    if pr[P_IMMEDIATE]:
        drop += max(w2, s2) - max(w, s)
    return w2, s2, k2, drop


@njit(cache=True, nogil=True)
def _carry(x: int, pr: np.ndarray) -> int:
    """The carry of a leftover IN ``x``."""
    return max(min(x, pr[P_CAP]), pr[P_FLOOR])


# ------------------------------------------------------------------ the compiled chain: dice and keys
@njit(cache=True, nogil=True)
def _lo(p: int, pr: np.ndarray) -> int:
    """Least value a pending die adds."""
    if p == D6:
        return 1
    if p >= EXTRA and p % 2 == 1:
        return pr[P_ONES]
    return 0


@njit(cache=True, nogil=True)
def _hi(p: int) -> int:
    """Most a pending die can add (``BIG``: unbounded)."""
    if p == 0:
        return 0
    if p == D6:
        return 6
    if p <= EXTRA:
        return BIG
    return 6 * ((p - 4) // 2 + 1)


@njit(cache=True, nogil=True)
def _depth(p: int) -> int:
    """Dice a bounded pending roll may still add (the tie-break of :func:`_priority`)."""
    if p <= D6:
        return p
    return (p - 4) // 2 + 1


@njit(cache=True, nogil=True)
def _face(p: int, f: int, pr: np.ndarray) -> tuple[int, int]:
    """(value, next pending die) of face ``f`` of pending die ``p``."""
    if p == D6:
        return f, 0
    extra = p % 2 == 1
    if f == 1:
        return (pr[P_ONES] if extra else 0), 0
    if f < 6:
        return f, 0
    if p <= EXTRA:
        return 6, (EXTRA if pr[P_ONES] else FIRST)
    left = (p - 4) // 2
    if left >= 1:
        return 6, 5 + 2 * (left - 1)
    return 6, 0


@njit(cache=True, nogil=True)
def _decode(key: int, pr: np.ndarray, na: int, nb: int) -> tuple[int, int, int, int, int, int, int]:
    nx, n_kinds = pr[P_NX], pr[P_NP]
    kind = key % 3
    key //= 3
    ia = key % na
    key //= na
    ib = key % nb
    key //= nb
    xa = key % nx + pr[P_XLO]
    key //= nx
    pa = key % n_kinds
    key //= n_kinds
    xb = key % nx + pr[P_XLO]
    pb = key // nx
    return kind, ia, ib, xa, pa, xb, pb


@njit(cache=True, nogil=True)
def _encode(kind: int, ia: int, ib: int, xa: int, pa: int, xb: int, pb: int, pr: np.ndarray, na: int,
            nb: int) -> int:
    nx, n_kinds = pr[P_NX], pr[P_NP]
    return kind + 3 * (ia + na * (ib + nb * ((xa - pr[P_XLO]) + nx * (pa + n_kinds * ((xb - pr[P_XLO]) + nx * pb)))))


@njit(cache=True, nogil=True)
def _end_key(ja: int, jb: int, pr: np.ndarray, na: int, nb: int) -> int:
    return _encode(K_END, ja, jb, pr[P_XLO], 0, pr[P_XLO], 0, pr, na, nb)


@njit(cache=True, nogil=True)
def _cond(j: int, f: np.ndarray, pr: np.ndarray) -> tuple[int, int, int]:
    """(wounds, shock, wear) of track index ``j``."""
    k = j % f[F_NWEAR]
    j //= f[F_NWEAR]
    return j // (pr[P_SCAP] + 1), j % (pr[P_SCAP] + 1), k


@njit(cache=True, nogil=True)
def _index(w: int, s: int, k: int, f: np.ndarray, pr: np.ndarray) -> int:
    return (w * (pr[P_SCAP] + 1) + s) * f[F_NWEAR] + k


@njit(cache=True, nogil=True)
def _up(w: int, s: int, pr: np.ndarray) -> bool:
    return w <= pr[P_TRACK] and s <= pr[P_TRACK]


@njit(cache=True, nogil=True)
def _combo(c: int, pen_d: int, wear: int, parry: int, n_wear: int, pr: np.ndarray) -> int:
    t = pr[P_TRACK] + 1
    return ((c * t + pen_d) * n_wear + wear) * 2 + parry


# ------------------------------------------------------------------ the compiled chain: one state's ways out
@njit(cache=True, nogil=True)
def _put(bk: np.ndarray, bp: np.ndarray, n: int, key: int, p: float) -> int:
    """Append an edge (``key``, ``p``) to the buffer, merged with the last one if it has the same target (the
    hits of an attack come in order of levels, and every level past the deadly one ends the same); the length."""
    if n > 0 and bk[n - 1] == key:
        bp[n - 1] += p
        return n
    bk[n] = key
    bp[n] = p
    return n + 1


@njit(cache=True, nogil=True)
def _strike_edges(att: int, ia: int, ib: int, xa: int, pa: int, xb: int, pb: int, parry: int, weight: float,
                  with_stay: bool, fs: np.ndarray, pr: np.ndarray, na: int, nb: int, stay: np.ndarray,
                  start: np.ndarray, hits: np.ndarray, hp: np.ndarray, bk: np.ndarray, bp: np.ndarray,
                  n: int) -> int:
    """Edges of one attack by side ``att`` (0: A), the IN (xa, xb) already paid; ``parry``: the defender's.

    Without ``with_stay`` the attack's no-effect branch is left to the caller.
    """
    dfn = 1 - att
    j_att, j_dfn = (ia, ib) if att == 0 else (ib, ia)
    wa_, sa_, _ = _cond(j_att, fs[att], pr)
    wd, sd, kd = _cond(j_dfn, fs[dfn], pr)
    combo = _combo(max(wa_, sa_), max(wd, sd), kd, parry, fs[dfn, F_NWEAR], pr)
    if with_stay:
        n = _put(bk, bp, n, _encode(K_MID, ia, ib, xa, pa, xb, pb, pr, na, nb), weight * stay[att, combo])
    for h in range(start[att, combo], start[att, combo + 1]):
        w2, s2, k2, drop = _land(wd, sd, kd, hits[att, 0, h], hits[att, 1, h], hits[att, 2, h], fs[dfn, F_TRAIN],
                                 fs[dfn, F_PERS], fs[dfn, F_MAXWEAR], pr)
        j2 = _index(w2, s2, k2, fs[dfn], pr)
        if not _up(w2, s2, pr):
            key = _end_key(ia if att == 0 else j2, j2 if att == 0 else ib, pr, na, nb)
        elif att == 0:
            key = _encode(K_MID, ia, j2, xa, pa, xb - drop, pb, pr, na, nb)
        else:
            key = _encode(K_MID, j2, ib, xa - drop, pa, xb, pb, pr, na, nb)
        n = _put(bk, bp, n, key, weight * hp[att, h])
    return n


@njit(cache=True, nogil=True)
def _outcome(att: int, h: int, combo: int, j: int, fs: np.ndarray, pr: np.ndarray, stay: np.ndarray,
             start: np.ndarray, hits: np.ndarray, hp: np.ndarray) -> tuple[float, int, int, bool]:
    """Way ``h`` of an attack by side ``att`` (``h`` before the combo's hits: no effect) on the defender at track
    index ``j``: (probability, its new index, the IN it loses at once, whether it is still up)."""
    if h < start[att, combo]:
        return stay[att, combo], j, 0, True
    dfn = 1 - att
    w, s, k = _cond(j, fs[dfn], pr)
    w2, s2, k2, drop = _land(w, s, k, hits[att, 0, h], hits[att, 1, h], hits[att, 2, h], fs[dfn, F_TRAIN],
                             fs[dfn, F_PERS], fs[dfn, F_MAXWEAR], pr)
    return hp[att, h], _index(w2, s2, k2, fs[dfn], pr), drop, _up(w2, s2, pr)


@njit(cache=True, nogil=True)
def _both_edges(ia: int, ib: int, xa: int, xb: int, fs: np.ndarray, pr: np.ndarray, na: int, nb: int,
                stay: np.ndarray, start: np.ndarray, hits: np.ndarray, hp: np.ndarray, bk: np.ndarray,
                bp: np.ndarray) -> int:
    """Equal IN: both attack at once from the same conditions, then each parries if it has the IN left."""
    xa -= pr[P_COST]
    xb -= pr[P_COST]
    fa = 1 if fs[0, F_PARRIES] and xa >= pr[P_PARRY] else 0
    fb = 1 if fs[1, F_PARRIES] and xb >= pr[P_PARRY] else 0
    xa -= pr[P_PARRY] * fa
    xb -= pr[P_PARRY] * fb
    wa, sa, ka = _cond(ia, fs[0], pr)
    wb, sb, kb = _cond(ib, fs[1], pr)
    on_b = _combo(max(wa, sa), max(wb, sb), kb, fb, fs[1, F_NWEAR], pr)
    on_a = _combo(max(wb, sb), max(wa, sa), ka, fa, fs[0, F_NWEAR], pr)
    first = start[1, on_a] - 1
    m = start[1, on_a + 1] - first
    p_a, j_a, d_a, up_a = np.empty(m), np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(m, np.bool_)
    for y in range(m):
        p_a[y], j_a[y], d_a[y], up_a[y] = _outcome(1, first + y, on_a, ia, fs, pr, stay, start, hits, hp)
    n = 0
    for x in range(start[0, on_b] - 1, start[0, on_b + 1]):
        p1, jb, db, upb = _outcome(0, x, on_b, ib, fs, pr, stay, start, hits, hp)
        for y in range(m):
            p2, ja, da, upa = p_a[y], j_a[y], d_a[y], up_a[y]
            if upa and upb:
                key = _encode(K_MID, ja, jb, xa - da, 0, xb - db, 0, pr, na, nb)
            else:
                key = _end_key(ja, jb, pr, na, nb)
            n = _put(bk, bp, n, key, p1 * p2)
    return n


@njit(cache=True, nogil=True)
def _resolve_edges(side: int, ia: int, ib: int, xa: int, pa: int, xb: int, pb: int, pr: np.ndarray, na: int,
                   nb: int, bk: np.ndarray, bp: np.ndarray) -> int:
    """Roll one face of ``side``'s pending die (a known IN past the key's range is lost: truncation)."""
    p = pa if side == 0 else pb
    top = pr[P_XLO] + pr[P_NX] - 1
    n = 0
    for f in range(1, 7):
        v, q = _face(p, f, pr)
        if (xa if side == 0 else xb) + v > top:
            continue
        if side == 0:
            key = _encode(K_MID, ia, ib, xa + v, q, xb, pb, pr, na, nb)
        else:
            key = _encode(K_MID, ia, ib, xa, pa, xb + v, q, pr, na, nb)
        n = _put(bk, bp, n, key, 1.0 / 6.0)
    return n


@njit(cache=True, nogil=True)
def _ahead_edges(side: int, ia: int, ib: int, x: int, p: int, y: int, fs: np.ndarray, pr: np.ndarray, na: int,
                 nb: int, stay: np.ndarray, start: np.ndarray, hits: np.ndarray, hp: np.ndarray, bk: np.ndarray,
                 bp: np.ndarray) -> int:
    """``side`` holds an unbounded die not yet rolled (IN = x + die) against an opponent at exactly ``y`` who
    cannot parry: it attacks while surely ahead, rolls one more face when not.  Each such step has a single
    next step of the same kind (the opponent unchanged), so the steps form a chain that ends in a loop (the
    die is memoryless); the loop is summed exactly and only the ways out are returned."""
    pos_x = np.empty(256, dtype=np.int64)
    pos_p = np.empty(256, dtype=np.int64)
    go = np.empty(256)
    n_pos = 0
    loop = -1
    dfn = 1 - side
    j_att, j_dfn = (ia, ib) if side == 0 else (ib, ia)
    wa_, sa_, _ = _cond(j_att, fs[side], pr)
    wd, sd, kd = _cond(j_dfn, fs[dfn], pr)
    q_act = stay[side, _combo(max(wa_, sa_), max(wd, sd), kd, 0, fs[dfn, F_NWEAR], pr)]
    while n_pos < 256:
        pos_x[n_pos], pos_p[n_pos] = x, p
        low = x + _lo(p, pr)
        if low >= pr[P_AMIN] and low > y:
            go[n_pos] = q_act
            x -= pr[P_COST]
        else:
            go[n_pos] = 1.0 / 6.0
            x, p = x + 6, _face(p, 6, pr)[1]
        n_pos += 1
        for i in range(n_pos):
            if pos_x[i] == x and pos_p[i] == p:
                loop = i
        if loop >= 0 or go[n_pos - 1] == 0.0:
            break
    weight = np.empty(n_pos)
    w = 1.0
    for i in range(n_pos):
        weight[i] = w
        w *= go[i]
    if loop >= 0:
        around = w / weight[loop]
        for i in range(loop, n_pos):
            weight[i] /= 1.0 - around
    n = 0
    for i in range(n_pos):
        x, p = pos_x[i], pos_p[i]
        low = x + _lo(p, pr)
        if low >= pr[P_AMIN] and low > y:
            if side == 0:
                n = _strike_edges(0, ia, ib, x - pr[P_COST], p, y, 0, 0, weight[i], False, fs, pr, na, nb, stay,
                                  start, hits, hp, bk, bp, n)
            else:
                n = _strike_edges(1, ia, ib, y, 0, x - pr[P_COST], p, 0, weight[i], False, fs, pr, na, nb, stay,
                                  start, hits, hp, bk, bp, n)
        else:
            for f in range(1, 6):
                v = _face(p, f, pr)[0]
                if side == 0:
                    key = _encode(K_MID, ia, ib, x + v, 0, y, 0, pr, na, nb)
                else:
                    key = _encode(K_MID, ia, ib, y, 0, x + v, 0, pr, na, nb)
                n = _put(bk, bp, n, key, weight[i] / 6.0)
    return n


@njit(cache=True, nogil=True)
def _edges(key: int, fs: np.ndarray, pr: np.ndarray, na: int, nb: int, stay: np.ndarray, start: np.ndarray,
           hits: np.ndarray, hp: np.ndarray, bk: np.ndarray, bp: np.ndarray) -> int:
    """Every way out of one state into the edge buffer (keys and probabilities); the count."""
    kind, ia, ib, xa, pa, xb, pb = _decode(key, pr, na, nb)
    if kind == K_BETWEEN:
        wa, sa, _ = _cond(ia, fs[0], pr)
        wb, sb, _ = _cond(ib, fs[1], pr)
        bk[0] = _encode(K_MID, ia, ib, fs[0, F_REFL] - max(wa, sa) + xa, pr[P_FIRST],
                        fs[1, F_REFL] - max(wb, sb) + xb, pr[P_FIRST], pr, na, nb)
        bp[0] = 1.0
        return 1
    if pr[P_UNBOUNDED] and (pa == 0) != (pb == 0):
        if pa and not (fs[1, F_PARRIES] and xb >= pr[P_PARRY]):
            return _ahead_edges(0, ia, ib, xa, pa, xb, fs, pr, na, nb, stay, start, hits, hp, bk, bp)
        if pb and not (fs[0, F_PARRIES] and xa >= pr[P_PARRY]):
            return _ahead_edges(1, ia, ib, xb, pb, xa, fs, pr, na, nb, stay, start, hits, hp, bk, bp)
    la, ha = xa + _lo(pa, pr), xa + _hi(pa)
    lb, hb = xb + _lo(pb, pr), xb + _hi(pb)
    amin, parry_cost = pr[P_AMIN], pr[P_PARRY]
    if ha < amin and hb < amin:
        if pa:
            return _resolve_edges(0, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp)
        if pb:
            return _resolve_edges(1, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp)
        bk[0] = _encode(K_BETWEEN, ia, ib, _carry(xa, pr), 0, _carry(xb, pr), 0, pr, na, nb)
        bp[0] = 1.0
        return 1
    if la >= amin and la > hb:
        if fs[1, F_PARRIES] and lb < parry_cost <= hb:
            return _resolve_edges(1, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp)
        parry = 1 if fs[1, F_PARRIES] and lb >= parry_cost else 0
        return _strike_edges(0, ia, ib, xa - pr[P_COST], pa, xb - parry_cost * parry, pb, parry, 1.0, True, fs, pr,
                             na, nb, stay, start, hits, hp, bk, bp, 0)
    if lb >= amin and lb > ha:
        if fs[0, F_PARRIES] and la < parry_cost <= ha:
            return _resolve_edges(0, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp)
        parry = 1 if fs[0, F_PARRIES] and la >= parry_cost else 0
        return _strike_edges(1, ia, ib, xa - parry_cost * parry, pa, xb - pr[P_COST], pb, parry, 1.0, True, fs, pr,
                             na, nb, stay, start, hits, hp, bk, bp, 0)
    if pa == 0 and pb == 0:
        return _both_edges(ia, ib, xa, xb, fs, pr, na, nb, stay, start, hits, hp, bk, bp)
    return _resolve_edges(0 if pa and (pb == 0 or xa <= xb) else 1, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp)


@njit(cache=True, nogil=True)
def _live(ia: int, ib: int, fs: np.ndarray, pr: np.ndarray, start: np.ndarray) -> bool:
    """Whether some attack from the conditions (ia, ib) can change them (else the fight is stuck there)."""
    for att in range(2):
        dfn = 1 - att
        j_att, j_dfn = (ia, ib) if att == 0 else (ib, ia)
        wa_, sa_, _ = _cond(j_att, fs[att], pr)
        wd, sd, kd = _cond(j_dfn, fs[dfn], pr)
        for parry in range(1 + fs[dfn, F_PARRIES]):
            combo = _combo(max(wa_, sa_), max(wd, sd), kd, parry, fs[dfn, F_NWEAR], pr)
            if start[att, combo + 1] > start[att, combo]:
                return True
    return False


@njit(cache=True, nogil=True)
def _priority(key: int, pr: np.ndarray, na: int, nb: int) -> int:
    """Processing order: every action or die face leads to a later state; a round's end leads back to its block.

    Conditions only worsen, so the block of conditions (ia, ib) comes first; in a block, the states between
    rounds come first.  Unbounded dice: both dice pending (by increasing IN), then one pending (the rolled
    side's IN decreasing, the pending side's increasing), then both rolled (IN sum decreasing).  Bounded dice:
    the most IN the two can still hold decreasing, then the dice left decreasing.
    """
    kind, ia, ib, xa, pa, xb, pb = _decode(key, pr, na, nb)
    nx, n_kinds = pr[P_NX], pr[P_NP]
    ua, ub = xa - pr[P_XLO], xb - pr[P_XLO]
    span = 4 * nx * nx + 24 * n_kinds * nx + 1
    base = (ia * nb + ib) * span
    if kind != K_MID:
        return base
    if pr[P_UNBOUNDED]:
        if pa and pb:
            return base + 1 + ua + ub
        if pa or pb:
            x, y = (ua, ub) if pa else (ub, ua)
            return base + 1 + 2 * nx + (nx - 1 - y) * nx + x
        return base + 1 + 2 * nx + nx * nx + 2 * nx - ua - ub
    phi = ua + _hi(pa) + ub + _hi(pb)
    return base + 1 + (2 * nx + 12 * n_kinds - phi) * n_kinds + n_kinds - 1 - _depth(pa) - _depth(pb)


# ------------------------------------------------------------------ the compiled chain: the solver
# A state's fields are parallel arrays: s_key, s_kind, s_prio (processing priority), s_start / s_len (its
# edges; -1: not expanded), s_next (next state of its block), s_loc (position in its block's order), s_flag
# (queued); v_lost (probability its ways out miss), v_in (mass arriving from earlier blocks), v_bound (discovery
# bound).  An edge keeps its target (e_tgt), probability (e_p) and e_code: the target's kind, plus 3 when it is
# in another block of conditions (an end is always K_END).  The hash table gives each block of conditions a
# region of its own (t_base, t_mask), so that a block's lookups stay close in memory.


@njit(cache=True, nogil=True, inline='always')
def _slot(table: np.ndarray, base: int, mask: int, key: int) -> int:
    """The slot of ``key`` in its region of the open-addressing ``table`` (rows: key + 1, state index; 0: empty):
    ``mask + 1`` slots from ``base``."""
    slot = ((key * 0x5851F42D4C957F2D) >> 20) & mask
    while table[base + slot, 0] != 0 and table[base + slot, 0] != key + 1:
        slot = (slot + 1) & mask
    return base + slot


@njit(cache=True, nogil=True)
def _region(table: np.ndarray, t_base: np.ndarray, t_mask: np.ndarray, t_top: np.ndarray, r: int, size: int) -> bool:
    """Give region ``r`` (the states of one block of conditions) ``size`` fresh slots at the end of the table (only
    the slots given out are ever written: the table's memory is what the states use), its keys moved there; False
    when the table is full."""
    top = t_top[0]
    if top + size > table.shape[0]:
        return False
    table[top:top + size] = 0
    old, old_mask = t_base[r], t_mask[r]
    t_base[r], t_mask[r], t_top[0] = top, size - 1, top + size
    if old >= 0:
        for i in range(old, old + old_mask + 1):
            if table[i, 0] != 0:
                slot = _slot(table, top, size - 1, table[i, 0] - 1)
                table[slot, 0], table[slot, 1] = table[i, 0], table[i, 1]
    return True


@njit(cache=True, nogil=True, inline='always')
def _state(key: int, slot: int, s_key: np.ndarray, s_kind: np.ndarray, s_prio: np.ndarray, s_start: np.ndarray,
           s_len: np.ndarray, s_next: np.ndarray, s_loc: np.ndarray, s_flag: np.ndarray, v_lost: np.ndarray,
           v_in: np.ndarray, v_bound: np.ndarray, n: int, table: np.ndarray, head: np.ndarray, pr: np.ndarray,
           na: int, nb: int) -> int:
    """Store the new state ``key`` at the empty ``slot`` of the table as state ``n`` (linked to its block unless it
    ends the fight); its index, -1 when the store is full."""
    if n == s_key.size:
        return -1
    kind, ia, ib, _, _, _, _ = _decode(key, pr, na, nb)
    block = ia * nb + ib
    s_key[n], s_kind[n], s_prio[n] = key, kind, _priority(key, pr, na, nb)
    s_start[n], s_len[n], s_next[n], s_loc[n], s_flag[n] = -1, 0, -1, -1, 0
    v_lost[n], v_in[n], v_bound[n] = 0.0, 0.0, 0.0
    if kind != K_END:
        s_next[n] = head[block]
        head[block] = n
    table[slot, 0], table[slot, 1] = key + 1, n
    return n


@njit(cache=True, nogil=True)
def _heap_push(heap: np.ndarray, keys: np.ndarray, size: int, item: int, key: int) -> int:
    """Push ``item`` with priority ``key`` on a binary min-heap (the priorities kept beside the items)."""
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if keys[parent] <= key:
            break
        heap[i], keys[i] = heap[parent], keys[parent]
        i = parent
    heap[i], keys[i] = item, key
    return size + 1


@njit(cache=True, nogil=True)
def _heap_pop(heap: np.ndarray, keys: np.ndarray, size: int) -> int:
    """Pop the item of least priority (the heap then holds ``size - 1`` items)."""
    top = heap[0]
    size -= 1
    item, key = heap[size], keys[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[child] >= key:
            break
        heap[i], keys[i] = heap[child], keys[child]
        i = child
    heap[i], keys[i] = item, key
    return top



_DEBRUIJN = 0x03F79D71B4CB0A89
_LOWEST = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _LOWEST[(((1 << _i) * _DEBRUIJN) % (1 << 64)) >> 58] = _i


@njit(cache=True, nogil=True)
def _mark(lm: np.ndarray, bits: np.ndarray, i: int, q: float) -> None:
    """Add ``q`` to position ``i`` of a pass and mark it pending."""
    lm[i] += q
    bits[i >> 6] |= np.int64(1) << (i & 63)


@njit(cache=True, nogil=True)
def _sweep(lm: np.ndarray, bits: np.ndarray, m_local: int, w_start: np.ndarray, w_tgt: np.ndarray, w_p: np.ndarray,
           w_next: np.ndarray, visits: np.ndarray, later: np.ndarray, floor: float) -> float:
    """The rest of one round inside a block from the marked positions, in order (each way leads to a later
    position): every visit is added to ``visits``, the round's ends to ``later`` (per between-round state); a
    visit below ``floor`` goes no further.  Returns the mass stopped that way."""
    n_words = (m_local + 63) >> 6
    stopped = 0.0
    wi = 0
    while wi < n_words:
        word = bits[wi]
        if word == 0:
            wi += 1
            continue
        low = word & -word
        bits[wi] = word ^ low
        i = (wi << 6) + _LOWEST[((low * _DEBRUIJN) >> 58) & 63]
        m = lm[i]
        lm[i] = 0.0
        visits[i] += m
        if m < floor:
            for w in range(w_start[i], w_start[i + 1]):
                stopped += m * w_p[w]
            continue
        for w in range(w_start[i], w_start[i + 1]):
            if w_next[w]:
                later[w_tgt[w]] += m * w_p[w]
            else:
                _mark(lm, bits, w_tgt[w], m * w_p[w])
    return stopped


@njit(cache=True, nogil=True)
def _solve(pr: np.ndarray, fs: np.ndarray, stay: np.ndarray, start: np.ndarray, hits: np.ndarray, hp: np.ndarray,
           na: int, nb: int, prune: float, tol: float, work: float, max_rounds: int, cap: int, cap_edges: int,
           tol_block: float, max_sweeps: int, skip: float, sweep_floor: float):
    """The duel from two unhurt fighters with no carry, block of conditions by block of conditions.

    Conditions only worsen, so the blocks are solved in order: a block's states are found from what flows in
    (following only states that may carry ``prune`` of probability), its rounds are iterated with all of its
    inflow at once until what is left of the rounds that change nothing is below ``tol_block`` of that inflow
    (that rest is truncation; if ``max_sweeps`` rounds do not get there, it is stuck: a stalemate), and one
    pass sends everything that leaves the block on, from each
    state's total visits.  Then the rounds are iterated over the same states for their distribution.

    Returns (status: 0 fine, 1 the store is full; end codes, their probabilities, mass lost, P(stalemate),
    expected rounds, states expanded, P(first out in round t)).
    """
    s_key, s_kind, s_prio = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int8), np.empty(cap, dtype=np.int64)
    s_start, s_len = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64)
    s_next, s_loc, s_flag = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int8)
    v_lost, v_in, v_bound = np.empty(cap), np.empty(cap), np.empty(cap)
    n_regions = na * nb
    table = np.empty((8 * cap, 2), dtype=np.int64)
    t_base, t_mask = np.full(n_regions, -1, dtype=np.int64), np.zeros(n_regions, dtype=np.int64)
    t_used, t_top = np.zeros(n_regions, dtype=np.int64), np.zeros(1, dtype=np.int64)
    e_tgt = np.empty(cap_edges, dtype=np.int64)
    e_p = np.empty(cap_edges)
    e_code = np.empty(cap_edges, dtype=np.int8)
    head = np.full(na * nb, -1, dtype=np.int64)
    heap = np.empty(cap, dtype=np.int64)
    heap_keys = np.empty(cap, dtype=np.int64)
    bk = np.empty(8192, dtype=np.int64)
    bp = np.empty(8192)
    order = np.empty(cap, dtype=np.int64)
    local = np.empty(cap, dtype=np.int64)
    lm = np.zeros(cap)
    bits = np.zeros((cap >> 6) + 1, dtype=np.int64)
    empty_rounds = np.zeros(0)
    no_codes = np.zeros(0, dtype=np.int64)
    n_order = 0
    n_edges = 0
    key = _encode(K_BETWEEN, 0, 0, 0, 0, 0, 0, pr, na, nb)
    _region(table, t_base, t_mask, t_top, 0, REGION)
    t_used[0] = 1
    s0 = _state(key, _slot(table, t_base[0], t_mask[0], key), s_key, s_kind, s_prio, s_start, s_len, s_next, s_loc,
                s_flag, v_lost, v_in, v_bound, 0, table, head, pr, na, nb)
    n = 1
    v_in[s0] = 1.0
    lost = 0.0
    stuck = 0.0
    rounds_acc = 0.0
    for c in range(na * nb):
        if head[c] < 0:
            continue
        if not _live(c // nb, c % nb, fs, pr, start):
            s = head[c]
            while s >= 0:
                stuck += v_in[s]
                s = s_next[s]
            continue
        # 1. find the block's states: a bound on the probability each may carry, in processing order
        size = 0
        s = head[c]
        while s >= 0:
            if v_in[s] > 0.0:
                v_bound[s] = v_in[s] if s_kind[s] == K_MID else max(v_in[s], 1.0)
                s_flag[s] = 1
                size = _heap_push(heap, heap_keys, size, s, s_prio[s])
            s = s_next[s]
        while size > 0:
            s = _heap_pop(heap, heap_keys, size)
            size -= 1
            s_flag[s] = 0
            if v_bound[s] < prune:
                continue
            if s_start[s] < 0:
                cnt = _edges(s_key[s], fs, pr, na, nb, stay, start, hits, hp, bk, bp)
                if n_edges + cnt > cap_edges:
                    return 1, no_codes, empty_rounds, lost, stuck, 0.0, n, empty_rounds
                total = 0.0
                r_from = (s_key[s] // 3) % n_regions
                for i in range(cnt):
                    r = (bk[i] // 3) % n_regions
                    if t_base[r] < 0 and not _region(table, t_base, t_mask, t_top, r, REGION):
                        return 1, no_codes, empty_rounds, lost, stuck, 0.0, n, empty_rounds
                    slot = _slot(table, t_base[r], t_mask[r], bk[i])
                    t = table[slot, 1]
                    if table[slot, 0] == 0:
                        t = _state(bk[i], slot, s_key, s_kind, s_prio, s_start, s_len, s_next, s_loc, s_flag,
                                   v_lost, v_in, v_bound, n, table, head, pr, na, nb)
                        if t < 0:
                            return 1, no_codes, empty_rounds, lost, stuck, 0.0, n, empty_rounds
                        n += 1
                        t_used[r] += 1
                        if 2 * t_used[r] > t_mask[r] + 1 and not _region(table, t_base, t_mask, t_top, r,
                                                                         2 * (t_mask[r] + 1)):
                            return 1, no_codes, empty_rounds, lost, stuck, 0.0, n, empty_rounds
                    kind = bk[i] % 3
                    e_tgt[n_edges + i], e_p[n_edges + i] = t, bp[i]
                    e_code[n_edges + i] = kind if kind == K_END or r == r_from else kind + 3
                    total += bp[i]
                s_start[s], s_len[s] = n_edges, cnt
                v_lost[s] = max(1.0 - total, 0.0)
                n_edges += cnt
            for e in range(s_start[s], s_start[s] + s_len[s]):
                if e_code[e] >= K_END:
                    continue
                t = e_tgt[e]
                bound = v_bound[s] * e_p[e] if e_code[e] == K_MID else 1.0
                if bound > v_bound[t]:
                    v_bound[t] = bound
                    if not s_flag[t]:
                        s_flag[t] = 1
                        size = _heap_push(heap, heap_keys, size, t, s_prio[t])
        # 2. the block's order: its followed states by priority (the between-round ones first), and the ways
        # that stay in the block (to a later state of the round, or to the next round: w_next)
        m_all = 0
        s = head[c]
        while s >= 0:
            local[m_all] = s
            m_all += 1
            s = s_next[s]
        m_local = 0
        for i in range(m_all):
            m_local += s_start[local[i]] >= 0
        expanded = np.empty(m_local, dtype=np.int64)
        prios = np.empty(m_local, dtype=np.int64)
        j = 0
        for i in range(m_all):
            if s_start[local[i]] >= 0:
                expanded[j], prios[j] = local[i], s_prio[local[i]]
                j += 1
        rank = np.argsort(prios, kind="mergesort")
        members = np.empty(m_local, dtype=np.int64)
        n_between = 0
        for i in range(m_local):
            s = expanded[rank[i]]
            members[i] = s
            s_loc[s] = i
            if s_kind[s] == K_BETWEEN:
                n_between += 1
        w_start = np.zeros(m_local + 1, dtype=np.int64)
        w_lost = np.zeros(m_local)
        n_w = 0
        for i in range(m_local):
            s = members[i]
            w_lost[i] = v_lost[s]
            for e in range(s_start[s], s_start[s] + s_len[s]):
                if e_code[e] < K_END:
                    if s_loc[e_tgt[e]] >= 0:
                        n_w += 1
                    else:
                        w_lost[i] += e_p[e]
            w_start[i + 1] = n_w
        w_tgt = np.empty(n_w, dtype=np.int64)
        w_p = np.empty(n_w)
        w_next = np.empty(n_w, dtype=np.bool_)
        j = 0
        for i in range(m_local):
            s = members[i]
            for e in range(s_start[s], s_start[s] + s_len[s]):
                t = e_tgt[e]
                if e_code[e] < K_END and s_loc[t] >= 0:
                    w_tgt[j], w_p[j], w_next[j] = s_loc[t], e_p[e], e_code[e] == K_BETWEEN
                    j += 1
        # 3. the block's rounds, all of its inflow at once, until the rounds that change nothing die out
        visits = np.zeros(m_local)
        now = np.zeros(n_between)
        later = np.zeros(n_between)
        inflow = 0.0
        for i in range(m_all):
            s = local[i]
            if v_in[s] > 0.0:
                if s_loc[s] < 0:
                    lost += v_in[s]
                elif s_kind[s] == K_BETWEEN:
                    now[s_loc[s]] += v_in[s]
                else:
                    _mark(lm, bits, s_loc[s], v_in[s])
                inflow += v_in[s]
        done = False
        for _ in range(max_sweeps):
            for b in range(n_between):
                if now[b] > 0.0:
                    visits[b] += now[b]
                    rounds_acc += now[b]
                    for w in range(w_start[b], w_start[b + 1]):
                        _mark(lm, bits, w_tgt[w], now[b] * w_p[w])
            lost += _sweep(lm, bits, m_local, w_start, w_tgt, w_p, w_next, visits, later, sweep_floor * inflow)
            going = later.sum()
            now, later = later, now
            later[:] = 0.0
            if going <= tol_block * inflow:
                done = True
                break
        if done:
            lost += now.sum()
        else:
            stuck += now.sum()
        # 4. everything that leaves the block, sent on once from the total visits
        for i in range(n_between, m_local):
            s = members[i]
            order[n_order] = s
            n_order += 1
            m = visits[i]
            if m == 0.0:
                continue
            lost += m * w_lost[i]
            for e in range(s_start[s], s_start[s] + s_len[s]):
                if e_code[e] >= K_END:
                    v_in[e_tgt[e]] += m * e_p[e]
    n_end = 0
    for i in range(n):
        if s_kind[i] == K_END and v_in[i] > 0.0:
            n_end += 1
    codes = np.empty(n_end, dtype=np.int64)
    probs = np.empty(n_end)
    j = 0
    for i in range(n):
        if s_kind[i] == K_END and v_in[i] > 0.0:
            _, ia, ib, _, _, _, _ = _decode(s_key[i], pr, na, nb)
            codes[j], probs[j] = ia * nb + ib, v_in[i]
            j += 1
    between, first, r_start, r_cnt, r_end, r_tgt, r_p = _round_graph(s_kind, s_start, s_len, e_tgt, e_p, e_code, order,
                                                                     n_order, n)
    rounds = _rounds(first, r_start, r_cnt, r_end, r_tgt, r_p, between[s0], probs.sum(), tol, work, max_rounds,
                     skip)
    expanded = 0
    for i in range(n):
        expanded += s_start[i] >= 0
    return 0, codes, probs, lost, stuck, rounds_acc, expanded, rounds


@njit(cache=True, nogil=True)
def _round_graph(s_kind: np.ndarray, s_start: np.ndarray, s_len: np.ndarray, e_tgt: np.ndarray, e_p: np.ndarray,
                 e_code: np.ndarray, order: np.ndarray, n_order: int, n: int) -> tuple[np.ndarray, ...]:
    """The followed states renumbered for :func:`_rounds`: the states inside a round by their position in
    ``order`` (every way leads to a later position), the states between rounds apart.

    Returns (between: its index per state, -1 for the others; the first position of a round from each between-
    round state, -1 when not followed; per position: the ways' start, their edge count, the probability of ending
    the fight; per way: the target, a position or ``-1 - between index``, and its probability).  A way to a state
    not followed is left out (its mass is lost).
    """
    pos = np.full(n, -1, dtype=np.int64)
    for i in range(n_order):
        pos[order[i]] = i
    between = np.full(n, -1, dtype=np.int64)
    n_b = 0
    for s in range(n):
        if s_kind[s] == K_BETWEEN:
            between[s] = n_b
            n_b += 1
    first = np.full(n_b, -1, dtype=np.int64)
    for s in range(n):
        if between[s] >= 0 and s_start[s] >= 0:
            first[between[s]] = pos[e_tgt[s_start[s]]]
    r_start = np.zeros(n_order + 1, dtype=np.int64)
    r_cnt = np.empty(n_order, dtype=np.int64)
    r_end = np.zeros(n_order)
    for i in range(n_order):
        r_cnt[i] = s_len[order[i]]
    r_tgt = np.empty(r_cnt.sum(), dtype=np.int64)
    r_p = np.empty(r_tgt.size)
    j = 0
    for i in range(n_order):
        s = order[i]
        for e in range(s_start[s], s_start[s] + s_len[s]):
            t = e_tgt[e]
            if e_code[e] == K_END:
                r_end[i] += e_p[e]
            elif e_code[e] % 3 == K_BETWEEN:
                r_tgt[j], r_p[j] = -1 - between[t], e_p[e]
                j += 1
            elif pos[t] >= 0:
                r_tgt[j], r_p[j] = pos[t], e_p[e]
                j += 1
        r_start[i + 1] = j
    return between, first, r_start, r_cnt, r_end, r_tgt, r_p


@njit(cache=True, nogil=True)
def _rounds(first: np.ndarray, r_start: np.ndarray, r_cnt: np.ndarray, r_end: np.ndarray,
            r_tgt: np.ndarray, r_p: np.ndarray, b0: int, p_end: float, tol: float, work: float, max_rounds: int,
            skip: float) -> np.ndarray:
    """P(first out in round t) over the graph of :func:`_round_graph` from the between-round state ``b0``: the
    rounds iterated until the fights still going weigh less than ``tol``, or ``work`` edge visits are spent once
    99.9% of the fights that end have ended (then the distribution is cut); a state holding less than ``skip`` of
    the fights still going is not followed.  What the distribution misses of the fights that end is
    ``rounds_tail``."""
    n_order, n_b = r_cnt.size, first.size
    mass = np.zeros(n_order)
    b_mass = np.zeros(n_b)
    b_list = np.empty(n_b, dtype=np.int64)
    flag = np.zeros(n_b, dtype=np.int8)
    b_list[0] = b0
    n_list = 1
    b_mass[b0] = 1.0
    out = np.zeros(64)
    visits = 0.0
    t = 0
    alive = 1.0
    ended = 0.0
    while alive >= tol and t < max_rounds:
        if visits > work and ended >= 0.999 * p_end:
            return out[:t]
        if t == out.size:
            grown = np.zeros(2 * out.size)
            grown[:t] = out
            out = grown
        for r in range(n_list):
            b = b_list[r]
            flag[b] = 0
            m = b_mass[b]
            b_mass[b] = 0.0
            if m > 0.0 and first[b] >= 0:
                mass[first[b]] += m
        n_list = 0
        absorbed = 0.0
        floor = skip * alive
        for i in range(n_order):
            m = mass[i]
            if m == 0.0:
                continue
            mass[i] = 0.0
            if m < floor:
                continue
            visits += r_cnt[i]
            absorbed += m * r_end[i]
            for e in range(r_start[i], r_start[i + 1]):
                target = r_tgt[e]
                q = m * r_p[e]
                if target >= 0:
                    mass[target] += q
                else:
                    b = -1 - target
                    b_mass[b] += q
                    if not flag[b]:
                        flag[b] = 1
                        b_list[n_list] = b
                        n_list += 1
        out[t] = absorbed
        ended += absorbed
        t += 1
        alive = 0.0
        for r in range(n_list):
            alive += b_mass[b_list[r]]
    return out[:t]
