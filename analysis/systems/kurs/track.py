"""К.У.Р.С.'s box track and a fighter's condition in a fight (RULES.md section 4): the damage table, the
fatigue soak, wound penalties, the fatigue-box dodge; the stance clock of a turn; every condition of a fighter.

>>> mark(Rules(), (0, 0, 0, 0, 0, 0), 5)
((1, 1, 0, 0, 0, 0), 1, True)
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product
from typing import Any, NamedTuple

from analysis.engine import markov
from analysis.systems.kurs.rules import (
    DODGE_FROM,
    DYING,
    FATIGUE,
    INCAPACITATED,
    LEVELS,
    LIGHT,
    PAINED,
    TRADES,
    Fighter,
    Rules,
)


def level_of(rules: Rules, damage: int) -> int | None:
    """The level a hit of this damage marks by ``damage_table`` (index into LEVELS); None below its first entry.

    >>> [level_of(Rules(), d) for d in (0, 2, 3, 6, 7, 8, 12)]
    [None, 0, 1, 2, 3, 4, 5]
    """
    below = [k for k, least in enumerate(rules.damage_table) if damage >= least]
    return below[-1] if below else None


def _free_from(rules: Rules, boxes: tuple[int, ...], level: int) -> int:
    """The first level from ``level`` up with a free box; dying when none is."""
    while level < DYING and boxes[level] >= rules.track[level]:
        level += 1
    return level


def _marked(rules: Rules, boxes: tuple[int, ...], level: int, n: int = 1) -> tuple[int, ...]:
    return tuple(min(m + n * (i == level), rules.track[i]) for i, m in enumerate(boxes))


def mark(rules: Rules, boxes: tuple[int, ...], damage: int) -> tuple[tuple[int, ...], int | None, bool]:
    """One hit on the box track: (boxes after, level marked, soaked by a fatigue box).

    ``boxes`` counts the marked boxes per level of LEVELS.  A full level passes
    the hit to the next heavier one (dying when none is free).  With
    ``fatigue_soak="when_lower"`` a free fatigue box soaks ``soak_points`` of a
    wound (a hit the table puts at light or above) whenever the level then
    marked is lighter and is still a wound box — the seed's "one wound box and
    one fatigue box together"; ``"when_lower_any"`` also lets the rest end on
    fatigue boxes (or nowhere).

    >>> mark(Rules(), (0, 0, 0, 0, 0, 0), 5)
    ((1, 1, 0, 0, 0, 0), 1, True)
    >>> mark(Rules(fatigue_soak="never"), (0, 2, 0, 0, 0, 0), 4)
    ((0, 2, 1, 0, 0, 0), 2, False)
    """
    level = level_of(rules, damage)
    if level is None:
        return boxes, None, False
    plain = _free_from(rules, boxes, level)
    if rules.fatigue_soak != "never" and level >= LIGHT and boxes[FATIGUE] < rules.track[FATIGUE]:
        tired = _marked(rules, boxes, FATIGUE)
        rest = level_of(rules, damage - rules.soak_points)
        soaked = FATIGUE if rest is None else _free_from(rules, tired, rest)
        if soaked < plain and (soaked > FATIGUE or rules.fatigue_soak == "when_lower_any"):
            return (tired if rest is None else _marked(rules, tired, soaked)), soaked, True
    return _marked(rules, boxes, plain), plain, False


def penalty(rules: Rules, boxes: tuple[int, ...]) -> int:
    """The wound penalty (as a positive number) of the marked boxes under ``wound_penalty``.

    >>> [penalty(Rules(wound_penalty=w), (2, 2, 1, 1)) for w in ("sum", "worst", "local")]
    [3, 2, 10]
    """
    table = rules.local_penalty if rules.wound_penalty == "local" else rules.general_penalty
    per_box = [table[i] for i in range(len(PAINED)) for _ in range(boxes[i])]
    if rules.wound_penalty == "worst":
        return max(per_box, default=0)
    return sum(per_box)


@lru_cache(maxsize=1 << 16)
def take_hit(rules: Rules, boxes: tuple[int, ...], damage: int, dodge: str
             ) -> tuple[tuple[int, ...], int | None, bool, bool]:
    """A hit on a fighter: (boxes after, level marked, soaked, dodged).

    ``dodge`` is the defender's ``effort_dodge`` ("never" against a one-sided
    attack): when the hit is about to mark a box at least as heavy as the
    policy says and ``dodge_fatigue`` fatigue boxes are free, they are marked
    instead and the hit is evaded entirely.

    >>> take_hit(Rules(), (0,) * 6, 8, "out")[1:], take_hit(Rules(), (0,) * 6, 9, "out")[1:]
    ((3, True, False), (None, False, True))
    """
    after, level, soaked = mark(rules, boxes, damage)
    free = rules.track[FATIGUE] - boxes[FATIGUE]
    if dodge != "never" and level is not None and level >= DODGE_FROM[dodge] and free >= rules.dodge_fatigue:
        return _marked(rules, boxes, FATIGUE, rules.dodge_fatigue), None, False, True
    return after, level, soaked, False


class Condition(NamedTuple):
    """A fighter's condition in a duel: boxes marked per level of LEVELS (incapacitated marked: out), luck tokens
    left, whether its stance holds (declared on a turn of its own: a trade on its last turn, ``no_defense`` from
    its first) and whether its surprise attack is to come."""

    boxes: tuple[int, ...]
    tokens: int = 0
    active: bool = False
    first: bool = False


DEAD_END = "dying"
"""The condition label of a dying fighter (nothing after it matters)."""


class Turn(NamedTuple):
    """What a fighter's attack is made with: one-sided (its surprise), the stance's modifier, its wound penalty,
    a luck token at hand."""

    one_sided: bool
    mod: int
    penalty: int
    token: bool


def fresh(rules: Rules, surprising: bool = False) -> Condition:
    """An unhurt fighter with every luck token (and its surprise attack to come)."""
    return Condition((0,) * len(LEVELS), rules.luck_tokens, False, surprising)


def turn(rules: Rules, stance: str, c: Condition) -> tuple[Turn, Condition]:
    """The attack a fighter in condition ``c`` makes on its turn, and its condition after the turn's own changes
    (trade price paid, stance taken or dropped, surprise spent), before luck.

    >>> turn(Rules(trade_cost="fatigue"), "offensive", fresh(Rules()))
    (Turn(one_sided=False, mod=1, penalty=0, token=False), Condition(boxes=(1, 0, 0, 0, 0, 0), tokens=0, active=True, first=False))
    """
    boxes, mod, active = c.boxes, 0, False
    if stance == "no_defense":
        mod, active = rules.no_defense_bonus, True
    elif stance in TRADES:
        price = rules.trade_fatigue if rules.trade_cost == "fatigue" else 0
        if rules.track[FATIGUE] - boxes[FATIGUE] >= price:
            boxes, active = _marked(rules, boxes, FATIGUE, price), True
            mod = rules.trade_bonus if stance == "offensive" else -rules.trade_bonus
    after = Condition(boxes, c.tokens, active, False)
    return Turn(c.first, mod, penalty(rules, boxes), c.tokens > 0), after


def defense_mod(rules: Rules, stance: str, c: Condition) -> int:
    """The stance's modifier to a defense: the trade holds from the fighter's turn until its next."""
    if not c.active or stance not in TRADES:
        return 0
    return rules.trade_bonus if stance == "defensive" else -rules.trade_bonus


def one_sided_on(t: Turn, dfn: Fighter, c: Condition) -> bool:
    """Whether an attack made with ``t`` on ``dfn`` in condition ``c`` is one-sided: the attacker's surprise, or
    a defender who has declared ``no_defense`` on a turn of its own (before its first turn it stands normal)."""
    return t.one_sided or (dfn.stance == "no_defense" and c.active)


def defended(rules: Rules, dfn: Fighter, c: Condition, damage: int, spent: bool, one_sided: bool) -> tuple[Any, bool]:
    """The defender's condition after a hit of ``damage`` (a luck token ``spent`` on its defense), and whether it
    dodged; a one-sided attack cannot be dodged."""
    boxes, _, _, dodged = take_hit(rules, c.boxes, damage, "never" if one_sided else dfn.effort_dodge)
    if boxes[DYING]:
        return DEAD_END, dodged
    if boxes[INCAPACITATED]:
        return Condition(boxes), dodged
    return Condition(boxes, c.tokens - spent, c.active, c.first), dodged


def conditions(rules: Rules, stance: str, surprising: bool) -> tuple[Any, ...]:
    """Every condition of a fighter, ordered so that every change moves to a later one: boxes (lexicographic, they
    only fill), then tokens (only spent), the surprise (only made), the stance flag (taken for good by
    ``no_defense`` and under ``trade_cost=complication``; under ``fatigue`` only dropped without a box marked);
    then out, then dying."""
    fills = [range(n + 1) for n in rules.track[:INCAPACITATED]]
    actives = ((False,) if stance == "normal" else (True, False) if stance in TRADES and rules.trade_cost == "fatigue"
               else (False, True))
    up = [Condition((*boxes, 0, 0), tokens, active, first)
          for boxes in product(*fills) for tokens in range(rules.luck_tokens, -1, -1)
          for first in ((True, False) if surprising else (False,)) for active in actives if not (first and active)]
    out = [Condition((*boxes, 0)) for boxes in product(*fills, range(1, rules.track[INCAPACITATED] + 1))]
    return (*up, *out, DEAD_END)


def status_of(label: Any) -> int:
    """UP, OUT or DYING of a condition label."""
    if label == DEAD_END:
        return markov.DYING
    return markov.OUT if label.boxes[INCAPACITATED] else markov.UP


def condition_label(label: Any) -> str:
    """``unhurt``, ``fatigue 2, light 1``, ``incapacitated`` or ``dying`` (luck tokens and flags left out)."""
    if label == DEAD_END:
        return DEAD_END
    if label.boxes[INCAPACITATED]:
        return "incapacitated"
    marked = [f"{LEVELS[i]} {n}" for i, n in enumerate(label.boxes) if n]
    return ", ".join(marked) or "unhurt"
