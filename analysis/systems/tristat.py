"""Tri-Stat dX (seed ``000_b535f6ff666a0665.txt``): rules and exact math.

Roll-under 2dX: success iff ``2dX <= target``; natural 2 always succeeds (a
critical), natural 2X always fails.  Margin = ``target - roll``.  See
RULES.md section 1.

>>> r = SYSTEM.check(Rules(), CheckArgs(target=7))
>>> round(r.p_success, 6), r.p_critical == 1 / 36
(0.583333, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..dist import Dist
from ..params import Bool, Choice, Int, Validated, param
from ..results import CheckResult, OpposedResult, Outcomes
from ..system import System

DICE = (4, 6, 8, 10, 12, 20)
HEROISM = {4: "subhuman", 6: "human", 8: "post-human", 10: "superhuman", 12: "inhuman", 20: "godlike"}


@dataclass(frozen=True)
class Rules(Validated):
    """The Tri-Stat ruleset: the campaign die and every variant of RULES.md."""

    where = "tristat ruleset"
    die: int = param(6, Choice(DICE), "X of 2dX, fixed per campaign (d4 subhuman ... d20 godlike)")
    contest_tie: str = param("draw", Choice(("draw", "reroll")), "equal contest results: a draw, or roll again")
    cv_rounding: str = param("floor", Choice(("floor", "nearest")), "rounding of (body+mind+soul)/3")
    initiative_once: bool = param(False, Bool(), "initiative rolled once per fight instead of every round")
    acv_in_max: bool = param(False, Bool(), "the ACV bonus sits inside max damage (scaled by the table)")
    damage_rounding: str = param("floor", Choice(("floor", "nearest")), "rounding of the damage percentage")
    shock_rule: bool = param(False, Bool(), "lab stand-in: a hit above health/5 forces a Body check or out")


@dataclass(frozen=True)
class CheckArgs(Validated):
    """A check: the target number (stat or stats' mean + skill + modifiers)."""

    where = "tristat check"
    target: int = param(7, Int(), "stat + skill + modifier; success iff 2dX <= target")


def roll(die: int) -> Dist:
    """The 2dX roll.

    >>> roll(4).to_dict()[5]
    0.25
    """
    return 2 @ Dist.die(range(1, die + 1))


def succeeds(rolls: np.ndarray, target: int, die: int) -> np.ndarray:
    """Success mask over 2dX values: natural 2 always, natural 2X never."""
    return (rolls == 2) | ((rolls <= target) & (rolls != 2 * die))


def check(rules: Rules, args: CheckArgs) -> CheckResult:
    """P(success), the margin distribution, P(natural 2) and P(natural 2X)."""
    r = roll(rules.die)
    return CheckResult(
        system="tristat",
        variants=rules.to_dict(),
        params=args.to_dict(),
        p_success=r.prob(lambda v: succeeds(v, args.target, rules.die)),
        outcome="margin",
        distribution=args.target - r,
        p_critical=float(r.pmf(2)),
        p_fumble=float(r.pmf(2 * rules.die)),
    )


def outcomes(rules: Rules, args: CheckArgs) -> Outcomes:
    """Contest outcomes: a success beats a failure, then the larger margin wins."""
    r = roll(rules.die)
    v = r.support
    ok = succeeds(v, args.target, rules.die)
    margin = args.target - v
    return Outcomes(p=r.p, key=ok.astype(np.int64) * 10_000 + margin, score=margin)


def opposed(rules: Rules, a: CheckArgs, b: CheckArgs) -> OpposedResult:
    """A contest: both roll; the larger margin of success (smaller of failure) wins.

    >>> res = opposed(Rules(), CheckArgs(target=7), CheckArgs(target=7))
    >>> abs(res.p_a_wins - res.p_b_wins) < 1e-15
    True
    """
    win, tie, lose, margin = outcomes(rules, a).against(outcomes(rules, b))
    if rules.contest_tie == "reroll":
        win, lose, tie = win / (win + lose), lose / (win + lose), 0.0
        rule = "equal results are rolled again"
    else:
        rule = "equal results are a draw"
    return OpposedResult("tristat", rules.to_dict(), a.to_dict(), b.to_dict(), win, lose, tie, margin, rule)


def table_cases(rules: Rules, args: CheckArgs) -> Iterator[tuple[str, Rules, CheckArgs]]:
    """Every die, every target from 2 to 2X."""
    for die in DICE:
        r = rules.replace(die=die)
        for target in range(2, 2 * die + 1):
            yield f"2d{die}", r, args.replace(target=target)


SYSTEM = System(
    id="tristat",
    title="Tri-Stat dX",
    title_ru="Tri-Stat dX",
    seed="000_b535f6ff666a0665.txt",
    dice="2dX roll-under, X in " + ", ".join(f"d{d}" for d in DICE),
    Rules=Rules,
    CheckArgs=CheckArgs,
    check=check,
    opposed=opposed,
    table_cases=table_cases,
    value="target",
    rule_flags=("die",),
)
