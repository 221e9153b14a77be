"""ТУН's exact duel: the duel tracks (Body trauma and aimed-shot effect states), one attack as a kernel, the
turns of a round (the order fixed at the first round, two actions a turn, delay, initiative skip, the last word),
the absorbing chain and ``after_out``; the seed's resolve path.

>>> res = duel(Rules(), Fighter(body=13, attack_feature=6, weapon_n=2, weapon_b=1), Fighter(body=12))
>>> res.solution.p_a_wins > 0.99
True
"""

from __future__ import annotations

from functools import lru_cache
from typing import Mapping

import numpy as np

from analysis.base.lazy import sp
from analysis.base.params import ParamError
from analysis.engine import markov
from analysis.engine.combat import DuelResult, Resolution, describe_fighter
from analysis.systems.tun.rules import (
    EFFECTS,
    HELPLESS,
    LAST_WORD,
    NORMAL,
    Fighter,
    Rules,
    _track,
    _trauma,
    acting,
    branches,
    check_reach,
    crit_bonus,
    effect_of,
    effect_text,
    in_reach,
    limit_terms,
    limit_text,
    outcome_arrays,
    roll,
    track,
    trauma_label,
)


@lru_cache(maxsize=256)
def _duel_track(volume: int, death_multiple: int, states: int, stun: bool) -> markov.Track:
    body = _track(volume, death_multiple)
    order = range(states - 1, -1, -1) if stun else range(states)
    return markov.Track(labels=tuple((lab, e) for lab in body.labels for e in order),
                        status=tuple(st for st in body.status for _ in order),
                        classes=tuple(e for _ in body.labels for e in order))


def duel_track(rules: Rules, f: Fighter, opponent: Fighter) -> markov.Track:
    """``f``'s conditions in a duel against ``opponent``: (Body track label, effect state) pairs, the class of each
    its effect state (disarmed or immobilised 0/1, a stun's pending lost actions 0..``stun_actions``, listed from
    the most so that a fighter only ever moves down the list).

    >>> len(duel_track(Rules(), Fighter(body=3, weapon_n=2), Fighter(ranged=True, aim="arm")))
    16
    """
    kind = effect_of(rules, f, opponent)
    states = {None: 1, "stun": rules.stun_actions + 1}.get(kind, 2)
    return _duel_track(f.volume, rules.death_multiple, states, kind == "stun")


@lru_cache(maxsize=1024)
def _duel_kernel(rules: Rules, att: Fighter, dfn: Fighter, state: int, mode: str = NORMAL) -> sp.csr_matrix:
    """One attack of ``att`` in effect ``state`` over ``dfn``'s duel track (shared: never modified).  Out of reach
    it cannot land; a hit of an aimed shot sets ``dfn``'s effect (per ``aim_effects``; a stun renews, it does not
    add)."""
    t, body = duel_track(rules, dfn, att), track(rules, dfn)
    kind = effect_of(rules, dfn, att)
    shooter = acting(att, effect_of(rules, att, dfn), state)
    sets = (rules.stun_actions if kind == "stun" else 1) if kind and shooter.aim != "none" else None

    def rows(i: int) -> list[tuple[float, int]]:
        label, e = t.labels[i]
        if not in_reach(rules, shooter):
            return [(1.0, i)]
        out = []
        for b in branches(rules, shooter, acting(dfn, kind, e), _trauma(label), mode):
            lands = sets is not None and b.kind == "hit" and (
                rules.aim_effects == "always" or body.status[b.condition] == markov.UP)
            out.append((b.p, t.index[(body.labels[b.condition], sets if lands else e)]))
        return out

    if mode == HELPLESS:
        return markov.helpless_kernel(t, rows, rules.lethal_at)
    return markov.kernel(t, rows)


def _lose_one(t: markov.Track) -> sp.csr_matrix:
    """Over a stunned fighter's duel track: one pending lost action spent (effect state e -> e - 1)."""
    to = [t.index[(lab, max(e - 1, 0))] for lab, e in t.labels]
    return sp.csr_matrix((np.ones(len(t)), (np.arange(len(t)), to)), shape=(len(t), len(t)))


# ------------------------------------------------------------------- turns
Event = tuple[str, str, int]
"""One step of a round: ``("attacks", side, k)`` (k actions while both are up) or ``("last_word", side, 0)``."""


def first_mover(rules: Rules, a: Fighter, b: Fighter) -> tuple[float, float, str]:
    """(P(A acts first), P(B acts first), how the order was fixed).

    >>> first_mover(Rules(turn_order="reaction"), Fighter(reaction=2), Fighter(reaction=2, body=11))[2]
    'B first by Body (10 against 11) at equal reaction'
    """
    keys = {"body": [("Body", "body")], "roll": [],
            "reaction": [("reaction", "reaction"), ("Body", "body")]}[rules.turn_order]
    for i, (label, name) in enumerate(keys):
        va, vb = getattr(a, name), getattr(b, name)
        if va != vb:
            first = "A" if va > vb else "B"
            tie = f" at equal {keys[0][0]}" if i else ""
            return float(first == "A"), float(first == "B"), f"{first} first by {label} ({va} against {vb}){tie}"
    why = f"equal {' and '.join(k for k, _ in keys)}: " if keys else ""
    return 0.5, 0.5, why + "a d6 roll-off (re-rolled on ties) fixes the order, each first with 1/2"


def _turns(rules: Rules, policy: Mapping[str, str], first: str) -> list[list[tuple[str, int]]]:
    """The turns (side, actions) of round 1, 2, ...; the last round listed repeats."""
    second = "b" if first == "a" else "a"
    n = rules.actions_per_turn

    def ordinary(lead: str, follow: str, lead_actions: int) -> list[tuple[str, int]]:
        if policy[lead] == "delay":
            return [(follow, 1), (lead, lead_actions), (follow, n - 1)]
        return [(lead, lead_actions), (follow, n)]

    if policy[second] != "initiative_skip":
        return [ordinary(first, second, n)]
    skip = [(second, 0), (first, n)] if policy[first] == "delay" else [(first, n), (second, 0)]
    rounds = [skip, ordinary(second, first, n - rules.initiative_skip_cost), ordinary(second, first, n)]
    return rounds[:2] if rounds[1] == rounds[2] else rounds


def schedule(rules: Rules, a: Fighter, b: Fighter, first: str) -> tuple[tuple[Event, ...], ...]:
    """The events of round 1, 2, ... when ``first`` leads the order (the last round listed repeats).

    With ``last_word``, a fighter put out before its turn has come speaks its
    last word right before that turn would have begun (right after the turn
    that put it out).

    >>> schedule(Rules(), Fighter(), Fighter(), "a")
    ((('attacks', 'a', 2), ('last_word', 'b', 0), ('attacks', 'b', 2)),)
    >>> schedule(Rules(), Fighter(turn_policy="delay"), Fighter(), "a")[0]
    (('attacks', 'b', 1), ('last_word', 'a', 0), ('attacks', 'a', 2), ('attacks', 'b', 1))
    """
    rounds = []
    for turns in _turns(rules, {"a": a.turn_policy, "b": b.turn_policy}, first):
        events: list[Event] = []
        for side, k in turns:
            if rules.last_word and events and not any(s == side for _, s, _ in events):
                events.append(("last_word", side, 0))
            if k:
                events.append(("attacks", side, k))
        rounds.append(tuple(events))
    return tuple(rounds)


def describe_schedule(rounds: tuple[tuple[Event, ...], ...]) -> str:
    """The rounds in words.

    >>> describe_schedule(schedule(Rules(), Fighter(), Fighter(turn_policy="initiative_skip"), "a"))
    'round 1: A x2, B last word; round 2: B x1, A last word, A x2; then every round: B x2, A last word, A x2'
    """
    def one(events: tuple[Event, ...]) -> str:
        return ", ".join(f"{s.upper()} x{k}" if kind == "attacks" else f"{s.upper()} last word" for kind, s, k in events)

    heads = [f"round {i + 1}" for i in range(len(rounds) - 1)] + ["then every round" if len(rounds) > 1 else "each round"]
    return "; ".join(f"{h}: {one(ev)}" for h, ev in zip(heads, rounds))


@lru_cache(maxsize=256)
def _action(rules: Rules, a: Fighter, b: Fighter, side: str) -> sp.csr_matrix:
    """One action of ``side`` over the joint space while both are up: a stunned fighter loses it (one pending
    action fewer); any other attacks as its effect state lets it."""
    att, dfn = (a, b) if side == "a" else (b, a)
    ta, tb = duel_track(rules, a, b), duel_track(rules, b, a)
    own, other = (ta, tb) if side == "a" else (tb, ta)
    stun = effect_of(rules, att, dfn) == "stun"
    moves = [(own.mask(c) @ _lose_one(own), sp.identity(len(other), format="csr")) if stun and c
             else (own.mask(c), _duel_kernel(rules, att, dfn, c)) for c in sorted(set(own.classes))]
    return markov.attack_moves(ta, tb, moves, side)


def _last_word(rules: Rules, a: Fighter, b: Fighter, side: str) -> sp.csr_matrix:
    """Over the joint space: the fighter of ``side``, out while the other is up, takes ``last_word_actions``
    actions (each while the other is up; it cannot move) at ``last_word_trauma`` Body trauma each.  A stunned
    speaker loses the action (no attack, no trauma); a disarmed one out of reach takes none."""
    speaker, target = (a, b) if side == "a" else (b, a)
    ts, tt = duel_track(rules, speaker, target), duel_track(rules, target, speaker)
    kind = effect_of(rules, speaker, target)
    allowed = (markov.OUT, markov.DYING) if rules.dying_last_word else (markov.OUT,)
    eligible = np.isin(ts.status, allowed).astype(float)
    cost_to = [ts.index[(trauma_label(rules, speaker, _trauma(lab) + rules.last_word_trauma), e)]
               if lab != "dying" else i for i, (lab, e) in enumerate(ts.labels)]
    cost = sp.csr_matrix((np.ones(len(ts)), (np.arange(len(ts)), cost_to)), shape=(len(ts), len(ts)))
    up_s, up_t = ts.up.astype(float), tt.up.astype(float)
    pieces = [(sp.identity(len(ts)), sp.diags(1 - up_t)), (sp.diags(up_s), sp.diags(up_t))]
    for c in sorted(set(ts.classes)):
        down = sp.diags((1 - up_s) * (np.asarray(ts.classes) == c))
        if kind == "stun" and c:
            pieces.append((down @ _lose_one(ts), sp.diags(up_t)))
        elif not in_reach(rules, acting(speaker, kind, c)):
            pieces.append((down, sp.diags(up_t)))
        else:
            pieces.append((down @ cost, sp.diags(up_t) @ _duel_kernel(rules, speaker, target, c, LAST_WORD)))
    step = sum(sp.kron(s, t) if side == "a" else sp.kron(t, s) for s, t in pieces).tocsr()
    where = np.kron(eligible, up_t) if side == "a" else np.kron(up_t, eligible)
    speech = sp.identity(step.shape[0], format="csr")
    for _ in range(rules.last_word_actions):
        speech = speech @ step
    return (sp.diags(where) @ speech + sp.diags(1 - where)).tocsr()


def _round(rules: Rules, a: Fighter, b: Fighter, events: tuple[Event, ...]) -> sp.csr_matrix:
    """One round over the joint space (A x B) from its events; rows where someone is already out are the identity."""
    ta, tb = duel_track(rules, a, b), duel_track(rules, b, a)
    m = sp.identity(len(ta) * len(tb), format="csr")
    for kind, side, k in events:
        for _ in range(k if kind == "attacks" else 1):
            m = m @ (_action(rules, a, b, side) if kind == "attacks" else _last_word(rules, a, b, side))
    live = np.kron(ta.up, tb.up).astype(float)
    return (sp.diags(live) @ m + sp.diags(1.0 - live)).tocsr()


def _orders(rules: Rules, a: Fighter, b: Fighter) -> list[tuple[float, str]]:
    p_a, p_b, _ = first_mover(rules, a, b)
    return [(p, side) for p, side in ((p_a, "a"), (p_b, "b")) if p > 0]


def duel(rules: Rules, a: Fighter, b: Fighter) -> DuelResult:
    """The order fixed at the first round; turns of two actions (delay and initiative skip as the fighters'
    policies say); the last word; until someone is out, then ``after_out``.

    >>> res = duel(Rules(), Fighter(body=13, attack_feature=6, weapon_n=2, weapon_b=1), Fighter(body=12))
    >>> res.solution.p_a_wins > 0.99
    True
    """
    check_reach(rules, {"A": a, "B": b})
    ta, tb = duel_track(rules, a, b), duel_track(rules, b, a)
    start = (ta.index[(0, 0)], tb.index[(0, 0)])
    parts, words = [], []
    for p, first in _orders(rules, a, b):
        rounds = schedule(rules, a, b, first)
        parts.append((p, markov.solve_rounds([_round(rules, a, b, ev) for ev in rounds], ta, tb, start)))
        words.append(f"{first.upper()} first: {describe_schedule(rounds)}")
    sol = markov.mix_solutions(parts, ta, tb)
    if rules.after_out == "finish":
        sol = markov.finish(sol, ta, tb, {c: _duel_kernel(rules, b, a, c, HELPLESS) for c in set(tb.classes)},
                            {c: _duel_kernel(rules, a, b, c, HELPLESS) for c in set(ta.classes)},
                            rules.lethal_at, rules.finish_attacks)
    effects = [f"{x}'s hit on the {att.aim} {effect_text(rules, kind)}"
               + (" (not on the hit that puts it out)" if rules.aim_effects == "while_up" else "")
               for x, att, dfn in (("A", a, b), ("B", b, a)) if (kind := effect_of(rules, dfn, att))]
    order = (f"fixed at the first round: {first_mover(rules, a, b)[2]}; {' | '.join(words)}"
             + ("; the last word" + (" (also when dying)" if rules.dying_last_word else "") if rules.last_word else "")
             + "".join(f"; {e}" for e in effects)
             + ("; then the winner attacks the helpless loser (no defense)" if rules.after_out == "finish" else ""))
    return DuelResult("tun", rules.to_dict(), describe_fighter(a, rules), describe_fighter(b, rules), order, sol)


def duel_states(rules: Rules, a: Fighter, b: Fighter) -> int:
    """An upper bound on the exact chain's states: orders x round kinds x both tracks, without building it.

    >>> duel_states(Rules(), Fighter(body=3), Fighter(body=4))
    80
    """
    per_pair = len(duel_track(rules, a, b)) * len(duel_track(rules, b, a))
    return sum(len(_turns(rules, {"a": a.turn_policy, "b": b.turn_policy}, first)) * per_pair
               for _, first in _orders(rules, a, b))


def resolve(rules: Rules, att: Fighter, dfn: Fighter, rolls: Mapping[str, int]) -> Resolution:
    """One attack on an unhurt ``dfn`` with ``attack`` = the value rolled on the attacker's dice.

    >>> red = Fighter(body=13, attack_feature=6, weapon_n=2, weapon_b=1)
    >>> res = resolve(Rules(), red, Fighter(body=12), {"attack": 11})
    >>> res.hit, res.fields["effectiveness"], res.damage
    (True, 2, 5)
    """
    r = roll(att.dice)
    for name, value in rolls.items():
        if r.pmf(value) == 0:
            faces = ", ".join(str(v) for v in r.to_dict()) if att.dice == "1d6x3" else f"{r.min}..{r.max}"
            raise ParamError(f"rolls.{name}", value, f"a {att.dice} roll in {faces}")
    if "attack" not in rolls:
        raise ParamError("rolls", ",".join(f"{k}={v}" for k, v in rolls.items()) or "(none)",
                         "a value for 'attack' (this exchange needs it)")
    check_reach(rules, {"the attacker": att})
    value = rolls["attack"]
    terms = limit_terms(rules, att, dfn)
    limit = sum(v for _, v in terms)
    success, e, crit, fumble = (x[0] for x in outcome_arrays(rules, att.dice, limit, np.array([value])))
    sign = "<=" if rules.success_rule == "le" else "<"
    steps = [f"limit: {limit_text(terms)}"]
    if crit:
        steps.append(f"attack: {att.dice} = {value}, the minimum: critical success, "
                     f"E = max({limit} - {value}, 0) + {crit_bonus(rules, att.dice)} = {e}")
    elif fumble:
        steps.append(f"attack: {att.dice} = {value}, the maximum: critical failure, miss")
    else:
        steps.append(f"attack: {att.dice} = {value} {sign} {limit}? "
                     + (f"yes: hit, E = {limit} - {value} = {e}" if success else "no: miss"))
    damage = int(e) * att.weapon_n + att.weapon_b if success else 0
    if success:
        steps.append(f"trauma: E*{att.weapon_n} + {att.weapon_b} = {e}*{att.weapon_n} + {att.weapon_b} "
                     f"= {damage} Body trauma")
    label = trauma_label(rules, dfn, damage)
    condition = "dying" if label == "dying" else "out" if isinstance(label, tuple) else "up"
    steps.append(f"{dfn.name}'s Body: volume {dfn.volume}, trauma 0 -> {damage}: {condition}"
                 + {"up": "", "out": " (trauma >= volume)",
                    "dying": f" (trauma > {rules.death_multiple} x volume)"}[condition])
    takes = success and (rules.aim_effects == "always" or (rules.aim_effects == "while_up" and condition == "up"))
    effect = EFFECTS.get(att.aim) if takes else None
    if effect:
        steps.append(f"the hit on the {att.aim} {effect_text(rules, effect)}")
    fields = {"limit": limit, "effectiveness": int(e), "critical": bool(crit), "fumble": bool(fumble),
              "trauma_after": damage, "condition": condition, "effect": effect}
    return Resolution("tun", rules.to_dict(), describe_fighter(att, rules), describe_fighter(dfn, rules),
                      dict(rolls), steps, bool(success), damage, damage, fields)
