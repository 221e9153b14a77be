"""Tri-Stat combat: exchanges and duels against an independent brute-force recursion written from RULES.md
section 1 (blocks and their objects, total defence, finishing, the book's numbers as house rules)."""

from __future__ import annotations

import json
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.base.params import DicelabError, ParamError
from analysis.fights.fighters import archetypes, load_fighter
from analysis.front.cli import main
from analysis.systems import get_system, tristat
from tests.brute import enumerate_dice

SYSTEM = get_system("tristat")
PCT_BOUNDS = {4: (2, 4, 7), 6: (3, 6, 10), 8: (4, 8, 13), 10: (5, 10, 16), 12: (6, 12, 19), 20: (10, 20, 32)}
BOOK = dict(crit=2, percents=(100, 75, 50, 25), bounds=None, per_point=5, offset=2, dying=100, block=2, breaks=5,
            total=2, rule="absorb", cap=10, finish=0)
"""The book's numbers of RULES.md section 1, restated; ``finish`` = attacks after out (0: after_out = stop)."""


# ----------------------------------------------------- independent brute force
def rolls(die):
    return [(a + b, float(p)) for (a, b), p in enumerate_dice(range(1, die + 1), 2)]


def ok(total, target, die):
    return total == 2 or (total <= target and total != 2 * die)


def percent(die, g, c):
    bounds = c["bounds"] or PCT_BOUNDS[die]
    for pct, top in zip(c["percents"], bounds):
        if g <= top:
            return pct
    return c["percents"][-1]


def raw(die, att, g, c):
    """Damage before armour: a percentage of the weapon's max (critical: crit x 100%), then + acv."""
    pct = 100 * c["crit"] if g is None else percent(die, g, c)
    return att["weapon"] * pct // 100 + att["acv"]


def attack_brute(die, att, dfn, mode, c):
    """One attack as [(p, damage reaching dfn, object destroyed)]; mode: helpless | plain | block."""
    out = []
    for a_total, pa in rolls(die):
        if a_total == 2:
            out.append((pa, max(0, raw(die, att, None, c) - dfn["armor"]), False))
            continue
        if not ok(a_total, att["acv"] + att["skill"], die):
            out.append((pa, 0, False))
            continue
        defenses = [(None, 1.0)] if mode == "helpless" else rolls(die)
        for d_total, pd in defenses:
            target = dfn["dcv"] + dfn["dskill"] + c["total"] * dfn["total"] + (c["block"] if mode == "block" else 0)
            stopped = d_total is not None and ok(d_total, target, die)
            if stopped and not (mode == "block" and c["rule"] == "absorb"):
                out.append((pa * pd, 0, False))
                continue
            for g, pg in rolls(die):
                r = raw(die, att, g, c)
                if stopped:
                    out.append((pa * pd * pg, max(0, r - dfn["block_armor"] - dfn["armor"]),
                                r >= c["breaks"] * dfn["block_armor"]))
                else:
                    out.append((pa * pd * pg, max(0, r - dfn["armor"]), False))
    return out


def mode_of(att, dfn, intact, c):
    can = dfn["block"] and (att["range"] == "melee" or dfn["block_ranged"])
    return "block" if can and (intact or c["rule"] == "negate") else "plain"


def status(taken, f):
    if taken >= f["dying_at"]:
        return "dying"
    return "out" if taken > f["health"] else "up"


def finishing(die, att, victim, c):
    """(P(dying), E[attacks]) of the helpless victim from damage taken t with k attacks left."""
    hits = [(p, d, False) for d, p in by_damage(attack_brute(die, att, victim, "helpless", c)).items()]

    @lru_cache(maxsize=None)
    def fin(t, k):
        if t >= victim["dying_at"] or k == 0:
            return float(t >= victim["dying_at"]), 0.0
        p_dying, attacks = 0.0, 1.0
        for p, d, _ in hits:
            pd_, ad = fin(t + d, k - 1)
            p_dying += p * pd_
            attacks += p * ad
        return p_dying, attacks

    return fin


def duel_brute(die, a, b, c=BOOK):
    """(P(A wins), P(B wins), P(both out), P(A dying), P(B dying), E[rounds], E[finishing attacks | one out]) by
    recursion over (taken_a, taken_b, A's object intact, B's object intact).

    Floats (exact fractions grow without bound through the self-loop divisions); the logic is independent.
    """
    init = {}
    for (ia, pa) in rolls(die):
        for (ib, pb) in rolls(die):
            key = "a" if ia + a["acv"] > ib + b["acv"] else "b" if ia + a["acv"] < ib + b["acv"] else "sim"
            init[key] = init.get(key, 0) + pa * pb
    fin_b, fin_a = finishing(die, a, b, c), finishing(die, b, a, c)

    @lru_cache(maxsize=None)
    def outcomes(att, intact):
        pair = (a, b) if att == "a" else (b, a)
        merged = {}
        for p, d, k in attack_brute(die, *pair, mode_of(*pair, intact, c), c):
            merged[d, k] = merged.get((d, k), 0.0) + p
        return [(p, d, k) for (d, k), p in merged.items()]

    def attack(att, dfn, intact):
        return outcomes("a" if att is a else "b", intact)

    def round_from(ta, tb, oa, ob):
        nxt = {}

        def add(state, p):
            nxt[state] = nxt.get(state, 0) + p

        for order, po in init.items():
            if order == "sim":
                for p1, d1, k1 in attack(a, b, ob):
                    for p2, d2, k2 in attack(b, a, oa):
                        add((ta + d2, tb + d1, oa and not k2, ob and not k1), po * p1 * p2)
                continue
            if order == "a":
                for p1, d1, k1 in attack(a, b, ob):
                    if status(tb + d1, b) != "up":
                        add((ta, tb + d1, oa, ob and not k1), po * p1)
                        continue
                    for p2, d2, k2 in attack(b, a, oa):
                        add((ta + d2, tb + d1, oa and not k2, ob and not k1), po * p1 * p2)
            else:
                for p1, d1, k1 in attack(b, a, oa):
                    if status(ta + d1, a) != "up":
                        add((ta + d1, tb, oa and not k1, ob), po * p1)
                        continue
                    for p2, d2, k2 in attack(a, b, ob):
                        add((ta + d1, tb + d2, oa and not k1, ob and not k2), po * p1 * p2)
        return nxt

    @lru_cache(maxsize=None)
    def value(ta, tb, oa, ob):
        sa, sb = status(ta, a), status(tb, b)
        if sa != "up" or sb != "up":
            da, db, fa = float(sa == "dying"), float(sb == "dying"), 0.0
            if c["finish"] and sa == "up":
                db, fa = fin_b(tb, c["finish"])
            elif c["finish"] and sb == "up":
                da, fa = fin_a(ta, c["finish"])
            return float(sa == "up"), float(sb == "up"), float(sa != "up" and sb != "up"), da, db, 0.0, fa
        nxt = round_from(ta, tb, oa, ob)
        stay = nxt.pop((ta, tb, oa, ob), 0)
        acc = [0.0] * 7
        for state, p in nxt.items():
            v = value(*state)
            for k in range(7):
                acc[k] += p * v[k]
        acc[5] += 1  # this round
        return tuple(x / (1 - stay) for x in acc)

    wa, wb, both, da, db, rounds, fa = value(0, 0, True, True)
    return wa, wb, both, da, db, rounds, fa / (wa + wb) if wa + wb else 0.0


def hold_brute(die, att, dfn, c=BOOK):
    """Against total defence: (P(dfn out), P(dfn dying), P(still up after the cap), E[rounds | out],
    E[finishing attacks | out]) by recursion over (taken, object intact, rounds left)."""
    fin = finishing(die, att, dfn, c)

    @lru_cache(maxsize=None)
    def merged(intact):
        out = {}
        for p, d, k in attack_brute(die, att, dfn, mode_of(att, dfn, intact, c), c):
            out[d, k] = out.get((d, k), 0.0) + p
        return out

    @lru_cache(maxsize=None)
    def value(t, intact, left):
        s = status(t, dfn)
        if s != "up":
            dying, attacks = fin(t, c["finish"]) if c["finish"] else (float(s == "dying"), 0.0)
            return 1.0, dying, 0.0, 0.0, attacks
        if left == 0:
            return 0.0, 0.0, 1.0, 0.0, 0.0
        acc = [0.0] * 5
        for (d, k), p in merged(intact).items():
            v = value(t + d, intact and not k, left - 1)
            acc = [x + p * y for x, y in zip(acc, v)]
            acc[3] += p * v[0]  # this round, for the fights that end
        return tuple(acc)

    out, dying, up, rounds, attacks = value(0, True, c["cap"])
    return out, dying, up, rounds / out, attacks / out


def stat_block(f, c=BOOK):
    """A fighter's numbers from RULES.md: acv = floor((body+mind+soul)/3), dcv = acv - 2, health = (body+soul) x 5,
    dying at Health <= -max."""
    acv = f.acv if f.acv is not None else (f.body + f.mind + f.soul) // 3
    health = f.health if f.health is not None else (f.body + f.soul) * c["per_point"]
    return {"acv": acv, "dcv": f.dcv if f.dcv is not None else acv - c["offset"], "health": health,
            "dying_at": health + -(-health * c["dying"] // 100),
            "skill": f.attack_bonus, "dskill": f.defense_bonus, "weapon": f.weapon_damage, "armor": f.armor,
            "block": f.block, "block_armor": f.block_armor, "block_ranged": f.block_ranged, "range": f.weapon_range,
            "total": f.stance == "total_defence"}


def by_damage(outcomes):
    dmg = {}
    for p, d, _ in outcomes:
        dmg[d] = dmg.get(d, 0) + p
    return dmg


# -------------------------------------------------------------------- exchanges
def test_exchange_matches_enumeration():
    rules = tristat.Rules()
    att, dfn = load_fighter(SYSTEM, "veteran"), load_fighter(SYSTEM, "trained")
    res = tristat.exchange(rules, att, dfn)
    brute = attack_brute(6, stat_block(att), stat_block(dfn), "plain", BOOK)
    p_miss = sum(p for a, p in rolls(6) if a != 2 and not ok(a, 5 + 2, 6))  # acv 5 + skill 2
    assert res.p_miss == pytest.approx(p_miss, abs=1e-12)
    assert res.p_critical == pytest.approx(1 / 36, abs=1e-12)
    assert res.p_hit + res.p_defended + res.p_miss == pytest.approx(1, abs=1e-12)
    for d, p in by_damage(brute).items():
        assert res.damage.pmf(d) == pytest.approx(p, abs=1e-12)


EXCHANGES = [
    ("absorb", dict(block=True, block_armor=4), {}, {}),
    ("negate", dict(block=True, block_armor=4), {}, {}),
    ("ranged, no technique", dict(block=True, block_armor=4), dict(weapon_range="ranged"), {}),
    ("ranged, technique", dict(block=True, block_armor=4, block_ranged=True), dict(weapon_range="ranged"), {}),
    ("total defence", dict(stance="total_defence"), {}, {}),
    ("total defence and block", dict(stance="total_defence", block=True, block_armor=2, armor=1), {}, {}),
    ("house: bonuses", dict(block=True, block_armor=3), {}, dict(block_bonus=5, block_break_multiple=2)),
    ("house: critical x3, flat table", {}, {}, dict(critical_multiplier=3, damage_percents=(100, 50), damage_bands=(7,))),
]


@pytest.mark.parametrize("label,dfn_kw,att_kw,house", EXCHANGES, ids=[e[0] for e in EXCHANGES])
def test_exchange_with_blocks_and_stances_matches_enumeration(label, dfn_kw, att_kw, house):
    rule = "negate" if label == "negate" else "absorb"
    rules = tristat.Rules(block_rule=rule, **house)
    c = dict(BOOK, rule=rule, block=house.get("block_bonus", 2), breaks=house.get("block_break_multiple", 5),
             crit=house.get("critical_multiplier", 2), percents=house.get("damage_percents", BOOK["percents"]),
             bounds=house.get("damage_bands"))
    att = load_fighter(SYSTEM, "trained_armed").replace(**att_kw)
    dfn = load_fighter(SYSTEM, "veteran").replace(**dfn_kw)
    res = tristat.exchange(rules, att, dfn)
    a, d = stat_block(att), stat_block(dfn)
    brute = attack_brute(6, a, d, mode_of(a, d, True, c), c)
    for dmg, p in by_damage(brute).items():
        assert res.damage.pmf(dmg) == pytest.approx(p, abs=1e-12), (label, dmg)
    assert res.to_dict()["p_object_breaks"] == pytest.approx(sum(p for p, _, k in brute if k), abs=1e-12)


def test_a_block_gives_the_bonus_and_absorbs_only_on_melee():
    rules = tristat.Rules()
    att = load_fighter(SYSTEM, "trained_armed")
    plain = load_fighter(SYSTEM, "veteran")
    blocker = plain.replace(block=True, block_armor=100)
    dodge, block = tristat.exchange(rules, att, plain), tristat.exchange(rules, att, blocker)
    # an unbreakable object of armour 100 takes the whole hit: only failed blocks and criticals get through
    assert block.p_defended == 0 and block.to_dict()["p_blocked"] > dodge.p_defended
    assert block.damage.pmf(0) == pytest.approx(block.p_miss + block.to_dict()["p_blocked"], abs=1e-12)
    ranged = tristat.exchange(rules, att.replace(weapon_range="ranged"), blocker)
    assert ranged.to_dict()["p_blocked"] == 0 and ranged.p_defended == pytest.approx(dodge.p_defended, abs=1e-15)


def test_critical_skips_the_block():
    rules = tristat.Rules()
    res = tristat.resolve(rules, load_fighter(SYSTEM, "veteran"), load_fighter(SYSTEM, "trained").replace(
        block=True, block_armor=9), {"attack": 2})
    assert res.hit and res.damage == 2 * 10 + 5 and res.to_dict()["blocked"] is False


def test_resolve_walks_a_block_that_breaks_the_object():
    rules = tristat.Rules()
    dfn = load_fighter(SYSTEM, "trained").replace(block=True, block_armor=2, armor=1)
    res = tristat.resolve(rules, load_fighter(SYSTEM, "veteran"), dfn, {"attack": 5, "defense": 7, "damage": 4})
    # defense 7 <= dcv 3 + skill 1 + block 2 = 6? no: the block fails, full damage 10 * 75% + 5 = 12, armor 1
    assert res.damage == 11 and res.to_dict()["blocked"] is False
    res = tristat.resolve(rules, load_fighter(SYSTEM, "veteran"), dfn, {"attack": 5, "defense": 6, "damage": 4})
    data = res.to_dict()
    assert data["blocked"] and data["object_breaks"] and res.damage == 12 - 2 - 1
    assert any("destroyed" in step for step in data["steps"])


def test_unarmed_damage_is_acv_in_both_readings_critical_included():
    for acv_in_max in (False, True):
        for critical_acv in ("once", "literal"):
            rules = tristat.Rules(acv_in_max=acv_in_max, critical_acv=critical_acv)
            novice = load_fighter(SYSTEM, "novice")
            hit = tristat.resolve(rules, novice, novice, {"attack": 4, "defense": 11, "damage": 12})
            crit = tristat.resolve(rules, novice, novice, {"attack": 2})
            assert hit.damage == 4 and crit.damage == 4


def test_critical_readings_under_acv_in_max():
    vet = load_fighter(SYSTEM, "veteran")  # weapon 10, acv 5
    once = tristat.resolve(tristat.Rules(acv_in_max=True), vet, load_fighter(SYSTEM, "novice"), {"attack": 2})
    literal = tristat.resolve(tristat.Rules(acv_in_max=True, critical_acv="literal"), vet,
                              load_fighter(SYSTEM, "novice"), {"attack": 2})
    normal = tristat.resolve(tristat.Rules(acv_in_max=True), vet, load_fighter(SYSTEM, "novice"),
                             {"attack": 5, "defense": 11, "damage": 2})
    assert once.damage == 2 * 10 + 5 and literal.damage == 2 * (10 + 5) + 5 and normal.damage == 10 + 5


def test_total_defence_never_attacks():
    turtle = load_fighter(SYSTEM, "veteran").replace(stance="total_defence")
    with pytest.raises(ParamError, match="stance"):
        tristat.exchange(tristat.Rules(), turtle, load_fighter(SYSTEM, "trained"))
    with pytest.raises(DicelabError, match="at most one"):
        tristat.duel(tristat.Rules(), turtle, turtle)


# -------------------------------------------------------------------- duels
def warn(**kw):
    return tristat.Rules(stat_limits="warn", **kw)


SMALL = [
    (6, dict(body=2, mind=2, soul=2, health=6, weapon_damage=4), dict(body=3, mind=2, soul=2, health=5)),
    (4, dict(body=3, mind=3, soul=3, health=7, weapon_damage=3, armor=1), dict(body=2, mind=3, soul=2, health=8, attack_bonus=1)),
    (8, dict(body=2, mind=2, soul=2, health=5), dict(body=2, mind=2, soul=2, health=5)),
]


@pytest.mark.parametrize("die,a_kw,b_kw", SMALL)
def test_small_duels_match_brute_force_recursion(die, a_kw, b_kw):
    rules = warn(die=die)
    a, b = tristat.Fighter(**a_kw), tristat.Fighter(**b_kw)
    res = tristat.duel(rules, a, b).solution
    wa, wb, both, da, db, rounds, _ = duel_brute(die, stat_block(a), stat_block(b))
    assert res.p_a_wins == pytest.approx(wa, abs=1e-10)
    assert res.p_b_wins == pytest.approx(wb, abs=1e-10)
    assert res.p_both_out == pytest.approx(both, abs=1e-10)
    assert res.p_a_dying == pytest.approx(da, abs=1e-10)
    assert res.p_b_dying == pytest.approx(db, abs=1e-10)
    assert res.mean_rounds == pytest.approx(rounds, rel=1e-9)
    assert res.p_a_wins + res.p_b_wins + res.p_both_out == pytest.approx(1, abs=1e-12)
    assert sum(res.rounds.values()) + res.rounds_tail == pytest.approx(1, abs=1e-9)


BLOCK_DUELS = [
    ("absorb, objects break", {}, dict(weapon_damage=6), dict(block=True, block_armor=1, weapon_damage=3)),
    ("absorb, both block", {}, dict(block=True, block_armor=1, weapon_damage=5),
     dict(block=True, block_armor=1, weapon_damage=4, armor=1)),
    ("negate", dict(block_rule="negate"), dict(weapon_damage=6), dict(block=True, block_armor=1, weapon_damage=3)),
    ("ranged against a blocker", {}, dict(weapon_damage=6, weapon_range="ranged"), dict(block=True, block_armor=3)),
    ("house: block bonus 4, breaks at 2x", dict(block_bonus=4, block_break_multiple=2), dict(weapon_damage=6),
     dict(block=True, block_armor=2, weapon_damage=3)),
]


@pytest.mark.parametrize("label,rules_kw,a_kw,b_kw", BLOCK_DUELS, ids=[d[0] for d in BLOCK_DUELS])
@pytest.mark.parametrize("finish", [0, 3])
def test_block_duels_match_brute_force_recursion(label, rules_kw, a_kw, b_kw, finish):
    """Small fighters (health 10-12) with blocks whose objects break, with and without finishing."""
    base = dict(body=3, mind=3, soul=3, attack_bonus=3, defense_bonus=2)
    rules = tristat.Rules(after_out="finish" if finish else "stop", finish_attacks=max(finish, 1), **rules_kw)
    a, b = tristat.Fighter(**base, **a_kw, health=12), tristat.Fighter(**base, **b_kw, health=10)
    c = dict(BOOK, rule=rules.block_rule, block=rules.block_bonus, breaks=rules.block_break_multiple, finish=finish)
    res = tristat.duel(rules, a, b)
    sol = res.solution
    wa, wb, both, da, db, rounds, fa = duel_brute(6, stat_block(a, c), stat_block(b, c), c)
    assert sol.p_a_wins == pytest.approx(wa, abs=1e-10)
    assert sol.p_b_wins == pytest.approx(wb, abs=1e-10)
    assert sol.p_both_out == pytest.approx(both, abs=1e-10)
    assert sol.p_a_dying == pytest.approx(da, abs=1e-10)
    assert sol.p_b_dying == pytest.approx(db, abs=1e-10)
    assert sol.mean_rounds == pytest.approx(rounds, rel=1e-9)
    if finish:
        assert sol.finish_attacks == pytest.approx(fa, abs=1e-10)
        assert res.to_dict()["p_b_killed"] == pytest.approx(db, abs=1e-10)


HOLDS = [
    ("plain", {}, {}, 0),
    ("block", {}, dict(block=True, block_armor=2), 0),
    ("finish, house dying at -50%", dict(dying_percent=50, total_defence_rounds=6), {}, 4),
    ("house: total defence +4, cap 3", dict(total_defence_bonus=4, total_defence_rounds=3), dict(block=True), 0),
]


@pytest.mark.parametrize("label,rules_kw,dfn_kw,finish", HOLDS, ids=[h[0] for h in HOLDS])
def test_total_defence_matches_brute_force_recursion(label, rules_kw, dfn_kw, finish):
    rules = tristat.Rules(after_out="finish" if finish else "stop", finish_attacks=max(finish, 1), **rules_kw)
    att = tristat.Fighter(body=3, mind=3, soul=3, weapon_damage=5, attack_bonus=3)
    dfn = tristat.Fighter(body=2, mind=3, soul=3, defense_bonus=3, health=14, stance="total_defence", **dfn_kw)
    c = dict(BOOK, total=rules.total_defence_bonus, cap=rules.total_defence_rounds, dying=rules.dying_percent,
             finish=finish)
    data = tristat.duel(rules, dfn, att).to_dict()
    out, dying, up, rounds, attacks = hold_brute(6, stat_block(att, c), stat_block(dfn, c), c)
    assert data["total_defence"] == "a" and "total defence" in data["order"]
    assert data["p_still_up"] == pytest.approx(up, abs=1e-10) and data["p_stalemate"] == data["p_still_up"]
    assert data["p_a_out"] == pytest.approx(out, abs=1e-10) and data["p_b_out"] == 0
    assert data["p_a_dying"] == pytest.approx(dying, abs=1e-10)
    assert data["mean_rounds"] == pytest.approx(rounds, rel=1e-9)
    assert data["p_a_out"] + data["p_still_up"] == pytest.approx(1, abs=1e-12)
    if finish:
        assert data["mean_finish_attacks"] == pytest.approx(attacks, abs=1e-10)


def test_house_rules_change_the_duel_as_the_brute_force_says():
    """Changed constants (health per point, dcv offset, dying line, critical, table) against the recursion."""
    house = dict(health_per_point=3, dcv_offset=1, dying_percent=50, critical_multiplier=4,
                 damage_percents=(100, 60, 20), damage_bands=(4, 8))
    rules = tristat.Rules(after_out="finish", finish_attacks=4, **house)
    a = tristat.Fighter(body=2, mind=3, soul=2, weapon_damage=6, attack_bonus=3, defense_bonus=1)
    b = tristat.Fighter(body=3, mind=2, soul=2, weapon_damage=4, attack_bonus=2, defense_bonus=2)
    c = dict(BOOK, per_point=3, offset=1, dying=50, crit=4, percents=(100, 60, 20), bounds=(4, 8), finish=4)
    res = tristat.duel(rules, a, b)
    wa, wb, both, da, db, rounds, fa = duel_brute(6, stat_block(a, c), stat_block(b, c), c)
    sol = res.solution
    assert (sol.p_a_wins, sol.p_a_dying, sol.p_b_dying) == pytest.approx((wa, da, db), abs=1e-10)
    assert sol.mean_rounds == pytest.approx(rounds, rel=1e-9) and sol.finish_attacks == pytest.approx(fa, abs=1e-10)
    assert res.to_dict()["house_rules"] == {k: list(v) if isinstance(v, tuple) else v for k, v in house.items()}


@pytest.mark.parametrize("a_name", ["novice", "trained", "veteran", "master"])
@pytest.mark.parametrize("b_name", ["novice_armed", "trained_armed", "master"])
def test_archetype_duels_are_proper_and_symmetric(a_name, b_name):
    rules = tristat.Rules()
    a, b = load_fighter(SYSTEM, a_name), load_fighter(SYSTEM, b_name)
    ab, ba = tristat.duel(rules, a, b).solution, tristat.duel(rules, b, a).solution
    assert ab.p_a_wins + ab.p_b_wins + ab.p_both_out + ab.p_stalemate == pytest.approx(1, abs=1e-12)
    assert ab.p_a_wins == pytest.approx(ba.p_b_wins, abs=1e-9)
    assert ab.p_both_out == pytest.approx(ba.p_both_out, abs=1e-9)
    assert ab.mean_rounds == pytest.approx(ba.mean_rounds, rel=1e-9)


def test_the_matched_armed_duel_kills_under_finish():
    """Issue 11: the trained_armed mirror has P(killed) > 0 under after_out = finish (0 under stop)."""
    f = load_fighter(SYSTEM, "trained_armed")
    stop = tristat.duel(tristat.Rules(), f, f).to_dict()
    done = tristat.duel(tristat.Rules(after_out="finish"), f, f).to_dict()
    assert stop["p_a_killed"] < 1e-12 and done["p_a_killed"] > 0.3
    assert done["p_a_dead"] is None and "no dead level" in done["null_reasons"]["p_a_dead"]
    assert 0 < done["mean_finish_attacks"] <= 10
    assert done["p_a_out"] == pytest.approx(stop["p_a_out"], abs=1e-12)


fighter_st = st.fixed_dictionaries({
    "body": st.integers(1, 4), "mind": st.integers(1, 4), "soul": st.integers(1, 4),
    "attack_bonus": st.integers(0, 2), "defense_bonus": st.integers(0, 2),
    "weapon_damage": st.integers(0, 8), "armor": st.integers(0, 2),
})
boost_st = st.fixed_dictionaries({k: st.integers(0, 1) for k in
                                  ("body", "mind", "soul", "attack_bonus", "defense_bonus", "weapon_damage", "armor")})


@settings(max_examples=25)
@given(fighter_st, boost_st, fighter_st)
def test_a_better_fighter_never_wins_less(base, boost, other):
    rules = tristat.Rules()
    a = tristat.Fighter(**base)
    better = tristat.Fighter(**{k: v + boost[k] for k, v in base.items()})
    b = tristat.Fighter(**other)
    plain, improved = tristat.duel(rules, a, b).solution, tristat.duel(rules, better, b).solution
    assert improved.p_a_wins >= plain.p_a_wins - 1e-9
    assert improved.p_b_wins <= plain.p_b_wins + 1e-9


@pytest.mark.parametrize("variant", [dict(initiative_once=True), dict(acv_in_max=True), dict(damage_rounding="nearest"),
                                     dict(cv_rounding="nearest"), dict(shock_rule=True), dict(die=10),
                                     dict(block_rule="negate"), dict(critical_acv="literal", acv_in_max=True),
                                     dict(shock_rule=True, after_out="finish"), dict(dice_count=3, damage_bands=(5, 9, 14))])
def test_every_variant_duels(variant):
    rules = tristat.Rules(**variant)
    b = load_fighter(SYSTEM, "trained_armed").replace(block=True, block_armor=3)
    res = tristat.duel(rules, load_fighter(SYSTEM, "veteran"), b).solution
    assert res.p_a_wins + res.p_b_wins + res.p_both_out == pytest.approx(1, abs=1e-12)
    assert sum(res.final.values()) == pytest.approx(1, abs=1e-12)


def test_initiative_once_cannot_change_a_duel_and_says_so():
    """Both fighters attack every round whatever the order; the order only decides the final round,
    and that round's order is independent of the history under both readings, so the duel is the same."""
    a = tristat.Fighter(health=10, weapon_damage=4, block=True, block_armor=1)
    b = tristat.Fighter(health=10, weapon_damage=4, body=6, mind=6)
    every = tristat.duel(tristat.Rules(), a, b)
    once = tristat.duel(tristat.Rules(initiative_once=True), a, b)
    assert a.stats(tristat.Rules())[0] != b.stats(tristat.Rules())[0]
    for key in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dying", "mean_rounds"):
        assert getattr(once.solution, key) == pytest.approx(getattr(every.solution, key), abs=1e-12)
    assert "inert one-on-one" in once.order


@pytest.mark.parametrize("a_kw,b_kw,rules_kw", [
    ({}, {}, {}),
    (dict(block=True, block_armor=2), dict(block=True), dict(initiative_once=True)),
    ({}, dict(stance="total_defence", block=True, block_armor=1), dict(total_defence_rounds=7)),
    (dict(stance="total_defence"), {}, dict(shock_rule=True, after_out="finish")),
])
def test_duel_states_bounds_the_chain(a_kw, b_kw, rules_kw):
    rules = tristat.Rules(**rules_kw)
    a, b = load_fighter(SYSTEM, "veteran").replace(**a_kw), load_fighter(SYSTEM, "trained_armed").replace(**b_kw)
    estimate = SYSTEM.duel_states(rules, a, b)
    states = tristat.duel(rules, a, b).solution.states
    assert states <= estimate


# -------------------------------------------------------------------- stats, limits, derived values
def test_derived_values_follow_the_seed():
    """The seed's example character «Тело 4, Разум 7, Дух 5»: acv (4+7+5)/3 = 5, dcv 3, health (4+5) x 5 = 45."""
    f = tristat.Fighter(body=4, mind=7, soul=5)
    assert f.derived(tristat.Rules()) == {"acv": 5, "dcv": 3, "health": 45, "shock": 9, "dying_at": -45}
    assert tristat.Fighter(body=4, mind=4, soul=6).stats(tristat.Rules(cv_rounding="nearest"))[0] == 5
    assert tristat.Fighter(body=4, mind=4, soul=6).stats(tristat.Rules())[0] == 4
    assert f.derived(tristat.Rules(health_per_point=4, dcv_offset=1, shock_divisor=3, dying_percent=50)) == \
        {"acv": 5, "dcv": 4, "health": 36, "shock": 12, "dying_at": -18}


def test_the_seeds_example_character_breaks_the_d6_limit_only():
    """«Ни одна из статистик не может быть меньше 1 или больше чем Х»: Mind 7 is over X = 6, not over X = 8."""
    sage = tristat.Fighter(name="sage", body=4, mind=7, soul=5)
    with pytest.raises(ParamError) as err:
        tristat.duel(tristat.Rules(), sage, sage)
    text = str(err.value)
    assert "mind = 7" in text and "1..6" in text and "d6" in text and "stat_limits=warn" in text and "\n" not in text
    assert tristat.duel(tristat.Rules(die=8), sage, sage).to_dict()["warnings"] == []


@pytest.mark.parametrize("kw,name,allowed", [
    (dict(attack_bonus=4), "attack_bonus", "0..3"),
    (dict(defense_bonus=4), "defense_bonus", "0..3"),
    (dict(acv=7), "acv", "1..6"),
    (dict(health=61), "health", "10..60"),
    (dict(health=9), "health", "10..60"),
    (dict(body=7), "body", "1..6"),
    (dict(attack_specialty=True), "attack_specialty", "attack_bonus >= 1"),
])
def test_every_limit_is_enforced_where_rules_and_fighters_meet(kw, name, allowed):
    f = tristat.Fighter(**kw)
    other = tristat.Fighter()
    for call in (lambda: tristat.duel(tristat.Rules(), other, f), lambda: tristat.exchange(tristat.Rules(), other, f),
                 lambda: tristat.resolve(tristat.Rules(), other, f, {"attack": 12})):
        with pytest.raises(ParamError, match=name) as err:
            call()
        assert allowed in str(err.value)


def test_limits_follow_the_die():
    f = tristat.Fighter(body=10, mind=10, soul=10, attack_bonus=5, health=100)
    assert tristat.duel(tristat.Rules(die=10), f, f).to_dict()["warnings"] == []
    with pytest.raises(ParamError, match="1..8"):
        tristat.duel(tristat.Rules(die=8), f, f)


def test_warn_flags_every_output(capsys):
    rules = warn()
    f = tristat.Fighter(name="giant", body=9, attack_bonus=4, attack_specialty=True)
    assert len(tristat.duel(rules, f, tristat.Fighter()).to_dict()["warnings"]) == 2
    assert len(tristat.exchange(rules, f, tristat.Fighter()).to_dict()["warnings"]) == 2
    assert len(tristat.resolve(rules, tristat.Fighter(), f, {"attack": 12}).to_dict()["warnings"]) == 2
    code = main(["duel", "tristat", "--a", "body=9,mind=4,soul=4", "--b", "novice", "--variant", "stat_limits=warn"])
    out = capsys.readouterr().out
    assert code == 0 and "warning:" in out and "body = 9" in out


def test_specialisations_add_the_book_bonus():
    rules = tristat.Rules()
    att = load_fighter(SYSTEM, "veteran")
    plain = tristat.exchange(rules, att, load_fighter(SYSTEM, "trained"))
    special = tristat.exchange(rules, att.replace(attack_specialty=True), load_fighter(SYSTEM, "trained"))
    # attack target 7 -> 8: P(2d6 in 3..8) = 25/36 against 20/36 for 3..7
    assert special.p_miss == pytest.approx(plain.p_miss - 5 / 36, abs=1e-12)


def test_every_archetype_has_a_note_and_keeps_the_limits():
    assert {"novice", "trained", "veteran", "master"} <= set(archetypes("tristat"))
    for name, entry in archetypes("tristat").items():
        assert entry.get("note"), name
        assert tristat.limit_breaks(tristat.Rules(), load_fighter(SYSTEM, name)) == [], name
    assert "capped" in archetypes("tristat")["trained"]["note"]


# -------------------------------------------------------------------- house rules and their validation
def test_house_rules_file_reaches_the_duel(tmp_path, capsys):
    path = tmp_path / "house.toml"
    path.write_text("[tristat]\ncritical_multiplier = 3\nblock_bonus = 3\n")
    code = main(["duel", "tristat", "--a", "veteran", "--b", "trained", "--rules", str(path), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["house_rules"] == {"critical_multiplier": 3, "block_bonus": 3}
    assert data["variants"]["critical_multiplier"] == 3 and data["warnings"] == []


@pytest.mark.parametrize("kw,word", [
    (dict(damage_bands=(3, 6)), "damage_bands"),
    (dict(damage_bands=(6, 3, 10)), "non-decreasing"),
    (dict(damage_percents=(100, 50)), "damage_percents"),
    (dict(dice_count=3), "2dX"),
    (dict(critical_multiplier=11), "critical_multiplier"),
])
def test_bad_house_rules_name_the_constant(kw, word):
    with pytest.raises(ParamError, match=word) as err:
        tristat.Rules(**kw)
    assert "\n" not in str(err.value)


def test_every_constant_is_echoed_with_its_book_value():
    constants = {i.name: i.default for i in tristat.Rules.describe() if i.kind == "constant"}
    assert constants["critical_multiplier"] == 2 and constants["damage_percents"] == [100, 75, 50, 25]
    assert {"health_per_point", "dcv_offset", "shock_divisor", "block_bonus", "total_defence_bonus",
            "block_break_multiple", "extra_defense_penalty", "dying_percent", "damage_bands"} <= set(constants)
    policies = {i.name for i in tristat.Fighter.describe() if i.kind == "policy"}
    assert policies == {"block", "stance", "target"}


# -------------------------------------------------------------------- CLI
def test_resolve_cli_json(capsys):
    code = main(["resolve", "tristat", "--a", "veteran", "--b", "novice", "--rolls", "attack=5,defense=9,damage=6", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["hit"] is True and data["damage"] == 10 * 75 // 100 + 5 and data["marked"] == data["damage"]


def test_resolve_needs_the_rolls_it_uses(capsys):
    code = main(["resolve", "tristat", "--a", "veteran", "--b", "novice", "--rolls", "attack=5"])
    err = capsys.readouterr().err
    assert code == 2 and "defense" in err and err.count("\n") == 1


@pytest.mark.parametrize("argv,words", [
    (["duel", "tristat", "--a", "archetype=trained,mind=7", "--b", "novice"], ["mind = 7", "1..6"]),
    (["duel", "tristat", "--a", "stance=total_defence", "--b", "stance=total_defence"], ["total_defence", "at most one"]),
    (["duel", "tristat", "--a", "novice", "--b", "novice", "--variant", "damage_bands=1,2"], ["damage_bands"]),
    (["exchange", "tristat", "--a", "stance=total_defence", "--b", "novice"], ["stance", "never attacks"]),
])
def test_bad_combat_input_is_one_line(capsys, argv, words):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and all(w in err for w in words), err


def test_duel_cli_contract(capsys):
    code = main(["duel", "tristat", "--a", "veteran", "--b", "trained", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    for key in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dead", "p_b_dead", "rounds", "mean_rounds", "states",
                "warnings"):
        assert key in data
    assert abs(data["p_a_wins"] + data["p_b_wins"] + data["p_both_out"] - 1) < 1e-12


def test_total_defence_cli_reports_still_up(capsys):
    code = main(["duel", "tristat", "--a", "trained_armed", "--b", "archetype=trained_armed,stance=total_defence"])
    out = capsys.readouterr().out
    assert code == 0 and "p_still_up" in out and "total_defence_rounds = 10" in out


def test_fighter_from_files(tmp_path):
    (tmp_path / "hero.toml").write_text('archetype = "veteran"\narmor = 3\nblock = true\nblock_armor = 4\n')
    (tmp_path / "hero.json").write_text('{"body": 6, "weapon_damage": 12, "stance": "total_defence"}')
    toml_f = load_fighter(SYSTEM, str(tmp_path / "hero.toml"))
    json_f = load_fighter(SYSTEM, str(tmp_path / "hero.json"))
    assert toml_f.armor == 3 and toml_f.body == 5 and toml_f.name == "hero" and toml_f.block and toml_f.block_armor == 4
    assert json_f.body == 6 and json_f.weapon_damage == 12 and json_f.name == "hero" and json_f.stance == "total_defence"


# -------------------------------------------------------------------- setups that are almost surely a slip
@pytest.mark.parametrize("rules_kw,dfn_kw,att_kw,words", [
    # RULES.md: the object's armour absorbs and damage >= 5 x block_armor destroys it: armour 0 absorbs nothing
    # and any damage (>= 0) breaks it, while a plain dodge that succeeds stops the hit
    ({}, dict(block=True), {}, ["block = true with block_armor = 0", "breaks on the first successful block"]),
    ({}, dict(block=True, block_armor=3), dict(weapon_range="ranged"), ["never applies", "ranged weapon"]),
    ({}, dict(block_armor=3), {}, ["without block = true"]),
    ({}, dict(block_ranged=True), {}, ["without block = true"]),
])
def test_slips_are_warned_not_refused(rules_kw, dfn_kw, att_kw, words):
    rules = tristat.Rules(**rules_kw)
    att = load_fighter(SYSTEM, "trained_armed").replace(**att_kw)
    dfn = load_fighter(SYSTEM, "veteran").replace(**dfn_kw)
    outputs = [tristat.duel(rules, att, dfn).to_dict(), tristat.duel(rules, dfn, att).to_dict(),
               tristat.exchange(rules, att, dfn).to_dict(),
               tristat.resolve(rules, att, dfn, {"attack": 12}).to_dict()]
    for data in outputs:
        assert len(data["warnings"]) == 1 and all(w in data["warnings"][0] for w in words), data["warnings"]
        assert "'veteran'" in data["warnings"][0]


def test_no_slip_without_one():
    rules = tristat.Rules()
    att, dfn = load_fighter(SYSTEM, "trained_armed"), load_fighter(SYSTEM, "veteran")
    for b in (dfn, dfn.replace(block=True, block_armor=3), dfn.replace(block=True, block_armor=3, block_ranged=True)):
        assert tristat.slips(rules, att, b) == []
    archer = att.replace(weapon_range="ranged")
    assert tristat.slips(rules, archer, dfn) == tristat.slips(rules, archer, dfn.replace(block=True, block_armor=3,
                                                                                         block_ranged=True)) == []
    # a block that negates does not need the object's armour
    assert tristat.slips(tristat.Rules(block_rule="negate"), att, dfn.replace(block=True)) == []


def test_a_slip_reaches_the_cli_and_the_variants_table(capsys):
    code = main(["duel", "tristat", "--a", "trained_armed", "--b", "archetype=veteran,block=true"])
    out = capsys.readouterr().out
    assert code == 0 and "warning: tristat fighter 'veteran, block true': block = true with block_armor = 0" in out
    from analysis.tools.variants import policy_effects

    a = load_fighter(SYSTEM, "trained_armed")
    notes = {e.label: e.warnings for e in policy_effects(SYSTEM, tristat.Rules(), a, a, workers=1)}
    assert "block_armor = 0" in notes["block=true"][0] and notes["stance=total_defence"] == ()


# -------------------------------------------------------------------- a capped fight, conditional means
def test_total_defence_ends_at_the_cap_and_says_so(capsys):
    rules = tristat.Rules()
    att, turtle = load_fighter(SYSTEM, "trained_armed"), load_fighter(SYSTEM, "trained_armed").replace(
        stance="total_defence")
    data = tristat.duel(rules, att, turtle).to_dict()
    p = data["p_stalemate"]
    assert 0 < p < 1 and data["p_still_up"] == p
    assert data["never_ends"] is False and data["rounds_cap"] == 10 and data["rounds_conditional"] is True
    assert "ends at the 10-round cap" in data["order"]
    assert "never" not in data["rounds_note"] and "at the 10-round cap with nobody out" in data["rounds_note"]
    assert data["conditional_on"]["mean_rounds"] == (f"the fights where someone goes out before the 10-round cap, "
                                                     f"p = {1 - p:.6g}")
    assert max(int(r) for r in data["rounds"]) <= 10
    assert main(["duel", "tristat", "--a", "trained_armed", "--b", "archetype=trained_armed,stance=total_defence"]) == 0
    out = capsys.readouterr().out
    assert "never ends" not in out and "10-round cap" in out


def test_a_turtle_nobody_can_hurt_ends_every_fight_at_the_cap(capsys):
    rules = tristat.Rules(total_defence_rounds=3)
    att, turtle = load_fighter(SYSTEM, "novice"), load_fighter(SYSTEM, "veteran").replace(stance="total_defence",
                                                                                          armor=50)
    data = tristat.duel(rules, att, turtle).to_dict()
    assert data["p_stalemate"] == 1 and data["mean_rounds"] is None and data["never_ends"] is False
    assert data["rounds_note"] == "every fight ends at the 3-round cap with nobody out"
    assert main(["duel", "tristat", "--a", "novice", "--b", "archetype=veteran,stance=total_defence,armor=50",
                 "--variant", "total_defence_rounds=3"]) == 0
    assert "rounds: every fight ends at the 3-round cap with nobody out" in capsys.readouterr().out


def test_conditional_means_say_what_they_are_conditional_on(capsys):
    a = load_fighter(SYSTEM, "trained_armed")
    plain = tristat.duel(tristat.Rules(), a, a).to_dict()
    assert plain["conditional_on"] == {} and plain["p_stalemate"] == 0
    done = tristat.duel(tristat.Rules(after_out="finish"), a, a).to_dict()
    one_out = done["p_a_wins"] + done["p_b_wins"]
    assert 0 < one_out < 1 and done["p_both_out"] > 0   # simultaneous attacks: some fights have no finishing phase
    assert done["conditional_on"] == {
        "mean_finish_attacks": f"the fights that end with exactly one side out, p = {one_out:.6g}"}
    assert main(["duel", "tristat", "--a", "trained_armed", "--b", "trained_armed", "--variant", "after_out=finish"]) == 0
    assert f"(over the fights that end with exactly one side out, p = {one_out:.6g})" in capsys.readouterr().out
