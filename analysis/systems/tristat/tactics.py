"""The Tri-Stat duel as a game of decisions (RULES.md section 8): total defence or not each round, block or dodge.

Decisions, each taken knowing only what the rules let the decider know then:

- **stance** (each fighter, every round): ``normal`` or ``total_defence``
  («Тотальная защита»: the round's attack action given up for +2 on every defense
  check of the round).  The stance holds for the whole round, so it is declared
  when the round starts, once the initiative order is known and before any attack
  of the round: both fighters at once, a matrix game.  Features: own and the
  opponent's damage taken, the order (1: acts first, 0: together, -1: second),
  the defensive rounds so far, and the objects' state when one matters.
- **block** (a fighter with an object to block with, :func:`~analysis.systems.tristat.rules.can_block`):
  ``dodge`` or ``block``, after the attack hits (not a critical) and before the
  defense roll and the damage.  Features: own and the opponent's damage taken,
  own attack this round (-1 still to come, 0 none: total defence, 1 already
  made, 2/3/4 rolled together with this one: missed, hit, critical), the order
  (as for the stance; 0 when it cannot matter), the defensive rounds so far, and
  the opponent's object.

The round cap of total defence (``total_defence_rounds``) counts **defensive
rounds**: rounds in which a side makes no attack because it stands in total
defence; at the cap the fight ends with both still up (a stalemate, as in the
duel).  With a fighter held to ``stance = "total_defence"`` every round is
defensive, so the book's play is the duel's own.  The game's states and
probabilities are built by :mod:`analysis.systems.tristat.gamebuild` from the
exact engine's attack kernels.

>>> from analysis.systems.tristat.rules import Fighter, Rules
>>> from analysis.systems.tristat.duel import duel
>>> a = Fighter(body=2, mind=2, soul=2, weapon_damage=4)
>>> dg = tactics(Rules(), a, a)
>>> book = dg.solution(dg.game.book("a"), dg.game.book("b"))
>>> abs(book.p_a_wins - duel(Rules(), a, a).solution.p_a_wins) < 1e-12
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from analysis.base.lazy import LazyModule
from analysis.base.params import ParamError
from analysis.engine import markov
from analysis.systems.tristat.duel import initiative, total_defence_side
from analysis.systems.tristat.rules import (
    STANCES,
    Fighter,
    Outcome,
    Rules,
    attack_outcomes,
    branches,
    can_block,
    track,
    warnings,
)

BLOCK_ACTIONS = ("dodge", "block")
OWN_ATTACK = "own attack (-1 to come, 0 none, 1 made, 2 missed / 3 hits / 4 critical together)"
ORDER = "order (1 first, 0 together, -1 second)"

if TYPE_CHECKING:
    from analysis.engine.decisions import DecisionGame
    from analysis.engine.game import Game

gb = LazyModule("analysis.systems.tristat.gamebuild")
"""The compiled gamebuild (numba), loaded on first use: importing the system stays light."""


def tactics(rules: Rules, a: Fighter, b: Fighter) -> DecisionGame:
    """The duel of ``a`` and ``b`` at decision granularity; held to both fighters' policies it plays the duel
    (:func:`~analysis.systems.tristat.duel.duel`) number for number."""
    warnings(rules, a, b)
    total_defence_side(a, b)
    for f in (a, b):
        if f.extra_attacks:
            raise ParamError("extra_attacks", f.extra_attacks, "0 in a duel's decisions (the game has one attack a "
                             "round; a fighter with extra attacks fights in a group fight)", f"tristat fighter {f.name!r}")
    ta, tb = track(rules, a, b, decide=True), track(rules, b, a, decide=True)
    packed = _Packed(rules, a, b, ta, tb)
    game, meta = packed.game()
    return _decision_game(rules, a, b, ta, tb, packed, game, meta)


def tactics_states(rules: Rules, a: Fighter, b: Fighter) -> int:
    """An upper estimate of the game's states, without building it: its layout over every up condition (the
    builder keeps only those the start reaches)."""
    ta, tb = track(rules, a, b, decide=True), track(rules, b, a, decide=True)
    lay = _layout(rules, (a, b), int(ta.up.sum()), int(tb.up.sum()), len(ta), len(tb), can_block(b, a),
                  can_block(a, b))
    return int(lay[gb.L_N])


def _layout(rules: Rules, fighters: tuple[Fighter, Fighter], up_a: int, up_b: int, len_a: int, len_b: int,
            blocks_a: bool, blocks_b: bool) -> np.ndarray:
    """Where each kind of state starts (:mod:`gamebuild`'s layout array) for ``up_a`` and ``up_b`` up conditions
    of tracks of ``len_a`` and ``len_b`` conditions; ``blocks_x``: fighter x can block."""
    once = rules.initiative_once
    capped = total_defence_side(*fighters) is not None
    cap = rules.total_defence_rounds if capped else 1
    finish = rules.after_out == "finish"
    fa = rules.finish_attacks if finish else 0
    lay = np.full(gb.L_BASE + 3 * gb.N_GRID, -1, dtype=np.int64)
    lay[[gb.L_NA, gb.L_NB, gb.L_LA, gb.L_LB, gb.L_CAP, gb.L_FA, gb.L_ONCE, gb.L_FINISH, gb.L_CAPPED]] = \
        [up_a, up_b, len_a, len_b, cap, fa, once, finish, capped]
    exists = {gb.K_R: not once, gb.K_S: True, gb.K_MB: True, gb.K_MA: True, gb.K_AT: True, gb.K_BT: True,
              gb.K_MSIM: not (blocks_a or blocks_b), gb.K_DB1: blocks_b, gb.K_DB2: blocks_b, gb.K_DBTD: blocks_b,
              gb.K_DA1: blocks_a, gb.K_DA2: blocks_a, gb.K_DATD: blocks_a}
    for ra in range(3):
        for rb in range(3):
            exists[gb.K_TIE + 3 * ra + rb] = (ra == gb.R_HIT and blocks_b) or (rb == gb.R_HIT and blocks_a)
    at = 0
    for k in range(gb.N_GRID):
        orders = 3 if k == gb.K_S or (once and k in (gb.K_DATD, gb.K_DBTD, gb.K_AT, gb.K_BT)) else 1
        lay[gb.L_BASE + gb.N_GRID + k] = orders
        lay[gb.L_BASE + 2 * gb.N_GRID + k] = int(k == gb.K_MSIM)
        if exists[k]:
            lay[gb.L_BASE + k] = at
            at += orders * cap * up_a * (len_b if k == gb.K_MSIM else up_b)
    lay[gb.L_FB] = at
    lay[gb.L_FA_BASE] = at = at + fa * up_a * len_b
    lay[gb.L_END] = at = at + fa * up_b * len_a
    lay[gb.L_SINK] = at = at + len_a * len_b
    lay[gb.L_START] = at + 1
    lay[gb.L_N] = at + 1 + once
    return lay


class _Packed:
    """The attack kernels of both fighters as arrays for the builder, and the layout of the game's states."""

    def __init__(self, rules: Rules, a: Fighter, b: Fighter, ta: markov.Track, tb: markov.Track):
        self.rules, self.fighters, self.tracks = rules, (a, b), (ta, tb)
        size = max(len(ta), len(tb))
        kernels = [self._kernels(x) for x in range(2)]
        self.rolls = np.array([k[0] for k in kernels])
        rows = [r for k in kernels for r in k[1]]
        self.kptr = np.zeros((len(rows), size + 1), dtype=np.int64)
        idx: list[int] = []
        prob: list[float] = []
        for k, kernel_rows in enumerate(rows):
            self.kptr[k, 0] = len(idx)
            for y in range(size):
                for q, t in kernel_rows[y] if y < len(kernel_rows) else ():
                    idx.append(t), prob.append(q)
                self.kptr[k, y + 1] = len(idx)
        self.kidx, self.kp = np.asarray(idx, dtype=np.int64), np.asarray(prob, dtype=float)
        self.blockable = np.zeros((2, size), dtype=np.bool_)
        for x, (att, dfn) in enumerate(((a, b), (b, a))):
            t = self.tracks[1 - x]
            if can_block(att, dfn):
                self.blockable[x, :len(t)] = [t.status[k] == markov.UP and t.labels[k][1] is not False
                                              for k in range(len(t))]
        self.up = [self._reach(x) for x in range(2)]
        target = min(markov.LETHAL[rules.lethal_at], 3)
        self.done = [np.asarray(t.status) >= min(target, t.deepest) for t in self.tracks]

    def _kernels(self, x: int) -> tuple[list[float], list[list[list[tuple[float, int]]]]]:
        """Attacker ``x``'s (P(miss), P(hit, not critical), P(critical)) and its kernels in the order of
        :mod:`gamebuild` (critical, helpless, then dodge/block x normal/total defence), as rows of ``(p, next)``
        over the defender's track."""
        rules = self.rules
        att, dfn = self.fighters[x], self.fighters[1 - x]
        t = self.tracks[1 - x]
        plain = attack_outcomes(rules, att, dfn, "plain", "normal")
        miss = sum(o.p for o in plain if o.kind == "miss")
        crit = sum(o.p for o in plain if o.critical)
        hit = 1.0 - miss - crit
        crit_o = tuple(Outcome(o.p / crit, o.kind, o.damage, True) for o in plain if o.critical)
        up = [k for k in range(len(t)) if t.status[k] == markov.UP]

        def rows(outcomes: tuple[Outcome, ...] | None, labels: list[int]) -> list[list[tuple[float, int]]]:
            out: list[list[tuple[float, int]]] = [[] for _ in range(len(t))]
            for k in labels:
                merged: dict[int, float] = {}
                for br in branches(rules, att, dfn, t.labels[k], t, outcomes):
                    merged[br.condition] = merged.get(br.condition, 0.0) + br.p
                out[k] = [(q, z) for z, q in merged.items()]
            return out

        helpless = [k for k in range(len(t)) if markov.UP < t.status[k] < min(markov.LETHAL[rules.lethal_at],
                                                                                t.deepest)]
        kernels = [rows(crit_o, up) if crit > 0 else rows((), []), rows(None, helpless)]
        for defense in ("plain", "block"):
            for stance in STANCES:
                outs = attack_outcomes(rules, att, dfn, defense, stance)
                post = tuple(o._replace(p=o.p / hit) for o in outs if o.kind != "miss" and not o.critical)
                kernels.append(rows(post, up) if hit > 0 else rows((), []))
        return [miss, hit, crit], kernels

    def _reach(self, x: int) -> np.ndarray:
        """Fighter ``x``'s up conditions some play can reach from the fresh one, ascending."""
        t = self.tracks[x]
        attacker = 1 - x
        seen = {0}
        todo = [0]
        while todo:
            y = todo.pop()
            for k in range(gb.KERNELS):
                if k == gb.KN_HELPLESS:
                    continue
                kk = attacker * gb.KERNELS + k
                for r in range(self.kptr[kk, y], self.kptr[kk, y + 1]):
                    z = int(self.kidx[r])
                    if t.status[z] == markov.UP and z not in seen:
                        seen.add(z)
                        todo.append(z)
        return np.array(sorted(seen), dtype=np.int64)

    def layout(self) -> np.ndarray:
        ta, tb = self.tracks
        return _layout(self.rules, self.fighters, self.up[0].size, self.up[1].size, len(ta), len(tb),
                       bool(self.blockable[1].any()), bool(self.blockable[0].any()))

    def game(self) -> tuple[Game, np.ndarray]:
        """The game over the states the start reaches, and each state's ``meta`` row (:data:`gamebuild.META`)."""
        from analysis.engine.game import Game

        ta, tb = self.tracks
        lay = self.layout()
        posa = np.full(len(ta), -1, dtype=np.int64)
        posb = np.full(len(tb), -1, dtype=np.int64)
        posa[self.up[0]] = np.arange(self.up[0].size)
        posb[self.up[1]] = np.arange(self.up[1].size)
        orders = np.asarray(initiative(self.rules, *self.fighters))
        n = int(lay[gb.L_N])
        args = (lay, self.up[0], self.up[1], posa, posb, self.done[0], self.done[1], self.kptr, self.kidx, self.kp,
                self.rolls, self.blockable, orders)
        empty_i, empty_f = np.zeros(1, dtype=np.int64), np.zeros(1)
        n_opt, n_edge = gb._build(False, *args, empty_i, empty_i, empty_i, empty_i, empty_i, empty_f,
                                  np.zeros((1, gb.META), dtype=np.int64))
        na, nb = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        opt, edge = np.zeros(n + 1, dtype=np.int64), np.zeros(n_opt + 1, dtype=np.int64)
        to, p = np.zeros(n_edge, dtype=np.int64), np.zeros(n_edge)
        meta = np.zeros((n, gb.META), dtype=np.int64)
        gb._build(True, *args, na, nb, opt, edge, to, p, meta)
        start = int(lay[gb.L_START] if self.rules.initiative_once else lay[gb.L_BASE + gb.K_R])
        from analysis.engine.flow import marked  # compiled: loaded with the game, not at start-up

        seed = np.zeros(n, dtype=np.bool_)
        seed[start] = True
        keep = marked(edge[opt], to, seed)
        opt, edge, to, p = gb._keep(keep, na, nb, opt, edge, to, p)
        meta = meta[keep]
        kind = meta[:, 0]
        na, nb = na[keep], nb[keep]
        a, b = self.fighters
        book_a = np.where(kind == gb.K_S, int(a.stance == "total_defence"), int(a.block)) * (na > 1)
        book_b = np.where(kind == gb.K_S, int(b.stance == "total_defence"), int(b.block)) * (nb > 1)
        round_start = np.isin(kind, [gb.K_S if self.rules.initiative_once else gb.K_R, gb.M_SINK])
        game = Game(na, nb, opt, edge, to, p, np.zeros(na.size), round_start, book_a.astype(np.int64),
                    book_b.astype(np.int64), int(np.cumsum(keep)[start] - 1))
        return game, meta


def _decision_game(rules: Rules, a: Fighter, b: Fighter, ta: markov.Track, tb: markov.Track, packed: _Packed,
                   game: Game, meta: np.ndarray) -> DecisionGame:
    from analysis.engine.decisions import Decision, DecisionGame

    kind, order, rounds, la, lb = (meta[:, k] for k in range(5))
    taken_a = np.array([lab[0] if lab[0] != "out" else lab[1] for lab in ta.labels[:-1]] + [-1])[la]
    taken_b = np.array([lab[0] if lab[0] != "out" else lab[1] for lab in tb.labels[:-1]] + [-1])[lb]
    obj_a = np.array([int(isinstance(lab, tuple) and lab[1] is True) for lab in ta.labels])[la]
    obj_b = np.array([int(isinstance(lab, tuple) and lab[1] is True) for lab in tb.labels])[lb]
    objects = any(isinstance(lab, tuple) and lab[1] is not None for t in (ta, tb) for lab in t.labels)
    seen_order = np.array([1, 0, -1])[order]
    stance_states = np.flatnonzero(kind == gb.K_S)
    decisions, states, features = [], [], []
    for side, own, opp, own_obj, opp_obj, sign in (("a", taken_a, taken_b, obj_a, obj_b, 1),
                                                    ("b", taken_b, taken_a, obj_b, obj_a, -1)):
        s = stance_states
        cols = [own[s], opp[s], sign * seen_order[s], rounds[s]] + ([own_obj[s], opp_obj[s]] if objects else [])
        names = ["own damage taken", "opponent damage taken", ORDER, "defensive rounds so far"] + (
            ["own object intact", "opponent object intact"] if objects else [])
        decisions.append(Decision("stance", side, STANCES, tuple(names)))
        states.append(s)
        features.append(np.stack(cols, axis=1))
    for side, own, opp, opp_obj, sign in (("a", taken_a, taken_b, obj_b, 1), ("b", taken_b, taken_a, obj_a, -1)):
        s = np.flatnonzero((game.na > 1) if side == "a" else (game.nb > 1))
        s = s[kind[s] != gb.K_S]
        if not s.size:
            continue
        k = kind[s]
        own_attack = np.select(
            [np.isin(k, [gb.K_DA1, gb.K_DB1]), np.isin(k, [gb.K_DATD, gb.K_DBTD]), np.isin(k, [gb.K_DA2, gb.K_DB2])],
            [-1, 0, 1], 2 + _own_roll(k, side))
        seen = np.where(np.isin(k, [gb.K_DATD, gb.K_DBTD]) & ~rules.initiative_once, 0, sign * seen_order[s])
        cols = [own[s], opp[s], own_attack, seen, rounds[s]] + ([opp_obj[s]] if objects else [])
        names = ["own damage taken", "opponent damage taken", OWN_ATTACK, ORDER, "defensive rounds so far"] + (
            ["opponent object intact"] if objects else [])
        decisions.append(Decision("block", side, BLOCK_ACTIONS, tuple(names)))
        states.append(s)
        features.append(np.stack(cols, axis=1))
    ends = np.stack([la, lb], axis=1)[game.ends]
    policies = {side: {"stance": STANCES, **({"block": (False, True)} if packed.blockable[1 - x].any() else {})}
                for x, side in enumerate("ab")}

    def scripts(side: str, policy: Mapping[str, Any]) -> np.ndarray:
        """The strategy of ``side``'s fighter with the policy fields ``policy``."""
        f = (a if side == "a" else b).replace(**dict(policy))
        mine = (game.na > 1) if side == "a" else (game.nb > 1)
        pick = np.where(kind == gb.K_S, int(f.stance == "total_defence"), int(f.block)) * mine
        offsets = game.a_offsets if side == "a" else game.b_offsets
        out = np.zeros(int(offsets[-1]))
        has = offsets[1:] > offsets[:-1]
        out[offsets[:-1][has] + pick[has]] = 1.0
        return out

    return DecisionGame(game, ends, ta, tb, tuple(decisions), tuple(states), tuple(features), scripts, policies)


def _own_roll(kind: np.ndarray, side: str) -> np.ndarray:
    """The decider's own attack roll in a moment of equal initiative (0 miss, 1 hit, 2 critical)."""
    tie = np.clip(kind - gb.K_TIE, 0, None)
    return tie // 3 if side == "a" else tie % 3

