"""ТУН's duel as a game of decisions (RULES.md section 8): act, delay or skip for initiative at the start of a
turn; the posture (defend or not, move or not) and the aimed shot for the turn's actions; the stand before the
fight; the aim of a last word; the posture and aim of the winner's finishing attacks.

:func:`tactics` builds the :class:`~analysis.engine.decisions.DecisionGame`
from the compiled walk of :mod:`~analysis.systems.tun.walk`: every decision
is taken at the start of its fighter's turn (or of what is left of it after
a delayed fighter cut in, or of its last word), knowing both conditions, the
effects and postures in force, and where in the round it stands; or at the
start of the fight (:data:`STAND_FEATURES`) or of its finishing attacks
(:data:`FINISH_FEATURES`), knowing what the rules give then; never a die not
yet rolled.  Held to both fighters' policies it is the duel of
:func:`~analysis.systems.tun.chain.duel`, number for number; a script (the
same choice at every decision,
:attr:`~analysis.engine.decisions.DecisionGame.scripts`) is the duel of the
fighter with that policy.

Readings where section 8 is silent (docs/rules/tun.md, "Decisions"):

- before its first turn a fighter stands in a posture of its own choosing
  (``stand``): both take their stand at once at the start of the fight (a
  matrix game), both conditions fresh, knowing who leads the first round
  (the order is fixed first, by the sheets or by the roll-off); a posture
  holds from then, or from its fighter's turn, to its next turn; a fighter
  that skips keeps its posture;
- a turn cut short by a delayed fighter resumes with a fresh posture and aim;
- "delay" waits for the other's first action, as the script: a follower
  has nothing to wait for, so it acts; a leader skipping gains nothing, so it
  acts (the scripts' own readings);
- not defending only ever helps the attacker, so it is offered only to a
  fighter whose policy does not defend (its book must be playable);
- finishing attacks (``after_out = "finish"``) are the winner's last
  stretch: it picks its posture (``finish_posture``: only moving counts, the
  loser is helpless) and, a ranged weapon in hand, its aim
  (``finish_aim``), knowing both fighters' Body trauma and its own disarmed
  and immobilised (all the finishing reads); a loser already dying needs no
  finishing (no decision).

>>> from analysis.engine.game import solve
>>> dg = tactics(Rules(), Fighter(body=4, attack_feature=6), Fighter(body=3, attack_feature=7))
>>> sol = dg.with_objective("wins").solution(dg.game.book("a"), dg.game.book("b"))
>>> from analysis.systems.tun.chain import duel
>>> abs(sol.p_a_wins - duel(Rules(), Fighter(body=4, attack_feature=6), Fighter(body=3, attack_feature=7)).solution.p_a_wins) < 1e-12
True
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from analysis.base.params import DicelabError
from analysis.engine.decisions import Decision, DecisionGame
from analysis.engine.game import Game
from analysis.systems.tun import walk as w
from analysis.systems.tun.chain import first_mover
from analysis.systems.tun.rules import (
    AIMS,
    EFFECTS,
    HELPLESS,
    LAST_WORD,
    NORMAL,
    TURN_POLICIES,
    Fighter,
    Rules,
    _attack_table,
    acting,
    attack_limit,
    attack_outcomes,
    check_reach,
    in_reach,
    track,
)

POSTURES = (("defend", False, False), ("move", False, True), ("no_defense", True, False),
            ("move_no_defense", True, True))
"""The posture actions: (name, not defending, moving); the first two for every fighter, the others only for a
fighter whose policy does not defend."""
KINDS = {None: w.K_NONE, "disarm": w.K_DISARM, "immobilise": w.K_IMMOBILISE, "stun": w.K_STUN}
MOMENTS = {w.PH_TURN_L: 0, w.PH_TURN_F: 1, w.PH_TURN_FD: 2, w.PH_POST_L: 0, w.PH_POST_F: 1, w.PH_POST_FD: 2,
           w.PH_POST_LD: 3, w.PH_POST_FC: 4, w.PH_POST_LS: 5, w.PH_LW_F: 6, w.PH_LW_L: 6, w.PH_INIT: 7}
"""Where in the round a decision falls: 0 leads, 1 follows, 2 follows after the leader delayed, 3 leads after
delaying, 4 resumes its turn, 5 leads after the follower skipped, 6 its last word, 7 takes its stand before the
fight and will lead the first round (8: and will follow) (aim phases as their posture's)."""
MOMENT_TEXT = ("leads the round", "follows", "follows, the leader delayed", "leads after delaying",
               "resumes its turn", "leads after the other skipped", "last word", "stands before the fight, to lead",
               "stands before the fight, to follow")
FEATURES = ("own trauma", "opponent trauma", "own disarmed", "own immobilised", "own stunned", "opponent disarmed",
            "opponent immobilised", "opponent stunned", "own defends", "own moving", "opponent defends",
            "opponent moving", "moment", "actions", "opponent actions", "first round")
"""What the decider of a turn, a posture or an aim knows (the aim also whether it moves this turn: ``moving now``):
both fighters' Body trauma, aimed-shot effects and postures in force, where in the round it stands (``moment``,
:data:`MOMENT_TEXT`), its actions in this stretch, the opponent's actions still to come this round, and whether it is
the first round."""
STAND_FEATURES = ("moment",)
"""What a fighter knows as it takes its stand before the fight: whether it will lead the first round (both are
fresh)."""
FINISH_FEATURES = ("own trauma", "opponent trauma", "own disarmed", "own immobilised")
"""What the winner knows as it takes its posture for its finishing attacks (its aim also knows ``moving now``):
what the finishing reads."""
ALL_FEATURES = FEATURES + ("moving now",)
MAX_STATES = 20_000_000
"""The walk stops past this many states (the budget refuses far earlier; this is the backstop)."""


@dataclass(frozen=True)
class Plan:
    """The packed arrays of :func:`analysis.systems.tun.walk._walk` for one ruleset and two fighters, and for a
    simulator: the attack limits behind ``prof`` (same index), each side's weapon ``(n, b)`` by disarmed, and the
    limit of its finishing attacks by (disarmed, immobilised, moving, aim)."""

    side: np.ndarray
    post: np.ndarray
    prof: np.ndarray
    dptr: np.ndarray
    dd: np.ndarray
    dp: np.ndarray
    dhit: np.ndarray
    reach: np.ndarray
    aimkind: np.ndarray
    fin: np.ndarray
    rl: np.ndarray
    p_first: np.ndarray
    rad: np.ndarray
    limit: np.ndarray
    weapon: np.ndarray
    helpless: np.ndarray


def radices(rules: Rules, f: Fighter, o: Fighter) -> dict[str, int]:
    """How many values each of ``f``'s components takes against ``o``: the aimed-shot effects only where ``o`` can
    aim and they change how ``f`` fights or is attacked; its posture in force only where an attack on it reads it.

    >>> radices(Rules(), Fighter(weapon_n=2), Fighter(ranged=True))
    {'trauma': 22, 'disarmed': 2, 'immobilised': 2, 'stunned': 2, 'not defending': 1, 'moving': 1}
    """
    active = rules.aim_effects != "none" and o.ranged
    unarmed = not f.ranged and (f.weapon_n, f.weapon_b) == (1, 0)
    return {"trauma": rules.death_multiple * f.volume + 2,
            "disarmed": 2 if active and not unarmed else 1,
            "immobilised": 2 if active else 1,
            "stunned": rules.stun_actions + 1 if active and rules.stun_actions > 0 else 1,
            "not defending": 1 if f.defends else 2,
            "moving": 2 if rules.ranged_defense == "moving" and o.ranged else 1}


def postures(f: Fighter) -> tuple[str, ...]:
    """The posture actions open to ``f`` (see :data:`POSTURES`)."""
    return tuple(name for name, nodef, _ in POSTURES if f.defends is False or not nodef)


def plan(rules: Rules, a: Fighter, b: Fighter) -> Plan:
    """The packed arrays of the walk (see :mod:`analysis.systems.tun.walk`)."""
    side = np.zeros((2, w.NSIDE), dtype=np.int64)
    post = np.zeros((2, len(POSTURES), 2), dtype=np.int64)
    rad = [w.NPH, 2, 2, 2, 2]
    for x, (f, o) in enumerate(((a, b), (b, a))):
        r = radices(rules, f, o)
        names = postures(f)
        side[x] = (f.volume, r["trauma"] - 1, r["disarmed"], r["immobilised"], r["stunned"], r["not defending"],
                   r["moving"], int(f.ranged), len(names))
        for k, name in enumerate(names):
            _, nodef, moving = next(p for p in POSTURES if p[0] == name)
            post[x, k] = (nodef, moving)
        rad += [r["trauma"], r["disarmed"], r["immobilised"], r["stunned"], r["not defending"], r["moving"]]
    prof = np.zeros((2, 2, 2, len(AIMS), 2, 2, 2), dtype=np.int64)
    limits = np.zeros_like(prof)
    weapon = np.zeros((2, 2, 2), dtype=np.int64)
    reach = np.zeros((2, 2), dtype=np.int64)
    tables: dict[tuple, int] = {}
    dists: list[list[tuple[int, int, float]]] = []
    for x, (f, o) in enumerate(((a, b), (b, a))):
        targets = {(nodef, tm): o.replace(defends=not nodef, moving=bool(tm)) for nodef in range(2) for tm in range(2)}
        for dis in range(2):
            reach[x, dis] = in_reach(rules, acting(f, "disarm", dis))
            armed = acting(f, "disarm", dis)
            weapon[x, dis] = (armed.weapon_n, armed.weapon_b)
            for mv in range(2):
                for k, aim in enumerate(AIMS if f.ranged else AIMS[:1]):
                    att = acting(f.replace(moving=bool(mv), aim=aim), "disarm", dis)
                    for m, mode in enumerate((NORMAL, LAST_WORD)):
                        for (nodef, tm), dfn in targets.items():
                            limit = attack_limit(rules, att, dfn, mode)
                            key = (att.dice, att.weapon_n, att.weapon_b, limit)
                            if key not in tables:
                                tables[key] = len(dists)
                                miss, hits = attack_outcomes(rules, *key)
                                merged: dict[int, float] = {}
                                for p, d, _ in hits:
                                    merged[d] = merged.get(d, 0.0) + p
                                dists.append(([(0, 0, miss)] if miss > 0 else [])
                                             + [(d, 1, p) for d, p in sorted(merged.items())])
                            prof[x, dis, mv, k:, m, nodef, tm] = tables[key]
                            limits[x, dis, mv, k:, m, nodef, tm] = limit
    dptr = np.cumsum([0] + [len(d) for d in dists]).astype(np.int64)
    flat = [o for d in dists for o in d]
    dd = np.array([o[0] for o in flat], dtype=np.int64)
    dhit = np.array([o[1] for o in flat], dtype=np.int64)
    dp = np.array([o[2] for o in flat], dtype=float)
    aimkind = np.array([KINDS[EFFECTS.get(aim)] if rules.aim_effects != "none" else w.K_NONE for aim in AIMS],
                       dtype=np.int64)
    cap = int(side[:, w.S_CAP].max())
    fin = np.zeros((2, 2, 2, 2, len(AIMS), cap + 1, cap + 1))
    helpless = np.zeros((2, 2, 2, 2, len(AIMS)), dtype=np.int64)
    for x, (f, o) in enumerate(((a, b), (b, a))):
        for dis, imm, mv in itertools.product(range(2), repeat=3):
            for k, aim in enumerate(AIMS if f.ranged else AIMS[:1]):
                att = acting(acting(f.replace(moving=bool(mv), aim=aim), "disarm", dis), "immobilise", imm)
                helpless[x, dis, imm, mv, k] = attack_limit(rules, att, o, HELPLESS)
                if rules.after_out == "finish":
                    fin[x, dis, imm, mv, k] = _finishing(rules, att, o, cap)
    rl = np.zeros(w.NRULES, dtype=np.int64)
    rl[[w.R_N, w.R_COST, w.R_LW, w.R_LW_DYING, w.R_LW_ACTIONS, w.R_LW_TRAUMA, w.R_STUN, w.R_ALWAYS, w.R_FINISH,
        w.R_MAXOUT]] = (rules.actions_per_turn, rules.initiative_skip_cost, rules.last_word, rules.dying_last_word,
                        rules.last_word_actions, rules.last_word_trauma, rules.stun_actions,
                        rules.aim_effects == "always", rules.after_out == "finish", int(np.diff(dptr).max()))
    p_a, p_b, _ = first_mover(rules, a, b)
    return Plan(side, post, prof, dptr, dd, dp, dhit, reach, aimkind, fin, rl, np.array([p_a, p_b]),
                np.array(rad, dtype=np.int64), limits, weapon, helpless)


def _finishing(rules: Rules, att: Fighter, victim: Fighter, cap: int) -> np.ndarray:
    """The winner ``att``'s finishing attacks on the helpless ``victim`` as one operator over its Body trauma
    (``0 .. dying``): each attack moves what is not dying yet, ``finish_attacks`` of them (padded to ``cap``)."""
    line = rules.death_multiple * victim.volume + 1
    k = np.zeros((cap + 1, cap + 1))
    k[np.arange(line + 1, cap + 1), np.arange(line + 1, cap + 1)] = 1.0
    k[line, line] = 1.0
    if not in_reach(rules, att):
        k[np.arange(line), np.arange(line)] = 1.0
    else:
        miss, hits = _attack_table(rules, att, victim, HELPLESS)
        for t in range(line):
            k[t, t] += miss
            for p, d, _ in hits:
                k[t, min(t + d, line)] += p
    return np.linalg.matrix_power(k, rules.finish_attacks)


@dataclass(frozen=True)
class Walked:
    """The game's arrays and each state's components (one row per state, :data:`analysis.systems.tun.walk.NC`)."""

    game: Game
    comps: np.ndarray


def run_walk(p: Plan, guess: int) -> Walked:
    """The walk with room for ``guess`` states (an upper estimate: :func:`tactics_states`), retried with more room
    in the rare case it does not fit."""
    states, edges = guess, guess * 64
    packed = (p.side, p.post, p.prof, p.dptr, p.dd, p.dp, p.dhit, p.reach, p.aimkind, p.fin, p.rl)
    while True:
        comps, na, nb, opt, edge, to, prob, status = w._walk(packed, p.p_first, p.rad, states, edges,
                                                             w._table(states), w._table(edges // 64))
        if status == 0:
            break
        if states >= MAX_STATES:
            raise DicelabError(f"tun decision game: more than {MAX_STATES:,} states; allowed: smaller fighters "
                               "(or Monte Carlo: dicelab sim)")
        if status == 1:
            states = min(states * 2, MAX_STATES)
        edges *= 2
    n = comps.shape[0]
    phase = comps[:, w.PH]
    game = Game(na, nb, opt, edge, to, prob, np.zeros(n), phase == w.PH_TURN_L, np.zeros(n, dtype=np.int64),
                np.zeros(n, dtype=np.int64), 0)
    return Walked(game, comps)


def _decides(comps: np.ndarray, x: int) -> np.ndarray:
    """Whether side ``x`` decides at each state (both do at the stand before the fight; nobody at the start and
    the ends)."""
    phase = comps[:, w.PH]
    lead = comps[:, w.LEAD]
    decider = np.where(np.isin(phase, w.LEADER_PHASES), lead, 1 - lead)
    return (phase == w.PH_INIT) | ((decider == x) & ~np.isin(phase, (w.PH_START, w.PH_END)))


def _features(rules: Rules, comps: np.ndarray, x: int) -> np.ndarray:
    """The :data:`ALL_FEATURES` of side ``x`` at each state, one row per state."""
    own, opp = 5 + 6 * x, 5 + 6 * (1 - x)
    phase = comps[:, w.PH]
    base = np.where(np.isin(phase, w.AIMINGS), phase - 1, phase)
    moment = np.vectorize(lambda ph: MOMENTS.get(int(ph), -1), otypes=[np.int64])(base)
    moment += (base == w.PH_INIT) & (comps[:, w.LEAD] != x)
    n = rules.actions_per_turn
    short = n - rules.initiative_skip_cost * comps[:, w.RED]
    leads = np.isin(base, (w.PH_TURN_L, w.PH_POST_L, w.PH_POST_LD, w.PH_POST_LS))
    actions = np.select([base == w.PH_POST_FD, base == w.PH_POST_FC, np.isin(base, w.LAST_WORDS), leads],
                        [1, n - 1, rules.last_word_actions, short], n)
    coming = np.select([np.isin(base, (w.PH_TURN_L, w.PH_POST_L)), np.isin(base, (w.PH_TURN_FD, w.PH_POST_FD)),
                        base == w.PH_POST_LD], [n, short, n - 1], 0)
    cols = [comps[:, own + w.T], comps[:, opp + w.T], comps[:, own + w.DIS], comps[:, own + w.IMM],
            comps[:, own + w.STUN], comps[:, opp + w.DIS], comps[:, opp + w.IMM], comps[:, opp + w.STUN],
            1 - comps[:, own + w.NODEF], comps[:, own + w.MOV], 1 - comps[:, opp + w.NODEF], comps[:, opp + w.MOV],
            moment, actions, coming, comps[:, w.FIRST], comps[:, w.TMV]]
    return np.stack(cols, axis=1).astype(np.int64)


def book(walked: Walked, rules: Rules, x: int, f: Fighter) -> np.ndarray:
    """The action ``f``'s policy takes at each of side ``x``'s decision states (0 elsewhere): a leader delays iff
    its policy delays, a follower skips iff its policy skips and it is the first round; the policy's posture (also
    its stand before the fight and for its finishing attacks) and aim (also of its finishing attacks)."""
    comps = walked.comps
    phase = comps[:, w.PH]
    mine = _decides(comps, x)
    out = np.zeros(comps.shape[0], dtype=np.int64)
    out[mine & (phase == w.PH_TURN_L) & (f.turn_policy == "delay")] = 1
    skip = np.isin(phase, (w.PH_TURN_F, w.PH_TURN_FD)) & (comps[:, w.FIRST] == 1) & (f.turn_policy == "initiative_skip")
    out[mine & skip] = 2
    names = postures(f)
    stance = next(name for name, nodef, moving in POSTURES if nodef == (not f.defends) and moving == f.moving)
    out[mine & np.isin(phase, w.POSTS + (w.PH_INIT, w.PH_POST_FIN))] = names.index(stance)
    out[mine & np.isin(phase, w.AIMINGS + w.LAST_WORDS + (w.PH_AIM_FIN,))] = AIMS.index(f.aim)
    return out


def _strategy(game: Game, x: int, picks: np.ndarray) -> np.ndarray:
    offsets = game.a_offsets if x == 0 else game.b_offsets
    counts = np.diff(offsets)
    out = np.zeros(int(offsets[-1]))
    has = counts > 0
    out[offsets[:-1][has] + np.minimum(picks[has], counts[has] - 1)] = 1.0
    return out


def tactics(rules: Rules, a: Fighter, b: Fighter) -> DecisionGame:
    """The duel as a game of the decisions of RULES.md section 8 (see the module docstring); ``game.book_a`` and
    ``book_b`` are the fighters' policies, ``scripts`` plays any values of their policy fields."""
    check_reach(rules, {"A": a, "B": b})
    walked = run_walk(plan(rules, a, b), tactics_states(rules, a, b))
    comps = walked.comps
    fighters = (a, b)
    game = walked.game
    game = Game(game.na, game.nb, game.opt, game.edge, game.to, game.p, game.payoff, game.round_start,
                book(walked, rules, 0, a), book(walked, rules, 1, b), 0)
    phase = comps[:, w.PH]
    ends = np.flatnonzero(phase == w.PH_END)
    end_pairs = comps[ends][:, [5 + w.T, 11 + w.T]]
    decisions, states, features = [], [], []
    for x, side in enumerate("ab"):
        f = fighters[x]
        mine = _decides(comps, x)
        feats = _features(rules, comps, x)
        kinds = [("turn", TURN_POLICIES, w.TURNS, FEATURES), ("posture", postures(f), w.POSTS, FEATURES),
                 ("stand", postures(f), (w.PH_INIT,), STAND_FEATURES)]
        if f.ranged:
            kinds.append(("aim", AIMS, w.AIMINGS + w.LAST_WORDS, ALL_FEATURES))
        if rules.after_out == "finish":
            kinds.append(("finish_posture", postures(f), (w.PH_POST_FIN,), FINISH_FEATURES))
            if f.ranged:
                kinds.append(("finish_aim", AIMS, (w.PH_AIM_FIN,), FINISH_FEATURES + ("moving now",)))
        for name, actions, phases, names in kinds:
            where = np.flatnonzero(mine & np.isin(phase, phases))
            decisions.append(Decision(name, side, tuple(actions), tuple(names)))
            states.append(where)
            features.append(feats[where][:, [ALL_FEATURES.index(n) for n in names]])

    def scripts(side: str, policy: Mapping[str, Any]) -> np.ndarray:
        x = "ab".index(side)
        f = fighters[x].replace(**policy)
        if not f.defends and fighters[x].defends:
            raise DicelabError(f"defends = false is not a script of this game: fighter {side.upper()} defends, so "
                               "not defending is not offered (it only helps the attacker)")
        return _strategy(game, x, book(walked, rules, x, f))

    policies = {side: _policies(f) for side, f in zip("ab", fighters)}
    return DecisionGame(game, end_pairs, track(rules, a), track(rules, b), tuple(decisions), tuple(states),
                        tuple(features), scripts, policies)


def _policies(f: Fighter) -> dict[str, tuple[Any, ...]]:
    """The values of each policy field the game can play for ``f``."""
    return {"defends": (True, False) if not f.defends else (True,), "moving": (False, True),
            "aim": AIMS if f.ranged else ("none",), "turn_policy": TURN_POLICIES}


def tactics_states(rules: Rules, a: Fighter, b: Fighter) -> int:
    """An upper estimate of the decision game's states, without building it: the phases of the start and of a
    round times both fighters' up conditions (with their effects and postures), plus the last words, the
    finishing's posture and aim (``after_out = "finish"``), the stands before the fight and the ends.

    >>> tactics_states(Rules(), Fighter(body=3), Fighter(body=4))
    577
    """
    r = [radices(rules, f, o) for f, o in ((a, b), (b, a))]
    extra = [x["disarmed"] * x["immobilised"] * x["stunned"] * x["not defending"] * x["moving"] for x in r]
    up = [f.volume * e for f, e in zip((a, b), extra)]
    out = [(x["trauma"] - f.volume) * e for f, x, e in zip((a, b), r, extra)]
    aims = 1 + sum(int(f.ranged) for f in (a, b))
    phases = w.NPH - 1 - len(w.FINISHING)
    finishing = 3 if rules.after_out == "finish" else 0
    return int(2 * phases * up[0] * up[1] * aims + (1 + finishing) * (out[0] * up[1] + out[1] * up[0])
               + r[0]["trauma"] * r[1]["trauma"] + 3)
