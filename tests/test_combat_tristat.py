"""Tri-Stat combat: exchanges and duels against an independent brute-force recursion."""

from __future__ import annotations

import json
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.cli import main
from analysis.fighters import archetypes, load_fighter
from analysis.system import get_system
from analysis.systems import tristat
from tests.brute import enumerate_dice

SYSTEM = get_system("tristat")
PCT_BOUNDS = {4: (2, 4, 7), 6: (3, 6, 10), 8: (4, 8, 13), 10: (5, 10, 16), 12: (6, 12, 19), 20: (10, 20, 32)}


# ----------------------------------------------------- independent brute force
def rolls(die):
    return [(a + b, float(p)) for (a, b), p in enumerate_dice(range(1, die + 1), 2)]


def ok(total, target, die):
    return total == 2 or (total <= target and total != 2 * die)


def exchange_brute(die, att, dfn):
    """Outcomes of one attack as [(p, kind, damage)], from the stat block dicts."""
    out = []
    for a_total, pa in rolls(die):
        if a_total == 2:
            out.append((pa, "crit", max(0, 2 * att["weapon"] + att["acv"] - dfn["armor"])))
        elif not ok(a_total, att["acv"] + att["skill"], die):
            out.append((pa, "miss", 0))
        else:
            for d_total, pd in rolls(die):
                if ok(d_total, dfn["dcv"] + dfn["dskill"], die):
                    out.append((pa * pd, "defended", 0))
                    continue
                for g_total, pg in rolls(die):
                    b = PCT_BOUNDS[die]
                    pct = 100 if g_total <= b[0] else 75 if g_total <= b[1] else 50 if g_total <= b[2] else 25
                    dmg = max(0, att["weapon"] * pct // 100 + att["acv"] - dfn["armor"])
                    out.append((pa * pd * pg, "hit", dmg))
    return out


def status(taken, health):
    if taken >= 2 * health:
        return "dead"
    return "out" if taken > health else "up"


def duel_brute(die, a, b):
    """(P(A wins), P(B wins), P(both out), P(A dead), P(B dead), E[rounds]) by recursion over (taken_a, taken_b).

    Floats (exact fractions grow without bound through the self-loop divisions); the logic is independent.
    """
    on_b = exchange_brute(die, a, b)
    on_a = exchange_brute(die, b, a)
    init = {}
    for (ia, pa) in rolls(die):
        for (ib, pb) in rolls(die):
            key = "a" if ia + a["acv"] > ib + b["acv"] else "b" if ia + a["acv"] < ib + b["acv"] else "sim"
            init[key] = init.get(key, 0) + pa * pb

    def round_from(ta, tb):
        nxt = {}

        def add(state, p):
            nxt[state] = nxt.get(state, 0) + p

        for order, po in init.items():
            if order == "sim":
                for p1, _, d1 in on_b:
                    for p2, _, d2 in on_a:
                        add((ta + d2, tb + d1), po * p1 * p2)
                continue
            first, second = (on_b, on_a) if order == "a" else (on_a, on_b)
            for p1, _, d1 in first:
                s1 = (ta, tb + d1) if order == "a" else (ta + d1, tb)
                if status(s1[0], a["health"]) != "up" or status(s1[1], b["health"]) != "up":
                    add(s1, po * p1)
                    continue
                for p2, _, d2 in second:
                    add((s1[0] + d2, s1[1]) if order == "a" else (s1[0], s1[1] + d2), po * p1 * p2)
        return nxt

    @lru_cache(maxsize=None)
    def value(ta, tb):
        sa, sb = status(ta, a["health"]), status(tb, b["health"])
        if sa != "up" or sb != "up":
            return (float(sa == "up"), float(sb == "up"), float(sa != "up" and sb != "up"),
                    float(sa == "dead"), float(sb == "dead"), 0.0)
        nxt = round_from(ta, tb)
        stay = nxt.pop((ta, tb), 0)
        acc = [0.0] * 6
        for (na, nb), p in nxt.items():
            v = value(na, nb)
            for k in range(6):
                acc[k] += p * v[k]
        acc[5] += 1  # this round
        return tuple(x / (1 - stay) for x in acc)

    return value(0, 0)


def stat_block(f, rules):
    acv, dcv, health = f.stats(rules)
    return {"acv": acv, "dcv": dcv, "health": health, "skill": f.attack_bonus, "dskill": f.defense_bonus,
            "weapon": f.weapon_damage, "armor": f.armor}


# -------------------------------------------------------------------- tests
def test_exchange_matches_enumeration():
    rules = tristat.Rules()
    att, dfn = load_fighter(SYSTEM, "veteran"), load_fighter(SYSTEM, "trained")
    res = tristat.exchange(rules, att, dfn)
    brute = exchange_brute(6, stat_block(att, rules), stat_block(dfn, rules))
    by_kind = {}
    dmg = {}
    for p, kind, d in brute:
        by_kind[kind] = by_kind.get(kind, 0) + p
        dmg[d] = dmg.get(d, 0) + p
    assert res.p_miss == pytest.approx(float(by_kind["miss"]), abs=1e-12)
    assert res.p_defended == pytest.approx(float(by_kind["defended"]), abs=1e-12)
    assert res.p_critical == pytest.approx(float(by_kind["crit"]), abs=1e-12)
    assert res.p_hit == pytest.approx(float(by_kind["hit"] + by_kind["crit"]), abs=1e-12)
    for d, p in dmg.items():
        assert res.damage.pmf(d) == pytest.approx(float(p), abs=1e-12)


SMALL = [
    (6, dict(body=2, mind=2, soul=2, health=6, weapon_damage=4), dict(body=3, mind=2, soul=2, health=5)),
    (4, dict(body=3, mind=3, soul=3, health=7, weapon_damage=3, armor=1), dict(body=2, mind=3, soul=2, health=8, attack_bonus=1)),
    (8, dict(body=2, mind=2, soul=2, health=5), dict(body=2, mind=2, soul=2, health=5)),
]


@pytest.mark.parametrize("die,a_kw,b_kw", SMALL)
def test_small_duels_match_brute_force_recursion(die, a_kw, b_kw):
    rules = tristat.Rules(die=die)
    a, b = tristat.Fighter(**a_kw), tristat.Fighter(**b_kw)
    res = tristat.duel(rules, a, b).solution
    wa, wb, both, da, db, rounds = duel_brute(die, stat_block(a, rules), stat_block(b, rules))
    assert res.p_a_wins == pytest.approx(float(wa), abs=1e-10)
    assert res.p_b_wins == pytest.approx(float(wb), abs=1e-10)
    assert res.p_both_out == pytest.approx(float(both), abs=1e-10)
    assert res.p_a_dying == pytest.approx(float(da), abs=1e-10)
    assert res.p_b_dying == pytest.approx(float(db), abs=1e-10)
    assert res.mean_rounds == pytest.approx(float(rounds), rel=1e-9)
    assert res.p_a_wins + res.p_b_wins + res.p_both_out == pytest.approx(1, abs=1e-9)
    assert sum(res.rounds.values()) + res.rounds_tail == pytest.approx(1, abs=1e-9)


@pytest.mark.parametrize("a_name", ["novice", "trained", "veteran", "master"])
@pytest.mark.parametrize("b_name", ["novice_armed", "trained_armed", "master"])
def test_archetype_duels_are_proper_and_symmetric(a_name, b_name):
    rules = tristat.Rules()
    a, b = load_fighter(SYSTEM, a_name), load_fighter(SYSTEM, b_name)
    ab, ba = tristat.duel(rules, a, b).solution, tristat.duel(rules, b, a).solution
    assert ab.p_a_wins + ab.p_b_wins + ab.p_both_out + ab.p_stalemate == pytest.approx(1, abs=1e-9)
    assert ab.p_a_wins == pytest.approx(ba.p_b_wins, abs=1e-9)
    assert ab.p_both_out == pytest.approx(ba.p_both_out, abs=1e-9)
    assert ab.mean_rounds == pytest.approx(ba.mean_rounds, rel=1e-9)


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
                                     dict(cv_rounding="nearest"), dict(shock_rule=True), dict(die=10)])
def test_every_variant_duels(variant):
    rules = tristat.Rules(**variant)
    res = tristat.duel(rules, load_fighter(SYSTEM, "veteran"), load_fighter(SYSTEM, "trained_armed")).solution
    assert res.p_a_wins + res.p_b_wins + res.p_both_out == pytest.approx(1, abs=1e-9)


def test_initiative_once_cannot_change_a_duel():
    """Both fighters attack every round whatever the order; the order only decides the final round,
    and that round's order is independent of the history under both readings, so the duel is the same."""
    a, b = tristat.Fighter(health=6, weapon_damage=4), tristat.Fighter(health=6, weapon_damage=4, body=7)
    every = tristat.duel(tristat.Rules(), a, b).solution
    once = tristat.duel(tristat.Rules(initiative_once=True), a, b).solution
    assert a.stats(tristat.Rules())[0] != b.stats(tristat.Rules())[0]
    for key in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dying", "mean_rounds"):
        assert getattr(once, key) == pytest.approx(getattr(every, key), abs=1e-12)


def test_derived_values_follow_the_seed():
    f = tristat.Fighter(body=4, mind=7, soul=5)
    assert f.derived(tristat.Rules()) == {"acv": 5, "dcv": 3, "health": 45, "shock": 9}
    assert tristat.Fighter(body=4, mind=4, soul=6).stats(tristat.Rules(cv_rounding="nearest"))[0] == 5
    assert tristat.Fighter(body=4, mind=4, soul=6).stats(tristat.Rules())[0] == 4


def test_unarmed_damage_is_acv():
    rules = tristat.Rules()
    res = tristat.resolve(rules, load_fighter(SYSTEM, "novice"), load_fighter(SYSTEM, "novice"),
                          {"attack": 4, "defense": 11, "damage": 12})
    assert res.hit and res.damage == 4 and res.marked == 4


def test_critical_skips_the_defense_and_doubles_max():
    rules = tristat.Rules()
    res = tristat.resolve(rules, load_fighter(SYSTEM, "veteran"), load_fighter(SYSTEM, "trained"), {"attack": 2})
    assert res.hit and res.damage == 2 * 10 + 5


def test_resolve_cli_json(capsys):
    code = main(["resolve", "tristat", "--a", "veteran", "--b", "novice", "--rolls", "attack=5,defense=9,damage=6", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["hit"] is True and data["damage"] == 10 * 75 // 100 + 5 and data["marked"] == data["damage"]


def test_resolve_needs_the_rolls_it_uses(capsys):
    code = main(["resolve", "tristat", "--a", "veteran", "--b", "novice", "--rolls", "attack=5"])
    err = capsys.readouterr().err
    assert code == 2 and "defense" in err and err.count("\n") == 1


def test_every_archetype_has_a_note():
    assert {"novice", "trained", "veteran", "master"} <= set(archetypes("tristat"))
    for name, entry in archetypes("tristat").items():
        assert entry.get("note"), name


def test_duel_cli_contract(capsys):
    code = main(["duel", "tristat", "--a", "veteran", "--b", "trained", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    for key in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dead", "p_b_dead", "rounds", "mean_rounds", "states"):
        assert key in data
    assert abs(data["p_a_wins"] + data["p_b_wins"] + data["p_both_out"] - 1) < 1e-9


def test_fighter_from_files(tmp_path):
    (tmp_path / "hero.toml").write_text('archetype = "veteran"\narmor = 3\n')
    (tmp_path / "hero.json").write_text('{"body": 6, "weapon_damage": 12}')
    toml_f = load_fighter(SYSTEM, str(tmp_path / "hero.toml"))
    json_f = load_fighter(SYSTEM, str(tmp_path / "hero.json"))
    assert toml_f.armor == 3 and toml_f.body == 5 and toml_f.name == "hero"
    assert json_f.body == 6 and json_f.weapon_damage == 12 and json_f.name == "hero"
