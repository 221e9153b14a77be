"""Translate a check, or a fight, from one system to another: the nearest P(success), or the nearest duels."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Mapping

from analysis.base.params import DicelabError, ParamError
from analysis.engine.assumptions import merged
from analysis.engine.combat import describe_fighter, duel_assumptions
from analysis.engine.system import System
from analysis.fights import budget as cost
from analysis.fights.fighters import archetype, archetypes
from analysis.fights.play import check_play, played_duel
from analysis.fights.tactics import require_decisions
from analysis.tools.curve import Curve, cases_at, echo
from analysis.tools.duels import (
    DuelFigures,
    Progress,
    Unfinished,
    estimate_seconds,
    figure_distance,
    require_duel,
    solve_duels,
    worker_count,
)


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

    >>> from analysis.systems import get_system
    >>> tri, six = get_system("tristat"), get_system("onesix")
    >>> e = equiv(tri, tri.rules(), tri.args(target=7), six, six.rules(), six.args())
    >>> round(e.p_from, 4), e.value, round(e.p_to, 4)
    (0.5833, 8, 0.5741)
    """
    p_from = source.check(rules, args).p_success
    curve = Curve(target, target_rules, target_args)
    value = curve.nearest(p_from, curve.base)
    return Equivalence(echo(source, rules, args), echo(target, target_rules, target_args.replace(**{target.value: value})),
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

    >>> from analysis.systems import get_system
    >>> tri, kurs = get_system("tristat"), get_system("kurs")
    >>> t = equiv_table(tri, tri.rules(die=4), tri.args(), kurs, kurs.rules(), kurs.args())
    >>> [(r["from"], r["value"]) for r in t.rows]
    [(2, -4), (3, -3), (4, -1), (5, 0), (6, 2), (7, 3), (8, 3)]
    """
    src = Curve(source, rules, args)
    dst = Curve(target, target_rules, target_args)
    rows = []
    for v in cases_at(source, rules, args):
        value = dst.nearest(src(v), dst.base)
        rows.append({"from": v, "p_from": src(v), "value": value, "p_to": dst(value)})
    return EquivTable(echo(source, rules, args), echo(target, target_rules, target_args), source.value,
                      target.value, tuple(rows))


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
    searched: int | None = None
    """Pairings searched, in order, when an interruption stopped the search (``None``: all of them)."""
    play: str = "book"
    """How both sides played every duel (``book``, ``best`` or ``equilibrium``)."""

    @property
    def interrupted(self) -> bool:
        return self.searched is not None

    def to_dict(self) -> dict[str, Any]:
        return {"from": {**self.source, **self.figures.to_dict()}, "to": dict(self.target), "distance": self.distance,
                "pairings": self.pairings, "skipped": list(self.skipped), "matches": [m.to_dict() for m in self.matches],
                "interrupted": self.interrupted, "searched": self.pairings if self.searched is None else self.searched,
                "play": self.play}


def equiv_fight(source: System, rules: Any, a: Any, b: Any, target: System, target_rules: Any,
                top: int = 3, workers: int | None = None, budget: float | None = None,
                max_memory: float | None = None, progress: Progress | None = None,
                play: str = "book") -> FightEquivalence:
    """The ``top`` ordered archetype pairings (X, Y) of ``target`` whose duel is nearest A vs B's in ``source``,
    every duel in both systems played as ``play`` says.

    Nearness is :func:`figure_distance` on P(A wins) and mean rounds; ``budget``,
    ``max_memory`` and ``progress`` as in :func:`solve_duels`.  Ctrl-C, SIGTERM or a cancel once some pairings
    are solved return the nearest of those (``searched`` counts them).
    """
    for s in (source, target):
        require_duel(s)
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ParamError("top", top, "an integer >= 1")
    cost.check_duel(source, rules, a, b, limit_gb=max_memory)
    names = list(archetypes(target.id))
    if not names:
        raise DicelabError(f"{target.id} has no archetypes to pair")
    fighters = {n: archetype(target, n) for n in names}
    pairs = list(itertools.product(names, names))
    jobs = [(target_rules, fighters[x], fighters[y]) for x, y in pairs]
    if check_play(play) != "book":
        for s in (source, target):
            require_decisions(s)
    cost.check_budget("equiv", estimate_seconds(source, [(rules, a, b)], play=play)
                      + estimate_seconds(target, jobs, max_memory, play), worker_count(workers, len(jobs)), budget)
    figures = DuelFigures.of(played_duel(source, rules, a, b, play, option=None, limit_gb=max_memory))
    searched = None
    try:
        solved = solve_duels(target, jobs, workers, budget, max_memory, progress, "equiv", play=play)
    except Unfinished as stop:
        if not stop.done:
            raise
        solved, searched = stop.done, len(stop.done)
    matches, skipped = [], []
    for (x, y), f in zip(pairs, solved):
        if isinstance(f, str):
            skipped.append(f"{x} vs {y}: {f}")
            continue
        matches.append(FightMatch(x, y, f, figure_distance([(f.p_a_wins, figures.p_a_wins)], (f.mean_rounds, figures.mean_rounds))))
    matches.sort(key=lambda m: m.distance)
    shown = matches[:top]
    src = {"system": source.id, "variants": rules.to_dict(), "a": describe_fighter(a, rules), "b": describe_fighter(b, rules)}
    src["assumptions"] = duel_assumptions(source.id, src["variants"], src["a"], src["b"])
    dst = {"system": target.id, "variants": target_rules.to_dict()}
    duels = [[describe_fighter(fighters[x], target_rules) for x in (m.a, m.b)] for m in shown]
    dst["assumptions"] = merged([duel_assumptions(target.id, dst["variants"], *pair) for pair in duels])
    return FightEquivalence(src, dst, figures, tuple(shown), len(pairs), tuple(skipped), searched=searched, play=play)
