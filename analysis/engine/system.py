"""The descriptor every system module fills in, and the systems registered so far.

A system module (``analysis/systems/<id>``) holds its rules: a ruleset
dataclass with every variant of RULES.md, the check's parameters, and the
exact math.  It exposes them through one :class:`System` value named
``SYSTEM`` (registered in :mod:`analysis.engine.registry` when the module is
imported); the CLI, the report and the tests only talk to that value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from analysis.base.params import Validated
from analysis.engine.assumptions import Assumption


@dataclass(frozen=True)
class System:
    """One game system: its rules, check parameters and exact check math.

    ``table_cases(rules, args)`` yields ``(mode, rules, args)`` over the
    system's whole meaningful range (every die for tristat, every dice mode
    for tun); ``value`` names the check parameter the table runs over.

    Combat: ``Fighter`` (a validated dataclass), ``exchange(rules, a, b)`` ->
    :class:`~analysis.engine.combat.ExchangeResult`, ``resolve(rules, a, b, rolls)``
    -> :class:`~analysis.engine.combat.Resolution` (``roll_names`` lists the rolls it
    takes), ``duel(rules, a, b)`` -> :class:`~analysis.engine.combat.DuelResult`;
    ``combat_skills`` names the fighter parameters a "skill gap" raises.
    """

    id: str
    title: str
    title_ru: str
    seed: str
    dice: str
    Rules: type[Validated]
    CheckArgs: type[Validated]
    check: Callable[[Any, Any], Any]
    """``check(rules, args)`` -> :class:`~analysis.engine.results.CheckResult`."""
    opposed: Callable[[Any, Any, Any], Any]
    """``opposed(rules, a, b)`` -> :class:`~analysis.engine.results.OpposedResult`."""
    table_cases: Callable[[Any, Any], Iterable[tuple[str, Any, Any]]]
    value: str
    rule_flags: tuple[str, ...] = ()
    extras: Mapping[str, Any] = field(default_factory=dict)
    Fighter: type[Validated] | None = None
    exchange: Callable[[Any, Any, Any], Any] | None = None
    resolve: Callable[[Any, Any, Any, Mapping[str, int]], Any] | None = None
    duel: Callable[[Any, Any, Any], Any] | None = None
    roll_names: tuple[str, ...] = ()
    combat_skills: tuple[str, ...] = ()
    levels: Mapping[str, str | None] = field(default_factory=dict)
    """What "out", "dying" and "dead" mean in the seed's words; ``None``: the system has no such level."""
    round_seconds: float | None = None
    """How long one round lasts in the seed (``None``: the seed does not say)."""
    duel_states: Callable[[Any, Any, Any], int] | None = None
    """``duel_states(rules, a, b)``: an upper estimate of the exact duel's chain states, computed without building
    it (memory and time guards refuse a duel past a budget before it starts)."""
    slips: Callable[[Any, Any, Any], list[str]] | None = None
    """``slips(rules, a, b)``: legal setups of the pair that are almost surely a mistake (a policy that can never
    apply), one warning each; the system's results list them under ``warnings``, the tools in their notes."""

    tactics: Callable[[Any, Any, Any], Any] | None = None
    """``tactics(rules, a, b)`` -> :class:`~analysis.engine.decisions.DecisionGame`: the duel as a game of the
    decisions of RULES.md section 8 (``None``: the system does not model decisions yet)."""

    assumptions: tuple[Assumption, ...] = ()
    """The numbers the lab chose where the seed gives none (:mod:`analysis.engine.assumptions`), one a line."""
    tactics_states: Callable[[Any, Any, Any], int] | None = None
    """``tactics_states(rules, a, b)``: an upper estimate of the decision game's states, without building it (the
    memory guard of :func:`analysis.fights.budget.check_tactics`)."""
    group: Callable[[Any, Any, Any], Any] | None = None
    """``group(rules, side_a, side_b)`` -> :class:`~analysis.engine.groups.GroupResult`: a group fight of RULES.md
    section 7 solved exactly (sides are sequences of fighters; one against one is the duel, number for number;
    ``None``: not modelled yet)."""
    group_states: Callable[[Any, Any, Any], int] | None = None
    """``group_states(rules, side_a, side_b)``: an upper estimate of the exact group chain's states, without building
    it (the front end refuses past the memory budget, as for duels)."""
    group_readings: tuple[Mapping[str, Any], ...] = ()
    """Other readings of the group rules the report shows beside the default's (RULES.md section 7), each the
    ruleset fields it changes: 2K's ``{"group_timing": "order"}``."""

    def level_missing(self, level: str) -> str | None:
        """Why a duel reports ``null`` for ``level``, or ``None`` when the system has it."""
        if self.levels.get(level) is not None:
            return None
        deepest = [name for name, text in self.levels.items() if text is not None][-1]
        return f"{self.title} has no {level} level (docs/rules/README.md): its deepest is {deepest}"

    def rules(self, **variants: Any) -> Any:
        """A ruleset with the RULES.md defaults except ``variants``."""
        return self.Rules(**variants)

    def args(self, **params: Any) -> Any:
        """Validated check parameters."""
        return self.CheckArgs(**params)


