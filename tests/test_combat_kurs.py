"""К.У.Р.С. combat: the seed's gladiators, the box track, exchanges and duels against an independent brute force."""

from __future__ import annotations

import itertools
import json
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.cli import main
from analysis.fighters import archetypes, load_fighter
from analysis.system import get_system
from analysis.systems import kurs

SYSTEM = get_system("kurs")
FACES = {"default": (-2, -1, 0, 0, 1, 2), "fudge": (-1, 0, 1), "d5": (-2, -1, 0, 1, 2)}
RULES = dict(faces=FACES["default"], clamp=True, luck=0, penalty="sum", soak="when_lower", bonus_always=False,
             graze_fixed=False)


# ----------------------------------------------------- independent brute force (from RULES.md section 4)
ORDER = ["fatigue", "light", "medium", "heavy", "incapacitated", "dying"]
SIZE = {"fatigue": 4, "light": 2, "medium": 1, "heavy": 1, "incapacitated": 1, "dying": 1}
GENERAL = {"fatigue": 0, "light": 0, "medium": 1, "heavy": 2}
LOCAL = {"fatigue": 0, "light": 1, "medium": 2, "heavy": 3}


def table_level(damage):
    for top, name in ((2, "fatigue"), (4, "light"), (6, "medium"), (7, "heavy"), (8, "incapacitated")):
        if damage <= top:
            return name
    return "dying"


def first_free(marked, name):
    for lvl in ORDER[ORDER.index(name):]:
        if marked.get(lvl, 0) < SIZE[lvl]:
            return lvl
    return "dying"


def take(marked, damage, soak):
    """(marked after, level marked, soaked) for one hit; ``marked`` maps level -> boxes marked."""
    if damage <= 0:
        return dict(marked), None, False
    plain = first_free(marked, table_level(damage))
    options = [(ORDER.index(plain), plain, False)]
    if soak != "never" and damage >= 3 and marked.get("fatigue", 0) < 4:
        tired = {**marked, "fatigue": marked.get("fatigue", 0) + 1}
        rest = first_free(tired, table_level(damage - 1))
        if rest != "fatigue" or soak == "when_lower_any":  # one wound box and one fatigue box
            options.append((ORDER.index(rest) + 0.5, rest, True))  # only taken when strictly lighter
    _, lvl, soaked = min(options)
    out = {**marked, "fatigue": marked.get("fatigue", 0) + 1} if soaked else dict(marked)
    out[lvl] = min(out.get(lvl, 0) + 1, SIZE[lvl])
    return out, lvl, soaked


def three_dk(faces):
    pmf = {}
    for dice in itertools.product(faces, repeat=3):
        pmf[sum(dice)] = pmf.get(sum(dice), 0) + 1 / len(faces) ** 3
    return pmf


def counted(r, clamp):
    if not clamp or r > 0:
        return r
    return 0 if r >= -4 else -1


def attack_outcome(rules, att, dfn, a_roll, d_roll, pen_a=0, pen_d=0, tok_a=False, tok_d=False):
    """(kind, damage, attacker spent luck, defender spent luck) of one attack with the rolls given."""
    attack_total = att["attack_skill"] + a_roll - pen_a
    margin = attack_total - (dfn["defense_skill"] + dfn["shield"] + counted(d_roll, rules["clamp"]) - pen_d)
    spent_a = spent_d = False
    for _ in range(2):
        if tok_a and not spent_a and -3 <= margin <= -1:
            margin, spent_a = margin + 3, True
        if tok_d and not spent_d and 1 <= margin <= 3:
            margin, spent_d = margin - 3, True
    offense = att["strength"] * att["muscle_powered"] + att["scale"] + att["weapon"]
    defense = dfn["health"] + dfn["scale"] + dfn["armor"]
    if margin < 0:
        return "miss", 0, spent_a, spent_d
    if margin == 0:
        cap = 1 + max(0, att["scale"] - dfn["scale"])
        return "graze", cap if rules["graze_fixed"] else max(0, min(cap, offense - defense)), spent_a, spent_d
    dmg = margin + offense - defense
    if att["weapon_type_bonus"] and (rules["bonus_always"] or dmg > 0):
        dmg += att["weapon_type_bonus"]
    return "hit", max(dmg, 0), spent_a, spent_d


def fighter(**kw):
    base = dict(attack_skill=0, defense_skill=0, strength=0, health=0, scale=0, weapon=0, weapon_type_bonus=0,
                muscle_powered=True, armor=0, shield=0, agility=0)
    return {**base, **kw}


def lab_rules(rules):
    return kurs.Rules(dk_faces=rules["faces"], defense_clamp=rules["clamp"], luck_tokens=rules["luck"],
                      wound_penalty=rules["penalty"], fatigue_soak=rules["soak"],
                      type_bonus="always" if rules["bonus_always"] else "penetrating",
                      graze="fixed" if rules["graze_fixed"] else "capped")


def wound_penalty(rules, marked):
    per_box = [(LOCAL if rules["penalty"] == "local" else GENERAL)[lvl] for lvl in GENERAL for _ in range(marked.get(lvl, 0))]
    return max(per_box, default=0) if rules["penalty"] == "worst" else sum(per_box)


def duel_brute(rules, a, b):
    """(P(A wins), P(B wins), P(A dead), P(B dead), E[rounds]): alternating attacks, by recursion.

    A state is (marked boxes as a sorted tuple of pairs, luck tokens left) or "out"/"dead".
    Floats; the logic is independent of the lab's.
    """
    pmf = three_dk(rules["faces"])
    win = lose = 0.0
    for x, px in pmf.items():
        for y, py in pmf.items():
            win += px * py * (x + a["agility"] > y + b["agility"])
            lose += px * py * (x + a["agility"] < y + b["agility"])
    p_a_first = win / (win + lose)

    @lru_cache(maxsize=None)
    def outcomes(att_is_a, pen_a, tok_a, pen_d, tok_d):
        att, dfn = (a, b) if att_is_a else (b, a)
        acc = {}
        for ar, pa in pmf.items():
            for dr, pd in pmf.items():
                _, dmg, sa, sd = attack_outcome(rules, att, dfn, ar, dr, pen_a, pen_d, tok_a, tok_d)
                acc[(dmg, sa, sd)] = acc.get((dmg, sa, sd), 0) + pa * pd
        return list(acc.items())

    def after(state, dmg, spent):
        new, _, _ = take(dict(state[0]), dmg, rules["soak"])
        if new.get("dying"):
            return "dead"
        if new.get("incapacitated"):
            return "out"
        return tuple(sorted((k, v) for k, v in new.items() if v)), state[1] - spent

    def attack(sa, sb, att_is_a, first):
        """(P(nothing changes), sum over the changes of p * the value after them, the other to attack)."""
        me, them = (sa, sb) if att_is_a else (sb, sa)
        stay, acc = 0.0, [0.0] * 5
        for (dmg, spent_a, spent_d), p in outcomes(att_is_a, wound_penalty(rules, dict(me[0])), me[1] > 0,
                                                   wound_penalty(rules, dict(them[0])), them[1] > 0):
            me2, them2 = (me[0], me[1] - spent_a), after(them, dmg, spent_d)
            nxt = (me2, them2) if att_is_a else (them2, me2)
            if nxt == (sa, sb):
                stay += p
                continue
            v = value(*nxt, first)[1 if att_is_a else 0]
            acc = [x + p * y for x, y in zip(acc, v)]
        return stay, acc

    @lru_cache(maxsize=None)
    def value(sa, sb, first):
        """(value with A to attack, value with B to attack); a round starts with ``first``'s attack."""
        if isinstance(sa, str) or isinstance(sb, str):
            end = (float(isinstance(sb, str)), float(isinstance(sa, str)), float(sa == "dead"), float(sb == "dead"), 0.0)
            return end, end
        stay_a, r_a = attack(sa, sb, True, first)
        stay_b, r_b = attack(sa, sb, False, first)
        inc_a, inc_b = [0, 0, 0, 0, float(first == "a")], [0, 0, 0, 0, float(first == "b")]
        x = [(ia + ra + stay_a * (ib + rb)) / (1 - stay_a * stay_b) for ia, ra, ib, rb in zip(inc_a, r_a, inc_b, r_b)]
        y = [ib + rb + stay_b * xv for ib, rb, xv in zip(inc_b, r_b, x)]
        return tuple(x), tuple(y)

    start = ((), rules["luck"])
    a_first, b_first = value(start, start, "a")[0], value(start, start, "b")[1]
    return tuple(p_a_first * x + (1 - p_a_first) * y for x, y in zip(a_first, b_first))


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
    for key in ("attack_total", "defense_total", "success", "offense", "defense_factors", "type_bonus_applied",
                "soaked_by_fatigue", "steps", "rolls"):
        assert key in data


def test_resolve_text_prints_every_step(capsys):
    assert main(["resolve", "kurs", "--a", "maximus", "--b", "tiberius", "--rolls", "attack=1,defense=-2"]) == 0
    out = capsys.readouterr().out
    for words in ("= 5", "clamped from -2", "success 1", "type bonus +2", "light", "hit=true, damage=4, marked=light"):
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


@pytest.mark.parametrize("rules,damage", [(dict(graze="fixed"), 1), (dict(), 0)])
def test_graze_readings(rules, damage):
    weak, tough = kurs.Fighter(attack_skill=2), kurs.Fighter(defense_skill=2, armor=3)
    assert kurs.resolve(kurs.Rules(**rules), weak, tough, {"attack": 0, "defense": 0}).damage == damage


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
])
def test_box_track(rules, before, damage, after, level, soaked):
    got = kurs.mark(kurs.Rules(**rules), marked_tuple(**before), damage)
    assert got == (marked_tuple(**after), None if level is None else ORDER.index(level), soaked)
    brute = take(before, damage, rules.get("fatigue_soak", "when_lower"))
    nonzero = {k: v for k, v in brute[0].items() if v}
    assert (nonzero, brute[1], brute[2]) == ({k: v for k, v in after.items() if v}, level, soaked)


@pytest.mark.parametrize("wound_penalty,expected", [("sum", 0 + 1 + 2), ("worst", 2), ("local", 1 + 1 + 2 + 3)])
def test_wound_penalties(wound_penalty, expected):
    assert kurs.penalty(kurs.Rules(wound_penalty=wound_penalty), (3, 2, 1, 1)) == expected


def test_track_statuses():
    t = kurs.track(kurs.Rules(luck_tokens=2))
    assert len(t) == 5 * 3 * 2 * 2 * 3 + 2
    assert t.status[t.index["incapacitated"]] == 1 and t.status[t.index["dying"]] == 2


# ------------------------------------------------------------------------- exchanges
@pytest.mark.parametrize("rules,a_name,b_name", [
    (RULES, "maximus", "tiberius"),
    ({**RULES, "clamp": False, "bonus_always": True}, "veteran", "master"),
    ({**RULES, "faces": FACES["d5"], "graze_fixed": True, "luck": 1}, "trained_armed", "novice"),
])
def test_exchange_matches_enumeration(rules, a_name, b_name):
    att, dfn = load_fighter(SYSTEM, a_name), load_fighter(SYSTEM, b_name)
    res = kurs.exchange(lab_rules(rules), att, dfn)
    kinds, damage, after = {}, {}, {}
    n = len(rules["faces"]) ** 6
    for dice in itertools.product(rules["faces"], repeat=6):
        kind, dmg, _, _ = attack_outcome(rules, att.to_dict(), dfn.to_dict(), sum(dice[:3]), sum(dice[3:]),
                                         tok_a=rules["luck"] > 0, tok_d=rules["luck"] > 0)
        kinds[kind] = kinds.get(kind, 0) + 1 / n
        damage[dmg] = damage.get(dmg, 0) + 1 / n
        marked, _, _ = take({}, dmg, rules["soak"])
        name = ("dying" if marked.get("dying") else "incapacitated" if marked.get("incapacitated")
                else ", ".join(f"{k} {v}" for k, v in marked.items() if v) or "unhurt")
        after[name] = after.get(name, 0) + 1 / n
    assert res.p_miss == pytest.approx(kinds.get("miss", 0), abs=1e-12)
    assert res.p_graze == pytest.approx(kinds.get("graze", 0), abs=1e-12)
    assert res.p_hit == pytest.approx(kinds.get("hit", 0), abs=1e-12)
    assert res.p_defended == 0 and res.p_critical == 0
    for d, p in damage.items():
        assert res.damage.pmf(d) == pytest.approx(p, abs=1e-12)
    assert set(res.condition_after) == set(after)
    for name, p in after.items():
        assert res.condition_after[name] == pytest.approx(p, abs=1e-12)


# ---------------------------------------------------------------------------- duels
SMALL = [
    (RULES, fighter(attack_skill=1, weapon=2, strength=1), fighter(defense_skill=1, health=1, armor=1, agility=1)),
    ({**RULES, "faces": FACES["fudge"], "luck": 1},
     fighter(attack_skill=1, weapon=3), fighter(weapon=2, weapon_type_bonus=2, armor=1)),
    ({**RULES, "penalty": "local", "soak": "never", "clamp": False},
     fighter(weapon=4, agility=2), fighter(attack_skill=2, weapon=1, shield=1)),
    ({**RULES, "faces": FACES["d5"], "penalty": "worst", "graze_fixed": True, "bonus_always": True},
     fighter(scale=1, weapon=1, weapon_type_bonus=1), fighter(attack_skill=1, health=2, weapon=3)),
]


@pytest.mark.parametrize("rules,a_kw,b_kw", SMALL)
def test_small_duels_match_brute_force_recursion(rules, a_kw, b_kw):
    res = kurs.duel(lab_rules(rules), kurs.Fighter(**a_kw), kurs.Fighter(**b_kw)).solution
    wa, wb, da, db, rounds = duel_brute(rules, a_kw, b_kw)
    assert res.p_a_wins == pytest.approx(wa, abs=1e-10)
    assert res.p_b_wins == pytest.approx(wb, abs=1e-10)
    assert res.p_a_dying == pytest.approx(da, abs=1e-10)
    assert res.p_b_dying == pytest.approx(db, abs=1e-10)
    assert res.mean_rounds == pytest.approx(rounds, rel=1e-9)
    assert res.p_both_out == 0  # alternating attacks: the fight stops at the first fighter out
    assert sum(res.rounds.values()) + res.rounds_tail == pytest.approx(1, abs=1e-9)


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


def test_fighters_who_cannot_hurt_each_other_stalemate():
    pacifist = kurs.Fighter(health=8)  # the best success is 6 - (-1) = 7 < 8
    res = kurs.duel(kurs.Rules(), pacifist, pacifist).solution
    assert res.p_stalemate == pytest.approx(1) and res.p_a_wins == 0 and res.p_b_wins == 0


@pytest.mark.parametrize("variant", [dict(luck_tokens=1), dict(wound_penalty="local"), dict(fatigue_soak="never"),
                                     dict(type_bonus="always"), dict(graze="fixed"), dict(defense_clamp=False),
                                     dict(dk_faces=FACES["fudge"])])
def test_every_variant_duels(variant):
    res = kurs.duel(kurs.Rules(**variant), load_fighter(SYSTEM, "maximus"), load_fighter(SYSTEM, "tiberius")).solution
    assert res.p_a_wins + res.p_b_wins + res.p_stalemate == pytest.approx(1, abs=1e-9)


def test_roll_off_ignores_ties():
    rules = kurs.Rules()
    pmf = three_dk(FACES["default"])
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
    for key in ("p_miss", "p_graze", "p_hit", "damage", "mean_damage", "condition_after", "variants", "notes"):
        assert key in data
    assert data["p_miss"] + data["p_graze"] + data["p_hit"] == pytest.approx(1, abs=1e-12)
    assert data["attacker"]["derived"] == {"offense": 5, "defense": 1}


def test_duel_cli_contract(capsys):
    code = main(["duel", "kurs", "--a", "maximus", "--b", "tiberius", "--json", "--variant", "luck_tokens=1"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["variants"]["luck_tokens"] == 1
    for key in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dead", "p_b_dead", "p_stalemate", "rounds", "mean_rounds",
                "states", "order"):
        assert key in data
    assert "roll-off" in data["order"] and "luck" in data["order"] and "-1 on extra defenses" in data["order"]
    assert abs(data["p_a_wins"] + data["p_b_wins"] + data["p_both_out"] + data["p_stalemate"] - 1) < 1e-9


@pytest.mark.parametrize("argv,words", [
    (["duel", "kurs", "--a", "attack_skill=50", "--b", "novice"], ["attack_skill", "50", "-5..15"]),
    (["duel", "kurs", "--a", "atack_skill=2", "--b", "novice"], ["atack_skill", "attack_skill"]),
    (["duel", "kurs", "--a", "muscle_powered=maybe", "--b", "novice"], ["muscle_powered", "true or false"]),
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
