"""К.У.Р.С.'s duel, exchange and resolve (RULES.md sections 4 and 5): the roll-off, alternating attacks,
``after_out``, the notes and warnings every result carries.

>>> round(first_attack(Rules(), Fighter(agility=2), Fighter()), 6)
0.75771
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from analysis.base.params import ParamError
from analysis.engine import markov
from analysis.engine.combat import DuelResult, ExchangeResult, Resolution, describe_fighter, summarize
from analysis.engine.results import Outcomes
from analysis.systems.kurs.chain import (
    attack_matrix,
    exchange_branches,
    helpless_matrix,
    settle,
    side_of,
)
from analysis.systems.kurs.rules import FATIGUE, LEVELS, TRADES, Fighter, Rules, clamp_defense, dice
from analysis.systems.kurs.track import (
    DYING,
    INCAPACITATED,
    condition_label,
    conditions,
    defended,
    fresh,
    one_sided_on,
    take_hit,
    turn,
)

GRAZE_NOTE = {"text": "the damage rule at success 0 without type bonus, capped at {g} (floor 0); exactly {g} + the "
                      "attacker's scale excess when it is larger",
              "capped": "the damage rule at success 0 without type bonus, capped at {g} + the attacker's scale excess",
              "fixed": "always {g} + the attacker's scale excess, whatever the damage factors"}
LUCK_NOTE = ("luck tokens are in the state: a side spends one (+{b}) when its check fails by 1..{b} (the attack: a "
             "miss; the defense: a hit), at most one per side per attack; not on the roll-off, nor in finishing")
ONE_SIDED = "one-sided (against 0: no defense roll, skill, shield, luck or dodge of the defender)"


def manoeuvre_notes(rules: Rules, fighters: Mapping[str, Fighter]) -> list[str]:
    """What the fighters' policies and the duel options do, in words (every output says which model made it)."""
    notes = []
    price = ("trade_cost = complication: the complication is narrative and not modelled" if
             rules.trade_cost == "complication" else
             f"trade_cost = fatigue: each trading turn marks {rules.trade_fatigue} free fatigue box(es); none free: "
             "that turn is plain")
    for who, f in fighters.items():
        if f.stance in TRADES:
            sign = ("+", "-") if f.stance == "offensive" else ("-", "+")
            notes.append(f"{who} ({f.name}) stance {f.stance}: {sign[0]}{rules.trade_bonus} attack, {sign[1]}"
                         f"{rules.trade_bonus} defense from its turn until its next; {price}")
        elif f.stance == "no_defense":
            notes.append(f"{who} ({f.name}) stance no_defense: from its first turn never defends (attacks on it are "
                         f"one-sided; before that turn it defends normally) and attacks at +{rules.no_defense_bonus} "
                         f"(no_defense_bonus = {rules.no_defense_bonus}: a lab stand-in, the seed gives no number)")
        if f.effort_dodge != "never":
            what = "incapacitated or dying" if f.effort_dodge == "out" else "a wound box"
            notes.append(f"{who} ({f.name}) effort_dodge {f.effort_dodge}: marks {rules.dodge_fatigue} free fatigue "
                         f"box(es) to evade a hit about to mark {what}; never against a one-sided attack")
    if rules.surprise != "none":
        side_name = rules.surprise.upper()
        order = "and attacks first" if rules.surprise_first else "(the roll-off still decides who attacks first)"
        notes.append(f"surprise: {side_name}'s first attack is {ONE_SIDED} {order}")
    return notes


def slips(rules: Rules, a: Fighter, b: Fighter) -> list[str]:
    """Legal setups that are almost surely a slip (a policy that can never apply or does nothing), one warning
    each; every output using the pair lists them under ``warnings``.

    >>> slips(Rules(), Fighter(name="x", stance="no_defense", effort_dodge="out"), Fighter())[0][:61]
    "kurs fighter 'x': effort_dodge = out with stance = no_defense"
    """
    out, fatigue = [], rules.track[FATIGUE]
    for f in (a, b):
        where = f"kurs fighter {f.name!r}"
        if f.effort_dodge != "never" and rules.dodge_fatigue > fatigue:
            out.append(f"{where}: effort_dodge = {f.effort_dodge} never applies: dodge_fatigue = {rules.dodge_fatigue} "
                       f"is more than the track's {fatigue} fatigue box(es)")
        elif f.effort_dodge != "never" and f.stance == "no_defense":
            out.append(f"{where}: effort_dodge = {f.effort_dodge} with stance = no_defense dodges only before its first "
                       "turn: from then on every attack on it is one-sided, and a one-sided attack cannot be dodged")
        if f.stance in TRADES and rules.trade_bonus == 0:
            out.append(f"{where}: stance = {f.stance} with trade_bonus = 0 changes no total"
                       + (" and still costs fatigue" if rules.trade_cost == "fatigue" else ""))
        elif f.stance in TRADES and rules.trade_cost == "fatigue" and rules.trade_fatigue > fatigue:
            out.append(f"{where}: stance = {f.stance} is never paid for: trade_fatigue = {rules.trade_fatigue} is more "
                       f"than the track's {fatigue} fatigue box(es), so every turn is plain")
    return out


def exchange(rules: Rules, att: Fighter, dfn: Fighter) -> ExchangeResult:
    """A's first attack on B at the start of a fight, exactly: A's stance and surprise apply, B defends plainly
    whatever its stance (a stance holds from its own turn; B has had none); B's dodge applies."""
    branches = exchange_branches(rules, att, dfn)
    notes = [f"graze (equal totals): {GRAZE_NOTE[rules.graze].format(g=rules.graze_damage)}",
             *manoeuvre_notes(rules, {"A": att, "B": dfn})]
    if dfn.stance != "normal":
        notes.append(f"the first attack of a fight: B has not had a turn, so its stance {dfn.stance} does not hold "
                     "yet (B stands normal)")
    if rules.luck_tokens:
        notes.append(LUCK_NOTE.format(b=rules.luck_bonus))
    res = summarize("kurs", rules, att, dfn, branches, side_of(rules, dfn, "b").track, condition_label, notes)
    return replace(res, extra={"warnings": slips(rules, att, dfn)})


def first_attack(rules: Rules, a: Fighter, b: Fighter) -> float:
    """P(A attacks first): the surprising side with ``surprise_first``, else the roll-off: P(A > B) / (1 - P(tie)),
    dice + agility each, ties rolled again.

    >>> first_attack(Rules(), Fighter(agility=1), Fighter(agility=1)), first_attack(Rules(surprise="b"), Fighter(), Fighter())
    (0.5, 0.0)
    """
    if rules.surprise != "none" and rules.surprise_first:
        return float(rules.surprise == "a")
    r = dice(rules)
    ia, ib = r + a.agility, r + b.agility
    win, tie, _, _ = Outcomes(ia.p, ia.support, ia.support).against(Outcomes(ib.p, ib.support, ib.support))
    return win / (1 - tie) if tie < 1 else 0.5  # a one-valued dK and equal agility: a coin toss


def duel(rules: Rules, a: Fighter, b: Fighter) -> DuelResult:
    """Alternating attacks (a round = one attack each) in the order the roll-off (or a surprise) gives, until one
    is out; with ``after_out=finish`` the other then makes one-sided attacks on the helpless one."""
    sa, sb = side_of(rules, a, "a"), side_of(rules, b, "b")
    a_hits, b_hits = attack_matrix(rules, a, b, "a"), attack_matrix(rules, a, b, "b")
    start = (sa.track.index[fresh(rules, rules.surprise == "a")], sb.track.index[fresh(rules, rules.surprise == "b")])
    p_a = first_attack(rules, a, b)
    parts = [(w, markov.solve(m, sa.track, sb.track, start))
             for w, m in ((p_a, a_hits @ b_hits), (1 - p_a, b_hits @ a_hits)) if w > 0]
    solution = markov.mix_solutions(parts, sa.track, sb.track)
    if rules.after_out == "finish":
        on_b = {c: helpless_matrix(rules, a, b, "b", t) for c, t in enumerate(sa.turns)}
        on_a = {c: helpless_matrix(rules, b, a, "a", t) for c, t in enumerate(sb.turns)}
        solution = markov.finish(solution, sa.track, sb.track, on_a, on_b, rules.lethal_at, rules.finish_attacks)
    return DuelResult("kurs", rules.to_dict(), describe_fighter(a, rules), describe_fighter(b, rules),
                      duel_order(rules, a, b, p_a), solution, extra={"warnings": slips(rules, a, b)})


def duel_order(rules: Rules, a: Fighter, b: Fighter, p_a: float) -> str:
    """The duel's timing and every modelled option, in words."""
    first = (f"{rules.surprise.upper()} attacks first (surprise)" if rules.surprise != "none" and rules.surprise_first
             else f"the first attacker by a {rules.dice_count}dK + agility roll-off, ties re-rolled "
                  f"(P(A first) = {p_a:.6f})")
    parts = [f"alternating attacks, a round = one attack each; {first}; each fighter defends once per opponent turn, "
             f"so the cumulative -{rules.extra_defense_penalty} on extra defenses never arises",
             LUCK_NOTE.format(b=rules.luck_bonus) if rules.luck_tokens else "no luck tokens",
             *manoeuvre_notes(rules, {"A": a, "B": b})]
    if rules.after_out == "finish":
        parts.append(f"after_out = finish: the one still up makes {ONE_SIDED} attacks on the helpless one, with its "
                     "stance modifier and penalty of the moment the other went out (it pays no price, spends no luck), "
                     f"until «При смерти» or {rules.finish_attacks} attacks")
    return "; ".join(parts)


def duel_states(rules: Rules, a: Fighter, b: Fighter) -> int:
    """An upper estimate of the exact duel's chain states: (A's conditions x B's) per attack order solved.

    >>> duel_states(Rules(), Fighter(), Fighter())
    29282
    """
    orders = 1 if rules.surprise != "none" and rules.surprise_first else 2
    return orders * len(conditions(rules, a.stance, rules.surprise == "a")) * len(
        conditions(rules, b.stance, rules.surprise == "b"))


def resolve(rules: Rules, att: Fighter, dfn: Fighter, rolls: Mapping[str, int]) -> Resolution:
    """A's first attack on B (as :func:`exchange`) with the dice sums ``attack`` and ``defense`` (the defense roll
    before the clamp; not needed when the attack is one-sided).  ``hit`` is true when the attack got through, a
    graze included, and was not dodged."""
    r = dice(rules)
    possible = set(r.support[r.p > 0].tolist())
    t, _ = turn(rules, att.stance, fresh(rules, rules.surprise == "a"))
    c = fresh(rules, rules.surprise == "b")
    one_sided = one_sided_on(t, dfn, c)
    for name in ("attack",) if one_sided else ("attack", "defense"):
        value = _need(rolls, name)
        if value not in possible:
            raise ParamError(f"rolls.{name}", value, f"a {rules.dice_count}dK total with dK = {rules.dk_faces}: "
                             f"{r.min}..{r.max}")
    a_roll = rolls["attack"]
    att_total = att.attack_skill + a_roll + t.mod
    mod = f" + stance {t.mod:+d}" if t.mod else ""
    steps = [f"attack: skill {att.attack_skill} + {rules.dice_count}dK {a_roll}{mod} = {att_total}"]
    notes = [] if dfn.stance == "normal" else [f"{dfn.name} has not had a turn: its stance {dfn.stance} does not "
                                                "hold yet (it stands normal)"]
    if one_sided:
        steps.append("one-sided attack (a surprise): against difficulty 0, no defense roll, skill or shield"
                     + (f"; the defense roll {rolls['defense']} is not used" if "defense" in rolls else ""))
        dfn_total = 0
    else:
        d_roll = rolls["defense"]
        d_counted = int(clamp_defense(rules, d_roll))
        dfn_total = dfn.defense_skill + dfn.shield + d_counted
        clamp = f" (clamped from {d_roll})" if d_counted != d_roll else ""
        steps.append(f"defense: skill {dfn.defense_skill} + shield {dfn.shield} + {rules.dice_count}dK "
                     f"{d_counted}{clamp} = {dfn_total}")
        notes += clamp_notes(rules, d_roll)
    tokens = rules.luck_tokens > 0
    s = settle(rules, att, dfn, att_total - dfn_total, tokens, tokens and not one_sided)
    margin, bonus = att_total - dfn_total, rules.luck_bonus
    spends = [(att.name, "attack", bonus)] * s.luck_attacker + [(dfn.name, "defense", -bonus)] * s.luck_defender
    for who, what, delta in sorted(spends, key=lambda x: (x[2] > 0) == (margin > 0)):  # the failing side first
        steps.append(f"luck: {who}'s {what} fails by {abs(margin)}, a token spent (+{bonus}): "
                     f"margin {margin} -> {margin + delta}")
        margin += delta
    factors = (f"offense {att.offense} (strength {att.strength if att.muscle_powered else 0} + scale {att.scale} "
               f"+ weapon {att.weapon}) - defense {dfn.defense} (health {dfn.health} + scale {dfn.scale} + armor {dfn.armor})")
    if s.kind == "miss":
        steps.append(f"margin {s.margin} < 0: miss")
    elif s.kind == "graze":
        steps.append(f"margin 0: graze ({rules.graze}: {GRAZE_NOTE[rules.graze].format(g=rules.graze_damage)}); "
                     f"{factors} = {att.offense - dfn.defense}: damage {s.damage}")
    else:
        before = s.raw - att.weapon_type_bonus * s.type_bonus_applied
        steps.append(f"margin {s.margin} > 0: hit, success {s.margin}; damage = success {s.margin} + {factors} = {before}")
        if s.type_bonus_applied:
            why = "always" if rules.type_bonus == "always" else "the attack got through the armor"
            steps.append(f"type bonus +{att.weapon_type_bonus} ({why}): {s.raw}")
    boxes, level, soaked, dodged = take_hit(rules, c.boxes, s.damage, "never" if one_sided else dfn.effort_dodge)
    marked = None if level is None else LEVELS[level]
    if dodged:
        steps.append(f"effort dodge ({dfn.effort_dodge}): {dfn.name} marks {rules.dodge_fatigue} fatigue box(es) and "
                     f"evades the hit of {s.damage} entirely")
    elif level is None:
        steps.append("no box marked" + ("" if s.kind == "miss" else f" (damage {s.raw} <= 0)"))
    else:
        soak = f"a fatigue box soaks {rules.soak_points}, the rest marks " if soaked else "marks "
        status = {INCAPACITATED: " -> out", DYING: " -> dying (dead without aid)"}.get(level, "")
        steps.append(f"damage {s.damage}: {soak}a {marked} box{status}")
    nxt, _ = defended(rules, dfn, c, s.damage, s.luck_defender, one_sided)
    fields = {"kind": "defended" if dodged else s.kind, "attack_total": att_total, "defense_total": dfn_total,
              "one_sided": one_sided, "success": s.margin, "offense": att.offense, "defense_factors": dfn.defense,
              "raw_damage": s.raw, "type_bonus_applied": s.type_bonus_applied, "soaked_by_fatigue": soaked,
              "dodged": dodged, "luck_spent": {"attacker": s.luck_attacker, "defender": s.luck_defender},
              "condition": condition_label(nxt), "notes": notes, "warnings": slips(rules, att, dfn)}
    return Resolution("kurs", rules.to_dict(), describe_fighter(att, rules), describe_fighter(dfn, rules),
                      dict(rolls), steps, s.kind != "miss" and not dodged, 0 if dodged else s.damage, marked, fields)


def clamp_notes(rules: Rules, d_roll: int) -> list[str]:
    """Which reading counted a defense roll the clamp would change: the seed's gladiator example takes its −2 as
    is, against the clamp rule stated just above it, so the note names the variant that reproduces it.

    >>> clamp_notes(Rules(), 2), len(clamp_notes(Rules(), -2)), clamp_notes(Rules(defense_clamp=False), -2)[0][:21]
    ([], 1, 'defense_clamp = false')
    """
    clamped = int(clamp_defense(rules.replace(defense_clamp=True), d_roll))
    if clamped == d_roll:
        return []
    if rules.defense_clamp:
        return [f"the clamp counts the defense roll {d_roll} as {clamped}; the seed's gladiator example reads its "
                "defense roll (-2) unclamped: --variant defense_clamp=false reproduces it"]
    return [f"defense_clamp = false: the defense roll {d_roll} counts as is (the seed's gladiator example's "
            f"arithmetic; the clamp rule as written counts it as {clamped})"]


def _need(rolls: Mapping[str, int], name: str) -> int:
    if name not in rolls:
        raise ParamError("rolls", ",".join(f"{k}={v}" for k, v in rolls.items()) or "(none)",
                         f"a value for '{name}' (this exchange needs it)")
    return rolls[name]

