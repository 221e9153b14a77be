"""The 2K system with the rule of 1 and 6 (seed ``001_6962a97dba69780a.txt``).

2K: two d6; a 1 adds 0; a 6 adds 6 and rolls one more die, which obeys the
same rule, without limit.  Test result ``RT = rating + mod + 2K``; success iff
``RT >= 15``; success level ``U = 1 + floor((RT - 15) / 3)``, 0 on failure.
The explosion is unbounded, so every result carries its truncation bound
(``residual``).  Every number of the book is a ruleset constant (a house rule
may change it).  This module holds the ruleset, checks, the fighter, its
condition track and one exchange; the fight's clock, the IN economy, is in
:mod:`analysis.systems.onesix.steps` and solved exactly by
:mod:`analysis.systems.onesix.solver`.  See RULES.md section 2.

Daisy's boat manoeuvre: rating 9; her dice show 1 and 6, the extra die 4:
2K = 0 + 6 + 4 = 10, RT 19, success level 2.

>>> success_level(np.array([19]), skilled=True).tolist()
[2]
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Iterator, Sequence

import numpy as np

from analysis.base.lazy import sp
from analysis.base.params import Bool, Choice, FighterBase, Int, ParamError, Validated, param
from analysis.engine import markov
from analysis.engine.combat import Branch, DuelRules, ExchangeResult, summarize
from analysis.engine.dist import Dist
from analysis.engine.results import CheckResult, OpposedResult, Outcomes

BASE_FACES = (0, 2, 3, 4, 5, 6)
"""A d6 under the rule of 1 and 6: its 1 adds 0."""
WOUND, SHOCK = 0, 1
WEAPON_CLASSES = ("wound", "shock", "ballistic")
IN_DICE = ("one_six", "one_zero", "d6")
GROUP_TIMINGS = ("economy", "order", "average")
TARGETS = ("weakest", "random", "strongest", "spread")
UNHURT = (0, 0, 0)
"""The condition label (wounds, shock, armor wear) of a fresh fighter."""


def constant(default: Any, spec: Any, help: str) -> Any:
    """A book number a house rule may change."""
    return param(default, spec, help, kind="constant")


@dataclass(frozen=True)
class Rules(DuelRules):
    """The 2K ruleset: every variant of RULES.md section 2, then the book's numbers as constants."""

    where = "onesix ruleset"
    extra_die_ones: str = param("zero", Choice(("zero", "count")), "an extra (exploded) die's 1 adds 0, or counts 1")
    explode_depth: int | None = param(None, Int(0, 50, optional=True), "at most N extra dice per die (none: unlimited)")
    excess_over: str = param("threshold", Choice(("threshold", "defense")),
                             "damage excess over the success threshold, or over the defender's RT")
    armor_wear: bool = param(False, Bool(), "a hit of power >= the armor's rating wears it (by 1; by 3 at 2x)")
    ballistic_power: str = param("total", Choice(("total", "weapon")), "a ballistic hit wounds when this power "
                                 "exceeds the protection: PS + excess (total) or the weapon's PS alone")
    in_economy: bool = param(True, Bool(), "the IN economy times the fight (false, a simplification: the old fixed "
                             "order, one attack each per round by average IN - penalty)")
    in_die: str = param("one_six", Choice(IN_DICE), "1K in IN = reflexes + 1K: one die under the rule of 1 and 6 "
                        "(one_six), a die whose 1 adds 0 and whose 6 does not explode (one_zero, mean 10/3), or a "
                        "plain d6")
    in_explode_depth: int | None = param(None, Int(0, 50, optional=True), "in_die = one_six: at most N extra dice "
                                         "in 1K (none: unlimited); 2K's explode_depth does not cap it")
    in_carry: bool = param(True, Bool(), "leftover IN carries (<= 3 as is, above as 3); false: only debts carry")
    in_penalty: str = param("immediate", Choice(("immediate", "roll")), "the condition penalty lowers IN in every "
                            "roll and at once when it rises mid-round (immediate), or in the rolls only (roll)")
    in_loss: str = param("one_per_hit", Choice(("one_per_hit", "stack")), "stopping effect and pain shock from one "
                         "hit cost one action together, or one each (stack)")
    parry_window: int | None = param(3, Int(0, 30, optional=True, none_word="any"), "a parry is in time iff the "
                                     "defender's IN is at most this much below the attacker's when the attack starts "
                                     "(any: whatever the lag, the earlier reading)")
    simultaneous_parry: bool = param(False, Bool(), "at equal IN both attack and neither can parry the other's "
                                     "simultaneous attack (false); true: each then parries if it has the parry's IN")
    gear_faults: bool = param(False, Bool(), "an attack whose base dice all show 1 tests the weapon (gear_rating + "
                              "2K against the threshold); on failure it breaks and the fighter fights on with fists "
                              "(PS = training, Shock)")
    group_timing: str = param("economy", Choice(GROUP_TIMINGS), "a group fight's clock: the "
                              "duel's IN economy with every fighter (economy), each round IN = reflexes + 1K - "
                              "penalty in descending order, one attack and at most one parry each (order), or the "
                              "same by average IN = reflexes + 3 - penalty (average, squads); inert in a duel")
    success_threshold: int = constant(15, Int(1, 60), "RT needed for success (the main scheme's control point)")
    level_step: int = constant(3, Int(1, 20), "every this many points over the threshold add one success level")
    unskilled_max_level: int = constant(1, Int(0, 20), "the highest success level without a matching skill")
    fumble_below: int = constant(6, Int(-20, 60), "RT below this is a serious failure")
    test_dice: int = constant(2, Int(1, 6), "dice in a test (2K); all of them showing 1 is the equipment fault")
    average_in_bonus: int = constant(3, Int(0, 20), "average IN = reflexes + this (fixed order, squads)")
    attack_cost: int = constant(6, Int(1, 30), "IN an attack (any full action) costs")
    parry_cost: int = constant(3, Int(1, 30), "IN a parry or dodge (reflex action) costs; it needs that much IN")
    action_lost: int = constant(6, Int(0, 30), "IN a lost action (stopping effect, pain shock) costs")
    attack_min_in: int = constant(4, Int(1, 30), "the least IN that starts an attack (4-5 IN: the rest is debt)")
    carry_cap: int = constant(3, Int(0, 30), "leftover IN carried into the next round at most")
    carry_floor: int = constant(-20, Int(-60, 0), "a debt carried is at most this deep (lab bound)")
    track_length: int = constant(6, Int(1, 12), "levels of each track; a track above it: out")
    reserve: int = constant(3, Int(0, 12), "the body's reserve past the track; wounds past the track: dying; the "
                            "next Wound after it kills (10th by the book), Shock past it becomes Wounds")
    damage_step: int = constant(3, Int(1, 20), "levels inflicted = ceil((power - absorption) / this)")
    wear_step: int = constant(1, Int(0, 20), "armor_wear: a hit of power >= the armor's rating wears it this much")
    wear_double_step: int = constant(3, Int(0, 20), "armor_wear: a hit of power >= twice the rating wears it this much")
    stopping_effect: bool = constant(True, Bool(), "levels of one hit > training: the victim loses an action")
    pain_shock: bool = constant(True, Bool(), "a hit leaves its track above personality: the victim loses an action")

    @property
    def shock_cap(self) -> int:
        """The last Shock level; each further one becomes a Wound (9 by the book)."""
        return self.track_length + self.reserve

    @property
    def death(self) -> int:
        """Wounds that kill: the first past the reserve (10 by the book)."""
        return self.track_length + self.reserve + 1


@dataclass(frozen=True)
class CheckArgs(Validated):
    """A test by the main scheme."""

    where = "onesix check"
    rating: int = param(9, Int(), "action rating RD = attribute + skill")
    mod: int = param(0, Int(), "modifiers (calm situation +3, condition penalty -n, ...)")
    skilled: bool = param(True, Bool(), "a matching skill; without one U is capped (at 1 by the book)")
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
    """The test roll: ``test_dice`` dice (2K by the book).

    >>> round(two_k(Rules()).mean(), 12), float(two_k(Rules()).pmf(0)) == 1 / 36
    (8.0, True)
    """
    return die(rules).repeat_sum(rules.test_dice)


@lru_cache(maxsize=64)
def in_die(rules: Rules) -> Dist:
    """1K of the IN roll: one die under the rule of 1 and 6 (``one_six``, at most ``in_explode_depth`` extra
    dice), its 1 -> 0 without the explosion (``one_zero``) or a plain d6.

    >>> round(in_die(Rules()).mean(), 12), round(in_die(Rules(in_die="one_zero")).mean() * 3, 12)
    (4.0, 10.0)
    >>> in_die(Rules(in_die="d6")).mean(), in_die(Rules(explode_depth=0)).max > 12
    (3.5, True)
    """
    if rules.in_die == "d6":
        return Dist.die(range(1, 7))
    depth = 0 if rules.in_die == "one_zero" else rules.in_explode_depth
    return die(rules.replace(explode_depth=depth))


def p_equipment_fault(rules: Rules) -> float:
    """P(every base die shows 1): the equipment fault (1/36 for 2K); then, and only then, 2K = 0."""
    return (1 / 6) ** rules.test_dice


def p_gear_fails(rules: Rules, rating: int) -> float:
    """P(the gear's reliability test fails): ``rating + 2K`` below the threshold.

    >>> round(p_gear_fails(Rules(), 8) * 108, 9)
    46.0
    """
    return float(rt_distribution(rules, rating).cdf(rules.success_threshold - 1))


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


def success_level(rt: np.ndarray, skilled: bool, rules: Rules | None = None) -> np.ndarray:
    """U = 1 + floor((RT - threshold) / step) for RT >= threshold, else 0; capped without a skill."""
    rules = rules or Rules()
    u = np.where(rt >= rules.success_threshold, 1 + (rt - rules.success_threshold) // rules.level_step, 0)
    return u if skilled else np.minimum(u, rules.unskilled_max_level)


def rt_distribution(rules: Rules, rating: int, mod: int = 0) -> Dist:
    """The distribution of RT = rating + mod + 2K."""
    return two_k(rules) + (rating + mod)


def check(rules: Rules, args: CheckArgs) -> CheckResult:
    """P(success), the success-level distribution, P(RT < 6) and the equipment fault."""
    rt = rt_distribution(rules, args.rating, args.mod)
    fault = p_equipment_fault(rules)
    extra = {"p_equipment_fault": fault, "mean_rt": rt.mean()}
    if args.gear_rating is not None:
        extra["p_gear_breaks"] = fault * p_gear_fails(rules, args.gear_rating)
    return CheckResult(
        system="onesix",
        variants=rules.to_dict(),
        params=args.to_dict(),
        p_success=float(rt.sf(rules.success_threshold - 1)),
        outcome="success_level",
        distribution=rt.map(lambda v: success_level(v, args.skilled, rules)),
        p_fumble=float(rt.cdf(rules.fumble_below - 1)),
        extra=extra,
    )


def outcomes(rules: Rules, args: CheckArgs) -> Outcomes:
    """Opposition outcomes: the higher RT wins."""
    rt = rt_distribution(rules, args.rating, args.mod)
    return Outcomes(p=rt.p, key=rt.support, score=rt.support, residual=rt.residual)


def opposed(rules: Rules, a: CheckArgs, b: CheckArgs) -> OpposedResult:
    """The scheme of opposition: the higher RT wins, then goes through the main scheme (B is the reacting side).

    ``p_a_succeeds`` = P(A's RT is higher and reaches the threshold); ``a_success_levels`` splits A's wins by
    its success level (0: won, but failed against the threshold).  Equal RT is ``p_tie`` (``p_tie_succeeds``:
    equal and at least the threshold).

    >>> res = opposed(Rules(), CheckArgs(rating=9), CheckArgs(rating=9))
    >>> abs(res.p_a_wins - res.p_b_wins) < 1e-12, res.extra["p_a_succeeds"] < res.p_a_wins
    (True, True)
    """
    win, tie, lose, margin = outcomes(rules, a).against(outcomes(rules, b))
    rt_a, rt_b = rt_distribution(rules, a.rating, a.mod), rt_distribution(rules, b.rating, b.mod)
    joint = np.outer(rt_a.p, rt_b.p)
    diff = rt_a.support[:, None] - rt_b.support[None, :]
    extra: dict[str, Any] = {}
    for side, rt, args, wins in (("a", rt_a, a, diff > 0), ("b", rt_b, b, diff < 0)):
        values = rt.support[:, None] if side == "a" else rt.support[None, :]
        levels = np.broadcast_to(success_level(values, args.skilled, rules), joint.shape)
        ok = wins & np.broadcast_to(values >= rules.success_threshold, joint.shape)
        extra[f"p_{side}_succeeds"] = float(joint[ok].sum())
        dist = np.bincount(levels[wins].ravel(), weights=joint[wins].ravel())
        extra[f"{side}_success_levels"] = {str(u): float(p) for u, p in enumerate(dist) if p > 0}
    tie_ok = (diff == 0) & np.broadcast_to(rt_a.support[:, None] >= rules.success_threshold, joint.shape)
    extra["p_tie_succeeds"] = float(joint[tie_ok].sum())
    rule = ("equal RT: both succeed at once; when B reacts to A, B (the reacting side) wins; the winner's RT then "
            f"goes through the main scheme (succeeds at {rules.success_threshold})")
    return OpposedResult("onesix", rules.to_dict(), a.to_dict(), b.to_dict(), win, lose, tie, margin, rule, extra)


def table_cases(rules: Rules, args: CheckArgs) -> Iterator[tuple[str, Rules, CheckArgs]]:
    """Ratings 0..threshold (from the threshold on, success is certain)."""
    for rating in range(0, rules.success_threshold + 1):
        yield "2K", rules, args.replace(rating=rating)


# ------------------------------------------------------------------ combat
@dataclass(frozen=True)
class Fighter(FighterBase):
    """A 2K combatant (RULES.md section 2); ``reflexes`` overrides reaction + intellect.

    >>> Fighter(reaction=4, intellect=4, training=3, armor=1).derived(Rules())
    {'reflexes': 8, 'average_in': 11, 'absorption': 4}
    """

    where = "onesix fighter"
    attack_rating: int = param(8, Int(0, 40), "attack RD = attribute + combat skill")
    defense_rating: int = param(0, Int(0, 40), "parry/dodge RD, opposing an attack it parries (0 = no defense)")
    reaction: int = param(4, Int(0, 20), "Reaction (reflexes = reaction + intellect)")
    intellect: int = param(4, Int(0, 20), "Intellect")
    reflexes: int | None = param(None, Int(0, 40, optional=True), "Reflexes (default reaction + intellect)")
    training: int = param(3, Int(0, 20), "Training [T]: absorbs damage; stopping effect above it")
    personality: int = param(4, Int(0, 20), "Personality: pain shock when a track exceeds it")
    armor: int = param(0, Int(0, 20), "armor rating, added to training as absorption")
    protection: int = param(0, Int(0, 40), "armor protection: a ballistic hit of power <= it inflicts Shock")
    weapon_ps: int = param(3, Int(0, 60), "damage power PS (combat knife: training + 2; fists: training, lab's reading)")
    weapon_class: str = param("shock", Choice(WEAPON_CLASSES), "what the weapon inflicts: wound, shock or ballistic")
    gear_rating: int = param(8, Int(0, 40), "the weapon's reliability rating (gear_faults: an attack whose base dice "
                             "all show 1 tests it by the main scheme; lab's assumption 8: an average 2K passes)")
    parry: str = param("always", Choice(("always", "never")), "parry every attack it can (defense_rating > 0 and "
                       "the parry's IN left), or never", kind="policy")
    target: str = param("weakest", Choice(TARGETS), "whom it attacks in a group fight (RULES.md section 7): the able "
                        "enemy with the highest penalty, then the most Wounds (weakest), any able enemy at random, the "
                        "one with the highest attack rating (strongest), or the one attacked least this round "
                        "(spread); ties by listed order; inert in a duel", kind="policy")

    def total_reflexes(self) -> int:
        """Reflexes: the override, else reaction + intellect."""
        return self.reflexes if self.reflexes is not None else self.reaction + self.intellect

    def average_in(self, rules: Rules) -> int:
        """Average IN = reflexes + 3 («Средняя инициатива»)."""
        return self.total_reflexes() + rules.average_in_bonus

    def parries(self) -> bool:
        """Whether the fighter opposes attacks with a parry at all (policy and a defense rating)."""
        return self.parry == "always" and self.defense_rating > 0

    def derived(self, rules: Rules) -> dict[str, int]:
        return {"reflexes": self.total_reflexes(), "average_in": self.average_in(rules),
                "absorption": self.training + self.armor}

    def fists(self) -> Fighter:
        """The fighter after its weapon broke: fists, PS = training, class Shock (the archetypes' unarmed reading).

        Made once per fighter and kept beside its fields (not one of them: equality, hashing and the dict ignore it),
        since the step rules ask for it at every attack of a disarmed fighter."""
        made = self.__dict__.get("_fists")
        if made is None:
            made = self.replace(weapon_ps=self.training, weapon_class="shock")
            object.__setattr__(self, "_fists", made)
        return made

    def breakable(self, rules: Rules) -> bool:
        """Whether a gear fault can change this fighter: ``gear_faults`` on, a weapon other than its fists, and a
        reliability test it can fail.

        >>> knife = Fighter(weapon_ps=5, weapon_class="wound")
        >>> knife.breakable(Rules(gear_faults=True)), knife.breakable(Rules()), Fighter().breakable(Rules(gear_faults=True))
        (True, False, False)
        """
        return rules.gear_faults and self.fists() != self and p_gear_fails(rules, self.gear_rating) > 0


def mark(wounds: Any, shock: Any, cls: Any, levels: Any, rules: Rules | None = None) -> tuple[Any, Any]:
    """The tracks after a hit of ``levels`` of class ``cls``; Shock past the reserve becomes Wounds.

    Works on integers and numpy arrays alike.

    >>> tuple(int(v) for v in mark(0, 8, SHOCK, 3)), tuple(int(v) for v in mark(2, 1, WOUND, 2))
    ((2, 9), (4, 1))
    """
    cap = (rules or Rules()).shock_cap
    wounds = wounds + np.where(cls == WOUND, levels, 0)
    shock = shock + np.where(cls == SHOCK, levels, 0)
    over = np.maximum(shock - cap, 0)
    return wounds + over, shock - over


def hit_effect(rules: Rules, att: Fighter, dfn: Fighter, power: Any, wear: int) -> tuple[Any, Any, Any]:
    """(levels, class, armor wear step) of hits of total ``power`` on a defender whose armor has worn by ``wear``.

    Levels = ceil((power - absorption) / 3), none if <= 0.  Under ``armor_wear``
    the armor (while its rating is above 0) wears by 1 when the power reaches
    its current rating, by 3 when the power reaches twice that rating.

    >>> knife = Fighter(weapon_ps=5, weapon_class="wound")
    >>> [int(v) for v in hit_effect(Rules(), knife, Fighter(training=3, armor=1), 9, 0)]
    [2, 0, 0]
    """
    power = np.asarray(power)
    armor = max(dfn.armor - wear, 0)
    levels = np.maximum(-((dfn.training + armor - power) // rules.damage_step), 0)
    if att.weapon_class == "ballistic":
        decisive = power if rules.ballistic_power == "total" else np.full(power.shape, att.weapon_ps)
        cls = np.where(decisive > max(dfn.protection - wear, 0), WOUND, SHOCK)
    else:
        cls = np.full(power.shape, WOUND if att.weapon_class == "wound" else SHOCK)
    step = np.zeros(power.shape, dtype=np.int64)
    if rules.armor_wear and armor > 0:
        step = np.where(power >= 2 * armor, rules.wear_double_step, np.where(power >= armor, rules.wear_step, 0))
    return levels, cls, step


def max_wear(rules: Rules, f: Fighter) -> int:
    """How far the armor can wear: its rating under ``armor_wear`` (protection drops along), else 0."""
    return f.armor if rules.armor_wear else 0


def status(rules: Rules, label: tuple[int, int, int]) -> int:
    """The level of a condition: up, out (a track past the track length), dying (Wounds past it) or dead."""
    w, s, _ = label
    if w >= rules.death:
        return markov.DEAD
    if w > rules.track_length:
        return markov.DYING
    return markov.OUT if s > rules.track_length else markov.UP


@lru_cache(maxsize=256)
def track(rules: Rules, f: Fighter) -> markov.Track:
    """Every condition (wounds, shock, armor wear), the past-out ones included, so that finishing can go on.

    Wounds run to the deadly level, Shock to the end of the reserve; a
    condition's class is its penalty max(wounds, shock) while up.  The index
    grows with every track, so a condition only ever moves to a later one.

    >>> t = track(Rules(), Fighter())
    >>> len(t), t.labels[t.index[(2, 5, 0)]], t.classes[t.index[(2, 5, 0)]], t.status[t.index[(8, 0, 0)]]
    (110, (2, 5, 0), 5, 2)
    """
    labels = [(w, s, k) for w in range(rules.death + 1) for s in range(rules.shock_cap + 1)
              for k in range(max_wear(rules, f) + 1)]
    levels = [status(rules, lab) for lab in labels]
    return markov.Track(labels=tuple(labels), status=tuple(levels),
                        classes=tuple(max(w, s) if st == markov.UP else 0 for (w, s, _), st in zip(labels, levels)))


def condition_index(rules: Rules, f: Fighter, w: Any, s: Any, k: Any) -> Any:
    """The track index of conditions (wounds capped at the deadly level)."""
    n_wear = max_wear(rules, f) + 1
    return (np.minimum(w, rules.death) * (rules.shock_cap + 1) + s) * n_wear + k


def _next(rules: Rules, f: Fighter, label: Any, levels: np.ndarray, cls: np.ndarray, step: np.ndarray) -> np.ndarray:
    """Track indices of ``f`` after each hit (levels, class, wear step) from ``label`` (one or one per hit)."""
    label = np.asarray(label)
    w, s = mark(label[..., 0], label[..., 1], cls, levels, rules)
    wear = np.minimum(label[..., 2] + step, max_wear(rules, f))
    return condition_index(rules, f, w, s, wear)


FAULTS = ("all", "fault", "clean")
"""Which attack rolls an outcome table covers: every roll, only the equipment fault (every base die 1: 2K = 0)
or every other roll; the last two split the first (their probabilities are joint, not conditional)."""


@lru_cache(maxsize=16384)
def _outcomes(rules: Rules, att: Fighter, dfn: Fighter, att_penalty: int, def_penalty: int, wear: int,
              parry: bool, rolls: str = "all") -> tuple[float, float, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(P(miss), P(parried), then per distinct hit: levels, class, wear step, probability), over the attack
    ``rolls`` of :data:`FAULTS`."""
    k = two_k(rules)
    v, p = k.support, k.p
    pa = p if rolls == "all" else np.where((v == 0) == (rolls == "fault"), p, 0.0)
    thr = rules.success_threshold
    rt_a = att.attack_rating - att_penalty + v
    ok = rt_a >= thr
    p_miss = float(pa[~ok].sum())
    if not parry:
        hit_p, excess, p_def = pa[ok], rt_a[ok] - thr, 0.0
    elif rules.excess_over == "defense":
        margin = np.convolve(np.where(ok, pa, 0.0), p[::-1])  # P(RT_a - RT_d = value), RT_a >= thr only
        value = np.arange(margin.size) - (p.size - 1) + att.attack_rating - att_penalty - dfn.defense_rating + def_penalty
        hit_p, excess = margin[value > 0], value[value > 0]
        p_def = float(margin.sum() - hit_p.sum())
    else:
        lowest_d = dfn.defense_rating - def_penalty + int(v[0])
        below = np.concatenate(([0.0], np.cumsum(p)))[np.clip(rt_a[ok] - lowest_d, 0, p.size)]
        hit_p, excess = pa[ok] * below, rt_a[ok] - thr
        p_def = float((pa[ok] * (1.0 - below)).sum())
    hit_p, excess = hit_p[hit_p > 0], excess[hit_p > 0]
    levels, cls, step = hit_effect(rules, att, dfn, att.weapon_ps + excess, wear)
    span_step = max(rules.wear_step, rules.wear_double_step) + 1
    key = (levels * 2 + cls) * span_step + step
    uniq, inverse = np.unique(key, return_inverse=True)
    probs = np.bincount(inverse, weights=hit_p)
    out = (uniq // (2 * span_step), (uniq // span_step) % 2, uniq % span_step, probs)
    for arr in out:
        arr.setflags(write=False)
    return (p_miss, p_def) + out


def _penalty(label: tuple[int, int, int]) -> int:
    return max(label[0], label[1])


def branches(rules: Rules, att: Fighter, dfn: Fighter, att_condition: tuple[int, int, int] = UNHURT,
             def_condition: tuple[int, int, int] = UNHURT, parry: bool | None = None) -> list[Branch]:
    """Every way one attack can go, from both fighters' conditions; ``damage`` = levels inflicted.

    ``parry`` defaults to the defender's policy (it parries when it can); a helpless defender gets ``False``.
    """
    parry = dfn.parries() if parry is None else parry
    p_miss, p_def, levels, cls, step, p = _outcomes(rules, att, dfn, _penalty(att_condition), _penalty(def_condition),
                                                    def_condition[2], parry)
    here = track(rules, dfn).index[def_condition]
    after = _next(rules, dfn, def_condition, levels, cls, step)
    out = [Branch(p_miss, "miss", 0, here), Branch(p_def, "defended", 0, here)]
    out += [Branch(float(q), "hit", int(n), int(j)) for q, n, j in zip(p, levels, after)]
    return [b for b in out if b.p > 0]


def kernels(rules: Rules, att: Fighter, dfn: Fighter) -> dict[int, sp.csr_matrix]:
    """The attack kernels over the defender's track, one per attacker class (penalty 0..track length).

    Row ``i`` is the defender's next condition from up condition ``i`` (it parries by its policy); the rows of
    conditions that are not up are the identity.
    """
    t = track(rules, dfn)
    return {c: markov.kernel(t, lambda i, c=c: ((b.p, b.condition) for b in branches(
        rules, att, dfn, (c, 0, 0), t.labels[i]))) for c in range(rules.track_length + 1)}


@lru_cache(maxsize=256)
def helpless_kernels(rules: Rules, att: Fighter, dfn: Fighter) -> dict[int, sp.csr_matrix]:
    """``after_out = finish``: one unopposed attack (no parry) on ``dfn`` once it is out, per attacker class (kept
    for the next duel of the same pair: read them, never change them)."""
    t = track(rules, dfn)
    return {c: markov.helpless_kernel(t, lambda i, c=c: ((b.p, b.condition) for b in branches(
        rules, att, dfn, (c, 0, 0), t.labels[i], parry=False)), rules.lethal_at) for c in range(rules.track_length + 1)}


def condition_label(rules: Rules, label: Any) -> str:
    """A track label as text: ``wounds 2, shock 0`` (``, armor worn 1``) while up, else its level."""
    level = status(rules, label)
    if level != markov.UP:
        return markov.STATUS_NAMES[level]
    return f"wounds {label[0]}, shock {label[1]}" + (f", armor worn {label[2]}" if label[2] else "")


def exchange(rules: Rules, att: Fighter, dfn: Fighter) -> ExchangeResult:
    """One attack of an unhurt ``att`` on an unhurt ``dfn`` (parrying by its policy), exactly.

    >>> knife = Fighter(attack_rating=9, weapon_ps=5, weapon_class="wound")
    >>> res = exchange(Rules(), knife, Fighter())
    >>> round(res.p_hit, 6) == round(check(Rules(), CheckArgs(rating=9)).p_success, 6), res.p_defended
    (True, 0.0)
    """
    fault = ("the double-one equipment fault tests the weapon (gear_faults): p_weapon_breaks; after the blow the "
             "attacker fights on with fists" if att.breakable(rules) else
             "the double-one equipment fault " + ("breaks nothing: the attacker fights with its fists"
                                                   if rules.gear_faults else "is left out (gear_faults = false)"))
    notes = ["damage = levels inflicted, Wounds or Shock by the weapon class (condition_after shows which)",
             f"2K has no critical hit; RT < 6 fumbles have no combat consequence in the seed; {fault}",
             ("the parry costs IN in a duel and must be in time (parry_window); here the defender parries whenever "
              "its policy says so")]
    res = summarize("onesix", rules, att, dfn, branches(rules, att, dfn), track(rules, dfn),
                    lambda label: condition_label(rules, label), notes)
    breaks = p_equipment_fault(rules) * p_gear_fails(rules, att.gear_rating) if att.breakable(rules) else 0.0
    return replace(res, extra={"p_weapon_breaks": breaks})
