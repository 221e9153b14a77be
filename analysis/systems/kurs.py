"""К.У.Р.С. (seed ``004_612ae8415007d305.txt``): rules and exact math.

Roll-over 3dK: total = 3dK + skill + modifiers against a difficulty (usually
0, Нормально).  Total < difficulty fails; = succeeds with a complication;
> succeeds.  Margin = total - difficulty.  The fragment never defines dK; the
default reads it as a d6 labelled -2, -1, 0, 0, +1, +2.  See RULES.md section 4
and ``docs/rules/kurs.md``.

Combat: attack total against defense total (the defense roll clamped), or
against 0 when the attack is one-sided (a surprise, a fighter who does not
defend, a helpless one); damage = success + offensive - defensive factors, one
box of the wound track per hit; duels alternate attacks after a 3dK + agility
roll-off.  Stances, the fatigue-box dodge and luck tokens are in the chain.
Every number of the section is a ``kind="constant"`` field of :class:`Rules`.

>>> r = SYSTEM.check(Rules(), CheckArgs(skill=0))
>>> round(r.p_success, 6), round(r.extra["p_complication"], 6)
(0.587963, 0.175926)
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from typing import Any, Iterator, Mapping, NamedTuple, Sequence

import numpy as np

from analysis.base.lazy import sp
from analysis.base.params import Bool, Choice, Faces, FighterBase, Int, ParamError, Validated, param
from analysis.engine import markov
from analysis.engine.combat import (
    Branch,
    DuelResult,
    DuelRules,
    ExchangeResult,
    Resolution,
    describe_fighter,
    summarize,
)
from analysis.engine.dist import Dist
from analysis.engine.registry import register
from analysis.engine.results import CheckResult, OpposedResult, Outcomes
from analysis.engine.system import System

DK_PRESETS = {"default": (-2, -1, 0, 0, 1, 2), "fudge": (-1, 0, 1), "d5": (-2, -1, 0, 1, 2)}
LADDER = {0: "Нормально", 1: "Неплохо", 2: "Хорошо", 3: "Очень хорошо", 4: "Отлично", 5: "Великолепно"}
LEVELS = ("fatigue", "light", "medium", "heavy", "incapacitated", "dying")
FATIGUE, LIGHT, MEDIUM, HEAVY, INCAPACITATED, DYING = range(len(LEVELS))
PAINED = LEVELS[:INCAPACITATED]
"""The levels whose marked boxes carry a wound penalty (a fighter still acting can only have these)."""
STANCES = ("normal", "offensive", "defensive", "no_defense")
TRADES = ("offensive", "defensive")
DODGES = ("never", "out", "wound")
DODGE_FROM = {"out": INCAPACITATED, "wound": LIGHT}
"""effort_dodge: the lightest level a hit must be about to mark for the fighter to dodge it."""


@dataclass(frozen=True)
class Row(Faces):
    """A list of integers, one per named slot, each within its own bounds (strictly increasing if asked).

    >>> Row(names=("fatigue", "light"), bounds=((0, 8), (0, 4))).parse("track", "4,2")
    (4, 2)
    >>> Row(names=("a", "b"), bounds=((1, 9), (1, 9)), increasing=True).validate("t", [3, 3])
    Traceback (most recent call last):
    ...
    analysis.base.params.ParamError: t = (3, 3) is not allowed; allowed: a list of 2 integers (a 1..9, b 1..9), strictly increasing
    """

    names: tuple[str, ...] = ()
    bounds: tuple[tuple[int, int], ...] = ()
    increasing: bool = False

    @property
    def allowed(self) -> str:  # type: ignore[override]
        slots = ", ".join(f"{n} {lo}..{hi}" for n, (lo, hi) in zip(self.names, self.bounds))
        return f"a list of {len(self.names)} integers ({slots})" + (", strictly increasing" if self.increasing else "")

    def validate(self, name: str, value: Any) -> Any:
        if isinstance(value, str):
            return self.parse(name, value)
        if not isinstance(value, Sequence) or len(value) != len(self.names):
            raise ParamError(name, tuple(value) if isinstance(value, Sequence) else value, self.allowed)
        if not all(not isinstance(v, bool) and isinstance(v, numbers.Integral) and lo <= v <= hi
                   for v, (lo, hi) in zip(value, self.bounds)):
            raise ParamError(name, tuple(value), self.allowed)
        out = tuple(int(v) for v in value)
        if self.increasing and any(x >= y for x, y in zip(out, out[1:])):
            raise ParamError(name, out, self.allowed)
        return out


BOOK_TRACK = (4, 2, 1, 1, 1, 1)


@dataclass(frozen=True)
class Rules(DuelRules):
    """The К.У.Р.С. ruleset: every variant of RULES.md section 4, its numbers as constants, the duel options."""

    where = "kurs ruleset"
    dk_faces: tuple[int, ...] = param(DK_PRESETS["default"], Faces(presets=DK_PRESETS, max_faces=20, lo=-10, hi=10),
                                      "faces of dK (dice_count dK per check)")
    defense_clamp: bool = param(True, Bool(), "defense roll clamped: > 0 as is, defense_clamp_zero..0 -> 0, lower -> "
                                "defense_clamp_low (false: the gladiator example's raw roll)")
    luck_tokens: int = param(0, Int(0, 10), "luck tokens (+luck_bonus) per fighter, spent by a check failing by "
                             "1..luck_bonus (opposed and in combat: the other may answer alike)")
    wound_penalty: str = param("sum", Choice(("sum", "worst", "local")),
                               "general penalties of marked boxes summed, the worst one, or local ones summed "
                               "(local_penalty: every wound on a part each combat action uses)")
    fatigue_soak: str = param("when_lower", Choice(("when_lower", "when_lower_any", "never")),
                              "a fatigue box soaks soak_points of a hit that still marks a wound box, when that lowers "
                              "the level (when_lower_any: also when only fatigue boxes are left to mark)")
    type_bonus: str = param("penetrating", Choice(("penetrating", "always")),
                            "weapon type bonus only when the attack got through the armor")
    graze: str = param("text", Choice(("text", "capped", "fixed")),
                       "graze (equal totals). text: no scale excess -> the damage rule at success 0 without type bonus, "
                       "capped at graze_damage, floor 0; an excess -> exactly graze_damage + excess. capped: "
                       "min(graze_damage + excess, the damage rule). fixed: always graze_damage + excess")
    trade_cost: str = param("complication", Choice(("complication", "fatigue")),
                            "price of a stance trade: a narrative complication (not modelled), or trade_fatigue free "
                            "fatigue boxes per trading turn (none free: that turn is plain)")
    track: tuple[int, ...] = param(BOOK_TRACK, Row(names=LEVELS, bounds=((0, 8), (0, 4), (0, 4), (0, 4), (0, 3), (1, 1))),
                                   "the box track: boxes per level (fatigue, light, medium, heavy, incapacitated, "
                                   "dying); a full level passes a hit to the next heavier", kind="constant")
    damage_table: tuple[int, ...] = param((1, 3, 5, 7, 8, 9), Row(names=LEVELS, bounds=((1, 30),) * 6, increasing=True),
                                          "least damage that marks each level (book: 1-2 fatigue, 3-4 light, 5-6 "
                                          "medium, 7 heavy, 8 incapacitated, 9+ dying)", kind="constant")
    general_penalty: tuple[int, ...] = param((0, 0, 1, 2), Row(names=PAINED, bounds=((0, 10),) * 4),
                                             "general penalty (pain to every action) per marked box of fatigue, light, "
                                             "medium, heavy (wound_penalty sum and worst)", kind="constant")
    local_penalty: tuple[int, ...] = param((0, 1, 3, 5), Row(names=PAINED, bounds=((0, 10),) * 4),
                                           "local penalty (pain + injury) per marked box of fatigue, light, medium, "
                                           "heavy (wound_penalty local)", kind="constant")
    dice_count: int = param(3, Int(1, 6), "dK rolled per check (3dK)", kind="constant")
    luck_bonus: int = param(3, Int(1, 10), "a luck token's bonus to a check", kind="constant")
    defense_clamp_zero: int = param(-4, Int(-30, 0), "defense_clamp: defense rolls from this up to 0 count as 0",
                                    kind="constant")
    defense_clamp_low: int = param(-1, Int(-30, 0), "defense_clamp: defense rolls below defense_clamp_zero count as this",
                                   kind="constant")
    extra_defense_penalty: int = param(1, Int(0, 10), "cumulative penalty on each defense after the first in a turn "
                                       "(never arises one-on-one: each fighter defends once per opponent turn)",
                                       kind="constant")
    graze_damage: int = param(1, Int(0, 10), "a graze deals at most this, or this + the attacker's scale excess",
                              kind="constant")
    soak_points: int = param(1, Int(1, 10), "points of a hit one fatigue box soaks beside one wound box", kind="constant")
    trade_bonus: int = param(1, Int(0, 5), "a stance trade: +this to attack for -this to defense (or the reverse)",
                             kind="constant")
    trade_fatigue: int = param(1, Int(1, 8), "trade_cost fatigue: free fatigue boxes a trading turn marks",
                               kind="constant")
    dodge_fatigue: int = param(1, Int(1, 8), "free fatigue boxes an effort dodge marks", kind="constant")
    no_defense_bonus: int = param(2, Int(0, 10), "stance no_defense: bonus to its attacks (lab stand-in, twice the "
                                  "trade: the seed gives no number)", kind="constant")
    surprise: str = param("none", Choice(("none", "a", "b")), "that side's first attack is one-sided (the other is "
                          "unaware): against 0, no defense roll, skill, shield or dodge", kind="option")
    surprise_first: bool = param(True, Bool(), "with surprise: the surprising side attacks first (false: the roll-off "
                                 "still decides)", kind="option")


@dataclass(frozen=True)
class CheckArgs(Validated):
    """A one-sided action."""

    where = "kurs check"
    skill: int = param(0, Int(), "skill (ladder: Нормально 0 ... Великолепно +5)")
    difficulty: int = param(0, Int(), "difficulty, usually 0 (Нормально)")
    mod: int = param(0, Int(), "technique, properties, bonuses and penalties")


@lru_cache(maxsize=64)
def roll(faces: tuple[int, ...], count: int = 3) -> Dist:
    """The ``count``dK roll.

    >>> roll(DK_PRESETS["fudge"]).to_dict()[3] == 1 / 27
    True
    """
    return count @ Dist.die(faces)


def dice(rules: Rules) -> Dist:
    """The check roll of a ruleset: ``dice_count`` dK."""
    return roll(rules.dk_faces, rules.dice_count)


def spend_luck(margin: np.ndarray, tokens: int, bonus: int) -> np.ndarray:
    """A luck token (+bonus) turns a failure by 1..bonus into a success.

    >>> spend_luck(np.array([-4, -3, -1, 0]), 1, 3).tolist()
    [-4, 0, 2, 0]
    """
    if tokens <= 0:
        return margin
    return np.where((margin >= -bonus) & (margin < 0), margin + bonus, margin)


def answer_luck(margin: int, token_a: bool, token_b: bool, bonus: int) -> tuple[int, bool, bool]:
    """Luck tokens in a contest of A's total against B's: (margin after, A spent, B spent).

    The side failing by 1..bonus spends one; the other may answer alike; one
    per side; never on a tie (equal totals are a success with a complication).

    >>> answer_luck(-1, True, True, 3), answer_luck(-3, True, True, 3), answer_luck(-2, True, False, 3)
    ((-1, True, True), (0, True, False), (1, True, False))
    """
    spent_a = spent_b = False
    while True:
        if token_a and not spent_a and -bonus <= margin < 0:
            margin, spent_a = margin + bonus, True
        elif token_b and not spent_b and 0 < margin <= bonus:
            margin, spent_b = margin - bonus, True
        else:
            return margin, spent_a, spent_b


def check(rules: Rules, args: CheckArgs) -> CheckResult:
    """P(success, complication included), the margin distribution, P(complication)."""
    shift = args.skill + args.mod - args.difficulty
    margin = (dice(rules) + shift).map(lambda m: spend_luck(m, rules.luck_tokens, rules.luck_bonus))
    return CheckResult(
        system="kurs",
        variants=rules.to_dict(),
        params=args.to_dict(),
        p_success=float(margin.sf(-1)),
        outcome="margin",
        distribution=margin,
        extra={"p_complication": float(margin.pmf(0))},
    )


def outcomes(rules: Rules, args: CheckArgs) -> Outcomes:
    """Opposed outcomes: each side's total is the other's difficulty."""
    total = dice(rules) + (args.skill + args.mod)
    return Outcomes(p=total.p, key=total.support, score=total.support)


def opposed(rules: Rules, a: CheckArgs, b: CheckArgs) -> OpposedResult:
    """Opposed action: A's total against B's; equal totals are A's success with a complication.

    With ``luck_tokens`` each side holds a token: :func:`answer_luck` settles them.

    >>> res = opposed(Rules(), CheckArgs(skill=2), CheckArgs(skill=3))
    >>> res.p_a_wins < res.p_b_wins
    True
    """
    rule = "equal totals: A succeeds with a complication"
    if not rules.luck_tokens:
        win, tie, lose, margin = outcomes(rules, a).against(outcomes(rules, b))
        return OpposedResult("kurs", rules.to_dict(), a.to_dict(), b.to_dict(), win, lose, tie, margin, rule)
    raw = (dice(rules) + (a.skill + a.mod)) - (dice(rules) + (b.skill + b.mod))
    settled = [(p, *answer_luck(m, True, True, rules.luck_bonus)) for m, p in zip(raw.support.tolist(), raw.p.tolist())]
    margin = Dist._from_arrays(np.array([s[1] for s in settled], dtype=np.int64), np.array([s[0] for s in settled]))
    extra = {"p_a_luck": sum(p for p, _, spent, _ in settled if spent),
             "p_b_luck": sum(p for p, _, _, spent in settled if spent),
             "luck_rule": f"each side holds a luck token (+{rules.luck_bonus}); the side failing by "
                          f"1..{rules.luck_bonus} spends it, the other may answer alike; never on a tie"}
    return OpposedResult("kurs", rules.to_dict(), a.to_dict(), b.to_dict(), float(margin.sf(0)),
                         float(margin.cdf(-1)), float(margin.pmf(0)), margin, rule, extra)


def table_cases(rules: Rules, args: CheckArgs) -> Iterator[tuple[str, Rules, CheckArgs]]:
    """Skills from one below certain failure to certain success (difficulty as given)."""
    r = dice(rules)
    lo = args.difficulty - args.mod - r.max - 1
    hi = args.difficulty - args.mod - r.min + rules.luck_bonus * (rules.luck_tokens > 0)
    for skill in range(max(lo, -100), min(hi, 100) + 1):
        yield f"{rules.dice_count}dK", rules, args.replace(skill=skill)


# ------------------------------------------------------------------ combat
GRAZE_NOTE = {"text": "the damage rule at success 0 without type bonus, capped at {g} (floor 0); exactly {g} + the "
                      "attacker's scale excess when it is larger",
              "capped": "the damage rule at success 0 without type bonus, capped at {g} + the attacker's scale excess",
              "fixed": "always {g} + the attacker's scale excess, whatever the damage factors"}
LUCK_NOTE = ("luck tokens are in the state: a side spends one (+{b}) when its check fails by 1..{b} (the attack: a "
             "miss; the defense: a hit), at most one per side per attack; not on the roll-off, nor in finishing")
ONE_SIDED = "one-sided (against 0: no defense roll, skill, shield, luck or dodge of the defender)"


@dataclass(frozen=True)
class Fighter(FighterBase):
    """A К.У.Р.С. combatant; skills and attributes on the ladder (Нормально 0 ... Великолепно +5)."""

    where = "kurs fighter"
    attack_skill: int = param(0, Int(-5, 15), "attack skill, e.g. Sword (Нормально 0 ... Великолепно +5)")
    defense_skill: int = param(0, Int(-5, 15), "defense skill, e.g. Dodge")
    strength: int = param(0, Int(-5, 15), "Strength: an offensive damage factor with muscle-powered weapons")
    health: int = param(0, Int(-5, 15), "Health: a defensive damage factor")
    scale: int = param(0, Int(-10, 10), "Scale (0 = human): an offensive and a defensive factor; widens grazes")
    weapon: int = param(0, Int(-5, 20), "weapon rating, an offensive factor (0 = unarmed)")
    weapon_type_bonus: int = param(0, Int(0, 10), "weapon type bonus (e.g. +2 cutting), added when the attack got through")
    muscle_powered: bool = param(True, Bool(), "the weapon is driven by muscle, so Strength counts (false: bows, guns)")
    armor: int = param(0, Int(0, 20), "armor rating, a defensive factor")
    shield: int = param(0, Int(0, 10), "shield hindering the attacker: bonus to the defense total")
    agility: int = param(0, Int(-5, 15), "Agility: 3dK + agility roll-off for the first attack")
    stance: str = param("normal", Choice(STANCES), "each turn: normal; offensive (+trade_bonus attack, -trade_bonus "
                        "defense until its next turn) or defensive (the reverse), priced by trade_cost; no_defense "
                        "(never defends, so attacks on it are one-sided; +no_defense_bonus to its attacks)",
                        kind="policy")
    effort_dodge: str = param("never", Choice(DODGES), "mark dodge_fatigue free fatigue boxes to evade a hit entirely: "
                              "never, when it would mark incapacitated or dying (out), or any wound box (wound); not "
                              "against one-sided attacks", kind="policy")

    @property
    def offense(self) -> int:
        """Offensive damage factors: strength (muscle-powered weapons only) + scale + weapon."""
        return self.strength * self.muscle_powered + self.scale + self.weapon

    @property
    def defense(self) -> int:
        """Defensive damage factors: health + scale + armor."""
        return self.health + self.scale + self.armor

    def derived(self, rules: Rules) -> dict[str, int]:
        return {"offense": self.offense, "defense": self.defense}


def clamp_defense(rules: Rules, r: Any) -> Any:
    """Defense rolls as counted: > 0 as is, defense_clamp_zero..0 -> 0, lower -> defense_clamp_low (raw with
    ``defense_clamp=false``).

    >>> clamp_defense(Rules(), np.array([3, 0, -4, -5, -6])).tolist()
    [3, 0, 0, -1, -1]
    """
    if not rules.defense_clamp:
        return r
    return np.where(r > 0, r, np.where(r >= rules.defense_clamp_zero, 0, rules.defense_clamp_low))


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
    left, whether its stance trade holds (it traded on its last turn) and whether its surprise attack is to come."""

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
        mod = rules.no_defense_bonus
    elif stance in TRADES:
        price = rules.trade_fatigue if rules.trade_cost == "fatigue" else 0
        if rules.track[FATIGUE] - boxes[FATIGUE] >= price:
            boxes, active = _marked(rules, boxes, FATIGUE, price), True
            mod = rules.trade_bonus if stance == "offensive" else -rules.trade_bonus
    after = Condition(boxes, c.tokens, active, False)
    return Turn(c.first, mod, penalty(rules, boxes), c.tokens > 0), after


def defense_mod(rules: Rules, stance: str, c: Condition) -> int:
    """The stance's modifier to a defense: the trade holds from the fighter's turn until its next."""
    if not c.active:
        return 0
    return rules.trade_bonus if stance == "defensive" else -rules.trade_bonus


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
    only fill), then tokens (only spent), the surprise (only made), the stance flag (taken for good under
    ``trade_cost=complication``; under ``fatigue`` only dropped without a box marked); then out, then dying."""
    fills = [range(n + 1) for n in rules.track[:INCAPACITATED]]
    actives = ((False, True) if rules.trade_cost == "complication" else (True, False)) if stance in TRADES else (False,)
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
    one_sided = t.one_sided or dfn.stance == "no_defense"
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


def condition_label(label: Any) -> str:
    """``unhurt``, ``fatigue 2, light 1``, ``incapacitated`` or ``dying`` (luck tokens and flags left out)."""
    if label == DEAD_END:
        return DEAD_END
    if label.boxes[INCAPACITATED]:
        return "incapacitated"
    marked = [f"{LEVELS[i]} {n}" for i, n in enumerate(label.boxes) if n]
    return ", ".join(marked) or "unhurt"


def manoeuvre_notes(rules: Rules, fighters: Mapping[str, Fighter]) -> list[str]:
    """What the fighters' policies and the duel options do, in words (every output says which model made it)."""
    notes = []
    price = ("trade_cost = complication: the complication is narrative and not modelled" if
             rules.trade_cost == "complication" else
             f"trade_cost = fatigue: each trading turn marks {rules.trade_fatigue} free fatigue box(es); none free: "
             "that turn is plain")
    for who, f in fighters.items():
        if f.stance in TRADES:
            sign = ("+", "-") if f.stance == "offensive" else ("-", "+")
            notes.append(f"{who} ({f.name}) stance {f.stance}: {sign[0]}{rules.trade_bonus} attack, {sign[1]}"
                         f"{rules.trade_bonus} defense from its turn until its next; {price}")
        elif f.stance == "no_defense":
            notes.append(f"{who} ({f.name}) stance no_defense: never defends (attacks on it are one-sided) and attacks "
                         f"at +{rules.no_defense_bonus} (no_defense_bonus = {rules.no_defense_bonus}: a lab stand-in, "
                         "the seed gives no number)")
        if f.effort_dodge != "never":
            what = "incapacitated or dying" if f.effort_dodge == "out" else "a wound box"
            notes.append(f"{who} ({f.name}) effort_dodge {f.effort_dodge}: marks {rules.dodge_fatigue} free fatigue "
                         f"box(es) to evade a hit about to mark {what}; never against a one-sided attack")
    if rules.surprise != "none":
        side_name = rules.surprise.upper()
        order = "and attacks first" if rules.surprise_first else "(the roll-off still decides who attacks first)"
        notes.append(f"surprise: {side_name}'s first attack is {ONE_SIDED} {order}")
    return notes


def exchange(rules: Rules, att: Fighter, dfn: Fighter) -> ExchangeResult:
    """A's first attack on B at the start of a fight, exactly: A's stance and surprise apply, B defends plainly
    (its stance trade starts on its own turn) unless it never defends; B's dodge applies."""
    branches = exchange_branches(rules, att, dfn)
    notes = [f"graze (equal totals): {GRAZE_NOTE[rules.graze].format(g=rules.graze_damage)}",
             *manoeuvre_notes(rules, {"A": att, "B": dfn})]
    if dfn.stance in TRADES:
        notes.append("the first attack of a fight: B has not had a turn, so its stance trade does not hold yet")
    if rules.luck_tokens:
        notes.append(LUCK_NOTE.format(b=rules.luck_bonus))
    track = side_of(rules, dfn, "b").track
    return summarize("kurs", rules, att, dfn, branches, track, condition_label, notes,
                     severity=lambda i: tuple(reversed(getattr(track.labels[i], "boxes", ()))))


def first_attack(rules: Rules, a: Fighter, b: Fighter) -> float:
    """P(A attacks first): the surprising side with ``surprise_first``, else the roll-off: P(A > B) / (1 - P(tie)),
    dice + agility each, ties rolled again.

    >>> first_attack(Rules(), Fighter(agility=1), Fighter(agility=1)), first_attack(Rules(surprise="b"), Fighter(), Fighter())
    (0.5, 0.0)
    """
    if rules.surprise != "none" and rules.surprise_first:
        return float(rules.surprise == "a")
    r = dice(rules)
    ia, ib = r + a.agility, r + b.agility
    win, tie, _, _ = Outcomes(ia.p, ia.support, ia.support).against(Outcomes(ib.p, ib.support, ib.support))
    return win / (1 - tie) if tie < 1 else 0.5  # a one-valued dK and equal agility: a coin toss


def duel(rules: Rules, a: Fighter, b: Fighter) -> DuelResult:
    """Alternating attacks (a round = one attack each) in the order the roll-off (or a surprise) gives, until one
    is out; with ``after_out=finish`` the other then makes one-sided attacks on the helpless one."""
    sa, sb = side_of(rules, a, "a"), side_of(rules, b, "b")
    a_hits, b_hits = attack_matrix(rules, a, b, "a"), attack_matrix(rules, a, b, "b")
    start = (sa.track.index[fresh(rules, rules.surprise == "a")], sb.track.index[fresh(rules, rules.surprise == "b")])
    p_a = first_attack(rules, a, b)
    parts = [(w, markov.solve(m, sa.track, sb.track, start))
             for w, m in ((p_a, a_hits @ b_hits), (1 - p_a, b_hits @ a_hits)) if w > 0]
    solution = markov.mix_solutions(parts, sa.track, sb.track)
    if rules.after_out == "finish":
        on_b = {c: helpless_matrix(rules, a, b, "b", t) for c, t in enumerate(sa.turns)}
        on_a = {c: helpless_matrix(rules, b, a, "a", t) for c, t in enumerate(sb.turns)}
        solution = markov.finish(solution, sa.track, sb.track, on_a, on_b, rules.lethal_at, rules.finish_attacks)
    return DuelResult("kurs", rules.to_dict(), describe_fighter(a, rules), describe_fighter(b, rules),
                      duel_order(rules, a, b, p_a), solution)


def duel_order(rules: Rules, a: Fighter, b: Fighter, p_a: float) -> str:
    """The duel's timing and every modelled option, in words."""
    first = (f"{rules.surprise.upper()} attacks first (surprise)" if rules.surprise != "none" and rules.surprise_first
             else f"the first attacker by a {rules.dice_count}dK + agility roll-off, ties re-rolled "
                  f"(P(A first) = {p_a:.6f})")
    parts = [f"alternating attacks, a round = one attack each; {first}; each fighter defends once per opponent turn, "
             f"so the cumulative -{rules.extra_defense_penalty} on extra defenses never arises",
             LUCK_NOTE.format(b=rules.luck_bonus) if rules.luck_tokens else "no luck tokens",
             *manoeuvre_notes(rules, {"A": a, "B": b})]
    if rules.after_out == "finish":
        parts.append(f"after_out = finish: the one still up makes {ONE_SIDED} attacks on the helpless one, with its "
                     "stance modifier and penalty of the moment the other went out (it pays no price, spends no luck), "
                     f"until «При смерти» or {rules.finish_attacks} attacks")
    return "; ".join(parts)


def duel_states(rules: Rules, a: Fighter, b: Fighter) -> int:
    """An upper estimate of the exact duel's chain states: (A's conditions x B's) per attack order solved.

    >>> duel_states(Rules(), Fighter(), Fighter())
    29282
    """
    orders = 1 if rules.surprise != "none" and rules.surprise_first else 2
    return orders * len(conditions(rules, a.stance, rules.surprise == "a")) * len(
        conditions(rules, b.stance, rules.surprise == "b"))


def resolve(rules: Rules, att: Fighter, dfn: Fighter, rolls: Mapping[str, int]) -> Resolution:
    """A's first attack on B (as :func:`exchange`) with the dice sums ``attack`` and ``defense`` (the defense roll
    before the clamp; not needed when the attack is one-sided).  ``hit`` is true when the attack got through, a
    graze included, and was not dodged."""
    r = dice(rules)
    possible = set(r.support[r.p > 0].tolist())
    t, _ = turn(rules, att.stance, fresh(rules, rules.surprise == "a"))
    one_sided = t.one_sided or dfn.stance == "no_defense"
    for name in ("attack",) if one_sided else ("attack", "defense"):
        value = _need(rolls, name)
        if value not in possible:
            raise ParamError(f"rolls.{name}", value, f"a {rules.dice_count}dK total with dK = {rules.dk_faces}: "
                             f"{r.min}..{r.max}")
    a_roll = rolls["attack"]
    att_total = att.attack_skill + a_roll + t.mod
    mod = f" + stance {t.mod:+d}" if t.mod else ""
    steps = [f"attack: skill {att.attack_skill} + {rules.dice_count}dK {a_roll}{mod} = {att_total}"]
    if one_sided:
        why = "a surprise" if t.one_sided else f"{dfn.name} does not defend (no_defense)"
        steps.append(f"one-sided attack ({why}): against difficulty 0, no defense roll, skill or shield"
                     + (f"; the defense roll {rolls['defense']} is not used" if "defense" in rolls else ""))
        dfn_total = 0
    else:
        d_roll = rolls["defense"]
        d_counted = int(clamp_defense(rules, d_roll))
        dfn_total = dfn.defense_skill + dfn.shield + d_counted
        clamp = f" (clamped from {d_roll})" if d_counted != d_roll else ""
        steps.append(f"defense: skill {dfn.defense_skill} + shield {dfn.shield} + {rules.dice_count}dK "
                     f"{d_counted}{clamp} = {dfn_total}")
    tokens = rules.luck_tokens > 0
    s = settle(rules, att, dfn, att_total - dfn_total, tokens, tokens and not one_sided)
    margin, bonus = att_total - dfn_total, rules.luck_bonus
    spends = [(att.name, "attack", bonus)] * s.luck_attacker + [(dfn.name, "defense", -bonus)] * s.luck_defender
    for who, what, delta in sorted(spends, key=lambda x: (x[2] > 0) == (margin > 0)):  # the failing side first
        steps.append(f"luck: {who}'s {what} fails by {abs(margin)}, a token spent (+{bonus}): "
                     f"margin {margin} -> {margin + delta}")
        margin += delta
    factors = (f"offense {att.offense} (strength {att.strength if att.muscle_powered else 0} + scale {att.scale} "
               f"+ weapon {att.weapon}) - defense {dfn.defense} (health {dfn.health} + scale {dfn.scale} + armor {dfn.armor})")
    if s.kind == "miss":
        steps.append(f"margin {s.margin} < 0: miss")
    elif s.kind == "graze":
        steps.append(f"margin 0: graze ({rules.graze}: {GRAZE_NOTE[rules.graze].format(g=rules.graze_damage)}); "
                     f"{factors} = {att.offense - dfn.defense}: damage {s.damage}")
    else:
        before = s.raw - att.weapon_type_bonus * s.type_bonus_applied
        steps.append(f"margin {s.margin} > 0: hit, success {s.margin}; damage = success {s.margin} + {factors} = {before}")
        if s.type_bonus_applied:
            why = "always" if rules.type_bonus == "always" else "the attack got through the armor"
            steps.append(f"type bonus +{att.weapon_type_bonus} ({why}): {s.raw}")
    c = fresh(rules, rules.surprise == "b")
    boxes, level, soaked, dodged = take_hit(rules, c.boxes, s.damage, "never" if one_sided else dfn.effort_dodge)
    marked = None if level is None else LEVELS[level]
    if dodged:
        steps.append(f"effort dodge ({dfn.effort_dodge}): {dfn.name} marks {rules.dodge_fatigue} fatigue box(es) and "
                     f"evades the hit of {s.damage} entirely")
    elif level is None:
        steps.append("no box marked" + ("" if s.kind == "miss" else f" (damage {s.raw} <= 0)"))
    else:
        soak = f"a fatigue box soaks {rules.soak_points}, the rest marks " if soaked else "marks "
        status = {INCAPACITATED: " -> out", DYING: " -> dying (dead without aid)"}.get(level, "")
        steps.append(f"damage {s.damage}: {soak}a {marked} box{status}")
    nxt, _ = defended(rules, dfn, c, s.damage, s.luck_defender, one_sided)
    fields = {"kind": "defended" if dodged else s.kind, "attack_total": att_total, "defense_total": dfn_total,
              "one_sided": one_sided, "success": s.margin, "offense": att.offense, "defense_factors": dfn.defense,
              "raw_damage": s.raw, "type_bonus_applied": s.type_bonus_applied, "soaked_by_fatigue": soaked,
              "dodged": dodged, "luck_spent": {"attacker": s.luck_attacker, "defender": s.luck_defender},
              "condition": condition_label(nxt)}
    return Resolution("kurs", rules.to_dict(), describe_fighter(att, rules), describe_fighter(dfn, rules),
                      dict(rolls), steps, s.kind != "miss" and not dodged, 0 if dodged else s.damage, marked, fields)


def _need(rolls: Mapping[str, int], name: str) -> int:
    if name not in rolls:
        raise ParamError("rolls", ",".join(f"{k}={v}" for k, v in rolls.items()) or "(none)",
                         f"a value for '{name}' (this exchange needs it)")
    return rolls[name]


SYSTEM = register(System(
    id="kurs",
    title="K.U.R.S.",
    title_ru="К.У.Р.С.",
    seed="004_612ae8415007d305.txt",
    dice="3dK roll-over, dK = (-2, -1, 0, 0, +1, +2) by default",
    Rules=Rules,
    CheckArgs=CheckArgs,
    check=check,
    opposed=opposed,
    table_cases=table_cases,
    value="skill",
    Fighter=Fighter,
    exchange=exchange,
    resolve=resolve,
    duel=duel,
    roll_names=("attack", "defense"),
    combat_skills=("attack_skill", "defense_skill"),
    levels={"out": "«Недееспособен» marked", "dying": "«При смерти» marked", "dead": None},
    duel_states=duel_states,
))
