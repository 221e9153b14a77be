"""К.У.Р.С.'s duel as a game of decisions (RULES.md section 8): the stance at the start of each turn, the effort
dodge once a hit is known, a luck token once the rolls are known (and the winner's stance for its finishing
attacks under ``after_out = "finish"``).

:func:`tactics` walks the duel from its start at decision granularity, breadth first, in compiled code
(:func:`_explore`) that reads tables made by the exact chain's own rules (:mod:`~analysis.systems.kurs.track`,
:mod:`~analysis.systems.kurs.chain`; :class:`_Tables`):

- **stance** (the mover, at the start of its own turn): ``normal``, ``offensive``, ``defensive`` or
  ``no_defense``; it holds until the mover's next turn (before its first a fighter stands ``normal``), a trade
  priced as ``trade_cost`` says (no free fatigue box: that turn is plain).  The mover knows both conditions, the
  luck tokens, the surprise still to come, the opponent's stance in force and whether it opens the round
  (:data:`TURN_FEATURES`).
- **luck** (the side whose check fails by 1..``luck_bonus``, once both rolls are known): ``keep`` or
  ``spend`` a token (+``luck_bonus``); the other may answer alike; one per side per attack; never on a tie
  (:data:`LUCK_FEATURES`: also by how much it fails, whether it attacks, the attacker's stance, whether the
  other already spent, whether the attack is one-sided).
- **dodge** (the defender, once the hit is known, when ``dodge_fatigue`` fatigue boxes are free and the attack
  is not one-sided): ``take`` the hit or ``dodge`` it by marking those boxes (:data:`DODGE_FEATURES`: also the
  level the hit would mark and whether a fatigue box would soak it).
- **finish_stance** (``after_out = "finish"``: the winner, as its finishing attacks begin): the stance whose
  modifier and penalty its one-sided attacks on the helpless loser carry (:data:`FINISH_FEATURES`).

A state holds only what changes what follows: at the mover's turn (and at a dodge or a luck token of the defender,
whose next turn comes before its stance is read again) its own stance in force is dropped.  Held to both
fighters' policies (the stance of their sheets at every turn, the dodge of ``effort_dodge``, a token spent
whenever it can be) it is the duel of :func:`~analysis.systems.kurs.duel.duel`, number for number; a script
(:attr:`~analysis.engine.decisions.DecisionGame.scripts`, also ``luck = "keep"``) is the duel of the fighter
with that policy.

>>> from analysis.systems.kurs.duel import duel
>>> a, b = Fighter(attack_skill=2, weapon=3), Fighter(defense_skill=1, armor=2)
>>> dg = tactics(Rules(), a, b)
>>> book = dg.solution(dg.game.book("a"), dg.game.book("b"))
>>> abs(book.p_a_wins - duel(Rules(), a, b).solution.p_a_wins) < 1e-12
True
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from itertools import product
from typing import Any, Mapping

import numpy as np
from numba import njit

from analysis.base.params import DicelabError
from analysis.engine import markov
from analysis.engine.decisions import Decision, DecisionGame
from analysis.engine.store import _grown, _hash, _rehash
from analysis.engine.game import Game
from analysis.systems.kurs.chain import margins, settle
from analysis.systems.kurs.duel import first_attack
from analysis.systems.kurs.rules import (
    DODGE_FROM,
    DODGES,
    DYING,
    FATIGUE,
    INCAPACITATED,
    LEVELS,
    STANCES,
    TRADES,
    Fighter,
    Rules,
    dice,
)
from analysis.systems.kurs.track import DEAD_END, Condition, conditions, defended, mark, penalty, status_of, turn

NORMAL, OFFENSIVE, DEFENSIVE, NO_DEFENSE = range(len(STANCES))
LUCK_ACTIONS = ("keep", "spend")
DODGE_ACTIONS = ("take", "dodge")
LUCK_SCRIPTS = ("spend", "keep")
"""The luck scripts: a token spent whenever a check fails by 1..luck_bonus (the duel's), or never."""
BOXES = ("fatigue", "light", "medium", "heavy")
OWN = tuple(f"own {x}" for x in BOXES)
OPP = tuple(f"opponent {x}" for x in BOXES)
TURN_FEATURES = OWN + ("own tokens", "own surprise") + OPP + ("opponent tokens", "opponent stance",
                                                            "opponent surprise", "opens the round")
"""What the mover knows at the start of its turn: both fighters' marked boxes, luck tokens and surprise to come,
the opponent's stance in force (index into STANCES) and whether it opens the round."""
LUCK_FEATURES = OWN + ("own tokens", "own surprise") + OPP + ("opponent tokens", "opponent surprise",
                                                             "opens the round", "attacking", "attacker stance",
                                                             "fails by", "other spent", "one-sided")
"""What the side failing a check knows once the rolls are known: as at a turn, whether it attacks, the attacker's
stance in force, by how much its check fails, whether the other has spent a token on this attack, and whether the
attack is one-sided."""
DODGE_FEATURES = OWN + ("own tokens", "own surprise") + OPP + ("opponent tokens", "opponent stance",
                                                             "opens the round", "level", "soaked")
"""What the defender knows once the hit is known: as at a turn (its boxes before the hit), the level the hit
would mark (index into LEVELS) and whether a fatigue box would soak part of it."""
FINISH_FEATURES = OWN + ("opponent incapacitated",) + OPP
"""What the winner knows as its finishing attacks begin: its boxes and the helpless loser's."""


_FEATURES = {"stance": TURN_FEATURES, "luck": LUCK_FEATURES, "dodge": DODGE_FEATURES, "finish_stance": FINISH_FEATURES}
_ACTIONS = {"stance": STANCES, "luck": LUCK_ACTIONS, "dodge": DODGE_ACTIONS, "finish_stance": STANCES}
MAX_STATES = 2_000_000
"""A walk past this many states stops with a one-line error (callers estimate first: :func:`tactics_states`)."""
_UP = markov.UP


@lru_cache(maxsize=64)
def track(rules: Rules) -> markov.Track:
    """The conditions the game's ends are read on: marked boxes and tokens while up, the out ones, dying."""
    labels = conditions(rules, "normal", False)
    return markov.Track(labels=labels, status=tuple(status_of(c) for c in labels))


# ------------------------------------------------------------------ the tables the compiled walk reads
START, TURN, LUCK, DODGE, FINISH, END = range(6)
"""State kinds; a state is one integer ``kind + 8 * payload`` (:func:`_fields` reads it back)."""
_KINDS = 8


class _Tables:
    """Every number the compiled walk (:func:`_explore`) reads, from the rules' own functions: a fighter up is one
    integer ``((boxes * (tokens_max + 1) + tokens) * 4 + stance) * 2 + surprise``, ``boxes`` the index of its marked
    boxes below incapacitated (fatigue the slowest digit); the ends are the track labels (:func:`track`)."""

    def __init__(self, rules: Rules, a: Fighter, b: Fighter):
        r = self.rules = rules
        self.f = (a, b)
        self.radix4 = np.array([n + 1 for n in r.track[:INCAPACITATED]], dtype=np.int64)
        self.boxes4 = np.array(list(product(*(range(n) for n in self.radix4))), dtype=np.int64).reshape(-1, 4)
        self.index4 = {tuple(int(v) for v in bx): k for k, bx in enumerate(self.boxes4)}
        boxes6 = list(product(*(range(n + 1) for n in r.track)))
        self.index6 = {bx: k for k, bx in enumerate(boxes6)}
        t = self.track = track(r)
        n4, t1 = len(self.boxes4), r.luck_tokens + 1
        self.lab_up = np.array([[t.index[Condition((*bx, 0, 0), k)] for k in range(t1)] for bx in self.index4],
                               dtype=np.int64)
        self.status = np.array(t.status, dtype=np.int64)
        self.lab_b4 = np.array([self.index4[tuple(c.boxes[:4])] if c != DEAD_END else 0 for c in t.labels],
                               dtype=np.int64)
        self.lab_inc = np.array([c.boxes[INCAPACITATED] if c != DEAD_END else 0 for c in t.labels], dtype=np.int64)
        self.a6_dying = np.array([bx[DYING] > 0 for bx in boxes6], dtype=np.bool_)
        self.a6_label = np.array([t.index.get(Condition(bx), -1) if bx[INCAPACITATED] and not bx[DYING] else -1
                                  for bx in boxes6], dtype=np.int64)
        self.a6_b4 = np.array([self.index4[bx[:4]] for bx in boxes6], dtype=np.int64)
        self._turns()
        self._rolls()
        self._marks()
        self._finish()
        self.dead = t.index[DEAD_END]
        nu = n4 * t1 * 8
        widest = max(12 * len(boxes6), 8 * (2 * r.luck_bonus + 1))  # a dodge's payload past both fighters, a luck's
        if _KINDS * 4 * nu * nu * widest >= 2 ** 62:
            raise DicelabError("kurs decision game: the track and luck tokens make too many states to number")
        self.ints = np.array([t1, len(t.labels), r.luck_tokens, r.luck_bonus, r.track[FATIGUE], r.dodge_fatigue,
                              int(self.radix4[1:].prod()), self.mlo, int(r.after_out == "finish"),
                              min(markov.LETHAL[r.lethal_at], markov.DYING), self.dead, nu, len(boxes6),
                              "ab".index(r.surprise) if r.surprise in ("a", "b") else -1, len(self.fin_mods),
                              self.shlo], dtype=np.int64)
        """The walk's numbers: tokens + 1, labels, luck tokens and bonus, fatigue boxes, a dodge's boxes, the
        fatigue digit's stride, the lowest margin in ``dmg``, finishing, the lethal status, the dying label, fighters
        up, boxes on six levels, the surprising side (-1: none), finishing modifiers, the lowest shift of an attack."""
        self.mm, self.mp, self.mn = _merged(self.rm, self.rp, self.rn, self.ints, self.dmg, self.mark_a6,
                                            self.mark_lvl, self.mark_soak, self.n_shift, n4)

    def _turns(self) -> None:
        """A turn in each stance from each boxes and surprise: (stance held, boxes after, its attack's shift, one-sided);
        the shift a defender's stance in force and boxes add to an attack it may defend."""
        r, n4 = self.rules, len(self.boxes4)
        shape = (len(STANCES), n4, 2)
        self.held, self.after, self.shift = (np.zeros(shape, dtype=np.int64) for _ in range(3))
        self.one = np.zeros(shape, dtype=np.bool_)
        for st, name in enumerate(STANCES):
            for b, bx in enumerate(self.boxes4):
                for first in (0, 1):
                    tn, after = turn(r, name, Condition((*bx, 0, 0), 0, False, bool(first)))
                    self.held[st, b, first] = st if after.active else NORMAL
                    self.after[st, b, first] = self.index4[tuple(after.boxes[:4])]
                    self.shift[st, b, first] = tn.mod - tn.penalty
                    self.one[st, b, first] = tn.one_sided
        self.adj = np.array([(-r.trade_bonus if s == "defensive" else r.trade_bonus) if s in TRADES else 0
                             for s in STANCES], dtype=np.int64)
        self.pen = np.array([penalty(r, (*bx, 0, 0)) for bx in self.boxes4], dtype=np.int64)

    def _rolls(self) -> None:
        """Each side's attack rolls (margin before modifiers, p), opposed and one-sided; the damage of every margin
        a turn can reach (or a luck token move to)."""
        r = self.rules
        rolls = [[(dice(r) + self.f[x].attack_skill) if one else margins(r, self.f[x], self.f[1 - x])
                  for one in (False, True)] for x in (0, 1)]
        width = max(int((m.p > 0).sum()) for side in rolls for m in side)
        self.rm, self.rp = np.zeros((2, 2, width), dtype=np.int64), np.zeros((2, 2, width))
        self.rn = np.zeros((2, 2), dtype=np.int64)
        for x in (0, 1):
            for one, m in enumerate(rolls[x]):
                keep = m.p > 0
                k = self.rn[x, one] = int(keep.sum())
                self.rm[x, one, :k], self.rp[x, one, :k] = m.support[keep], m.p[keep]
        self.shlo = int(self.shift.min()) + min(0, int(self.adj.min()))
        shhi = int(self.shift.max()) + max(0, int(self.adj.max())) + int(self.pen.max())
        self.n_shift = shhi - self.shlo + 1
        bonus = r.luck_bonus
        self.mlo = min(int(self.rm[self.rp > 0].min()) + self.shlo, -2 * bonus)
        mhi = max(int(self.rm[self.rp > 0].max()) + shhi, 2 * bonus)
        self.dmg = np.array([[self.damage(x, m) for m in range(self.mlo, mhi + 1)] for x in (0, 1)], dtype=np.int64)

    def damage(self, x: int, margin: int) -> int:
        """The damage of side ``x``'s attack settled at ``margin`` (0: a miss)."""
        s = settle(self.rules, self.f[x], self.f[1 - x], margin, False, False)
        return 0 if s.kind == "miss" else s.damage

    def _marks(self) -> None:
        """A hit of each damage on each boxes: the boxes after (all six levels), the level marked (-1: none), soaked."""
        r, top = self.rules, int(self.dmg.max())
        shape = (len(self.boxes4), top + 1)
        self.mark_a6, self.mark_lvl = np.zeros(shape, dtype=np.int64), -np.ones(shape, dtype=np.int64)
        self.mark_soak = np.zeros(shape, dtype=np.bool_)
        for b, bx in enumerate(self.boxes4):
            for d in range(1, top + 1):
                after, level, soaked = mark(r, (*bx, 0, 0), d)
                if level is not None:
                    self.mark_a6[b, d], self.mark_lvl[b, d], self.mark_soak[b, d] = self.index6[after], level, soaked

    def _finish(self) -> None:
        """``after_out = finish``: the attack modifier of the winner's finishing stance from its boxes, and the
        loser's end after the finishing attacks at each modifier (one row per winner, modifier and loser label)."""
        r, t = self.rules, self.track
        self._blow: dict[tuple[int, int], dict[int, float]] = {}  # (winner, modifier): its blows (_blows)
        self._after: dict[tuple[int, int, Any], list[tuple[Any, float]]] = {}  # one attack's outcomes (_struck)
        self._hit: dict[tuple[int, Any, int], Any] = {}  # (winner, condition, damage): the condition after
        turns = [[turn(r, name, Condition((*bx, 0, 0)))[0] for bx in self.boxes4] for name in STANCES]
        mods = np.array([[tn.mod - tn.penalty for tn in row] for row in turns], dtype=np.int64)
        self.fin_mods = sorted({int(v) for v in mods.ravel()})
        self.fin_mod = np.searchsorted(np.array(self.fin_mods), mods).astype(np.int64)
        target = min(markov.LETHAL[r.lethal_at], markov.DYING)
        ptr, to, p = [0], [], []
        for w in (0, 1):
            for mod in self.fin_mods:
                for c in t.labels:
                    if r.after_out == "finish" and c != DEAD_END and status_of(c) < target and status_of(c) != markov.UP:
                        for label, q in self.finished(w, mod, c, target).items():
                            to.append(t.index[label]), p.append(q)
                    ptr.append(len(to))
        self.fin_ptr, self.fin_to = np.array(ptr, dtype=np.int64), np.array(to, dtype=np.int64)
        self.fin_p = np.array(p, dtype=float)

    def finished(self, w: int, mod: int, loser: Any, target: int) -> dict[Any, float]:
        """The loser's condition after ``w``'s finishing attacks at the attack modifier ``mod``: one-sided, no luck,
        no dodge, until the loser reaches the lethal level or ``finish_attacks`` are made."""
        dist = {loser: 1.0}
        for _ in range(self.rules.finish_attacks):
            nxt: dict[Any, float] = {}
            for c, p in dist.items():
                if status_of(c) >= target:
                    nxt[c] = nxt.get(c, 0.0) + p
                    continue
                for after, q in self._struck(w, mod, c):
                    nxt[after] = nxt.get(after, 0.0) + p * q
            dist = nxt
        return dist

    def _struck(self, w: int, mod: int, c: Any) -> list[tuple[Any, float]]:
        """One finishing attack of ``w`` at the modifier ``mod`` on the condition ``c``: each blow's condition
        after and its probability, in the order of :meth:`_blows` (made once for every loser it reaches)."""
        key = (w, mod, c)
        if key not in self._after:
            self._after[key] = [(self._defended(w, c, d) if d > 0 else c, q) for d, q in self._blows(w, mod).items()]
        return self._after[key]

    def _defended(self, w: int, c: Any, d: int) -> Any:
        """The loser's condition after a finishing blow of ``d`` damage from ``w`` on ``c`` (the same at every
        modifier, so found once)."""
        if (w, c, d) not in self._hit:
            self._hit[(w, c, d)] = defended(self.rules, self.f[1 - w], c, d, False, True)[0]
        return self._hit[(w, c, d)]

    def _blows(self, w: int, mod: int) -> dict[int, float]:
        """The damage of one finishing attack of ``w`` at the attack modifier ``mod``: its probability (the same
        for every loser, so made once)."""
        if (w, mod) not in self._blow:
            blows: dict[int, float] = {}
            k = self.rn[w, 1]
            for m, q in zip(self.rm[w, 1, :k].tolist(), self.rp[w, 1, :k].tolist()):
                d = self.damage(w, m + mod)
                blows[d] = blows.get(d, 0.0) + q
            self._blow[(w, mod)] = blows
        return self._blow[(w, mod)]

    def kernel_args(self) -> tuple:
        return (self.ints, self.held, self.after, self.shift, self.one, self.adj, self.pen, self.mm, self.mp, self.mn,
                self.dmg, self.mark_a6, self.mark_lvl, self.mark_soak, self.a6_dying, self.a6_label, self.a6_b4,
                self.lab_up, self.status, self.lab_b4, self.fin_mod, self.fin_ptr, self.fin_to, self.fin_p)


# ------------------------------------------------------------------ the compiled walk
@njit(cache=True, inline="always")
def _up(b: int, tokens: int, stance: int, surprise: int, t1: int) -> int:
    return ((b * t1 + tokens) * 4 + stance) * 2 + surprise


@njit(cache=True, inline="always")
def _normal(u: int) -> int:
    """The fighter ``u`` with its stance dropped."""
    return u - ((u // 2) % 4) * 2


@njit(cache=True, inline="always")
def _turn_key(mover: int, opener: int, ca: int, cb: int, nu: int) -> int:
    """A turn: the mover's stance dropped."""
    if mover == 0:
        ca = _normal(ca)
    else:
        cb = _normal(cb)
    return TURN + _KINDS * (((mover * 2 + opener) * nu + ca) * nu + cb)


@njit(cache=True, inline="always")
def _end_key(la: int, lb: int, ints: np.ndarray, status: np.ndarray) -> int:
    """Both conditions at the first out (track labels): an end, or the winner's finishing attacks."""
    nl = ints[1]
    up_a, up_b = status[la] == _UP, status[lb] == _UP
    if ints[8] and up_a != up_b:
        w = 0 if up_a else 1
        own, loser = (la, lb) if w == 0 else (lb, la)
        if status[loser] < ints[9]:
            return FINISH + _KINDS * ((w * nl + own) * nl + loser)
    return END + _KINDS * (la * nl + lb)


@njit(cache=True)
def _place(x: int, opener: int, att: int, dfn: int, tag: int, data: int, level: int, soaked: int, ints: np.ndarray,
           lab_up: np.ndarray, status: np.ndarray, nu: int) -> int:
    """The state after side ``x``'s attack (``att``: its condition after its turn) with outcome ``tag`` on the
    defender ``dfn``: 0 up (``data`` its boxes), 1 down (``data`` its label), 2 a dodge to decide (``data`` the
    boxes after on all six levels)."""
    t1 = ints[0]
    if tag == 2:
        y = 1 - x
        return DODGE + _KINDS * ((((((y * 2 + opener) * nu + att) * nu + _normal(dfn)) * 6 + level) * 2 + soaked)
                                 * ints[12] + data)
    if tag == 1:
        la = lab_up[att // (t1 * 8), (att // 8) % t1]
        return _end_key(la, data, ints, status) if x == 0 else _end_key(data, la, ints, status)
    d2 = _up(data, (dfn // 8) % t1, (dfn // 2) % 4, dfn % 2, t1)
    return _turn_key(1 - x, opener, att, d2, nu) if x == 0 else _turn_key(1 - x, opener, d2, att, nu)


@njit(cache=True)
def _marked(x: int, opener: int, att: int, dfn: int, a6: int, ints: np.ndarray, a6_dying: np.ndarray,
            a6_label: np.ndarray, a6_b4: np.ndarray, lab_up: np.ndarray, status: np.ndarray, nu: int) -> int:
    """The hit marked: dying, out, or up with the boxes after."""
    if a6_dying[a6]:
        return _place(x, opener, att, dfn, 1, ints[10], 0, 0, ints, lab_up, status, nu)
    if a6_label[a6] >= 0:
        return _place(x, opener, att, dfn, 1, a6_label[a6], 0, 0, ints, lab_up, status, nu)
    return _place(x, opener, att, dfn, 0, a6_b4[a6], 0, 0, ints, lab_up, status, nu)


@njit(cache=True)
def _hit(x: int, opener: int, att: int, dfn: int, margin: int, one: bool, ints: np.ndarray, dmg: np.ndarray,
         mark_a6: np.ndarray, mark_lvl: np.ndarray, mark_soak: np.ndarray, a6_dying: np.ndarray,
         a6_label: np.ndarray, a6_b4: np.ndarray, lab_up: np.ndarray, status: np.ndarray, nu: int) -> int:
    """Side ``x``'s attack settled at ``margin`` on ``dfn``: the hit marked, or a dodge to decide (the defender
    has ``dodge_fatigue`` free fatigue boxes and the attack is not one-sided)."""
    t1 = ints[0]
    bd = dfn // (t1 * 8)
    d = dmg[x, margin - ints[7]]
    if d <= 0 or mark_lvl[bd, d] < 0:
        return _place(x, opener, att, dfn, 0, bd, 0, 0, ints, lab_up, status, nu)
    a6 = mark_a6[bd, d]
    if not one and ints[4] - bd // ints[6] >= ints[5]:
        return _place(x, opener, att, dfn, 2, a6, mark_lvl[bd, d], mark_soak[bd, d], ints, lab_up, status, nu)
    return _marked(x, opener, att, dfn, a6, ints, a6_dying, a6_label, a6_b4, lab_up, status, nu)


@njit(cache=True)
def _rolled(x: int, opener: int, ca: int, cb: int, margin: int, sa: int, sd: int, one: bool, ints: np.ndarray,
            dmg: np.ndarray, mark_a6: np.ndarray, mark_lvl: np.ndarray, mark_soak: np.ndarray, a6_dying: np.ndarray,
            a6_label: np.ndarray, a6_b4: np.ndarray, lab_up: np.ndarray, status: np.ndarray, nu: int) -> int:
    """The state once both totals are known: a luck token to decide, else the attack settled."""
    t1, bonus = ints[0], ints[3]
    cx, cy = (ca, cb) if x == 0 else (cb, ca)
    if (-bonus <= margin < 0 and (cx // 8) % t1 > 0 and not sa) or \
            (0 < margin <= bonus and (cy // 8) % t1 > 0 and not sd and not one):
        return LUCK + _KINDS * (((((((x * 2 + opener) * nu + ca) * nu + cb) * (2 * bonus + 1) + margin + bonus) * 2
                                  + sa) * 2 + sd) * 2 + one)
    return _hit(x, opener, cx, cy, margin, one, ints, dmg, mark_a6, mark_lvl, mark_soak, a6_dying, a6_label, a6_b4,
                lab_up, status, nu)


@njit(cache=True)
def _add(keys: np.ndarray, probs: np.ndarray, sizes: np.ndarray, o: int, key: int, p: float) -> None:
    """Add ``p`` to option ``o``'s way to ``key``."""
    for k in range(sizes[o]):
        if keys[o, k] == key:
            probs[o, k] += p
            return
    keys[o, sizes[o]] = key
    probs[o, sizes[o]] = p
    sizes[o] += 1


@njit(cache=True)
def _merge(x: int, one: int, sh: int, bd: int, rm: np.ndarray, rp: np.ndarray, rn: np.ndarray, ints: np.ndarray,
           dmg: np.ndarray, mark_a6: np.ndarray, mark_lvl: np.ndarray, mark_soak: np.ndarray, out_m: np.ndarray,
           out_p: np.ndarray, cls: np.ndarray) -> int:
    """Side ``x``'s attack rolls shifted by ``sh`` on a defender with boxes ``bd``, merged by what they do (a
    margin a luck token may change, no mark, or the boxes, level and soak a hit leaves): one margin standing for
    each, with its probability; returns how many."""
    bonus, n = ints[3], 0
    for k in range(rn[x, one]):
        m = rm[x, one, k] + sh
        if ints[2] > 0 and m != 0 and -bonus <= m <= bonus:
            c = -(m + bonus) - 1
        else:
            d = dmg[x, m - ints[7]]
            c = 0 if d <= 0 or mark_lvl[bd, d] < 0 else 1 + (mark_a6[bd, d] * 6 + mark_lvl[bd, d]) * 2 + mark_soak[bd, d]
        j = 0
        while j < n and cls[j] != c:
            j += 1
        if j == n:
            cls[n], out_m[n], out_p[n] = c, m, 0.0
            n += 1
        out_p[j] += rp[x, one, k]
    return n


@njit(cache=True)
def _merged(rm: np.ndarray, rp: np.ndarray, rn: np.ndarray, ints: np.ndarray, dmg: np.ndarray, mark_a6: np.ndarray,
            mark_lvl: np.ndarray, mark_soak: np.ndarray, n_shift: int, n4: int) -> tuple[np.ndarray, np.ndarray,
                                                                                     np.ndarray]:
    """:func:`_merge` for every side, one-sided or not, shift (from ``ints[15]``) and defender boxes."""
    width = rm.shape[2]
    m1, p1, cls = np.empty(width, dtype=np.int64), np.empty(width), np.empty(width, dtype=np.int64)
    counts = np.zeros((2, 2, n_shift, n4), dtype=np.int64)
    for x in range(2):
        for one in range(2):
            for k in range(n_shift):
                for bd in range(n4):
                    counts[x, one, k, bd] = _merge(x, one, k + ints[15], bd, rm, rp, rn, ints, dmg, mark_a6,
                                                   mark_lvl, mark_soak, m1, p1, cls)
    top = max(counts.max(), 1)
    mm, mp = np.zeros((2, 2, n_shift, n4, top), dtype=np.int64), np.zeros((2, 2, n_shift, n4, top))
    for x in range(2):
        for one in range(2):
            for k in range(n_shift):
                for bd in range(n4):
                    _merge(x, one, k + ints[15], bd, rm, rp, rn, ints, dmg, mark_a6, mark_lvl, mark_soak,
                           mm[x, one, k, bd], mp[x, one, k, bd], cls)
    return mm, mp, counts


@njit(cache=True)
def _expand(s: int, keys: np.ndarray, probs: np.ndarray, sizes: np.ndarray, p_a: float, ints: np.ndarray,
            held: np.ndarray, after: np.ndarray, shift: np.ndarray, one_t: np.ndarray, adj: np.ndarray,
            pen: np.ndarray, mm: np.ndarray, mp: np.ndarray, mn: np.ndarray, dmg: np.ndarray, mark_a6: np.ndarray,
            mark_lvl: np.ndarray, mark_soak: np.ndarray, a6_dying: np.ndarray, a6_label: np.ndarray,
            a6_b4: np.ndarray, lab_up: np.ndarray, status: np.ndarray, lab_b4: np.ndarray, fin_mod: np.ndarray,
            fin_ptr: np.ndarray, fin_to: np.ndarray, fin_p: np.ndarray) -> tuple[int, int]:
    """State ``s``'s options into ``keys``/``probs``/``sizes`` (one row per option); returns (na, nb)."""
    t1, nl, bonus = ints[0], ints[1], ints[3]
    nu = ints[11]
    kind, v = s % _KINDS, s // _KINDS
    sizes[:] = 0
    if kind == END:
        return 0, 0
    if kind == START:
        for x in range(2):
            p = p_a if x == 0 else 1.0 - p_a
            if p > 0:
                fresh_a = _up(0, ints[2], NORMAL, int(ints[13] == 0), t1)
                fresh_b = _up(0, ints[2], NORMAL, int(ints[13] == 1), t1)
                _add(keys, probs, sizes, 0, _turn_key(x, x, fresh_a, fresh_b, nu), p)
        return 1, 1
    if kind == TURN:
        cb, v = v % nu, v // nu
        ca, v = v % nu, v // nu
        opener, x = v % 2, v // 2
        me, dfn = (ca, cb) if x == 0 else (cb, ca)
        bm, sp = me // (t1 * 8), me % 2
        st_d, bd = (dfn // 2) % 4, dfn // (t1 * 8)
        for st in range(4):
            one = one_t[st, bm, sp] or st_d == NO_DEFENSE
            sh = shift[st, bm, sp] + (0 if one else adj[st_d] + pen[bd])
            att = _up(after[st, bm, sp], (me // 8) % t1, held[st, bm, sp], 0, t1)
            o, row = int(one), sh - ints[15]
            for k in range(mn[x, o, row, bd]):
                m = mm[x, o, row, bd, k]
                if ints[2] > 0 and m != 0 and -bonus <= m <= bonus:
                    pa, pb = (att, _normal(dfn)) if x == 0 else (_normal(dfn), att)
                    nxt = _rolled(x, opener, pa, pb, m, 0, 0, one, ints, dmg, mark_a6, mark_lvl, mark_soak,
                                  a6_dying, a6_label, a6_b4, lab_up, status, nu)
                else:
                    nxt = _hit(x, opener, att, dfn, m, one, ints, dmg, mark_a6, mark_lvl, mark_soak, a6_dying,
                               a6_label, a6_b4, lab_up, status, nu)
                _add(keys, probs, sizes, st, nxt, mp[x, o, row, bd, k])
        return (4, 1) if x == 0 else (1, 4)
    if kind == LUCK:
        one, v = v % 2, v // 2
        sd, v = v % 2, v // 2
        sa, v = v % 2, v // 2
        margin, v = v % (2 * bonus + 1) - bonus, v // (2 * bonus + 1)
        cb, v = v % nu, v // nu
        ca, v = v % nu, v // nu
        opener, x = v % 2, v // 2
        y = x if margin < 0 else 1 - x
        cx, cy = (ca, cb) if x == 0 else (cb, ca)
        _add(keys, probs, sizes, 0, _hit(x, opener, cx, cy, margin, one == 1, ints, dmg, mark_a6, mark_lvl,
                                         mark_soak, a6_dying, a6_label, a6_b4, lab_up, status, nu), 1.0)
        if y == 0:
            ca -= 8
        else:
            cb -= 8
        m2 = margin + bonus if y == x else margin - bonus
        _add(keys, probs, sizes, 1, _rolled(x, opener, ca, cb, m2, int(sa or y == x), int(sd or y != x), one == 1,
                                            ints, dmg, mark_a6, mark_lvl, mark_soak, a6_dying, a6_label, a6_b4,
                                            lab_up, status, nu), 1.0)
        return (2, 1) if y == 0 else (1, 2)
    if kind == DODGE:
        a6, v = v % ints[12], v // ints[12]
        v //= 12
        dfn, v = v % nu, v // nu
        att, v = v % nu, v // nu
        opener, y = v % 2, v // 2
        x = 1 - y
        _add(keys, probs, sizes, 0, _marked(x, opener, att, dfn, a6, ints, a6_dying, a6_label, a6_b4, lab_up,
                                            status, nu), 1.0)
        dodged = dfn // (t1 * 8) + ints[5] * ints[6]
        _add(keys, probs, sizes, 1, _place(x, opener, att, dfn, 0, dodged, 0, 0, ints, lab_up, status, nu), 1.0)
        return (2, 1) if y == 0 else (1, 2)
    loser, v = v % nl, v // nl
    own, w = v % nl, v // nl
    for st in range(4):
        row = (w * ints[14] + fin_mod[st, lab_b4[own]]) * nl + loser
        for k in range(fin_ptr[row], fin_ptr[row + 1]):
            c = fin_to[k]
            _add(keys, probs, sizes, st, END + _KINDS * ((own * nl + c) if w == 0 else (c * nl + own)), fin_p[k])
    return (4, 1) if w == 0 else (1, 4)


@njit(cache=True)
def _explore(p_a: float, max_states: int, width: int, ints: np.ndarray, held: np.ndarray, after: np.ndarray,
             shift: np.ndarray, one_t: np.ndarray, adj: np.ndarray, pen: np.ndarray, mm: np.ndarray, mp: np.ndarray,
             mn: np.ndarray, dmg: np.ndarray, mark_a6: np.ndarray, mark_lvl: np.ndarray, mark_soak: np.ndarray,
             a6_dying: np.ndarray, a6_label: np.ndarray, a6_b4: np.ndarray, lab_up: np.ndarray, status: np.ndarray,
             lab_b4: np.ndarray, fin_mod: np.ndarray, fin_ptr: np.ndarray, fin_to: np.ndarray, fin_p: np.ndarray):
    """Every state reachable from the start, numbered in the order met (breadth first, as
    :func:`~analysis.engine.explore.explore`): the state keys, the game's arrays, and whether the walk stopped at
    ``max_states``."""
    slots, at = -np.ones(4096, dtype=np.int64), np.zeros(4096, dtype=np.int64)
    states = np.empty(1024, dtype=np.int64)
    states[0] = START
    slots[_hash(START, slots.size - 1)], at[_hash(START, slots.size - 1)] = START, 0
    n = 1
    na, nb, opt = np.empty(1024, dtype=np.int64), np.empty(1024, dtype=np.int64), np.zeros(1025, dtype=np.int64)
    edge = np.zeros(4096, dtype=np.int64)
    to, p = np.empty(4096, dtype=np.int64), np.empty(4096)
    n_opt, n_edge = 0, 0
    keys, probs = np.empty((4, width), dtype=np.int64), np.empty((4, width))
    sizes = np.zeros(4, dtype=np.int64)
    k = 0
    while k < n:
        a, b = _expand(states[k], keys, probs, sizes, p_a, ints, held, after, shift, one_t, adj, pen, mm, mp, mn,
                       dmg, mark_a6, mark_lvl, mark_soak, a6_dying, a6_label, a6_b4, lab_up, status, lab_b4,
                       fin_mod, fin_ptr, fin_to, fin_p)
        if k >= na.size:
            na, nb = _grown(na, na.size * 2), _grown(nb, nb.size * 2)
            opt = _grown(opt, opt.size * 2)
        na[k], nb[k] = a, b
        for o in range(a * b):
            if n_opt + 2 > edge.size:
                edge = _grown(edge, edge.size * 2)
            if n_edge + sizes[o] > to.size:
                to, p = _grown(to, to.size * 2 + sizes[o]), _grown(p, p.size * 2 + sizes[o])
            for e in range(sizes[o]):
                key = keys[o, e]
                i = _hash(key, slots.size - 1)
                while slots[i] != key and slots[i] != -1:
                    i = (i + 1) & (slots.size - 1)
                if slots[i] == key:
                    j = at[i]
                else:
                    if n >= max_states:
                        return states[:n], na[:k], nb[:k], opt[:k + 1], edge[:n_opt + 1], to[:n_edge], p[:n_edge], True
                    j = n
                    slots[i], at[i] = key, j
                    if n >= states.size:
                        states = _grown(states, states.size * 2)
                    states[n] = key
                    n += 1
                    if 2 * n > slots.size:
                        slots, at = _rehash(states[:n], 4 * slots.size)
                to[n_edge], p[n_edge] = j, probs[o, e]
                n_edge += 1
            n_opt += 1
            edge[n_opt] = n_edge
        opt[k + 1] = n_opt
        k += 1
    return states[:n], na[:n], nb[:n], opt[:n + 1], edge[:n_opt + 1], to[:n_edge], p[:n_edge], False


def _check(rules: Rules) -> None:
    if rules.luck_tokens and rules.luck_bonus <= 0:
        raise DicelabError("kurs decision game: luck_bonus must be positive")


def _fields(tab: _Tables, keys: np.ndarray) -> dict[str, np.ndarray]:
    """The states' keys read back into arrays (see :func:`_expand` for the layouts); a field a kind lacks is 0."""
    t1, nl, bonus, nu, n6 = (int(tab.ints[k]) for k in (0, 1, 3, 11, 12))
    kind, v = keys % _KINDS, keys // _KINDS
    out = {"kind": kind}
    turn_, luck, dodge, fin, end = (kind == k for k in (TURN, LUCK, DODGE, FINISH, END))
    lv = np.where(luck, v, 0)
    out["one"], lv = lv % 2, lv // 2
    out["sd"], lv = lv % 2, lv // 2
    out["sa"], lv = lv % 2, lv // 2
    out["margin"], lv = lv % (2 * bonus + 1) - bonus, lv // (2 * bonus + 1)
    dv = np.where(dodge, v, 0)
    dv = dv // n6
    out["soaked"], out["level"], dv = dv % 2, (dv // 2) % 6, dv // 12
    pv = np.where(turn_, v, np.where(luck, lv, dv))
    out["cb"], pv = pv % nu, pv // nu
    out["ca"], pv = pv % nu, pv // nu
    out["opener"], out["x"] = pv % 2, pv // 2
    fv = np.where(fin | end, v, 0)
    out["second"], fv = fv % nl, fv // nl
    out["first"], out["w"] = fv % nl, fv // nl
    for side in ("ca", "cb"):
        u = out[side]
        out[side + "_b"], out[side + "_tok"], out[side + "_st"], out[side + "_sp"] = (
            u // (t1 * 8), (u // 8) % t1, (u // 2) % 4, u % 2)
    return out


def _features(tab: _Tables, f: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, dict[int, np.ndarray]]:
    """Per state: the decision taken there (index into ``_FEATURES``, -1 none) and its decider; per decision, the
    decider's features at its states, in state order (see the ``*_FEATURES`` constants)."""
    kind, x = f["kind"], f["x"]
    luck_y = np.where(f["margin"] < 0, x, 1 - x)
    kinds = [kind == TURN, kind == LUCK, kind == DODGE, kind == FINISH]
    decider = np.select(kinds, [x, luck_y, x, f["w"]], -1)
    decision = np.select(kinds, [0, 1, 2, 3], -1)
    boxes, rows = tab.boxes4, {}
    for d in range(4):
        at = np.flatnonzero(decision == d)
        g = {k: v[at] for k, v in f.items()}
        who = decider[at]
        if d == 3:
            own, loser = tab.lab_b4[g["first"]], tab.lab_b4[g["second"]]
            rows[d] = np.column_stack([boxes[own], tab.lab_inc[g["second"]], boxes[loser]])
            continue
        first_is_me = (who == 0) if d != 2 else np.zeros(at.size, dtype=bool)  # a dodge holds (attacker, defender)
        me = {k: np.where(first_is_me, g["ca" + k], g["cb" + k]) for k in ("_b", "_tok", "_st", "_sp")}
        you = {k: np.where(first_is_me, g["cb" + k], g["ca" + k]) for k in ("_b", "_tok", "_st", "_sp")}
        opens = (g["opener"] == who).astype(np.int64)
        common = np.column_stack([boxes[me["_b"]], me["_tok"], me["_sp"], boxes[you["_b"]], you["_tok"]])
        if d == 0:
            rows[d] = np.column_stack([common, you["_st"], you["_sp"], opens])
        elif d == 1:
            attacker_st = np.where(g["x"] == 0, g["ca_st"], g["cb_st"])
            other = np.where(who == g["x"], g["sd"], g["sa"])
            rows[d] = np.column_stack([common, you["_sp"], opens, (who == g["x"]).astype(np.int64), attacker_st,
                                       np.abs(g["margin"]), other, g["one"]])
        else:
            rows[d] = np.column_stack([common, you["_st"], opens, g["level"], g["soaked"]])
    return decision, decider, rows


def _picks(f: dict[str, np.ndarray], decision: np.ndarray, decider: np.ndarray, x: int, fighter: Fighter,
           luck: str) -> np.ndarray:
    """The action ``fighter`` (side ``x``) takes at every state by its policies (``luck``: its luck script); 0 where
    it does not decide."""
    by_kind = np.array([STANCES.index(fighter.stance), int(luck == "spend"), 0, STANCES.index(fighter.stance), 0])
    picks = by_kind[decision]
    if fighter.effort_dodge != "never":
        picks = np.where((decision == 2) & (f["level"] >= DODGE_FROM[fighter.effort_dodge]), 1, picks)
    return np.where(decider == x, picks, 0)


def tactics(rules: Rules, a: Fighter, b: Fighter, max_states: int = MAX_STATES) -> DecisionGame:
    """The duel of ``a`` and ``b`` as a game of the decisions of RULES.md section 8 (see the module docstring);
    ``game.book_a`` and ``book_b`` are the fighters' policies, ``scripts`` plays any values of their policy fields
    (``stance``, ``effort_dodge``, and ``luck``: ``spend`` or ``keep``)."""
    _check(rules)
    tab = _Tables(rules, a, b)
    width = int(max(tab.mn.max(), tab.ints[1])) + 1
    keys, na, nb, opt, edge, to, p, full = _explore(first_attack(rules, a, b), max_states, width, *tab.kernel_args())
    if full:
        raise DicelabError(f"the fight has more than {max_states:,} states; allowed: smaller sides or shorter tracks "
                           "(or Monte Carlo: dicelab sim)")
    f = _fields(tab, keys)
    decision, decider, rows = _features(tab, f)
    fighters = (a, b)
    book = [_picks(f, decision, decider, x, fighters[x], "spend") for x in (0, 1)]
    round_start = (f["kind"] == TURN) & (f["x"] == f["opener"])
    game = Game(na, nb, opt, edge, to, p, np.zeros(keys.size), round_start, book[0], book[1], 0)
    end = f["kind"] == END
    ends = np.column_stack([f["first"][end], f["second"][end]]).astype(np.int64).reshape(-1, 2)
    decisions, states, features = [], [], []
    for d, name in enumerate(_FEATURES):
        at = np.flatnonzero(decision == d)
        for x, side in enumerate("ab"):
            mine = decider[at] == x
            if mine.any():
                decisions.append(Decision(name, side, _ACTIONS[name], _FEATURES[name]))
                states.append(at[mine].astype(np.int64))
                features.append(rows[d][mine].astype(np.int64).reshape(-1, len(_FEATURES[name])))

    def scripts(side: str, policy: Mapping[str, Any]) -> np.ndarray:
        """The strategy of ``side``'s fighter with the policy fields ``policy`` (``luck``: its luck script)."""
        x = "ab".index(side)
        policy = dict(policy)
        luck = policy.pop("luck", "spend")
        if luck not in LUCK_SCRIPTS:
            raise DicelabError(f"luck = {luck} is not a script of this game: one of {', '.join(LUCK_SCRIPTS)}")
        picks = _picks(f, decision, decider, x, fighters[x].replace(**policy), luck)
        return replace(game, **{f"book_{side}": picks}).book(side)

    sides = {d.side for d in decisions}
    policies = {side: {"stance": STANCES,
                       **({"effort_dodge": DODGES} if any(d.name == "dodge" and d.side == side for d in decisions)
                          else {}),
                       **({"luck": LUCK_SCRIPTS} if any(d.name == "luck" and d.side == side for d in decisions)
                          else {})}
                for side in sorted(sides)}
    return DecisionGame(game, ends, tab.track, tab.track, tuple(decisions), tuple(states), tuple(features), scripts,
                        policies)


def tactics_states(rules: Rules, a: Fighter, b: Fighter) -> int:
    """An upper estimate of the decision game's states, without building it: the turns (mover, opener, both up
    conditions with the waiting side's stance), a luck token and a dodge per turn and outcome, the finishing
    attacks and the ends.

    >>> r = Rules(track=(2, 1, 1, 0, 1, 1))
    >>> tactics(r, Fighter(), Fighter()).game.n <= tactics_states(r, Fighter(), Fighter())
    True
    """
    up = 1
    for n in rules.track[:INCAPACITATED]:
        up *= n + 1
    up *= rules.luck_tokens + 1
    surprise = 2 if rules.surprise != "none" else 1
    turns = 2 * 2 * (up * surprise) * (up * surprise * len(STANCES))
    luck = turns * 4 * rules.luck_bonus * 2 if rules.luck_tokens else 0
    dodge = turns * (len(LEVELS) * 2)
    ends = (len(track(rules)) ** 2) * (2 if rules.after_out == "finish" else 1)
    return int(turns + luck + dodge + ends)
