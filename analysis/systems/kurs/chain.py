"""К.У.Р.С.'s exact duel chain: one attack as a kernel over the defender's track (its luck, dodge, soak), one
attack over the joint space (the attacker's turn moves its own condition), finishing a helpless fighter.

>>> t = side(Rules(), "normal", False).track
>>> len(t), t.labels[0].boxes
(121, (0, 0, 0, 0, 0, 0))
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from analysis.base.lazy import sp
from analysis.engine import markov
from analysis.engine.combat import Branch
from analysis.engine.dist import Dist
from analysis.systems.kurs.rules import Fighter, Rules, answer_luck, clamp_defense, dice
from analysis.systems.kurs.track import (
    Condition,
    Turn,
    conditions,
    defended,
    defense_mod,
    fresh,
    one_sided_on,
    penalty,
    status_of,
    turn,
)


@dataclass(frozen=True)
class Side:
    """One fighter's part of the chain: its track (class = index into ``turns``), and what its own turn does to it
    (``own``: the turn's changes; ``spend``: a luck token)."""

    track: markov.Track
    turns: tuple[Turn, ...]
    own: Any
    spend: Any


@lru_cache(maxsize=64)
def side(rules: Rules, stance: str, surprising: bool) -> Side:
    """The :class:`Side` of a fighter in ``stance`` (with its surprise attack to come if ``surprising``)."""
    labels = conditions(rules, stance, surprising)
    status = tuple(status_of(c) for c in labels)
    index = {c: i for i, c in enumerate(labels)}
    turns: dict[Turn, int] = {}
    classes, own, spend = [], [], []
    for i, c in enumerate(labels):
        if status[i] != markov.UP:
            classes.append(0)
            continue
        t, after = turn(rules, stance, c)
        classes.append(turns.setdefault(t, len(turns)))
        own.append((i, index[after]))
        if c.tokens:
            spend.append((i, index[c._replace(tokens=c.tokens - 1)]))
    n = len(labels)

    def matrix(pairs: list[tuple[int, int]]) -> Any:
        rows, cols = zip(*pairs) if pairs else ((), ())
        return sp.csr_matrix((np.ones(len(pairs)), (rows, cols)), shape=(n, n))

    track = markov.Track(labels=labels, status=status, classes=tuple(classes))
    return Side(track, tuple(turns), matrix(own), matrix(spend))


def side_of(rules: Rules, f: Fighter, who: str) -> Side:
    """The side of fighter A (``who="a"``) or B."""
    return side(rules, f.stance, rules.surprise == who)


@dataclass(frozen=True)
class Settled:
    """One attack with both totals known: luck, the kind and the damage (before any dodge)."""

    margin: int
    kind: str
    damage: int
    raw: int
    type_bonus_applied: bool
    luck_attacker: bool
    luck_defender: bool


def settle(rules: Rules, att: Fighter, dfn: Fighter, margin: int, att_token: bool, dfn_token: bool) -> Settled:
    """The attack given its margin (attack total - defense total, or - 0 when one-sided); luck tokens
    (:func:`answer_luck`) go to a check failing by 1..luck_bonus, one per side.

    ``raw`` is the damage rule's number before the 0 floor.

    >>> settle(Rules(), Fighter(attack_skill=4, strength=3, weapon=2, weapon_type_bonus=2),
    ...        Fighter(health=2, armor=2), 1, False, False).damage
    4
    """
    margin, luck_a, luck_d = answer_luck(margin, att_token, dfn_token, rules.luck_bonus)
    if margin < 0:
        return Settled(margin, "miss", 0, 0, False, luck_a, luck_d)
    base = att.offense - dfn.defense
    if margin == 0:
        excess = max(0, att.scale - dfn.scale)
        cap = rules.graze_damage + excess
        raw = cap if rules.graze == "fixed" or (rules.graze == "text" and excess) else min(cap, base)
        return Settled(0, "graze", max(raw, 0), raw, False, luck_a, luck_d)
    raw = margin + base
    bonus = att.weapon_type_bonus > 0 and (rules.type_bonus == "always" or raw > 0)
    raw += att.weapon_type_bonus * bonus
    return Settled(margin, "hit", max(raw, 0), raw, bonus, luck_a, luck_d)


@lru_cache(maxsize=256)
def margins(rules: Rules, att: Fighter, dfn: Fighter) -> Dist:
    """Attack total - defense total of unhurt fighters in the normal stance, before luck.

    >>> m = margins(Rules(), Fighter(attack_skill=1), Fighter())
    >>> m.min, m.max
    (-11, 8)
    """
    r = dice(rules)
    return (r + att.attack_skill) - (r.map(lambda v: clamp_defense(rules, v)) + dfn.defense_skill + dfn.shield)


@lru_cache(maxsize=8192)
def _table(rules: Rules, att: Fighter, dfn: Fighter, shift: int, one_sided: bool, tok_a: bool, tok_d: bool
           ) -> tuple[tuple[float, str, int, bool, bool], ...]:
    """(p, kind, damage, luck spent by the attacker, by the defender) of one attack, the margin moved by ``shift``;
    a one-sided attack's margin is its total."""
    m = (dice(rules) + att.attack_skill) if one_sided else margins(rules, att, dfn)
    out: dict[tuple[str, int, bool, bool], float] = {}
    for margin, p in zip(m.support.tolist(), m.p.tolist()):
        s = settle(rules, att, dfn, margin + shift, tok_a, tok_d)
        key = (s.kind, s.damage, s.luck_attacker, s.luck_defender)
        out[key] = out.get(key, 0.0) + p
    return tuple((p, *key) for key, p in out.items() if p > 0)


def attack_outcomes(rules: Rules, att: Fighter, dfn: Fighter, t: Turn, c: Condition
                    ) -> list[tuple[float, str, int, Any, bool]]:
    """(p, kind, damage marked, the defender's next condition, luck spent by the attacker) of an attack made with
    ``t`` on a defender in condition ``c``; a dodged hit is of kind ``defended`` and marks nothing."""
    one_sided = one_sided_on(t, dfn, c)
    shift = t.mod - t.penalty
    if not one_sided:
        shift -= defense_mod(rules, dfn.stance, c) - penalty(rules, c.boxes)
    out = []
    for p, kind, dmg, luck_a, luck_d in _table(rules, att, dfn, shift, one_sided, t.token, c.tokens > 0 and not one_sided):
        nxt, dodged = defended(rules, dfn, c, dmg, luck_d, one_sided)
        out.append((p, "defended" if dodged else kind, 0 if dodged else dmg, nxt, luck_a))
    return out


@lru_cache(maxsize=512)
def _kernels(rules: Rules, att: Fighter, dfn: Fighter, dfn_who: str, t: Turn) -> tuple[Any, Any]:
    """An attack made with ``t`` over the defender's track: (kernel when the attacker keeps its luck, when it
    spends a token)."""
    track = side_of(rules, dfn, dfn_who).track
    rows: tuple[dict[int, list], dict[int, list]] = ({}, {})
    for j, c in enumerate(track.labels):
        if track.status[j] == markov.UP:
            for p, _, _, nxt, luck_a in attack_outcomes(rules, att, dfn, t, c):
                rows[luck_a].setdefault(j, []).append((p, track.index[nxt]))
    return tuple(markov.kernel(track, lambda j, r=r: r.get(j, ())) for r in rows)  # type: ignore[return-value]


@lru_cache(maxsize=64)
def attack_matrix(rules: Rules, a: Fighter, b: Fighter, attacker: str) -> Any:
    """One attack of A (``attacker="a"``) on B, or of B on A, over the joint space: the attacker's turn (stance,
    price, surprise) and luck token move its own condition, the attack the defender's."""
    sides = {"a": side_of(rules, a, "a"), "b": side_of(rules, b, "b")}
    me, you = (a, b) if attacker == "a" else (b, a)
    mine = sides[attacker]
    moves = []
    for cls, t in enumerate(mine.turns):
        keep, spent = _kernels(rules, me, you, "b" if attacker == "a" else "a", t)
        own = mine.track.mask(cls) @ mine.own
        moves.append((own, keep))
        if t.token:
            moves.append((own @ mine.spend, spent))
    return markov.attack_moves(sides["a"].track, sides["b"].track, moves, attacker)


@lru_cache(maxsize=512)
def helpless_matrix(rules: Rules, att: Fighter, dfn: Fighter, dfn_who: str, t: Turn) -> Any:
    """One finishing attack on a helpless defender over its whole track: one-sided against 0 with the finisher's
    stance modifier and penalty of ``t``, no luck, no dodge."""
    track = side_of(rules, dfn, dfn_who).track
    table = _table(rules, att, dfn, t.mod - t.penalty, True, False, False)
    return markov.helpless_kernel(
        track, lambda j: [(p, track.index[defended(rules, dfn, track.labels[j], dmg, False, True)[0]])
                          for p, _, dmg, _, _ in table], rules.lethal_at)


def exchange_branches(rules: Rules, att: Fighter, dfn: Fighter) -> list[Branch]:
    """Every way A's first attack on B at the start of a fight goes (B has not had a turn yet)."""
    t, _ = turn(rules, att.stance, fresh(rules, rules.surprise == "a"))
    track = side_of(rules, dfn, "b").track
    c = fresh(rules, rules.surprise == "b")
    return [Branch(p, kind, dmg, track.index[nxt]) for p, kind, dmg, nxt, _ in attack_outcomes(rules, att, dfn, t, c)]

