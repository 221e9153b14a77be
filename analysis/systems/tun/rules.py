"""ТУН, basic rules (seed ``002_23c6518a39186dbd.txt``): the ruleset, checks, the fighter and one attack.

Roll-under: success iff ``roll < limit`` (``success_rule = "le"``: ``<=``);
effectiveness ``E = limit - roll``.  Dice: 3d6, or for luck 1d20 or 1d6x3.
Optional criticals: the minimum roll succeeds with E raised by the book's
bonus (6, 2, 3: the value whose ``<=``-chance is nearest 10%); the maximum
roll fails.  Resistance (c): the hostile action's E is taken off the
resister's limit.  The project's rules reference is ``docs/rules/tun.md``.

Combat: the attacker's limit is Body + attack feature less the penalties of
"Стрельба и бой холодным оружием" (the target's Body defense when it counts,
size, distance, moving, an aimed shot); a success inflicts ``E*n + b`` Body
trauma.

>>> round(check(Rules(), CheckArgs(limit=13)).p_success, 6)
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

from analysis.base.params import Bool, Choice, FighterBase, Int, ParamError, Validated, param
from analysis.engine import markov
from analysis.engine.combat import (
    Branch,
    DuelRules,
    ExchangeResult,
    summarize,
)
from analysis.engine.dist import Dist
from analysis.engine.results import CheckResult, OpposedResult, Outcomes

D6 = Dist.die(range(1, 7))
DICE_MODES = ("3d6", "1d20", "1d6x3")
AIMS = ("none", "arm", "leg", "head", "hand", "foot", "knee")
TURN_POLICIES = ("act", "delay", "initiative_skip")
TARGETS = ("weakest", "random", "strongest", "spread")
NORMAL, LAST_WORD, HELPLESS = "normal", "last_word", "helpless"
"""How an attack is made: an ordinary action, a last word (the speaker cannot move), on a helpless target."""
MODES = (NORMAL, LAST_WORD, HELPLESS)


def _constant(default: int, spec: Int, help: str) -> Any:
    return param(default, spec, help, kind="constant")


@dataclass(frozen=True)
class Rules(DuelRules):
    """The ТУН ruleset: every variant and number of RULES.md section 3, and the range of the duel."""

    where = "tun ruleset"
    success_rule: str = param("lt", Choice(("lt", "le")), "success iff roll < limit (the text), or <= (the seed's table)")
    crits: bool = param(False, Bool(), "optional critical rolls: minimum succeeds with an E bonus, maximum fails")
    last_word: bool = param(True, Bool(), "a fighter put out before its turn still takes last_word_actions actions "
                            "(each +last_word_trauma Body trauma)")
    dying_last_word: bool = param(True, Bool(), "the last word also for a fighter put out dying (trauma > "
                                  "death_multiple x volume; the seed: it dies within the hour, not at once)")
    turn_order: str = param("body", Choice(("body", "roll", "reaction")),
                            "order fixed at the first round: by Body (ties: d6 roll-off), by a d6 roll-off, or by the "
                            "reaction feature (ties by Body, then a roll-off)")
    ranged_defense: str = param("defends", Choice(("defends", "moving")),
                                "a ranged attack subtracts the target's Body defense iff the target defends (its "
                                "reflexive dodge: the knife throw), or iff it moves (the text on shooting)")
    aim_effects: str = param("always", Choice(("always", "while_up", "none")),
                             "an aimed hit disarms (arm, hand), immobilises (leg, foot, knee) or stuns (head), also "
                             "when it puts the target out (always), only when the target stays up (while_up), or "
                             "never: the aim only costs its penalty (none)")
    size_bonus: bool = param(False, Bool(), "size term -(size_target - size_attacker) both ways (the formula): a "
                             "bigger target gives a bonus; false: a penalty only when the target is smaller (the text)")
    death_multiple: int = _constant(2, Int(1, 10), "dying when Body trauma > death_multiple x volume")
    defense_divisor: int = _constant(2, Int(1, 10), "Body defense = ceil(body / defense_divisor) + extra defense")
    crit_bonus_3d6: int = _constant(6, Int(0, 30), "E bonus of a critical success on 3d6")
    crit_bonus_1d20: int = _constant(2, Int(0, 30), "E bonus of a critical success on 1d20")
    crit_bonus_1d6x3: int = _constant(3, Int(0, 30), "E bonus of a critical success on 1d6x3")
    actions_per_turn: int = _constant(2, Int(1, 6), "actions in a turn")
    last_word_actions: int = _constant(1, Int(1, 6), "actions of the last word")
    last_word_trauma: int = _constant(1, Int(0, 10), "Body trauma each last-word action costs the speaker")
    initiative_skip_cost: int = _constant(1, Int(0, 6), "actions fewer in the first round led after an initiative skip")
    moving_penalty: int = _constant(1, Int(0, 10), "penalty on every attack of a fighter that moves while it acts")
    distance_step: int = _constant(10, Int(1, 1000), "metres per distance band (the first band is free)")
    distance_penalty: int = _constant(1, Int(0, 10), "penalty per distance band after the first (ranged attacks)")
    aim_penalty_arm: int = _constant(2, Int(0, 20), "penalty of a shot aimed at an arm")
    aim_penalty_leg: int = _constant(1, Int(0, 20), "penalty of a shot aimed at a leg")
    aim_penalty_head: int = _constant(3, Int(0, 20), "penalty of a shot aimed at the head")
    aim_penalty_hand: int = _constant(6, Int(0, 20), "penalty of a shot aimed at a hand")
    aim_penalty_foot: int = _constant(5, Int(0, 20), "penalty of a shot aimed at a foot")
    aim_penalty_knee: int = _constant(5, Int(0, 20), "penalty of a shot aimed at a knee")
    stun_actions: int = _constant(1, Int(0, 6), "actions a stunned fighter loses after a hit on the head (a lab "
                                  "assumption; a new head hit renews, it does not add)")
    melee_reach: int = _constant(2, Int(0, 100), "metres a melee weapon (or a disarmed fighter's fists) reaches (a lab "
                                 "assumption); a melee fighter farther away is refused: a duel has no movement")
    distance: int = param(0, Int(0, 10_000), "metres between the fighters: ranged attacks take "
                          "-max(0, ceil(distance / distance_step) - 1) x distance_penalty; melee needs distance <= "
                          "melee_reach", kind="option")

    def check(self) -> None:
        if self.initiative_skip_cost > self.actions_per_turn:
            raise ParamError("initiative_skip_cost", self.initiative_skip_cost,
                             f"an integer in 0..actions_per_turn ({self.actions_per_turn})")


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


def crit_bonus(rules: Rules, dice: str) -> int:
    """The E bonus of a critical success on this dice mode (a rule constant).

    >>> [crit_bonus(Rules(), d) for d in DICE_MODES]
    [6, 2, 3]
    """
    return getattr(rules, f"crit_bonus_{dice}")


def outcome_arrays(rules: Rules, dice: str, limit: Any, rolls: np.ndarray) -> tuple[np.ndarray, ...]:
    """Vectorised over roll values (and limits, broadcast): (success, E, critical success, critical failure)."""
    r = roll(dice)
    base = rolls <= limit if rules.success_rule == "le" else rolls < limit
    e = limit - rolls
    crit = np.zeros_like(base) if not rules.crits else np.broadcast_to(rolls == r.min, base.shape)
    fumble = np.zeros_like(base) if not rules.crits else np.broadcast_to(rolls == r.max, base.shape)
    success = (base | crit) & ~fumble
    e = np.where(crit, np.maximum(e, 0) + crit_bonus(rules, dice), e)
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


def resist(rules: Rules, attacker: CheckArgs, resister: CheckArgs) -> OpposedResult:
    """Resistance (c): a sudden hostile action (side A) against a resister (side B).

    The resister checks against its limit less the action's effectiveness E
    («эффективность враждебного воздействия вычитается из броска»): it resists
    iff that check succeeds (under the default rule iff its own E > the
    action's E).  A wins when the action succeeds and is not resisted.
    ``p_resist`` is P(resist | the action succeeded), over both rolls;
    ``resist_by_effectiveness`` gives it for each E of the action.

    >>> res = resist(Rules(), CheckArgs(limit=12), CheckArgs(limit=13))
    >>> round(res.p_a_wins + res.p_b_wins, 12), res.p_tie, 0 < res.extra["p_resist"] < 1
    (1.0, 0.0, True)
    """
    ra, rr = roll(attacker.dice), roll(resister.dice)
    s_a, e_a, _, _ = outcome_arrays(rules, attacker.dice, attacker.limit, ra.support)
    held = outcome_arrays(rules, resister.dice, resister.limit - e_a[:, None], rr.support[None, :])[0]
    p_held = held.astype(float) @ rr.p
    p_success = float(ra.p @ s_a.astype(float))
    p_resisted = float(ra.p @ (s_a * p_held))
    by_e: dict[str, float] = {}
    for e, ok, p in sorted(zip(e_a.tolist(), s_a.tolist(), p_held.tolist())):
        if ok:
            by_e[str(e)] = p
    e_r = outcome_arrays(rules, resister.dice, resister.limit, rr.support)[1]
    margin = Dist._from_arrays((e_a[:, None] - e_r[None, :]).ravel(), np.outer(ra.p, rr.p).ravel())
    lands = p_success - p_resisted
    rule = ("resistance (c): A's effect holds iff A succeeds and B fails its check at limit - A's E; "
            "B wins when A fails or B resists; no ties")
    extra = {"mode": "resist", "p_attack_success": p_success,
             "p_resist": p_resisted / p_success if p_success > 0 else None,
             "p_resisted": p_resisted, "resist_by_effectiveness": by_e}
    return OpposedResult("tun", rules.to_dict(), attacker.to_dict(), resister.to_dict(), lands, 1.0 - lands, 0.0,
                         margin, rule, extra)


def table_cases(rules: Rules, args: CheckArgs) -> Iterator[tuple[str, Rules, CheckArgs]]:
    """Every dice mode, limits from the minimum roll to one past the maximum."""
    for dice in DICE_MODES:
        r = roll(dice)
        for limit in range(r.min, r.max + 2):
            yield dice, rules, args.replace(limit=limit, dice=dice)


def seed_table(rules: Rules | None = None) -> list[dict[str, Any]]:
    """Every number printed in the seed's table "Вероятность удачного броска" beside
    the exact P(roll <= v) and P(success at limit v) under ``rules``.

    A cell is ``flagged`` when the printed value is a full unit of its last
    printed digit or more away from the exact one; ``explained_by`` says
    whether the print is exact, rounded, truncated (or both), or neither.
    Under the default strict rule P(success at limit v) is the table's row
    v - 1: the table read at the limit is one row optimistic.

    >>> [(c["dice"], c["v"]) for c in seed_table() if c["flagged"]]
    [('3d6', 15), ('3d6', 14)]
    >>> [round(c["p_success"], 6) for c in seed_table() if (c["dice"], c["v"]) == ("3d6", 13)]
    [0.740741]
    """
    rules = rules or Rules()
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
                "p_success": check(rules, CheckArgs(limit=v, dice=dice)).p_success,
            })
    return cells


def seed_table_warning(rules: Rules) -> str:
    """What the seed's table means under ``rules.success_rule``.

    >>> seed_table_warning(Rules(success_rule="le"))[:40]
    'success_rule=le: success at limit v is P'
    """
    if rules.success_rule == "le":
        return "success_rule=le: success at limit v is P(roll <= v), so the table's row v is the chance at limit v"
    return ("warning: the seed's table gives P(roll <= v), but under success_rule=lt (the default: «меньше Предела») "
            "success at limit v is P(roll < v) = the table's row v - 1: read at the limit, the table is one row "
            "optimistic (3d6 at limit 13: printed 0.84, success 0.740741)")


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
MAX_SIZE = 10


@dataclass(frozen=True)
class Fighter(FighterBase):
    """A ТУН fighter: the three characteristics, the Body resource, one attack feature and one weapon.

    >>> red = Fighter(body=13, mind=10, unusual=5, attack_feature=6, weapon_n=2, weapon_b=1)
    >>> red.derived(Rules()), attack_limit(Rules(), red, Fighter(body=12, mind=15))
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
                               "extra Body defense (ДТЗ): Body defense = ceil(body / defense_divisor) + extra_defense")
    weapon_n: int = param(1, Int(1, 6), "weapon multiplier n of trauma = E*n + b (unarmed 1)")
    weapon_b: int = param(0, Int(0, 20), "weapon bonus b of trauma = E*n + b (unarmed 0)")
    ranged: bool = param(False, Bool(), "the weapon shoots or is thrown: distance counts, and Body defense per "
                         "ranged_defense (false: melee, defense iff the target defends, within melee_reach)")
    size: int = param(0, Int(-MAX_SIZE, MAX_SIZE), "size class (the seed's scale: man 0, cat 1, beer can 3, "
                      "matchbox 4; below 0 bigger than a man)")
    reaction: int = param(0, Int(-MAX_EXTRA, MAX_EXTRA), "the Reaction feature (turn_order=reaction; the sheet has "
                          "no such characteristic)")
    dice: str = param("3d6", Choice(DICE_MODES), "the attack roll: 3d6, or 1d20 / 1d6x3 for luck")
    defends: bool = param(True, Bool(), "consciously defends: melee attackers (and ranged ones under "
                          "ranged_defense=defends, the default) subtract its Body defense", kind="policy")
    moving: bool = param(False, Bool(), "moves with every action: -moving_penalty on its attacks; a moving target "
                         "(ranged attackers subtract its Body defense under ranged_defense=moving)", kind="policy")
    aim: str = param("none", Choice(AIMS), "aimed shot (ranged only): a penalty from the seed's table, no extra "
                     "damage; a hit disarms (arm, hand), immobilises (leg, foot, knee) or stuns (head), per "
                     "aim_effects", kind="policy")
    turn_policy: str = param("act", Choice(TURN_POLICIES), "act; delay (first in order: act after the opponent's "
                             "first action); initiative_skip (second in order: skip round 1, lead from round 2 with "
                             "one action fewer)", kind="policy")
    target: str = param("weakest", Choice(TARGETS), "whom it attacks in a group fight (RULES.md section 7): the able "
                        "enemy with the least Body volume left (weakest), any able enemy at random, the one with the "
                        "highest Body + attack feature (strongest), or the one attacked least this round (spread); "
                        "ties by listed order; inert in a duel", kind="policy")

    def check(self) -> None:
        if self.aim != "none" and not self.ranged:
            raise ParamError("aim", self.aim, "none for a melee fighter (ranged = false): the seed's aimed shot is "
                             "a shot")

    @property
    def volume(self) -> int:
        """Body volume (ОТР): out at this much trauma."""
        return self.body + self.extra_volume

    def defense(self, rules: Rules) -> int:
        """Body defense (ТЗ): the characteristic halved, rounded up as the seed says, plus extra defense."""
        return -(-self.body // rules.defense_divisor) + self.extra_defense

    def derived(self, rules: Rules) -> dict[str, int]:
        return {"body_volume": self.volume, "body_defense": self.defense(rules)}


def limit_terms(rules: Rules, att: Fighter, dfn: Fighter, mode: str = NORMAL) -> list[tuple[str, int]]:
    """The attack limit as signed terms: Body, the feature, then each penalty that applies.

    >>> red, blue = Fighter(body=13, attack_feature=6, ranged=True), Fighter(body=12)
    >>> limit_terms(Rules(), red, blue)  # the seed's knife throw: 13 + 6 - 6
    [('Body', 13), ('attack feature', 6), ('Body defense (the target defends)', -6)]
    >>> sum(v for _, v in limit_terms(Rules(distance=25), red, blue.replace(size=1)))  # 13 - size 1 - distance 2
    10
    """
    terms = [("Body", att.body), ("attack feature", att.attack_feature)]
    if mode != HELPLESS:
        by_moving = att.ranged and rules.ranged_defense == "moving"
        if dfn.moving if by_moving else dfn.defends:
            terms.append((f"Body defense (the target {'moves' if by_moving else 'defends'})", -dfn.defense(rules)))
    gap = dfn.size - att.size
    if gap > 0 or (gap < 0 and rules.size_bonus):
        terms.append((f"size (target {dfn.size}, attacker {att.size})", -gap))
    bands = max(0, -(-rules.distance // rules.distance_step) - 1)
    if att.ranged and bands:
        terms.append((f"distance {rules.distance} m", -bands * rules.distance_penalty))
    if att.moving and mode != LAST_WORD:
        terms.append(("moving", -rules.moving_penalty))
    if att.aim != "none":
        terms.append((f"aimed at the {att.aim}", -getattr(rules, f"aim_penalty_{att.aim}")))
    return terms


def attack_limit(rules: Rules, att: Fighter, dfn: Fighter, mode: str = NORMAL) -> int:
    """Body + attack feature less every penalty of :func:`limit_terms`."""
    return sum(v for _, v in limit_terms(rules, att, dfn, mode))


def limit_text(terms: list[tuple[str, int]]) -> str:
    """``Body 13 + attack feature 6 - Body defense (...) 6 = 13``."""
    text = " ".join(f"{'-' if v < 0 else '+'} {name} {abs(v)}" for name, v in terms)
    return f"{text.removeprefix('+ ')} = {sum(v for _, v in terms)}"


# ------------------------------------------------------------------- reach and aimed-shot effects
EFFECTS = {"arm": "disarm", "hand": "disarm", "leg": "immobilise", "foot": "immobilise", "knee": "immobilise",
           "head": "stun"}
"""What a hit aimed at each part does («в ногу, что бы обездвижить…, в руку — что бы он не мог ничего держать, в
голову, что бы оглушить»); each effect lasts the rest of the duel, a stun its ``stun_actions`` lost actions."""


def in_reach(rules: Rules, f: Fighter) -> bool:
    """Whether ``f``'s attacks reach the opponent: a ranged weapon always, a melee one within ``melee_reach``.

    >>> in_reach(Rules(distance=2), Fighter()), in_reach(Rules(distance=3), Fighter())
    (True, False)
    """
    return f.ranged or rules.distance <= rules.melee_reach


def check_reach(rules: Rules, fighters: Mapping[str, Fighter]) -> None:
    """Refuse, in one line, a melee fighter farther than ``melee_reach``: a duel has no movement.

    >>> check_reach(Rules(distance=45), {"A": Fighter(name="trained")})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    analysis.base.params.ParamError: distance = 45 is not allowed; allowed: at most melee_reach = 2 m while A ...
    """
    for who, f in fighters.items():
        if not in_reach(rules, f):
            raise ParamError("distance", rules.distance,
                             f"at most melee_reach = {rules.melee_reach} m while {who} ({f.name}) fights in melee "
                             "(ranged = false): a duel has no movement; give it a ranged weapon or bring the fighters "
                             "closer")


def effect_of(rules: Rules, target: Fighter, shooter: Fighter) -> str | None:
    """What ``shooter``'s aimed hits do to ``target`` (``disarm``, ``immobilise`` or ``stun``), or None: no aim,
    ``aim_effects = "none"``, or an effect that cannot change how this target fights.

    >>> effect_of(Rules(), Fighter(weapon_n=2), Fighter(ranged=True, aim="hand"))
    'disarm'
    >>> effect_of(Rules(), Fighter(), Fighter(ranged=True, aim="leg")) is None  # it does not move anyway
    True
    """
    kind = EFFECTS.get(shooter.aim) if rules.aim_effects != "none" else None
    idle = {"disarm": not target.ranged and (target.weapon_n, target.weapon_b) == (1, 0),
            "immobilise": not target.moving, "stun": rules.stun_actions == 0}
    return None if kind is None or idle[kind] else kind


def acting(f: Fighter, kind: str | None, state: int) -> Fighter:
    """``f`` as it fights in effect ``state`` (0: unaffected): disarmed, with its fists (melee, E*1 + 0, no aim);
    immobilised, no longer moving; stunned, itself (its lost actions are the turn's business).

    >>> acting(Fighter(ranged=True, weapon_n=2, aim="head"), "disarm", 1).to_dict()["ranged"]
    False
    """
    if state and kind == "disarm":
        return f.replace(ranged=False, weapon_n=1, weapon_b=0, aim="none")
    if state and kind == "immobilise":
        return f.replace(moving=False)
    return f


def effect_text(rules: Rules, kind: str) -> str:
    """What an effect does, in words.

    >>> effect_text(Rules(), "stun")
    'stuns: the target loses its next 1 action(s)'
    """
    return {"disarm": "disarms: the target fights on with its fists (melee, E*1 + 0)",
            "immobilise": "immobilises: the target no longer moves",
            "stun": f"stuns: the target loses its next {rules.stun_actions} action(s)"}[kind]


def trauma_label(rules: Rules, f: Fighter, trauma: int) -> Any:
    """The condition with this much Body trauma: ``trauma`` (up), ``("out", trauma)`` or ``"dying"``."""
    if trauma > rules.death_multiple * f.volume:
        return "dying"
    return trauma if trauma < f.volume else ("out", trauma)


@lru_cache(maxsize=256)
def _track(volume: int, death_multiple: int) -> markov.Track:
    line = death_multiple * volume
    labels = tuple(t if t < volume else ("out", t) for t in range(line + 1)) + ("dying",)
    status = (markov.UP,) * volume + (markov.OUT,) * (line + 1 - volume) + (markov.DYING,)
    return markov.Track(labels=labels, status=status)


def track(rules: Rules, f: Fighter) -> markov.Track:
    """Body trauma 0..volume-1 (up), volume..death_multiple x volume (out, kept for the last word and finishing),
    and dying."""
    return _track(f.volume, rules.death_multiple)


def condition_label(label: Any) -> str:
    """A track label as text: ``trauma 3``, ``out (trauma 13)`` or ``dying``."""
    if label == "dying":
        return "dying"
    return f"out (trauma {label[1]})" if isinstance(label, tuple) else f"trauma {label}"


def _trauma(label: Any) -> int:
    return label[1] if isinstance(label, tuple) else label


@lru_cache(maxsize=1024)
def _attack_table(rules: Rules, att: Fighter, dfn: Fighter,
                  mode: str) -> tuple[float, tuple[tuple[float, int, bool], ...]]:
    """(P(miss), ((p, trauma, critical) of each successful roll value))."""
    return attack_outcomes(rules, att.dice, att.weapon_n, att.weapon_b, attack_limit(rules, att, dfn, mode))


@lru_cache(maxsize=4096)
def attack_outcomes(rules: Rules, dice: str, n: int, b: int,
                    limit: int) -> tuple[float, tuple[tuple[float, int, bool], ...]]:
    """One attack rolled on ``dice`` at ``limit`` with a weapon ``E*n + b``: (P(miss), ((p, trauma, critical) of
    each successful roll value)).

    >>> miss, hits = attack_outcomes(Rules(), "1d6x3", 2, 1, 10)
    >>> round(miss, 6), [(round(p, 6), d) for p, d, _ in hits]
    (0.5, [(0.166667, 15), (0.166667, 9), (0.166667, 3)])
    """
    r = roll(dice)
    success, e, crit, _ = outcome_arrays(rules, dice, limit, r.support)
    hits = tuple((float(p), int(x) * n + b, bool(c)) for p, x, c, ok in zip(r.p, e, crit, success) if ok and p > 0)
    return r.prob(~success), hits


def branches(rules: Rules, att: Fighter, dfn: Fighter, trauma: int, mode: str = NORMAL) -> list[Branch]:
    """Every way one attack on a defender with ``trauma`` Body trauma can go."""
    miss, hits = _attack_table(rules, att, dfn, mode)
    t = track(rules, dfn)
    out = [Branch(miss, "miss", 0, t.index[trauma_label(rules, dfn, trauma)])]
    out += [Branch(p, "hit", d, t.index[trauma_label(rules, dfn, trauma + d)], c) for p, d, c in hits]
    return [b for b in out if b.p > 0]


def exchange(rules: Rules, att: Fighter, dfn: Fighter) -> ExchangeResult:
    """One attack of ``att`` on an unhurt ``dfn``, exactly.

    >>> red = Fighter(body=13, attack_feature=6, weapon_n=2, weapon_b=1)
    >>> res = exchange(Rules(), red, Fighter(body=12))
    >>> round(res.p_hit, 6), res.damage.max
    (0.740741, 21)
    """
    check_reach(rules, {"the attacker": att})
    notes = [f"limit {limit_text(limit_terms(rules, att, dfn))}",
             f"trauma = E*{att.weapon_n} + {att.weapon_b} to the Body"]
    if att.aim != "none" and rules.aim_effects != "none":
        notes.append(f"a hit on the {att.aim} {effect_text(rules, EFFECTS[att.aim])}")
    return summarize("tun", rules, att, dfn, branches(rules, att, dfn, 0), track(rules, dfn), condition_label, notes)
