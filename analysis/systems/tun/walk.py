"""The compiled walk of ТУН's duel as a game of decisions (RULES.md section 8): every state reachable from the
start, each with its options, as the flat arrays of :class:`~analysis.engine.game.Game`.

A state is a row of :data:`NC` integers: the *phase* (what happens next), who
leads the round, whether the leader plays a round shortened by its
initiative skip, whether it is the first round, the mover's chosen moving
(only while it aims), and per fighter its Body trauma (``0 .. cap``, ``cap``
= dying), its aimed-shot effects (disarmed, immobilised, stunned actions
pending) and its posture in force (not defending, moving).  Rows are keyed
by a mixed-radix number; components that cannot change what follows are
zeroed (the leader's shortened round once it has acted, the first round once
the follower has decided, the mover's old posture while it chooses a new
one), so equal futures share one state.

The fight opens with the order (chance), then ``INIT``: both fighters take
their stand at once (a matrix game), knowing who leads the first round.
The round, with L the leader and F the other:

- ``TURN_L``: L acts (its posture, its aim, its actions), delays, or skips
  (a leader gains nothing by skipping: as acting).  Then, if F was put out,
  F's last word; then ``TURN_F``: F acts, delays (as acting) or skips
  (no action; it leads the next round with fewer actions).
- L delays: ``TURN_FD``: F acts once, then (L's last word if L is out) L's
  turn, then F resumes its turn with a new posture and aim; or F skips, and L
  acts at the end of the round.
- A stretch of actions (``POST_*`` then ``AIM_*``): the mover picks its
  posture (defend or not, move or not) and, with a ranged weapon in hand, its
  aim; then its actions resolve as chance.  The last word (``LW_*``) is the
  speaker's aim, then its actions; then the fight ends.
- With ``after_out = "finish"`` and exactly one fighter up, the loser not
  dying yet: ``POST_FIN`` (the winner, recorded as the leader, picks its
  posture: only moving counts, the loser is helpless) and ``AIM_FIN`` (its
  aim, a ranged weapon in hand); its finishing attacks then resolve as one
  chance step to the end.  A finishing state keeps only what the finishing
  reads: both traumas, the winner's disarmed and immobilised.

``side`` holds per fighter (:data:`S_VOL` ...) its volume, the dying index,
the radix of each component, whether it aims and its posture actions;
``prof`` maps (attacker, disarmed, moving, aim, mode,
target not defending, target moving) to an attack's outcome list in ``dist_*``
(trauma and hit, per equally grouped roll); ``fin`` the finishing operator per
winner (disarmed, immobilised, moving, aim).
"""

from __future__ import annotations

import numpy as np
from numba import njit

PH, LEAD, RED, FIRST, TMV = range(5)
T, DIS, IMM, STUN, NODEF, MOV = range(6)
NC = 17
"""Components of a state: the five above, then six per fighter (A's, then B's)."""

(PH_START, PH_END, PH_TURN_L, PH_POST_L, PH_AIM_L, PH_TURN_F, PH_POST_F, PH_AIM_F, PH_TURN_FD, PH_POST_FD,
 PH_AIM_FD, PH_POST_LD, PH_AIM_LD, PH_POST_FC, PH_AIM_FC, PH_POST_LS, PH_AIM_LS, PH_LW_F, PH_LW_L, PH_INIT,
 PH_POST_FIN, PH_AIM_FIN) = range(22)
NPH = 22
TURNS = (PH_TURN_L, PH_TURN_F, PH_TURN_FD)
POSTS = (PH_POST_L, PH_POST_F, PH_POST_FD, PH_POST_LD, PH_POST_FC, PH_POST_LS)
AIMINGS = (PH_AIM_L, PH_AIM_F, PH_AIM_FD, PH_AIM_LD, PH_AIM_FC, PH_AIM_LS)
LAST_WORDS = (PH_LW_F, PH_LW_L)
FINISHING = (PH_POST_FIN, PH_AIM_FIN)
LEADER_PHASES = (PH_TURN_L, PH_POST_L, PH_AIM_L, PH_POST_LD, PH_AIM_LD, PH_POST_LS, PH_AIM_LS, PH_LW_L) + FINISHING
"""Phases whose decider is the round's leader (at a finishing phase: the winner); at ``INIT`` both decide; the
others: the follower, or nobody."""

S_VOL, S_CAP, S_RDIS, S_RIMM, S_RSTUN, S_RDEF, S_RMOV, S_AIMS, S_NPOST = range(9)
NSIDE = 9
R_N, R_COST, R_LW, R_LW_DYING, R_LW_ACTIONS, R_LW_TRAUMA, R_STUN, R_ALWAYS, R_FINISH, R_MAXOUT = range(10)
NRULES = 10
"""Packed rules: actions a turn, the skip's cost, the last word (on, when dying, its actions, its trauma), a stun's
lost actions, an aimed hit's effect also when it puts the target out, finishing, the most outcomes of one attack."""
K_NONE, K_DISARM, K_IMMOBILISE, K_STUN = range(4)
NORMAL_MODE, LAST_WORD_MODE = range(2)
AFTER_TURN_F, AFTER_POST_LD, AFTER_POST_FC, AFTER_END_L, AFTER_END_F = range(5)
"""What follows a stretch: F's turn, L's delayed turn, F resuming, the round's end (L leads next), the round's end
after F's skip (F leads next, one action fewer)."""


@njit(cache=True)
def _stretch(ph: int, n: int, nl: int) -> tuple[int, int, int, int]:
    """(mover: 0 the leader, 1 the follower; its actions; what follows; whose last word the end of it may bring:
    0 the leader, 1 the follower, -1 nobody's) of the stretch begun at posture phase ``ph``."""
    if ph == PH_POST_L:
        return 0, nl, AFTER_TURN_F, 1
    if ph == PH_POST_F:
        return 1, n, AFTER_END_L, -1
    if ph == PH_POST_FD:
        return 1, 1, AFTER_POST_LD, 0
    if ph == PH_POST_LD:
        return 0, nl, AFTER_POST_FC, -1
    if ph == PH_POST_FC:
        return 1, n - 1, AFTER_END_L, -1
    return 0, nl, AFTER_END_F, -1


def _phase_flags() -> np.ndarray:
    """Per phase: keeps the first-round flag, keeps the shortened round, keeps the chosen moving, and whose posture
    it is about to choose (-1 nobody, 0 the leader, 1 the follower)."""
    flags = np.zeros((NPH, 4), dtype=np.int64)
    flags[:, 3] = -1
    flags[[PH_INIT, PH_TURN_L, PH_POST_L, PH_AIM_L, PH_TURN_F, PH_TURN_FD], 0] = 1
    flags[:, 1] = 1
    flags[[PH_TURN_F, PH_POST_F, PH_AIM_F, PH_POST_FC, PH_AIM_FC, PH_LW_F, PH_LW_L], 1] = 0
    flags[list(AIMINGS) + [PH_AIM_FIN], 2] = 1
    flags[[PH_POST_L, PH_POST_LD, PH_POST_LS], 3] = 0
    flags[[PH_POST_F, PH_POST_FD, PH_POST_FC], 3] = 1
    return flags


FLAGS = _phase_flags()


CANDIDATES = 1 << 17
"""Room for one option's edges before they are numbered (a stretch's outcomes times the finishing's)."""
M_SX, M_TX, M_TY, M_DY, M_IY, M_SY = range(6)
NM = 6
"""A stretch's outcome: the mover's stun and trauma, the target's trauma, disarmed, immobilised, stun."""


@njit(cache=True)
def _find(hkeys: np.ndarray, key: int) -> int:
    """The slot of ``key`` in the open-addressing table ``hkeys`` (-1: empty), or the empty slot it would take."""
    mask = hkeys.size - 1
    h = key ^ (key >> 29)
    h *= 0x5851F42D4C957F2D
    i = (h ^ (h >> 32)) & mask
    while hkeys[i] != -1 and hkeys[i] != key:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _flush(side: np.ndarray, st: tuple) -> None:
    """Emit the option's candidate edges (``st``'s candidate buffer): each state made canonical (zero what cannot
    change what follows, see the module docstring), numbered if new, and its edge appended."""
    hkeys, hvals, comps, to, p, cnt, cand, cprob, mult = st
    rmov_a, rmov_b = side[0, S_RMOV], side[1, S_RMOV]
    for c in range(cnt[3]):
        if cprob[c] <= 0.0 or cnt[2] != 0:
            continue
        s = cand[c]
        ph = s[PH]
        if ph == PH_END:
            for i in range(NC):
                if i != PH and i != 5 + T and i != 11 + T:
                    s[i] = 0
        else:
            f = FLAGS[ph]
            s[FIRST] *= f[0]
            s[RED] *= f[1]
            s[TMV] *= f[2]
            if f[3] >= 0:
                mover = s[LEAD] if f[3] == 0 else 1 - s[LEAD]
                s[5 + 6 * mover + NODEF] = 0
                s[5 + 6 * mover + MOV] = 0
            if rmov_a == 1:
                s[5 + MOV] = 0
            if rmov_b == 1:
                s[11 + MOV] = 0
        key = 0
        for i in range(NC):
            key += s[i] * mult[i]
        slot = _find(hkeys, key)
        if hkeys[slot] == -1:
            j = cnt[0]
            if j >= comps.shape[0]:
                cnt[2] = 1
                break
            hkeys[slot] = key
            hvals[slot] = j
            comps[j, :] = s
            cnt[0] += 1
        else:
            j = hvals[slot]
        e = cnt[1]
        if e >= to.size:
            cnt[2] = 2
            break
        to[e] = j
        p[e] = cprob[c]
        cnt[1] += 1
    cnt[3] = 0


@njit(cache=True)
def _end(s: np.ndarray, prob: float, side: np.ndarray, rl: np.ndarray, st: tuple) -> None:
    """The fight is over at ``s``: its final pair as a candidate, or the winner's finishing posture when it
    finishes (``finish``, exactly one fighter up, the loser not dying yet)."""
    cnt, cand, cprob = st[5], st[6], st[7]
    m = cnt[3]
    if m >= cprob.size:
        cnt[2] = 2
        return
    up_a = s[5 + T] < side[0, S_VOL]
    w = 0 if up_a else 1
    bw, bv = 5 + 6 * w, 5 + 6 * (1 - w)
    cand[m, :] = 0
    cand[m, PH] = PH_END
    cand[m, 5 + T], cand[m, 11 + T] = s[5 + T], s[11 + T]
    if rl[R_FINISH] != 0 and up_a != (s[11 + T] < side[1, S_VOL]) and s[bv + T] < side[1 - w, S_CAP]:
        cand[m, PH], cand[m, LEAD] = PH_POST_FIN, w
        cand[m, bw + DIS], cand[m, bw + IMM] = s[bw + DIS], s[bw + IMM]
    cprob[m] = prob
    cnt[3] += 1


@njit(cache=True)
def _finish(s: np.ndarray, mv: int, aim: int, side: np.ndarray, fin: np.ndarray, st: tuple) -> None:
    """The finishing attacks of the winner (``s[LEAD]``), moving or not (``mv``) and with ``aim``: the final pairs
    as candidates."""
    cnt, cand, cprob = st[5], st[6], st[7]
    w = s[LEAD]
    bw, bv = 5 + 6 * w, 5 + 6 * (1 - w)
    lo = s[bv + T]
    row = fin[w, s[bw + DIS], s[bw + IMM], mv, aim, lo]
    for t2 in range(lo, side[1 - w, S_CAP] + 1):
        if row[t2] > 0.0:
            m = cnt[3]
            if m >= cprob.size:
                cnt[2] = 2
                return
            cand[m, :] = 0
            cand[m, PH] = PH_END
            cand[m, bw + T], cand[m, bv + T] = s[bw + T], t2
            cprob[m] = row[t2]
            cnt[3] += 1


@njit(cache=True)
def _add(s: np.ndarray, prob: float, st: tuple) -> None:
    """``s`` as a candidate edge of the option being built (see :func:`_flush`)."""
    cnt, cand, cprob = st[5], st[6], st[7]
    m = cnt[3]
    if m >= cprob.size:
        cnt[2] = 2
        return
    cand[m, :] = s
    cprob[m] = prob
    cnt[3] += 1


@njit(cache=True)
def _stretch_outcomes(s: np.ndarray, x: int, k: int, aim: int, tmv: int, mode: int, side: np.ndarray,
                      prof: np.ndarray, dptr: np.ndarray, dd: np.ndarray, dp: np.ndarray, dhit: np.ndarray,
                      reach: np.ndarray, aimkind: np.ndarray, rl: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``k`` actions of fighter ``x`` on the other from state ``s`` (its aim, its moving, the mode): the outcomes
    (rows ``M_*``) and their probabilities.  Each action: none once the target is out; a stunned mover loses it;
    one out of reach does nothing; else an attack (a last word costs the speaker its trauma)."""
    y = 1 - x
    bx, by = 5 + 6 * x, 5 + 6 * y
    vol_y, cap_y, cap_x = side[y, S_VOL], side[y, S_CAP], side[x, S_CAP]
    dis_x, imm_x = s[bx + DIS], s[bx + IMM]
    nodef_y, mov_y = s[by + NODEF], s[by + MOV]
    mv = tmv if (imm_x == 0 and mode == NORMAL_MODE) else 0
    a = aim if dis_x == 0 else 0
    kind = aimkind[a]
    rows = np.empty((1, NM), dtype=np.int64)
    rows[0] = (s[bx + STUN], s[bx + T], s[by + T], s[by + DIS], s[by + IMM], s[by + STUN])
    probs = np.ones(1)
    for _ in range(k):
        cap = rows.shape[0] * rl[R_MAXOUT] + 1
        new = np.empty((cap, NM), dtype=np.int64)
        newp = np.empty(cap)
        m = 0
        for r in range(rows.shape[0]):
            row = rows[r]
            if row[M_TY] >= vol_y or row[M_SX] > 0 or reach[x, dis_x] == 0:
                new[m] = row
                if row[M_TY] < vol_y and row[M_SX] > 0:
                    new[m, M_SX] -= 1
                newp[m] = probs[r]
                m += 1
                continue
            pr = prof[x, dis_x, mv, a, mode, nodef_y, mov_y if row[M_IY] == 0 else 0]
            for o in range(dptr[pr], dptr[pr + 1]):
                new[m] = row
                ty = min(row[M_TY] + dd[o], cap_y)
                new[m, M_TY] = ty
                if mode == LAST_WORD_MODE:
                    new[m, M_TX] = min(row[M_TX] + rl[R_LW_TRAUMA], cap_x)
                if dhit[o] != 0 and kind != K_NONE and (rl[R_ALWAYS] != 0 or ty < vol_y):
                    if kind == K_DISARM and side[y, S_RDIS] > 1:
                        new[m, M_DY] = 1
                    elif kind == K_IMMOBILISE and side[y, S_RIMM] > 1:
                        new[m, M_IY] = 1
                    elif kind == K_STUN and side[y, S_RSTUN] > 1:
                        new[m, M_SY] = rl[R_STUN]
                newp[m] = probs[r] * dp[o]
                m += 1
        rows, probs = _merge(new[:m], newp[:m], cap_x + 1, cap_y + 1)
    return rows, probs


@njit(cache=True)
def _merge(rows: np.ndarray, probs: np.ndarray, nx: int, ny: int) -> tuple[np.ndarray, np.ndarray]:
    """Equal outcomes summed, in the order of their components."""
    n = rows.shape[0]
    keys = np.empty(n, dtype=np.int64)
    for r in range(n):
        keys[r] = ((((rows[r, M_SX] * nx + rows[r, M_TX]) * ny + rows[r, M_TY]) * 2 + rows[r, M_DY]) * 2
                   + rows[r, M_IY]) * 8 + rows[r, M_SY]
    order = np.argsort(keys)
    out = np.empty_like(rows)
    outp = np.empty(n)
    m = 0
    for i in range(n):
        idx = order[i]
        if m > 0 and keys[idx] == keys[order[i - 1]]:
            outp[m - 1] += probs[idx]
        else:
            out[m] = rows[idx]
            outp[m] = probs[idx]
            m += 1
    return out[:m], outp[:m]


@njit(cache=True)
def _outcomes(s: np.ndarray, x: int, k: int, aim: int, tmv: int, mode: int, pk: tuple, memo: tuple) -> tuple[int, int]:
    """Where in ``memo``'s store the outcomes of :func:`_stretch_outcomes` lie (computed once per distinct input)."""
    side, post, prof, dptr, dd, dp, dhit, reach, aimkind, fin, rl = pk
    mkeys, mvals, rows_out, p_out, used = memo
    y = 1 - x
    bx, by = 5 + 6 * x, 5 + 6 * y
    key = x
    for v, r in ((k, 8), (aim, 8), (tmv, 2), (mode, 2), (s[bx + DIS], 2), (s[bx + IMM], 2), (s[bx + STUN], 8),
                 (s[bx + T] if mode == LAST_WORD_MODE else 0, 1024), (s[by + T], 1024), (s[by + DIS], 2),
                 (s[by + IMM], 2), (s[by + STUN], 8), (s[by + NODEF], 2), (s[by + MOV], 2)):
        key = key * r + v
    slot = _find(mkeys, key)
    if mkeys[slot] != -1:
        return mvals[slot] >> 32, mvals[slot] & 0xFFFFFFFF
    rows, probs = _stretch_outcomes(s, x, k, aim, tmv, mode, side, prof, dptr, dd, dp, dhit, reach, aimkind, rl)
    start = used[0]
    n = rows.shape[0]
    if start + n > p_out.size or used[2] * 2 >= mkeys.size:
        used[1] = 1
        return 0, 0
    rows_out[start:start + n] = rows
    p_out[start:start + n] = probs
    used[0] += n
    used[2] += 1
    mkeys[slot] = key
    mvals[slot] = (start << 32) | n
    return start, n


@njit(cache=True)
def _next(after: int, n: int, nl: int, lead: int) -> tuple[int, int, int]:
    """(phase, leader, shortened round) of the real state that follows a stretch with both up: a turn, a stretch
    with actions (one without goes straight on), or the next round (the first round is then over)."""
    while True:
        if after == AFTER_TURN_F:
            return PH_TURN_F, lead, -1
        if after == AFTER_POST_LD:
            if nl > 0:
                return PH_POST_LD, lead, -1
            after = AFTER_POST_FC
            continue
        if after == AFTER_POST_FC:
            if n - 1 > 0:
                return PH_POST_FC, lead, -1
            after = AFTER_END_L
            continue
        if after == AFTER_END_F:
            return PH_TURN_L, 1 - lead, 1
        return PH_TURN_L, lead, 0


@njit(cache=True)
def _follow(s: np.ndarray, after: int, rl: np.ndarray) -> None:
    """Set ``s`` to the state :func:`_next` names (a new round clears the first-round flag)."""
    n = rl[R_N]
    ph, lead, red = _next(after, n, n - rl[R_COST] * s[RED], s[LEAD])
    s[PH], s[LEAD] = ph, lead
    if red >= 0:
        s[RED] = red
        s[FIRST] = 0


@njit(cache=True)
def _enter(s: np.ndarray, post: int, rl: np.ndarray) -> None:
    """Set ``s`` to the stretch begun at posture phase ``post``, or past it when it has no actions."""
    n = rl[R_N]
    _, k, after, _ = _stretch(post, n, n - rl[R_COST] * s[RED])
    if k > 0:
        s[PH] = post
    else:
        _follow(s, after, rl)


@njit(cache=True)
def _resolve(s: np.ndarray, post: int, aim: int, tmv: int, pk: tuple, memo: tuple, st: tuple) -> None:
    """The stretch of posture phase ``post`` played with ``aim`` and ``tmv`` from ``s``: its outcomes as candidate
    edges, each followed by what comes next (the next decision, a last word, or the end)."""
    side, rl = pk[0], pk[10]
    cnt, cand, cprob = st[5], st[6], st[7]
    n = rl[R_N]
    nl = n - rl[R_COST] * s[RED]
    role, k, after, word = _stretch(post, n, nl)
    x = s[LEAD] if role == 0 else 1 - s[LEAD]
    y = 1 - x
    bx, by = 5 + 6 * x, 5 + 6 * y
    ph2, lead2, red2 = _next(after, n, nl, s[LEAD])
    start, count = _outcomes(s, x, k, aim, tmv, NORMAL_MODE, pk, memo)
    rows, probs = memo[2], memo[3]
    row = s.copy()
    for r in range(start, start + count):
        o = rows[r]
        row[bx + STUN] = o[M_SX]
        row[by + T], row[by + DIS], row[by + IMM], row[by + STUN] = o[M_TY], o[M_DY], o[M_IY], o[M_SY]
        q = probs[r]
        if o[M_TY] < side[y, S_VOL]:
            m = cnt[3]
            if m >= cprob.size:
                cnt[2] = 2
                return
            cand[m, :] = row
            cand[m, PH], cand[m, LEAD] = ph2, lead2
            if red2 >= 0:
                cand[m, RED], cand[m, FIRST] = red2, 0
            cprob[m] = q
            cnt[3] += 1
        elif word < 0 or rl[R_LW] == 0 or (rl[R_LW_DYING] == 0 and o[M_TY] >= side[y, S_CAP]):
            _end(row, q, side, rl, st)
        elif side[y, S_AIMS] != 0 and o[M_DY] == 0:
            row[PH] = PH_LW_F if word == 1 else PH_LW_L
            _add(row, q, st)
            row[PH] = s[PH]
        else:
            _last_word(row, y, 0, q, pk, memo, st)


@njit(cache=True)
def _last_word(s: np.ndarray, y: int, aim: int, prob: float, pk: tuple, memo: tuple, st: tuple) -> None:
    """Fighter ``y``'s last word with ``aim`` from ``s``, then the end (candidate edges)."""
    side, rl = pk[0], pk[10]
    start, count = _outcomes(s, y, rl[R_LW_ACTIONS], aim, 0, LAST_WORD_MODE, pk, memo)
    by, bx = 5 + 6 * y, 5 + 6 * (1 - y)
    row = s.copy()
    for r in range(start, start + count):
        o = memo[2][r]
        row[by + STUN], row[by + T] = o[M_SX], o[M_TX]
        row[bx + T], row[bx + DIS], row[bx + IMM], row[bx + STUN] = o[M_TY], o[M_DY], o[M_IY], o[M_SY]
        _end(row, prob * memo[3][r], side, rl, st)


def _table(n: int) -> int:
    """The size of an open-addressing table for ``n`` keys: a power of two at least twice ``n``."""
    return 1 << max(4, int(2 * n).bit_length())


@njit(cache=True)
def _walk(pk: tuple, p_first: np.ndarray, rad: np.ndarray, max_states: int, max_edges: int, slots: int,
          memo_slots: int) -> tuple:
    """(comps, na, nb, opt, edge, to, p, status) of every state reachable from the start, laid out as
    :class:`~analysis.engine.game.Game`'s arrays (state 0 the start); status 0: done, 1: more than ``max_states``
    states, 2: more than ``max_edges`` edges or stretch outcomes (the caller retries with more room).  ``slots``
    and ``memo_slots`` size the hash tables (powers of two, :func:`_table`)."""
    side, post, fin, rl = pk[0], pk[1], pk[9], pk[10]
    mult = np.ones(NC, dtype=np.int64)
    for i in range(1, NC):
        mult[i] = mult[i - 1] * rad[i - 1]
    comps = np.zeros((max_states, NC), dtype=np.int64)
    to = np.empty(max_edges, dtype=np.int64)
    p = np.empty(max_edges)
    cnt = np.zeros(4, dtype=np.int64)
    st = (np.full(slots, -1, dtype=np.int64), np.zeros(slots, dtype=np.int64), comps, to, p, cnt,
          np.zeros((CANDIDATES, NC), dtype=np.int64), np.zeros(CANDIDATES), mult)
    memo = (np.full(memo_slots, -1, dtype=np.int64), np.zeros(memo_slots, dtype=np.int64),
            np.empty((max_edges // 4, NM), dtype=np.int64), np.empty(max_edges // 4), np.zeros(3, dtype=np.int64))
    na = np.zeros(max_states, dtype=np.int64)
    nb = np.zeros(max_states, dtype=np.int64)
    edge_of = np.zeros(max_states * 8 + 2, dtype=np.int64)
    opt = np.zeros(max_states + 1, dtype=np.int64)
    start = np.zeros(NC, dtype=np.int64)
    start[PH] = PH_START
    _add(start, 1.0, st)
    _flush(side, st)
    cnt[1] = 0
    n_opt = 0
    k = 0
    s = np.empty(NC, dtype=np.int64)
    t = np.empty(NC, dtype=np.int64)
    while k < cnt[0] and cnt[2] == 0 and memo[4][1] == 0:
        s[:] = comps[k]
        ph = s[PH]
        opt[k] = n_opt
        lead = s[LEAD]
        if ph == PH_END:
            k += 1
            continue
        if ph == PH_START:
            na[k] = nb[k] = 1
            edge_of[n_opt] = cnt[1]
            for f in range(2):
                if p_first[f] > 0.0:
                    t[:] = s
                    t[PH] = PH_INIT
                    t[LEAD] = f
                    t[FIRST] = 1
                    _add(t, p_first[f], st)
            _flush(side, st)
            n_opt += 1
            k += 1
            continue
        if ph == PH_INIT:
            na[k], nb[k] = side[0, S_NPOST], side[1, S_NPOST]
            if n_opt + na[k] * nb[k] + 1 >= edge_of.size:
                cnt[2] = 2
                break
            for i in range(na[k]):
                for j in range(nb[k]):
                    edge_of[n_opt] = cnt[1]
                    t[:] = s
                    t[PH] = PH_TURN_L
                    t[5 + NODEF], t[5 + MOV] = post[0, i, 0], post[0, i, 1]
                    t[11 + NODEF], t[11 + MOV] = post[1, j, 0], post[1, j, 1]
                    _add(t, 1.0, st)
                    _flush(side, st)
                    n_opt += 1
            k += 1
            continue
        leader = ph == PH_TURN_L or ph == PH_POST_L or ph == PH_AIM_L or ph == PH_POST_LD or ph == PH_AIM_LD \
            or ph == PH_POST_LS or ph == PH_AIM_LS or ph == PH_LW_L or ph == PH_POST_FIN or ph == PH_AIM_FIN
        x = lead if leader else 1 - lead
        turn = ph == PH_TURN_L or ph == PH_TURN_F or ph == PH_TURN_FD
        words = ph == PH_LW_F or ph == PH_LW_L
        aiming = ph == PH_AIM_L or ph == PH_AIM_F or ph == PH_AIM_FD or ph == PH_AIM_LD or ph == PH_AIM_FC \
            or ph == PH_AIM_LS or ph == PH_AIM_FIN
        count = 3 if turn else 7 if (words or aiming) else side[x, S_NPOST]
        if x == 0:
            na[k], nb[k] = count, 1
        else:
            na[k], nb[k] = 1, count
        if n_opt + count + 1 >= edge_of.size:
            cnt[2] = 2
            break
        for act in range(count):
            edge_of[n_opt] = cnt[1]
            t[:] = s
            if ph == PH_TURN_L:
                if act == 1:
                    t[PH] = PH_TURN_FD
                else:
                    _enter(t, PH_POST_L, rl)
                _add(t, 1.0, st)
            elif ph == PH_TURN_F:
                if act == 2:
                    _follow(t, AFTER_END_F, rl)
                else:
                    _enter(t, PH_POST_F, rl)
                _add(t, 1.0, st)
            elif ph == PH_TURN_FD:
                _enter(t, PH_POST_LS if act == 2 else PH_POST_FD, rl)
                _add(t, 1.0, st)
            elif words:
                _last_word(t, x, act, 1.0, pk, memo, st)
            elif ph == PH_POST_FIN:
                if side[x, S_AIMS] != 0 and s[5 + 6 * x + DIS] == 0:
                    t[PH] = PH_AIM_FIN
                    t[TMV] = post[x, act, 1]
                    _add(t, 1.0, st)
                else:
                    _finish(t, post[x, act, 1], 0, side, fin, st)
            elif ph == PH_AIM_FIN:
                _finish(t, s[TMV], act, side, fin, st)
            elif aiming:
                _resolve(t, ph - 1, act, s[TMV], pk, memo, st)
            else:
                bx = 5 + 6 * x
                t[bx + NODEF] = post[x, act, 0]
                t[bx + MOV] = post[x, act, 1]
                if side[x, S_AIMS] != 0 and s[bx + DIS] == 0:
                    t[PH] = ph + 1
                    t[TMV] = post[x, act, 1]
                    _add(t, 1.0, st)
                else:
                    _resolve(t, ph, 0, post[x, act, 1], pk, memo, st)
            _flush(side, st)
            n_opt += 1
        k += 1
    if memo[4][1] != 0:
        cnt[2] = 2
    n = cnt[0]
    opt[n] = n_opt
    edge_of[n_opt] = cnt[1]
    e = cnt[1]
    return comps[:n], na[:n], nb[:n], opt[:n + 1], edge_of[:n_opt + 1], to[:e], p[:e], cnt[2]
