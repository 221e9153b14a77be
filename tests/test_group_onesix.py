"""2K group fights (analysis/systems/onesix/groups.py, sims/onesix_groups.py, RULES.md section 7): one against one is
the duel (the simulator draw for draw, the exact chain to the bit); the Monte Carlo kernel against the exact chain
within 4 standard errors under every group_timing; the exact chain against a round-by-round recursion written here
from the rule text on short tracks; the economy's state count refused with the Monte Carlo alternative."""

from __future__ import annotations

import pytest

from analysis.base.params import DicelabError
from analysis.fights.fighters import load_fighter
from analysis.systems import get_system, onesix
from sims.api import simulate_duel, simulate_group

SYSTEM = get_system("onesix")
F = onesix.Fighter
KNIFE = dict(attack_rating=10, defense_rating=8, weapon_ps=5, weapon_class="wound")


@pytest.mark.parametrize("variants,a,b", [
    ({}, F(**KNIFE), F(attack_rating=9, weapon_ps=4)),
    (dict(after_out="finish", simultaneous_parry=True), F(**KNIFE, reflexes=10), F(defense_rating=9, weapon_ps=6)),
    (dict(gear_faults=True, in_penalty="roll", parry_window=None, in_loss="stack"), F(**KNIFE),
     F(attack_rating=10, defense_rating=9, weapon_ps=6, weapon_class="ballistic", protection=5, armor=1)),
])
def test_one_against_one_simulates_the_duel_draw_for_draw(variants, a, b):
    """Under the economy the group kernel draws the duel kernel's dice in the duel's order: the same seed gives the
    same counts, so the same law."""
    rules = onesix.Rules(**variants)
    duel = simulate_duel("onesix", rules, a, b, n=30_000, seed=11, workers=1)
    group = simulate_group("onesix", rules, [a], [b], n=30_000, seed=11, workers=1)
    for name in ("p_a_wins", "p_b_wins", "p_both_out", "p_unfinished"):
        assert getattr(group, name).value == getattr(duel, name).value
    assert group.mean_rounds.value == duel.mean_rounds.value
    assert group.fighter(0)["p_dying"].value == duel.p_a_dying.value
    assert group.fighter(1)["p_dead"].value == duel.p_b_dead.value


def test_one_against_one_agrees_with_the_exact_duel():
    rules = onesix.Rules(after_out="finish")
    a, b = load_fighter(SYSTEM, "trained_armed"), load_fighter(SYSTEM, "novice_armed")
    exact = onesix.duel(rules, a, b).solution
    sim = simulate_group("onesix", rules, [a], [b], n=100_000, seed=3, workers=1)
    assert sim.p_a_wins.agrees(exact.p_a_wins) and sim.p_b_wins.agrees(exact.p_b_wins)
    assert sim.fighter(1)["p_dying"].agrees(exact.p_b_dying) and sim.mean_rounds.agrees(exact.mean_rounds)


@pytest.mark.parametrize("timing", ["economy", "order", "average"])
def test_crowds_end_and_the_same_seed_gives_the_same_numbers_at_any_worker_count(timing):
    rules = onesix.Rules(group_timing=timing, after_out="finish")
    hero, mook = load_fighter(SYSTEM, "trained_armed"), load_fighter(SYSTEM, "novice_armed")
    one = simulate_group("onesix", rules, [hero] * 3, [mook.replace(target="random")] * 5, n=70_000, seed=5, workers=1)
    two = simulate_group("onesix", rules, [hero] * 3, [mook.replace(target="random")] * 5, n=70_000, seed=5, workers=2)
    assert (one.counts == two.counts).all() and one.p_unfinished.value == 0
    total = one.p_a_wins.value + one.p_b_wins.value + one.p_both_out.value
    assert total == pytest.approx(1.0, abs=1e-12)
    assert sum(e.value for e in one.survivors("b").values()) == pytest.approx(1.0, abs=1e-12)
    # five novices beat fewer than three trained fighters: numbers count
    assert one.p_b_wins.value > 0.05


def test_numbers_count_under_every_timing():
    hero, mook = load_fighter(SYSTEM, "trained_armed"), load_fighter(SYSTEM, "novice_armed")
    for timing in ("economy", "order", "average"):
        rules = onesix.Rules(group_timing=timing)
        wins = [simulate_group("onesix", rules, [hero], [mook] * k, n=20_000, seed=1, workers=1).p_a_wins.value
                for k in (1, 2, 3)]
        assert wins[0] > wins[1] > wins[2], (timing, wins)


def test_the_fixed_order_is_refused_under_the_economy_of_a_group():
    with pytest.raises(DicelabError, match="group_timing = order or average"):
        simulate_group("onesix", onesix.Rules(in_economy=False), [F()], [F()] * 2, n=10, seed=1)


# ------------------------------------------------------------------ the exact chain
def test_one_against_one_under_the_economy_is_the_duel_to_the_bit():
    rules = onesix.Rules(after_out="finish")
    a, b = load_fighter(SYSTEM, "trained_armed"), load_fighter(SYSTEM, "novice_armed")
    duel, got = onesix.duel(rules, a, b).solution, SYSTEM.group(rules, [a], [b]).solution
    assert (got.p_a_wins, got.p_b_wins, got.p_both_out, got.mean_rounds) == \
        (duel.p_a_wins, duel.p_b_wins, duel.p_both_out, duel.mean_rounds)
    assert (got.fighters[0].p_dying, got.fighters[1].p_dead) == (duel.p_a_dying, duel.p_b_dead)


def die_pmf(depth=20):
    """One die under the rule of 1 and 6 (1 -> 0, 6 -> 6 + another such die), ``depth`` sixes deep."""
    pmf = {0: 1 / 6, 2: 1 / 6, 3: 1 / 6, 4: 1 / 6, 5: 1 / 6}
    if depth:
        for v, p in die_pmf(depth - 1).items():
            pmf[6 + v] = pmf.get(6 + v, 0.0) + p / 6
    return pmf


def two_k():
    one = die_pmf()
    out = {}
    for x, p in one.items():
        for y, q in one.items():
            out[x + y] = out.get(x + y, 0.0) + p * q
    return out


def test_orders_match_every_roll_enumerated():
    """The order of play of three keys reflexes + 1K against all 1K rolls of a finite die (one_zero: 0, 2..6)."""
    import itertools

    from analysis.systems.onesix.groups import orders

    faces = (0, 2, 3, 4, 5, 6)
    want = {}
    for roll in itertools.product(faces, repeat=3):
        keys = [o + v for o, v in zip((8, 7, 8), roll)]
        part = tuple(tuple(i for i in range(3) if keys[i] == k) for k in sorted(set(keys), reverse=True))
        want[part] = want.get(part, 0.0) + 1 / 216
    got = dict(orders(onesix.Rules(in_die="one_zero"), (8, 7, 8)))
    assert got.keys() == want.keys() and all(abs(got[k] - want[k]) < 1e-15 for k in want)


SHORT = dict(track_length=2, reserve=1, finish_attacks=3)
"""A short track: out past 2 levels, dying at 3 Wounds, dead at 4 (Shock past 3 becomes Wounds)."""


class Brute:
    """Group fights under group_timing = order (1K a plain d6) or average, round by round from the rule text."""

    def __init__(self, rules, side_a, side_b):
        self.r, self.f = rules, list(side_a) + list(side_b)
        self.side = [0] * len(side_a) + [1] * len(side_b)
        self.k2 = two_k()
        self.memo = {}

    def level(self, c):
        w, s = c
        return 3 if w >= self.r.death else 2 if w > self.r.track_length else 1 if s > self.r.track_length else 0

    def able(self, cs, side):
        return any(self.level(c) == 0 for c, s in zip(cs, self.side) if s == side)

    def hits(self, i, j, pen_i, pen_j, parry):
        """[(p, levels)] of one attack (levels None: nothing lands)."""
        if (i, j, pen_i, pen_j, parry) not in self.memo:
            self.memo[i, j, pen_i, pen_j, parry] = self.attack(i, j, pen_i, pen_j, parry)
        return self.memo[i, j, pen_i, pen_j, parry]

    def attack(self, i, j, pen_i, pen_j, parry):
        a, d, thr = self.f[i], self.f[j], self.r.success_threshold
        out = {}
        for x, p in self.k2.items():
            rt = a.attack_rating - pen_i + x
            if rt < thr:
                out[None] = out.get(None, 0.0) + p
                continue
            blocked = sum(q for y, q in self.k2.items() if d.defense_rating - pen_j + y >= rt) if parry else 0.0
            out[None] = out.get(None, 0.0) + p * blocked
            levels = max(0, -(-(a.weapon_ps + rt - thr - d.training - d.armor) // 3))
            out[levels] = out.get(levels, 0.0) + p * (1 - blocked)
        return [(p, levels) for levels, p in out.items()]

    def land(self, j, c, levels, cls):
        w, s = c
        if cls == "wound":
            w += levels
        else:
            s += levels
        over = max(s - self.r.shock_cap, 0)
        w, s = min(w + over, self.r.death), s - over
        d = self.f[j]
        lose = levels > d.training or (levels > 0 and (w if cls == "wound" else s) > d.personality)
        return (w, s), lose

    def round(self, cs):
        """{conditions after the round, or ("end", conditions): p}."""
        ups = [i for i, c in enumerate(cs) if self.level(c) == 0]
        pen = [max(c) for c in cs]
        rolls = [(1.0, {i: self.f[i].reflexes + 3 - pen[i] for i in ups})]
        if self.r.group_timing == "order":
            rolls = [(1 / 6 ** len(ups), {i: self.f[i].reflexes + v - pen[i] for i, v in zip(ups, roll)})
                     for roll in __import__("itertools").product(range(1, 7), repeat=len(ups))]
        plays = {}
        for p, key in rolls:
            groups = tuple(tuple(i for i in ups if key[i] == k) for k in sorted(set(key.values()), reverse=True))
            plays[groups] = plays.get(groups, 0.0) + p
        out = {}
        for groups, p in plays.items():
            for q, res in self.moments(list(groups), tuple(cs), frozenset(), frozenset()):
                out[res] = out.get(res, 0.0) + p * q
        return out

    def moments(self, groups, cs, lost, parried):
        if not (self.able(cs, 0) and self.able(cs, 1)):
            return [(1.0, ("end", cs))]
        if not groups:
            return [(1.0, cs)]
        g, rest = groups[0], groups[1:]
        later = {i for grp in rest for i in grp}
        actors = [i for i in g if self.level(cs[i]) == 0 and i not in lost]
        pen = [max(c) for c in cs]
        aim = {}
        for i in actors:
            enemies = [j for j in range(len(cs)) if self.side[j] != self.side[i] and self.level(cs[j]) == 0]
            aim[i] = min(enemies, key=lambda j: (-pen[j], -cs[j][0], j))
        branches = {(cs, lost, parried): 1.0}
        for i in actors:
            j = aim[i]
            nxt = {}
            for (c, lo, pa), p in branches.items():
                parry = self.f[j].defense_rating > 0 and j not in pa and (j not in actors or self.r.simultaneous_parry)
                pa2 = pa | {j} if parry else pa
                for q, levels in self.hits(i, j, pen[i], pen[j], parry):
                    key = (c, lo, pa2)
                    if levels is not None:
                        cj, lose = self.land(j, c[j], levels, self.f[i].weapon_class)
                        key = (c[:j] + (cj,) + c[j + 1:], lo | {j} if lose and j in later else lo, pa2)
                    nxt[key] = nxt.get(key, 0.0) + p * q
            branches = nxt
        out = []
        for (c, lo, pa), p in branches.items():
            out += [(p * q, res) for q, res in self.moments(rest, c, lo, pa)]
        return out

    def finish(self, cs):
        """The winner's finishing attacks (``after_out = finish``): {final levels: p}."""
        dist = {cs: 1.0}
        if self.r.after_out == "finish" and self.able(cs, 0) != self.able(cs, 1):
            w = next(i for i, c in enumerate(cs) if self.level(c) == 0)
            for v in range(len(cs)):
                if self.side[v] == self.side[w]:
                    continue
                for _ in range(self.r.finish_attacks):
                    new = {}
                    for c, p in dist.items():
                        if self.level(c[v]) >= 2:
                            new[c] = new.get(c, 0.0) + p
                            continue
                        for q, levels in self.hits(w, v, max(cs[w]), max(c[v]), False):
                            c2 = c if levels is None else c[:v] + (self.land(v, c[v], levels, self.f[w].weapon_class)[0],) + c[v + 1:]
                            new[c2] = new.get(c2, 0.0) + p * q
                    dist = new
        out = {}
        for c, p in dist.items():
            key = tuple(self.level(x) for x in c)
            out[key] = out.get(key, 0.0) + p
        return out

    def solve(self):
        """{final levels: p} and the mean rounds, round by round until the mass left is below 1e-15."""
        dist, ends, mean, t = {tuple((0, 0) for _ in self.f): 1.0}, {}, 0.0, 0
        while sum(dist.values()) > 1e-15:
            t += 1
            new = {}
            for cs, p in dist.items():
                if cs not in self.memo:
                    self.memo[cs] = self.round(cs)
                for res, q in self.memo[cs].items():
                    if res[0] == "end":
                        mean += t * p * q
                        for lv, w in self.finish(res[1]).items():
                            ends[lv] = ends.get(lv, 0.0) + p * q * w
                    else:
                        new[res] = new.get(res, 0.0) + p * q
            dist = new
        return ends, mean


BRUTE = [
    (dict(SHORT, group_timing="average"),
     [F(attack_rating=10, defense_rating=8, reflexes=9, training=2, personality=1, weapon_ps=5, weapon_class="wound")],
     [F(attack_rating=9, reflexes=9, training=1, personality=2, weapon_ps=4)] * 2),
    (dict(SHORT, group_timing="order", in_die="d6", after_out="finish"),
     [F(attack_rating=10, defense_rating=8, reflexes=8, training=2, personality=1, weapon_ps=5, weapon_class="wound")],
     [F(attack_rating=9, defense_rating=7, reflexes=7, training=1, personality=2, weapon_ps=4)] * 2),
    (dict(SHORT, group_timing="order", in_die="d6", simultaneous_parry=True),
     [F(attack_rating=10, defense_rating=8, reflexes=8, training=2, personality=2, weapon_ps=4, weapon_class="wound")] * 2,
     [F(attack_rating=9, defense_rating=9, reflexes=8, training=1, personality=1, weapon_ps=5)] * 2),
]


@pytest.mark.parametrize("variants,side_a,side_b", BRUTE)
def test_the_exact_chain_agrees_with_a_round_by_round_recursion_on_short_tracks(variants, side_a, side_b):
    rules = onesix.Rules(**variants)
    ends, mean = Brute(rules, side_a, side_b).solve()
    sol = SYSTEM.group(rules, side_a, side_b).solution
    na = len(side_a)
    p_a = sum(p for lv, p in ends.items() if 0 in lv[:na] and 0 not in lv[na:])
    p_b = sum(p for lv, p in ends.items() if 0 in lv[na:] and 0 not in lv[:na])
    assert sol.p_a_wins == pytest.approx(p_a, abs=1e-9) and sol.p_b_wins == pytest.approx(p_b, abs=1e-9)
    assert sol.mean_rounds == pytest.approx(mean, abs=1e-9)
    for k, f in enumerate(sol.fighters):
        assert f.p_dying == pytest.approx(sum(p for lv, p in ends.items() if lv[k] >= 2), abs=1e-9)
        assert f.p_dead == pytest.approx(sum(p for lv, p in ends.items() if lv[k] == 3), abs=1e-9)
    assert sol.p_a_wins + sol.p_b_wins + sol.p_both_out + sol.p_stalemate == pytest.approx(1.0, abs=1e-12)


HERO, MOOK = load_fighter(SYSTEM, "trained_armed"), load_fighter(SYSTEM, "novice_armed")


@pytest.mark.parametrize("variants,side_a,side_b", [
    (dict(group_timing="average"), [HERO], [MOOK] * 2),
    (dict(group_timing="order", after_out="finish"), [HERO], [MOOK.replace(target="random")] * 3),
    (dict(group_timing="average", simultaneous_parry=True), [HERO.replace(target="spread")] * 2,
     [MOOK, MOOK.replace(target="strongest")]),
])
def test_monte_carlo_agrees_with_the_exact_chain(variants, side_a, side_b):
    rules = onesix.Rules(**variants)
    exact = SYSTEM.group(rules, side_a, side_b).solution
    sim = simulate_group("onesix", rules, side_a, side_b, n=100_000, seed=7, workers=1)
    assert sim.p_unfinished.value == 0
    for name in ("p_a_wins", "p_b_wins", "p_both_out"):
        assert getattr(sim, name).agrees(getattr(exact, name))
    assert sim.mean_rounds.agrees(exact.mean_rounds)
    for k, f in enumerate(exact.fighters):
        assert sim.fighter(k)["p_out"].agrees(f.p_out) and sim.fighter(k)["p_dying"].agrees(f.p_dying)


def test_the_economy_past_one_against_one_is_refused_naming_the_size_and_monte_carlo():
    from analysis.fights.budget import exact_group

    with pytest.raises(DicelabError, match=r"1 against 2 under group_timing = economy is too large: about [\d,]+ "
                                           r"states.*Monte Carlo"):
        exact_group(SYSTEM, onesix.Rules(), [HERO], [MOOK] * 2)
    rules = onesix.Rules(group_timing="order")
    assert SYSTEM.group(rules, [HERO], [MOOK] * 2).solution.states <= SYSTEM.group_states(rules, [HERO], [MOOK] * 2)


def test_the_result_echoes_the_timing_and_the_sides():
    d = SYSTEM.group(onesix.Rules(group_timing="average", after_out="finish"), [HERO], [MOOK] * 2).to_dict()
    assert d["variants"]["group_timing"] == "average" and len(d["side_b"]) == 2
    assert "reflexes + 3 - penalty" in d["order"] and "finish" in d["order"]
    assert sum(d["survivors_a"].values()) == pytest.approx(1.0, abs=1e-12)
