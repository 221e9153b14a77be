"""ТУН, basic rules (seed ``002_23c6518a39186dbd.txt``): rules and exact math.

Roll-under: success iff ``roll < limit`` (``success_rule = "le"``: ``<=``);
effectiveness ``E = limit - roll``.  Dice: 3d6, or for luck 1d20 or 1d6x3.
Optional criticals: the minimum roll succeeds with E raised by the bonus whose
``<=``-chance is nearest 10%; the maximum roll fails.  See RULES.md section 3.

>>> round(SYSTEM.check(Rules(), CheckArgs(limit=13)).p_success, 6)
0.740741
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from importlib.resources import files
from typing import Any, Iterator

import numpy as np

from ..dist import Dist
from ..params import Bool, Choice, Int, Validated, param
from ..results import CheckResult, OpposedResult, Outcomes
from ..system import System

D6 = Dist.die(range(1, 7))
DICE_MODES = ("3d6", "1d20", "1d6x3")


@dataclass(frozen=True)
class Rules(Validated):
    """The ТУН ruleset: every variant of RULES.md section 3."""

    where = "tun ruleset"
    success_rule: str = param("lt", Choice(("lt", "le")), "success iff roll < limit (the text), or <= (the seed's table)")
    crits: bool = param(False, Bool(), "optional critical rolls: minimum succeeds with an E bonus, maximum fails")
    last_word: bool = param(True, Bool(), "a fighter put out before its turn still takes one action (+1 Body trauma)")
    turn_order: str = param("body", Choice(("body", "roll")), "fixed order by Body (ties: d6 roll-off), or by a d6 roll-off")


@dataclass(frozen=True)
class CheckArgs(Validated):
    """A roll against a limit."""

    where = "tun check"
    limit: int = param(13, Int(), "characteristic + feature + bonuses - penalties (Предел)")
    dice: str = param("3d6", Choice(DICE_MODES), "3d6, or 1d20 / 1d6x3 for luck")


@lru_cache(maxsize=None)
def roll(dice: str) -> Dist:
    """The roll of a dice mode.

    >>> roll("1d6x3").support[[0, -1]].tolist(), len(roll("1d6x3").to_dict())
    ([3, 18], 6)
    """
    return {"3d6": 3 @ D6, "1d20": Dist.die(range(1, 21)), "1d6x3": D6 * 3}[dice]


def crit_bonus(dice: str) -> int:
    """The E bonus of a critical success: the value whose P(roll <= v) is nearest 10%.

    >>> [crit_bonus(d) for d in DICE_MODES]
    [6, 2, 3]
    """
    r = roll(dice)
    return int(r.support[np.argmin(np.abs(r.cdf(r.support) - 0.1))])


def resolve(rules: Rules, dice: str, limit: int, rolls: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised over roll values: (success, E, critical success, critical failure)."""
    r = roll(dice)
    base = rolls <= limit if rules.success_rule == "le" else rolls < limit
    e = limit - rolls
    crit = np.zeros_like(base) if not rules.crits else rolls == r.min
    fumble = np.zeros_like(base) if not rules.crits else rolls == r.max
    success = (base | crit) & ~fumble
    e = np.where(crit, np.maximum(e, 0) + crit_bonus(dice), e)
    return success, e, crit, fumble


def check(rules: Rules, args: CheckArgs) -> CheckResult:
    """P(success), the effectiveness distribution and, with ``crits``, P(crit)/P(fumble)."""
    r = roll(args.dice)
    success, e, crit, fumble = resolve(rules, args.dice, args.limit, r.support)
    return CheckResult(
        system="tun",
        variants=rules.to_dict(),
        params=args.to_dict(),
        p_success=r.prob(success),
        outcome="effectiveness",
        distribution=Dist._from_arrays(e, r.p),
        p_critical=r.prob(crit) if rules.crits else None,
        p_fumble=r.prob(fumble) if rules.crits else None,
    )


def outcomes(rules: Rules, args: CheckArgs) -> Outcomes:
    """Contest (b) outcomes: a success beats a failure, then the larger E wins."""
    r = roll(args.dice)
    success, e, _, _ = resolve(rules, args.dice, args.limit, r.support)
    return Outcomes(p=r.p, key=success.astype(np.int64) * 10_000 + e, score=e)


def opposed(rules: Rules, a: CheckArgs, b: CheckArgs) -> OpposedResult:
    """Contest (b): both roll; the larger effectiveness wins; equal E is a draw."""
    win, tie, lose, margin = outcomes(rules, a).against(outcomes(rules, b))
    rule = "equal effectiveness is a draw (the text is silent)"
    return OpposedResult("tun", rules.to_dict(), a.to_dict(), b.to_dict(), win, lose, tie, margin, rule)


def table_cases(rules: Rules, args: CheckArgs) -> Iterator[tuple[str, Rules, CheckArgs]]:
    """Every dice mode, limits from the minimum roll to one past the maximum."""
    for dice in DICE_MODES:
        r = roll(dice)
        for limit in range(r.min, r.max + 2):
            yield dice, rules, args.replace(limit=limit, dice=dice)


def seed_table() -> list[dict[str, Any]]:
    """Every number printed in the seed's table "Вероятность удачного броска" beside
    the exact P(roll <= v).

    A cell is ``flagged`` when the printed value is a full unit of its last
    printed digit or more away from the exact one; ``explained_by`` says
    whether the print is exact, rounded, truncated (or both), or neither.

    >>> [(c["dice"], c["v"]) for c in seed_table() if c["flagged"]]
    [('3d6', 15), ('3d6', 14)]
    """
    text = files("analysis").joinpath("data/tun_seed_table.csv").read_text(encoding="utf-8")
    rows = csv.DictReader(line for line in io.StringIO(text) if not line.startswith("#"))
    cells = []
    for row in rows:
        v = int(row["le"])
        for dice in DICE_MODES:
            printed = row[dice].strip()
            if not printed:
                continue
            exact = Fraction(float(roll(dice).cdf(v))).limit_denominator(10**6)
            decimals = len(printed.partition(".")[2])
            unit = Fraction(1, 10**decimals)
            value = Fraction(printed)
            cells.append({
                "dice": dice,
                "v": v,
                "printed": float(value),
                "exact": float(exact),
                "difference": float(value - exact),
                "explained_by": _explained_by(value, exact, unit),
                "flagged": abs(value - exact) >= unit,
            })
    return cells


def _explained_by(printed: Fraction, exact: Fraction, unit: Fraction) -> str:
    """"exact", "rounding", "truncation", "rounding or truncation" or "neither"."""
    if printed == exact:
        return "exact"
    rounded = (exact / unit + Fraction(1, 2)).__floor__() * unit
    truncated = (exact / unit).__floor__() * unit
    ways = [name for name, ok in (("rounding", printed == rounded), ("truncation", printed == truncated)) if ok]
    return " or ".join(ways) if ways else "neither"


SYSTEM = System(
    id="tun",
    title="TUN",
    title_ru="ТУН",
    seed="002_23c6518a39186dbd.txt",
    dice="3d6 roll-under (1d20 or 1d6x3 for luck)",
    Rules=Rules,
    CheckArgs=CheckArgs,
    check=check,
    opposed=opposed,
    table_cases=table_cases,
    value="limit",
    extras={"seed_table": seed_table},
)
