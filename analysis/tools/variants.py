"""What each rule variant changes (the check table and a duel) and what each policy of a fighter does to its duel."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Sequence

from analysis.base.params import Bool, Choice, DicelabError, Faces, Int
from analysis.engine.combat import describe_fighter, duel_assumptions, rests_on
from analysis.engine.system import System
from analysis.fights import budget as cost
from analysis.fights.play import check_play
from analysis.present.tables import text
from analysis.tools.duels import (
    P_UNIT,
    ROUNDS_UNIT,
    UNSOLVED,
    DuelFigures,
    Progress,
    Unfinished,
    duel_job,
    require_duel,
    solve_valid,
)

INT_SAMPLES = 3
"""Integer variants are tried at the smallest few allowed values other than the base (and ``none``)."""


def rule_alternatives(system: System, base: Any) -> Iterator[tuple[str, Any, str]]:
    """``(field, value, label)`` for every value of every rule variant (a reading of the text) other than the base's.

    Integers: the smallest ``INT_SAMPLES`` allowed values (and ``none`` when allowed);
    die faces: the named presets.

    >>> from analysis.systems import get_system
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
            values = [(v, text(spec.to_json(v))) for v in ([None] if spec.optional and current is not None else []) + ints]
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
    warnings: tuple[str, ...] = ()
    """Setups the variant makes almost surely a slip for these fighters (:attr:`System.slips`), not refused."""
    assumptions: Mapping[str, Any] = field(default_factory=dict)
    """The lab's assumptions the variant's check table (and duel) rest on."""
    check_applies: bool = True
    """False when the check table already runs over the field (Tri-Stat's die): its check change is not applicable."""

    @property
    def effect(self) -> float:
        """Effect size in distance units: the largest of the check table's max |dP| / 0.10 and, with a duel,
        |dP(A wins)| / 0.10, |dP(at least one killed)| / 0.10 and |ln(mean rounds ratio)| / ln 1.5."""
        terms = [self.check_max_dp / P_UNIT]
        if self.duel_delta is not None:
            d = self.duel_delta
            terms += [abs(d["p_a_wins"]) / P_UNIT, abs(d["p_killed"]) / P_UNIT, abs(d["log_rounds_ratio"]) / ROUNDS_UNIT]
        return max(terms)

    def to_dict(self) -> dict[str, Any]:
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return {"name": self.name, "value": value, "label": self.label, "effect": self.effect,
                "check_max_dp": self.check_max_dp, "check_mean_dp": self.check_mean_dp, "cases": self.cases,
                "duel": self.duel.to_dict() if self.duel else None,
                "duel_delta": dict(self.duel_delta) if self.duel_delta is not None else None, "note": self.note,
                "warnings": list(self.warnings), "assumptions": dict(self.assumptions),
                "check_applies": self.check_applies}


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
    unsolved: int = 0
    """Duels an interruption left unsolved (their effects say so)."""
    play: str = "book"
    """How both sides played the duels (``book``, ``best`` or ``equilibrium``)."""

    @property
    def assumptions(self) -> dict[str, Any]:
        """The lab's assumptions the base check table (and duel) rest on."""
        return rests_on(self.system, self.variants, self.a, self.b)

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, "variants": dict(self.variants), "params": dict(self.params),
                "assumptions": self.assumptions, "a": self.a, "b": self.b,
                "base_duel": self.base_duel.to_dict() if self.base_duel else None,
                "effects": [e.to_dict() for e in self.effects], "policies": [p.to_dict() for p in self.policies],
                "interrupted": self.unsolved > 0, "unsolved": self.unsolved, "play": self.play}


@dataclass(frozen=True)
class PolicyEffect:
    """What one tactical choice of fighter A (a ``policy`` field) does to the duel against the plain B."""

    name: str
    value: Any
    label: str
    duel: DuelFigures | None
    duel_delta: Mapping[str, float] | None
    note: str = ""
    warnings: tuple[str, ...] = ()
    """Setups the option makes almost surely a slip (:attr:`System.slips`): warned, not refused."""
    assumptions: Mapping[str, Any] = field(default_factory=dict)
    """The lab's assumptions the policy's duel rests on."""

    def to_dict(self) -> dict[str, Any]:
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return {"name": self.name, "value": value, "label": self.label,
                "duel": self.duel.to_dict() if self.duel else None,
                "duel_delta": dict(self.duel_delta) if self.duel_delta is not None else None, "note": self.note,
                "warnings": list(self.warnings), "assumptions": dict(self.assumptions)}



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
             max_memory: float | None = None, progress: Progress | None = None, play: str = "book") -> VariantReport:
    """Each rule variant's effect on the standard check table and, given fighters, on their duel; and each
    policy of fighter A (the fields of kind ``policy``: stances, options) against the plain B, best for A first.
    The duels are played as ``play`` says (``best``, ``equilibrium``: the decision game; there a policy only moves
    the book both sides start from).

    A duel that raises :class:`DicelabError` (or is past the memory ceiling) is skipped with a note; the duels'
    time is estimated first (``budget``, ``max_memory``, ``progress``: as in :func:`solve_duels`).  Interrupted
    once the base duel is solved, the report holds the duels finished and counts the others (``unsolved``).

    >>> from analysis.systems import get_system
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
    if check_play(play) != "book" and a is None:
        raise DicelabError(f"variants: play = {play!r} plays a duel; allowed: give fighters A and B, or play 'book'")
    rule_alts = list(rule_alternatives(system, base))
    base_p: dict[tuple[str, int], float] = {}
    checks = [_check_effect(system, base, args, name, value, base_p) for name, value, _ in rule_alts]
    duels: list[DuelFigures | str | None] = [None] * len(rule_alts)
    base_duel, policies, solved = None, (), []
    if a is not None:
        require_duel(system)
        cost.check_duel(system, base, a, b, limit_gb=max_memory)
        policy_alts = list(alternatives(system.Fighter.specs("policy"), a))
        jobs = [(base, a, b)] + [duel_job(lambda: (base.replace(**{n: v}), a, b)) for n, v, _ in rule_alts] \
            + _policy_jobs(base, a, b, policy_alts)
        try:
            solved = _solve_with_base(system, jobs, workers, budget, max_memory, progress, "variants", play=play)
        except Unfinished as stop:
            if stop.done[0] == UNSOLVED:
                raise
            solved = _with_base(stop.done, "variants")
        base_duel, duels = solved[0], solved[1:1 + len(rule_alts)]
        policies = _ranked(_policy_effects(system, base, a, b, policy_alts, solved[1 + len(rule_alts):], base_duel,
                                           _slips(system, base, a, b, policy_alts, "policy")))
    effects = []
    dimensions = {n for _, r, _ in system.table_cases(base, args) for n in system.Rules.specs() if getattr(r, n) != getattr(base, n)}
    fa, fb = (describe_fighter(a, base), describe_fighter(b, base)) if a is not None else (None, None)
    slipped = _slips(system, base, a, b, rule_alts, "rule") if a is not None else [()] * len(rule_alts)
    for (name, value, label), (mx, mean, n), duel, slips in zip(rule_alts, checks, duels, slipped):
        note = f"the check table runs over every {name}, so it does not change" if name in dimensions else ""
        rests = rests_on(system.id, base.replace(**{name: value}).to_dict(), fa, fb)
        applies = name not in dimensions
        if isinstance(duel, str):
            skipped = "; ".join(filter(None, [note, f"duel skipped: {duel}"]))
            effects.append(VariantEffect(name, value, label, mx, mean, n, note=skipped, warnings=slips,
                                         assumptions=rests, check_applies=applies))
        elif duel is None:
            effects.append(VariantEffect(name, value, label, mx, mean, n, note=note, warnings=slips, assumptions=rests,
                                         check_applies=applies))
        else:
            effects.append(VariantEffect(name, value, label, mx, mean, n, duel, duel.delta(base_duel), note, slips,
                                         rests, applies))
    effects.sort(key=lambda e: -e.effect)
    return VariantReport(system.id, base.to_dict(), args.to_dict(), fa, fb, base_duel, tuple(effects), policies,
                         sum(duel == UNSOLVED for duel in solved), play)


def policy_effects(system: System, rules: Any, a: Any, b: Any, names: Sequence[str] | None = None,
                   workers: int | None = None, budget: float | None = None, max_memory: float | None = None,
                   progress: Progress | None = None) -> tuple[PolicyEffect, ...]:
    """What each other value of each policy field of A (``names``, default every field of kind ``policy``) does to
    its duel against the plain B, in the fields' declared order; a value the rules refuse, or a duel that fails,
    keeps its note (``budget``, ``max_memory``, ``progress``: as in :func:`~analysis.tools.duels.solve_duels`).

    >>> from analysis.systems import get_system
    >>> from analysis.fights.fighters import load_fighter
    >>> tun = get_system("tun")
    >>> a = load_fighter(tun, "trained_armed")
    >>> effect = policy_effects(tun, tun.rules(), a, a, names=["defends"], workers=1)[0]
    >>> effect.label, effect.duel_delta["p_a_wins"] < 0
    ('defends=false', True)
    """
    require_duel(system)
    specs = system.Fighter.specs("policy")
    alts = list(alternatives({n: specs[n] for n in (specs if names is None else names)}, a))
    solved = _solve_with_base(system, [(rules, a, b)] + _policy_jobs(rules, a, b, alts), workers, budget, max_memory,
                              progress, "policies")
    return _policy_effects(system, rules, a, b, alts, solved[1:], solved[0], _slips(system, rules, a, b, alts, "policy"))


def _policy_jobs(rules: Any, a: Any, b: Any, alts: Sequence[tuple[str, Any, str]]) -> list[tuple[Any, Any, Any] | str]:
    """The duel of each policy alternative of A against the plain B (or why the rules refuse it)."""
    return [duel_job(lambda: (rules, a.replace(**{n: v}), b)) for n, v, _ in alts]


def _solve_with_base(system: System, jobs: Sequence[tuple[Any, Any, Any] | str], *args: Any,
                     play: str = "book") -> list[DuelFigures | str]:
    """:func:`~analysis.tools.duels.solve_valid` over ``jobs``, whose first is the base duel: refused when it fails."""
    return _with_base(solve_valid(system, jobs, *args, play=play), args[-1])


def _with_base(solved: list[DuelFigures | str], what: str) -> list[DuelFigures | str]:
    """``solved``, whose first is the base duel, or a refusal when the base duel failed."""
    if isinstance(solved[0], str):
        raise DicelabError(f"{what}: the duel of A and B cannot be solved: {solved[0]}")
    return solved


def _slips(system: System, rules: Any, a: Any, b: Any, alts: Sequence[tuple[str, Any, str]],
           kind: str) -> list[tuple[str, ...]]:
    """Per alternative (of a ``rule`` or of A's ``policy``), the warnings of :attr:`System.slips` it brings that
    the base setup does not have (none when the system has no such check)."""
    if system.slips is None:
        return [()] * len(alts)
    base = set(system.slips(rules, a, b))
    out = []
    for name, value, _ in alts:
        r, f = (rules.replace(**{name: value}), a) if kind == "rule" else (rules, a.replace(**{name: value}))
        out.append(tuple(w for w in system.slips(r, f, b) if w not in base))
    return out


def _policy_effects(system: System, rules: Any, a: Any, b: Any, alts: Sequence[tuple[str, Any, str]],
                    solved: Sequence[DuelFigures | str], base: DuelFigures,
                    slips: Sequence[tuple[str, ...]]) -> tuple[PolicyEffect, ...]:
    """One effect per alternative of A's policies, in order, with the slips it brings and the assumptions its duel
    rests on; a duel that failed keeps its note."""
    variants, fa, fb = rules.to_dict(), describe_fighter(a, rules), describe_fighter(b, rules)
    out = []
    for (name, value, label), duel, warned in zip(alts, solved, slips):
        rests = duel_assumptions(system.id, variants, {**fa, name: value}, fb)
        out.append(PolicyEffect(name, value, label, None, None, f"duel skipped: {duel}", warned, rests)
                   if isinstance(duel, str) else PolicyEffect(name, value, label, duel, duel.delta(base), "", warned, rests))
    return tuple(out)


def _ranked(effects: Sequence[PolicyEffect]) -> tuple[PolicyEffect, ...]:
    """Policies ranked by what they do to P(A wins), largest gain first; a duel that failed last."""
    return tuple(sorted(effects, key=lambda e: (e.duel_delta is None, -(e.duel_delta or {}).get("p_a_wins", 0.0), e.label)))
