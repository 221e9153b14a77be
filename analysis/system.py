"""The descriptor every system module fills in, and the registry of systems.

A system module (``analysis/systems/<id>.py``) holds its rules: a ruleset
dataclass with every variant of RULES.md, the check's parameters, and the
exact math.  It exposes them through one :class:`System` value named
``SYSTEM``; the CLI, the report and the tests only talk to that value.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from .params import DicelabError, Validated, shown

if TYPE_CHECKING:  # the registry stays light: a system module is imported only when asked for
    from .results import CheckResult, OpposedResult

SYSTEM_IDS = ("tristat", "onesix", "tun", "kurs")


@dataclass(frozen=True)
class System:
    """One game system: its rules, check parameters and exact check math.

    ``table_cases(rules, args)`` yields ``(mode, rules, args)`` over the
    system's whole meaningful range (every die for tristat, every dice mode
    for tun); ``value`` names the check parameter the table runs over.

    Combat: ``Fighter`` (a validated dataclass), ``exchange(rules, a, b)`` ->
    :class:`~analysis.combat.ExchangeResult`, ``resolve(rules, a, b, rolls)``
    -> :class:`~analysis.combat.Resolution` (``roll_names`` lists the rolls it
    takes), ``duel(rules, a, b)`` -> :class:`~analysis.combat.DuelResult`;
    ``combat_skills`` names the fighter parameters a "skill gap" raises.
    """

    id: str
    title: str
    title_ru: str
    seed: str
    dice: str
    Rules: type[Validated]
    CheckArgs: type[Validated]
    check: Callable[[Any, Any], CheckResult]
    opposed: Callable[[Any, Any, Any], OpposedResult]
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


def get_system(system_id: str) -> System:
    """The system with this id.

    >>> get_system("kurs").title_ru
    'К.У.Р.С.'
    """
    if system_id not in SYSTEM_IDS:
        raise DicelabError(f"system = {shown(system_id)} is not allowed; allowed: one of {', '.join(SYSTEM_IDS)}")
    return importlib.import_module(f"analysis.systems.{system_id}").SYSTEM


def house_rules_of(system_id: str, variants: Mapping[str, Any]) -> dict[str, Any]:
    """The rule constants in a result's ``variants`` echo that differ from the book.

    >>> house_rules_of("tristat", get_system("tristat").rules().to_dict())
    {}
    """
    from .params import changed_constants

    return changed_constants(get_system(system_id).Rules, variants)


def all_systems() -> list[System]:
    """The four systems in their canonical order."""
    return [get_system(s) for s in SYSTEM_IDS]


def check(system_id: str, variants: Mapping[str, Any] | None = None, **params: Any) -> CheckResult:
    """One exact check by system id, variants and check parameters.

    >>> round(check("tristat", target=7).p_success, 6)
    0.583333
    """
    system = get_system(system_id)
    return system.check(system.rules(**dict(variants or {})), system.args(**params))
