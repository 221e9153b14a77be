"""К.У.Р.С. group fights (analysis/systems/kurs/groups.py, sims/kurs.py, RULES.md section 7): one against one is the
duel; the exact chain against a turn-by-turn forward recursion written here from the rule text on short tracks; the
Monte Carlo kernel against the exact chain within 4 standard errors; the cumulative extra-defense penalty at work."""

from __future__ import annotations

import itertools
from functools import lru_cache

import pytest

from analysis.base.params import DicelabError
from analysis.systems import get_system, kurs
from analysis.systems.kurs import groups as group_mod
from sims.api import simulate_group

SYSTEM = get_system("kurs")
F = kurs.Fighter
SHORT = dict(track=(1, 1, 0, 0, 1, 1), fatigue_soak="never")
"""A short track: one fatigue box, one light, no medium or heavy, then incapacitated and dying (no penalties)."""


@pytest.mark.parametrize("variants,a,b", [
    ({}, F(attack_skill=1, weapon=2, agility=1), F(weapon=3, stance="offensive")),
    (dict(after_out="finish", luck_tokens=1), F(attack_skill=1, weapon=2), F(weapon=3, effort_dodge="wound")),
    (dict(surprise="a", trade_cost="fatigue"), F(weapon=2, stance="defensive"), F(weapon=3, stance="no_defense")),
])
def test_one_against_one_is_the_duel_in_the_group_chain_and_by_dispatch(variants, a, b):
    rules = kurs.Rules(**variants)
    duel = kurs.duel(rules, a, b).solution
    for got in (group_mod.chain_group(rules, [a], [b]).solution, SYSTEM.group(rules, [a], [b]).solution):
        assert got.p_a_wins == pytest.approx(duel.p_a_wins, abs=1e-12)
        assert got.p_b_wins == pytest.approx(duel.p_b_wins, abs=1e-12)
        assert got.p_both_out == pytest.approx(duel.p_both_out, abs=1e-12)
        assert got.mean_rounds == pytest.approx(duel.mean_rounds, abs=1e-12)
        for f, side in zip(got.fighters, "ab"):
            assert f.p_out == pytest.approx(getattr(duel, f"p_{side}_out"), abs=1e-12)
            assert f.p_dying == pytest.approx(getattr(duel, f"p_{side}_dying"), abs=1e-12)


# ------------------------------------------------------------------ a forward recursion from the rule text
def three_dk(faces=(-2, -1, 0, 0, 1, 2)):
    out = {}
    for roll in itertools.product(faces, repeat=3):
        out[sum(roll)] = out.get(sum(roll), 0.0) + 1 / len(faces) ** 3
    return out


def roll_off(agility):
    """{order: p}: each rolls 3dK + agility, highest first, the tied re-roll among themselves."""
    dk = three_dk()
    n = len(agility)
    if n == 1:
        return {(0,): 1.0}
    out, stay = {}, 0.0
    for rolls in itertools.product(dk.items(), repeat=n):
        p = 1.0
        for _, q in rolls:
            p *= q
        totals = [v + agility[i] for i, (v, _) in enumerate(rolls)]
        levels = sorted(set(totals), reverse=True)
        if len(levels) == 1:
            stay += p
            continue
        parts = [[i for i in range(n) if totals[i] == v] for v in levels]
        for pick in itertools.product(*[roll_off([agility[i] for i in part]).items() for part in parts]):
            q = p
            order = []
            for part, (perm, w) in zip(parts, pick):
                q *= w
                order += [part[k] for k in perm]
            out[tuple(order)] = out.get(tuple(order), 0.0) + q
    return {k: v / (1 - stay) for k, v in out.items()}


def brute(fighters, n_a, extra_penalty, turns=3000):
    """(P(A wins), P(B wins), P(both out), P(dying) per fighter, mean rounds) on the short track, plain fighters
    (normal stance, no luck, no dodge), weakest targets, after_out = stop: the distribution pushed turn by turn."""
    dk = three_dk()
    track, table = (1, 1, 0, 0, 1, 1), (1, 3, 5, 7, 8, 9)
    side = [0 if i < n_a else 1 for i in range(len(fighters))]

    def clamp(r):
        return r if r > 0 else (0 if r >= -4 else -1)

    @lru_cache(maxsize=None)
    def damage(i, j, extra):
        att, dfn = fighters[i], fighters[j]
        out = {}
        for ra, pa in dk.items():
            for rd, pd in dk.items():
                margin = att.attack_skill + ra - (dfn.defense_skill + clamp(rd) - extra)
                base = att.weapon + att.strength - dfn.health - dfn.armor
                d = 0 if margin < 0 else max(0, min(1, base)) if margin == 0 else max(0, margin + base)
                out[d] = out.get(d, 0.0) + pa * pd
        return out

    def mark(boxes, d):
        levels = [k for k, least in enumerate(table) if d >= least]
        if not levels:
            return boxes
        level = levels[-1]
        while level < 5 and boxes[level] >= track[level]:
            level += 1
        return boxes[:level] + (boxes[level] + 1,) + boxes[level + 1:]

    def up(b):
        return b[4] == 0 and b[5] == 0

    def able(bs, s):
        return any(up(b) for i, b in enumerate(bs) if side[i] == s)

    fresh = tuple((0,) * 6 for _ in fighters)
    dist = {}
    for order, p in roll_off([f.agility for f in fighters]).items():
        dist[(order, 0, fresh, (0,) * len(fighters))] = p
    ends = {}
    rounds_mass = 1.0  # E[rounds] = the mass of every round's start, the first included
    for _ in range(turns):
        if sum(dist.values()) < 1e-15:  # what is left bounds every figure's error far below the test's 1e-9
            break
        new = {}
        for (order, pos, bs, defs), p in dist.items():
            if not (able(bs, 0) and able(bs, 1)):
                key = tuple(bs)
                ends[key] = ends.get(key, 0.0) + p
                continue
            if pos == len(order):
                rounds_mass += p
                new[(order, 0, bs, defs)] = new.get((order, 0, bs, defs), 0.0) + p
                continue
            i = order[pos]
            if not up(bs[i]):
                new[(order, pos + 1, bs, defs)] = new.get((order, pos + 1, bs, defs), 0.0) + p
                continue
            enemies = [j for j in range(len(bs)) if side[j] != side[i] and up(bs[j])]
            j = min(enemies, key=lambda k: (tuple(-x for x in reversed(bs[k])), k))
            d2 = list(defs)
            d2[i] = 0
            extra = extra_penalty * d2[j]
            d2[j] += 1
            for d, q in damage(i, j, extra).items():
                b2 = list(bs)
                b2[j] = mark(bs[j], d)
                d3 = list(d2)
                if not up(b2[j]):
                    d3[j] = 0
                key = (order, pos + 1, tuple(b2), tuple(d3))
                new[key] = new.get(key, 0.0) + p * q
        dist = new
    assert sum(dist.values()) < 1e-12
    a = sum(p for bs, p in ends.items() if able(bs, 0) and not able(bs, 1))
    b = sum(p for bs, p in ends.items() if able(bs, 1) and not able(bs, 0))
    both = sum(p for bs, p in ends.items() if not able(bs, 0) and not able(bs, 1))
    dying = [sum(p for bs, p in ends.items() if bs[k][5]) for k in range(len(fighters))]
    return a, b, both, dying, rounds_mass


@pytest.mark.parametrize("side_a,side_b,extra", [
    ([F(attack_skill=2, weapon=3, agility=1)], [F(weapon=2), F(weapon=1, defense_skill=1)], 3),
    ([F(attack_skill=1, weapon=3), F(weapon=2, agility=1)], [F(weapon=3, attack_skill=2, defense_skill=1)], 1),
])
def test_the_exact_chain_agrees_with_a_forward_recursion_on_a_short_track(extra, side_a, side_b):
    rules = kurs.Rules(extra_defense_penalty=extra, **SHORT)
    got = group_mod.chain_group(rules, side_a, side_b).solution
    a, b, both, dying, rounds = brute(tuple(side_a) + tuple(side_b), len(side_a), extra)
    assert got.p_a_wins == pytest.approx(a, abs=1e-9)
    assert got.p_b_wins == pytest.approx(b, abs=1e-9)
    assert got.p_both_out == pytest.approx(both, abs=1e-9)
    assert got.mean_rounds == pytest.approx(rounds, abs=1e-9)
    for f, p in zip(got.fighters, dying):
        assert f.p_dying == pytest.approx(p, abs=1e-9)


def test_orders_follow_the_roll_off_and_number_copies_by_their_place():
    a, b, c = F(agility=1), F(), F(attack_skill=1)
    want = roll_off([1, 0, 0])
    got = dict((order, p) for p, order in group_mod.orders(kurs.Rules(), [a], [b, c]))
    assert got == pytest.approx(want, abs=1e-12)
    copies = dict((order, p) for p, order in group_mod.orders(kurs.Rules(), [a], [b, b]))
    assert set(copies) == {(0, 1, 2), (1, 0, 2), (1, 2, 0)}
    assert copies[(1, 0, 2)] == pytest.approx(want[(1, 0, 2)] + want[(2, 0, 1)], abs=1e-12)


def test_extra_defense_penalty_changes_group_results_and_not_duels():
    a, b = F(attack_skill=2, weapon=3, defense_skill=1), F(weapon=2, attack_skill=1)
    got = {x: group_mod.chain_group(kurs.Rules(extra_defense_penalty=x, **SHORT), [a], [b, b]).solution.p_a_wins
           for x in (0, 1, 3)}
    assert got[0] > got[1] + 0.005 > got[3] + 0.01
    duels = {x: SYSTEM.group(kurs.Rules(extra_defense_penalty=x), [a], [b]).solution.p_a_wins for x in (0, 3)}
    assert duels[0] == duels[3]


@pytest.mark.parametrize("variants,side_a,side_b", [
    (SHORT, [F(attack_skill=2, weapon=3, agility=1)], [F(weapon=2)] * 2),
    (dict(SHORT, after_out="finish", luck_tokens=1), [F(attack_skill=2, weapon=3)], [F(weapon=2, target="spread")] * 3),
    (dict(SHORT, surprise="b"), [F(attack_skill=1, weapon=3, target="random"), F(weapon=2, stance="offensive")],
     [F(weapon=2, effort_dodge="wound"), F(weapon=1, target="strongest")]),
])
def test_monte_carlo_agrees_with_the_exact_chain(variants, side_a, side_b):
    rules = kurs.Rules(**variants)
    exact = SYSTEM.group(rules, side_a, side_b).solution
    sim = simulate_group("kurs", rules, side_a, side_b, n=60_000, seed=7, workers=1)
    assert sim.p_unfinished.value == 0
    for name in ("p_a_wins", "p_b_wins", "p_both_out"):
        assert getattr(sim, name).agrees(getattr(exact, name))
    assert sim.mean_rounds.agrees(exact.mean_rounds)
    for k, f in enumerate(exact.fighters):
        assert sim.fighter(k)["p_out"].agrees(f.p_out)
        assert sim.fighter(k)["p_dying"].agrees(f.p_dying)


def test_group_states_is_an_upper_estimate_and_bad_sides_are_refused():
    rules = kurs.Rules(**SHORT)
    for side_a, side_b in (([F()], [F()] * 2), ([F(), F(weapon=1)], [F(weapon=2)] * 2)):
        assert group_mod.chain_group(rules, side_a, side_b).solution.states <= SYSTEM.group_states(rules, side_a, side_b)
    with pytest.raises(DicelabError, match="at least one fighter a side"):
        SYSTEM.group(rules, [], [F()])


def test_the_result_echoes_rules_sides_order_and_assumptions():
    rules = kurs.Rules(**SHORT)
    d = SYSTEM.group(rules, [F(name="hero")], [F(name="mook")] * 2).to_dict()
    assert d["variants"]["extra_defense_penalty"] == 1 and [f["name"] for f in d["side_b"]] == ["mook", "mook"]
    assert "roll-off" in d["order"] and "-1" in d["order"]
    assert "no_defense_bonus" not in str(d["assumptions"])
    assert sum(d["survivors_a"].values()) == pytest.approx(1.0, abs=1e-12)
