"""The tactics analysis (analysis/fights/tactics.py) on a toy duel written here, its numbers from an independent
recursion: A and B strike in turn, each choosing a careful or a reckless blow; two hits put a fighter out."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.base.params import ParamError
from analysis.engine.decisions import Decision, DecisionGame
from analysis.engine.game import Game
from analysis.engine.markov import OUT, UP, Track
from analysis.fights.tactics import _fit, analyse, dominated

HIT = {"careful": 0.3, "reckless": 0.6}
"""A reckless blow hits more often, but a reckless miss gives the defender a free blow (hit 0.5) at once."""
COUNTER = 0.5
TRACK = Track(labels=(0, 1, 2), status=(UP, UP, OUT))
ACTIONS = ("careful", "reckless")


def toy(book_a: str = "careful", book_b: str = "careful") -> DecisionGame:
    """States (mover, hits on A, hits on B) for hits 0..1, plus the ends (hits on A, hits on B) with one at 2."""
    live = [(m, i, j) for m in "ab" for i in range(2) for j in range(2)]
    ends = [(i, j) for i in range(3) for j in range(3) if (i == 2) != (j == 2) or (i == 2 and j == 2)]
    index = {s: k for k, s in enumerate(live)}
    index.update({("end",) + e: len(live) + k for k, e in enumerate(ends)})

    def at(i: int, j: int, mover: str) -> int:
        return index[("end", i, j)] if 2 in (i, j) else index[(mover, i, j)]

    options, na, nb = [], [], []
    for mover, i, j in live:
        opts = []
        for act in ACTIONS:
            p = HIT[act]
            if mover == "a":  # A strikes B; a reckless miss lets B strike back at once
                hit = [(p, at(i, j + 1, "b"))]
                miss = [((1 - p) * COUNTER, at(i + 1, j, "b")), ((1 - p) * (1 - COUNTER), at(i, j, "b"))] \
                    if act == "reckless" else [(1 - p, at(i, j, "b"))]
            else:
                hit = [(p, at(i + 1, j, "a"))]
                miss = [((1 - p) * COUNTER, at(i, j + 1, "a")), ((1 - p) * (1 - COUNTER), at(i, j, "a"))] \
                    if act == "reckless" else [(1 - p, at(i, j, "a"))]
            opts.append(hit + miss)
        options.append(opts)
        na.append(2 if mover == "a" else 1), nb.append(2 if mover == "b" else 1)
    for _ in ends:
        options.append([]), na.append(0), nb.append(0)
    book = [ACTIONS.index(book_a) if m == "a" else 0 for m, _, _ in live] + [0] * len(ends)
    book_b_idx = [ACTIONS.index(book_b) if m == "b" else 0 for m, _, _ in live] + [0] * len(ends)
    g = Game.build(options, na, nb, [0.0] * len(na), round_start=[m == "a" for m, _, _ in live] + [False] * len(ends),
                   book_a=book, book_b=book_b_idx, start=index[("a", 0, 0)])
    states_a = np.array([index[s] for s in live if s[0] == "a"])
    states_b = np.array([index[s] for s in live if s[0] == "b"])
    feats = lambda states: np.array([[live[s][1], live[s][2]] for s in states])  # noqa: E731

    def scripts(side: str, policy: dict) -> np.ndarray:
        choice = policy.get("blow", book_a if side == "a" else book_b)
        other = toy(choice, book_b) if side == "a" else toy(book_a, choice)
        return other.game.book(side)

    return DecisionGame(g, np.array(ends), TRACK, TRACK,
                        (Decision("blow", "a", ACTIONS, ("hits on A", "hits on B")),
                         Decision("blow", "b", ACTIONS, ("hits on A", "hits on B"))),
                        (states_a, states_b), (feats(states_a), feats(states_b)), scripts,
                        {"a": {"blow": ACTIONS}, "b": {"blow": ACTIONS}})


def brute(a_choice, b_choice) -> dict:
    """Values by fixed-point iteration on the toy's equations, each side choosing by ``x_choice(i, j, q)``: a
    function of the state and the action values (q: dict action -> value)."""
    v = {(m, i, j): 0.0 for m in "ab" for i in range(2) for j in range(2)}

    def at(i, j, m):
        if i == 2 and j == 2:
            return 0.0
        if i == 2:
            return -1.0
        if j == 2:
            return 1.0
        return v[(m, i, j)]

    for _ in range(5000):
        new = {}
        for (m, i, j) in v:
            q = {}
            for act, p in HIT.items():
                if m == "a":
                    miss = (1 - p) * (COUNTER * at(i + 1, j, "b") + (1 - COUNTER) * at(i, j, "b")) \
                        if act == "reckless" else (1 - p) * at(i, j, "b")
                    q[act] = p * at(i, j + 1, "b") + miss
                else:
                    miss = (1 - p) * (COUNTER * at(i, j + 1, "a") + (1 - COUNTER) * at(i, j, "a")) \
                        if act == "reckless" else (1 - p) * at(i, j, "a")
                    q[act] = p * at(i + 1, j, "a") + miss
            new[(m, i, j)] = (a_choice if m == "a" else b_choice)(i, j, q)
        if max(abs(new[k] - v[k]) for k in v) < 1e-15:
            break
        v = new
    return v


def best_a(i, j, q):
    return max(q.values())


def best_b(i, j, q):
    return min(q.values())


def script(action):
    return lambda i, j, q: q[action]


def test_book_best_response_and_equilibrium_match_the_recursion():
    t = analyse(toy())
    assert t.book.value == pytest.approx(brute(script("careful"), script("careful"))[("a", 0, 0)], abs=1e-10)
    assert t.best_response.value == pytest.approx(brute(best_a, script("careful"))[("a", 0, 0)], abs=1e-10)
    assert t.equilibrium.value == pytest.approx(brute(best_a, best_b)[("a", 0, 0)], abs=1e-10)
    assert t.best_response.value >= t.equilibrium.value - 1e-12 and t.best_response.value >= t.book.value - 1e-12
    s = t.equilibrium.solution
    assert s.p_a_wins - s.p_b_wins == pytest.approx(t.equilibrium.value, abs=1e-10)
    assert s.p_a_wins + s.p_b_wins + s.p_both_out + s.p_stalemate == pytest.approx(1.0, abs=1e-12)


def test_worth_is_the_value_lost_when_forbidden_and_shares_are_proper():
    t = analyse(toy())
    eq = brute(best_a, best_b)[("a", 0, 0)]
    forbidden_a = brute(script("careful"), best_b)[("a", 0, 0)]
    forbidden_b = brute(best_a, script("careful"))[("a", 0, 0)]
    by_side = {d.side: d for d in t.decisions}
    assert by_side["a"].worth == pytest.approx(eq - forbidden_a, abs=1e-10)
    assert by_side["b"].worth == pytest.approx(forbidden_b - eq, abs=1e-10)
    for d in t.decisions:
        assert d.worth >= -1e-12 and 0.0 <= d.share_taken <= 1.0
        assert sum(d.actions.values()) == pytest.approx(1.0)


def test_a_script_another_beats_everywhere_is_dominated():
    """Which blow dominates follows from the recursion over both scripts of the opponent."""
    vals = {(x, y): brute(script(x), script(y))[("a", 0, 0)] for x in ACTIONS for y in ACTIONS}
    want_a = [f"blow={x}" for x in ACTIONS for z in ACTIONS if z != x
              and all(vals[(z, y)] >= vals[(x, y)] - 1e-9 for y in ACTIONS)
              and any(vals[(z, y)] > vals[(x, y)] + 1e-9 for y in ACTIONS)]
    got = dominated(toy())
    assert list(got["a"]) == want_a
    assert got["a"], "the toy is built so that one blow is dominated for A"


def test_decide_limits_the_solved_decisions_and_refuses_unknown_names():
    t = analyse(toy(), decide=[])
    assert t.equilibrium.value == pytest.approx(t.book.value, abs=1e-12)
    with pytest.raises(ParamError, match="decide"):
        analyse(toy(), decide=["parry"])


def test_the_simple_rule_reads_as_a_rule_and_keeps_the_gain_it_claims():
    t = analyse(toy())
    rule = t.simple_rule
    assert rule is not None and rule.text.startswith("blow:") and 0.0 <= rule.agreement <= 1.0
    if rule.agreement == 1.0 and rule.share_of_gain is not None:
        assert rule.share_of_gain == pytest.approx(1.0, abs=1e-9)
    assert t.to_dict()["simple_rule"]["text"] == rule.text


def test_policy_tables_hold_the_strategy_by_features_and_refuse_features_that_miss_something():
    from dataclasses import replace

    from analysis.engine.decisions import policy_tables
    from analysis.engine.game import solve

    dg = toy().with_objective("wins")
    eq = solve(dg.game)
    tables = policy_tables(dg, eq.a_strategy, eq.b_strategy)
    a = next(t for t in tables if t.side == "a")
    for state, feats in zip(dg.states[0], dg.features[0]):
        start = dg.game.a_offsets[state]
        assert a.probs[a.cell(feats)].tolist() == eq.a_strategy[start:start + 2].tolist()
    blind = replace(dg, features=(np.zeros_like(dg.features[0]), dg.features[1]))
    if len({tuple(eq.a_strategy[dg.game.a_offsets[s]:dg.game.a_offsets[s] + 2]) for s in dg.states[0]}) > 1:
        with pytest.raises(ValueError, match="features miss"):
            policy_tables(blind, eq.a_strategy, eq.b_strategy)


def _agree(tree, x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """The weight of the states where ``tree`` (``_fit``'s tuples) picks their action, walked state by state."""
    got = 0.0
    for row, action, weight in zip(x, y, w):
        node = tree
        while node[0] == "split":
            node = node[3] if row[node[1]] < node[2] else node[4]
        got += weight * (node[1] == action)
    return got


def _best(x: np.ndarray, y: np.ndarray, w: np.ndarray, depth: int) -> float:
    """The most weight any tree of depth ``depth`` agrees with, by trying every split on the states themselves."""
    best = max((float(w[y == k].sum()) for k in range(int(y.max()) + 1)), default=0.0)
    if depth == 0:
        return best
    for f in range(x.shape[1]):
        for t in np.unique(x[:, f])[1:]:
            lo = x[:, f] < t
            best = max(best, _best(x[lo], y[lo], w[lo], depth - 1) + _best(x[~lo], y[~lo], w[~lo], depth - 1))
    return best


@given(data=st.data(), n=st.integers(1, 14), features=st.integers(1, 3), depth=st.integers(0, 2))
@settings(max_examples=150, deadline=None)
def test_the_simple_rules_tree_agrees_with_the_most_weight_any_tree_can(data, n, features, depth):
    """The fitted tree (read off cumulative tables) against every tree of its depth tried on the states: the same
    best weight (to the fit's tie margin), and the tree it gives scores what it claims."""
    x = np.array(data.draw(st.lists(st.lists(st.integers(0, 3), min_size=features, max_size=features),
                                    min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    w = np.array(data.draw(st.lists(st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.25]), min_size=n, max_size=n)))
    tree, score = _fit(x, y, w, depth)
    assert _agree(tree, x, y, w) == pytest.approx(score, abs=1e-12)
    assert score == pytest.approx(_best(x, y, w, depth), abs=1e-8)

