"""Tri-Stat dX (seed ``000_b535f6ff666a0665.txt``): rules and exact math.

Roll-under 2dX: success iff ``2dX <= target``; natural 2 always succeeds (a
critical), natural 2X always fails.  Margin = ``target - roll``.  Combat: an
attack check, the defender's dodge or block (RULES.md section 1), damage from
the table plus the attacker's acv; Health < 0 is out, Health <= -max is dying.
Every number of section 1 is a ruleset constant (``critical_multiplier`` ...).

>>> r = SYSTEM.check(Rules(), CheckArgs(target=7))
>>> round(r.p_success, 6), r.p_critical == 1 / 36
(0.583333, True)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Iterator, Mapping, NamedTuple

import numpy as np

from analysis.base.lazy import sp
from analysis.base.params import Bool, Choice, DicelabError, Faces, FighterBase, Int, ParamError, Validated, param
from analysis.engine import markov
from analysis.engine.assumptions import FIGHTS, Assumption, When, positive
from analysis.engine.combat import (
    FINISH_ATTACKS,
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

DICE = (4, 6, 8, 10, 12, 20)
HEROISM = {4: "subhuman", 6: "human", 8: "post-human", 10: "superhuman", 12: "inhuman", 20: "godlike"}
DAMAGE_TABLE = {  # the seed's table: upper bounds of the 2dX results giving 100%, 75%, 50% of max damage; above: 25%
    4: (2, 4, 7), 6: (3, 6, 10), 8: (4, 8, 13), 10: (5, 10, 16), 12: (6, 12, 19), 20: (10, 20, 32),
}
MAX_HEALTH = 300
"""The exact chain's limit on a fighter's health (its track has about 2 x health conditions)."""
HEALTH_PER_POINT = 5
"""The book's health per point of Body and Soul («Здоровье: (Тело + Дух) х 5»)."""
STANCES = ("normal", "total_defence")


@dataclass(frozen=True)
class Bands(Faces):
    """The damage table's bands for the campaign die: ``book`` (the seed's column) or the upper 2dX bound of
    every band but the last.

    >>> Bands().parse("damage_bands", "book"), Bands().parse("damage_bands", "3,6,10")
    ('book', (3, 6, 10))
    """

    @property
    def allowed(self) -> str:  # type: ignore[override]
        return "book (the seed's column for the die) or " + super().allowed

    def parse(self, name: str, text: str) -> Any:
        return "book" if str(text).strip() == "book" else super().parse(name, text)

    def validate(self, name: str, value: Any) -> Any:
        return "book" if value == "book" else super().validate(name, value)

    def to_json(self, value: Any) -> Any:
        return value if value == "book" else list(value)


@dataclass(frozen=True)
class Rules(DuelRules):
    """The Tri-Stat ruleset: the campaign die, every variant of RULES.md, the book's numbers and the duel options."""

    where = "tristat ruleset"
    die: int = param(6, Choice(DICE), "X of 2dX, fixed per campaign (d4 subhuman ... d20 godlike)")
    contest_tie: str = param("draw", Choice(("draw", "reroll")), "equal contest results: a draw, or roll again")
    cv_rounding: str = param("floor", Choice(("floor", "nearest")), "rounding of (body+mind+soul)/3")
    initiative_once: bool = param(False, Bool(), "initiative rolled once per fight instead of every round "
                                  "(inert one-on-one: both attack every round)")
    acv_in_max: bool = param(False, Bool(), "armed attacks: the ACV bonus sits inside max damage (scaled by the "
                             "table); unarmed max damage stays 0")
    critical_acv: str = param("once", Choice(("once", "literal")), "a critical: critical_multiplier x the weapon's "
                              "max + acv (once), or with acv_in_max literally 2 x (weapon + acv) + acv")
    damage_rounding: str = param("floor", Choice(("floor", "nearest")), "rounding of the damage percentage")
    shock_rule: bool = param(False, Bool(), "lab stand-in: a hit above the shock value (health / shock_divisor) "
                             "forces a Body check or out")
    block_rule: str = param("absorb", Choice(("absorb", "negate")), "a successful block: the object's armour "
                            "absorbs and the rest goes through (absorb), or it stops everything (negate, the old "
                            "reading)")
    stat_limits: str = param("enforce", Choice(("enforce", "warn")), "stats 1..X, skills 0..X/2, acv 1..X, health "
                             "10..10X: reject a fighter outside them (enforce) or accept and flag every output (warn)")
    dice_count: int = param(2, Int(1, 4), "dice per roll (2 of 2dX): naturals are all ones and all X", kind="constant")
    critical_multiplier: int = param(2, Int(0, 10), "a critical does this many times max damage (200%), plus acv",
                                     kind="constant")
    damage_percents: tuple = param((100, 75, 50, 25), Faces(max_faces=10, lo=0, hi=1000),
                                   "the damage table's percentages of max damage, best band first", kind="constant")
    damage_bands: Any = param("book", Bands(max_faces=9, lo=1, hi=80), "upper 2dX bound of each band but the "
                              "last (book: the seed's column for the die)", kind="constant")
    health_per_point: int = param(HEALTH_PER_POINT, Int(1, 50), "health = (body + soul) x this", kind="constant")
    dcv_offset: int = param(2, Int(-20, 20), "dcv = acv - this", kind="constant")
    dying_percent: int = param(100, Int(1, 1000), "dying at Health <= -(this % of max Health)", kind="constant")
    shock_divisor: int = param(5, Int(1, 100), "shock value = max Health / this (shock_rule)", kind="constant")
    specialisation_bonus: int = param(1, Int(0, 10), "a combat skill's matching specialisation adds this",
                                      kind="constant")
    block_bonus: int = param(2, Int(-20, 20), "a block adds this to the defense check", kind="constant")
    block_break_multiple: int = param(5, Int(1, 100), "damage >= this x the object's armour destroys it",
                                      kind="constant")
    total_defence_bonus: int = param(2, Int(0, 20), "total defence adds this per attack action given up (one a "
                                     "round) to every defense check", kind="constant")
    extra_defense_penalty: int = param(4, Int(0, 20), "each extra defense in a round: cumulative -this (never "
                                       "happens one-on-one: one attack per fighter a round)", kind="constant")
    total_defence_rounds: int = param(10, Int(1, 1000), "with a fighter in total defence the fight ends when it is "
                                      "out or after this many rounds (P(still up) is reported)", kind="option")

    def check(self) -> None:
        percents = self.damage_percents
        if self.damage_bands == "book":
            if self.dice_count != 2:
                raise ParamError("damage_bands", "book", f"explicit bands: the seed's table is for 2dX, not "
                                 f"{self.dice_count}dX")
            if len(percents) != 4:
                raise ParamError("damage_percents", list(percents), "4 percentages with damage_bands = book (the "
                                 "seed's table has 4 bands); give damage_bands for another count")
            return
        bands = self.damage_bands
        if len(bands) != len(percents) - 1 or list(bands) != sorted(bands):
            raise ParamError("damage_bands", list(bands), f"{len(percents) - 1} non-decreasing bounds (one per band "
                             f"of damage_percents but the last)")

    @property
    def natural_low(self) -> int:
        """The natural critical: every die showing 1 (2 on 2dX)."""
        return self.dice_count

    @property
    def natural_high(self) -> int:
        """The natural failure: every die showing X (2X on 2dX)."""
        return self.dice_count * self.die

    @property
    def bands(self) -> tuple[int, ...]:
        """The damage table's band bounds in force."""
        return DAMAGE_TABLE[self.die] if self.damage_bands == "book" else tuple(self.damage_bands)


@dataclass(frozen=True)
class CheckArgs(Validated):
    """A check: the target number (stat or stats' mean + skill + modifiers)."""

    where = "tristat check"
    target: int = param(7, Int(), "stat + skill + modifier; success iff 2dX <= target")


@lru_cache(maxsize=None)
def roll(die: int, count: int = 2) -> Dist:
    """The 2dX roll (``count`` dice of X faces).

    >>> roll(4).to_dict()[5]
    0.25
    """
    return count @ Dist.die(range(1, die + 1))


def rules_roll(rules: Rules) -> Dist:
    """The ruleset's roll: ``dice_count`` dice of ``die`` faces."""
    return roll(rules.die, rules.dice_count)


def succeeds(rolls: np.ndarray, target: int, rules: Rules) -> np.ndarray:
    """Success mask over roll totals: the natural low always, the natural high never."""
    return (rolls == rules.natural_low) | ((rolls <= target) & (rolls != rules.natural_high))


def check(rules: Rules, args: CheckArgs) -> CheckResult:
    """P(success), the margin distribution, P(natural 2) and P(natural 2X)."""
    r = rules_roll(rules)
    return CheckResult(
        system="tristat",
        variants=rules.to_dict(),
        params=args.to_dict(),
        p_success=r.prob(lambda v: succeeds(v, args.target, rules)),
        outcome="margin",
        distribution=args.target - r,
        p_critical=float(r.pmf(rules.natural_low)),
        p_fumble=float(r.pmf(rules.natural_high)),
    )


def outcomes(rules: Rules, args: CheckArgs) -> Outcomes:
    """Contest outcomes: a success beats a failure, then the larger margin wins."""
    r = rules_roll(rules)
    v = r.support
    ok = succeeds(v, args.target, rules)
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
    """Every die, every target from the natural low to the natural high."""
    for die in DICE:
        r = rules.replace(die=die)
        for target in range(r.natural_low, r.natural_high + 1):
            yield f"{r.dice_count}d{die}", r, args.replace(target=target)


# ------------------------------------------------------------------ fighters
@dataclass(frozen=True)
class Fighter(FighterBase):
    """A Tri-Stat combatant; ``acv``, ``dcv`` and ``health`` are derived unless given.

    The limits that depend on the die (stats 1..X...) are checked where a fighter meets a ruleset
    (:func:`validate`), not here.
    """

    where = "tristat fighter"
    body: int = param(4, Int(1, 40), "Body (4 is an ordinary adult)")
    mind: int = param(4, Int(1, 40), "Mind")
    soul: int = param(4, Int(1, 40), "Soul")
    acv: int | None = param(None, Int(-20, 60, optional=True), "attack combat value (default (body+mind+soul)/3)")
    dcv: int | None = param(None, Int(-20, 60, optional=True), "defense combat value (default acv - 2)")
    health: int | None = param(None, Int(1, MAX_HEALTH, optional=True), "health points (default (body+soul)*5)")
    attack_bonus: int = param(0, Int(0, 20), "attack combat skill")
    defense_bonus: int = param(0, Int(0, 20), "defense combat skill")
    attack_specialty: bool = param(False, Bool(), "the attack skill's matching specialisation (+1)")
    defense_specialty: bool = param(False, Bool(), "the defense skill's matching specialisation (+1)")
    weapon_damage: int = param(0, Int(0, 200), "max damage of the weapon (+ Massive Damage, Superstrength); "
                               "0 = unarmed")
    weapon_range: str = param("melee", Choice(("melee", "ranged")), "the weapon's range: only melee attacks can be "
                              "blocked (unless the defender has block_ranged)")
    armor: int = param(0, Int(0, 200), "Armor attribute: flat reduction of every hit")
    block_armor: int = param(0, Int(0, 200), "armour of the object used to block (absorbs on a successful block)")
    block_ranged: bool = param(False, Bool(), "Combat Technique: can block ranged attacks")
    block: bool = param(False, Bool(), "blocks with an object (+2 to defense) instead of dodging", kind="policy")
    stance: str = param("normal", Choice(STANCES), "total_defence: never attacks, +2 to every defense check",
                        kind="policy")

    def check(self) -> None:
        derived = (self.body + self.soul) * HEALTH_PER_POINT
        if self.health is None and derived > MAX_HEALTH:
            raise ParamError("health", derived, f"at most {MAX_HEALTH} (derived as (body+soul) x {HEALTH_PER_POINT}; "
                             f"a house health_per_point is checked where the fighter meets the ruleset)")

    def stats(self, rules: Rules) -> tuple[int, int, int]:
        """(acv, dcv, health) under the ruleset's rounding and constants."""
        total = self.body + self.mind + self.soul
        acv = self.acv if self.acv is not None else (total // 3 if rules.cv_rounding == "floor" else (2 * total + 3) // 6)
        dcv = self.dcv if self.dcv is not None else acv - rules.dcv_offset
        health = self.health if self.health is not None else (self.body + self.soul) * rules.health_per_point
        return acv, dcv, health

    def derived(self, rules: Rules) -> dict[str, int]:
        acv, dcv, health = self.stats(rules)
        return {"acv": acv, "dcv": dcv, "health": health, "shock": health // rules.shock_divisor,
                "dying_at": -(dying_at(rules, health) - health)}


STAT_RULE = "«Ни одна из статистик не может быть меньше 1 или больше чем Х», Шаг 3"
SKILL_RULE = "«Уровень навыков может находиться в диапазоне от 1 до Х/2», Шаг 5"
DERIVED_RULE = "the range its stats 1..X give"


def limit_breaks(rules: Rules, f: Fighter) -> list[tuple[str, Any, str]]:
    """``(parameter, value, allowed)`` for every limit of RULES.md section 1 the fighter breaks at this die.

    >>> [b[0] for b in limit_breaks(Rules(), Fighter(mind=7, attack_bonus=4))]
    ['mind', 'attack_bonus']
    """
    x, h = rules.die, rules.health_per_point
    out = []
    for name in ("body", "mind", "soul"):
        if not 1 <= getattr(f, name) <= x:
            out.append((name, getattr(f, name), f"1..{x} at d{x} ({STAT_RULE})"))
    for name in ("attack_bonus", "defense_bonus"):
        if getattr(f, name) > x // 2:
            out.append((name, getattr(f, name), f"0..{x // 2} at d{x} ({SKILL_RULE})"))
    for skill, spec in (("attack_bonus", "attack_specialty"), ("defense_bonus", "defense_specialty")):
        if getattr(f, spec) and getattr(f, skill) < 1:
            out.append((spec, True, f"only with {skill} >= 1 (a specialisation of a skill the fighter has)"))
    if f.acv is not None and not 1 <= f.acv <= x:
        out.append(("acv", f.acv, f"1..{x} at d{x} ({DERIVED_RULE})"))
    if f.health is not None and not 2 * h <= f.health <= 2 * h * x:
        out.append(("health", f.health, f"{2 * h}..{2 * h * x} at d{x} ({DERIVED_RULE}: (body + soul) x "
                                        f"{h})"))
    return out


def validate(rules: Rules, *fighters: Fighter) -> list[str]:
    """Where rules and fighters meet: the engine's health limit always; the stat limits of RULES.md section 1
    rejected (``stat_limits = "enforce"``) or returned as warnings for every output (``"warn"``).

    >>> validate(Rules(stat_limits="warn"), Fighter(name="sage", mind=7))
    ["tristat fighter 'sage': mind = 7 is outside 1..6 at d6 («Ни одна из статистик не может быть меньше 1 или больше чем Х», Шаг 3)"]
    """
    warnings = []
    for f in fighters:
        where = f"tristat fighter {f.name!r}"
        health = f.stats(rules)[2]
        if health > MAX_HEALTH:
            raise ParamError("health", health, f"at most {MAX_HEALTH} (the exact chain's limit; derived as "
                             f"(body+soul) x {rules.health_per_point})", where)
        for name, value, allowed in limit_breaks(rules, f):
            if rules.stat_limits == "enforce":
                raise ParamError(name, value, f"{allowed}; --variant stat_limits=warn accepts it", where)
            warnings.append(f"{where}: {name} = {value!r} is outside {allowed}")
    return warnings


def slips(rules: Rules, a: Fighter, b: Fighter) -> list[str]:
    """Legal setups of a pair that are almost surely a slip (a block that can never help), one warning each;
    every output using the pair lists them with the limit warnings (:func:`warnings`).

    >>> [w.split(": ")[1][:34] for w in slips(Rules(), Fighter(name="x", block=True), Fighter(weapon_range="ranged"))]
    ['block = true with block_armor = 0 ', 'block = true never applies against']
    """
    out = []
    for f, other in ((a, b), (b, a)):
        where = f"tristat fighter {f.name!r}"
        if f.block and rules.block_rule == "absorb" and f.block_armor == 0:
            out.append(f"{where}: block = true with block_armor = 0 (block_rule = absorb): the object absorbs nothing "
                       "and breaks on the first successful block, so blocking is worse than dodging; give the "
                       "object's armour (block_armor)")
        if f.block and not blocks(other, f):
            out.append(f"{where}: block = true never applies against {other.name!r}'s ranged weapon without "
                       "block_ranged (only melee attacks can be blocked): it dodges every attack")
        if not f.block and (f.block_armor or f.block_ranged):
            out.append(f"{where}: block_armor = {f.block_armor}, block_ranged = {str(f.block_ranged).lower()} without "
                       "block = true: the object is never used")
    return out


def warnings(rules: Rules, a: Fighter, b: Fighter) -> list[str]:
    """Where a ruleset and a pair meet: :func:`validate` (limits rejected, or warnings), then :func:`slips`."""
    return validate(rules, a, b) + slips(rules, a, b)


# ------------------------------------------------------------------ damage
def damage_percent(rules: Rules, roll_value: int) -> int:
    """The damage table: a 2dX result -> percentage of max damage.

    >>> [damage_percent(Rules(), r) for r in (2, 3, 4, 7, 11)]
    [100, 100, 75, 50, 25]
    """
    for pct, bound in zip(rules.damage_percents, rules.bands):
        if roll_value <= bound:
            return pct
    return rules.damage_percents[-1]


def _scaled(max_damage: int, pct: int, rounding: str) -> int:
    return max_damage * pct // 100 if rounding == "floor" else (max_damage * pct * 2 + 100) // 200


def raw_damage(rules: Rules, att: Fighter, damage_roll: int | None) -> int:
    """Damage of a hit before any armour; ``damage_roll=None`` for a critical.

    Unarmed (``weapon_damage`` 0) max damage is 0 in both readings of ``acv_in_max``: damage = acv.

    >>> raw_damage(Rules(acv_in_max=True), Fighter(weapon_damage=10), None), raw_damage(Rules(), Fighter(), 12)
    (24, 4)
    """
    acv = att.stats(rules)[0]
    inside = rules.acv_in_max and att.weapon_damage > 0
    if damage_roll is None:
        weapon = att.weapon_damage + (acv if inside and rules.critical_acv == "literal" else 0)
        return _scaled(weapon, 100 * rules.critical_multiplier, rules.damage_rounding) + acv
    pct = damage_percent(rules, damage_roll)
    if inside:
        return _scaled(att.weapon_damage + acv, pct, rules.damage_rounding)
    return _scaled(att.weapon_damage, pct, rules.damage_rounding) + acv


def hit_damage(rules: Rules, att: Fighter, dfn: Fighter, damage_roll: int | None, blocked: bool = False) -> int:
    """Damage reaching the defender: raw, minus the object's armour on a successful absorbing block, minus armor,
    floor 0."""
    return max(0, raw_damage(rules, att, damage_roll) - (dfn.block_armor if blocked else 0) - dfn.armor)


def object_breaks(rules: Rules, att: Fighter, dfn: Fighter, damage_roll: int) -> bool:
    """A blocked hit of ``block_break_multiple`` times the object's armour or more destroys it."""
    return raw_damage(rules, att, damage_roll) >= rules.block_break_multiple * dfn.block_armor


def blocks(att: Fighter, dfn: Fighter) -> bool:
    """Whether ``dfn`` blocks ``att``'s attacks: its policy, and a melee weapon or the Combat Technique."""
    return dfn.block and (att.weapon_range == "melee" or dfn.block_ranged)


def keeps_object(rules: Rules, att: Fighter, dfn: Fighter) -> bool:
    """Whether the state of ``dfn``'s blocking object matters (absorbing blocks against ``att``)."""
    return blocks(att, dfn) and rules.block_rule == "absorb"


def dying_at(rules: Rules, health: int) -> int:
    """Damage taken at which Health <= -(dying_percent % of max): dying."""
    return health + -(-health * rules.dying_percent // 100)


def attack_target(rules: Rules, att: Fighter) -> int:
    """acv + attack skill (+ its specialisation)."""
    return att.stats(rules)[0] + att.attack_bonus + rules.specialisation_bonus * att.attack_specialty


def defense_target(rules: Rules, dfn: Fighter, blocking: bool) -> int:
    """dcv + defense skill (+ specialisation) (+ total defence) (+ the block bonus)."""
    return (dfn.stats(rules)[1] + dfn.defense_bonus + rules.specialisation_bonus * dfn.defense_specialty
            + rules.total_defence_bonus * (dfn.stance == "total_defence") + rules.block_bonus * blocking)


class Outcome(NamedTuple):
    """One way an attack can go: probability, kind, damage reaching the defender, and flags."""

    p: float
    kind: str
    damage: int
    critical: bool = False
    blocked: bool = False
    breaks: bool = False


@lru_cache(maxsize=1024)
def attack_outcomes(rules: Rules, att: Fighter, dfn: Fighter, defense: str) -> tuple[Outcome, ...]:
    """Every way one attack goes; ``defense`` is ``helpless`` (no defense roll), ``plain`` (dodge or parry:
    success stops the hit) or ``block`` (the block bonus; ``absorb``: success takes the object's armour off)."""
    r = rules_roll(rules)
    v = r.support
    lo = rules.natural_low
    crit = float(r.pmf(lo))
    attack_ok = r.prob(succeeds(v, attack_target(rules, att), rules) & (v != lo))
    out = [Outcome(1.0 - crit - attack_ok, "miss", 0), Outcome(crit, "hit", hit_damage(rules, att, dfn, None), True)]
    blocking = defense == "block"
    defended = 0.0 if defense == "helpless" else r.prob(succeeds(v, defense_target(rules, dfn, blocking), rules))
    absorbing = blocking and rules.block_rule == "absorb"
    if not absorbing:
        out.append(Outcome(attack_ok * defended, "defended", 0))
    for value, p in zip(v.tolist(), r.p.tolist()):
        out.append(Outcome(attack_ok * (1 - defended) * p, "hit", hit_damage(rules, att, dfn, value)))
        if absorbing:
            out.append(Outcome(attack_ok * defended * p, "hit", hit_damage(rules, att, dfn, value, True), False, True,
                               object_breaks(rules, att, dfn, value)))
    return tuple(o for o in out if o.p > 0)


# ------------------------------------------------------------------ condition tracks
@lru_cache(maxsize=256)
def track(rules: Rules, f: Fighter, opponent: Fighter) -> markov.Track:
    """``f``'s conditions against ``opponent``: up ``(taken, object)`` for damage taken 0..health (``object``:
    True/False while an absorbing block's object matters, else None), then ``("out", taken)`` (health < 0, or
    knocked out by the shock stand-in) down to dying, kept so that finishing can continue, then ``"dying"``."""
    health = f.stats(rules)[2]
    objects = (True, False) if keeps_object(rules, opponent, f) else (None,)
    up = [(t, o) for t in range(health + 1) for o in objects]
    out = [("out", t) for t in range(0 if rules.shock_rule else health + 1, dying_at(rules, health))]
    labels = tuple(up + out + ["dying"])
    status = (markov.UP,) * len(up) + (markov.OUT,) * len(out) + (markov.DYING,)
    return markov.Track(labels=labels, status=status)


def condition_label(label: Any) -> str:
    """A track label in words.

    >>> condition_label((3, None)), condition_label((0, False)), condition_label(("out", 12))
    ('damage taken 3', 'damage taken 0, object broken', 'out, damage taken 12')
    """
    if label == "dying":
        return label
    if label[0] == "out":
        return f"out, damage taken {label[1]}"
    taken, obj = label
    return f"damage taken {taken}" + ("" if obj is None else ", object intact" if obj else ", object broken")


def _after(rules: Rules, dfn: Fighter, label: Any, o: Outcome, shocked: bool) -> Any:
    """The defender's next condition after one outcome."""
    health = dfn.stats(rules)[2]
    up = label[0] != "out"
    taken = label[0] if up else label[1]
    total = taken + o.damage
    if total >= dying_at(rules, health):
        return "dying"
    if not up or total > health or shocked:
        return ("out", total)
    return (total, None if label[1] is None else label[1] and not o.breaks)


def _defense(rules: Rules, att: Fighter, dfn: Fighter, label: Any) -> str:
    if label[0] == "out":
        return "helpless"
    if not blocks(att, dfn) or label[1] is False:
        return "plain"
    return "block"


def branches(rules: Rules, att: Fighter, dfn: Fighter, label: Any) -> list[Branch]:
    """Every way one attack on a defender in condition ``label`` can go (out: helpless, no shock check)."""
    t = track(rules, dfn, att)
    defense = _defense(rules, att, dfn, label)
    shock = dfn.stats(rules)[2] // rules.shock_divisor
    body_fails = 1.0 - rules_roll(rules).prob(lambda v: succeeds(v, dfn.body, rules))
    out = []
    for o in attack_outcomes(rules, att, dfn, defense):
        p = o.p
        if rules.shock_rule and defense != "helpless" and o.damage > shock:
            out.append(Branch(p * body_fails, o.kind, o.damage, t.index[_after(rules, dfn, label, o, True)], o.critical))
            p *= 1 - body_fails
        out.append(Branch(p, o.kind, o.damage, t.index[_after(rules, dfn, label, o, False)], o.critical))
    return [b for b in out if b.p > 0]


def _kernel(rules: Rules, att: Fighter, dfn: Fighter, helpless: bool) -> Any:
    """One attack of ``att`` on ``dfn`` over ``dfn``'s track (up conditions, or the helpless ones past out)."""
    t = track(rules, dfn, att)

    def rows(i: int) -> Iterator[tuple[float, int]]:
        return ((b.p, b.condition) for b in branches(rules, att, dfn, t.labels[i]))

    return markov.helpless_kernel(t, rows, rules.lethal_at) if helpless else markov.kernel(t, rows)


# ------------------------------------------------------------------ exchange and duel
def _no_attack(att: Fighter) -> None:
    if att.stance == "total_defence":
        raise ParamError("stance", "total_defence", "normal for an attacker (a fighter in total defence never "
                         "attacks)", f"tristat fighter {att.name!r}")


def exchange(rules: Rules, att: Fighter, dfn: Fighter) -> ExchangeResult:
    """One attack of ``att`` on an unhurt ``dfn``, exactly; ``p_blocked`` counts absorbing blocks (kind ``hit``:
    damage still rolled) and ``p_object_breaks`` the ones that destroy the object."""
    warned = warnings(rules, att, dfn)
    _no_attack(att)
    t = track(rules, dfn, att)
    label = t.labels[0]
    notes = ["shock_rule is the lab's stand-in for the seed's optional Shock rule"] if rules.shock_rule else []
    outs = attack_outcomes(rules, att, dfn, _defense(rules, att, dfn, label))
    if keeps_object(rules, att, dfn):
        notes.append("block_rule=absorb: a successful block is a hit less the object's armour (p_blocked)")
    res = summarize("tristat", rules, att, dfn, branches(rules, att, dfn, label), t, condition_label, notes)
    return replace(res, extra={"p_blocked": sum(o.p for o in outs if o.blocked),
                               "p_object_breaks": sum(o.p for o in outs if o.breaks), "warnings": warned})


def initiative(rules: Rules, a: Fighter, b: Fighter) -> tuple[float, float, float]:
    """(P(A acts first), P(simultaneous), P(B first)) from 2dX + acv each."""
    r = rules_roll(rules)
    ia, ib = r + a.stats(rules)[0], r + b.stats(rules)[0]
    win, tie, lose, _ = Outcomes(ia.p, ia.support, ia.support).against(Outcomes(ib.p, ib.support, ib.support))
    return win, tie, lose


def total_defence_side(a: Fighter, b: Fighter) -> str | None:
    """``"a"`` or ``"b"``: the fighter in total defence (``None``: neither); both is rejected."""
    sides = [side for side, f in (("a", a), ("b", b)) if f.stance == "total_defence"]
    if len(sides) == 2:
        raise DicelabError("stance = 'total_defence' for both fighters is not allowed; allowed: at most one in "
                           "total defence (neither would ever attack)")
    return sides[0] if sides else None


INERT = ("; inert one-on-one: both attack every round and the order only decides the round someone goes out, "
         "so the duel equals rolling every round")


def duel(rules: Rules, a: Fighter, b: Fighter) -> DuelResult:
    """Initiative each round (2dX + acv; equal: simultaneous), one attack each, until someone is out; with one
    fighter in total defence, the other attacks once a round until it is out or ``total_defence_rounds`` pass.
    ``after_out = "finish"`` then plays the winner's attacks on the helpless loser (no defense roll)."""
    warned = warnings(rules, a, b)
    ta, tb = track(rules, a, b), track(rules, b, a)
    turtle = total_defence_side(a, b)
    extra: dict[str, Any] = {}
    if turtle:
        solution = _hold(rules, a, b, ta, tb, turtle)
        order = (f"{turtle.upper()} in total defence never attacks; {'B' if turtle == 'a' else 'A'} attacks once a "
                 f"round until {turtle.upper()} is out, or the fight ends at the {rules.total_defence_rounds}-round "
                 f"cap (total_defence_rounds = {rules.total_defence_rounds}) with {turtle.upper()} still up "
                 "(p_still_up; p_stalemate counts the same fights)")
        extra = {"total_defence": turtle, "p_still_up": solution.p_stalemate, "rounds_cap": rules.total_defence_rounds}
    else:
        on_b = {0: _kernel(rules, a, b, False)}
        on_a = {0: _kernel(rules, b, a, False)}
        a_hits, b_hits = markov.attack(ta, tb, on_b, "a"), markov.attack(ta, tb, on_a, "b")
        orders = [(a_hits @ b_hits), markov.simultaneous(ta, tb, on_a, on_b), (b_hits @ a_hits)]
        weights = initiative(rules, a, b)
        if rules.initiative_once:
            solution = markov.mix_solutions([(w, markov.solve(m, ta, tb, (0, 0))) for w, m in zip(weights, orders)],
                                            ta, tb)
            order = "initiative rolled once per fight (2dX + acv); equal: simultaneous" + INERT
        else:
            solution = markov.solve(markov.mixture(list(zip(weights, orders))), ta, tb, (0, 0))
            order = "initiative every round (2dX + acv); equal initiative: simultaneous attacks"
    if rules.after_out == "finish":
        solution = markov.finish(solution, ta, tb, {0: _kernel(rules, b, a, True)}, {0: _kernel(rules, a, b, True)},
                                 rules.lethal_at, rules.finish_attacks)
        order += "; after out the winner attacks the helpless loser (no defense roll; natural 2X still misses)"
    return DuelResult("tristat", rules.to_dict(), describe_fighter(a, rules), describe_fighter(b, rules), order,
                      solution, extra={**extra, "warnings": warned})


def _hold(rules: Rules, a: Fighter, b: Fighter, ta: markov.Track, tb: markov.Track, turtle: str) -> markov.Solution:
    """The duel against a fighter in total defence: the chain over (its up condition, rounds played); after
    ``total_defence_rounds`` rounds the fighters still up are a stalemate (``p_still_up``)."""
    att, dfn, t = (b, a, ta) if turtle == "a" else (a, b, tb)
    k = _kernel(rules, att, dfn, False).tocsr()
    up = np.flatnonzero(t.up)
    down = np.flatnonzero(~t.up)
    cap = rules.total_defence_rounds
    n = up.size
    ku, kd = k[up][:, up], k[up][:, down]
    shift = sp.diags(np.ones(cap), 1, shape=(cap + 1, cap + 1))
    q = sp.kron(shift, ku, format="csr")
    r = sp.kron(sp.csr_matrix(np.r_[np.ones(cap), 0.0][:, None]), kd, format="csr")
    x0 = np.zeros((cap + 1) * n)
    x0[0] = 1.0
    ends = np.array([(0, j) if turtle == "b" else (j, 0) for j in down.tolist()])
    return markov.solve_chain(q, r, x0, ends, ta, tb, states=(cap + 1) * n + down.size)


def duel_states(rules: Rules, a: Fighter, b: Fighter) -> int:
    """An upper estimate of the exact chain's states, without building it: the product of the two tracks (three
    chains under ``initiative_once``), or the defender's up conditions times the rounds, against total defence."""
    ta, tb = track(rules, a, b), track(rules, b, a)
    for f, t in ((a, ta), (b, tb)):
        if f.stance == "total_defence":
            return int(t.up.sum()) * (rules.total_defence_rounds + 1) + len(t)
    return len(ta) * len(tb) * (3 if rules.initiative_once else 1)


# ------------------------------------------------------------------ one exchange with the dice given
def resolve(rules: Rules, att: Fighter, dfn: Fighter, rolls: Mapping[str, int]) -> Resolution:
    """One attack with the dice given: ``attack``, ``defense``, ``damage`` and ``body`` (shock) 2dX totals."""
    warned = warnings(rules, att, dfn)
    _no_attack(att)
    acv = att.stats(rules)[0]
    health = dfn.stats(rules)[2]
    lo, hi, dx = rules.natural_low, rules.natural_high, f"{rules.dice_count}d{rules.die}"
    for name, value in rolls.items():
        if not lo <= value <= hi:
            raise ParamError(f"rolls.{name}", value, f"a {dx} total in {lo}..{hi}")
    steps, fields = [], {}
    a_roll = _need(rolls, "attack")
    target = attack_target(rules, att)
    critical = a_roll == lo
    ok = bool(succeeds(np.array([a_roll]), target, rules)[0])
    steps.append(f"attack: {dx} = {a_roll} against acv {acv} + skill {target - acv} = {target}: "
                 + ("natural low, critical hit (defense skipped)" if critical else "hit" if ok else "miss"))
    hit, damage, blocked, broke = ok, 0, False, False
    if ok and not critical:
        d_roll = _need(rolls, "defense")
        blocking = blocks(att, dfn)
        d_target = defense_target(rules, dfn, blocking)
        stopped = bool(succeeds(np.array([d_roll]), d_target, rules)[0])
        steps.append(f"defense: {dx} = {d_roll} against {d_target} (dcv + skill"
                     + (" + total defence" if dfn.stance == "total_defence" else "")
                     + (" + block" if blocking else "") + "): " + ("succeeds" if stopped else "fails"))
        blocked = stopped and blocking and rules.block_rule == "absorb"
        hit = not stopped or blocked
    if hit:
        dmg_roll = None if critical else _need(rolls, "damage")
        raw = raw_damage(rules, att, dmg_roll)
        damage = hit_damage(rules, att, dfn, dmg_roll, blocked)
        pct = 100 * rules.critical_multiplier if critical else damage_percent(rules, dmg_roll)
        source = f"critical: {pct}%" if critical else f"damage roll {dx} = {dmg_roll}: {pct}%"
        steps.append(f"{source} of max ({rules.damage_rounding}, acv_in_max={str(rules.acv_in_max).lower()}) = {raw}"
                     + (f"; the object's armour {dfn.block_armor} absorbs" if blocked else "")
                     + f"; armor {dfn.armor}: {damage} damage")
        if blocked:
            broke = object_breaks(rules, att, dfn, dmg_roll)
            steps.append(f"object: {raw} {'>=' if broke else '<'} {rules.block_break_multiple} x armour "
                         f"{dfn.block_armor}: " + ("destroyed" if broke else "holds"))
        fields["percent"] = pct
    shocked = False
    if hit and rules.shock_rule and damage > health // rules.shock_divisor:
        b_roll = _need(rolls, "body")
        shocked = not bool(succeeds(np.array([b_roll]), dfn.body, rules)[0])
        steps.append(f"shock (lab stand-in): {damage} > shock {health // rules.shock_divisor}; Body check {dx} = "
                     f"{b_roll} against {dfn.body}: " + ("knocked out" if shocked else "stays up"))
    start = track(rules, dfn, att).labels[0]
    after = _after(rules, dfn, start, Outcome(1.0, "hit", damage, critical, blocked, broke), shocked)
    steps.append(f"health {health} -> {health - damage}" + (f" ({condition_label(after)})" if after == "dying"
                                                            or after[0] == "out" else ""))
    fields.update({"critical": critical, "blocked": blocked, "object_breaks": broke, "health_after": health - damage,
                   "condition": condition_label(after), "warnings": warned})
    return Resolution("tristat", rules.to_dict(), describe_fighter(att, rules), describe_fighter(dfn, rules),
                      dict(rolls), steps, hit, damage, damage, fields)


def _need(rolls: Mapping[str, int], name: str) -> int:
    if name not in rolls:
        raise ParamError("rolls", ",".join(f"{k}={v}" for k, v in rolls.items()) or "(none)",
                         f"a value for '{name}' (this exchange needs it)")
    return rolls[name]


SYSTEM = register(System(
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
    Fighter=Fighter,
    exchange=exchange,
    resolve=resolve,
    duel=duel,
    roll_names=("attack", "defense", "damage", "body"),
    combat_skills=("attack_bonus", "defense_bonus"),
    levels={"out": "Health < 0: «теряет сознание»", "dying": "Health <= -max Health: «при смерти»", "dead": None},
    round_seconds=5,
    duel_states=duel_states,
    slips=slips,
    assumptions=(
        Assumption("armor", "the seed's Armor lowers damage by its level without saying how much: the lab takes armor "
                   "points off every hit, floor 0", (0, 2, 5, 10), When(FIGHTS, defender={"armor": positive})),
        Assumption("total_defence_rounds", "nothing ends a fight against total defence: the lab stops after this many "
                   "rounds (help arrives, the attacker gives up)", (3, 5, 10, 20),
                   When(("duel",), defender={"stance": "total_defence"})),
        Assumption("shock_rule", "the seed names Shock without its numbers: the lab's stand-in, a Body check after a "
                   "hit above the shock value", (False, True), When(FIGHTS, rules={"shock_rule": True})),
        FINISH_ATTACKS,
    ),
))
