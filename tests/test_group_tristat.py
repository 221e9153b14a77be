"""Tri-Stat group fights (analysis/systems/tristat/groups.py, sims/tristat.py, RULES.md section 7): one against one is
the duel; the exact chain against a round-by-round recursion written here from the rule text on short tracks; the
Monte Carlo kernel against the exact chain within 4 standard errors; the cumulative defense penalty at work."""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pytest

from analysis.base.params import DicelabError
from analysis.fights.fighters import load_fighter
from analysis.systems import get_system, tristat
from analysis.systems.tristat import groups as group_mod
from sims.api import simulate_group
from tests.test_combat_tristat import BOOK, mode_of, ok, raw, rolls, stat_block, status

SYSTEM = get_system("tristat")


def fighter(spec):
    return load_fighter(SYSTEM, spec)


def small(**kw):
    return tristat.Fighter(**{**dict(body=2, mind=2, soul=2, health=6, weapon_damage=4), **kw})


# ------------------------------------------------------------------ one against one is the duel
@pytest.mark.parametrize("rules_kw,a,b", [
    ({}, "trained_armed", "veteran"),
    (dict(initiative_once=True), "novice_armed", "trained_armed"),
    (dict(after_out="finish"), "veteran", "veteran"),
    (dict(total_defence_rounds=4), "archetype=trained_armed,stance=total_defence", "veteran"),
])
def test_one_against_one_is_the_duel_by_dispatch_and_in_the_group_chain(rules_kw, a, b):
    rules = tristat.Rules(**rules_kw)
    fa, fb = fighter(a), fighter(b)
    duel = tristat.duel(rules, fa, fb).solution
    chain = group_mod._Plan(rules, [fa], [fb]).solve()
    for got in (SYSTEM.group(rules, [fa], [fb]).solution, chain):
        for key in ("p_a_wins", "p_b_wins", "p_both_out", "p_stalemate", "mean_rounds"):
            assert getattr(got, key) == pytest.approx(getattr(duel, key), abs=1e-12), key
        for f, side in zip(got.fighters, "ab"):
            assert f.p_out == pytest.approx(getattr(duel, f"p_{side}_out"), abs=1e-12)
            assert f.p_dying == pytest.approx(getattr(duel, f"p_{side}_dying"), abs=1e-12)


# ------------------------------------------------------------------ a round-by-round recursion from the rule text
def one_attack(die, att, dfn, mode, made, penalty, c=BOOK):
    """One attack as [(p, damage, object destroyed, a defense roll made)]: as the duel's brute force, the defense
    at -``penalty`` per roll ``made`` before it this round; a miss or a critical draws no roll."""
    out = []
    for a_total, pa in rolls(die):
        if a_total == 2:
            out.append((pa, max(0, raw(die, att, None, c) - dfn["armor"]), False, 0))
            continue
        if not ok(a_total, att["acv"] + att["skill"], die):
            out.append((pa, 0, False, 0))
            continue
        target = (dfn["dcv"] + dfn["dskill"] + c["total"] * dfn["total"] + (c["block"] if mode == "block" else 0)
                  - penalty * made)
        for d_total, pd in rolls(die):
            stopped = ok(d_total, target, die)
            if stopped and not (mode == "block" and c["rule"] == "absorb"):
                out.append((pa * pd, 0, False, 1))
                continue
            for g, pg in rolls(die):
                r = raw(die, att, g, c)
                if stopped:
                    out.append((pa * pd * pg, max(0, r - dfn["block_armor"] - dfn["armor"]),
                                r >= c["breaks"] * dfn["block_armor"], 1))
                else:
                    out.append((pa * pd * pg, max(0, r - dfn["armor"]), False, 1))
    return out


def group_brute(die, fighters, n_a, penalty, c=BOOK):
    """(P(A wins), P(B wins), P(both out), each fighter's P(dying) (identical fighters worst first), E[rounds]) by
    recursion over round starts (damage taken, object intact) of every fighter, from RULES.md section 7 (``after_out = "stop"``).

    Every round each able fighter rolls 2dX + acv; moments in descending order, equal totals together.  In a
    moment the k-th attacks of its actors (still able when that wave starts) pick their targets from the wave's
    start, in listed order (weakest: least Health left; strongest: highest attack, then least Health left;
    spread: attacked least this round so far, then least Health left; random: any able enemy; then the kind of
    fighter listed first, its object intact, the higher initiative, listed first) and land together; a defender's defense rolls already made this round cost ``penalty`` each.  The fight ends
    when a side has nobody able; a round that changes nothing is divided out.
    """
    f = [stat_block(x, c) for x in fighters]
    n = len(f)
    side = [0 if i < n_a else 1 for i in range(n)]
    strength = [x["acv"] + x["skill"] for x in f]
    policy = [x.target for x in fighters]
    attacks = [1 + x.extra_attacks for x in fighters]
    kind = [next(k for k in range(n) if side[k] == side[i] and fighters[k] == fighters[i]) for i in range(n)]

    @lru_cache(maxsize=None)
    def hit(i, j, intact, made):
        merged = {}
        for p, d, k, r in one_attack(die, f[i], f[j], mode_of(f[i], f[j], intact, c), made, penalty, c):
            merged[d, k, r] = merged.get((d, k, r), 0.0) + p
        return tuple(merged.items())

    def up(t, i):
        return status(t[i], f[i]) == "up"

    def able(t, s):
        return any(up(t, i) for i in range(n) if side[i] == s)

    def choices(i, t, o, hits, init):
        foes = [j for j in range(n) if side[j] != side[i] and up(t, j)]
        left = {j: f[j]["health"] - t[j] for j in foes}
        if policy[i] == "random":
            return [(1 / len(foes), j) for j in foes]
        first = {"weakest": lambda j: (left[j], 0), "strongest": lambda j: (-strength[j], left[j]),
                 "spread": lambda j: (hits[j], left[j])}[policy[i]]
        return [(1.0, min(foes, key=lambda j: (*first(j), kind[j], not o[j], -init[j], j)))]

    def wave(actors, t, o, made, hits, init):
        """Every way one wave goes: [(p, taken, intact, rolls made, hits)]."""
        ways = [(1.0, (0,) * n, (False,) * n, made, hits)]
        for i in actors:
            nxt = []
            for p, dmg, brk, mk, hk in ways:
                for q, j in choices(i, t, o, hk, init):
                    for (d, k, r), pr in hit(i, j, o[j], mk[j]):
                        nxt.append((p * q * pr, bump(dmg, j, d), tuple(b or (e == j and k) for e, b in enumerate(brk)),
                                    bump(mk, j, r), bump(hk, j, 1)))
            ways = nxt
        return [(p, tuple(min(t[e] + dmg[e], f[e]["dying_at"]) for e in range(n)),
                 tuple(o[e] and not brk[e] for e in range(n)), mk, hk) for p, dmg, brk, mk, hk in ways]

    init_dist = {}
    for combo in itertools.product(rolls(die), repeat=n):
        init = tuple(v + f[e]["acv"] for e, (v, _) in enumerate(combo))
        init_dist[init] = init_dist.get(init, 0.0) + float(np.prod([q for _, q in combo]))

    def play_round(t, o):
        done = {}
        for init, p in init_dist.items():
            dist = {(t, o, (0,) * n, (0,) * n): p}
            for v in sorted({init[e] for e in range(n) if up(t, e)}, reverse=True):
                movers = [e for e in range(n) if init[e] == v and up(t, e)]
                for w in range(max(attacks[e] for e in movers)):
                    nxt = {}
                    for (t1, o1, mk, hk), q in dist.items():
                        actors = [e for e in movers if attacks[e] > w and up(t1, e)]
                        if not (able(t1, 0) and able(t1, 1)) or not actors:
                            nxt[t1, o1, mk, hk] = nxt.get((t1, o1, mk, hk), 0.0) + q
                            continue
                        for r, t2, o2, m2, h2 in wave(actors, t1, o1, mk, hk, init):
                            nxt[t2, o2, m2, h2] = nxt.get((t2, o2, m2, h2), 0.0) + q * r
                    dist = nxt
            for (t1, o1, _, _), q in dist.items():
                done[t1, o1] = done.get((t1, o1), 0.0) + q
        return done

    @lru_cache(maxsize=None)
    def value(t, o):
        if not (able(t, 0) and able(t, 1)):
            a_up, b_up = able(t, 0), able(t, 1)
            dying = [sum(status(t[k], f[k]) == "dying" for k in range(n) if kind[k] == kind[e]) for e in range(n)]
            rank = [sum(kind[k] == kind[e] for k in range(e)) for e in range(n)]
            return (float(a_up), float(b_up), float(not a_up and not b_up),
                    *[float(dying[e] > rank[e]) for e in range(n)], 0.0)
        nxt = play_round(t, o)
        stay = nxt.pop((t, o), 0.0)
        acc = [0.0] * (n + 4)
        for (t2, o2), p in nxt.items():
            for k, x in enumerate(value(t2, o2)):
                acc[k] += p * x
        acc[-1] += 1.0
        return tuple(x / (1.0 - stay) for x in acc)

    return value((0,) * n, (True,) * n)


def bump(values, j, by):
    return tuple(v + by * (e == j) for e, v in enumerate(values))


BRUTE = [
    ("1v2 weakest", [small(attack_bonus=2, health=8)], [small(name="x"), small(name="y", health=5)], {}),
    ("1v2 strongest, blocks", [small(attack_bonus=1, target="strongest", block=True, block_armor=1, weapon_damage=6)],
     [small(name="x", weapon_damage=6), small(name="y", attack_bonus=2, weapon_damage=5)], {}),
    ("1v2 extra attacks, spread", [small(extra_attacks=1, target="spread", health=9)],
     [small(name="x"), small(name="y", defense_bonus=1)], {}),
    ("2v1 identical, random, penalty 2", [small(name="x", target="random"), small(name="y", target="random")],
     [small(name="z", health=10, defense_bonus=4)], dict(extra_defense_penalty=2)),
    ("1v2 identical blockers", [small(weapon_damage=8, attack_bonus=2, health=9)],
     [small(name="x", block=True, block_armor=1), small(name="y", block=True, block_armor=1)], {}),
]


@pytest.mark.parametrize("label,side_a,side_b,rules_kw", BRUTE, ids=[b[0] for b in BRUTE])
def test_the_group_chain_matches_a_recursion_written_from_the_rules(label, side_a, side_b, rules_kw):
    rules = tristat.Rules(die=4, stat_limits="warn", **rules_kw)
    got = SYSTEM.group(rules, side_a, side_b).solution
    want = group_brute(4, side_a + side_b, len(side_a), rules.extra_defense_penalty)
    n = len(side_a) + len(side_b)
    assert got.p_a_wins == pytest.approx(want[0], abs=1e-9)
    assert got.p_b_wins == pytest.approx(want[1], abs=1e-9)
    assert got.p_both_out == pytest.approx(want[2], abs=1e-9)
    assert [f.p_dying for f in got.fighters] == pytest.approx(list(want[3:3 + n]), abs=1e-9)
    assert got.mean_rounds == pytest.approx(want[-1], abs=1e-9)


# ------------------------------------------------------------------ Monte Carlo against the exact chain
MC = [
    ({}, ["veteran"], ["trained_armed", "trained_armed"]),
    (dict(initiative_once=True, after_out="finish"), ["veteran"], ["novice_armed", "novice_armed"]),
    (dict(die=4, stat_limits="warn", shock_rule=True),
     [small(extra_attacks=1, target="spread", health=9, block=True, block_armor=1)],
     [small(name="x", attack_bonus=1), small(name="y", target="random", defense_bonus=1)]),
    (dict(total_defence_rounds=3), ["archetype=trained_armed,stance=total_defence", "veteran"],
     ["archetype=trained_armed,target=random"]),
]


def side(specs):
    return [fighter(x) if isinstance(x, str) else x for x in specs]


@lru_cache(maxsize=None)
def solved(rules: tristat.Rules, side_a: tuple, side_b: tuple):
    """One exact group chain per case for this file: the Monte Carlo test and the size estimate read the same one."""
    return SYSTEM.group(rules, list(side_a), list(side_b))


@pytest.mark.parametrize("rules_kw,a,b", MC)
def test_monte_carlo_agrees_with_the_exact_group_chain(rules_kw, a, b):
    rules = tristat.Rules(**rules_kw)
    side_a, side_b = side(a), side(b)
    exact = solved(rules, tuple(side_a), tuple(side_b)).solution
    sim = simulate_group("tristat", rules, side_a, side_b, n=100_000, seed=11, workers=1)

    def close(est, value):
        assert abs(est.value - value) <= 4 * max(est.se, 1 / est.n), (est, value)

    close(sim.p_a_wins, exact.p_a_wins)
    close(sim.p_b_wins, exact.p_b_wins)
    close(sim.p_both_out, exact.p_both_out)
    for which, want in (("a", exact.survivors_a), ("b", exact.survivors_b)):
        for k, est in sim.survivors(which).items():
            close(est, want.get(k, 0.0))
    for k, fl in enumerate(exact.fighters):
        close(sim.fighter(k)["p_out"], fl.p_out)
        close(sim.fighter(k)["p_dying"], fl.p_dying)
    if exact.p_stalemate == 0:
        assert abs(sim.mean_rounds.value - exact.mean_rounds) <= 4 * sim.mean_rounds.se


def test_the_group_loop_keeps_no_reference_counts():
    """The Monte Carlo group loop works on unowned views (sims.dice._unowned): no atomic reference counting is left in
    it (the loop ran at half the speed with it)."""
    from numba import njit

    from sims import tristat as sim_tristat
    from sims.groups import layout

    rules = tristat.Rules(after_out="finish", shock_rule=True)
    side_a = side(["archetype=veteran,target=random", "archetype=trained_armed,block=true,block_armor=2"])
    side_b = side(["archetype=novice_armed,target=spread"] * 2 + ["archetype=veteran,target=strongest"])
    sc, ty, pair, tables, slot_type, listed = sim_tristat.pack_group(rules, side_a, side_b)
    lay = layout(2, 3)
    base = sc[sim_tristat.S_LOW] + ty[:, sim_tristat.Y_ACV].min()
    by_init = np.zeros(sc[sim_tristat.S_HIGH] + ty[:, sim_tristat.Y_ACV].max() - base + 1, dtype=np.int64)
    out = np.zeros(lay.size, dtype=np.int64)
    args = (out, np.zeros((sim_tristat.W_SIZE, slot_type.size), dtype=np.int64), by_init, base, ty[slot_type], sc,
            pair, tables, slot_type, listed, lay.packed(), sim_tristat._rolls(rules), 10, np.random.default_rng(0))
    fresh = njit(nogil=True)(sim_tristat._groups.py_func)  # the cached kernel cannot show its code
    fresh(*args)
    loop = fresh.inspect_asm(fresh.signatures[0]).split("cpython")[0]
    assert "NRT_incref" not in loop and "NRT_decref" not in loop
    assert out[:4].sum() == 10


# ------------------------------------------------------------------ the penalty, the sizes, the echo, refusals
def test_the_extra_defense_penalty_changes_a_group_fight_and_not_a_duel():
    hero, mook = fighter("archetype=veteran,defense_bonus=3"), fighter("trained_armed")
    got = {pen: SYSTEM.group(tristat.Rules(extra_defense_penalty=pen), [hero], [mook, mook]).solution.p_a_wins
           for pen in (0, 2, 4)}
    assert got[0] > got[2] + 0.005 and got[2] > got[4] + 0.005
    duel = {pen: SYSTEM.group(tristat.Rules(extra_defense_penalty=pen), [hero], [mook]).solution.p_a_wins
            for pen in (0, 8)}
    assert duel[0] == duel[8]


@pytest.mark.parametrize("rules_kw,a,b", [MC[0], MC[1], MC[3]])
def test_the_size_estimate_bounds_the_chain(rules_kw, a, b):
    rules = tristat.Rules(**rules_kw)
    side_a, side_b = side(a), side(b)
    got = solved(rules, tuple(side_a), tuple(side_b))
    assert got.solution.states <= SYSTEM.group_states(rules, side_a, side_b)
    s = got.solution
    assert s.p_a_wins + s.p_b_wins + s.p_both_out + s.p_stalemate == pytest.approx(1.0, abs=1e-12)


def test_the_result_echoes_the_rules_the_sides_and_the_order():
    rules = tristat.Rules(extra_defense_penalty=2)
    side_a, side_b = [fighter("veteran")], [fighter("trained_armed"), fighter("trained_armed")]
    d = SYSTEM.group(rules, side_a, side_b).to_dict()
    assert d["system"] == "tristat" and d["model"] == "exact" and d["variants"]["extra_defense_penalty"] == 2
    assert [f["name"] for f in d["side_b"]] == ["trained_armed", "trained_armed"]
    assert "-2" in d["order"] and "exchangeable" in d["order"]
    assert d["states"] > 0 and d["truncation"] == 0.0


def test_bad_sides_are_refused_in_one_line():
    turtle = fighter("archetype=veteran,stance=total_defence")
    for side_a, side_b, word in (([], [turtle], "side_a"), ([turtle], [turtle, turtle], "total_defence"),
                                 ([fighter("veteran")] * 4, [fighter("novice_armed")] * 3, "at most")):
        with pytest.raises(DicelabError, match=word) as err:
            SYSTEM.group(tristat.Rules(), side_a, side_b)
        assert "\n" not in str(err.value)
