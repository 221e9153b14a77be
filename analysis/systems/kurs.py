"""К.У.Р.С. (seed ``004_612ae8415007d305.txt``): rules and exact math.

Roll-over 3dK: total = 3dK + skill + modifiers against a difficulty (usually
0, Нормально).  Total < difficulty fails; = succeeds with a complication;
> succeeds.  Margin = total - difficulty.  The fragment never defines dK; the
default reads it as a d6 labelled -2, -1, 0, 0, +1, +2.  See RULES.md section 4.

>>> r = SYSTEM.check(Rules(), CheckArgs(skill=0))
>>> round(r.p_success, 6), round(r.extra["p_complication"], 6)
(0.587963, 0.175926)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

import numpy as np

from ..dist import Dist
from ..params import Bool, Choice, Faces, Int, Validated, param
from ..results import CheckResult, OpposedResult, Outcomes
from ..system import System

DK_PRESETS = {"default": (-2, -1, 0, 0, 1, 2), "fudge": (-1, 0, 1), "d5": (-2, -1, 0, 1, 2)}
LADDER = {0: "Нормально", 1: "Неплохо", 2: "Хорошо", 3: "Очень хорошо", 4: "Отлично", 5: "Великолепно"}
LUCK_BONUS = 3


@dataclass(frozen=True)
class Rules(Validated):
    """The К.У.Р.С. ruleset: every variant of RULES.md section 4."""

    where = "kurs ruleset"
    dk_faces: tuple[int, ...] = param(DK_PRESETS["default"], Faces(presets=DK_PRESETS, max_faces=20, lo=-10, hi=10),
                                      "faces of dK (3dK per check)")
    defense_clamp: bool = param(True, Bool(), "defense roll clamped: >0 as is, -4..0 -> 0, <= -5 -> -1 (false: the example)")
    luck_tokens: int = param(0, Int(0, 10), "luck tokens (+3) per fighter, spent on the first check failing by 3 or less")
    wound_penalty: str = param("sum", Choice(("sum", "worst", "local")), "general penalties of marked boxes summed, the worst, or local")
    fatigue_soak: str = param("when_lower", Choice(("when_lower", "never")), "a fatigue box soaks 1 point of a wound when that lowers the level")
    type_bonus: str = param("penetrating", Choice(("penetrating", "always")), "weapon type bonus only when the attack got through the armor")


@dataclass(frozen=True)
class CheckArgs(Validated):
    """A one-sided action."""

    where = "kurs check"
    skill: int = param(0, Int(), "skill (ladder: Нормально 0 ... Великолепно +5)")
    difficulty: int = param(0, Int(), "difficulty, usually 0 (Нормально)")
    mod: int = param(0, Int(), "technique, properties, bonuses and penalties")


@lru_cache(maxsize=64)
def roll(faces: tuple[int, ...]) -> Dist:
    """The 3dK roll.

    >>> roll(DK_PRESETS["fudge"]).to_dict()[3] == 1 / 27
    True
    """
    return 3 @ Dist.die(faces)


def spend_luck(margin: np.ndarray, tokens: int) -> np.ndarray:
    """A luck token (+3) turns a failure by 1..3 into a success."""
    if tokens <= 0:
        return margin
    return np.where((margin >= -LUCK_BONUS) & (margin < 0), margin + LUCK_BONUS, margin)


def check(rules: Rules, args: CheckArgs) -> CheckResult:
    """P(success, complication included), the margin distribution, P(complication)."""
    shift = args.skill + args.mod - args.difficulty
    margin = (roll(rules.dk_faces) + shift).map(lambda m: spend_luck(m, rules.luck_tokens))
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
    total = roll(rules.dk_faces) + (args.skill + args.mod)
    return Outcomes(p=total.p, key=total.support, score=total.support)


def opposed(rules: Rules, a: CheckArgs, b: CheckArgs) -> OpposedResult:
    """Opposed action: A's total against B's; equal totals are A's success with a complication.

    >>> res = opposed(Rules(), CheckArgs(skill=2), CheckArgs(skill=3))
    >>> res.p_a_wins < res.p_b_wins
    True
    """
    win, tie, lose, margin = outcomes(rules, a).against(outcomes(rules, b))
    rule = "equal totals: A succeeds with a complication"
    return OpposedResult("kurs", rules.to_dict(), a.to_dict(), b.to_dict(), win, lose, tie, margin, rule)


def table_cases(rules: Rules, args: CheckArgs) -> Iterator[tuple[str, Rules, CheckArgs]]:
    """Skills from one below certain failure to certain success (difficulty as given)."""
    r = roll(rules.dk_faces)
    lo = args.difficulty - args.mod - r.max - 1
    hi = args.difficulty - args.mod - r.min + LUCK_BONUS * (rules.luck_tokens > 0)
    for skill in range(max(lo, -100), min(hi, 100) + 1):
        yield "3dK", rules, args.replace(skill=skill)


SYSTEM = System(
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
)
