"""Tri-Stat group fights, N against M, exactly (RULES.md section 7).

Every fighter rolls initiative each round (2dX + acv; ``initiative_once``: once for the fight) and acts in
descending order; fighters of equal initiative act together: each picks its target from the state at that
moment (its ``target`` policy) and their attacks land together, so a fighter put out at its own moment still
strikes.  An action is one attack, plus ``extra_attacks`` more (the Attribute «Дополнительные Атаки»), made in
waves: the ``w``-th attacks of the fighters acting together form one wave, picking and landing together; a
fighter put out before a wave makes no more attacks.  One defense roll per attack against a fighter; every
defense roll after the first in a round is at a cumulative −``extra_defense_penalty`` (only rolls actually made
count: a miss or a critical draws none; equal-initiative attacks are numbered in listed order); the count
resets each round.  Out fighters are not attacked while anyone on their side can act; the fight ends when a
side has nobody able to act, and ``after_out = "finish"`` then lets the first able winner (in listed order)
finish every helpless loser as in the duel.

Targets (``target``): ``weakest`` (least Health left), ``random``, ``strongest`` (highest attack), ``spread``
(attacked least this round); ties go to the least Health left, then to the fighter listed first.  Identical
fighters of a side are exchangeable: a side's state is the multiset of their conditions, and their rows in the
result are ordered worst first.  A fighter in total defence by its policy never attacks; a round in which a
side makes no attack because all its able fighters stand in total defence is a *defensive round*, and after
``total_defence_rounds`` of them the fight ends with both sides still up (as the duel against total defence).

The compiled part is :mod:`analysis.systems.tristat.groupcore`; one against one is the duel
(:func:`~analysis.systems.tristat.duel.duel`, number for number).

>>> from analysis.systems.tristat.rules import Fighter, Rules
>>> hero, mook = Fighter(name="hero", health=12, weapon_damage=6), Fighter(name="mook", health=10)
>>> res = group(Rules(), [hero], [mook, mook])
>>> s = res.solution
>>> round(s.p_a_wins + s.p_b_wins + s.p_both_out, 12), [f.name for f in s.fighters]
(1.0, ['hero', 'mook', 'mook'])
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import combinations
from typing import Any, Sequence

import numpy as np

from analysis.base.lazy import LazyModule
from analysis.base.params import DicelabError, ParamError
from analysis.engine import markov
from analysis.engine.combat import describe_fighter
from analysis.engine.groups import GroupResult, GroupSolution, from_duel, group_solution
from analysis.engine.markov import Absorption
from analysis.systems.tristat.duel import duel
from analysis.systems.tristat.rules import (
    TARGETS,
    Fighter,
    Rules,
    _body_fails,
    attack_outcomes,
    attack_target,
    blocks,
    branches,
    dying_at,
    rules_roll,
    slips,
    track,
    validate,
)

ROUNDS_SHOWN = 100
"""Rounds whose ending probabilities the exact group fight lists; what ends later is ``rounds_tail``."""
MAX_STATES = 3_000_000
"""The exact group fight's round starts past which it stops (the size estimate refuses first)."""
MAX_FIGHTERS = 6
"""Fighters in an exact group fight at most (the orders of more than six are too many to list)."""
ORDER = ("every fighter rolls initiative each round (2dX + acv) and acts in descending order; equal initiative acts "
         "together (targets picked from the state at that moment, the attacks landing together); one attack per "
         "action plus extra_attacks, in waves; targets by each fighter's policy (ties: least Health left, then "
         "listed first); every defense roll after the first in a round at a cumulative -{pen}; identical fighters "
         "are exchangeable (their rows worst first)")

gc = LazyModule("analysis.systems.tristat.groupcore")
"""The compiled groupcore (numba), loaded on first use: importing the system stays light."""


def group(rules: Rules, side_a: Sequence[Fighter], side_b: Sequence[Fighter]) -> GroupResult:
    """The group fight of ``side_a`` against ``side_b``, exactly; one against one is the duel."""
    side_a, side_b = list(side_a), list(side_b)
    warned = check_sides(rules, side_a, side_b)
    if len(side_a) == len(side_b) == 1 and not (side_a[0].extra_attacks or side_b[0].extra_attacks):
        res = duel(rules, side_a[0], side_b[0])
        return GroupResult("tristat", rules.to_dict(), _echo(side_a, rules), _echo(side_b, rules), res.order,
                           from_duel(res.solution, side_a[0].name, side_b[0].name),
                           extra={"warnings": warned, **_extra(res.extra)})
    plan = _Plan(rules, side_a, side_b)
    solution = plan.solve()
    order = ORDER.format(pen=rules.extra_defense_penalty) + (
        "; initiative rolled once for the fight" if rules.initiative_once else "")
    extra: dict[str, Any] = {"warnings": warned}
    if plan.capped:
        extra["rounds_cap"] = rules.total_defence_rounds
        order += (f"; after {rules.total_defence_rounds} defensive rounds (a side all in total defence) the fight "
                  "ends with both sides up (p_stalemate)")
    if rules.after_out == "finish":
        order += "; after the fight the first able winner finishes every helpless loser (no defense roll)"
    return GroupResult("tristat", rules.to_dict(), _echo(side_a, rules), _echo(side_b, rules), order, solution,
                       extra=extra)


def group_states(rules: Rules, side_a: Sequence[Fighter], side_b: Sequence[Fighter]) -> int:
    """An upper estimate of the exact group fight's round starts, without building it: per type of fighter the
    multisets of its members' conditions, times the defensive rounds and the initiative orders (rolled once);
    one against one, the duel's own estimate."""
    side_a, side_b = list(side_a), list(side_b)
    if len(side_a) == len(side_b) == 1 and not (side_a[0].extra_attacks or side_b[0].extra_attacks):
        from analysis.systems.tristat.duel import duel_states

        return duel_states(rules, side_a[0], side_b[0])
    total = 1
    for side, enemies in ((side_a, side_b), (side_b, side_a)):
        for f, count in _types(side):
            t = track(rules, f, *dict.fromkeys(enemies))
            conditions = int(t.up.sum()) + (2 if rules.after_out == "stop" else len(t) - int(t.up.sum()))
            total *= math.comb(conditions + count - 1, count)
    if any(f.stance == "total_defence" for f in side_a + side_b):
        total *= rules.total_defence_rounds
    if rules.initiative_once:
        total *= _fubini(len(side_a) + len(side_b))
    return total


def _fubini(n: int) -> int:
    """The number of weak orders of ``n`` fighters."""
    return sum((-1) ** (k - j) * math.comb(k, j) * j ** n for k in range(n + 1) for j in range(k + 1))


def check_sides(rules: Rules, side_a: list[Fighter], side_b: list[Fighter]) -> list[str]:
    """Refuse what cannot be fought (an empty side, total defence everywhere, a fighter past its limits); the limit
    warnings and the slips of every pair of enemies."""
    for name, side in (("side_a", side_a), ("side_b", side_b)):
        if not side:
            raise ParamError(name, "[]", "at least one fighter")
    if all(f.stance == "total_defence" for f in side_a) and all(f.stance == "total_defence" for f in side_b):
        raise DicelabError("stance = 'total_defence' for every fighter of both sides is not allowed; allowed: a side "
                           "with a fighter who attacks (nobody would ever attack)")
    out = validate(rules, *side_a, *side_b)
    for a in dict.fromkeys(side_a):
        for b in dict.fromkeys(side_b):
            out += [w for w in slips(rules, a, b) if w not in out]
    return out


def _echo(side: list[Fighter], rules: Rules) -> tuple[dict[str, Any], ...]:
    return tuple(describe_fighter(f, rules) for f in side)


def _extra(extra: Any) -> dict[str, Any]:
    return {k: v for k, v in extra.items() if k != "warnings"}


def layout(side_a: Sequence[Fighter], side_b: Sequence[Fighter]) -> tuple[list[tuple[Fighter, int, int]], np.ndarray]:
    """The fight's types (each distinct fighter of a side, in the order first listed: fighter, side, count) and
    each slot's type: side A's types then side B's, identical fighters together (both engines number fighters so).

    >>> from analysis.systems.tristat.rules import Fighter
    >>> types, slots = layout([Fighter(name="x"), Fighter(body=5), Fighter(name="y")], [Fighter()])
    >>> [(t[1], t[2]) for t in types], slots.tolist()
    ([(0, 2), (0, 1), (1, 1)], [0, 0, 1, 2])
    """
    types = [(f, side, c) for side, fighters in enumerate((side_a, side_b)) for f, c in _types(list(fighters))]
    return types, np.repeat(np.arange(len(types)), [c for _, _, c in types])


def _types(side: list[Fighter]) -> list[tuple[Fighter, int]]:
    """The distinct fighters of a side in the order first listed, with their counts."""
    counts: dict[Fighter, int] = {}
    for f in side:
        counts[f] = counts.get(f, 0) + 1
    return list(counts.items())


class _Plan:
    """A group fight laid out for :mod:`groupcore`: the slots (side A's types, then B's, members together), the
    types' tracks, the attack tables, the initiative orders, and the packing of states into words."""

    def __init__(self, rules: Rules, side_a: list[Fighter], side_b: list[Fighter]):
        self.rules, self.sides = rules, (side_a, side_b)
        n = len(side_a) + len(side_b)
        if n > MAX_FIGHTERS:
            raise DicelabError(f"an exact group fight of {n} fighters is not allowed; allowed: at most {MAX_FIGHTERS} "
                               "(the Monte Carlo simulate_group fights any number)")
        self.types, self.slot_type = layout(side_a, side_b)
        self.tracks = [track(rules, f, *dict.fromkeys(self.sides[1 - side])) for f, side, _ in self.types]
        self.capped = any(f.stance == "total_defence" for f in side_a + side_b)
        self.collapse = rules.after_out == "stop"
        attacks = [sum((1 + f.extra_attacks) * (f.stance == "normal") for f in s) for s in self.sides]
        self.j = max(1, max(attacks))

    # ------------------------------------------------------------------ arrays for the compiled fight
    def type_rows(self) -> np.ndarray:
        rows = []
        for (f, _, _), t in zip(self.types, self.tracks):
            health = f.stats(self.rules)[2]
            n_obj = 2 if t.labels[1][1] is False else 1
            up = int(t.up.sum())
            out_lo = t.labels[up][1] if t.labels[up] != "dying" else health + 1
            rows.append([health, dying_at(self.rules, health), n_obj, up, out_lo, len(t)])
        return np.array(rows, dtype=np.int64)

    def slot_rows(self) -> np.ndarray:
        policy = {name: k for k, name in enumerate(TARGETS)}
        attacks = [sum((1 + f.extra_attacks) * (f.stance == "normal") for f in s) for s in self.sides]
        rows = []
        for t in self.slot_type:
            f, side, _ = self.types[t]
            rows.append([t, side, f.stance == "total_defence", 1 + f.extra_attacks, policy[f.target],
                         attack_target(self.rules, f), attacks[1 - side] > 1])
        return np.array(rows, dtype=np.int64)

    def tables(self) -> tuple[np.ndarray, ...]:
        """One attack's outcomes per (attacker type, defender type, defense rolls made, defense): (probability,
        damage, object destroyed, a defense roll made, knocked out by the shock stand-in)."""
        rules, k = self.rules, len(self.types)
        ptr = [0]
        cols: list[list[float]] = [[], [], [], [], []]
        mode_of = np.zeros((k, k), dtype=np.int64)
        for a, (att, side_a, _) in enumerate(self.types):
            for d, (dfn, side_d, _) in enumerate(self.types):
                if side_a != side_d:
                    mode_of[a, d] = blocks(att, dfn)
                for j in range(self.j):
                    for mode in ("plain", "block"):
                        if side_a != side_d:
                            for row in _outcomes(rules, att, dfn, mode if mode_of[a, d] else "plain", j):
                                for col, v in zip(cols, row):
                                    col.append(v)
                        ptr.append(len(cols[0]))
        p, dmg, brk, roll, knk = cols
        return (np.array(ptr, dtype=np.int64), np.array(p), np.array(dmg, dtype=np.int64),
                np.array(brk, dtype=np.int64), np.array(roll, dtype=np.int64), np.array(knk, dtype=np.int64),
                mode_of)

    def orders(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every weak order of every set of fighters (a bit mask of slots) with its probability: ``ptr[mask]`` ..
        ``ptr[mask + 1]`` index the rows of ``ranks`` (each slot's moment, 0 first) and ``p``."""
        n = self.slot_type.size
        acv = [self.types[t][0].stats(self.rules)[0] for t in self.slot_type]
        r = rules_roll(self.rules)
        values = sorted({int(v) + a for v in r.support for a in set(acv)}, reverse=True)
        pmf = np.array([[float(r.pmf(v - a)) for v in values] for a in acv])
        ptr, ranks, probs = [0], [], []
        for mask in range(1 << n):
            members = [e for e in range(n) if mask >> e & 1]
            for blocks_ in _weak_orders(tuple(members)):
                row = np.full(n, -1, dtype=np.int64)
                for rank, block in enumerate(blocks_):
                    row[list(block)] = rank
                ranks.append(row)
                probs.append(_order_p(pmf, blocks_))
            ptr.append(len(probs))
        return np.array(ptr, dtype=np.int64), np.array(ranks, dtype=np.int64).reshape(-1, n), np.array(probs)

    def settings(self) -> np.ndarray:
        g = np.zeros(14, dtype=np.int64)
        n = self.slot_type.size
        spread = any(f.target == "spread" for f, _, _ in self.types)
        bits = lambda k: max(1, int(k).bit_length())  # noqa: E731
        g[[gc.G_N, gc.G_TYPES, gc.G_J, gc.G_ONCE, gc.G_CAPPED, gc.G_CAP, gc.G_COLLAPSE, gc.G_T]] = [
            n, len(self.types), self.j, self.rules.initiative_once, self.capped,
            self.rules.total_defence_rounds if self.capped else 0, self.collapse, ROUNDS_SHOWN]
        g[[gc.G_LBITS, gc.G_DBITS, gc.G_HBITS, gc.G_RBITS, gc.G_CBITS, gc.G_MAX_STATES]] = [
            bits(max(len(t) for t in self.tracks)), bits(self.j), bits(self.j) if spread else 0, bits(n),
            bits(self.rules.total_defence_rounds), MAX_STATES]
        widths = [g[gc.G_LBITS]] * n + [g[gc.G_DBITS]] * n + [g[gc.G_HBITS]] * n
        if _words(widths) > 3 or _words([g[gc.G_LBITS]] * n + [g[gc.G_RBITS]] * n + [g[gc.G_CBITS]]) > 3:
            raise DicelabError("this group fight's states do not fit the exact engine's keys; allowed: fewer "
                               "fighters or shorter tracks (the Monte Carlo simulate_group fights any)")
        return g

    def start(self, orders: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The start: everyone fresh; rolled once, the initiative order is part of the state."""
        n = self.slot_type.size
        if not self.rules.initiative_once:
            return np.zeros((1, n), dtype=np.int64), np.zeros((1, n), dtype=np.int64), np.ones(1)
        ptr, ranks, probs = orders
        full = (1 << n) - 1
        rows = ranks[ptr[full]:ptr[full + 1]]
        return np.zeros_like(rows), rows.copy(), probs[ptr[full]:ptr[full + 1]].copy()

    # ------------------------------------------------------------------ the fight and its result
    def solve(self) -> GroupSolution:
        orders = self.orders()
        init = self.start(orders)
        ends, mass, hist, first, stall, states = gc._fight(self.slot_rows(), self.type_rows(), self.settings(),
                                                           *self.tables(), *orders, *init)
        if states < 0:
            raise DicelabError(f"the exact group fight has more than {MAX_STATES:,} round starts; allowed: smaller "
                               "sides or shorter tracks (the Monte Carlo simulate_group fights any)")
        rows, masses = self._statuses(ends, mass)
        p_end = float(mass.sum())
        rounds = {t: float(hist[t]) for t in range(1, ROUNDS_SHOWN + 1) if hist[t] > 0}
        got = Absorption(masses, float(stall), 0.0, first / p_end if p_end > 0 else None, rounds,
                         max(0.0, p_end - sum(rounds.values())))
        names_a = tuple(f.name for f in self.sides[0])
        names_b = tuple(f.name for f in self.sides[1])
        return group_solution(got, rows, len(names_a), names_a, names_b, states)

    def _statuses(self, ends: np.ndarray, mass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each end as every listed fighter's status (after finishing the helpless losers when asked), with its
        mass; identical fighters get their statuses worst first."""
        rows: dict[tuple[int, ...], float] = {}
        for labels, m in zip(ends.tolist(), mass.tolist()):
            for statuses, q in self._finished(labels):
                key = tuple(self._listed(statuses))
                rows[key] = rows.get(key, 0.0) + m * q
        keys = list(rows)
        return np.array(keys, dtype=np.int64).reshape(len(keys), -1), np.array([rows[k] for k in keys])

    def _finished(self, labels: list[int]) -> list[tuple[list[int], float]]:
        """The slots' statuses at an end, and after finishing (``after_out = "finish"``): each helpless loser
        attacked by the first able winner, every way with its probability."""
        status = [self.tracks[t].status[lab] for t, lab in zip(self.slot_type, labels)]
        sides = [self.types[t][1] for t in self.slot_type]
        up = [any(s == markov.UP for s, side in zip(status, sides) if side == x) for x in (0, 1)]
        out = [(status, 1.0)]
        if self.rules.after_out != "finish" or up[0] == up[1]:
            return out
        winner = 0 if up[0] else 1
        hitter = next(e for e, (s, side) in enumerate(zip(status, sides)) if side == winner and s == markov.UP)
        for e, (lab, side) in enumerate(zip(labels, sides)):
            if side == winner:
                continue
            dying = _finish(self.rules, self.types[self.slot_type[hitter]][0], self.types[self.slot_type[e]][0],
                            self.tracks[self.slot_type[e]], lab)
            grown = []
            for st, q in out:
                for level, p in ((st[e], 1.0 - dying), (markov.DYING, dying)):
                    if p > 0:
                        grown.append((st[:e] + [level] + st[e + 1:], q * p))
            out = grown
        return out

    def _listed(self, statuses: list[int]) -> list[int]:
        """Slot statuses in the sides' listed order; identical fighters worst first."""
        by_type: dict[int, list[int]] = {}
        for t, s in zip(self.slot_type, statuses):
            by_type.setdefault(int(t), []).append(s)
        for v in by_type.values():
            v.sort(reverse=True)
        out = []
        for side, fighters in enumerate(self.sides):
            for f in fighters:
                t = next(k for k, (g, sd, _) in enumerate(self.types) if g == f and sd == side)
                out.append(by_type[t].pop(0))
        return out


def _words(widths: list[int]) -> int:
    """Words the packing of fields of these widths takes (a field never straddles two)."""
    words, used = 1, 0
    for w in widths:
        if used + w > 63:
            words, used = words + 1, 0
        used += w
    return words


@lru_cache(maxsize=None)
def _weak_orders(members: tuple[int, ...]) -> list[tuple[tuple[int, ...], ...]]:
    """Every weak order of ``members``: sequences of blocks (the first block acts first, a block together)."""
    if not members:
        return [()]
    out = []
    for size in range(1, len(members) + 1):
        for block in combinations(members, size):
            rest = tuple(m for m in members if m not in block)
            out += [(block,) + tail for tail in _weak_orders(rest)]
    return out


def _order_p(pmf: np.ndarray, blocks_: tuple[tuple[int, ...], ...]) -> float:
    """P(the initiatives fall in these blocks, each block equal, blocks strictly descending), over the values
    (descending) whose probabilities per slot are ``pmf``."""
    dp = np.zeros(len(blocks_) + 1)
    dp[0] = 1.0
    for v in range(pmf.shape[1]):
        for j in range(len(blocks_), 0, -1):
            dp[j] += dp[j - 1] * float(np.prod(pmf[list(blocks_[j - 1]), v]))
    return float(dp[-1])


@lru_cache(maxsize=4096)
def _outcomes(rules: Rules, att: Fighter, dfn: Fighter, defense: str, defenses: int) -> list[tuple]:
    """One attack's outcomes as (probability, damage, object destroyed, a defense roll made, knocked out by the
    shock stand-in), alike ones merged."""
    shock = dfn.stats(rules)[2] // rules.shock_divisor
    fails = _body_fails(rules, dfn.body) if rules.shock_rule else 0.0
    merged: dict[tuple, float] = {}
    for o in attack_outcomes(rules, att, dfn, defense, None, defenses):
        rolled = int(o.kind != "miss" and not o.critical)
        split = ((1, fails), (0, 1.0 - fails)) if rules.shock_rule and o.damage > shock else ((0, 1.0),)
        for knocked, q in split:
            key = (o.damage, int(o.breaks), rolled, knocked)
            if q * o.p > 0:
                merged[key] = merged.get(key, 0.0) + q * o.p
    return [(p, *key) for key, p in merged.items()]


@lru_cache(maxsize=4096)
def _finish(rules: Rules, att: Fighter, victim: Fighter, t: markov.Track, label: int) -> float:
    """P(a helpless victim at ``label`` ends at the lethal level or worse after at most ``finish_attacks`` attacks
    of ``att`` until it gets there)."""
    target = min(markov.LETHAL[rules.lethal_at], t.deepest)
    vec = {label: 1.0}
    for _ in range(rules.finish_attacks):
        nxt: dict[int, float] = {}
        for k, p in vec.items():
            if t.status[k] >= target:
                nxt[k] = nxt.get(k, 0.0) + p
                continue
            for br in branches(rules, att, victim, t.labels[k], t):
                nxt[br.condition] = nxt.get(br.condition, 0.0) + p * br.p
        vec = nxt
    return sum(p for k, p in vec.items() if t.status[k] >= target)
