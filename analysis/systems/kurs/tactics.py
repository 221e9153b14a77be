"""К.У.Р.С.'s duel as a game of decisions (RULES.md section 8): the stance at each turn, the effort dodge once the
hit is known, a luck token once the rolls are known.

:func:`tactics` builds the :class:`~analysis.engine.decisions.DecisionGame`
from the compiled walk of :mod:`~analysis.systems.kurs.walk`.  Each decision
knows both fighters' conditions (boxes, luck tokens, a surprise to come) and
whether its fighter opened the round; the stance also knows the other's
stance in force, the luck moment the margin (how far the check fails), who
attacks, the attacker's stance, whether the attack is one-sided and whether
the other side has spent; the dodge the level the hit would mark and whether
a fatigue box soaks it.  Never a die not yet rolled.  Held to both
fighters' policies it is the duel of :func:`~analysis.systems.kurs.duel.duel`,
number for number.

Readings where section 8 is silent (docs/rules/kurs.md, "Decisions"):

- a stance is declared at the start of its fighter's turn and holds until its
  next; before its first turn a fighter stands normal; a trade it cannot pay
  (``trade_cost = fatigue``, no free box) is a plain turn;
- the dodge is offered when the hit would mark a wound box (light or
  heavier) and the fatigue is there (dodging a fatigue box with a fatigue box
  changes nothing); never against a one-sided attack;
- luck is offered when RULES.md lets a token be spent: a check failing by
  1..``luck_bonus`` (the book spends it); the other may then answer;
- finishing attacks (``after_out = "finish"``) are no decision: the winner
  attacks with the stance in force and the penalty of the moment the other
  went out, as in the duel.

>>> from analysis.systems.kurs.duel import duel
>>> f = Fighter(attack_skill=1, weapon=2)
>>> dg = tactics(Rules(), f, f)
>>> sol = dg.solution(dg.game.book("a"), dg.game.book("b"))
>>> abs(sol.p_a_wins - duel(Rules(), f, f).solution.p_a_wins) < 1e-12
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from analysis.base.params import DicelabError
from analysis.engine.decisions import Decision, DecisionGame
from analysis.engine.game import Game
from analysis.engine.markov import UP
from analysis.systems.kurs import walk as w
from analysis.systems.kurs.chain import helpless_matrix, settle, side
from analysis.systems.kurs.duel import first_attack
from analysis.systems.kurs.rules import (
    DODGE_FROM,
    DODGES,
    DYING,
    FATIGUE,
    INCAPACITATED,
    STANCES,
    Fighter,
    Rules,
    clamp_defense,
    dice,
)
from analysis.systems.kurs.track import Condition, Turn, defended, fresh, penalty, status_of, take_hit, turn

LUCK_ACTIONS = ("keep", "spend")
DODGE_ACTIONS = ("take", "dodge")
COMMON = ("own fatigue", "own light", "own medium", "own heavy", "own luck tokens", "own surprise to come",
          "opponent fatigue", "opponent light", "opponent medium", "opponent heavy", "opponent luck tokens",
          "opponent surprise to come", "opens the round")
"""What every decider knows: the boxes marked per level of both tracks, the tokens, a surprise attack still to
come, and whether its fighter attacks first in each round."""
STANCE_FEATURES = COMMON + ("opponent stance",)
"""... and the other's stance in force (0 normal, 1 offensive, 2 defensive, 3 no defense)."""
LUCK_FEATURES = COMMON + ("attacking", "fails by", "attacker stance", "one-sided", "other spent")
DODGE_FEATURES = COMMON + ("hit marks", "soaked", "attacker stance")
"""``hit marks``: the level the hit would mark (1 light ... 5 dying); ``soaked``: a fatigue box soaks part of it."""
MAX_STATES = 20_000_000
"""The walk's backstop (the budget refuses far earlier)."""


@dataclass(frozen=True)
class Plan:
    """The packed arrays of :func:`analysis.systems.kurs.walk._walk` for one ruleset and two fighters, and each
    side's track labels."""

    packed: tuple
    p_first: np.ndarray
    fresh: np.ndarray
    dims: np.ndarray
    labels: tuple[tuple[Any, ...], tuple[Any, ...]]


def track_of(rules: Rules, who: str) -> Any:
    """Fighter ``who``'s track in the game: its conditions as a ``normal`` fighter's (the stance is apart)."""
    return side(rules, "normal", rules.surprise == who).track


def _pad(arrays: list[np.ndarray], fill: Any = 0) -> np.ndarray:
    """Stack per-side arrays, padding each axis to the larger side."""
    shape = tuple(max(a.shape[k] for a in arrays) for k in range(arrays[0].ndim))
    out = np.full((len(arrays),) + shape, fill, dtype=arrays[0].dtype)
    for i, a in enumerate(arrays):
        out[(i,) + tuple(slice(0, n) for n in a.shape)] = a
    return out


def plan(rules: Rules, a: Fighter, b: Fighter) -> Plan:
    """Every rule of the duel as arrays over each fighter's conditions (see :mod:`analysis.systems.kurs.walk`)."""
    fighters = (a, b)
    cap = rules.damage_table[DYING] + rules.soak_points
    defmod = np.array([0, -rules.trade_bonus, rules.trade_bonus, 0], dtype=np.int64)
    per: dict[str, list[np.ndarray]] = {k: [] for k in ("nup", "ntot", "turn_after", "turn_mod", "turn_stance",
                                                        "first", "tok", "pen", "spend", "hit", "lvl", "soak",
                                                        "dodge", "fin_shift")}
    labels = []
    for x, who in enumerate("ab"):
        f = fighters[x]
        track = track_of(rules, who)
        labels.append(track.labels)
        index = track.index
        up = [c for c in track.labels if status_of(c) == UP]
        n = len(up)
        tt = np.zeros((3, n, len(STANCES)), dtype=np.int64)
        fin_shift = np.zeros((n, len(STANCES)), dtype=np.int64)
        hit, lvl, soak = (np.zeros((n, cap + 1), dtype=np.int64) for _ in range(3))
        for i, c in enumerate(up):
            for s, stance in enumerate(STANCES):
                t, after = turn(rules, stance, c)
                tt[:, i, s] = index[after._replace(active=False)], t.mod, s if after.active else 0
                fin_shift[i, s] = t.mod - t.penalty
            for d in range(cap + 1):
                _, level, soaked, _ = take_hit(rules, c.boxes, d, "never")
                hit[i, d] = index[defended(rules, f, c, d, False, True)[0]]
                lvl[i, d], soak[i, d] = -1 if level is None else level, soaked
        dodged = [take_hit(rules, c.boxes, cap, "wound") for c in up]
        per["nup"].append(np.array([n])), per["ntot"].append(np.array([len(track)]))
        for k, v in zip(("turn_after", "turn_mod", "turn_stance"), tt):
            per[k].append(v)
        per["first"].append(np.array([c.first for c in up], dtype=np.int64))
        per["tok"].append(np.array([c.tokens for c in up], dtype=np.int64))
        per["pen"].append(np.array([penalty(rules, c.boxes) for c in up], dtype=np.int64))
        per["spend"].append(np.array([index[c._replace(tokens=c.tokens - 1)] if c.tokens else -1 for c in up],
                                     dtype=np.int64))
        per["hit"].append(hit), per["lvl"].append(lvl), per["soak"].append(soak)
        per["dodge"].append(np.array([index[Condition(h[0], c.tokens, False, c.first)] if h[3] else -1
                                      for c, h in zip(up, dodged)], dtype=np.int64))
        per["fin_shift"].append(fin_shift)
    nup = np.array([v[0] for v in per["nup"]], dtype=np.int64)
    ntot = np.array([v[0] for v in per["ntot"]], dtype=np.int64)
    fin_id, fin = _finishing(rules, fighters, per["fin_shift"], nup, ntot)
    two = dice(rules) - dice(rules).map(lambda v: clamp_defense(rules, v))
    one = dice(rules)
    skills = np.array([[f.attack_skill, f.defense_skill + f.shield] for f in fighters], dtype=np.int64)
    lo, hi = _margin_range(rules, per, skills, defmod, two, one)
    dmg = np.array([[settle(rules, fighters[x], fighters[1 - x], m, False, False).damage for m in range(lo, hi + 1)]
                    for x in range(2)], dtype=np.int64)
    stacked = {k: _pad(per[k], -1 if k in ("spend", "dodge") else 0) for k in per if k not in ("nup", "ntot")}
    packed = (nup, ntot, stacked["turn_after"], stacked["turn_mod"], stacked["turn_stance"], stacked["first"],
              stacked["tok"], stacked["pen"], stacked["spend"], stacked["hit"], stacked["lvl"], stacked["soak"],
              stacked["dodge"], fin_id, fin, dmg, int(lo), int(cap), int(rules.luck_bonus),
              int(rules.after_out == "finish"), two.support.astype(np.int64), two.p.astype(float),
              one.support.astype(np.int64), one.p.astype(float), skills, defmod)
    p_a = first_attack(rules, a, b)
    starts = np.array([track_of(rules, who).index[fresh(rules, rules.surprise == who)] for who in "ab"],
                      dtype=np.int64)
    dims = np.array([ntot[0], ntot[1], hi - lo + 1, ntot.max()], dtype=np.int64)
    return Plan(packed, np.array([p_a, 1.0 - p_a]), starts, dims, (labels[0], labels[1]))


def _finishing(rules: Rules, fighters: tuple[Fighter, Fighter], shifts: list[np.ndarray], nup: np.ndarray,
               ntot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per winner, each of its up conditions and stances in force: which finishing operator it plays
    (``fin_id``), and the operators (``fin[x, k]``: the victim's out conditions to its final ones after
    ``finish_attacks`` one-sided attacks made at that shift, stopping at dying)."""
    ids, mats = [], []
    for x, who in enumerate("ab"):
        victim, vwho = fighters[1 - x].replace(stance="normal", effort_dodge="never"), "ba"[x]
        distinct = np.unique(shifts[x]) if rules.after_out == "finish" else np.zeros(1, dtype=np.int64)
        ids.append(np.searchsorted(distinct, shifts[x]).astype(np.int64))
        block = []
        for shift in distinct:
            k = helpless_matrix(rules, fighters[x], victim, vwho, Turn(False, int(shift), 0, False))
            out = slice(int(nup[1 - x]), int(ntot[1 - x]))
            block.append(np.linalg.matrix_power(k[out, out].toarray(), rules.finish_attacks)
                         if rules.after_out == "finish" else np.zeros((1, 1)))
        mats.append(np.stack(block))
    return _pad(ids), _pad(mats, 0.0)


def _margin_range(rules: Rules, per: dict[str, list[np.ndarray]], skills: np.ndarray, defmod: np.ndarray,
                  two: Any, one: Any) -> tuple[int, int]:
    """The least and the greatest margin an attack can have, luck included."""
    lo, hi = [], []
    for x in range(2):
        y = 1 - x
        attack = skills[x, 0] + per["turn_mod"][x] - per["pen"][x][per["turn_after"][x]]
        defense = skills[y, 1] + defmod[:3][None, :] - per["pen"][y][:, None]
        lo += [two.min + attack.min() - defense.max(), one.min + attack.min()]
        hi += [two.max + attack.max() - defense.min(), one.max + attack.max()]
    return int(min(lo)) - rules.luck_bonus, int(max(hi)) + rules.luck_bonus


def deciders(comps: np.ndarray) -> np.ndarray:
    """The side deciding at each state (0 A, 1 B; -1 nobody)."""
    kind, mover = comps[:, w.KIND], comps[:, w.MOVER]
    defender = (comps[:, w.FLAGS] & w.F_DEFENDER) != 0
    out = np.full(kind.size, -1, dtype=np.int64)
    out[kind == w.K_TURN] = mover[kind == w.K_TURN]
    luck = kind == w.K_LUCK
    out[luck] = np.where(defender[luck], 1 - mover[luck], mover[luck])
    out[kind == w.K_DODGE] = 1 - mover[kind == w.K_DODGE]
    return out


def picks(comps: np.ndarray, x: int, f: Fighter) -> np.ndarray:
    """The action ``f``'s policies take at each of side ``x``'s decision states (0 elsewhere): its stance, a
    token spent whenever the rules let it be, the dodge as ``effort_dodge`` says."""
    kind = comps[:, w.KIND]
    mine = deciders(comps) == x
    out = np.zeros(kind.size, dtype=np.int64)
    out[mine & (kind == w.K_TURN)] = STANCES.index(f.stance)
    out[mine & (kind == w.K_LUCK)] = 1
    if f.effort_dodge != "never":
        out[mine & (kind == w.K_DODGE) & (comps[:, w.MARGIN] >= DODGE_FROM[f.effort_dodge])] = 1
    return out


def _strategy(game: Game, x: int, chosen: np.ndarray) -> np.ndarray:
    offsets = game.a_offsets if x == 0 else game.b_offsets
    out = np.zeros(int(offsets[-1]))
    has = np.diff(offsets) > 0
    out[offsets[:-1][has] + chosen[has]] = 1.0
    return out


def features(labels: tuple[Any, ...], comps: np.ndarray, x: int, names: tuple[str, ...], rows: np.ndarray) -> np.ndarray:
    """The features ``names`` of side ``x`` at the states ``rows`` (one row each)."""
    c = comps[rows]
    own, opp = (c[:, w.CA], c[:, w.CB]) if x == 0 else (c[:, w.CB], c[:, w.CA])
    tracks = [_condition_table(lab) for lab in labels]
    mover = c[:, w.MOVER]
    cols = {"opens the round": (c[:, w.ORDER] == x).astype(np.int64),
            "opponent stance": c[:, w.STANCE], "attacker stance": c[:, w.STANCE],
            "attacking": (mover == x).astype(np.int64), "one-sided": ((c[:, w.FLAGS] & w.F_ONE_SIDED) != 0) * 1,
            "fails by": c[:, w.MARGIN], "hit marks": c[:, w.MARGIN], "soaked": c[:, w.FLAGS],
            "other spent": np.where(mover == x, (c[:, w.FLAGS] & w.F_SPENT_DEF) != 0,
                                    (c[:, w.FLAGS] & w.F_SPENT_ATT) != 0).astype(np.int64)}
    for who, conds, table in (("own", own, tracks[x]), ("opponent", opp, tracks[1 - x])):
        for k, level in enumerate(("fatigue", "light", "medium", "heavy")):
            cols[f"{who} {level}"] = table[conds, k]
        cols[f"{who} luck tokens"] = table[conds, 4]
        cols[f"{who} surprise to come"] = table[conds, 5]
    return np.stack([cols[n] for n in names], axis=1).astype(np.int64)


def _condition_table(labels: tuple[Any, ...]) -> np.ndarray:
    """Per condition: boxes of fatigue, light, medium, heavy, luck tokens, surprise to come (0 past up)."""
    return np.array([[*c.boxes[:INCAPACITATED], c.tokens, int(c.first)] if status_of(c) == UP else [0] * 6
                     for c in labels], dtype=np.int64)


def run_walk(p: Plan, guess: int) -> tuple[np.ndarray, Game]:
    """The walk's states and their game (no payoff, no book yet)."""
    comps, na, nb, opt, edge, to, prob = w._walk(p.packed, p.p_first, p.fresh, p.dims, int(guess))
    if comps.shape[0] > MAX_STATES:
        raise DicelabError(f"kurs decision game: more than {MAX_STATES:,} states; allowed: shorter tracks or fewer "
                           "luck tokens (or Monte Carlo: dicelab sim)")
    kind = comps[:, w.KIND]
    round_start = (kind == w.K_TURN) & (comps[:, w.MOVER] == comps[:, w.ORDER])
    zeros = np.zeros(kind.size, dtype=np.int64)
    return comps, Game(na, nb, opt, edge, to, prob, np.zeros(kind.size), round_start, zeros, zeros, 0)


def tactics(rules: Rules, a: Fighter, b: Fighter) -> DecisionGame:
    """The duel as a game of the decisions of RULES.md section 8 (see the module docstring); ``game.book_a`` and
    ``book_b`` are the fighters' policies, ``scripts`` plays any values of their policy fields."""
    p = plan(rules, a, b)
    comps, game = run_walk(p, min(tactics_states(rules, a, b), 1 << 18))
    fighters = (a, b)
    game = Game(game.na, game.nb, game.opt, game.edge, game.to, game.p, game.payoff, game.round_start,
                picks(comps, 0, a), picks(comps, 1, b), 0)
    kind = comps[:, w.KIND]
    ends = comps[kind == w.K_END][:, [w.CA, w.CB]].astype(np.int64)
    who = deciders(comps)
    decisions, states, feats = [], [], []
    for x, side_name in enumerate("ab"):
        for name, actions, k, names in (("stance", STANCES, w.K_TURN, STANCE_FEATURES),
                                        ("dodge", DODGE_ACTIONS, w.K_DODGE, DODGE_FEATURES),
                                        ("luck", LUCK_ACTIONS, w.K_LUCK, LUCK_FEATURES)):
            rows = np.flatnonzero((who == x) & (kind == k))
            if rows.size or name == "stance":
                decisions.append(Decision(name, side_name, actions, names))
                states.append(rows)
                feats.append(features(p.labels, _relative(comps, p), x, names, rows))

    def scripts(side_name: str, policy: Mapping[str, Any]) -> np.ndarray:
        x = "ab".index(side_name)
        return _strategy(game, x, picks(comps, x, fighters[x].replace(**policy)))

    policies = {s: {"stance": STANCES, "effort_dodge": DODGES} for s in "ab"}
    return DecisionGame(game, ends, track_of(rules, "a"), track_of(rules, "b"), tuple(decisions), tuple(states),
                        tuple(feats), scripts, policies)


def _relative(comps: np.ndarray, p: Plan) -> np.ndarray:
    """The states with a luck moment's margin as the distance the failing check misses by."""
    out = comps.copy()
    luck = out[:, w.KIND] == w.K_LUCK
    out[luck, w.MARGIN] = np.abs(out[luck, w.MARGIN] + p.packed[w.P_LO])
    return out


def tactics_states(rules: Rules, a: Fighter, b: Fighter) -> int:
    """An upper estimate of the decision game's states, without building it: both orders of the round, each
    mover's turns over both fighters' up conditions and the other's stance; the luck and dodge moments; the ends.

    >>> tactics_states(Rules(), Fighter(), Fighter())
    533042
    """
    n = [sum(1 for c in track_of(rules, who).labels if status_of(c) == UP) for who in "ab"]
    total = [len(track_of(rules, who)) for who in "ab"]
    stances = len(STANCES)
    turns = 2 * 2 * n[0] * n[1] * stances
    dodgeable = [sum(1 for c in track_of(rules, who).labels if status_of(c) == UP
                     and rules.track[FATIGUE] - c.boxes[FATIGUE] >= rules.dodge_fatigue) for who in "ab"]
    levels = 2 * (DYING - FATIGUE)
    dodges = 2 * stances * levels * (n[0] * dodgeable[1] + n[1] * dodgeable[0])
    lucky = 2 * stances * 4 * rules.luck_bonus * n[0] * n[1] if rules.luck_tokens else 0
    return int(1 + turns + dodges + lucky + total[0] * total[1])
