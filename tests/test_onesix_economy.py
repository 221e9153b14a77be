"""2K's IN economy: the seed's worked example, and the exact duel against a brute-force recursion written here
from the rule text (RULES.md section 2, «Время в системе»), not from the engine."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pytest

from analysis.fights.fighters import load_fighter
from analysis.systems import get_system, onesix
from analysis.systems.onesix import steps as timing
from tests.brute import onesix_chain

SYSTEM = get_system("onesix")


# ------------------------------------------------------------- the seed's worked example: Daisy and the poacher
def test_daisy_and_the_poacher_round_by_round():
    """RULES.md's table under the default readings (1K, the parry window, no parry against a simultaneous attack);
    the waits are the scene's script, not the duel's policy, and they do what the seed says they do."""
    rules = onesix.Rules()
    assert rules.parry_window == 3 and rules.simultaneous_parry is False
    daisy, poacher = load_fighter(SYSTEM, "daisy"), load_fighter(SYSTEM, "poacher")
    d, p = timing.Side(), timing.Side()
    d, p = timing.roll(rules, daisy, d, 4), timing.roll(rules, poacher, p, 3)           # round 1: 1K 4 / 3
    assert (d.initiative, p.initiative) == (12, 11)
    d, p = timing.wait(d, 2), timing.wait(p, 1)                                          # she yields, he waits 1
    assert (d.initiative, p.initiative) == (10, 10)
    # his wait «чтобы не дать Дейзи возможности реагировать»: at 11 against her 10 she would parry him in time;
    # at 10/10 their attacks are simultaneous and neither can parry (no defense roll is asked for)
    assert timing.parries(rules, daisy, d, 11 - 10)
    assert timing.next_actor(rules, d, p) == "both"
    _, _, steps = timing.act(rules, daisy, poacher, d, p, {"a_attack": 0, "b_attack": 0})
    assert steps[0] == "equal IN: both attack, neither can parry the other" and not any("parr" in s for s in steps[1:])
    d, p = timing.end_round(rules, d), timing.end_round(rules, p)                        # both wait out the round
    assert (d.initiative, p.initiative) == (3, 3)                                        # «оба переносят по 3 ИН»
    one = onesix.chain_value([1], rules)                                                 # round 2: her die shows 1
    assert one == 0
    d, p = timing.roll(rules, daisy, d, one), timing.roll(rules, poacher, p, 3)
    assert (d.initiative, p.initiative) == (11, 14)
    assert timing.next_actor(rules, d, p) == "b"
    # «Дейзи отстает от него на 3 ИН, но успевает парировать атаку»: 3 behind is in time, 4 would not be
    assert timing.parries(rules, daisy, d, 14 - 11) and not timing.parries(rules, daisy, d, 4)
    d, p, steps = timing.act(rules, daisy, poacher, d, p, {"b_attack": 10, "a_defense": 12})  # RT 19 vs 19: parried
    assert (d.initiative, p.initiative) == (8, 8) and d.condition == (0, 0, 0)
    assert any("parried" in s for s in steps)
    assert timing.next_actor(rules, d, p) == "both"                                      # equal IN: both attack
    d, p, steps = timing.act(rules, daisy, poacher, d, p, {"a_attack": 10, "b_attack": 10})
    assert not any("parr" in s for s in steps[1:])                                       # neither parries
    assert d.condition == (2, 0, 0) and p.condition == (0, 4, 0)                         # 2 Wounds; 4 Shock
    assert (d.initiative, p.initiative) == (0, -8)                                       # -2; -4 and pain shock -6
    assert timing.next_actor(rules, d, p) is None
    d, p = timing.end_round(rules, d), timing.end_round(rules, p)
    for k in (0, 2, 5):                                                                  # round 3: 6 + 1K, 1K - 4
        assert timing.roll(rules, daisy, d, k).initiative == 6 + k
        assert timing.roll(rules, poacher, p, k).initiative == k - 4


def test_the_earlier_readings_let_daisy_parry_at_ten():
    """``simultaneous_parry = true``: at 10/10 both attack and Daisy, with 4 IN left, parries (the 9-IN «атака +
    защита»); ``parry_window = any``: she parries an attack started 9 IN above her."""
    rules = onesix.Rules(simultaneous_parry=True)
    daisy, poacher = load_fighter(SYSTEM, "daisy"), load_fighter(SYSTEM, "poacher")
    d, p, steps = timing.act(rules, daisy, poacher, timing.Side(initiative=10), timing.Side(initiative=10),
                             {"a_attack": 0, "b_attack": 10, "a_defense": 12})
    assert (d.initiative, p.initiative) == (1, 4) and any("parried" in s for s in steps)
    assert timing.parries(onesix.Rules(parry_window=None), daisy, timing.Side(initiative=5), 9)
    assert not timing.parries(onesix.Rules(), daisy, timing.Side(initiative=5), 9)


def test_the_last_rows_under_the_penalty_on_rolls_only():
    """``in_penalty = roll``: 2 / -4 after the exchange, then 8 + 1K / 1K."""
    rules = onesix.Rules(in_penalty="roll")
    daisy, poacher = load_fighter(SYSTEM, "daisy"), load_fighter(SYSTEM, "poacher")
    d, p = timing.Side(initiative=8), timing.Side(initiative=8)
    d, p, _ = timing.act(rules, daisy, poacher, d, p, {"a_attack": 10, "b_attack": 10})
    assert (d.initiative, p.initiative) == (2, -4)
    d, p = timing.end_round(rules, d), timing.end_round(rules, p)
    assert timing.roll(rules, daisy, d, 3).initiative == 8 + 3 and timing.roll(rules, poacher, p, 3).initiative == 3


def test_a_plain_d6_cannot_give_daisy_her_eleven():
    """Daisy's 11 = 8 + 3 carried + 0: only a 1K whose 1 counts 0 (the rule of 1 and 6, or ``one_zero``) gives it;
    every d6 face gives 12 or more."""
    daisy = load_fighter(SYSTEM, "daisy")
    for reading, possible in (("one_six", True), ("one_zero", True), ("d6", False)):
        rules = onesix.Rules(in_die=reading)
        faces = onesix.in_die(rules).support[onesix.in_die(rules).p > 0]
        totals = {timing.roll(rules, daisy, timing.Side(initiative=3), int(k)).initiative for k in faces}
        assert (11 in totals) is possible, (reading, sorted(totals)[:3])


def test_one_hit_costs_one_action_unless_stacked():
    """The seed's closing blow triggers the stopping effect and pain shock at once: -6 (one action), or -12."""
    poacher = load_fighter(SYSTEM, "poacher")
    for loss, lost in (("one_per_hit", 4 + 6), ("stack", 4 + 12)):
        effect = timing.struck(onesix.Rules(in_loss=loss), poacher, (0, 0, 0), 4, onesix.SHOCK, 0)
        assert effect.stopping and effect.pain and effect.in_lost == lost


# ------------------------------------------------------------------ brute force from the rule text
def pmf_list(pmf, cut=0.0):
    return sorted((int(k), float(p)) for k, p in pmf.items() if float(p) > cut)


@lru_cache(maxsize=None)
def dice(in_die: str, in_depth, depth, ones: bool):
    """(1K, one die of 2K) as lists of (value, probability), walked die by die (tests/brute.py): 1K under the rule
    of 1 and 6 with its own depth, with 1 -> 0 and no explosion (one_zero), or a plain d6."""
    one_k = {"d6": [(v, 1 / 6) for v in range(1, 7)], "one_zero": [(v, 1 / 6) for v in (0, 2, 3, 4, 5, 6)],
             "one_six": pmf_list(onesix_chain(in_depth, True, ones), 1e-19)}[in_die]
    return tuple(one_k), tuple(pmf_list(onesix_chain(depth, True, ones), 1e-19))


class Brute:
    """The IN economy re-implemented from the rule text, every action enumerated, IN rolled in full.

    A fighter's state is its condition (wounds, shock) and whether its weapon is intact; the 2K of a test is two
    dice enumerated one by one, so the equipment fault (both base dice show 1: each die's 1 is its only 0) is seen
    directly."""

    def __init__(self, rules: dict, a: dict, b: dict):
        self.r = {"threshold": 15, "cost": 6, "parry": 3, "lost": 6, "amin": 4, "cap": 3, "floor": -20,
                  "track": 6, "reserve": 3, "step": 3, "immediate": True, "stack": False, "carry": True,
                  "in_die": "one_six", "in_depth": None, "depth": None, "ones": False, "window": 3,
                  "simultaneous": False, "gear": False, **rules}
        self.f = (a, b)
        self.one_k, die = dice(self.r["in_die"], self.r["in_depth"], self.r["depth"], self.r["ones"])
        two_k = {}
        for x, p in die:
            for y, q in die:
                fault = x == 0 and y == 0
                two_k[(x + y, fault)] = two_k.get((x + y, fault), 0.0) + p * q
        self.two_k = {k: p for k, p in two_k.items() if p > 1e-19}
        self.death = self.r["track"] + self.r["reserve"] + 1
        self.within_memo = {}
        self.attack_memo = {}

    def status(self, c):
        w, s = c
        return "dead" if w >= self.death else "dying" if w > self.r["track"] else "out" if s > self.r["track"] else "up"

    def fails(self, rating):
        """P(the weapon's reliability test fails): rating + 2K below the threshold."""
        return sum(p for (k, _), p in self.two_k.items() if rating + k < self.r["threshold"])

    def attack(self, att, dfn, pen_a, pen_d, parry, armed):
        """[(p, levels, class, the weapon breaks)]: every pair of rolls (the defense only when it parries an attack
        that reached 15), then the weapon's test on an equipment fault."""
        key = (att is self.f[0], pen_a, pen_d, parry, armed)
        if key not in self.attack_memo:
            self.attack_memo[key] = self._attack(att, dfn, pen_a, pen_d, parry, armed)
        return self.attack_memo[key]

    def _attack(self, att, dfn, pen_a, pen_d, parry, armed):
        ps, cls = (att["ps"], att["cls"]) if armed else (att["training"], "shock")
        can_break = self.r["gear"] and armed and (att["ps"], att["cls"]) != (att["training"], "shock")
        fails = self.fails(att["gear"]) if can_break else 0.0
        out = {}

        def add(p, levels, kind, fault):
            breaks = fails if fault else 0.0
            for broke, q in ((False, 1 - breaks), (True, breaks)):
                if q > 0:
                    out[(levels, kind, broke)] = out.get((levels, kind, broke), 0) + p * q

        for (ka, fault), pa in self.two_k.items():
            rt = att["attack"] - pen_a + ka
            if rt < self.r["threshold"]:
                add(pa, 0, None, fault)
                continue
            for rt_d, pd in ([(None, 1.0)] if not parry else
                             [(dfn["defense"] - pen_d + kd, pd) for (kd, _), pd in self.two_k.items()]):
                if rt_d is not None and rt_d >= rt:
                    add(pa * pd, 0, None, fault)
                    continue
                levels = max(0, math.ceil((ps + rt - self.r["threshold"] - dfn["training"]) / self.r["step"]))
                add(pa * pd, levels, cls, fault)
        return [(p, lv, c, broke) for (lv, c, broke), p in out.items()]

    def land(self, dfn, c, levels, cls):
        """The victim's condition after the hit and the IN it loses at once."""
        w, s = c
        if levels == 0:
            return c, 0
        w2, s2 = (w + levels, s) if cls == "wound" else (w, s + levels)
        cap = self.r["track"] + self.r["reserve"]
        if s2 > cap:
            w2, s2 = w2 + s2 - cap, cap
        w2 = min(w2, self.death)
        stopping = levels > dfn["training"]
        pain = (w2 if cls == "wound" else s2) > dfn["personality"]
        losses = stopping + pain if self.r["stack"] else int(stopping or pain)
        rise = max(w2, s2) - max(w, s) if self.r["immediate"] else 0
        return (w2, s2), rise + self.r["lost"] * losses

    def carry(self, x):
        return max(min(x, self.r["cap"] if self.r["carry"] else 0), self.r["floor"])

    def parries(self, f, x, lag):
        """A parry: a defense rating, 3 IN, and in time (the defender at most ``window`` IN behind)."""
        return f["defense"] > 0 and x >= self.r["parry"] and (self.r["window"] is None or lag <= self.r["window"])

    def within(self, ca, cb, ga, gb, xa, xb):
        """The rest of a round from known IN and weapons (True: intact):
        {("next", ca, cb, ga, gb, carry a, carry b) or ("end", ca, cb): p}."""
        key = (ca, cb, ga, gb, xa, xb)
        if key in self.within_memo:
            return self.within_memo[key]
        a, b = self.f
        out = {}

        def add(k, p):
            out[k] = out.get(k, 0.0) + p

        def go(ca2, cb2, ga2, gb2, xa2, xb2, p):
            if self.status(ca2) != "up" or self.status(cb2) != "up":
                add(("end", ca2, cb2), p)
            else:
                for k, q in self.within(ca2, cb2, ga2, gb2, xa2, xb2).items():
                    add(k, p * q)

        pen_a, pen_b = max(ca), max(cb)
        if max(xa, xb) < self.r["amin"]:
            add(("next", ca, cb, ga, gb, self.carry(xa), self.carry(xb)), 1.0)
        elif xa == xb:
            xa2, xb2 = xa - self.r["cost"], xb - self.r["cost"]
            par_a = self.r["simultaneous"] and self.parries(a, xa2, 0)
            par_b = self.r["simultaneous"] and self.parries(b, xb2, 0)
            xa2, xb2 = xa2 - self.r["parry"] * par_a, xb2 - self.r["parry"] * par_b
            for p1, lv1, c1, brk_a in self.attack(a, b, pen_a, pen_b, par_b, ga):
                cb2, db = self.land(b, cb, lv1, c1)
                for p2, lv2, c2, brk_b in self.attack(b, a, pen_b, pen_a, par_a, gb):
                    ca2, da = self.land(a, ca, lv2, c2)
                    go(ca2, cb2, ga and not brk_a, gb and not brk_b, xa2 - da, xb2 - db, p1 * p2)
        elif xa > xb:
            par = self.parries(b, xb, xa - xb)
            for p1, lv, c, brk in self.attack(a, b, pen_a, pen_b, par, ga):
                cb2, db = self.land(b, cb, lv, c)
                go(ca, cb2, ga and not brk, gb, xa - self.r["cost"], xb - self.r["parry"] * par - db, p1)
        else:
            par = self.parries(a, xa, xb - xa)
            for p1, lv, c, brk in self.attack(b, a, pen_b, pen_a, par, gb):
                ca2, da = self.land(a, ca, lv, c)
                go(ca2, cb, ga, gb and not brk, xa - self.r["parry"] * par - da, xb - self.r["cost"], p1)
        self.within_memo[key] = out
        return out

    def round_from(self, ca, cb, ga, gb, ka, kb):
        a, b = self.f
        out, dropped = {}, 0.0
        for u, pu in self.one_k:
            for v, pv in self.one_k:
                if pu * pv < 1e-17:
                    dropped += pu * pv
                    continue
                for k, q in self.within(ca, cb, ga, gb, a["reflexes"] - max(ca) + ka + u,
                                        b["reflexes"] - max(cb) + kb + v).items():
                    out[k] = out.get(k, 0.0) + pu * pv * q
        return out, dropped

    def solve(self):
        """(P(A wins), P(B wins), P(both out), P(A dead), P(B dead), P(A dying), mean rounds, dropped mass)."""
        start = ((0, 0), (0, 0), True, True, 0, 0)
        index, todo, rows, dropped = {start: 0}, [start], {}, 0.0
        while todo:
            s = todo.pop()
            rows[s], d = self.round_from(*s)
            dropped = max(dropped, d)
            for k in rows[s]:
                if k[0] == "next" and k[1:] not in index:
                    index[k[1:]] = len(index)
                    todo.append(k[1:])
        n = len(index)
        q = np.zeros((n, n))
        ends = sorted({k for row in rows.values() for k in row if k[0] == "end"})
        e_index = {k: i for i, k in enumerate(ends)}
        r = np.zeros((n, len(ends)))
        for s, row in rows.items():
            for k, p in row.items():
                if k[0] == "next":
                    q[index[s], index[k[1:]]] += p
                else:
                    r[index[s], e_index[k]] += p
        visits = np.linalg.solve((np.eye(n) - q).T, np.eye(n)[0])
        final = visits @ r
        up = [(self.status(ca) == "up", self.status(cb) == "up") for _, ca, cb in ends]
        pick = lambda f: float(sum(p for p, k in zip(final, ends) if f(k)))  # noqa: E731
        return (pick(lambda k: self.status(k[2]) != "up" and self.status(k[1]) == "up"),
                pick(lambda k: self.status(k[1]) != "up" and self.status(k[2]) == "up"),
                pick(lambda k: self.status(k[1]) != "up" and self.status(k[2]) != "up"),
                pick(lambda k: self.status(k[1]) == "dead"), pick(lambda k: self.status(k[2]) == "dead"),
                pick(lambda k: self.status(k[1]) in ("dying", "dead")), float(visits.sum()), dropped, len(up))


def engine_fighter(f):
    return onesix.Fighter(attack_rating=f["attack"], defense_rating=f["defense"], reflexes=f["reflexes"],
                          training=f["training"], personality=f["personality"], weapon_ps=f["ps"],
                          weapon_class=f["cls"], gear_rating=f["gear"])


RULE_NAMES = {"threshold": "success_threshold", "cost": "attack_cost", "parry": "parry_cost", "lost": "action_lost",
              "amin": "attack_min_in", "cap": "carry_cap", "floor": "carry_floor", "track": "track_length",
              "reserve": "reserve", "step": "damage_step"}


def engine_rules(rules: dict) -> onesix.Rules:
    kw = {RULE_NAMES[k]: v for k, v in rules.items() if k in RULE_NAMES}
    kw.update(in_penalty="immediate" if rules.get("immediate", True) else "roll",
              in_loss="stack" if rules.get("stack") else "one_per_hit", in_carry=rules.get("carry", True),
              in_die=rules.get("in_die", "one_six"), in_explode_depth=rules.get("in_depth"),
              explode_depth=rules.get("depth"), extra_die_ones="count" if rules.get("ones") else "zero",
              parry_window=rules.get("window", 3), simultaneous_parry=rules.get("simultaneous", False),
              gear_faults=rules.get("gear", False))
    return onesix.Rules(**kw)


def F(**kw):
    base = {"attack": 9, "defense": 0, "reflexes": 8, "training": 2, "personality": 1, "ps": 6, "cls": "wound",
            "gear": 8}
    return {**base, **kw}


SMALL = [
    # the book's 1K (unbounded sixes, rolled lazily by the engine), short tracks, one side parries (in time)
    ({"track": 2, "reserve": 1},
     F(attack=10, defense=6, reflexes=7, ps=7), F(attack=9, reflexes=6, cls="shock", personality=0)),
    # the same under the earlier readings: a parry whatever the lag, parries against simultaneous attacks
    ({"track": 2, "reserve": 1, "window": None, "simultaneous": True},
     F(attack=10, defense=6, reflexes=7, ps=7), F(attack=9, defense=5, reflexes=6, cls="shock", personality=0)),
    # both parry, a reflex gap past the window (the faster one's sixes outrun the parry), the window 1
    ({"track": 2, "reserve": 1, "window": 1},
     F(attack=9, defense=7, reflexes=5), F(attack=9, defense=7, reflexes=9, ps=8)),
    # both parry, equal reflexes (simultaneous attacks, no parry against them), a deep debt floor
    ({"track": 1, "reserve": 1, "floor": -6},
     F(attack=9, defense=7, reflexes=5), F(attack=9, defense=7, reflexes=5, ps=8)),
    # the same, each parrying a simultaneous attack when it has the IN left
    ({"track": 1, "reserve": 1, "floor": -6, "simultaneous": True},
     F(attack=9, defense=7, reflexes=5), F(attack=9, defense=7, reflexes=5, ps=8)),
    # a plain d6, the penalty on rolls only, stacked losses, no carry of leftovers
    ({"track": 2, "reserve": 1, "in_die": "d6", "immediate": False, "stack": True, "carry": False},
     F(attack=10, defense=8, reflexes=6), F(attack=8, reflexes=9, ps=9, cls="shock", personality=0, training=1)),
    # 1K with its 1 -> 0 and no explosion, the window 2, both parry
    ({"track": 2, "reserve": 1, "in_die": "one_zero", "window": 2},
     F(attack=10, defense=8, reflexes=6), F(attack=9, defense=7, reflexes=8, cls="shock")),
    # 1K at most one extra die while 2K explodes without limit (the depths are apart)
    ({"track": 2, "reserve": 1, "in_depth": 1},
     F(attack=10, defense=6, reflexes=7, ps=7), F(attack=9, defense=6, reflexes=6, cls="shock", personality=0)),
    # 2K without explosions, 1K under the rule of 1 and 6 unbounded (explode_depth no longer caps it)
    ({"track": 2, "reserve": 1, "depth": 0},
     F(attack=10, defense=6, reflexes=7, ps=7), F(attack=9, reflexes=6, cls="shock", personality=0)),
    # one extra die at most in 2K and 1K, an extra die's 1 counts; house costs 5 / 2, a threshold of 13, step 2
    ({"track": 2, "reserve": 0, "depth": 1, "in_depth": 1, "ones": True, "cost": 5, "parry": 2, "threshold": 13,
      "step": 2},
     F(attack=7, defense=6, reflexes=4), F(attack=8, defense=5, reflexes=6, cls="shock")),
]
SMALL_IDS = ["book_1k", "any_lag_simultaneous", "window_1", "equal_in", "equal_in_parried", "d6_roll_stack",
             "one_zero", "in_depth_1", "two_k_unexploded", "house"]


@pytest.mark.parametrize("rules,a,b", SMALL, ids=SMALL_IDS)
def test_small_duels_match_the_brute_force_recursion(rules, a, b):
    brute = Brute(rules, a, b)
    wa, wb, both, da, db, ya, rounds, dropped, _ = brute.solve()
    assert dropped < 1e-12
    res = onesix.duel(engine_rules(rules), engine_fighter(a), engine_fighter(b)).solution
    assert res.truncation < 1e-11
    for got, want in ((res.p_a_wins, wa), (res.p_b_wins, wb), (res.p_both_out, both), (res.p_a_dead, da),
                      (res.p_b_dead, db), (res.p_a_dying, ya)):
        assert got == pytest.approx(want, abs=1e-10)
    assert res.mean_rounds == pytest.approx(rounds, rel=1e-9)
    assert sum(res.rounds.values()) + res.rounds_tail == pytest.approx(wa + wb + both, abs=1e-9)


GEAR = [
    # a knife (Wounds) that breaks into fists (Shock) against a stun weapon that breaks into weaker fists
    ({"track": 2, "reserve": 1, "gear": True, "in_depth": 1},
     F(attack=10, defense=6, reflexes=7, ps=7, gear=3), F(attack=9, reflexes=6, cls="shock", ps=6, gear=0)),
    # an attack rating of 15: the faulted roll (2K = 0) still hits, then the weapon is tested; earlier readings
    ({"track": 2, "reserve": 1, "gear": True, "window": None, "simultaneous": True, "in_die": "d6"},
     F(attack=15, defense=7, reflexes=6, ps=5, gear=4), F(attack=9, defense=7, reflexes=6, ps=8, gear=6)),
]


@pytest.mark.parametrize("rules,a,b", GEAR, ids=["knife_and_stun_gun", "rating_15"])
def test_gear_faults_match_the_brute_force_recursion(rules, a, b):
    """``gear_faults``: each fighter's weapon state (intact, broken: fists) joins the chain."""
    brute = Brute(rules, a, b)
    wa, wb, both, da, db, ya, rounds, dropped, _ = brute.solve()
    res = onesix.duel(engine_rules(rules), engine_fighter(a), engine_fighter(b)).solution
    assert dropped < 1e-12 and res.truncation < 1e-11
    for got, want in ((res.p_a_wins, wa), (res.p_b_wins, wb), (res.p_both_out, both), (res.p_a_dead, da),
                      (res.p_b_dead, db), (res.p_a_dying, ya)):
        assert got == pytest.approx(want, abs=1e-10)
    assert res.mean_rounds == pytest.approx(rounds, rel=1e-9)
    plain = onesix.duel(engine_rules({**rules, "gear": False}), engine_fighter(a), engine_fighter(b)).solution
    assert abs(plain.p_a_wins - res.p_a_wins) > 1e-4                      # the faults change the fight
    assert plain.states < res.states


def test_without_gear_faults_the_chain_keeps_its_size():
    """The weapon's state joins the chain only under ``gear_faults`` and only for a weapon that can break."""
    rules, a, b = engine_rules(GEAR[0][0]), engine_fighter(GEAR[0][1]), engine_fighter(GEAR[0][2])
    plain = onesix.duel(rules.replace(gear_faults=False), a, b).solution
    unbreakable = onesix.duel(rules, a.fists(), b.replace(gear_rating=40)).solution
    same = onesix.duel(rules.replace(gear_faults=False), a.fists(), b).solution
    assert unbreakable.states == same.states and unbreakable.p_a_wins == pytest.approx(same.p_a_wins, abs=1e-15)
    assert onesix.duel_states(rules.replace(gear_faults=False), a, b) < onesix.duel_states(rules, a, b)
    assert onesix.duel_states(rules, a, b) >= onesix.duel(rules, a, b).solution.states >= plain.states


def test_duels_whose_chains_read_the_same_numbers_share_one_solve():
    """The solver keeps its figures by what the chain reads: a field the duel never consults (a group-only variant
    or policy, armor wear without armor) reuses the solve; a variant the chain does read solves anew."""
    from analysis.systems.onesix import solver

    a, b = load_fighter(SYSTEM, "novice_armed"), load_fighter(SYSTEM, "novice")
    rules = SYSTEM.rules()
    solver.cache_clear()
    first = onesix.duel(rules, a, b).solution
    for same_rules, same_a in ((rules.replace(group_timing="order"), a), (rules, a.replace(target="strongest")),
                               (rules.replace(armor_wear=True), a)):
        assert onesix.duel(same_rules, same_a, b).solution == first
    assert len(solver._solved) == 1
    other = onesix.duel(rules.replace(in_die="d6"), a, b).solution
    assert len(solver._solved) == 2 and other.p_a_wins != first.p_a_wins


# ------------------------------------------------------------------ the compiled chain is a twin of the step rules
@pytest.mark.parametrize("variant", [{}, {"gear_faults": True, "simultaneous_parry": True, "parry_window": 2}],
                         ids=["defaults", "gear_faults"])
def test_the_step_rules_drive_the_same_duel(variant):
    """A duel recursion whose every action is :func:`timing.act` with enumerated dice (a d6 for 1K, 2K without
    explosions, short tracks) gives the compiled chain's answer."""
    rules = onesix.Rules(in_die="d6", explode_depth=0, track_length=1, reserve=1, carry_floor=-6, **variant)
    a = onesix.Fighter(attack_rating=9, defense_rating=7, reflexes=5, training=2, personality=1, weapon_ps=6,
                       weapon_class="wound", gear_rating=5)
    b = onesix.Fighter(attack_rating=8, defense_rating=6, reflexes=6, training=1, personality=0, weapon_ps=7,
                       weapon_class="shock", gear_rating=3)
    two_k = [(int(k), float(p)) for k, p in zip(onesix.two_k(rules).support, onesix.two_k(rules).p) if p > 0]
    up = lambda side: onesix.status(rules, side.condition) == 0  # noqa: E731
    memo = {}

    def needs_defense(att, dfn, sa, sd, roll, parry):
        return parry and att.attack_rating - sa.penalty + roll >= rules.success_threshold

    def rest(sa, sb):
        key = (sa, sb)
        if key in memo:
            return memo[key]
        out = {}
        who = timing.next_actor(rules, sa, sb)
        if who is None:
            nxt = (timing.end_round(rules, sa), timing.end_round(rules, sb))
            out[("next",) + nxt] = 1.0
        else:
            if who == "both":                                # both attack, then parry only if simultaneous_parry
                ca, cb = timing.wait(sa, rules.attack_cost), timing.wait(sb, rules.attack_cost)
                par_a = rules.simultaneous_parry and timing.parries(rules, a, ca, 0)
                par_b = rules.simultaneous_parry and timing.parries(rules, b, cb, 0)
            else:
                par_a = who == "b" and timing.parries(rules, a, sa, sb.initiative - sa.initiative)
                par_b = who == "a" and timing.parries(rules, b, sb, sa.initiative - sb.initiative)
            for ra, pa in (two_k if who in ("a", "both") else [(0, 1.0)]):
                for rb, pb in (two_k if who in ("b", "both") else [(0, 1.0)]):
                    defend_b = who in ("a", "both") and needs_defense(a, b, sa, sb, ra, par_b)
                    defend_a = who in ("b", "both") and needs_defense(b, a, sb, sa, rb, par_a)
                    gear_a = who in ("a", "both") and ra == 0 and sa.armed and a.breakable(rules)
                    gear_b = who in ("b", "both") and rb == 0 and sb.armed and b.breakable(rules)
                    for da, qa, ga, ua in ((d, q, g, u) for d, q in (two_k if defend_a else [(0, 1.0)])
                                           for g, u in (two_k if gear_a else [(None, 1.0)])):
                        for db, qb, gb, ub in ((d, q, g, u) for d, q in (two_k if defend_b else [(0, 1.0)])
                                               for g, u in (two_k if gear_b else [(None, 1.0)])):
                            rolls = {"a_attack": ra, "b_attack": rb, "a_defense": da, "b_defense": db,
                                     "a_gear": ga, "b_gear": gb}
                            na, nb, _ = timing.act(rules, a, b, sa, sb, rolls)
                            p = pa * pb * qa * qb * ua * ub
                            if up(na) and up(nb):
                                for k, q in rest(na, nb).items():
                                    out[k] = out.get(k, 0.0) + p * q
                            else:
                                k = ("end", na.condition, nb.condition)
                                out[k] = out.get(k, 0.0) + p
        memo[key] = out
        return out

    index, rows, todo = {}, {}, [(timing.Side(), timing.Side())]
    index[todo[0]] = 0
    while todo:
        sa, sb = todo.pop()
        row = {}
        for u in range(1, 7):
            for v in range(1, 7):
                for k, q in rest(timing.roll(rules, a, sa, u), timing.roll(rules, b, sb, v)).items():
                    row[k] = row.get(k, 0.0) + q / 36
        rows[(sa, sb)] = row
        for k in row:
            if k[0] == "next" and k[1:] not in index:
                index[k[1:]] = len(index)
                todo.append(k[1:])
    n = len(index)
    q = np.zeros((n, n))
    for s, row in rows.items():
        for k, p in row.items():
            if k[0] == "next":
                q[index[s], index[k[1:]]] += p
    visits = np.linalg.solve((np.eye(n) - q).T, np.eye(n)[0])
    final = {}
    for s, row in rows.items():
        for k, p in row.items():
            if k[0] == "end":
                final[k[1:]] = final.get(k[1:], 0.0) + visits[index[s]] * p
    res = onesix.duel(rules, a, b).solution
    level = lambda c: onesix.status(rules, c)  # noqa: E731
    assert res.p_a_wins == pytest.approx(sum(p for (ca, cb), p in final.items() if level(ca) == 0), abs=1e-12)
    assert res.p_b_wins == pytest.approx(sum(p for (ca, cb), p in final.items() if level(cb) == 0), abs=1e-12)
    assert res.p_a_dead == pytest.approx(sum(p for (ca, cb), p in final.items() if level(ca) == 3), abs=1e-12)
    assert res.mean_rounds == pytest.approx(float(visits.sum()), rel=1e-10)
