"""The lab's assumptions: numbers the lab needs where no seed gives one, named in every output that rests on them.

Each system declares its assumptions once, beside its rules (``System.assumptions``, one
:class:`Assumption` a line): the field (a ruleset field or a fighter's), why the lab chose its value, the
values a designer might reasonably pick instead, and when it applies (:class:`When`, a predicate on a :class:`Use`:
what a result computes, a check, an opposed check, an exchange or a duel, with which ruleset and fighters).  Every
result then lists the applicable ones under ``assumptions`` (:func:`listed`), beside ``variants`` (the
readings of the text) and ``house_rules`` (the book's numbers changed).

>>> bonus = Assumption("no_defense_bonus", "no number in the seed", (0, 1, 2, 3),
...                    When(attacker={"stance": "no_defense"}))
>>> plain = Use({"no_defense_bonus": 2}, {"a": {"stance": "normal"}, "b": {"stance": "normal"}}, "duel")
>>> listed((bonus,), plain)
{}
>>> listed((bonus,), Use({"no_defense_bonus": 2}, {"a": {"stance": "normal"}, "b": {"stance": "no_defense"}},
...                      "duel"))["no_defense_bonus"]["value"]
2
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

USES = ("check", "opposed", "exchange", "duel", "group")
"""What a result computes: a check, an opposed check, one attack of the first fighter on the second, a duel, a
fight of two sides with more than one fighter on a side (RULES.md section 7)."""
COMBATS = ("duel", "group")
"""The uses where whole fights are played out."""
FIGHTS = ("exchange", *COMBATS)
"""The uses where fighters strike."""


@dataclass(frozen=True)
class Use:
    """What a result's numbers rest on: its ruleset and fighters (JSON-ready, as results echo them; fighters by
    role: ``a`` and ``b`` in a duel, ``attacker`` and ``defender`` in an exchange) and what it computes
    (:data:`USES`)."""

    rules: Mapping[str, Any]
    fighters: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    kind: str = "check"

    def _roles(self, index: int) -> list[Mapping[str, Any]]:
        """Who attacks (``index`` 0) or is attacked (1): in an exchange the first or the second fighter, in a fight
        everyone, elsewhere nobody."""
        fighters = list(self.fighters.values())
        if self.kind == "exchange":
            return fighters[index:index + 1]
        return fighters if self.kind in COMBATS else []

    def attacker(self, name: str, test: Any) -> bool:
        """Whether a fighter who attacks has ``name`` equal to ``test`` (or ``test(value)`` true, for a callable)."""
        return any(_holds(f.get(name), test) for f in self._roles(0))

    def defender(self, name: str, test: Any) -> bool:
        """Whether a fighter who is attacked has ``name`` equal to ``test`` (or ``test(value)`` true)."""
        return any(_holds(f.get(name), test) for f in self._roles(1))


def _holds(value: Any, test: Any) -> bool:
    return bool(test(value)) if callable(test) else value == test


def positive(value: Any) -> bool:
    """A test for :class:`When`: the field is above 0."""
    return value is not None and value > 0


@dataclass(frozen=True)
class When:
    """When an assumption applies: the result computes one of ``kinds``, its ruleset has each field of ``rules``,
    a fighter who attacks has each of ``attacker`` and one attacked has each of ``defender`` (a value, or a test
    such as :func:`positive`), and in a group fight its ruleset also has each field of ``group`` (the group
    rules that keep the duel's machinery).  Plain data, so a system (and its assumptions) travels to worker
    processes.

    >>> economy = When(COMBATS, rules={"in_economy": True}, group={"group_timing": "economy"})
    >>> economy(Use({"in_economy": True, "group_timing": "order"}, kind="duel"))
    True
    >>> economy(Use({"in_economy": True, "group_timing": "order"}, kind="group"))
    False
    """

    kinds: tuple[str, ...] = USES
    rules: Mapping[str, Any] = field(default_factory=dict)
    attacker: Mapping[str, Any] = field(default_factory=dict)
    defender: Mapping[str, Any] = field(default_factory=dict)
    group: Mapping[str, Any] = field(default_factory=dict)

    def __call__(self, use: Use) -> bool:
        rules = {**self.rules, **self.group} if use.kind == "group" else self.rules
        return (use.kind in self.kinds and all(_holds(use.rules.get(n), t) for n, t in rules.items())
                and all(use.attacker(n, t) for n, t in self.attacker.items())
                and all(use.defender(n, t) for n, t in self.defender.items()))


@dataclass(frozen=True)
class Assumption:
    """A number the lab chose where no seed gives one: the ``name`` of its field (ruleset or fighter), the
    ``reason`` in one line, the ``plausible`` values a designer might pick (the lab's among them) and when it
    ``applies``."""

    name: str
    reason: str
    plausible: tuple[Any, ...]
    applies: Callable[[Use], bool] = When()

    def value(self, use: Use) -> Any:
        """The value in force: the ruleset's, or each fighter's by role."""
        if self.name in use.rules:
            return use.rules[self.name]
        return {role: f[self.name] for role, f in use.fighters.items() if self.name in f}

    def echo(self, use: Use) -> dict[str, Any]:
        """``{"value", "reason", "plausible"}`` as every output lists it."""
        return {"value": self.value(use), "reason": self.reason, "plausible": [_plain(v) for v in self.plausible]}


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def listed(assumptions: Iterable[Assumption], use: Use) -> dict[str, dict[str, Any]]:
    """The assumptions that apply to ``use``, by field name, in declaration order (``assumptions`` in outputs)."""
    return {a.name: a.echo(use) for a in assumptions if a.applies(use)}


def declared(assumptions: Iterable[Assumption]) -> dict[str, dict[str, Any]]:
    """What each assumption is, without a use: ``{name: {"reason", "plausible"}}`` (``dicelab systems``, a sweep's
    Parquet metadata)."""
    return {a.name: {"reason": a.reason, "plausible": [_plain(v) for v in a.plausible]} for a in assumptions}


def merged(echoes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Several results' ``assumptions`` in one (a tool over many of them); the first listing of a name wins.

    >>> merged([{"x": {"value": 1}}, {"x": {"value": 2}, "y": {"value": 3}}])
    {'x': {'value': 1}, 'y': {'value': 3}}
    """
    out: dict[str, Any] = {}
    for echo in echoes:
        for name, entry in echo.items():
            out.setdefault(name, entry)
    return out
