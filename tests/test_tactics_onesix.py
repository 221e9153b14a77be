"""2K's decision game (analysis/systems/onesix/tactics.py): the scripts of the ``parry`` policy chosen once per duel,
as a matrix game over the exact duels.  Book play against ``budget.exact_duel``; the game's value against the 2 x 2
payoff table built here from four exact duels and solved by the textbook formula and by a linear program; the
dominated script; the command line."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from scipy.optimize import linprog

from analysis.base.params import DicelabError
from analysis.engine.game import solve
from analysis.fights.budget import check_tactics, exact_duel
from analysis.fights.fighters import load_fighter
from analysis.fights.tactics import analyse
from analysis.systems import get_system
from tests.test_cli import run, run_json

SIX = get_system("onesix")
SCRIPTS = ("always", "never")
PAIRINGS = {
    "mirror": ("trained_armed", "trained_armed", {}, {}, {}),
    "reflexes 8 vs 16": ("trained_armed", "trained_armed", {"reflexes": 8}, {"reflexes": 16}, {}),
    "veteran vs poacher (no parry)": ("veteran_armed", "poacher", {}, {}, {}),
    "novice never parries vs trained, finish": ("novice_armed", "trained", {"parry": "never"}, {},
                                                {"after_out": "finish"}),
    "fixed order": ("veteran", "trained_armed", {}, {}, {"in_economy": False}),
}


def pairing(name: str):
    a, b, ca, cb, rules = PAIRINGS[name]
    return (SIX.rules().replace(**rules), load_fighter(SIX, a).replace(**ca), load_fighter(SIX, b).replace(**cb))


@cache
def game(name: str):
    rules, a, b = pairing(name)
    check_tactics(SIX, rules, a, b)
    return SIX.tactics(rules, a, b)


@cache
def table(name: str) -> np.ndarray:
    """A's payoff P(A wins) - P(B wins) for each pair of scripts (rows: A's parry, columns: B's), from four exact
    duels: the independent computation the game is checked against."""
    rules, a, b = pairing(name)
    out = np.empty((2, 2))
    for i, pa in enumerate(SCRIPTS):
        for j, pb in enumerate(SCRIPTS):
            s = exact_duel(SIX, rules, a.replace(parry=pa), b.replace(parry=pb)).solution
            out[i, j] = s.p_a_wins - s.p_b_wins
    return out


def value_2x2(q: np.ndarray) -> tuple[float, float, float]:
    """The value of the 2 x 2 zero-sum game ``q`` (A maximises over rows) and A's and B's probability of their
    first action: a saddle point if the maximin meets the minimax, else the textbook mixed formula."""
    lower, upper = q.min(axis=1).max(), q.max(axis=0).min()
    if upper - lower <= 1e-15:
        i, j = int(q.min(axis=1).argmax()), int(q.max(axis=0).argmin())
        return float(q[i, j]), float(i == 0), float(j == 0)
    (a, b), (c, d) = q
    den = a - b - c + d
    return float((a * d - b * c) / den), float((d - c) / den), float((d - b) / den)


def value_lp(q: np.ndarray) -> tuple[float, np.ndarray]:
    """The value and A's optimal mix by linear programming: maximise v subject to x @ q[:, j] >= v, sum x = 1."""
    m, k = q.shape
    res = linprog(np.r_[np.zeros(m), -1.0], A_ub=np.c_[-q.T, np.ones(k)], b_ub=np.zeros(k),
                  A_eq=np.r_[np.ones(m), 0.0][None, :], b_eq=[1.0], bounds=[(0, None)] * m + [(None, None)],
                  method="highs")
    return float(-res.fun), res.x[:m]


# ------------------------------------------------------------------ book play is the duel
@pytest.mark.parametrize("name", list(PAIRINGS))
def test_book_play_is_the_exact_duel(name):
    rules, a, b = pairing(name)
    dg = game(name)
    got = dg.solution(dg.game.book("a"), dg.game.book("b"))
    want = exact_duel(SIX, rules, a, b).solution
    for key in ("p_a_wins", "p_b_wins", "p_both_out", "p_stalemate", "p_a_out", "p_b_out", "p_a_dying", "p_b_dying",
                "p_a_dead", "p_b_dead", "mean_rounds", "truncation"):
        assert getattr(got, key) == pytest.approx(getattr(want, key), abs=1e-12), key
    assert set(got.ends) == set(want.ends)
    assert max(abs(got.ends[k] - p) for k, p in want.ends.items()) < 1e-12
    assert max(abs(got.rounds.get(k, 0.0) - p) for k, p in want.rounds.items()) < 1e-12
    assert got.final.keys() == want.final.keys()


def test_every_script_pair_is_its_duel():
    """Each pair of scripts held fixed (``DecisionGame.scripts``) is worth what its own exact duel says."""
    dg = game("reflexes 8 vs 16").with_objective("wins")
    q = table("reflexes 8 vs 16")
    for i, pa in enumerate(SCRIPTS):
        for j, pb in enumerate(SCRIPTS):
            sol = solve(dg.game, a_fixed=dg.scripts("a", {"parry": pa}), b_fixed=dg.scripts("b", {"parry": pb}))
            assert sol.values[dg.game.start] == pytest.approx(q[i, j], abs=1e-12)


# ------------------------------------------------------------------ the matrix game
@pytest.mark.parametrize("name", ["mirror", "reflexes 8 vs 16", "veteran vs poacher (no parry)"])
def test_equilibrium_and_best_response_against_the_hand_solved_table(name):
    q = table(name)
    res = analyse(game(name))
    v, x, _ = value_2x2(q)
    v_lp, x_lp = value_lp(q)
    assert v == pytest.approx(v_lp, abs=1e-9)
    assert res.equilibrium.value == pytest.approx(v, abs=1e-12)
    book_a, book_b = (SCRIPTS.index(f.parry) for f in pairing(name)[1:])
    assert res.book.value == pytest.approx(q[book_a, book_b], abs=1e-12)
    assert res.best_response.value == pytest.approx(q[:, book_b].max(), abs=1e-12)
    a_share = next(d for d in res.decisions if d.side == "a").actions
    if abs(q[0] - q[1]).max() > 1e-9:  # A's scripts differ: its equilibrium mix is the table's
        assert a_share["always"] == pytest.approx(x, abs=1e-9)


def test_parry_always_is_dominated_in_the_trained_armed_mirror_and_at_reflexes_8_vs_16():
    """Measured with the default rules (not golden values): mirror P(A wins) book 0.4994, best response 0.5403,
    equilibrium 0.4996 (both never parry, value 0); A reflexes 8 vs B 16: book 0.1432, best response 0.1900,
    equilibrium 0.1787 (both never parry).  The table of four exact duels shows it: never parrying does better
    for each side against either script of the other."""
    for name in ("mirror", "reflexes 8 vs 16"):
        q = table(name)
        assert (q[1] > q[0]).all() and (q[:, 1] < q[:, 0]).all()  # A's never row beats always; B's never col too
        res = analyse(game(name))
        assert res.dominated == {"a": ("parry=always",), "b": ("parry=always",)}
        assert res.simple_rule is not None and res.simple_rule.text == "parry: never"
        assert res.equilibrium.value == pytest.approx(q[1, 1], abs=1e-12)
        assert all(d.share_taken == pytest.approx(1.0) and d.worth > 0 for d in res.decisions)
        assert "not modelled yet" in res.model and "once per duel" in res.model


def test_a_fighter_without_a_parry_has_no_dominated_script():
    """The poacher (defense rating 0) never parries whatever its script: its two scripts tie."""
    q = table("veteran vs poacher (no parry)")
    assert abs(q[:, 0] - q[:, 1]).max() < 1e-12
    assert analyse(game("veteran vs poacher (no parry)")).dominated["b"] == ()


def test_the_game_is_refused_past_the_memory_ceiling_naming_it():
    rules, a, b = pairing("mirror")
    with pytest.raises(DicelabError) as err:
        check_tactics(SIX, rules, a, b, limit_gb=0.001)
    assert "onesix decision game" in str(err.value) and "\n" not in str(err.value)


# ------------------------------------------------------------------ the command line
def test_cli_tactics_mirror_lists_parry_always_as_dominated(capsys):
    data = run_json(capsys, "tactics", "onesix", "--a", "trained_armed", "--b", "trained_armed", "--quiet")
    assert {"system", "variants", "assumptions", "a", "b", "play", "book", "best_response", "equilibrium",
            "decisions", "dominated", "dominated_by_side", "simple_rule", "decisions_model", "tolerance"} <= set(data)
    assert "parry=always" in data["dominated"]
    assert [(d["name"], d["side"]) for d in data["decisions"]] == [("parry", "a"), ("parry", "b")]
    assert all({"share_taken", "worth"} <= set(d) for d in data["decisions"])
    assert data["simple_rule"]["text"] == "parry: never"
    assert "not modelled yet" in data["decisions_model"]
    q = table("mirror")
    assert data["equilibrium"]["value"] == pytest.approx(value_2x2(q)[0], abs=1e-12)
    code, out, _ = run(capsys, "tactics", "onesix", "--a", "trained_armed", "--b", "trained_armed", "--quiet")
    assert code == 0 and "decisions model: scripts chosen once per duel" in out and "parry=always" in out


def test_cli_sim_with_a_solved_play_is_refused_in_one_line(capsys):
    code, out, err = run(capsys, "sim", "onesix", "--a", "trained_armed", "--b", "trained_armed", "--play",
                         "equilibrium", "--n", "100", "--quiet")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "not simulated yet" in err and "--play book" in err


def test_cli_duel_played_says_which_model_of_decisions(capsys):
    book = run_json(capsys, "duel", "onesix", "--a", "trained_armed", "--b", "trained_armed", "--play", "book")
    eq = run_json(capsys, "duel", "onesix", "--a", "trained_armed", "--b", "trained_armed", "--play", "equilibrium")
    assert "decisions played" not in book["order"] and "once per duel" in eq["order"]
    q = table("mirror")
    assert eq["p_a_wins"] - eq["p_b_wins"] == pytest.approx(q[1, 1], abs=1e-12)
