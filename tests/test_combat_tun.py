"""ТУН combat: the seed's examples, penalties, resistance, turns and finishing against independent
enumeration and recursion written here from the rule text (RULES.md section 3, the seed)."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.base.params import DicelabError
from analysis.fights.fighters import archetypes, load_fighter
from analysis.front.cli import main
from analysis.systems import get_system, tun
from tests.brute import enumerate_dice, tun_rolls

SYSTEM = get_system("tun")
BOOK = tun.Rules().to_dict()
DICE_EXTREMES = {"3d6": (3, 18), "1d20": (1, 20), "1d6x3": (3, 18)}
AIM_TABLE = {"none": 0, "arm": 2, "leg": 1, "head": 3, "hand": 6, "foot": 5, "knee": 5}
"""The seed's table «Прицельная стрельба» (penalties), as printed."""


# ----------------------------------------------------- independent brute force
def sheet(f):
    """The stat block as plain numbers: volume X + ДО; defense (X / divisor rounded up) + ДЗ comes later."""
    return {k: getattr(f, k) for k in ("body", "attack_feature", "extra_volume", "extra_defense", "defends", "weapon_n",
                                      "weapon_b", "dice", "ranged", "size", "reaction", "moving", "aim", "turn_policy")}


def volume(x):
    return x["body"] + x["extra_volume"]


def limit_brute(att, dfn, r, mode="normal"):
    """«Итоговый штраф»: -[Защита] - (Разм(З) - Разм(А)) [- distance]; plus moving and aiming, from the text.

    Defense: melee iff the target consciously defends; ranged iff it moves (or, under the agreed convention,
    iff it defends); a helpless target has none.  A last word cannot move.
    """
    limit = att["body"] + att["attack_feature"]
    if mode != "helpless":
        if att["ranged"]:
            counts = dfn["moving"] if r["ranged_defense"] == "moving" else dfn["defends"]
        else:
            counts = dfn["defends"]
        if counts:
            limit -= math.ceil(dfn["body"] / r["defense_divisor"]) + dfn["extra_defense"]
    gap = dfn["size"] - att["size"]
    limit -= gap if r["size_bonus"] or gap > 0 else 0
    if att["ranged"] and r["distance"] > r["distance_step"]:
        limit -= (math.ceil(r["distance"] / r["distance_step"]) - 1) * r["distance_penalty"]
    if att["moving"] and mode != "last_word":
        limit -= r["moving_penalty"]
    if att["aim"] != "none":
        limit -= r[f"aim_penalty_{att['aim']}"]
    return limit


def outcome(dice, limit, value, r):
    """(success, E) of one roll: strictly below the limit (or <=), criticals as the seed recommends."""
    lo, hi = DICE_EXTREMES[dice]
    e = limit - value
    if r["crits"] and value == lo:
        return True, max(e, 0) + r[f"crit_bonus_{dice}"]
    if r["crits"] and value == hi:
        return False, e
    return (value <= limit if r["success_rule"] == "le" else value < limit), e


def attack_brute(att, dfn, r, mode="normal"):
    """[(p, trauma or None for a miss)] of one attack, roll by roll, in exact fractions."""
    limit = limit_brute(att, dfn, r, mode)
    out = []
    for value, p in tun_rolls(att["dice"]):
        ok, e = outcome(att["dice"], limit, value, r)
        out.append((p, e * att["weapon_n"] + att["weapon_b"] if ok else None))
    return out


def round_turns(first, second, policy, n, cost, rnd):
    """(who, actions) of each turn of round ``rnd`` in order, from the seed's «Пошаговый бой»: the first in
    order may delay until the other's first action (which then finishes its turn); the second may skip round 1
    and lead every later round, with ``cost`` actions fewer in round 2; a delay whose event never comes acts at
    the end of the round."""
    skipper = policy[second] == "initiative_skip"
    if skipper and rnd == 1:
        return [(second, 0), (first, n)] if policy[first] == "delay" else [(first, n), (second, 0)]
    lead, follow = (second, first) if skipper else (first, second)
    actions = n - cost if skipper and rnd == 2 else n
    if policy[lead] == "delay":
        return [(follow, 1), (lead, actions), (follow, n - 1)]
    return [(lead, actions), (follow, n)]


PART = {"arm": 0, "hand": 0, "leg": 1, "foot": 1, "knee": 1, "head": 2}
"""Which effect a hit on each part gives, from the seed: «в ногу, что бы обездвижить», «в руку — что бы он не мог
ничего держать», «в голову, что бы оглушить»: (disarmed, immobilised, stunned actions pending)."""
FRESH = (0, 0, 0)


def acting_sheet(x, effects):
    """The fighter as it fights: disarmed, with its fists (melee, E*1 + 0, no aimed shot); immobilised, it does not
    move."""
    disarmed, immobilised, _ = effects
    y = dict(x)
    if disarmed:
        y.update(ranged=False, weapon_n=1, weapon_b=0, aim="none")
    if immobilised:
        y["moving"] = False
    return y


def reaches(x, r):
    return x["ranged"] or r["distance"] <= r["melee_reach"]


def after_hit(effects, att, r, stays_up):
    """The target's effects after a hit of ``att`` (as it fights): its aim's effect, per ``aim_effects``; a head
    hit sets the lost actions to ``stun_actions`` (renewed, not added)."""
    if att["aim"] == "none" or r["aim_effects"] == "none" or (r["aim_effects"] == "while_up" and not stays_up):
        return effects
    out = list(effects)
    k = PART[att["aim"]]
    out[k] = r["stun_actions"] if k == 2 else 1
    return tuple(out)


def duel_brute(a, b, r):
    """Every figure of a duel by recursion over (round, trauma and effects of A, of B), walked action by action.

    After every turn, a fighter put out whose own turn has not yet come this round speaks its last word
    (``last_word_actions`` actions, each while the other is up and costing ``last_word_trauma``; a dying
    fighter only under ``dying_last_word``).  Rounds from the third repeat.  With ``after_out=finish`` the
    winner then attacks the helpless loser until it is dying or ``finish_attacks`` attacks are made.
    Aimed shots: a fighter with stunned actions pending loses its next action (no attack, no last-word trauma);
    a melee fighter (or a disarmed one) beyond ``melee_reach`` does nothing, and in finishing each of its attacks
    misses.  Every hit must wound (E >= 1 or b >= 1): then a round either changes nothing or moves forward, and
    the only loop is a round that changes nothing (divided out).
    Floats: the self-loop divisions make exact fractions grow without bound.
    """
    f = {"a": a, "b": b}
    vol = {s: volume(x) for s, x in f.items()}
    line = {s: r["death_multiple"] * v for s, v in vol.items()}
    cap = {s: line[s] + 1 for s in f}
    other = {"a": "b", "b": "a"}
    policy = {s: x["turn_policy"] for s, x in f.items()}

    @lru_cache(maxsize=None)
    def pmf(s, mine, theirs, mode):
        """((trauma, hit), p) of one attack of s as it fights on the other as it stands."""
        acc = {}
        for p, t in attack_brute(acting_sheet(f[s], mine), acting_sheet(f[other[s]], theirs), r, mode):
            acc[t or 0, t is not None] = acc.get((t or 0, t is not None), 0) + float(p)
        return tuple(acc.items())

    def up(s, t):
        return t[s] < vol[s]

    def act(dist, s, mode, cost=0):
        """s acts once in each state of ``dist`` where the other is up (and s too, unless it speaks)."""
        o = other[s]
        nxt = {}

        def put(t, e, spoke, p):
            key = (t["a"], e["a"], t["b"], e["b"], spoke)
            nxt[key] = nxt.get(key, 0.0) + p

        for (ta, ea, tb, eb, spoke), p in dist.items():
            t, e = {"a": ta, "b": tb}, {"a": ea, "b": eb}
            att = acting_sheet(f[s], e[s])
            if not up(o, t) or (mode == "normal" and not up(s, t)):
                put(t, e, spoke, p)
            elif e[s][2]:
                put(t, {**e, s: e[s][:2] + (e[s][2] - 1,)}, spoke, p)
            elif not reaches(att, r):
                put(t, e, spoke, p)
            else:
                for (d, hit), q in pmf(s, e[s], e[o], mode):
                    u = {**t, o: min(t[o] + d, cap[o]), s: min(t[s] + cost, cap[s])}
                    put(u, {**e, o: after_hit(e[o], att, r, u[o] < vol[o]) if hit else e[o]}, spoke, p * q)
        return nxt

    def play(state, rnd, first):
        dist = {state + ("",): 1.0}
        came = set()
        n = r["actions_per_turn"]
        for side, k in round_turns(first, other[first], policy, n, r["initiative_skip_cost"], rnd):
            came.add(side)
            for _ in range(k):
                dist = act(dist, side, "normal")
            for x in "ab":
                if x in came or not r["last_word"]:
                    continue
                speaking = {}
                for (ta, ea, tb, eb, spoke), p in dist.items():
                    t = {"a": ta, "b": tb}
                    ready = not up(x, t) and up(other[x], t) and x not in spoke
                    ready = ready and (r["dying_last_word"] or t[x] <= line[x])
                    key = (ta, ea, tb, eb, spoke + x if ready else spoke)
                    speaking[key] = speaking.get(key, 0.0) + p
                rest = {k: p for k, p in speaking.items() if x not in k[4]}
                talk = {k: p for k, p in speaking.items() if x in k[4]}
                for _ in range(r["last_word_actions"]):
                    talk = act(talk, x, "last_word", r["last_word_trauma"])
                dist = rest
                for k, p in talk.items():
                    dist[k] = dist.get(k, 0.0) + p
        out = {}
        for key, p in dist.items():
            out[key[:4]] = out.get(key[:4], 0.0) + p
        return out

    @lru_cache(maxsize=None)
    def finish(victim, t, left, winner_effects):
        """(P(victim dying), E[attacks]) of the winner's attacks on the helpless victim (stuns do not count here:
        the victim cannot act, so the winner's attacks only wait)."""
        if t > line[victim] or left == 0:
            return float(t > line[victim]), 0.0
        w = other[victim]
        can = reaches(acting_sheet(f[w], winner_effects), r)
        dist = pmf(w, winner_effects, FRESH, "helpless") if can else (((0, False), 1.0),)
        dying, attacks = 0.0, 1.0
        for (d, _), q in dist:
            pd, pa = finish(victim, min(t + d, cap[victim]), left - 1, winner_effects)
            dying += q * pd
            attacks += q * pa
        return dying, attacks

    def end(ta, ea, tb, eb):
        """(A wins, B wins, both out, A dying, B dying, rounds 0, finishing attacks, one side out)."""
        t, e = {"a": ta, "b": tb}, {"a": ea, "b": eb}
        dying = {s: float(t[s] > line[s]) for s in "ab"}
        attacks, one = 0.0, float(up("a", t) != up("b", t))
        if r["after_out"] == "finish" and one:
            victim = "a" if up("b", t) else "b"
            dying[victim], attacks = finish(victim, t[victim], r["finish_attacks"], e[other[victim]])
        return (float(up("a", t) and not up("b", t)), float(up("b", t) and not up("a", t)),
                float(not up("a", t) and not up("b", t)), dying["a"], dying["b"], 0.0, attacks, one)

    def solve(first):
        @lru_cache(maxsize=None)
        def value(rnd, *state):
            ta, ea, tb, eb = state
            if not (up("a", {"a": ta}) and up("b", {"b": tb})):
                return end(*state)
            nxt = play(state, rnd, first)
            stay = nxt.pop(state, 0.0) if rnd == 3 else 0.0
            acc = [0.0] * 5 + [1.0, 0.0, 0.0]
            for key, p in nxt.items():
                for k, v in enumerate(value(min(rnd + 1, 3), *key)):
                    acc[k] += p * v
            return tuple(x / (1 - stay) for x in acc)
        return value(1, 0, FRESH, 0, FRESH)

    keys = {"body": ["body"], "roll": [], "reaction": ["reaction", "body"]}[r["turn_order"]]
    p_a = 0.5
    for key in keys:
        if a[key] != b[key]:
            p_a = float(a[key] > b[key])
            break
    parts = [(w, solve(first)) for first, w in (("a", p_a), ("b", 1 - p_a)) if w > 0]
    v = [sum(w * x[k] for w, x in parts) for k in range(8)]
    names = ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dying", "p_b_dying", "mean_rounds")
    out = dict(zip(names, v))
    out["finish_attacks"] = v[6] / v[7] if v[7] > 0 else 0.0
    return out


def fighter(name):
    return load_fighter(SYSTEM, name)


def rules_dict(**changes):
    return {**BOOK, **changes}


# ------------------------------------------------------ the seed's worked examples
def test_red_throws_a_knife_at_blue():
    """«Заранее договорено, что рефлекторная защита в бою зависит от Телесной защиты»: 13 + 6 - 6, hit below 13.

    Red's throw is ranged; by default (ranged_defense=defends) Blue's reflexive dodge counts because Blue
    defends, as the seed's limit needs.  Under the variant ranged_defense=moving, standing Blue gives 13 + 6 = 19
    and only a moving Blue the seed's 13."""
    red, blue = fighter("red"), fighter("blue")
    assert red.ranged and blue.defends and (blue.body + 1) // 2 == 6 == blue.derived(tun.Rules())["body_defense"]
    default = tun.Rules()
    assert tun.attack_limit(default, red, blue) == 13
    below = Fraction(sum(1 for r, _ in enumerate_dice(range(1, 7), 3) if sum(r) < 13), 216)
    at_most = Fraction(sum(1 for r, _ in enumerate_dice(range(1, 7), 3) if sum(r) <= 13), 216)
    assert below == Fraction(160, 216) and at_most == Fraction(181, 216)
    assert tun.exchange(default, red, blue).p_hit == pytest.approx(float(below), abs=1e-12)
    assert tun.exchange(default.replace(success_rule="le"), red, blue).p_hit == pytest.approx(float(at_most), abs=1e-12)
    moving = tun.Rules(ranged_defense="moving")
    assert tun.attack_limit(moving, red, blue) == 19
    assert tun.exchange(moving, red, blue).p_hit == pytest.approx(1, abs=1e-12)
    assert tun.attack_limit(moving, red, blue.replace(moving=True)) == 13
    assert tun.attack_limit(default, red, blue.replace(defends=False)) == 19


def test_knife_trauma_is_e_times_two_plus_one():
    """The seed: E = 2 with a weapon 'E*2 + 1, ТТ' inflicts 2*2 + 1 = 5 Body trauma."""
    red, blue = fighter("red"), fighter("blue")
    agreed = tun.Rules()
    res = tun.resolve(agreed, red, blue, {"attack": 11})
    assert res.hit and res.fields["effectiveness"] == 2 and res.damage == 5 and res.marked == 5
    assert res.fields["limit"] == 13 and res.fields["trauma_after"] == 5 and res.fields["condition"] == "up"
    assert not tun.resolve(agreed, red, blue, {"attack": 13}).hit
    edge = tun.resolve(agreed.replace(success_rule="le"), red, blue, {"attack": 13})
    assert edge.hit and edge.fields["effectiveness"] == 0 and edge.damage == 1


def test_the_seeds_critical_bonuses_are_the_values_nearest_ten_percent():
    """«эффективность увеличивается на то значение из таблицы …, где шанс выкинуть ≤ этого значения максимально
    близок к 10%»: 6 for 3d6, 2 for 1d20, 3 for 1d6x3."""
    for dice, printed in (("3d6", 6), ("1d20", 2), ("1d6x3", 3)):
        rolls = tun_rolls(dice)
        faces = sorted({v for v, _ in rolls})
        nearest = min(faces, key=lambda v: abs(sum((p for x, p in rolls if x <= v), Fraction(0)) - Fraction(1, 10)))
        assert nearest == printed == tun.crit_bonus(tun.Rules(), dice)


def test_the_seeds_dice_average_ten_and_a_half():
    """«У 3к6 … в среднем 10,5»; the same for 1к20 and 1к6x3."""
    for dice in tun.DICE_MODES:
        assert sum((v * p for v, p in tun_rolls(dice)), Fraction(0)) == Fraction(21, 2)
        assert tun.roll(dice).mean() == pytest.approx(10.5, abs=1e-12)


def test_the_seeds_out_and_dying_thresholds():
    """«Когда сумма усталости и травм равна объёму ресурса … теряет сознание»; «значение травм становится больше
    ресурса умноженного на 2 … умирает»: Blue's volume 12: 11 up, 12 out, 24 out, 26 dying (Red's limit 13)."""
    red, blue = fighter("red"), fighter("blue")
    for (n, b, roll), (trauma, condition) in (((1, 10, 12), (11, "up")), ((2, 10, 12), (12, "out")),
                                              ((2, 20, 11), (24, "out")), ((2, 20, 10), (26, "dying"))):
        res = tun.resolve(tun.Rules(), red.replace(weapon_n=n, weapon_b=b), blue, {"attack": roll})
        assert (res.damage, res.fields["condition"]) == (trauma, condition)


def test_the_seeds_two_shots_standing_or_moving_at_minus_one():
    """«можно два раза выстрелить без штрафов, а можно стрелять передвигаясь со штрафами -1»."""
    red, blue = fighter("red"), fighter("blue")
    assert tun.schedule(tun.Rules(), red, blue, "a")[0][0] == ("attacks", "a", 2)
    assert tun.attack_limit(tun.Rules(), red.replace(moving=True), blue) == tun.attack_limit(tun.Rules(), red, blue) - 1


SHOOTING_TABLE = {0: [0, -1, -2, -3], 1: [-1, -2, -3, -4], 3: [-3, -4, -5, -6], 4: [-4, -5, -6, -7]}
"""The seed's «Штрафы для человека при стрельбе без учёта Защиты»: size (man, cat, beer can, matchbox) by
distance band 0-10, 10-20, 20-30, 30-40 m."""


@pytest.mark.parametrize("size", sorted(SHOOTING_TABLE))
def test_the_seeds_shooting_table(size):
    man = tun.Fighter(body=10, ranged=True)
    target = tun.Fighter(body=10, size=size, defends=False)  # the table is «без учёта Защиты»: no defense
    for band, printed in enumerate(SHOOTING_TABLE[size]):
        rules = tun.Rules(distance=10 * band + 5)
        assert tun.attack_limit(rules, man, target) - 10 == printed
    assert tun.attack_limit(tun.Rules(distance=10), man, target) == 10 + SHOOTING_TABLE[size][0]
    assert tun.attack_limit(tun.Rules(distance=10_000), man, target) == 10 - 999 - size


def test_the_seeds_aim_table():
    shooter, target = tun.Fighter(body=10, ranged=True), tun.Fighter(body=10, defends=False)
    for aim, penalty in AIM_TABLE.items():
        assert tun.attack_limit(tun.Rules(), shooter.replace(aim=aim), target) == 10 - penalty


def test_defense_counts_in_melee_iff_the_target_defends_and_a_moving_target_costs_nothing_more():
    att, dfn = tun.Fighter(body=12), tun.Fighter(body=11, extra_defense=1)  # defense ceil(11/2) + 1 = 7
    rules = tun.Rules()
    assert tun.attack_limit(rules, att, dfn) == 12 - 7
    assert tun.attack_limit(rules, att, dfn.replace(defends=False)) == 12
    assert tun.attack_limit(rules, att, dfn.replace(moving=True)) == 12 - 7
    assert tun.attack_limit(rules, att.replace(moving=True), dfn) == 12 - 7 - 1
    assert tun.attack_limit(rules.replace(moving_penalty=3), att.replace(moving=True), dfn) == 12 - 7 - 3
    assert tun.attack_limit(rules, att.replace(moving=True), dfn, tun.LAST_WORD) == 12 - 7  # a last word cannot move
    assert tun.attack_limit(rules, att, dfn, tun.HELPLESS) == 12
    assert tun.attack_limit(rules.replace(defense_divisor=3), att, dfn) == 12 - 5
    assert tun.attack_limit(rules.replace(distance=95), att, dfn) == 12 - 7  # melee: distance does not count


def test_size_penalty_only_when_the_target_is_smaller_unless_size_bonus():
    cat, man, giant = tun.Fighter(size=1, defends=False), tun.Fighter(defends=False), tun.Fighter(size=-2, defends=False)
    rules = tun.Rules()
    assert tun.attack_limit(rules, man, cat) == 9 and tun.attack_limit(rules, cat, man) == 10
    assert tun.attack_limit(rules, man, giant) == 10 and tun.attack_limit(rules, giant, man) == 8
    both = tun.Rules(size_bonus=True)
    assert tun.attack_limit(both, cat, man) == 11 and tun.attack_limit(both, man, giant) == 12


@pytest.mark.parametrize("kw,words", [
    (dict(aim="head"), ["aim", "head", "melee"]),
    (dict(size=11), ["size", "11", "-10..10"]),
    (dict(turn_policy="wait"), ["turn_policy", "wait", "act, delay, initiative_skip"]),
])
def test_bad_fighters_are_refused_in_one_line(kw, words):
    with pytest.raises(DicelabError) as err:
        tun.Fighter(**kw)
    assert "\n" not in str(err.value) and all(w in str(err.value) for w in words)


def test_initiative_skip_cannot_cost_more_than_a_turn():
    with pytest.raises(DicelabError, match="initiative_skip_cost = 3 is not allowed; allowed: .*0..actions_per_turn"):
        tun.Rules(initiative_skip_cost=3)
    assert tun.Rules(actions_per_turn=3, initiative_skip_cost=3).initiative_skip_cost == 3


# ------------------------------------------------------------------- resistance (c)
def resist_brute(attacker, resister, r):
    """(P(the action succeeds), P(it succeeds and is resisted)) over both rolls, from the text: the resister
    checks against its limit less the action's E."""
    success = resisted = Fraction(0)
    for va, pa in tun_rolls(attacker[1]):
        ok, e = outcome(attacker[1], attacker[0], va, r)
        if not ok:
            continue
        success += pa
        for vr, pr in tun_rolls(resister[1]):
            held, _ = outcome(resister[1], resister[0] - e, vr, r)
            resisted += pa * pr if held else 0
    return success, resisted


@pytest.mark.parametrize("attacker,resister,variants", [
    ((12, "3d6"), (13, "3d6"), {}),
    ((14, "3d6"), (11, "1d20"), {"success_rule": "le"}),
    ((9, "1d6x3"), (15, "3d6"), {"crits": True}),
    ((16, "1d20"), (12, "1d6x3"), {"crits": True, "success_rule": "le", "crit_bonus_1d20": 5}),
])
def test_resistance_matches_enumeration(attacker, resister, variants):
    rules = tun.Rules(**variants)
    res = tun.resist(rules, tun.CheckArgs(limit=attacker[0], dice=attacker[1]),
                     tun.CheckArgs(limit=resister[0], dice=resister[1]))
    success, resisted = resist_brute(attacker, resister, rules_dict(**variants))
    assert res.extra["p_attack_success"] == pytest.approx(float(success), abs=1e-12)
    assert res.extra["p_resisted"] == pytest.approx(float(resisted), abs=1e-12)
    assert res.extra["p_resist"] == pytest.approx(float(resisted / success), abs=1e-12)
    assert res.p_a_wins == pytest.approx(float(success - resisted), abs=1e-12)
    assert res.p_a_wins + res.p_b_wins == pytest.approx(1, abs=1e-12) and res.p_tie == 0
    assert res.margin.total() == pytest.approx(1, abs=1e-12)


def test_resistance_seed_example_balancing_against_a_shot_of_effectiveness_4():
    """«Красный ... должен сделать бросок для проверки балансирования с дополнительным штрафом 4»."""
    res = tun.resist(tun.Rules(), tun.CheckArgs(limit=10), tun.CheckArgs(limit=14))
    below_10 = Fraction(sum(1 for r, _ in enumerate_dice(range(1, 7), 3) if sum(r) < 14 - 4), 216)
    assert res.extra["resist_by_effectiveness"]["4"] == pytest.approx(float(below_10), abs=1e-12)
    assert res.extra["p_resist"] is not None


def test_resistance_cli(capsys):
    code = main(["opposed", "tun", "--a", "limit=12", "--b", "limit=13", "--mode", "resist", "--json"])
    data = json.loads(capsys.readouterr().out)
    success, resisted = resist_brute((12, "3d6"), (13, "3d6"), BOOK)
    assert code == 0 and data["mode"] == "resist"
    assert data["p_a_wins"] == pytest.approx(float(success - resisted), abs=1e-12)
    code = main(["opposed", "tun", "--a", "limit=12", "--b", "limit=13", "--mode", "resist"])
    out = capsys.readouterr().out
    assert code == 0 and "resistance (c)" in out and "p_resist" in out


# -------------------------------------------------------------------- exchange
EXCHANGES = [
    ("red", "blue", {}, {}),
    ("red", "archetype=blue,moving=true,size=1", {"distance": 33}, {"aim": "head"}),
    ("veteran", "master", {"crits": True}, {}),
    ("master", "berserker", {"success_rule": "le", "size_bonus": True}, {"size": 1}),
    ("novice_armed", "trained", {"crits": True, "success_rule": "le"}, {"dice": "1d20", "moving": True}),
    ("trained", "novice", {"crits": True, "crit_bonus_1d6x3": 1}, {"dice": "1d6x3", "weapon_n": 3, "weapon_b": 2}),
    ("veteran", "trained", {"death_multiple": 1, "defense_divisor": 4}, {"weapon_b": 6}),
]


@pytest.mark.parametrize("a_name,b_name,variants,change", EXCHANGES)
def test_exchange_matches_enumeration(a_name, b_name, variants, change):
    rules = tun.Rules(**variants)
    att, dfn = fighter(a_name).replace(**change), fighter(b_name)
    res = tun.exchange(rules, att, dfn)
    brute = attack_brute(sheet(att), sheet(dfn), rules_dict(**variants))
    miss = sum((p for p, t in brute if t is None), Fraction(0))
    dmg, after = {}, {}
    line = rules.death_multiple * volume(sheet(dfn))
    for p, t in brute:
        dmg[t or 0] = dmg.get(t or 0, 0) + p
        t = t or 0
        key = "dying" if t > line else f"out (trauma {t})" if t >= volume(sheet(dfn)) else f"trauma {t}"
        after[key] = after.get(key, 0) + p
    assert res.p_miss == pytest.approx(float(miss), abs=1e-12)
    assert res.p_hit == pytest.approx(float(1 - miss), abs=1e-12)
    assert res.p_defended == 0 and res.p_graze == 0
    for d, p in dmg.items():
        assert res.damage.pmf(d) == pytest.approx(float(p), abs=1e-12)
    assert set(res.condition_after) == {k for k, p in after.items() if p > 0}
    for k, p in after.items():
        assert res.condition_after.get(k, 0.0) == pytest.approx(float(p), abs=1e-12)
    assert res.notes[0].endswith(f"= {limit_brute(sheet(att), sheet(dfn), rules_dict(**variants))}")


def test_resolve_conditions_and_criticals():
    red, blue = fighter("red"), fighter("blue")
    agreed = tun.Rules()
    out = tun.resolve(agreed, red, blue, {"attack": 5})  # E = 8: 17 trauma >= volume 12
    assert out.damage == 17 and out.fields["condition"] == "out"
    crit = tun.resolve(agreed.replace(crits=True), red, blue, {"attack": 3})  # E = 10 + 6: 33 > 2 x 12
    assert crit.fields["critical"] and crit.damage == 33 and crit.fields["condition"] == "dying"
    weak = red.replace(attack_feature=-12)
    assert tun.resolve(agreed.replace(crits=True), weak, blue, {"attack": 3}).damage == (0 + 6) * 2 + 1
    assert tun.resolve(agreed.replace(crits=True, crit_bonus_3d6=1), weak, blue, {"attack": 3}).damage == 3
    assert not tun.resolve(tun.Rules(crits=True, success_rule="le"), red.replace(attack_feature=12), blue,
                           {"attack": 18}).hit
    assert tun.resolve(agreed.replace(death_multiple=1), red, blue, {"attack": 5}).fields["condition"] == "dying"


# ----------------------------------------------------------------------- duels
SMALL = [
    (dict(body=4, attack_feature=8), dict(body=5, attack_feature=7, extra_volume=1, weapon_b=1), {}),
    (dict(body=4, attack_feature=8), dict(body=5, attack_feature=7, extra_volume=1, weapon_b=1), {"last_word": False}),
    (dict(body=5, attack_feature=9, weapon_n=2, weapon_b=1), dict(body=5, attack_feature=8, extra_defense=1, weapon_n=2),
     {"turn_order": "roll", "last_word": False}),
    (dict(body=3, attack_feature=9, weapon_n=3, weapon_b=2), dict(body=4, attack_feature=6, weapon_n=2, dice="1d6x3"),
     {"dying_last_word": False}),
    (dict(body=6, attack_feature=4, dice="1d20", defends=False), dict(body=3, attack_feature=10, extra_volume=2),
     {"crits": True, "success_rule": "le"}),
    # shooting: distance, size, a moving target, aimed shots, the agreed convention, size both ways
    (dict(body=5, attack_feature=9, ranged=True, aim="leg"),
     dict(body=5, attack_feature=8, moving=True, size=1, ranged=True), {"distance": 25}),
    (dict(body=5, attack_feature=9, ranged=True, moving=True), dict(body=4, attack_feature=8, size=-1, weapon_b=1,
                                                                   ranged=True),
     {"distance": 12, "ranged_defense": "moving", "size_bonus": True}),
    (dict(body=4, attack_feature=7, moving=True, weapon_n=2), dict(body=5, attack_feature=6, size=1), {"crits": True}),
    # turns: reaction, delay, initiative skip, both
    (dict(body=4, attack_feature=8, reaction=1), dict(body=5, attack_feature=7, weapon_b=1), {"turn_order": "reaction"}),
    (dict(body=5, attack_feature=8, turn_policy="delay", weapon_b=1), dict(body=4, attack_feature=8, weapon_n=2), {}),
    (dict(body=5, attack_feature=8, weapon_b=1), dict(body=4, attack_feature=8, turn_policy="initiative_skip"), {}),
    (dict(body=5, attack_feature=8, turn_policy="delay"), dict(body=4, attack_feature=9, turn_policy="initiative_skip"),
     {}),
    (dict(body=4, attack_feature=8, turn_policy="delay"), dict(body=4, attack_feature=8, turn_policy="initiative_skip"),
     {"actions_per_turn": 3, "initiative_skip_cost": 2}),
    (dict(body=4, attack_feature=8, turn_policy="delay", weapon_b=1), dict(body=4, attack_feature=7, extra_volume=1),
     {"actions_per_turn": 3, "turn_order": "roll", "dying_last_word": False}),
    # finishing
    (dict(body=4, attack_feature=8, weapon_n=2), dict(body=5, attack_feature=7, weapon_b=1),
     {"after_out": "finish"}),
    (dict(body=5, attack_feature=9, ranged=True, moving=True, turn_policy="delay"), dict(body=4, attack_feature=8),
     {"after_out": "finish", "finish_attacks": 2, "lethal_at": "dead"}),
    (dict(body=4, attack_feature=7, dice="1d20"), dict(body=4, attack_feature=8, turn_policy="initiative_skip"),
     {"after_out": "finish", "dying_last_word": False, "crits": True}),
    # house rules that change the fight's shape
    (dict(body=4, attack_feature=8), dict(body=5, attack_feature=7, weapon_b=1),
     {"death_multiple": 1, "last_word_trauma": 2, "after_out": "finish"}),
    (dict(body=4, attack_feature=8, weapon_n=2), dict(body=5, attack_feature=7),
     {"actions_per_turn": 1, "last_word_actions": 2}),
    (dict(body=5, attack_feature=7, ranged=True, aim="arm"), dict(body=5, attack_feature=6, moving=True, ranged=True),
     {"defense_divisor": 5, "moving_penalty": 2, "aim_penalty_arm": 0, "distance": 40, "distance_step": 20,
      "distance_penalty": 2}),
]


@pytest.mark.parametrize("a_kw,b_kw,variants", SMALL)
def test_small_duels_match_brute_force_recursion(a_kw, b_kw, variants):
    rules = tun.Rules(**variants)
    a, b = tun.Fighter(**a_kw), tun.Fighter(**b_kw)
    res = tun.duel(rules, a, b)
    s = res.solution
    want = duel_brute(sheet(a), sheet(b), rules_dict(**variants))
    for name in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dying", "p_b_dying"):
        assert getattr(s, name) == pytest.approx(want[name], abs=1e-10), name
    assert s.mean_rounds == pytest.approx(want["mean_rounds"], rel=1e-9)
    assert s.p_stalemate == 0 and s.truncation < 1e-12
    assert s.p_a_wins + s.p_b_wins + s.p_both_out == pytest.approx(1, abs=1e-9)
    assert sum(s.rounds.values()) + s.rounds_tail == pytest.approx(1, abs=1e-9)
    if rules.after_out == "finish":
        assert s.finish_attacks == pytest.approx(want["finish_attacks"], rel=1e-9)
    else:
        assert s.finish_attacks is None
    assert s.states <= SYSTEM.duel_states(rules, a, b)


AIMED = [
    # disarm: an armed fighter fights on with its fists; a thrower disarmed beyond reach can do nothing
    (dict(body=5, attack_feature=12, ranged=True, aim="hand"), dict(body=5, attack_feature=8, weapon_n=2, weapon_b=1),
     {}),
    (dict(body=4, attack_feature=7, ranged=True, aim="arm", weapon_b=1), dict(body=4, attack_feature=9, weapon_n=2,
                                                                             weapon_b=1), {"after_out": "finish"}),
    (dict(body=4, attack_feature=9, ranged=True, aim="arm", weapon_b=1),
     dict(body=5, attack_feature=9, ranged=True, weapon_n=2), {"distance": 15, "after_out": "finish"}),
    # immobilise: no moving defence under ranged_defense=moving, no moving penalty on its own attacks
    (dict(body=4, attack_feature=12, ranged=True, aim="knee"), dict(body=5, attack_feature=9, moving=True, ranged=True,
                                                                   weapon_b=1),
     {"ranged_defense": "moving", "after_out": "finish"}),
    (dict(body=5, attack_feature=9, ranged=True, aim="foot", weapon_b=1), dict(body=4, attack_feature=9, moving=True),
     {}),
    # stun: lost actions, the last word, renewal, turn options
    (dict(body=5, attack_feature=10, ranged=True, aim="head"), dict(body=5, attack_feature=8, weapon_b=1), {}),
    (dict(body=5, attack_feature=10, ranged=True, aim="head", weapon_n=2), dict(body=4, attack_feature=9, weapon_n=2),
     {}),
    (dict(body=5, attack_feature=10, ranged=True, aim="head", weapon_n=2), dict(body=4, attack_feature=9, weapon_n=2),
     {"aim_effects": "while_up"}),
    (dict(body=5, attack_feature=10, ranged=True, aim="head", weapon_n=2), dict(body=4, attack_feature=9, weapon_n=2),
     {"aim_effects": "none"}),
    (dict(body=4, attack_feature=10, ranged=True, aim="head", turn_policy="delay", weapon_b=1),
     dict(body=4, attack_feature=8, turn_policy="initiative_skip"), {"stun_actions": 2}),
    (dict(body=5, attack_feature=10, ranged=True, aim="head", weapon_n=2), dict(body=4, attack_feature=9, weapon_n=2),
     {"last_word_actions": 2, "actions_per_turn": 3, "stun_actions": 3}),
    (dict(body=4, attack_feature=11, ranged=True, aim="head"), dict(body=4, attack_feature=10, ranged=True, aim="arm",
                                                                   weapon_b=1), {"turn_order": "roll", "distance": 8}),
    (dict(body=4, attack_feature=11, ranged=True, aim="head"), dict(body=5, attack_feature=9, weapon_b=1),
     {"stun_actions": 0, "after_out": "finish", "dying_last_word": False}),
]


@pytest.mark.parametrize("a_kw,b_kw,variants", AIMED)
def test_aimed_shots_match_brute_force_recursion(a_kw, b_kw, variants):
    """Disarm, immobilise and stun in the chain against the recursion written from the seed's «что бы обездвижить…
    не мог ничего держать… оглушить» with the lab's numbers, action by action."""
    rules = tun.Rules(**variants)
    a, b = tun.Fighter(**a_kw), tun.Fighter(**b_kw)
    s = tun.duel(rules, a, b).solution
    want = duel_brute(sheet(a), sheet(b), rules_dict(**variants))
    for name in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dying", "p_b_dying"):
        assert getattr(s, name) == pytest.approx(want[name], abs=1e-9), name
    assert s.mean_rounds == pytest.approx(want["mean_rounds"], rel=1e-9)
    if rules.after_out == "finish":
        assert s.finish_attacks == pytest.approx(want["finish_attacks"], rel=1e-9)
    assert s.p_stalemate == 0 and s.p_a_wins + s.p_b_wins + s.p_both_out == pytest.approx(1, abs=1e-9)
    assert s.states <= SYSTEM.duel_states(rules, a, b)


# Two fighters who always hit (3d6 <= 18 < limit): A (Body 20, first) puts B out, dying, with any hit
# (E*1 + 20 >= 21 > 2 x 7), and B's blow puts A out (E*2 + 18 >= 20).
SURE_A = tun.Fighter(body=20, attack_feature=12, weapon_b=20, ranged=True, defends=False)
SURE_B = tun.Fighter(body=7, attack_feature=12, weapon_n=2, weapon_b=18, defends=False)


def test_a_head_hit_that_puts_the_target_out_takes_its_last_word():
    """A's head shot puts B out before B's turn: stunned (aim_effects=always), B loses its last word and A wins;
    when only a hit that leaves the target up stuns (while_up), or without effects, B's last word fells A too."""
    a = SURE_A.replace(aim="head")
    assert tun.attack_limit(tun.Rules(), a, SURE_B) == 29 and tun.attack_limit(tun.Rules(), SURE_B, a) == 19
    assert tun.duel(tun.Rules(), a, SURE_B).solution.p_a_wins == pytest.approx(1, abs=1e-12)
    for reading in ("while_up", "none"):
        assert tun.duel(tun.Rules(aim_effects=reading), a, SURE_B).solution.p_both_out == pytest.approx(1, abs=1e-12)


def test_a_disarmed_last_word_is_a_fist():
    """A's hand shot puts B out: disarmed, B's last word is E*1 + 0 <= 16 against A's volume 20; armed (while_up)
    its E*2 + 18 puts A out."""
    a = SURE_A.replace(aim="hand")
    assert tun.duel(tun.Rules(), a, SURE_B).solution.p_a_wins == pytest.approx(1, abs=1e-12)
    assert tun.duel(tun.Rules(aim_effects="while_up"), a, SURE_B).solution.p_both_out == pytest.approx(1, abs=1e-12)


def test_a_stun_of_a_whole_turn_renewed_every_turn_keeps_the_target_from_acting():
    """A (Body 24, first) hits B's head every time (limit 24 + 12 - 14 - 3 = 19 > 18) for E*1 + 0 <= 16, so two
    hits (<= 32) never put B (volume 35) out in a turn; B puts A out with any blow (limit 35, E*2 + 20 >= 54).
    Losing stun_actions = 2 = a whole turn, renewed by every hit, B never acts and A wins; losing one action a
    turn, or none, B's next action ends it."""
    a = tun.Fighter(body=24, attack_feature=12, ranged=True, aim="head", defends=False)
    b = tun.Fighter(body=23, extra_volume=12, extra_defense=2, attack_feature=12, weapon_n=2, weapon_b=20)
    assert tun.attack_limit(tun.Rules(), a, b) == 19 and tun.attack_limit(tun.Rules(), b, a) == 35
    assert tun.duel(tun.Rules(stun_actions=2), a, b).solution.p_a_wins == pytest.approx(1, abs=1e-12)
    for rules in (tun.Rules(), tun.Rules(aim_effects="none")):
        assert tun.duel(rules, a, b).solution.p_b_wins == pytest.approx(1, abs=1e-12)


def test_a_melee_fighter_beyond_reach_is_refused_in_one_line(capsys):
    """A duel has no movement: a melee fighter at 45 m (reach 2 m) is refused, naming distance, reach and what to
    do; a thrower at 45 m, or a melee fighter within a wider melee_reach, is not."""
    code = main(["duel", "tun", "--a", "trained_armed", "--b", "red", "--variant", "distance=45"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    for words in ("distance = 45 is not allowed", "melee_reach = 2 m", "A (trained_armed) fights in melee",
                  "no movement"):
        assert words in err
    for command in ("exchange", "sim"):
        assert main([command, "tun", "--a", "blue", "--b", "red", "--variant", "distance=45"]) == 2
        assert "melee_reach" in capsys.readouterr().err
    assert main(["exchange", "tun", "--a", "red", "--b", "blue", "--variant", "distance=45", "--json"]) == 0
    capsys.readouterr()
    near = tun.Rules(distance=45, melee_reach=50)
    assert tun.duel(near, fighter("trained_armed"), fighter("red")).solution.p_stalemate == 0
    with pytest.raises(DicelabError, match="B \\(blue\\) fights in melee"):
        tun.duel(tun.Rules(distance=3), fighter("red"), fighter("blue"))


def test_tools_that_try_many_duels_skip_a_melee_fighter_beyond_reach_with_a_note():
    """design (varying ``ranged``) and the house comparison of archetypes (report, ``rules diff``) note the refusal
    and go on with the rest."""
    from analysis.tools.design import design
    from analysis.tools.house_compare import duel_rows

    rules = tun.Rules(distance=45)
    res = design(SYSTEM, rules, fighter("red"), fighter("red"), "b.ranged=0..1", rounds=3, lethality=0.1,
                 workers=1)
    assert [p.setting for p in res.best] == [{"b.ranged": 1}]
    assert len(res.skipped) == 1 and "b.ranged=0" in res.skipped[0] and "melee_reach = 2 m" in res.skipped[0]
    rows = duel_rows("tun", rules, tun.Rules(distance=45, stun_actions=2)).set_index("archetype")
    assert rows.loc["red", "p_a_wins_house"] is not None and rows.loc["red", "note"] == ""
    melee = rows.loc["trained_armed"]
    assert math.isnan(melee["p_a_wins_house"]) and "melee_reach" in melee["note"]


def test_aimed_shots_are_said_in_every_output(capsys):
    rules = tun.Rules()
    a = fighter("archetype=red,aim=head")
    assert "the target loses its next 1 action(s)" in tun.exchange(rules, a, fighter("blue")).notes[-1]
    assert "A's hit on the head stuns" in tun.duel(rules, a, fighter("blue")).order
    res = tun.resolve(rules, fighter("archetype=red,aim=arm"), fighter("trained_armed"), {"attack": 5})
    assert res.fields["effect"] == "disarm" and res.steps[-1].startswith("the hit on the arm disarms")
    assert tun.resolve(rules, a, fighter("blue"), {"attack": 17}).fields["effect"] is None
    code = main(["duel", "tun", "--a", "archetype=red,aim=leg", "--b", "archetype=blue,moving=true", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["a"]["aim"] == "leg" and "immobilises" in data["order"]
    assert {"aim_effects", "stun_actions", "melee_reach", "ranged_defense"} <= set(data["variants"])


def test_the_chain_grows_only_by_the_effects_that_can_change_a_fight():
    """One state per condition without aim; x2 for a disarm or an immobilisation that matters; x(stun_actions + 1)
    for a stun; an effect that changes nothing (a leg shot at a fighter who never moves) adds none."""
    rules = tun.Rules()
    plain = len(tun.track(rules, fighter("veteran")))
    shooter = fighter("archetype=red,aim=leg")
    assert len(tun.duel_track(rules, fighter("veteran"), shooter)) == plain
    assert len(tun.duel_track(rules, fighter("archetype=veteran,moving=true"), shooter)) == 2 * plain
    assert len(tun.duel_track(rules, fighter("veteran"), shooter.replace(aim="hand"))) == 2 * plain
    assert len(tun.duel_track(rules, fighter("blue"), shooter.replace(aim="hand"))) == len(tun.track(rules, fighter(
        "blue")))  # already unarmed
    assert len(tun.duel_track(rules.replace(stun_actions=3), fighter("veteran"), shooter.replace(aim="head"))) \
        == 4 * plain


def test_delay_takes_the_last_word_away_from_the_opponent():
    """A (first, always hits for the kill) against B (always hits for the kill): acting in turn, A kills B and B's
    last word kills A; delaying, A is killed by B's first action and answers with its own last word only."""
    a = tun.Fighter(body=24, attack_feature=12, weapon_n=2, weapon_b=20, defends=False)
    b = tun.Fighter(body=23, attack_feature=12, weapon_n=2, weapon_b=20, defends=False)
    plain = tun.duel(tun.Rules(), a, b).solution
    assert plain.p_both_out == pytest.approx(1, abs=1e-12)
    delayed = tun.duel(tun.Rules(), a.replace(turn_policy="delay"), b).solution
    assert delayed.p_both_out == pytest.approx(1, abs=1e-12)
    silent = tun.Rules(last_word=False)
    assert tun.duel(silent, a.replace(turn_policy="delay"), b).solution.p_b_wins == pytest.approx(1, abs=1e-12)
    skipping = tun.duel(silent, a, b.replace(turn_policy="initiative_skip")).solution
    assert skipping.p_a_wins == pytest.approx(1, abs=1e-12)  # B skips round 1: A's first action ends it
    both = tun.duel(silent, a.replace(turn_policy="delay"), b.replace(turn_policy="initiative_skip")).solution
    assert both.p_a_wins == pytest.approx(1, abs=1e-12)


def test_last_word_only_for_the_fighter_yet_to_act():
    """A (higher Body, first) puts B out with any hit (3d6 < 10: 81/216); B always hits and puts A out.
    B put out in A's turn strikes back once (both out); A put out in B's turn has already acted: no last word."""
    a = tun.Fighter(body=24, attack_feature=-2, weapon_n=3, weapon_b=20, defends=False)
    b = tun.Fighter(body=23, attack_feature=12, weapon_n=2)
    assert tun.attack_limit(tun.Rules(), a, b) == 10 and tun.attack_limit(tun.Rules(), b, a) == 35
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
    assert on.p_b_dying > off.p_b_dying
    assert on.p_b_dying == pytest.approx(duel_brute(sheet(a), sheet(b), BOOK)["p_b_dying"], abs=1e-12)


def test_no_one_can_hurt_anyone_is_a_stalemate():
    weak = tun.Fighter(body=2, attack_feature=-3)
    res = tun.duel(tun.Rules(), weak, weak).solution
    assert res.p_stalemate == 1 and res.p_a_wins == res.p_b_wins == 0


def test_reaction_order_then_body_then_a_roll():
    rules = tun.Rules(turn_order="reaction")
    assert tun.first_mover(rules, tun.Fighter(reaction=1), tun.Fighter(reaction=0, body=20))[:2] == (1.0, 0.0)
    assert tun.first_mover(rules, tun.Fighter(reaction=1), tun.Fighter(reaction=1, body=11))[:2] == (0.0, 1.0)
    assert tun.first_mover(rules, tun.Fighter(), tun.Fighter())[:2] == (0.5, 0.5)
    assert tun.first_mover(tun.Rules(), tun.Fighter(reaction=5), tun.Fighter(body=11))[:2] == (0.0, 1.0)


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
        assert ab.states <= SYSTEM.duel_states(rules, a, b)


def test_finishing_the_trained_armed_mirror_kills():
    """Issue 11: the trained_armed mirror has P(killed) > 0 under finish; ТУН has no dead level (null)."""
    f = fighter("trained_armed")
    stop = tun.duel(tun.Rules(), f, f).to_dict()
    done = tun.duel(tun.Rules(after_out="finish"), f, f).to_dict()
    assert done["p_a_killed"] > stop["p_a_killed"] and done["p_a_killed"] > 0.4
    assert done["p_a_killed"] == done["p_a_dying"] and done["mean_finish_attacks"] > 0
    assert done["p_a_wins"] == pytest.approx(stop["p_a_wins"], abs=1e-12)
    dead = tun.duel(tun.Rules(after_out="finish", lethal_at="dead"), f, f).to_dict()
    assert dead["p_a_dead"] is None and dead["p_a_killed"] is None and "p_a_killed" in dead["null_reasons"]
    assert dead["p_a_dying"] == pytest.approx(done["p_a_dying"], abs=1e-12)


@pytest.mark.parametrize("variant", [dict(last_word=False), dict(dying_last_word=False), dict(turn_order="roll"),
                                     dict(turn_order="reaction"), dict(crits=True), dict(success_rule="le"),
                                     dict(ranged_defense="moving"), dict(size_bonus=True), dict(after_out="finish"),
                                     dict(aim_effects="while_up"), dict(aim_effects="none"), dict(stun_actions=3)])
def test_every_variant_duels(variant):
    res = tun.duel(tun.Rules(**variant), fighter("veteran"), fighter("archetype=red,aim=head")).solution
    assert res.p_a_wins + res.p_b_wins + res.p_both_out == pytest.approx(1, abs=1e-9)


def test_house_rules_are_echoed_and_change_the_fight():
    f = fighter("trained_armed")
    book = tun.duel(tun.Rules(), f, f).to_dict()
    house = tun.duel(tun.Rules(death_multiple=1, actions_per_turn=3), f, f).to_dict()
    assert book["house_rules"] == {} and house["house_rules"] == {"death_multiple": 1, "actions_per_turn": 3}
    assert house["p_a_dying"] > book["p_a_dying"] and house["mean_rounds"] < book["mean_rounds"]


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


# ------------------------------------------------------------------------- CLI
def test_every_archetype_has_a_note():
    assert {"novice", "novice_armed", "trained", "trained_armed", "veteran", "master", "red", "blue"} <= set(ARCHETYPES)
    for name, entry in archetypes("tun").items():
        assert entry.get("note"), name


def test_exchange_cli_contract(capsys):
    """The seed's knife throw by default: limit 13 + 6 - 6 = 13, a hit below 13 (160 of 216)."""
    code = main(["exchange", "tun", "--a", "red", "--b", "blue", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["system"] == "tun" and data["variants"]["ranged_defense"] == "defends"
    assert data["notes"][0] == "limit Body 13 + attack feature 6 - Body defense (the target defends) 6 = 13"
    assert data["p_hit"] == pytest.approx(160 / 216) and data["p_miss"] == pytest.approx(56 / 216)
    assert {"success_rule", "crits", "last_word", "dying_last_word", "turn_order", "ranged_defense", "size_bonus",
            "death_multiple", "distance"} <= set(data["variants"])
    assert data["attacker"]["derived"] == {"body_volume": 13, "body_defense": 7}
    assert {"defends", "moving", "aim", "turn_policy", "ranged", "size", "reaction"} <= set(data["attacker"])


def test_resolve_cli_json(capsys):
    code = main(["resolve", "tun", "--a", "red", "--b", "blue", "--rolls", "attack=11", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["hit"] is True and data["damage"] == 5 and data["marked"] == 5
    assert data["limit"] == 13 and data["effectiveness"] == 2 and data["condition"] == "up" and data["steps"]


def test_resolve_cli_text_prints_every_step(capsys):
    code = main(["resolve", "tun", "--a", "archetype=red,aim=leg", "--b", "archetype=blue,moving=true",
                 "--rolls", "attack=11", "--variant", "distance=15"])
    out = capsys.readouterr().out
    assert code == 0
    for words in ("Body 13 + attack feature 6 - Body defense (the target defends) 6 - distance 15 m 1 "
                  "- aimed at the leg 1 = 11", "3d6 = 11 < 11? no: miss", "=> hit=false"):
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


def test_policy_on_a_melee_fighter_is_refused_by_the_cli(capsys):
    code = main(["duel", "tun", "--a", "archetype=trained,aim=head", "--b", "trained"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "aim = 'head'" in err


def test_duel_cli_contract(capsys):
    code = main(["duel", "tun", "--a", "archetype=veteran,turn_policy=delay", "--b", "red", "--variant",
                 "last_word=false", "--variant", "after_out=finish", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["variants"]["last_word"] is False and data["p_both_out"] == 0
    assert data["a"]["turn_policy"] == "delay" and "B x1, A x2, B x1" in data["order"]
    for key in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dying", "p_b_dying", "p_a_killed", "p_stalemate",
                "rounds", "mean_rounds", "median_rounds", "states", "order", "final", "mean_finish_attacks"):
        assert key in data
    assert data["p_a_dead"] is None and data["mean_finish_attacks"] >= 0
    assert abs(data["p_a_wins"] + data["p_b_wins"] + data["p_both_out"] + data["p_stalemate"] - 1) < 1e-9


def test_seedcheck_warns_and_shows_both_columns(capsys):
    code = main(["seedcheck", "tun", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and "one row" in data["warning"] and data["variants"]["success_rule"] == "lt"
    for c in data["cells"]:
        below = sum((p for v, p in tun_rolls(c["dice"]) if v < c["v"]), Fraction(0))
        assert c["p_success"] == pytest.approx(float(below), abs=1e-12)
    le = main(["seedcheck", "tun", "--variant", "success_rule=le", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert le == 0 and all(c["p_success"] == pytest.approx(c["exact"], abs=1e-6) for c in data["cells"])
    code = main(["seedcheck", "tun"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("warning:") and "P(<=v)" in out and "P(succ)" in out
