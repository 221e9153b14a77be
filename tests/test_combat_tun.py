"""ТУН combat: the seed's knife throw, exchanges and duels against independent enumeration and recursion."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.cli import main
from analysis.fighters import archetypes, load_fighter
from analysis.system import get_system
from analysis.systems import tun
from tests.brute import TUN_CRIT, enumerate_dice, tun_outcome, tun_rolls

SYSTEM = get_system("tun")


# ----------------------------------------------------- independent brute force
def sheet(f):
    """The stat block as plain numbers, from the seed's formulas: volume X + ДО, defense ceil(X/2) + ДЗ."""
    return {"body": f.body, "feature": f.attack_feature, "volume": f.body + f.extra_volume,
            "defense": (f.body + 1) // 2 + f.extra_defense, "defends": f.defends,
            "n": f.weapon_n, "b": f.weapon_b, "dice": f.dice}


def attack_brute(att, dfn, le=False, crits=False):
    """[(p, trauma or None for a miss, critical)] of one attack, roll by roll, in exact fractions."""
    limit = att["body"] + att["feature"] - (dfn["defense"] if dfn["defends"] else 0)
    out = []
    for roll, p in tun_rolls(att["dice"]):
        ok, e = tun_outcome(att["dice"], limit, roll, le, crits)
        out.append((p, e * att["n"] + att["b"] if ok else None, crits and roll == TUN_CRIT[att["dice"]][0]))
    return out


def status(trauma, volume):
    return "dead" if trauma > 2 * volume else "out" if trauma >= volume else "up"


def duel_brute(a, b, le=False, crits=False, last_word=True, dying=True, order="body"):
    """(P(A wins), P(B wins), P(both out), P(A dead), P(B dead), E[rounds]) by recursion over (trauma A, trauma B).

    Every round is walked attack by attack: the first fighter's two attacks (the second stops if the
    target is out), then the second fighter's last word (one attack, +1 trauma) if it was put out,
    otherwise its two attacks.  Floats: the self-loop divisions make exact fractions grow without bound.
    """
    hits = {}
    for att, dfn, x, y in (("a", "b", a, b), ("b", "a", b, a)):
        pmf = {}
        for p, t, _ in attack_brute(x, y, le, crits):
            pmf[t or 0] = pmf.get(t or 0, 0) + p
        hits[att, dfn] = [(float(p), t) for t, p in pmf.items()]
    vol = {"a": a["volume"], "b": b["volume"]}

    def turn(att, dfn, trauma):
        out = []
        for p1, d1 in hits[att, dfn]:
            if status(trauma + d1, vol[dfn]) != "up":
                out.append((p1, trauma + d1))
                continue
            out += [(p1 * p2, trauma + d1 + d2) for p2, d2 in hits[att, dfn]]
        return out

    def round_from(first, second, t):
        nxt = {}
        for p1, ts in turn(first, second, t[second]):
            st_second = status(ts, vol[second])
            if st_second == "up":
                results = [(p1 * p2, {first: tf, second: ts}) for p2, tf in turn(second, first, t[first])]
            elif last_word and (st_second == "out" or dying):
                results = [(p1 * p2, {first: t[first] + d, second: ts + 1}) for p2, d in hits[second, first]]
            else:
                results = [(p1, {first: t[first], second: ts})]
            for p, s in results:
                nxt[s["a"], s["b"]] = nxt.get((s["a"], s["b"]), 0.0) + p
        return nxt

    def solve_from(first, second):
        @lru_cache(maxsize=None)
        def value(ta, tb):
            sa, sb = status(ta, vol["a"]), status(tb, vol["b"])
            if sa != "up" or sb != "up":
                return (float(sa == "up"), float(sb == "up"), float(sa != "up" and sb != "up"),
                        float(sa == "dead"), float(sb == "dead"), 0.0)
            nxt = round_from(first, second, {"a": ta, "b": tb})
            stay = nxt.pop((ta, tb), 0.0)
            acc = [0.0] * 5 + [1.0]
            for (na, nb), p in nxt.items():
                for k, v in enumerate(value(na, nb)):
                    acc[k] += p * v
            return tuple(x / (1 - stay) for x in acc)
        return value(0, 0)

    if order == "body" and a["body"] != b["body"]:
        weights = {("a", "b"): float(a["body"] > b["body"]), ("b", "a"): float(b["body"] > a["body"])}
    else:
        weights = {("a", "b"): 0.5, ("b", "a"): 0.5}
    parts = [(w, solve_from(*fs)) for fs, w in weights.items() if w > 0]
    return tuple(sum(w * v[k] for w, v in parts) for k in range(6))


def fighter(name):
    return load_fighter(SYSTEM, name)


# ------------------------------------------------------ the seed's knife throw
def test_red_throws_a_knife_at_blue():
    """13 + 6 - 6: Blue's Body defense is ceil(12/2) = 6; 'if the dice show less than 13, Red hits'."""
    red, blue = fighter("red"), fighter("blue")
    assert (blue.body + 1) // 2 == 6 == blue.derived(tun.Rules())["body_defense"]
    assert tun.attack_limit(red, blue) == 13
    below = Fraction(sum(1 for r, _ in enumerate_dice(range(1, 7), 3) if sum(r) < 13), 216)
    at_most = Fraction(sum(1 for r, _ in enumerate_dice(range(1, 7), 3) if sum(r) <= 13), 216)
    assert below == Fraction(160, 216) and at_most == Fraction(181, 216)
    assert tun.exchange(tun.Rules(), red, blue).p_hit == pytest.approx(float(below), abs=1e-12)
    assert tun.exchange(tun.Rules(success_rule="le"), red, blue).p_hit == pytest.approx(float(at_most), abs=1e-12)


def test_knife_trauma_is_e_times_two_plus_one():
    """The seed: E = 2 with a weapon 'E*2 + 1, ТТ' inflicts 2*2 + 1 = 5 Body trauma."""
    red, blue = fighter("red"), fighter("blue")
    res = tun.resolve(tun.Rules(), red, blue, {"attack": 11})
    assert res.hit and res.fields["effectiveness"] == 2 and res.damage == 5 and res.marked == 5
    assert res.fields["limit"] == 13 and res.fields["trauma_after"] == 5 and res.fields["condition"] == "up"
    assert not tun.resolve(tun.Rules(), red, blue, {"attack": 13}).hit
    edge = tun.resolve(tun.Rules(success_rule="le"), red, blue, {"attack": 13})
    assert edge.hit and edge.fields["effectiveness"] == 0 and edge.damage == 1


def test_resolve_conditions_and_criticals():
    red, blue = fighter("red"), fighter("blue")
    out = tun.resolve(tun.Rules(), red, blue, {"attack": 5})  # E = 8: 17 trauma >= volume 12
    assert out.damage == 17 and out.fields["condition"] == "out"
    crit = tun.resolve(tun.Rules(crits=True), red, blue, {"attack": 3})  # E = 10 + 6: 33 > 2 x 12
    assert crit.fields["critical"] and crit.damage == 33 and crit.fields["condition"] == "dead"
    weak = red.replace(attack_feature=-12)
    assert tun.resolve(tun.Rules(crits=True), weak, blue, {"attack": 3}).damage == (0 + 6) * 2 + 1
    assert not tun.resolve(tun.Rules(crits=True, success_rule="le"), red.replace(attack_feature=12), blue, {"attack": 18}).hit


# -------------------------------------------------------------------- exchange
EXCHANGES = [
    ("red", "blue", {}, {}),
    ("veteran", "master", {"crits": True}, {}),
    ("master", "berserker", {"success_rule": "le"}, {}),
    ("novice_armed", "trained", {"crits": True, "success_rule": "le"}, {"dice": "1d20"}),
    ("trained", "novice", {"crits": True}, {"dice": "1d6x3", "weapon_n": 3, "weapon_b": 2}),
]


@pytest.mark.parametrize("a_name,b_name,variants,change", EXCHANGES)
def test_exchange_matches_enumeration(a_name, b_name, variants, change):
    rules = tun.Rules(**variants)
    att, dfn = fighter(a_name).replace(**change), fighter(b_name)
    res = tun.exchange(rules, att, dfn)
    brute = attack_brute(sheet(att), sheet(dfn), rules.success_rule == "le", rules.crits)
    miss = sum((p for p, t, _ in brute if t is None), Fraction(0))
    crit = sum((p for p, t, c in brute if c and t is not None), Fraction(0))
    dmg, after = {}, {}
    for p, t, _ in brute:
        dmg[t or 0] = dmg.get(t or 0, 0) + p
        cond = status(t or 0, dfn.body + dfn.extra_volume)
        key = f"trauma {t or 0}" if cond == "up" else f"out (trauma {t})" if cond == "out" else "dead"
        after[key] = after.get(key, 0) + p
    assert res.p_miss == pytest.approx(float(miss), abs=1e-12)
    assert res.p_hit == pytest.approx(float(1 - miss), abs=1e-12)
    assert res.p_critical == pytest.approx(float(crit), abs=1e-12)
    assert res.p_defended == 0 and res.p_graze == 0
    for d, p in dmg.items():
        assert res.damage.pmf(d) == pytest.approx(float(p), abs=1e-12)
    assert set(res.condition_after) == {k for k, p in after.items() if p > 0}
    for k, p in after.items():
        assert res.condition_after.get(k, 0.0) == pytest.approx(float(p), abs=1e-12)


# ----------------------------------------------------------------------- duels
SMALL = [
    (dict(body=4, attack_feature=8), dict(body=5, attack_feature=7, extra_volume=1, weapon_b=1), {}),
    (dict(body=4, attack_feature=8), dict(body=5, attack_feature=7, extra_volume=1, weapon_b=1), {"last_word": False}),
    (dict(body=5, attack_feature=9, weapon_n=2, weapon_b=1), dict(body=5, attack_feature=8, extra_defense=1, weapon_n=2), {}),
    (dict(body=5, attack_feature=9, weapon_n=2, weapon_b=1), dict(body=5, attack_feature=8, extra_defense=1, weapon_n=2),
     {"turn_order": "roll", "last_word": False}),
    (dict(body=3, attack_feature=9, weapon_n=3, weapon_b=2), dict(body=4, attack_feature=6, weapon_n=2, dice="1d6x3"),
     {"dying_last_word": False}),
    (dict(body=3, attack_feature=9, weapon_n=3, weapon_b=2), dict(body=4, attack_feature=6, weapon_n=2, dice="1d6x3"), {}),
    (dict(body=6, attack_feature=4, dice="1d20", defends=False), dict(body=3, attack_feature=10, extra_volume=2),
     {"crits": True, "success_rule": "le"}),
    (dict(body=2, attack_feature=-3), dict(body=3, attack_feature=-4), {"crits": True}),
]


@pytest.mark.parametrize("a_kw,b_kw,variants", SMALL)
def test_small_duels_match_brute_force_recursion(a_kw, b_kw, variants):
    rules = tun.Rules(**variants)
    a, b = tun.Fighter(**a_kw), tun.Fighter(**b_kw)
    res = tun.duel(rules, a, b).solution
    wa, wb, both, da, db, rounds = duel_brute(sheet(a), sheet(b), rules.success_rule == "le", rules.crits,
                                              rules.last_word, rules.dying_last_word, rules.turn_order)
    assert res.p_a_wins == pytest.approx(wa, abs=1e-10)
    assert res.p_b_wins == pytest.approx(wb, abs=1e-10)
    assert res.p_both_out == pytest.approx(both, abs=1e-10)
    assert res.p_a_dying == pytest.approx(da, abs=1e-10)
    assert res.p_b_dying == pytest.approx(db, abs=1e-10)
    assert res.mean_rounds == pytest.approx(rounds, rel=1e-9)
    assert res.p_stalemate == 0
    assert res.p_a_wins + res.p_b_wins + res.p_both_out == pytest.approx(1, abs=1e-9)
    assert sum(res.rounds.values()) + res.rounds_tail == pytest.approx(1, abs=1e-9)
    assert (res.p_both_out > 1e-3) == rules.last_word


def test_last_word_only_for_the_fighter_yet_to_act():
    """A (higher Body, first) puts B out with any hit (3d6 < 10: 81/216); B always hits and puts A out.
    B put out in A's turn strikes back once (both out); A put out in B's turn has already acted: no last word."""
    a = tun.Fighter(body=24, attack_feature=-2, weapon_n=3, weapon_b=20, defends=False)
    b = tun.Fighter(body=23, attack_feature=12, weapon_n=2)
    assert tun.attack_limit(a, b) == 10 and tun.attack_limit(b, a) == 35
    a_misses_twice = (1 - 81 / 216) ** 2
    on = tun.duel(tun.Rules(), a, b).solution
    assert on.p_a_wins == pytest.approx(0, abs=1e-12)
    assert on.p_both_out == pytest.approx(1 - a_misses_twice, abs=1e-12)
    assert on.p_b_wins == pytest.approx(a_misses_twice, abs=1e-12)
    off = tun.duel(tun.Rules(last_word=False), a, b).solution
    assert off.p_a_wins == pytest.approx(1 - a_misses_twice, abs=1e-12) and off.p_both_out == 0


def test_the_last_word_costs_a_trauma_that_can_kill():
    """Volume 4 put out at trauma 8 = 2 x 4 (E = 1, E*1 + 7) dies from the last word's +1."""
    a = tun.Fighter(body=6, attack_feature=12, weapon_n=1, weapon_b=7, dice="1d20")
    b = tun.Fighter(body=4, attack_feature=-12)
    on = tun.duel(tun.Rules(), a, b).solution
    off = tun.duel(tun.Rules(last_word=False), a, b).solution
    assert on.p_b_dying > off.p_b_dead
    assert on.p_b_dying == pytest.approx(duel_brute(sheet(a), sheet(b))[4], abs=1e-12)


def test_no_one_can_hurt_anyone_is_a_stalemate():
    weak = tun.Fighter(body=2, attack_feature=-3)
    res = tun.duel(tun.Rules(), weak, weak).solution
    assert res.p_stalemate == 1 and res.p_a_wins == res.p_b_wins == 0


ARCHETYPES = sorted(archetypes("tun"))


@pytest.mark.parametrize("a_name", ARCHETYPES)
def test_archetype_duels_are_proper_and_symmetric(a_name):
    rules = tun.Rules()
    for b_name in ARCHETYPES:
        a, b = fighter(a_name), fighter(b_name)
        ab, ba = tun.duel(rules, a, b).solution, tun.duel(rules, b, a).solution
        assert ab.p_a_wins + ab.p_b_wins + ab.p_both_out + ab.p_stalemate == pytest.approx(1, abs=1e-9)
        assert ab.p_stalemate == 0
        assert ab.p_a_wins == pytest.approx(ba.p_b_wins, abs=1e-9)
        assert ab.p_both_out == pytest.approx(ba.p_both_out, abs=1e-9)


@pytest.mark.parametrize("variant", [dict(last_word=False), dict(dying_last_word=False), dict(turn_order="roll"),
                                     dict(crits=True), dict(success_rule="le")])
def test_every_variant_duels(variant):
    res = tun.duel(tun.Rules(**variant), fighter("veteran"), fighter("red")).solution
    assert res.p_a_wins + res.p_b_wins + res.p_both_out == pytest.approx(1, abs=1e-9)


fighter_st = st.fixed_dictionaries({
    "body": st.integers(2, 6), "attack_feature": st.integers(3, 8), "extra_volume": st.integers(0, 2),
    "extra_defense": st.integers(0, 1), "weapon_n": st.integers(1, 2), "weapon_b": st.integers(0, 2),
    "defends": st.booleans(),
})
boost_st = st.fixed_dictionaries({k: st.integers(0, 1) for k in
                                  ("body", "attack_feature", "extra_volume", "extra_defense", "weapon_n", "weapon_b")})


rules_st = st.sampled_from([tun.Rules(), tun.Rules(last_word=False), tun.Rules(crits=True, success_rule="le"),
                            tun.Rules(turn_order="roll", dying_last_word=False)])


@settings(max_examples=15)
@given(fighter_st, boost_st, st.booleans(), fighter_st, rules_st)
def test_a_better_fighter_never_wins_less(base, boost, defends, other, rules):
    a = tun.Fighter(**base)
    better = tun.Fighter(**{k: v + boost.get(k, 0) for k, v in base.items() if k != "defends"},
                         defends=base["defends"] or defends)
    b = tun.Fighter(**other)
    plain, improved = tun.duel(rules, a, b).solution, tun.duel(rules, better, b).solution
    assert improved.p_a_wins >= plain.p_a_wins - 1e-9
    assert improved.p_b_wins <= plain.p_b_wins + 1e-9


def test_derived_values_follow_the_seed():
    f = tun.Fighter(body=13, extra_volume=2, extra_defense=1)
    assert f.derived(tun.Rules()) == {"body_volume": 15, "body_defense": 8}
    assert tun.Fighter(body=12).derived(tun.Rules())["body_defense"] == 6


def test_undefended_target_gives_no_defense():
    red, blue = fighter("red"), fighter("blue")
    assert tun.attack_limit(red, blue.replace(defends=False)) == 19


# ------------------------------------------------------------------------- CLI
def test_every_archetype_has_a_note():
    assert {"novice", "novice_armed", "trained", "trained_armed", "veteran", "master", "red", "blue"} <= set(ARCHETYPES)
    for name, entry in archetypes("tun").items():
        assert entry.get("note"), name


def test_exchange_cli_contract(capsys):
    code = main(["exchange", "tun", "--a", "red", "--b", "blue", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["system"] == "tun"
    assert data["p_hit"] == pytest.approx(160 / 216) and data["p_miss"] == pytest.approx(56 / 216)
    assert {"success_rule", "crits", "last_word", "dying_last_word", "turn_order"} <= set(data["variants"])
    assert data["attacker"]["derived"] == {"body_volume": 13, "body_defense": 7}


def test_resolve_cli_json(capsys):
    code = main(["resolve", "tun", "--a", "red", "--b", "blue", "--rolls", "attack=11", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["hit"] is True and data["damage"] == 5 and data["marked"] == 5
    assert data["limit"] == 13 and data["effectiveness"] == 2 and data["condition"] == "up" and data["steps"]


def test_resolve_cli_text_prints_every_step(capsys):
    code = main(["resolve", "tun", "--a", "red", "--b", "blue", "--rolls", "attack=11"])
    out = capsys.readouterr().out
    assert code == 0
    for words in ("13 + attack feature 6", "3d6 = 11 < 13", "2*2 + 1 = 5", "=> hit=true, damage=5, marked=5"):
        assert words in out


@pytest.mark.parametrize("rolls,words", [("attack=19", ["rolls.attack", "19", "a 3d6 roll in 3..18"]),
                                         ("defense=4", ["defense", "attack"])])
def test_resolve_rejects_bad_rolls(capsys, rolls, words):
    code = main(["resolve", "tun", "--a", "red", "--b", "blue", "--rolls", rolls])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    for w in words:
        assert w in err


def test_resolve_rejects_impossible_1d6x3_roll(capsys):
    code = main(["resolve", "tun", "--a", "archetype=red,dice=1d6x3", "--b", "blue",
                 "--rolls", "attack=4"])
    err = capsys.readouterr().err
    assert code == 2 and "3, 6, 9, 12, 15, 18" in err and err.count("\n") == 1


def test_duel_cli_contract(capsys):
    code = main(["duel", "tun", "--a", "veteran", "--b", "red", "--variant", "last_word=false", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["variants"]["last_word"] is False and data["p_both_out"] == 0
    for key in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dead", "p_b_dead", "p_stalemate", "rounds",
                "mean_rounds", "median_rounds", "states", "order", "final"):
        assert key in data
    assert abs(data["p_a_wins"] + data["p_b_wins"] + data["p_both_out"] + data["p_stalemate"] - 1) < 1e-9
