"""К.У.Р.С. group fights, N against M (RULES.md section 7), solved exactly where small.

The order of play is fixed at the start by a 3dK + agility roll-off, ties
re-rolled among the tied (with ``surprise`` and ``surprise_first`` the
surprising side's fighters come first, each side ordered by the roll-off);
copies of one fighter on one side are numbered by their place.  A round is
one turn of every able fighter in that order; each turn is one manoeuvre:
the fighter's stance is declared (its price paid), then it attacks one able
enemy chosen by its ``target`` policy.  Every opposed attack is a defense of
its target; each defense after the first since the defender's last turn (or
since the fight's start, before its first) takes a cumulative
-``extra_defense_penalty``; a one-sided attack (a surprise, on a fighter in
``no_defense``) asks no defense and is not counted.  Out fighters are not
attacked while anyone on their side can act.  The fight ends when a side has
nobody able; with ``after_out = "finish"`` each helpless loser, in listed
order, then takes up to ``finish_attacks`` one-sided attacks from the first
able winner in the order (its stance modifier and penalty of that moment), as
in the duel.

One against one is the duel: :func:`group` hands it to
:func:`analysis.systems.kurs.duel.duel`, and :func:`chain_group` (the group
chain itself) gives the same numbers.

>>> res = group(Rules(), [Fighter(attack_skill=2, weapon=3)], [Fighter(weapon=2)] * 2)
>>> s = res.solution
>>> round(s.p_a_wins + s.p_b_wins + s.p_both_out + s.p_stalemate, 12)
1.0
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from analysis.base.params import DicelabError
from analysis.engine import groups as engine_groups
from analysis.engine.combat import describe_fighter
from analysis.engine.explore import explore
from analysis.engine.game import evaluate
from analysis.engine.markov import DYING, OUT, UP
from analysis.systems.kurs.chain import attack_outcomes, helpless_matrix, side
from analysis.systems.kurs.duel import LUCK_NOTE, ONE_SIDED, duel, manoeuvre_notes, slips
from analysis.systems.kurs.rules import INCAPACITATED, LEVELS, Fighter, Rules, dice
from analysis.systems.kurs.track import DEAD_END, Condition, Turn, fresh, one_sided_on, status_of, turn

MAX_STATES = 3_000_000
"""The exact chain stops past this many states (:func:`group_states` refuses far earlier)."""
OUT_LABEL = Condition((0,) * INCAPACITATED + (1, 0))
"""The one out condition kept under ``after_out = "stop"`` (its boxes no longer matter)."""


@lru_cache(maxsize=256)
def _ranks(rules: Rules, agility: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every order of fighters with these agilities (indices, first to last) and its probability: each rolls
    ``dice_count`` dK + agility, highest first; the tied re-roll among themselves (again and again)."""
    n = len(agility)
    if n == 1:
        return (((0,), 1.0),)
    r = dice(rules)
    faces = [(int(v), float(p)) for v, p in zip(r.support, r.p) if p > 0]
    out: dict[tuple[int, ...], float] = {}
    stay = 0.0
    for combo in itertools.product(faces, repeat=n):
        p = math.prod(q for _, q in combo)
        totals = [v + agility[i] for i, (v, _) in enumerate(combo)]
        classes = sorted(set(totals), reverse=True)
        if len(classes) == 1:
            stay += p
            continue
        parts = [[i for i in range(n) if totals[i] == v] for v in classes]
        subs = [_ranks(rules, tuple(agility[i] for i in part)) for part in parts]
        for pick in itertools.product(*subs):
            order = tuple(part[k] for part, (perm, _) in zip(parts, pick) for k in perm)
            out[order] = out.get(order, 0.0) + p * math.prod(q for _, q in pick)
    if not out:  # a one-valued dK and equal agility: every order alike
        return tuple((perm, 1.0 / math.factorial(n)) for perm in itertools.permutations(range(n)))
    return tuple((order, p / (1.0 - stay)) for order, p in sorted(out.items()))


def orders(rules: Rules, side_a: Sequence[Fighter], side_b: Sequence[Fighter]) -> list[tuple[float, tuple[int, ...]]]:
    """Every order of play (fighter indices, side A's first in listed order) with its probability (see the module
    docstring); copies of one fighter on one side numbered by their place.

    >>> [(round(p, 12), order) for p, order in orders(Rules(), [Fighter()], [Fighter(), Fighter()])]
    [(0.333333333333, (0, 1, 2)), (0.333333333333, (1, 0, 2)), (0.333333333333, (1, 2, 0))]
    >>> orders(Rules(surprise="b"), [Fighter()], [Fighter(), Fighter()])
    [(1.0, (1, 2, 0))]
    """
    fighters = tuple(side_a) + tuple(side_b)
    na = len(side_a)
    blocks = [list(range(len(fighters)))]
    if rules.surprise != "none" and rules.surprise_first:
        first = list(range(na)) if rules.surprise == "a" else list(range(na, len(fighters)))
        blocks = [first, [i for i in range(len(fighters)) if i not in first]]
    per_block = []
    for block in blocks:
        if not block:
            continue
        ranked = _ranks(rules, tuple(fighters[i].agility for i in block))
        per_block.append([(p, tuple(block[k] for k in perm)) for perm, p in ranked])
    kinds = [(i >= na, f) for i, f in enumerate(fighters)]
    out: dict[tuple[int, ...], float] = {}
    for combo in itertools.product(*per_block):
        order = engine_groups.number_copies(tuple(i for _, perm in combo for i in perm), kinds)
        out[order] = out.get(order, 0.0) + math.prod(p for p, _ in combo)
    return sorted(((p, order) for order, p in out.items()), key=lambda x: x[1])


def weakness(c: Any) -> tuple[int, ...]:
    """How badly hurt a condition is, for ``target = "weakest"``: the boxes marked per level, heaviest first (the
    most severe marked box, compared from the heaviest level down; larger is weaker)."""
    return tuple(reversed(c.boxes))


class Fight:
    """One group fight's fixed data: the fighters (side A's, then B's), who surprises, the orders of play."""

    def __init__(self, rules: Rules, side_a: Sequence[Fighter], side_b: Sequence[Fighter]):
        self.rules = rules
        self.fighters = tuple(side_a) + tuple(side_b)
        self.na = len(side_a)
        self.side = tuple(0 if i < self.na else 1 for i in range(len(self.fighters)))
        self.who = tuple("ab"[s] for s in self.side)
        self.members = (range(self.na), range(self.na, len(self.fighters)))
        self.orders = orders(rules, side_a, side_b)
        self.spread = any(f.target == "spread" for f in self.fighters)
        self.memo: dict[tuple, Any] = {}

    def up(self, cond: tuple, i: int) -> bool:
        return cond[i] is not DEAD_END and cond[i].boxes[INCAPACITATED] == 0

    def able(self, cond: tuple, s: int) -> bool:
        return any(cond[i] is not DEAD_END and cond[i].boxes[INCAPACITATED] == 0 for i in self.members[s])

    def targets(self, i: int, cond: tuple, counts: tuple) -> list[tuple[float, int]]:
        """Whom fighter ``i`` attacks: (probability, enemy) over the able enemies, by its ``target`` policy."""
        able = [j for j in range(len(cond)) if self.side[j] != self.side[i] and self.up(cond, j)]
        policy = self.fighters[i].target
        if policy == "random":
            return [(1.0 / len(able), j) for j in able]
        key = {"weakest": lambda j: tuple(-k for k in weakness(cond[j])) + (j,),
               "strongest": lambda j: (-self.fighters[j].attack_skill, j),
               "spread": lambda j: (counts[j], j)}[policy]
        return [(1.0, min(able, key=key))]

    def settle(self, c: Any) -> Any:
        """A fighter's condition as the chain keeps it: out conditions merged under ``after_out = "stop"``."""
        if self.rules.after_out == "stop" and status_of(c) == OUT:
            return OUT_LABEL
        return c


def _turn(fight: Fight, oid: int, pos: int, cond: tuple, defs: tuple, counts: tuple) -> dict[tuple, float]:
    """Fighter ``order[pos]``'s turn: its stance declared, its defenses reset, one attack on its target."""
    i = fight.orders[oid][1][pos]
    defs = defs[:i] + (0,) + defs[i + 1:]
    out: dict[tuple, float] = {}
    for q, j in fight.targets(i, cond, counts):
        hit_counts = counts[:j] + (counts[j] + 1,) + counts[j + 1:] if counts else counts
        counted, moves = _attack(fight, i, j, cond[i], cond[j], defs[j])
        hit_defs = defs[:j] + (defs[j] + counted,) + defs[j + 1:]
        for p, mine, yours, up in moves:
            c = cond[:i] + (mine,) + cond[i + 1:]
            c = c[:j] + (yours,) + c[j + 1:]
            d = hit_defs if up else hit_defs[:j] + (0,) + hit_defs[j + 1:]
            for key, w in _next(fight, oid, pos + 1, c, d, hit_counts).items():
                out[key] = out.get(key, 0.0) + q * p * w
    return out


def _attack(fight: Fight, i: int, j: int, ci: Any, cj: Any, defs: int) -> tuple[int, list[tuple[float, Any, Any, bool]]]:
    """Fighter ``i`` (condition ``ci``) attacks ``j`` (``cj``, ``defs`` defenses since its turn): (1 when it is a
    defense, [(p, ``i``'s condition after, ``j``'s, ``j`` still up)])."""
    key = ("attack", i, j, ci, cj, defs)
    if key not in fight.memo:
        r, f, g = fight.rules, fight.fighters[i], fight.fighters[j]
        t, after = turn(r, f.stance, ci)
        one_sided = one_sided_on(t, g, cj)
        extra = 0 if one_sided else r.extra_defense_penalty * defs
        moves = [(p, after._replace(tokens=after.tokens - luck_a), fight.settle(nxt), status_of(nxt) == UP)
                 for p, _, _, nxt, luck_a in attack_outcomes(r, f, g, t._replace(mod=t.mod + extra), cj)]
        fight.memo[key] = (int(not one_sided), moves)
    return fight.memo[key]


def _next(fight: Fight, oid: int, pos: int, cond: tuple, defs: tuple, counts: tuple) -> dict[tuple, float]:
    """The next turn from place ``pos`` of the order on (a new round past its end), or the fight's end."""
    if not (fight.able(cond, 0) and fight.able(cond, 1)):
        return _end(fight, oid, cond)
    order = fight.orders[oid][1]
    new = False
    while True:
        if pos == len(order):
            pos, new = 0, True
            counts = tuple(0 for _ in counts)
        if fight.up(cond, order[pos]):
            return {(oid, pos, new, cond, defs, counts): 1.0}
        pos += 1


def _end(fight: Fight, oid: int, cond: tuple) -> dict[tuple, float]:
    """The fight's final statuses (every fighter, listed order), after the finishing attacks when ``finish``."""
    key = ("end", oid, cond)
    if key not in fight.memo:
        fight.memo[key] = _final(fight, oid, cond)
    return fight.memo[key]


def _final(fight: Fight, oid: int, cond: tuple) -> dict[tuple, float]:
    r = fight.rules
    dist = {cond: 1.0}
    able = (fight.able(cond, 0), fight.able(cond, 1))
    if r.after_out == "finish" and able[0] != able[1]:
        w = next(i for i in fight.orders[oid][1] if fight.up(cond, i))
        t, _ = turn(r, fight.fighters[w].stance, cond[w])
        for v in range(len(cond)):
            if fight.side[v] == fight.side[w] or status_of(cond[v]) != OUT:
                continue
            track = side(r, fight.fighters[v].stance, r.surprise == fight.who[v]).track
            k = _finishing(r, fight.fighters[w], fight.fighters[v], fight.who[v], t)
            dist = engine_groups.strike_helpless(dist, v, k, track.index, track.labels)
    return engine_groups.final_levels(dist, lambda i, c: status_of(c))


@lru_cache(maxsize=256)
def _finishing(rules: Rules, att: Fighter, dfn: Fighter, dfn_who: str, t: Turn) -> np.ndarray:
    """``finish_attacks`` finishing attacks made with ``t`` over the helpless defender's track (dense)."""
    return np.linalg.matrix_power(helpless_matrix(rules, att, dfn, dfn_who, t).toarray(), rules.finish_attacks)


def _step(fight: Fight, state: tuple) -> Any:
    """The group chain's step (see :func:`analysis.engine.explore.explore`): one turn at a time."""
    if state[0] == "end":
        return None
    if state[0] == "start":
        r = fight.rules
        cond = tuple(fresh(r, r.surprise == w) for w in fight.who)
        defs = tuple(0 for _ in fight.fighters)
        counts = defs if fight.spread else ()
        out: dict[tuple, float] = {}
        for oid, (p, _) in enumerate(fight.orders):
            for key, q in _next(fight, oid, 0, cond, defs, counts).items():
                first = (key[0], key[1], True) + key[3:]
                out[first] = out.get(first, 0.0) + p * q
        return 1, 1, [list((q, key) for key, q in out.items())]
    oid, pos, _, cond, defs, counts = state
    return 1, 1, [[(q, key) for key, q in _turn(fight, oid, pos, cond, defs, counts).items()]]


def group_states(rules: Rules, side_a: Sequence[Fighter], side_b: Sequence[Fighter]) -> int:
    """An upper estimate of the exact group chain's states, without building it: orders x places x every fighter's
    conditions x its defenses since its turn (x the attacks of the round with a ``spread`` fighter).

    >>> group_states(Rules(), [Fighter()], [Fighter()] * 2)
    97519970
    """
    fighters = tuple(side_a) + tuple(side_b)
    na = len(side_a)
    per = []
    for i, f in enumerate(fighters):
        labels = side(rules, f.stance, rules.surprise == "ab"[i >= na]).track.labels
        n_up = sum(status_of(c) == UP for c in labels)
        n_enemies = len(side_b) if i < na else na
        n_end = len(labels) - n_up if rules.after_out == "finish" else 2
        per.append(n_up * (n_enemies + 1) + n_end)
    n_orders = math.factorial(len(fighters))
    spread = (len(fighters) + 1) ** len(fighters) if any(f.target == "spread" for f in fighters) else 1
    return int(n_orders * len(fighters) * 2 * math.prod(per) * spread + 2)


def chain_group(rules: Rules, side_a: Sequence[Fighter], side_b: Sequence[Fighter],
                max_states: int = MAX_STATES) -> engine_groups.GroupResult:
    """The group chain of any size (one against one included: the duel's numbers), walked turn by turn."""
    fight = Fight(rules, side_a, side_b)
    ex = explore(("start",), lambda s: _step(fight, s), round_start=lambda s: s[0] not in ("start", "end") and s[2],
                 max_states=max_states)
    got = evaluate(ex.game, ex.game.book("a"), ex.game.book("b"))
    ends = np.array([ex.labels[i][1] for i in np.flatnonzero(ex.game.ends)], dtype=np.int64).reshape(
        -1, len(fight.fighters))
    sol = engine_groups.group_solution(got, ends, len(side_a), [f.name for f in side_a], [f.name for f in side_b],
                                       ex.game.n)
    return engine_groups.GroupResult("kurs", rules.to_dict(), tuple(describe_fighter(f, rules) for f in side_a),
                                     tuple(describe_fighter(f, rules) for f in side_b), describe_order(fight), sol,
                                     extra={"warnings": _warnings(rules, side_a, side_b)})


def _warnings(rules: Rules, side_a: Sequence[Fighter], side_b: Sequence[Fighter]) -> list[str]:
    """The slips (:func:`~analysis.systems.kurs.duel.slips`) of every fighter of both sides, once each."""
    seen: list[str] = []
    for f in tuple(side_a) + tuple(side_b):
        for w in slips(rules, f, f):
            if w not in seen:
                seen.append(w)
    return seen


def describe_order(fight: Fight) -> str:
    """How the order was fixed, each order and the group rules in force, in words (fighters as A1, A2, B1...)."""
    r = fight.rules
    names = [f"{'AB'[s]}{1 + i - (fight.na if s else 0)}" for i, s in enumerate(fight.side)]
    first = (f"the surprising side {r.surprise.upper()} first, " if r.surprise != "none" and r.surprise_first else "")
    orders_text = " | ".join(f"{' '.join(names[i] for i in order)} ({p:.4g})" for p, order in fight.orders)
    parts = [f"order fixed at the start: {first}a {r.dice_count}dK + agility roll-off, ties re-rolled among the tied "
             f"(copies numbered by their place): {orders_text}",
             "a round = one turn of every able fighter; one attack per turn on the target its policy picks; each "
             f"defense after the first since the defender's own turn at a cumulative -{r.extra_defense_penalty} "
             "(one-sided attacks ask no defense); out fighters are not attacked while their side can act",
             LUCK_NOTE.format(b=r.luck_bonus) if r.luck_tokens else "no luck tokens",
             *manoeuvre_notes(r, {n: f for n, f in zip(names, fight.fighters)})]
    if r.after_out == "finish":
        parts.append(f"after_out = finish: the first able winner in the order makes {ONE_SIDED} attacks on each "
                     f"helpless loser in listed order, until «{LEVELS[-1]}» or {r.finish_attacks} attacks each")
    return "; ".join(parts)


def group(rules: Rules, side_a: Sequence[Fighter], side_b: Sequence[Fighter]) -> engine_groups.GroupResult:
    """A group fight solved exactly (see the module docstring); one against one is handed to the duel.

    >>> f, g = Fighter(attack_skill=1, weapon=2), Fighter(weapon=3)
    >>> group(Rules(), [f], [g]).solution.p_a_wins == duel(Rules(), f, g).solution.p_a_wins
    True
    """
    side_a, side_b = tuple(side_a), tuple(side_b)
    if not side_a or not side_b:
        raise DicelabError(f"a side = {len(side_a)} and {len(side_b)} fighters is not allowed; allowed: at least one "
                           "fighter a side")
    if len(side_a) == 1 and len(side_b) == 1:
        d = duel(rules, side_a[0], side_b[0])
        return engine_groups.GroupResult("kurs", d.variants, (d.a,), (d.b,), d.order,
                                         engine_groups.from_duel(d.solution, side_a[0].name, side_b[0].name),
                                         extra=dict(d.extra))
    return chain_group(rules, side_a, side_b)
