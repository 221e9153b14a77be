"""Why numbers matter, per system (RULES.md section 7): one fighter against a crowd, the fair count of each
archetype against each weaker one, and the exponent k in "a side's strength grows as count^k".

The exponent is Lanchester's.  In his laws a fight between ``m`` and ``n``
fighters of one kind keeps ``m^k − n^k`` constant while they fight, so the
winner ends with ``s`` standing where ``s^k = m^k − n^k``: k = 1 is the linear
law (two beat one and one is left standing), k = 2 the square law (√3 ≈ 1.73
are left); the larger k, the fewer the larger side loses and the more numbers
decide a fight.  The lab fits k to Monte Carlo mirror fights of several size
pairs, each played both ways (m against n and n against m, so the edge of
being side A cancels): k is the root of

    Σ over size pairs [ (E_mn[s_A^k − s_B^k] − E_nm[s_A^k − s_B^k]) / (2·(m^k − n^k)) − 1 ] = 0,

where ``s_A``, ``s_B`` are the fighters of each side able to act at the end,
with a delta-method 95% interval.  Reading a dice system as a Lanchester
fight is the lab's (an *assumption*: no seed gives one), so each size pair's
own k is reported beside the fit to show how well one k serves.

>>> square = {(2, 1): ([0, 1, 2], [3, 0]), (1, 2): ([3, 0], [0, 1, 2])}
>>> round(lanchester(square).k, 6)
2.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import optimize, stats

from analysis.base.params import DicelabError
from analysis.engine.assumptions import COMBATS
from analysis.engine.combat import describe_fighter
from analysis.engine.results import fight_assumptions
from analysis.engine.system import System
from analysis.fights.fighters import load_fighter
from analysis.fights.setup import Setup
from analysis.present.tables import clean
from analysis.systems import all_systems
from analysis.tools.encounter import encounter

HERO, MOOK = "trained_armed", "novice_armed"
"""The crowd: one ``HERO`` against 1 .. ``COUNTS`` of ``MOOK``."""
COUNTS = 5
LADDER = ("novice", "trained", "veteran", "master")
"""The archetypes (in every system, weakest first) whose fair counts against each other are reported, with the
armed pair ``HERO`` against ``MOOK``."""
MIRROR = "trained_armed"
"""The fighter whose mirror fights of every size pair fit the exponent."""
SIZES = ((2, 1), (3, 2), (4, 3))
"""Size pairs ``(m, n)`` of the exponent's fit, each played as m against n and as n against m."""
EXACT_MAX = 3
"""The most fighters in a fight the report solves exactly (one against two); larger fights are Monte Carlo."""
N = 10_000
"""Monte Carlo fights per point."""
SEED = 20261202
"""The root seed of every Monte Carlo point of the section."""
MAX_COUNT = 12
"""The largest count a fair-count search tries."""


Survivors = Mapping[tuple[int, int], tuple[Sequence[float], Sequence[float]]]
"""Per size pair ``(m, n)``: the count (or weight) of fights ending with 0, 1, … of side A's ``m`` fighters able
to act, and the same for side B's ``n``."""
K_RANGE = (0.01, 40.0)
"""Where the exponent is searched."""


@dataclass(frozen=True)
class Exponent:
    """The fitted exponent ``k`` with its standard error and 95% interval, from ``fights`` fights."""

    k: float
    se: float
    ci: tuple[float, float]
    fights: int


def lanchester(survivors: Survivors) -> Exponent:
    """Lanchester's exponent fitted to the survivors of size pairs played both ways (see the module docstring);
    a pair must come with its reverse.

    >>> linear = {(2, 1): ([0, 1, 0], [1, 0]), (1, 2): ([1, 0], [0, 1, 0])}
    >>> round(lanchester(linear).k, 6)
    1.0
    """
    pairs = [(m, n) for m, n in survivors if m > n]
    if not pairs or any((n, m) not in survivors for m, n in pairs):
        raise DicelabError("the exponent needs size pairs of different sizes, each played both ways")
    ways = {mn: _weights(*survivors[mn]) for mn in survivors}

    def terms(k: float) -> list[tuple[float, float, float]]:
        """Per pair: the estimating term, and the variances of the two ways' means of s_A^k − s_B^k."""
        out = []
        for m, n in pairs:
            d = m ** k - n ** k
            (e1, v1), (e2, v2) = _moments(ways[(m, n)], k), _moments(ways[(n, m)], k)
            out.append(((e1 - e2) / (2 * d) - 1, v1 / (4 * d * d), v2 / (4 * d * d)))
        return out

    def g(k: float) -> float:
        return sum(t for t, _, _ in terms(k))

    lo, hi = K_RANGE
    if not g(lo) > 0 > g(hi):
        raise DicelabError(f"the exponent is outside {lo:g} .. {hi:g}: the larger side almost never loses a fighter")
    k = float(optimize.brentq(g, lo, hi, xtol=1e-12))
    h = 1e-5 * max(1.0, k)
    slope = (g(k + h) - g(k - h)) / (2 * h)
    se = math.sqrt(sum(v1 + v2 for _, v1, v2 in terms(k))) / abs(slope)
    z = float(stats.norm.ppf(0.975))
    return Exponent(k, se, (k - z * se, k + z * se), int(sum(w[0].sum() + w[1].sum() for w in ways.values())))


def _weights(a: Sequence[float], b: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Side A's and side B's survivor counts as arrays (index = fighters standing)."""
    return np.asarray(a, dtype=float), np.asarray(b, dtype=float)


def _moments(way: tuple[np.ndarray, np.ndarray], k: float) -> tuple[float, float]:
    """The mean of ``s_A^k − s_B^k`` over the fights of one way, and the variance of that mean.  A fight ends
    with one side at 0 standing (or both), so the survivors' marginals give every fight's value."""
    a, b = way
    n = a.sum()
    va, vb = np.arange(a.size, dtype=float) ** k, np.arange(b.size, dtype=float) ** k
    va[0] = vb[0] = 0.0
    mean = (a @ va - b @ vb) / n
    second = (a @ va ** 2 + b @ vb ** 2) / n
    return float(mean), float(max(second - mean * mean, 0.0) / n)


def grouped(system: System) -> bool:
    """Whether the lab fights groups in ``system`` (RULES.md section 7: an exact group chain and its simulator)."""
    return system.group is not None


GROUPED = tuple(s.id for s in all_systems() if grouped(s))
"""The systems whose group fights the lab models."""


def assumed(system: System, rules: Any, figure: str) -> dict[str, Any]:
    """The lab's assumptions a figure of this module rests on: its fights (the crowd's ``HERO`` against one and
    more ``MOOK``, or the exponent's ``MIRROR`` sides), one against one and in groups."""
    a, b = (HERO, MOOK) if figure == "crowd" else (MIRROR, MIRROR)
    return fight_assumptions(system.id, rules.to_dict(), [describe_fighter(load_fighter(system, a), rules)],
                             [describe_fighter(load_fighter(system, b), rules)], COMBATS)


def crowd(setup: Setup | None = None, counts: int = COUNTS, n: int = N, seed: int = SEED,
          readings: bool = False) -> pd.DataFrame:
    """One ``HERO`` against 1 .. ``counts`` ``MOOK`` in each system with group fights: P(side A wins), P(side B
    wins), how each point was computed (exact up to ``EXACT_MAX`` fighters), and n, SE and CI where simulated;
    ``readings``: under each system's other readings of the group rules instead (``System.group_readings``)."""
    setup = setup or Setup.build()
    rows = []
    for system, rules, reading, stream in _systems(setup, seed, readings):
        e = encounter(system, rules, [load_fighter(system, HERO)], [load_fighter(system, MOOK)], max_count=counts,
                      n=n, seed=_int(stream), exact_max=EXACT_MAX)
        rows += [{"system": system.id, "reading": reading, "a": HERO, "b": MOOK, **_point(pt)} for pt in e.curve]
    return clean(pd.DataFrame(rows, columns=["system", "reading", "a", "b", "count", "p_a_wins", "p_b_wins", "method",
                                             "n", "se", "ci_lo", "ci_hi"]))


def fair_counts(setup: Setup | None = None, n: int = N // 2, seed: int = SEED + 1,
                pairs: Sequence[tuple[str, str]] | None = None, readings: bool = False) -> pd.DataFrame:
    """The fair count of each archetype against each weaker one (``LADDER``, and ``HERO`` against ``MOOK``): the
    smallest count of B whose P(A wins) falls below 1/2, with P(A wins) there and one count before
    (``readings``: as :func:`crowd`)."""
    setup = setup or Setup.build()
    pairs = pairs if pairs is not None else [(HERO, MOOK)] + [(LADDER[j], LADDER[i]) for j in range(len(LADDER))
                                                               for i in range(j)]
    rows = []
    for system, rules, reading, stream in _systems(setup, seed, readings):
        for (a, b), s in zip(pairs, stream.spawn(len(pairs))):
            e = encounter(system, rules, [load_fighter(system, a)], [load_fighter(system, b)], max_count=MAX_COUNT,
                          n=n, seed=_int(s), until_fair=True, exact_max=EXACT_MAX - 1)
            last = e.curve[-1]
            before = e.curve[-2].p_a_wins if len(e.curve) > 1 and e.fair_count is not None else None
            rows.append({"system": system.id, "reading": reading, "a": a, "b": b, "fair_count": e.fair_count or pd.NA,
                         "p_a_wins_at": last.p_a_wins if e.fair_count is not None else None,
                         "p_a_wins_before": before, "method": e.method, "n": n,
                         "note": e.reason or ""})
    out = clean(pd.DataFrame(rows, columns=["system", "reading", "a", "b", "fair_count", "p_a_wins_at",
                                            "p_a_wins_before", "method", "n", "note"]))
    return out.astype({"fair_count": "Int64"})


def exponent_points(setup: Setup | None = None, n: int = N, seed: int = SEED + 2,
                    sizes: Sequence[tuple[int, int]] = SIZES, readings: bool = False) -> pd.DataFrame:
    """The Monte Carlo mirror fights the exponent is fitted to: ``MIRROR`` sides of every size pair, both ways;
    one row per side and count of its fighters standing at the end, with the fights that ended so (``readings``:
    as :func:`crowd`)."""
    from sims.api import simulate_group

    setup = setup or Setup.build()
    rows = []
    for system, rules, reading, stream in _systems(setup, seed, readings):
        f = load_fighter(system, MIRROR)
        ways = [(m, k) for m, k in sizes] + [(k, m) for m, k in sizes]
        for (m, k), s in zip(ways, stream.spawn(len(ways))):
            res = simulate_group(system.id, rules, [f] * m, [f] * k, n, seed=s, workers=1)
            for side in ("a", "b"):
                rows += [{"system": system.id, "reading": reading, "fighter": MIRROR, "m": m, "n_b": k, "side": side,
                          "standing": j, "fights": round(e.value * res.n), "n": res.n}
                         for j, e in res.survivors(side).items()]
    return pd.DataFrame(rows, columns=["system", "reading", "fighter", "m", "n_b", "side", "standing", "fights", "n"])


def exponents(points: pd.DataFrame) -> pd.DataFrame:
    """Lanchester's exponent k of each system (and reading), fitted to :func:`exponent_points`, with its interval and
    each size pair's own k (``k_pairs``: ``"m:n=k"``)."""
    rows = []
    for (system, reading), part in points.fillna({"reading": ""}).groupby(["system", "reading"], sort=False):
        survivors = {(int(m), int(k)): tuple(list(w.sort_values("standing")["fights"]) for _, w in
                                             way.groupby("side", sort=True))
                     for (m, k), way in part.groupby(["m", "n_b"], sort=False)}
        e = lanchester(survivors)
        own = []
        for m, k in survivors:
            if m > k:
                try:
                    own.append(f"{m}:{k}={lanchester({(m, k): survivors[(m, k)], (k, m): survivors[(k, m)]}).k:.2f}")
                except DicelabError:
                    own.append(f"{m}:{k}=—")
        rows.append({"system": system, "reading": reading, "fighter": part["fighter"].iloc[0], "k": e.k,
                     "k_lo": e.ci[0], "k_hi": e.ci[1], "se": e.se, "fights": e.fights // 2, "k_pairs": ", ".join(own)})
    return pd.DataFrame(rows, columns=["system", "reading", "fighter", "k", "k_lo", "k_hi", "se", "fights", "k_pairs"])


def tables(setup: Setup | None = None) -> dict[str, pd.DataFrame]:
    """The Groups section's tables (the report's and the notebook's): ``crowd``, ``fair_counts``,
    ``exponent_points`` and ``exponents`` under each system's ruleset, and ``group_readings``, the systems whose
    group rules read another way under each reading (:func:`readings`)."""
    setup = setup or Setup.build()
    t = {"crowd": crowd(setup), "fair_counts": fair_counts(setup), "exponent_points": exponent_points(setup)}
    t["exponents"] = exponents(t["exponent_points"])
    also_crowd, also_fair = crowd(setup, readings=True), fair_counts(setup, pairs=[(HERO, MOOK)], readings=True)
    also_k = exponents(exponent_points(setup, readings=True))
    t["group_readings"] = readings(pd.concat([t["crowd"], also_crowd]), pd.concat([t["fair_counts"], also_fair]),
                                   pd.concat([t["exponents"], also_k]))
    return t


def readings(crowds: pd.DataFrame, fair: pd.DataFrame, k: pd.DataFrame) -> pd.DataFrame:
    """Each system with other readings of its group rules, one row per reading (the default's and the others', the
    tables of :func:`crowd`, :func:`fair_counts` and :func:`exponents` concatenated over both): P(A wins) of
    ``HERO`` against ``COUNTS`` ``MOOK``, the fair count of ``MOOK`` against one ``HERO`` and the exponent."""
    shown = [s.id for s in all_systems() if grouped(s) and s.group_readings]
    last = crowds[crowds["count"] == crowds["count"].max()]
    hero = fair[(fair["a"] == HERO) & (fair["b"] == MOOK)]
    rows = []
    for r in k[k["system"].isin(shown)].itertuples():
        at = last[(last["system"] == r.system) & (last["reading"] == r.reading)]
        count = hero[(hero["system"] == r.system) & (hero["reading"] == r.reading)]
        rows.append({"system": r.system, "reading": r.reading, "a": HERO, "b": MOOK, "count": int(at["count"].iloc[0]),
                     "p_a_wins": float(at["p_a_wins"].iloc[0]), "fair_count": count["fair_count"].iloc[0],
                     "k": r.k, "k_lo": r.k_lo, "k_hi": r.k_hi})
    out = pd.DataFrame(rows, columns=["system", "reading", "a", "b", "count", "p_a_wins", "fair_count", "k", "k_lo",
                                      "k_hi"])
    return clean(out).astype({"fair_count": "Int64"})


def missing() -> list[str]:
    """The systems whose group fights the lab does not model yet."""
    return [s.id for s in all_systems() if not grouped(s)]


def _systems(setup: Setup, seed: int, others: bool = False) -> list[tuple[System, Any, str, np.random.SeedSequence]]:
    """Each system with group fights: its ruleset, the reading of its group rules (the fields its other readings
    change, at their values: ``"group_timing=economy"``; empty for a system with one reading) and its own child
    stream of ``SeedSequence(seed)`` (one per system id, so a system's numbers do not depend on which others are
    modelled).  ``others``: each of its other readings instead (``System.group_readings``), the r-th with the
    streams of ``SeedSequence([seed, r])``."""
    systems = list(all_systems())
    out = []
    for i, s in enumerate(systems):
        if not grouped(s):
            continue
        rules = setup.ruleset(s.id)
        fields = sorted({name for reading in s.group_readings for name in reading})
        if not others:
            out.append((s, rules, _reading(rules, fields), np.random.SeedSequence(seed).spawn(len(systems))[i]))
            continue
        for r, reading in enumerate(s.group_readings, start=1):
            if all(getattr(rules, name) == value for name, value in reading.items()):
                continue
            other = rules.replace(**reading)
            out.append((s, other, _reading(other, fields), np.random.SeedSequence([seed, r]).spawn(len(systems))[i]))
    return out


def _reading(rules: Any, fields: Sequence[str]) -> str:
    """The group reading in force, as ``field=value`` of each field a system's readings change."""
    return ", ".join(f"{name}={getattr(rules, name)}" for name in fields)


def _int(stream: np.random.SeedSequence) -> int:
    """An integer seed drawn from a child stream (what ``encounter`` takes and echoes)."""
    return int(stream.generate_state(1, np.uint64)[0])


def _point(pt: Any) -> dict[str, Any]:
    ci = pt.ci_p_a_wins or (None, None)
    return {"count": pt.count, "p_a_wins": pt.p_a_wins, "p_b_wins": pt.p_b_wins, "method": pt.method, "n": pt.n,
            "se": pt.se_p_a_wins, "ci_lo": ci[0], "ci_hi": ci[1]}
