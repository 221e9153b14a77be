"""Tri-Stat dX rules (seed ``000_b535f6ff666a0665.txt``, RULES.md section 1): the ruleset, checks, the fighter,
one attack's outcomes and a fighter's condition track.

Roll-under 2dX: success iff ``2dX <= target``; natural 2 always succeeds (a
critical), natural 2X always fails.  Margin = ``target - roll``.  Combat: an
attack check, the defender's dodge or block, damage from the table plus the
attacker's acv; Health < 0 is out, Health <= -max is dying.  Every number of
section 1 is a ruleset constant (``critical_multiplier`` ...).

>>> r = check(Rules(), CheckArgs(target=7))
>>> round(r.p_success, 6), r.p_critical == 1 / 36
(0.583333, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator, NamedTuple

import numpy as np

from analysis.base.params import Bool, Choice, Faces, FighterBase, Int, ParamError, Validated, param
from analysis.engine import markov
from analysis.engine.combat import Branch, DuelRules
from analysis.engine.dist import Dist
from analysis.engine.results import CheckResult, OpposedResult, Outcomes

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
TARGETS = ("weakest", "random", "strongest", "spread")
"""Whom a fighter attacks in a group fight (RULES.md section 7): the able enemy with the least Health left, one at
random, the one with the highest attack, or the one attacked least this round."""


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
    extra_attacks: int = param(0, Int(0, 4), "the Attribute «Дополнительные Атаки»: attacks in each action beyond "
                               "the first")
    target: str = param("weakest", Choice(TARGETS), "in a group fight, whom it attacks: the able enemy with the least "
                        "Health left (weakest), one at random, the highest attack (strongest), or the one attacked "
                        "least this round (spread)", kind="policy")

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


def can_block(att: Fighter, dfn: Fighter) -> bool:
    """Whether ``dfn`` has an object to block ``att``'s attacks with (``block = true``, or its armour given) and
    those attacks can be blocked (melee, or the Combat Technique): where blocking is a decision (RULES.md
    section 8)."""
    return (dfn.block or dfn.block_armor > 0) and (att.weapon_range == "melee" or dfn.block_ranged)


def keeps_object(rules: Rules, att: Fighter, dfn: Fighter) -> bool:
    """Whether the state of ``dfn``'s blocking object matters (absorbing blocks against ``att``)."""
    return blocks(att, dfn) and rules.block_rule == "absorb"


def dying_at(rules: Rules, health: int) -> int:
    """Damage taken at which Health <= -(dying_percent % of max): dying."""
    return health + -(-health * rules.dying_percent // 100)


def attack_target(rules: Rules, att: Fighter) -> int:
    """acv + attack skill (+ its specialisation)."""
    return att.stats(rules)[0] + att.attack_bonus + rules.specialisation_bonus * att.attack_specialty


def defense_target(rules: Rules, dfn: Fighter, blocking: bool, stance: str | None = None, defenses: int = 0) -> int:
    """dcv + defense skill (+ specialisation) (+ total defence) (+ the block bonus), less
    ``extra_defense_penalty`` for each of the ``defenses`` defense rolls already made this round; ``stance``:
    the stance in force (default the fighter's own)."""
    stance = dfn.stance if stance is None else stance
    return (dfn.stats(rules)[1] + dfn.defense_bonus + rules.specialisation_bonus * dfn.defense_specialty
            + rules.total_defence_bonus * (stance == "total_defence") + rules.block_bonus * blocking
            - rules.extra_defense_penalty * defenses)


class Outcome(NamedTuple):
    """One way an attack can go: probability, kind, damage reaching the defender, and flags."""

    p: float
    kind: str
    damage: int
    critical: bool = False
    blocked: bool = False
    breaks: bool = False


@lru_cache(maxsize=4096)
def attack_outcomes(rules: Rules, att: Fighter, dfn: Fighter, defense: str, stance: str | None = None,
                    defenses: int = 0) -> tuple[Outcome, ...]:
    """Every way one attack goes; ``defense`` is ``helpless`` (no defense roll), ``plain`` (dodge or parry:
    success stops the hit) or ``block`` (the block bonus; ``absorb``: success takes the object's armour off);
    ``stance`` and ``defenses`` as in :func:`defense_target`."""
    r = rules_roll(rules)
    v = r.support
    lo = rules.natural_low
    crit = float(r.pmf(lo))
    attack_ok = r.prob(succeeds(v, attack_target(rules, att), rules) & (v != lo))
    out = [Outcome(1.0 - crit - attack_ok, "miss", 0), Outcome(crit, "hit", hit_damage(rules, att, dfn, None), True)]
    blocking = defense == "block"
    defended = 0.0 if defense == "helpless" else r.prob(
        succeeds(v, defense_target(rules, dfn, blocking, stance, defenses), rules))
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
def track(rules: Rules, f: Fighter, *opponents: Fighter, decide: bool = False) -> markov.Track:
    """``f``'s conditions against ``opponents``: up ``(taken, object)`` for damage taken 0..health (``object``:
    True/False while an absorbing block's object matters against one of them, else None), then ``("out",
    taken)`` (health < 0, or knocked out by the shock stand-in) down to dying, kept so that finishing can
    continue, then ``"dying"``.  ``decide``: blocking is a decision (:func:`can_block`), not the policy."""
    health = f.stats(rules)[2]
    usable = can_block if decide else blocks
    objects = (True, False) if rules.block_rule == "absorb" and any(usable(o, f) for o in opponents) else (None,)
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


def _after(label: Any, o: Outcome, shocked: bool, health: int, dying: int) -> Any:
    """The next condition of a defender of ``health`` (dying at ``dying`` damage taken) after one outcome."""
    up = label[0] != "out"
    taken = label[0] if up else label[1]
    total = taken + o.damage
    if total >= dying:
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


def branches(rules: Rules, att: Fighter, dfn: Fighter, label: Any, t: markov.Track | None = None,
             outcomes: tuple[Outcome, ...] | None = None) -> list[Branch]:
    """Every way one attack on a defender in condition ``label`` can go (out: helpless, no shock check), as
    conditions of its track ``t`` (default: against ``att`` alone); ``outcomes``: the attack's outcomes (default:
    the defender's policy, :func:`attack_outcomes`)."""
    t = track(rules, dfn, att) if t is None else t
    defense = _defense(rules, att, dfn, label)
    health = dfn.stats(rules)[2]
    dying = dying_at(rules, health)
    shocks = rules.shock_rule and defense != "helpless"
    body_fails = _body_fails(rules, dfn.body) if shocks else 0.0
    out = []
    for o in attack_outcomes(rules, att, dfn, defense) if outcomes is None else outcomes:
        p = o.p
        if shocks and o.damage > health // rules.shock_divisor:
            out.append(Branch(p * body_fails, o.kind, o.damage, t.index[_after(label, o, True, health, dying)],
                              o.critical))
            p *= 1 - body_fails
        out.append(Branch(p, o.kind, o.damage, t.index[_after(label, o, False, health, dying)], o.critical))
    return [b for b in out if b.p > 0]


@lru_cache(maxsize=256)
def _body_fails(rules: Rules, body: int) -> float:
    """P(the shock stand-in's Body check fails)."""
    return 1.0 - rules_roll(rules).prob(lambda v: succeeds(v, body, rules))


def _kernel(rules: Rules, att: Fighter, dfn: Fighter, helpless: bool) -> Any:
    """One attack of ``att`` on ``dfn`` over ``dfn``'s track (up conditions, or the helpless ones past out)."""
    t = track(rules, dfn, att)

    def rows(i: int) -> Iterator[tuple[float, int]]:
        return ((b.p, b.condition) for b in branches(rules, att, dfn, t.labels[i]))

    return markov.helpless_kernel(t, rows, rules.lethal_at) if helpless else markov.kernel(t, rows)
