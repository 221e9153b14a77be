"""The Tri-Stat duel (RULES.md section 1): one attack, the exact duel chain, one attack with the dice given.

>>> from analysis.systems.tristat.rules import Fighter, Rules
>>> res = duel(Rules(), Fighter(weapon_damage=10), Fighter(weapon_damage=10))
>>> abs(res.solution.p_a_wins - res.solution.p_b_wins) < 1e-12
True
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

import numpy as np

from analysis.base.lazy import sp
from analysis.base.params import DicelabError, ParamError
from analysis.engine import markov
from analysis.engine.combat import DuelResult, ExchangeResult, Resolution, describe_fighter, summarize
from analysis.engine.results import Outcomes
from analysis.systems.tristat.rules import (
    Fighter,
    Outcome,
    Rules,
    _after,
    _defense,
    _kernel,
    attack_outcomes,
    attack_target,
    blocks,
    branches,
    condition_label,
    damage_percent,
    defense_target,
    dying_at,
    hit_damage,
    keeps_object,
    object_breaks,
    raw_damage,
    rules_roll,
    succeeds,
    track,
    warnings,
)


def _no_attack(att: Fighter) -> None:
    if att.stance == "total_defence":
        raise ParamError("stance", "total_defence", "normal for an attacker (a fighter in total defence never "
                         "attacks)", f"tristat fighter {att.name!r}")


def exchange(rules: Rules, att: Fighter, dfn: Fighter) -> ExchangeResult:
    """One attack of ``att`` on an unhurt ``dfn``, exactly; ``p_blocked`` counts absorbing blocks (kind ``hit``:
    damage still rolled) and ``p_object_breaks`` the ones that destroy the object."""
    warned = warnings(rules, att, dfn)
    _no_attack(att)
    t = track(rules, dfn, att)
    label = t.labels[0]
    notes = ["shock_rule is the lab's stand-in for the seed's optional Shock rule"] if rules.shock_rule else []
    outs = attack_outcomes(rules, att, dfn, _defense(rules, att, dfn, label))
    if keeps_object(rules, att, dfn):
        notes.append("block_rule=absorb: a successful block is a hit less the object's armour (p_blocked)")
    res = summarize("tristat", rules, att, dfn, branches(rules, att, dfn, label), t, condition_label, notes)
    return replace(res, extra={"p_blocked": sum(o.p for o in outs if o.blocked),
                               "p_object_breaks": sum(o.p for o in outs if o.breaks), "warnings": warned})


def initiative(rules: Rules, a: Fighter, b: Fighter) -> tuple[float, float, float]:
    """(P(A acts first), P(simultaneous), P(B first)) from 2dX + acv each."""
    r = rules_roll(rules)
    ia, ib = r + a.stats(rules)[0], r + b.stats(rules)[0]
    win, tie, lose, _ = Outcomes(ia.p, ia.support, ia.support).against(Outcomes(ib.p, ib.support, ib.support))
    return win, tie, lose


def total_defence_side(a: Fighter, b: Fighter) -> str | None:
    """``"a"`` or ``"b"``: the fighter in total defence (``None``: neither); both is rejected."""
    sides = [side for side, f in (("a", a), ("b", b)) if f.stance == "total_defence"]
    if len(sides) == 2:
        raise DicelabError("stance = 'total_defence' for both fighters is not allowed; allowed: at most one in "
                           "total defence (neither would ever attack)")
    return sides[0] if sides else None


INERT = ("; inert one-on-one: both attack every round and the order only decides the round someone goes out, "
         "so the duel equals rolling every round")


def duel(rules: Rules, a: Fighter, b: Fighter) -> DuelResult:
    """Initiative each round (2dX + acv; equal: simultaneous), one attack each, until someone is out; with one
    fighter in total defence, the other attacks once a round until it is out or ``total_defence_rounds`` pass.
    ``after_out = "finish"`` then plays the winner's attacks on the helpless loser (no defense roll)."""
    warned = warnings(rules, a, b)
    ta, tb = track(rules, a, b), track(rules, b, a)
    turtle = total_defence_side(a, b)
    extra: dict[str, Any] = {}
    if turtle:
        solution = _hold(rules, a, b, ta, tb, turtle)
        order = (f"{turtle.upper()} in total defence never attacks; {'B' if turtle == 'a' else 'A'} attacks once a "
                 f"round until {turtle.upper()} is out, or the fight ends at the {rules.total_defence_rounds}-round "
                 f"cap (total_defence_rounds = {rules.total_defence_rounds}) with {turtle.upper()} still up "
                 "(p_still_up; p_stalemate counts the same fights)")
        extra = {"total_defence": turtle, "p_still_up": solution.p_stalemate, "rounds_cap": rules.total_defence_rounds}
    else:
        on_b = {0: _kernel(rules, a, b, False)}
        on_a = {0: _kernel(rules, b, a, False)}
        a_hits, b_hits = markov.attack(ta, tb, on_b, "a"), markov.attack(ta, tb, on_a, "b")
        orders = [(a_hits @ b_hits), markov.simultaneous(ta, tb, on_a, on_b), (b_hits @ a_hits)]
        weights = initiative(rules, a, b)
        if rules.initiative_once:
            solution = markov.mix_solutions([(w, markov.solve(m, ta, tb, (0, 0))) for w, m in zip(weights, orders)],
                                            ta, tb)
            order = "initiative rolled once per fight (2dX + acv); equal: simultaneous" + INERT
        else:
            solution = markov.solve(markov.mixture(list(zip(weights, orders))), ta, tb, (0, 0))
            order = "initiative every round (2dX + acv); equal initiative: simultaneous attacks"
    if rules.after_out == "finish":
        solution = markov.finish(solution, ta, tb, {0: _kernel(rules, b, a, True)}, {0: _kernel(rules, a, b, True)},
                                 rules.lethal_at, rules.finish_attacks)
        order += "; after out the winner attacks the helpless loser (no defense roll; natural 2X still misses)"
    return DuelResult("tristat", rules.to_dict(), describe_fighter(a, rules), describe_fighter(b, rules), order,
                      solution, extra={**extra, "warnings": warned})


def _hold(rules: Rules, a: Fighter, b: Fighter, ta: markov.Track, tb: markov.Track, turtle: str) -> markov.Solution:
    """The duel against a fighter in total defence: the chain over (its up condition, rounds played); after
    ``total_defence_rounds`` rounds the fighters still up are a stalemate (``p_still_up``)."""
    att, dfn, t = (b, a, ta) if turtle == "a" else (a, b, tb)
    k = _kernel(rules, att, dfn, False).tocsr()
    up = np.flatnonzero(t.up)
    down = np.flatnonzero(~t.up)
    cap = rules.total_defence_rounds
    n = up.size
    ku, kd = k[up][:, up], k[up][:, down]
    shift = sp.diags(np.ones(cap), 1, shape=(cap + 1, cap + 1))
    q = sp.kron(shift, ku, format="csr")
    r = sp.kron(sp.csr_matrix(np.r_[np.ones(cap), 0.0][:, None]), kd, format="csr")
    x0 = np.zeros((cap + 1) * n)
    x0[0] = 1.0
    ends = np.array([(0, j) if turtle == "b" else (j, 0) for j in down.tolist()])
    return markov.solve_chain(q, r, x0, ends, ta, tb, states=(cap + 1) * n + down.size)


def duel_states(rules: Rules, a: Fighter, b: Fighter) -> int:
    """An upper estimate of the exact chain's states, without building it: the product of the two tracks (three
    chains under ``initiative_once``), or the defender's up conditions times the rounds, against total defence."""
    ta, tb = track(rules, a, b), track(rules, b, a)
    for f, t in ((a, ta), (b, tb)):
        if f.stance == "total_defence":
            return int(t.up.sum()) * (rules.total_defence_rounds + 1) + len(t)
    return len(ta) * len(tb) * (3 if rules.initiative_once else 1)


# ------------------------------------------------------------------ one exchange with the dice given
def resolve(rules: Rules, att: Fighter, dfn: Fighter, rolls: Mapping[str, int]) -> Resolution:
    """One attack with the dice given: ``attack``, ``defense``, ``damage`` and ``body`` (shock) 2dX totals."""
    warned = warnings(rules, att, dfn)
    _no_attack(att)
    acv = att.stats(rules)[0]
    health = dfn.stats(rules)[2]
    lo, hi, dx = rules.natural_low, rules.natural_high, f"{rules.dice_count}d{rules.die}"
    for name, value in rolls.items():
        if not lo <= value <= hi:
            raise ParamError(f"rolls.{name}", value, f"a {dx} total in {lo}..{hi}")
    steps, fields = [], {}
    a_roll = _need(rolls, "attack")
    target = attack_target(rules, att)
    critical = a_roll == lo
    ok = bool(succeeds(np.array([a_roll]), target, rules)[0])
    steps.append(f"attack: {dx} = {a_roll} against acv {acv} + skill {target - acv} = {target}: "
                 + ("natural low, critical hit (defense skipped)" if critical else "hit" if ok else "miss"))
    hit, damage, blocked, broke = ok, 0, False, False
    if ok and not critical:
        d_roll = _need(rolls, "defense")
        blocking = blocks(att, dfn)
        d_target = defense_target(rules, dfn, blocking)
        stopped = bool(succeeds(np.array([d_roll]), d_target, rules)[0])
        steps.append(f"defense: {dx} = {d_roll} against {d_target} (dcv + skill"
                     + (" + total defence" if dfn.stance == "total_defence" else "")
                     + (" + block" if blocking else "") + "): " + ("succeeds" if stopped else "fails"))
        blocked = stopped and blocking and rules.block_rule == "absorb"
        hit = not stopped or blocked
    if hit:
        dmg_roll = None if critical else _need(rolls, "damage")
        raw = raw_damage(rules, att, dmg_roll)
        damage = hit_damage(rules, att, dfn, dmg_roll, blocked)
        pct = 100 * rules.critical_multiplier if critical else damage_percent(rules, dmg_roll)
        source = f"critical: {pct}%" if critical else f"damage roll {dx} = {dmg_roll}: {pct}%"
        steps.append(f"{source} of max ({rules.damage_rounding}, acv_in_max={str(rules.acv_in_max).lower()}) = {raw}"
                     + (f"; the object's armour {dfn.block_armor} absorbs" if blocked else "")
                     + f"; armor {dfn.armor}: {damage} damage")
        if blocked:
            broke = object_breaks(rules, att, dfn, dmg_roll)
            steps.append(f"object: {raw} {'>=' if broke else '<'} {rules.block_break_multiple} x armour "
                         f"{dfn.block_armor}: " + ("destroyed" if broke else "holds"))
        fields["percent"] = pct
    shocked = False
    if hit and rules.shock_rule and damage > health // rules.shock_divisor:
        b_roll = _need(rolls, "body")
        shocked = not bool(succeeds(np.array([b_roll]), dfn.body, rules)[0])
        steps.append(f"shock (lab stand-in): {damage} > shock {health // rules.shock_divisor}; Body check {dx} = "
                     f"{b_roll} against {dfn.body}: " + ("knocked out" if shocked else "stays up"))
    start = track(rules, dfn, att).labels[0]
    after = _after(start, Outcome(1.0, "hit", damage, critical, blocked, broke), shocked, health,
                   dying_at(rules, health))
    steps.append(f"health {health} -> {health - damage}" + (f" ({condition_label(after)})" if after == "dying"
                                                            or after[0] == "out" else ""))
    fields.update({"critical": critical, "blocked": blocked, "object_breaks": broke, "health_after": health - damage,
                   "condition": condition_label(after), "warnings": warned})
    return Resolution("tristat", rules.to_dict(), describe_fighter(att, rules), describe_fighter(dfn, rules),
                      dict(rolls), steps, hit, damage, damage, fields)


def _need(rolls: Mapping[str, int], name: str) -> int:
    if name not in rolls:
        raise ParamError("rolls", ",".join(f"{k}={v}" for k, v in rolls.items()) or "(none)",
                         f"a value for '{name}' (this exchange needs it)")
    return rolls[name]
