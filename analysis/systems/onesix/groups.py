"""2K group fights, N against M (RULES.md section 7), solved exactly where small.

``group_timing = "economy"`` (the default) is the duel's IN economy with every
fighter (see :mod:`sims.onesix_groups`): one against one it is the duel, and
:func:`group` hands it to :func:`analysis.systems.onesix.duel.duel`; with more
fighters its state (every fighter's condition, its carry and, inside a round,
its IN) is far past any memory (:func:`economy_states`: two billion states for
a trained fighter against two novices), so it is refused in one line naming
the size and the Monte Carlo alternative.

``"order"`` and ``"average"`` are per round, so a state between rounds is
every fighter's condition.  Each round every able fighter gets a key (order:
IN = reflexes + 1K - penalty, the 1K under ``in_die``; average: reflexes +
``average_in_bonus`` - penalty); the fighters act in descending key, equal
keys at once.  At its moment each picks an able enemy by its ``target`` policy
(``weakest``: the highest penalty, then the most Wounds; ties by listed
order), and the attacks of the moment land one after another in listed order,
every test at the penalties of the moment.  A defender parries the first
attack on it in the round (its policy, a defense rating), never a simultaneous
attack unless ``simultaneous_parry``.  A hit that costs an action (stopping
effect, pain shock) takes the attack of a fighter who has not acted yet this
round.  No IN is spent and no weapon breaks (gear faults are the economy's).
The fight ends when a side has nobody able; under ``after_out = "finish"`` the
first able winner in listed order makes ``finish_attacks`` unopposed attacks
on each helpless loser in listed order until ``lethal_at``.

>>> from analysis.systems.onesix import Fighter, Rules
>>> knife = Fighter(attack_rating=10, weapon_ps=5, weapon_class="wound")
>>> s = group(Rules(group_timing="average"), [knife], [Fighter()] * 2).solution
>>> round(s.p_a_wins + s.p_b_wins + s.p_both_out + s.p_stalemate, 12)
1.0
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from analysis.base.params import DicelabError
from analysis.engine import groups as engine_groups
from analysis.engine.combat import describe_fighter
from analysis.engine.explore import explore
from analysis.engine.game import evaluate
from analysis.engine.markov import DEAD, DYING, OUT, UP
from analysis.systems.onesix import rules as six
from analysis.systems.onesix.duel import duel

MAX_STATES = 3_000_000
"""The exact chain stops past this many states (:func:`group_states` and the budget refuse far earlier)."""
Cond = tuple[int, int, int]


@lru_cache(maxsize=4096)
def orders(rules: six.Rules, offsets: tuple[int, ...]) -> tuple[tuple[tuple[tuple[int, ...], ...], float], ...]:
    """Every order of fighters whose keys are ``offsets[i] + 1K`` (``in_die``), as tie groups from the highest key
    down (indices ascending within a group), with its probability.

    >>> [(part, round(p, 6)) for part, p in orders(six.Rules(in_die="d6"), (1, 0))]
    [(((0,), (1,)), 0.583333), (((0, 1),), 0.138889), (((1,), (0,)), 0.277778)]
    """
    k = six.in_die(rules)
    pmf = [dict(zip((o + k.support).tolist(), k.p.tolist())) for o in offsets]
    values = sorted({v for m in pmf for v in m}, reverse=True)
    n = len(offsets)
    dp: dict[tuple[tuple[int, ...], ...], float] = {(): 1.0}
    for x in values:
        new = dict(dp)
        for part, q in dp.items():
            done = {i for g in part for i in g}
            here = [i for i in range(n) if i not in done and x in pmf[i]]
            for mask in range(1, 1 << len(here)):
                group = tuple(i for b, i in enumerate(here) if mask >> b & 1)
                key = part + (group,)
                new[key] = new.get(key, 0.0) + q * math.prod(pmf[i][x] for i in group)
        dp = new
    return tuple(sorted((part, p) for part, p in dp.items() if sum(map(len, part)) == n and p > 0))


def keyed(keys: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """The tie groups of fixed keys, from the highest down (indices ascending within a group).

    >>> keyed([11, 14, 11])
    ((1,), (0, 2))
    """
    return tuple(tuple(i for i, k in enumerate(keys) if k == v) for v in sorted(set(keys), reverse=True))


class Fight:
    """One group fight's fixed data and its memos: the fighters (side A's, then B's) and the ruleset."""

    def __init__(self, rules: six.Rules, side_a: Sequence[six.Fighter], side_b: Sequence[six.Fighter]):
        self.rules = rules
        self.fighters = tuple(side_a) + tuple(side_b)
        self.na = len(side_a)
        self.side = tuple(int(i >= self.na) for i in range(len(self.fighters)))
        self.spread = any(f.target == "spread" for f in self.fighters)
        self.settled = {OUT: (0, rules.track_length + 1, 0), DYING: (rules.track_length + 1, 0, 0),
                        DEAD: (rules.death, 0, 0)}
        self.memo: dict[tuple, Any] = {}

    def status(self, c: Cond) -> int:
        return six.status(self.rules, c)

    def up(self, conds: tuple[Cond, ...], i: int) -> bool:
        return self.status(conds[i]) == UP

    def able(self, conds: tuple[Cond, ...], s: int) -> bool:
        return any(self.up(conds, i) for i in range(len(conds)) if self.side[i] == s)

    def settle(self, c: Cond) -> Cond:
        """A condition as the chain keeps it: under ``after_out = "stop"`` an out fighter's level only."""
        level = self.status(c)
        return c if level == UP or self.rules.after_out == "finish" else self.settled[level]

    def targets(self, i: int, conds: tuple[Cond, ...], counts: tuple[int, ...]) -> list[tuple[float, int]]:
        """Whom fighter ``i`` attacks: (probability, enemy) over the able enemies, by its ``target`` policy."""
        able = [j for j in range(len(conds)) if self.side[j] != self.side[i] and self.up(conds, j)]
        policy = self.fighters[i].target
        if policy == "random":
            return [(1.0 / len(able), j) for j in able]
        key = {"weakest": lambda j: (-max(conds[j][0], conds[j][1]), -conds[j][0], j),
               "strongest": lambda j: (-self.fighters[j].attack_rating, j),
               "spread": lambda j: (counts[j], j)}[policy]
        return [(1.0, min(able, key=key))]

    def attack(self, i: int, j: int, pen_i: int, pen_j: int, cj: Cond, parry: bool) -> list[tuple[float, Cond, bool]]:
        """Fighter ``i`` (penalty ``pen_i``) attacks ``j`` (penalty ``pen_j``, condition ``cj``): [(p, ``j``'s
        condition after, whether the hit cost ``j`` an action)]."""
        key = ("attack", i, j, pen_i, pen_j, cj, parry)
        if key not in self.memo:
            from analysis.systems.onesix.steps import struck  # numba loads only for a group fight

            r, att, dfn = self.rules, self.fighters[i], self.fighters[j]
            p_miss, p_def, levels, cls, step, probs = six._outcomes(r, att, dfn, pen_i, pen_j, cj[2], parry)
            out = [(p_miss + p_def, cj, False)]
            for lv, c, st, q in zip(levels.tolist(), cls.tolist(), step.tolist(), probs.tolist()):
                hit = struck(r, dfn, cj, lv, c, st)
                out.append((q, hit.condition, (hit.stopping or hit.pain) and r.action_lost > 0))
            self.memo[key] = out
        return self.memo[key]


def _moment(fight: Fight, state: tuple) -> dict[tuple, float]:
    """The tie group ``g`` of the round's order acts: targets picked, the attacks landed in listed order."""
    _, conds, part, g, lost, parried, counts = state
    group = part[g]
    actors = [i for i in group if fight.up(conds, i) and not lost[i]]
    later = {i for grp in part[g + 1:] for i in grp}
    pens = [max(c[0], c[1]) for c in conds]
    picks: list[tuple[float, tuple[int, ...], tuple[int, ...]]] = [(1.0, (), counts)]
    for i in actors:
        picks = [(q * qq, tg + (j,), cts[:j] + (cts[j] + 1,) + cts[j + 1:] if cts else cts)
                 for q, tg, cts in picks for qq, j in fight.targets(i, conds, cts)]
    out: dict[tuple, float] = {}
    for q, tg, cts in picks:
        dist = {(conds, lost, parried): q}
        for i, j in zip(actors, tg):
            new: dict[tuple, float] = {}
            for (c, lo, pa), w in dist.items():
                parry = fight.fighters[j].parries() and not pa[j] and (j not in actors or fight.rules.simultaneous_parry)
                pa2 = pa[:j] + (True,) + pa[j + 1:] if parry else pa
                for p, cj, lose in fight.attack(i, j, pens[i], pens[j], c[j], parry):
                    lo2 = lo[:j] + (True,) + lo[j + 1:] if lose and j in later else lo
                    key = (c[:j] + (cj,) + c[j + 1:], lo2, pa2)
                    new[key] = new.get(key, 0.0) + w * p
            dist = new
        for (c, lo, pa), w in dist.items():
            c = tuple(fight.settle(x) for x in c)
            for key, p in _after(fight, c, part, g + 1, lo, pa, cts).items():
                out[key] = out.get(key, 0.0) + w * p
    return out


def _after(fight: Fight, conds: tuple[Cond, ...], part: tuple, g: int, lost: tuple, parried: tuple,
           counts: tuple) -> dict[tuple, float]:
    """The next moment with someone to act, a new round, or the fight's end."""
    if not (fight.able(conds, 0) and fight.able(conds, 1)):
        return _end(fight, conds)
    while g < len(part) and not any(fight.up(conds, i) and not lost[i] for i in part[g]):
        g += 1
    if g == len(part):
        return {("round", conds): 1.0}
    return {("mid", conds, part, g, lost, parried, counts): 1.0}


def _round(fight: Fight, conds: tuple[Cond, ...]) -> dict[tuple, float]:
    """A new round: every able fighter's key, the order of play it gives, the first moment."""
    r, n = fight.rules, len(conds)
    ups = [i for i in range(n) if fight.up(conds, i)]
    pens = [max(conds[i][0], conds[i][1]) for i in ups]
    if r.group_timing == "average":
        parts = [(keyed([fight.fighters[i].average_in(r) - p for i, p in zip(ups, pens)]), 1.0)]
    else:
        parts = list(orders(r, tuple(fight.fighters[i].total_reflexes() - p for i, p in zip(ups, pens))))
    flags = (False,) * n
    counts = (0,) * n if fight.spread else ()
    out: dict[tuple, float] = {}
    for part, q in parts:
        order = tuple(tuple(ups[k] for k in grp) for grp in part)
        for key, p in _after(fight, conds, order, 0, flags, flags, counts).items():
            out[key] = out.get(key, 0.0) + q * p
    return out


def _end(fight: Fight, conds: tuple[Cond, ...]) -> dict[tuple, float]:
    """The fight's final levels (every fighter, listed order), after the finishing attacks under ``finish``."""
    key = ("end", conds)
    if key in fight.memo:
        return fight.memo[key]
    r = fight.rules
    dist = {conds: 1.0}
    able = (fight.able(conds, 0), fight.able(conds, 1))
    if r.after_out == "finish" and able[0] != able[1]:
        w = next(i for i in range(len(conds)) if fight.up(conds, i))
        pen = max(conds[w][0], conds[w][1])
        for v in range(len(conds)):
            if fight.side[v] == fight.side[w]:
                continue
            track = six.track(r, fight.fighters[v])
            k = _finishing(r, fight.fighters[w], fight.fighters[v], pen)
            dist = engine_groups.strike_helpless(dist, v, k, track.index, track.labels)
    out = engine_groups.final_levels(dist, lambda i, c: fight.status(c))
    fight.memo[key] = out
    return out


@lru_cache(maxsize=256)
def _finishing(rules: six.Rules, att: six.Fighter, dfn: six.Fighter, pen: int) -> np.ndarray:
    """``finish_attacks`` unopposed attacks of ``att`` (penalty ``pen``) over the helpless ``dfn``'s track (dense)."""
    return np.linalg.matrix_power(six.helpless_kernels(rules, att, dfn)[pen].toarray(), rules.finish_attacks)


def _step(fight: Fight, state: tuple) -> Any:
    """The group chain's step (see :func:`analysis.engine.explore.explore`): a round's order, then one moment at a
    time."""
    if state[0] == "end":
        return None
    moves = _round(fight, state[1]) if state[0] == "round" else _moment(fight, state)
    return 1, 1, [list((q, key) for key, q in moves.items())]


def reachable(rules: six.Rules, f: six.Fighter, enemies: Sequence[six.Fighter]) -> tuple[int, int]:
    """(up, not up) conditions of ``f`` that hits of ``enemies`` can reach (any penalty, parried or not)."""
    from analysis.systems.onesix.steps import struck  # numba loads only for a group fight

    hits = set()
    for e in set(enemies):
        for parry in {False, f.parries()}:
            for pen in range(rules.track_length + 1):
                _, _, levels, cls, step, _ = six._outcomes(rules, e, f, pen, 0, 0, parry)
                hits |= set(zip(levels.tolist(), cls.tolist(), step.tolist()))
    seen, todo = {six.UNHURT}, [six.UNHURT]
    while todo:
        c = todo.pop()
        if six.status(rules, c) != UP:
            continue
        for lv, cl, st in hits:
            nxt = struck(rules, f, c, lv, cl, st).condition
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    up = sum(six.status(rules, c) == UP for c in seen)
    down = len(seen) - up if rules.after_out == "finish" else len({six.status(rules, c) for c in seen} - {UP})
    return up, down


def economy_states(rules: six.Rules, side_a: Sequence[six.Fighter], side_b: Sequence[six.Fighter]) -> int:
    """The states an exact group chain under ``group_timing = economy`` would need: every fighter's reachable
    conditions times its carry, times the IN values a round passes through (a lower bound on its in-round part).

    >>> economy_states(six.Rules(), [six.Fighter()], [six.Fighter()] * 2) > 10**9
    True
    """
    from analysis.systems.onesix.steps import _x_bounds  # numba loads only for a group fight

    fighters = tuple(side_a) + tuple(side_b)
    per = [reachable(rules, f, side_b if i < len(side_a) else side_a) for i, f in enumerate(fighters)]
    carries = rules.carry_cap - rules.carry_floor + 1
    lo, hi = _x_bounds(rules, fighters[0], fighters[-1])
    return int(math.prod((up * carries + down) for up, down in per) * (hi - lo + 1))


def refuse_economy(rules: six.Rules, side_a: Sequence[six.Fighter], side_b: Sequence[six.Fighter]) -> None:
    """Refuse an exact group fight under the economy past one against one (see the module docstring)."""
    raise DicelabError(f"an exact onesix group fight of {len(side_a)} against {len(side_b)} under group_timing = "
                       f"economy is too large: about {economy_states(rules, side_a, side_b):,} states (every "
                       "fighter's condition, carry and IN); allowed: one against one, group_timing = order or "
                       "average, or the Monte Carlo dicelab sim (any size, flat memory)")


def group_states(rules: six.Rules, side_a: Sequence[six.Fighter], side_b: Sequence[six.Fighter]) -> int:
    """An upper estimate of the exact group chain's states under ``group_timing = order`` or ``average``, without
    building it: every fighter's reachable conditions (:func:`reachable`), times the moments of a round (the
    fighters) and their flags (lost attack, parry made: 4 per fighter, and the attacks of the round with a
    ``spread`` fighter).  Under the economy past one against one: the refusal of :func:`refuse_economy`.

    >>> group_states(six.Rules(group_timing="average"), [six.Fighter()], [six.Fighter()] * 2) < 10**7
    True
    """
    if rules.group_timing == "economy":
        refuse_economy(rules, side_a, side_b)
    fighters = tuple(side_a) + tuple(side_b)
    na, nf = len(side_a), len(fighters)
    per = [reachable(rules, f, side_b if i < na else side_a) for i, f in enumerate(fighters)]
    spread = (nf + 1) ** nf if any(f.target == "spread" for f in fighters) else 1
    return int(math.prod(up + down for up, down in per) * (1 + nf * 4 ** nf * spread))


def chain_group(rules: six.Rules, side_a: Sequence[six.Fighter], side_b: Sequence[six.Fighter],
                max_states: int = MAX_STATES) -> engine_groups.GroupResult:
    """The group chain under ``group_timing = order`` or ``average`` (one against one included), walked moment by
    moment."""
    if rules.group_timing == "economy":
        refuse_economy(rules, side_a, side_b)
    fight = Fight(rules, side_a, side_b)
    start = ("round", (six.UNHURT,) * len(fight.fighters))
    ex = explore(start, lambda s: _step(fight, s), round_start=lambda s: s[0] == "round", max_states=max_states)
    got = evaluate(ex.game, ex.game.book("a"), ex.game.book("b"))
    ends = np.array([ex.labels[i][1] for i in np.flatnonzero(ex.game.ends)], dtype=np.int64).reshape(
        -1, len(fight.fighters))
    sol = engine_groups.group_solution(got, ends, len(side_a), [f.name for f in side_a], [f.name for f in side_b],
                                       ex.game.n)
    return engine_groups.GroupResult("onesix", rules.to_dict(), tuple(describe_fighter(f, rules) for f in side_a),
                                     tuple(describe_fighter(f, rules) for f in side_b), describe_order(rules), sol)


def describe_order(rules: six.Rules) -> str:
    """The group rules in force, in words."""
    if rules.group_timing == "economy":
        head = ("group_timing = economy: the duel's IN economy with every fighter (the highest IN not out acts, "
                "equal IN at once; each parry 3 IN and in time; each parry lowers the defender's IN, so a second "
                "attack of one moment usually finds it too late)")
    else:
        key = ("IN = reflexes + 1K - penalty" if rules.group_timing == "order" else
               f"average IN = reflexes + {rules.average_in_bonus} - penalty")
        parry = "a simultaneous one too (simultaneous_parry)" if rules.simultaneous_parry else "never a simultaneous one"
        head = (f"group_timing = {rules.group_timing}: each round every able fighter's key is {key}; descending, equal "
                f"keys at once; one attack each, at most one parry a round (the first attack on it, {parry}); a hit "
                "that costs an action takes the attack of one who has not acted yet; no IN spent, no weapon breaks")
    parts = [head, "each picks an able enemy by its target policy from the state of its moment; the attacks of one "
             "moment land in listed order, every test at the penalties of the moment; out fighters are not "
             "attacked while their side can act"]
    if rules.after_out == "finish":
        parts.append(f"after_out = finish: the first able winner in listed order makes unopposed attacks on each "
                     f"helpless loser in listed order, until {rules.lethal_at} or {rules.finish_attacks} attacks each")
    return "; ".join(parts)


def group(rules: six.Rules, side_a: Sequence[six.Fighter], side_b: Sequence[six.Fighter]) -> engine_groups.GroupResult:
    """A group fight solved exactly (see the module docstring); one against one under the economy is the duel.

    >>> f, g = six.Fighter(attack_rating=10, weapon_ps=5, weapon_class="wound"), six.Fighter()
    >>> group(six.Rules(), [f], [g]).solution.p_a_wins == duel(six.Rules(), f, g).solution.p_a_wins
    True
    """
    side_a, side_b = tuple(side_a), tuple(side_b)
    if not side_a or not side_b:
        raise DicelabError(f"a side = {len(side_a)} and {len(side_b)} fighters is not allowed; allowed: at least one "
                           "fighter a side")
    if len(side_a) == 1 and len(side_b) == 1 and rules.group_timing == "economy":
        d = duel(rules, side_a[0], side_b[0])
        return engine_groups.GroupResult("onesix", d.variants, (d.a,), (d.b,), d.order,
                                         engine_groups.from_duel(d.solution, side_a[0].name, side_b[0].name),
                                         extra=dict(d.extra))
    return chain_group(rules, side_a, side_b)
