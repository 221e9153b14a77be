"""ТУН group fights, N against M (RULES.md section 7), solved exactly where small.

The order is fixed at the start (``turn_order``: by Body, a roll-off, or
Reaction then Body; ties by a roll-off, each arrangement equally likely).
Identical fighters on a side are numbered by their place in the order (the
roll-off among copies decides which is "listed first"), so only the
arrangements of distinct fighters count.  Each round is a list of turns
(:func:`round_events`): every fighter its ``actions_per_turn`` actions; a
fighter with ``turn_policy = "initiative_skip"`` not first in order skips round
1 and, with the other skippers in their order, leads from round 2 (one action
fewer then); a delaying fighter acts right after the first action of the next
fighter in order, which then finishes its turn (the last in order has nothing
to wait for; a wait for a skipper lasts to the round's end).  Every action
attacks one able enemy chosen by the attacker's ``target`` policy; Body
defense counts against every attack while its fighter defends.  A fighter put
out before its turn in the round (its turn in the list not yet come) speaks
its last word right after the turn that put it out, its actions at its own
target, each costing it ``last_word_trauma``.  The fight ends when a side has
nobody able to act; with ``after_out = "finish"`` each helpless loser, in
listed order, then takes up to ``finish_attacks`` attacks from the first able
winner in the order.  A turn whose fighter is already out passes (a fighter
waiting for it acts there).

One against one is the duel: :func:`group` hands it to
:func:`analysis.systems.tun.chain.duel`, and :func:`chain_group` (the group
chain itself) gives the same numbers.

>>> res = group(Rules(), [Fighter(body=4, attack_feature=9)], [Fighter(body=3, attack_feature=9)] * 2)
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
from analysis.systems.tun.chain import duel
from analysis.systems.tun.rules import (
    EFFECTS,
    HELPLESS,
    LAST_WORD,
    NORMAL,
    Fighter,
    Rules,
    acting,
    attack_limit,
    attack_outcomes,
    check_reach,
    effect_of,
    in_reach,
)

Event = tuple[int, int]
"""One turn (or part of one) in a round: (fighter, actions)."""
MAX_STATES = 3_000_000
"""The exact chain stops past this many states (:func:`group_states` refuses far earlier)."""


def order_keys(rules: Rules, f: Fighter) -> tuple[int, ...]:
    """What fixes a fighter's place in the order, highest first (equal keys: a roll-off)."""
    return {"body": (f.body,), "roll": (), "reaction": (f.reaction, f.body)}[rules.turn_order]


def orders(rules: Rules, fighters: Sequence[Fighter], sides: Sequence[int]) -> list[tuple[float, tuple[int, ...]]]:
    """Every order of play (fighter indices, first to last) with its probability: by the keys, ties in every
    arrangement alike; copies of one fighter on one side (``sides[i]``) numbered by their place (see the module
    docstring).

    >>> orders(Rules(), [Fighter(body=12), Fighter(body=10), Fighter(body=10, attack_feature=2)], [0, 1, 1])
    [(0.5, (0, 1, 2)), (0.5, (0, 2, 1))]
    >>> orders(Rules(), [Fighter(), Fighter(), Fighter()], [0, 1, 1])
    [(0.3333333333333333, (0, 1, 2)), (0.3333333333333333, (1, 0, 2)), (0.3333333333333333, (1, 2, 0))]
    """
    kinds = [(sides[i], f) for i, f in enumerate(fighters)]
    ranked = sorted(range(len(fighters)), key=lambda i: tuple(-k for k in order_keys(rules, fighters[i])))
    groups = [list(g) for _, g in itertools.groupby(ranked, key=lambda i: order_keys(rules, fighters[i]))]
    per_group = []
    for g in groups:
        counts: dict[tuple[int, ...], int] = {}
        for perm in itertools.permutations(g):
            canon = engine_groups.number_copies(perm, kinds)
            counts[canon] = counts.get(canon, 0) + 1
        total = sum(counts.values())
        per_group.append([(c / total, perm) for perm, c in counts.items()])
    out = []
    for combo in itertools.product(*per_group):
        out.append((math.prod(p for p, _ in combo), tuple(i for _, perm in combo for i in perm)))
    return sorted(out, key=lambda x: x[1])


def round_events(order: Sequence[int], actions: Sequence[int], delays: Sequence[bool]) -> tuple[Event, ...]:
    """The turns of one round: ``order`` (fighters, first to last), each fighter's ``actions`` this round (0: it
    skips), whether it delays.  A delaying fighter (not last) acts right after the first action of the next in
    order; waits for a skipper last to the end of the round.  Consecutive turns of one fighter merge.

    >>> round_events([0, 1], [2, 2], [True, False])
    ((1, 1), (0, 2), (1, 1))
    >>> round_events([0, 1], [2, 0], [True, False])
    ((1, 0), (0, 2))
    >>> round_events([0, 1, 2], [2, 2, 2], [True, True, False])
    ((2, 1), (1, 1), (0, 2), (1, 1), (2, 1))
    """
    waiting: dict[int, int] = {}
    events: list[Event] = []

    def act(f: int) -> None:
        if actions[f] == 0:
            events.append((f, 0))
            return
        events.append((f, 1))
        if f in waiting:
            act(waiting.pop(f))
        if actions[f] > 1:
            events.append((f, actions[f] - 1))

    for place, f in enumerate(order):
        if delays[f] and place < len(order) - 1 and actions[f] > 0:
            waiting[order[place + 1]] = f
        else:
            act(f)
    while waiting:
        awaited = next(f for f in order if f in waiting and f not in waiting.values())
        act(waiting.pop(awaited))
    merged: list[list[int]] = []
    for f, k in events:
        if merged and merged[-1][0] == f and k > 0 and merged[-1][1] > 0:
            merged[-1][1] += k
        else:
            merged.append([f, k])
    return tuple((f, k) for f, k in merged)


def rounds_of(rules: Rules, fighters: Sequence[Fighter], order: Sequence[int]) -> tuple[tuple[Event, ...], ...]:
    """The turns of round 1, 2, ... (the last listed repeats): skippers (not first in order) skip round 1 and lead
    from round 2 in their order, one action fewer in round 2 (``initiative_skip_cost``).

    >>> rounds_of(Rules(), [Fighter(), Fighter(turn_policy="initiative_skip")], [0, 1])
    (((0, 2), (1, 0)), ((1, 1), (0, 2)), ((1, 2), (0, 2)))
    """
    n = rules.actions_per_turn
    delays = [f.turn_policy == "delay" for f in fighters]
    skippers = [i for place, i in enumerate(order) if place > 0 and fighters[i].turn_policy == "initiative_skip"]
    if not skippers:
        return (round_events(order, [n] * len(fighters), delays),)
    first = round_events(order, [0 if i in skippers else n for i in range(len(fighters))], delays)
    later = skippers + [i for i in order if i not in skippers]
    second = round_events(later, [n - rules.initiative_skip_cost if i in skippers else n
                                  for i in range(len(fighters))], delays)
    rest = round_events(later, [n] * len(fighters), delays)
    return (first, second, rest) if rest != second else (first, second)


class Fight:
    """One group fight's fixed data: the fighters (side A's, then B's), their tracks and effect kinds, the attack
    tables, the orders and their rounds."""

    def __init__(self, rules: Rules, side_a: Sequence[Fighter], side_b: Sequence[Fighter]):
        self.rules = rules
        self.fighters = tuple(side_a) + tuple(side_b)
        self.na = len(side_a)
        self.side = tuple(0 if i < self.na else 1 for i in range(len(self.fighters)))
        self.vol = tuple(f.volume for f in self.fighters)
        self.cap = tuple(rules.death_multiple * f.volume + 1 for f in self.fighters)
        self.kinds = tuple(frozenset(k for j, g in enumerate(self.fighters) if self.side[j] != self.side[i]
                                     for k in [effect_of(rules, f, g)] if k) for i, f in enumerate(self.fighters))
        self.orders = orders(rules, self.fighters, self.side)
        self.rounds = tuple(rounds_of(rules, self.fighters, order) for _, order in self.orders)
        self.first_turn = tuple(tuple({f: min(e for e, (g, _) in enumerate(ev) if g == f) for f, _ in ev}
                                      for ev in rounds) for rounds in self.rounds)
        self.spread = any(f.target == "spread" for f in self.fighters)
        self.memo: dict[tuple, Any] = {}
        """Turn ends already worked out: (what, arguments) -> their distribution."""

    def enemies(self, i: int) -> list[int]:
        return [j for j in range(len(self.fighters)) if self.side[j] != self.side[i]]

    def up(self, cond: tuple, i: int) -> bool:
        return cond[i][0] < self.vol[i]

    def targets(self, i: int, cond: tuple, counts: tuple) -> list[tuple[float, int]]:
        """Whom fighter ``i`` attacks: (probability, enemy) over the able enemies, by its ``target`` policy."""
        able = [j for j in self.enemies(i) if self.up(cond, j)]
        if not able:
            return []
        policy = self.fighters[i].target
        if policy == "random":
            return [(1.0 / len(able), j) for j in able]
        key = {"weakest": lambda j: (self.vol[j] - cond[j][0], j),
               "strongest": lambda j: (-(self.fighters[j].body + self.fighters[j].attack_feature), j),
               "spread": lambda j: (counts[j] if counts else 0, j)}[policy]
        return [(1.0, min(able, key=key))]

    def attack(self, i: int, j: int, ci: tuple, cj: tuple, mode: str) -> tuple[float, tuple, bool]:
        """(P(miss), hits ((p, trauma), ...), reaches) of one attack of ``i`` (effects ``ci``) on ``j``."""
        return _attack(self.rules, self.fighters[i], self.fighters[j], ci[1], ci[2], cj[2], mode)

    def hit_effect(self, i: int, j: int, cj: tuple, stays_up: bool) -> tuple:
        """``j``'s effects after a hit of ``i`` (its aim's effect, per ``aim_effects``; a stun renews)."""
        kind = EFFECTS.get(self.fighters[i].aim) if self.rules.aim_effects != "none" else None
        if kind is None or kind not in self.kinds[j] or (self.rules.aim_effects == "while_up" and not stays_up):
            return cj
        t, dis, imm, stun = cj
        return {"disarm": (t, 1, imm, stun), "immobilise": (t, dis, 1, stun),
                "stun": (t, dis, imm, self.rules.stun_actions)}[kind]


@lru_cache(maxsize=4096)
def _attack(rules: Rules, att: Fighter, dfn: Fighter, dis: int, imm: int, imm_dfn: int,
            mode: str) -> tuple[float, tuple[tuple[float, int], ...], bool]:
    me = acting(acting(att, "disarm", dis), "immobilise", imm)
    you = acting(dfn, "immobilise", imm_dfn)
    miss, hits = attack_outcomes(rules, me.dice, me.weapon_n, me.weapon_b, attack_limit(rules, me, you, mode))
    merged: dict[int, float] = {}
    for p, d, _ in hits:
        merged[d] = merged.get(d, 0.0) + p
    return miss, tuple(sorted((p, d) for d, p in merged.items())), in_reach(rules, me)


def _act(fight: Fight, i: int, cond: tuple, counts: tuple, mode: str) -> list[tuple[float, tuple, tuple, int]]:
    """One action of fighter ``i``: [(p, conditions, counts, the enemy it put out or -1)]: lost if stunned, nothing
    out of reach or with no able enemy, else an attack on its target (a last word costs it its trauma)."""
    aims = fight.targets(i, cond, counts)
    if not aims:
        return []
    c = list(cond)
    t, dis, imm, stun = c[i]
    if stun > 0:
        c[i] = (t, dis, imm, stun - 1)
        return [(1.0, tuple(c), counts, -1)]
    out = []
    for q, j in aims:
        miss, hits, reaches = fight.attack(i, j, cond[i], cond[j], mode)
        if not reaches:
            out.append((q, cond, counts, -1))
            continue
        spent = list(c)
        if mode == LAST_WORD:
            spent[i] = (min(t + fight.rules.last_word_trauma, fight.cap[i]), dis, imm, stun)
        hit_counts = counts if not counts else tuple(n + (k == j) for k, n in enumerate(counts))
        if miss > 0:
            out.append((q * miss, tuple(spent), hit_counts, -1))
        for p, d in hits:
            hurt = list(spent)
            tj = min(cond[j][0] + d, fight.cap[j])
            hurt[j] = fight.hit_effect(i, j, (tj,) + cond[j][1:], tj < fight.vol[j])
            out.append((q * p, tuple(hurt), hit_counts, j if tj >= fight.vol[j] else -1))
    return out


def _settle(fight: Fight, cond: tuple) -> tuple:
    """Out fighters between turns: their effects dropped, and under ``after_out = "stop"`` their trauma reduced to
    what their level needs (out, or dying)."""
    if all(t < fight.vol[i] for i, (t, _, _, _) in enumerate(cond)):
        return cond
    c = []
    for i, (t, dis, imm, stun) in enumerate(cond):
        if t < fight.vol[i]:
            c.append((t, dis, imm, stun))
        elif fight.rules.after_out == "finish":
            c.append((t, 0, 0, 0))
        else:
            c.append((fight.vol[i] if t < fight.cap[i] else fight.cap[i], 0, 0, 0))
    return tuple(c)


def _last_words(fight: Fight, oid: int, rk: int, ev: int, pending: tuple[int, ...], cond: tuple,
                counts: tuple) -> dict[tuple, float]:
    """The last words of the fighters put out during turn ``ev`` before their own turn, in order of play (a
    speaker's actions may put out others, who speak too): distribution over (conditions, counts)."""
    order = fight.orders[oid][1]
    dist = {(tuple(sorted(pending, key=order.index)), cond, counts): 1.0}
    out: dict[tuple, float] = {}
    r = fight.rules
    while dist:
        nxt: dict[tuple, float] = {}
        for (queue, c, n), p in dist.items():
            if not queue:
                out[(c, n)] = out.get((c, n), 0.0) + p
                continue
            y, rest = queue[0], queue[1:]
            stage = {(c, n, rest): 1.0}
            if r.last_word and (r.dying_last_word or c[y][0] < fight.cap[y]):
                for _ in range(r.last_word_actions):
                    step: dict[tuple, float] = {}
                    for (c2, n2, q2), p2 in stage.items():
                        for p3, c3, n3, down in _act(fight, y, c2, n2, LAST_WORD) or [(1.0, c2, n2, -1)]:
                            late = down >= 0 and fight.first_turn[oid][rk].get(down, -1) > ev
                            key = (c3, n3, tuple(sorted(q2 + (down,), key=order.index)) if late else q2)
                            step[key] = step.get(key, 0.0) + p2 * p3
                    stage = step
            for (c2, n2, q2), p2 in stage.items():
                nxt[(q2, c2, n2)] = nxt.get((q2, c2, n2), 0.0) + p * p2
        dist = nxt
    return out


def _end(fight: Fight, oid: int, cond: tuple) -> dict[tuple, float]:
    """The fight's final statuses (every fighter, listed order), after the finishing attacks when ``finish``."""
    key = ("end", oid if fight.rules.after_out == "finish" else 0, cond)
    if key not in fight.memo:
        fight.memo[key] = _final(fight, oid, cond)
    return fight.memo[key]


def _final(fight: Fight, oid: int, cond: tuple) -> dict[tuple, float]:
    r = fight.rules
    able = [any(fight.up(cond, i) for i in range(len(cond)) if fight.side[i] == s) for s in (0, 1)]
    dist = {tuple(c[0] for c in cond): 1.0}
    if r.after_out == "finish" and able[0] != able[1]:
        w = next(i for i in fight.orders[oid][1] if fight.up(cond, i))
        att = acting(acting(fight.fighters[w], "disarm", cond[w][1]), "immobilise", cond[w][2])
        for v in range(len(cond)):
            if fight.up(cond, v) or fight.side[v] == fight.side[w]:
                continue
            miss, hits = attack_outcomes(r, att.dice, att.weapon_n, att.weapon_b,
                                         attack_limit(r, att, fight.fighters[v], HELPLESS))
            if not in_reach(r, att):
                miss, hits = 1.0, ()
            for _ in range(r.finish_attacks):
                new: dict[tuple, float] = {}
                for ts, p in dist.items():
                    if ts[v] >= fight.cap[v]:
                        new[ts] = new.get(ts, 0.0) + p
                        continue
                    for q, d in [(miss, 0)] + [(q, d) for q, d, _ in hits]:
                        t2 = ts[:v] + (min(ts[v] + d, fight.cap[v]),) + ts[v + 1:]
                        new[t2] = new.get(t2, 0.0) + p * q
                dist = new
    return engine_groups.final_levels(
        dist, lambda i, t: UP if t < fight.vol[i] else DYING if t >= fight.cap[i] else OUT)


def _step(fight: Fight, state: tuple) -> Any:
    """The group chain's step (see :func:`analysis.engine.explore.explore`): one action at a time."""
    if state[0] == "end":
        return None
    if state[0] == "start":
        fresh = tuple((0, 0, 0, 0) for _ in fight.fighters)
        zero = tuple(0 for _ in fight.fighters) if fight.spread else ()
        return 1, 1, [[(p, (oid, 0, 0, 0, (), zero, fresh)) for oid, (p, _) in enumerate(fight.orders)]]
    oid, rk, ev, j, pending, counts, cond = state
    f, k = fight.rounds[oid][rk][ev]
    acts = j < k and fight.up(cond, f) and any(fight.up(cond, e) for e in fight.enemies(f))
    if not acts:
        return 1, 1, [[(q, key) for key, q in _after(fight, oid, rk, ev, pending, cond, counts).items()]]
    out: dict[tuple, float] = {}
    for p, c2, n2, down in _act(fight, f, cond, counts, NORMAL):
        late = down >= 0 and fight.first_turn[oid][rk].get(down, -1) > ev
        queue = pending + (down,) if late else pending
        if j + 1 < k and any(fight.up(c2, e) for e in fight.enemies(f)):
            nxt = {(oid, rk, ev, j + 1, queue, n2, c2): 1.0}
        else:
            nxt = _after(fight, oid, rk, ev, queue, c2, n2)
        for key, q in nxt.items():
            out[key] = out.get(key, 0.0) + p * q
    return 1, 1, [[(q, key) for key, q in out.items()]]


def _after(fight: Fight, oid: int, rk: int, ev: int, pending: tuple, cond: tuple, counts: tuple) -> dict[tuple, float]:
    """After turn ``ev``: the last words, then the end of the fight, or the next turn (the next round's start)."""
    key = ("after", oid, rk, ev, pending, cond, counts)
    if key not in fight.memo:
        fight.memo[key] = _next_turn(fight, oid, rk, ev, pending, cond, counts)
    return fight.memo[key]


def _next_turn(fight: Fight, oid: int, rk: int, ev: int, pending: tuple, cond: tuple,
               counts: tuple) -> dict[tuple, float]:
    out: dict[tuple, float] = {}
    rounds = fight.rounds[oid]
    words = _last_words(fight, oid, rk, ev, pending, cond, counts) if pending else {(cond, counts): 1.0}
    for (c, n), p in words.items():
        c = _settle(fight, c)
        able = [any(fight.up(c, i) for i in range(len(c)) if fight.side[i] == s) for s in (0, 1)]
        if not (able[0] and able[1]):
            nxt = _end(fight, oid, c)
        elif ev + 1 < len(rounds[rk]):
            nxt = {(oid, rk, ev + 1, 0, (), n, c): 1.0}
        else:
            zero = tuple(0 for _ in n)
            nxt = {(oid, min(rk + 1, len(rounds) - 1), 0, 0, (), zero, c): 1.0}
        for key, q in nxt.items():
            out[key] = out.get(key, 0.0) + p * q
    return out


def group_states(rules: Rules, side_a: Sequence[Fighter], side_b: Sequence[Fighter]) -> int:
    """An upper estimate of the exact group chain's states, without building it: orders x round kinds x the
    actions of a round x every fighter's conditions (up, or out and dying; the out trauma kept when finishing).

    >>> group_states(Rules(), [Fighter(body=4)], [Fighter(body=3)] * 2)
    1352
    """
    fight_like = tuple(side_a) + tuple(side_b)
    kinds = {effect_of(rules, f, g) for f in side_a for g in side_b} | {effect_of(rules, g, f) for f in side_a
                                                                       for g in side_b}
    effects = (2 if "disarm" in kinds else 1) * (2 if "immobilise" in kinds else 1) * (
        rules.stun_actions + 1 if "stun" in kinds else 1)
    per = [f.volume * effects + (rules.death_multiple * f.volume + 2 - f.volume if rules.after_out == "finish" else 2)
           for f in fight_like]
    n_orders = len(orders(rules, fight_like, [0] * len(side_a) + [1] * len(side_b)))
    kinds_of_rounds = 3 if any(f.turn_policy == "initiative_skip" for f in fight_like) else 1
    actions = len(fight_like) * (rules.actions_per_turn + 1)
    spread = (actions + 1) ** len(fight_like) if any(f.target == "spread" for f in fight_like) else 1
    return int(n_orders * kinds_of_rounds * actions * math.prod(per) * spread + 2)


def chain_group(rules: Rules, side_a: Sequence[Fighter], side_b: Sequence[Fighter],
                max_states: int = MAX_STATES) -> engine_groups.GroupResult:
    """The group chain of any size (one against one included: the duel's numbers), walked state by state."""
    fighters = tuple(side_a) + tuple(side_b)
    check_reach(rules, {f"{'AB'[i >= len(side_a)]}{1 + (i if i < len(side_a) else i - len(side_a))}": f
                        for i, f in enumerate(fighters)})
    fight = Fight(rules, side_a, side_b)
    ex = explore(("start",), lambda s: _step(fight, s),
                 round_start=lambda s: s[0] not in ("start", "end") and s[2] == 0 and s[3] == 0,
                 max_states=max_states)
    got = evaluate(ex.game, ex.game.book("a"), ex.game.book("b"))
    ends = np.array([ex.labels[i][1] for i in np.flatnonzero(ex.game.ends)], dtype=np.int64).reshape(
        -1, len(fighters))
    sol = engine_groups.group_solution(got, ends, len(side_a), [f.name for f in side_a], [f.name for f in side_b],
                                       ex.game.n)
    return engine_groups.GroupResult("tun", rules.to_dict(), tuple(describe_fighter(f, rules) for f in side_a),
                                     tuple(describe_fighter(f, rules) for f in side_b), describe_order(fight), sol)


def describe_order(fight: Fight) -> str:
    """How the order was fixed and each order's rounds, in words (fighters as A1, A2, B1, ...)."""
    names = [f"{'AB'[s]}{1 + i - (fight.na if s else 0)}" for i, s in enumerate(fight.side)]

    def one(events: tuple[Event, ...]) -> str:
        return ", ".join(f"{names[f]} x{k}" if k else f"{names[f]} skips" for f, k in events)

    key = {"body": "Body", "roll": "a roll-off", "reaction": "Reaction, then Body"}[fight.rules.turn_order]
    parts = []
    for (p, order), rounds in zip(fight.orders, fight.rounds):
        heads = [f"round {i + 1}" for i in range(len(rounds) - 1)] + ["then" if len(rounds) > 1 else "each round"]
        parts.append(f"{' '.join(names[i] for i in order)} ({p:.4g}): "
                     + "; ".join(f"{h}: {one(ev)}" for h, ev in zip(heads, rounds)))
    r = fight.rules
    return (f"order fixed at the start by {key} (ties: a roll-off; copies numbered by their place); "
            + " | ".join(parts) + "; targets by each fighter's policy"
            + ("; the last word" if r.last_word else "")
            + ("; then the first able winner finishes each helpless loser" if r.after_out == "finish" else ""))


def group(rules: Rules, side_a: Sequence[Fighter], side_b: Sequence[Fighter]) -> engine_groups.GroupResult:
    """A group fight solved exactly (see the module docstring); one against one is handed to the duel.

    >>> res = group(Rules(), [Fighter(body=13, attack_feature=6, weapon_n=2)], [Fighter(body=12)])
    >>> res.solution.p_a_wins == duel(Rules(), Fighter(body=13, attack_feature=6, weapon_n=2),
    ...                               Fighter(body=12)).solution.p_a_wins
    True
    """
    side_a, side_b = tuple(side_a), tuple(side_b)
    if not side_a or not side_b:
        raise DicelabError(f"a side = {len(side_a)} and {len(side_b)} fighters is not allowed; allowed: at least one "
                           "fighter a side")
    if len(side_a) == 1 and len(side_b) == 1:
        d = duel(rules, side_a[0], side_b[0])
        return engine_groups.GroupResult("tun", d.variants, (d.a,), (d.b,), d.order,
                                         engine_groups.from_duel(d.solution, side_a[0].name, side_b[0].name))
    return chain_group(rules, side_a, side_b)
