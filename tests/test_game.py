"""The game engine (analysis/engine/game.py) against independent computations written here: minimax by
recursion on acyclic games, Shapley's value iteration with scipy's LP for every matrix game on cyclic ones, and
the fixed play's absorption and rounds by enumerating paths."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from analysis.engine.flow import cut_order
from analysis.engine.game import Game, _members, _Play, evaluate, solve


def random_game(seed: int, n: int, cyclic: bool, both: bool) -> tuple[list, list, list, list, list]:
    """A random game: the last three states end (payoffs 1, -1, 0); every other state has 1-3 actions per side
    (both sides only when ``both``), each option a distribution over later states (and, when ``cyclic``, over
    earlier ones too, always with a way out)."""
    rng = np.random.default_rng(seed)
    ends = 3
    na, nb, options, rs = [], [], [], []
    for s in range(n - ends):
        a = int(rng.integers(1, 4))
        b = int(rng.integers(1, 4)) if both or a == 1 else 1
        na.append(a), nb.append(b), rs.append(bool(rng.integers(0, 2)) or s == 0)
        opts = []
        for _ in range(a * b):
            later = list(range(s + 1, n))
            targets = list(rng.choice(later, size=min(len(later), int(rng.integers(1, 4))), replace=False))
            if cyclic and s > 0 and rng.random() < 0.5:
                targets.append(int(rng.integers(0, s + 1)))
            w = rng.random(len(targets)) + 0.05
            if cyclic and targets[-1] <= s:
                w[-1] *= 0.5  # a loop back keeps less than the way on
            w /= w.sum()
            opts.append([(float(x), int(t)) for x, t in zip(w, targets)])
        options.append(opts)
    for _ in range(ends):
        na.append(0), nb.append(0), options.append([]), rs.append(False)
    payoff = [0.0] * (n - ends) + [1.0, -1.0, 0.0]
    return options, na, nb, payoff, rs


def matrix_value(q: np.ndarray) -> float:
    """The value of the zero-sum matrix game ``q`` (rows maximise) by linear programming."""
    m, k = q.shape
    shift = q.min() - 1.0
    a = q - shift  # positive, so the value is positive
    res = linprog(np.ones(m), A_ub=-a.T, b_ub=-np.ones(k), bounds=[(0, None)] * m, method="highs")
    return 1.0 / res.fun + shift


def shapley(options, na, nb, payoff, iterations: int = 20_000) -> np.ndarray:
    """Shapley's value iteration, all states at once, every matrix game by LP."""
    v = np.array(payoff, dtype=float)
    for _ in range(iterations):
        new = v.copy()
        for s in range(len(na)):
            if na[s] == 0:
                continue
            q = np.array([[sum(p * v[t] for p, t in options[s][i * nb[s] + j]) for j in range(nb[s])]
                          for i in range(na[s])])
            new[s] = matrix_value(q) if na[s] > 1 and nb[s] > 1 else (q.max(axis=0).min() if nb[s] > 1 and na[s] == 1
                                                                      else q.max() if nb[s] == 1 else q.min())
        if np.max(np.abs(new - v)) < 1e-15:
            return new
        v = new
    return v


def minimax(options, na, nb, payoff, s: int) -> float:
    if na[s] == 0:
        return payoff[s]
    q = np.array([[sum(p * minimax(options, na, nb, payoff, t) for p, t in options[s][i * nb[s] + j])
                   for j in range(nb[s])] for i in range(na[s])])
    return matrix_value(q) if na[s] > 1 and nb[s] > 1 else (q.min() if na[s] == 1 else q.max())


@given(seed=st.integers(0, 10_000), n=st.integers(4, 9), both=st.booleans())
@settings(max_examples=40, deadline=None)
def test_acyclic_games_match_minimax_by_recursion(seed, n, both):
    options, na, nb, payoff, rs = random_game(seed, n, cyclic=False, both=both)
    sol = solve(Game.build(options, na, nb, payoff, rs))
    for s in range(n):
        assert sol.values[s] == pytest.approx(minimax(options, na, nb, payoff, s), abs=1e-9)
    assert sol.residual == 0.0


@pytest.mark.parametrize("seed", range(8))
def test_cyclic_games_match_shapley_value_iteration(seed):
    options, na, nb, payoff, rs = random_game(seed, 8, cyclic=True, both=True)
    sol = solve(Game.build(options, na, nb, payoff, rs))
    np.testing.assert_allclose(sol.values, shapley(options, na, nb, payoff), atol=1e-9)
    assert sol.residual <= 1e-13


def test_each_sides_strategy_is_optimal_against_the_other():
    """Held to the solved strategy of B, A can do no better than the value; and the reverse."""
    for seed in range(6):
        options, na, nb, payoff, rs = random_game(seed, 9, cyclic=True, both=True)
        g = Game.build(options, na, nb, payoff, rs)
        sol = solve(g)
        a_best = solve(g, b_fixed=sol.b_strategy)
        b_best = solve(g, a_fixed=sol.a_strategy)
        np.testing.assert_allclose(a_best.values, sol.values, atol=1e-9)
        np.testing.assert_allclose(b_best.values, sol.values, atol=1e-9)
        both = solve(g, a_fixed=sol.a_strategy, b_fixed=sol.b_strategy)
        np.testing.assert_allclose(both.values, sol.values, atol=1e-9)


def test_a_fixed_book_play_is_worth_what_it_scores_and_a_best_response_no_less():
    options, na, nb, payoff, rs = random_game(3, 9, cyclic=True, both=False)
    book_a = [int(np.argmin([sum(p for p, t in o) for o in options[s][:na[s]]])) if na[s] else 0 for s in range(9)]
    g = Game.build(options, na, nb, payoff, rs, book_a=book_a)
    book = solve(g, a_fixed=g.book("a"), b_fixed=g.book("b"))
    best = solve(g, b_fixed=g.book("b"))
    assert best.values[0] >= book.values[0] - 1e-12
    got = evaluate(g, g.book("a"), g.book("b"))
    ends = np.flatnonzero(g.ends)
    assert float(got.absorbed @ np.asarray(payoff)[ends]) == pytest.approx(book.values[0], abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_a_fixed_play_is_solved_directly_and_matches_a_dense_linear_solve(seed):
    """Both sides held everywhere: the values come from the play's chain (no iteration), equal to v = (I - P)^-1 r
    by numpy over the states that go on (every state a round start, so any loop is between rounds)."""
    options, na, nb, payoff, _ = random_game(seed, 9, cyclic=True, both=True)
    rs = [na[s] > 0 for s in range(9)]
    g = Game.build(options, na, nb, payoff, rs)
    rng = np.random.default_rng(seed)
    wa, wb = rng.random(int(g.a_offsets[-1])), rng.random(int(g.b_offsets[-1]))
    for w, off in ((wa, g.a_offsets), (wb, g.b_offsets)):
        for s in range(9):
            if off[s + 1] > off[s]:
                w[off[s]:off[s + 1]] /= w[off[s]:off[s + 1]].sum()
    got = solve(g, a_fixed=wa, b_fixed=wb)
    p = np.zeros((9, 9))
    for s in range(9):
        for i in range(na[s]):
            for j in range(nb[s]):
                for prob, t in options[s][i * nb[s] + j]:
                    p[s, t] += wa[g.a_offsets[s] + i] * wb[g.b_offsets[s] + j] * prob
    inner = [s for s in range(9) if na[s] > 0]
    ends = [s for s in range(9) if na[s] == 0]
    r = p[np.ix_(inner, ends)] @ np.asarray(payoff)[ends]
    want = np.linalg.solve(np.eye(len(inner)) - p[np.ix_(inner, inner)], r)
    assert got.sweeps == 0
    np.testing.assert_allclose(got.values[inner], want, atol=1e-12)
    iterated = solve(g, a_fixed=wa, b_fixed=wb, fixed_a_states=np.ones(9, bool), fixed_b_states=np.ones(9, bool))
    assert iterated.sweeps > 0
    np.testing.assert_allclose(got.values, iterated.values, atol=1e-11)


def test_matching_pennies_and_a_game_with_a_saddle_point():
    pennies = Game.build([[[(1.0, 1)], [(1.0, 2)], [(1.0, 2)], [(1.0, 1)]], [], []], [2, 0, 0], [2, 0, 0],
                         [0.0, 1.0, -1.0])
    sol = solve(pennies)
    assert sol.values[0] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(sol.a_strategy, [0.5, 0.5]), np.testing.assert_allclose(sol.b_strategy, [0.5, 0.5])
    # rows: (1 vs 1 -> 0.3; 1 vs 2 -> 0.6), (2 vs 1 -> 0.2; 2 vs 2 -> 0.1): row 1 dominates, B then picks column 1
    lottery = [[(0.65, 1), (0.35, 2)], [(0.8, 1), (0.2, 2)], [(0.6, 1), (0.4, 2)], [(0.55, 1), (0.45, 2)]]
    sol = solve(Game.build([lottery, [], []], [2, 0, 0], [2, 0, 0], [0.0, 1.0, -1.0]))
    assert sol.values[0] == pytest.approx(0.3, abs=1e-12)
    assert sol.a_strategy.tolist() == [1.0, 0.0] and sol.b_strategy.tolist() == [1.0, 0.0]


def test_a_loop_that_rarely_ends_is_solved_in_few_sweeps_to_its_exact_value():
    """Two states taking turns in a loop kept with 0.999 a round: A's cautious option loops (its value is the ratio of
    what ends, 0.2 and -0.25 for B's two answers), the rash one ends at once; the value by the closed form, a matrix
    game over the loop's limits written here, and in far fewer sweeps than the 30,000 a plain sweep needs."""
    ends = {"win": 2, "lose": 3}
    # state 0: A picks cautious (loop to 1) or rash; state 1: B picks how the loop ends
    options = [[[(0.999, 1), (0.0006, ends["win"]), (0.0004, ends["lose"])], [(0.3, ends["win"]), (0.7, ends["lose"])]],
               [[(1.0, 0)], [(0.9995, 0), (0.0005, ends["lose"])]], [], []]
    g = Game.build(options, [2, 1, 0, 0], [1, 2, 0, 0], [0.0, 0.0, 1.0, -1.0], round_start=[True, False, False, False])
    sol = solve(g)
    # B's first answer: (0.0006 - 0.0004) / 0.001 = 0.2; its second: (0.0006 - 0.0004 - 0.999 * 0.0005) / (1 - 0.999 * 0.9995)
    second = (0.0006 - 0.0004 - 0.999 * 0.0005) / (1 - 0.999 * 0.9995)
    assert sol.values[0] == pytest.approx(max(min(0.2, second), 0.3 - 0.7), abs=1e-12)
    assert sol.sweeps < 500 and sol.residual <= 1e-13


def test_a_three_by_three_mixed_equilibrium_is_found_exactly():
    """Rock-paper-scissors with payoffs scaled: the value from LP, the strategy a best response must meet."""
    m = np.array([[0.0, -1.0, 2.0], [1.0, 0.0, -1.0], [-2.0, 1.0, 0.0]]) / 4
    opts = [[(0.5 + m[i, j], 1), (0.5 - m[i, j], 2)] for i, j in itertools.product(range(3), range(3))]
    sol = solve(Game.build([opts, [], []], [3, 0, 0], [3, 0, 0], [0.0, 1.0, -1.0]))
    assert sol.values[0] == pytest.approx(matrix_value(2 * m), abs=1e-12)
    x = sol.a_strategy
    assert (x @ (2 * m)).min() == pytest.approx(sol.values[0], abs=1e-12)


def test_rounds_and_absorption_of_fixed_play_by_enumerating_paths():
    """A round: state 0 (round start) -> 1 (inside) -> back to 0, or an end; paths enumerated to depth 60."""
    options = [[[(0.5, 1), (0.5, 3)]], [[(0.4, 0), (0.6, 4)]], [], [], []]
    g = Game.build(options, [1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [0.0, 0.0, 1.0, 1.0, -1.0],
                   round_start=[True, False, False, False, False])
    got = evaluate(g, g.book("a"), g.book("b"))
    # per round: end at 3 with 0.5, at 4 with 0.3, go on with 0.2
    rounds = {t: 0.8 * 0.2 ** (t - 1) for t in range(1, 60)}
    assert got.absorbed.tolist() == pytest.approx([0.0, 0.5 / 0.8, 0.3 / 0.8], abs=1e-12)
    assert got.mean_rounds == pytest.approx(sum(t * p for t, p in rounds.items()), abs=1e-12)
    for t in range(1, 8):
        assert got.rounds[t] == pytest.approx(rounds[t], abs=1e-14)


def test_what_ends_before_the_first_round_is_no_round():
    """The fight begins before its first round (state 0 is no round start): a quarter ends at once and counts in
    no round; the rounds from state 1 end with 0.8 each, as enumerated."""
    options = [[[(0.25, 3), (0.75, 1)]], [[(0.5, 2), (0.5, 4)]], [[(0.4, 1), (0.6, 4)]], [], []]
    g = Game.build(options, [1, 1, 1, 0, 0], [1, 1, 1, 0, 0], [0.0, 0.0, 0.0, 1.0, -1.0],
                   round_start=[False, True, False, False, False])
    got = evaluate(g, g.book("a"), g.book("b"))
    assert got.absorbed.tolist() == pytest.approx([0.25, 0.75], abs=1e-12)
    for t in range(1, 10):
        assert got.rounds[t] == pytest.approx(0.75 * 0.8 * 0.2 ** (t - 1), abs=1e-14)
    assert sum(got.rounds.values()) + got.rounds_tail == pytest.approx(0.75, abs=1e-12)
    assert got.mean_rounds == pytest.approx(1.25, abs=1e-12)
    first = evaluate(g, g.book("a"), g.book("b"), rounds=False)
    assert list(first.rounds) == [1] and first.rounds_tail == pytest.approx(0.75 * 0.2, abs=1e-14)


@pytest.mark.parametrize("seed", range(4))
def test_merging_an_options_ways_into_one_state_changes_no_figure(seed):
    """Every way split in two (the halves into the same state): the merged game has the original's ways, and the
    split game's equilibrium, play and rounds equal the original's."""
    options, na, nb, payoff, _ = random_game(seed, 9, cyclic=True, both=True)
    rs = [na[s] > 0 for s in range(9)]  # every loop between rounds, so the play can be followed
    split = [[[(p / 2, t) for p, t in o for _ in range(2)] for o in opts] for opts in options]
    g, h = Game.build(options, na, nb, payoff, rs), Game.build(split, na, nb, payoff, rs)
    m = h.merged()
    assert m.to.tolist() == g.to.tolist() and m.edge.tolist() == g.edge.tolist()
    np.testing.assert_allclose(m.p, g.p, atol=1e-15)
    want, got = solve(g), solve(m)
    np.testing.assert_allclose(got.values, want.values, atol=1e-12)
    a, b = evaluate(g, want.a_strategy, want.b_strategy), evaluate(m, got.a_strategy, got.b_strategy)
    np.testing.assert_allclose(b.absorbed, a.absorbed, atol=1e-12)
    assert b.rounds == pytest.approx(a.rounds, abs=1e-12)


@given(seed=st.integers(0, 10_000), n=st.integers(1, 40))
@settings(max_examples=100)
def test_components_ordered_by_rank_in_one_pass_are_the_lexsort_order(seed, n):
    """``_members``' bucket pass against ``np.lexsort``: components sources first, each by rank, -1 first as
    they come."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(n).astype(np.int64)
    cuts = np.sort(rng.choice(np.arange(1, n), size=int(rng.integers(0, n)), replace=False)) if n > 1 else []
    ptr = np.concatenate([[0], cuts, [n]]).astype(np.int64)
    rank = rng.permutation(n).astype(np.int64)
    rank[rng.random(n) < 0.2] = -1
    comp = np.repeat(np.arange(ptr.size - 1), np.diff(ptr))
    got, got_ptr = _members(order, ptr, rank)
    assert got.tolist() == order[np.lexsort((rank[order], -comp))].tolist()
    assert got_ptr.tolist() == [0, *np.cumsum(np.diff(ptr)[::-1]).tolist()]


@pytest.mark.parametrize("seed", [0, 1, 3, 4, 8, 9])
def test_a_play_ranked_by_its_games_order_has_the_figures_of_its_own_order(seed):
    """Every play is ranked by the cut order of its whole game (a play only drops ways): its visits and values
    equal those of the same play ranked by its own ways, a different order on these games."""
    options, na, nb, payoff, _ = random_game(seed, 9, cyclic=False, both=True)
    g = Game.build(options, na, nb, payoff, [s == 0 for s in range(9)])
    assert g.ranked[1]
    sol = solve(g)
    play = _Play.of(g, sol.a_strategy, sol.b_strategy)
    assert play.rank is g.ranked[0]
    own = _Play(g, play.sedge, play.q, play.starts, play.live,
                cut_order(play.sedge, g.to, play.q, play.starts, g.ends)[0])
    assert (own.rank != play.rank).any()
    np.testing.assert_allclose(own.flow()[0], play.flow()[0], atol=1e-12)
    np.testing.assert_allclose(own.values(g.payoff), play.values(g.payoff), atol=1e-12)
    np.testing.assert_allclose(play.values(g.payoff), sol.values, atol=1e-9)


def test_a_loop_inside_a_round_is_refused():
    options = [[[(1.0, 1)]], [[(0.5, 2), (0.5, 3)]], [[(0.5, 1), (0.5, 3)]], []]
    g = Game.build(options, [1, 1, 1, 0], [1, 1, 1, 0], [0, 0, 0, 1.0], round_start=[True, False, False, False])
    with pytest.raises(ValueError, match="loop"):
        evaluate(g, g.book("a"), g.book("b"))


def test_an_explored_one_against_two_fight_matches_a_recursion_and_reports_its_groups():
    """One hero (two hits to fall) against two mooks (one hit each); each round the hero strikes the first mook
    still up (hits 0.6), then each mook up strikes the hero (hits 0.3); the recursion solves the same rules."""
    from analysis.engine.explore import explore
    from analysis.engine.groups import group_solution
    from analysis.engine.markov import OUT, UP

    def step(s):
        hero, mooks = s
        if hero >= 2 or mooks == 0:
            return None
        out = {}
        for hit, p in ((1, 0.6), (0, 0.4)):
            left = mooks - hit
            for k in range(left + 1):  # k of the mooks left hit the hero
                q = p * math.comb(left, k) * 0.3 ** k * 0.7 ** (left - k)
                nxt = (min(hero + k, 2), left)
                out[nxt] = out.get(nxt, 0.0) + q
        return 1, 1, [[(q, t) for t, q in out.items()]]

    ex = explore((0, 2), step, round_start=lambda s: True)
    got = evaluate(ex.game, ex.game.book("a"), ex.game.book("b"))
    end_labels = [ex.labels[i] for i in np.flatnonzero(ex.game.ends)]
    ends = np.array([[OUT if h >= 2 else UP] + [UP] * m + [OUT] * (2 - m) for h, m in end_labels])
    sol = group_solution(got, ends, 1, ("hero",), ("mook", "mook"), states=ex.game.n)

    @functools.lru_cache(maxsize=None)
    def win(hero: int, mooks: int) -> float:
        if hero >= 2:
            return 0.0
        if mooks == 0:
            return 1.0
        stay, total = 0.0, 0.0
        for q, t in step((hero, mooks))[2][0]:
            if t == (hero, mooks):
                stay += q
            else:
                total += q * win(*t)
        return total / (1 - stay)

    assert sol.p_a_wins == pytest.approx(win(0, 2), abs=1e-12)
    assert sol.p_a_wins + sol.p_b_wins + sol.p_both_out == pytest.approx(1.0, abs=1e-12)
    assert sum(sol.survivors_b.values()) == pytest.approx(1.0, abs=1e-12)
    hero = sol.fighters[0]
    assert hero.p_out == pytest.approx(sol.p_b_wins + sol.p_both_out, abs=1e-12)
