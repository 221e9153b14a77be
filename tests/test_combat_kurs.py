"""К.У.Р.С. combat: the seed's gladiators, the box track, exchanges, duels, manoeuvres, the dodge, surprise,
finishing and house rules, against an independent brute force written here from RULES.md section 4."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.base.params import DicelabError
from analysis.fights.fighters import archetypes, load_fighter
from analysis.front.cli import main
from analysis.systems import get_system, kurs

SYSTEM = get_system("kurs")
FACES = {"default": (-2, -1, 0, 0, 1, 2), "fudge": (-1, 0, 1), "d5": (-2, -1, 0, 1, 2)}
BOOK = dict(faces=FACES["default"], dice=3, clamp=True, clamp_zero=-4, clamp_low=-1, luck=0, luck_bonus=3,
            penalty="sum", general=(0, 0, 1, 2), local=(0, 1, 3, 5), soak="when_lower", soak_points=1,
            bonus_always=False, graze="text", graze_damage=1, track=(4, 2, 1, 1, 1, 1), table=(1, 3, 5, 7, 8, 9),
            trade_cost="complication", trade_bonus=1, trade_fatigue=1, dodge_fatigue=1, no_defense_bonus=2,
            surprise="none", surprise_first=True, finish=False, finish_attacks=10)
LAB_NAMES = dict(faces="dk_faces", dice="dice_count", clamp="defense_clamp", clamp_zero="defense_clamp_zero",
                 clamp_low="defense_clamp_low", luck="luck_tokens", penalty="wound_penalty", general="general_penalty",
                 local="local_penalty", soak="fatigue_soak", table="damage_table", finish="after_out")


# ----------------------------------------------------- independent brute force (from RULES.md section 4)
ORDER = ["fatigue", "light", "medium", "heavy", "incapacitated", "dying"]


def lab_rules(rules):
    """The lab's ruleset for a brute-force rules dict."""
    out = {}
    for key, value in rules.items():
        if key == "bonus_always":
            out["type_bonus"] = "always" if value else "penetrating"
        elif key == "finish":
            out["after_out"] = "finish" if value else "stop"
        else:
            out[LAB_NAMES.get(key, key)] = value
    return kurs.Rules(**out)


def dice_pmf(faces, n=3):
    pmf = {}
    for dice in itertools.product(faces, repeat=n):
        pmf[sum(dice)] = pmf.get(sum(dice), 0) + 1 / len(faces) ** n
    return pmf


def counted(rules, r):
    """The defense roll as the clamp counts it."""
    if not rules["clamp"] or r > 0:
        return r
    return 0 if r >= rules["clamp_zero"] else rules["clamp_low"]


def table_level(rules, damage):
    """The level the damage table gives (index into ORDER), None below its first entry."""
    found = None
    for k, least in enumerate(rules["table"]):
        if damage >= least:
            found = k
    return found


def first_free(rules, marked, k):
    while k < 5 and marked[k] >= rules["track"][k]:
        k += 1
    return k


def plus(marked, k, n=1):
    out = list(marked)
    out[k] += n
    return tuple(out)


def take(rules, marked, damage):
    """(marked after, level marked, soaked): one box by the table, overflowing to heavier levels; a fatigue box
    may soak soak_points beside one wound box when that marks a lighter one (and, unless when_lower_any, still a
    wound)."""
    level = table_level(rules, damage)
    if level is None:
        return marked, None, False
    plain = first_free(rules, marked, level)
    choice = (plain, plus(marked, plain), False)
    if rules["soak"] != "never" and level >= 1 and marked[0] < rules["track"][0]:
        tired = plus(marked, 0)
        rest = table_level(rules, damage - rules["soak_points"])
        option = (0, tired, True) if rest is None else (first_free(rules, tired, rest),
                                                         plus(tired, first_free(rules, tired, rest)), True)
        if option[0] < plain and (option[0] >= 1 or rules["soak"] == "when_lower_any"):
            choice = option
    return choice[1], choice[0], choice[2]


def land(rules, dfn, marked, damage, one_sided):
    """(marked after, dodged): the fatigue-box dodge evades a hit about to mark a heavy enough box, not a one-sided one."""
    after, level, _ = take(rules, marked, damage)
    need = {"never": None, "out": 4, "wound": 1}[dfn.get("effort_dodge", "never")]
    free = rules["track"][0] - marked[0]
    if not one_sided and need is not None and level is not None and level >= need and free >= rules["dodge_fatigue"]:
        return plus(marked, 0, rules["dodge_fatigue"]), True
    return after, False


def pain(rules, marked):
    per = rules["local"] if rules["penalty"] == "local" else rules["general"]
    boxes = [per[k] for k in range(4) for _ in range(marked[k])]
    return max(boxes, default=0) if rules["penalty"] == "worst" else sum(boxes)


def stance_turn(rules, f, state):
    """(attack modifier, state after) of a fighter's turn: state = (marked, tokens, stance holding, surprise to
    come). A stance is declared on the fighter's own turn (RULES.md section 8): not defending holds from then on."""
    marked, tokens, _, _ = state
    stance = f.get("stance", "normal")
    if stance == "no_defense":
        return rules["no_defense_bonus"], (marked, tokens, True, False)
    cost = rules["trade_fatigue"] if rules["trade_cost"] == "fatigue" else 0
    if stance == "normal" or rules["track"][0] - marked[0] < cost:
        return 0, (marked, tokens, False, False)
    bonus = rules["trade_bonus"] if stance == "offensive" else -rules["trade_bonus"]
    return bonus, (plus(marked, 0, cost), tokens, True, False)


def holding(rules, f, state):
    """The defense modifier of a trade still holding."""
    if not state[2] or f["stance"] not in ("offensive", "defensive"):
        return 0
    return rules["trade_bonus"] if f["stance"] == "defensive" else -rules["trade_bonus"]


def strike(rules, att, dfn, a_roll, d_roll, a_mod=0, pen_a=0, d_mod=0, pen_d=0, one_sided=False, tok_a=False, tok_d=False):
    """(kind, damage, attacker spent luck, defender spent luck) of one attack with the rolls given."""
    attack = att["attack_skill"] + a_roll + a_mod - pen_a
    defense = 0 if one_sided else dfn["defense_skill"] + dfn["shield"] + counted(rules, d_roll) + d_mod - pen_d
    margin, b = attack - defense, rules["luck_bonus"]
    spent_a = spent_d = False
    for _ in range(2):
        if tok_a and not spent_a and -b <= margin <= -1:
            margin, spent_a = margin + b, True
        if tok_d and not spent_d and 1 <= margin <= b:
            margin, spent_d = margin - b, True
    offense = att["strength"] * att["muscle_powered"] + att["scale"] + att["weapon"]
    defense_factors = dfn["health"] + dfn["scale"] + dfn["armor"]
    if margin < 0:
        return "miss", 0, spent_a, spent_d
    if margin == 0:
        excess, g = max(0, att["scale"] - dfn["scale"]), rules["graze_damage"]
        if rules["graze"] == "fixed" or (rules["graze"] == "text" and excess):
            return "graze", g + excess, spent_a, spent_d
        return "graze", max(0, min(g + excess, offense - defense_factors)), spent_a, spent_d
    dmg = margin + offense - defense_factors
    if att["weapon_type_bonus"] and (rules["bonus_always"] or dmg > 0):
        dmg += att["weapon_type_bonus"]
    return "hit", max(dmg, 0), spent_a, spent_d


def fighter(**kw):
    base = dict(attack_skill=0, defense_skill=0, strength=0, health=0, scale=0, weapon=0, weapon_type_bonus=0,
                muscle_powered=True, armor=0, shield=0, agility=0, stance="normal", effort_dodge="never")
    return {**base, **kw}


def roll_off(rules, a, b):
    pmf = dice_pmf(rules["faces"], rules["dice"])
    win = sum(p * q for x, p in pmf.items() for y, q in pmf.items() if x + a["agility"] > y + b["agility"])
    lose = sum(p * q for x, p in pmf.items() for y, q in pmf.items() if x + a["agility"] < y + b["agility"])
    return win / (win + lose)


def duel_brute(rules, a, b):
    """(P(A wins), P(B wins), P(A dying), P(B dying), E[rounds], E[finishing attacks]) by recursion.

    A fighter's state is (marked boxes per level, luck tokens, trade holding, surprise to come), or "dying".
    Floats; the logic is independent of the lab's.
    """
    pmf = dice_pmf(rules["faces"], rules["dice"])
    zero = (0.0,) * 6
    if rules["surprise"] != "none" and rules["surprise_first"]:
        p_a_first = float(rules["surprise"] == "a")
    else:
        p_a_first = roll_off(rules, a, b)

    @lru_cache(maxsize=None)
    def outcomes(att_is_a, a_mod, pen_a, tok_a, d_mod, pen_d, tok_d, one_sided):
        att, dfn = (a, b) if att_is_a else (b, a)
        acc = {}
        for ar, pa in pmf.items():
            for dr, pd in ([(0, 1.0)] if one_sided else pmf.items()):
                _, dmg, sa, sd = strike(rules, att, dfn, ar, dr, a_mod, pen_a, d_mod, pen_d, one_sided, tok_a, tok_d)
                acc[(dmg, sa, sd)] = acc.get((dmg, sa, sd), 0) + pa * pd
        return list(acc.items())

    def out(state):
        return state == "dying" or state[0][4] > 0

    def moves(att_is_a, sa, sb):
        """[(p, A's state, B's state)] after the attacker's turn and attack."""
        me, you = (sa, sb) if att_is_a else (sb, sa)
        att, dfn = (a, b) if att_is_a else (b, a)
        a_mod, mine = stance_turn(rules, att, me)
        one_sided = me[3] or (dfn["stance"] == "no_defense" and you[2])   # declared on its own turn
        result = []
        for (dmg, spent_a, spent_d), p in outcomes(att_is_a, a_mod, pain(rules, mine[0]), me[1] > 0,
                                                   holding(rules, dfn, you), pain(rules, you[0]),
                                                   you[1] > 0 and not one_sided, one_sided):
            marked, _ = land(rules, dfn, you[0], dmg, one_sided)
            if marked[5]:
                yours = "dying"
            elif marked[4]:
                yours = (marked, 0, False, False)
            else:
                yours = (marked, you[1] - spent_d, you[2], you[3])
            mine_after = (mine[0], mine[1] - spent_a, mine[2], mine[3])
            result.append((p, mine_after, yours) if att_is_a else (p, yours, mine_after))
        return result

    @lru_cache(maxsize=None)
    def finish_from(winner_is_a, a_mod, pen, marked, left):
        """(P(the victim ends dying), E[attacks]) with ``left`` one-sided attacks still allowed."""
        if marked == "dying":
            return 1.0, 0.0
        if left == 0:
            return 0.0, 0.0
        victim_f = b if winner_is_a else a
        p_dying, attacks = 0.0, 1.0
        for (dmg, _, _), p in outcomes(winner_is_a, a_mod, pen, False, 0, 0, False, True):
            nxt, _ = land(rules, victim_f, marked, dmg, True)
            pd, e = finish_from(winner_is_a, a_mod, pen, "dying" if nxt[5] else nxt, left - 1)
            p_dying, attacks = p_dying + p * pd, attacks + p * e
        return p_dying, attacks

    def finishing(winner_is_a, winner_state, victim):
        """The winner attacks at its stance and penalty of now (paying nothing more, no luck)."""
        a_mod, after = stance_turn(rules, a if winner_is_a else b, winner_state)
        return finish_from(winner_is_a, a_mod, pain(rules, after[0]), victim if victim == "dying" else victim[0],
                           rules["finish_attacks"])

    def ending(sa, sb):
        a_dying, b_dying, attacks = float(sa == "dying"), float(sb == "dying"), 0.0
        if rules["finish"]:
            if out(sb):
                b_dying, attacks = finishing(True, sa, sb)
            else:
                a_dying, attacks = finishing(False, sb, sa)
        return (float(out(sb)), float(out(sa)), a_dying, b_dying, 0.0, attacks)

    @lru_cache(maxsize=None)
    def value(sa, sb, first):
        """(value with A to attack, value with B to attack); a round starts with ``first``'s attack."""
        if out(sa) or out(sb):
            end = ending(sa, sb)
            return end, end
        stay, acc = [0.0, 0.0], [list(zero), list(zero)]
        for k, att_is_a in enumerate((True, False)):
            for p, na, nb in moves(att_is_a, sa, sb):
                if (na, nb) == (sa, sb):
                    stay[k] += p
                    continue
                nxt = value(na, nb, first)[1 if att_is_a else 0]
                acc[k] = [x + p * y for x, y in zip(acc[k], nxt)]
        inc_a = [0, 0, 0, 0, float(first == "a"), 0]
        inc_b = [0, 0, 0, 0, float(first == "b"), 0]
        x = [(ia + ra + stay[0] * (ib + rb)) / (1 - stay[0] * stay[1])
             for ia, ra, ib, rb in zip(inc_a, acc[0], inc_b, acc[1])]
        y = [ib + rb + stay[1] * xv for ib, rb, xv in zip(inc_b, acc[1], x)]
        return tuple(x), tuple(y)

    start_a = ((0,) * 6, rules["luck"], False, rules["surprise"] == "a")
    start_b = ((0,) * 6, rules["luck"], False, rules["surprise"] == "b")
    parts = []
    if p_a_first > 0:
        parts.append((p_a_first, value(start_a, start_b, "a")[0]))
    if p_a_first < 1:
        parts.append((1 - p_a_first, value(start_a, start_b, "b")[1]))
    return tuple(sum(w * v[k] for w, v in parts) for k in range(6))


# ---------------------------------------------------------------- the seed's gladiators
@pytest.mark.parametrize("clamp,defense_total,success,damage,marked", [
    (True, 3 + 1 + 0, 1, 1 + 3 + 0 + 2 - 4 + 2, "light"),    # the clamp: a defense roll of -2 counts as 0
    (False, 3 + 1 - 2, 3, 3 + 3 + 0 + 2 - 4 + 2, "medium"),  # the seed's own arithmetic: 8 + 2 - 4 = 6
])
def test_gladiator_example(clamp, defense_total, success, damage, marked):
    rules = kurs.Rules(defense_clamp=clamp)
    res = kurs.resolve(rules, load_fighter(SYSTEM, "maximus"), load_fighter(SYSTEM, "tiberius"), {"attack": 1, "defense": -2})
    assert (res.hit, res.damage, res.marked) == (True, damage, marked)
    f = res.fields
    assert (f["attack_total"], f["defense_total"], f["success"]) == (5, defense_total, success)
    assert (f["offense"], f["defense_factors"], f["type_bonus_applied"], f["soaked_by_fatigue"]) == (5, 4, True, False)


@pytest.mark.parametrize("extra,damage,marked", [([], 4, "light"), (["--variant", "defense_clamp=false"], 6, "medium")])
def test_gladiator_example_cli(capsys, extra, damage, marked):
    code = main(["resolve", "kurs", "--a", "maximus", "--b", "tiberius", "--rolls", "attack=1,defense=-2", "--json", *extra])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["hit"] is True and data["damage"] == damage and data["marked"] == marked
    assert data["variants"]["defense_clamp"] is not bool(extra)
    # the output names the reading that reproduces the seed's arithmetic (the defense roll -2 taken as is)
    assert len(data["notes"]) == 1 and "gladiator example" in data["notes"][0]
    assert ("--variant defense_clamp=false reproduces it" in data["notes"][0]) is not bool(extra)
    for key in ("attack_total", "defense_total", "success", "offense", "defense_factors", "type_bonus_applied",
                "soaked_by_fatigue", "steps", "rolls", "one_sided", "dodged"):
        assert key in data


def test_resolve_text_prints_every_step(capsys):
    assert main(["resolve", "kurs", "--a", "maximus", "--b", "tiberius", "--rolls", "attack=1,defense=-2"]) == 0
    out = capsys.readouterr().out
    for words in ("= 5", "clamped from -2", "success 1", "type bonus +2", "light", "hit=true, damage=4, marked=light",
                  "note: the clamp counts the defense roll -2 as 0", "--variant defense_clamp=false reproduces it"):
        assert words in out


def test_resolve_graze_and_miss():
    rules = kurs.Rules()
    m, t = load_fighter(SYSTEM, "maximus"), load_fighter(SYSTEM, "tiberius")
    graze = kurs.resolve(rules, m, t, {"attack": 1, "defense": 1})   # 4 + 1 = 3 + 1 + 1: min(1, 5 - 4)
    assert (graze.fields["kind"], graze.hit, graze.damage, graze.marked) == ("graze", True, 1, "fatigue")
    miss = kurs.resolve(rules, m, t, {"attack": -2, "defense": 0})
    assert (miss.fields["kind"], miss.hit, miss.damage, miss.marked) == ("miss", False, 0, None)
    armored = kurs.resolve(rules, load_fighter(SYSTEM, "novice"), load_fighter(SYSTEM, "master"), {"attack": 6, "defense": -6})
    # 0 + 6 against 4 + 1 - 1 = 4: success 2, 2 + 0 - (3 + 2) = -3: a hit that marks nothing
    assert (armored.fields["kind"], armored.damage, armored.marked, armored.fields["raw_damage"]) == ("hit", 0, None, -3)


# RULES.md: "Default graze = text: Δ = 0 -> damage rule at success 0, no type bonus, capped at 1, floor 0;
# Δ > 0 -> exactly 1 + Δ. Variants capped (old default: min(1 + Δ, damage rule)), fixed (always 1 + Δ)."
@pytest.mark.parametrize("graze,att,dfn,damage", [
    ("text", dict(attack_skill=2, weapon=3), dict(defense_skill=2), 1),                 # rule 3 - 0, capped at 1
    ("text", dict(attack_skill=2), dict(defense_skill=2, armor=3), 0),                  # rule -3: floor 0
    ("text", dict(attack_skill=2, weapon=9, weapon_type_bonus=2), dict(defense_skill=2), 1),  # no type bonus
    ("text", dict(attack_skill=2, scale=2), dict(defense_skill=2, armor=9), 3),         # Δ = 2: exactly 1 + 2
    ("capped", dict(attack_skill=2, scale=2), dict(defense_skill=2, armor=9), 0),       # min(3, 2 - 9) -> 0
    ("capped", dict(attack_skill=2, scale=2, weapon=5), dict(defense_skill=2), 3),      # min(3, 7)
    ("fixed", dict(attack_skill=2), dict(defense_skill=2, armor=9), 1),
    ("fixed", dict(attack_skill=2, scale=1), dict(defense_skill=2, armor=9), 2),
])
def test_graze_readings(graze, att, dfn, damage):
    res = kurs.resolve(kurs.Rules(graze=graze), kurs.Fighter(**att), kurs.Fighter(**dfn), {"attack": 0, "defense": 0})
    assert res.fields["kind"] == "graze" and res.damage == damage


def test_graze_widens_with_scale():
    giant, man = kurs.Fighter(scale=3, strength=5, weapon=4), kurs.Fighter()
    res = kurs.resolve(kurs.Rules(), giant, man, {"attack": 0, "defense": 0})
    assert res.fields["kind"] == "graze" and res.damage == 1 + 3


def test_type_bonus_only_through_the_armor():
    sword, plate = kurs.Fighter(weapon=2, weapon_type_bonus=2), kurs.Fighter(armor=4)
    rolls = {"attack": 1, "defense": 0}   # success 1: 1 + 2 - 4 = -1
    assert kurs.resolve(kurs.Rules(), sword, plate, rolls).damage == 0
    assert kurs.resolve(kurs.Rules(type_bonus="always"), sword, plate, rolls).damage == 1


def test_bow_ignores_strength():
    archer = kurs.Fighter(strength=3, weapon=3, muscle_powered=False)
    assert archer.derived(kurs.Rules()) == {"offense": 3, "defense": 0}
    assert kurs.resolve(kurs.Rules(), archer, kurs.Fighter(), {"attack": 2, "defense": 0}).damage == 2 + 3


def test_luck_tokens_in_resolve():
    rules = kurs.Rules(luck_tokens=1)
    a, d = kurs.Fighter(attack_skill=1, weapon=1), kurs.Fighter(defense_skill=2)
    # 1 + 0 against 2 + 0: misses by 1, +3 -> hits by 2; the defense now fails by 2, +3 -> misses by 1
    res = kurs.resolve(rules, a, d, {"attack": 0, "defense": 0})
    assert res.fields["luck_spent"] == {"attacker": True, "defender": True} and not res.hit
    # luck_bonus 2: misses by 1, +2 -> hits by 1; the defense fails by 1, +2 -> misses by 1
    res = kurs.resolve(rules.replace(luck_bonus=2), a, d, {"attack": 0, "defense": 0})
    assert res.fields["luck_spent"] == {"attacker": True, "defender": True} and res.fields["success"] == -1


def test_resolve_one_sided_attacks():
    att, dfn = kurs.Fighter(attack_skill=1, weapon=2), kurs.Fighter(defense_skill=5, shield=2, armor=1)
    # surprise: 1 + 1 against 0, no defense roll, skill or shield: success 2, damage 2 + 2 - 1 = 3 (light)
    res = kurs.resolve(kurs.Rules(surprise="a"), att, dfn, {"attack": 1})
    assert (res.fields["one_sided"], res.fields["attack_total"], res.fields["defense_total"]) == (True, 2, 0)
    assert (res.damage, res.marked) == (3, "light")
    # RULES.md section 8: a stance holds from the fighter's own turn; before its first it stands normal, so the
    # first attack on a fighter with stance no_defense is opposed: 1 + 1 against 5 + 2 + 6 = 13, a miss
    careless = dfn.replace(stance="no_defense", effort_dodge="wound")
    res = kurs.resolve(kurs.Rules(), att, careless, {"attack": 1, "defense": 6})
    assert (res.fields["one_sided"], res.fields["defense_total"], res.fields["kind"]) == (False, 13, "miss")
    assert any("does not hold yet" in n for n in res.fields["notes"])
    # a surprise needs no defense roll: one given is reported unused
    res = kurs.resolve(kurs.Rules(surprise="a"), att, careless, {"attack": 1, "defense": 6})
    assert res.fields["one_sided"] and not res.fields["dodged"] and res.damage == 3
    assert any("not used" in s for s in res.steps)
    # a total of 0 is a graze, -1 a miss
    assert kurs.resolve(kurs.Rules(surprise="a"), att, dfn, {"attack": -1}).fields["kind"] == "graze"
    assert kurs.resolve(kurs.Rules(surprise="a"), att, dfn, {"attack": -2}).fields["kind"] == "miss"
    # surprise b: A's first attack is an ordinary one and needs the defense roll
    with pytest.raises(DicelabError, match="defense"):
        kurs.resolve(kurs.Rules(surprise="b"), att, dfn, {"attack": 1})


def test_resolve_stances_and_dodge():
    att, dfn = kurs.Fighter(attack_skill=2, weapon=4), kurs.Fighter(defense_skill=1, effort_dodge="wound")
    # offensive: 2 + 1 + 1 = 4 against 1 + 0: success 3, damage 3 + 4 = 7 (heavy): dodged with a fatigue box
    res = kurs.resolve(kurs.Rules(), att.replace(stance="offensive"), dfn, {"attack": 1, "defense": 0})
    assert res.fields["attack_total"] == 4 and res.fields["dodged"] and res.fields["kind"] == "defended"
    assert (res.hit, res.damage, res.fields["condition"]) == (False, 0, "fatigue 1")
    # defensive: 2 + 1 - 1 = 2; policy out: a 6 (medium) is taken, soaked to fatigue + light
    res = kurs.resolve(kurs.Rules(), att.replace(stance="defensive"), dfn.replace(effort_dodge="out"),
                       {"attack": 1, "defense": 0})
    assert res.fields["attack_total"] == 2 and not res.fields["dodged"] and res.fields["condition"] == "fatigue 1, light 1"
    # no_defense: +2 to the attack
    res = kurs.resolve(kurs.Rules(), att.replace(stance="no_defense"), dfn, {"attack": 1, "defense": 0})
    assert res.fields["attack_total"] == 5


# ------------------------------------------------------------------------ the box track
def marked_tuple(**kw):
    return tuple(kw.get(lvl, 0) for lvl in ORDER)


@pytest.mark.parametrize("rules,before,damage,after,level,soaked", [
    # a full level passes the hit on: both light boxes marked, a 4 marks medium
    (dict(fatigue_soak="never"), dict(light=2), 4, dict(light=2, medium=1), "medium", False),
    # ... and on through every full level
    (dict(fatigue_soak="never"), dict(light=2, medium=1, heavy=1), 3,
     dict(light=2, medium=1, heavy=1, incapacitated=1), "incapacitated", False),
    # no heavier box free: dying
    (dict(), dict(fatigue=4, light=2, medium=1, heavy=1, incapacitated=1), 1,
     dict(fatigue=4, light=2, medium=1, heavy=1, incapacitated=1, dying=1), "dying", False),
    # the soak: a 5 (medium) becomes a fatigue box and a 4 (light)
    (dict(), dict(), 5, dict(fatigue=1, light=1), "light", True),
    # not when the level stays the same: a 4 and a 3 are both light
    (dict(), dict(), 4, dict(light=1), "light", False),
    # a 3 on full light boxes: the soaked rest (2) would only mark a fatigue box, not a wound box: medium
    (dict(), dict(light=2), 3, dict(light=2, medium=1), "medium", False),
    # ... unless when_lower_any: two fatigue boxes instead of medium
    (dict(fatigue_soak="when_lower_any"), dict(light=2), 3, dict(fatigue=2, light=2), "fatigue", True),
    # with the fatigue boxes nearly full, the rest overflows into a light box: soaked
    (dict(), dict(fatigue=3, light=1), 5, dict(fatigue=4, light=2), "light", True),
    # a 9 (dying) soaked to an 8: incapacitated
    (dict(), dict(), 9, dict(fatigue=1, incapacitated=1), "incapacitated", True),
    # no free fatigue box, no soak
    (dict(), dict(fatigue=4), 5, dict(fatigue=4, medium=1), "medium", False),
    # damage 0 marks nothing
    (dict(), dict(light=1), 0, dict(light=1), None, False),
    # out, the boxes go on: a 7 on an incapacitated fighter marks heavy, an 8 (no incapacitated box left) dying
    (dict(fatigue_soak="never"), dict(incapacitated=1), 7, dict(heavy=1, incapacitated=1), "heavy", False),
    (dict(fatigue_soak="never"), dict(incapacitated=1), 8, dict(incapacitated=1, dying=1), "dying", False),
    # house rules: a third light box takes the overflow; two incapacitated boxes hold a second 8
    (dict(track=(4, 3, 1, 1, 1, 1), fatigue_soak="never"), dict(light=2), 4, dict(light=3), "light", False),
    (dict(track=(4, 2, 1, 1, 2, 1)), dict(fatigue=4, incapacitated=1), 8, dict(fatigue=4, incapacitated=2),
     "incapacitated", False),
    # house rules: another damage table (2-3 fatigue, 4-5 light, 6-7 medium, 8 heavy, 9 incapacitated, 10+ dying)
    (dict(damage_table=(2, 4, 6, 8, 9, 10), fatigue_soak="never"), dict(), 1, dict(), None, False),
    (dict(damage_table=(2, 4, 6, 8, 9, 10), fatigue_soak="never"), dict(), 9, dict(incapacitated=1), "incapacitated", False),
    # a fatigue box soaking 2: a 7 becomes fatigue + 5 (medium)
    (dict(soak_points=2), dict(), 7, dict(fatigue=1, medium=1), "medium", True),
])
def test_box_track(rules, before, damage, after, level, soaked):
    got = kurs.mark(kurs.Rules(**rules), marked_tuple(**before), damage)
    assert got == (marked_tuple(**after), None if level is None else ORDER.index(level), soaked)
    brute_rules = {**BOOK, "soak": rules.get("fatigue_soak", "when_lower")}
    for lab, mine in (("track", "track"), ("damage_table", "table"), ("soak_points", "soak_points")):
        if lab in rules:
            brute_rules[mine] = rules[lab]
    marked, lvl, sk = take(brute_rules, marked_tuple(**before), damage)
    assert (marked, None if lvl is None else ORDER[lvl], sk) == (marked_tuple(**after), level, soaked)


@pytest.mark.parametrize("wound_penalty,expected", [("sum", 0 + 1 + 2), ("worst", 2), ("local", 1 + 1 + 3 + 5)])
def test_wound_penalties(wound_penalty, expected):
    # RULES.md: local −1/−3/−5 per box (light, medium, heavy), general 0/−1/−2
    assert kurs.penalty(kurs.Rules(wound_penalty=wound_penalty), (3, 2, 1, 1)) == expected


def test_house_penalties():
    rules = kurs.Rules(wound_penalty="local", local_penalty=(1, 1, 2, 4))
    assert kurs.penalty(rules, (3, 2, 1, 1)) == 3 + 2 + 2 + 4
    assert kurs.penalty(kurs.Rules(general_penalty=(0, 1, 1, 3), wound_penalty="worst"), (1, 1, 0, 0)) == 1


@pytest.mark.parametrize("policy,before,damage,dodged,after", [
    ("wound", (0,) * 6, 3, True, (1, 0, 0, 0, 0, 0)),            # a light wound, dodged
    ("wound", (0,) * 6, 2, False, (1, 0, 0, 0, 0, 0)),           # a fatigue box is not a wound
    ("out", (0,) * 6, 7, False, (1, 0, 1, 0, 0, 0)),             # a 7 soaked to medium: not about to be out
    ("out", (0, 2, 1, 1, 0, 0), 3, True, (1, 2, 1, 1, 0, 0)),    # overflow to incapacitated: dodged
    ("out", (4, 2, 1, 1, 0, 0), 3, False, (4, 2, 1, 1, 1, 0)),   # no fatigue box free: out
    ("never", (0,) * 6, 9, False, (1, 0, 0, 0, 1, 0)),
])
def test_effort_dodge(policy, before, damage, dodged, after):
    boxes, _, _, did = kurs.take_hit(kurs.Rules(), before, damage, policy)
    assert (did, boxes) == (dodged, after)
    assert land(BOOK, fighter(effort_dodge=policy), before, damage, False) == (after, dodged)


def test_track_statuses():
    t = kurs.side(kurs.Rules(luck_tokens=2), "normal", False).track
    assert len(t) == 5 * 3 * 2 * 2 * 3 + 5 * 3 * 2 * 2 + 1   # up (with tokens), out (boxes kept), dying
    assert {t.status[i] for i, c in enumerate(t.labels) if c != "dying" and c.boxes[4]} == {1}
    assert t.status[t.index["dying"]] == 2
    longer = kurs.side(kurs.Rules(track=(4, 3, 2, 1, 2, 1)), "offensive", True).track
    # trade flag x surprise flag: (False, True), (False, False), (True, False) per box pattern
    assert len(longer) == 5 * 4 * 3 * 2 * 3 + 5 * 4 * 3 * 2 * 2 + 1


def test_every_change_moves_forward():
    """The conditions are ordered so that the joint chain is triangular (markov.solve's fast LU relies on it)."""
    for rules in (kurs.Rules(luck_tokens=1), kurs.Rules(trade_cost="fatigue", surprise="a")):
        for stance in kurs.STANCES:
            s = kurs.side(rules, stance, rules.surprise == "a")
            for m in (s.own, s.spend):
                rows, cols = m.nonzero()
                assert (cols >= rows).all()
            dfn = kurs.Fighter(stance=stance, effort_dodge="out")
            for t in s.turns:
                for k in kurs._kernels(rules, kurs.Fighter(attack_skill=3, weapon=6), dfn, "a", t):
                    rows, cols = k.nonzero()
                    assert (cols >= rows).all()


# ------------------------------------------------------------------------- exchanges
EXCHANGES = [
    (BOOK, "maximus", "tiberius"),
    ({**BOOK, "clamp": False, "bonus_always": True}, "veteran", "master"),
    ({**BOOK, "faces": FACES["d5"], "graze": "fixed", "luck": 1}, "trained_armed", "novice"),
    ({**BOOK, "surprise": "a"}, "maximus", "archetype=tiberius,effort_dodge=wound"),
    (BOOK, "archetype=maximus,stance=offensive", "archetype=tiberius,stance=defensive,effort_dodge=out"),
    ({**BOOK, "trade_cost": "fatigue", "luck": 1}, "archetype=veteran,stance=defensive",
     "archetype=master,effort_dodge=wound"),
    (BOOK, "archetype=trained_armed,stance=no_defense", "archetype=trained_armed,stance=no_defense,effort_dodge=wound"),
    ({**BOOK, "track": (4, 3, 1, 1, 1, 1), "table": (1, 4, 6, 8, 9, 10), "luck_bonus": 2, "luck": 1,
      "clamp_zero": -2, "clamp_low": -2, "graze_damage": 2, "no_defense_bonus": 3},
     "archetype=maximus,stance=no_defense", "tiberius"),
    ({**BOOK, "faces": FACES["fudge"], "dice": 4, "soak_points": 2, "dodge_fatigue": 2},
     "archetype=master,scale=1", "archetype=veteran,effort_dodge=wound"),
]


@pytest.mark.parametrize("rules,a_spec,b_spec", EXCHANGES)
def test_exchange_matches_enumeration(rules, a_spec, b_spec):
    att, dfn = load_fighter(SYSTEM, a_spec), load_fighter(SYSTEM, b_spec)
    res = kurs.exchange(lab_rules(rules), att, dfn)
    a, d = att.to_dict(), dfn.to_dict()
    a_mod, after = stance_turn(rules, a, ((0,) * 6, rules["luck"], False, rules["surprise"] == "a"))
    one_sided = rules["surprise"] == "a"   # B has had no turn: whatever its stance, it stands normal
    kinds, damage, conditions = {}, {}, {}
    count = rules["dice"]
    n = len(rules["faces"]) ** (count if one_sided else 2 * count)
    for dice in itertools.product(rules["faces"], repeat=count if one_sided else 2 * count):
        kind, dmg, _, _ = strike(rules, a, d, sum(dice[:count]), sum(dice[count:]), a_mod, pain(rules, after[0]),
                                 one_sided=one_sided, tok_a=rules["luck"] > 0, tok_d=rules["luck"] > 0 and not one_sided)
        marked, dodged = land(rules, d, (0,) * 6, dmg, one_sided)
        kind, dmg = ("defended", 0) if dodged else (kind, dmg)
        kinds[kind] = kinds.get(kind, 0) + 1 / n
        damage[dmg] = damage.get(dmg, 0) + 1 / n
        name = ("dying" if marked[5] else "incapacitated" if marked[4]
                else ", ".join(f"{ORDER[k]} {v}" for k, v in enumerate(marked) if v) or "unhurt")
        conditions[name] = conditions.get(name, 0) + 1 / n
    for kind in ("miss", "defended", "graze", "hit"):
        assert getattr(res, f"p_{kind}") == pytest.approx(kinds.get(kind, 0), abs=1e-12), kind
    assert res.p_critical == 0
    for d_value, p in damage.items():
        assert res.damage.pmf(d_value) == pytest.approx(p, abs=1e-12)
    assert set(res.condition_after) == set(conditions)
    for name, p in conditions.items():
        assert res.condition_after[name] == pytest.approx(p, abs=1e-12)


# ---------------------------------------------------------------------------- duels
SMALL = [
    # the book's rules and plain fighters
    (BOOK, fighter(attack_skill=1, weapon=2, strength=1), fighter(defense_skill=1, health=1, armor=1, agility=1)),
    ({**BOOK, "faces": FACES["fudge"], "luck": 1},
     fighter(attack_skill=1, weapon=3), fighter(weapon=2, weapon_type_bonus=2, armor=1)),
    ({**BOOK, "penalty": "local", "soak": "never", "clamp": False},
     fighter(weapon=4, agility=2), fighter(attack_skill=2, weapon=1, shield=1)),
    ({**BOOK, "faces": FACES["d5"], "penalty": "worst", "graze": "fixed", "bonus_always": True},
     fighter(scale=1, weapon=1, weapon_type_bonus=1), fighter(attack_skill=1, health=2, weapon=3)),
    ({**BOOK, "graze": "capped"}, fighter(scale=1, weapon=1), fighter(attack_skill=1, health=2, weapon=2)),
    # manoeuvres: the trades, their price, not defending
    (BOOK, fighter(attack_skill=1, weapon=3, stance="offensive"), fighter(defense_skill=1, weapon=2, stance="defensive")),
    ({**BOOK, "trade_cost": "fatigue", "luck": 1},
     fighter(attack_skill=1, weapon=3, stance="offensive", agility=1), fighter(weapon=3, stance="defensive")),
    ({**BOOK, "trade_cost": "fatigue", "trade_fatigue": 2, "penalty": "local"},
     fighter(weapon=4, stance="offensive"), fighter(attack_skill=1, weapon=3, health=1)),
    (BOOK, fighter(weapon=3, stance="no_defense"), fighter(attack_skill=1, defense_skill=1, weapon=2)),
    ({**BOOK, "no_defense_bonus": 1}, fighter(weapon=3, stance="no_defense"), fighter(weapon=3, stance="no_defense")),
    # the fatigue-box dodge
    (BOOK, fighter(attack_skill=1, weapon=4, effort_dodge="out"), fighter(weapon=5, effort_dodge="wound")),
    ({**BOOK, "dodge_fatigue": 2, "trade_cost": "fatigue"},
     fighter(weapon=4, stance="offensive", effort_dodge="wound"), fighter(attack_skill=1, weapon=4, effort_dodge="out")),
    # one-sided surprise attacks
    ({**BOOK, "surprise": "a"}, fighter(weapon=4), fighter(attack_skill=1, weapon=3, effort_dodge="wound")),
    ({**BOOK, "surprise": "b", "surprise_first": False, "luck": 1},
     fighter(weapon=4, agility=1, stance="defensive"), fighter(attack_skill=1, weapon=3)),
    # finishing
    ({**BOOK, "finish": True}, fighter(attack_skill=1, weapon=2, strength=1), fighter(defense_skill=1, health=1, armor=1)),
    ({**BOOK, "finish": True, "finish_attacks": 2, "trade_cost": "fatigue", "surprise": "b"},
     fighter(weapon=3, stance="offensive", effort_dodge="out"), fighter(weapon=2, health=1, stance="no_defense")),
    # house rules that change the fight's shape
    ({**BOOK, "track": (4, 3, 1, 1, 1, 1), "finish": True}, fighter(weapon=3), fighter(attack_skill=1, weapon=2)),
    ({**BOOK, "faces": FACES["fudge"], "track": (3, 3, 2, 1, 2, 1), "table": (1, 3, 5, 6, 8, 10), "finish": True},
     fighter(attack_skill=1, weapon=4), fighter(weapon=4, agility=1, effort_dodge="out")),
    ({**BOOK, "luck": 1, "luck_bonus": 2, "general": (0, 1, 1, 3), "dice": 2, "clamp_zero": -2, "clamp_low": -2},
     fighter(weapon=3), fighter(attack_skill=1, weapon=2)),
    ({**BOOK, "soak_points": 2, "graze_damage": 2, "trade_bonus": 2, "soak": "when_lower_any"},
     fighter(weapon=3, stance="offensive"), fighter(attack_skill=1, weapon=2, health=1)),
]


@pytest.mark.parametrize("rules,a_kw,b_kw", SMALL)
def test_small_duels_match_brute_force_recursion(rules, a_kw, b_kw):
    res = kurs.duel(lab_rules(rules), kurs.Fighter(**a_kw), kurs.Fighter(**b_kw)).solution
    wa, wb, da, db, rounds, attacks = duel_brute(rules, a_kw, b_kw)
    assert res.p_a_wins == pytest.approx(wa, abs=1e-10)
    assert res.p_b_wins == pytest.approx(wb, abs=1e-10)
    assert res.p_a_dying == pytest.approx(da, abs=1e-10)
    assert res.p_b_dying == pytest.approx(db, abs=1e-10)
    assert res.mean_rounds == pytest.approx(rounds, rel=1e-9)
    assert res.p_both_out == 0  # alternating attacks: the fight stops at the first fighter out
    assert sum(res.rounds.values()) + res.rounds_tail == pytest.approx(1, abs=1e-9)
    if rules["finish"]:
        assert res.finish_attacks == pytest.approx(attacks / (wa + wb), rel=1e-9)
    else:
        assert res.finish_attacks is None and res.p_a_dying + res.p_b_dying < wa + wb


# RULES.md section 8: «A К.У.Р.С. stance is declared at the start of the fighter's own turn and holds until its
# next; before its first turn a fighter stands normal … `stance = no_defense` defends until its first turn, like
# `offensive` and `defensive`.» Every stance, both prices of a trade, the dodge, on short tracks.
SHORT = {**BOOK, "track": (2, 1, 1, 1, 1, 1)}
STANCE_CLOCK = [
    ({**SHORT, "trade_cost": cost}, fighter(attack_skill=1, weapon=3, stance=stance, effort_dodge="out"),
     fighter(defense_skill=1, weapon=3, health=1, agility=1, effort_dodge=dodge))
    for stance in kurs.STANCES for cost, dodge in (("complication", "never"), ("fatigue", "wound"))
] + [
    ({**SHORT, "trade_cost": "fatigue"}, fighter(weapon=4, agility=1, stance=stance, effort_dodge="wound"),
     fighter(attack_skill=1, weapon=3, stance=other))
    for stance, other in (("no_defense", "offensive"), ("defensive", "no_defense"), ("no_defense", "no_defense"))
] + [
    # a surprise: the surprising side's first turn is its own (its stance holds from that attack); the surprised
    # side stands normal until its first turn (it cannot defend the surprise anyway)
    ({**SHORT, "surprise": "a"}, fighter(attack_skill=1, weapon=3, stance="no_defense"),
     fighter(weapon=3, stance="no_defense", effort_dodge="out")),
    ({**SHORT, "surprise": "b", "surprise_first": False, "trade_cost": "fatigue"},
     fighter(weapon=3, agility=1, stance="no_defense"), fighter(attack_skill=1, weapon=3, stance="offensive")),
]


@pytest.mark.parametrize("rules,a_kw,b_kw", STANCE_CLOCK)
def test_stance_clock_matches_brute_force_recursion(rules, a_kw, b_kw):
    res = kurs.duel(lab_rules(rules), kurs.Fighter(**a_kw), kurs.Fighter(**b_kw)).solution
    wa, wb, da, db, rounds, _ = duel_brute(rules, a_kw, b_kw)
    assert (res.p_a_wins, res.p_b_wins, res.p_a_dying, res.p_b_dying) == pytest.approx((wa, wb, da, db), abs=1e-9)
    assert res.mean_rounds == pytest.approx(rounds, rel=1e-9)


def test_no_defense_defends_until_its_first_turn():
    """By hand: A always attacks first (agility 13 + 3dK > 0 + 3dK) and only A can put the other out in one blow,
    so P(the fight ends in round 1) = P(A's first attack marks incapacitated or dying).  B has not had a turn, so
    that attack is opposed even with B's stance no_defense; from round 2 on it is one-sided."""
    rules = {**BOOK, "soak": "never"}
    a = fighter(attack_skill=2, weapon=6, agility=13, health=2)
    pmf = dice_pmf(FACES["default"])

    def down(one_sided):  # damage = success + 6 >= 8 marks incapacitated or dying (no soak)
        return sum(p * q for r, p in pmf.items() for d, q in ([(0, 1.0)] if one_sided else pmf.items())
                   if (m := 2 + r - (0 if one_sided else 3 + counted(rules, d))) > 0 and m + 6 >= 8)

    for stance in kurs.STANCES:
        b = fighter(defense_skill=3, stance=stance)
        res = kurs.duel(lab_rules(rules), kurs.Fighter(**a), kurs.Fighter(**b)).solution
        assert res.rounds[1] == pytest.approx(down(False), abs=1e-12), stance
        assert res.p_a_wins == pytest.approx(duel_brute(rules, a, b)[0], abs=1e-10)
    assert down(True) > 2 * down(False)   # the old timing (undefended from the start) would differ


def test_surprise_goes_first_and_is_one_sided():
    """A surprise that kills outright: one-sided 3dK + 2 against 0 with offense 7 takes a defenseless B."""
    rules = {**BOOK, "surprise": "a"}
    a, b = fighter(attack_skill=2, weapon=7), fighter(defense_skill=9, weapon=1)
    res = kurs.duel(lab_rules(rules), kurs.Fighter(**a), kurs.Fighter(**b)).solution
    pmf = dice_pmf(FACES["default"])
    # damage (2 + roll) + 7: an 8 is soaked to a 7 (heavy), a 9 to an 8 (out), 10+ is dying: B is down on the
    # first attack iff roll >= 0; B's own attack (at most 7) cannot put A out in one blow
    out_first = sum(p for r, p in pmf.items() if 9 + r >= 9)
    assert res.rounds[1] == pytest.approx(out_first, abs=1e-12)
    assert res.p_a_wins == pytest.approx(duel_brute(rules, a, b)[0], abs=1e-10)


# ------------------------------------------------------------------ finishing (after_out = finish)
def test_finishing_a_helpless_fighter_by_hand():
    """One attack left, a victim out with nothing else marked: P(dying) = P(the one-sided attack marks dying)."""
    rules = {**BOOK, "finish": True, "finish_attacks": 1, "soak": "never", "surprise": "a"}
    a, b = fighter(attack_skill=3, weapon=6), fighter(weapon=1, health=1)
    res = kurs.duel(lab_rules(rules), kurs.Fighter(**a), kurs.Fighter(**b)).solution
    # B is out after A's surprise iff 3 + r > 0 and damage 3 + r + 6 - 1 = 8 exactly (9+ is dying at once)
    pmf = dice_pmf(FACES["default"])
    out_now = sum(p for r, p in pmf.items() if 3 + r + 5 == 8)
    dying_now = sum(p for r, p in pmf.items() if 3 + r + 5 >= 9)
    # then one finishing attack: dying iff the damage reaches 8 (no incapacitated box left) or marks a full level
    finish = sum(p for r, p in pmf.items() if 3 + r > 0 and 3 + r + 5 >= 8)
    assert res.p_b_dying >= dying_now + out_now * finish - 1e-12
    assert res.p_b_dying == pytest.approx(duel_brute(rules, a, b)[3], abs=1e-10)


def test_trained_armed_mirror_can_kill_under_finish():
    f = load_fighter(SYSTEM, "trained_armed")
    stop = kurs.duel(kurs.Rules(), f, f).to_dict()
    done = kurs.duel(kurs.Rules(after_out="finish"), f, f).to_dict()
    assert done["p_a_killed"] > stop["p_a_killed"] > 0 and done["mean_finish_attacks"] > 0
    assert done["p_a_wins"] == pytest.approx(stop["p_a_wins"], abs=1e-12)   # finishing never changes who won
    assert done["p_a_dead"] is None and "no dead level" in done["null_reasons"]["p_a_dead"]
    dead = kurs.duel(kurs.Rules(after_out="finish", lethal_at="dead"), f, f).to_dict()
    assert dead["p_a_killed"] is None and dead["p_a_dying"] == pytest.approx(done["p_a_dying"], abs=1e-12)


# ------------------------------------------------------------------------ archetype duels
NAMES = sorted(archetypes("kurs"))


@pytest.mark.parametrize("a_name", NAMES)
def test_archetype_duels_are_proper_and_symmetric(a_name):
    rules = kurs.Rules()
    a = load_fighter(SYSTEM, a_name)
    for b_name in NAMES:
        b = load_fighter(SYSTEM, b_name)
        ab, ba = kurs.duel(rules, a, b).solution, kurs.duel(rules, b, a).solution
        assert ab.p_a_wins + ab.p_b_wins + ab.p_both_out + ab.p_stalemate == pytest.approx(1, abs=1e-9)
        assert ab.p_a_wins == pytest.approx(ba.p_b_wins, abs=1e-9)
        assert ab.p_a_dying == pytest.approx(ba.p_b_dying, abs=1e-9)
        assert ab.mean_rounds == pytest.approx(ba.mean_rounds, rel=1e-9)
        assert ab.states <= kurs.duel_states(rules, a, b)


def test_fighters_who_cannot_hurt_each_other_stalemate():
    pacifist = kurs.Fighter(health=8)  # the best success is 6 - (-1) = 7 < 8
    res = kurs.duel(kurs.Rules(), pacifist, pacifist).solution
    assert res.p_stalemate == pytest.approx(1) and res.p_a_wins == 0 and res.p_b_wins == 0


@pytest.mark.parametrize("variant,a_policy,b_policy", [
    (dict(luck_tokens=1), {}, {}), (dict(wound_penalty="local"), {}, {}), (dict(fatigue_soak="never"), {}, {}),
    (dict(type_bonus="always"), {}, {}), (dict(graze="fixed"), {}, {}), (dict(graze="capped"), {}, {}),
    (dict(defense_clamp=False), {}, {}), (dict(dk_faces=FACES["fudge"]), {}, {}),
    (dict(trade_cost="fatigue"), dict(stance="offensive"), dict(stance="defensive")),
    ({}, dict(stance="no_defense"), dict(effort_dodge="wound")), ({}, dict(effort_dodge="out"), {}),
    (dict(surprise="a"), {}, {}), (dict(surprise="b", surprise_first=False), {}, {}),
    (dict(after_out="finish"), {}, {}), (dict(track=(5, 3, 1, 1, 1, 1), luck_tokens=1), dict(stance="offensive"), {}),
])
def test_every_option_duels(variant, a_policy, b_policy):
    a = load_fighter(SYSTEM, "maximus").replace(**a_policy)
    b = load_fighter(SYSTEM, "tiberius").replace(**b_policy)
    rules = kurs.Rules(**variant)
    res = kurs.duel(rules, a, b)
    s = res.solution
    assert s.p_a_wins + s.p_b_wins + s.p_stalemate == pytest.approx(1, abs=1e-9)
    assert s.states <= kurs.duel_states(rules, a, b)
    data = res.to_dict()
    assert data["a"]["stance"] == a.stance and data["b"]["effort_dodge"] == b.effort_dodge
    assert all(data["variants"][k] == v or data["variants"][k] == list(v) for k, v in variant.items())


def test_the_order_says_what_is_modelled():
    a = load_fighter(SYSTEM, "maximus").replace(stance="offensive")
    b = load_fighter(SYSTEM, "tiberius").replace(stance="no_defense", effort_dodge="out")
    order = kurs.duel(kurs.Rules(after_out="finish", surprise="a"), a, b).order
    for words in ("complication is narrative and not modelled", "lab stand-in", "effort_dodge out", "surprise",
                  "after_out = finish", "one-sided"):
        assert words in order
    order = kurs.duel(kurs.Rules(trade_cost="fatigue"), a, b).order
    assert "each trading turn marks 1 free fatigue box" in order


def test_tactics_change_the_fight():
    """Direction checks: the stances trade attack for defense, the dodge and a surprise help their side."""
    m, t = load_fighter(SYSTEM, "trained_armed"), load_fighter(SYSTEM, "trained_armed")
    rules = kurs.Rules()

    def p(rules, a, b):
        return kurs.duel(rules, a, b).solution.p_a_wins

    plain = p(rules, m, t)
    assert p(kurs.Rules(surprise="a"), m, t) > plain > p(kurs.Rules(surprise="b"), m, t)
    assert p(rules, m.replace(effort_dodge="out"), t) > plain
    reckless = kurs.duel(rules, m, t.replace(stance="no_defense")).solution
    assert reckless.mean_rounds < kurs.duel(rules, m, t).solution.mean_rounds   # one-sided attacks both ways
    offensive = kurs.duel(rules, m.replace(stance="offensive"), t).solution
    assert offensive.mean_rounds < kurs.duel(rules, m, t).solution.mean_rounds
    assert p(kurs.Rules(trade_cost="fatigue"), m.replace(stance="offensive"), t) != pytest.approx(
        p(rules, m.replace(stance="offensive"), t), abs=1e-6)


def test_roll_off_ignores_ties():
    rules = kurs.Rules()
    pmf = dice_pmf(FACES["default"])
    win = sum(p * q for x, p in pmf.items() for y, q in pmf.items() if x + 2 > y)
    tie = sum(p * q for x, p in pmf.items() for y, q in pmf.items() if x + 2 == y)
    assert kurs.first_attack(rules, kurs.Fighter(agility=2), kurs.Fighter()) == pytest.approx(win / (1 - tie), abs=1e-12)


fighter_st = st.fixed_dictionaries({
    "attack_skill": st.integers(0, 2), "defense_skill": st.integers(0, 2), "strength": st.integers(0, 2),
    "health": st.integers(0, 2), "scale": st.integers(0, 1), "weapon": st.integers(0, 3),
    "weapon_type_bonus": st.integers(0, 2), "armor": st.integers(0, 2), "shield": st.integers(0, 1), "agility": st.integers(0, 2),
})
boost_st = st.fixed_dictionaries({k: st.integers(0, 1) for k in (
    "attack_skill", "defense_skill", "strength", "health", "scale", "weapon", "weapon_type_bonus", "armor", "shield", "agility")})


@settings(max_examples=10, deadline=None)
@given(fighter_st, boost_st, fighter_st)
def test_a_better_fighter_never_wins_less(base, boost, other):
    rules = kurs.Rules()
    a, b = kurs.Fighter(**base), kurs.Fighter(**other)
    better = kurs.Fighter(**{k: v + boost[k] for k, v in base.items()})
    plain, improved = kurs.duel(rules, a, b).solution, kurs.duel(rules, better, b).solution
    assert improved.p_a_wins >= plain.p_a_wins - 1e-9
    assert improved.p_b_wins <= plain.p_b_wins + 1e-9


# ------------------------------------------------------------------ luck tokens in opposed checks
def opposed_enumeration(faces, skill_a, skill_b, bonus, tokens=True):
    """Exact fractions over every pair of totals (each from every roll of three dice); each side, failing by
    1..bonus against the other's total, adds its token to its own total (the other may answer); once each; never
    on equal totals."""
    def totals(skill):
        pmf = {}
        for dice in itertools.product(faces, repeat=3):
            pmf[skill + sum(dice)] = pmf.get(skill + sum(dice), 0) + Fraction(1, len(faces) ** 3)
        return pmf

    win = tie = lose = used_a = used_b = Fraction(0)
    margins = {}
    for (ta, pa), (tb, pb) in itertools.product(totals(skill_a).items(), totals(skill_b).items()):
        p = pa * pb
        spent = {"a": False, "b": False}
        while tokens:
            if ta < tb and tb - ta <= bonus and not spent["a"]:
                ta, spent["a"] = ta + bonus, True
            elif tb < ta and ta - tb <= bonus and not spent["b"]:
                tb, spent["b"] = tb + bonus, True
            else:
                break
        win, tie, lose = win + p * (ta > tb), tie + p * (ta == tb), lose + p * (ta < tb)
        used_a, used_b = used_a + p * spent["a"], used_b + p * spent["b"]
        margins[ta - tb] = margins.get(ta - tb, 0) + p
    return win, tie, lose, used_a, used_b, margins


@pytest.mark.parametrize("faces,skill_a,skill_b,bonus", [
    ("default", 2, 3, 3), ("default", 0, 0, 3), ("fudge", 1, 0, 3), ("d5", 0, 2, 2), ("default", 4, -1, 1),
])
def test_opposed_luck_tokens_match_enumeration(faces, skill_a, skill_b, bonus):
    rules = kurs.Rules(dk_faces=FACES[faces], luck_tokens=1, luck_bonus=bonus)
    res = kurs.opposed(rules, kurs.CheckArgs(skill=skill_a), kurs.CheckArgs(skill=skill_b))
    win, tie, lose, used_a, used_b, margins = opposed_enumeration(FACES[faces], skill_a, skill_b, bonus)
    assert (res.p_a_wins, res.p_tie, res.p_b_wins) == pytest.approx((float(win), float(tie), float(lose)), abs=1e-12)
    assert (res.extra["p_a_luck"], res.extra["p_b_luck"]) == pytest.approx((float(used_a), float(used_b)), abs=1e-12)
    for m, p in margins.items():
        assert res.margin.pmf(m) == pytest.approx(float(p), abs=1e-12)
    plain = kurs.opposed(rules.replace(luck_tokens=0), kurs.CheckArgs(skill=skill_a), kurs.CheckArgs(skill=skill_b))
    win0, tie0, _, _, _, _ = opposed_enumeration(FACES[faces], skill_a, skill_b, bonus, tokens=False)
    assert (plain.p_a_wins, plain.p_tie) == pytest.approx((float(win0), float(tie0)), abs=1e-12)
    assert "p_a_luck" not in plain.extra


def test_opposed_luck_tokens_cli(capsys):
    code = main(["opposed", "kurs", "--a", "skill=2", "--b", "skill=3", "--variant", "luck_tokens=1", "--json"])
    data = json.loads(capsys.readouterr().out)
    win, tie, lose, used_a, _, _ = opposed_enumeration(FACES["default"], 2, 3, 3)
    assert code == 0 and data["variants"]["luck_tokens"] == 1
    assert data["p_a_wins"] == pytest.approx(float(win), abs=1e-12) and data["p_a_luck"] == pytest.approx(float(used_a))
    assert "luck_rule" in data


# ------------------------------------------------------------------------ house rules
def test_house_rules_file_reaches_the_duel(tmp_path, capsys):
    house = tmp_path / "house.toml"
    house.write_text('[kurs]\ntrack = [4, 3, 1, 1, 1, 1]\nluck_bonus = 2\ndk_faces = "fudge"\n', encoding="utf-8")
    code = main(["duel", "kurs", "--a", "maximus", "--b", "tiberius", "--rules", str(house), "--json",
                 "--variant", "luck_tokens=1"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["house_rules"] == {"track": [4, 3, 1, 1, 1, 1], "luck_bonus": 2}
    rules = kurs.Rules(track=(4, 3, 1, 1, 1, 1), luck_bonus=2, dk_faces=FACES["fudge"], luck_tokens=1)
    exact = kurs.duel(rules, load_fighter(SYSTEM, "maximus"), load_fighter(SYSTEM, "tiberius")).solution
    assert data["p_a_wins"] == pytest.approx(exact.p_a_wins, abs=1e-12)
    assert "(+2)" in data["order"]


def test_the_example_house_rules_file():
    from pathlib import Path

    from analysis.tools.house_rules import load_rules, ruleset

    path = Path(__file__).resolve().parent.parent / "examples" / "house_rules" / "fudge_kurs.toml"
    rules = ruleset(SYSTEM, load_rules(path))
    assert rules.dk_faces == FACES["fudge"] and rules.track == (4, 3, 1, 1, 1, 1)
    assert rules.house_rules() == {"track": [4, 3, 1, 1, 1, 1]}


def test_every_number_is_a_constant():
    constants = {i.name: i.default for i in kurs.Rules.describe() if i.kind == "constant"}
    assert constants["track"] == [4, 2, 1, 1, 1, 1] and constants["damage_table"] == [1, 3, 5, 7, 8, 9]
    assert constants["general_penalty"] == [0, 0, 1, 2] and constants["local_penalty"] == [0, 1, 3, 5]
    assert (constants["luck_bonus"], constants["dice_count"], constants["defense_clamp_zero"],
            constants["defense_clamp_low"], constants["extra_defense_penalty"], constants["no_defense_bonus"]) == (
        3, 3, -4, -1, 1, 2)
    kinds = {i.name: i.kind for i in kurs.Rules.describe()}
    assert kinds["dk_faces"] == kinds["graze"] == kinds["trade_cost"] == "variant"
    assert kinds["surprise"] == kinds["after_out"] == "option"
    assert {i.name for i in kurs.Fighter.describe() if i.kind == "policy"} == {"stance", "effort_dodge", "target"}
    assert kurs.Rules().house_rules() == {} and kurs.Rules(track=(4, 3, 1, 1, 1, 1)).house_rules() == {
        "track": [4, 3, 1, 1, 1, 1]}


@pytest.mark.parametrize("field,value,words", [
    ("track", (4, 2, 1, 1, 1), ["track", "a list of 6 integers", "fatigue 0..8"]),
    ("track", (4, 2, 1, 1, 1, 2), ["dying 1..1"]),
    ("damage_table", (1, 3, 3, 7, 8, 9), ["strictly increasing"]),
    ("local_penalty", (0, 1, "x", 5), ["local_penalty"]),
    ("luck_bonus", 0, ["luck_bonus", "1..10"]),
])
def test_bad_constants_get_one_line(field, value, words):
    with pytest.raises(DicelabError) as err:
        kurs.Rules(**{field: value})
    assert "\n" not in str(err.value) and str(err.value).startswith("kurs ruleset")
    for w in words:
        assert w in str(err.value)


def test_duel_states_bounds_the_chain():
    f = kurs.Fighter(attack_skill=1, weapon=3)
    for rules, a, b in [(kurs.Rules(), f, f), (kurs.Rules(luck_tokens=2, surprise="a"), f.replace(stance="offensive"), f),
                        (kurs.Rules(track=(4, 3, 1, 1, 2, 1), trade_cost="fatigue"), f, f.replace(stance="defensive"))]:
        assert kurs.duel(rules, a, b).solution.states <= kurs.duel_states(rules, a, b)
    assert SYSTEM.duel_states is kurs.duel_states


# ------------------------------------------------------------------------ archetypes and CLI
def test_every_archetype_has_a_note():
    assert {"novice", "novice_armed", "trained", "trained_armed", "veteran", "master", "maximus", "tiberius"} <= set(NAMES)
    for name, entry in archetypes("kurs").items():
        assert entry.get("note"), name


def test_seed_gladiators_as_given():
    m, t = load_fighter(SYSTEM, "maximus"), load_fighter(SYSTEM, "tiberius")
    assert (m.attack_skill, m.strength, m.scale, m.weapon, m.weapon_type_bonus, m.muscle_powered) == (4, 3, 0, 2, 2, True)
    assert (t.defense_skill, t.health, t.scale, t.armor, t.shield) == (3, 2, 0, 2, 1)


def test_exchange_cli_contract(capsys):
    code = main(["exchange", "kurs", "--a", "maximus", "--b", "tiberius", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    for key in ("p_miss", "p_graze", "p_hit", "p_defended", "damage", "mean_damage", "condition_after", "variants", "notes"):
        assert key in data
    assert data["p_miss"] + data["p_graze"] + data["p_hit"] == pytest.approx(1, abs=1e-12)
    assert data["attacker"]["derived"] == {"offense": 5, "defense": 1}


def test_policies_from_the_cli(capsys):
    code = main(["duel", "kurs", "--a", "archetype=maximus,stance=offensive", "--b", "archetype=tiberius,effort_dodge=out",
                 "--variant", "after_out=finish", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["a"]["stance"] == "offensive" and data["b"]["effort_dodge"] == "out"
    a = load_fighter(SYSTEM, "maximus").replace(stance="offensive")
    b = load_fighter(SYSTEM, "tiberius").replace(effort_dodge="out")
    exact = kurs.duel(kurs.Rules(after_out="finish"), a, b).to_dict()
    assert data["p_b_killed"] == pytest.approx(exact["p_b_killed"], abs=1e-12) and data["mean_finish_attacks"] > 0


def test_duel_cli_contract(capsys):
    code = main(["duel", "kurs", "--a", "maximus", "--b", "tiberius", "--json", "--variant", "luck_tokens=1"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["variants"]["luck_tokens"] == 1
    for key in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dead", "p_b_dead", "p_stalemate", "rounds", "mean_rounds",
                "states", "order", "p_a_dying", "p_a_killed", "null_reasons"):
        assert key in data
    assert "roll-off" in data["order"] and "luck" in data["order"] and "-1 on extra defenses" in data["order"]
    assert abs(data["p_a_wins"] + data["p_b_wins"] + data["p_both_out"] + data["p_stalemate"] - 1) < 1e-9
    assert data["levels"] == {"out": "«Недееспособен» marked", "dying": "«При смерти» marked", "dead": None}


@pytest.mark.parametrize("argv,words", [
    (["duel", "kurs", "--a", "attack_skill=50", "--b", "novice"], ["attack_skill", "50", "-5..15"]),
    (["duel", "kurs", "--a", "atack_skill=2", "--b", "novice"], ["atack_skill", "attack_skill"]),
    (["duel", "kurs", "--a", "muscle_powered=maybe", "--b", "novice"], ["muscle_powered", "true or false"]),
    (["duel", "kurs", "--a", "stance=reckless", "--b", "novice"], ["stance", "reckless", "no_defense"]),
    (["duel", "kurs", "--a", "novice", "--b", "novice", "--variant", "surprise=c"], ["surprise", "one of none, a, b"]),
    (["duel", "kurs", "--a", "novice", "--b", "novice", "--variant", "track=4,2,1"], ["track", "a list of 6 integers"]),
    (["exchange", "kurs", "--a", "spartacus", "--b", "novice"], ["spartacus", "maximus"]),
    (["resolve", "kurs", "--a", "maximus", "--b", "tiberius", "--rolls", "attack=9,defense=0"], ["rolls.attack", "9", "-6..6"]),
    (["resolve", "kurs", "--a", "maximus", "--b", "tiberius", "--rolls", "attack=1"], ["defense"]),
])
def test_bad_input_gets_one_clear_line(capsys, argv, words):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    for w in words:
        assert w in err


# ------------------------------------------------------------------ setups that are almost surely a slip
@pytest.mark.parametrize("variant,policy,words", [
    # «the dodge … not against one-sided attacks» and no_defense makes every attack on it one-sided from its turn
    ({}, dict(stance="no_defense", effort_dodge="wound"), ["dodges only before its first turn"]),
    (dict(track=(0, 2, 1, 1, 1, 1)), dict(effort_dodge="out"), ["never applies", "0 fatigue box"]),
    (dict(dodge_fatigue=5), dict(effort_dodge="wound"), ["dodge_fatigue = 5"]),
    (dict(trade_cost="fatigue", trade_fatigue=5), dict(stance="offensive"), ["never paid for", "every turn is plain"]),
    (dict(trade_bonus=0), dict(stance="defensive"), ["trade_bonus = 0 changes no total"]),
    (dict(trade_bonus=0, trade_cost="fatigue"), dict(stance="offensive"), ["still costs fatigue"]),
])
def test_slips_are_warned_not_refused(variant, policy, words):
    rules = kurs.Rules(**variant)
    a, b = load_fighter(SYSTEM, "trained_armed").replace(**policy), load_fighter(SYSTEM, "novice_armed")
    outputs = [kurs.duel(rules, a, b).to_dict(), kurs.exchange(rules, b, a).to_dict(),
               kurs.resolve(rules, a, b, {"attack": 0, "defense": 0}).to_dict()]
    for data in outputs:
        assert len(data["warnings"]) == 1 and all(w in data["warnings"][0] for w in words), data["warnings"]
    assert kurs.slips(rules, b, b) == []


def test_a_kurs_slip_reaches_the_cli(capsys):
    code = main(["duel", "kurs", "--a", "archetype=maximus,stance=no_defense,effort_dodge=out", "--b", "tiberius"])
    out = capsys.readouterr().out
    assert code == 0 and "warning: kurs fighter 'maximus, stance no_defense, effort_dodge out': effort_dodge = out with stance = no_defense" in out
    assert kurs.duel(kurs.Rules(), load_fighter(SYSTEM, "maximus"), load_fighter(SYSTEM, "tiberius")).to_dict()[
        "warnings"] == []


def test_killed_by_finish_attacks_is_the_brute_force_at_each_allowance():
    """P(someone dying) when at most k finishing attacks are allowed, k = 0..3, from one duel with finish_attacks=3,
    against the recursion run once per k (k = 0: the duel stopped at the first out)."""
    a_kw, b_kw = fighter(attack_skill=1, weapon=2, strength=1), fighter(defense_skill=1, health=1, armor=1)
    curve = kurs.duel(lab_rules({**BOOK, "finish": True, "finish_attacks": 3}), kurs.Fighter(**a_kw),
                      kurs.Fighter(**b_kw)).to_dict()["p_killed_by_finish_attacks"]
    assert len(curve) == 4
    for k, p in enumerate(curve):
        _, _, da, db, _, _ = duel_brute({**BOOK, "finish": k > 0, "finish_attacks": k}, a_kw, b_kw)
        assert p == pytest.approx(da + db, abs=1e-10), k  # alternating attacks: never both out
