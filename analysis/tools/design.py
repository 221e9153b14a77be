"""A search over fighter settings for the duel a designer wants: mean rounds, P(at least one killed) and P(A wins)."""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from analysis.base import interrupt
from analysis.base.params import DicelabError, ParamError, shown
from analysis.engine.assumptions import merged
from analysis.engine.combat import describe_fighter, duel_assumptions
from analysis.engine.system import System
from analysis.tools.curve import check_probability
from analysis.tools.duels import DuelFigures, Progress, Unfinished, figure_distance, require_duel, solve_duels

MAX_SETTINGS = 20_000
"""The largest design grid accepted (its time is estimated, and refused past the budget, before it starts)."""
VARY = re.compile(r"^\s*(?:(a|b)\.)?([A-Za-z_]\w*)\s*=\s*(-?\d{1,9})\s*(?:\.\.\s*(-?\d{1,9})\s*)?$")
"""``[a.|b.]NAME=LO..HI``, the bounds integers of at most 9 digits (any fighter parameter is far smaller)."""


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
    if not text_.strip():
        raise DicelabError("--vary needs at least one PARAM=LO..HI")
    for item in text_.split(","):
        if not item.strip():
            raise DicelabError(f"--vary {shown(text_)} has an empty item (two commas in a row, or one at an end); "
                               "allowed: PARAM=LO..HI items separated by commas")
        m = VARY.match(item)
        if not m:
            raise DicelabError(f"--vary {shown(item.strip())} is not of the form [a.|b.]NAME=LO..HI (integers of at "
                               "most 9 digits)")
        side, name, lo, hi = m.group(1) or "both", m.group(2), int(m.group(3)), int(m.group(4) or m.group(3))
        if lo > hi:
            raise DicelabError(f"--vary {shown(item.strip())}: the range is empty (LO > HI)")
        out.append(Vary(side, name, lo, hi))
    return distinct(tuple(out))


def distinct(vary: tuple[Vary, ...]) -> tuple[Vary, ...]:
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
    assumptions: Mapping[str, Any]
    """The lab's assumptions this setting's duel rests on."""

    def to_dict(self) -> dict[str, Any]:
        return {"setting": dict(self.setting), **self.figures.to_dict(), "distance": self.distance,
                "a": dict(self.a), "b": dict(self.b), "assumptions": dict(self.assumptions)}


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
    distance: str = ("sqrt((ln(mean rounds / rounds) / ln 1.5)^2 + ((P(at least one killed) - lethality) / 0.10)^2"
                     " [+ ((P(A wins) - p_win) / 0.10)^2])")
    searched: int | None = None
    play: str = "book"
    """How both sides played the duels (``book``, ``best`` or ``equilibrium``)."""
    """Settings searched, in grid order, when an interruption stopped the search (``None``: all of them)."""

    @property
    def interrupted(self) -> bool:
        return self.searched is not None

    @property
    def assumptions(self) -> dict[str, Any]:
        """The lab's assumptions any shown setting's duel rests on (each setting lists its own)."""
        return merged([p.assumptions for p in self.best])

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, "variants": dict(self.variants), "assumptions": self.assumptions,
                "a": dict(self.a), "b": dict(self.b), "vary": list(self.vary), "wish": dict(self.wish),
                "distance": self.distance, "settings": self.settings,
                "skipped": list(self.skipped), "best": [p.to_dict() for p in self.best],
                "interrupted": self.interrupted, "searched": self.settings if self.searched is None else self.searched,
                "play": self.play}


def setting_fighters(a: Any, b: Any, vary: Sequence[Vary], values: Sequence[int]) -> tuple[Any, Any]:
    changes: dict[str, dict[str, int]] = {"a": {}, "b": {}}
    for v, x in zip(vary, values):
        for side in (("a", "b") if v.side == "both" else (v.side,)):
            changes[side][v.name] = x
    return a.replace(**changes["a"]), b.replace(**changes["b"])


def design(system: System, rules: Any, a: Any, b: Any, vary: str | Sequence[Vary], rounds: float, lethality: float,
           p_win: float | None = None, top: int = 5, workers: int | None = None, budget: float | None = None,
           max_memory: float | None = None, progress: Progress | None = None, play: str = "book") -> DesignResult:
    """Search the integer grid ``vary`` for the duels nearest the wished mean rounds, P(at least one killed) (at the
    ruleset's ``lethal_at`` level: the wished ``lethality``) and P(A wins), each duel played as ``play`` says.

    ``budget``, ``max_memory`` and ``progress``: as in :func:`solve_duels` (the search is refused before it
    starts when its estimated time is past the budget).  Ctrl-C, SIGTERM or a cancel once some settings are solved
    return the best of those (``searched`` counts them).

    >>> from analysis.systems import get_system
    >>> from analysis.fights.fighters import load_fighter
    >>> tri = get_system("tristat")
    >>> res = design(tri, tri.rules(), load_fighter(tri, "veteran"), load_fighter(tri, "veteran"),
    ...              "weapon_damage=40..60", rounds=3, lethality=0.2, top=1, workers=1)
    >>> res.best[0].setting, round(res.best[0].figures.mean_rounds, 2)
    ({'weapon_damage': 52}, 3.1)
    """
    require_duel(system)
    vary = parse_vary(vary) if isinstance(vary, str) else distinct(tuple(vary))
    if isinstance(rounds, bool) or not isinstance(rounds, (int, float)) or not 1 <= rounds < math.inf:
        raise ParamError("rounds", rounds, "a finite number of rounds >= 1")
    lethality = check_probability("lethality", lethality)
    if p_win is not None:
        p_win = check_probability("p_win", p_win)
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ParamError("top", top, "an integer >= 1")
    for v in vary:  # an integer range is valid when both ends are
        for end in (v.lo, v.hi):
            setting_fighters(a, b, [v], [end])
    size = math.prod(v.hi - v.lo + 1 for v in vary)
    if size > MAX_SETTINGS:
        raise DicelabError(f"design: {size:,} settings is too many; allowed: at most {MAX_SETTINGS:,} (narrow --vary)")
    grid = list(itertools.product(*(range(v.lo, v.hi + 1) for v in vary)))
    fighters = []
    for values in grid:
        interrupt.check()
        fighters.append(setting_fighters(a, b, vary, values))
    searched = None
    try:
        solved = solve_duels(system, [(rules, fa, fb) for fa, fb in fighters], workers, budget, max_memory, progress,
                             "design", play=play)
    except Unfinished as stop:
        if not stop.done:
            raise
        solved, searched = stop.done, len(stop.done)
    scored, skipped = [], []
    for i, f in enumerate(solved):
        if isinstance(f, str):
            skipped.append(f"{_label(vary, grid[i])}: {f}")
            continue
        probs = [(f.p_killed, lethality)] + ([(f.p_a_wins, p_win)] if p_win is not None else [])
        scored.append((figure_distance(probs, (f.mean_rounds, float(rounds))), i, f))
    if not scored:
        raise DicelabError(f"design: no setting could be solved, e.g. {skipped[0]}")
    scored.sort(key=lambda t: (t[0], t[1]))
    best = []
    for d, i, f in scored[:top]:
        fa, fb = describe_fighter(fighters[i][0], rules), describe_fighter(fighters[i][1], rules)
        best.append(DesignPoint(dict(zip((v.label for v in vary), grid[i])), fa, fb, f, d,
                                duel_assumptions(system.id, rules.to_dict(), fa, fb)))
    return DesignResult(system.id, rules.to_dict(), describe_fighter(a, rules), describe_fighter(b, rules),
                        tuple(str(v) for v in vary), {"rounds": float(rounds), "lethality": lethality, "p_win": p_win},
                        len(grid), tuple(best), tuple(skipped), searched=searched, play=play)


def _label(vary: Sequence[Vary], values: Sequence[int]) -> str:
    return ",".join(f"{v.label}={x}" for v, x in zip(vary, values))
