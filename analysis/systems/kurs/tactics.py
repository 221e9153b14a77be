"""К.У.Р.С.'s duel as a game of decisions (RULES.md section 8): the stance at the start of each turn, the effort
dodge once a hit is known, a luck token once the rolls are known (and the winner's stance for its finishing
attacks under ``after_out = "finish"``).

:func:`tactics` walks the duel from its start (:func:`~analysis.engine.explore.explore`) at decision
granularity, with the exact chain's own rules (:mod:`~analysis.systems.kurs.track`,
:mod:`~analysis.systems.kurs.chain`):

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

from functools import lru_cache
from typing import Any, Mapping

import numpy as np

from analysis.base.params import DicelabError
from analysis.engine import markov
from analysis.engine.decisions import Decision, DecisionGame
from analysis.engine.explore import explore
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


@lru_cache(maxsize=64)
def track(rules: Rules) -> markov.Track:
    """The conditions the game's ends are read on: marked boxes and tokens while up, the out ones, dying."""
    labels = conditions(rules, "normal", False)
    return markov.Track(labels=labels, status=tuple(status_of(c) for c in labels))


def _label(c: tuple[int, ...]) -> Condition:
    """The track label of an up condition ``(f, l, m, h, tokens, stance, surprise)``."""
    return Condition((*c[:4], 0, 0), c[4])


def _cond(c: tuple[int, ...]) -> Condition:
    return Condition((*c[:4], 0, 0), c[4], False, bool(c[6]))


class _Walk:
    """The duel's step function (see :func:`~analysis.engine.explore.explore`) and the book's actions.

    States: ``("start",)``; ``("T", mover, opener, ca, cb)`` a turn; ``("L", attacker, opener, ca, cb, margin,
    spent_att, spent_dfn, one_sided)`` a luck token to spend; ``("D", defender, opener, c_att, c_dfn, level,
    soaked, boxes after)`` a hit to dodge; ``("F", winner, own, loser)`` finishing attacks; ``("E", a, b)`` an end (track
    labels).  A fighter up is ``(f, l, m, h, tokens, stance, surprise)``; the side to move (and a defender at a
    luck token or a dodge) holds stance 0."""

    def __init__(self, rules: Rules, a: Fighter, b: Fighter):
        self.rules, self.f = rules, (a, b)
        self.bonus = rules.luck_bonus
        self.free = rules.track[FATIGUE]
        self.target = min(markov.LETHAL[rules.lethal_at], markov.DYING)
        self._rolls: dict[tuple[int, bool], tuple[tuple[int, float], ...]] = {}
        self._damage: dict[tuple[int, int], int] = {}
        self._turns: dict[tuple, tuple] = {}
        self._outcome: dict[tuple, tuple] = {}
        self._finished: dict[tuple, dict] = {}

    # ------------------------------------------------------------------ the rolls
    def rolls(self, x: int, one_sided: bool) -> tuple[tuple[int, float], ...]:
        """(margin before modifiers, p) of side ``x``'s attack: against the defense roll, or its total."""
        key = (x, one_sided)
        if key not in self._rolls:
            att, dfn = self.f[x], self.f[1 - x]
            m = (dice(self.rules) + att.attack_skill) if one_sided else margins(self.rules, att, dfn)
            self._rolls[key] = tuple((int(v), float(p)) for v, p in zip(m.support.tolist(), m.p.tolist()) if p > 0)
        return self._rolls[key]

    def damage(self, x: int, margin: int) -> int:
        """The damage of side ``x``'s attack settled at ``margin`` (0: a miss)."""
        key = (x, margin)
        if key not in self._damage:
            s = settle(self.rules, self.f[x], self.f[1 - x], margin, False, False)
            self._damage[key] = 0 if s.kind == "miss" else s.damage
        return self._damage[key]

    # ------------------------------------------------------------------ the walk
    def step(self, s: tuple) -> Any:
        kind = s[0]
        if kind == "E":
            return None
        if kind == "start":
            return 1, 1, [self.start()]
        if kind == "T":
            opts = [self.turn(s, k) for k in range(len(STANCES))]
            return (len(opts), 1, opts) if s[1] == 0 else (1, len(opts), opts)
        if kind == "L":
            decider = s[1] if s[5] < 0 else 1 - s[1]
            opts = [self.settled(*s[1:6], s[8]), self.spend(s)]
        elif kind == "D":
            decider = s[1]
            opts = [[(1.0, t)] for t in self.dodge_next(s)]
        else:
            decider = s[1]
            opts = [self.finishing(s, k) for k in range(len(STANCES))]
        return (len(opts), 1, opts) if decider == 0 else (1, len(opts), opts)

    def start(self) -> list[tuple[float, tuple]]:
        r = self.rules
        fresh = [(0, 0, 0, 0, r.luck_tokens, NORMAL, int(r.surprise == who)) for who in "ab"]
        p_a = first_attack(r, *self.f)
        return [(p, ("T", x, x, *self._canon(x, fresh))) for x, p in ((0, p_a), (1, 1.0 - p_a)) if p > 0]

    @staticmethod
    def _canon(mover: int, cs: list) -> tuple:
        """Both conditions with the mover's stance dropped."""
        cs = list(cs)
        cs[mover] = (*cs[mover][:5], NORMAL, cs[mover][6])
        return tuple(cs)

    def turn(self, s: tuple, stance: int) -> list[tuple[float, tuple]]:
        """The mover's turn in ``stance``: its own changes, then every roll of its attack."""
        _, x, opener, *cs = s
        me, dfn = cs[x], cs[1 - x]
        held, mine, one_sided, entries = self.outcomes(x, stance, me[:4], me[6], dfn[:4], dfn[5])
        att = (*mine, me[4], held, 0)
        out: dict[tuple, float] = {}
        for p, tag, data in entries:
            if tag == "m":
                pair = [att, att]
                pair[1 - x] = (*dfn[:5], NORMAL, dfn[6])
                nxt = self.rolled(x, opener, pair[0], pair[1], data, False, False, one_sided)
            else:
                nxt = self.place(x, opener, att, dfn, tag, data)
            out[nxt] = out.get(nxt, 0.0) + p
        return list((p, k) for k, p in out.items())

    def outcomes(self, x: int, stance: int, mine: tuple, first: int, theirs: tuple, held_d: int) -> tuple:
        """Side ``x``'s turn in ``stance`` from its boxes ``mine`` (its surprise to come: ``first``) on a defender
        with boxes ``theirs`` in stance ``held_d``: (stance held, its boxes after, one-sided, the outcomes ``(p,
        tag, data)`` merged: ``m`` a margin a luck token may change, else as :meth:`outcome`)."""
        key = (x, stance, mine, first, theirs, held_d)
        got = self._turns.get(key)
        if got is not None:
            return got
        r = self.rules
        t, after = turn(r, STANCES[stance], Condition((*mine, 0, 0), 0, False, bool(first)))
        held = stance if after.active else NORMAL
        one_sided = t.one_sided or held_d == NO_DEFENSE
        shift = t.mod - t.penalty
        if not one_sided and STANCES[held_d] in TRADES:
            shift -= r.trade_bonus if STANCES[held_d] == "defensive" else -r.trade_bonus
        if not one_sided:
            shift += penalty(r, (*theirs, 0, 0))
        merged: dict[tuple, float] = {}
        for m, p in self.rolls(x, one_sided):
            m += shift
            if r.luck_tokens and m != 0 and -self.bonus <= m <= self.bonus:
                k: tuple = ("m", m)
            else:
                k = self.outcome(x, m, theirs, one_sided)
            merged[k] = merged.get(k, 0.0) + p
        got = (held, tuple(after.boxes[:4]), one_sided, tuple((p, *k) for k, p in merged.items()))
        self._turns[key] = got
        return got

    def outcome(self, x: int, margin: int, theirs: tuple, one_sided: bool) -> tuple:
        """Side ``x``'s attack settled at ``margin`` on boxes ``theirs``: ``("up", boxes)`` the defender's boxes
        after, ``("down", label)`` out or dying, or ``("dodge", (level, soaked, boxes after))`` a dodge to
        decide."""
        key = (x, margin, theirs, one_sided)
        got = self._outcome.get(key)
        if got is not None:
            return got
        r = self.rules
        dmg = self.damage(x, margin)
        after, level, soaked = mark(r, (*theirs, 0, 0), dmg) if dmg > 0 else ((*theirs, 0, 0), None, False)
        if level is None:
            got = ("up", theirs)
        elif not one_sided and self.free - theirs[FATIGUE] >= r.dodge_fatigue:
            got = ("dodge", (level, soaked, after))
        else:
            got = self.marked(after)
        self._outcome[key] = got
        return got

    @staticmethod
    def marked(after: tuple) -> tuple:
        if after[DYING]:
            return ("down", DEAD_END)
        if after[INCAPACITATED]:
            return ("down", Condition(after))
        return ("up", tuple(after[:4]))

    def place(self, x: int, opener: int, att: tuple, dfn: tuple, tag: str, data: Any) -> tuple:
        """The state after side ``x``'s attack (``att``: its condition after its turn) with outcome ``(tag,
        data)`` on the defender ``dfn``."""
        cs = [att, att]
        y = 1 - x
        if tag == "dodge":
            level, soaked, after = data
            cs[y] = (*dfn[:5], NORMAL, dfn[6])
            return ("D", y, opener, att, cs[y], level, soaked, after)
        if tag == "down":
            cs[y] = data
            return self.ended(cs[0], cs[1])
        cs[y] = (*data, *dfn[4:])
        return self.next_turn(x, opener, cs[0], cs[1])

    def rolled(self, x: int, opener: int, ca: tuple, cb: tuple, margin: int, spent_att: bool, spent_dfn: bool,
               one_sided: bool) -> tuple:
        """The state once the totals are known: a luck token to decide, else the attack settled."""
        cs = (ca, cb)
        if -self.bonus <= margin < 0 and cs[x][4] and not spent_att:
            return ("L", x, opener, ca, cb, margin, spent_att, spent_dfn, one_sided)
        if 0 < margin <= self.bonus and cs[1 - x][4] and not spent_dfn and not one_sided:
            return ("L", x, opener, ca, cb, margin, spent_att, spent_dfn, one_sided)
        return self.hit(x, opener, ca, cb, margin, one_sided)

    def settled(self, x: int, opener: int, ca: tuple, cb: tuple, margin: int, one_sided: bool) -> list:
        return [(1.0, self.hit(x, opener, ca, cb, margin, one_sided))]

    def spend(self, s: tuple) -> list:
        _, x, opener, ca, cb, margin, spent_att, spent_dfn, one_sided = s
        cs = [ca, cb]
        y = x if margin < 0 else 1 - x
        cs[y] = (*cs[y][:4], cs[y][4] - 1, *cs[y][5:])
        margin += self.bonus if y == x else -self.bonus
        return [(1.0, self.rolled(x, opener, cs[0], cs[1], margin, spent_att or y == x, spent_dfn or y != x,
                                  one_sided))]

    def hit(self, x: int, opener: int, ca: tuple, cb: tuple, margin: int, one_sided: bool) -> tuple:
        """The attack of side ``x`` settled at ``margin``: the hit marked, or a dodge to decide."""
        cs = (ca, cb)
        dfn = cs[1 - x]
        return self.place(x, opener, cs[x], dfn, *self.outcome(x, margin, tuple(dfn[:4]), one_sided))

    def dodge_next(self, s: tuple) -> tuple[tuple, tuple]:
        """(take the hit, dodge it) from a dodge state."""
        _, y, opener, att, dfn, _, _, after = s
        x = 1 - y
        tag, data = self.marked(after)
        take = self.place(x, opener, att, dfn, tag, data)
        dodged = (dfn[0] + self.rules.dodge_fatigue, *dfn[1:4])
        return take, self.place(x, opener, att, dfn, "up", dodged)

    def next_turn(self, x: int, opener: int, ca: tuple, cb: tuple) -> tuple:
        return ("T", 1 - x, opener, *self._canon(1 - x, [ca, cb]))

    def ended(self, ca: Any, cb: Any) -> tuple:
        """Both conditions at the first out: an end, or the winner's finishing attacks."""
        up = [isinstance(c, tuple) and not isinstance(c, Condition) for c in (ca, cb)]
        labels = [_label(c) if u else c for c, u in zip((ca, cb), up)]
        if self.rules.after_out == "finish" and up[0] != up[1]:
            w = 0 if up[0] else 1
            loser = labels[1 - w]
            if status_of(loser) < self.target:
                return ("F", w, labels[w], loser)
        return ("E", *labels)

    def finishing(self, s: tuple, stance: int) -> list[tuple[float, tuple]]:
        """The winner's finishing attacks in ``stance``: one-sided, no luck, no dodge, until the loser reaches the
        lethal level or ``finish_attacks`` are made."""
        _, w, own, loser = s
        t, _ = turn(self.rules, STANCES[stance], own)
        dist = self.finished(w, t.mod - t.penalty, loser)
        return [(p, ("E", own, c) if w == 0 else ("E", c, own)) for c, p in dist.items()]

    def finished(self, w: int, mod: int, loser: Any) -> dict[Any, float]:
        """The loser's condition after ``w``'s finishing attacks at the attack modifier ``mod`` (all they depend on,
        so winners in many conditions share one walk)."""
        key = (w, mod, loser)
        if key in self._finished:
            return self._finished[key]
        r = self.rules
        dist = {loser: 1.0}
        for _ in range(r.finish_attacks):
            nxt: dict[Any, float] = {}
            for c, p in dist.items():
                if status_of(c) >= self.target:
                    nxt[c] = nxt.get(c, 0.0) + p
                    continue
                for m, q in self.rolls(w, True):
                    d = self.damage(w, m + mod)
                    after = defended(r, self.f[1 - w], c, d, False, True)[0] if d > 0 else c
                    nxt[after] = nxt.get(after, 0.0) + p * q
            dist = nxt
        self._finished[key] = dist
        return dist

    # ------------------------------------------------------------------ the book
    def book(self, s: tuple, fighters: tuple[Fighter, Fighter], luck: tuple[str, str]) -> tuple[int, int]:
        """The actions ``fighters`` take at ``s`` by their policies (``luck``: each side's luck script)."""
        kind = s[0]
        if kind in ("T", "F"):
            return _at(s[1], STANCES.index(fighters[s[1]].stance))
        if kind == "L":
            y = s[1] if s[5] < 0 else 1 - s[1]
            return _at(y, int(luck[y] == "spend"))
        if kind == "D":
            policy = fighters[s[1]].effort_dodge
            return _at(s[1], int(policy != "never" and s[5] >= DODGE_FROM[policy]))
        return 0, 0

    # ------------------------------------------------------------------ what the decider knows
    def features(self, s: tuple) -> tuple[str, int, list[int]]:
        """(decision, decider, feature values) at a choosing state."""
        kind = s[0]
        if kind == "F":
            _, w, own, loser = s
            return "finish_stance", w, [*own.boxes[:4], loser.boxes[INCAPACITATED], *loser.boxes[:4]]
        if kind == "T":
            _, x, opener, *cs = s
            me, you = cs[x], cs[1 - x]
            return "stance", x, [*me[:5], me[6], *you[:5], you[5], you[6], int(opener == x)]
        if kind == "L":
            _, x, opener, ca, cb, margin, spent_att, spent_dfn, one_sided = s
            y = x if margin < 0 else 1 - x
            cs = (ca, cb)
            me, you = cs[y], cs[1 - y]
            other = spent_dfn if y == x else spent_att
            return "luck", y, [*me[:5], me[6], *you[:5], you[6], int(opener == y), int(y == x), cs[x][5],
                               abs(margin), int(other), int(one_sided)]
        _, y, opener, att, dfn, level, soaked, _ = s
        return "dodge", y, [*dfn[:5], dfn[6], *att[:5], att[5], int(opener == y), level, int(soaked)]


_STANCE, _LUCK, _DODGE, _NONE = range(4)


def _choices(labels: list[tuple]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per state: what is decided there (``_STANCE`` at a turn or the finishing attacks, ``_LUCK``, ``_DODGE``,
    else ``_NONE``), by which side (-1: nobody) and, at a dodge, the level the hit would mark; what
    :meth:`_Walk.book` reads, as arrays, so a script's strategy is a few array operations."""
    n = len(labels)
    kinds = np.full(n, _NONE, dtype=np.int64)
    deciders = np.full(n, -1, dtype=np.int64)
    levels = np.zeros(n, dtype=np.int64)
    for k, s in enumerate(labels):
        kind = s[0]
        if kind in ("T", "F"):
            kinds[k], deciders[k] = _STANCE, s[1]
        elif kind == "L":
            kinds[k], deciders[k] = _LUCK, s[1] if s[5] < 0 else 1 - s[1]
        elif kind == "D":
            kinds[k], deciders[k], levels[k] = _DODGE, s[1], s[5]
    return kinds, deciders, levels


def _at(side: int, action: int) -> tuple[int, int]:
    return (action, 0) if side == 0 else (0, action)


def _check(rules: Rules) -> None:
    if rules.luck_tokens and rules.luck_bonus <= 0:
        raise DicelabError("kurs decision game: luck_bonus must be positive")


def tactics(rules: Rules, a: Fighter, b: Fighter) -> DecisionGame:
    """The duel of ``a`` and ``b`` as a game of the decisions of RULES.md section 8 (see the module docstring);
    ``game.book_a`` and ``book_b`` are the fighters' policies, ``scripts`` plays any values of their policy fields
    (``stance``, ``effort_dodge``, and ``luck``: ``spend`` or ``keep``)."""
    _check(rules)
    walk = _Walk(rules, a, b)
    fighters = (a, b)
    ex = explore(("start",), walk.step, round_start=lambda s: s[0] == "T" and s[1] == s[2],
                 book=lambda s: walk.book(s, fighters, ("spend", "spend")))
    game, labels = ex.game, ex.labels
    t = track(rules)
    end_idx = np.flatnonzero(game.ends)
    ends = np.array([[t.index[labels[k][1]], t.index[labels[k][2]]] for k in end_idx], dtype=np.int64).reshape(-1, 2)
    names = {"stance": TURN_FEATURES, "luck": LUCK_FEATURES, "dodge": DODGE_FEATURES, "finish_stance": FINISH_FEATURES}
    actions = {"stance": STANCES, "luck": LUCK_ACTIONS, "dodge": DODGE_ACTIONS, "finish_stance": STANCES}
    found: dict[tuple[str, int], tuple[list[int], list[list[int]]]] = {}
    for k in np.flatnonzero(~game.ends):
        s = labels[k]
        if s[0] == "start":
            continue
        name, x, row = walk.features(s)
        got = found.setdefault((name, x), ([], []))
        got[0].append(int(k)), got[1].append(row)
    decisions, states, features = [], [], []
    for name in names:
        for x, side in enumerate("ab"):
            if (name, x) not in found:
                continue
            idx, rows = found[(name, x)]
            decisions.append(Decision(name, side, actions[name], names[name]))
            states.append(np.asarray(idx, dtype=np.int64))
            features.append(np.asarray(rows, dtype=np.int64).reshape(len(idx), len(names[name])))

    kinds, deciders, levels = _choices(labels)

    def scripts(side: str, policy: Mapping[str, Any]) -> np.ndarray:
        """The strategy of ``side``'s fighter with the policy fields ``policy`` (``luck``: its luck script)."""
        x = "ab".index(side)
        policy = dict(policy)
        luck = policy.pop("luck", "spend")
        if luck not in LUCK_SCRIPTS:
            raise DicelabError(f"luck = {luck} is not a script of this game: one of {', '.join(LUCK_SCRIPTS)}")
        f = fighters[x].replace(**policy)
        dodge = f.effort_dodge
        by_kind = np.array([STANCES.index(f.stance), int(luck == "spend"), 0, 0])
        picks = np.where(deciders == x, by_kind[kinds], 0)
        if dodge != "never":
            picks = np.where((deciders == x) & (kinds == _DODGE) & (levels >= DODGE_FROM[dodge]), 1, picks)
        picks = np.where((game.na if x == 0 else game.nb) > 1, picks, 0)
        offsets = game.a_offsets if x == 0 else game.b_offsets
        out = np.zeros(int(offsets[-1]))
        has = offsets[1:] > offsets[:-1]
        out[offsets[:-1][has] + picks[has]] = 1.0
        return out

    sides = {d.side for d in decisions}
    policies = {side: {"stance": STANCES,
                       **({"effort_dodge": DODGES} if any(d.name == "dodge" and d.side == side for d in decisions)
                          else {}),
                       **({"luck": LUCK_SCRIPTS} if any(d.name == "luck" and d.side == side for d in decisions)
                          else {})}
                for side in sorted(sides)}
    return DecisionGame(game, ends, t, t, tuple(decisions), tuple(states), tuple(features), scripts, policies)


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
