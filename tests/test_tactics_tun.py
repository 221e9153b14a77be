"""ТУН's duel as a game of decisions (analysis/systems/tun/game.py, RULES.md section 8): held to both fighters'
policies it is the duel, number for number, on every archetype pairing and reading; book, best response and
equilibrium values against a minimax recursion written here from the rule text on short tracks; the fixed scripts
are the duels of the fighters with those policies; the simulator playing a solved strategy agrees with it."""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pytest

from analysis.base.params import DicelabError
from analysis.engine.decisions import policy_tables
from analysis.engine.game import solve
from analysis.fights.fighters import archetypes, load_fighter
from analysis.fights.tactics import analyse, dominated
from analysis.systems import get_system, tun
from sims.api import simulate_duel
from tests.played import dominated_by_duels
from tests.test_combat_tun import BOOK, PART, acting_sheet, limit_brute, outcome, reaches, sheet, volume
from tests.test_sims_tun import AIMED, DUELS

SYSTEM = get_system("tun")
NAMES = list(archetypes("tun"))
AIM_NAMES = ("none", "arm", "leg", "head", "hand", "foot", "knee")


def fighter(spec):
    return load_fighter(SYSTEM, spec)


def same_numbers(got, want, tol=1e-12):
    for name in ("p_a_wins", "p_b_wins", "p_both_out", "p_stalemate", "p_a_out", "p_b_out", "p_a_dying",
                 "p_b_dying", "mean_rounds"):
        assert getattr(got, name) == pytest.approx(getattr(want, name), abs=tol), name


def book_solution(rules, a, b):
    dg = SYSTEM.tactics(rules, a, b)
    return dg.solution(dg.game.book("a"), dg.game.book("b"))


# ------------------------------------------------------------------ the book is the duel
@pytest.mark.parametrize("a,b", list(itertools.product(NAMES, NAMES)))
def test_the_book_play_is_the_duel_on_every_archetype_pairing(a, b):
    rules = tun.Rules()
    same_numbers(book_solution(rules, fighter(a), fighter(b)), tun.duel(rules, fighter(a), fighter(b)).solution)


@pytest.mark.parametrize("variants,a,b", DUELS + AIMED)
def test_the_book_play_is_the_duel_under_every_reading_and_policy(variants, a, b):
    rules = tun.Rules(**variants)
    same_numbers(book_solution(rules, fighter(a), fighter(b)), tun.duel(rules, fighter(a), fighter(b)).solution)


@pytest.mark.parametrize("variants", [dict(after_out="finish"), dict(after_out="finish", lethal_at="dead",
                                                                           finish_attacks=3)])
def test_the_book_play_is_the_duel_when_the_winner_finishes(variants):
    rules = tun.Rules(**variants)
    for a, b in (("red", "trained_armed"), ("archetype=red,aim=arm", "veteran"), ("berserker", "master")):
        same_numbers(book_solution(rules, fighter(a), fighter(b)), tun.duel(rules, fighter(a), fighter(b)).solution)


def test_a_melee_fighter_out_of_reach_is_refused_as_in_the_duel():
    with pytest.raises(DicelabError, match="distance = 45"):
        SYSTEM.tactics(tun.Rules(distance=45), fighter("trained_armed"), fighter("red"))


# ------------------------------------------------------------------ the scripts are the duels of their policies
@pytest.mark.parametrize("variants,a,b,side,policy", [
    ({}, "trained_armed", "veteran", "a", {"turn_policy": "delay"}),
    ({}, "trained_armed", "veteran", "a", {"turn_policy": "initiative_skip"}),
    ({}, "veteran", "trained_armed", "b", {"turn_policy": "initiative_skip", "moving": True}),
    ({}, "red", "trained_armed", "a", {"aim": "head"}),
    (dict(ranged_defense="moving"), "red", "archetype=red,weapon_n=3", "b", {"aim": "leg", "moving": True}),
    ({}, "berserker", "master", "a", {"defends": True}),
    (dict(stun_actions=2, after_out="finish"), "archetype=red,aim=hand", "berserker", "a", {"aim": "knee"}),
])
def test_a_script_is_the_duel_of_the_fighter_with_that_policy(variants, a, b, side, policy):
    rules = tun.Rules(**variants)
    fa, fb = fighter(a), fighter(b)
    dg = SYSTEM.tactics(rules, fa, fb)
    own = dg.scripts(side, policy)
    sol = dg.solution(own, dg.game.book("b")) if side == "a" else dg.solution(dg.game.book("a"), own)
    fa, fb = (fa.replace(**policy), fb) if side == "a" else (fa, fb.replace(**policy))
    same_numbers(sol, tun.duel(rules, fa, fb).solution)


def test_the_policies_list_every_value_the_game_plays_and_not_defending_only_for_who_does_not_defend():
    dg = SYSTEM.tactics(tun.Rules(), fighter("red"), fighter("berserker"))
    assert dg.policies["a"] == {"defends": (True,), "moving": (False, True), "aim": AIM_NAMES,
                                "turn_policy": ("act", "delay", "initiative_skip")}
    assert dg.policies["b"]["defends"] == (True, False) and dg.policies["b"]["aim"] == ("none",)
    with pytest.raises(DicelabError, match="defends = false"):
        dg.scripts("a", {"defends": False})
    names = {(d.name, d.side): d.actions for d in dg.decisions}
    assert names[("posture", "a")] == ("defend", "move") and len(names[("posture", "b")]) == 4
    assert names[("aim", "a")] == AIM_NAMES and ("aim", "b") not in names
    assert all(d.actions[0] in ("act", "defend", "none") for d in dg.decisions)


def test_dominated_scripts_come_from_the_duels_of_every_pair_of_scripts():
    """A script of A is dominated when another value of the same field does at least as well against every
    script of B and better against one: recomputed here from tun.duel over all the scripts."""
    rules = tun.Rules()
    fa, fb = fighter("novice_armed"), fighter("trained")
    dg = SYSTEM.tactics(rules, fa, fb)

    def value(pa, pb):
        s = tun.duel(rules, fa.replace(**pa), fb.replace(**pb)).solution
        return s.p_a_wins - s.p_b_wins

    assert list(dominated(dg)["a"]) == dominated_by_duels(dg.policies, value)


# ------------------------------------------------------------------ minimax on short tracks, from the rule text
def game_brute(a, b, r):
    """(book, A's best response to B's book, equilibrium) of P(A wins) - P(B wins), by value iteration over every
    state of the duel played decision by decision.

    A round: the leader L decides at its turn: act (its posture, its aim with a ranged weapon in hand, then its
    actions), delay (until the other's first action) or skip (no gain for a leader: as acting).  If L's actions put
    F out, F's last word ends the fight; else F decides: act, delay (nothing to wait for: as acting) or skip (no
    action; it leads the next round with ``initiative_skip_cost`` actions fewer).  After L delays, F acts once
    (then L's last word if L is out), L takes its turn, F resumes with a new posture and aim; or F skips and L acts
    at the end of the round.  A posture (defend or not, move or not) holds until its fighter's next turn; before its
    first, the stand both take at once once the order is known (a matrix game).  Aimed hits disarm, immobilise or
    stun as in the duel.  With ``finish``, the winner picks a posture (only moving counts) and its aim for its
    finishing attacks on a loser not dying yet.  The book: a leader delays iff its policy delays, a follower skips
    iff its policy skips and it is the first round, stands, postures and aims are the policies'.
    """
    f = {"a": sheet(a), "b": sheet(b)}
    other = {"a": "b", "b": "a"}
    vol = {s: volume(x) for s, x in f.items()}
    line = {s: r["death_multiple"] * v for s, v in vol.items()}
    n, cost = r["actions_per_turn"], r["initiative_skip_cost"]
    postures = {s: [(False, False), (False, True)] + ([(True, False), (True, True)] if not x["defends"] else [])
                for s, x in f.items()}

    def as_fighting(s, me, aim="none"):
        """(sheet as it fights, with its posture and aim; its effects (disarmed, immobilised, stunned))."""
        x = dict(f[s])
        nodef, moving = me[4], me[5]
        x.update(defends=not nodef, moving=moving, aim=aim if x["ranged"] else "none")
        return acting_sheet(x, me[1:4])

    @lru_cache(maxsize=None)
    def attack(s, me, you, aim, mode):
        """((trauma, hit), p) of one attack of s as it fights (``me``, its aim) on the other as it stands."""
        att, dfn = as_fighting(s, me, aim=aim), as_fighting(other[s], you)
        limit = limit_brute(att, dfn, r, mode)
        acc = {}
        for value, p in rolls(att["dice"]):
            ok, e = outcome(att["dice"], limit, value, r)
            key = (e * att["weapon_n"] + att["weapon_b"], True) if ok else (0, False)
            acc[key] = acc.get(key, 0.0) + p
        return tuple(acc.items())

    def hit_sets(target, aim, stays_up):
        """The target's effects after a hit aimed at ``aim`` (renewed stun, not added)."""
        if aim == "none" or r["aim_effects"] == "none" or (r["aim_effects"] == "while_up" and not stays_up):
            return target
        t = list(target)
        k = PART[aim]
        t[1 + k] = r["stun_actions"] if k == 2 else 1
        return tuple(t)

    def actions(state, s, k, aim, moving, mode):
        """Distribution over (A, B) after ``k`` actions of s (mode ``normal`` or ``last_word``)."""
        dist = {state: 1.0}
        for _ in range(k):
            new = {}
            for (fa, fb), p in dist.items():
                me, you = (fa, fb) if s == "a" else (fb, fa)
                if you[0] >= vol[other[s]]:
                    outs = [((me, you), 1.0)]
                elif me[3] > 0:
                    outs = [((me[:3] + (me[3] - 1,) + me[4:], you), 1.0)]
                elif not reaches(as_fighting(s, me, aim=aim), r):
                    outs = [((me, you), 1.0)]
                else:
                    outs = []
                    for (d, hit), q in attack(s, me[:5] + (moving,), you, aim if not me[1] else "none", mode):
                        t = min(you[0] + d, line[other[s]] + 1)
                        eff = hit_sets(you, aim if not me[1] else "none", t < vol[other[s]]) if hit else you
                        me2 = me if mode == "normal" else (min(me[0] + r["last_word_trauma"], line[s] + 1),) + me[1:]
                        outs.append(((me2, (t,) + eff[1:4] + you[4:]), q))
                for (m2, y2), q in outs:
                    key = (m2, y2) if s == "a" else (y2, m2)
                    new[key] = new.get(key, 0.0) + p * q
            dist = new
        return dist

    def up(s, me):
        return me[0] < vol[s]

    def end(fa, fb):
        """The final pair, or the winner's finishing posture when ``finish`` and the loser is not dying yet."""
        if r["after_out"] != "finish" or up("a", fa) == up("b", fb):
            return {("end", fa[0], fb[0]): 1.0}
        w = "a" if up("a", fa) else "b"
        me, you = (fa, fb) if w == "a" else (fb, fa)
        if you[0] > line[other[w]]:
            return {("end", fa[0], fb[0]): 1.0}
        return {("fin", w, me[:4], you[0]): 1.0}

    def finishing(w, me, t0, moving, aim):
        """The final pairs after the winner's finishing attacks (as it fights: ``me``'s effects, moving, aim)."""
        v = other[w]
        att = as_fighting(w, me + (False, moving), aim=aim)
        dist = {t0: 1.0}
        for _ in range(r["finish_attacks"]):
            new = {}
            for t, p in dist.items():
                if t > line[v] or not reaches(att, r):
                    new[t] = new.get(t, 0.0) + p
                    continue
                limit = limit_brute(att, f[v], r, "helpless")
                for value, q in rolls(att["dice"]):
                    ok, e = outcome(att["dice"], limit, value, r)
                    t2 = min(t + (e * att["weapon_n"] + att["weapon_b"] if ok else 0), line[v] + 1)
                    new[t2] = new.get(t2, 0.0) + p * q
            dist = new
        return {(("end", me[0], t) if w == "a" else ("end", t, me[0])): p for t, p in dist.items()}

    def fresh(s, k):
        """``s`` fresh in its ``k``-th posture."""
        return (0, 0, 0, 0) + postures[s][k]

    def stretch(ctx, s, k, after, word, pair):
        """The stretch of mover s (``k`` actions) from ``pair``: its posture decision, or straight on if none."""
        if k == 0:
            return proceed(ctx, after, pair)
        return {("post", ctx, s, k, after, word, pair): 1.0}

    def proceed(ctx, after, pair):
        lead, red, first = ctx
        L, F = lead, other[lead]
        nl = n - cost * red
        if after == "turn_F":
            return {("turn_F", ctx, pair): 1.0}
        if after == "LD":
            return stretch(ctx, L, nl, "FC", None, pair)
        if after == "FC":
            return stretch(ctx, F, n - 1, "round_L", None, pair)
        if after == "round_L":
            return {("turn_L", (L, 0, False), pair): 1.0}
        return {("turn_L", (F, 1, False), pair): 1.0}

    def resolve(ctx, s, k, after, word, pair, aim, moving):
        out = {}
        for (fa, fb), p in actions(pair, s, k, aim, moving, "normal").items():
            y = other[s]
            you = fb if y == "b" else fa
            if up(y, you):
                nxt = proceed(ctx, after, (fa, fb))
            elif word == y and r["last_word"] and (r["dying_last_word"] or you[0] <= line[y]):
                nxt = {("word", y, (fa, fb)): 1.0}
            else:
                nxt = end(fa, fb)
            for key, q in nxt.items():
                out[key] = out.get(key, 0.0) + p * q
        return out

    def last_word(y, pair, aim):
        out = {}
        for (fa, fb), p in actions(pair, y, r["last_word_actions"], aim, False, "last_word").items():
            for key, q in end(fa, fb).items():
                out[key] = out.get(key, 0.0) + p * q
        return out

    def can_aim(s, me):
        return f[s]["ranged"] and not me[1]

    @lru_cache(maxsize=None)
    def options(state):
        """(decider, book action, [distribution per action]) or None at an end."""
        kind = state[0]
        if kind == "end":
            return None
        if kind == "start":
            return None, 0, [{("stand", s): p for s, p in first_order().items()}]
        if kind == "stand":
            lead = state[1]
            book = tuple(postures[s].index((not f[s]["defends"], f[s]["moving"])) for s in "ab")
            return "ab", book, [[{("turn_L", (lead, 0, True), (fresh("a", i), fresh("b", j))): 1.0}
                                 for j in range(len(postures["b"]))] for i in range(len(postures["a"]))]
        if kind == "fin":
            _, w, me, t0 = state
            dists = [{("fin_aim", w, me, t0, moving): 1.0} if f[w]["ranged"] and not me[1]
                     else finishing(w, me, t0, moving, "none") for _, moving in postures[w]]
            return w, postures[w].index((not f[w]["defends"], f[w]["moving"])), dists
        if kind == "fin_aim":
            _, w, me, t0, moving = state
            return w, AIM_NAMES.index(f[w]["aim"]), [finishing(w, me, t0, moving, aim) for aim in AIM_NAMES]
        if kind == "turn_L":
            _, ctx, pair = state
            lead, red, first = ctx
            act = stretch(ctx, lead, n - cost * red, "turn_F", other[lead], pair)
            book = 1 if f[lead]["turn_policy"] == "delay" else 0
            return lead, book, [act, {("turn_FD", ctx, pair): 1.0}, act]
        if kind in ("turn_F", "turn_FD"):
            _, ctx, pair = state
            lead, red, first = ctx
            F = other[lead]
            book = 2 if f[F]["turn_policy"] == "initiative_skip" and first else 0
            if kind == "turn_F":
                act, skip = stretch(ctx, F, n, "round_L", None, pair), proceed(ctx, "round_F", pair)
            else:
                act = stretch(ctx, F, 1, "LD", lead, pair)
                skip = stretch(ctx, lead, n - cost * red, "round_F", None, pair)
            return F, book, [act, act, skip]
        if kind == "post":
            _, ctx, s, k, after, word, pair = state
            dists = []
            for nodef, moving in postures[s]:
                fa, fb = pair
                me = (fa if s == "a" else fb)[:4] + (nodef, moving)
                new = (me, fb) if s == "a" else (fa, me)
                if can_aim(s, me):
                    dists.append({("aim", ctx, s, k, after, word, new, moving): 1.0})
                else:
                    dists.append(resolve(ctx, s, k, after, word, new, "none", moving))
            book = postures[s].index((not f[s]["defends"], f[s]["moving"]))
            return s, book, dists
        if kind == "aim":
            _, ctx, s, k, after, word, pair, moving = state
            return s, AIM_NAMES.index(f[s]["aim"]), [resolve(ctx, s, k, after, word, pair, aim, moving)
                                                    for aim in AIM_NAMES]
        _, y, pair = state
        if can_aim(y, pair[0] if y == "a" else pair[1]):
            return y, AIM_NAMES.index(f[y]["aim"]), [last_word(y, pair, aim) for aim in AIM_NAMES]
        return None, 0, [last_word(y, pair, "none")]

    def first_order():
        keys = {"body": ["body"], "roll": [], "reaction": ["reaction", "body"]}[r["turn_order"]]
        for key in keys:
            if f["a"][key] != f["b"][key]:
                return {"a": 1.0} if f["a"][key] > f["b"][key] else {"b": 1.0}
        return {"a": 0.5, "b": 0.5}

    def flat(o):
        """A state's distributions, a matrix game's row after row."""
        return [d for row in o[2] for d in row] if o[0] == "ab" else o[2]

    states, todo = {}, [("start",)]
    while todo:
        s = todo.pop()
        if s in states:
            continue
        states[s] = options(s)
        if states[s] is not None:
            for dist in flat(states[s]):
                todo.extend(t for t in dist if t not in states)

    def pay(s):
        _, ta, tb = s
        return float(ta < vol["a"]) - float(tb < vol["b"])

    def iterate(a_free, b_free):
        v = {s: pay(s) if o is None else 0.0 for s, o in states.items()}
        for _ in range(100_000):
            moved = 0.0
            for s, o in states.items():
                if o is None:
                    continue
                decider, book, dists = o
                if decider == "ab":
                    m = np.array([[sum(p * v[t] for t, p in d.items()) for d in row] for row in dists])
                    new = matrix_value(m) if b_free else m[:, book[1]].max() if a_free else m[book]
                    moved = max(moved, abs(new - v[s]))
                    v[s] = new
                    continue
                q = [sum(p * v[t] for t, p in d.items()) for d in dists]
                if decider == "a" and a_free:
                    new = max(q)
                elif decider == "b" and b_free:
                    new = min(q)
                else:
                    new = q[book] if decider is not None else q[0]
                moved = max(moved, abs(new - v[s]))
                v[s] = new
            if moved < 1e-15:
                break
        return v[("start",)]

    return iterate(False, False), iterate(True, False), iterate(True, True)


def matrix_value(m):
    """The value of the zero-sum matrix game ``m`` (the row player maximises), by linear programming."""
    from scipy.optimize import linprog

    rows, cols = m.shape
    res = linprog(np.r_[np.zeros(rows), -1.0], A_ub=np.c_[-m.T, np.ones(cols)], b_ub=np.zeros(cols),
                  A_eq=np.r_[np.ones(rows), 0.0][None, :], b_eq=[1.0], bounds=[(0, None)] * rows + [(None, None)])
    return -res.fun


@lru_cache(maxsize=None)
def rolls(dice):
    from tests.brute import tun_rolls

    return tuple((v, float(p)) for v, p in tun_rolls(dice))


SHORT = [
    # melee against melee: the turn decisions and the posture
    ({}, "body=4,attack_feature=9,weapon_n=2", "body=4,attack_feature=8,weapon_b=1"),
    ({}, "body=4,attack_feature=8,turn_policy=delay", "body=3,attack_feature=10,defends=false"),
    (dict(actions_per_turn=3, initiative_skip_cost=2, last_word_actions=2),
     "body=3,attack_feature=9", "body=3,attack_feature=9,turn_policy=initiative_skip"),
    (dict(after_out="finish", finish_attacks=2, dying_last_word=False, death_multiple=1),
     "body=4,attack_feature=9,weapon_n=2", "body=3,attack_feature=10,moving=true"),
    # a shooter: the aims and their effects, the readings of the ranged defence
    ({}, "body=4,attack_feature=10,ranged=true", "body=4,attack_feature=9,weapon_n=2"),
    (dict(ranged_defense="moving", stun_actions=2), "body=3,attack_feature=11,ranged=true,aim=head",
     "body=3,attack_feature=11,weapon_n=2"),
    (dict(aim_effects="while_up"), "body=3,attack_feature=11,ranged=true",
     "body=3,attack_feature=9,turn_policy=delay"),
]


@pytest.mark.parametrize("variants,a,b", SHORT)
def test_book_best_response_and_equilibrium_match_a_minimax_recursion(variants, a, b):
    rules = tun.Rules(**variants)
    fa, fb = fighter(a), fighter(b)
    book, best, eq = game_brute(fa, fb, {**BOOK, **rules.to_dict()})
    t = analyse(SYSTEM.tactics(rules, fa, fb))
    assert t.book.value == pytest.approx(book, abs=1e-9)
    assert t.best_response.value == pytest.approx(best, abs=1e-9)
    assert t.equilibrium.value == pytest.approx(eq, abs=1e-9)
    duel = tun.duel(rules, fa, fb).solution
    assert book == pytest.approx(duel.p_a_wins - duel.p_b_wins, abs=1e-9)


# ------------------------------------------------------------------ the simulator plays a solved strategy
@pytest.mark.parametrize("variants,a,b", [
    ({}, "red", "trained_armed"),
    (dict(ranged_defense="moving", after_out="finish"), "red", "archetype=veteran,ranged=true"),
    (dict(stun_actions=2), "archetype=red,turn_policy=delay", "berserker"),
])
def test_monte_carlo_playing_the_policy_tables_agrees_with_the_solver(variants, a, b):
    rules = tun.Rules(**variants)
    fa, fb = fighter(a), fighter(b)
    dg = SYSTEM.tactics(rules, fa, fb).with_objective("wins")
    eq = solve(dg.game)
    for sa, sb in ((eq.a_strategy, eq.b_strategy), (dg.game.book("a"), dg.game.book("b"))):
        exact = dg.solution(sa, sb)
        sim = simulate_duel("tun", rules, fa, fb, n=150_000, seed=7, policy=policy_tables(dg, sa, sb))
        for name in ("p_a_wins", "p_b_wins", "p_both_out"):
            est = getattr(sim, name)
            assert abs(est.value - getattr(exact, name)) <= 4 * max(est.se, 1 / est.n), name
        assert abs(sim.mean_rounds.value - exact.mean_rounds) <= 4 * max(sim.mean_rounds.se, 1 / sim.mean_rounds.n)


def test_the_equilibrium_gains_on_the_book_where_an_option_pays():
    """Red throwing at a trained knife fighter: playing well (delaying, aiming) beats the book; the trained
    mirror gains nothing (no option pays there)."""
    mirror = analyse(SYSTEM.tactics(tun.Rules(), fighter("trained_armed"), fighter("trained_armed")))
    assert mirror.equilibrium.value == pytest.approx(mirror.book.value, abs=1e-12)
    red = analyse(SYSTEM.tactics(tun.Rules(), fighter("red"), fighter("trained_armed")))
    assert red.equilibrium.value > red.book.value + 1e-3
    assert red.best_response.value >= red.equilibrium.value - 1e-12


def test_the_state_estimate_bounds_the_game():
    for a, b in (("trained_armed", "master"), ("red", "berserker"), ("novice", "red")):
        fa, fb = fighter(a), fighter(b)
        assert SYSTEM.tactics(tun.Rules(), fa, fb).game.n <= tun.tactics_states(tun.Rules(), fa, fb)


def test_decision_states_know_no_roll_to_come():
    """Every decision state is a moment between actions: each of its actions leads somewhere without a roll (a
    turn decision, a posture to an aim or to the stretch's outcomes), and the features name all a policy can use:
    the equilibrium's tables are well defined (no two states with the same features played differently)."""
    dg = SYSTEM.tactics(tun.Rules(stun_actions=2), fighter("red"), fighter("archetype=red,weapon_n=3"))
    eq = solve(dg.with_objective("wins").game)
    tables = policy_tables(dg.with_objective("wins"), eq.a_strategy, eq.b_strategy)
    assert {(t.decision, t.side) for t in tables} == {(d.name, d.side) for d in dg.decisions}
    for t in tables:
        seen = t.probs[~np.isnan(t.probs[:, 0])]
        assert np.allclose(seen.sum(axis=1), 1.0)
