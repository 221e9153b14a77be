"""ТУН group fights (analysis/systems/tun/groups.py, sims/tun_groups.py, RULES.md section 7): one against one is the
duel; the exact chain against a round-by-round recursion written here from the rule text on short tracks; the
Monte Carlo kernel against the exact chain within 4 standard errors."""

from __future__ import annotations

import itertools
from functools import lru_cache

import pytest

from analysis.base.params import DicelabError
from analysis.fights.fighters import load_fighter
from analysis.systems import get_system, tun
from analysis.systems.tun import groups as group_mod
from sims.api import simulate_group
from tests.test_combat_tun import BOOK, limit_brute, outcome, sheet, volume
from tests.test_sims_tun import DUELS

SYSTEM = get_system("tun")


def fighter(spec):
    return load_fighter(SYSTEM, spec)


@pytest.mark.parametrize("variants,a,b", DUELS[::2] + [
    (dict(after_out="finish"), "archetype=red,aim=head,turn_policy=delay", "trained_armed"),
    (dict(stun_actions=2, aim_effects="while_up"), "archetype=red,aim=arm", "archetype=veteran,turn_policy=delay"),
])
def test_one_against_one_is_the_duel_in_the_group_chain_and_by_dispatch(variants, a, b):
    rules = tun.Rules(**variants)
    fa, fb = fighter(a), fighter(b)
    duel = tun.duel(rules, fa, fb).solution
    for got in (group_mod.chain_group(rules, [fa], [fb]).solution, SYSTEM.group(rules, [fa], [fb]).solution):
        assert got.p_a_wins == pytest.approx(duel.p_a_wins, abs=1e-12)
        assert got.p_b_wins == pytest.approx(duel.p_b_wins, abs=1e-12)
        assert got.p_both_out == pytest.approx(duel.p_both_out, abs=1e-12)
        assert got.mean_rounds == pytest.approx(duel.mean_rounds, abs=1e-12)
        for f, side in zip(got.fighters, "ab"):
            assert f.p_out == pytest.approx(getattr(duel, f"p_{side}_out"), abs=1e-12)
            assert f.p_dying == pytest.approx(getattr(duel, f"p_{side}_dying"), abs=1e-12)


# ------------------------------------------------------------------ a round-by-round recursion from the rule text
def group_brute(fighters, n_a, r):
    """(P(A wins), P(B wins), P(both out), each fighter's P(dying)) by recursion over round-start conditions.

    The order: by the turn-order key, ties in every arrangement alike (the fighters here are all distinct).  A
    round is walked action by action: each fighter in order takes its actions (a skipper, not first, none in round
    1, then it leads with one fewer); a delaying fighter acts right after the next one's first action; every
    action hits the attacker's target among the able enemies (weakest: least Body left; strongest: highest Body +
    feature; spread: attacked least this round; random: any; ties by listed order).  After each turn, fighters put
    out during it whose turn has not come speak their last word (in order; what they put out may speak too).  The
    fight ends when a side has nobody able; then the first able winner finishes each loser.  A round that changes
    nothing loops on itself (divided out); rounds from the third repeat.
    """
    f = [sheet(x) | {"target": x.target} for x in fighters]
    n = len(f)
    side = [0 if i < n_a else 1 for i in range(n)]
    vol = [volume(x) for x in f]
    line = [r["death_multiple"] * v for v in vol]
    acts = r["actions_per_turn"]

    @lru_cache(maxsize=None)
    def pmf(i, j, mode):
        limit = limit_brute(f[i], f[j], r, mode)
        acc = {}
        for value, p in rolls(f[i]["dice"]):
            ok, e = outcome(f[i]["dice"], limit, value, r)
            d = e * f[i]["weapon_n"] + f[i]["weapon_b"] if ok else 0
            acc[d] = acc.get(d, 0.0) + p
        return tuple(acc.items())

    def up(t, i):
        return t[i] < vol[i]

    def targets(i, t, hits):
        able = [j for j in range(n) if side[j] != side[i] and up(t, j)]
        if not able:
            return []
        pol = f[i]["target"]
        if pol == "random":
            return [(1 / len(able), j) for j in able]
        key = {"weakest": lambda j: vol[j] - t[j], "strongest": lambda j: -(f[j]["body"] + f[j]["attack_feature"]),
               "spread": lambda j: hits[j]}[pol]
        return [(1.0, min(able, key=lambda j: (key(j), j)))]

    def attack(i, t, hits, mode):
        """[(p, trauma, hits, put out)] of one action of i."""
        out = []
        for q, j in targets(i, t, hits) or []:
            h = tuple(c + (k == j) for k, c in enumerate(hits))
            for d, p in pmf(i, j, mode):
                u = list(t)
                u[j] = min(t[j] + d, line[j] + 1)
                if mode == "last_word":
                    u[i] = min(t[i] + r["last_word_trauma"], line[i] + 1)
                out.append((q * p, tuple(u), h, j if u[j] >= vol[j] else None))
        return out

    def turns(order, rnd):
        """The round's turns as (fighter, actions), from the seed's «Пошаговый бой»."""
        skippers = [i for k, i in enumerate(order) if k > 0 and f[i]["turn_policy"] == "initiative_skip"]
        if rnd > 1 and skippers:
            order = skippers + [i for i in order if i not in skippers]
        count = {i: 0 if (rnd == 1 and i in skippers) else acts - (r["initiative_skip_cost"] if rnd == 2 and i in
                                                                    skippers else 0) for i in order}
        seq = []
        waiting = {}
        pending_end = []
        for k, i in enumerate(order):
            if f[i]["turn_policy"] == "delay" and k < len(order) - 1 and count[i] > 0:
                waiting[order[k + 1]] = i
                continue
            go(i, count, waiting, seq, pending_end)
        for i in order:
            if i in waiting and count[i] == 0:
                go(waiting.pop(i), count, waiting, seq, pending_end)
        return seq

    def go(i, count, waiting, seq, pending_end):
        """i's turn: whole, or its first action, then whoever waited for it, then the rest."""
        if count[i] == 0 or i not in waiting:
            seq.append((i, count[i]))
            return
        seq.append((i, 1))
        go(waiting.pop(i), count, waiting, seq, pending_end)
        if count[i] > 1:
            seq.append((i, count[i] - 1))

    def play_round(order, rnd, t0):
        seq = turns(order, rnd)
        first_turn = {}
        for e, (i, _) in enumerate(seq):
            first_turn.setdefault(i, e)
        dist = {(t0, tuple(0 for _ in range(n))): 1.0}
        done = {}
        for e, (i, k) in enumerate(seq):
            nxt = {}
            for (t, hits), p in dist.items():
                stage = {(t, hits, ()): 1.0}
                for _ in range(k):
                    step = {}
                    for (u, h, down), q in stage.items():
                        if not up(u, i) or not targets(i, u, h):
                            step[(u, h, down)] = step.get((u, h, down), 0.0) + q
                            continue
                        for q2, u2, h2, j in attack(i, u, h, "normal"):
                            late = j is not None and first_turn[j] > e
                            key = (u2, h2, down + ((j,) if late else ()))
                            step[key] = step.get(key, 0.0) + q * q2
                    stage = step
                for (u, h, down), q in stage.items():
                    for (u2, h2), q2 in words(order, u, h, down, first_turn, e).items():
                        key = (u2, h2)
                        if not any(up(u2, j) for j in range(n) if side[j] == 0) or \
                                not any(up(u2, j) for j in range(n) if side[j] == 1):
                            done[u2] = done.get(u2, 0.0) + p * q * q2
                        else:
                            nxt[key] = nxt.get(key, 0.0) + p * q * q2
            dist = nxt
        for (t, _), p in dist.items():
            done[t] = done.get(t, 0.0) + p
        return done

    def words(order, t, hits, queue, first_turn, e):
        """The last words of ``queue`` (in order of play; whom they put out before their turn speak too)."""
        out = {}
        dist = {(t, hits, tuple(sorted(queue, key=order.index))): 1.0}
        while dist:
            nxt = {}
            for (u, h, q), p in dist.items():
                if not q:
                    out[(u, h)] = out.get((u, h), 0.0) + p
                    continue
                y, rest = q[0], q[1:]
                stage = {(u, h, rest): 1.0}
                if r["last_word"] and (r["dying_last_word"] or u[y] <= line[y]):
                    for _ in range(r["last_word_actions"]):
                        step = {}
                        for (u2, h2, q2), p2 in stage.items():
                            for p3, u3, h3, j in attack(y, u2, h2, "last_word") or [(1.0, u2, h2, None)]:
                                late = j is not None and first_turn[j] > e
                                key = (u3, h3, tuple(sorted(q2 + ((j,) if late else ()), key=order.index)))
                                step[key] = step.get(key, 0.0) + p2 * p3
                        stage = step
                for key, p2 in stage.items():
                    nxt[key] = nxt.get(key, 0.0) + p * p2
            dist = nxt
        return out

    def finish(order, t):
        if r["after_out"] != "finish":
            return {t: 1.0}
        able = [any(up(t, j) for j in range(n) if side[j] == s) for s in (0, 1)]
        if able[0] == able[1]:
            return {t: 1.0}
        w = next(i for i in order if up(t, i))
        dist = {t: 1.0}
        for v in range(n):
            if up(t, v) or side[v] == side[w]:
                continue
            limit = limit_brute(f[w], f[v], r, "helpless")
            for _ in range(r["finish_attacks"]):
                new = {}
                for u, p in dist.items():
                    if u[v] > line[v]:
                        new[u] = new.get(u, 0.0) + p
                        continue
                    for value, q in rolls(f[w]["dice"]):
                        ok, e = outcome(f[w]["dice"], limit, value, r)
                        u2 = list(u)
                        u2[v] = min(u[v] + (e * f[w]["weapon_n"] + f[w]["weapon_b"] if ok else 0), line[v] + 1)
                        new[tuple(u2)] = new.get(tuple(u2), 0.0) + p * q
                dist = new
        return dist

    def result(order):
        @lru_cache(maxsize=None)
        def value(rnd, t):
            nxt = play_round(order, rnd, t)
            stay = nxt.pop(t, 0.0) if rnd == 3 else 0.0
            acc = [0.0] * (3 + n)
            for u, p in nxt.items():
                ended = not (any(up(u, j) for j in range(n) if side[j] == 0)
                             and any(up(u, j) for j in range(n) if side[j] == 1))
                parts = [(q, end_figures(u2)) for u2, q in finish(order, u).items()] if ended \
                    else [(1.0, value(min(rnd + 1, 3), u))]
                for q, figs in parts:
                    for k, x in enumerate(figs):
                        acc[k] += p * q * x
            return tuple(x / (1 - stay) for x in acc)
        return value(1, tuple(0 for _ in range(n)))

    def end_figures(t):
        able = [any(up(t, j) for j in range(n) if side[j] == s) for s in (0, 1)]
        return (float(able[0] and not able[1]), float(able[1] and not able[0]), float(not any(able)),
                *(float(t[i] > line[i]) for i in range(n)))

    keys = {"body": lambda i: (f[i]["body"],), "roll": lambda i: (), "reaction": lambda i: (f[i]["reaction"],
                                                                                           f[i]["body"])}
    key = keys[r["turn_order"]]
    perms = [p for p in itertools.permutations(range(n))
             if all(key(p[k]) >= key(p[k + 1]) for k in range(n - 1))]
    total = [0.0] * (3 + n)
    for order in perms:
        for k, x in enumerate(result(order)):
            total[k] += x / len(perms)
    return total


@lru_cache(maxsize=None)
def rolls(dice):
    from tests.brute import tun_rolls

    return tuple((v, float(p)) for v, p in tun_rolls(dice))


SHORT = [
    ({}, ["body=4,attack_feature=9,weapon_n=2"], ["body=3,attack_feature=9", "body=3,attack_feature=10"]),
    ({}, ["body=4,attack_feature=10,target=strongest"],
     ["body=3,attack_feature=9,weapon_b=1", "body=3,attack_feature=8,target=random"]),
    (dict(after_out="finish", finish_attacks=2), ["body=3,attack_feature=9,turn_policy=delay,target=spread,weapon_n=2"],
     ["body=4,attack_feature=8,weapon_n=2", "body=3,attack_feature=10,turn_policy=initiative_skip,weapon_n=2"]),
    (dict(turn_order="roll", last_word_actions=2, dying_last_word=False),
     ["body=3,attack_feature=10,weapon_n=2"],
     ["body=3,attack_feature=9,target=random", "body=3,attack_feature=8,weapon_b=1"]),
]


@pytest.mark.parametrize("variants,a,b", SHORT)
def test_the_group_chain_matches_a_round_by_round_recursion(variants, a, b):
    rules = tun.Rules(**variants)
    side_a, side_b = [fighter(x) for x in a], [fighter(x) for x in b]
    got = SYSTEM.group(rules, side_a, side_b).solution
    want = group_brute(side_a + side_b, len(side_a), {**BOOK, **rules.to_dict()})
    assert got.p_a_wins == pytest.approx(want[0], abs=1e-9)
    assert got.p_b_wins == pytest.approx(want[1], abs=1e-9)
    assert got.p_both_out == pytest.approx(want[2], abs=1e-9)
    for k, fl in enumerate(got.fighters):
        assert fl.p_dying == pytest.approx(want[3 + k], abs=1e-9), k
    assert sum(got.survivors_a.values()) == pytest.approx(1.0, abs=1e-12)


# ------------------------------------------------------------------ Monte Carlo against the exact chain
GROUPS = [
    ({}, ["trained_armed"], ["novice_armed", "novice_armed"]),
    ({}, ["veteran"], ["trained_armed", "archetype=trained_armed,target=random"]),
    (dict(after_out="finish"), ["archetype=red,aim=head,turn_policy=delay"],
     ["archetype=novice_armed,turn_policy=initiative_skip", "archetype=novice_armed,target=spread"]),
    ({}, ["master"], ["novice_armed", "novice_armed", "archetype=novice,target=strongest"]),
]


@pytest.mark.parametrize("variants,a,b", GROUPS)
def test_monte_carlo_agrees_with_the_exact_group_chain(variants, a, b):
    rules = tun.Rules(**variants)
    side_a, side_b = [fighter(x) for x in a], [fighter(x) for x in b]
    exact = SYSTEM.group(rules, side_a, side_b).solution
    sim = simulate_group("tun", rules, side_a, side_b, n=150_000, seed=11)

    def close(est, value):
        assert abs(est.value - value) <= 4 * max(est.se, 1 / est.n), (est, value)

    close(sim.p_a_wins, exact.p_a_wins)
    close(sim.p_b_wins, exact.p_b_wins)
    close(sim.p_both_out, exact.p_both_out)
    for k, est in sim.survivors("a").items():
        close(est, exact.survivors_a[k])
    for k, fl in enumerate(exact.fighters):
        close(sim.fighter(k)["p_out"], fl.p_out)
        close(sim.fighter(k)["p_dying"], fl.p_dying)
    assert abs(sim.mean_rounds.value - exact.mean_rounds) <= 4 * sim.mean_rounds.se


def test_the_result_echoes_the_rules_the_sides_and_the_order():
    rules = tun.Rules(turn_order="roll")
    res = SYSTEM.group(rules, [fighter("veteran")], [fighter("trained_armed")] * 2)
    d = res.to_dict()
    assert d["variants"]["turn_order"] == "roll" and len(d["side_b"]) == 2 and d["side_b"][0]["name"] == "trained_armed"
    assert "roll-off" in d["order"] and "copies numbered" in d["order"] and d["states"] == res.solution.states
    assert SYSTEM.group_states(rules, [fighter("veteran")], [fighter("trained_armed")] * 2) >= res.solution.states


def test_orders_number_copies_by_their_place_and_weigh_ties_alike():
    rules = tun.Rules()
    vet, tr = fighter("veteran"), fighter("trained_armed")
    got = group_mod.orders(rules, [tr, vet, tr], [0, 1, 1])
    assert got == [(0.5, (1, 0, 2)), (0.5, (1, 2, 0))]
    assert group_mod.orders(tun.Rules(turn_order="roll"), [tr, tr, tr], [0, 0, 0]) == [(1.0, (0, 1, 2))]


def test_empty_sides_and_melee_out_of_reach_are_refused_in_one_line():
    with pytest.raises(DicelabError, match="at least one fighter"):
        SYSTEM.group(tun.Rules(), [], [fighter("veteran")])
    with pytest.raises(DicelabError, match="distance = 45"):
        SYSTEM.group(tun.Rules(distance=45), [fighter("red")], [fighter("veteran"), fighter("red")])
