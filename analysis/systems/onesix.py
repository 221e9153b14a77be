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
from typing import Any, Iterator, Mapping, Sequence

import numpy as np
from .._lazy import sp

from .. import markov
from ..combat import Branch, DuelRules, DuelResult, ExchangeResult, Resolution, describe_fighter, summarize
from ..dist import Dist
from ..params import Bool, Choice, DicelabError, FighterBase, Int, ParamError, Validated, param
from ..results import CheckResult, OpposedResult, Outcomes
from ..system import System

THRESHOLD = 15
FUMBLE_BELOW = 6
P_DOUBLE_ONE = 1 / 36
BASE_FACES = (0, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class Rules(DuelRules):
    """The 2K ruleset: every variant of RULES.md section 2."""

    where = "onesix ruleset"
    extra_die_ones: str = param("zero", Choice(("zero", "count")), "an extra (exploded) die's 1 adds 0, or counts 1")
    explode_depth: int | None = param(None, Int(0, 50, optional=True), "at most N extra dice per die (none: unlimited)")
    excess_over: str = param("threshold", Choice(("threshold", "defense")), "damage excess over 15, or over the defender's RT")
    armor_wear: bool = param(False, Bool(), "a hit of power >= the armor's rating wears it by 1 (by 3 if >= 2x)")


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


def rt_distribution(rules: Rules, rating: int, mod: int = 0) -> Dist:
    """The distribution of RT = rating + mod + 2K."""
    return two_k(rules) + (rating + mod)




def check(rules: Rules, args: CheckArgs) -> CheckResult:
    """P(success), the success-level distribution, P(RT < 6) and the equipment fault."""
    rt = rt_distribution(rules, args.rating, args.mod)
    extra = {"p_equipment_fault": P_DOUBLE_ONE, "mean_rt": rt.mean()}
    if args.gear_rating is not None:
        extra["p_gear_breaks"] = P_DOUBLE_ONE * float(rt_distribution(rules, args.gear_rating).cdf(THRESHOLD - 1))
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
    rt = rt_distribution(rules, args.rating, args.mod)
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

# ------------------------------------------------------------------ combat
WOUND, SHOCK = 0, 1
WEAPON_CLASSES = ("wound", "shock", "ballistic")
TRACK_MAX = 6
"""A track above 6: the fighter cannot act (out)."""
SHOCK_CAP = 9
"""Levels 7-9 are the reserve; from the 10th, each new Shock level becomes a Wound."""
DEATH = 10
"""The 10th Wound kills."""
UNHURT = (0, 0, 0)
"""The condition label (wounds, shock, armor wear) of a fresh fighter."""


@dataclass(frozen=True)
class Fighter(FighterBase):
    """A 2K combatant (RULES.md section 2); ``reflexes`` overrides reaction + intellect.

    >>> Fighter(reaction=4, intellect=4, training=3, armor=1).derived(Rules())
    {'reflexes': 8, 'average_in': 11, 'absorption': 4}
    """

    where = "onesix fighter"
    attack_rating: int = param(8, Int(0, 40), "attack RD = attribute + combat skill")
    defense_rating: int = param(0, Int(0, 40), "parry/dodge RD, opposing every attack (0 = no defense)")
    reaction: int = param(4, Int(0, 20), "Reaction (reflexes = reaction + intellect)")
    intellect: int = param(4, Int(0, 20), "Intellect")
    reflexes: int | None = param(None, Int(0, 40, optional=True), "Reflexes (default reaction + intellect)")
    training: int = param(3, Int(0, 20), "Training [T]: absorbs damage; stopping effect above it")
    personality: int = param(4, Int(0, 20), "Personality: pain shock when a track exceeds it")
    armor: int = param(0, Int(0, 20), "armor rating, added to training as absorption")
    protection: int = param(0, Int(0, 40), "armor protection: a ballistic hit of power <= it inflicts Shock")
    weapon_ps: int = param(3, Int(0, 60), "damage power PS (combat knife: training + 2; fists: training, lab's reading)")
    weapon_class: str = param("shock", Choice(WEAPON_CLASSES), "what the weapon inflicts: wound, shock or ballistic")

    def total_reflexes(self) -> int:
        """Reflexes: the override, else reaction + intellect."""
        return self.reflexes if self.reflexes is not None else self.reaction + self.intellect

    def average_in(self) -> int:
        """Average IN = reflexes + 3 (IN = reflexes + 1d6)."""
        return self.total_reflexes() + 3

    def derived(self, rules: Rules) -> dict[str, int]:
        return {"reflexes": self.total_reflexes(), "average_in": self.average_in(), "absorption": self.training + self.armor}


def mark(wounds: Any, shock: Any, cls: Any, levels: Any) -> tuple[Any, Any]:
    """The tracks after a hit of ``levels`` of class ``cls``; Shock past the 9th level becomes Wounds.

    Works on integers and numpy arrays alike.

    >>> tuple(int(v) for v in mark(0, 8, SHOCK, 3)), tuple(int(v) for v in mark(2, 1, WOUND, 2))
    ((2, 9), (4, 1))
    """
    wounds = wounds + np.where(cls == WOUND, levels, 0)
    shock = shock + np.where(cls == SHOCK, levels, 0)
    over = np.maximum(shock - SHOCK_CAP, 0)
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
    levels = np.maximum(-((dfn.training + armor - power) // 3), 0)
    if att.weapon_class == "ballistic":
        cls = np.where(power > max(dfn.protection - wear, 0), WOUND, SHOCK)
    else:
        cls = np.full(power.shape, WOUND if att.weapon_class == "wound" else SHOCK)
    step = np.zeros(power.shape, dtype=np.int64)
    if rules.armor_wear and armor > 0:
        step = np.where(power >= 2 * armor, 3, np.where(power >= armor, 1, 0))
    return levels, cls, step


def max_wear(rules: Rules, f: Fighter) -> int:
    """How far the armor can wear: its rating under ``armor_wear`` (protection drops along), else 0."""
    return f.armor if rules.armor_wear else 0


@lru_cache(maxsize=256)
def track(rules: Rules, f: Fighter) -> markov.Track:
    """Conditions (wounds, shock, armor wear) with both tracks in 0..6, then ``out``, ``dying`` and ``dead``.

    A condition's class is its penalty max(wounds, shock).  A hit that puts a
    track above 6 leaves the fighter ``out``, Wounds 7-9 ``dying``, 10 Wounds
    ``dead``; the duel stops there, so those conditions need no levels.

    >>> t = track(Rules(), Fighter())
    >>> len(t), t.labels[-3:], t.classes[t.index[(2, 5, 0)]]
    (52, ('out', 'dying', 'dead'), 5)
    """
    wears = range(max_wear(rules, f) + 1)
    up = [(w, s, k) for w in range(TRACK_MAX + 1) for s in range(TRACK_MAX + 1) for k in wears]
    return markov.Track(
        labels=tuple(up) + ("out", "dying", "dead"),
        status=(markov.UP,) * len(up) + (markov.OUT, markov.DYING, markov.DEAD),
        classes=tuple(max(w, s) for w, s, _ in up) + (0, 0, 0),
    )


def _next(rules: Rules, f: Fighter, label: Any, levels: np.ndarray, cls: np.ndarray, step: np.ndarray) -> np.ndarray:
    """Track indices of ``f`` after each hit (levels, class, wear step) from up conditions.

    ``label`` is one (wounds, shock, wear) label or an array of them, one row per hit.
    """
    label = np.asarray(label)
    n_wear = max_wear(rules, f) + 1
    n_up = (TRACK_MAX + 1) ** 2 * n_wear
    w, s = mark(label[..., 0], label[..., 1], cls, levels)
    wear = np.minimum(label[..., 2] + step, n_wear - 1)
    up = (np.minimum(w, TRACK_MAX) * (TRACK_MAX + 1) + np.minimum(s, TRACK_MAX)) * n_wear + wear
    return np.where(w >= DEATH, n_up + 2, np.where(w > TRACK_MAX, n_up + 1, np.where(s > TRACK_MAX, n_up, up)))


@lru_cache(maxsize=8192)
def _outcomes(rules: Rules, att: Fighter, dfn: Fighter, att_penalty: int, def_penalty: int,
              wear: int) -> tuple[float, float, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(P(miss), P(defended), then per distinct hit: levels, class, wear step, probability)."""
    k = two_k(rules)
    v, p = k.support, k.p
    rt_a = att.attack_rating - att_penalty + v
    ok = rt_a >= THRESHOLD
    p_miss = float(p[~ok].sum())
    if dfn.defense_rating == 0:
        hit_p, excess, p_def = p[ok], rt_a[ok] - THRESHOLD, 0.0
    elif rules.excess_over == "defense":
        margin = np.convolve(np.where(ok, p, 0.0), p[::-1])  # P(RT_a - RT_d = value), RT_a >= 15 only
        value = np.arange(margin.size) - (p.size - 1) + att.attack_rating - att_penalty - dfn.defense_rating + def_penalty
        hit_p, excess = margin[value > 0], value[value > 0]
        p_def = float(margin.sum() - hit_p.sum())
    else:
        lowest_d = dfn.defense_rating - def_penalty + int(v[0])
        below = np.concatenate(([0.0], np.cumsum(p)))[np.clip(rt_a[ok] - lowest_d, 0, p.size)]
        hit_p, excess = p[ok] * below, rt_a[ok] - THRESHOLD
        p_def = float((p[ok] * (1.0 - below)).sum())
    levels, cls, step = hit_effect(rules, att, dfn, att.weapon_ps + excess, wear)
    key = (levels * 2 + cls) * 4 + step  # one integer per (levels, class, step): class < 2, step < 4
    uniq, inverse = np.unique(key, return_inverse=True)
    probs = np.bincount(inverse, weights=hit_p)
    out = (uniq // 8, (uniq // 4) % 2, uniq % 4, probs)
    for arr in out:
        arr.setflags(write=False)
    return (p_miss, p_def) + out


def _penalty(label: tuple[int, int, int]) -> int:
    return max(label[0], label[1])


def branches(rules: Rules, att: Fighter, dfn: Fighter, att_condition: tuple[int, int, int] = UNHURT,
             def_condition: tuple[int, int, int] = UNHURT) -> list[Branch]:
    """Every way one attack can go, from both fighters' (up) conditions; ``damage`` = levels inflicted."""
    p_miss, p_def, levels, cls, step, p = _outcomes(rules, att, dfn, _penalty(att_condition), _penalty(def_condition),
                                                    def_condition[2])
    here = track(rules, dfn).index[def_condition]
    after = _next(rules, dfn, def_condition, levels, cls, step)
    out = [Branch(p_miss, "miss", 0, here), Branch(p_def, "defended", 0, here)]
    out += [Branch(float(q), "hit", int(n), int(j)) for q, n, j in zip(p, levels, after)]
    return [b for b in out if b.p > 0]


def kernels(rules: Rules, att: Fighter, dfn: Fighter) -> dict[int, sp.csr_matrix]:
    """The attack kernels over the defender's track, one per attacker class (penalty 0..6).

    Row ``i`` is the defender's next condition from condition ``i``; ``out`` and ``dead`` rows are the identity.
    """
    t = track(rules, dfn)
    up = np.flatnonzero(t.up)
    idle = np.flatnonzero(~t.up)
    labels = np.array([t.labels[i] for i in up])
    out = {}
    for c in range(TRACK_MAX + 1):
        parts = [_outcomes(rules, att, dfn, c, max(w, s), k) for w, s, k in labels.tolist()]
        sizes = [part[5].size for part in parts]
        levels, cls, step, p = (np.concatenate([part[j] for part in parts]) for j in (2, 3, 4, 5))
        after = _next(rules, dfn, np.repeat(labels, sizes, axis=0), levels, cls, step)
        stay = np.array([part[0] + part[1] for part in parts])
        rows = np.concatenate((idle, up, np.repeat(up, sizes)))
        cols = np.concatenate((idle, up, after))
        vals = np.concatenate((np.ones(idle.size), stay, p))
        out[c] = sp.csr_matrix((vals, (rows, cols)), shape=(len(t), len(t)))
    return out


def condition_label(label: Any) -> str:
    """A track label as text: ``wounds 2, shock 0`` (``, armor worn 1``), ``out`` or ``dead``."""
    if isinstance(label, str):
        return label
    return f"wounds {label[0]}, shock {label[1]}" + (f", armor worn {label[2]}" if label[2] else "")


def exchange(rules: Rules, att: Fighter, dfn: Fighter) -> ExchangeResult:
    """One attack of an unhurt ``att`` on an unhurt ``dfn``, exactly.

    >>> knife = Fighter(attack_rating=9, weapon_ps=5, weapon_class="wound")
    >>> res = exchange(Rules(), knife, Fighter())
    >>> round(res.p_hit, 6) == round(check(Rules(), CheckArgs(rating=9)).p_success, 6), res.p_defended
    (True, 0.0)
    """
    notes = ["damage = levels inflicted, Wounds or Shock by the weapon class (condition_after shows which)",
             "2K has no critical hit; the double-one equipment fault and RT < 6 fumbles are left out of combat"]
    return summarize("onesix", rules, att, dfn, branches(rules, att, dfn), track(rules, dfn), condition_label, notes)


def duel(rules: Rules, a: Fighter, b: Fighter) -> DuelResult:
    """Exchanges until someone is out: the higher average IN attacks first each round; equal: simultaneous.

    >>> res = duel(Rules(), Fighter(weapon_ps=30), Fighter(weapon_ps=30))
    >>> round(res.solution.p_a_wins, 12) == round(res.solution.p_b_wins, 12)
    True
    """
    _stop_only(rules)
    ta, tb = track(rules, a), track(rules, b)
    on_b, on_a = kernels(rules, a, b), kernels(rules, b, a)
    ia, ib = a.average_in(), b.average_in()
    if ia == ib:
        m = markov.simultaneous(ta, tb, on_a, on_b)
        order = f"equal average IN ({ia}): each round both attack at once"
    else:
        a_hits, b_hits = markov.attack(ta, tb, on_b, "a"), markov.attack(ta, tb, on_a, "b")
        m = a_hits @ b_hits if ia > ib else b_hits @ a_hits
        first, second = (("A", ia), ("B", ib)) if ia > ib else (("B", ib), ("A", ia))
        order = (f"each round {first[0]} (average IN {first[1]} = reflexes + 3) attacks first, "
                 f"then {second[0]} (average IN {second[1]}) if still up")
    order += ("; a defender with defense_rating > 0 opposes every attack; the condition penalty applies to attack "
              "and defense tests. Left out of the exact model (the Monte Carlo full model adds them): the IN "
              "economy - the penalty on IN, the stopping effect and pain shock (-6 IN each)")
    solution = markov.solve(m, ta, tb, (ta.index[UNHURT], tb.index[UNHURT]))
    return DuelResult("onesix", rules.to_dict(), describe_fighter(a, rules), describe_fighter(b, rules), order, solution)


def _stop_only(rules: Any) -> None:
    if rules.after_out != "stop":
        raise DicelabError(f"after_out = {rules.after_out!r} is not modelled yet for this system; allowed: stop")


def _possible(rules: Rules, total: int) -> bool:
    k = two_k(rules)
    return bool(k.pmf(total) > 0) or (rules.explode_depth is None and total > k.max)


def _need(rolls: Mapping[str, int], name: str) -> int:
    if name not in rolls:
        raise ParamError("rolls", ",".join(f"{k}={v}" for k, v in rolls.items()) or "(none)",
                         f"a value for '{name}' (this exchange needs it)")
    return rolls[name]


def resolve(rules: Rules, att: Fighter, dfn: Fighter, rolls: Mapping[str, int]) -> Resolution:
    """One attack of an unhurt ``att`` on an unhurt ``dfn`` with the 2K totals ``attack`` and ``defense`` given.

    ``defense`` is needed only when the defender opposes an attack that reached 15.
    ``penalty_after`` is the modifier the defender now suffers (-max(wounds, shock)).

    >>> poacher = Fighter(attack_rating=9, training=3, weapon_ps=5, weapon_class="wound")
    >>> res = resolve(Rules(), poacher, Fighter(training=3, armor=1), {"attack": 10})
    >>> res.hit, res.damage, res.marked, res.fields["total_power"]
    (True, 2, {'wounds': 2, 'shock': 0}, 9)
    """
    for name, value in rolls.items():
        if not _possible(rules, value):
            cap = "" if rules.explode_depth is None else f", at most {two_k(rules).max}"
            raise ParamError(f"rolls.{name}", value, f"a 2K total the dice can show (0, or 2 and up{cap})")
    absorption = dfn.training + dfn.armor
    rt_a = att.attack_rating + _need(rolls, "attack")
    u = int(success_level(np.array([rt_a]), True)[0])
    steps = [f"attack: RT = rating {att.attack_rating} + 2K {rolls['attack']} = {rt_a}: "
             + (f"reaches {THRESHOLD} (U {u})" if rt_a >= THRESHOLD else f"below {THRESHOLD}, miss")]
    rt_d = None
    hit = rt_a >= THRESHOLD
    if hit and dfn.defense_rating > 0:
        rt_d = dfn.defense_rating + _need(rolls, "defense")
        hit = rt_a > rt_d
        steps.append(f"defense: RT = rating {dfn.defense_rating} + 2K {rolls['defense']} = {rt_d}: "
                     + (f"below {rt_a}, the attack gets through" if hit
                        else f"not below {rt_a}, parried (equal RT: the reacting side wins)"))
    fields: dict[str, Any] = {"rt_attack": rt_a, "rt_defense": rt_d, "success_level": u, "excess": None,
                              "total_power": None, "absorption": absorption, "levels_class": None,
                              "stopping_effect": False, "pain_shock": False, "penalty_after": 0,
                              "condition": "up", "armor_wear": 0}
    if not hit:
        steps.append(f"no damage; {dfn.name} stays unhurt")
        return Resolution("onesix", rules.to_dict(), describe_fighter(att, rules), describe_fighter(dfn, rules),
                          dict(rolls), steps, False, 0, {"wounds": 0, "shock": 0}, fields)
    base, base_text = (rt_d, f"defense RT {rt_d}") if rules.excess_over == "defense" and rt_d is not None \
        else (THRESHOLD, str(THRESHOLD))
    excess = rt_a - base
    power = att.weapon_ps + excess
    levels, cls, step = (int(x) for x in hit_effect(rules, att, dfn, power, 0))
    steps.append(f"excess = RT {rt_a} - {base_text} = {excess}; total power = PS {att.weapon_ps} + {excess} = {power}")
    steps.append(f"absorption = training {dfn.training} + armor {dfn.armor} = {absorption}; "
                 + (f"levels = ceil(({power} - {absorption}) / 3) = {levels}" if levels
                    else f"power {power} <= absorption {absorption}: no levels"))
    kind = "Wounds" if cls == WOUND else "Shock"
    if att.weapon_class == "ballistic":
        steps.append(f"class: ballistic, power {power} " + (f"> protection {dfn.protection}: Wounds" if cls == WOUND
                                                             else f"<= protection {dfn.protection}: Shock"))
    else:
        steps.append(f"class: {att.weapon_class} weapon: {kind}")
    w, s = (int(x) for x in mark(0, 0, cls, levels))
    status = "dead" if w >= DEATH else "out" if max(w, s) > TRACK_MAX else "up"
    steps.append(f"condition: wounds {w}, shock {s}" + (" (Shock past the 9th level became Wounds)" if w and cls == SHOCK
                                                       else "") + f"; penalty -{max(w, s)}"
                 + {"up": "", "out": "; out: cannot act (a Personality test decides whether still conscious)",
                    "dead": "; dead (10 Wounds)"}[status])
    stopping = levels > dfn.training
    steps.append(f"stopping effect: {levels} levels " + (f"> training {dfn.training}: loses one action (6 IN)"
                                                        if stopping else f"<= training {dfn.training}: none"))
    pain = max(w, s) > dfn.personality
    steps.append("pain shock: " + (f"{'wounds' if w > dfn.personality else 'shock'} {max(w, s)} > personality "
                                   f"{dfn.personality}: loses one action (6 IN)" if pain
                                   else f"no track above personality {dfn.personality}"))
    if rules.armor_wear and dfn.armor > 0:
        steps.append(f"armor wear: absorption and protection -{step}" if step else
                     f"armor wear: power {power} below the armor rating {dfn.armor}, no wear")
    fields.update(excess=excess, total_power=power, levels_class="wound" if cls == WOUND else "shock",
                  stopping_effect=stopping, pain_shock=pain, penalty_after=-max(w, s), condition=status, armor_wear=step)
    return Resolution("onesix", rules.to_dict(), describe_fighter(att, rules), describe_fighter(dfn, rules),
                      dict(rolls), steps, True, levels, {"wounds": w, "shock": s}, fields)


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
    Fighter=Fighter,
    exchange=exchange,
    resolve=resolve,
    duel=duel,
    roll_names=("attack", "defense"),
    combat_skills=("attack_rating", "defense_rating"),
    levels={"out": "a track above 6: «активно действовать он не может»",
            "dying": "Wounds 7-9: the body's reserve, dies without first aid", "dead": "10 Wounds: «гибель»"},
    round_seconds=6,
)
