"""What a cross-system comparison runs on: each system's ruleset and its two fighters.

The report, the notebooks and ``dicelab compare`` take a :class:`Setup`; the
default is the book's rules with each system's ``trained_armed`` archetype on
both sides (fighters matched across systems by archetype), playing by the book
(``play``: how both sides play the combat figures' duels, RULES.md section 8).

>>> s = Setup.build(rules={"tristat": {"die": 8}}, a={"kurs": "veteran"})
>>> s.ruleset("tristat").die, s.fighters("kurs")[0].name, s.fighters("kurs")[1].name
(8, 'veteran', 'trained_armed')
>>> s.changed("tristat")
{'die': 8}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from analysis.engine.combat import describe_fighter, rests_on
from analysis.engine.registry import house_rules_of
from analysis.fights.fighters import load_fighter
from analysis.systems import SYSTEM_IDS, get_system

BASE = "trained_armed"
"""The archetype each system fields on both sides unless a setup says otherwise."""


@dataclass(frozen=True)
class Setup:
    """Rulesets and fighters per system id (every system present); ``name`` labels it in side-by-side figures."""

    rules: Mapping[str, Any]
    a: Mapping[str, Any]
    b: Mapping[str, Any]
    name: str = "default"
    source: str = field(default="", compare=False)
    """Where the setup came from (a config file), echoed in the report."""
    play: str = "book"
    """How both sides play the duels of the combat figures: ``book`` (their policies), ``best`` (A's best response)
    or ``equilibrium`` (:func:`~analysis.fights.play.played_duel`)."""

    @classmethod
    def build(cls, rules: Mapping[str, Any] | None = None, a: Mapping[str, Any] | None = None,
              b: Mapping[str, Any] | None = None, name: str = "default", source: str = "",
              play: str = "book") -> "Setup":
        """A setup from partial mappings: a ruleset or a mapping of its fields (text or values), and fighters
        as objects or :func:`~analysis.fights.fighters.load_fighter` specs; missing systems get the defaults."""
        if play != "book":
            from analysis.fights.play import check_play  # numba loads only for a played game

            check_play(play)
        rules, a, b = rules or {}, a or {}, b or {}
        out_rules, out_a, out_b = {}, {}, {}
        for sid in SYSTEM_IDS:
            system = get_system(sid)
            r = rules.get(sid)
            out_rules[sid] = system.Rules.from_text(dict(r)) if isinstance(r, Mapping) else (r or system.rules())
            out_a[sid] = _fighter(system, a.get(sid))
            out_b[sid] = _fighter(system, b.get(sid))
        return cls(out_rules, out_a, out_b, name, source, play)

    def ruleset(self, system_id: str) -> Any:
        return self.rules[system_id]

    def fighters(self, system_id: str) -> tuple[Any, Any]:
        return self.a[system_id], self.b[system_id]

    def changed(self, system_id: str) -> dict[str, Any]:
        """The ruleset fields (variants, constants, options) that differ from the book's defaults, JSON-ready."""
        rules = self.rules[system_id]
        book = type(rules).defaults()
        return {k: v for k, v in rules.to_dict().items() if v != book[k]}

    def echo(self) -> dict[str, Any]:
        """Everything that made the setup's numbers, per system: rules, house rules, both fighters and the lab's
        assumptions its checks and duel rest on."""
        out = {}
        for sid in SYSTEM_IDS:
            rules = self.rules[sid]
            variants, a, b = rules.to_dict(), describe_fighter(self.a[sid], rules), describe_fighter(self.b[sid], rules)
            out[sid] = {"variants": variants, "changed": self.changed(sid), "play": self.play,
                        "house_rules": house_rules_of(sid, variants), "a": a, "b": b,
                        "assumptions": rests_on(sid, variants, a, b)}
        return out


def _fighter(system: Any, spec: Any) -> Any:
    if spec is None:
        return load_fighter(system, BASE)
    return load_fighter(system, spec) if isinstance(spec, str) else spec
