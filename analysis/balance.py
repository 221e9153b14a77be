"""Balance tools: tune a check, translate checks and fights between systems,
what one more point is worth, what each rule variant changes, and a search for
the fighter settings that give the fight a designer wants.

Everything runs on the exact engine through the :class:`~analysis.system.System`
API, so it works for every system that fills that API in.

*Modifier* means an integer added to the system's main check value
``system.value`` (tristat ``target``, onesix ``rating``, tun ``limit``, kurs
``skill``); P(success) never falls as that value rises, in every system, so
the searches bisect over the value's allowed range.

*Distances* between duel figures are measured in designer units: one unit is
ten percentage points of a probability (P(A wins), P(death)) or a factor 1.5
in mean rounds (``|ln(r / r')| / ln 1.5``), and the terms add in quadrature::

    distance = sqrt(sum((dp / 0.10) ** 2) + (ln(rounds / wished) / ln 1.5) ** 2)

*P(death)* of a duel is P(A killed) + P(B killed) at the ruleset's ``lethal_at``
level (the expected number of deaths; equal to P(someone dies) unless both can
die in the same round).

Tools over fights (``design``, ``variants`` with fighters, ``equiv`` of a
fight) estimate their duels' time before starting (:mod:`analysis.budget`)
and refuse past a budget of about a minute (``budget`` seconds allows more);
a duel past the memory ceiling is skipped with a note.

>>> from analysis.system import get_system
>>> tri = get_system("tristat")
>>> tune(tri, tri.rules(), tri.args(target=7), 0.75).modifier
2
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from . import budget as cost
from .combat import describe_fighter
from .fighters import archetype, archetypes
from .params import Bool, Choice, DicelabError, Faces, Int, ParamError
from .pool import check_workers, cores, fork_or_spawn, process_pool
from .system import System
from .tables import text

TOL = 1e-12
"""Probabilities closer than this count as equal (float noise of exact sums)."""
TARGETS = tuple(round(0.05 * k, 2) for k in range(1, 20))
"""The target probabilities of :func:`tune_table`: 5%, 10%, ..., 95%."""
P_UNIT = 0.10
"""One distance unit of a probability: ten percentage points."""
ROUNDS_UNIT = math.log(1.5)
"""One distance unit of mean rounds: a factor 1.5."""
INT_SAMPLES = 3
"""Integer variants are tried at the smallest few allowed values other than the base (and ``none``)."""
MAX_SETTINGS = 20_000
"""The largest design grid accepted (its time is estimated, and refused past the budget, before it starts)."""
MIN_JOBS_PER_WORKER = 8
ESTIMATE_SAMPLE = 256
"""A larger grid's time is estimated from this many of its settings, drawn at random (with a fixed seed)."""


# ----------------------------------------------------------------- helpers
def _value_range(system: System) -> tuple[int, int]:
    """The allowed range of the system's main check value."""
    spec = system.CheckArgs.specs()[system.value]
    if not isinstance(spec, Int):
        raise DicelabError(f"{system.id}: the check value {system.value} is not an integer parameter")
    return spec.lo, spec.hi


class _Curve:
    """One check as its main value varies over the allowed range (memoised)."""

    def __init__(self, system: System, rules: Any, args: Any):
        self.system, self.rules, self.args = system, rules, args
        self.lo, self.hi = _value_range(system)
        self.base = getattr(args, system.value)
        self._results: dict[int, Any] = {}

    def result(self, value: int) -> Any:
        """The :class:`~analysis.results.CheckResult` at this value."""
        if value not in self._results:
            args = self.args.replace(**{self.system.value: value})
            self._results[value] = self.system.check(self.rules, args)
        return self._results[value]

    def __call__(self, value: int) -> float:
        return self.result(value).p_success

    def first(self, p: float) -> int:
        """The smallest value with P(success) >= p (within TOL); ``hi + 1`` when none."""
        lo, hi = self.lo, self.hi + 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self(mid) >= p - TOL:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def last(self, p: float) -> int:
        """The largest value with P(success) <= p (within TOL); ``lo - 1`` when none."""
        lo, hi = self.lo - 1, self.hi
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self(mid) <= p + TOL:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def nearest(self, p: float, anchor: int) -> int:
        """The value whose P(success) is closest to ``p``; ties (flat stretches) go to the value nearest ``anchor``."""
        k = self.first(p)
        levels = [self(v) for v in (k, k - 1) if self.lo <= v <= self.hi]
        best = min(abs(level - p) for level in levels)
        picks = []
        for level in levels:
            if abs(level - p) <= best + TOL:
                lo, hi = self.first(level), self.last(level)
                picks.append(min(max(anchor, lo), hi))
        return min(picks, key=lambda v: (abs(v - anchor), v))


def _cases_at(system: System, rules: Any, args: Any) -> list[int]:
    """The main values of the system's table cases at the given dice (tristat die, tun dice mode)."""
    name = system.value
    return [getattr(a, name) for _, r, a in system.table_cases(rules, args)
            if r == rules and a.replace(**{name: getattr(args, name)}) == args]


def _check_probability(name: str, p: float, lo_open: bool = False) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not (0 < p <= 1 if lo_open else 0 <= p <= 1):
        raise ParamError(name, p, "a probability in (0, 1]" if lo_open else "a probability in 0..1")
    return float(p)


def show_p(p: float, digits: int = 6) -> str:
    """A probability with at least ``digits`` decimals and as many more as it takes to stay true (never ``1``
    for a P below 1, nor ``0`` for one above 0).

    >>> show_p(0.75), show_p(0.9999999), show_p(1.0), show_p(3e-9)
    ('0.750000', '0.9999999', '1.000000', '0.000000003')
    """
    for places in range(digits, 18):
        shown = f"{p:.{places}f}"
        if (p == 1 or float(shown) != 1) and (p == 0 or float(shown) != 0):
            return shown
    return repr(p)


def _echo(system: System, rules: Any, args: Any) -> dict[str, Any]:
    return {"system": system.id, "variants": rules.to_dict(), "params": args.to_dict()}


# -------------------------------------------------------------------- tune
@dataclass(frozen=True)
class TuneResult:
    """The smallest modifier that brings a check to P(success) >= p."""

    system: str
    variants: Mapping[str, Any]
    params: Mapping[str, Any]
    value_name: str
    p: float
    modifier: int
    value: int
    p_at_modifier: float
    p_below: float | None
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "variants": dict(self.variants), "params": dict(self.params),
                "notes": list(self.notes)}


def tune(system: System, rules: Any, args: Any, p: float) -> TuneResult:
    """The smallest modifier to ``system.value`` giving P(success) >= p.

    Raises :class:`DicelabError` naming the ceiling when no allowed value reaches p.

    >>> from analysis.system import get_system
    >>> kurs = get_system("kurs")
    >>> r = tune(kurs, kurs.rules(), kurs.args(skill=0), 0.9)
    >>> r.modifier, round(r.p_at_modifier, 4), round(r.p_below, 4)
    (3, 0.9398, 0.8657)
    """
    return _tune_on(_Curve(system, rules, args), _check_probability("p", p, lo_open=True))


def _tune_on(curve: _Curve, p: float) -> TuneResult:
    system, name = curve.system, curve.system.value
    value = curve.first(p)
    if value > curve.hi:
        ceiling = curve(curve.hi)
        at = curve.first(ceiling)
        raise DicelabError(
            f"no modifier brings this {system.id} check to P(success) >= {p!r}: the ceiling is P = {show_p(ceiling)}, "
            f"first reached at modifier {at - curve.base:+d} ({name} {at}; {name} is allowed up to {curve.hi})")
    notes = ()
    if value == curve.lo:
        notes = (f"every allowed modifier reaches it: P(success) is {show_p(curve(value))} even at the lowest {name} "
                 f"({value})",)
    return TuneResult(
        system=system.id, variants=curve.rules.to_dict(), params=curve.args.to_dict(), value_name=name, p=p,
        modifier=value - curve.base, value=value, p_at_modifier=curve(value),
        p_below=curve(value - 1) if value > curve.lo else None, notes=notes)


@dataclass(frozen=True)
class TuneTable:
    """For each target probability 5% ... 95%, the modifier needed (``None``: out of reach)."""

    system: str
    variants: Mapping[str, Any]
    params: Mapping[str, Any]
    value_name: str
    rows: tuple[Mapping[str, Any], ...]
    ceiling: float
    floor: float

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, "variants": dict(self.variants), "params": dict(self.params),
                "value_name": self.value_name, "ceiling": self.ceiling, "floor": self.floor,
                "rows": [dict(r) for r in self.rows]}


def tune_table(system: System, rules: Any, args: Any) -> TuneTable:
    """:func:`tune` at every probability of ``TARGETS``; ``at_floor`` marks targets every modifier reaches.

    >>> from analysis.system import get_system
    >>> tri = get_system("tristat")
    >>> t = tune_table(tri, tri.rules(), tri.args(target=7))
    >>> [(r["p"], r["modifier"]) for r in t.rows][-2:]
    [(0.9, 3), (0.95, 4)]
    """
    curve = _Curve(system, rules, args)
    rows = []
    for p in TARGETS:
        try:
            res = _tune_on(curve, p)
            rows.append({"p": p, "modifier": res.modifier, "value": res.value, "p_at_modifier": res.p_at_modifier,
                         "at_floor": bool(res.notes)})
        except DicelabError:
            rows.append({"p": p, "modifier": None, "value": None, "p_at_modifier": None, "at_floor": False})
    return TuneTable(system.id, rules.to_dict(), args.to_dict(), system.value, tuple(rows),
                     ceiling=curve(curve.hi), floor=curve(curve.lo))


# ------------------------------------------------------------ equivalence
@dataclass(frozen=True)
class Equivalence:
    """A check of one system and the value of another system's main parameter with the nearest P(success)."""

    source: Mapping[str, Any]
    target: Mapping[str, Any]
    value_name: str
    p_from: float
    value: int
    p_to: float

    def to_dict(self) -> dict[str, Any]:
        return {"from": dict(self.source), "to": dict(self.target), "value_name": self.value_name,
                "p_from": self.p_from, "value": self.value, "p_to": self.p_to}


def equiv(source: System, rules: Any, args: Any, target: System, target_rules: Any, target_args: Any) -> Equivalence:
    """The value of ``target.value`` whose P(success) is closest to the source check's.

    ``target_args`` fixes the target's other parameters; its own main value
    only breaks ties (a flat stretch of P goes to the value nearest it), so a
    system translated to itself with the same arguments is the identity.

    >>> from analysis.system import get_system
    >>> tri, six = get_system("tristat"), get_system("onesix")
    >>> e = equiv(tri, tri.rules(), tri.args(target=7), six, six.rules(), six.args())
    >>> round(e.p_from, 4), e.value, round(e.p_to, 4)
    (0.5833, 8, 0.5741)
    """
    p_from = source.check(rules, args).p_success
    curve = _Curve(target, target_rules, target_args)
    value = curve.nearest(p_from, curve.base)
    return Equivalence(_echo(source, rules, args), _echo(target, target_rules, target_args.replace(**{target.value: value})),
                       target.value, p_from, value, curve(value))


@dataclass(frozen=True)
class EquivTable:
    """The source system's whole range (at its dice) mapped to the target's main value."""

    source: Mapping[str, Any]
    target: Mapping[str, Any]
    source_value: str
    value_name: str
    rows: tuple[Mapping[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"from": dict(self.source), "to": dict(self.target), "source_value": self.source_value,
                "value_name": self.value_name, "rows": [dict(r) for r in self.rows]}


def equiv_table(source: System, rules: Any, args: Any, target: System, target_rules: Any, target_args: Any) -> EquivTable:
    """:func:`equiv` for every table case of the source at its dice.

    >>> from analysis.system import get_system
    >>> tri, kurs = get_system("tristat"), get_system("kurs")
    >>> t = equiv_table(tri, tri.rules(die=4), tri.args(), kurs, kurs.rules(), kurs.args())
    >>> [(r["from"], r["value"]) for r in t.rows]
    [(2, -4), (3, -3), (4, -1), (5, 0), (6, 2), (7, 3), (8, 3)]
    """
    src = _Curve(source, rules, args)
    dst = _Curve(target, target_rules, target_args)
    rows = []
    for v in _cases_at(source, rules, args):
        value = dst.nearest(src(v), dst.base)
        rows.append({"from": v, "p_from": src(v), "value": value, "p_to": dst(value)})
    return EquivTable(_echo(source, rules, args), _echo(target, target_rules, target_args), source.value,
                      target.value, tuple(rows))


# ----------------------------------------------------------------- duels
@dataclass(frozen=True)
class DuelFigures:
    """The figures of an exact duel the balance tools compare."""

    p_a_wins: float
    p_b_wins: float
    p_both_out: float
    p_death: float
    mean_rounds: float
    p_stalemate: float
    p_a_killed: float = 0.0
    p_b_killed: float = 0.0

    @classmethod
    def of(cls, result: Any) -> "DuelFigures":
        """The figures of a :class:`~analysis.combat.DuelResult`; P(death) and P(killed) count the ruleset's
        ``lethal_at`` level; a fight that never ends has infinite mean rounds."""
        s = result.solution
        killed = s.killed(result.variants.get("lethal_at", "dying"))
        mean = s.mean_rounds if s.mean_rounds is not None else math.inf
        return cls(s.p_a_wins, s.p_b_wins, s.p_both_out, sum(killed), mean, s.p_stalemate, *killed)

    def delta(self, base: "DuelFigures") -> dict[str, float]:
        """The change from ``base``: probabilities as differences, mean rounds also as a log ratio (0 when
        neither fight ends, infinite when one of them never does)."""
        endless = math.isinf(self.mean_rounds) and math.isinf(base.mean_rounds)
        if endless:
            log_ratio = 0.0
        elif math.isinf(self.mean_rounds) or math.isinf(base.mean_rounds):
            log_ratio = math.inf if math.isinf(self.mean_rounds) else -math.inf
        else:
            log_ratio = math.log(self.mean_rounds / base.mean_rounds)
        return {"p_a_wins": self.p_a_wins - base.p_a_wins, "p_death": self.p_death - base.p_death,
                "p_a_killed": self.p_a_killed - base.p_a_killed, "p_b_killed": self.p_b_killed - base.p_b_killed,
                "mean_rounds": self.mean_rounds - base.mean_rounds if not endless else 0.0,
                "log_rounds_ratio": log_ratio}

    def to_dict(self) -> dict[str, float]:
        return dataclasses.asdict(self)


def figure_distance(probabilities: Sequence[tuple[float, float]], rounds: tuple[float, float]) -> float:
    """The normalised distance of the module docstring; ``inf`` when a fight never ends.

    >>> round(figure_distance([(0.5, 0.6)], (4.0, 6.0)), 6)
    1.414214
    """
    if min(rounds) <= 0 or not all(math.isfinite(r) for r in rounds):
        return math.inf
    terms = [((x - y) / P_UNIT) ** 2 for x, y in probabilities]
    terms.append((math.log(rounds[0] / rounds[1]) / ROUNDS_UNIT) ** 2)
    return math.sqrt(sum(terms))


def _require_duel(system: System) -> None:
    if system.duel is None or system.Fighter is None:
        raise DicelabError(f"{system.id} has no exact duel yet")


def _solve_one(system: System, max_memory: float | None, job: tuple[Any, Any, Any]) -> DuelFigures | str:
    """One duel's figures, or the message of the error that stopped it (a duel past the memory ceiling is not
    started)."""
    try:
        cost.check_duel(system, *job, limit_gb=max_memory, option="--max-memory GB")
        return DuelFigures.of(system.duel(*job))
    except (DicelabError, NotImplementedError) as err:
        return str(err) or type(err).__name__


def _workers(workers: int | None, jobs: int) -> int:
    """The process count: as asked (at most one per job), or by default the cores, each with a few jobs."""
    if workers is None:
        return max(1, min(cores(), jobs // MIN_JOBS_PER_WORKER))
    return max(1, min(check_workers(workers, "processes"), jobs))


def estimate_seconds(system: System, jobs: Sequence[tuple[Any, Any, Any]], max_memory: float | None = None) -> float:
    """The one-process time of the duels ``jobs`` (from :data:`ESTIMATE_SAMPLE` of them spread over the list when
    there are more); a duel past the memory ceiling counts nothing: it will be skipped."""
    if len(jobs) <= ESTIMATE_SAMPLE:
        sample = list(jobs)
    else:  # a fixed random sample: an even stride could fall in step with the grid
        picks = np.random.default_rng(0).choice(len(jobs), ESTIMATE_SAMPLE, replace=False)
        sample = [jobs[i] for i in sorted(picks)]
    limit = cost.max_memory(max_memory)
    admitted = [job for job in sample if cost.duel_bytes(system, *job) <= limit]
    return cost.duels_seconds(system, admitted) * len(jobs) / max(1, len(sample))


Progress = Callable[[int], Any]
"""A progress factory: called with the number of duels, it returns an :class:`analysis.progress.Progress`."""


def solve_duels(system: System, jobs: Sequence[tuple[Any, Any, Any]], workers: int | None = None,
                budget: float | None = None, max_memory: float | None = None, progress: Progress | None = None,
                what: str = "duels") -> list[DuelFigures | str]:
    """Exact duels ``(rules, a, b)`` in order, over ``workers`` processes (default: the cores, for many jobs).

    The duels' time is estimated first and refused past ``budget`` seconds
    (:func:`analysis.budget.check_budget`); a duel past ``max_memory`` GB is
    skipped (its message in place of figures).  Each duel is exact and
    independent, so the results do not depend on the worker count.
    """
    n = _workers(workers, len(jobs))
    wall = cost.check_budget(what, estimate_seconds(system, jobs, max_memory), n, budget)
    bar = progress(len(jobs)) if progress is not None else None
    if bar is not None and wall >= 2:
        bar.note(f"{len(jobs):,} exact duels, about {cost.human(wall)} on {n} process{'es' * (n > 1)}")
    run = partial(_solve_one, system, max_memory)
    out: list[DuelFigures | str] = []
    try:
        if n == 1:
            for job in jobs:
                out.append(run(job))
                if bar is not None:
                    bar.update(1)
            return out
        pool = process_pool(n, fork_or_spawn())
        try:
            for figures in pool.map(run, jobs, chunksize=max(1, min(16, len(jobs) // (8 * n)))):
                out.append(figures)
                if bar is not None:
                    bar.update(1)
        finally:
            pool.shutdown(wait=len(out) == len(jobs), cancel_futures=True)
        return out
    finally:
        if bar is not None:
            bar.close()


@dataclass(frozen=True)
class FightMatch:
    """An archetype pairing of the target system and how near its duel is."""

    a: str
    b: str
    figures: DuelFigures
    distance: float

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, **self.figures.to_dict(), "distance": self.distance}


@dataclass(frozen=True)
class FightEquivalence:
    """A duel of one system and the nearest archetype pairings of another."""

    source: Mapping[str, Any]
    target: Mapping[str, Any]
    figures: DuelFigures
    matches: tuple[FightMatch, ...]
    pairings: int
    skipped: tuple[str, ...] = ()
    distance: str = "sqrt((dP(A wins) / 0.10)^2 + (ln(mean rounds ratio) / ln 1.5)^2)"

    def to_dict(self) -> dict[str, Any]:
        return {"from": {**self.source, **self.figures.to_dict()}, "to": dict(self.target), "distance": self.distance,
                "pairings": self.pairings, "skipped": list(self.skipped), "matches": [m.to_dict() for m in self.matches]}


def equiv_fight(source: System, rules: Any, a: Any, b: Any, target: System, target_rules: Any,
                top: int = 3, workers: int | None = None, budget: float | None = None,
                max_memory: float | None = None, progress: Progress | None = None) -> FightEquivalence:
    """The ``top`` ordered archetype pairings (X, Y) of ``target`` whose duel is nearest A vs B's in ``source``.

    Nearness is :func:`figure_distance` on P(A wins) and mean rounds; ``budget``,
    ``max_memory`` and ``progress`` as in :func:`solve_duels`.
    """
    for s in (source, target):
        _require_duel(s)
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ParamError("top", top, "an integer >= 1")
    cost.check_duel(source, rules, a, b, limit_gb=max_memory, option="--max-memory GB")
    names = list(archetypes(target.id))
    if not names:
        raise DicelabError(f"{target.id} has no archetypes to pair")
    fighters = {n: archetype(target, n) for n in names}
    pairs = list(itertools.product(names, names))
    jobs = [(target_rules, fighters[x], fighters[y]) for x, y in pairs]
    cost.check_budget("equiv", estimate_seconds(source, [(rules, a, b)]) + estimate_seconds(target, jobs, max_memory),
                      _workers(workers, len(jobs)), budget)
    figures = DuelFigures.of(source.duel(rules, a, b))
    solved = solve_duels(target, jobs, workers, budget, max_memory, progress, "equiv")
    matches, skipped = [], []
    for (x, y), f in zip(pairs, solved):
        if isinstance(f, str):
            skipped.append(f"{x} vs {y}: {f}")
            continue
        matches.append(FightMatch(x, y, f, figure_distance([(f.p_a_wins, figures.p_a_wins)], (f.mean_rounds, figures.mean_rounds))))
    matches.sort(key=lambda m: m.distance)
    src = {"system": source.id, "variants": rules.to_dict(), "a": describe_fighter(a, rules), "b": describe_fighter(b, rules)}
    return FightEquivalence(src, {"system": target.id, "variants": target_rules.to_dict()}, figures,
                            tuple(matches[:top]), len(pairs), tuple(skipped))


# ------------------------------------------------------------------ worth
@dataclass(frozen=True)
class Worth:
    """At each place of the range: P(success), what one more point buys, and the outcome spread."""

    system: str
    variants: Mapping[str, Any]
    params: Mapping[str, Any]
    value_name: str
    outcome: str
    rows: tuple[Mapping[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, "variants": dict(self.variants), "params": dict(self.params),
                "value_name": self.value_name, "outcome": self.outcome, "rows": [dict(r) for r in self.rows]}


def worth(system: System, rules: Any, args: Any) -> Worth:
    """Rows over the table cases at the given dice: ``value``, ``modifier`` (from the given value),
    ``p_success``, ``delta_p`` = P(value + 1) - P(value), and the mean and std of the outcome measure.

    >>> from analysis.system import get_system
    >>> tri = get_system("tristat")
    >>> w = worth(tri, tri.rules(), tri.args(target=7))
    >>> max(w.rows, key=lambda r: r["delta_p"])["value"], w.outcome
    (6, 'margin')
    """
    curve = _Curve(system, rules, args)
    rows = []
    for v in _cases_at(system, rules, args):
        res = curve.result(v)
        rows.append({"value": v, "modifier": v - curve.base, "p_success": res.p_success,
                     "delta_p": curve(v + 1) - res.p_success if v < curve.hi else None,
                     "mean": res.distribution.mean(), "std": res.distribution.std()})
    outcome = curve.result(curve.base).outcome
    return Worth(system.id, rules.to_dict(), args.to_dict(), system.value, outcome, tuple(rows))


# --------------------------------------------------------------- variants
def rule_alternatives(system: System, base: Any) -> Iterator[tuple[str, Any, str]]:
    """``(field, value, label)`` for every value of every rule variant (a reading of the text) other than the base's.

    Integers: the smallest ``INT_SAMPLES`` allowed values (and ``none`` when allowed);
    die faces: the named presets.

    >>> from analysis.system import get_system
    >>> six = get_system("onesix")
    >>> [label for name, _, label in rule_alternatives(six, six.rules()) if name == "explode_depth"]
    ['explode_depth=0', 'explode_depth=1', 'explode_depth=2']
    """
    yield from alternatives(system.Rules.specs("variant"), base)


def alternatives(specs: Mapping[str, Any], base: Any) -> Iterator[tuple[str, Any, str]]:
    """``(field, value, label)`` for every value of the fields ``specs`` of ``base`` other than the current one
    (the sampling of :func:`rule_alternatives`)."""
    for name, spec in specs.items():
        current = getattr(base, name)
        if isinstance(spec, Bool):
            values = [(not current, text(not current))]
        elif isinstance(spec, Choice):
            values = [(c, text(c)) for c in spec.choices if c != current]
        elif isinstance(spec, Faces):
            values = [(faces, preset) for preset, faces in spec.presets.items() if faces != current]
        elif isinstance(spec, Int):
            ints = [v for v in range(spec.lo, spec.hi + 1) if v != current][:INT_SAMPLES]
            values = [(v, text(v)) for v in ([None] if spec.optional and current is not None else []) + ints]
        else:
            continue
        for value, shown in values:
            yield name, value, f"{name}={shown}"


@dataclass(frozen=True)
class VariantEffect:
    """What one rule variant changes against the base ruleset."""

    name: str
    value: Any
    label: str
    check_max_dp: float
    check_mean_dp: float
    cases: int
    duel: DuelFigures | None = None
    duel_delta: Mapping[str, float] | None = None
    note: str = ""

    @property
    def effect(self) -> float:
        """Effect size in distance units: the largest of the check table's max |dP| / 0.10 and, with a duel,
        |dP(A wins)| / 0.10, |dP(death)| / 0.10 and |ln(mean rounds ratio)| / ln 1.5."""
        terms = [self.check_max_dp / P_UNIT]
        if self.duel_delta is not None:
            d = self.duel_delta
            terms += [abs(d["p_a_wins"]) / P_UNIT, abs(d["p_death"]) / P_UNIT, abs(d["log_rounds_ratio"]) / ROUNDS_UNIT]
        return max(terms)

    def to_dict(self) -> dict[str, Any]:
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return {"name": self.name, "value": value, "label": self.label, "effect": self.effect,
                "check_max_dp": self.check_max_dp, "check_mean_dp": self.check_mean_dp, "cases": self.cases,
                "duel": self.duel.to_dict() if self.duel else None,
                "duel_delta": dict(self.duel_delta) if self.duel_delta is not None else None, "note": self.note}


@dataclass(frozen=True)
class VariantReport:
    """Every rule variant of a system, sorted by effect size (largest first)."""

    system: str
    variants: Mapping[str, Any]
    params: Mapping[str, Any]
    a: Mapping[str, Any] | None
    b: Mapping[str, Any] | None
    base_duel: DuelFigures | None
    effects: tuple[VariantEffect, ...]
    policies: tuple["PolicyEffect", ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, "variants": dict(self.variants), "params": dict(self.params),
                "a": self.a, "b": self.b, "base_duel": self.base_duel.to_dict() if self.base_duel else None,
                "effects": [e.to_dict() for e in self.effects], "policies": [p.to_dict() for p in self.policies]}


@dataclass(frozen=True)
class PolicyEffect:
    """What one tactical choice of fighter A (a ``policy`` field) does to the duel against the plain B."""

    name: str
    value: Any
    label: str
    duel: DuelFigures | None
    duel_delta: Mapping[str, float] | None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return {"name": self.name, "value": value, "label": self.label,
                "duel": self.duel.to_dict() if self.duel else None,
                "duel_delta": dict(self.duel_delta) if self.duel_delta is not None else None, "note": self.note}


def _table(system: System, rules: Any, args: Any) -> dict[tuple[str, int], tuple[Any, Any]]:
    return {(mode, getattr(a, system.value)): (r, a) for mode, r, a in system.table_cases(rules, args)}


def _check_effect(system: System, base: Any, args: Any, name: str, value: Any,
                  base_p: dict[tuple[str, int], float]) -> tuple[float, float, int]:
    """(max |dP|, mean |dP|, cases) over the union of both rulesets' table cases."""
    alt = base.replace(**{name: value})
    cases_base, cases_alt = _table(system, base, args), _table(system, alt, args)
    diffs = []
    for key in dict.fromkeys([*cases_base, *cases_alt]):
        if key not in base_p:
            r, a = cases_base.get(key) or (cases_alt[key][0].replace(**{name: getattr(base, name)}), cases_alt[key][1])
            base_p[key] = system.check(r, a).p_success
        r, a = cases_alt.get(key) or (cases_base[key][0].replace(**{name: value}), cases_base[key][1])
        diffs.append(abs(system.check(r, a).p_success - base_p[key]))
    return max(diffs, default=0.0), sum(diffs) / max(len(diffs), 1), len(diffs)


def variants(system: System, rules: Any | None = None, args: Any | None = None, a: Any | None = None,
             b: Any | None = None, workers: int | None = None, budget: float | None = None,
             max_memory: float | None = None, progress: Progress | None = None) -> VariantReport:
    """Each rule variant's effect on the standard check table and, given fighters, on their duel; and each
    policy of fighter A (the fields of kind ``policy``: stances, options) against the plain B, best for A first.

    A duel that raises :class:`DicelabError` (or is past the memory ceiling) is skipped with a note; the duels'
    time is estimated first (``budget``, ``max_memory``, ``progress``: as in :func:`solve_duels`).

    >>> from analysis.system import get_system
    >>> tun = get_system("tun")
    >>> rep = variants(tun)
    >>> le = next(e for e in rep.effects if e.label == "success_rule=le")
    >>> round(le.check_max_dp, 4), le.effect == max(e.effect for e in rep.effects)
    (0.1667, True)
    """
    base = rules if rules is not None else system.rules()
    args = args if args is not None else system.args()
    if (a is None) != (b is None):
        raise DicelabError("variants: give both fighters A and B, or neither")
    rule_alts = list(rule_alternatives(system, base))
    base_p: dict[tuple[str, int], float] = {}
    checks = [_check_effect(system, base, args, name, value, base_p) for name, value, _ in rule_alts]
    duels: list[DuelFigures | str | None] = [None] * len(rule_alts)
    base_duel, policies = None, ()
    if a is not None:
        _require_duel(system)
        cost.check_duel(system, base, a, b, limit_gb=max_memory, option="--max-memory GB")
        policy_alts = list(alternatives(system.Fighter.specs("policy"), a))
        jobs = [(base, a, b)] + [_job(lambda: (base.replace(**{n: v}), a, b)) for n, v, _ in rule_alts] \
            + [_job(lambda: (base, a.replace(**{n: v}), b)) for n, v, _ in policy_alts]
        solved = _solve_valid(system, jobs, workers, budget, max_memory, progress, "variants")
        if isinstance(solved[0], str):
            raise DicelabError(f"variants: the duel of A and B cannot be solved: {solved[0]}")
        base_duel, duels = solved[0], solved[1:1 + len(rule_alts)]
        policies = _policy_effects(policy_alts, solved[1 + len(rule_alts):], base_duel)
    effects = []
    dimensions = {n for _, r, _ in system.table_cases(base, args) for n in system.Rules.specs() if getattr(r, n) != getattr(base, n)}
    for (name, value, label), (mx, mean, n), duel in zip(rule_alts, checks, duels):
        note = f"the check table runs over every {name}, so it does not change" if name in dimensions else ""
        if isinstance(duel, str):
            effects.append(VariantEffect(name, value, label, mx, mean, n, note="; ".join(filter(None, [note, f"duel skipped: {duel}"]))))
        elif duel is None:
            effects.append(VariantEffect(name, value, label, mx, mean, n, note=note))
        else:
            effects.append(VariantEffect(name, value, label, mx, mean, n, duel, duel.delta(base_duel), note))
    effects.sort(key=lambda e: -e.effect)
    return VariantReport(system.id, base.to_dict(), args.to_dict(),
                         describe_fighter(a, base) if a is not None else None,
                         describe_fighter(b, base) if b is not None else None, base_duel, tuple(effects),
                         policies)


def _job(make: Callable[[], tuple[Any, Any, Any]]) -> tuple[Any, Any, Any] | str:
    """A duel job, or why it cannot be made (a value another field does not allow, e.g. an aimed shot in melee)."""
    try:
        return make()
    except DicelabError as err:
        return f"not allowed here: {err}"


def _solve_valid(system: System, jobs: Sequence[tuple[Any, Any, Any] | str], *args: Any) -> list[DuelFigures | str]:
    """:func:`solve_duels` over the jobs that could be made; the others keep their reason."""
    valid = [job for job in jobs if not isinstance(job, str)]
    solved = iter(solve_duels(system, valid, *args))
    return [job if isinstance(job, str) else next(solved) for job in jobs]


def _policy_effects(alts: Sequence[tuple[str, Any, str]], solved: Sequence[DuelFigures | str],
                    base: DuelFigures) -> tuple[PolicyEffect, ...]:
    """Policies ranked by what they do to P(A wins), largest gain first; a duel that failed last, with its note."""
    effects = [PolicyEffect(name, value, label, None, None, f"duel skipped: {duel}") if isinstance(duel, str)
               else PolicyEffect(name, value, label, duel, duel.delta(base)) for (name, value, label), duel in zip(alts, solved)]
    return tuple(sorted(effects, key=lambda e: (e.duel_delta is None, -(e.duel_delta or {}).get("p_a_wins", 0.0), e.label)))


# ----------------------------------------------------------------- design
VARY = re.compile(r"^\s*(?:(a|b)\.)?([A-Za-z_]\w*)\s*=\s*(-?\d+)\s*(?:\.\.\s*(-?\d+)\s*)?$")


@dataclass(frozen=True)
class Vary:
    """One searched fighter parameter: ``side`` is ``a``, ``b`` or ``both`` (a bare name: both get the same value)."""

    side: str
    name: str
    lo: int
    hi: int

    @property
    def label(self) -> str:
        return self.name if self.side == "both" else f"{self.side}.{self.name}"

    def __str__(self) -> str:
        return f"{self.label}={self.lo}..{self.hi}"


def parse_vary(text_: str) -> tuple[Vary, ...]:
    """``a.weapon_damage=0..20,b.armor=0..6,body=3..5`` (a single integer: a fixed value).

    >>> [str(v) for v in parse_vary("a.weapon_damage=0..20, armor=2")]
    ['a.weapon_damage=0..20', 'armor=2..2']
    """
    out: list[Vary] = []
    for item in (i for i in text_.split(",") if i.strip()):
        m = VARY.match(item)
        if not m:
            raise DicelabError(f"--vary {item.strip()!r} is not of the form [a.|b.]NAME=LO..HI")
        side, name, lo, hi = m.group(1) or "both", m.group(2), int(m.group(3)), int(m.group(4) or m.group(3))
        if lo > hi:
            raise DicelabError(f"--vary {item.strip()!r}: the range is empty (LO > HI)")
        out.append(Vary(side, name, lo, hi))
    if not out:
        raise DicelabError("--vary needs at least one PARAM=LO..HI")
    return _distinct(tuple(out))


def _distinct(vary: tuple[Vary, ...]) -> tuple[Vary, ...]:
    seen: set[tuple[str, str]] = set()
    for v in vary:
        for side in (("a", "b") if v.side == "both" else (v.side,)):
            if (side, v.name) in seen:
                raise DicelabError(f"--vary sets {side}.{v.name} twice")
            seen.add((side, v.name))
    return vary


@dataclass(frozen=True)
class DesignPoint:
    """One searched setting, its fighters and duel figures, and its distance from the wish."""

    setting: Mapping[str, int]
    a: Mapping[str, Any]
    b: Mapping[str, Any]
    figures: DuelFigures
    distance: float

    def to_dict(self) -> dict[str, Any]:
        return {"setting": dict(self.setting), **self.figures.to_dict(), "distance": self.distance,
                "a": dict(self.a), "b": dict(self.b)}


@dataclass(frozen=True)
class DesignResult:
    """The best settings of a design search, nearest first."""

    system: str
    variants: Mapping[str, Any]
    a: Mapping[str, Any]
    b: Mapping[str, Any]
    vary: tuple[str, ...]
    wish: Mapping[str, float | None]
    settings: int
    best: tuple[DesignPoint, ...]
    skipped: tuple[str, ...] = ()
    distance: str = ("sqrt((ln(mean rounds / rounds) / ln 1.5)^2 + ((P(death) - lethality) / 0.10)^2"
                     " [+ ((P(A wins) - p_win) / 0.10)^2])")

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, "variants": dict(self.variants), "a": dict(self.a), "b": dict(self.b),
                "vary": list(self.vary), "wish": dict(self.wish), "distance": self.distance, "settings": self.settings,
                "skipped": list(self.skipped), "best": [p.to_dict() for p in self.best]}


def _setting_fighters(a: Any, b: Any, vary: Sequence[Vary], values: Sequence[int]) -> tuple[Any, Any]:
    changes: dict[str, dict[str, int]] = {"a": {}, "b": {}}
    for v, x in zip(vary, values):
        for side in (("a", "b") if v.side == "both" else (v.side,)):
            changes[side][v.name] = x
    return a.replace(**changes["a"]), b.replace(**changes["b"])


def design(system: System, rules: Any, a: Any, b: Any, vary: str | Sequence[Vary], rounds: float, lethality: float,
           p_win: float | None = None, top: int = 5, workers: int | None = None, budget: float | None = None,
           max_memory: float | None = None, progress: Progress | None = None) -> DesignResult:
    """Search the integer grid ``vary`` for the duels nearest the wished mean rounds, P(death) and P(A wins).

    ``budget``, ``max_memory`` and ``progress``: as in :func:`solve_duels` (the search is refused before it
    starts when its estimated time is past the budget).

    >>> from analysis.system import get_system
    >>> from analysis.fighters import load_fighter
    >>> tri = get_system("tristat")
    >>> res = design(tri, tri.rules(), load_fighter(tri, "veteran"), load_fighter(tri, "veteran"),
    ...              "weapon_damage=40..60", rounds=3, lethality=0.2, top=1, workers=1)
    >>> res.best[0].setting, round(res.best[0].figures.mean_rounds, 2)
    ({'weapon_damage': 52}, 3.1)
    """
    _require_duel(system)
    vary = parse_vary(vary) if isinstance(vary, str) else _distinct(tuple(vary))
    if isinstance(rounds, bool) or not isinstance(rounds, (int, float)) or not 1 <= rounds < math.inf:
        raise ParamError("rounds", rounds, "a finite number of rounds >= 1")
    lethality = _check_probability("lethality", lethality)
    if p_win is not None:
        p_win = _check_probability("p_win", p_win)
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ParamError("top", top, "an integer >= 1")
    for v in vary:  # an integer range is valid when both ends are
        for end in (v.lo, v.hi):
            _setting_fighters(a, b, [v], [end])
    size = math.prod(v.hi - v.lo + 1 for v in vary)
    if size > MAX_SETTINGS:
        raise DicelabError(f"design: {size:,} settings is too many; allowed: at most {MAX_SETTINGS:,} (narrow --vary)")
    grid = list(itertools.product(*(range(v.lo, v.hi + 1) for v in vary)))
    fighters = [_setting_fighters(a, b, vary, values) for values in grid]
    solved = solve_duels(system, [(rules, fa, fb) for fa, fb in fighters], workers, budget, max_memory, progress,
                         "design")
    scored, skipped = [], []
    for i, f in enumerate(solved):
        if isinstance(f, str):
            skipped.append(f"{_label(vary, grid[i])}: {f}")
            continue
        probs = [(f.p_death, lethality)] + ([(f.p_a_wins, p_win)] if p_win is not None else [])
        scored.append((figure_distance(probs, (f.mean_rounds, float(rounds))), i, f))
    if not scored:
        raise DicelabError(f"design: no setting could be solved, e.g. {skipped[0]}")
    scored.sort(key=lambda t: (t[0], t[1]))
    best = tuple(DesignPoint(dict(zip((v.label for v in vary), grid[i])), describe_fighter(fighters[i][0], rules),
                             describe_fighter(fighters[i][1], rules), f, d) for d, i, f in scored[:top])
    return DesignResult(system.id, rules.to_dict(), describe_fighter(a, rules), describe_fighter(b, rules),
                        tuple(str(v) for v in vary), {"rounds": float(rounds), "lethality": lethality, "p_win": p_win},
                        len(grid), best, tuple(skipped))


def _label(vary: Sequence[Vary], values: Sequence[int]) -> str:
    return ",".join(f"{v.label}={x}" for v, x in zip(vary, values))
