"""ТУН, basic rules (seed ``002_23c6518a39186dbd.txt``): rules and exact math.

Roll-under: success iff ``roll < limit`` (``success_rule = "le"``: ``<=``);
effectiveness ``E = limit - roll``.  Dice: 3d6, or for luck 1d20 or 1d6x3.
Optional criticals: the minimum roll succeeds with E raised by the bonus whose
``<=``-chance is nearest 10%; the maximum roll fails.  See RULES.md section 3.

Combat: the attacker's limit is Body + attack feature - the target's Body
defense (when it defends); a success inflicts ``E*n + b`` Body trauma.  A duel
keeps the order of the first round; each turn is two attacks, and a fighter
put out before its turn has the last word (one attack, +1 Body trauma).

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
from typing import Any, Iterator, Mapping

import numpy as np
from .._lazy import sp

from .. import markov
from ..combat import Branch, DuelRules, DuelResult, ExchangeResult, Resolution, branch_kernel, describe_fighter, summarize
from ..dist import Dist
from ..params import Bool, Choice, DicelabError, FighterBase, Int, ParamError, Validated, param
from ..results import CheckResult, OpposedResult, Outcomes
from ..system import System

D6 = Dist.die(range(1, 7))
DICE_MODES = ("3d6", "1d20", "1d6x3")


@dataclass(frozen=True)
class Rules(DuelRules):
    """The ТУН ruleset: every variant of RULES.md section 3."""

    where = "tun ruleset"
    success_rule: str = param("lt", Choice(("lt", "le")), "success iff roll < limit (the text), or <= (the seed's table)")
    crits: bool = param(False, Bool(), "optional critical rolls: minimum succeeds with an E bonus, maximum fails")
    last_word: bool = param(True, Bool(), "a fighter put out before its turn still takes one action (+1 Body trauma)")
    dying_last_word: bool = param(True, Bool(), "the last word also for a fighter put out with trauma > 2 x volume "
                                  "(the seed: it dies within the hour, not at once)")
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


def outcome_arrays(rules: Rules, dice: str, limit: int, rolls: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
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
    success, e, crit, fumble = outcome_arrays(rules, args.dice, args.limit, r.support)
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
    success, e, _, _ = outcome_arrays(rules, args.dice, args.limit, r.support)
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


# ------------------------------------------------------------------- combat
MAX_CHARACTERISTIC = 24
MAX_EXTRA = 12


@dataclass(frozen=True)
class Fighter(FighterBase):
    """A ТУН fighter: the three characteristics, the Body resource, one attack feature and one weapon.

    >>> red = Fighter(body=13, mind=10, unusual=5, attack_feature=6, weapon_n=2, weapon_b=1)
    >>> red.derived(Rules()), attack_limit(red, Fighter(body=12, mind=15))
    ({'body_volume': 13, 'body_defense': 7}, 13)
    """

    where = "tun fighter"
    body: int = param(10, Int(1, MAX_CHARACTERISTIC),
                      "Body characteristic (ТХ): attack limit, Body volume and defense, turn order")
    mind: int = param(10, Int(0, MAX_CHARACTERISTIC), "Mind characteristic (УХ); echoed, not used in a duel")
    unusual: int = param(0, Int(0, MAX_CHARACTERISTIC), "Unusual characteristic (НХ); echoed, not used in a duel")
    attack_feature: int = param(0, Int(-MAX_EXTRA, MAX_EXTRA),
                                "the feature added to the attack limit (the seed's Red: throwing 6)")
    extra_volume: int = param(0, Int(0, MAX_EXTRA), "extra Body volume (ДОТР): Body volume = body + extra_volume")
    extra_defense: int = param(0, Int(0, MAX_EXTRA),
                               "extra Body defense (ДТЗ): Body defense = ceil(body / 2) + extra_defense")
    defends: bool = param(True, Bool(), "consciously defends in melee: attackers subtract its Body defense")
    weapon_n: int = param(1, Int(1, 6), "weapon multiplier n of trauma = E*n + b (unarmed 1)")
    weapon_b: int = param(0, Int(0, 20), "weapon bonus b of trauma = E*n + b (unarmed 0)")
    dice: str = param("3d6", Choice(DICE_MODES), "the attack roll: 3d6, or 1d20 / 1d6x3 for luck")

    @property
    def volume(self) -> int:
        """Body volume (ОТР): out at this much trauma, dead above twice it."""
        return self.body + self.extra_volume

    @property
    def defense(self) -> int:
        """Body defense (ТЗ), rounded up as the seed says."""
        return -(-self.body // 2) + self.extra_defense

    def derived(self, rules: Rules) -> dict[str, int]:
        return {"body_volume": self.volume, "body_defense": self.defense}


def attack_limit(att: Fighter, dfn: Fighter) -> int:
    """Body + attack feature - the target's Body defense if it defends."""
    return att.body + att.attack_feature - (dfn.defense if dfn.defends else 0)


def trauma_label(f: Fighter, trauma: int) -> Any:
    """The condition with this much Body trauma: ``trauma`` (up), ``("out", trauma)`` or ``"dead"``."""
    if trauma > 2 * f.volume:
        return "dead"
    return trauma if trauma < f.volume else ("out", trauma)


@lru_cache(maxsize=256)
def track(f: Fighter) -> markov.Track:
    """Body trauma 0..volume-1 (up), volume..2*volume (out, kept for the last word's +1) and dead."""
    v = f.volume
    labels = tuple(trauma_label(f, t) for t in range(2 * v + 1)) + ("dead",)
    status = (markov.UP,) * v + (markov.OUT,) * (v + 1) + (markov.DYING,)
    return markov.Track(labels=labels, status=status)


def condition_label(label: Any) -> str:
    """A track label as text: ``trauma 3``, ``out (trauma 13)`` or ``dead``."""
    if label == "dead":
        return "dead"
    return f"out (trauma {label[1]})" if isinstance(label, tuple) else f"trauma {label}"


@lru_cache(maxsize=256)
def _attack_table(rules: Rules, att: Fighter, dfn: Fighter) -> tuple[float, tuple[tuple[float, int, bool], ...]]:
    """(P(miss), ((p, trauma, critical) of each successful roll value))."""
    r = roll(att.dice)
    success, e, crit, _ = outcome_arrays(rules, att.dice, attack_limit(att, dfn), r.support)
    hits = tuple((float(p), int(x) * att.weapon_n + att.weapon_b, bool(c))
                 for p, x, c, ok in zip(r.p, e, crit, success) if ok and p > 0)
    return r.prob(~success), hits


def branches(rules: Rules, att: Fighter, dfn: Fighter, trauma: int) -> list[Branch]:
    """Every way one attack on a defender with ``trauma`` Body trauma can go."""
    miss, hits = _attack_table(rules, att, dfn)
    t = track(dfn)
    out = [Branch(miss, "miss", 0, t.index[trauma_label(dfn, trauma)])]
    out += [Branch(p, "hit", d, t.index[trauma_label(dfn, trauma + d)], c) for p, d, c in hits]
    return [b for b in out if b.p > 0]


def exchange(rules: Rules, att: Fighter, dfn: Fighter) -> ExchangeResult:
    """One attack of ``att`` on an unhurt ``dfn``, exactly.

    >>> red = Fighter(body=13, attack_feature=6, weapon_n=2, weapon_b=1)
    >>> res = exchange(Rules(), red, Fighter(body=12))
    >>> round(res.p_hit, 6), res.damage.max
    (0.740741, 21)
    """
    limit = attack_limit(att, dfn)
    defense = f" - Body defense {dfn.defense}" if dfn.defends else " (the target does not defend)"
    notes = [f"limit {limit} = Body {att.body} + attack feature {att.attack_feature}{defense}",
             f"trauma = E*{att.weapon_n} + {att.weapon_b} to the Body"]
    return summarize("tun", rules, att, dfn, branches(rules, att, dfn, 0), track(dfn), condition_label, notes)


@lru_cache(maxsize=256)
def _kernel(rules: Rules, att: Fighter, dfn: Fighter) -> sp.csr_matrix:
    """One attack of ``att`` as a Markov kernel over ``dfn``'s track (shared: never modified)."""
    t = track(dfn)
    return branch_kernel(t, lambda i: branches(rules, att, dfn, t.labels[i]))


def _last_word(rules: Rules, speaker: Fighter, target: Fighter, side: str) -> sp.csr_matrix:
    """Over the joint space: ``speaker`` (side ``a``/``b``), put out while ``target`` is up, attacks once and
    takes 1 more Body trauma; every other state is unchanged."""
    ts, tt = track(speaker), track(target)
    allowed = (markov.OUT, markov.DYING) if rules.dying_last_word else (markov.OUT,)
    speaks = [i for i, s in enumerate(ts.status) if s in allowed]
    after = [ts.index[trauma_label(speaker, ts.labels[i][1] + 1)] if ts.labels[i] != "dead" else i for i in speaks]
    cost = sp.csr_matrix((np.ones(len(speaks)), (speaks, after)), shape=(len(ts), len(ts)))
    mask_s = sp.diags(np.isin(np.arange(len(ts)), speaks).astype(float))
    up_t = sp.diags(tt.up.astype(float))
    hit = up_t @ _kernel(rules, speaker, target)
    if side == "a":
        move, where = sp.kron(cost, hit), sp.kron(mask_s, up_t)
    else:
        move, where = sp.kron(hit, cost), sp.kron(up_t, mask_s)
    return (move + sp.identity(where.shape[0]) - where).tocsr()


def _round(rules: Rules, first: Fighter, second: Fighter, first_side: str) -> sp.csr_matrix:
    """One round over the joint space (A x B): ``first``'s two attacks, the last word of ``second``, then
    ``second``'s two attacks; rows of states where someone is already out are the identity."""
    a, b = (first, second) if first_side == "a" else (second, first)
    ta, tb = track(a), track(b)
    second_side = "b" if first_side == "a" else "a"
    one_first = markov.attack(ta, tb, {0: _kernel(rules, first, second)}, first_side)
    one_second = markov.attack(ta, tb, {0: _kernel(rules, second, first)}, second_side)
    m = one_first @ one_first
    if rules.last_word:
        m = m @ _last_word(rules, second, first, second_side)
    m = m @ one_second @ one_second
    live = np.kron(ta.up, tb.up).astype(float)
    return (sp.diags(live) @ m + sp.diags(1.0 - live)).tocsr()


def first_mover(rules: Rules, a: Fighter, b: Fighter) -> tuple[float, float, str]:
    """(P(A acts first), P(B acts first), how the order was fixed)."""
    if rules.turn_order == "body" and a.body != b.body:
        first = "A" if a.body > b.body else "B"
        return float(first == "A"), float(first == "B"), f"{first} first by Body ({a.body} against {b.body})"
    why = "equal Body: " if rules.turn_order == "body" else ""
    return 0.5, 0.5, why + "a d6 roll-off (re-rolled on ties) fixes the order, each first with 1/2"


def duel(rules: Rules, a: Fighter, b: Fighter) -> DuelResult:
    """The order fixed at the first round; each turn two attacks; the last word; until someone is out.

    >>> res = duel(Rules(), Fighter(body=13, attack_feature=6, weapon_n=2, weapon_b=1), Fighter(body=12))
    >>> res.solution.p_a_wins > 0.99
    True
    """
    _stop_only(rules)
    ta, tb = track(a), track(b)
    p_a, p_b, how = first_mover(rules, a, b)
    parts = [(p, markov.solve(_round(rules, first, second, side), ta, tb, (0, 0)))
             for p, first, second, side in ((p_a, a, b, "a"), (p_b, b, a, "b")) if p > 0]
    order = f"fixed at the first round: {how}; a turn is two attacks" + \
        ("; the last word" + (" (also when dying)" if rules.dying_last_word else "") if rules.last_word else "")
    return DuelResult("tun", rules.to_dict(), describe_fighter(a, rules), describe_fighter(b, rules), order,
                      markov.mix_solutions(parts, ta, tb))


def _stop_only(rules: Any) -> None:
    if rules.after_out != "stop":
        raise DicelabError(f"after_out = {rules.after_out!r} is not modelled yet for this system; allowed: stop")


def resolve(rules: Rules, att: Fighter, dfn: Fighter, rolls: Mapping[str, int]) -> Resolution:
    """One attack on an unhurt ``dfn`` with ``attack`` = the value rolled on the attacker's dice.

    >>> red = Fighter(body=13, attack_feature=6, weapon_n=2, weapon_b=1)
    >>> res = resolve(Rules(), red, Fighter(body=12), {"attack": 11})
    >>> res.hit, res.fields["effectiveness"], res.damage
    (True, 2, 5)
    """
    r = roll(att.dice)
    for name, value in rolls.items():
        if r.pmf(value) == 0:
            faces = ", ".join(str(v) for v in r.to_dict()) if att.dice == "1d6x3" else f"{r.min}..{r.max}"
            raise ParamError(f"rolls.{name}", value, f"a {att.dice} roll in {faces}")
    if "attack" not in rolls:
        raise ParamError("rolls", ",".join(f"{k}={v}" for k, v in rolls.items()) or "(none)",
                         "a value for 'attack' (this exchange needs it)")
    value = rolls["attack"]
    limit = attack_limit(att, dfn)
    success, e, crit, fumble = (x[0] for x in outcome_arrays(rules, att.dice, limit, np.array([value])))
    sign = "<=" if rules.success_rule == "le" else "<"
    defense = (f" - {dfn.name}'s Body defense {dfn.defense} (defends)" if dfn.defends
               else f" ({dfn.name} does not defend: no defense)")
    steps = [f"limit: Body {att.body} + attack feature {att.attack_feature}{defense} = {limit}"]
    if crit:
        steps.append(f"attack: {att.dice} = {value}, the minimum: critical success, "
                     f"E = max({limit} - {value}, 0) + {crit_bonus(att.dice)} = {e}")
    elif fumble:
        steps.append(f"attack: {att.dice} = {value}, the maximum: critical failure, miss")
    else:
        steps.append(f"attack: {att.dice} = {value} {sign} {limit}? "
                     + (f"yes: hit, E = {limit} - {value} = {e}" if success else "no: miss"))
    damage = int(e) * att.weapon_n + att.weapon_b if success else 0
    if success:
        steps.append(f"trauma: E*{att.weapon_n} + {att.weapon_b} = {e}*{att.weapon_n} + {att.weapon_b} "
                     f"= {damage} Body trauma")
    label = trauma_label(dfn, damage)
    condition = "dead" if label == "dead" else "out" if isinstance(label, tuple) else "up"
    steps.append(f"{dfn.name}'s Body: volume {dfn.volume}, trauma 0 -> {damage}: {condition}"
                 + {"up": "", "out": " (trauma >= volume)", "dead": " (trauma > 2 x volume)"}[condition])
    fields = {"limit": limit, "effectiveness": int(e), "critical": bool(crit), "fumble": bool(fumble),
              "trauma_after": damage, "condition": condition}
    return Resolution("tun", rules.to_dict(), describe_fighter(att, rules), describe_fighter(dfn, rules),
                      dict(rolls), steps, bool(success), damage, damage, fields)


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
    Fighter=Fighter,
    exchange=exchange,
    resolve=resolve,
    duel=duel,
    roll_names=("attack",),
    combat_skills=("attack_feature", "extra_defense"),
    levels={"out": "trauma + fatigue >= volume: «теряет сознание»",
            "dying": "trauma > 2 x volume: «не позднее чем через час… умирает»", "dead": None},
    round_seconds=4,
)
