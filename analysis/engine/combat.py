"""Combat results shared by every system: exchanges, resolutions and duels.

A system describes one attack as a list of :class:`Branch` values (probability,
kind, damage, the defender's next condition); :func:`summarize` turns them into
an :class:`ExchangeResult`, and :func:`branch_kernel` into a Markov kernel.

Kinds partition an exchange: ``miss`` (the attack failed), ``defended`` (the
attack succeeded, the defense stopped it), ``graze`` (kurs: equal totals) and
``hit`` (damage rolled, possibly 0 after armor); ``critical`` marks the hits
that were criticals (counted in ``p_hit`` too).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from analysis.base.lazy import sp
from analysis.base.params import Choice, DicelabError, Int, Validated, param
from analysis.engine.assumptions import COMBATS, Assumption, When, merged
from analysis.engine.dist import Dist
from analysis.engine.markov import Solution, Track, kernel
from analysis.engine.registry import registered
from analysis.engine.results import assumptions_echo, dist_to_json, house_rules_echo, strict

KINDS = ("miss", "defended", "graze", "hit")
LEVELS = ("out", "dying", "dead")
AFTER_OUT = ("stop", "finish")


@dataclass(frozen=True)
class DuelRules(Validated):
    """The duel options every system's ruleset shares (RULES.md section 5); systems subclass it."""

    after_out: str = param("stop", Choice(AFTER_OUT), "stop at the first out, or finish: the other keeps attacking "
                           "the helpless one until lethal_at or finish_attacks more attacks", kind="option")
    lethal_at: str = param("dying", Choice(("dying", "dead")), "what counts as killed: dying (the level all four "
                           "systems reach) or dead (explicit death only)", kind="option")
    finish_attacks: int = param(10, Int(1, 100), "after_out=finish: at most this many attacks on the helpless one",
                                kind="option")


FINISH_ATTACKS = Assumption(
    "finish_attacks", "no seed says how long a winner keeps attacking a helpless fighter: the lab stops after this "
    "many attacks (after_out=finish)", (3, 5, 10, 20), When(COMBATS, rules={"after_out": "finish"}))
"""The duel option every system's assumptions include: it decides P(killed) under ``after_out = "finish"``."""


def exchange_assumptions(system_id: str, variants: Mapping[str, Any], attacker: Mapping[str, Any],
                         defender: Mapping[str, Any]) -> dict[str, Any]:
    """The assumptions one attack of ``attacker`` on ``defender`` rests on."""
    return assumptions_echo(system_id, variants, {"attacker": attacker, "defender": defender}, "exchange")


def duel_assumptions(system_id: str, variants: Mapping[str, Any], a: Mapping[str, Any],
                     b: Mapping[str, Any]) -> dict[str, Any]:
    """The assumptions a duel of ``a`` and ``b`` (exact or simulated) rests on."""
    return assumptions_echo(system_id, variants, {"a": a, "b": b}, "duel")


def rests_on(system_id: str, variants: Mapping[str, Any], a: Mapping[str, Any] | None = None,
             b: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The assumptions of checks under ``variants`` and, given both fighters, of their duel (a tool or a setup
    that reports both)."""
    checks = assumptions_echo(system_id, variants)
    return merged([checks, duel_assumptions(system_id, variants, a, b)]) if a is not None and b is not None else checks


@dataclass(frozen=True)
class Branch:
    """One way an attack can go."""

    p: float
    kind: str
    damage: int
    condition: int
    critical: bool = False


def describe_fighter(fighter: Any, rules: Any) -> dict[str, Any]:
    """A fighter as echoed in every output: name, parameters and derived values."""
    out: dict[str, Any] = {"name": getattr(fighter, "name", "")}
    out.update(fighter.to_dict())
    derived = fighter.derived(rules) if hasattr(fighter, "derived") else {}
    if derived:
        out["derived"] = derived
    return out


@dataclass(frozen=True)
class ExchangeResult:
    """One attack of A on B, exactly."""

    system: str
    variants: Mapping[str, Any]
    attacker: Mapping[str, Any]
    defender: Mapping[str, Any]
    p_miss: float
    p_defended: float
    p_graze: float
    p_hit: float
    p_critical: float
    damage: Dist
    condition_after: Mapping[str, float]
    """P(each condition of the defender after the attack), from fresh to worst (the track's order)."""
    notes: Sequence[str] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    """System-specific figures (Tri-Stat: P(blocked), the stat-limit warnings...)."""

    @property
    def residual(self) -> float:
        return self.damage.residual

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "variants": dict(self.variants),
            "house_rules": house_rules_echo(self.system, self.variants),
            "assumptions": exchange_assumptions(self.system, self.variants, self.attacker, self.defender),
            "attacker": dict(self.attacker),
            "defender": dict(self.defender),
            "p_miss": self.p_miss,
            "p_defended": self.p_defended,
            "p_graze": self.p_graze,
            "p_hit": self.p_hit,
            "p_critical": self.p_critical,
            "damage": dist_to_json(self.damage),
            "mean_damage": self.damage.mean(),
            "condition_after": dict(self.condition_after),
            "residual": self.residual,
            "notes": list(self.notes),
            **self.extra,
        }


def summarize(system: str, rules: Any, attacker: Any, defender: Any, branches: Sequence[Branch],
              track: Track, label: Callable[[Any], str], notes: Sequence[str] = (),
              severity: Callable[[int], Any] | None = None) -> ExchangeResult:
    """An :class:`ExchangeResult` from the branches of one attack; the defender's conditions after it are listed
    from the lightest to the worst by ``severity`` (a key of a condition's index; default: the track's order)."""
    by_kind = {k: 0.0 for k in KINDS}
    crit = 0.0
    after: dict[str, float] = {}
    rank: dict[str, int] = {}
    dmg = np.array([b.damage for b in branches], dtype=np.int64)
    probs = np.array([b.p for b in branches])
    for b in branches:
        by_kind[b.kind] += b.p
        crit += b.p if b.critical else 0.0
        name = label(track.labels[b.condition])
        after[name] = after.get(name, 0.0) + b.p
        key = (track.status[b.condition], severity(b.condition) if severity else b.condition)
        rank[name] = min(rank.get(name, key), key)
    residual = max(0.0, 1.0 - float(probs.sum()))
    return ExchangeResult(
        system=system,
        variants=rules.to_dict(),
        attacker=describe_fighter(attacker, rules),
        defender=describe_fighter(defender, rules),
        p_miss=by_kind["miss"],
        p_defended=by_kind["defended"],
        p_graze=by_kind["graze"],
        p_hit=by_kind["hit"],
        p_critical=crit,
        damage=Dist._from_arrays(dmg, probs, residual),
        condition_after=dict(sorted(after.items(), key=lambda kv: rank[kv[0]])),
        notes=tuple(notes),
    )


def branch_kernel(track: Track, branches: Callable[[int], Iterable[Branch]]) -> sp.csr_matrix:
    """The Markov kernel over the defender's track from per-condition branches."""
    return kernel(track, lambda i: ((b.p, b.condition) for b in branches(i)))


@dataclass(frozen=True)
class Resolution:
    """One exchange with the dice fixed: every step, and the result as fields."""

    system: str
    variants: Mapping[str, Any]
    attacker: Mapping[str, Any]
    defender: Mapping[str, Any]
    rolls: Mapping[str, int]
    steps: Sequence[str]
    hit: bool
    damage: int
    marked: Any
    fields: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "system": self.system,
            "variants": dict(self.variants),
            "house_rules": house_rules_echo(self.system, self.variants),
            "assumptions": exchange_assumptions(self.system, self.variants, self.attacker, self.defender),
            "attacker": dict(self.attacker),
            "defender": dict(self.defender),
            "rolls": dict(self.rolls),
            "steps": list(self.steps),
            "hit": self.hit,
            "damage": self.damage,
            "marked": self.marked,
        }
        out.update(self.fields)
        return out


@dataclass(frozen=True)
class DuelResult:
    """A duel solved exactly as an absorbing Markov chain."""

    system: str
    variants: Mapping[str, Any]
    a: Mapping[str, Any]
    b: Mapping[str, Any]
    order: str
    solution: Solution
    model: str = "exact"
    extra: Mapping[str, Any] = field(default_factory=dict)
    """System-specific figures (Tri-Stat: P(still up) against total defence, the warnings...); ``rounds_cap``,
    when present, is the round at which the system stops a fight (the fights still going are ``p_stalemate``)."""

    def to_dict(self) -> dict[str, Any]:
        s = self.solution
        out: dict[str, Any] = {
            "system": self.system,
            "model": self.model,
            "variants": dict(self.variants),
            "house_rules": house_rules_echo(self.system, self.variants),
            "assumptions": duel_assumptions(self.system, self.variants, self.a, self.b),
            "a": dict(self.a),
            "b": dict(self.b),
            "order": self.order,
            "p_a_wins": s.p_a_wins,
            "p_b_wins": s.p_b_wins,
            "p_both_out": s.p_both_out,
            "p_stalemate": s.p_stalemate,
        }
        out.update(level_fields(self.system, self.variants, {f"p_{x}_{lv}": getattr(s, f"p_{x}_{lv}")
                                                               for x in "ab" for lv in LEVELS}))
        out.update(killed_fields(self.system, out["lethal_at"], s))
        if out["p_killed"] is None:
            out["null_reasons"]["p_killed"] = out["null_reasons"]["p_a_killed"]
        out["mean_finish_attacks"] = s.finish_attacks
        cap = self.extra.get("rounds_cap")
        out.update(rounds_fields(s, cap))
        out["conditional_on"] = conditional_on(s.p_stalemate, None if s.finish_attacks is None
                                               else s.p_a_wins + s.p_b_wins, cap)
        out["truncation"] = s.truncation
        out["states"] = s.states
        out["final"] = {f"{ka}/{kb}": v for (ka, kb), v in s.final.items()}
        out.update(self.extra)
        return strict(out)


def level_fields(system_id: str, variants: Mapping[str, Any], p: Mapping[str, Any]) -> dict[str, Any]:
    """The per-fighter outcome fields of a duel: P(out), P(dying), P(dead) and P(killed) of A and B.

    ``p`` holds ``p_{a,b}_{out,dying,dead}`` (numbers, or Monte Carlo estimates
    already turned into fields); a level the system lacks becomes ``None``,
    with its reason under ``null_reasons``.  ``killed`` is the level named by
    the ``lethal_at`` option; ``lethal_at`` and ``after_out`` are echoed.
    """
    system = registered(system_id)
    lethal = variants.get("lethal_at", "dying")
    out: dict[str, Any] = {"after_out": variants.get("after_out", "stop"), "lethal_at": lethal,
                           "levels": {lv: system.levels.get(lv) for lv in LEVELS}}
    reasons: dict[str, str] = {}
    for side in "ab":
        for level in LEVELS + ("killed",):
            name = f"p_{side}_{level}"
            source = f"p_{side}_{lethal if level == 'killed' else level}"
            why = system.level_missing(lethal if level == "killed" else level)
            if why:
                out[name] = None
                reasons[name] = why
            else:
                out[name] = p[source]
    out["null_reasons"] = reasons
    return out


def killed_fields(system_id: str, lethal_at: str, s: Solution) -> dict[str, Any]:
    """P(at least one fighter killed) (``p_killed``: at the ``lethal_at`` level or worse; never above 1, unlike
    ``p_a_killed + p_b_killed``) and, under ``after_out = "finish"``, the same when at most k finishing attacks are
    allowed (``p_killed_by_finish_attacks[k]``, k = 0: the deciding blow alone); ``None`` where the system has no
    such level (the reason under ``null_reasons``) or the duel stopped at the first out."""
    if registered(system_id).level_missing(lethal_at):
        return {"p_killed": None, "p_killed_by_finish_attacks": None}
    curve = list(s.killed_by_attacks) if s.killed_by_attacks else None
    return {"p_killed": s.p_killed(lethal_at), "p_killed_by_finish_attacks": curve}


def rounds_fields(s: Solution, cap: int | None = None) -> dict[str, Any]:
    """Rounds to the first out, said plainly when a fight may never end or stops at a round ``cap`` (RULES.md
    section 5; strict JSON).

    ``mean_rounds`` and ``median_rounds`` are over the fights where someone
    goes out (``rounds_conditional`` and ``conditional_on`` say so when some
    never end, or end at the cap with nobody out); a quantile beyond the
    computed part of the distribution is ``None`` with the round it is known
    to exceed (``median_rounds_above``).  A capped fight always ends:
    ``never_ends`` is false and ``rounds_cap`` names the cap.
    """
    out: dict[str, Any] = {"rounds": {str(k): v for k, v in s.rounds.items()},
                           "mean_rounds": s.mean_rounds, "median_rounds": s.median_rounds,
                           "rounds_tail": s.rounds_tail, "never_ends": s.p_ends <= 0 and cap is None,
                           "rounds_conditional": 0 < s.p_stalemate}
    if cap is not None:
        out["rounds_cap"] = cap
    if s.median_rounds is None and s.p_ends > 0:
        out["median_rounds_above"] = s.rounds_cut
    out["rounds_note"] = never_ends_note(s.p_stalemate, cap)
    return out


def never_ends_note(p_stalemate: float, cap: int | None = None) -> str:
    """A fight that may never end, or that stops at a round ``cap`` with nobody out, in words.

    >>> never_ends_note(1.0), never_ends_note(0.02), never_ends_note(0.0)
    ('this fight never ends', '1 fight in 50 never ends; rounds are over the fights that end', '')
    >>> never_ends_note(1.0, 10)
    'every fight ends at the 10-round cap with nobody out'
    >>> never_ends_note(0.5, 10)
    '1 fight in 2 ends at the 10-round cap with nobody out; rounds are over the fights where someone goes out'
    >>> never_ends_note(0.99, 10)[:58]
    '99.0000% of the fights end at the 10-round cap with nobody'
    """
    if p_stalemate <= 0:
        return ""
    capped = cap is not None
    if p_stalemate >= 1 - 1e-12:
        return f"every fight ends at the {cap}-round cap with nobody out" if capped else "this fight never ends"
    verb = "ends" if p_stalemate <= 0.5 else "end"
    share = f"1 fight in {1 / p_stalemate:,.0f}" if p_stalemate <= 0.5 else f"{p_stalemate:.4%} of the fights"
    what = f"{verb} at the {cap}-round cap with nobody out" if capped else f"never {verb}"
    return f"{share} {what}; rounds are over the fights " + ("where someone goes out" if capped else "that end")


def conditional_on(p_unended: float, p_one_out: float | None, cap: int | None = None,
                   horizon: int | None = None) -> dict[str, str]:
    """What each conditional mean of a duel averages over (``conditional_on`` in JSON, beside the figure in text).

    ``mean_rounds`` and ``median_rounds`` are conditional when some fights do not end (``p_unended``: never, at
    the round ``cap`` with nobody out, or, simulated, not within ``horizon`` rounds); ``mean_finish_attacks``
    always is, on the fights with exactly one side out (``p_one_out``; ``None``: no finishing phase).

    >>> conditional_on(0.0, None), conditional_on(0.0, 0.5)
    ({}, {'mean_finish_attacks': 'the fights that end with exactly one side out, p = 0.5'})
    >>> conditional_on(0.25, None, cap=10)["mean_rounds"]
    'the fights where someone goes out before the 10-round cap, p = 0.75'
    """
    out = {}
    if p_unended > 0:
        where = (f"before the {cap}-round cap" if cap is not None else
                 f"within the {horizon:,} simulated rounds" if horizon is not None else "(the others never end)")
        out["mean_rounds"] = out["median_rounds"] = f"the fights where someone goes out {where}, p = {1 - p_unended:.6g}"
    if p_one_out is not None:
        out["mean_finish_attacks"] = f"the fights that end with exactly one side out, p = {p_one_out:.6g}"
    return out


def parse_rolls(text: Mapping[str, str], allowed: Sequence[str]) -> dict[str, int]:
    """``--rolls`` values as integers, names checked against the system's roll names."""
    out = {}
    for name, value in text.items():
        if name not in allowed:
            raise DicelabError(f"rolls: {name} = {value!r} is not allowed; allowed: rolls named {', '.join(allowed)}")
        try:
            out[name] = int(value)
        except ValueError:
            raise DicelabError(f"rolls: {name} = {value!r} is not allowed; allowed: an integer") from None
    return out
