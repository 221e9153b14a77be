"""Tri-Stat tactics as decisions (RULES.md section 8): the game held to the fighters' policies is the duel, number for
number; book, best-response and equilibrium values agree with a minimax recursion written here from the rules."""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pytest

from analysis.base.params import ParamError
from analysis.engine.decisions import policy_tables
from analysis.engine.game import solve
from analysis.fights.fighters import archetypes, load_fighter
from analysis.fights.tactics import analyse
from analysis.systems import get_system, tristat
from analysis.systems.tristat.tactics import tactics, tactics_states
from tests.played import simulated_play
from tests.test_combat_tristat import BOOK, ok, raw, rolls, stat_block

SYSTEM = get_system("tristat")
FIELDS = ("p_a_wins", "p_b_wins", "p_both_out", "p_stalemate", "p_a_out", "p_b_out", "p_a_dying", "p_b_dying")


def book_matches_duel(rules, a, b, tol=1e-12):
    dg = tactics(rules, a, b)
    got = dg.solution(dg.game.book("a"), dg.game.book("b"))
    want = tristat.duel(rules, a, b).solution
    for name in FIELDS:
        assert getattr(got, name) == pytest.approx(getattr(want, name), abs=tol), name
    if want.mean_rounds is None:
        assert got.mean_rounds is None
    else:
        assert got.mean_rounds == pytest.approx(want.mean_rounds, abs=1e-9 * max(1.0, want.mean_rounds))
    for r, p in want.rounds.items():
        assert got.rounds.get(r, 0.0) == pytest.approx(p, abs=tol)
    return dg


NAMES = sorted(archetypes("tristat"))


@pytest.mark.parametrize("a_name,b_name", list(itertools.combinations_with_replacement(NAMES, 2)))
def test_the_book_play_is_the_duel_on_every_archetype_pairing(a_name, b_name):
    book_matches_duel(tristat.Rules(), load_fighter(SYSTEM, a_name), load_fighter(SYSTEM, b_name))


VARIANTS = [dict(initiative_once=True), dict(acv_in_max=True), dict(damage_rounding="nearest"),
            dict(cv_rounding="nearest"), dict(shock_rule=True), dict(block_rule="negate"),
            dict(critical_acv="literal", acv_in_max=True), dict(after_out="finish"),
            dict(after_out="finish", shock_rule=True, finish_attacks=3), dict(die=8), dict(lethal_at="dead"),
            dict(dice_count=3, damage_bands=(5, 9, 14)), dict(stat_limits="warn")]


@pytest.mark.parametrize("variant", VARIANTS, ids=[",".join(f"{k}={v}" for k, v in v.items()) for v in VARIANTS])
def test_the_book_play_is_the_duel_under_every_variant(variant):
    """With a blocker whose object can break, so the block decisions and the object's state are in play."""
    rules = tristat.Rules(**variant)
    a = load_fighter(SYSTEM, "veteran")
    b = load_fighter(SYSTEM, "trained_armed").replace(block=True, block_armor=3)
    book_matches_duel(rules, a, b)


@pytest.mark.parametrize("a_kw,b_kw,rules_kw", [
    (dict(stance="total_defence"), {}, {}),
    ({}, dict(stance="total_defence", block=True, block_armor=2), dict(total_defence_rounds=4, after_out="finish")),
    (dict(block_armor=2), dict(stance="total_defence"), dict(initiative_once=True, total_defence_rounds=3)),
    (dict(block_armor=2, weapon_range="ranged"), dict(block_armor=1, block_ranged=True), {}),
])
def test_the_book_play_is_the_duel_with_total_defence_and_objects_the_book_leaves_unused(a_kw, b_kw, rules_kw):
    a = load_fighter(SYSTEM, "trained_armed").replace(**a_kw)
    b = load_fighter(SYSTEM, "veteran").replace(**b_kw)
    book_matches_duel(tristat.Rules(**rules_kw), a, b)


# --------------------------------------------------------- an independent minimax
def matrix_value(q):
    """The value of a zero-sum game with at most 2 x 2 actions (rows maximise), in closed form."""
    lower = max(min(row) for row in q)
    upper = min(max(q[i][j] for i in range(len(q))) for j in range(len(q[0])))
    if upper - lower <= 1e-15 or len(q) == 1 or len(q[0]) == 1:
        return lower
    (a, b), (c, d) = q
    return (a * d - b * c) / (a + d - b - c)


def choose(q, a_free, b_free, a_book, b_book):
    """A's value of the options ``q[i][j]``: each side free (optimises) or held to its book action."""
    rows = range(len(q)) if a_free else [min(a_book, len(q) - 1)]
    cols = range(len(q[0])) if b_free else [min(b_book, len(q[0]) - 1)]
    return matrix_value([[q[i][j] for j in cols] for i in rows])


def minimax(die, fa, fb, c, play, objective="wins", once=False, cap=None):
    """A's value of the duel from the start under ``play``: ``book`` (both held to their policies), ``best`` (A
    free) or ``equilibrium`` (both free), by recursion over (damage taken, objects intact, defensive rounds): each
    round the order, then both stances at once, then the attacks, a defender hit (not critically) choosing block or
    dodge; with equal initiative both attack rolls are known before both choices and both attacks land together.
    The value of a round start is the root of the round's equation in its own value (a round may change nothing),
    found by bisection."""
    a_free, b_free = play != "book", play == "equilibrium"
    init = {}
    for ia, pa in rolls(die):
        for ib, pb in rolls(die):
            key = 0 if ia + fa["acv"] > ib + fb["acv"] else 2 if ia + fa["acv"] < ib + fb["acv"] else 1
            init[key] = init.get(key, 0.0) + pa * pb

    def status(t, f):
        return 2 if t >= f["dying_at"] else 1 if t > f["health"] else 0

    def payoff(ta, tb):
        sa, sb = status(ta, fa), status(tb, fb)
        if objective == "survive":
            return -float(sa == 2)
        return float(sa == 0) - float(sb == 0)

    @lru_cache(maxsize=None)
    def phases(att_side, td):
        att, dfn = (fa, fb) if att_side == "a" else (fb, fa)
        p_miss = p_hit = p_crit = 0.0
        for total, p in rolls(die):
            if total == 2:
                p_crit += p
            elif ok(total, att["acv"] + att["skill"], die):
                p_hit += p
            else:
                p_miss += p
        crit = [(1.0, max(0, raw(die, att, None, c) - dfn["armor"]), False)]
        post = {}
        for mode in ("plain", "block"):
            target = dfn["dcv"] + dfn["dskill"] + c["total"] * td + (c["block"] if mode == "block" else 0)
            out = {}
            for d_total, pd in rolls(die):
                stopped = ok(d_total, target, die)
                if stopped and not (mode == "block" and c["rule"] == "absorb"):
                    out[0, False] = out.get((0, False), 0.0) + pd
                    continue
                for g, pg in rolls(die):
                    r = raw(die, att, g, c)
                    key = (max(0, r - dfn["block_armor"] - dfn["armor"]), r >= c["breaks"] * dfn["block_armor"]) \
                        if stopped else (max(0, r - dfn["armor"]), False)
                    out[key] = out.get(key, 0.0) + pd * pg
            post[mode] = [(p, d, k) for (d, k), p in out.items()]
        return p_miss, p_hit, p_crit, crit, post

    def can_block(att, dfn, intact):
        has = (dfn["block"] or dfn["block_armor"] > 0) and (att["range"] == "melee" or dfn["block_ranged"])
        return has and (intact or c["rule"] == "negate")

    def hit_on(att_side, state, d, k):
        ta, tb, oa, ob = state
        return (ta, tb + d, oa, ob and not k) if att_side == "a" else (ta + d, tb, oa and not k, ob)

    def attack(att_side, state, td, then):
        """The value of one attack from ``state``, ``then(state)`` the value after it."""
        att, dfn = (fa, fb) if att_side == "a" else (fb, fa)
        intact = state[3] if att_side == "a" else state[2]
        p_miss, p_hit, p_crit, crit, post = phases(att_side, td)
        v = p_miss * then(state) + p_crit * sum(p * then(hit_on(att_side, state, d, k)) for p, d, k in crit)
        modes = ("plain", "block") if can_block(att, dfn, intact) else ("plain",)
        opts = [sum(p * then(hit_on(att_side, state, d, k)) for p, d, k in post[m]) for m in modes]
        book = int(dfn["block"] and len(modes) == 2)
        if att_side == "a":  # B defends: its choices are columns
            v += p_hit * choose([opts], False, b_free, 0, book)
        else:
            v += p_hit * choose([[o] for o in opts], a_free, False, book, 0)
        return v

    def effects(att_side, state, roll, mode):
        if roll == "miss":
            return [(1.0, state)]
        p_miss, p_hit, p_crit, crit, post = phases(att_side, 0)
        return [(p, hit_on(att_side, state, d, k)) for p, d, k in (crit if roll == "crit" else post[mode])]

    def together(state, nxt):
        p = {s: dict(zip(("miss", "hit", "crit"), phases(s, 0)[:3])) for s in "ab"}
        total = 0.0
        for ra, rb in itertools.product(("miss", "hit", "crit"), repeat=2):
            w = p["a"][ra] * p["b"][rb]
            if w == 0:
                continue
            a_modes = ("plain", "block") if rb == "hit" and can_block(fb, fa, state[2]) else ("plain",)
            b_modes = ("plain", "block") if ra == "hit" and can_block(fa, fb, state[3]) else ("plain",)
            q = []
            for ma in a_modes:
                row = []
                for mb in b_modes:
                    acc = 0.0
                    for pb_, sb in effects("a", state, ra, mb):
                        for pa_, sa in effects("b", state, rb, ma):
                            acc += pb_ * pa_ * nxt((sa[0], sb[1], sa[2], sb[3]))
                    row.append(acc)
                q.append(row)
            total += w * choose(q, a_free, b_free, int(fa["block"]), int(fb["block"]))
        return total

    @lru_cache(maxsize=None)
    def value(ta, tb, oa, ob, rounds, order):
        if status(ta, fa) or status(tb, fb):
            return payoff(ta, tb)
        here = (ta, tb, oa, ob)

        def at(state, x, more):
            if state == here and not more:
                return x
            if status(state[0], fa) or status(state[1], fb):
                return payoff(state[0], state[1])
            r = rounds + more
            if cap is not None and r >= cap:
                return 0.0
            return value(*state, r, order)

        def equation(x):
            total = 0.0
            for o, w in init.items():
                if order is not None and o != order:
                    continue
                more = 1 if cap is not None else 0

                def next_round(s):
                    return at(s, x, 0)

                def first(s, second):
                    return payoff(s[0], s[1]) if status(s[0], fa) or status(s[1], fb) else attack(second, s, 0,
                                                                                                   next_round)

                if o == 0:
                    nn = attack("a", here, 0, lambda s: first(s, "b"))
                elif o == 2:
                    nn = attack("b", here, 0, lambda s: first(s, "a"))
                else:
                    nn = together(here, next_round)
                q = [[nn, attack("a", here, 1, lambda s: at(s, x, more))],
                     [attack("b", here, 1, lambda s: at(s, x, more)), at(here, x, more)]]
                total += (1.0 if order is not None else w) * choose(q, a_free, b_free, int(fa["total"]),
                                                                     int(fb["total"]))
            return total

        lo, hi = -1.0, 1.0
        for _ in range(50):  # the root to 2 ** -49 (2e-15), far inside the tests' 1e-9
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if equation(mid) > mid else (lo, mid)
        return (lo + hi) / 2

    if once:
        return sum(w * value(0, 0, True, True, 0, o) for o, w in init.items())
    return value(0, 0, True, True, 0, None)


def small(**kw):
    return tristat.Fighter(**{**dict(body=2, mind=2, soul=2, health=10, weapon_damage=4), **kw})


CASES = [
    ("plain", {}, {}, dict(attack_bonus=1), {}),
    ("blocks that break", {}, dict(block=True, block_armor=1, defense_bonus=1), dict(weapon_damage=6), {}),
    ("both can block, book dodges", {}, dict(block_armor=2), dict(block_armor=1, attack_bonus=1), {}),
    ("negate, initiative once", dict(block_rule="negate", initiative_once=True), dict(block=True, acv=3),
     dict(defense_bonus=2), dict(once=True)),
    ("total defence held, capped", dict(total_defence_rounds=3), dict(stance="total_defence", defense_bonus=2),
     dict(attack_bonus=2), dict(cap=3)),
]


@pytest.mark.parametrize("label,rules_kw,a_kw,b_kw,extra", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("objective", ["wins", "survive"])
def test_book_best_response_and_equilibrium_match_the_minimax_recursion(label, rules_kw, a_kw, b_kw, extra,
                                                                         objective):
    rules = tristat.Rules(die=4, **rules_kw)
    a, b = small(**a_kw), small(**b_kw)
    c = dict(BOOK, rule=rules.block_rule)
    fa, fb = stat_block(a, c), stat_block(b, c)
    got = analyse(tactics(rules, a, b), objective=objective)
    for play, figure in (("book", got.book), ("best", got.best_response), ("equilibrium", got.equilibrium)):
        want = minimax(4, fa, fb, c, play, objective, **extra)
        assert figure.value == pytest.approx(want, abs=1e-9), play
    assert got.best_response.value >= got.equilibrium.value - 1e-12
    assert got.best_response.value >= got.book.value - 1e-12


def test_every_decision_is_there_with_the_plain_action_first_and_readable_features():
    rules = tristat.Rules()
    a = load_fighter(SYSTEM, "trained_armed").replace(block_armor=2)
    b = load_fighter(SYSTEM, "veteran")
    dg = tactics(rules, a, b)
    names = {(d.name, d.side): d for d in dg.decisions}
    assert set(names) == {("stance", "a"), ("stance", "b"), ("block", "a")}
    assert names["stance", "a"].actions == ("normal", "total_defence")
    assert names["block", "a"].actions == ("dodge", "block")
    assert "own damage taken" in names["block", "a"].features
    assert dg.policies["a"] == {"stance": ("normal", "total_defence"), "block": (False, True)}
    assert dg.policies["b"] == {"stance": ("normal", "total_defence")}
    for dec, states, feats in zip(dg.decisions, dg.states, dg.features):
        assert feats.shape == (len(states), len(dec.features))
        counts = dg.game.na[states] if dec.side == "a" else dg.game.nb[states]
        assert (counts == len(dec.actions)).all()


def test_the_scripts_are_the_books_of_the_fighters_with_those_policies():
    rules = tristat.Rules()
    a = load_fighter(SYSTEM, "trained_armed").replace(block_armor=2)
    b = load_fighter(SYSTEM, "veteran")
    dg = tactics(rules, a, b)
    other = tactics(rules, a.replace(block=True), b)
    assert np.array_equal(dg.scripts("a", {"block": True}), other.game.book("a"))
    assert np.array_equal(dg.scripts("b", {}), dg.game.book("b"))


def test_a_decision_never_uses_what_its_decider_cannot_know():
    """The equilibrium's strategy is a function of each decision's features: the policy tables accept it."""
    rules = tristat.Rules()
    a = small(block_armor=1, defense_bonus=1)
    b = small(block=True, block_armor=2, attack_bonus=1)
    for r in (rules, rules.replace(initiative_once=True)):
        dg = tactics(r.replace(die=4), a, b).with_objective("wins")
        eq = solve(dg.game)
        tables = policy_tables(dg, eq.a_strategy, eq.b_strategy)
        assert {t.decision for t in tables} == {"stance", "block"}


def test_extra_attacks_and_both_in_total_defence_are_refused_in_one_line():
    a = load_fighter(SYSTEM, "trained_armed")
    with pytest.raises(ParamError, match="extra_attacks"):
        tactics(tristat.Rules(), a.replace(extra_attacks=1), a)
    with pytest.raises(Exception, match="total_defence"):
        tactics(tristat.Rules(), a.replace(stance="total_defence"), a.replace(stance="total_defence"))


@pytest.mark.parametrize("a_kw,b_kw,rules_kw", [({}, {}, {}), (dict(block_armor=2), {}, dict(initiative_once=True)),
                                                (dict(stance="total_defence"), {}, dict(after_out="finish"))])
def test_the_size_estimate_bounds_the_game(a_kw, b_kw, rules_kw):
    rules = tristat.Rules(**rules_kw)
    a, b = load_fighter(SYSTEM, "veteran").replace(**a_kw), load_fighter(SYSTEM, "trained_armed").replace(**b_kw)
    assert tactics(rules, a, b).game.n <= tactics_states(rules, a, b)


# --------------------------------------------------------- the simulator plays a solved policy
def agree_value(rules, a, b, strategy, n=200_000, seed=7):
    """Monte Carlo of the play ``strategy`` ('book' or 'equilibrium') from its policy tables against the game's own
    value and P(A wins), within 4 SE."""
    dg = tactics(rules, a, b).with_objective("wins")
    g = dg.game
    sol = solve(g) if strategy == "equilibrium" else solve(g, a_fixed=g.book("a"), b_fixed=g.book("b"))
    d = simulated_play("tristat", dg, sol, rules, a, b, n, seed)
    assert sorted(d["policy"]) == sorted({f"{t.decision} ({t.side})" for t in policy_tables(dg, sol.a_strategy,
                                                                                               sol.b_strategy)})
    return sol.values[g.start], dg


def test_the_simulator_plays_the_equilibrium_and_matches_its_value():
    """Two pairings where the equilibrium blocks otherwise than the book: the value moves, and the simulation of
    the solved tables follows it."""
    a = load_fighter(SYSTEM, "trained_armed").replace(block_armor=2)
    value, dg = agree_value(tristat.Rules(), a, load_fighter(SYSTEM, "veteran"), "equilibrium")
    b = load_fighter(SYSTEM, "trained_armed").replace(block=True, block_armor=3)
    value, dg = agree_value(tristat.Rules(initiative_once=True), load_fighter(SYSTEM, "trained_armed"), b,
                            "equilibrium", seed=8)
    g = dg.game
    book = solve(g, a_fixed=g.book("a"), b_fixed=g.book("b")).values[g.start]
    assert abs(value - book) > 0.05


def test_the_simulator_plays_the_book_from_its_tables_as_the_duel():
    a = load_fighter(SYSTEM, "veteran").replace(block=True, block_armor=2)
    b = load_fighter(SYSTEM, "trained_armed").replace(block_armor=2)
    agree_value(tristat.Rules(after_out="finish", shock_rule=True), a, b, "book", seed=9)
    agree_value(tristat.Rules(total_defence_rounds=4), load_fighter(SYSTEM, "novice_armed").replace(
        stance="total_defence"), b, "equilibrium", seed=10)


def test_policy_tables_of_another_system_or_shape_are_refused_in_one_line():
    from analysis.base.params import DicelabError
    from analysis.engine.decisions import PolicyTable
    from sims.api import simulate_duel

    a = load_fighter(SYSTEM, "trained_armed")
    bad = PolicyTable("parry", "a", ("no", "yes"), ("own IN",), np.array([0]), np.array([1]), np.array([[1.0, 0.0]]))
    with pytest.raises(DicelabError, match="parry"):
        simulate_duel("tristat", tristat.Rules(), a, a, 1000, seed=1, policy=[bad])
