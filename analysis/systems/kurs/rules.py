"""К.У.Р.С.'s ruleset, checks and the fighter (RULES.md section 4): the dK roll, one-sided and opposed actions,
luck tokens, the defense clamp.

>>> r = check(Rules(), CheckArgs(skill=0))
>>> round(r.p_success, 6), round(r.extra["p_complication"], 6)
(0.587963, 0.175926)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from analysis.base.params import Bool, Choice, Faces, FighterBase, Int, Row, Validated, param
from analysis.engine.combat import DuelRules
from analysis.engine.dist import Dist
from analysis.engine.results import CheckResult, OpposedResult, Outcomes

DK_PRESETS = {"default": (-2, -1, 0, 0, 1, 2), "fudge": (-1, 0, 1), "d5": (-2, -1, 0, 1, 2)}
LADDER = {0: "Нормально", 1: "Неплохо", 2: "Хорошо", 3: "Очень хорошо", 4: "Отлично", 5: "Великолепно"}
LEVELS = ("fatigue", "light", "medium", "heavy", "incapacitated", "dying")
FATIGUE, LIGHT, MEDIUM, HEAVY, INCAPACITATED, DYING = range(len(LEVELS))
PAINED = LEVELS[:INCAPACITATED]
"""The levels whose marked boxes carry a wound penalty (a fighter still acting can only have these)."""
STANCES = ("normal", "offensive", "defensive", "no_defense")
TRADES = ("offensive", "defensive")
DODGES = ("never", "out", "wound")
TARGETS = ("weakest", "random", "strongest", "spread")
DODGE_FROM = {"out": INCAPACITATED, "wound": LIGHT}
"""effort_dodge: the lightest level a hit must be about to mark for the fighter to dodge it."""


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
    stance: str = param("normal", Choice(STANCES), "declared on its own turn (normal before its first): normal; "
                        "offensive (+trade_bonus attack, -trade_bonus defense until its next turn) or defensive (the "
                        "reverse), priced by trade_cost; no_defense (from its first turn never defends, so attacks on "
                        "it are one-sided; +no_defense_bonus to its attacks)", kind="policy")
    effort_dodge: str = param("never", Choice(DODGES), "mark dodge_fatigue free fatigue boxes to evade a hit entirely: "
                              "never, when it would mark incapacitated or dying (out), or any wound box (wound); not "
                              "against one-sided attacks", kind="policy")
    target: str = param("weakest", Choice(TARGETS), "whom it attacks in a group fight (RULES.md section 7): the able "
                        "enemy whose most severe marked box is heaviest, compared from the heaviest level down "
                        "(weakest), any able enemy at random, the one with the highest attack skill (strongest), or "
                        "the one attacked least this round (spread); ties by listed order; inert in a duel",
                        kind="policy")

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

