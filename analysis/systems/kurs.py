"""К.У.Р.С. (seed ``004_612ae8415007d305.txt``): rules and exact math.

Roll-over 3dK: total = 3dK + skill + modifiers against a difficulty (usually
0, Нормально).  Total < difficulty fails; = succeeds with a complication;
> succeeds.  Margin = total - difficulty.  The fragment never defines dK; the
default reads it as a d6 labelled -2, -1, 0, 0, +1, +2.  See RULES.md section 4.

Combat: attack total against defense total (the defense roll clamped), damage =
success + offensive - defensive factors, one box of the wound track per hit;
duels alternate attacks after a 3dK + agility roll-off.

>>> r = SYSTEM.check(Rules(), CheckArgs(skill=0))
>>> round(r.p_success, 6), round(r.extra["p_complication"], 6)
(0.587963, 0.175926)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from typing import Any, Iterator, Mapping

import numpy as np
from .._lazy import sp

from .. import markov
from ..combat import Branch, DuelRules, DuelResult, ExchangeResult, Resolution, describe_fighter, summarize
from ..dist import Dist
from ..params import Bool, Choice, DicelabError, Faces, FighterBase, Int, ParamError, Validated, param
from ..results import CheckResult, OpposedResult, Outcomes
from ..system import System

DK_PRESETS = {"default": (-2, -1, 0, 0, 1, 2), "fudge": (-1, 0, 1), "d5": (-2, -1, 0, 1, 2)}
LADDER = {0: "Нормально", 1: "Неплохо", 2: "Хорошо", 3: "Очень хорошо", 4: "Отлично", 5: "Великолепно"}
LUCK_BONUS = 3


@dataclass(frozen=True)
class Rules(DuelRules):
    """The К.У.Р.С. ruleset: every variant of RULES.md section 4."""

    where = "kurs ruleset"
    dk_faces: tuple[int, ...] = param(DK_PRESETS["default"], Faces(presets=DK_PRESETS, max_faces=20, lo=-10, hi=10),
                                      "faces of dK (3dK per check)")
    defense_clamp: bool = param(True, Bool(), "defense roll clamped: >0 as is, -4..0 -> 0, <= -5 -> -1 (false: the example)")
    luck_tokens: int = param(0, Int(0, 10), "luck tokens (+3) per fighter, spent on the first check failing by 3 or less")
    wound_penalty: str = param("sum", Choice(("sum", "worst", "local")), "general penalties of marked boxes summed, the worst, or local")
    fatigue_soak: str = param("when_lower", Choice(("when_lower", "when_lower_any", "never")),
                              "a fatigue box soaks 1 point of a hit that still marks a wound box, when that lowers the "
                              "level (when_lower_any: also when only fatigue boxes are left to mark)")
    type_bonus: str = param("penetrating", Choice(("penetrating", "always")), "weapon type bonus only when the attack got through the armor")
    graze: str = param("capped", Choice(("capped", "fixed")),
                       "graze damage: the damage rule (success 0) capped at 1 + scale difference, or always the cap")


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


# ------------------------------------------------------------------ combat
LEVELS = ("fatigue", "light", "medium", "heavy", "incapacitated", "dying")
BOXES = (4, 2, 1, 1, 1, 1)
INCAPACITATED, DYING = 4, 5
DAMAGE_KEYS = 11  # damage 10 and more marks dying, soaked or not: 0..10 cover every hit
PENALTY = {"general": (0, 0, 1, 2), "local": (0, 1, 2, 3)}  # per marked box of fatigue, light, medium, heavy
GRAZE_NOTE = {"capped": "the damage rule with success 0 and no type bonus, capped at 1 + the attacker's scale excess",
              "fixed": "always 1 + the attacker's scale excess, whatever the damage factors"}
LUCK_NOTE = ("luck tokens are in the state: a side spends one (+3) when its check fails by 1..3 "
             "(the attack: a miss; the defense: a hit), at most one per side per exchange; not on the roll-off")


@dataclass(frozen=True)
class Fighter(FighterBase):
    """A К.У.Р.С. combatant; skills and attributes on the ladder (Нормально 0 ... Великолепно +5)."""

    where = "kurs fighter"
    attack_skill: int = param(0, Int(-5, 15), "attack skill, e.g. Sword (Нормально 0 ... Великолепно +5)")
    defense_skill: int = param(0, Int(-5, 15), "defense skill, e.g. Dodge")
    strength: int = param(0, Int(-5, 15), "Strength: an offensive damage factor with muscle-powered weapons")
    health: int = param(0, Int(-5, 15), "Health: a defensive damage factor")
    scale: int = param(0, Int(-10, 10), "Scale (0 = human): an offensive and a defensive factor; widens grazes")
    weapon: int = param(0, Int(-5, 20), "weapon rating, an offensive factor (0 = unarmed)")
    weapon_type_bonus: int = param(0, Int(0, 10), "weapon type bonus (e.g. +2 cutting), added when the attack got through")
    muscle_powered: bool = param(True, Bool(), "the weapon is driven by muscle, so Strength counts (false: bows, guns)")
    armor: int = param(0, Int(0, 20), "armor rating, a defensive factor")
    shield: int = param(0, Int(0, 10), "shield hindering the attacker: bonus to the defense total")
    agility: int = param(0, Int(-5, 15), "Agility: 3dK + agility roll-off for the first attack")

    @property
    def offense(self) -> int:
        """Offensive damage factors: strength (muscle-powered weapons only) + scale + weapon."""
        return self.strength * self.muscle_powered + self.scale + self.weapon

    @property
    def defense(self) -> int:
        """Defensive damage factors: health + scale + armor."""
        return self.health + self.scale + self.armor

    def derived(self, rules: Rules) -> dict[str, int]:
        return {"offense": self.offense, "defense": self.defense}


def clamp_defense(rules: Rules, r: Any) -> Any:
    """Defense rolls as counted: > 0 as is, -4..0 -> 0, <= -5 -> -1 (raw with ``defense_clamp=false``).

    >>> clamp_defense(Rules(), np.array([3, 0, -4, -5, -6])).tolist()
    [3, 0, 0, -1, -1]
    """
    if not rules.defense_clamp:
        return r
    return np.where(r > 0, r, np.where(r >= -4, 0, -1))


def level_of(damage: int) -> int | None:
    """The level a hit of this damage marks by the table (index into LEVELS); None below 1.

    >>> [level_of(d) for d in (0, 2, 3, 6, 7, 8, 12)]
    [None, 0, 1, 2, 3, 4, 5]
    """
    if damage <= 0:
        return None
    return 0 if damage <= 2 else 1 if damage <= 4 else 2 if damage <= 6 else 3 if damage == 7 else 4 if damage == 8 else 5


def _free_from(boxes: tuple[int, ...], level: int) -> int:
    """The first level from ``level`` up with a free box; dying when none is."""
    while level < DYING and boxes[level] >= BOXES[level]:
        level += 1
    return level


def _marked(boxes: tuple[int, ...], level: int) -> tuple[int, ...]:
    return tuple(min(n + (i == level), BOXES[i]) for i, n in enumerate(boxes))


def mark(rules: Rules, boxes: tuple[int, ...], damage: int) -> tuple[tuple[int, ...], int | None, bool]:
    """One hit on the box track: (boxes after, level marked, soaked by a fatigue box).

    ``boxes`` counts the marked boxes per level of LEVELS.  A full level passes
    the hit to the next heavier one (dying when none is free).  With
    ``fatigue_soak="when_lower"`` a free fatigue box soaks 1 point of a wound
    (damage >= 3) whenever the level then marked is lighter and is still a
    wound box — the seed's "one wound box and one fatigue box together";
    ``"when_lower_any"`` also lets a 3 end as two fatigue boxes.

    >>> mark(Rules(), (0, 0, 0, 0, 0, 0), 5)
    ((1, 1, 0, 0, 0, 0), 1, True)
    >>> mark(Rules(fatigue_soak="never"), (0, 2, 0, 0, 0, 0), 4)
    ((0, 2, 1, 0, 0, 0), 2, False)
    """
    level = level_of(damage)
    if level is None:
        return boxes, None, False
    plain = _free_from(boxes, level)
    if rules.fatigue_soak != "never" and damage >= 3 and boxes[0] < BOXES[0]:
        tired = _marked(boxes, 0)
        soaked = _free_from(tired, level_of(damage - 1))
        if soaked < plain and (soaked > 0 or rules.fatigue_soak == "when_lower_any"):
            return _marked(tired, soaked), soaked, True
    return _marked(boxes, plain), plain, False


def penalty(rules: Rules, boxes: tuple[int, ...]) -> int:
    """The wound penalty (as a positive number) of the marked boxes under ``wound_penalty``.

    >>> [penalty(Rules(wound_penalty=w), (2, 2, 1, 1)) for w in ("sum", "worst", "local")]
    [3, 2, 7]
    """
    table = PENALTY["local" if rules.wound_penalty == "local" else "general"]
    per_box = [table[i] for i in range(len(table)) for _ in range(boxes[i])]
    if rules.wound_penalty == "worst":
        return max(per_box, default=0)
    return sum(per_box)


@lru_cache(maxsize=64)
def track(rules: Rules) -> markov.Track:
    """A fighter's conditions: (fatigue, light, medium, heavy marked, luck tokens left) while up,
    then ``incapacitated`` (out) and ``dying`` (dead).  Class = 2 * penalty + (a token left).

    Boxes only fill and tokens only go, so every change moves to a later index: the joint
    chain is triangular in its natural order (markov.solve's LU relies on it for speed only).
    """
    up = [(*boxes, t) for boxes in product(*(range(n + 1) for n in BOXES[:INCAPACITATED]))
          for t in range(rules.luck_tokens, -1, -1)]
    labels = tuple(up) + ("incapacitated", "dying")
    status = (markov.UP,) * len(up) + (markov.OUT, markov.DYING)
    classes = tuple(2 * penalty(rules, s[:4]) + (s[4] > 0) for s in up) + (0, 0)
    return markov.Track(labels=labels, status=status, classes=classes)


def fresh(rules: Rules) -> tuple[int, ...]:
    """An unhurt fighter with every luck token."""
    return (0, 0, 0, 0, rules.luck_tokens)


def after_hit(rules: Rules, state: tuple[int, ...], damage: int, spent: bool) -> Any:
    """The defender's condition after a hit of ``damage`` (and a luck token ``spent`` on the defense)."""
    boxes, _, _ = mark(rules, (*state[:4], 0, 0), damage)
    if boxes[DYING]:
        return "dying"
    if boxes[INCAPACITATED]:
        return "incapacitated"
    return (*boxes[:4], state[4] - spent)


def condition_label(label: Any) -> str:
    """``unhurt``, ``fatigue 2, light 1``, ``incapacitated`` or ``dying`` (luck tokens left out)."""
    if isinstance(label, str):
        return label
    marked = [f"{LEVELS[i]} {n}" for i, n in enumerate(label[:4]) if n]
    return ", ".join(marked) or "unhurt"


@dataclass(frozen=True)
class Settled:
    """One attack with both totals known: luck, the kind and the damage."""

    margin: int
    kind: str
    damage: int
    raw: int
    type_bonus_applied: bool
    luck_attacker: bool
    luck_defender: bool


def settle(rules: Rules, att: Fighter, dfn: Fighter, margin: int, att_token: bool, dfn_token: bool) -> Settled:
    """The attack given its margin (attack total - defense total); luck tokens (+3) go to a check
    failing by 1..3, one per side: the attack's when it misses, the defense's when it is hit.

    A graze (equal totals) is a success with a complication for both checks, so
    no token is spent on it.  ``raw`` is the damage rule's number before the 0 floor.

    >>> settle(Rules(), Fighter(attack_skill=4, strength=3, weapon=2, weapon_type_bonus=2),
    ...        Fighter(health=2, armor=2), 1, False, False).damage
    4
    """
    luck_a = luck_d = False
    while True:
        if att_token and not luck_a and -LUCK_BONUS <= margin < 0:
            margin, luck_a = margin + LUCK_BONUS, True
        elif dfn_token and not luck_d and 0 < margin <= LUCK_BONUS:
            margin, luck_d = margin - LUCK_BONUS, True
        else:
            break
    if margin < 0:
        return Settled(margin, "miss", 0, 0, False, luck_a, luck_d)
    if margin == 0:
        cap = 1 + max(0, att.scale - dfn.scale)
        raw = cap if rules.graze == "fixed" else min(cap, att.offense - dfn.defense)
        return Settled(0, "graze", max(raw, 0), raw, False, luck_a, luck_d)
    raw = margin + att.offense - dfn.defense
    bonus = att.weapon_type_bonus > 0 and (rules.type_bonus == "always" or raw > 0)
    raw += att.weapon_type_bonus * bonus
    return Settled(margin, "hit", max(raw, 0), raw, bonus, luck_a, luck_d)


@lru_cache(maxsize=256)
def margins(rules: Rules, att: Fighter, dfn: Fighter) -> Dist:
    """Attack total - defense total of unhurt fighters, before luck.

    >>> m = margins(Rules(), Fighter(attack_skill=1), Fighter())
    >>> m.min, m.max
    (-11, 8)
    """
    r = roll(rules.dk_faces)
    return (r + att.attack_skill) - (r.map(lambda v: clamp_defense(rules, v)) + dfn.defense_skill + dfn.shield)


@lru_cache(maxsize=4096)
def _table(rules: Rules, att: Fighter, dfn: Fighter, shift: int, tok_a: bool, tok_d: bool
           ) -> tuple[tuple[float, str, int, bool, bool], ...]:
    """(p, kind, damage, luck spent by the attacker, by the defender) of one attack, the margin moved by ``shift``."""
    m = margins(rules, att, dfn)
    out: dict[tuple[str, int, bool, bool], float] = {}
    for margin, p in zip(m.support.tolist(), m.p.tolist()):
        s = settle(rules, att, dfn, margin + shift, tok_a, tok_d)
        key = (s.kind, s.damage, s.luck_attacker, s.luck_defender)
        out[key] = out.get(key, 0.0) + p
    return tuple((p, *key) for key, p in out.items() if p > 0)


@lru_cache(maxsize=16)
def _steps(rules: Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per condition: the next condition after every damage 0..10 and luck spent on the defense
    (``[i, damage, spent]``), the wound penalty, and whether a luck token is left."""
    t = track(rules)
    nxt = np.zeros((len(t), DAMAGE_KEYS, 2), dtype=np.int64)
    pen = np.zeros(len(t), dtype=np.int64)
    token = np.zeros(len(t), dtype=bool)
    for i, label in enumerate(t.labels):
        if t.status[i] != markov.UP:
            nxt[i] = i
            continue
        pen[i], token[i] = penalty(rules, label[:4]), label[4] > 0
        for damage, spent in product(range(DAMAGE_KEYS), range(1 + token[i])):
            nxt[i, damage, spent] = t.index[after_hit(rules, label, damage, bool(spent))]
    return nxt, pen, token


def _moves(rules: Rules, att: Fighter, dfn: Fighter, cls: int, i: int) -> list[tuple[float, str, int, int, bool]]:
    """(p, kind, damage, next condition, luck spent by the attacker) of an attack of class ``cls`` on condition ``i``."""
    nxt, pen, token = _steps(rules)
    table = _table(rules, att, dfn, int(pen[i]) - cls // 2, bool(cls % 2), bool(token[i]))
    return [(p, kind, dmg, int(nxt[i, min(dmg, DAMAGE_KEYS - 1), int(luck_d)]), luck_a)
            for p, kind, dmg, luck_a, luck_d in table]


def branches(rules: Rules, att: Fighter, dfn: Fighter, cls: int, state: tuple[int, ...]) -> list[Branch]:
    """Every way an attack of ``att`` (class ``cls``) on ``dfn`` in ``state`` goes."""
    return [Branch(p, kind, dmg, j) for p, kind, dmg, j, _ in _moves(rules, att, dfn, cls, track(rules).index[state])]


def exchange(rules: Rules, att: Fighter, dfn: Fighter) -> ExchangeResult:
    """One attack of an unhurt ``att`` on an unhurt ``dfn`` (both with every luck token), exactly."""
    cls = track(rules).classes[track(rules).index[fresh(rules)]]
    notes = [f"graze (equal totals): {GRAZE_NOTE[rules.graze]}"]
    if rules.luck_tokens:
        notes.append(LUCK_NOTE)
    return summarize("kurs", rules, att, dfn, branches(rules, att, dfn, cls, fresh(rules)), track(rules),
                     condition_label, notes)


@lru_cache(maxsize=16)
def _spend(rules: Rules) -> sp.csr_matrix:
    """A fighter's luck token spent: (boxes, t) -> (boxes, t - 1)."""
    t = track(rules)
    rows = [i for i, s in enumerate(t.labels) if t.status[i] == markov.UP and s[4] > 0]
    cols = [t.index[(*t.labels[i][:4], t.labels[i][4] - 1)] for i in rows]
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(t), len(t)))


@lru_cache(maxsize=64)
def attack_matrix(rules: Rules, att: Fighter, dfn: Fighter, attacker: str) -> sp.csr_matrix:
    """One attack over the joint space: :func:`markov.attack` over the defender's track, plus the
    attacker's own luck token, which markov.attack cannot move, as ``kron(class mask @ spend, kernel)``."""
    t = track(rules)
    keep: dict[int, sp.csr_matrix] = {}
    spent: dict[int, sp.csr_matrix] = {}
    up = [i for i in range(len(t)) if t.status[i] == markov.UP]
    for cls in sorted({t.classes[i] for i in up}):
        parts: tuple[tuple[list, list, list], ...] = (([], [], []), ([], [], []))
        for i in up:
            for p, _, _, j, luck_a in _moves(rules, att, dfn, cls, i):
                rows, cols, vals = parts[luck_a]
                rows.append(i), cols.append(j), vals.append(p)
        (r0, c0, v0), (r1, c1, v1) = parts
        keep[cls] = sp.csr_matrix((v0, (r0, c0)), shape=(len(t), len(t)))
        if r1:
            spent[cls] = sp.csr_matrix((v1, (r1, c1)), shape=(len(t), len(t)))
    m = markov.attack(t, t, keep, attacker)
    if not spent:
        return m
    live = sp.diags(np.kron(t.up, t.up).astype(float))
    own = {cls: t.mask(cls) @ _spend(rules) for cls in spent}
    extra = sum(sp.kron(own[c], k) if attacker == "a" else sp.kron(k, own[c]) for c, k in spent.items())
    return (m + live @ extra).tocsr()


def first_attack(rules: Rules, a: Fighter, b: Fighter) -> float:
    """P(A attacks first) = P(A > B) / (1 - P(tie)): 3dK + agility each, ties rolled again.

    >>> first_attack(Rules(), Fighter(agility=1), Fighter(agility=1))
    0.5
    """
    r = roll(rules.dk_faces)
    ia, ib = r + a.agility, r + b.agility
    win, tie, _, _ = Outcomes(ia.p, ia.support, ia.support).against(Outcomes(ib.p, ib.support, ib.support))
    return win / (1 - tie) if tie < 1 else 0.5  # a one-valued dK and equal agility: a coin toss


def duel(rules: Rules, a: Fighter, b: Fighter) -> DuelResult:
    """Alternating attacks (a round = one attack each) in the order the roll-off gives, until one is out."""
    _stop_only(rules)
    t = track(rules)
    a_hits, b_hits = attack_matrix(rules, a, b, "a"), attack_matrix(rules, b, a, "b")
    start = (t.index[fresh(rules)], t.index[fresh(rules)])
    p_a = first_attack(rules, a, b)
    solution = markov.mix_solutions([(p_a, markov.solve(a_hits @ b_hits, t, t, start)),
                                     (1 - p_a, markov.solve(b_hits @ a_hits, t, t, start))], t, t)
    order = (f"alternating attacks, a round = one attack each; the first attacker by a 3dK + agility roll-off, "
             f"ties re-rolled (P(A first) = {p_a:.6f}); each fighter defends once per opponent turn, so the "
             "cumulative -1 on extra defenses never arises; "
             + (LUCK_NOTE if rules.luck_tokens else "no luck tokens"))
    return DuelResult("kurs", rules.to_dict(), describe_fighter(a, rules), describe_fighter(b, rules), order, solution)


def _stop_only(rules: Any) -> None:
    if rules.after_out != "stop":
        raise DicelabError(f"after_out = {rules.after_out!r} is not modelled yet for this system; allowed: stop")


def resolve(rules: Rules, att: Fighter, dfn: Fighter, rolls: Mapping[str, int]) -> Resolution:
    """One attack of an unhurt ``att`` on an unhurt ``dfn`` with the 3dK sums ``attack`` and ``defense``
    (the defense roll before the clamp).  ``hit`` is true when the attack got through, a graze included."""
    r = roll(rules.dk_faces)
    possible = set(r.support[r.p > 0].tolist())
    for name in ("attack", "defense"):
        value = _need(rolls, name)
        if value not in possible:
            raise ParamError(f"rolls.{name}", value, f"a 3dK total with dK = {rules.dk_faces}: {r.min}..{r.max}")
    a_roll, d_roll = rolls["attack"], rolls["defense"]
    d_counted = int(clamp_defense(rules, d_roll))
    att_total = att.attack_skill + a_roll
    dfn_total = dfn.defense_skill + dfn.shield + d_counted
    tokens = rules.luck_tokens > 0
    s = settle(rules, att, dfn, att_total - dfn_total, tokens, tokens)
    clamp = f" (clamped from {d_roll})" if d_counted != d_roll else ""
    steps = [f"attack: skill {att.attack_skill} + 3dK {a_roll} = {att_total}",
             f"defense: skill {dfn.defense_skill} + shield {dfn.shield} + 3dK {d_counted}{clamp} = {dfn_total}"]
    margin = att_total - dfn_total
    spends = [(att.name, "attack", LUCK_BONUS)] * s.luck_attacker + [(dfn.name, "defense", -LUCK_BONUS)] * s.luck_defender
    for who, check, delta in sorted(spends, key=lambda x: (x[2] > 0) == (margin > 0)):  # the failing side first
        steps.append(f"luck: {who}'s {check} fails by {abs(margin)}, a token spent (+{LUCK_BONUS}): "
                     f"margin {margin} -> {margin + delta}")
        margin += delta
    factors = (f"offense {att.offense} (strength {att.strength if att.muscle_powered else 0} + scale {att.scale} "
               f"+ weapon {att.weapon}) - defense {dfn.defense} (health {dfn.health} + scale {dfn.scale} + armor {dfn.armor})")
    if s.kind == "miss":
        steps.append(f"margin {s.margin} < 0: miss")
    elif s.kind == "graze":
        cap = 1 + max(0, att.scale - dfn.scale)
        how = f"always {cap}" if rules.graze == "fixed" else f"{factors} = {att.offense - dfn.defense}, capped at {cap}"
        steps.append(f"margin 0: graze, damage {how}: {s.damage}")
    else:
        before = s.raw - att.weapon_type_bonus * s.type_bonus_applied
        steps.append(f"margin {s.margin} > 0: hit, success {s.margin}; damage = success {s.margin} + {factors} = {before}")
        if s.type_bonus_applied:
            why = "always" if rules.type_bonus == "always" else "the attack got through the armor"
            steps.append(f"type bonus +{att.weapon_type_bonus} ({why}): {s.raw}")
    _, level, soaked = mark(rules, (0,) * len(LEVELS), s.damage)
    marked = None if level is None else LEVELS[level]
    if level is None:
        steps.append("no box marked" + ("" if s.kind == "miss" else f" (damage {s.raw} <= 0)"))
    else:
        soak = f"a fatigue box soaks 1, the rest ({s.damage - 1}) marks " if soaked else "marks "
        status = {INCAPACITATED: " -> out", DYING: " -> dead without aid"}.get(level, "")
        steps.append(f"damage {s.damage}: {soak}a {marked} box{status}")
    fields = {"kind": s.kind, "attack_total": att_total, "defense_total": dfn_total, "success": s.margin,
              "offense": att.offense, "defense_factors": dfn.defense, "raw_damage": s.raw,
              "type_bonus_applied": s.type_bonus_applied, "soaked_by_fatigue": soaked,
              "luck_spent": {"attacker": s.luck_attacker, "defender": s.luck_defender},
              "condition": condition_label(after_hit(rules, fresh(rules), s.damage, s.luck_defender))}
    return Resolution("kurs", rules.to_dict(), describe_fighter(att, rules), describe_fighter(dfn, rules),
                      dict(rolls), steps, s.kind != "miss", s.damage, marked, fields)


def _need(rolls: Mapping[str, int], name: str) -> int:
    if name not in rolls:
        raise ParamError("rolls", ",".join(f"{k}={v}" for k, v in rolls.items()) or "(none)",
                         f"a value for '{name}' (this exchange needs it)")
    return rolls[name]


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
    Fighter=Fighter,
    exchange=exchange,
    resolve=resolve,
    duel=duel,
    roll_names=("attack", "defense"),
    combat_skills=("attack_skill", "defense_skill"),
    levels={"out": "«Недееспособен» marked", "dying": "«При смерти» marked", "dead": None},
)
