"""2K's decision games (analysis/systems/onesix/tactics.py, moments.py).

Under the IN economy (the default) the game of per-moment decisions: book play against the exact duel's chain
(``budget.exact_duel``, an independent computation: the chain leaves dice unrolled that the game rolls before
every decision); each parry script held fixed against its own exact duel; the mirror's equilibrium, which takes no
option, against the exact duel of two fighters who never parry.  Under the fixed order, the scripts of the
``parry`` policy chosen once per duel, as a matrix game checked against the 2 x 2 payoff table built here from four
exact duels and solved by the textbook formula and by a linear program.  On small games, book, best response and
equilibrium against a minimax written here from the rule text; the Monte Carlo kernel playing the solved tables
against the game's figures.  The command line."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from scipy.optimize import linprog

from analysis.base.params import DicelabError
from analysis.engine.decisions import policy_tables
from analysis.engine.game import solve
from analysis.fights.budget import check_tactics, exact_duel
from analysis.fights.fighters import load_fighter
from analysis.fights.tactics import analyse
from analysis.systems import get_system
from sims.api import simulate_duel
from tests.test_cli import run, run_json
from tests.test_onesix_economy import Brute, F, engine_fighter, engine_rules

SIX = get_system("onesix")
SCRIPTS = ("always", "never")
FIXED = {"in_economy": False}
PAIRINGS = {
    "mirror": ("trained_armed", "trained_armed", {}, {}, {}),
    "d6, simultaneous parries": ("novice_armed", "novice_armed", {}, {"parry": "never"},
                                 {"in_die": "d6", "simultaneous_parry": True}),
    "fixed order, mirror": ("trained_armed", "trained_armed", {}, {}, FIXED),
    "fixed order, reflexes 8 vs 16": ("trained_armed", "trained_armed", {"reflexes": 8}, {"reflexes": 16}, FIXED),
    "fixed order, veteran vs poacher (no parry)": ("veteran_armed", "poacher", {}, {}, FIXED),
    "fixed order": ("veteran", "trained_armed", {}, {}, FIXED),
}
MOMENTS = ["mirror", "d6, simultaneous parries"]
SCRIPTED = [name for name in PAIRINGS if name.startswith("fixed order")]


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
        assert getattr(got, key) == pytest.approx(getattr(want, key), abs=1e-12, rel=1e-12), key
    assert set(got.ends) == set(want.ends)
    assert max(abs(got.ends[k] - p) for k, p in want.ends.items()) < 1e-12
    # each stops its rounds distribution at its own tail; the duel's chain does not follow a state holding less than
    # 1e-10 of the fights still going (solver.ROUNDS_SKIP), so its rounds are exact only to 2e-7 a round (measured in
    # the mirror: the game's rounds and tail sum to 1 within 1e-13, the chain's rounds 1.2e-6 below the game's)
    common = min(max(got.rounds), max(want.rounds))
    tol = 1e-12 if not rules.in_economy else 1e-6
    assert max(abs(got.rounds.get(k, 0.0) - want.rounds.get(k, 0.0)) for k in range(1, common + 1)) < tol
    assert sum(got.rounds.values()) + got.rounds_tail == pytest.approx(1.0 - got.truncation - got.p_stalemate,
                                                                         abs=1e-12)
    assert got.final.keys() == want.final.keys()


# ------------------------------------------------------------------ per-moment decisions (the IN economy)
@cache
def analysed(name: str):
    return analyse(game(name))


@pytest.mark.parametrize("name", MOMENTS)
def test_each_parry_script_held_fixed_is_its_own_exact_duel(name):
    """``scripts`` holds a side to parry always or never at every attack (always attacking); each pair of scripts is
    worth what the exact duel of fighters with those policies says."""
    rules, a, b = pairing(name)
    dg = game(name).with_objective("wins")
    assert "per moment" in dg.model
    for pa in SCRIPTS:
        for pb in SCRIPTS:
            sol = solve(dg.game, a_fixed=dg.scripts("a", {"parry": pa}), b_fixed=dg.scripts("b", {"parry": pb}))
            s = exact_duel(SIX, rules, a.replace(parry=pa), b.replace(parry=pb)).solution
            assert sol.values[dg.game.start] == pytest.approx(s.p_a_wins - s.p_b_wins, abs=1e-12), (pa, pb)


def test_every_decision_of_section_8_is_a_decision_point_with_readable_features():
    dg = game("mirror")
    assert [(d.name, d.side) for d in dg.decisions] == [("parry", "a"), ("parry", "b"), ("debt", "a"), ("debt", "b"),
                                                        ("equal_in", "a"), ("equal_in", "b")]
    assert {d.actions for d in dg.decisions} == {("no parry", "parry"), ("attack", "wait"), ("attack", "wait 1")}
    g = dg.game
    for dec, states, feats in zip(dg.decisions, dg.states, dg.features):
        own = g.na[states] if dec.side == "a" else g.nb[states]
        assert (own == 2).all()
        if dec.name == "debt":  # a debt: the leader holds 4-5 IN, above the other's
            assert ((feats[:, 0] >= 4) & (feats[:, 0] <= 5) & (feats[:, 0] > feats[:, 1])).all()
        if dec.name == "equal_in":
            assert (feats[:, 0] == feats[:, 1]).all() and (g.na[states] * g.nb[states] == 4).all()
        if dec.name == "parry":  # in time: at most parry_window (3) below the attack's start, with 3 IN to pay
            assert ((feats[:, 1] - feats[:, 0] <= 3) & (feats[:, 0] >= 3)).all()
    wins = dg.with_objective("wins")
    sol = solve(wins.game)
    policy_tables(wins, sol.a_strategy, sol.b_strategy)  # the features tell apart every state played differently


def test_the_mirror_played_well_never_parries_and_is_the_exact_duel_of_two_who_never_parry():
    """Measured with the default rules (not golden values): book 0.4994 each, A's best reply 0.5413, equilibrium
    0.4996 each.  The equilibrium takes no option anywhere it goes (never parries, never waits), so its figures are
    the exact duel of two fighters with ``parry = never``, computed here by the duel's own chain."""
    rules, a, b = pairing("mirror")
    res = analysed("mirror")
    never = exact_duel(SIX, rules, a.replace(parry="never"), b.replace(parry="never")).solution
    assert res.equilibrium.value == pytest.approx(0.0, abs=1e-9)
    assert res.equilibrium.solution.p_a_wins == pytest.approx(never.p_a_wins, abs=1e-9)
    assert res.equilibrium.solution.mean_rounds == pytest.approx(never.mean_rounds, abs=1e-9)
    assert all(d.share_taken < 1e-6 for d in res.decisions)
    assert res.best_response.value > res.book.value + 0.05
    assert res.dominated == {"a": ("parry=always",), "b": ("parry=always",)}
    assert res.simple_rule is not None and res.simple_rule.text == "parry: always no parry"
    assert res.simple_rule.share_of_gain == pytest.approx(1.0, abs=1e-6)


def test_the_game_is_refused_past_the_memory_ceiling_naming_it():
    rules, a, b = pairing("mirror")
    with pytest.raises(DicelabError) as err:
        check_tactics(SIX, rules, a, b, limit_gb=0.001)
    assert "onesix decision game" in str(err.value) and "\n" not in str(err.value)


# ------------------------------------------------------------------ scripts chosen once per duel (the fixed order)
def test_every_script_pair_is_its_duel():
    """Each pair of scripts held fixed (``DecisionGame.scripts``) is worth what its own exact duel says."""
    dg = game("fixed order, reflexes 8 vs 16").with_objective("wins")
    q = table("fixed order, reflexes 8 vs 16")
    for i, pa in enumerate(SCRIPTS):
        for j, pb in enumerate(SCRIPTS):
            sol = solve(dg.game, a_fixed=dg.scripts("a", {"parry": pa}), b_fixed=dg.scripts("b", {"parry": pb}))
            assert sol.values[dg.game.start] == pytest.approx(q[i, j], abs=1e-12)


@pytest.mark.parametrize("name", SCRIPTED[:3])
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
    assert "once per duel" in res.model
    a_share = next(d for d in res.decisions if d.side == "a").actions
    if abs(q[0] - q[1]).max() > 1e-9:  # A's scripts differ: its equilibrium mix is the table's
        assert a_share["always"] == pytest.approx(x, abs=1e-9)


def test_a_fighter_without_a_parry_has_no_dominated_script():
    """The poacher (defense rating 0) never parries whatever its script: its two scripts tie."""
    q = table("fixed order, veteran vs poacher (no parry)")
    assert abs(q[:, 0] - q[:, 1]).max() < 1e-12
    assert analyse(game("fixed order, veteran vs poacher (no parry)")).dominated["b"] == ()


# ------------------------------------------------------------------ the command line
def test_cli_tactics_mirror_lists_parry_always_as_dominated(capsys):
    data = run_json(capsys, "tactics", "onesix", "--a", "trained_armed", "--b", "trained_armed", "--quiet")
    assert {"system", "variants", "assumptions", "a", "b", "play", "book", "best_response", "equilibrium",
            "decisions", "dominated", "dominated_by_side", "simple_rule", "decisions_model", "tolerance"} <= set(data)
    assert "parry=always" in data["dominated"]
    assert [d["name"] for d in data["decisions"]] == ["parry", "parry", "debt", "debt", "equal_in", "equal_in"]
    assert all({"share_taken", "worth"} <= set(d) for d in data["decisions"])
    assert data["simple_rule"]["text"] == "parry: always no parry"
    assert data["decisions_model"].startswith("per moment")
    res = analysed("mirror")
    assert data["equilibrium"]["p_a_wins"] == pytest.approx(res.equilibrium.solution.p_a_wins, abs=1e-12)


@pytest.mark.parametrize("name", [*MOMENTS, "fixed order, reflexes 8 vs 16"])
def test_monte_carlo_playing_the_policy_tables_agrees_with_the_solver(name):
    """The kernel draws every decision from the solved tables (equilibrium and book play) and meets the game's
    exact figures within 4 standard errors."""
    rules, a, b = pairing(name)
    dg = game(name).with_objective("wins")
    eq = solve(dg.game)
    for sa, sb in ((eq.a_strategy, eq.b_strategy), (dg.game.book("a"), dg.game.book("b"))):
        exact = dg.solution(sa, sb, rounds=False)
        sim = simulate_duel("onesix", rules, a, b, n=150_000, seed=7, policy=policy_tables(dg, sa, sb))
        for name in ("p_a_wins", "p_b_wins", "p_both_out"):
            est = getattr(sim, name)
            assert abs(est.value - getattr(exact, name)) <= 4 * max(est.se, 1 / est.n), name


def test_cli_sim_plays_the_equilibrium_and_says_so(capsys):
    data = run_json(capsys, "sim", "onesix", "--a", "trained_armed", "--b", "trained_armed", "--play",
                    "equilibrium", "--n", "20000", "--seed", "3", "--quiet")
    exact = analysed("mirror").equilibrium.solution.p_a_wins
    assert data["play"] == "equilibrium" and data["n"] == 20000
    assert any("parry" in p for p in data["policy"])
    assert abs(data["p_a_wins"] - exact) <= 4 * data["se_p_a_wins"]


def test_cli_duel_played_says_which_model_of_decisions(capsys):
    book = run_json(capsys, "duel", "onesix", "--a", "trained_armed", "--b", "trained_armed", "--play", "book")
    eq = run_json(capsys, "duel", "onesix", "--a", "trained_armed", "--b", "trained_armed", "--play", "equilibrium")
    assert "decisions played" not in book["order"] and "per moment" in eq["order"]
    assert eq["p_a_wins"] == pytest.approx(analysed("mirror").equilibrium.solution.p_a_wins, abs=1e-12)


# ------------------------------------------------------------------ a minimax written from the rule text
class Minimax(Brute):
    """The IN economy of tests/test_onesix_economy.py's ``Brute`` (rolls, hits, the IN they cost, carries) with the
    decisions of RULES.md section 8 taken at each moment: a side that is ``free`` maximises (A) or minimises (B)
    P(A wins) - P(B wins); a side held to its book always attacks and parries whenever it can.  Rounds are
    solved by Shapley's value iteration over the round starts, each round by backward recursion over its moments
    (a matrix game at equal IN by :func:`value_2x2`)."""

    def __init__(self, rules: dict, a: dict, b: dict, free_a: bool, free_b: bool):
        super().__init__(rules, a, b)
        self.free = (free_a, free_b)

    def payoff(self, ca, cb) -> float:
        return float(self.status(ca) == "up") - float(self.status(cb) == "up")

    def go(self, ca, cb, xa, xb, v) -> float:
        if self.status(ca) != "up" or self.status(cb) != "up":
            return self.payoff(ca, cb)
        return self.moment(ca, cb, xa, xb, v)

    def strike(self, att: int, ca, cb, xa, xb, v, parry: bool) -> float:
        """Side ``att`` attacks (its cost paid here) and the defender parries or not."""
        a, b = self.f
        if att == 0:
            return sum(p * self.go(ca, cb2, xa - self.r["cost"], xb - self.r["parry"] * parry - db, v)
                       for p, lv, c, _ in self.attack(a, b, max(ca), max(cb), parry, True)
                       for cb2, db in [self.land(b, cb, lv, c)])
        return sum(p * self.go(ca2, cb, xa - self.r["parry"] * parry - da, xb - self.r["cost"], v)
                   for p, lv, c, _ in self.attack(b, a, max(cb), max(ca), parry, True)
                   for ca2, da in [self.land(a, ca, lv, c)])

    def defended(self, att: int, ca, cb, xa, xb, v) -> float:
        """Side ``att``'s attack with the defender's parry decision (if it can parry: in time, with the IN)."""
        dfn = 1 - att
        x, y = (xa, xb) if att == 0 else (xb, xa)
        if not self.parries(self.f[dfn], y, x - y):
            return self.strike(att, ca, cb, xa, xb, v, False)
        if not self.free[dfn]:
            return self.strike(att, ca, cb, xa, xb, v, True)
        both = [self.strike(att, ca, cb, xa, xb, v, p) for p in (False, True)]
        return min(both) if dfn == 1 else max(both)

    def moment(self, ca, cb, xa, xb, v) -> float:
        key = (ca, cb, xa, xb)
        if key in self.memo:
            return self.memo[key]
        amin, cost = self.r["amin"], self.r["cost"]
        if max(xa, xb) < amin:
            out = v[(ca, cb, self.carry(xa), self.carry(xb))]
        elif xa == xb:
            q = np.empty((2, 2))
            q[0, 0] = self.exchange(ca, cb, xa, v)
            q[0, 1] = self.defended(0, ca, cb, xa, xb - 1, v)  # B waits 1, A strikes
            q[1, 0] = self.defended(1, ca, cb, xa - 1, xb, v)
            q[1, 1] = self.moment(ca, cb, xa - 1, xb - 1, v)
            rows = [0, 1] if self.free[0] else [0]
            cols = [0, 1] if self.free[1] else [0]
            sub = q[np.ix_(rows, cols)]
            out = value_2x2(sub)[0] if sub.shape == (2, 2) else float(sub.max() if len(rows) > 1 else sub.min())
        else:
            att = 0 if xa > xb else 1
            x = xa if att == 0 else xb
            out = self.defended(att, ca, cb, xa, xb, v)
            if x < cost and self.free[att]:  # attack with a debt, or wait down to amin - 1
                wait = self.moment(ca, cb, amin - 1, xb, v) if att == 0 else self.moment(ca, cb, xa, amin - 1, v)
                out = max(out, wait) if att == 0 else min(out, wait)
        self.memo[key] = out
        return out

    def exchange(self, ca, cb, x, v) -> float:
        """Both attack at the same IN (no parry against a simultaneous attack under the default rules)."""
        a, b = self.f
        x2 = x - self.r["cost"]
        total = 0.0
        for p1, lv1, c1, _ in self.attack(a, b, max(ca), max(cb), False, True):
            cb2, db = self.land(b, cb, lv1, c1)
            for p2, lv2, c2, _ in self.attack(b, a, max(cb), max(ca), False, True):
                ca2, da = self.land(a, ca, lv2, c2)
                total += p1 * p2 * self.go(ca2, cb2, x2 - da, x2 - db, v)
        return total

    def value(self, tol: float = 1e-13, sweeps: int = 2000) -> float:
        """The game's value from two unhurt fighters without carry (Shapley's iteration over round starts)."""
        a, b = self.f
        starts = [((0, 0), (0, 0), 0, 0)]
        v: dict = {}
        for _ in range(sweeps):
            self.memo = {}
            new, k = {}, 0
            v = _Defaulting(v)
            while k < len(starts):
                ca, cb, ka, kb = s = starts[k]
                new[s] = sum(pu * pv * self.moment(ca, cb, a["reflexes"] - max(ca) + ka + u,
                                                   b["reflexes"] - max(cb) + kb + w, v)
                             for u, pu in self.one_k for w, pv in self.one_k if pu * pv >= 1e-17)
                starts += [t for t in v.asked if t not in new and t not in starts]
                k += 1
            moved = max(abs(new[s] - v.get(s, 0.0)) for s in new)
            v = new
            if moved < tol:
                break
        return v[starts[0]]


class _Defaulting(dict):
    """Round-start values, 0 for one not valued yet, remembering which were asked for."""

    def __init__(self, known):
        super().__init__(known)
        self.asked = []

    def __missing__(self, key):
        self.asked.append(key)
        return 0.0


SMALL_GAMES = {
    "equal reflexes, both parry": ({"track": 1, "reserve": 1, "floor": -6, "in_die": "d6"},
                                   F(attack=9, defense=7, reflexes=5), F(attack=9, defense=7, reflexes=5, ps=8)),
    "a reflex gap, one parries": ({"track": 1, "reserve": 1, "in_die": "d6", "window": 2},
                                  F(attack=10, defense=6, reflexes=7, ps=7),
                                  F(attack=9, reflexes=6, cls="shock", personality=0)),
}


@pytest.mark.parametrize("name", list(SMALL_GAMES))
def test_book_best_response_and_equilibrium_match_a_minimax_written_from_the_rules(name):
    rules, a, b = SMALL_GAMES[name]
    dg = SIX.tactics(engine_rules(rules), engine_fighter(a), engine_fighter(b))
    t = analyse(dg)
    for play, free in ((t.book, (False, False)), (t.best_response, (True, False)), (t.equilibrium, (True, True))):
        assert play.value == pytest.approx(Minimax(rules, a, b, *free).value(), abs=1e-9)
