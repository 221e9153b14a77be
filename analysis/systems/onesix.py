"""The 2K system with the rule of 1 and 6 (seed ``001_6962a97dba69780a.txt``).

2K: two d6; a 1 adds 0; a 6 adds 6 and rolls one more die, which obeys the
same rule, without limit.  Test result ``RT = rating + mod + 2K``; success iff
``RT >= 15``; success level ``U = 1 + floor((RT - 15) / 3)``, 0 on failure.
The explosion is unbounded, so every result carries its truncation bound
(``residual``).  See RULES.md section 2.

Daisy's boat manoeuvre: rating 9; her dice show 1 and 6, the extra die 4:
2K = 0 + 6 + 4 = 10, RT 19, success level 2.

>>> success_level(np.array([19]), skilled=True).tolist()
[2]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator, Sequence

import numpy as np

from ..dist import Dist
from ..params import Bool, Choice, Int, ParamError, Validated, param
from ..results import CheckResult, OpposedResult, Outcomes
from ..system import System

THRESHOLD = 15
FUMBLE_BELOW = 6
P_DOUBLE_ONE = 1 / 36
BASE_FACES = (0, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class Rules(Validated):
    """The 2K ruleset: every variant of RULES.md section 2."""

    where = "onesix ruleset"
    extra_die_ones: str = param("zero", Choice(("zero", "count")), "an extra (exploded) die's 1 adds 0, or counts 1")
    explode_depth: int | None = param(None, Int(0, 50, optional=True), "at most N extra dice per die (none: unlimited)")
    excess_over: str = param("threshold", Choice(("threshold", "defense")), "damage excess over 15, or over the defender's RT")
    armor_wear: bool = param(False, Bool(), "armor loses 1 absorption/protection per hit (3 if damage >= 2x)")


@dataclass(frozen=True)
class CheckArgs(Validated):
    """A test by the main scheme."""

    where = "onesix check"
    rating: int = param(9, Int(), "action rating RD = attribute + skill")
    mod: int = param(0, Int(), "modifiers (calm situation +3, condition penalty -n, ...)")
    skilled: bool = param(True, Bool(), "a matching skill; without one U is capped at 1")
    gear_rating: int | None = param(None, Int(optional=True), "rating of the gear for the double-one reliability test")


@lru_cache(maxsize=64)
def die(rules: Rules) -> Dist:
    """One die under the rule of 1 and 6 (mean exactly 4 under the default).

    >>> round(die(Rules()).mean(), 12)
    4.0
    """
    extra = (1, 2, 3, 4, 5, 6) if rules.extra_die_ones == "count" else BASE_FACES
    return Dist.exploding(BASE_FACES, (6,), extra_faces=extra, depth=rules.explode_depth)


@lru_cache(maxsize=64)
def two_k(rules: Rules) -> Dist:
    """The 2K roll.

    >>> round(two_k(Rules()).mean(), 12), float(two_k(Rules()).pmf(0)) == 1 / 36
    (8.0, True)
    """
    return die(rules) + die(rules)


def chain_value(faces: Sequence[int], rules: Rules) -> int:
    """The value of one die as rolled: its face, then the extra dice its sixes called.

    >>> chain_value([1], Rules()), chain_value([6, 4], Rules()), chain_value([6, 6, 1], Rules())
    (0, 10, 12)
    """
    faces = [int(f) for f in faces]
    if not faces or any(not 1 <= f <= 6 for f in faces):
        raise ParamError("faces", tuple(faces), "a non-empty list of d6 faces 1..6")
    limit = 1 + (rules.explode_depth if rules.explode_depth is not None else len(faces))
    needed = 1
    while needed < len(faces) + 1 and faces[needed - 1] == 6 and needed < limit:
        needed += 1
    if needed != len(faces):
        raise ParamError("faces", tuple(faces), f"exactly the dice the sixes call for ({needed} here)")
    ones = 1 if rules.extra_die_ones == "count" else 0
    return sum(0 if f == 1 and (i == 0 or not ones) else f for i, f in enumerate(faces))


def success_level(rt: np.ndarray, skilled: bool) -> np.ndarray:
    """U = 1 + floor((RT - 15) / 3) for RT >= 15, else 0; capped at 1 without a skill."""
    u = np.where(rt >= THRESHOLD, 1 + (rt - THRESHOLD) // 3, 0)
    return u if skilled else np.minimum(u, 1)


def test_result(rules: Rules, rating: int, mod: int = 0) -> Dist:
    """The distribution of RT = rating + mod + 2K."""
    return two_k(rules) + (rating + mod)


def check(rules: Rules, args: CheckArgs) -> CheckResult:
    """P(success), the success-level distribution, P(RT < 6) and the equipment fault."""
    rt = test_result(rules, args.rating, args.mod)
    extra = {"p_equipment_fault": P_DOUBLE_ONE, "mean_rt": rt.mean()}
    if args.gear_rating is not None:
        extra["p_gear_breaks"] = P_DOUBLE_ONE * float(test_result(rules, args.gear_rating).cdf(THRESHOLD - 1))
    return CheckResult(
        system="onesix",
        variants=rules.to_dict(),
        params=args.to_dict(),
        p_success=float(rt.sf(THRESHOLD - 1)),
        outcome="success_level",
        distribution=rt.map(lambda v: success_level(v, args.skilled)),
        p_fumble=float(rt.cdf(FUMBLE_BELOW - 1)),
        extra=extra,
    )


def outcomes(rules: Rules, args: CheckArgs) -> Outcomes:
    """Opposition outcomes: the higher RT wins."""
    rt = test_result(rules, args.rating, args.mod)
    return Outcomes(p=rt.p, key=rt.support, score=rt.support, residual=rt.residual)


def opposed(rules: Rules, a: CheckArgs, b: CheckArgs) -> OpposedResult:
    """The scheme of opposition: the higher RT wins (B is the reacting side).

    >>> res = opposed(Rules(), CheckArgs(rating=9), CheckArgs(rating=9))
    >>> abs(res.p_a_wins - res.p_b_wins) < 1e-12
    True
    """
    win, tie, lose, margin = outcomes(rules, a).against(outcomes(rules, b))
    rule = "equal RT: both succeed at once; when B reacts to A, B (the reacting side) wins"
    return OpposedResult("onesix", rules.to_dict(), a.to_dict(), b.to_dict(), win, lose, tie, margin, rule)


def table_cases(rules: Rules, args: CheckArgs) -> Iterator[tuple[str, Rules, CheckArgs]]:
    """Ratings 0..15 (from 15 on, success is certain)."""
    for rating in range(0, THRESHOLD + 1):
        yield "2K", rules, args.replace(rating=rating)


SYSTEM = System(
    id="onesix",
    title="2K, rule of 1 and 6",
    title_ru="2К, правило 1 и 6",
    seed="001_6962a97dba69780a.txt",
    dice="2K: 2d6, a 1 adds 0, a 6 adds 6 and rolls again (unbounded)",
    Rules=Rules,
    CheckArgs=CheckArgs,
    check=check,
    opposed=opposed,
    table_cases=table_cases,
    value="rating",
)
